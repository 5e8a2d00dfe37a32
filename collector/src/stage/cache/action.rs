//! The action method: a real cache action runs as a workflow step between
//! two collector steps, `collector cache prepare` and `collector cache
//! record`, and is timed from the end of the first to the start of the
//! second (the action, its node start-up and the adjacent step
//! transitions, as the published protocol times it).
//!
//! This module holds what those two steps share: the catalogue of actions
//! (`CATALOGUE`, which benchmark.yml mirrors step for step), the zstd shim
//! that forces one compression thread and observes the processes above it,
//! the reading of the shim's log into an `ActionStep`, the state file that
//! carries the start time from one step to the next, and a clock that two
//! processes can share.

use std::path::{Path, PathBuf};

use anyhow::Context;
use runner_bench_format::measured::{ActionStep, Observation, ObservedProcess};
use runner_bench_format::{Affinity, Message, Name, Slug};
use serde::{Deserialize, Serialize};

/// A cache action the benchmark workflow can run: its id (the value of
/// the workflow's `cache-actions` lines and of `prepare`'s `action`
/// output), the name reports print, and the steps' `uses:`. Every entry has
/// one save and one restore step per slot in benchmark.yml with exactly
/// these `uses:` (a test checks it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogueEntry {
    pub id: &'static str,
    pub name: &'static str,
    pub save_uses: &'static str,
    pub restore_uses: &'static str,
    /// The hosts the runtime service URL given to actions may have
    /// (routing patterns, as `--backend`'s `routing=`); `*` where the
    /// action talks to its own service, which no step can observe.
    pub routing: &'static str,
    /// Variables of which at least one must be set in the job for the
    /// action to reach its provider's cache: without them it silently uses
    /// GitHub's cache or does nothing, so prepare refuses to time it.
    pub requires: &'static [&'static str],
}

/// The actions, each pinned to a commit (the version in the comment is
/// the tag or branch that pointed at it when it was read). Not here:
/// cirruslabs/cache, whose newest version (the v4 branch, 35099f23) runs on
/// Node 20, which the runner drops, and which reaches Cirrus Runners' cache
/// only with an OIDC token: a job holding one could sign a result as the
/// benchmark workflow (docs/cache.md).
pub const CATALOGUE: &[CatalogueEntry] = &[
    CatalogueEntry {
        id: "actions-cache",
        // GitHub's cache; on runners whose provider transparently takes over
        // the cache service's traffic, that provider's cache.
        name: "actions/cache",
        // v5.0.5
        save_uses: "actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae",
        restore_uses: "actions/cache/restore@27d5ce7f107fe9357f9df03efb73ab90386fccae",
        routing: "*.actions.githubusercontent.com",
        requires: &[],
    },
    CatalogueEntry {
        id: "warpbuild",
        name: "WarpBuilds/cache",
        // v1.4.11; works only on WarpBuild's runners.
        save_uses: "WarpBuilds/cache/save@6ab98e7fdd65255995acec1de229a0bf2a40fe37",
        restore_uses: "WarpBuilds/cache/restore@6ab98e7fdd65255995acec1de229a0bf2a40fe37",
        routing: "*",
        requires: &["WARPBUILD_RUNNER_VERIFICATION_TOKEN"],
    },
    CatalogueEntry {
        id: "runs-on",
        name: "runs-on/cache",
        // v5.0.7 (the v5 branch); S3 when RUNS_ON_S3_BUCKET_CACHE is set,
        // else GitHub's cache.
        save_uses: "runs-on/cache/save@88d90644011a3a9957fd141a106f5a94f9794203",
        restore_uses: "runs-on/cache/restore@88d90644011a3a9957fd141a106f5a94f9794203",
        routing: "*",
        requires: &["RUNS_ON_S3_BUCKET_CACHE"],
    },
];

/// Why this job cannot time the action: none of its required variables
/// is set.
pub fn missing_requirement(e: &CatalogueEntry, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if e.requires.is_empty() || e.requires.iter().any(|v| env(v).is_some_and(|x| !x.is_empty())) {
        return None;
    }
    Some(format!(
        "{} needs {} in the job's environment to reach its provider's cache; without it the action uses GitHub's \
         cache or does nothing, so it is not timed on this runner",
        e.name,
        e.requires.join(" or ")
    ))
}

/// The catalogue entry with this id.
pub fn entry(id: &str) -> Option<&'static CatalogueEntry> {
    CATALOGUE.iter().find(|e| e.id == id)
}

/// An action backend as the workflow's `cache-actions` input names it:
/// `ID[;routing=PATTERNS]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionSpec {
    pub id: Slug,
    pub routing: String,
}

