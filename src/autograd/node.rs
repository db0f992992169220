//! A node of the graph autograd records (PyTorch's `Node`, shown as
//! `<MulBackward0>`): what the forward op saved for its backward, and one
//! edge per input that requires grad, to the node that made that input or
//! to the leaf whose `.grad` the gradient goes to (`AccumulateGrad`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use smallvec::SmallVec;

use super::hook_list::Hooks;
use super::saved_hooks::PackCell;
use crate::error::Error;
use crate::runtime::lock::lock;
use crate::runtime::memory_format;
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::shape::contiguous_strides;
use crate::runtime::stream::StreamKey;
use crate::runtime::{DType, Device, Tensor};

/// One tap of a resize (`interpolate`): the input places it reads (an
/// advanced index over the spatial dims) and its weight per output sample
/// (none: 1).
#[derive(Clone, Debug)]
pub struct Tap {
    pub items: Vec<crate::runtime::op::index::Index>,
    pub weight: Option<Arc<Tensor>>,
}

/// A node's edges, one per input: most ops have one or two, kept inline.
pub type Edges = SmallVec<[Edge; 2]>;

/// What a node's inputs were, one per input, kept inline as its edges are.
pub type Inputs = SmallVec<[InputMeta; 2]>;

/// An input's shape, inline up to four dims.
pub type Dims = SmallVec<[usize; 4]>;

/// The gradients a node's backward gives its inputs (`None`: not wanted).
pub type Grads = Vec<Option<Arc<Tensor>>>;

/// A leaf's `.grad` and its hooks (shared by the leaf's record and the
/// edges to it, as PyTorch's `AccumulateGrad` node holds its variable).
#[derive(Default)]
pub struct GradCell {
    grad: Mutex<Option<Arc<Tensor>>>,
    /// `register_hook` on the leaf: run on its gradient before it is added.
    pub pre: Hooks,
    /// `register_post_accumulate_grad_hook`: run once `.grad` is final.
    pub post: Hooks,
    /// The leaf's strides when it is dense but not row-major (a
    /// channels-last parameter): PyTorch lays its `.grad` out the same
    /// way (`AccumulateGrad`'s layout contract); None: row-major.
    layout: Mutex<Option<Vec<isize>>>,
    /// Its node's `metadata` dict, made on first use (the program's).
    pub metadata: std::sync::OnceLock<super::hook_list::HookFn>,
}

impl GradCell {
    /// Records a dense leaf's strides for its `.grad` (`grad_strides`).
    pub fn keep_layout(&self, shape: &[usize], strides: &[isize]) {
        let dense = memory_format::is_non_overlapping_and_dense(shape, strides);
        *lock(&self.layout) = dense.then(|| strides.to_vec());
    }

    /// The strides a first `.grad` of `shape` must have (PyTorch's
    /// `obeys_layout_contract`): the leaf's own when it is dense and not
    /// row-major, else row-major.
    pub fn grad_strides(&self, shape: &[usize]) -> Vec<isize> {
        match &*lock(&self.layout) {
            Some(s) if s.len() == shape.len() => s.clone(),
            _ => contiguous_strides(shape),
        }
    }

    pub fn get(&self) -> Option<Arc<Tensor>> {
        lock(&self.grad).clone()
    }

    pub fn set(&self, g: Option<Arc<Tensor>>) {
        *lock(&self.grad) = g;
    }
}

/// Where an input's gradient goes.
#[derive(Clone)]
pub enum Edge {
    /// The input requires no grad (or is a number): its gradient is not computed.
    None,
    /// A leaf that requires grad: the gradient is added to its `.grad`.
    Leaf(Arc<GradCell>),
    /// Output `k` of another node.
    Node(Arc<Node>, usize),
}

impl Edge {
    pub fn is_some(&self) -> bool {
        !matches!(self, Edge::None)
    }
}

/// What an input was, so that its gradient is given back in its shape,
/// dtype and device (PyTorch's `InputMetadata`).
#[derive(Clone, Debug)]
pub struct InputMeta {
    pub shape: Dims,
    pub dtype: DType,
    pub device: Device,
}

impl InputMeta {
    pub fn of(t: &Tensor) -> InputMeta {
        InputMeta {
            shape: Dims::from_slice(t.shape()),
            dtype: t.dtype(),
            device: t.device(),
        }
    }
}

/// Where a view's elements lie in its base's memory (PyTorch's
/// `as_strided` arguments): counted in elements from the base's first one,
/// the base being contiguous.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub shape: Dims,
    pub strides: SmallVec<[isize; 4]>,
    pub offset: usize,
}

impl Geometry {
    /// The view `geometry` picks out of `t` (a contiguous tensor of the base's shape).
    pub fn of(&self, t: &Tensor) -> Tensor {
        t.view(
            self.shape.to_vec(),
            self.strides.to_vec(),
            t.offset() + self.offset,
        )
    }

    /// Whether two elements of the view can be one element of the base
    /// (an `expand`ed view): the dims, smallest stride first, each step
    /// past everything the smaller ones span.
    pub fn overlaps(&self) -> bool {
        let mut dims: Vec<(usize, usize)> = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(&n, _)| n > 1)
            .map(|(&n, &s)| (s.unsigned_abs(), n))
            .collect();
        dims.sort_unstable();
        let mut span = 0;
        for (stride, n) in dims {
            if stride <= span {
                return true;
            }
            span += stride * (n - 1);
        }
        false
    }
}

/// A tensor a node keeps for its backward: the same elements (the memory
/// stays allocated while the graph holds it), and the storage's version
/// when it was saved, so a later in-place change is caught. Saved while
/// the program's saved-tensor hooks are in force, it holds what their
/// `pack` returned instead (`saved_hooks.rs`).
pub struct Saved {
    slot: Slot,
    /// Its version when saved (`meta::CheckedSaved::get` compares).
    pub(super) version: u64,
    /// A number written in the program (a weak scalar): it stays weak in
    /// the backward's ops, so it does not promote the gradient's dtype.
    pub weak: bool,
    /// Where the saved variable's creator is found when a version error
    /// names it, as PyTorch's does (its `grad_fn` then: the in-place op
    /// that changed it; none for a leaf).
    pub(super) origin: Origin,
    /// An inference tensor (`runtime::inference`), not a number: the node
    /// that keeps it is refused ([`Node::new`]).
    inference: bool,
}

/// What a saved variable holds.
pub(super) enum Slot {
    /// The tensor (an alias: it holds no autograd record, so an output
    /// saved by its own node makes no cycle).
    Held(Arc<Tensor>),
    /// Saved under the program's hooks: what `pack` made of it.
    Hooked(Arc<PackCell>),
}

