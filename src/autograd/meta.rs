//! What autograd keeps about one tensor (PyTorch's `AutogradMeta`): whether
//! it requires grad, the node that made it (`grad_fn`, none for a leaf),
//! its `.grad`, and whether a non-leaf keeps its grad (`retain_grad()`).
//! The tensor holds it in its autograd slot; a tensor without one is a
//! plain tensor that requires no grad. A view also knows its base (the
//! tensor whose memory it views), so that an in-place op on either keeps
//! both histories right, as PyTorch's view tracking does.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::node::{
    Backward, Edge, Edges, Geometry, GradCell, InputMeta, Inputs, Node, Origin, Saved,
};
use crate::error::Error;
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

/// What a view knows of its base (PyTorch's `DifferentiableViewMeta`).
pub struct ViewOf {
    /// The base's record: a tensor that is no view, laid out contiguously.
    base: Arc<dyn Any + Send + Sync>,
    pub base_input: InputMeta,
    /// Where the base's first element lies in the memory.
    pub base_offset: usize,
    /// Where the view lies in the base.
    pub geometry: Geometry,
    /// The base's count of in-place changes to its history when this
    /// view's `grad_fn` was made: a newer count makes it again.
    seen: AtomicU64,
    /// A view of one of several views one op made (a part of `chunk`, or
    /// a view of one): PyTorch refuses to change it in place.
    pub of_parts: bool,
}

impl ViewOf {
    /// The base's record as the tensor holds it.
    pub fn base_record(&self) -> &Arc<dyn Any + Send + Sync> {
        &self.base
    }

    pub fn base(&self) -> &Meta {
        self.base
            .downcast_ref::<Meta>()
            .expect("autograd's record of a tensor is a Meta")
    }
}

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
    /// or with its node (`retain_grad()`); made when first needed, so the
    /// outputs of recorded ops, which mostly never have one, cost nothing.
    grad: OnceLock<Arc<GradCell>>,
    retains_grad: AtomicBool,
    /// How many times an in-place op changed this tensor's history.
    history: AtomicU64,
    /// The base this tensor views, when it is a view autograd tracks.
    pub view: Option<Box<ViewOf>>,
    /// Made by `Parameter(t)` (PyTorch's `nn.Parameter`): what a module
    /// registers as a parameter when assigned to one of its attributes.
    parameter: bool,
    /// A lazy module's parameter or buffer before its first forward
    /// (PyTorch's `UninitializedParameter` / `UninitializedBuffer`): no
    /// elements yet; `set_initialized` once the module made them.
    uninitialized: AtomicBool,
    /// A view made under `no_grad` of a tensor that requires grad
    /// (PyTorch's `CreationMeta::NO_GRAD_MODE`): it requires grad as its
    /// base does, as a leaf with no `.grad` of its own, and an in-place op
    /// on it in grad mode is refused.
    made_without_grad: bool,
    /// The tangent forward-mode AD carries with this tensor in the open
    /// dual level (`forward_ad.rs`); gone when the level closes.
    tangent: Mutex<Option<Arc<Tensor>>>,
}

impl Meta {
    fn new(
        requires_grad: bool,
        made_by: Option<(Arc<Node>, usize)>,
        view: Option<Box<ViewOf>>,
    ) -> Meta {
        Meta {
            requires_grad: AtomicBool::new(requires_grad),
            made_by,
            since: Mutex::new(None),
            rebased: AtomicBool::new(false),
            grad: OnceLock::new(),
            retains_grad: AtomicBool::new(false),
            history: AtomicU64::new(0),
            view,
            parameter: false,
            uninitialized: AtomicBool::new(false),
            made_without_grad: false,
            tangent: Mutex::new(None),
        }
    }

    fn leaf(requires_grad: bool) -> Meta {
        Meta::new(requires_grad, None, None)
    }

    /// A leaf that requires grad whose `.grad` is `cell` (a saved leaf
    /// read back by a backward that creates a graph: its gradient goes to
    /// the leaf's `.grad`, as every edge to the leaf's does).
    pub fn leaf_of(cell: Arc<GradCell>) -> Meta {
        let meta = Meta::leaf(true);
        let _ = meta.grad.set(cell);
        meta
    }