impl ActionSpec {
    pub fn parse(text: &str) -> Result<ActionSpec, String> {
        let mut parts = text.split(';').map(str::trim).filter(|p| !p.is_empty());
        let id = parts.next().ok_or("an empty action")?;
        let Some(e) = entry(id) else {
            let known: Vec<&str> = CATALOGUE.iter().map(|e| e.id).collect();
            return Err(format!("unknown action {id:?}; the workflow runs {}", known.join(", ")));
        };
        let mut routing = e.routing.to_string();
        for part in parts {
            match part.split_once('=') {
                Some(("routing", v)) if !v.trim().is_empty() => routing = v.trim().to_string(),
                _ => return Err(format!("{part:?}: an action takes only routing=PATTERNS")),
            }
        }
        Ok(ActionSpec { id: Slug::new(id).map_err(|e| e.to_string())?, routing })
    }

    pub fn entry(&self) -> &'static CatalogueEntry {
        entry(self.id.as_str()).expect("parsed specs name catalogue entries")
    }
}

/// A monotonic clock that every process of one boot shares, in
/// nanoseconds: prepare reads it last and record first, in two processes.
pub fn shared_clock_ns() -> u64 {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes the timespec it is given.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        if rc == 0 {
            return (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64);
        }
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::System::Performance::{QueryPerformanceCounter, QueryPerformanceFrequency};
        let (mut count, mut freq) = (0i64, 0i64);
        // SAFETY: both write the integer they are given; the counter is
        // system-wide, so two processes read the same clock.
        if unsafe { QueryPerformanceCounter(&mut count) } != 0
            && unsafe { QueryPerformanceFrequency(&mut freq) } != 0
            && freq > 0
        {
            return (count as u128 * 1_000_000_000 / freq as u128) as u64;
        }
    }
    // Unreachable on the supported OSes; the wall clock keeps it working.
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos() as u64
}

/// Where the shim writes its log, and the shim's folder.
pub struct Shim {
    pub dir: PathBuf,
    pub log: PathBuf,
}

/// The names a shim is installed under: what actions/cache's tar runs
/// (toolkit `getCompressionProgram` / `getDecompressionProgram`). On
/// Linux and macOS tar runs `zstdmt` to compress and `unzstd` to extract;
/// the version check runs `zstd` itself, which stays the real one so that
/// the compression method (hashed into the cache version) is unchanged.
/// On Windows GNU tar runs `zstd -T0` and `zstd -d` through its shell;
/// node's own `zstd --version` looks only for names with an extension
/// (PATHEXT), so it still finds the real `zstd.exe`.
pub fn shim_names() -> &'static [(&'static str, &'static str)] {
    if cfg!(windows) { &[("zstd", "")] } else { &[("zstdmt", ""), ("unzstd", "-d")] }
}

/// Quotes `s` for a POSIX shell, in single quotes.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The shim script: logs the command it will run and the compressor's,
/// the shell's that tar may run it through, tar's and the action's CPUs and
/// command lines (where the OS shows
/// them in /proc), then replaces itself with the real zstd, `--single-thread`
/// last so that it overrides any `-T` before it. The log is a few reads and
/// small processes before zstd starts: inside the timed step, and small
/// beside a transfer (docs/cache.md).
pub fn shim_script(real_zstd: &str, first_args: &str, log: &Path) -> String {
    let log = sh_quote(&log.to_string_lossy());
    let real = sh_quote(real_zstd);
    format!(
        r#"#!/bin/sh
# runner-bench zstd shim, written by `collector cache prepare`: forces one
# compression thread and logs the processes above it.
log={log}
real={real}
field() {{ sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null | head -n 1; }}
cmdline() {{ tr '\000' ' ' < "/proc/$1/cmdline" 2>/dev/null | cut -c 1-200; }}
one() {{
  cpus=$(field "$2" Cpus_allowed_list)
  printf '%s\t%s\t%s\n' "$1" "${{cpus:-unknown}}" "$3"
}}
# A subshell: if the log cannot be opened, only it ends, not the shim.
(
  echo begin
  one compressor "$$" "$(printf '%s ' "$real" {first_args} "$@" --single-thread | cut -c 1-200)"
  tar_pid=$PPID
  # GNU tar runs the compressor through `/bin/sh -c` (not the decompressor).
  case "$(cmdline "$tar_pid")" in
    "/bin/sh -c "* | "sh -c "*)
      one shell "$tar_pid" "$(cmdline "$tar_pid")"
      tar_pid=$(field "$tar_pid" PPid)
      ;;
  esac
  one archiver "$tar_pid" "$(cmdline "$tar_pid")"
  action_pid=$(field "$tar_pid" PPid)
  [ -n "$action_pid" ] && one action "$action_pid" "$(cmdline "$action_pid")"
  echo end
) >> "$log" 2>/dev/null
exec "$real" {first_args} "$@" --single-thread
"#
    )
}

