//! The hasher of tables keyed by a body's text (a wide object's keys, the
//! Python reader's `Decimal`s): foldhash, seeded per table from the
//! operating system's random source through the standard library's
//! `RandomState`, so that a body cannot be made of keys that collide.
//!
//! foldhash's own `RandomState` seeds itself from addresses and the time,
//! which differ on every run even where the random source is fixed: the
//! training run of the profile-guided release build fixes it (and turns
//! address randomization off) so that its counts, and the build, come out the
//! same every time. Not part of the public API; shared with the bindings.

use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

use foldhash::fast::{FoldHasher, SeedableRandomState};
use foldhash::SharedSeed;

/// A [`BuildHasher`] of foldhash seeded from the operating system's random
/// source (see the module's comment).
#[derive(Clone, Debug)]
pub struct OsSeeded(SeedableRandomState);

impl Default for OsSeeded {
    fn default() -> Self {
        static SHARED: OnceLock<SharedSeed> = OnceLock::new();
        let shared = SHARED.get_or_init(|| SharedSeed::from_u64(RandomState::new().hash_one(0u64)));
        // Each `RandomState::new` of a thread has other keys (the standard
        // library counts them up), so each table its own seed.
        OsSeeded(SeedableRandomState::with_seed(
            RandomState::new().hash_one(1u64),
            shared,
        ))
    }
}

impl BuildHasher for OsSeeded {
    type Hasher = FoldHasher<'static>;

    #[inline(always)]
    fn build_hasher(&self) -> FoldHasher<'static> {
        self.0.build_hasher()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_hash_alike_within_and_apart_across() {
        let a = OsSeeded::default();
        assert_eq!(a.hash_one("key"), a.clone().hash_one("key"));
        // Two tables' seeds differ: a text that collides in one does not
        // collide in every other (2^-64 of a false failure).
        let b = OsSeeded::default();
        assert_ne!(a.hash_one("key"), b.hash_one("key"));
    }
}
