//! `collector assemble`: merge the partial results that separate jobs of one
//! run wrote (the cache stage saves in one job and restores in another) into
//! one result file.
//!
//! Parts must share fingerprint, provider and runner. A stage may come from
//! one part only, except the cache stage, whose backends and pairs are
//! joined (its payload must be the same bytes in every part).
//!
//! With `--jobs` (the workflow's `toJSON(needs)`), every job's conclusion is
//! recorded in `provenance.jobs`, and each job that did not succeed adds a
//! notice: a failed, cancelled or skipped job leaves its part missing or
//! partial, and the published result must show the run as incomplete rather
//! than lose it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use runner_bench_format::measured::{Conclusion, JobOutcome};
use runner_bench_format::{AnyResult, MeasuredResult, Message, Name, Notice, Slug, read_file, to_json};
use serde::Deserialize;

use crate::result::output::ResultWriter;

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("dest").required(true).args(["out", "results_dir"]))]
pub struct AssembleArgs {
    /// Merged result file to write.
    #[arg(long)]
    pub out: Option<PathBuf>,

    /// Write the merged result under this folder at its submission path,
    /// `<provider>/<runner>/<date>-<run_id>-<attempt>.json` (a GitHub
    /// Actions run's id and attempt), and print that path to the step's
    /// `path` output when GITHUB_OUTPUT is set.
    #[arg(long)]
    pub results_dir: Option<PathBuf>,

    /// The workflow's job conclusions, as GitHub's `toJSON(needs)` prints
    /// them (`{"measure": {"result": "success", ...}, ...}`). A job that did
    /// not succeed becomes a notice, and the stages or cache trial it
    /// measures count as attempted and not completed.
    #[arg(long, env = "RUNNER_BENCH_JOBS")]
    pub jobs: Option<String>,

    /// A notice to add to the result under the stage `workflow`, e.g. where
    /// the workflow took the collector from; repeat for more.
    #[arg(long = "notice")]
    pub notices: Vec<String>,

    /// Partial result files of one run, e.g. the save job's and the restore
    /// job's. They must share fingerprint, provider and runner.
    #[arg(required = true, num_args = 1..)]
    pub parts: Vec<PathBuf>,
}

pub fn run(args: AssembleArgs) -> anyhow::Result<()> {
    let jobs = match args.jobs.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => parse_jobs(text)?,
        _ => Vec::new(),
    };
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
    let mut merged = merge(parts)?;
    // Each part passed its checks; the merge must too (a backend or a pair
    // two parts give differently).
    if let Some(p) = merged.problems().first() {
        bail!("the merged result: {}: {}", p.field, p.reason);
    }
    record_jobs(&mut merged, jobs);
    for text in &args.notices {
        merged.notices.push(Notice { stage: Name::lossy("workflow"), message: Message::lossy(text) });
    }
    let out = match (&args.out, &args.results_dir) {
        (Some(out), _) => out.clone(),
        (None, Some(dir)) => {
            let path = dir.join(submission_path(&merged)?);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
            }
            path
        }
        (None, None) => bail!("give --out or --results-dir"),
    };
    let writer = ResultWriter::create(&out)?;
    writer.write(&to_json(&merged)).context("cannot write the merged result")?;
    say!("wrote {}", out.display());
    // The workflow needs the path; the summary is only a view of the file.
    crate::result::summary::append_to_github_file("GITHUB_OUTPUT", &format!("path={}\n", out.display()))?;
    if let Err(e) = crate::result::summary::append_to_step_summary(&merged) {
        say!("warning: {e:#}");
    }
    Ok(())
}

/// Where a submitted result lives: `<provider>/<runner>/<date>-<run_id>-<attempt>.json`,
/// the date being the run's start (UTC).
pub fn submission_path(result: &MeasuredResult) -> anyhow::Result<PathBuf> {
    let Some(gh) = &result.provenance.github else {
        bail!("the parts record no GitHub Actions run, so the result has no run id for its file name; use --out")
    };
    let date = result.provenance.started_at.instant().strftime("%Y-%m-%d");
    Ok(Path::new(result.provider.id.as_str())
        .join(result.runner.label.as_str())
        .join(format!("{date}-{}-{}.json", gh.run_id, gh.run_attempt)))
}

/// One entry of GitHub's `needs` context.
#[derive(Debug, Deserialize)]
struct Need {
    result: String,
}

