//! `create_graph=True`: a backward whose formulas are themselves recorded,
//! so that a gradient has a `grad_fn` and can be differentiated again (a
//! gradient penalty, a Hessian-vector product, MAML's inner step). PyTorch
//! runs its formulas in grad mode then; here a formula computes with the
//! ops below, which record when the backward's `mode` is on and are the op
//! layer's own otherwise (at the cost of one check). A saved tensor is
//! read back with the history of the edge it came by ([`unpack`], PyTorch's
//! `SavedVariable::unpack`). [`Backward::creates_graph`] says which
//! formulas are written so; the engine refuses the others by name rather
//! than hand on a gradient whose history is cut.

use std::sync::Arc;

use super::meta::{CheckedSaved, Meta};
use super::node::{Backward, Edge, Node, Origin, Saved};
use super::record;
use super::views;
use super::Mode;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `a op b`.
pub fn bin(rt: &mut Runtime, mode: Mode, op: BinaryOp, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    record::binary(rt, mode, op, Operand::strong(a), Operand::strong(b))
}

/// `a op s` with a number `s` (weak: `a`'s dtype stays).
pub fn bin_s(rt: &mut Runtime, mode: Mode, op: BinaryOp, a: &Tensor, s: f64) -> R<Arc<Tensor>> {
    let s = Tensor::scalar(s);
    record::binary(rt, mode, op, Operand::strong(a), Operand::weak(&s))
}

/// `s op a` with a number `s`.
pub fn s_bin(rt: &mut Runtime, mode: Mode, op: BinaryOp, s: f64, a: &Tensor) -> R<Arc<Tensor>> {
    let s = Tensor::scalar(s);
    record::binary(rt, mode, op, Operand::weak(&s), Operand::strong(a))
}

/// `a op s` with what a node saved as `s` (a weak operand when it was a
/// number in the program).
pub fn bin_saved(
    rt: &mut Runtime,
    mode: Mode,
    op: BinaryOp,
    a: &Tensor,
    (s, weak): (&Tensor, bool),
) -> R<Arc<Tensor>> {
    let b = Operand { tensor: s, weak };
    record::binary(rt, mode, op, Operand::strong(a), b)
}

pub fn unary(rt: &mut Runtime, mode: Mode, op: UnaryOp, x: &Tensor) -> R<Arc<Tensor>> {
    record::unary(rt, mode, op, x)
}

/// `-x`.
pub fn neg(rt: &mut Runtime, mode: Mode, x: &Tensor) -> R<Arc<Tensor>> {
    record::unary(rt, mode, UnaryOp::Neg, x)
}

/// `where(cond, a, 0)`.
pub fn masked(rt: &mut Runtime, mode: Mode, cond: &Tensor, a: &Tensor) -> R<Arc<Tensor>> {
    let zero = Tensor::scalar(0.0f64);
    let (c, z) = (Operand::strong(cond), Operand::weak(&zero));
    record::ternary(rt, mode, TernaryOp::Where, c, Operand::strong(a), z)
}

/// `where(cond, a, b)`.
pub fn pick(rt: &mut Runtime, mode: Mode, cond: &Tensor, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    let (c, a, b) = (
        Operand::strong(cond),
        Operand::strong(a),
        Operand::strong(b),
    );
    record::ternary(rt, mode, TernaryOp::Where, c, a, b)
}

/// `where(cond, a, s)` with a number `s`.
pub fn pick_s(rt: &mut Runtime, mode: Mode, cond: &Tensor, a: &Tensor, s: f64) -> R<Arc<Tensor>> {
    let s = Tensor::scalar(s);
    let (c, a, s) = (Operand::strong(cond), Operand::strong(a), Operand::weak(&s));
    record::ternary(rt, mode, TernaryOp::Where, c, a, s)
}

