//! One variable under several handles: PyTorch's saved input is the
//! input itself (`y.grad_fn._saved_self is a`); cudash's saved tensor is an
//! alias, and these make and recognise an alias that holds the same
//! autograd record (so the same `requires_grad`, `grad_fn` and `.grad`).

use std::sync::Arc;

use crate::runtime::Tensor;

/// The same variable as `t` under another handle: its elements and its
/// autograd record shared (what PyTorch's saved input is: the tensor
/// itself, with its `requires_grad`, `grad_fn` and `.grad`).
pub fn same_variable(t: &Tensor) -> Tensor {
    match t.autograd() {
        Some(record) => with_record(t, Arc::clone(record)),
        None => t.alias(),
    }
}

/// An alias of `t` holding `record` (a saved input's, read back).
pub fn with_record(t: &Tensor, record: Arc<dyn std::any::Any + Send + Sync>) -> Tensor {
    let mut alias = t.alias();
    alias.set_autograd(record);
    alias
}

/// Whether two handles are one variable (`same_variable`'s): one record,
/// one storage, one view of it.
pub fn is_same_variable(a: &Tensor, b: &Tensor) -> bool {
    match (a.autograd(), b.autograd()) {
        (Some(x), Some(y)) => {
            Arc::ptr_eq(x, y)
                && a.shares_storage(b)
                && a.shape() == b.shape()
                && a.strides() == b.strides()
                && a.offset() == b.offset()
        }
        _ => false,
    }
}