/// The saved variable, to name its creator in a version error.
#[derive(Debug, Clone)]
pub(super) enum Origin {
    /// An input: its autograd record (none: it had none when saved).
    Input(Option<std::sync::Weak<dyn std::any::Any + Send + Sync>>),
    /// The node's own output (its record is made after it is saved).
    Output(std::sync::Weak<Tensor>),
}

impl Saved {
    fn make(t: &Tensor, weak: bool, origin: Origin) -> Saved {
        let hooks = (!weak).then(PackCell::hooks_now).flatten();
        let slot = match hooks {
            None => Slot::Held(Arc::new(t.alias())),
            Some(pair) => {
                // `pack` is given the tensor as the program knows it: an
                // input with its record, the output itself.
                let (tensor, output) = match &origin {
                    Origin::Output(out) => (Arc::new(t.alias()), Some(out.clone())),
                    Origin::Input(_) => (Arc::new(super::variable::same_variable(t)), None),
                };
                Slot::Hooked(PackCell::queue(tensor, output, pair))
            }
        };
        Saved {
            slot,
            version: t.version(),
            weak,
            origin,
            inference: t.is_inference() && !weak,
        }
    }

    pub fn new(t: &Tensor) -> Saved {
        Saved::make(t, false, Origin::Input(t.autograd().map(Arc::downgrade)))
    }

    /// The result of the node that saves it (`exp`'s, `relu`'s).
    pub fn output(out: &Arc<Tensor>) -> Saved {
        Saved::make(out, false, Origin::Output(Arc::downgrade(out)))
    }

    /// A saved operand: weak when it is a number.
    pub fn operand(t: &Tensor, weak: bool) -> Saved {
        Saved::make(t, weak, Origin::Input(t.autograd().map(Arc::downgrade)))
    }

    /// The tensor as saved, or as `unpack` gave it for the running
    /// backward (None when the hooks' tensor is not unpacked now).
    pub(super) fn tensor(&self) -> Option<Arc<Tensor>> {
        match &self.slot {
            Slot::Held(t) => Some(Arc::clone(t)),
            Slot::Hooked(cell) => cell.unpacked(),
        }
    }

    /// Whether it was saved under hooks (no version check then: PyTorch
    /// cannot follow a tensor through the program's hooks).
    pub(super) fn hooked(&self) -> Option<&Arc<PackCell>> {
        match &self.slot {
            Slot::Held(_) => None,
            Slot::Hooked(cell) => Some(cell),
        }
    }

    /// An input's autograd record, while its tensor lives.
    pub fn input_record(&self) -> Option<std::sync::Arc<dyn std::any::Any + Send + Sync>> {
        match &self.origin {
            Origin::Input(r) => r.as_ref().and_then(std::sync::Weak::upgrade),
            Origin::Output(_) => None,
        }
    }

    /// Whether it is the node's own output.
    pub fn is_output(&self) -> bool {
        matches!(self.origin, Origin::Output(_))
    }

    /// The node's own output it saved, while that tensor lives.
    pub fn output_tensor(&self) -> Option<Arc<Tensor>> {
        match &self.origin {
            Origin::Output(out) => out.upgrade(),
            Origin::Input(_) => None,
        }
    }
}

/// How a loss reduces its per-element values (PyTorch's `reduction=`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reduction {
    Mean,
    Sum,
    /// `reduction="none"`: the loss of each element (each row for the
    /// class losses).
    None,
}

impl Reduction {
    /// PyTorch's name of it (`reduction="mean"`).
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Mean => "mean",
            Reduction::Sum => "sum",
            Reduction::None => "none",
        }
    }

    pub fn from_name(name: &str) -> Option<Reduction> {
        match name {
            "mean" => Some(Reduction::Mean),
            "sum" => Some(Reduction::Sum),
            "none" => Some(Reduction::None),
            _ => None,
        }
    }
}

/// Which loss of one value per element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PointwiseLoss {
    /// `-w (y log x + (1 - y) log(1 - x))`, each log at least -100.
    BinaryCrossEntropy,
    /// `(1 - y) x - ((p - 1) y + 1) log σ(x)`, `p` the positive weight.
    BinaryCrossEntropyWithLogits,
    /// `0.5 d² / beta` where `|d| < beta`, else `|d| - 0.5 beta`.
    SmoothL1 { beta: f64 },
    /// `0.5 d²` where `|d| <= delta`, else `delta (|d| - 0.5 delta)`.
    Huber { delta: f64 },
    /// `log(1 + exp(-y x))`.
    SoftMargin,
}

impl PointwiseLoss {
    /// The node PyTorch records.
    pub fn node_name(self) -> &'static str {
        match self {
            PointwiseLoss::BinaryCrossEntropy => "BinaryCrossEntropyBackward0",
            PointwiseLoss::BinaryCrossEntropyWithLogits => "BinaryCrossEntropyWithLogitsBackward0",
            PointwiseLoss::SmoothL1 { .. } => "SmoothL1LossBackward0",
            PointwiseLoss::Huber { .. } => "HuberLossBackward0",
            PointwiseLoss::SoftMargin => "SoftMarginLossBackward0",
        }
    }

    /// The op's name, as autocast and the messages know it.
    pub fn op_name(self) -> &'static str {
        match self {
            PointwiseLoss::BinaryCrossEntropy => "binary_cross_entropy",
            PointwiseLoss::BinaryCrossEntropyWithLogits => "binary_cross_entropy_with_logits",
            PointwiseLoss::SmoothL1 { .. } => "smooth_l1_loss",
            PointwiseLoss::Huber { .. } => "huber_loss",
            PointwiseLoss::SoftMargin => "soft_margin_loss",
        }
    }
}

