//! `collector assemble`: merge the partial results that separate jobs of one
//! run wrote (the cache stage saves in one job and restores in another) into
//! one result file.
//!
//! Parts must share fingerprint, provider and runner. A stage may come from
//! one part only, except the cache stage, whose backends and pairs are
//! joined (its payload must be the same bytes in every part).

use anyhow::{Context, bail};
use runner_bench_format::{AnyResult, MeasuredResult, read_file, to_json};

use crate::cli::AssembleArgs;
use crate::output::ResultWriter;

pub fn run(args: AssembleArgs) -> anyhow::Result<()> {
    let writer = ResultWriter::create(&args.out)?;
    let mut parts = Vec::new();
    for path in &args.parts {
        match read_file(path)? {
            AnyResult::Measured(r) => {
                if let Some(p) = r.problems().first() {
                    bail!("{}: {}: {}", path.display(), p.field, p.reason);
                }
                parts.push((path.display().to_string(), *r))
            }
            AnyResult::Imported(_) => bail!("{}: an imported result cannot be part of a run", path.display()),
        }
    }
    let merged = merge(parts)?;
    writer.write(&to_json(&merged)).context("cannot write the merged result")
}

/// Merges named parts into the first one.
pub fn merge(parts: Vec<(String, MeasuredResult)>) -> anyhow::Result<MeasuredResult> {
    let mut iter = parts.into_iter();
    let Some((first_name, mut out)) = iter.next() else { bail!("no parts to assemble") };
    for (name, part) in iter {
        let differs = |what: &str, a: &str, b: &str| -> anyhow::Result<()> {
            if a != b {
                bail!("{name}: its {what} is {b} but {first_name} has {a}; only parts of one run can be assembled");
            }
            Ok(())
        };
        differs("fingerprint", out.fingerprint.as_str(), part.fingerprint.as_str())?;
        differs("provider", out.provider.id.as_str(), part.provider.id.as_str())?;
        differs("runner", out.runner.label.as_str(), part.runner.label.as_str())?;
        let once = |stage: &str, mine: bool, theirs: bool| -> anyhow::Result<()> {
            if mine && theirs {
                bail!("{name}: the {stage} stage is also in an earlier part; each stage may come from one part only");
            }
            Ok(())
        };
        let s = part.stages;
        once("cpu", out.stages.cpu.is_some(), s.cpu.is_some())?;
        once("disk", out.stages.disk.is_some(), s.disk.is_some())?;
        once("internet", out.stages.internet.is_some(), s.internet.is_some())?;
        once("http_cache", out.stages.http_cache.is_some(), s.http_cache.is_some())?;
        out.stages.cpu = out.stages.cpu.or(s.cpu);
        out.stages.disk = out.stages.disk.or(s.disk);
        out.stages.internet = out.stages.internet.or(s.internet);
        out.stages.http_cache = out.stages.http_cache.or(s.http_cache);
        out.stages.cache = match (out.stages.cache.take(), s.cache) {
            (Some(mut mine), Some(theirs)) => {
                if mine.payload_sha256 != theirs.payload_sha256 {
                    bail!("{name}: its cache payload differs from {first_name}'s; every trial must use the same bytes");
                }
                for b in theirs.backends {
                    if !mine.backends.iter().any(|m| m.id == b.id) {
                        mine.backends.push(b);
                    }
                }
                // The save job's part has a pair without its restore; the
                // restore job's part has the same pair complete: keep that.
                for pair in theirs.pairs {
                    let same = |p: &runner_bench_format::measured::CachePair| {
                        p.trial == pair.trial && p.backend == pair.backend && p.key == pair.key
                    };
                    match mine.pairs.iter_mut().find(|p| same(p)) {
                        Some(p) if p.restore.is_none() => *p = pair,
                        Some(_) if pair.restore.is_none() => {}
                        Some(_) => bail!("{name}: cache pair {} is also complete in an earlier part", pair.key),
                        None => mine.pairs.push(pair),
                    }
                }
                Some(mine)
            }
            (mine, theirs) => mine.or(theirs),
        };
        if part.provenance.started_at.instant() < out.provenance.started_at.instant() {
            out.provenance.started_at = part.provenance.started_at;
        }
        if part.provenance.finished_at.instant() > out.provenance.finished_at.instant() {
            out.provenance.finished_at = part.provenance.finished_at;
        }
        out.notices.extend(part.notices);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use runner_bench_format::Slug;

    fn golden() -> MeasuredResult {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/tests/golden/result-v1.json");
        match read_file(&path).unwrap() {
            AnyResult::Measured(r) => *r,
            AnyResult::Imported(_) => panic!("golden is measured"),
        }
    }

    #[test]
    fn joins_stages_from_two_jobs() {
        let full = golden();
        let mut save_job = full.clone();
        save_job.stages.cpu = None;
        let mut cpu_job = full.clone();
        cpu_job.stages.cache = None;
        cpu_job.stages.disk = None;
        cpu_job.stages.internet = None;
        cpu_job.stages.http_cache = None;
        cpu_job.notices.clear();
        let merged = merge(vec![("a.json".into(), save_job), ("b.json".into(), cpu_job)]).unwrap();
        assert_eq!(merged.stages, full.stages);
    }

    #[test]
    fn refuses_parts_of_other_runners() {
        let mut other = golden();
        other.runner.label = Slug::new("other-runner").unwrap();
        other.stages = Default::default();
        let err = merge(vec![("a.json".into(), golden()), ("b.json".into(), other)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "b.json: its runner is other-runner but a.json has example-linux-x64; only parts of one run can be assembled"
        );
    }

    #[test]
    fn refuses_a_stage_twice() {
        let err = merge(vec![("a.json".into(), golden()), ("b.json".into(), golden())]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "b.json: the cpu stage is also in an earlier part; each stage may come from one part only"
        );
    }
}
