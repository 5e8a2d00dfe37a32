//! The random bytes of upload bodies and the cache-busting `r` parameter.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// xoshiro256**, seeded from the clock and a counter through splitmix64:
/// fast, and its output does not compress.
pub struct Rng([u64; 4]);

impl Rng {
    pub fn new() -> Rng {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        let mut seed = nanos ^ COUNTER.fetch_add(1, Ordering::Relaxed).rotate_left(32) ^ u64::from(std::process::id());
        let mut splitmix = || {
            seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng([splitmix(), splitmix(), splitmix(), splitmix()])
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        for chunk in out.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_bodies_do_not_repeat() {
        let mut rng = Rng::new();
        let a = rng.bytes(1 << 16);
        assert_ne!(a[..8], a[8..16]);
        assert_ne!(a, Rng::new().bytes(1 << 16));
        // Every byte value turns up about equally often.
        let mut counts = [0u32; 256];
        a.iter().for_each(|&b| counts[b as usize] += 1);
        assert!(counts.iter().all(|&c| (128..=384).contains(&c)), "{counts:?}");
    }
}
