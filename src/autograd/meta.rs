//! What autograd keeps about one tensor (PyTorch's `AutogradMeta`): whether
//! it requires grad, the node that made it (`grad_fn`, none for a leaf),
//! its `.grad`, and whether a non-leaf keeps its grad (`retain_grad()`).
//! The tensor holds it in its autograd slot; a tensor without one is a
//! plain tensor that requires no grad.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::node::{GradCell, Node};
use crate::runtime::Tensor;

pub struct Meta {
    requires_grad: AtomicBool,
    /// The node whose output this tensor is, and which output (a leaf has none).
    pub grad_fn: Option<(Arc<Node>, usize)>,
    /// `.grad`: shared with the edges that lead to this tensor (a leaf)
    /// or with its node (`retain_grad()`).
    pub grad: Arc<GradCell>,
    retains_grad: AtomicBool,
}

impl Meta {
    fn leaf(requires_grad: bool) -> Meta {
        Meta {
            requires_grad: AtomicBool::new(requires_grad),
            grad_fn: None,
            grad: Arc::default(),
            retains_grad: AtomicBool::new(false),
        }
    }

    pub fn output_of(node: Arc<Node>, output: usize) -> Meta {
        Meta {
            requires_grad: AtomicBool::new(true),
            grad_fn: Some((node, output)),
            grad: Arc::default(),
            retains_grad: AtomicBool::new(false),
        }
    }

    pub fn requires_grad(&self) -> bool {
        self.grad_fn.is_some() || self.requires_grad.load(Ordering::Acquire)
    }

    pub fn grad(&self) -> Option<Arc<Tensor>> {
        self.grad.get()
    }

    pub fn set_grad(&self, g: Option<Arc<Tensor>>) {
        self.grad.set(g);
    }

    pub fn retains_grad(&self) -> bool {
        self.retains_grad.load(Ordering::Acquire)
    }
}

/// The autograd record of `t`, when it has one.
pub fn meta(t: &Tensor) -> Option<&Meta> {
    t.autograd()?.downcast_ref::<Meta>()
}

/// Whether `t` takes part in autograd: a leaf that requires grad, or the
/// result of an op on one.
pub fn requires_grad(t: &Tensor) -> bool {
    meta(t).is_some_and(Meta::requires_grad)
}

/// A leaf: made by the user, not by an op on tensors that require grad.
pub fn is_leaf(t: &Tensor) -> bool {
    meta(t).is_none_or(|m| m.grad_fn.is_none())
}

/// The record of a leaf `t`, made when it has none; `None` when `t` is the
/// output of a recorded op.
pub fn leaf_meta(t: &Tensor) -> Option<&Meta> {
    let any = t.autograd_or_init(|| Arc::new(Meta::leaf(false)));
    any.downcast_ref::<Meta>().filter(|m| m.grad_fn.is_none())
}

/// `x.requires_grad_(flag)` on a leaf.
pub fn set_requires_grad(m: &Meta, flag: bool) {
    m.requires_grad.store(flag, Ordering::Release);
}

/// `y.retain_grad()`.
pub fn set_retains_grad(m: &Meta) {
    m.retains_grad.store(true, Ordering::Release);
}

/// What a tensor's tag shows of autograd, as PyTorch's repr does:
/// `grad_fn=<MulBackward0>`, or `requires_grad` for a leaf that does.
pub fn describe(t: &Tensor) -> Option<String> {
    let m = meta(t)?;
    match &m.grad_fn {
        Some((node, _)) => Some(format!("grad_fn=<{}>", node.name)),
        None if m.requires_grad() => Some("requires_grad".into()),
        None => None,
    }
}
