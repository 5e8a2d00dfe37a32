//! The key `site serve` keeps a part of a build under, to reuse it while
//! the key is the same: a hash of the inputs it was made from.

use std::hash::{Hash, Hasher};

/// A key for inputs that hash.
pub fn key_of(inputs: impl Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    inputs.hash(&mut h);
    h.finish()
}
