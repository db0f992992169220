//! The forward ops as autograd sees them: each calls the op layer, then,
//! when grad mode is on and an input requires grad, gives the result a
//! node that saves what its backward needs (PyTorch's autograd layer above
//! its kernels). With nothing to record they cost one check.

use std::sync::Arc;

use super::meta::{meta, meta_or_leaf, requires_grad, Meta};
use super::node::{binary_name, unary_name, Backward, Edge, Edges, InputMeta, Inputs, Node, Saved};
use super::pointwise_grad::Arith;
use super::Mode;
use super::{forward_ad, jvp};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::along::AlongOp;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::{is_advanced, Index};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::shape::norm_dim;
use crate::runtime::stream::StreamKey;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// Where the gradient of `t` goes.
pub fn edge(t: &Tensor) -> Edge {
    let edge = meta(t).map_or(Edge::None, Meta::edge);
    if let Edge::Leaf(cell) = &edge {
        // A leaf laid out otherwise than row-major (channels-last): its
        // `.grad` is laid out as it is (`accumulate`).
        if !t.is_contiguous() {
            cell.keep_layout(t.shape(), t.strides());
        }
    }
    edge
}

/// Gives `out` a new node made from `inputs`; `out` itself when it already
/// has an autograd record (an op that gave back its input), an alias.
fn attach(
    rt: &Runtime,
    out: Arc<Tensor>,
    name: &'static str,
    backward: Backward,
    inputs: &[(&Tensor, bool)],
) -> Arc<Tensor> {
    attach_as(rt, out, (name, backward), inputs, true)
}

/// `attach`, the result a view of the input whose memory it shares only
/// when `views` (PyTorch's `_unsafe_view` makes one autograd does not
/// count as a view).
fn attach_as(
    rt: &Runtime,
    out: Arc<Tensor>,
    (name, backward): (&'static str, Backward),
    inputs: &[(&Tensor, bool)],
    views: bool,
) -> Arc<Tensor> {
    let mut next = Edges::new();
    let mut metas = Inputs::new();
    for &(t, weak) in inputs {
        next.push(if weak { Edge::None } else { edge(t) });
        metas.push(InputMeta::of(t));
    }
    let mut node = Node::new(name, backward, next, metas, forward_stream(rt, &out));
    let viewed = inputs.iter().find(|(t, _)| views && out.shares_storage(t));
    node.view = viewed.is_some();
    let view = viewed.and_then(|(t, _)| Meta::view_of(t, &out));
    with_meta(out, Meta::output_of(Arc::new(node), 0, view))
}

/// `out` with its autograd record `meta` (an alias of it when it has one).
pub(super) fn with_meta(out: Arc<Tensor>, meta: Meta) -> Arc<Tensor> {
    let meta = Arc::new(meta);
    let mut out = match out.autograd().is_some() {
        true => Arc::new(out.alias()),
        false => out,
    };
    match Arc::get_mut(&mut out) {
        Some(fresh) => {
            fresh.set_autograd(meta);
        }
        None => {
            out.autograd_or_init(|| meta);
        }
    }
    out
}

/// The parts of `x` an op made (`chunk`, `split`, `unbind`: views of
/// `x`), as the outputs of one node when the op is recorded (PyTorch's
/// `SplitBackward0` with one output per part); else each part as
/// [`plain_view`] leaves it.
pub fn attach_parts(
    rt: &Runtime,
    mode: Mode,
    x: &Tensor,
    parts: Vec<Arc<Tensor>>,
    (name, backward): (&'static str, Backward),
) -> Vec<Arc<Tensor>> {
    if !recording(mode, &[x]) || !x.dtype().is_float() || parts.is_empty() {
        return parts.into_iter().map(|p| plain_view(mode, x, p)).collect();
    }
    let next = Edges::from_elem(edge(x), 1);
    let inputs = Inputs::from_elem(InputMeta::of(x), 1);
    let mut node = Node::new(name, backward, next, inputs, forward_stream(rt, x));
    node.outputs = parts.len();
    node.view = parts.iter().any(|p| p.shares_storage(x));
    let node = Arc::new(node);
    parts
        .into_iter()
        .enumerate()
        .map(|(k, part)| {
            let view = Meta::view_of(x, &part);
            with_meta(part, Meta::output_of(Arc::clone(&node), k, view))
        })
        .collect()
}

/// The outputs of a program's `torch.autograd.Function` (its `forward`
/// ran without recording) as the outputs of one node `name` whose
/// backward is the program's (`call`), its inputs the tensors given.
pub fn attach_custom(
    rt: &Runtime,
    outputs: Vec<Arc<Tensor>>,
    (name, call): (&'static str, super::hook_list::HookFn),
    inputs: &[&Tensor],
) -> Vec<Arc<Tensor>> {
    let next: Edges = inputs.iter().map(|t| edge(t)).collect();
    let metas: Inputs = inputs.iter().map(|t| InputMeta::of(t)).collect();
    let stream = outputs.first().and_then(|o| forward_stream(rt, o));
    let mut node = Node::new(name, Backward::Custom { call }, next, metas, stream);
    node.outputs = outputs.len();
    let node = Arc::new(node);
    outputs
        .into_iter()
        .enumerate()
        .map(|(k, out)| with_meta(out, Meta::output_of(Arc::clone(&node), k, None)))
        .collect()
}

/// `out` with a node of `inputs` (every one a tensor, none weak) when an
/// input requires grad and grad mode is on; else `out` as it is. Views,
/// copies and casts (`ViewBackward0`, `ToCopyBackward0`, ...), which save
/// nothing, are recorded this way.
pub fn attach_node(
    rt: &Runtime,
    mode: Mode,
    out: Arc<Tensor>,
    name: &'static str,
    backward: Backward,
    inputs: &[&Tensor],
) -> Arc<Tensor> {
    let dual = forward_ad::any_dual(inputs);
    let out = attach_node_inner(rt, mode, out, (name, backward), inputs);
    match (dual, inputs) {
        (true, [x]) => forward_ad::viewed(x, out),
        _ => out,
    }
}

fn attach_node_inner(
    rt: &Runtime,
    mode: Mode,
    out: Arc<Tensor>,
    (name, backward): (&'static str, Backward),
    inputs: &[&Tensor],
) -> Arc<Tensor> {
    if !recording(mode, inputs) || !out.dtype().is_float() {
        return match inputs {
            [x] => plain_view(mode, x, out),
            _ => out,
        };
    }
    let inputs: Vec<(&Tensor, bool)> = inputs.iter().map(|&t| (t, false)).collect();
    attach(rt, out, name, backward, &inputs)
}

/// A copy `out` of `x` (`to`, `clone`, `contiguous`, a cast: `name`),
/// its gradient `x`'s as it is; its tangent, the copy of `x`'s.
pub fn copied(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    out: Arc<Tensor>,
    name: &'static str,
) -> R<Arc<Tensor>> {
    let out = attach_node(rt, mode, out, name, Backward::Identity, &[x]);
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        jvp::Ops::copy_like(&mut Recording { rt, mode }, t, &out)
    })
}

/// `out` with a node of `inputs` (tensors, none weak), not a view of
/// them even where it shares their memory (a backward's result handed on
/// as it is, given one more input: [`super::create_graph::flat`]).
pub fn attach_no_view(
    rt: &Runtime,
    out: Arc<Tensor>,
    node: (&'static str, Backward),
    inputs: &[&Tensor],
) -> Arc<Tensor> {
    let inputs: Vec<(&Tensor, bool)> = inputs.iter().map(|&t| (t, false)).collect();
    attach_as(rt, out, node, &inputs, false)
}

/// `out`, computed with a mask of `of` (flat in it), recorded as
/// depending on `of` with a zero gradient (`create_graph::flat`, a
/// formula's).
pub fn flat(
    rt: &Runtime,
    mode: Mode,
    out: Arc<Tensor>,
    of: &Tensor,
    name: &'static str,
) -> Arc<Tensor> {
    if !mode.enabled || !requires_grad(of) {
        return out;
    }
    let alias = Arc::new(out.alias());
    attach_no_view(rt, alias, (name, Backward::Flat), &[&out, of])
}

/// The ops of this layer in grad mode `mode`: what a backward that creates
/// a graph computes a pointwise derivative with (`formulas.rs`), and what
/// forward-mode AD computes tangents with (`jvp.rs`), so that they have a
/// history when what they are computed from requires grad.
pub struct Recording<'a> {
    pub rt: &'a mut Runtime,
    pub mode: Mode,
}

impl Arith for Recording<'_> {
    fn bin(&mut self, op: BinaryOp, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
        binary(
            self.rt,
            self.mode,
            op,
            Operand::strong(a),
            Operand::strong(b),
        )
    }
    fn bin_s(&mut self, op: BinaryOp, a: &Tensor, s: f64) -> R<Arc<Tensor>> {
        let s = Tensor::scalar(s);
        binary(
            self.rt,
            self.mode,
            op,
            Operand::strong(a),
            Operand::weak(&s),
        )
    }
    fn s_bin(&mut self, op: BinaryOp, s: f64, a: &Tensor) -> R<Arc<Tensor>> {
        let s = Tensor::scalar(s);
        binary(
            self.rt,
            self.mode,
            op,
            Operand::weak(&s),
            Operand::strong(a),
        )
    }
    fn unary(&mut self, op: UnaryOp, x: &Tensor) -> R<Arc<Tensor>> {
        unary(self.rt, self.mode, op, x)
    }
    fn masked(&mut self, cond: &Tensor, a: &Tensor) -> R<Arc<Tensor>> {
        let zero = Tensor::scalar(0.0f64);
        let (c, z) = (Operand::strong(cond), Operand::weak(&zero));
        ternary(
            self.rt,
            self.mode,
            TernaryOp::Where,
            c,
            Operand::strong(a),
            z,
        )
    }
    fn sign(&mut self, x: &Tensor) -> R<Arc<Tensor>> {
        super::ops::sign(self.rt, x)
    }
    fn flat(&mut self, x: Arc<Tensor>, of: &Tensor, name: &'static str) -> Arc<Tensor> {
        flat(self.rt, self.mode, x, of, name)
    }
}

impl jvp::Ops for Recording<'_> {
    fn rt(&mut self) -> &mut Runtime {
        self.rt
    }
    fn matmul(&mut self, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
        matmul(self.rt, self.mode, a, b)
    }
    fn reduce(
        &mut self,
        op: ReduceOp,
        t: &Arc<Tensor>,
        dims: Option<&[i64]>,
        keepdim: bool,
    ) -> R<Arc<Tensor>> {
        match dims {
            None => reduce(self.rt, self.mode, op, t, None, false),
            // One dim: the op's own node (`prod` reduces one dim at a time).
            Some(&[d]) => reduce(self.rt, self.mode, op, t, Some(d), keepdim),
            Some(dims) => reduce_dims(self.rt, self.mode, op, t, dims, keepdim),
        }
    }
    fn join(&mut self, parts: &[&Tensor], dim: i64, stack: bool) -> R<Arc<Tensor>> {
        let out = self.rt.join(parts, dim, stack)?;
        join(self.rt, self.mode, parts, out, dim, stack)
    }
    fn index(&mut self, t: &Arc<Tensor>, items: &[Index]) -> R<Arc<Tensor>> {
        let out = self.rt.index(t, items)?;
        index(self.rt, self.mode, t, out, items)
    }
    fn pick(&mut self, cond: &Tensor, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
        let (c, a, b) = (
            Operand::strong(cond),
            Operand::strong(a),
            Operand::strong(b),
        );
        ternary(self.rt, self.mode, TernaryOp::Where, c, a, b)
    }
    fn copy_like(&mut self, t: &Arc<Tensor>, out: &Tensor) -> R<Arc<Tensor>> {
        let copy = jvp::copied_like(self.rt, t, out)?;
        copied(self.rt, self.mode, t, copy, "ToCopyBackward0")
    }
}

