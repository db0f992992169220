//! What autograd keeps about one tensor (PyTorch's `AutogradMeta`): whether
//! it requires grad, the node that made it (`grad_fn`, none for a leaf),
//! its `.grad`, and whether a non-leaf keeps its grad (`retain_grad()`).
//! The tensor holds it in its autograd slot; a tensor without one is a
//! plain tensor that requires no grad.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::node::{GradCell, Node};
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

pub struct Meta {
    requires_grad: AtomicBool,
    /// The node whose output this tensor is, and which output (a leaf has
    /// none), as the op that made the tensor recorded it.
    made_by: Option<(Arc<Node>, usize)>,
    /// What an in-place op on the tensor made it since (PyTorch's rebase of
    /// the history), for every holder of the tensor at once: read only once
    /// `rebased` is set, so the ops of a graph never in-place take no lock.
    since: Mutex<Option<Arc<Node>>>,
    rebased: AtomicBool,
    /// `.grad`: shared with the edges that lead to this tensor (a leaf)
    /// or with its node (`retain_grad()`).
    pub grad: Arc<GradCell>,
    retains_grad: AtomicBool,
}

impl Meta {
    fn leaf(requires_grad: bool) -> Meta {
        Meta {
            requires_grad: AtomicBool::new(requires_grad),
            made_by: None,
            since: Mutex::new(None),
            rebased: AtomicBool::new(false),
            grad: Arc::default(),
            retains_grad: AtomicBool::new(false),
        }
    }

    pub fn output_of(node: Arc<Node>, output: usize) -> Meta {
        Meta {
            requires_grad: AtomicBool::new(true),
            made_by: Some((node, output)),
            since: Mutex::new(None),
            rebased: AtomicBool::new(false),
            grad: Arc::default(),
            retains_grad: AtomicBool::new(false),
        }
    }

    pub fn requires_grad(&self) -> bool {
        self.has_grad_fn() || self.requires_grad.load(Ordering::Acquire)
    }

    /// The node that made this tensor (and which of its outputs it is).
    pub fn grad_fn(&self) -> Option<(Arc<Node>, usize)> {
        match self.rebased.load(Ordering::Acquire) {
            true => lock(&self.since).clone().map(|n| (n, 0)),
            false => self.made_by.clone(),
        }
    }

    pub fn has_grad_fn(&self) -> bool {
        self.made_by.is_some() || self.rebased.load(Ordering::Acquire)
    }

    /// The tensor changed in place by a recorded op: `node` made it now.
    pub fn rebase(&self, node: Arc<Node>) {
        *lock(&self.since) = Some(node);
        self.rebased.store(true, Ordering::Release);
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
    meta(t).is_none_or(|m| !m.has_grad_fn())
}

/// The record of a leaf `t`, made when it has none; `None` when `t` is the
/// output of a recorded op.
pub fn leaf_meta(t: &Tensor) -> Option<&Meta> {
    let any = t.autograd_or_init(|| Arc::new(Meta::leaf(false)));
    any.downcast_ref::<Meta>().filter(|m| !m.has_grad_fn())
}

/// The record of `t`, made (a leaf's, not requiring grad) when it has none.
pub fn meta_or_leaf(t: &Tensor) -> &Meta {
    let any = t.autograd_or_init(|| Arc::new(Meta::leaf(false)));
    any.downcast_ref::<Meta>()
        .expect("autograd's record of a tensor is a Meta")
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
    match m.grad_fn() {
        Some((node, _)) => Some(format!("grad_fn=<{}>", node.name)),
        None if m.requires_grad() => Some("requires_grad".into()),
        None => None,
    }
}