    /// The output of a recorded op (a view of its input when `view` is given).
    pub fn output_of(node: Arc<Node>, output: usize, view: Option<Box<ViewOf>>) -> Meta {
        Meta::new(true, Some((node, output)), view)
    }

    /// A view of a base that requires no grad yet (`a[0]` of `a = zeros(3)`
    /// about to be written with a value that does).
    pub fn view_of_plain(view: Box<ViewOf>) -> Meta {
        Meta::new(false, None, Some(view))
    }

    /// A view made under `no_grad` of `view`'s base, which requires grad.
    pub fn view_made_without_grad(view: Box<ViewOf>) -> Meta {
        let mut m = Meta::new(false, None, Some(view));
        m.made_without_grad = true;
        m
    }

    pub fn requires_grad(&self) -> bool {
        self.has_grad_fn()
            || self.requires_grad.load(Ordering::Acquire)
            || self.made_without_grad_of_one_that_requires()
    }

    /// Whether this is a view made under `no_grad` whose base requires grad.
    pub fn made_without_grad_of_one_that_requires(&self) -> bool {
        self.made_without_grad && self.view.as_ref().is_some_and(|v| v.base().requires_grad())
    }

    /// The node that made this tensor (and which of its outputs it is); a
    /// view's is made again when its base changed in place since.
    pub fn grad_fn(&self) -> Option<(Arc<Node>, usize)> {
        if let Some(v) = self.view.as_ref().filter(|_| !self.made_without_grad) {
            let now = v.base().history.load(Ordering::Acquire);
            if v.seen.load(Ordering::Acquire) != now {
                return self.regenerate(v, now);
            }
        }
        match self.rebased.load(Ordering::Acquire) {
            true => lock(&self.since).clone().map(|n| (n, 0)),
            false => self.made_by.clone(),
        }
    }

    /// A view's history after its base's changed: `AsStridedBackward0` of
    /// the base's (none while the base requires no grad).
    fn regenerate(&self, v: &ViewOf, now: u64) -> Option<(Arc<Node>, usize)> {
        let base = v.base();
        let mut since = lock(&self.since);
        let edge = base.edge();
        let node = match edge {
            Edge::None => None,
            edge => {
                let stream = base.grad_fn().and_then(|(n, _)| n.stream);
                let backward = Backward::AsStrided {
                    view: v.geometry.clone(),
                };
                let inputs = Inputs::from_elem(v.base_input.clone(), 1);
                let name = "AsStridedBackward0";
                Some(Arc::new(Node::new(
                    name,
                    backward,
                    Edges::from_elem(edge, 1),
                    inputs,
                    stream,
                )))
            }
        };
        *since = node.clone();
        self.rebased.store(true, Ordering::Release);
        v.seen.store(now, Ordering::Release);
        node.map(|n| (n, 0))
    }

    pub fn has_grad_fn(&self) -> bool {
        match &self.view {
            None => self.made_by.is_some() || self.rebased.load(Ordering::Acquire),
            Some(_) => self.grad_fn().is_some(),
        }
    }

    /// Where a gradient for this tensor goes: its node, its `.grad` (a
    /// leaf that requires grad), or nowhere.
    pub fn edge(&self) -> Edge {
        match self.grad_fn() {
            Some((node, k)) => Edge::Node(node, k),
            // A view made under `no_grad` leads nowhere (PyTorch gives it
            // no gradient accumulator).
            None if self.made_without_grad => Edge::None,
            None if self.requires_grad() => Edge::Leaf(Arc::clone(self.grad_cell())),
            None => Edge::None,
        }
    }

    /// The tensor changed in place by a recorded op: `node` made it now
    /// (and its views' histories are made again when next used).
    pub fn rebase(&self, node: Arc<Node>) {
        *lock(&self.since) = Some(node);
        self.rebased.store(true, Ordering::Release);
        self.history.fetch_add(1, Ordering::AcqRel);
    }

