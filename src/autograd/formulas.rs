//! Each node's backward: the gradients of its inputs from the gradient of
//! its output, computed with the op layer's ops (so on sim, emu and cuda
//! alike), as PyTorch's `derivatives.yaml` gives them. The engine then
//! gives each gradient its input's shape, dtype and device.

use std::sync::Arc;

use super::create_graph as cg;
use super::diagonals;
use super::losses::Reduction;
use super::meta::CheckedSaved;
use super::node::{Backward, Grads, Node, Saved};
use super::ops::{add_into_zeros, bin, bin_s, full};
use super::parts;
use super::pointwise_grad;
use super::reductions;
use super::slices;
use super::views;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::op::view;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// Which inputs of `node` need a gradient.
fn wants(node: &Node, k: usize) -> bool {
    node.wants(k)
}

/// `g` with size-1 dims put back where a reduction without `keepdim`
/// removed them, then expanded to `shape` (views).
fn expand_back(
    rt: &Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (dims, keepdim): (&[usize], bool),
    shape: &[usize],
) -> R<Arc<Tensor>> {
    let back = cg::unsqueeze_back(rt, mode, g, dims, keepdim)?;
    Ok(cg::expand(rt, mode, &back, shape))
}

impl Backward {
    /// The gradients of a node's inputs from its outputs' (one of `gs` per
    /// output, `None` where no gradient arrived): the nodes with several
    /// outputs in `parts.rs`, the others by [`Backward::apply`].
    pub fn apply_outputs(
        &self,
        rt: &mut Runtime,
        (node, mode): (&Arc<Node>, Mode),
        gs: &[Option<Arc<Tensor>>],
    ) -> R<Grads> {
        let input = &node.inputs[0];
        match self {
            Backward::Split {
                dim,
                sizes,
                stacked,
            } => parts::split(rt, mode, input, gs, (*dim, sizes, *stacked)),
            Backward::Scatter { dim, parts } => parts::gather(rt, input, gs, (*dim, parts)),
            Backward::Broadcast => parts::reduce_add(rt, input, gs),
            Backward::VarMean { var, count } => {
                let Backward::Var { dims, keepdim, .. } = &**var else {
                    return Err(Error::Autograd {
                        message: format!("{} keeps no variance", node.name),
                        help: "this is a bug in cudash's autograd".into(),
                    });
                };
                let mut total = match gs.first() {
                    Some(Some(g)) => var.apply(rt, (node, mode), g)?.swap_remove(0),
                    _ => None,
                };
                if let Some(Some(g)) = gs.get(1) {
                    let all: Vec<usize> = (0..input.shape.len()).collect();
                    let dims = dims.as_deref().unwrap_or(&all);
                    let e = expand_back(rt, mode, g, (dims, *keepdim), &input.shape)?;
                    let part = cg::bin_s(rt, mode, BinaryOp::Div, &e, *count as f64)?;
                    total = Some(match total {
                        Some(t) => cg::bin(rt, mode, BinaryOp::Add, &t, &part)?,
                        None => part,
                    });
                }
                Ok(vec![total])
            }
            Backward::BroadcastCoalesced { devices } => {
                super::coalesced::reduce_add_backward(rt, node, devices, gs)
            }
            _ => match gs {
                [Some(g)] => self.apply(rt, (node, mode), g),
                _ => Err(Error::Autograd {
                    message: format!("{} has one output, given {} gradients", node.name, gs.len()),
                    help: "this is a bug in cudash's autograd".into(),
                }),
            },
        }
    }

