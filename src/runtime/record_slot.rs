//! The slot a tensor keeps the autograd layer's record in: written once,
//! then read without a lock, as `OnceLock` is, but a fresh op output is
//! given its record through `&mut` with no `Once` to go through (that
//! `Once` was 3% of a loop recording a graph: issue 50's cost target).

use std::any::Any;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// What the autograd layer keeps about a tensor; the runtime only holds it.
pub type Record = Arc<dyn Any + Send + Sync>;

const EMPTY: u8 = 0;
const WRITING: u8 = 1;
const READY: u8 = 2;

#[derive(Default)]
pub struct RecordSlot {
    state: AtomicU8,
    value: UnsafeCell<Option<Record>>,
}

// SAFETY: the value is written once, by the one thread that moved the state
// from EMPTY to WRITING (or through `&mut`), and read only after the state
// is READY (an Acquire load that pairs with the writer's Release store);
// after that it is never written again. `Record` is Send and Sync.
unsafe impl Sync for RecordSlot {}

impl RecordSlot {
    pub fn get(&self) -> Option<&Record> {
        match self.state.load(Ordering::Acquire) {
            // SAFETY: READY: written, and never written again (see above).
            READY => unsafe { (*self.value.get()).as_ref() },
            _ => None,
        }
    }

    /// Sets the record of a slot nobody else can see; `false`, and nothing
    /// set, when it has one.
    pub fn set_mut(&mut self, record: Record) -> bool {
        let state = self.state.get_mut();
        if *state == READY {
            return false;
        }
        *self.value.get_mut() = Some(record);
        *state = READY;
        true
    }

    /// The record, made by `make` when there is none. `make` runs before
    /// the slot is claimed, so two threads may both make one: the first to
    /// claim the slot keeps its own, the other's is dropped.
    pub fn get_or_init(&self, make: impl FnOnce() -> Record) -> &Record {
        if let Some(r) = self.get() {
            return r;
        }
        let record = make();
        match self
            .state
            .compare_exchange(EMPTY, WRITING, Ordering::Acquire, Ordering::Acquire)
        {
            Ok(_) => {
                // SAFETY: this thread alone moved EMPTY to WRITING, and no
                // reader reads before READY.
                unsafe { *self.value.get() = Some(record) };
                self.state.store(READY, Ordering::Release);
            }
            Err(_) => {
                drop(record);
                // The winner is storing one pointer: a few instructions.
                while self.state.load(Ordering::Acquire) != READY {
                    std::hint::spin_loop();
                }
            }
        }
        self.get().expect("the slot is READY")
    }
}

impl std::fmt::Debug for RecordSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.get() {
            Some(_) => f.write_str("RecordSlot(set)"),
            None => f.write_str("RecordSlot(empty)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_writer_wins_and_readers_see_it() {
        let slot = Arc::new(RecordSlot::default());
        assert!(slot.get().is_none());
        let seen: Vec<usize> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8usize)
                .map(|k| {
                    let slot = &slot;
                    s.spawn(move || {
                        let r = slot.get_or_init(|| Arc::new(k));
                        *r.downcast_ref::<usize>().unwrap()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(seen.iter().all(|&k| k == seen[0]), "{seen:?}");
        let mut slot = Arc::try_unwrap(slot).unwrap();
        assert!(!slot.set_mut(Arc::new(99usize)));
        assert_eq!(slot.get().unwrap().downcast_ref::<usize>(), Some(&seen[0]));
    }

    #[test]
    fn set_mut_on_an_empty_slot() {
        let mut slot = RecordSlot::default();
        assert!(slot.set_mut(Arc::new(5u8)));
        let r = slot.get_or_init(|| Arc::new(6u8));
        assert_eq!(r.downcast_ref::<u8>(), Some(&5));
    }
}