/// `x._unsafe_view(dims)`'s result `out`: `x`'s memory in a new shape,
/// recorded as `UnsafeViewBackward0` and, as in PyTorch, not a view for
/// autograd (an in-place op on it is its own node, not `CopySlices`).
pub fn unsafe_view(rt: &Runtime, mode: Mode, x: &Tensor, out: Arc<Tensor>) -> Arc<Tensor> {
    let dual = forward_ad::any_dual(&[x]);
    let out = match recording(mode, &[x]) && out.dtype().is_float() {
        true => {
            let node = ("UnsafeViewBackward0", Backward::Reshape);
            attach_as(rt, out, node, &[(x, false)], false)
        }
        false => out,
    };
    match dual {
        true => forward_ad::viewed(x, out),
        false => out,
    }
}

/// `out` as made from `x` by an op not recorded (`x` requires no grad):
/// when it is a view of `x` (its memory), it knows its base, as every
/// PyTorch view of a float tensor does (`._base`), so that an in-place op
/// on it that is recorded (`v = a[1:]; v += w`, `w` requiring grad) makes
/// the base's history `CopySlices`, even once the base's name is gone. The
/// base gets a record (a leaf's, requiring no grad) if it had none. Only in
/// grad mode, for a float view of a base laid out contiguously.
pub fn plain_view(mode: Mode, x: &Tensor, out: Arc<Tensor>) -> Arc<Tensor> {
    let out = plain_view_inner(mode, x, out);
    match forward_ad::active() && !std::ptr::eq(&*out, x) && forward_ad::tangent(&out).is_none() {
        true => match forward_ad::view_tangent(x, &out) {
            Some(t) if out.shares_storage(x) => forward_ad::give(out, t),
            _ => out,
        },
        false => out,
    }
}

fn plain_view_inner(mode: Mode, x: &Tensor, out: Arc<Tensor>) -> Arc<Tensor> {
    let untracked = |x: &Tensor| meta(x).is_none() && !x.covers_storage();
    if !mode.enabled {
        return view_made_without_grad(x, out);
    }
    if !out.dtype().is_float()
        || std::ptr::eq(&*out, x)
        || out.autograd().is_some()
        || !out.shares_storage(x)
        || untracked(x)
    {
        return out;
    }
    meta_or_leaf(x);
    if let Some(of) = Meta::view_of(x, &out) {
        out.autograd_or_init(|| Arc::new(Meta::view_of_plain(of)));
    }
    out
}

/// A view `out` of `x` made under `no_grad`: when `x` requires grad, it
/// does too, as PyTorch's view does (a leaf whose gradient goes nowhere,
/// which an in-place op in grad mode refuses: `inplace::check_leaf`).
fn view_made_without_grad(x: &Tensor, out: Arc<Tensor>) -> Arc<Tensor> {
    if !out.dtype().is_float()
        || std::ptr::eq(&*out, x)
        || out.autograd().is_some()
        || !out.shares_storage(x)
        || !requires_grad(x)
    {
        return out;
    }
    if let Some(of) = Meta::view_of(x, &out) {
        out.autograd_or_init(|| Arc::new(Meta::view_made_without_grad(of)));
    }
    out
}