    /// The record of a view `out` of `x` (a tensor with a record), when
    /// autograd can track it: the same dtype, the base contiguous.
    pub fn view_of(x: &Tensor, out: &Tensor) -> Option<Box<ViewOf>> {
        let any = x.autograd()?;
        let m = any.downcast_ref::<Meta>()?;
        let (base, base_input, base_offset) = match &m.view {
            Some(v) => (Arc::clone(&v.base), v.base_input.clone(), v.base_offset),
            None if x.is_contiguous() => (Arc::clone(any), InputMeta::of(x), x.offset()),
            None => return None,
        };
        if out.dtype() != base_input.dtype || out.offset() < base_offset {
            return None;
        }
        let seen = base
            .downcast_ref::<Meta>()
            .map_or(0, |b| b.history.load(Ordering::Acquire));
        let of_parts = m.view.as_ref().is_some_and(|v| v.of_parts)
            || m.made_by
                .as_ref()
                .is_some_and(|(n, _)| n.outputs > 1 && n.view);
        Some(Box::new(ViewOf {
            of_parts,
            base,
            base_input,
            base_offset,
            geometry: Geometry {
                shape: out.shape().into(),
                strides: out.strides().into(),
                offset: out.offset() - base_offset,
            },
            seen: AtomicU64::new(seen),
        }))
    }

    /// The forward-mode tangent (`forward_ad::tangent` reads it).
    pub fn tangent(&self) -> Option<Arc<Tensor>> {
        lock(&self.tangent).clone()
    }

    pub fn set_tangent(&self, t: Option<Arc<Tensor>>) {
        *lock(&self.tangent) = t;
    }

    pub fn grad(&self) -> Option<Arc<Tensor>> {
        self.grad.get().and_then(|c| c.get())
    }

    pub fn set_grad(&self, g: Option<Arc<Tensor>>) {
        self.grad_cell().set(g);
    }

    /// Where `.grad` is kept (shared with the edges to a leaf and with the
    /// node of a tensor that retains its grad).
    pub fn grad_cell(&self) -> &Arc<GradCell> {
        self.grad.get_or_init(Arc::default)
    }

    pub fn retains_grad(&self) -> bool {
        self.retains_grad.load(Ordering::Acquire)
    }
}

/// The base of a storage an in-place op in a graph changed the history
/// of (`mark_base`). The record is held weakly: the graph may hold the
/// storage (a saved tensor), and this table must not hold the graph.
struct BaseOf {
    meta: std::sync::Weak<dyn Any + Send + Sync>,
    input: InputMeta,
    offset: usize,
}

/// The bases, by storage (`Tensor::storage_id`); asked only for a storage
/// marked as having one, so a session without in-place ops in a graph
/// never asks. An entry whose base is gone is pruned as the table grows.
static BASES: Mutex<BTreeMap<usize, BaseOf>> = Mutex::new(BTreeMap::new());

/// The record of `t`, when it has one. A tensor made without one (a view
/// made while nothing required grad) whose memory belongs to a tensor an
/// in-place op has since put in a graph is a view of it, as in PyTorch,
/// and gets its record now.
pub fn meta(t: &Tensor) -> Option<&Meta> {
    match t.autograd() {
        Some(any) => any.downcast_ref::<Meta>(),
        None if ANY_MARKED.load(Ordering::Relaxed) && t.marked_for_autograd() => {
            view_of_changed_base(t)
        }
        None => None,
    }
}

/// Whether any storage was ever marked (`mark_base`): until then, a
/// tensor without a record is not even asked.
static ANY_MARKED: AtomicBool = AtomicBool::new(false);

#[cold]
fn view_of_changed_base(t: &Tensor) -> Option<&Meta> {
    let view = {
        let bases = lock(&BASES);
        let base = bases.get(&t.storage_id())?;
        if t.dtype() != base.input.dtype || t.offset() < base.offset {
            return None;
        }
        Box::new(ViewOf {
            base: base.meta.upgrade()?,
            base_input: base.input.clone(),
            base_offset: base.offset,
            geometry: Geometry {
                shape: t.shape().into(),
                strides: t.strides().into(),
                offset: t.offset() - base.offset,
            },
            seen: AtomicU64::new(0),
            of_parts: false,
        })
    };
    t.autograd_or_init(|| Arc::new(Meta::view_of_plain(view)))
        .downcast_ref::<Meta>()
}

