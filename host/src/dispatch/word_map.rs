//! Maps keyed by wire words.

use std::collections::HashMap;

/// Hashes the u64 keys of the dispatcher's maps (wire words: already well mixed bits, no
/// adversary) with one multiplication instead of SipHash.
#[derive(Default, Clone, Copy)]
pub(super) struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ v >> 29).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub(super) type WordMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<WordHasher>>;