/// `where(cond, s, a)` with a number `s`.
pub fn s_pick(rt: &mut Runtime, mode: Mode, cond: &Tensor, s: f64, a: &Tensor) -> R<Arc<Tensor>> {
    let s = Tensor::scalar(s);
    let (c, s, a) = (Operand::strong(cond), Operand::weak(&s), Operand::strong(a));
    record::ternary(rt, mode, TernaryOp::Where, c, s, a)
}

/// `a @ b`.
pub fn matmul(rt: &mut Runtime, mode: Mode, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    record::matmul(rt, mode, a, b)
}

/// `x.mT`: the last two dims swapped (a view).
pub fn t(rt: &Runtime, mode: Mode, x: &Tensor) -> R<Arc<Tensor>> {
    if x.ndim() < 2 {
        return Err(Error::shape(format!(
            "`.mT` needs at least 2 dimensions, and this tensor has {}",
            x.ndim()
        )));
    }
    Ok(views::transpose(rt, mode, x, x.ndim() - 2, x.ndim() - 1))
}

pub fn unsqueeze(rt: &Runtime, mode: Mode, x: &Tensor, dim: i64) -> R<Arc<Tensor>> {
    views::unsqueeze(rt, mode, x, dim)
}

pub fn squeeze(rt: &Runtime, mode: Mode, x: &Tensor, dim: i64) -> R<Arc<Tensor>> {
    views::squeeze(rt, mode, x, dim)
}

/// `g` with size-1 dims put back where a reduction without `keepdim`
/// removed them (`g` itself when kept).
pub fn unsqueeze_back(
    rt: &Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    dims: &[usize],
    keepdim: bool,
) -> R<Arc<Tensor>> {
    if keepdim || dims.is_empty() {
        return Ok(Arc::clone(g));
    }
    let back = super::ops::unsqueeze_back(g, dims, keepdim)?;
    let name = "UnsqueezeBackward1";
    Ok(record::attach_node(
        rt,
        mode,
        back,
        name,
        Backward::Reshape,
        &[g],
    ))
}

/// `x.expand(shape)` (`ExpandBackward0`).
pub fn expand(rt: &Runtime, mode: Mode, x: &Tensor, shape: &[usize]) -> Arc<Tensor> {
    let out = Arc::new(x.expand(shape));
    record::attach_node(rt, mode, out, "ExpandBackward0", Backward::Expand, &[x])
}

/// `x.reshape(shape)`.
pub fn reshape(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, shape: &[usize]) -> R<Arc<Tensor>> {
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    views::reshape(rt, mode, x, &dims)
}

/// `x.sum(dim, keepdim=True)`.
pub fn sum_keep(rt: &mut Runtime, mode: Mode, x: &Tensor, dim: i64) -> R<Arc<Tensor>> {
    record::reduce(rt, mode, ReduceOp::Sum, x, Some(dim), true)
}

/// `g` summed down to `shape` (the dims broadcasting added or stretched):
/// PyTorch's `sum_to`, a `SumBackward1` and a view when recorded.
pub fn sum_to(rt: &mut Runtime, mode: Mode, g: &Arc<Tensor>, shape: &[usize]) -> R<Arc<Tensor>> {
    if g.shape() == shape {
        return Ok(Arc::clone(g));
    }
    let lead = g.ndim().saturating_sub(shape.len());
    let mut dims: Vec<i64> = (0..lead as i64).collect();
    for (k, &n) in shape.iter().enumerate() {
        if n == 1 && g.shape().get(lead + k).is_some_and(|&m| m != 1) {
            dims.push((lead + k) as i64);
        }
    }
    let summed = match dims.is_empty() {
        true => Arc::clone(g),
        false => record::reduce_dims(rt, mode, ReduceOp::Sum, g, &dims, true)?,
    };
    reshape(rt, mode, &summed, shape)
}

/// A copy of `x` as `AccumulateGrad` makes a leaf's first `.grad` in
/// grad mode (`CopyBackwards`).
pub fn copy_of(rt: &mut Runtime, mode: Mode, x: &Tensor) -> R<Arc<Tensor>> {
    let out = rt.copy(x)?;
    let node = ("CopyBackwards", Backward::Identity);
    Ok(record::attach_node(rt, mode, out, node.0, node.1, &[x]))
}

