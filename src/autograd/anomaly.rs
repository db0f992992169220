//! Anomaly detection (PyTorch's `torch.autograd.detect_anomaly`): while it
//! is on, every node made in forward keeps the traceback of the code that
//! made it, and backward checks each node's gradients for NaN (one
//! reduction and a host read per gradient, as PyTorch's engine does, which
//! is why the mode is slow). A node whose backward fails has its forward
//! traceback shown as PyTorch's warning before the error goes on.
//!
//! The traceback is the interpreter's to write: a node made under the
//! mode gets an empty slot here, and the interpreter fills the slots made
//! during a statement when the statement ends (`eval/anomaly.rs`), with
//! the frames of the calls it ran in.

use std::cell::{Cell, RefCell};
use std::sync::{Arc, OnceLock};

use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::Tensor;

/// Where a node's traceback goes once the statement that made it ends:
/// one entry per frame, outermost first (`  File "...", line N, in f` and
/// the line's text), as Python's `traceback.format_list` gives them.
pub type Trace = Arc<OnceLock<Vec<String>>>;

thread_local! {
    /// (enabled, check_nan), as `torch.set_anomaly_enabled` sets them.
    static MODE: Cell<(bool, bool)> = const { Cell::new((false, true)) };
    /// Slots of nodes made since the interpreter last wrote tracebacks.
    static UNTRACED: RefCell<Vec<Trace>> = const { RefCell::new(Vec::new()) };
}

/// `torch.set_anomaly_enabled(enabled, check_nan)`.
pub fn set(enabled: bool, check_nan: bool) {
    MODE.with(|m| m.set((enabled, check_nan)));
}

/// `torch.is_anomaly_enabled()`.
pub fn enabled() -> bool {
    MODE.with(|m| m.get().0)
}

/// `torch.is_anomaly_check_nan_enabled()`.
pub fn check_nan_enabled() -> bool {
    MODE.with(|m| m.get().1)
}

/// A slot for a new node's traceback while the mode is on.
pub(super) fn new_trace() -> Option<Trace> {
    if !enabled() {
        return None;
    }
    let slot = Trace::default();
    UNTRACED.with(|u| u.borrow_mut().push(Arc::clone(&slot)));
    Some(slot)
}

/// Whether nodes made since the last call wait for their traceback.
pub fn has_untraced() -> bool {
    UNTRACED.with(|u| !u.borrow().is_empty())
}

/// The slots waiting for a traceback (the interpreter writes one into
/// each).
pub fn take_untraced() -> Vec<Trace> {
    UNTRACED.with(|u| std::mem::take(&mut *u.borrow_mut()))
}

/// PyTorch's warning for a node whose backward failed under the mode
/// (`python_anomaly_mode.cpp`, lines 108 and 90 of PyTorch 2.15).
pub fn failed_warning(name: &str, trace: Option<&Trace>) -> String {
    match trace.and_then(|t| t.get()).map(|frames| frames.concat()) {
        Some(text) => format!(
            "UserWarning: Error detected in {name}. Traceback of forward call that caused the \
             error:\n{text} (Triggered internally at \
             /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:108.)"
        ),
        None => format!(
            "UserWarning: Error detected in {name}. No forward pass information available. \
             Enable detect anomaly during forward pass for more information. (Triggered \
             internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:90.)"
        ),
    }
}

/// PyTorch's check of a node's gradients under the mode: each floating
/// one that holds a NaN fails the node ("returned nan values in its 0th
/// output"), found by a reduction and a host read, as PyTorch's
/// `isnan(output)._is_any_true().item()`.
pub(super) fn check_nan(
    rt: &mut Runtime,
    name: &str,
    grads: &[Option<Arc<Tensor>>],
) -> Result<(), Error> {
    if !(enabled() && check_nan_enabled()) {
        return Ok(());
    }
    for (i, g) in grads.iter().enumerate() {
        let Some(g) = g else { continue };
        if !g.dtype().is_float() || g.numel() == 0 {
            continue;
        }
        let nan = rt.binary(BinaryOp::Ne, Operand::strong(g), Operand::strong(g))?;
        let any = rt.reduce(ReduceOp::Max, &nan, None, false)?;
        if rt.read_item(&any, || any.to_vec::<f64>()[0] != 0.0)? {
            return Err(Error::Module {
                class: "RuntimeError",
                message: format!("Function '{name}' returned nan values in its {i}th output."),
                help: Some(
                    "the warning above shows the forward line that made this node; \
                     `torch.autograd.set_detect_anomaly(True, check_nan=False)` keeps the \
                     tracebacks without the check"
                        .into(),
                ),
            });
        }
    }
    Ok(())
}