/// The stream a node's backward runs on: the current stream of its
/// output's device when the forward op ran (PyTorch's "each backward CUDA
/// op runs on the same stream that was used for its corresponding forward op").
pub(super) fn forward_stream(rt: &Runtime, out: &Tensor) -> Option<StreamKey> {
    match out.device() {
        crate::runtime::Device::Cuda(d) => Some(rt.stream_on(d)),
        _ => None,
    }
}

/// Whether an op on `inputs` is recorded.
/// An op on tensors that carry forward-mode tangents is counted for the
/// evaluator's check (`forward_ad::mark`) unless it computes its result's
/// tangent (`forward_ad::carry`).
pub(crate) fn recording(mode: Mode, inputs: &[&Tensor]) -> bool {
    if forward_ad::any_dual(inputs) {
        forward_ad::mark();
    }
    mode.enabled && inputs.iter().any(|t| requires_grad(t))
}

pub(super) fn unsupported(what: &str) -> Error {
    Error::Autograd {
        message: format!("cudash cannot differentiate `{what}` yet"),
        help: "compute it under `no_grad { }`, or on a `.detach()`ed tensor, if no gradient is needed \
               through it"
            .into(),
    }
}

/// `a op b` (a number is a weak operand: it never requires grad).
pub fn binary(
    rt: &mut Runtime,
    mode: Mode,
    op: BinaryOp,
    a: Operand,
    b: Operand,
) -> R<Arc<Tensor>> {
    binary_of(rt, mode, op, a, b, false)
}

/// `x op s` as PyTorch's C++ calls it with a `Scalar` (`mul(Tensor,
/// Scalar)`, `div(Tensor, Scalar)`, `add`, `sub`): the same op, recorded as
/// that overload's node (`MulBackward1`, `DivBackward1`, `AddBackward1`,
/// `SubBackward1`), as composite losses written in C++ record it; and
/// `clamp_min(x, s)` / `clamp_max(x, s)` (`Maximum` / `Minimum`:
/// `ClampMinBackward0`, `ClampMaxBackward0`). (Python's `x * 2` wraps the
/// number in a tensor: `MulBackward0`.)
pub fn binary_scalar(
    rt: &mut Runtime,
    mode: Mode,
    op: BinaryOp,
    x: &Tensor,
    s: f64,
) -> R<Arc<Tensor>> {
    let s = Tensor::scalar(s);
    binary_of(rt, mode, op, Operand::strong(x), Operand::weak(&s), true)
}

/// `a op b`, recorded, with its tangent when an operand carries one.
fn binary_of(
    rt: &mut Runtime,
    mode: Mode,
    op: BinaryOp,
    a: Operand,
    b: Operand,
    scalar_overload: bool,
) -> R<Arc<Tensor>> {
    let out = binary_node(rt, mode, op, a, b, scalar_overload)?;
    if !out.dtype().is_float() {
        return Ok(out);
    }
    let inputs = [a.tensor, b.tensor];
    forward_ad::carry(rt, Arc::clone(&out), &inputs, false, |rt, ts| {
        jvp::binary(
            &mut Recording { rt, mode },
            op,
            (a, b),
            (&ts[0], &ts[1]),
            &out,
        )
    })
}

fn binary_node(
    rt: &mut Runtime,
    mode: Mode,
    op: BinaryOp,
    a: Operand,
    b: Operand,
    scalar_overload: bool,
) -> R<Arc<Tensor>> {
    // `2 * x` and `2 + x` are PyTorch's `x.__rmul__(2)` and `x.__radd__(2)`:
    // the tensor is the node's first input (`next_functions` shows it first).
    if a.weak && !b.weak && matches!(op, BinaryOp::Add | BinaryOp::Mul) {
        return binary_node(rt, mode, op, b, a, scalar_overload);
    }
    let out = rt.binary(op, a, b)?;
    let ra = !a.weak && requires_grad(a.tensor);
    let rb = !b.weak && requires_grad(b.tensor);
    if !mode.enabled || !(ra || rb) || !out.dtype().is_float() {
        return Ok(out);
    }
    let saved = |t: &Tensor, weak: bool, needed: bool| needed.then(|| Saved::operand(t, weak));
    let backward = match op {
        BinaryOp::Add => Backward::Add,
        BinaryOp::Sub => Backward::Sub,
        // Fields in the order PyTorch saves them (`other` first): the order
        // a program's saved-tensor pack hook sees them in.
        BinaryOp::Mul => Backward::Mul {
            b: saved(b.tensor, b.weak, ra),
            a: saved(a.tensor, a.weak, rb),
        },
        BinaryOp::Div if a.weak && jvp::number(a.tensor)? == 1.0 => Backward::Reciprocal {
            out: Saved::output(&out),
        },
        BinaryOp::Div => Backward::Div {
            b: Saved::operand(b.tensor, b.weak),
            a: saved(a.tensor, a.weak, rb),
        },
        BinaryOp::Pow if b.weak => Backward::PowScalar {
            x: Saved::new(a.tensor),
            e: jvp::number(b.tensor)?,
        },
        BinaryOp::Pow if a.weak => Backward::ScalarPow {
            e: jvp::number(a.tensor)?,
            out: Saved::output(&out),
        },
        BinaryOp::Pow => Backward::Pow {
            y: Saved::new(b.tensor),
            x: Saved::new(a.tensor),
            out: rb.then(|| Saved::output(&out)),
        },
        BinaryOp::Maximum | BinaryOp::Minimum if b.weak => Backward::ClampOne {
            x: Saved::new(a.tensor),
            bound: Saved::operand(b.tensor, true),
            min: op == BinaryOp::Maximum,
        },
        BinaryOp::Maximum | BinaryOp::Minimum => Backward::Extremum {
            a: Saved::new(a.tensor),
            b: Saved::new(b.tensor),
            max: op == BinaryOp::Maximum,
        },
        // `x % y`: the gradient to `x` as it is; to a tensor `y`,
        // `-g * floor(x / y)` (a number `% x` is not differentiable in
        // PyTorch); `fmod(x, y)`: `-g * trunc(x / y)`.
        BinaryOp::Rem | BinaryOp::Fmod if !a.weak => Backward::Remainder {
            a: rb.then(|| Saved::new(a.tensor)),
            b: rb.then(|| Saved::new(b.tensor)),
            trunc: op == BinaryOp::Fmod,
        },
        other => return Err(unsupported(other.name())),
    };
    let name = match backward {
        Backward::Remainder { trunc: false, .. } if b.weak => "RemainderBackward0",
        Backward::Remainder { trunc: false, .. } => "RemainderBackward1",
        Backward::Remainder { .. } if b.weak => "FmodBackward0",
        Backward::Remainder { .. } => "FmodBackward1",
        // `x.clamp_min(m)` / `x.clamp_max(m)` with a number: their own
        // nodes; `clamp(x, min=m)` (one number bound): PyTorch's clamp node.
        Backward::ClampOne { min: true, .. } if scalar_overload => "ClampMinBackward0",
        Backward::ClampOne { min: false, .. } if scalar_overload => "ClampMaxBackward0",
        Backward::ClampOne { .. } => "ClampBackward1",
        Backward::Extremum { max: true, .. } => "MaximumBackward0",
        Backward::Extremum { max: false, .. } => "MinimumBackward0",
        Backward::Reciprocal { .. } => "ReciprocalBackward0",
        Backward::Mul { .. } if scalar_overload => "MulBackward1",
        Backward::Div { .. } if scalar_overload => "DivBackward1",
        Backward::Add if scalar_overload => "AddBackward1",
        Backward::Sub if scalar_overload => "SubBackward1",
        _ => binary_name(op, a.weak, b.weak),
    };
    Ok(attach(
        rt,
        out,
        name,
        backward,
        &[(a.tensor, a.weak), (b.tensor, b.weak)],
    ))
}