/// What each kind of node computes its input gradients from.
pub enum Backward {
    Add,
    Sub,
    /// `a * b`: each input's gradient needs the other (saved only when that
    /// input requires grad).
    Mul {
        a: Option<Saved>,
        b: Option<Saved>,
    },
    Div {
        a: Option<Saved>,
        b: Saved,
    },
    /// `x % y` (`remainder`): `g` to `x`; `-g * floor(x / y)` to a tensor
    /// `y` (`x` and `y` saved only for `y`'s gradient). `fmod` (`trunc`):
    /// `-g * trunc(x / y)`.
    Remainder {
        a: Option<Saved>,
        b: Option<Saved>,
        trunc: bool,
    },
    /// `x ** e` with a number `e`.
    PowScalar {
        x: Saved,
        e: f64,
    },
    /// `x ** y` of two tensors.
    Pow {
        x: Saved,
        y: Saved,
        out: Option<Saved>,
    },
    /// `e ** x` with a number `e`: `out * log(e)`.
    ScalarPow {
        e: f64,
        out: Saved,
    },
    Neg,
    /// `1 / x` (the first half of `3 / x`, as PyTorch's `reciprocal`).
    Reciprocal {
        out: Saved,
    },
    /// `floor`, `ceil`, `round`, `trunc`: a gradient of zeros.
    Zero,
    /// A gradient a backward that creates a graph computed with a mask of
    /// a saved input (`relu`'s, `leaky_relu`'s: flat in that input), as
    /// PyTorch's `ThresholdBackwardBackward0` records it: inputs the
    /// gradient and the saved input, `g` for the first and zeros for the
    /// second.
    Flat,
    /// A unary op and what its gradient needs (its input or its result).
    Unary {
        op: UnaryOp,
        saved: Saved,
    },
    /// `sum()` / `sum(dims)`: the gradient expanded back over the summed dims.
    Sum {
        dims: Vec<usize>,
        keepdim: bool,
    },
    /// `mean()` / `mean(dims)`: as sum, divided by the count.
    Mean {
        dims: Vec<usize>,
        keepdim: bool,
        count: usize,
    },
    /// `x[i, 1:3, none]` (basic indexing, a view), and the parts `chunk`,
    /// `split` and `scatter` cut (`Backward::rows`): the gradient, brought
    /// back to the input's device, written into zeros of the input's shape
    /// through the same view (PyTorch's `ScatterBackward` gathers the parts'
    /// gradients onto the input's device).
    Select {
        items: Vec<crate::runtime::op::index::Index>,
    },
    /// A gradient a backward that creates a graph wrote into zeros through
    /// the view `items` picks (`Select`'s, `SliceBackwardBackward0`): its
    /// own gradient is that view of `g`.
    Placed {
        items: Vec<crate::runtime::op::index::Index>,
    },
    /// `chunk`, `split`, `unbind`: one node with one output per part
    /// (`SplitBackward0`, `UnbindBackward0`); the input's gradient is the
    /// parts' gradients joined along `dim` (stacked for `unbind`), zeros
    /// for a part whose gradient is undefined.
    Split {
        dim: usize,
        sizes: Vec<usize>,
        /// `unbind`: the parts lost `dim`.
        stacked: bool,
    },
    /// DataParallel's `scatter`: one output per part (its size along `dim`
    /// and its device); the gradients are gathered onto the input's device.
    Scatter {
        dim: usize,
        parts: Vec<(usize, Device)>,
    },
    /// `replicate`: one output per replica; their gradients are summed on
    /// the input's device (PyTorch's `ReduceAddCoalesced`).
    Broadcast,
    /// DataParallel's replicate of a module: every parameter copied to
    /// each of `devices` in buckets (`coalesced.rs`), one input per
    /// parameter and its copies as outputs, device by device; the copies'
    /// gradients are reduce-added onto the first device in buckets.
    BroadcastCoalesced {
        devices: Vec<Device>,
    },
    /// `maximum(a, b)` / `minimum(a, b)` of two tensors: the gradient to
    /// the larger (smaller), halved between ties.
    Extremum {
        a: Saved,
        b: Saved,
        max: bool,
    },
    /// `clamp(x, min=m)` / `clamp(x, max=m)` with a number: the gradient
    /// where `x` is not below (above) the bound.
    ClampOne {
        x: Saved,
        bound: Saved,
        min: bool,
    },
    /// `clamp(x, lo, hi)`: `x`'s gradient inside the bounds; a tensor
    /// bound's where `x` is past it.
    Clamp {
        x: Saved,
        lo: Saved,
        hi: Saved,
    },
    /// `where(cond, x, y)`: the gradient to `x` where `cond` holds, else to `y`.
    Where {
        cond: Saved,
    },
    /// `x.masked_fill(mask, value)` (inputs x, then a tensor value): the
    /// gradient to `x` where `mask` does not hold, to `value` where it does.
    MaskedFill {
        mask: Saved,
    },
    /// `cat(xs, dim)`: each input's slice of the gradient along `dim`.
    Cat {
        dim: usize,
        sizes: Vec<usize>,
    },
    /// `stack(xs, dim)`: each input's index of the gradient along `dim`.
    Stack {
        dim: usize,
    },
    /// `max()` / `min()` of every element: the gradient shared evenly by
    /// the elements equal to the result (PyTorch's `evenly_distribute_backward`).
    Extreme {
        x: Saved,
        out: Saved,
    },
    /// `mse_loss(x, y)`: `2 (x - y) g`, over the count for a mean.
    MseLoss {
        x: Saved,
        y: Saved,
        reduction: Reduction,
    },
    /// A loss of one value per element (`pointwise_losses.rs`): its
    /// input and target, its weights, and how it was reduced.
    PointwiseLoss {
        kind: PointwiseLoss,
        x: Saved,
        y: Saved,
        weight: Option<Saved>,
        pos_weight: Option<Saved>,
        reduction: Reduction,
    },
    /// `nll_loss(x, target)`: `-g` (over the rows' count for a mean) at
    /// each counted row's target class, zeros elsewhere.
    NllLoss {
        target: Saved,
        /// Each row's weight: 1 or 0 (ignored), or its class's `weight=`.
        valid: Saved,
        weight: Saved,
        /// Whether `valid` holds class weights (multiplied in) rather than
        /// a mask.
        weighted: bool,
        reduction: Reduction,
    },
    /// `a @ b` (every form: dot, mv, mm, batched).
    MatMul {
        a: Option<Saved>,
        b: Option<Saved>,
        /// Which operands were column-major matrices (`W.T`): their
        /// gradients are computed transposed, in the operand's layout.
        columns: [bool; 2],
    },
    /// A view or copy with another shape: the gradient reshaped back.
    Reshape,
    /// `transpose(d0, d1)` (`T`, `mT`, `t()`).
    Transpose {
        d0: usize,
        d1: usize,
    },
    Permute {
        dims: Vec<usize>,
    },
    /// `expand`: summed back to the input's shape (the engine does it).
    Expand,
    /// `clone()`, `contiguous()`, `.to(dtype)`, `.to(device)`: the
    /// gradient as it is (the engine gives it the input's dtype and device).
    Identity,
    Softmax {
        out: Saved,
        dim: usize,
    },
    LogSoftmax {
        out: Saved,
        dim: usize,
    },
    /// `x[i]`, `x[mask]` (advanced indexing, a copy): the gradient added
    /// into zeros at the elements picked, repeated indices adding up
    /// (PyTorch's `index_put_(..., accumulate=True)`).
    /// `amax`/`amin` over `dims`: g shared by the elements equal to the result.
    Amax {
        x: Saved,
        out: Saved,
        dims: Vec<usize>,
        keepdim: bool,
    },
    /// `logsumexp` over `dims`: `g * exp(x - result)`.
    Logsumexp {
        x: Saved,
        out: Saved,
        dims: Vec<usize>,
        keepdim: bool,
    },
    /// `addcmul` / `addcdiv` (`div`): tensor1 and tensor2 as the other's
    /// gradient needs them.
    Addc {
        t1: Option<Saved>,
        t2: Option<Saved>,
        value: f64,
        div: bool,
    },
    /// `_trilinear(x1, w, x2)` (`bilinear.rs`): each operand saved when
    /// another's gradient needs it.
    Trilinear {
        x1: Option<Saved>,
        w: Option<Saved>,
        x2: Option<Saved>,
    },
    /// `embedding_bag` (`embedding_bag.rs`): the rows picked, each one's
    /// bag, and a mean's reciprocal bag sizes.
    EmbeddingBag {
        indices: Saved,
        bag_of: Saved,
        scale: Option<Saved>,
    },
    /// A sparse matrix times a dense one, either way round (`sparse.rs`):
    /// the sparse operand's indices and values, for the dense operand's
    /// gradient.
    SparseMm {
        indices: Saved,
        values: Saved,
        sparse_left: bool,
    },
    /// A fused attention (`attention.rs`, flash or memory-efficient): its
    /// inputs, output and per-row log-sum-exp, from which the backward
    /// recomputes the weights; an additive bias gets no gradient.
    FusedAttention {
        q: Saved,
        k: Saved,
        v: Saved,
        out: Saved,
        lse: Saved,
        bias: Option<Saved>,
        how: crate::runtime::op::attention::Attend,
    },
    /// `nan_to_num(x)`: the gradient where `x` is finite.
    NanToNum {
        x: Saved,
    },
    /// `lerp`: a tensor weight (None: the number), and the ends when the
    /// weight's gradient is wanted.
    Lerp {
        weight: Option<Saved>,
        number: f64,
        ends: Option<(Saved, Saved)>,
    },
    /// `F.pad(x, pads)`: the gradient cropped back (padded by `-pads`).
    ConstantPad {
        pads: Vec<i64>,
    },
    /// `adaptive_avg_pool2d` to a size that does not divide the input:
    /// the windows and the input's shape (nothing kept).
    AdaptiveAvg {
        windows: crate::runtime::op::window::AdaptiveWindows,
        input: Vec<usize>,
    },
    /// `adaptive_max_pool2d` over uneven windows: each maximum's place
    /// `h * W + w` in its plane, and the input's shape.
    AdaptiveMax {
        which: Saved,
        input: Vec<usize>,
    },
    /// `max_unpool2d(x, indices)`: the gradient read at the places.
    MaxUnpool {
        which: Saved,
    },
    /// `F.unfold(x)`: the columns' gradient folded back into an image of
    /// x's `size` (height, width).
    Im2Col {
        size: (usize, usize),
        win: crate::runtime::op::window::Windows,
    },
    /// `F.fold(cols)`: the image's gradient unfolded into columns.
    Col2Im {
        win: crate::runtime::op::window::Windows,
    },
    /// `pixel_shuffle(x, r)` (`inverse`: `pixel_unshuffle`): the gradient
    /// rearranged back.
    PixelShuffle {
        r: usize,
        inverse: bool,
    },
    /// `interpolate` (`upsample_*`): each tap's share of the gradient
    /// added back into the input places it read.
    Upsample {
        taps: Vec<Tap>,
    },
    /// `x.gather(dim, index)`: the gradient added into zeros at the
    /// elements picked, `offsets` into x's elements in order (x's shape).
    GatherAlong {
        offsets: Arc<Tensor>,
    },
    /// `x.scatter(dim, index, src)` / `scatter_add`: x's gradient is g
    /// (zeros where scatter overwrote), src's the elements of g at `offsets`.
    ScatterAlong {
        offsets: Arc<Tensor>,
        add: bool,
    },
    Index {
        items: Vec<crate::runtime::op::index::Index>,
        /// Embedding's `padding_idx`: the rows its index picks get no gradient.
        padding_idx: Option<i64>,
    },
    /// `x.max(dim)` / `x.min(dim)`: the gradient to the element each
    /// index picked (PyTorch's `value_selecting_reduction_backward`).
    SelectReduce {
        indices: Saved,
        dim: usize,
        keepdim: bool,
    },
    /// `prod()` / `prod(dim)`: `g * out / x`, or the product of the others
    /// where a slice holds a zero.
    Prod {
        x: Saved,
        out: Saved,
        dim: Option<usize>,
        keepdim: bool,
    },
    /// `var` and `std` (`std`: its result) over `dims` (None: every element).
    Var {
        x: Saved,
        std: Option<Saved>,
        dims: Option<Vec<usize>>,
        correction: f64,
        keepdim: bool,
    },
    /// `var_mean` / `std_mean`: two outputs, the variance's (or standard
    /// deviation's) gradient by `var` (a `Var`), the mean's added.
    VarMean {
        var: Box<Backward>,
        count: usize,
    },
    /// The vector `p`-norm over `dims`.
    Norm {
        x: Saved,
        out: Saved,
        p: f64,
        dims: Vec<usize>,
        keepdim: bool,
    },
    /// `cumsum(dim)`: the gradient's sums from the end (`flip`, `cumsum`, `flip`).
    Cumsum {
        dim: usize,
    },
    /// `cumprod(dim)`: `g * out` summed from the end, over `x`; past a
    /// slice's first zero, as PyTorch's `cumprod_backward` computes it.
    Cumprod {
        x: Saved,
        out: Saved,
        dim: usize,
    },
    /// `sort(dim)` / `topk(k, dim)`: each value's gradient back to the
    /// place `indices` says it came from.
    Sorted {
        indices: Saved,
        dim: usize,
    },
    /// `flip(dims)`: the gradient flipped back.
    Flip {
        dims: Vec<i64>,
    },
    /// `_pack_padded_sequence`: each step's rows of the gradient copied
    /// back into zeros of the padded input's shape (`packed.rs`).
    PackPadded {
        input_shape: Vec<usize>,
        batch_sizes: Vec<usize>,
        batch_first: bool,
    },
    /// `roll(shifts, dims)`: the gradient rolled back.
    Roll {
        shifts: Vec<i64>,
        dims: Vec<i64>,
    },
    /// `diagonal(offset, dim1, dim2)` (a view) and `diag` of a matrix (a
    /// copy): the gradient laid on that diagonal of zeros of the input's
    /// shape; `trace`: the one number on the main diagonal.
    Diagonal {
        offset: i64,
        dim1: i64,
        dim2: i64,
    },
    Trace,
    /// `diag_embed(offset, dim1, dim2)` and `diag` of a vector: that
    /// diagonal of the gradient.
    DiagEmbed {
        offset: i64,
        dim1: i64,
        dim2: i64,
    },
    /// `dist(x, y, p)`: the norm's gradient of `x - y` (`distances.rs`).
    Dist {
        diff: Saved,
        out: Saved,
        p: f64,
    },
    /// `cdist(x1, x2, p)`: each pair's difference's norm gradient, summed.
    Cdist {
        x1: Saved,
        x2: Saved,
        out: Saved,
        p: f64,
    },
    /// `_euclidean_dist(x1, x2)`, `cdist`'s matrix-product path.
    EuclideanDist {
        x1: Saved,
        x2: Saved,
        out: Saved,
    },
    /// `tril` / `triu`: the same triangle of the gradient.
    Tri {
        diagonal: i64,
        upper: bool,
    },
    /// `repeat(sizes)`: each tile's gradient summed back onto the input.
    Repeat {
        sizes: Vec<usize>,
    },
    /// `linear(x, w, b)` of a matrix `x` with a bias, as PyTorch's
    /// `addmm(b, x, w.T)`: inputs `b`, `x`, `w` (each operand saved only
    /// when the other's gradient needs it).
    Addmm {
        x: Option<Saved>,
        w: Option<Saved>,
    },
    /// `addmm`, `addmv`, `baddbmm`, `addbmm` (`add_products.rs`):
    /// `beta * c + alpha * (a @ b)`; inputs `c`, `a`, `b` (each product
    /// operand saved only when the other's gradient needs it).
    AddProduct {
        a: Option<Saved>,
        b: Option<Saved>,
        product: Product,
        scale: Scale,
    },
    /// `conv1d`, `conv2d`, `conv_transpose1d/2d` (PyTorch's `convolution`):
    /// inputs `x`, `w` and the bias
    /// when there is one; it keeps the input and the weight.
    Convolution {
        x: Saved,
        w: Saved,
        geom: super::window::Geometry,
        bias: bool,
        /// `conv_transpose2d`: `geom` is the convolution's whose input
        /// gradient it computes.
        transposed: bool,
    },
    /// `group_norm(x, groups, weight, bias)`: each group's mean and 1/std
    /// ([N, G, 1]).
    GroupNorm {
        x: Saved,
        weight: Option<Saved>,
        mean: Saved,
        rstd: Saved,
        groups: usize,
        bias: bool,
        /// What was added to the variance (a backward that creates a
        /// graph computes the groups' statistics again).
        eps: f64,
    },
    /// `max_pool2d`: where each window's maximum was (its place in the
    /// window), and the input's shape.
    MaxPool {
        which: Saved,
        geom: super::window::Geometry,
        input: Vec<usize>,
    },
    /// A pooling's gradient as a backward that creates a graph records it
    /// (`MaxPool2DWithIndicesBackwardBackward0`, ...): its own gradient is
    /// the pooling of `g` again (for a max pooling, `g` at the places of
    /// the maxima, `which`).
    Pooled {
        which: Option<Saved>,
        geom: super::window::Geometry,
    },
    /// `avg_pool2d`: the input's shape (nothing kept).
    AvgPool {
        geom: super::window::Geometry,
        input: Vec<usize>,
    },
    /// `layer_norm` (PyTorch's `native_layer_norm`): inputs `x`, and the
    /// weight and bias when there are; it keeps `x`, the weight and each
    /// row's mean and 1/std over its last `dims` dimensions.
    LayerNorm {
        x: Saved,
        weight: Option<Saved>,
        mean: Saved,
        rstd: Saved,
        dims: usize,
        bias: bool,
        /// What was added to the variance (a backward that creates a
        /// graph computes mean and 1/std again from `x`).
        eps: f64,
    },
    /// `batch_norm` (PyTorch's `native_batch_norm`): inputs `x`, and the
    /// weight and bias when there are; it keeps `x`, the weight and each
    /// channel's mean and 1/std (`save_mean`, `save_invstd`, shaped to
    /// broadcast against `x`), over `dims` (every dim but the channels').
    BatchNorm {
        x: Saved,
        weight: Option<Saved>,
        mean: Saved,
        invstd: Saved,
        dims: Vec<usize>,
        train: bool,
        /// What was added to the variance (a training batch norm's
        /// backward that creates a graph computes its statistics again).
        eps: f64,
    },
    /// An activation with settings (`elu`, `softplus`, `hardtanh`,
    /// `leaky_relu`...): its formula at x.
    Activation {
        kind: super::activation::Activation,
        x: Saved,
        /// `x` is the result (the in-place forms' nodes save it).
        result: bool,
    },
    /// `glu(x, dim)`: x's two halves along `dim` give each other's gradient.
    Glu {
        x: Saved,
        dim: usize,
    },
    /// `prelu(x, w)`, `w` viewed to broadcast against x.
    Prelu {
        x: Saved,
        w: Saved,
    },
    /// `dropout` on a GPU (PyTorch's fused `native_dropout`): the gradient
    /// where the mask kept, times `scale`; the mask is one byte an element.
    NativeDropout {
        mask: Saved,
        scale: f64,
    },
    /// An in-place op on a view of a tensor in a graph (PyTorch's
    /// `CopySlices`): the base's gradient, except the view's elements,
    /// whose gradient `inner` (the op's own node) computes; `inner`'s
    /// other inputs are this node's inputs after the base.
    CopySlices {
        view: Geometry,
        inner: Arc<Node>,
    },
    /// A view whose base changed in place since it was made, as PyTorch
    /// regenerates it (`AsStridedBackward0`): the gradient written back
    /// to where the view lies in the base.
    AsStrided {
        view: Geometry,
    },
    /// `fill_`, `zero_`, `normal_`: the old elements are gone,
    /// so their gradient is zeros.
    Overwritten,
    /// `x.copy_(src)` (PyTorch's `CopyBackwards`): zeros to `x`'s old
    /// elements, the gradient to `src` (in its shape, dtype and device).
    Copy,
    /// `x[indices] = v` with integer tensors or a mask (`IndexPutBackward0`,
    /// `MaskedFillBackward0` for a number through a mask): the gradient
    /// with the written elements zeroed to `x`, those elements to `v`.
    IndexPut {
        items: Vec<crate::runtime::op::index::Index>,
    },
    /// A `torch.autograd.Function` of the program's: its `backward`,
    /// with the `ctx` its `forward` filled, as the interpreter keeps them
    /// (the engine asks its host to call it: `Host::custom_backward`).
    Custom {
        call: super::hook_list::HookFn,
    },
}

