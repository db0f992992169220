//! PyTorch's inference mode (`with torch.inference_mode():`), as far as
//! the tensors themselves: while it is on, on this thread (PyTorch's is
//! thread-local too), every new storage is an inference tensor's, and so
//! is every view of it. Such a tensor keeps no version counter: outside
//! inference mode it may not be changed in place (the op layer refuses
//! where it would bump the version, after the write, as PyTorch does), be
//! given `requires_grad`, or be saved for backward (the autograd layer's
//! `Node::new` and the interpreter refuse those).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

/// Inference mode was turned on once, on some thread: inference tensors
/// may exist (what they cost the layers above is asked only then).
static USED: AtomicBool = AtomicBool::new(false);

/// Whether inference mode was ever turned on in this process.
pub fn used() -> bool {
    USED.load(Ordering::Relaxed)
}

/// Whether inference mode is on on this thread
/// (`torch.is_inference_mode_enabled()`).
pub fn enabled() -> bool {
    ON.with(Cell::get)
}

/// Turns inference mode on or off on this thread; gives what it was, to
/// restore when the block ends.
pub fn set(on: bool) -> bool {
    if on {
        USED.store(true, Ordering::Relaxed);
    }
    ON.with(|c| c.replace(on))
}

/// An in-place write to `t` is about to bump its version: refused for an
/// inference tensor outside inference mode, in PyTorch's words.
pub fn check_bump(t: &crate::runtime::Tensor) -> Result<(), crate::error::Error> {
    match t.is_inference() && !enabled() {
        true => Err(in_place_refused()),
        false => Ok(()),
    }
}

fn in_place_refused() -> crate::error::Error {
    crate::error::Error::Module {
        class: "RuntimeError",
        message: "Inplace update to inference tensor outside InferenceMode is not allowed.You \
                  can make a clone to get a normal tensor before doing inplace update.See \
                  https://github.com/pytorch/rfcs/pull/17 for more details."
            .into(),
        help: Some(
            "a tensor made under `torch.inference_mode()` stays an inference tensor: change a \
             `.clone()` of it, or make it under `torch.no_grad()` instead"
                .into(),
        ),
    }
}