/// The history of the base of `x`'s memory (`x` itself when it is no
/// view) changed in place: the tensors that view that memory find it from
/// now on, those made before included.
pub fn mark_base(x: &Tensor) {
    if x.marked_for_autograd() {
        return;
    }
    let Some(any) = x.autograd() else {
        return;
    };
    let (base, input, offset) = match any.downcast_ref::<Meta>().and_then(|m| m.view.as_ref()) {
        Some(v) => (&v.base, v.base_input.clone(), v.base_offset),
        None if x.is_contiguous() => (any, InputMeta::of(x), x.offset()),
        None => return,
    };
    let mut bases = lock(&BASES);
    if bases.len() >= 64 && bases.len().is_power_of_two() {
        bases.retain(|_, b| b.meta.strong_count() > 0);
    }
    bases.insert(
        x.storage_id(),
        BaseOf {
            meta: Arc::downgrade(base),
            input,
            offset,
        },
    );
    ANY_MARKED.store(true, Ordering::Relaxed);
    x.mark_for_autograd();
}

/// `x.detach()`: the same elements, with a record that requires no grad
/// (so no history is ever found for it through its memory).
pub fn detached(x: &Tensor) -> Tensor {
    let t = x.alias();
    t.autograd_or_init(|| Arc::new(Meta::leaf(false)));
    t
}

/// `x.data`: as `detached`, with a version counter of its own, as PyTorch's
/// `.data` (an in-place change through it is not seen by autograd).
pub fn data_of(x: &Tensor) -> Tensor {
    let t = x.with_own_version();
    t.autograd_or_init(|| Arc::new(Meta::leaf(false)));
    t
}

/// A DataLoader worker's (or a rank's, a process's) own `t`, as a forked
/// PyTorch worker has a copy: the same elements (shared memory, which the
/// worker may not change) with a version counter of its own, a
/// leaf that requires grad as `t` does, with a `.grad` of its own, so a
/// `backward()` or `requires_grad_()` in the worker never reaches the
/// session's tensor. None when `t` has no autograd record to separate.
pub fn worker_copy(t: &Tensor) -> Option<Tensor> {
    let m = meta(t)?;
    let copy = t.with_version_copy();
    let mut own = Meta::leaf(m.requires_grad());
    own.parameter = m.parameter;
    let own = Arc::new(own);
    // Its `.grad` as the session's is now, a copy of its own (a device
    // tensor's is shared: a worker may not touch a device at all).
    if let Some(g) = m.grad() {
        let g = match g.device() {
            crate::runtime::Device::Cpu => Arc::new(g.copy()),
            _ => g,
        };
        own.set_grad(Some(g));
    }
    copy.autograd_or_init(|| own);
    Some(copy)
}

/// `Parameter(x, requires_grad)`: the same elements (shared memory), a
/// leaf of its own marked as a module's parameter, as `nn.Parameter`.
pub fn parameter(x: &Tensor, requires_grad: bool) -> Tensor {
    let t = x.alias();
    let mut m = Meta::leaf(requires_grad);
    m.parameter = true;
    t.autograd_or_init(|| Arc::new(m));
    t
}

/// A lazy module's parameter (`parameter`) or buffer before its first
/// forward: `x` (no elements) as a leaf of its own marked uninitialized.
pub fn uninitialized(x: &Tensor, parameter: bool, requires_grad: bool) -> Tensor {
    let t = x.alias();
    let mut m = Meta::leaf(requires_grad);
    m.parameter = parameter;
    m.uninitialized = AtomicBool::new(true);
    t.autograd_or_init(|| Arc::new(m));
    t
}

/// Whether `t` is a lazy module's parameter or buffer not yet made.
pub fn is_uninitialized(t: &Tensor) -> bool {
    meta(t).is_some_and(|m| m.uninitialized.load(Ordering::Relaxed))
}