impl Backward {
    /// The rows `start..start + len` along `dim` of the input (a part
    /// `chunk`, `split` or `scatter` cut).
    pub fn rows(dim: usize, start: usize, len: usize) -> Backward {
        use crate::runtime::op::index::Index;
        let mut items = vec![Index::Slice(None, None, None); dim];
        items.push(Index::Slice(
            Some(start as i64),
            Some((start + len) as i64),
            None,
        ));
        Backward::Select { items }
    }

    /// The tensors this node keeps for its backward.
    pub fn saved(&self) -> Vec<&Saved> {
        use Backward::*;
        match self {
            Mul { a, b } | Remainder { a, b, .. } => a.iter().chain(b.iter()).collect(),
            Div { a, b } => a.iter().chain(std::iter::once(b)).collect(),
            PowScalar { x, .. } => vec![x],
            Pow { x, y, out } => [x, y].into_iter().chain(out.iter()).collect(),
            ScalarPow { out, .. } | Reciprocal { out } => vec![out],
            Unary { saved, .. } => vec![saved],
            Extreme { x, out } => vec![x, out],
            VarMean { var, .. } => var.saved(),
            NanToNum { x } => vec![x],
            FusedAttention {
                q,
                k,
                v,
                out,
                lse,
                bias,
                ..
            } => [q, k, v, out, lse].into_iter().chain(bias.iter()).collect(),
            SparseMm {
                indices, values, ..
            } => vec![indices, values],
            EmbeddingBag {
                indices,
                bag_of,
                scale,
            } => [indices, bag_of].into_iter().chain(scale.iter()).collect(),
            Trilinear { x1, w, x2 } => x1.iter().chain(w.iter()).chain(x2.iter()).collect(),
            Dist { diff, out, .. } => vec![diff, out],
            Cdist { x1, x2, out, .. } | EuclideanDist { x1, x2, out } => vec![x1, x2, out],
            Amax { x, out, .. } | Logsumexp { x, out, .. } => vec![x, out],
            Addc { t1, t2, .. } => t1.iter().chain(t2.iter()).collect(),
            Lerp { weight, ends, .. } => weight
                .iter()
                .chain(ends.iter().flat_map(|(a, b)| [a, b]))
                .collect(),
            Extremum { a, b, .. } => vec![a, b],
            ClampOne { x, bound, .. } => vec![x, bound],
            Clamp { x, lo, hi } => vec![x, lo, hi],
            Where { cond } => vec![cond],
            MaskedFill { mask } => vec![mask],
            Cat { .. } | Stack { .. } => vec![],
            MseLoss { x, y, .. } => vec![x, y],
            PointwiseLoss {
                x,
                y,
                weight,
                pos_weight,
                ..
            } => [x, y]
                .into_iter()
                .chain(weight.iter())
                .chain(pos_weight.iter())
                .collect(),
            NllLoss {
                target,
                valid,
                weight,
                ..
            } => vec![target, valid, weight],
            MatMul { a, b, .. } => a.iter().chain(b.iter()).collect(),
            Softmax { out, .. } | LogSoftmax { out, .. } => vec![out],
            SelectReduce { indices, .. } | Sorted { indices, .. } => vec![indices],
            Cumprod { x, out, .. } => vec![x, out],
            Prod { x, out, .. } | Norm { x, out, .. } => vec![x, out],
            Var { x, std, .. } => std::iter::once(x).chain(std.iter()).collect(),
            Addmm { x, w } => x.iter().chain(w.iter()).collect(),
            AddProduct { a, b, .. } => a.iter().chain(b.iter()).collect(),
            NativeDropout { mask, .. } => vec![mask],
            Activation { x, .. } | Glu { x, .. } => vec![x],
            Prelu { x, w } => vec![x, w],
            Convolution { x, w, .. } => vec![x, w],
            LayerNorm {
                x,
                weight,
                mean,
                rstd,
                ..
            }
            | GroupNorm {
                x,
                weight,
                mean,
                rstd,
                ..
            } => [Some(x), weight.as_ref(), Some(mean), Some(rstd)]
                .into_iter()
                .flatten()
                .collect(),
            MaxPool { which, .. } | MaxUnpool { which } | AdaptiveMax { which, .. } => {
                vec![which]
            }
            Pooled { which, .. } => which.iter().collect(),
            BatchNorm {
                x,
                weight,
                mean,
                invstd,
                ..
            } => [Some(x), weight.as_ref(), Some(mean), Some(invstd)]
                .into_iter()
                .flatten()
                .collect(),
            Index { .. }
            | ConstantPad { .. }
            | Upsample { .. }
            | PixelShuffle { .. }
            | Im2Col { .. }
            | Col2Im { .. }
            | GatherAlong { .. }
            | ScatterAlong { .. }
            | Placed { .. }
            | AvgPool { .. }
            | AdaptiveAvg { .. }
            | IndexPut { .. }
            | Cumsum { .. }
            | Flip { .. }
            | Roll { .. }
            | PackPadded { .. }
            | Tri { .. }
            | Diagonal { .. }
            | Trace
            | DiagEmbed { .. }
            | Repeat { .. }
            | CopySlices { .. }
            | AsStrided { .. }
            | Overwritten
            | Custom { .. }
            | Copy => vec![],
            Add
            | Sub
            | Neg
            | Zero
            | Flat
            | Sum { .. }
            | Mean { .. }
            | Reshape
            | Transpose { .. }
            | Permute { .. }
            | Expand
            | Identity
            | Select { .. }
            | Split { .. }
            | Scatter { .. }
            | Broadcast
            | BroadcastCoalesced { .. } => vec![],
        }
    }
}