/// Finds the real `zstd` on PATH, skipping `skip` (the shim's folder).
pub fn find_real_zstd(path_var: Option<std::ffi::OsString>, skip: &Path) -> Option<PathBuf> {
    let name = if cfg!(windows) { "zstd.exe" } else { "zstd" };
    std::env::split_paths(&path_var?).filter(|d| d != skip).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Writes the shim into `dir` for the real zstd at `real`.
pub fn install_shim(dir: &Path, real: &Path) -> anyhow::Result<Shim> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let log = dir.join("shim.log");
    // Windows' MSYS shell takes C:/x/zstd.exe; it would read backslashes as
    // escapes.
    let real = real.to_string_lossy().replace('\\', "/");
    for (name, first) in shim_names() {
        let path = dir.join(name);
        std::fs::write(&path, shim_script(&real, first, &log))
            .with_context(|| format!("cannot write the zstd shim {}", path.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
    }
    Ok(Shim { dir: dir.to_path_buf(), log })
}

/// The most processes a transfer records.
const MAX_PROCESSES: usize = 16;

/// What the shim log (from `offset`, where this transfer's part begins)
/// shows of the action's processes against the CPU the job was pinned to
/// (`None`: unpinned, nothing to inherit).
pub fn observe(log_text: &str, pinned: Affinity) -> (Vec<ObservedProcess>, Observation, Observation) {
    let mut processes = Vec::new();
    let (mut runs, mut forced) = (0usize, 0usize);
    let (mut seen_cpus, mut inherited) = (0usize, 0usize);
    for line in log_text.lines() {
        match line {
            "begin" | "end" => {}
            _ => {
                let mut f = line.splitn(3, '\t');
                let (Some(role), Some(cpus), Some(command)) = (f.next(), f.next(), f.next()) else { continue };
                if role == "compressor" {
                    runs += 1;
                    if command.trim_end().ends_with("--single-thread") {
                        forced += 1;
                    }
                }
                if cpus != "unknown" {
                    seen_cpus += 1;
                    if let Affinity::Pinned { cpu, .. } = pinned
                        && cpus == cpu.to_string()
                    {
                        inherited += 1;
                    }
                }
                if processes.len() < MAX_PROCESSES
                    && let Ok(role) = Slug::new(role)
                {
                    processes.push(ObservedProcess {
                        role,
                        command: Message::lossy(command.trim_end()),
                        cpus: Name::lossy(cpus),
                    });
                }
            }
        }
    }
    let single_thread = match (runs, forced) {
        (0, _) => Observation::NotObserved,
        (r, f) if r == f => Observation::Held,
        _ => Observation::Failed,
    };
    let affinity = match (pinned, seen_cpus) {
        (Affinity::Unpinned, _) | (_, 0) => Observation::NotObserved,
        (_, n) if n == inherited => Observation::Held,
        _ => Observation::Failed,
    };
    (processes, single_thread, affinity)
}

/// The evidence of one action step: what `observe` made of the shim log.
pub fn step_record(uses: &str, log_text: &str, pinned: Affinity) -> ActionStep {
    let (processes, single_thread, affinity_inherited) = observe(log_text, pinned);
    ActionStep { uses: Name::lossy(uses), processes, single_thread, affinity_inherited }
}

/// What prepare hands to record through a file in RUNNER_TEMP.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// `save` or `restore`.
    pub half: String,
    pub trial: u32,
    pub slot: u32,
    pub action: ActionSpec,
    pub key: String,
    /// The path input, relative to the workspace.
    pub path: String,
    pub affinity: Affinity,
    /// The shim's log and its length when the step began (the step's part
    /// of the log follows); `None` without a shim.
    pub shim_log: Option<PathBuf>,
    pub shim_log_offset: u64,
    /// Wall-clock start, for the record.
    pub started_at: runner_bench_format::Timestamp,
    /// `shared_clock_ns` when prepare ended.
    pub clock_ns: u64,
    /// Seconds since the save job's end when the restore's prepare began.
    #[serde(default)]
    pub gap_s: Option<f64>,
    /// What prepare found worth a notice (no worker, no shim, ...).
    #[serde(default)]
    pub notices: Vec<String>,
}

impl State {
    pub fn file(dir: &Path, half: &str, trial: u32, slot: u32) -> PathBuf {
        dir.join(format!("runner-bench-action-{half}-{trial}-{slot}.json"))
    }

    pub fn read(path: &Path) -> anyhow::Result<State> {
        let text = std::fs::read_to_string(path).with_context(|| {
            format!("cannot read {}; `collector cache prepare` writes it in the step before the action", path.display())
        })?;
        serde_json::from_str(&text).with_context(|| format!("{} is not a prepare state file", path.display()))
    }
}

/// The part of the shim log after `offset`.
pub fn log_since(path: Option<&Path>, offset: u64) -> String {
    let Some(path) = path else { return String::new() };
    let bytes = std::fs::read(path).unwrap_or_default();
    String::from_utf8_lossy(bytes.get(offset as usize..).unwrap_or_default()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pinned(cpu: u32) -> Affinity {
        Affinity::Pinned { cpu, group: 0 }
    }

    #[test]
    fn a_provider_action_needs_its_variables() {
        let warp = entry("warpbuild").unwrap();
        assert_eq!(
            missing_requirement(warp, &|_| None).unwrap(),
            "WarpBuilds/cache needs WARPBUILD_RUNNER_VERIFICATION_TOKEN in the job's environment to reach its \
             provider's cache; without it the action uses GitHub's cache or does nothing, so it is not timed on this \
             runner"
        );
        assert_eq!(
            missing_requirement(warp, &|v| (v == "WARPBUILD_RUNNER_VERIFICATION_TOKEN").then(|| "t".into())),
            None
        );
        assert_eq!(missing_requirement(entry("actions-cache").unwrap(), &|_| None), None);
    }

    #[test]
    fn parses_action_specs() {
        let s = ActionSpec::parse("actions-cache").unwrap();
        assert_eq!(s.routing, "*.actions.githubusercontent.com");
        let s = ActionSpec::parse(" actions-cache ; routing=*.example.com ").unwrap();
        assert_eq!(s.routing, "*.example.com");
        assert_eq!(
            ActionSpec::parse("buildjet").unwrap_err(),
            "unknown action \"buildjet\"; the workflow runs actions-cache, warpbuild, runs-on"
        );
        assert_eq!(
            ActionSpec::parse("actions-cache;token=x").unwrap_err(),
            "\"token=x\": an action takes only routing=PATTERNS"
        );
    }

    const LOG: &str = "begin\ncompressor\t0\t/usr/bin/zstd --single-thread\narchiver\t0\t/usr/bin/tar --posix -cf \
                       cache.tzst\naction\t0\t/home/runner/externals/node24/bin/node dist/save-only/index.js\nend\n";

    #[test]
    fn a_forced_and_pinned_run_holds() {
        let (p, single, affinity) = observe(LOG, pinned(0));
        assert_eq!(p.len(), 3);
        assert_eq!(p[1].role.as_str(), "archiver");
        assert_eq!(p[2].command.as_str(), "/home/runner/externals/node24/bin/node dist/save-only/index.js");
        assert_eq!((single, affinity), (Observation::Held, Observation::Held));
    }

    #[test]
    fn a_process_on_other_cpus_fails_and_nothing_seen_is_not_observed() {
        let other = LOG.replace("archiver\t0", "archiver\t0-3");
        assert_eq!(observe(&other, pinned(0)).2, Observation::Failed);
        assert_eq!(observe(LOG, pinned(1)).2, Observation::Failed);
        assert_eq!(observe(LOG, Affinity::Unpinned).2, Observation::NotObserved);
        let unknown = LOG.replace("\t0\t", "\tunknown\t");
        assert_eq!(observe(&unknown, pinned(0)).2, Observation::NotObserved);
        assert_eq!(observe("", pinned(0)), (vec![], Observation::NotObserved, Observation::NotObserved));
        let not_forced = LOG.replace(" --single-thread", " -T0");
        assert_eq!(observe(&not_forced, pinned(0)).1, Observation::Failed);
    }

    #[cfg(unix)]
    #[test]
    fn the_shim_forces_one_thread_and_logs_what_it_ran() {
        let dir = tempfile::tempdir().unwrap();
        // A stand-in for zstd that prints its arguments.
        let fake = dir.path().join("fake-zstd");
        std::fs::write(&fake, "#!/bin/sh\necho \"$@\"\n").unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let shim = install_shim(&dir.path().join("shim"), &fake).unwrap();
        let out = std::process::Command::new(shim.dir.join("unzstd")).arg("-q").output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "-d -q --single-thread\n");
        let log = std::fs::read_to_string(&shim.log).unwrap();
        let (p, single, _) = observe(&log, Affinity::Unpinned);
        assert_eq!(single, Observation::Held);
        assert_eq!(p[0].command.as_str(), format!("{} -d -q --single-thread", fake.display()));
        assert_eq!(p[1].role.as_str(), "archiver");
    }
}