    /// The gradients of the node's inputs (one per edge; `None` where no
    /// gradient is wanted) from `g`, the gradient of its output; the
    /// formulas [`Backward::creates_graph`] names record their ops when
    /// `mode` is on (`create_graph=True`).
    pub fn apply(
        &self,
        rt: &mut Runtime,
        (node, mode): (&Arc<Node>, Mode),
        g: &Arc<Tensor>,
    ) -> R<Grads> {
        let name = node.name;
        let shape_of = |k: usize| node.inputs[k].shape.clone();
        Ok(match self {
            Backward::Add => vec![Some(Arc::clone(g)), Some(Arc::clone(g))],
            Backward::Sub => {
                let gb = match wants(node, 1) {
                    true => Some(cg::neg(rt, mode, g)?),
                    false => None,
                };
                vec![Some(Arc::clone(g)), gb]
            }
            Backward::Mul { a, b } => {
                let mul = |rt: &mut Runtime, s: &Saved, k: usize| {
                    let t = cg::unpack(s, node, k, mode)?;
                    cg::bin_saved(rt, mode, BinaryOp::Mul, g, (&t, s.weak))
                };
                let ga = match b {
                    Some(b) if wants(node, 0) => Some(mul(rt, b, 1)?),
                    _ => None,
                };
                let gb = match a {
                    Some(a) if wants(node, 1) => Some(mul(rt, a, 0)?),
                    _ => None,
                };
                vec![ga, gb]
            }
            Backward::Div { a, b } => {
                let bt = cg::unpack(b, node, 1, mode)?;
                let ga = match wants(node, 0) {
                    true => Some(cg::bin_saved(rt, mode, BinaryOp::Div, g, (&bt, b.weak))?),
                    false => None,
                };
                // -g * ((a / b) / b), in PyTorch's order.
                let gb = match a {
                    Some(a) if wants(node, 1) => {
                        let at = cg::unpack(a, node, 0, mode)?;
                        let q = record::binary(
                            rt,
                            mode,
                            BinaryOp::Div,
                            Operand {
                                tensor: &at,
                                weak: a.weak,
                            },
                            Operand::strong(&bt),
                        )?;
                        let q = cg::bin(rt, mode, BinaryOp::Div, &q, &bt)?;
                        let neg = cg::neg(rt, mode, g)?;
                        Some(cg::bin(rt, mode, BinaryOp::Mul, &neg, &q)?)
                    }
                    _ => None,
                };
                vec![ga, gb]
            }
            Backward::Remainder { a, b, trunc } => {
                let gb = match (a, b) {
                    (Some(a), Some(b)) if wants(node, 1) => {
                        let (a, b) = (a.get(name)?, b.get(name)?);
                        let q = match trunc {
                            true => {
                                let d = cg::bin(rt, mode, BinaryOp::Div, &a, &b)?;
                                cg::unary(rt, mode, UnaryOp::Trunc, &d)?
                            }
                            false => cg::bin(rt, mode, BinaryOp::FloorDiv, &a, &b)?,
                        };
                        let neg = cg::unary(rt, mode, UnaryOp::Neg, g)?;
                        Some(cg::bin(rt, mode, BinaryOp::Mul, &neg, &q)?)
                    }
                    _ => None,
                };
                vec![Some(Arc::clone(g)), gb]
            }
            Backward::PowScalar { x, e } => {
                let x = cg::unpack(x, node, 0, mode)?;
                let gx = if *e == 0.0 {
                    cg::bin_s(rt, mode, BinaryOp::Mul, g, 0.0)?
                } else {
                    // grad * (e * x ** (e - 1))
                    let p = cg::bin_s(rt, mode, BinaryOp::Pow, &x, e - 1.0)?;
                    let d = cg::s_bin(rt, mode, BinaryOp::Mul, *e, &p)?;
                    cg::bin(rt, mode, BinaryOp::Mul, g, &d)?
                };
                vec![Some(gx), None]
            }
            Backward::Pow { x, y, out } => {
                let (xs, ys) = (
                    &cg::unpack(x, node, 0, mode)?,
                    &cg::unpack(y, node, 1, mode)?,
                );
                let gx = match wants(node, 0) {
                    true => {
                        // grad * (y * x ** (y - 1)), 0 where y == 0.
                        let y1 = cg::bin_s(rt, mode, BinaryOp::Sub, ys, 1.0)?;
                        let p = cg::bin(rt, mode, BinaryOp::Pow, xs, &y1)?;
                        let d = cg::bin(rt, mode, BinaryOp::Mul, ys, &p)?;
                        let full = cg::bin(rt, mode, BinaryOp::Mul, g, &d)?;
                        let nonzero = cg::bin_s(rt, mode, BinaryOp::Ne, ys, 0.0)?;
                        Some(cg::masked(rt, mode, &nonzero, &full)?)
                    }
                    false => None,
                };
                let gy = match out {
                    Some(out) if wants(node, 1) => {
                        // grad * (out * log(x)), 0 where x == 0 and y >= 0.
                        let log = cg::unary(rt, mode, UnaryOp::Log, xs)?;
                        let out = cg::unpack(out, node, 0, mode)?;
                        let d = cg::bin(rt, mode, BinaryOp::Mul, &out, &log)?;
                        let full = cg::bin(rt, mode, BinaryOp::Mul, g, &d)?;
                        let x0 = cg::bin_s(rt, mode, BinaryOp::Eq, xs, 0.0)?;
                        let y0 = cg::bin_s(rt, mode, BinaryOp::Ge, ys, 0.0)?;
                        let both = cg::bin(rt, mode, BinaryOp::LogicalAnd, &x0, &y0)?;
                        let keep = cg::unary(rt, mode, UnaryOp::BitNot, &both)?;
                        Some(cg::masked(rt, mode, &keep, &full)?)
                    }
                    _ => None,
                };
                vec![gx, gy]
            }
            Backward::ScalarPow { e, out } => {
                // grad * (out * log(e)), 0 where e == 0 (PyTorch's masking).
                let out = cg::unpack(out, node, 1, mode)?;
                let gx = if *e == 0.0 {
                    cg::bin_s(rt, mode, BinaryOp::Mul, g, 0.0)?
                } else {
                    let d = cg::bin_s(rt, mode, BinaryOp::Mul, &out, e.ln())?;
                    cg::bin(rt, mode, BinaryOp::Mul, g, &d)?
                };
                vec![None, Some(gx)]
            }
            Backward::Neg => vec![Some(cg::neg(rt, mode, g)?)],
            Backward::Reciprocal { out } => {
                // -g * (out * out)
                let out = cg::unpack(out, node, 1, mode)?;
                let sq = cg::bin(rt, mode, BinaryOp::Mul, &out, &out)?;
                let neg = cg::neg(rt, mode, g)?;
                vec![None, Some(cg::bin(rt, mode, BinaryOp::Mul, &neg, &sq)?)]
            }
            Backward::Unary { op, saved } => {
                let s = cg::unpack(saved, node, 0, mode)?;
                vec![Some(unary(rt, mode, *op, g, &s)?)]
            }
            Backward::Zero => vec![Some(cg::bin_s(rt, mode, BinaryOp::Mul, g, 0.0)?)],
            Backward::Flat => {
                let of = &node.inputs[1];
                vec![
                    Some(Arc::clone(g)),
                    Some(full(rt, &of.shape, of.dtype, of.device, 0)?),
                ]
            }
            Backward::Sum { dims, keepdim } => {
                vec![Some(expand_back(
                    rt,
                    mode,
                    g,
                    (dims, *keepdim),
                    &shape_of(0),
                )?)]
            }
            Backward::Mean {
                dims,
                keepdim,
                count,
            } => {
                let e = expand_back(rt, mode, g, (dims, *keepdim), &shape_of(0))?;
                vec![Some(cg::bin_s(rt, mode, BinaryOp::Div, &e, *count as f64)?)]
            }
            Backward::Split { .. }
            | Backward::Scatter { .. }
            | Backward::Broadcast
            | Backward::VarMean { .. }
            | Backward::BroadcastCoalesced { .. } => {
                return self.apply_outputs(rt, (node, mode), &[Some(Arc::clone(g))]);
            }
            Backward::Select { items } => {
                let input = &node.inputs[0];
                let g = match g.device() == input.device {
                    true => Arc::clone(g),
                    false => cg::copy_to(rt, mode, g, input.device)?,
                };
                let zeros = full(rt, &input.shape, g.dtype(), input.device, 0)?;
                let view = crate::runtime::op::index::select(&zeros, items)?;
                rt.assign(&view, &g)?;
                vec![Some(cg::placed(rt, mode, zeros, &g, (node.name, items)))]
            }
            Backward::Placed { items } => vec![Some(cg::select(rt, mode, g, items)?)],
            Backward::Extremum { a, b, max } => {
                let (a, b) = (&a.get(name)?, &b.get(name)?);
                // where(a == b, g / 2, g), then 0 where the other wins.
                let half = cg::bin_s(rt, mode, BinaryOp::Div, g, 2.0)?;
                let tie = cg::bin(rt, mode, BinaryOp::Eq, a, b)?;
                let base = cg::pick(rt, mode, &tie, &half, g)?;
                let (lose_a, lose_b) = match max {
                    true => (BinaryOp::Lt, BinaryOp::Gt),
                    false => (BinaryOp::Gt, BinaryOp::Lt),
                };
                let mut out = Vec::new();
                for (k, lose) in [(0, lose_a), (1, lose_b)] {
                    out.push(match wants(node, k) {
                        true => {
                            let lost = cg::bin(rt, mode, lose, a, b)?;
                            let keep = cg::unary(rt, mode, UnaryOp::BitNot, &lost)?;
                            Some(cg::masked(rt, mode, &keep, &base)?)
                        }
                        false => None,
                    });
                }
                out
            }
            Backward::ClampOne { x, bound, min } => {
                // PyTorch 2's subgradient at a number bound is 0: strictly inside.
                let (x, m) = (&x.get(name)?, &bound.get(name)?);
                let op = if *min { BinaryOp::Gt } else { BinaryOp::Lt };
                let keep = rt.binary(
                    op,
                    Operand::strong(x),
                    Operand {
                        tensor: m,
                        weak: bound.weak,
                    },
                )?;
                vec![Some(cg::masked(rt, mode, &keep, g)?), None]
            }
            Backward::Clamp { x, lo, hi } => {
                let (xs, l, h) = (&x.get(name)?, &lo.get(name)?, &hi.get(name)?);
                let (lo_op, hi_op) = (
                    Operand {
                        tensor: l,
                        weak: lo.weak,
                    },
                    Operand {
                        tensor: h,
                        weak: hi.weak,
                    },
                );
                // Number bounds: the gradient strictly inside (PyTorch 2's
                // subgradient 0 at a bound). Tensor bounds: a tie with a
                // bound shares the gradient half and half, as maximum and
                // minimum do.
                if lo.weak && hi.weak {
                    let gt = rt.binary(BinaryOp::Gt, Operand::strong(xs), lo_op)?;
                    let lt = rt.binary(BinaryOp::Lt, Operand::strong(xs), hi_op)?;
                    let inside = cg::bin(rt, mode, BinaryOp::LogicalAnd, &gt, &lt)?;
                    return Ok(vec![Some(cg::masked(rt, mode, &inside, g)?), None, None]);
                }
                let share =
                    |rt: &mut Runtime, past: BinaryOp, a: &Tensor, b: &Tensor| -> R<Arc<Tensor>> {
                        // 1 where `a past b`, 0.5 where equal, else 0 (in g's dtype).
                        let p = cg::bin(rt, mode, past, a, b)?;
                        let p = rt.cast(&p, g.dtype())?;
                        let e = cg::bin(rt, mode, BinaryOp::Eq, a, b)?;
                        let e = rt.cast(&e, g.dtype())?;
                        let e = cg::bin_s(rt, mode, BinaryOp::Mul, &e, 0.5)?;
                        cg::bin(rt, mode, BinaryOp::Add, &p, &e)
                    };
                let scaled = |rt: &mut Runtime, f: &Tensor| -> R<Arc<Tensor>> {
                    let on = cg::bin_s(rt, mode, BinaryOp::Ne, f, 0.0)?;
                    let gf = cg::bin(rt, mode, BinaryOp::Mul, g, f)?;
                    cg::masked(rt, mode, &on, &gf)
                };
                let above_lo = share(rt, BinaryOp::Gt, xs, l)?;
                let below_hi = share(rt, BinaryOp::Lt, xs, h)?;
                let fx = cg::bin(rt, mode, BinaryOp::Mul, &above_lo, &below_hi)?;
                let gx = Some(scaled(rt, &fx)?);
                let gl = match wants(node, 1) {
                    true => {
                        let f = share(rt, BinaryOp::Lt, xs, l)?;
                        Some(scaled(rt, &f)?)
                    }
                    false => None,
                };
                let gh = match wants(node, 2) {
                    true => {
                        let f = share(rt, BinaryOp::Gt, xs, h)?;
                        Some(scaled(rt, &f)?)
                    }
                    false => None,
                };
                vec![gx, gl, gh]
            }
            Backward::Where { cond } => {
                let cond = &cond.get(name)?;
                let gx = match wants(node, 1) {
                    true => Some(cg::masked(rt, mode, cond, g)?),
                    false => None,
                };
                let gy = match wants(node, 2) {
                    true => {
                        let not = rt.unary(UnaryOp::BitNot, cond)?;
                        Some(cg::masked(rt, mode, &not, g)?)
                    }
                    false => None,
                };
                vec![None, gx, gy]
            }
            Backward::MaskedFill { mask } => {
                let mask = &mask.get(name)?;
                let gx = match wants(node, 0) {
                    true => {
                        let not = rt.unary(UnaryOp::BitNot, mask)?;
                        Some(cg::masked(rt, mode, &not, g)?)
                    }
                    false => None,
                };
                let gv = match wants(node, 1) {
                    true => Some(cg::masked(rt, mode, mask, g)?),
                    false => None,
                };
                vec![gx, gv]
            }
            Backward::Cat { dim, sizes } => {
                let mut start = 0i64;
                let mut out = Vec::new();
                for &n in sizes {
                    let mut items = vec![Index::Slice(None, None, None); *dim];
                    items.push(Index::Slice(Some(start), Some(start + n as i64), None));
                    out.push(Some(cg::select(rt, mode, g, &items)?));
                    start += n as i64;
                }
                out
            }
            Backward::Stack { dim } => (0..node.inputs.len())
                .map(|k| {
                    let mut items = vec![Index::Slice(None, None, None); *dim];
                    items.push(Index::At(k as i64));
                    cg::select(rt, mode, g, &items).map(Some)
                })
                .collect::<R<Grads>>()?,
            Backward::Extreme { x, out } => {
                // mask * (g / mask.sum()), NaNs matching NaNs.
                let (x, out) = (&x.get(name)?, &out.get(name)?);
                let eq = cg::bin(rt, mode, BinaryOp::Eq, x, out)?;
                let xn = cg::bin(rt, mode, BinaryOp::Ne, x, x)?;
                let on = cg::bin(rt, mode, BinaryOp::Ne, out, out)?;
                let nan = cg::bin(rt, mode, BinaryOp::LogicalAnd, &xn, &on)?;
                let mask = cg::bin(rt, mode, BinaryOp::LogicalOr, &eq, &nan)?;
                let count = rt.reduce(ReduceOp::Sum, &mask, None, false)?;
                let share = cg::bin(rt, mode, BinaryOp::Div, g, &count)?;
                let share = rt.cast(&share, g.dtype())?;
                vec![Some(cg::bin(rt, mode, BinaryOp::Mul, &mask, &share)?)]
            }
            Backward::MseLoss { x, y, reduction } => {
                // norm * (x - y) * g, norm = 2 / numel for a mean.
                let (x, y) = (cg::unpack(x, node, 0, mode)?, cg::unpack(y, node, 1, mode)?);
                let norm = match reduction {
                    Reduction::Mean => 2.0 / x.numel() as f64,
                    Reduction::Sum | Reduction::None => 2.0,
                };
                let d = cg::bin(rt, mode, BinaryOp::Sub, &x, &y)?;
                let scaled = cg::s_bin(rt, mode, BinaryOp::Mul, norm, &d)?;
                let gx = cg::bin(rt, mode, BinaryOp::Mul, &scaled, g)?;
                let gy = match wants(node, 1) {
                    true => Some(cg::neg(rt, mode, &gx)?),
                    false => None,
                };
                vec![Some(gx), gy]
            }
            Backward::PointwiseLoss {
                kind,
                x,
                y,
                weight,
                pos_weight,
                reduction,
            } => {
                let weight = weight.as_ref().map(|w| w.get(name)).transpose()?;
                let pos_weight = pos_weight.as_ref().map(|w| w.get(name)).transpose()?;
                let weights = super::pointwise_losses::Weights {
                    weight: weight.as_deref(),
                    pos_weight: pos_weight.as_deref(),
                };
                let (x, y) = (cg::unpack(x, node, 0, mode)?, cg::unpack(y, node, 1, mode)?);
                super::pointwise_losses::backward(
                    rt,
                    mode,
                    (*kind, *reduction),
                    (&x, &y),
                    weights,
                    (g, wants(node, 1)),
                )?
                .into()
            }
            Backward::NllLoss {
                target,
                valid,
                weight,
                weighted,
                reduction,
            } => {
                let (target, valid) = (&target.get(name)?, &valid.get(name)?);
                let input = &node.inputs[0];
                // -(g / total) for a mean, -g for a sum, at each counted row.
                let per = match reduction {
                    Reduction::Mean => cg::bin(rt, mode, BinaryOp::Div, g, &*weight.get(name)?)?,
                    // None: each row's own gradient.
                    Reduction::Sum | Reduction::None => Arc::clone(g),
                };
                let per = cg::neg(rt, mode, &per)?;
                let per = match weighted {
                    true => cg::bin(rt, mode, BinaryOp::Mul, &per, valid)?,
                    false => per,
                };
                let counted = bin_s(rt, BinaryOp::Ne, valid, 0.0)?;
                let rows = cg::masked(rt, mode, &counted, &per)?;
                let rows = cg::unsqueeze(rt, mode, &rows, 1)?;
                let c = input.shape[1] as f64;
                let classes = rt.arange(0.0, c, 1.0, crate::runtime::DType::I64, input.device)?;
                let picks = Arc::new(view::unsqueeze(target, 1)?);
                let onehot = bin(rt, BinaryOp::Eq, &classes, &picks)?;
                vec![Some(cg::masked(rt, mode, &onehot, &rows)?)]
            }
            Backward::MatMul { a, b, columns } => {
                matmul(rt, (node, mode), g, (a.as_ref(), b.as_ref()), *columns)?
            }
            Backward::Reshape => vec![Some(cg::reshape(rt, mode, g, &shape_of(0))?)],
            Backward::Transpose { d0, d1 } => {
                vec![Some(views::transpose(rt, mode, g, *d0, *d1))]
            }
            Backward::Permute { dims } => {
                let mut inverse = vec![0usize; dims.len()];
                for (k, &d) in dims.iter().enumerate() {
                    inverse[d] = k;
                }
                vec![Some(views::permute(rt, mode, g, &inverse)?)]
            }
            Backward::Expand | Backward::Identity => vec![Some(Arc::clone(g))],
            Backward::Softmax { out, dim } => {
                // (g - sum(g * y, dim)) * y
                let y = cg::unpack(out, node, 0, mode)?;
                let gy = cg::bin(rt, mode, BinaryOp::Mul, g, &y)?;
                let s = cg::sum_keep(rt, mode, &gy, *dim as i64)?;
                let d = cg::bin(rt, mode, BinaryOp::Sub, g, &s)?;
                vec![Some(cg::bin(rt, mode, BinaryOp::Mul, &d, &y)?)]
            }
            Backward::Amax {
                x,
                out,
                dims,
                keepdim,
            } => vec![Some(super::blends::amax_backward(
                rt,
                mode,
                g,
                (&*x.get(name)?, &*out.get(name)?),
                (dims, *keepdim),
            )?)],
            Backward::Logsumexp {
                x,
                out,
                dims,
                keepdim,
            } => {
                let (x, out) = (
                    cg::unpack(x, node, 0, mode)?,
                    cg::unpack(out, node, 0, mode)?,
                );
                let how = (&dims[..], *keepdim);
                vec![Some(super::blends::logsumexp_backward(
                    rt,
                    mode,
                    g,
                    (&x, &out),
                    how,
                )?)]
            }
            Backward::Addc { t1, t2, value, div } => {
                let t1 = t1.as_ref().map(|t| t.get(name)).transpose()?;
                let t2 = t2.as_ref().map(|t| t.get(name)).transpose()?;
                let [g1, g2] = super::blends::addc_backward(
                    rt,
                    g,
                    (t1.as_deref(), t2.as_deref()),
                    (*value, *div),
                    [wants(node, 1), wants(node, 2)],
                )?;
                vec![Some(Arc::clone(g)), g1, g2]
            }
            Backward::Lerp {
                weight,
                number,
                ends,
            } => {
                let w = weight.as_ref().map(|t| t.get(name)).transpose()?;
                let ends = match ends {
                    Some((a, b)) => Some((&a.get(name)?, &b.get(name)?)),
                    None => None,
                };
                super::blends::lerp_backward(
                    rt,
                    g,
                    w.as_deref(),
                    *number,
                    ends.as_ref().map(|(a, b)| (&***a, &***b)),
                    [
                        wants(node, 0),
                        wants(node, 1),
                        node.inputs.len() > 2 && wants(node, 2),
                    ],
                )?
            }
            Backward::ConstantPad { pads } => {
                vec![Some(super::pad::pad_backward(rt, mode, g, pads)?)]
            }
            Backward::AdaptiveAvg { windows, input } => {
                vec![Some(super::adaptive::adaptive_avg_backward(
                    rt, g, windows, input,
                )?)]
            }
            Backward::AdaptiveMax { which, input } => {
                let which = &which.get(name)?;
                vec![Some(super::adaptive::adaptive_max_backward(
                    rt, g, which, input,
                )?)]
            }
            Backward::MaxUnpool { which } => {
                let which = &which.get(name)?;
                vec![Some(super::conv::at_places(rt, mode, g, which)?)]
            }
            Backward::Im2Col { size, win } => {
                vec![Some(super::fold::fold(rt, mode, g, *size, *win)?)]
            }
            Backward::Col2Im { win } => vec![Some(super::fold::unfold(rt, mode, g, *win)?)],
            Backward::PixelShuffle { r, inverse } => {
                vec![Some(super::pixel_shuffle::shuffled(rt, g, *r, !*inverse)?)]
            }
            Backward::Upsample { taps } => {
                let input = &node.inputs[0];
                let gx =
                    super::upsample::upsample_backward(rt, g, &input.shape, input.device, taps)?;
                vec![Some(gx)]
            }
            Backward::GatherAlong { offsets } => vec![Some(super::scatter::gather_backward(
                rt,
                g,
                &node.inputs[0].shape,
                offsets,
            )?)],
            Backward::ScatterAlong { offsets, add } => {
                let wants_src = node.inputs.len() > 1 && wants(node, 1);
                let (gx, gsrc) = super::scatter::scatter_backward(rt, g, offsets, *add, wants_src)?;
                vec![Some(gx), gsrc]
            }
            Backward::Index { items, padding_idx } => {
                let input = &node.inputs[0];
                // Embedding's padding row: its picks' gradients are left out.
                let masked;
                let g = match (padding_idx, items.first()) {
                    (Some(p), Some(Index::Tensor(indices))) => {
                        let keep = bin_s(rt, BinaryOp::Ne, indices, *p as f64)?;
                        let keep = rt.cast(&keep, g.dtype())?;
                        let keep = view::unsqueeze(&keep, -1)?;
                        masked = cg::bin(rt, mode, BinaryOp::Mul, g, &keep)?;
                        &masked
                    }
                    _ => g,
                };
                let gx = add_into_zeros(rt, &input.shape, g.device(), items, g)?;
                vec![Some(cg::placed(rt, mode, gx, g, (name, items)))]
            }
            Backward::Sorted { indices, dim } => {
                let idx = &indices.get(name)?;
                let shape = shape_of(0);
                vec![Some(reductions::scatter_along(rt, g, idx, &shape, *dim)?)]
            }
            Backward::Cumprod { x, out, dim } => {
                let (x, out) = (&x.get(name)?, &out.get(name)?);
                vec![Some(reductions::cumprod(rt, g, x, out, *dim)?)]
            }
            Backward::SelectReduce {
                indices,
                dim,
                keepdim,
            } => {
                let shape = shape_of(0);
                let idx = &indices.get(name)?;
                vec![Some(reductions::select_reduce(
                    rt,
                    mode,
                    g,
                    idx,
                    (&shape, *dim, *keepdim),
                )?)]
            }
            Backward::Prod {
                x,
                out,
                dim,
                keepdim,
            } => {
                let (x, out) = (&x.get(name)?, &out.get(name)?);
                vec![Some(reductions::prod(rt, g, x, out, *dim, *keepdim)?)]
            }
            Backward::Var {
                x,
                std,
                dims,
                correction,
                keepdim,
            } => {
                let x = cg::unpack(x, node, 0, mode)?;
                let std = std
                    .as_ref()
                    .map(|s| cg::unpack(s, node, 0, mode))
                    .transpose()?;
                let how = (dims.as_deref(), *correction, *keepdim);
                vec![Some(reductions::var(rt, mode, g, (&x, std.as_ref()), how)?)]
            }
            Backward::Norm {
                x,
                out,
                p,
                dims,
                keepdim,
            } => {
                let (x, out) = (
                    cg::unpack(x, node, 0, mode)?,
                    cg::unpack(out, node, 0, mode)?,
                );
                let how = (*p, &dims[..], *keepdim);
                vec![Some(reductions::norm(rt, mode, g, (&x, &out), how)?)]
            }
            Backward::Cumsum { dim } => vec![Some(reductions::cumsum(rt, mode, g, *dim)?)],
            Backward::Flip { dims } => vec![Some(cg::flip(rt, mode, g, dims)?)],
            Backward::PackPadded {
                input_shape,
                batch_sizes,
                batch_first,
            } => vec![Some(super::packed::pack_padded_backward(
                rt,
                g,
                input_shape,
                batch_sizes,
                *batch_first,
            )?)],
            Backward::Roll { shifts, dims } => {
                let back: Vec<i64> = shifts.iter().map(|s| -s).collect();
                let out = rt.roll(g, &back, dims)?;
                let backward = Backward::Roll {
                    shifts: back,
                    dims: dims.clone(),
                };
                vec![Some(record::attach_node(
                    rt,
                    mode,
                    out,
                    "RollBackward0",
                    backward,
                    &[g],
                ))]
            }
            Backward::Dist { diff, out, p } => {
                let (diff, out) = (&diff.get(name)?, &out.get(name)?);
                super::distances::dist_backward(rt, g, (diff, out, *p))?
            }
            Backward::Cdist { x1, x2, out, p } => {
                let (x1, x2, out) = (&x1.get(name)?, &x2.get(name)?, &out.get(name)?);
                super::distances::cdist_backward(rt, g, (x1, x2, out, *p))?
            }
            Backward::Trilinear { x1, w, x2 } => {
                let x1 = x1.as_ref().map(|s| s.get(name)).transpose()?;
                let w = w.as_ref().map(|s| s.get(name)).transpose()?;
                let x2 = x2.as_ref().map(|s| s.get(name)).transpose()?;
                let wants = (wants(node, 0), wants(node, 1), wants(node, 2));
                super::bilinear::backward(
                    rt,
                    g,
                    (x1.as_deref(), w.as_deref(), x2.as_deref()),
                    wants,
                )?
            }
            Backward::EmbeddingBag {
                indices,
                bag_of,
                scale,
            } => {
                let (indices, bag_of) = (&indices.get(name)?, &bag_of.get(name)?);
                let scale = scale.as_ref().map(|s| s.get(name)).transpose()?;
                let parts = (&**indices, &**bag_of, scale.as_deref());
                let shape = shape_of(0);
                vec![Some(super::embedding_bag::backward(rt, g, parts, &shape)?)]
            }
            Backward::SparseMm {
                indices,
                values,
                sparse_left,
            } => {
                let parts = (&indices.get(name)?, &values.get(name)?);
                let shape = shape_of(0);
                vec![Some(super::sparse::mm_backward(
                    rt,
                    g,
                    parts,
                    *sparse_left,
                    &shape,
                )?)]
            }
            Backward::FusedAttention {
                q,
                k,
                v,
                out,
                lse,
                bias,
                how,
            } => {
                let (q, k, v) = (q.get(name)?, k.get(name)?, v.get(name)?);
                let (out, lse) = (out.get(name)?, lse.get(name)?);
                let bias = bias.as_ref().map(|b| b.get(name)).transpose()?;
                let (dq, dk, dv) =
                    rt.attention_backward(g, (&q, &k, &v), (&out, &lse), bias.as_deref(), how)?;
                vec![Some(dq), Some(dk), Some(dv)]
            }
            Backward::NanToNum { x } => {
                vec![Some(super::blends::nan_to_num_backward(
                    rt,
                    g,
                    &*x.get(name)?,
                )?)]
            }
            Backward::EuclideanDist { x1, x2, out } => {
                let (x1, x2, out) = (&x1.get(name)?, &x2.get(name)?, &out.get(name)?);
                super::distances::euclidean_backward(rt, g, (x1, x2, out))?
            }
            Backward::Diagonal { offset, dim1, dim2 } => {
                vec![Some(diagonals::laid_on(
                    rt,
                    g,
                    &shape_of(0),
                    (*offset, *dim1, *dim2),
                )?)]
            }
            Backward::Trace => {
                let shape = shape_of(0);
                let n = shape[0].min(shape[1]);
                let g = Arc::new(g.expand(&[n]));
                vec![Some(diagonals::laid_on(rt, &g, &shape, (0, 0, 1))?)]
            }
            Backward::DiagEmbed { offset, dim1, dim2 } => {
                vec![Some(rt.copy(&view::diagonal(g, *offset, *dim1, *dim2)?)?)]
            }
            Backward::Tri { diagonal, upper } => vec![Some(rt.tri(g, *diagonal, *upper)?)],
            Backward::Repeat { sizes } => {
                vec![Some(repeat(rt, mode, g, (sizes, &shape_of(0)))?)]
            }
            Backward::Addmm { x, w } => {
                // bias: g (summed to its shape by the engine); x: g @ w
                // (the saved mat2 is w.t()); mat2 = w.t(): (g.T @ x).T,
                // laid out as w.t() is (PyTorch's mm_mat2_backward for a
                // column-major mat2), which TBackward0 turns back into w's
                // row-major layout.
                let gx = match w {
                    Some(w) if wants(node, 1) => {
                        let wt = cg::unpack(w, node, 2, mode)?;
                        let w = cg::t(rt, mode, &wt)?;
                        Some(cg::matmul(rt, mode, g, &w)?)
                    }
                    _ => None,
                };
                let gw = match x {
                    Some(x) if wants(node, 2) => {
                        let gt = cg::t(rt, mode, g)?;
                        let x = cg::unpack(x, node, 1, mode)?;
                        let gw = cg::matmul(rt, mode, &gt, &x)?;
                        Some(cg::t(rt, mode, &gw)?)
                    }
                    _ => None,
                };
                vec![Some(Arc::clone(g)), gx, gw]
            }
            Backward::AddProduct {
                a,
                b,
                product,
                scale,
            } => {
                let a = a.as_ref().map(|a| a.get(name)).transpose()?;
                let b = b.as_ref().map(|b| b.get(name)).transpose()?;
                let wants = (wants(node, 1), wants(node, 2));
                super::add_products::backward(
                    rt,
                    g,
                    (a.as_deref(), b.as_deref()),
                    (*product, *scale),
                    wants,
                )?
            }
            Backward::CopySlices { view, inner } => slices::copy_slices(rt, g, view, inner)?,
            Backward::AsStrided { view } => slices::as_strided(rt, g, view, &node.inputs[0])?,
            Backward::Overwritten => slices::overwritten(rt, g, node)?,
            Backward::Copy => slices::copy(rt, g, node)?,
            Backward::IndexPut { items } => slices::index_put(rt, g, items, node)?,
            // The engine asks its host to run a program's backward.
            Backward::Custom { .. } => {
                return Err(crate::error::Error::Autograd {
                    message: format!("{name} is a Function of the program's: its host runs it"),
                    help: "internal: the engine calls `Host::custom_backward`".into(),
                })
            }
            Backward::Convolution {
                x,
                w,
                geom,
                bias,
                transposed: false,
            } if mode.enabled => super::conv::conv2d_backward_recorded(
                rt,
                mode,
                g,
                (
                    &cg::unpack(x, node, 0, mode)?,
                    &cg::unpack(w, node, 1, mode)?,
                ),
                (geom, *bias),
                (wants(node, 0), wants(node, 1), wants(node, 2)),
            )?,
            Backward::Convolution {
                x,
                w,
                geom,
                bias,
                transposed,
            } => super::conv::conv2d_backward(
                rt,
                g,
                (&x.get(name)?, &w.get(name)?),
                (geom, *bias, *transposed),
                (wants(node, 0), wants(node, 1), wants(node, 2)),
            )?,
            Backward::MaxPool { which, geom, input } => {
                let which = &which.get(name)?;
                let gx = super::conv::pool_backward(rt, g, Some(which), geom, input)?;
                vec![Some(super::conv::pooled(
                    rt,
                    mode,
                    gx,
                    (g, Some(which)),
                    (geom, name),
                ))]
            }
            Backward::AvgPool { geom, input } => {
                let gx = super::conv::pool_backward(rt, g, None, geom, input)?;
                vec![Some(super::conv::pooled(
                    rt,
                    mode,
                    gx,
                    (g, None),
                    (geom, name),
                ))]
            }
            Backward::Pooled { which, geom } => {
                let which = which.as_ref().map(|w| w.get(name)).transpose()?;
                vec![Some(super::conv::pool_again(
                    rt,
                    mode,
                    g,
                    which.as_ref(),
                    geom,
                )?)]
            }
            Backward::LayerNorm {
                x,
                weight,
                mean,
                rstd,
                dims,
                bias,
                eps,
            } => {
                let x = cg::unpack(x, node, 0, mode)?;
                let w = weight
                    .as_ref()
                    .map(|w| cg::unpack(w, node, 1, mode))
                    .transpose()?;
                // Creating a graph: the mean and 1/std again, from x (so
                // the gradient depends on x through them too).
                let (mean, rstd) = match mode.enabled {
                    true => {
                        let rows: Vec<i64> =
                            (x.ndim() - dims..x.ndim()).map(|d| d as i64).collect();
                        let st = super::functional::stats(rt, mode, &x, &rows, *eps)?;
                        st.mean_invstd()
                    }
                    false => (Arc::clone(&mean.get(name)?), Arc::clone(&rstd.get(name)?)),
                };
                super::functional::layer_norm_backward(
                    rt,
                    mode,
                    g,
                    (&x, w.as_ref(), &mean, &rstd),
                    (*dims, *bias),
                    (wants(node, 0), wants(node, 1), wants(node, 2)),
                )?
            }
            Backward::GroupNorm {
                x,
                weight,
                mean,
                rstd,
                groups,
                bias,
                eps,
            } => {
                let x = cg::unpack(x, node, 0, mode)?;
                let w = weight
                    .as_ref()
                    .map(|w| cg::unpack(w, node, 1, mode))
                    .transpose()?;
                super::group_norm::group_norm_backward(
                    rt,
                    mode,
                    g,
                    (&x, w.as_ref(), &mean.get(name)?, &rstd.get(name)?),
                    (*groups, *bias, *eps),
                    (wants(node, 0), wants(node, 1), wants(node, 2)),
                )?
            }
            Backward::BatchNorm {
                x,
                weight,
                mean,
                invstd,
                dims,
                train,
                eps,
            } => {
                let x = cg::unpack(x, node, 0, mode)?;
                let w = weight
                    .as_ref()
                    .map(|w| cg::unpack(w, node, 1, mode))
                    .transpose()?;
                // Creating a graph in training: the batch's mean and 1/std
                // again, from x (the gradient depends on x through them).
                let (mean, invstd) = match mode.enabled && *train {
                    true => {
                        let over: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
                        let st = super::functional::stats(rt, mode, &x, &over, *eps)?;
                        st.mean_invstd()
                    }
                    false => (Arc::clone(&mean.get(name)?), Arc::clone(&invstd.get(name)?)),
                };
                super::functional::batch_norm_backward(
                    rt,
                    mode,
                    g,
                    (&x, w.as_ref(), &mean, &invstd),
                    (dims, *train),
                    (wants(node, 0), wants(node, 1), wants(node, 2)),
                )?
            }
            Backward::Activation { kind, x, result } => {
                let x = cg::unpack(x, node, 0, mode)?;
                let gx = super::activation_ops::backward(rt, mode, kind, g, (&x, *result))?;
                vec![Some(gx)]
            }
            Backward::Glu { x, dim } => {
                let x = &x.get(name)?;
                vec![Some(super::activation_ops::glu_backward(rt, g, x, *dim)?)]
            }
            Backward::Prelu { x, w } => {
                let (x, w) = (&x.get(name)?, &w.get(name)?);
                let wanted = (wants(node, 0), wants(node, 1));
                super::activation_ops::prelu_backward(rt, g, (x, w), wanted)?.to_vec()
            }
            Backward::NativeDropout { mask, scale } => {
                let m = &mask.get(name)?;
                let kept = cg::bin(rt, mode, BinaryOp::Mul, g, m)?;
                vec![Some(cg::bin_s(rt, mode, BinaryOp::Mul, &kept, *scale)?)]
            }
            Backward::LogSoftmax { out, dim } => {
                // g - exp(y) * sum(g, dim)
                let y = cg::unpack(out, node, 0, mode)?;
                let e = cg::unary(rt, mode, UnaryOp::Exp, &y)?;
                let s = cg::sum_keep(rt, mode, g, *dim as i64)?;
                let p = cg::bin(rt, mode, BinaryOp::Mul, &e, &s)?;
                vec![Some(cg::bin(rt, mode, BinaryOp::Sub, g, &p)?)]
            }
        })
    }
}