/// What a walk of `grad_fn` reaches, as PyTorch's `next_functions` shows
/// it: a recorded node, or a leaf's `AccumulateGrad`.
#[derive(Clone)]
pub enum GraphFn {
    Node(Arc<Node>),
    Accumulate(Arc<GradCell>),
}

impl std::fmt::Debug for GraphFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}>", self.name())
    }
}

impl GraphFn {
    /// Where its `metadata` dict is kept, and the traceback anomaly
    /// detection gave it (a node made under the mode).
    pub fn metadata(
        &self,
    ) -> (
        &std::sync::OnceLock<super::hook_list::HookFn>,
        Option<Vec<String>>,
    ) {
        match self {
            GraphFn::Node(n) => (&n.metadata, n.trace.as_ref().and_then(|t| t.get().cloned())),
            GraphFn::Accumulate(c) => (&c.metadata, None),
        }
    }

    /// The name its repr shows (`<MulBackward0>`, `<AccumulateGrad>`).
    pub fn name(&self) -> &'static str {
        match self {
            GraphFn::Node(n) => n.name,
            GraphFn::Accumulate(_) => "AccumulateGrad",
        }
    }

    /// Where the node lives: the same for every read of one node
    /// (Python's `id(y.grad_fn)`, the address its repr shows).
    pub fn addr(&self) -> usize {
        match self {
            GraphFn::Node(n) => Arc::as_ptr(n) as usize,
            GraphFn::Accumulate(c) => Arc::as_ptr(c) as usize,
        }
    }

    /// What PyTorch's `name()` gives: `MulBackward0`, and for a leaf's
    /// node its C++ name, `torch::autograd::AccumulateGrad`.
    pub fn qualified_name(&self) -> &'static str {
        match self {
            // The nodes PyTorch defines in C++ only name their namespace.
            GraphFn::Node(n) => match n.name {
                "CopySlices" => "torch::autograd::CopySlices",
                "CopyBackwards" => "torch::autograd::CopyBackwards",
                name => name,
            },
            GraphFn::Accumulate(_) => "torch::autograd::AccumulateGrad",
        }
    }

    /// One `(function, output)` per input of the forward op, `None` where
    /// the input needs no gradient; nothing for `AccumulateGrad`.
    pub fn next_functions(&self) -> Vec<(Option<GraphFn>, usize)> {
        let GraphFn::Node(n) = self else {
            return vec![];
        };
        // PyTorch's overloads of a tensor and a number (`2 - x` is
        // `rsub(x, 2)`, `x ** 2` `pow(x, 2)`) have the tensor as their
        // only input; cudash's nodes keep an edge for the number.
        let tensor_at = match n.name {
            "RsubBackward1" | "PowBackward2" => Some(1),
            "PowBackward0" | "ClampBackward1" | "ClampMinBackward0" | "ClampMaxBackward0"
            | "MulBackward1" | "DivBackward1" | "AddBackward1" | "SubBackward1" => Some(0),
            _ => None,
        };
        n.next
            .iter()
            .enumerate()
            .filter(|(k, e)| tensor_at.is_none_or(|t| *k == t || !matches!(e, Edge::None)))
            .map(|(_, e)| match e {
                Edge::None => (None, 0),
                Edge::Leaf(cell) => (Some(GraphFn::Accumulate(Arc::clone(cell))), 0),
                Edge::Node(n, k) => (Some(GraphFn::Node(Arc::clone(n))), *k),
            })
            .collect()
    }

    /// The same node (`is`).
    pub fn same(&self, other: &GraphFn) -> bool {
        match (self, other) {
            (GraphFn::Node(a), GraphFn::Node(b)) => Arc::ptr_eq(a, b),
            (GraphFn::Accumulate(a), GraphFn::Accumulate(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

pub struct Node {
    /// PyTorch's name (`MulBackward0`).
    pub name: &'static str,
    /// One edge per input of the forward op.
    pub next: Edges,
    pub inputs: Inputs,
    /// The order nodes were made in: backward runs the newest ready node first.
    pub sequence: u64,
    /// The stream its forward op ran on (a CUDA output's): its backward runs there.
    pub stream: Option<StreamKey>,
    /// How many outputs it has (`SplitBackward0` one per part; most one).
    pub outputs: usize,
    /// Its output is a view of an input (it shares the input's memory): an
    /// in-place op on it would have to rebase the input too.
    pub view: bool,
    /// What the forward op saved; `None` once a backward without
    /// `retain_graph` has used (and freed) it.
    backward: Mutex<Option<Backward>>,
    /// Non-leaf tensors of this node's outputs that keep their gradient
    /// (`retain_grad()`), each with its output's index.
    pub retained: Mutex<Vec<(usize, std::sync::Weak<GradCell>)>>,
    /// `register_hook` on its outputs: run on an output's gradient before
    /// the node runs (PyTorch's tensor pre-hooks), each hook knowing its
    /// output.
    pub hooks: Hooks,
    /// `grad_fn.register_prehook(f)`: `f(grad_outputs)` before the node
    /// runs, after its outputs' tensor hooks (may give new gradients).
    pub pre_hooks: Hooks,
    /// `grad_fn.register_hook(f)`: `f(grad_inputs, grad_outputs)` once the
    /// node has run (may give new gradients of its inputs).
    pub post_hooks: Hooks,
    /// The traceback of the code that made it, when made under anomaly
    /// detection (`anomaly.rs`).
    pub trace: Option<super::anomaly::Trace>,
    /// `grad_fn.metadata`: the program's dict, made on first use.
    pub metadata: std::sync::OnceLock<super::hook_list::HookFn>,
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}>", self.name)
    }
}

impl Node {
    pub fn new(
        name: &'static str,
        backward: Backward,
        next: Edges,
        inputs: Inputs,
        stream: Option<StreamKey>,
    ) -> Node {
        // An op's saves are made before it knows whether it records; only
        // a node made with an inference tensor among them is refused (the
        // op raises as it returns: `saved_hooks::inference_saved`). Asked
        // only once inference mode has been used.
        if crate::runtime::inference::used() && backward.saved().iter().any(|s| s.inference) {
            super::saved_hooks::inference_saved();
        }
        Node {
            name,
            next,
            inputs,
            stream,
            outputs: 1,
            view: false,
            sequence: SEQUENCE.fetch_add(1, Ordering::Relaxed),
            backward: Mutex::new(Some(backward)),
            retained: Mutex::new(Vec::new()),
            hooks: Hooks::default(),
            pre_hooks: Hooks::default(),
            post_hooks: Hooks::default(),
            trace: super::anomaly::new_trace(),
            metadata: std::sync::OnceLock::new(),
        }
    }

    /// Whether input `k`'s gradient goes anywhere.
    pub fn wants(&self, k: usize) -> bool {
        self.next.get(k).is_some_and(Edge::is_some)
    }

    /// Runs `f` on what backward needs, or gives PyTorch's error when a
    /// backward already freed it. The node's lock is held while `f` runs:
    /// nothing a node's backward does reads that node again.
    /// A program's `backward` (`Backward::Custom`), while the node keeps it.
    pub fn custom_call(&self) -> Option<super::hook_list::HookFn> {
        match lock(&self.backward).as_ref() {
            Some(Backward::Custom { call }) => Some(Arc::clone(call)),
            _ => None,
        }
    }

    pub fn with_saved<T>(&self, f: impl FnOnce(&Backward) -> Result<T, Error>) -> Result<T, Error> {
        match lock(&self.backward).as_ref() {
            Some(b) => f(b),
            None => Err(Error::Autograd {
                message: "Trying to backward through the graph a second time (or directly access \
                          saved tensors after they have already been freed). Saved intermediate \
                          values of the graph are freed when you call .backward() or \
                          autograd.grad(). Specify retain_graph=True if you need to backward \
                          through the graph a second time or if you need to access saved tensors \
                          after calling backward."
                    .into(),
                help: format!(
                    "{} freed what it saved when the first backward ran it: pass \
                     `retain_graph=true` to that `backward()` to keep the graph for another",
                    self.name
                ),
            }),
        }
    }

    /// The tensors the node still keeps (none once a backward freed them;
    /// a `CopySlices` keeps what its op's node saved).
    pub fn saved_tensors(&self) -> Vec<Arc<Tensor>> {
        use crate::runtime::op::index::Index;
        match lock(&self.backward).as_ref() {
            Some(Backward::CopySlices { inner, .. }) => inner.saved_tensors(),
            // `IndexBackward0` keeps its index tensors (PyTorch's saved `indices`).
            Some(Backward::Index { items, .. } | Backward::IndexPut { items }) => items
                .iter()
                .filter_map(|i| match i {
                    Index::Tensor(t) => Some(Arc::clone(t)),
                    _ => None,
                })
                .collect(),
            Some(Backward::GatherAlong { offsets } | Backward::ScatterAlong { offsets, .. }) => {
                vec![Arc::clone(offsets)]
            }
            Some(b) => b.saved().into_iter().filter_map(Saved::tensor).collect(),
            None => vec![],
        }
    }

    /// What the node saved under the program's saved-tensor hooks, in the
    /// order it was saved (backward unpacks them before the node runs).
    pub fn hooked(&self) -> Vec<Arc<PackCell>> {
        let mut cells: Vec<Arc<PackCell>> = match lock(&self.backward).as_ref() {
            Some(Backward::CopySlices { inner, .. }) => inner.hooked(),
            Some(b) => b
                .saved()
                .into_iter()
                .filter_map(|s| s.hooked().cloned())
                .collect(),
            None => vec![],
        };
        cells.sort_by_key(|c| c.sequence);
        cells
    }

    /// Frees what the node saved (right after it ran, in a backward without
    /// `retain_graph`, as PyTorch's engine does). A node that saved nothing stays usable, as in
    /// PyTorch: only a backward that needs freed tensors is refused.
    pub fn release(&self) {
        let mut backward = lock(&self.backward);
        let saves = backward.as_ref().is_some_and(|b| match b {
            Backward::Index { .. }
            | Backward::IndexPut { .. }
            | Backward::GatherAlong { .. }
            | Backward::ScatterAlong { .. } => true,
            Backward::CopySlices { inner, .. } => !inner.saved_tensors().is_empty(),
            b => !b.saved().is_empty(),
        });
        if saves {
            backward.take();
        }
    }
}

/// A graph is freed node by node, not by recursion: a chain of a million
/// nodes (`total = total + loss` in a loop) would overflow the stack if
/// each node's drop dropped the next (PyTorch's `deleteNode` does the same).
impl Drop for Node {
    fn drop(&mut self) {
        // Nodes another owner still holds only lose a count; the ones this
        // drop frees are taken apart here, one at a time, the first without
        // a stack (a graph is mostly a chain).
        let mut one: Option<Arc<Node>> = None;
        let mut more: Vec<Arc<Node>> = Vec::new();
        let adopt = |next: &mut Edges, one: &mut Option<Arc<Node>>, more: &mut Vec<_>| {
            for e in next.drain(..) {
                if let Edge::Node(n, _) = e {
                    if Arc::strong_count(&n) > 1 {
                        continue;
                    }
                    match one.is_none() {
                        true => *one = Some(n),
                        false => more.push(n),
                    }
                }
            }
        };
        adopt(&mut self.next, &mut one, &mut more);
        loop {
            let Some(mut n) = one.take().or_else(|| more.pop()) else {
                break;
            };
            // The last owner takes the node's edges before it goes (in
            // place: moving a node out of its `Arc` copies all of it).
            if let Some(node) = Arc::get_mut(&mut n) {
                adopt(&mut node.next, &mut one, &mut more);
            }
        }
    }
}

/// Whether an op name is a backward node's (`MulBackward0`,
/// `BroadcastBackward`, `CopySlices`, `AccumulateGrad`): what the memory
/// history counts as backward's work.
pub fn is_backward_name(name: &str) -> bool {
    name.trim_end_matches(|c: char| c.is_ascii_digit())
        .ends_with("Backward")
        || name == "CopySlices"
        || name == "AccumulateGrad"
}

/// PyTorch's node name for a binary op.
pub fn binary_name(op: BinaryOp, scalar_base: bool, scalar_exponent: bool) -> &'static str {
    match op {
        BinaryOp::Add => "AddBackward0",
        BinaryOp::Sub if scalar_base => "RsubBackward1",
        BinaryOp::Sub => "SubBackward0",
        BinaryOp::Mul => "MulBackward0",
        BinaryOp::Div => "DivBackward0",
        BinaryOp::Pow if scalar_exponent => "PowBackward0",
        BinaryOp::Pow if scalar_base => "PowBackward2",
        BinaryOp::Pow => "PowBackward1",
        _ => "",
    }
}

/// PyTorch's node name for a unary op.
pub fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "NegBackward0",
        UnaryOp::Abs => "AbsBackward0",
        UnaryOp::Relu => "ReluBackward0",
        UnaryOp::Exp => "ExpBackward0",
        UnaryOp::Log => "LogBackward0",
        UnaryOp::Sqrt => "SqrtBackward0",
        UnaryOp::Sigmoid => "SigmoidBackward0",
        UnaryOp::Tanh => "TanhBackward0",
        UnaryOp::Sin => "SinBackward0",
        UnaryOp::Cos => "CosBackward0",
        UnaryOp::Floor => "FloorBackward0",
        UnaryOp::Ceil => "CeilBackward0",
        UnaryOp::Round => "RoundBackward0",
        UnaryOp::Trunc => "TruncBackward0",
        UnaryOp::BitNot => "",
        UnaryOp::Erf => "ErfBackward0",
        UnaryOp::Log1p => "Log1PBackward0",
        UnaryOp::Rsqrt => "RsqrtBackward0",
        UnaryOp::Sign => "SignBackward0",
        UnaryOp::Tan => "TanBackward0",
        UnaryOp::Atan => "AtanBackward0",
        UnaryOp::Asin => "AsinBackward0",
        UnaryOp::Acos => "AcosBackward0",
        UnaryOp::Sinh => "SinhBackward0",
        UnaryOp::Cosh => "CoshBackward0",
        UnaryOp::Reciprocal => "ReciprocalBackward0",
        UnaryOp::Log2 => "Log2Backward0",
        UnaryOp::Log10 => "Log10Backward0",
        UnaryOp::Expm1 => "Expm1Backward0",
        UnaryOp::Exp2 => "Exp2Backward0",
        UnaryOp::Silu => "SiluBackward0",
        UnaryOp::Mish => "MishBackward0",
        UnaryOp::Erfinv => "ErfinvBackward0",
        UnaryOp::Gelu | UnaryOp::GeluTanh => "GeluBackward0",
    }
}

/// Which product: a matrix's (`addmm`), a matrix and a vector's
/// (`addmv`), a batch's (`baddbmm`), a batch's summed (`addbmm`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Product {
    Mm,
    Mv,
    Bmm,
    SummedBmm,
}

/// `beta` and `alpha`: how much of `c` and of the product.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    pub beta: f64,
    pub alpha: f64,
}
