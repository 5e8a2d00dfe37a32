//! The entries a run stores and reads back: unique random bodies named by
//! their SHA-256, and the check that a GET returned exactly one of them.

use bytes::Bytes;
use runner_bench_format::hex;
use sha2::{Digest, Sha256};

use runner_bench_format::measured::HttpCacheProtocol;

use super::action_result;
use crate::rng::SplitMix64;

/// One entry: its key (hex SHA-256 of the body) and its body.
#[derive(Debug, Clone)]
pub struct Entry {
    pub key: String,
    pub body: Bytes,
}

/// `n` entries of `value_bytes` random bytes each. The bytes come from one
/// buffer, so generating them is one pass and cloning a body copies nothing.
pub fn random(n: u32, value_bytes: u64, rng: &mut SplitMix64) -> Vec<Entry> {
    let size = usize::try_from(value_bytes).expect("an entry size fits in memory");
    let mut all = vec![0u8; size * n as usize];
    rng.fill(&mut all);
    let all = Bytes::from(all);
    (0..n as usize)
        .map(|i| {
            let body = all.slice(i * size..(i + 1) * size);
            Entry { key: key_of(&body), body }
        })
        .collect()
}

/// `n` entries of `value_bytes` bytes each, as `protocol` stores them:
/// random bytes, or for Bazel's action cache `ActionResult` messages whose
/// inlined output is random (`action_result`); or why that protocol has no
/// value of that size. Each key is still the body's SHA-256: the action
/// cache is keyed by an action's digest, which for the server is any
/// SHA-256, and one that names the body lets a GET be checked the same way.
pub fn for_protocol(
    protocol: HttpCacheProtocol,
    n: u32,
    value_bytes: u64,
    rng: &mut SplitMix64,
) -> Result<Vec<Entry>, String> {
    if protocol != HttpCacheProtocol::BazelAc {
        return Ok(random(n, value_bytes, rng));
    }
    let size = usize::try_from(value_bytes).map_err(|_| format!("{value_bytes} bytes do not fit in memory"))?;
    let mut contents = vec![0u8; size];
    (0..n)
        .map(|_| {
            rng.fill(&mut contents);
            let body = Bytes::from(action_result::encode(value_bytes, &contents)?);
            Ok(Entry { key: key_of(&body), body })
        })
        .collect()
}

/// The key of a body: its lowercase hex SHA-256.
pub fn key_of(body: &[u8]) -> String {
    hex(&Sha256::digest(body))
}

/// Whether a GET of `entry` returned it, byte for byte; if not, why.
///
/// The bytes are compared with the body that was PUT, not hashed: the
/// entry's key is that body's SHA-256, so an equal body is one whose
/// SHA-256 is the key, and a comparison costs a fraction of a hash (a
/// SHA-256 of each 64 KiB body held the GET phase to a third of oha's
/// requests/s on the development VM). The digest is computed only to say
/// what came back instead.
pub fn verify(entry: &Entry, got: &[u8]) -> Result<(), String> {
    if got == entry.body.as_ref() {
        Ok(())
    } else {
        Err(format!("GET {} returned {} bytes whose SHA-256 is {}, not the entry's", entry.key, got.len(), key_of(got)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_unique_and_named_by_their_digest() {
        let mut rng = SplitMix64::new(7);
        let entries = random(50, 128, &mut rng);
        assert_eq!(entries.len(), 50);
        let mut keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), 50);
        for e in &entries {
            assert_eq!(e.body.len(), 128);
            assert_eq!(verify(e, &e.body), Ok(()));
        }
    }

    /// A cache that answers a GET with other bytes (a corrupted file, or
    /// another entry) is a failed request, whatever its status said.
    #[test]
    fn a_body_that_differs_fails_verification() {
        let mut rng = SplitMix64::new(1);
        let entries = random(2, 16, &mut rng);
        let mut corrupted = entries[0].body.to_vec();
        corrupted[3] ^= 1;
        let err = verify(&entries[0], &corrupted).unwrap_err();
        assert_eq!(
            err,
            format!(
                "GET {} returned 16 bytes whose SHA-256 is {}, not the entry's",
                entries[0].key,
                key_of(&corrupted)
            )
        );
        assert!(verify(&entries[0], &entries[1].body).is_err());
        assert!(verify(&entries[0], b"").is_err());
    }
}