/// What a unary op's gradient formula needs besides the incoming gradient.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum UnarySaves {
    /// The op's result (`exp`: g * result).
    Output,
    /// The op's input (`log`: g / x).
    Input,
}

/// What `op`'s node saves; None for the ops whose formula needs nothing
/// (`neg`, and the roundings and `sign`, whose gradient is zero).
pub fn unary_saves(op: UnaryOp) -> Option<UnarySaves> {
    match op {
        UnaryOp::Neg
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Trunc
        | UnaryOp::Sign
        | UnaryOp::BitNot => None,
        UnaryOp::Exp
        | UnaryOp::Sqrt
        | UnaryOp::Relu
        | UnaryOp::Sigmoid
        | UnaryOp::Tanh
        | UnaryOp::Rsqrt
        | UnaryOp::Tan
        | UnaryOp::Reciprocal
        | UnaryOp::Expm1
        | UnaryOp::Exp2 => Some(UnarySaves::Output),
        UnaryOp::Log
        | UnaryOp::Log1p
        | UnaryOp::Abs
        | UnaryOp::Sin
        | UnaryOp::Cos
        | UnaryOp::Erf
        | UnaryOp::Gelu
        | UnaryOp::GeluTanh
        | UnaryOp::Atan
        | UnaryOp::Asin
        | UnaryOp::Acos
        | UnaryOp::Sinh
        | UnaryOp::Cosh
        | UnaryOp::Log2
        | UnaryOp::Log10
        | UnaryOp::Silu
        | UnaryOp::Mish
        | UnaryOp::Erfinv => Some(UnarySaves::Input),
    }
}

pub fn unary(rt: &mut Runtime, mode: Mode, op: UnaryOp, x: &Tensor) -> R<Arc<Tensor>> {
    let out = unary_node(rt, mode, op, x)?;
    if !out.dtype().is_float() || op == UnaryOp::BitNot {
        return Ok(out);
    }
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        let saves = unary_saves(op).map(|s| matches!(s, UnarySaves::Output));
        jvp::unary(&mut Recording { rt, mode }, (op, saves), (x, &out), t)
    })
}

fn unary_node(rt: &mut Runtime, mode: Mode, op: UnaryOp, x: &Tensor) -> R<Arc<Tensor>> {
    let out = rt.unary(op, x)?;
    if !recording(mode, &[x]) || !out.dtype().is_float() || op == UnaryOp::BitNot {
        return Ok(out);
    }
    let backward = match unary_saves(op) {
        None if op == UnaryOp::Neg => Backward::Neg,
        None => Backward::Zero,
        Some(UnarySaves::Output) => Backward::Unary {
            op,
            saved: Saved::output(&out),
        },
        Some(UnarySaves::Input) => Backward::Unary {
            op,
            saved: Saved::new(x),
        },
    };
    Ok(attach(rt, out, unary_name(op), backward, &[(x, false)]))
}

pub fn matmul(rt: &mut Runtime, mode: Mode, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    let name = match (a.ndim(), b.ndim()) {
        (1, 1) => "DotBackward0",
        (2, 1) => "MvBackward0",
        (2, 2) => "MmBackward0",
        (1, 2) => "SqueezeBackward1",
        _ => "UnsafeViewBackward0",
    };
    product(rt, mode, a, b, name)
}

/// `torch.bmm(a, b)`: the batched product as one node of its own.
pub fn bmm(rt: &mut Runtime, mode: Mode, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    product(rt, mode, a, b, "BmmBackward0")
}

/// A matrix product, recorded as the node `name`.
fn product(
    rt: &mut Runtime,
    mode: Mode,
    a: &Tensor,
    b: &Tensor,
    name: &'static str,
) -> R<Arc<Tensor>> {
    let out = product_node(rt, mode, a, b, name)?;
    forward_ad::carry(rt, Arc::clone(&out), &[a, b], true, |rt, ts| {
        jvp::matmul(&mut Recording { rt, mode }, (a, b), (&ts[0], &ts[1]), &out)
    })
}

fn product_node(
    rt: &mut Runtime,
    mode: Mode,
    a: &Tensor,
    b: &Tensor,
    name: &'static str,
) -> R<Arc<Tensor>> {
    let out = rt.matmul(a, b)?;
    if !recording(mode, &[a, b]) {
        return Ok(out);
    }
    let (ra, rb) = (requires_grad(a), requires_grad(b));
    let backward = Backward::MatMul {
        columns: [column_major(a), column_major(b)],
        // PyTorch saves `mat2` first (what a saved-tensor pack hook sees).
        b: ra.then(|| Saved::new(b)),
        a: rb.then(|| Saved::new(a)),
    };
    Ok(attach(rt, out, name, backward, &[(a, false), (b, false)]))
}

/// Whether a matrix is laid out column by column (a transposed
/// contiguous matrix, as `W.T`).
fn column_major(t: &Tensor) -> bool {
    let (s, st) = (t.shape(), t.strides());
    s.len() == 2 && st[0] == 1 && st[1] == s[0] as isize && s[0] > 1 && s[1] > 1
}

/// `x.sum()`, `x.mean(dim)` and the other reductions over one dim or all.
pub fn reduce(
    rt: &mut Runtime,
    mode: Mode,
    op: ReduceOp,
    x: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
) -> R<Arc<Tensor>> {
    let out = reduce_node(rt, mode, op, x, dim, keepdim)?;
    if !out.dtype().is_float() {
        return Ok(out);
    }
    let dims: Option<Vec<i64>> = dim.map(|d| vec![d]);
    forward_ad::carry(rt, Arc::clone(&out), &[x], true, |rt, ts| match &ts[0] {
        // `max()`, `min()`: the tangent's mean where the primal is the result.
        Some(t) if matches!(op, ReduceOp::Max | ReduceOp::Min) && dims.is_none() => {
            jvp::evenly(&mut Recording { rt, mode }, x, t, &out)
        }
        Some(t) if op == ReduceOp::Prod => {
            jvp::prod(&mut Recording { rt, mode }, (x, t), &out, (dim, keepdim))
        }
        Some(t) => jvp::reduce(
            &mut Recording { rt, mode },
            op,
            t,
            (dims.as_deref(), keepdim),
        ),
        None => super::ops::full_like(rt, &out, 0),
    })
}

fn reduce_node(
    rt: &mut Runtime,
    mode: Mode,
    op: ReduceOp,
    x: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
) -> R<Arc<Tensor>> {
    let out = rt.reduce(op, x, dim, keepdim)?;
    if !recording(mode, &[x]) || !out.dtype().is_float() {
        return Ok(out);
    }
    let dims: Vec<usize> = match dim {
        Some(d) if x.ndim() > 0 => vec![norm_dim(d, x.ndim())?],
        Some(_) => vec![],
        None => (0..x.ndim()).collect(),
    };
    // Without a dim the result is 0-d whatever keepdim says.
    let keepdim = keepdim && dim.is_some();
    reduction(rt, op, x, out, dims, keepdim, dim.is_some())
}

