//! The archive of an archive-service cache: tar, compressed with zstd on one
//! thread, as @actions/cache writes it, so that either side can restore what
//! the other saved.
//!
//! - Entries are relative to the job's workspace, `/`-separated: the payload
//!   folder, then its files in name order (the `tar` crate's GNU/ustar
//!   headers, which GNU tar, bsdtar and the toolkit's `tar -xf` read; the
//!   toolkit writes `--posix` (pax) archives, which we read too).
//! - zstd at `cache_zstd_level` (3, zstd's default, which the toolkit uses by
//!   passing none), one frame, content checksum on (as the zstd CLI writes),
//!   no long-distance matching (`zstd-without-long`), and a single thread:
//!   the toolkit's `zstdmt` is `zstd -T0`, which the published protocol
//!   replaces with `--single-thread` so one pinned CPU does the work.
//! - The file is `cache.tzst`.
//! - The cache version is computed as @actions/cache's `getCacheVersion`.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Component, Path};

use sha2::{Digest, Sha256};

/// The archive's file name, as the toolkit names zstd archives.
pub const FILE_NAME: &str = "cache.tzst";
/// The toolkit's compression method name for zstd without `--long`.
pub const COMPRESSION: &str = "zstd-without-long";
/// The toolkit's version salt.
const VERSION_SALT: &str = "1.0";
const BUFFER: usize = 1 << 20;

/// @actions/cache's `getCacheVersion`: SHA-256 (lowercase hex) of the paths
/// as written, the compression method, `windows-only` on Windows unless
/// `enableCrossOsArchive`, and the salt, joined by `|`.
pub fn cache_version(paths: &[&str], compression: &str, windows_only: bool) -> String {
    let mut parts: Vec<&str> = paths.to_vec();
    parts.push(compression);
    if windows_only {
        parts.push("windows-only");
    }
    parts.push(VERSION_SALT);
    runner_bench_format::hex(&Sha256::digest(parts.join("|").as_bytes()))
}

/// The version the collector's entries have on this OS (the toolkit's
/// default, `enableCrossOsArchive: false`).
pub fn version_here(paths: &[&str]) -> String {
    cache_version(paths, COMPRESSION, cfg!(windows))
}

/// Archives `workspace/<folder>` (one level of files) into `out`; returns the
/// archive's size.
pub fn create(workspace: &Path, folder: &str, out: &Path, level: i32) -> io::Result<u64> {
    let file = BufWriter::with_capacity(BUFFER, File::create(out)?);
    let mut enc = zstd::Encoder::new(file, level)?;
    enc.include_checksum(true)?;
    let mut tar = tar::Builder::new(enc);
    tar.follow_symlinks(false);
    let src = workspace.join(folder);
    tar.append_dir(folder, &src)?;
    let mut names: Vec<_> = std::fs::read_dir(&src)?.map(|e| e.map(|e| e.file_name())).collect::<Result<_, _>>()?;
    names.sort();
    for name in names {
        let path = src.join(&name);
        let entry = format!("{folder}/{}", name.to_string_lossy());
        let mut f = File::open(&path)?;
        tar.append_file(entry, &mut f)?;
    }
    let enc = tar.into_inner()?;
    let mut file = enc.finish()?;
    file.flush()?;
    // No fsync: neither the toolkit nor `zstd -o` syncs the archive.
    let file = file.into_inner().map_err(|e| e.into_error())?;
    Ok(file.metadata()?.len())
}

/// Extracts `archive` into `workspace`, as `tar -xf … -C workspace` would.
/// Regular files are written with 1 MiB reads and writes (the `tar` crate's
/// own unpacking copies 8 KiB at a time); other entries are unpacked by the
/// `tar` crate. An entry that would land outside the workspace is an error.
pub fn extract(archive: &Path, workspace: &Path) -> io::Result<()> {
    let dec = zstd::Decoder::with_buffer(BufReader::with_capacity(BUFFER, File::open(archive)?))?;
    let mut tar = tar::Archive::new(dec);
    let mut buf = vec![0u8; BUFFER];
    for entry in tar.entries()? {
        let mut entry = entry?;
        if !entry.header().entry_type().is_file() {
            entry.unpack_in(workspace)?;
            continue;
        }
        let rel = entry.path()?.into_owned();
        if !rel.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("archive entry {} would land outside the target", rel.display()),
            ));
        }
        let dest = workspace.join(&rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut file = File::create(&dest)?;
        loop {
            let n = entry.read(&mut buf)?;
            if n == 0 {
                break;
            }
            file.write_all(&buf[..n])?;
        }
        #[cfg(unix)]
        if let Ok(mode) = entry.header().mode() {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(mode & 0o7777))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_match_the_toolkit() {
        // Worked examples from protocols.md A.4.
        assert_eq!(
            cache_version(&["~/.npm"], "zstd-without-long", false),
            "c242501c19ada3dcced7a83b074ccb8e79f816602d4125493924624b38591de2"
        );
        assert_eq!(
            cache_version(&["~/.npm"], "gzip", false),
            "9e0ba804245d8292e3d31c4651caa1d2c2e10e81739c3a6224daf431cd079309"
        );
    }

    #[test]
    fn round_trips_and_gnu_tar_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        let m = super::super::payload::generate(&ws.join("p"), 1, 3).unwrap();
        let archive = dir.path().join(FILE_NAME);
        let size = create(&ws, "p", &archive, 3).unwrap();
        assert!(size > m.bytes);
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        extract(&archive, &out).unwrap();
        assert_eq!(super::super::payload::verify(&out.join("p"), &m).unwrap(), None);
        // The toolkit's extraction command, where tar and zstd exist.
        if std::process::Command::new("zstd").arg("--version").output().is_ok() {
            let out2 = dir.path().join("out2");
            std::fs::create_dir(&out2).unwrap();
            let st = std::process::Command::new("tar")
                .args(["-xf"])
                .arg(&archive)
                .args(["-P", "-C"])
                .arg(&out2)
                .args(["--use-compress-program", "unzstd"])
                .status()
                .unwrap();
            assert!(st.success());
            assert_eq!(super::super::payload::verify(&out2.join("p"), &m).unwrap(), None);
        }
    }
}