/// `x.flip(dims)` (a copy, `FlipBackward0`).
pub fn flip(rt: &mut Runtime, mode: Mode, x: &Tensor, dims: &[i64]) -> R<Arc<Tensor>> {
    let out = rt.copy(&crate::runtime::op::view::flipped(x, dims)?)?;
    let backward = Backward::Flip {
        dims: dims.to_vec(),
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "FlipBackward0",
        backward,
        &[x],
    ))
}

/// `x` in `dtype` (`ToCopyBackward0`).
pub fn cast(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    dtype: crate::runtime::DType,
) -> R<Arc<Tensor>> {
    let out = rt.cast(x, dtype)?;
    let node = ("ToCopyBackward0", Backward::Identity);
    Ok(record::attach_node(rt, mode, out, node.0, node.1, &[x]))
}

/// `x` on `device` (`ToCopyBackward0`).
pub fn copy_to(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    device: crate::runtime::Device,
) -> R<Arc<Tensor>> {
    let out = rt.copy_to(x, device)?;
    let node = ("ToCopyBackward0", Backward::Identity);
    Ok(record::attach_node(rt, mode, out, node.0, node.1, &[x]))
}

/// `g[items]`: a view by basic indexing (`SliceBackward0`,
/// `SelectBackward0`, ...), a copy by advanced (`IndexBackward0`).
pub fn select(rt: &mut Runtime, mode: Mode, g: &Arc<Tensor>, items: &[Index]) -> R<Arc<Tensor>> {
    let out = rt.index(g, items)?;
    record::index(rt, mode, g, out, items)
}

/// `zeros`, into which `g` was written (added, where indices repeat)
/// where `items` pick (the gradient of indexing's node, named `of`),
/// recorded as depending on `g` (`Backward::Placed`, PyTorch's
/// `SliceBackwardBackward0`, `IndexPutImplBackward0`).
pub fn placed(
    rt: &Runtime,
    mode: Mode,
    zeros: Arc<Tensor>,
    g: &Tensor,
    (of, items): (&str, &[Index]),
) -> Arc<Tensor> {
    let name = match of {
        "SelectBackward0" => "SelectBackwardBackward0",
        "UnsqueezeBackward0" => "UnsqueezeBackwardBackward0",
        "IndexBackward0" => "IndexPutImplBackward0",
        "EmbeddingBackward0" => "EmbeddingDenseBackwardBackward0",
        _ => "SliceBackwardBackward0",
    };
    let backward = Backward::Placed {
        items: items.to_vec(),
    };
    record::attach_node(rt, mode, zeros, name, backward, &[g])
}

/// `out`, a formula's result computed with a mask of `of` (flat in it),
/// recorded as depending on `of` with a zero gradient (`Backward::Flat`,
/// named `name` after PyTorch's node), so that it requires grad when `of`
/// does and a backward through it gives `of` zeros, as PyTorch's does.
pub use super::record::flat;

/// What `node` saved as `s`, for a formula (input `k` of the node when it
/// saved an input): when the backward creates a graph, with the history
/// of the edge it came by (the node itself for its own output), so that
/// the formula's ops record through it; else as saved. Checked unchanged
/// since saved, as every read of a saved tensor is.
pub fn unpack(s: &Saved, node: &Arc<Node>, k: usize, mode: Mode) -> R<Arc<Tensor>> {
    let t = &s.get(node.name)?;
    if !mode.enabled || s.weak {
        return Ok(Arc::clone(t));
    }
    let source = match &s.origin {
        Origin::Output(_) => Source::Output(0),
        Origin::Input(_) => Source::Input(k),
    };
    Ok(with_history(t, node, source))
}