/// A unary op's input gradient from `g` and what it saved (`s`: its input
/// or its result, as PyTorch's formula needs).
fn unary(rt: &mut Runtime, mode: Mode, op: UnaryOp, g: &Tensor, s: &Tensor) -> R<Arc<Tensor>> {
    pointwise_grad::times_derivative(&mut record::Recording { rt, mode }, op, g, s)
}

/// `a @ b` in every form: each operand made a matrix (a vector `a` a row,
/// a vector `b` a column), the products of the matrices, and the
/// gradients given back the operands' ranks (batch dims are summed by the
/// engine, as broadcasting's are).
fn matmul(
    rt: &mut Runtime,
    (node, mode): (&Arc<Node>, Mode),
    g: &Arc<Tensor>,
    (a, b): (Option<&Saved>, Option<&Saved>),
    columns: [bool; 2],
) -> R<Grads> {
    let (ra, rb) = (node.inputs[0].shape.len(), node.inputs[1].shape.len());
    if ra == 2 && rb == 2 {
        return mm(rt, (node, mode), g, (a, b), columns);
    }
    let mut g2 = Arc::clone(g);
    if rb == 1 {
        g2 = cg::unsqueeze(rt, mode, &g2, g2.ndim() as i64)?;
    }
    if ra == 1 {
        g2 = cg::unsqueeze(rt, mode, &g2, g2.ndim() as i64 - 1)?;
    }
    let ga = match b {
        Some(b) => {
            let b = cg::unpack(b, node, 1, mode)?;
            let b2 = match rb {
                1 => cg::unsqueeze(rt, mode, &b, 1)?,
                _ => b,
            };
            let bt = cg::t(rt, mode, &b2)?;
            let ga = cg::matmul(rt, mode, &g2, &bt)?;
            Some(match ra {
                1 => cg::squeeze(rt, mode, &ga, -2)?,
                _ => ga,
            })
        }
        None => None,
    };
    let gb = match a {
        Some(a) => {
            let a = cg::unpack(a, node, 0, mode)?;
            let a2 = match ra {
                1 => cg::unsqueeze(rt, mode, &a, 0)?,
                _ => a,
            };
            let at = cg::t(rt, mode, &a2)?;
            let gb = cg::matmul(rt, mode, &at, &g2)?;
            Some(match rb {
                1 => cg::squeeze(rt, mode, &gb, -1)?,
                _ => gb,
            })
        }
        None => None,
    };
    Ok(vec![ga, gb])
}