/// The workflow's jobs and what each measures, in the workflow's order:
/// `measure` runs the CPU, disk and internet stages; `save-N`, `gap-N` and
/// `restore-N` are cache trial N. Other jobs measure nothing.
fn parse_jobs(text: &str) -> anyhow::Result<Vec<JobOutcome>> {
    let needs: BTreeMap<String, Need> = serde_json::from_str(text)
        .context("--jobs: not the JSON of GitHub's needs context ({\"job\": {\"result\": \"success\"}, ...})")?;
    let mut jobs = Vec::new();
    for (id, need) in needs {
        let conclusion = match need.result.as_str() {
            "success" => Conclusion::Success,
            "failure" => Conclusion::Failure,
            "cancelled" => Conclusion::Cancelled,
            "skipped" => Conclusion::Skipped,
            other => bail!(
                "--jobs: job {id} has result {other:?}; GitHub's results are success, failure, cancelled and skipped"
            ),
        };
        let (stages, trial): (&[&str], Option<u32>) = match id.as_str() {
            "measure" => (&["cpu", "cpu_allcore", "disk", "internet"], None),
            _ => match id.split_once('-') {
                Some(("save" | "gap" | "restore", n)) => match n.parse() {
                    Ok(trial) => (&["cache"], Some(trial)),
                    Err(_) => bail!(
                        "--jobs: job {id} names no cache trial; the workflow's trial jobs are save-N, gap-N and restore-N"
                    ),
                },
                _ => (&[], None),
            },
        };
        let job = Slug::new(id.clone()).map_err(|e| anyhow::anyhow!("--jobs: job id {id:?}: {e}"))?;
        jobs.push(JobOutcome { job, conclusion, stages: stages.iter().map(|s| Name::lossy(s)).collect(), trial });
    }
    // The workflow's order: measure, then each trial's save, gap, restore.
    let phase = |j: &JobOutcome| match j.job.as_str().split_once('-').map(|(p, _)| p) {
        Some("save") => 0,
        Some("gap") => 1,
        Some("restore") => 2,
        _ => 3,
    };
    jobs.sort_by_key(|j| (j.trial.is_some(), j.trial, phase(j)));
    Ok(jobs)
}

/// Records the jobs, and a notice for each that did not succeed.
fn record_jobs(result: &mut MeasuredResult, jobs: Vec<JobOutcome>) {
    for j in jobs.iter().filter(|j| j.conclusion != Conclusion::Success) {
        let what = match (j.trial, j.stages.is_empty()) {
            (Some(t), _) => format!("trial {t}'s cache pairs are attempted and not completed"),
            (None, false) => format!(
                "its {} samples are attempted and not completed",
                j.stages.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
            (None, true) => "it measures nothing".to_string(),
        };
        result.notices.push(Notice {
            stage: Name::lossy("workflow"),
            message: Message::lossy(&format!("job {} ended with conclusion {}: {what}", j.job, j.conclusion.name())),
        });
    }
    result.provenance.jobs = jobs;
}

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
        // As the file spells it.
        let os = |m: &runner_bench_format::measured::Machine| format!("{:?}", m.os).to_lowercase();
        differs("machine.os", &os(mine), &os(theirs))?;
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
    fn failed_jobs_become_notices_in_the_workflows_order() {
        let needs = r#"{"restore-2": {"result": "failure", "outputs": {}}, "measure": {"result": "success"},
            "save-1": {"result": "success"}, "gap-2": {"result": "success"}, "save-2": {"result": "success"},
            "submit": {"result": "skipped"}}"#;
        let jobs = parse_jobs(needs).unwrap();
        let order: Vec<&str> = jobs.iter().map(|j| j.job.as_str()).collect();
        assert_eq!(order, ["measure", "submit", "save-1", "save-2", "gap-2", "restore-2"]);
        assert_eq!(jobs[5].trial, Some(2));
        assert_eq!(
            jobs[0].stages.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            ["cpu", "cpu_allcore", "disk", "internet"]
        );
        let mut r = golden();
        let before = r.notices.len();
        record_jobs(&mut r, jobs);
        let added: Vec<&str> = r.notices[before..].iter().map(|n| n.message.as_str()).collect();
        assert_eq!(
            added,
            [
                "job submit ended with conclusion skipped: it measures nothing",
                "job restore-2 ended with conclusion failure: trial 2's cache pairs are attempted and not completed"
            ]
        );
        assert_eq!(r.provenance.jobs.len(), 6);
    }

    #[test]
    fn a_trial_job_without_a_trial_number_is_refused() {
        let err = parse_jobs(r#"{"save-x": {"result": "failure"}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--jobs: job save-x names no cache trial; the workflow's trial jobs are save-N, gap-N and restore-N"
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

    #[test]
    fn a_result_the_needs_context_cannot_have_is_refused() {
        let err = parse_jobs(r#"{"measure": {"result": "neutral"}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--jobs: job measure has result \"neutral\"; GitHub's results are success, failure, cancelled and skipped"
        );
    }

    #[test]
    fn the_submission_path_names_provider_runner_date_run_and_attempt() {
        let r = golden();
        let gh = r.provenance.github.as_ref().unwrap();
        let want = format!(
            "example/example-linux-x64/{}-{}-{}.json",
            r.provenance.started_at.instant().strftime("%Y-%m-%d"),
            gh.run_id,
            gh.run_attempt
        );
        assert_eq!(submission_path(&r).unwrap(), PathBuf::from(want));
    }
}