/// `x.sum((0, 2))`, `x.mean((0, 1), keepdim=true)`.
pub fn reduce_dims(
    rt: &mut Runtime,
    mode: Mode,
    op: ReduceOp,
    x: &Arc<Tensor>,
    dims: &[i64],
    keepdim: bool,
) -> R<Arc<Tensor>> {
    reduce_dims_laid_out(rt, mode, (op, x, dims, keepdim), |_, out| Ok(out))
}

/// `reduce_dims` with its result given the layout `lay_out` makes before
/// it is recorded (`adaptive_avg_pool2d(x, 1)`: channels-last strides).
pub fn reduce_dims_laid_out(
    rt: &mut Runtime,
    mode: Mode,
    (op, x, dims, keepdim): (ReduceOp, &Arc<Tensor>, &[i64], bool),
    lay_out: impl FnOnce(&mut Runtime, Arc<Tensor>) -> R<Arc<Tensor>>,
) -> R<Arc<Tensor>> {
    let out = rt.reduce_dims(op, x, dims, keepdim)?;
    let out = lay_out(rt, out)?;
    let recorded = recording(mode, &[x]);
    if !out.dtype().is_float() {
        return Ok(out);
    }
    let out = match recorded {
        true => {
            let norm = crate::runtime::shape::norm_dims(dims, x.ndim())?;
            reduction(rt, op, x, out, norm, keepdim, true)?
        }
        false => out,
    };
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        jvp::reduce(&mut Recording { rt, mode }, op, t, (Some(dims), keepdim))
    })
}

fn reduction(
    rt: &Runtime,
    op: ReduceOp,
    x: &Tensor,
    out: Arc<Tensor>,
    dims: Vec<usize>,
    keepdim: bool,
    with_dim: bool,
) -> R<Arc<Tensor>> {
    let count = dims.iter().map(|&d| x.shape()[d]).product::<usize>();
    let (name, backward) = match op {
        ReduceOp::Sum => (
            if with_dim {
                "SumBackward1"
            } else {
                "SumBackward0"
            },
            Backward::Sum { dims, keepdim },
        ),
        ReduceOp::Mean => (
            if with_dim {
                "MeanBackward1"
            } else {
                "MeanBackward0"
            },
            Backward::Mean {
                dims,
                keepdim,
                count,
            },
        ),
        ReduceOp::Max | ReduceOp::Min if !with_dim => {
            let name = match op {
                ReduceOp::Max => "MaxBackward1",
                _ => "MinBackward1",
            };
            let backward = Backward::Extreme {
                x: Saved::new(x),
                out: Saved::output(&out),
            };
            (name, backward)
        }
        ReduceOp::Prod if !with_dim || dims.len() <= 1 => (
            if with_dim {
                "ProdBackward1"
            } else {
                "ProdBackward0"
            },
            Backward::Prod {
                x: Saved::new(x),
                out: Saved::output(&out),
                dim: dims.first().copied().filter(|_| with_dim),
                keepdim,
            },
        ),
        other => return Err(unsupported(other.name())),
    };
    Ok(attach(rt, out, name, backward, &[(x, false)]))
}

/// `x.max(dim)` / `x.min(dim)`: the values (`out`) remember which element
/// each came from (`indices`).
pub fn select_reduce(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    (out, indices): (Arc<Tensor>, &Tensor),
    dim: i64,
    keepdim: bool,
    max: bool,
) -> R<Arc<Tensor>> {
    let recorded = recording(mode, &[x]);
    if !out.dtype().is_float() {
        return Ok(out);
    }
    let dim = match x.ndim() {
        0 => 0,
        n => norm_dim(dim, n)?,
    };
    let name = if max { "MaxBackward0" } else { "MinBackward0" };
    let out = match recorded {
        true => picked(rt, x, (out, indices), dim, keepdim, name),
        false => out,
    };
    picked_tangent(rt, mode, x, out, (dim, indices), keepdim)
}

/// The result of an op that picked one element of `x` per result element
/// along `dim` (`indices` name them), with its tangent: the same elements
/// of `x`'s tangent. For the ops whose `recording` counted them.
pub fn picked_tangent(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    out: Arc<Tensor>,
    (dim, indices): (usize, &Tensor),
    keepdim: bool,
) -> R<Arc<Tensor>> {
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        jvp::gathered(&mut Recording { rt, mode }, t, (dim, indices), keepdim)
    })
}

/// The result of a reduction of every element of `x` to one equal to
/// some of them (`median()`), with its tangent: the tangent's mean over
/// those elements. For the ops whose `recording` counted them.
pub fn evenly_tangent(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    out: Arc<Tensor>,
) -> R<Arc<Tensor>> {
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        jvp::evenly(&mut Recording { rt, mode }, x, t, &out)
    })
}

/// A reduction along `dim` (in range) that picks one element of each
/// line (`max(dim)`, `median(dim)`): its gradient goes to that element
/// (`indices`), as the node `name`.
pub fn picked(
    rt: &Runtime,
    x: &Tensor,
    (out, indices): (Arc<Tensor>, &Tensor),
    dim: usize,
    keepdim: bool,
    name: &'static str,
) -> Arc<Tensor> {
    let backward = Backward::SelectReduce {
        indices: Saved::new(indices),
        dim,
        keepdim,
    };
    attach(rt, out, name, backward, &[(x, false)])
}

/// A reduction of every element to one that equals some of them
/// (`max()`, `median()`): its gradient shared by the elements equal to
/// it (PyTorch's `evenly_distribute_backward`), as the node `name`.
pub fn evenly_picked(
    rt: &Runtime,
    x: &Tensor,
    out: Arc<Tensor>,
    name: &'static str,
) -> Arc<Tensor> {
    let backward = Backward::Extreme {
        x: Saved::new(x),
        out: Saved::output(&out),
    };
    attach(rt, out, name, backward, &[(x, false)])
}

/// `var`, `std` (`correction`) and `norm` (`p`) over `dims` (None: every element).
pub fn along_reduce(
    rt: &mut Runtime,
    mode: Mode,
    (op, p): (AlongOp, f64),
    x: &Tensor,
    out: Arc<Tensor>,
    dims: Option<&[i64]>,
    keepdim: bool,
) -> R<Arc<Tensor>> {
    let recorded = recording(mode, &[x]);
    if !out.dtype().is_float() {
        return Ok(out);
    }
    let dims = match dims {
        Some(d) if !d.is_empty() && x.ndim() > 0 => {
            Some(crate::runtime::shape::norm_dims(d, x.ndim())?)
        }
        _ => None,
    };
    let out = match recorded {
        true => along_node(rt, (op, p), x, out, dims.clone(), keepdim)?,
        false => out,
    };
    along_tangent(rt, mode, (op, p), x, out, (dims.as_deref(), keepdim))
}

/// `out`, var, std or a norm of `x` over `dims`, with its tangent
/// (`jvp::along`), for an op whose `recording` counted it.
fn along_tangent(
    rt: &mut Runtime,
    mode: Mode,
    (op, p): (AlongOp, f64),
    x: &Tensor,
    out: Arc<Tensor>,
    (dims, keepdim): (Option<&[usize]>, bool),
) -> R<Arc<Tensor>> {
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        jvp::along(
            &mut Recording { rt, mode },
            (op, p),
            (x, t),
            (dims, keepdim),
            &out,
        )
    })
}

