//! The host's modelled clock (`Devices` moves it; the allocator's history reads it).

use std::sync::atomic::{AtomicU64, Ordering};

/// The host's modelled clock, in seconds: one word, read and moved without
/// a lock or a read-modify-write (every CPU-tensor op advances it: an
/// atomic update was 2% of a loop of tiny ops). Only the session's thread,
/// the one that runs its statements, moves it; other threads may read it.
#[derive(Default)]
pub struct HostClock(AtomicU64);

impl HostClock {
    pub fn now(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Acquire))
    }

    pub fn set(&self, t: f64) {
        self.0.store(t.to_bits(), Ordering::Release);
    }

    /// Adds `seconds`; returns the time before.
    pub fn advance(&self, seconds: f64) -> f64 {
        let before = self.now();
        self.set(before + seconds);
        before
    }

    /// Moves the clock to `t` when it is later.
    pub fn raise_to(&self, t: f64) {
        if t > self.now() {
            self.set(t);
        }
    }
}
