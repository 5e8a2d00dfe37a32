//! The project's one pseudo-random generator, SplitMix64 (Steele, Lea and
//! Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014; the
//! constants of Vigna's reference splitmix64.c).
//!
//! The collector's output defines measured bytes: the disk stage's file and write
//! buffers and the cache stage's payload (and so its `payload_sha256`) come
//! from fixed seeds, so every runner reads and writes the same bytes. A change
//! to this stream changes results; the tests pin its first outputs. The site
//! seeds its bootstrap confidence intervals with it, so that every build of
//! the same results prints the same intervals.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// SplitMix64: a tiny, well-distributed, seedable generator. Seeded runs give
/// every runner the same offsets and bytes.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// A generator whose stream differs from every other one in this run and
    /// from other runs (clock, process id and a counter): for bytes that must
    /// not repeat, such as upload bodies and cache-busting parameters, where
    /// no runner needs to reproduce them.
    pub fn unseeded() -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        // Mixed once through the generator, so that neighbouring seeds give
        // unrelated streams.
        let mut mix = SplitMix64(nanos ^ count.rotate_left(32) ^ u64::from(std::process::id()));
        SplitMix64(mix.next_u64())
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (Lemire's multiply-shift; the bias is below 2^-40 for
    /// the block counts used here).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Fills `buf` with the next outputs, little-endian, 8 bytes each; a
    /// shorter last chunk takes the first bytes of one whole output, so
    /// filling a buffer in pieces whose lengths are multiples of 8 gives the
    /// same bytes as filling it at once.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let bytes = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unseeded_streams_differ() {
        let (mut a, mut b) = (SplitMix64::unseeded(), SplitMix64::unseeded());
        assert_ne!([a.next_u64(), a.next_u64()], [b.next_u64(), b.next_u64()]);
    }

    #[test]
    fn first_outputs_match_the_reference_splitmix64() {
        // splitmix64.c seeded with 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(
            [r.next_u64(), r.next_u64(), r.next_u64()],
            [0xe220_a839_7b1d_cdaf, 0x6e78_9e6a_a1b9_65f4, 0x06c4_5d18_8009_454f]
        );
    }

    #[test]
    fn the_disk_file_seed_gives_the_same_bytes_as_before() {
        // The disk stage's file seed; these bytes were produced by the disk
        // stage's own copy of the generator before the copies were merged.
        let mut r = SplitMix64::new(0x5eed_d15c);
        let mut b = [0u8; 20];
        r.fill(&mut b);
        assert_eq!(
            b,
            [
                0xea, 0x77, 0xb0, 0x00, 0xa7, 0x39, 0xf5, 0x52, 0x8e, 0x17, 0x01, 0x3b, 0xdc, 0x29, 0x1e, 0xab, 0xf3,
                0xbf, 0xb5, 0x73
            ]
        );
        assert_eq!(r.below(1000), 188);
    }

    #[test]
    fn filling_in_pieces_continues_the_stream() {
        let mut whole = [0u8; 64];
        SplitMix64::new(9).fill(&mut whole);
        let mut pieces = [0u8; 64];
        let mut r = SplitMix64::new(9);
        let (a, b) = pieces.split_at_mut(24);
        r.fill(a);
        r.fill(b);
        assert_eq!(whole, pieces);
    }
}