/// `x.repeat(sizes)`, in PyTorch's order (`repeat_backward`): the new
/// leading dims summed one by one, then `g` seen as [r0, s0, r1, s1, ...]
/// (a dim repeated once is not split) and its tile dims summed at once.
fn repeat(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (sizes, shape): (&[usize], &[usize]),
) -> R<Arc<Tensor>> {
    if sizes.contains(&0) {
        return full(rt, shape, g.dtype(), g.device(), 0);
    }
    let lead = sizes.len() - shape.len();
    let mut g = Arc::clone(g);
    for _ in 0..lead {
        g = record::reduce(rt, mode, ReduceOp::Sum, &g, Some(0), false)?;
    }
    let (mut split, mut dims) = (Vec::new(), Vec::new());
    for (&r, &s) in sizes[lead..].iter().zip(shape) {
        if r != 1 {
            dims.push(split.len() as i64);
            split.push(r);
        }
        split.push(s);
    }
    if dims.is_empty() {
        return Ok(g);
    }
    let tiles = cg::reshape(rt, mode, &g, &split)?;
    record::reduce_dims(rt, mode, ReduceOp::Sum, &tiles, &dims, false)
}

/// `a @ b` of two matrices, as PyTorch's `mm_mat1_backward` and
/// `mm_mat2_backward`: `g @ b.T` and `a.T @ g`, each computed transposed
/// when its operand was column-major (`x @ W.T`), so the gradient comes
/// out in the operand's own layout and reaches `.grad` without a copy.
fn mm(
    rt: &mut Runtime,
    (node, mode): (&Arc<Node>, Mode),
    g: &Arc<Tensor>,
    (a, b): (Option<&Saved>, Option<&Saved>),
    [a_cols, b_cols]: [bool; 2],
) -> R<Grads> {
    let ga = match b {
        Some(b) => {
            let b = cg::unpack(b, node, 1, mode)?;
            Some(match a_cols {
                true => {
                    let gt = cg::t(rt, mode, g)?;
                    let p = cg::matmul(rt, mode, &b, &gt)?;
                    cg::t(rt, mode, &p)?
                }
                false => {
                    let bt = cg::t(rt, mode, &b)?;
                    cg::matmul(rt, mode, g, &bt)?
                }
            })
        }
        None => None,
    };
    let gb = match a {
        Some(a) => {
            let a = cg::unpack(a, node, 0, mode)?;
            Some(match b_cols {
                true => {
                    let gt = cg::t(rt, mode, g)?;
                    let p = cg::matmul(rt, mode, &gt, &a)?;
                    cg::t(rt, mode, &p)?
                }
                false => {
                    let at = cg::t(rt, mode, &a)?;
                    cg::matmul(rt, mode, &at, g)?
                }
            })
        }
        None => None,
    };
    Ok(vec![ga, gb])
}
