//! The cache payload: a folder of files of seeded, incompressible bytes.
//!
//! The bytes depend only on the profile (MiB and file count), so every trial
//! and every backend, on every runner, moves exactly the same payload. Each
//! file has its own SplitMix64 stream (`crate::rng`) seeded with `SEED` plus
//! its index; zstd finds nothing to compress in it (it stores such data as
//! raw blocks).
//! The files share the MiB evenly; the last takes the remainder.

use std::fs::{self, File};
use std::io::{self, BufReader, Read, Write};
use std::path::Path;

use runner_bench_format::hex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::rng::SplitMix64;

/// Name of the payload folder inside the job's workspace: the path the
/// cache is saved under, as `path:` would name it in actions/cache.
pub const DIR_NAME: &str = "runner-bench-cache-payload";

const SEED: u64 = 0x7275_6e6e_6572_2d62; // "runner-b"
const CHUNK: usize = 1 << 20;

/// One payload file and its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

/// What the payload is: its files in name order, the total and the digest
/// over all files' bytes in name order (the stage's `payload_sha256`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub files: Vec<FileDigest>,
    pub bytes: u64,
    pub sha256: String,
}

/// The file names and sizes of a payload of `mib` MiB in `files` files.
pub fn layout(mib: u32, files: u32) -> Vec<(String, u64)> {
    let files = files.max(1);
    let total = u64::from(mib) << 20;
    let each = total / u64::from(files);
    (0..files)
        .map(|i| {
            let size = if i + 1 == files { total - each * u64::from(files - 1) } else { each };
            (format!("part-{i:04}.bin"), size)
        })
        .collect()
}

/// Writes the payload into `dir` (created; it must not exist yet) and returns
/// its manifest.
pub fn generate(dir: &Path, mib: u32, files: u32) -> io::Result<Manifest> {
    fs::create_dir(dir)?;
    let mut all = Sha256::new();
    let mut out = Vec::new();
    let mut buf = vec![0u8; CHUNK];
    for (i, (name, size)) in layout(mib, files).into_iter().enumerate() {
        let mut rng = SplitMix64::new(SEED.wrapping_add(i as u64));
        let mut file = File::create(dir.join(&name))?;
        let mut digest = Sha256::new();
        let mut left = size;
        while left > 0 {
            let n = left.min(CHUNK as u64) as usize;
            rng.fill(&mut buf[..n]);
            file.write_all(&buf[..n])?;
            digest.update(&buf[..n]);
            all.update(&buf[..n]);
            left -= n as u64;
        }
        file.sync_all()?;
        out.push(FileDigest { name, bytes: size, sha256: hex(&digest.finalize()) });
    }
    Ok(Manifest { bytes: out.iter().map(|f| f.bytes).sum(), files: out, sha256: hex(&all.finalize()) })
}

pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut r = BufReader::with_capacity(CHUNK, File::open(path)?);
    let mut d = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            break;
        }
        d.update(&buf[..n]);
    }
    Ok(hex(&d.finalize()))
}

/// Compares a restored folder with the manifest: the same file names, no
/// more and no fewer, and the SHA-256 of every file. `Ok(None)` when all
/// match, `Ok(Some(why))` at the first difference.
pub fn verify(dir: &Path, manifest: &Manifest) -> io::Result<Option<String>> {
    if !dir.is_dir() {
        return Ok(Some(format!("the restore did not create {}", dir.display())));
    }
    let mut names: Vec<String> = fs::read_dir(dir)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    names.sort();
    let want: Vec<&str> = manifest.files.iter().map(|f| f.name.as_str()).collect();
    if names != want {
        return Ok(Some(format!("restored files {names:?}, expected {want:?}")));
    }
    for f in &manifest.files {
        let got = sha256_file(&dir.join(&f.name))?;
        if got != f.sha256 {
            return Ok(Some(format!("SHA-256 of {} is {got}, expected {}", f.name, f.sha256)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_splits_evenly_with_the_remainder_last() {
        let l = layout(1, 3);
        assert_eq!(l.iter().map(|f| f.1).sum::<u64>(), 1 << 20);
        assert_eq!(l[0], ("part-0000.bin".to_string(), 349_525));
        assert_eq!(l[2].1, 349_526);
    }

    #[test]
    fn payload_bytes_are_pinned() {
        // The digests of a 1 MiB, three-file payload as the cache stage's own
        // copy of the generator made it before the copies were merged: a
        // change here changes every cache result's payload_sha256.
        let dir = tempfile::tempdir().unwrap();
        let m = generate(&dir.path().join("p"), 1, 3).unwrap();
        let digests: Vec<&str> = m.files.iter().map(|f| f.sha256.as_str()).collect();
        assert_eq!(
            digests,
            [
                "9367860f7b00f3a802ba1ce541e67f169a66284d242f3d40167963665b2cf57f",
                "dc3460ea8f3690009927c6eb969d8f4ed1bca813a79006ba7ec24ec4eb529eb8",
                "c5bceadccf84871a688ff758ef9d157ff8800a6552dcdf254ad52f4545e6765e",
            ]
        );
        assert_eq!(m.sha256, "1856dc75f64927ee1c9d054f265fa4f79daf73d13ade812bd88b0148c7c8093b");
    }

    #[test]
    fn payload_is_reproducible_and_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let a = generate(&dir.path().join("a"), 1, 2).unwrap();
        let b = generate(&dir.path().join("b"), 1, 2).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.bytes, 1 << 20);
        assert_eq!(verify(&dir.path().join("b"), &a).unwrap(), None);
        let f = dir.path().join("b").join("part-0001.bin");
        let mut bytes = fs::read(&f).unwrap();
        bytes[100] ^= 1;
        fs::write(&f, bytes).unwrap();
        assert!(verify(&dir.path().join("b"), &a).unwrap().unwrap().starts_with("SHA-256 of part-0001.bin is "));
        // Incompressible: zstd gains nothing.
        let data = fs::read(dir.path().join("a").join("part-0000.bin")).unwrap();
        let packed = zstd::bulk::compress(&data, 3).unwrap();
        assert!(packed.len() as f64 > data.len() as f64 * 0.99);
    }
}
