//! The cache stage end to end: `collector cache save` and `collector cache
//! restore` against Azurite (Microsoft's Azure Storage emulator) behind the
//! test double of the GitHub Actions cache service (tests/cache-service),
//! attached-volume backends in temporary folders, and cross-checks with the
//! official @actions/cache client. Needs `npm ci --prefix tests/cache-service`
//! (scripts/test.sh runs it), node, tar and zstd.

use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::cargo_bin;
use runner_bench_format::MeasuredResult;
use runner_bench_format::measured::{CacheKind, DigestCheck, KeyMatch, Status};
use serde_json::Value;

use crate::azurite::{Services, TOKEN, service_dir};
use crate::common::valid_measured;

const PAYLOAD_DIR: &str = "runner-bench-cache-payload";

/// A test's folders and the collector invocations.
struct Job {
    dir: tempfile::TempDir,
    url: Option<String>,
}

impl Job {
    fn new(services: Option<&Services>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("work")).unwrap();
        std::fs::create_dir(dir.path().join("vol")).unwrap();
        Job { dir, url: services.map(|s| s.url.clone()) }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn gha(&self) -> String {
        "id=gha;name=Test cache service;kind=archive-service;routing=127.0.0.1".to_string()
    }

    fn vol(&self, id: &str) -> String {
        let root = self.path(id);
        let _ = std::fs::create_dir(&root);
        format!("id={id};name=Test volume {id};kind=attached-volume;endpoint={}", root.display())
    }

    fn collector(&self) -> Command {
        let mut cmd = common::collector();
        if let Some(url) = &self.url {
            cmd.env("ACTIONS_RESULTS_URL", url).env("ACTIONS_RUNTIME_TOKEN", TOKEN);
        }
        cmd.env("RUNNER_BENCH_CACHE_DIR", self.path("work"));
        cmd
    }

    fn save(&self, trial: u32, backends: &[String]) -> std::process::Output {
        self.save_command(trial, backends).output().unwrap()
    }

    fn save_command(&self, trial: u32, backends: &[String]) -> Command {
        let mut cmd = self.collector();
        cmd.args(["cache", "save", "--profile", "quick", "--provider", "local", "--runner", "dev-linux-x64"])
            .args(["--trial", &trial.to_string()])
            .arg("--handoff")
            .arg(self.path("handoff.json"))
            .arg("--out")
            .arg(self.path("save.json"));
        for b in backends {
            cmd.args(["--backend", b]);
        }
        cmd
    }

    fn restore(&self, simulate: Option<&str>) -> std::process::Output {
        self.restore_command(simulate).output().unwrap()
    }

    fn restore_command(&self, simulate: Option<&str>) -> Command {
        let mut cmd = self.collector();
        cmd.args(["cache", "restore", "--handoff"])
            .arg(self.path("handoff.json"))
            .arg("--out")
            .arg(self.path("restore.json"));
        if let Some(s) = simulate {
            cmd.args(["--simulate-instance", s]);
        }
        cmd
    }

    fn handoff(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.path("handoff.json")).unwrap()).unwrap()
    }

    fn set_key(&self, backend: &str, key: &str) {
        let mut h = self.handoff();
        for p in h["pairs"].as_array_mut().unwrap() {
            if p["backend"] == backend {
                p["key"] = Value::String(key.to_string());
            }
        }
        std::fs::write(self.path("handoff.json"), serde_json::to_vec(&h).unwrap()).unwrap();
    }
}

