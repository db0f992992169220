//! Locking the runtime's shared state.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, also after a panic elsewhere: a panic while holding the lock
/// cannot leave the bookkeeping worse than the bug that caused it; keep
/// going rather than poison every later statement.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
