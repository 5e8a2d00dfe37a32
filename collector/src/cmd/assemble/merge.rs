//! The merge itself: parts of one run joined into one result, each stage
//! from one part, a cache trial's pairs completed by its restore's part.

use anyhow::bail;
use runner_bench_format::MeasuredResult;

/// A part's cache restores come from other OS instances than their saves:
/// that is what a cache trial measures.
fn restores_elsewhere(name: &str, part: &MeasuredResult) -> anyhow::Result<()> {
    let Some(cache) = &part.stages.cache else { return Ok(()) };
    for (i, pair) in cache.pairs.iter().enumerate() {
        if let Some(restore) = &pair.restore
            && restore.instance.same_as(&pair.save.instance) == Some(true)
        {
            bail!(
                "{name}: $.stages.cache.pairs[{i}].restore.instance is boot_id {}, machine_id {}, the OS instance of \
                 its save; a restore must come from another instance of the runner label",
                restore.instance.boot_id,
                restore.instance.machine_id
            );
        }
    }
    Ok(())
}

/// Merges named parts into the first one. The parts must be jobs of one
/// GitHub Actions run (its attempts may differ: re-running a failed job
/// replaces only that job's part) on one runner label of one provider, so
/// on machines of one kind: the same OS, architecture and logical CPUs.
/// Each job has its own OS instance; only a restore's is checked, against
/// its save's. The CPU model, memory and kernel are not compared: a label's
/// fleet may mix CPU models, and firmware and image updates move the rest.
pub fn merge(parts: Vec<(String, MeasuredResult)>) -> anyhow::Result<MeasuredResult> {
    let mut iter = parts.into_iter();
    let Some((first_name, mut out)) = iter.next() else { bail!("no parts to assemble") };
    restores_elsewhere(&first_name, &out)?;
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
        let binary =
            |r: &MeasuredResult| r.collector.binary.as_ref().map_or("unknown".to_string(), |b| b.sha256.to_string());
        differs("collector binary", &binary(&out), &binary(&part))?;
        let run = |r: &MeasuredResult| {
            r.provenance.github.as_ref().map_or("none (provenance.github is absent)".to_string(), |gh| {
                format!("{} of {}", gh.run_id, gh.repository)
            })
        };
        differs("GitHub Actions run (provenance.github.run_id)", &run(&out), &run(&part))?;
        let (mine, theirs) = (&out.machine, &part.machine);
        differs("machine.os", mine.os.name(), theirs.os.name())?;
        differs("machine.arch", mine.arch.as_str(), theirs.arch.as_str())?;
        differs("machine.logical_cpus", &mine.logical_cpus.to_string(), &theirs.logical_cpus.to_string())?;
        restores_elsewhere(&name, &part)?;
        let once = |stage: &str, mine: bool, theirs: bool| -> anyhow::Result<()> {
            if mine && theirs {
                bail!("{name}: the {stage} stage is also in an earlier part; each stage may come from one part only");
            }
            Ok(())
        };
        let s = part.stages;
        once("cpu", out.stages.cpu.is_some(), s.cpu.is_some())?;
        once("cpu_allcore", out.stages.cpu_allcore.is_some(), s.cpu_allcore.is_some())?;
        once("disk", out.stages.disk.is_some(), s.disk.is_some())?;
        once("internet", out.stages.internet.is_some(), s.internet.is_some())?;
        once("http_cache", out.stages.http_cache.is_some(), s.http_cache.is_some())?;
        out.stages.cpu = out.stages.cpu.or(s.cpu);
        out.stages.cpu_allcore = out.stages.cpu_allcore.or(s.cpu_allcore);
        out.stages.disk = out.stages.disk.or(s.disk);
        out.stages.internet = out.stages.internet.or(s.internet);
        out.stages.http_cache = out.stages.http_cache.or(s.http_cache);
        out.stages.cache = match (out.stages.cache.take(), s.cache) {
            (Some(mut mine), Some(theirs)) => {
                if mine.payload_sha256 != theirs.payload_sha256 {
                    bail!("{name}: its cache payload differs from {first_name}'s; every trial must use the same bytes");
                }
                for b in theirs.backends {
                    match mine.backends.iter().find(|m| m.id == b.id) {
                        None => mine.backends.push(b),
                        Some(m) if m.kind != b.kind => bail!(
                            "{name}: cache backend {} is {} here but {} in an earlier part; one run's parts name \
                             one backend by one id",
                            b.id,
                            b.kind.name(),
                            m.kind.name()
                        ),
                        Some(_) => {}
                    }
                }
                // The save job's part has a pair without its restore; the
                // restore job's part has the same pair complete: keep that.
                for pair in theirs.pairs {
                    if let Some(p) = mine
                        .pairs
                        .iter()
                        .find(|p| p.trial == pair.trial && p.backend == pair.backend && p.key != pair.key)
                    {
                        bail!(
                            "{name}: trial {} of cache backend {} has key {} here but {} in an earlier part; a run \
                             saves each trial to each backend once",
                            pair.trial,
                            pair.backend,
                            pair.key,
                            p.key
                        );
                    }
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
        // After a re-run, the run's latest attempt names the result.
        if let (Some(mine), Some(theirs)) = (out.provenance.github.as_mut(), part.provenance.github.as_ref()) {
            mine.run_attempt = mine.run_attempt.max(theirs.run_attempt);
        }
        out.notices.extend(part.notices);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use runner_bench_format::{Name, Slug};

    use super::*;
    use crate::test_support::golden;

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

    /// A part of `golden()` with no stages, so that only identity is merged.
    fn bare() -> MeasuredResult {
        let mut r = golden();
        r.stages = Default::default();
        r
    }

    fn refusal(a: MeasuredResult, b: MeasuredResult) -> String {
        merge(vec![("a.json".into(), a), ("b.json".into(), b)]).unwrap_err().to_string()
    }

    #[test]
    fn refuses_parts_of_other_providers() {
        let mut other = bare();
        other.provider.id = Slug::new("other").unwrap();
        assert_eq!(
            refusal(bare(), other),
            "b.json: its provider is other but a.json has example; only parts of one run can be assembled"
        );
    }

    #[test]
    fn refuses_parts_of_other_github_runs() {
        let mut other = bare();
        other.provenance.github.as_mut().unwrap().run_id = 7;
        assert_eq!(
            refusal(bare(), other),
            "b.json: its GitHub Actions run (provenance.github.run_id) is 7 of runner-bench/runner-bench but a.json \
             has 18342215517 of runner-bench/runner-bench; only parts of one run can be assembled"
        );
        let mut fork = bare();
        fork.provenance.github.as_mut().unwrap().repository = Name::lossy("someone/fork");
        assert_eq!(
            refusal(bare(), fork),
            "b.json: its GitHub Actions run (provenance.github.run_id) is 18342215517 of someone/fork but a.json has \
             18342215517 of runner-bench/runner-bench; only parts of one run can be assembled"
        );
        let mut local = bare();
        local.provenance.github = None;
        assert_eq!(
            refusal(local, bare()),
            "b.json: its GitHub Actions run (provenance.github.run_id) is 18342215517 of runner-bench/runner-bench \
             but a.json has none (provenance.github is absent); only parts of one run can be assembled"
        );
    }

    #[test]
    fn parts_of_two_attempts_of_one_run_are_joined_under_the_latest() {
        // Re-running a failed job replaces that job's part only.
        let mut rerun = bare();
        rerun.provenance.github.as_mut().unwrap().run_attempt = 2;
        let merged = merge(vec![("a.json".into(), golden()), ("b.json".into(), rerun)]).unwrap();
        assert_eq!(merged.provenance.github.unwrap().run_attempt, 2);
    }

    #[test]
    fn refuses_parts_of_other_kinds_of_machine() {
        let mut windows = bare();
        windows.machine.os = runner_bench_format::Os::Windows;
        assert_eq!(
            refusal(bare(), windows),
            "b.json: its machine.os is windows but a.json has linux; only parts of one run can be assembled"
        );
        let mut arm = bare();
        arm.machine.arch = Slug::new("arm64").unwrap();
        assert_eq!(
            refusal(bare(), arm),
            "b.json: its machine.arch is arm64 but a.json has x64; only parts of one run can be assembled"
        );
        let mut bigger = bare();
        bigger.machine.logical_cpus *= 2;
        assert_eq!(
            refusal(bare(), bigger),
            format!(
                "b.json: its machine.logical_cpus is {} but a.json has {}; only parts of one run can be assembled",
                bare().machine.logical_cpus * 2,
                bare().machine.logical_cpus
            )
        );
        // Another instance of the same kind is what every job gets.
        let mut next_job = bare();
        next_job.machine.instance.boot_id = Name::lossy("another-boot");
        next_job.machine.cpu_model = Name::lossy("another CPU model of the label's fleet");
        let merged = merge(vec![("a.json".into(), golden()), ("b.json".into(), next_job)]).unwrap();
        // The first part's machine and stages stand; the other instance is
        // accepted, not copied over them.
        assert_eq!((merged.machine, merged.stages), (golden().machine, golden().stages));
    }

    #[test]
    fn refuses_a_restore_on_its_saves_instance() {
        let mut restore_job = bare();
        let mut cache = golden().stages.cache.unwrap();
        let save = cache.pairs[1].save.instance.clone();
        cache.pairs[1].restore.as_mut().unwrap().instance = save.clone();
        restore_job.stages.cache = Some(cache);
        let want = format!(
            "$.stages.cache.pairs[1].restore.instance is boot_id {}, machine_id {}, the OS instance of its save; a \
             restore must come from another instance of the runner label",
            save.boot_id, save.machine_id
        );
        assert_eq!(refusal(bare(), restore_job.clone()), format!("b.json: {want}"));
        // The first part is checked too.
        let err = merge(vec![("a.json".into(), restore_job), ("b.json".into(), bare())]).unwrap_err();
        assert_eq!(err.to_string(), format!("a.json: {want}"));
    }

    #[test]
    fn refuses_a_stage_twice() {
        let err = merge(vec![("a.json".into(), golden()), ("b.json".into(), golden())]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "b.json: the cpu stage is also in an earlier part; each stage may come from one part only"
        );
    }

    #[test]
    fn parts_of_two_collector_binaries_are_refused() {
        use runner_bench_format::measured::Binary;
        let mut a = golden();
        a.stages = Default::default();
        let mut b = a.clone();
        let sha = |c: char| runner_bench_format::Sha256Hex::new(c.to_string().repeat(64)).unwrap();
        a.collector.binary = Some(Binary { sha256: sha('a'), target: Name::lossy("x86_64-unknown-linux-gnu") });
        b.collector.binary = Some(Binary { sha256: sha('b'), target: Name::lossy("x86_64-unknown-linux-gnu") });
        let err = merge(vec![("a.json".into(), a), ("b.json".into(), b)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "b.json: its collector binary is {} but a.json has {}; only parts of one run can be assembled",
                "b".repeat(64),
                "a".repeat(64)
            )
        );
    }
}