fn ok(out: &std::process::Output) {
    assert!(out.status.success(), "collector failed: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_trial_saves_restores_and_verifies_on_both_kinds() {
    let services = Services::start();
    let job = Job::new(Some(&services));
    ok(&job.save(1, &[job.gha(), job.vol("vol")]));
    let save = valid_measured(&job.path("save.json"));
    let stage = save.stages.cache.as_ref().unwrap();
    assert_eq!(stage.payload_bytes, 8 << 20);
    assert_eq!(
        stage.backends.iter().map(|b| b.kind).collect::<Vec<_>>(),
        [CacheKind::ArchiveService, CacheKind::AttachedVolume]
    );
    assert_eq!(stage.backends[0].endpoint.as_str(), services.url.trim_end_matches('/'));
    assert!(stage.pairs.iter().all(|p| p.save.status == Status::Ok && p.restore.is_none()), "{:?}", stage.pairs);
    assert!(save.notices.iter().any(|n| n.stage.as_str() == "gha / trial 1 / cleanup"));
    // The archive holds the payload and nothing else compressible.
    assert!(stage.pairs[0].save.transferred_bytes.unwrap() > 8 << 20);

    ok(&job.restore(Some("other")));
    let restore = valid_measured(&job.path("restore.json"));
    let pairs = &restore.stages.cache.as_ref().unwrap().pairs;
    assert_eq!(pairs.len(), 2);
    for p in pairs {
        let v = p.verification.as_ref().unwrap();
        assert!(p.verified(), "{p:?}");
        assert_eq!(v.key_match, KeyMatch::Exact);
        assert_eq!(v.sha256, DigestCheck::Match);
        assert_eq!(p.restore.as_ref().unwrap().instance.boot_id.as_str(), "simulated:other");
        assert!(p.publication_gap_s.is_some());
    }
    assert!(pairs[0].verification.as_ref().unwrap().routing.observed.as_str().starts_with("upload 127.0.0.1:"));
    assert!(restore.notices.iter().any(|n| n.message.as_str().starts_with("TEST ONLY")));
    // The volume entry is removed once restored.
    assert_eq!(std::fs::read_dir(job.path("vol")).unwrap().count(), 0);

    // assemble keeps the complete pairs.
    let merged = job.path("merged.json");
    let st = Command::new(cargo_bin("collector"))
        .arg("assemble")
        .arg("--out")
        .arg(&merged)
        .arg(job.path("save.json"))
        .arg(job.path("restore.json"))
        .status()
        .unwrap();
    assert!(st.success());
    let merged = valid_measured(&merged);
    let pairs = &merged.stages.cache.as_ref().unwrap().pairs;
    assert_eq!(pairs.len(), 2);
    assert!(pairs.iter().all(|p| p.verified()));
}

#[test]
fn trial_two_reverses_the_backend_order() {
    let job = Job::new(None);
    let backends = [job.vol("first"), job.vol("second")];
    ok(&job.save(1, &backends));
    let order = |r: &MeasuredResult| -> Vec<String> {
        r.stages.cache.as_ref().unwrap().pairs.iter().map(|p| p.backend.to_string()).collect()
    };
    assert_eq!(order(&valid_measured(&job.path("save.json"))), ["first", "second"]);
    ok(&job.save(2, &backends));
    assert_eq!(order(&valid_measured(&job.path("save.json"))), ["second", "first"]);
    ok(&job.restore(Some("other")));
    assert_eq!(order(&valid_measured(&job.path("restore.json"))), ["second", "first"]);
}

#[test]
fn restore_refuses_the_instance_that_saved() {
    let job = Job::new(None);
    ok(&job.save(1, &[job.vol("vol")]));
    let out = job.restore(None);
    assert!(!out.status.success());
    let saved = valid_measured(&job.path("save.json")).machine.instance;
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: refusing to restore on the OS instance that saved (boot id {}, machine id {}): the restore must \
             run in a later job on another runner, or the restore would read the save's local files and caches\n",
            saved.boot_id, saved.machine_id
        )
    );
    assert!(!job.path("restore.json").exists());
    // A simulated instance equal to nothing real is still refused in Actions.
    let out = job
        .collector()
        .env("GITHUB_ACTIONS", "true")
        .args(["cache", "restore", "--simulate-instance", "x", "--handoff"])
        .arg(job.path("handoff.json"))
        .arg("--out")
        .arg(job.path("restore.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --simulate-instance is for the collector's own tests and is refused in GitHub Actions\n"
    );
}

/// A hand-off file is read checked: a key that is no single name (a
/// volume's entry is the folder of that name, which the restore removes)
/// and a trial outside the profile are refused before anything is measured.
#[test]
fn a_handoff_with_a_key_outside_the_volume_or_a_bad_trial_is_refused() {
    let job = Job::new(None);
    ok(&job.save(1, &[job.vol("vol")]));
    let victim = job.path("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("keep.txt"), b"kept").unwrap();
    let handoff = job.path("handoff.json").display().to_string();
    job.set_key("vol", "../victim");
    let out = job.restore(Some("other"));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {handoff}: pairs[0].key \"../victim\" is not a key this collector makes (runner-bench-…, of \
             letters, digits, dots, dashes and underscores): a volume's entry is the folder of that name, and the \
             restore removes it\n"
        )
    );
    assert!(victim.join("keep.txt").exists());
    assert!(!job.path("restore.json").exists());

    ok(&job.save(1, &[job.vol("vol")]));
    let mut h = job.handoff();
    h["trial"] = serde_json::json!(0);
    std::fs::write(job.path("handoff.json"), serde_json::to_vec(&h).unwrap()).unwrap();
    let out = job.restore(Some("other"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("error: {handoff}: trial: trial 0 is outside 1 to 3\n"));
    assert!(!job.path("restore.json").exists());
}