fn along_node(
    rt: &Runtime,
    (op, p): (AlongOp, f64),
    x: &Tensor,
    out: Arc<Tensor>,
    dims: Option<Vec<usize>>,
    keepdim: bool,
) -> R<Arc<Tensor>> {
    let (name, backward) = match op {
        AlongOp::Var | AlongOp::Std => {
            let std = op == AlongOp::Std;
            let backward = Backward::Var {
                x: Saved::new(x),
                std: std.then(|| Saved::output(&out)),
                dims,
                correction: p,
                keepdim,
            };
            (if std { "StdBackward0" } else { "VarBackward0" }, backward)
        }
        AlongOp::Norm => {
            let backward = Backward::Norm {
                x: Saved::new(x),
                out: Saved::output(&out),
                p,
                dims: dims.unwrap_or_else(|| (0..x.ndim()).collect()),
                keepdim,
            };
            ("LinalgVectorNormBackward0", backward)
        }
        other => return Err(unsupported(other.name())),
    };
    Ok(attach(rt, out, name, backward, &[(x, false)]))
}

/// `var_mean` / `std_mean` (`std`): the two results as the outputs of one
/// node (`VarMeanBackward0`, `StdMeanBackward0`), over `dims` (None:
/// every element).
pub fn var_mean(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    (var, mean): (Arc<Tensor>, Arc<Tensor>),
    (std, correction): (bool, f64),
    dims: Option<&[i64]>,
    keepdim: bool,
) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    let count = match x.numel() {
        0 => 0,
        n => n / mean.numel().max(1),
    };
    let dims = match dims {
        Some(d) if !d.is_empty() && x.ndim() > 0 => {
            Some(crate::runtime::shape::norm_dims(d, x.ndim())?)
        }
        _ => None,
    };
    let var_node = Backward::Var {
        x: Saved::new(x),
        std: std.then(|| Saved::output(&var)),
        dims: dims.clone(),
        correction,
        keepdim,
    };
    let backward = Backward::VarMean {
        var: Box::new(var_node),
        count,
    };
    let name = if std {
        "StdMeanBackward0"
    } else {
        "VarMeanBackward0"
    };
    let recorded = recording(mode, &[x]);
    if !x.dtype().is_float() {
        return Ok((var, mean));
    }
    let (var, mean) = match recorded {
        true => {
            let mut outs = attach_parts(rt, mode, x, vec![var, mean], (name, backward));
            let mean = outs.pop().expect("two outputs");
            (outs.pop().expect("two outputs"), mean)
        }
        false => (var, mean),
    };
    // Forward-mode AD: var's (std's) tangent as `var`'s, the mean's the
    // tangent's mean. (Each counts back one of the marks the op made:
    // one, or two when the node was recorded.)
    let op = if std { AlongOp::Std } else { AlongOp::Var };
    let var = along_tangent(
        rt,
        mode,
        (op, correction),
        x,
        var,
        (dims.as_deref(), keepdim),
    )?;
    let mean = forward_ad::carry_one(rt, Arc::clone(&mean), x, |rt, t| {
        let all: Vec<i64> = match &dims {
            Some(d) => d.iter().map(|&d| d as i64).collect(),
            None => (0..x.ndim() as i64).collect(),
        };
        let keep = keepdim && x.ndim() > 0;
        let t = Arc::clone(t);
        let mut o = Recording { rt, mode };
        match x.ndim() {
            0 => jvp::Ops::copy_like(&mut o, &t, &mean),
            _ => jvp::Ops::reduce(&mut o, ReduceOp::Mean, &t, Some(&all), keep),
        }
    })?;
    Ok((var, mean))
}

/// `at::norm(x, p, dim, keepdim)` as PyTorch's C++ composites call it
/// (`pairwise_distance`): the norm's node under its older name,
/// `NormBackward1` (Python's `x.norm` is `linalg.vector_norm`).
pub fn cpp_norm(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    p: f64,
    dim: i64,
    keepdim: bool,
) -> R<Arc<Tensor>> {
    let out = rt.along(AlongOp::Norm, p, x, Some(dim), keepdim)?;
    if !recording(mode, &[x]) || !out.dtype().is_float() {
        return Ok(out);
    }
    let d = norm_dim(dim, x.ndim().max(1))?;
    let backward = Backward::Norm {
        x: Saved::new(x),
        out: Saved::output(&out),
        p,
        dims: vec![d],
        keepdim,
    };
    Ok(attach(rt, out, "NormBackward1", backward, &[(x, false)]))
}

/// `cumsum(x, dim)`.
pub fn cumsum(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    out: Arc<Tensor>,
    dim: i64,
) -> R<Arc<Tensor>> {
    let out = cumsum_node(rt, mode, x, out, dim)?;
    if !out.dtype().is_float() {
        return Ok(out);
    }
    // The tangent: the tangent's cumulative sum.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        let sums = rt.along(AlongOp::Cumsum, 0.0, t, Some(dim), false)?;
        cumsum(rt, mode, t, sums, dim)
    })
}

fn cumsum_node(rt: &Runtime, mode: Mode, x: &Tensor, out: Arc<Tensor>, dim: i64) -> R<Arc<Tensor>> {
    if !recording(mode, &[x]) || !out.dtype().is_float() {
        return Ok(out);
    }
    let dim = norm_dim(dim, x.ndim().max(1))?;
    Ok(attach(
        rt,
        out,
        "CumsumBackward0",
        Backward::Cumsum { dim },
        &[(x, false)],
    ))
}

/// `x[items]` by basic indexing (a view of `x`): `SelectBackward0` when
/// the last item that picks picks one index, `SliceBackward0` for a
/// range, `UnsqueezeBackward0` for a new axis; advanced indexing (a copy)
/// is `IndexBackward0`, whose backward adds into zeros at the same indices.
pub fn index(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    out: Arc<Tensor>,
    items: &[Index],
) -> R<Arc<Tensor>> {
    let dual = forward_ad::any_dual(&[x]);
    let out = index_node(rt, mode, x, out, items)?;
    if !dual || !out.dtype().is_float() {
        return Ok(out);
    }
    // A view's tangent is the same view of x's; a copy's (integer tensors
    // picking), the tangent picked alike.
    let out = forward_ad::viewed(x, out);
    forward_ad::carry(
        rt,
        Arc::clone(&out),
        &[x],
        forward_ad::tangent(&out).is_none(),
        |rt, ts| match &ts[0] {
            Some(t) => jvp::Ops::index(&mut Recording { rt, mode }, t, items),
            None => super::ops::full_like(rt, &out, 0),
        },
    )
}

fn index_node(
    rt: &Runtime,
    mode: Mode,
    x: &Tensor,
    out: Arc<Tensor>,
    items: &[Index],
) -> R<Arc<Tensor>> {
    if !recording(mode, &[x]) || !out.dtype().is_float() {
        return Ok(plain_view(mode, x, out));
    }
    if is_advanced(items) {
        let backward = Backward::Index {
            padding_idx: None,
            items: items.to_vec(),
        };
        return Ok(attach(rt, out, "IndexBackward0", backward, &[(x, false)]));
    }
    let whole = |i: &Index| matches!(i, Index::Slice(None, None, None) | Index::Ellipsis);
    let name = match items.iter().rev().find(|i| !whole(i)) {
        Some(Index::At(_)) => "SelectBackward0",
        Some(Index::NewAxis) => "UnsqueezeBackward0",
        _ => "SliceBackward0",
    };
    let backward = Backward::Select {
        items: items.to_vec(),
    };
    Ok(attach(rt, out, name, backward, &[(x, false)]))
}

