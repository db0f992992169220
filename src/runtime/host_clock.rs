//! The host's modelled clock (`Devices` moves it; the allocator's history
//! reads it), and a thread's own clock: a rank of `spawn` is a process of
//! its own, whose host works and waits on a clock of its own.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The host's modelled clock, in seconds: one word, read and moved without
/// a lock or a read-modify-write (every CPU-tensor op advances it: an
/// atomic update was 2% of a loop of tiny ops). Only the session's thread,
/// the one that runs its statements, moves it; other threads may read it.
#[derive(Default)]
pub struct HostClock(AtomicU64);

impl HostClock {
    /// A clock that reads `t` now.
    pub fn at(t: f64) -> HostClock {
        let c = HostClock::default();
        c.set(t);
        c
    }

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

thread_local! {
    /// The clock of the process this thread models, when it is not the
    /// session's (a rank's).
    static OWN: RefCell<Option<Arc<HostClock>>> = const { RefCell::new(None) };
}

/// While alive, this thread's host time is `clock`'s, not the session's.
pub struct OwnClock(());

impl OwnClock {
    pub fn install(clock: Arc<HostClock>) -> OwnClock {
        OWN.with(|o| *o.borrow_mut() = Some(clock));
        OwnClock(())
    }
}

impl Drop for OwnClock {
    fn drop(&mut self) {
        OWN.with(|o| *o.borrow_mut() = None);
    }
}

/// `f` on this thread's clock: its own, or else `session`.
#[inline]
pub fn on<R>(session: &HostClock, f: impl FnOnce(&HostClock) -> R) -> R {
    OWN.with(|o| match &*o.borrow() {
        Some(own) => f(own),
        None => f(session),
    })
}
