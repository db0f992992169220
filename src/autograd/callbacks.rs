//! Final callbacks: what runs once a backward's last node has run, before
//! `backward()` returns (PyTorch's `Variable._execution_engine.queue_callback`,
//! which DDP's reducer uses to wait for its all-reduces and DataParallel's
//! users to finish a step). Queued while a backward runs, from a hook or by
//! the runtime's own features; run in the order queued, also those queued
//! by a callback. A backward that fails runs none of its callbacks.
//!
//! The queue belongs to the backward running on this thread (PyTorch keeps
//! the current graph task per thread too); a backward started from a hook
//! has its own.

use std::cell::RefCell;

use super::hook_list::HookFn;
use super::hooks::Host;
use crate::error::Error;

/// A callback of the runtime's own, given the backward's host.
pub type NativeFn = Box<dyn FnOnce(&mut dyn Host) -> Result<(), Error>>;

/// A callback queued for the end of the running backward.
pub enum Callback {
    /// A function of the session, called with no arguments.
    Hook(HookFn),
    /// The runtime's own (the DDP reducer's).
    Native(NativeFn),
}

thread_local! {
    /// One queue per backward running on this thread, innermost last.
    static QUEUES: RefCell<Vec<Vec<Callback>>> = const { RefCell::new(Vec::new()) };
}

/// Queues `cb` for the end of the backward running now; PyTorch's error
/// when none is.
pub fn queue(cb: Callback) -> Result<(), Error> {
    QUEUES.with(|q| match q.borrow_mut().last_mut() {
        Some(queue) => {
            queue.push(cb);
            Ok(())
        }
        None => Err(Error::Autograd {
            message: "Final callbacks can only be installed during backward pass.".into(),
            help: "queue it from a hook, which runs while backward does".into(),
        }),
    })
}

/// A backward's queue, open while it runs: `finish` runs what was queued.
pub(super) struct Open(());

impl Open {
    pub(super) fn begin() -> Open {
        QUEUES.with(|q| q.borrow_mut().push(Vec::new()));
        Open(())
    }

    /// After the last node ran: each callback in order, also those queued
    /// meanwhile; the first error ends the backward with it.
    pub(super) fn finish(self, h: &mut dyn Host) -> Result<(), Error> {
        loop {
            let next = QUEUES.with(|q| {
                let mut q = q.borrow_mut();
                let queue = q.last_mut().expect("this backward's queue is open");
                (!queue.is_empty()).then(|| queue.remove(0))
            });
            let Some(cb) = next else { return Ok(()) };
            match cb {
                Callback::Hook(f) => h.final_callback(&f)?,
                Callback::Native(f) => f(h)?,
            }
        }
    }
}

/// The queue closes with its backward, also one that failed (whatever it
/// held is dropped, as PyTorch's graph task's).
impl Drop for Open {
    fn drop(&mut self) {
        QUEUES.with(|q| q.borrow_mut().pop());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queueing_outside_a_backward_is_pytorchs_error() {
        let Err(Error::Autograd { message, .. }) = queue(Callback::Hook(std::sync::Arc::new(0u8)))
        else {
            panic!("queued outside a backward")
        };
        assert_eq!(
            message,
            "Final callbacks can only be installed during backward pass."
        );
    }
}