/// `embedding(indices, weight)`: the rows of `weight` the indices pick (a
/// copy), recorded as PyTorch's `EmbeddingBackward0`, which keeps the
/// indices and sums the gradient of each picked row into its row.
pub fn embedding(
    rt: &mut Runtime,
    mode: Mode,
    weight: &Arc<Tensor>,
    indices: &Arc<Tensor>,
    padding_idx: Option<i64>,
) -> R<Arc<Tensor>> {
    if !matches!(indices.dtype(), DType::I64 | DType::I32) {
        return Err(Error::dtype(
            format!(
                "Expected tensor for argument #1 'indices' to have one of the following scalar types: \
                 Long, Int; but got {} instead (while checking arguments for embedding)",
                indices.dtype().torch_type(indices.device().is_cuda())
            ),
            Some("indices are integers: `tensor([1, 4])`, or `x.long()`".into()),
        ));
    }
    if weight.ndim() != 2 {
        return Err(Error::shape("'weight' must be 2-D"));
    }
    let padding_idx = match padding_idx {
        None => None,
        Some(p) => Some(padding_row(p, weight.shape()[0])?),
    };
    let items = [Index::Tensor(Arc::clone(indices))];
    let out = rt.index(weight, &items)?;
    let recorded = recording(mode, &[weight]);
    if !out.dtype().is_float() {
        return Ok(out);
    }
    let out = match recorded {
        true => {
            let backward = Backward::Index {
                items: items.to_vec(),
                padding_idx,
            };
            attach(rt, out, "EmbeddingBackward0", backward, &[(weight, false)])
        }
        false => out,
    };
    // Forward-mode AD: the same rows of the weight's tangent.
    forward_ad::carry(rt, Arc::clone(&out), &[weight], true, |rt, ts| {
        match &ts[0] {
            Some(t) => embedding(rt, mode, t, indices, padding_idx),
            None => super::ops::full_like(rt, &out, 0),
        }
    })
}

/// Embedding's `padding_idx` as a row of a table of `rows` (a negative one
/// counts from the end), with PyTorch's checks.
pub fn padding_row(p: i64, rows: usize) -> R<i64> {
    let n = rows as i64;
    if p >= n {
        return Err(Error::value("Padding_idx must be within num_embeddings"));
    }
    if p < -n {
        return Err(Error::value("Padding_idx must be within num_embeddings"));
    }
    Ok(if p < 0 { p + n } else { p })
}

/// `where(cond, x, y)`, `clamp(x, lo, hi)` and `a + c * b`.
pub fn ternary(
    rt: &mut Runtime,
    mode: Mode,
    op: TernaryOp,
    a: Operand,
    b: Operand,
    c: Operand,
) -> R<Arc<Tensor>> {
    let out = ternary_node(rt, mode, op, a, b, c)?;
    if !out.dtype().is_float() {
        return Ok(out);
    }
    let inputs = [a.tensor, b.tensor, c.tensor];
    forward_ad::carry(rt, Arc::clone(&out), &inputs, false, |rt, ts| {
        jvp::ternary(&mut Recording { rt, mode }, op, (a, b, c), ts, &out)
    })
}

fn ternary_node(
    rt: &mut Runtime,
    mode: Mode,
    op: TernaryOp,
    a: Operand,
    b: Operand,
    c: Operand,
) -> R<Arc<Tensor>> {
    let strong = |o: &Operand| !o.weak && requires_grad(o.tensor);
    if op == TernaryOp::AddScaled && mode.enabled && [a, b].iter().any(strong) {
        // Recorded as its parts (`c * b`, then `a + ...`): the gradients
        // are the same; the optimizers run it with nothing to record.
        let scaled = binary(rt, mode, BinaryOp::Mul, b, c)?;
        return binary(rt, mode, BinaryOp::Add, a, Operand::strong(&scaled));
    }
    let out = rt.ternary(op, a, b, c)?;
    if !mode.enabled || ![a, b, c].iter().any(strong) || !out.dtype().is_float() {
        return Ok(out);
    }
    let (name, backward) = match op {
        TernaryOp::Where => (
            "WhereBackward0",
            Backward::Where {
                cond: Saved::new(a.tensor),
            },
        ),
        TernaryOp::Clamp => {
            let name = match b.weak && c.weak {
                true => "ClampBackward1",
                false => "ClampBackward0",
            };
            let backward = Backward::Clamp {
                x: Saved::new(a.tensor),
                lo: Saved::operand(b.tensor, b.weak),
                hi: Saved::operand(c.tensor, c.weak),
            };
            (name, backward)
        }
        TernaryOp::AddScaled => unreachable!("recorded as its parts above"),
    };
    let inputs = [
        (a.tensor, a.weak || op == TernaryOp::Where),
        (b.tensor, b.weak),
        (c.tensor, c.weak),
    ];
    Ok(attach(rt, out, name, backward, &inputs))
}

/// `x.masked_fill(mask, value)`: `where(mask, value, x)` (mask and x
/// broadcast together, as PyTorch's `expand_outplace`), recorded as
/// PyTorch's `MaskedFillBackward0` (a number: x's gradient zero where the
/// mask holds) or `MaskedFillBackward1` (a 0-dim tensor, which gets the
/// sum of the gradient there). `value` has x's dtype.
pub fn masked_fill(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    mask: &Tensor,
    value: Operand,
) -> R<Arc<Tensor>> {
    let out = masked_fill_node(rt, mode, x, mask, value)?;
    if !out.dtype().is_float() {
        return Ok(out);
    }
    // where(mask, value, x)'s tangent.
    let (m, v, s) = (Operand::strong(mask), value, Operand::strong(x));
    forward_ad::carry(
        rt,
        Arc::clone(&out),
        &[mask, value.tensor, x],
        false,
        |rt, ts| {
            jvp::ternary(
                &mut Recording { rt, mode },
                TernaryOp::Where,
                (m, v, s),
                ts,
                &out,
            )
        },
    )
}

fn masked_fill_node(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    mask: &Tensor,
    value: Operand,
) -> R<Arc<Tensor>> {
    let out = rt.ternary(
        TernaryOp::Where,
        Operand::strong(mask),
        value,
        Operand::strong(x),
    )?;
    let strong_value = !value.weak && requires_grad(value.tensor);
    if !mode.enabled || !(strong_value || requires_grad(x)) || !out.dtype().is_float() {
        return Ok(out);
    }
    let name = match value.weak {
        true => "MaskedFillBackward0",
        false => "MaskedFillBackward1",
    };
    let backward = Backward::MaskedFill {
        mask: Saved::new(mask),
    };
    let inputs: &[(&Tensor, bool)] = match value.weak {
        true => &[(x, false)],
        false => &[(x, false), (value.tensor, false)],
    };
    Ok(attach(rt, out, name, backward, inputs))
}

/// `cat(xs, dim)` / `stack(xs, dim)` of `xs`, made by the op layer (`out`).
pub fn join(
    rt: &mut Runtime,
    mode: Mode,
    xs: &[&Tensor],
    out: Arc<Tensor>,
    dim: i64,
    stack: bool,
) -> R<Arc<Tensor>> {
    let out = join_node(rt, mode, xs, out, dim, stack)?;
    if !out.dtype().is_float() {
        return Ok(out);
    }
    forward_ad::carry(rt, Arc::clone(&out), xs, true, |rt, ts| {
        jvp::join(&mut Recording { rt, mode }, xs, ts, (dim, stack))
    })
}