#[test]
fn the_handoff_file_cannot_be_the_result_file() {
    let job = Job::new(None);
    let out = job
        .collector()
        .args(["cache", "save", "--profile", "quick", "--provider", "local", "--runner", "dev-linux-x64"])
        .args(["--trial", "1", "--backend", &job.vol("vol"), "--handoff"])
        .arg(job.path("save.json"))
        .arg("--out")
        .arg(job.path("save.json"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: --handoff: {} is also the --out file; give each file its own path\n",
            job.path("save.json").display()
        )
    );
    assert!(!job.path("save.json").exists());
}

#[test]
fn missing_runtime_variables_fail_with_advice() {
    let job = Job::new(None);
    let out = job.save(1, &[job.gha()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err,
        "error: backend gha: ACTIONS_RESULTS_URL is not set, so the cache service URL is unknown. GitHub Actions \
         gives ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL to actions, not to `run:` steps: read them in an \
         `actions/github-script` step with `core.setSecret(process.env.ACTIONS_RUNTIME_TOKEN); \
         core.setOutput('token', process.env.ACTIONS_RUNTIME_TOKEN); core.setOutput('results-url', \
         process.env.ACTIONS_RESULTS_URL)` and map those outputs into this step's `env:` only, as the benchmark \
         workflow does (see docs/cache.md)\n"
    );
    assert!(!job.path("save.json").exists() || valid_measured(&job.path("save.json")).stages.cache.is_none());
}

#[test]
fn misses_and_other_keys_are_failures() {
    let services = Services::start();
    let job = Job::new(Some(&services));
    ok(&job.save(1, &[job.gha()]));
    let key = job.handoff()["pairs"][0]["key"].as_str().unwrap().to_string();

    // A key that was never saved: a miss.
    job.set_key("gha", &format!("{key}-never-saved"));
    ok(&job.restore(Some("other")));
    let p = valid_measured(&job.path("restore.json")).stages.cache.unwrap().pairs.remove(0);
    assert_eq!(p.restore.as_ref().unwrap().status, Status::Error);
    assert_eq!(p.verification.as_ref().unwrap().key_match, KeyMatch::Miss);
    assert_eq!(p.verification.as_ref().unwrap().sha256, DigestCheck::NotChecked);
    assert!(!p.verified());

    // A prefix of the saved key: the service answers with another key.
    job.set_key("gha", &key[..key.len() - 4]);
    ok(&job.restore(Some("other")));
    let p = valid_measured(&job.path("restore.json")).stages.cache.unwrap().pairs.remove(0);
    assert_eq!(p.verification.as_ref().unwrap().key_match, KeyMatch::RestoreKey);
    assert!(p.restore.as_ref().unwrap().message.as_ref().unwrap().as_str().contains("not the exact key"));
    assert!(!p.verified());
}

#[test]
fn a_corrupted_blob_fails_the_sha256_check() {
    let services = Services::start();
    let job = Job::new(Some(&services));
    ok(&job.save(1, &[job.gha()]));
    let key = job.handoff()["pairs"][0]["key"].as_str().unwrap().to_string();
    let blob = services.control(&format!("blob?key={key}")).send().unwrap().bytes().unwrap();
    // Unpack with the system's tar and zstd, flip one byte, pack again: a
    // valid archive of different bytes.
    let work = job.path("corrupt");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("cache.tzst"), &blob).unwrap();
    let sh = |script: &str| {
        let st = Command::new("sh").arg("-c").arg(script).current_dir(&work).status().unwrap();
        assert!(st.success(), "{script}");
    };
    sh("tar -xf cache.tzst --use-compress-program unzstd && rm cache.tzst");
    let victim = work.join(PAYLOAD_DIR).join("part-0001.bin");
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[12345] ^= 0x40;
    std::fs::write(&victim, bytes).unwrap();
    sh(&format!("tar --posix -cf - {PAYLOAD_DIR} | zstd -q -T1 -o cache.tzst"));
    let c = reqwest::blocking::Client::new();
    let r = c
        .put(format!("{}_control/blob?key={key}", services.url))
        .body(std::fs::read(work.join("cache.tzst")).unwrap())
        .send()
        .unwrap();
    assert!(r.status().is_success());

    ok(&job.restore(Some("other")));
    let r = valid_measured(&job.path("restore.json"));
    let p = &r.stages.cache.as_ref().unwrap().pairs[0];
    assert_eq!(p.restore.as_ref().unwrap().status, Status::Ok);
    assert_eq!(p.verification.as_ref().unwrap().key_match, KeyMatch::Exact);
    assert_eq!(p.verification.as_ref().unwrap().sha256, DigestCheck::Mismatch);
    assert!(!p.verified());
    let n = r.notices.iter().find(|n| n.stage.as_str() == "gha / trial 1 / restore").unwrap();
    assert!(n.message.as_str().starts_with("SHA-256 of part-0001.bin is "), "{}", n.message);
}

