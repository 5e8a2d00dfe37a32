//! The test file: opened with the OS file cache bypassed (or refused where
//! it cannot be), filled before any timing, and read and written at offsets.

use std::fs::{File, OpenOptions};
use std::path::Path;

use anyhow::Context;

use super::buffer::AlignedBuf;
use super::plan::{ALIGN, DiskPlan};
use crate::platform::watchdog::Mailbox;
use crate::rng::SplitMix64;

#[cfg(target_os = "linux")]
pub(super) const BYPASS: &str = "O_DIRECT";
#[cfg(target_os = "macos")]
pub(super) const BYPASS: &str = "F_NOCACHE";
#[cfg(windows)]
pub(super) const BYPASS: &str = "FILE_FLAG_NO_BUFFERING";
#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
pub(super) const BYPASS: &str = "none";

/// The OS error of an open that the file system refuses with `BYPASS`.
#[cfg(not(windows))]
const REFUSED: i32 = libc::EINVAL;
#[cfg(windows)]
const REFUSED: i32 = windows_sys::Win32::Foundation::ERROR_INVALID_PARAMETER as i32;

/// Opens `path` with the OS file cache bypassed.
fn open_direct(path: &Path, create: bool) -> anyhow::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true);
    if create {
        options.create_new(true);
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_DIRECT);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        use windows_sys::Win32::Storage::FileSystem::{FILE_FLAG_NO_BUFFERING, FILE_FLAG_WRITE_THROUGH};
        // No buffering: transfers go to the device, in whole sectors from
        // ALIGN-aligned buffers (ALIGN is a multiple of every sector size in
        // use). Write through: a write returns once the device has it.
        options.custom_flags(FILE_FLAG_NO_BUFFERING | FILE_FLAG_WRITE_THROUGH);
    }
    let file = options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(REFUSED) {
            anyhow::anyhow!("the file system of {} refuses direct I/O ({BYPASS})", parent(path))
        } else {
            anyhow::Error::new(e).context(format!("cannot open the test file {}", path.display()))
        }
    })?;
    #[cfg(target_os = "macos")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl on a valid, open descriptor.
        if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_NOCACHE, 1) } == -1 {
            anyhow::bail!("cannot bypass the file cache (F_NOCACHE): {}", std::io::Error::last_os_error());
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    anyhow::bail!("bypassing the OS file cache is not implemented for this OS yet");
    refuse_memory_file_systems(&file, path)?;
    Ok(file)
}

fn parent(path: &Path) -> String {
    path.parent().map(|p| p.display().to_string()).unwrap_or_default()
}

/// tmpfs and ramfs hold files in memory: direct I/O there measures memory.
fn refuse_memory_file_systems(file: &File, path: &Path) -> anyhow::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        const TMPFS_MAGIC: i64 = 0x0102_1994;
        const RAMFS_MAGIC: i64 = 0x8584_58f6;
        // SAFETY: statfs is plain data, filled by fstatfs for a valid fd.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstatfs(file.as_raw_fd(), &mut st) } == 0 {
            #[allow(clippy::unnecessary_cast, reason = "f_type's width differs between targets")]
            let kind = st.f_type as i64;
            if kind == TMPFS_MAGIC || kind == RAMFS_MAGIC {
                anyhow::bail!(
                    "{} is on a memory file system (tmpfs or ramfs), where no cache can be bypassed; \
                     choose a folder on a disk with --disk-dir",
                    parent(path)
                );
            }
        }
    }
    let _ = (file, path);
    Ok(())
}

/// Creates the test file and fills it with random bytes, untimed.
pub(super) fn prepare(plan: &DiskPlan, path: &Path, mailbox: &Mailbox<u64>) -> anyhow::Result<File> {
    if !plan.file_bytes.is_multiple_of(plan.seq_block as u64)
        || !plan.seq_block.is_multiple_of(ALIGN)
        || !plan.rand_block.is_multiple_of(ALIGN)
    {
        anyhow::bail!("disk sizes must be multiples of {ALIGN} bytes");
    }
    let file = open_direct(path, true)?;
    let mut rng = SplitMix64::new(0x5eed_d15c);
    let mut buf = AlignedBuf::new(plan.seq_block);
    let mut offset = 0;
    while offset < plan.file_bytes {
        // Abandoned (past the fill's deadline): nobody waits for the file,
        // and the stage may already have removed its name, which a create
        // that returned late has made again.
        if !mailbox.update(|filled| *filled = offset) {
            drop(file);
            let _ = std::fs::remove_file(path);
            anyhow::bail!("the fill was abandoned");
        }
        #[cfg(all(test, unix))]
        crate::platform::watchdog::seam::point("disk fill");
        rng.fill(buf.as_mut_slice());
        write_all_at(&file, buf.as_slice(), offset).with_context(|| format!("cannot fill {}", path.display()))?;
        offset += plan.seq_block as u64;
    }
    // Every block is written: a hang in the flush reports the whole file.
    mailbox.update(|filled| *filled = offset);
    file.sync_data().with_context(|| format!("cannot flush {}", path.display()))?;
    Ok(file)
}

/// Writes all of `buf` at `offset` (also the cache stage's ranged download).
pub(crate) fn write_all_at(file: &File, buf: &[u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.write_all_at(buf, offset)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let (mut buf, mut offset) = (buf, offset);
        while !buf.is_empty() {
            match file.seek_write(buf, offset) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    buf = &buf[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, buf, offset);
        Err(std::io::Error::other("positioned writes are not implemented for this OS yet"))
    }
}

pub(super) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let (mut buf, mut offset) = (buf, offset);
        while !buf.is_empty() {
            match file.seek_read(buf, offset) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    buf = &mut std::mem::take(&mut buf)[n..];
                    offset += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, buf, offset);
        Err(std::io::Error::other("positioned reads are not implemented for this OS yet"))
    }
}
