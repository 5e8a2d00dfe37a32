//! Simulated OS instances: each job of the rehearsal runs as if on its own
//! freshly booted runner, as every job does on GitHub.
//!
//! The collector tells OS instances apart by the boot id
//! (/proc/sys/kernel/random/boot_id) and the machine id (/etc/machine-id);
//! `collector cache restore` refuses to run on the instance that saved
//! (collector/src/platform/machine.rs `instance()`, cmd/cache/handoff.rs). One machine has
//! one of each, so every process of a job is started in a mount namespace
//! of its own (`unshare --mount --propagation private`) in which the job's
//! boot id and machine id files are bind-mounted over the real ones. The
//! mounts are private: nothing changes outside the process, and they vanish
//! with it. This needs CAP_SYS_ADMIN (the test runs as root, as CI does);
//! without it the rehearsal fails saying so rather than running every job
//! on one instance.
//!
//! Where /etc/machine-id does not exist there is nothing to bind over, and
//! creating it would change the host. The namespace then lays an overlay
//! over /etc whose upper layer is a tmpfs of its own holding the job's
//! machine-id: /etc shows the file, and nothing is written to the host.
//!
//! An instance also has its own /etc/hosts: the machine's, plus the names
//! the test maps to loopback (as `docker run --add-host` does), so that a
//! service double can be reached under the host name of the real service.
//!
//! The mounts are made by a bash script between `unshare` and the step's
//! command, which it then `exec`s. Bash, not sh: dash drops environment
//! variables whose names are not shell identifiers, and the runner gives
//! JavaScript actions such names (`INPUT_RESULT-ENCODING`).

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

/// The exit status the wrapper uses when it cannot enter the instance.
pub(crate) const SETUP_FAILED: i32 = 199;
/// The line it prints then.
pub(crate) const SETUP_FAILED_MARK: &str = "rehearsal: cannot enter the simulated OS instance";

/// Mounts the ids (`$1` boot id file, `$2` machine id file, `$3` a folder
/// for the overlay) and the hosts file (`$4`), then replaces itself with
/// the command (`$5`...).
const ENTER: &str = r#"fail() { echo "rehearsal: cannot enter the simulated OS instance: $1" >&2; exit 199; }
mount --bind "$1" /proc/sys/kernel/random/boot_id || fail "bind-mount of the boot id"
if [ -e /etc/machine-id ]; then
  mount --bind "$2" /etc/machine-id || fail "bind-mount of /etc/machine-id"
else
  mount -t tmpfs rehearsal "$3" && mkdir "$3/upper" "$3/work" && cp "$2" "$3/upper/machine-id" &&
    mount -t overlay rehearsal -o "lowerdir=/etc,upperdir=$3/upper,workdir=$3/work" /etc ||
    fail "overlay of /etc holding the machine id"
fi
mount --bind "$4" /etc/hosts || fail "bind-mount of /etc/hosts"
shift 4
exec "$@""#;

/// One simulated OS instance: its ids, and the files holding them.
#[derive(Debug, Clone)]
pub(crate) struct Instance {
    pub(crate) boot_id: String,
    pub(crate) machine_id: String,
    dir: PathBuf,
}

/// 16 random bytes from the kernel.
fn random_bytes() -> anyhow::Result<[u8; 16]> {
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b)).context("cannot read /dev/urandom")?;
    Ok(b)
}

impl Instance {
    /// A new instance with random ids, its files in `dir`: a version 4 UUID
    /// as the kernel's boot id is, and 32 hex digits as systemd's machine id;
    /// `hosts` are added to its /etc/hosts as `(name, address)`.
    pub(crate) fn create(dir: &Path, hosts: &[(String, String)]) -> anyhow::Result<Instance> {
        let mut b = random_bytes()?;
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let h = runner_bench_format::hex(&b);
        let boot_id = format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]);
        let machine_id = runner_bench_format::hex(&random_bytes()?);
        std::fs::create_dir_all(dir.join("overlay")).with_context(|| format!("cannot create {}", dir.display()))?;
        std::fs::write(dir.join("boot_id"), format!("{boot_id}\n"))?;
        std::fs::write(dir.join("machine-id"), format!("{machine_id}\n"))?;
        let mut etc_hosts = std::fs::read_to_string("/etc/hosts").context("cannot read /etc/hosts")?;
        if !etc_hosts.is_empty() && !etc_hosts.ends_with('\n') {
            etc_hosts.push('\n');
        }
        for (name, address) in hosts {
            etc_hosts.push_str(&format!("{address} {name}\n"));
        }
        std::fs::write(dir.join("hosts"), etc_hosts)?;
        Ok(Instance { boot_id, machine_id, dir: dir.to_path_buf() })
    }

    /// A command that runs `argv` in this instance.
    pub(crate) fn command(&self, argv: &[OsString]) -> Command {
        let mut cmd = Command::new("unshare");
        cmd.args([
            "--mount",
            "--propagation",
            "private",
            "--",
            "bash",
            "--noprofile",
            "--norc",
            "-c",
            ENTER,
            "rehearsal-instance",
        ])
        .arg(self.dir.join("boot_id"))
        .arg(self.dir.join("machine-id"))
        .arg(self.dir.join("overlay"))
        .arg(self.dir.join("hosts"))
        .args(argv);
        cmd
    }

    /// Checks that a process of this instance sees its ids, so that a
    /// machine where the namespaces cannot be made fails here, clearly.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        let argv: Vec<OsString> = ["cat", "/proc/sys/kernel/random/boot_id", "/etc/machine-id", "/etc/hosts"]
            .iter()
            .map(OsString::from)
            .collect();
        let out = self.command(&argv).output().context("cannot run unshare (util-linux)")?;
        let seen = String::from_utf8_lossy(&out.stdout);
        let hosts = std::fs::read_to_string(self.dir.join("hosts"))?;
        let want = format!("{}\n{}\n{hosts}", self.boot_id, self.machine_id);
        if !out.status.success() || seen != want {
            bail!(
                "a process in a simulated OS instance saw {seen:?}, not {want:?} ({}; stderr: {}); the rehearsal needs \
                 root (CAP_SYS_ADMIN) for `unshare --mount` and bind mounts",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_sees_the_instances_ids_and_the_host_keeps_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let a = Instance::create(&dir.path().join("a"), &[("service.example".into(), "127.0.0.1".into())]).unwrap();
        let b = Instance::create(&dir.path().join("b"), &[]).unwrap();
        assert_eq!(a.boot_id.len(), 36);
        assert_eq!(&a.boot_id[14..15], "4");
        assert_eq!(a.machine_id.len(), 32);
        assert_ne!((a.boot_id.as_str(), a.machine_id.as_str()), (b.boot_id.as_str(), b.machine_id.as_str()));
        a.check().unwrap();
        b.check().unwrap();
        let host = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
        assert_ne!(host.trim(), a.boot_id);
        let hosts = a.command(&["getent".into(), "hosts".into(), "service.example".into()]).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&hosts.stdout), "127.0.0.1       service.example\n");
    }
}