#[test]
fn server_errors_are_failures_without_retries() {
    let services = Services::start();
    let job = Job::new(Some(&services));
    services.fault("CreateCacheEntry", 500);
    ok(&job.save(1, &[job.gha()]));
    let p = valid_measured(&job.path("save.json")).stages.cache.unwrap().pairs.remove(0);
    assert_eq!(p.save.status, Status::Error);
    assert!(p.save.message.as_ref().unwrap().as_str().contains("CreateCacheEntry: HTTP 500"), "{:?}", p.save.message);
    assert_eq!(services.calls("CreateCacheEntry"), [500], "one call, no retry");
    assert!(services.calls("FinalizeCacheEntryUpload").is_empty());

    ok(&job.save(1, &[job.gha()]));
    services.fault("GetCacheEntryDownloadURL", 429);
    ok(&job.restore(Some("other")));
    let p = valid_measured(&job.path("restore.json")).stages.cache.unwrap().pairs.remove(0);
    let msg = p.restore.as_ref().unwrap().message.as_ref().unwrap().as_str().to_string();
    assert!(msg.contains("HTTP 429") && msg.contains("does not retry"), "{msg}");
    assert_eq!(services.calls("GetCacheEntryDownloadURL"), [429], "one call, no retry");
}

/// Runs xcheck.mjs (the official client) in `workspace`.
fn actions_cache(services: &Services, job: &Job, workspace: &Path, op: &str, key: &str) -> Value {
    let temp = job.path("runner-temp");
    let _ = std::fs::create_dir(&temp);
    let out = Command::new("node")
        .arg(service_dir().join("xcheck.mjs"))
        .args([op, key, PAYLOAD_DIR])
        .current_dir(workspace)
        .env("ACTIONS_RESULTS_URL", &services.url)
        .env("ACTIONS_RUNTIME_TOKEN", TOKEN)
        .env("ACTIONS_CACHE_SERVICE_V2", "True")
        .env("RUNNER_TEMP", &temp)
        .env("GITHUB_WORKSPACE", workspace)
        .env_remove("GITHUB_SERVER_URL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find_map(|l| l.strip_prefix("RESULT ")).unwrap_or_else(|| {
        panic!("@actions/cache {op} printed no result: {stdout}\n{}", String::from_utf8_lossy(&out.stderr))
    });
    serde_json::from_str(line).unwrap()
}

#[test]
fn the_official_client_and_the_collector_restore_each_other() {
    let services = Services::start();
    let job = Job::new(Some(&services));
    ok(&job.save(1, &[job.gha()]));
    let h = job.handoff();
    let key = h["pairs"][0]["key"].as_str().unwrap().to_string();
    let files = h["payload"]["files"].as_array().unwrap().clone();

    // Collector → @actions/cache: same version string, same archive layout.
    let ws = job.path("ws");
    std::fs::create_dir(&ws).unwrap();
    let r = actions_cache(&services, &job, &ws, "restore", &key);
    assert_eq!(r["matched"], key.as_str());
    for f in &files {
        let bytes = std::fs::read(ws.join(PAYLOAD_DIR).join(f["name"].as_str().unwrap())).unwrap();
        use sha2::Digest;
        let got = runner_bench_format::hex(&sha2::Sha256::digest(&bytes));
        assert_eq!(got, f["sha256"].as_str().unwrap());
    }

    // @actions/cache → collector.
    let key2 = format!("{key}-saved-by-actions-cache");
    let r = actions_cache(&services, &job, &ws, "save", &key2);
    assert!(r["id"].as_i64().unwrap() > 0, "@actions/cache did not save: {r}");
    job.set_key("gha", &key2);
    ok(&job.restore(Some("other")));
    let p = valid_measured(&job.path("restore.json")).stages.cache.unwrap().pairs.remove(0);
    assert!(p.verified(), "{p:?}");
}