/// Which of a node's tensors a saved one is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Source {
    /// Input `k` (its gradient goes along the node's edge `k`).
    Input(usize),
    /// Output `k` of the node itself.
    Output(usize),
}

/// `t`, a tensor `node` saved (as an alias without history), given the
/// history it had: the edge of input `k`, or the node's own output.
pub fn with_history(t: &Tensor, node: &Arc<Node>, source: Source) -> Arc<Tensor> {
    let meta = match source {
        Source::Output(k) => Meta::output_of(Arc::clone(node), k, None),
        Source::Input(k) => match node.next.get(k) {
            Some(Edge::Node(n, out)) => Meta::output_of(Arc::clone(n), *out, None),
            Some(Edge::Leaf(cell)) => Meta::leaf_of(Arc::clone(cell)),
            _ => return Arc::new(t.alias()),
        },
    };
    record::with_meta(Arc::new(t.alias()), meta)
}

impl Backward {
    /// Whether this node's formula records its ops when the backward
    /// creates a graph (`create_graph=True`), so its gradients can be
    /// differentiated again.
    pub fn creates_graph(&self) -> bool {
        match self {
            Backward::Add
            | Backward::Sub
            | Backward::Neg
            | Backward::Mul { .. }
            | Backward::Div { .. }
            | Backward::PowScalar { .. }
            | Backward::Pow { .. }
            | Backward::ScalarPow { .. }
            | Backward::Remainder { .. }
            | Backward::Extremum { .. }
            | Backward::Extreme { .. }
            | Backward::Clamp { .. }
            | Backward::Reciprocal { .. }
            | Backward::Unary { .. }
            | Backward::Zero
            | Backward::Flat
            | Backward::Sum { .. }
            | Backward::Mean { .. }
            | Backward::Var { .. }
            | Backward::VarMean { .. }
            | Backward::Norm { .. }
            | Backward::Reshape
            | Backward::Transpose { .. }
            | Backward::Permute { .. }
            | Backward::Expand
            | Backward::Identity
            | Backward::Select { .. }
            | Backward::SelectReduce { .. }
            | Backward::ConstantPad { .. }
            | Backward::Im2Col { .. }
            | Backward::MaxUnpool { .. }
            | Backward::Col2Im { .. }
            | Backward::Cumsum { .. }
            | Backward::Amax { .. }
            | Backward::Logsumexp { .. }
            | Backward::Flip { .. }
            | Backward::Roll { .. }
            | Backward::Repeat { .. }
            | Backward::Index { .. }
            | Backward::Split { .. }
            | Backward::Placed { .. }
            | Backward::Cat { .. }
            | Backward::Stack { .. }
            | Backward::MatMul { .. }
            | Backward::Addmm { .. }
            | Backward::Where { .. }
            | Backward::MaskedFill { .. }
            | Backward::ClampOne { .. }
            | Backward::Softmax { .. }
            | Backward::LogSoftmax { .. }
            | Backward::MseLoss { .. }
            | Backward::PointwiseLoss { .. }
            | Backward::NllLoss { .. }
            | Backward::NativeDropout { .. } => true,
            Backward::Activation { .. }
            | Backward::LayerNorm { .. }
            | Backward::GroupNorm { .. }
            | Backward::BatchNorm { .. }
            | Backward::MaxPool { .. }
            | Backward::AvgPool { .. }
            | Backward::Pooled { .. } => true,
            Backward::Convolution {
                transposed, geom, ..
            } => !transposed && geom.groups == 1,
            _ => false,
        }
    }
}

/// The error for a node whose formula does not record yet.
pub fn refused(name: &str) -> Error {
    Error::Autograd {
        message: format!(
            "create_graph=True: cudash cannot differentiate {name}'s gradient yet (its formula \
             is not recorded), so the gradient would have no history through it"
        ),
        help: "docs/training.md (\"Gradients of gradients\") lists the formulas that record \
               so far; compute without create_graph if no second derivative is needed"
            .into(),
    }
}