fn join_node(
    rt: &Runtime,
    mode: Mode,
    xs: &[&Tensor],
    out: Arc<Tensor>,
    dim: i64,
    stack: bool,
) -> R<Arc<Tensor>> {
    if !recording(mode, xs) || !out.dtype().is_float() {
        return Ok(out);
    }
    match stack {
        true => {
            let dim = norm_dim(dim, out.ndim())?;
            let inputs: Vec<(&Tensor, bool)> = xs.iter().map(|&t| (t, false)).collect();
            Ok(attach(
                rt,
                out,
                "StackBackward0",
                Backward::Stack { dim },
                &inputs,
            ))
        }
        false => cat(rt, xs, out, dim, "CatBackward0"),
    }
}

/// `out`, the parts `xs` joined along `dim`, with a node that gives each
/// part its slice of the gradient (`CatBackward0`; `GatherBackward`, whose
/// slices the engine then copies back to each part's device).
fn cat(
    rt: &Runtime,
    xs: &[&Tensor],
    out: Arc<Tensor>,
    dim: i64,
    name: &'static str,
) -> R<Arc<Tensor>> {
    let dim = norm_dim(dim, out.ndim())?;
    // PyTorch's cat skips 1-d empty tensors: they get no gradient slice.
    let sizes = xs
        .iter()
        .map(|t| t.shape().get(dim).copied().unwrap_or(0))
        .collect();
    let inputs: Vec<(&Tensor, bool)> = xs.iter().map(|&t| (t, false)).collect();
    Ok(attach(rt, out, name, Backward::Cat { dim, sizes }, &inputs))
}

/// `gather(xs, device, dim)` (DataParallel's last step): each part's
/// gradient is its slice of the output's, copied back to the part's
/// device (PyTorch's `GatherBackward` scatters it).
pub fn gather(
    rt: &Runtime,
    mode: Mode,
    xs: &[&Tensor],
    out: Arc<Tensor>,
    dim: i64,
) -> R<Arc<Tensor>> {
    if !recording(mode, xs) || !out.dtype().is_float() {
        return Ok(out);
    }
    cat(rt, xs, out, dim, "GatherBackward")
}

/// `softmax(x, dim)` and `log_softmax(x, dim)`: their backward needs their result.
pub fn softmax(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    out: Arc<Tensor>,
    dim: i64,
    log: bool,
) -> R<Arc<Tensor>> {
    let out = softmax_node(rt, mode, x, out, dim, log)?;
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        jvp::softmax(&mut Recording { rt, mode }, &out, t, dim, log)
    })
}

fn softmax_node(
    rt: &Runtime,
    mode: Mode,
    x: &Tensor,
    out: Arc<Tensor>,
    dim: i64,
    log: bool,
) -> R<Arc<Tensor>> {
    if !recording(mode, &[x]) || !out.dtype().is_float() {
        return Ok(out);
    }
    let dim = norm_dim(dim, x.ndim().max(1))?;
    let out_saved = Saved::output(&out);
    let (name, backward) = match log {
        true => (
            "LogSoftmaxBackward0",
            Backward::LogSoftmax {
                out: out_saved,
                dim,
            },
        ),
        false => (
            "SoftmaxBackward0",
            Backward::Softmax {
                out: out_saved,
                dim,
            },
        ),
    };
    Ok(attach(rt, out, name, backward, &[(x, false)]))
}

/// `cumprod(x, dim)`.
pub fn cumprod(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    out: Arc<Tensor>,
    dim: i64,
) -> R<Arc<Tensor>> {
    let recorded = recording(mode, &[x]);
    if !out.dtype().is_float() {
        return Ok(out);
    }
    let d = norm_dim(dim, x.ndim().max(1))?;
    let out = match recorded {
        true => {
            let backward = Backward::Cumprod {
                x: Saved::new(x),
                out: Saved::output(&out),
                dim: d,
            };
            attach(rt, out, "CumprodBackward0", backward, &[(x, false)])
        }
        false => out,
    };
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        cumprod_tangent(rt, mode, (x, t), &out, dim)
    })
}

/// `cumprod`'s tangent along `dim`: before a line's first zero, `result *
/// cumsum(t / x)`; from it on, the zero's tangent times the cumulative
/// product of the line with that zero taken as 1 (0 after a second zero),
/// the only term left of the product rule.
fn cumprod_tangent(
    rt: &mut Runtime,
    mode: Mode,
    (x, t): (&Tensor, &Arc<Tensor>),
    out: &Tensor,
    dim: i64,
) -> R<Arc<Tensor>> {
    use super::ops::{bin_s, full_like};
    if x.ndim() == 0 {
        let c = rt.copy(t)?;
        return copied(rt, mode, t, c, "CloneBackward0");
    }
    // Plain ops on the primal (no history needed), recorded ops on t.
    let zero = bin_s(rt, BinaryOp::Eq, x, 0.0)?;
    let zero_f = rt.cast(&zero, x.dtype())?;
    let seen = rt.along(AlongOp::Cumsum, 0.0, &zero_f, Some(dim), false)?;
    let before = bin_s(rt, BinaryOp::Eq, &seen, 0.0)?;
    let once = bin_s(rt, BinaryOp::Eq, &seen, 1.0)?;
    let first = super::ops::bin(rt, BinaryOp::LogicalAnd, &zero, &once)?;
    let ones = full_like(rt, x, 1)?;
    let pick = |rt: &mut Runtime, c: &Tensor, a: &Tensor, b: &Tensor| {
        rt.ternary(
            TernaryOp::Where,
            Operand::strong(c),
            Operand::strong(a),
            Operand::strong(b),
        )
    };
    let x1 = pick(rt, &first, &ones, x)?;
    let c = rt.along(AlongOp::Cumprod, 0.0, &x1, Some(dim), false)?;
    let mut o = Recording { rt, mode };
    // Before the first zero: result * cumsum(t / x) (x is x1 there).
    let ratio = o.bin(BinaryOp::Div, t, &x1)?;
    let ratio = o.masked(&before, &ratio)?;
    let sums = o.rt.along(AlongOp::Cumsum, 0.0, &ratio, Some(dim), false)?;
    let sums = cumsum(o.rt, mode, &ratio, sums, dim)?;
    let early = o.bin(BinaryOp::Mul, &sums, out)?;
    let early = o.masked(&before, &early)?;
    // From the first zero on: its tangent (spread along the line by a
    // cumulative sum of the tangent kept there only), times c.
    let tz = o.masked(&first, t)?;
    let spread = o.rt.along(AlongOp::Cumsum, 0.0, &tz, Some(dim), false)?;
    let spread = cumsum(o.rt, mode, &tz, spread, dim)?;
    let late = o.bin(BinaryOp::Mul, &spread, &c)?;
    o.bin(BinaryOp::Add, &early, &late)
}

/// `sort(x, dim)` (`topk`: `top`): the values remember where each came from.
pub fn sorted(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    (values, indices): (Arc<Tensor>, &Tensor),
    dim: i64,
    top: bool,
) -> R<Arc<Tensor>> {
    let recorded = recording(mode, &[x]);
    if !values.dtype().is_float() {
        return Ok(values);
    }
    let dim = norm_dim(dim, x.ndim().max(1))?;
    let values = match recorded {
        true => sorted_node(rt, x, (values, indices), dim, top),
        false => values,
    };
    picked_tangent(rt, mode, x, values, (dim, indices), true)
}

fn sorted_node(
    rt: &Runtime,
    x: &Tensor,
    (values, indices): (Arc<Tensor>, &Tensor),
    dim: usize,
    top: bool,
) -> Arc<Tensor> {
    let backward = Backward::Sorted {
        indices: Saved::new(indices),
        dim,
    };
    let name = if top {
        "TopkBackward0"
    } else {
        "SortBackward0"
    };
    attach(rt, values, name, backward, &[(x, false)])
}