/// A cache service on loopback that accepts connections and never answers,
/// so that a transfer to it hangs (the collector's timeout is minutes).
#[cfg(unix)]
struct Silent {
    listener: std::net::TcpListener,
    held: Vec<std::net::TcpStream>,
}

#[cfg(unix)]
impl Silent {
    fn new() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        Silent { listener, held: Vec::new() }
    }

    fn url(&self) -> String {
        format!("http://{}/", self.listener.local_addr().unwrap())
    }

    /// Waits until `child` connects, which it does only once everything
    /// before the transfer is done; fails if it exits first.
    fn wait_for(&mut self, child: &mut std::process::Child) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    self.held.push(stream);
                    return;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => panic!("accept: {e}"),
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the collector exited ({status}) before it reached the service: {}", stderr_of(child));
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("the collector did not reach the service within 60 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

#[cfg(unix)]
fn stderr_of(child: &mut std::process::Child) -> String {
    use std::io::Read;
    let mut text = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut text);
    }
    text
}

/// Sends SIGINT (Ctrl-C) to `child` and returns its exit code and stderr.
#[cfg(unix)]
fn interrupt(child: &mut std::process::Child) -> (Option<i32>, String) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) has no memory effects; `pid` is a child of this
    // process that has not been waited for, so it cannot name another one.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0, "kill: {}", std::io::Error::last_os_error());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the collector did not exit within 30 s of SIGINT");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    (status.code(), stderr_of(child))
}

/// Starts a collector command with its stderr kept for `interrupt`.
#[cfg(unix)]
fn spawn(mut cmd: Command) -> std::process::Child {
    cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap()
}

/// Interrupts `child`, checks that it exited with 130 and left the work
/// folder empty; returns its stderr.
#[cfg(unix)]
fn interrupt_and_check_cleanup(child: &mut std::process::Child, job: &Job) -> String {
    let (code, stderr) = interrupt(child);
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(work_entries(job), Vec::<PathBuf>::new(), "the work folder is left behind");
    stderr
}

/// The entries of the jobs' work folder (RUNNER_BENCH_CACHE_DIR).
#[cfg(unix)]
fn work_entries(job: &Job) -> Vec<PathBuf> {
    std::fs::read_dir(job.path("work")).unwrap().map(|e| e.unwrap().path()).collect()
}

#[cfg(unix)]
#[test]
fn an_interrupted_save_removes_its_work_folder_and_keeps_its_finished_pairs() {
    let mut silent = Silent::new();
    let mut job = Job::new(None);
    job.url = Some(silent.url());
    let mut child = spawn(job.save_command(1, &[job.vol("vol"), job.gha()]));
    // The volume pair is saved; the service pair has its archive written and
    // hangs in its first call.
    silent.wait_for(&mut child);
    let work = work_entries(&job);
    assert_eq!(work.len(), 1, "{work:?}");
    assert!(work[0].join("workspace").join(PAYLOAD_DIR).is_dir());
    assert!(work[0].join("scratch/cache.tzst").is_file());

    let stderr = interrupt_and_check_cleanup(&mut child, &job);
    assert!(stderr.contains("interrupted: temporary files removed"), "{stderr}");
    let save = valid_measured(&job.path("save.json"));
    let pairs = &save.stages.cache.as_ref().unwrap().pairs;
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    assert_eq!((pairs[0].backend.as_str(), pairs[0].save.status), ("vol", Status::Ok));
    assert!(!job.path("handoff.json").exists(), "an interrupted save hands nothing off");
}

#[cfg(unix)]
#[test]
fn an_interrupted_restore_removes_its_work_folder_and_keeps_its_finished_pairs() {
    let services = Services::start();
    let mut job = Job::new(Some(&services));
    ok(&job.save(1, &[job.vol("vol"), job.gha()]));
    let mut silent = Silent::new();
    job.url = Some(silent.url());
    let mut child = spawn(job.restore_command(Some("other")));
    // The volume pair is restored; the service pair hangs in its lookup.
    silent.wait_for(&mut child);
    let work = work_entries(&job);
    assert_eq!(work.len(), 1, "{work:?}");
    assert!(work[0].join("restore-gha").is_dir());

    interrupt_and_check_cleanup(&mut child, &job);
    let restore = valid_measured(&job.path("restore.json"));
    let pairs = &restore.stages.cache.as_ref().unwrap().pairs;
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    assert_eq!(pairs[0].backend.as_str(), "vol");
    assert!(pairs[0].verified(), "{:?}", pairs[0]);
}