/// The lazy module made `t`'s elements (`set_data`): an ordinary tensor now.
pub fn set_initialized(t: &Tensor) {
    if let Some(m) = meta(t) {
        m.uninitialized.store(false, Ordering::Relaxed);
    }
}

/// Whether `t` was made by `Parameter(...)`.
pub fn is_parameter(t: &Tensor) -> bool {
    meta(t).is_some_and(|m| m.parameter)
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

/// `y.retain_grad()` on a tensor that requires grad: a non-leaf's node
/// keeps the gradient of its output in `y.grad` from now on (a leaf's
/// `.grad` is kept anyway).
pub fn retain_grad(m: &Meta) {
    if let Some((node, k)) = m.grad_fn() {
        if !m.retains_grad() {
            set_retains_grad(m);
            crate::runtime::lock::lock(&node.retained).push((k, Arc::downgrade(m.grad_cell())));
        }
    }
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

/// A saved tensor, checked unchanged before a backward formula uses it
/// (`Saved` is the node's data; the check names the variable's creator, which
/// its autograd record knows).
pub trait CheckedSaved {
    /// The saved tensor, unchanged since it was saved (`node` reads it), or
    /// PyTorch's version error; under saved-tensor hooks, what `unpack` gave
    /// (not checked: PyTorch cannot follow a tensor through the hooks).
    fn get(&self, node: &str) -> Result<Arc<Tensor>, Error>;
}

impl CheckedSaved for Saved {
    fn get(&self, node: &str) -> Result<Arc<Tensor>, Error> {
        let Some(t) = self.tensor() else {
            return Err(Error::Autograd {
                message: format!(
                    "{node}: a tensor saved under saved_tensors_hooks was not unpacked"
                ),
                help: "internal: backward unpacks a node's saved tensors before it runs".into(),
            });
        };
        if self.hooked().is_some() {
            return Ok(t);
        }
        let now = t.version();
        if now != self.version {
            // As PyTorch 2.15 prints it (checked): `[torch.FloatTensor [2, 3]]`.
            let dims: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
            let creator = creator(self, node);
            return Err(Error::Autograd {
                message: format!(
                    "one of the variables needed for gradient computation has been modified by an \
                     inplace operation: [{} [{}]]{creator} is at version {now}; expected version \
                     {} instead. Hint: enable anomaly detection to find the operation that failed \
                     to compute its gradient, with torch.autograd.set_detect_anomaly(True, \
                     check_nan=False).",
                    t.dtype().torch_type(t.device().is_cuda()),
                    dims.join(", "),
                    self.version
                ),
                help:
                    "change the tensor out of place (`x = x * 2`, not `x *= 2`), or `.clone()` it \
                       before changing it"
                        .into(),
            });
        }
        Ok(t)
    }
}

/// A node's op as PyTorch's messages name it: `Mul` for `MulBackward0`.
pub fn op_name(node: &str) -> &str {
    let base = node.trim_end_matches(|c: char| c.is_ascii_digit());
    base.strip_suffix("Backward").unwrap_or(node)
}

/// The saved variable's creator now, as PyTorch's version error names it:
/// `, which is output 0 of Mul,` (the node's op, without `Backward0`),
/// nothing for a leaf.
fn creator(saved: &Saved, node: &str) -> String {
    let of_meta = |m: &Meta| {
        m.grad_fn()
            .map(|(n, output)| format!(", which is output {output} of {},", op_name(n.name)))
            .unwrap_or_default()
    };
    match &saved.origin {
        Origin::Input(record) => record
            .as_ref()
            .and_then(std::sync::Weak::upgrade)
            .and_then(|r| r.downcast_ref::<Meta>().map(of_meta))
            .unwrap_or_default(),
        Origin::Output(t) => match t.upgrade() {
            Some(t) => meta(&t).map(of_meta).unwrap_or_default(),
            // Gone from every name: it was this node's output.
            None => format!(", which is output 0 of {},", op_name(node)),
        },
    }
}
