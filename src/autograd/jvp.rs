//! The forward formulas (Jacobian-vector products) of the ops that carry
//! tangents in forward-mode AD (`forward_ad.rs`), each as PyTorch writes it
//! in `derivatives.yaml` (`result:`): from the inputs' primals and their
//! tangents (`None` for an input without one, PyTorch's undefined
//! tangent, which counts as zeros). They compute with [`Ops`]: the
//! record layer's ops (`record::Recording`) in the program's grad mode, so
//! that a tangent of a primal that requires grad has a history too, as in
//! PyTorch (`grad_fn=<AddBackward0>`), while tangents are off.

use std::sync::Arc;

use super::forward_ad;
use super::pointwise_grad::{times_derivative, Arith};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;
type T = Option<Arc<Tensor>>;

/// What the forward formulas compute with, beyond a pointwise
/// derivative's ops.
pub trait Ops: Arith {
    fn rt(&mut self) -> &mut Runtime;
    fn matmul(&mut self, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>>;
    /// `sum` / `mean` over `dims` (all when None).
    fn reduce(
        &mut self,
        op: ReduceOp,
        t: &Arc<Tensor>,
        dims: Option<&[i64]>,
        keepdim: bool,
    ) -> R<Arc<Tensor>>;
    fn join(&mut self, parts: &[&Tensor], dim: i64, stack: bool) -> R<Arc<Tensor>>;
    fn index(&mut self, t: &Arc<Tensor>, items: &[Index]) -> R<Arc<Tensor>>;
    /// `where(cond, a, b)`.
    fn pick(&mut self, cond: &Tensor, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>>;
    /// `t` copied to `out`'s device, dtype and layout (`ToCopyBackward0`).
    fn copy_like(&mut self, t: &Arc<Tensor>, out: &Tensor) -> R<Arc<Tensor>>;

    fn zeros_like(&mut self, like: &Tensor) -> R<Arc<Tensor>> {
        super::ops::full_like(self.rt(), like, 0)
    }
}

/// The sum of the terms present (an input without a tangent adds none);
/// zeros like `like` when there is none.
pub fn total<O: Ops>(o: &mut O, terms: Vec<T>, like: &Tensor) -> R<Arc<Tensor>> {
    let mut sum: T = None;
    for t in terms.into_iter().flatten() {
        sum = Some(match sum {
            None => t,
            Some(s) => o.bin(BinaryOp::Add, &s, &t)?,
        });
    }
    match sum {
        // A term of an input broadcast against the others (`x + b` with
        // only `b` dual): widened as PyTorch's zero tangent of `x` widens it.
        Some(s) if s.shape() != like.shape() => {
            let zeros = o.zeros_like(like)?;
            o.bin(BinaryOp::Add, &s, &zeros)
        }
        Some(s) => Ok(s),
        None => o.zeros_like(like),
    }
}

/// `a op b`'s tangent from `ta` and `tb` (`out` is its result).
pub fn binary<O: Ops>(
    o: &mut O,
    op: BinaryOp,
    (a, b): (Operand, Operand),
    (ta, tb): (&T, &T),
    out: &Tensor,
) -> R<Arc<Tensor>> {
    use BinaryOp::*;
    let (x, y) = (a.tensor, b.tensor);
    let mul = |o: &mut O, t: &T, by: &Tensor| -> R<T> {
        t.as_ref().map(|t| o.bin(Mul, t, by)).transpose()
    };
    let terms = match op {
        Add => vec![ta.clone(), tb.clone()],
        Sub => {
            let ntb = tb.as_ref().map(|t| o.unary(UnaryOp::Neg, t)).transpose()?;
            vec![ta.clone(), ntb]
        }
        // self_t * other + other_t * self
        Mul => vec![mul(o, ta, y)?, mul(o, tb, x)?],
        // self_t / other - other_t * (self / other) / other
        Div => {
            let first = ta.as_ref().map(|t| o.bin(Div, t, y)).transpose()?;
            let second = match tb {
                Some(t) => {
                    let q = o.bin(Div, x, y)?;
                    let tq = o.bin(Mul, t, &q)?;
                    let r = o.bin(Div, &tq, y)?;
                    Some(o.unary(UnaryOp::Neg, &r)?)
                }
                None => None,
            };
            vec![first, second]
        }
        // x ** e: self_t * e * x ** (e - 1) (zero for e == 0)
        Pow if b.weak => {
            let e = number(y)?;
            let d = match e {
                0.0 => o.zeros_like(x)?,
                _ => {
                    let p = o.bin_s(Pow, x, e - 1.0)?;
                    o.s_bin(Mul, e, &p)?
                }
            };
            vec![mul(o, ta, &d)?]
        }
        // s ** y: other_t * result * log(s)
        Pow if a.weak => {
            let ln = number(x)?.ln();
            let d = o.bin_s(Mul, out, ln)?;
            vec![mul(o, tb, &d)?]
        }
        // x ** y: self_t * y * x ** (y - 1) + other_t * result * log(x)
        Pow => {
            let first = match ta {
                Some(t) => {
                    let y1 = o.bin_s(Sub, y, 1.0)?;
                    let p = o.bin(Pow, x, &y1)?;
                    let d = o.bin(Mul, y, &p)?;
                    Some(o.bin(Mul, t, &d)?)
                }
                None => None,
            };
            let second = match tb {
                Some(t) => {
                    let ln = o.unary(UnaryOp::Log, x)?;
                    let d = o.bin(Mul, out, &ln)?;
                    Some(o.bin(Mul, t, &d)?)
                }
                None => None,
            };
            vec![first, second]
        }
        // clamp_min / clamp_max with a number: the tangent where the bound
        // does not hold `x` (`x >= min`, `x <= max`), else zero.
        Maximum | Minimum if b.weak => {
            let keep = match op {
                Maximum => o.bin(Ge, x, y)?,
                _ => o.bin(Le, x, y)?,
            };
            match ta {
                Some(t) => vec![Some(o.masked(&keep, t)?)],
                None => vec![],
            }
        }
        // maximum(a, b): other_t + (a > b or a is NaN) * (self_t - other_t)
        Maximum | Minimum => {
            let pick_a = match op {
                Maximum => o.bin(Gt, x, y)?,
                _ => o.bin(Lt, x, y)?,
            };
            let nan = o.bin(Ne, x, x)?;
            let pick_a = o.bin(LogicalOr, &pick_a, &nan)?;
            let za = or_zeros(o, ta, out)?;
            let zb = or_zeros(o, tb, out)?;
            vec![Some(o.pick(&pick_a, &za, &zb)?)]
        }
        // x % y: self_t - other_t * floor(x / y) (trunc for fmod)
        Rem | Fmod if !a.weak => {
            let second = match tb {
                Some(t) if !b.weak => {
                    let q = o.bin(Div, x, y)?;
                    let r = match op {
                        Rem => UnaryOp::Floor,
                        _ => UnaryOp::Trunc,
                    };
                    let q = o.unary(r, &q)?;
                    let tq = o.bin(Mul, t, &q)?;
                    Some(o.unary(UnaryOp::Neg, &tq)?)
                }
                _ => None,
            };
            vec![ta.clone(), second]
        }
        _ => return Err(forward_ad::unsupported()),
    };
    total(o, terms, out)
}

/// The value of a number written in the program (a weak 0-d tensor).
pub fn number(t: &Tensor) -> R<f64> {
    use crate::runtime::buffer::Buffer;
    let b = t.read();
    let at = t.offset();
    Ok(match &*b {
        Buffer::F64(v) => v[at],
        Buffer::F32(v) => f64::from(v[at]),
        Buffer::I64(v) => v[at] as f64,
        Buffer::I32(v) => f64::from(v[at]),
        Buffer::Bool(v) => f64::from(u8::from(v[at])),
        Buffer::U8(v) => f64::from(v[at]),
        Buffer::I8(v) => f64::from(v[at]),
        Buffer::I16(v) => f64::from(v[at]),
        Buffer::F16(v) => f64::from(v[at]),
        Buffer::BF16(v) => f64::from(v[at]),
    })
}

/// A pointwise op's tangent: its derivative times the input's tangent
/// (the backward formula given the tangent: the Jacobian is diagonal).
/// `saves`: whether the derivative is of the result (`Some(true)`: `exp`)
/// or of the input (`Some(false)`: `log`); None for `neg`, and for the
/// ops whose derivative is zero.
pub fn unary<O: Ops>(
    o: &mut O,
    (op, saves): (UnaryOp, Option<bool>),
    (x, out): (&Tensor, &Tensor),
    t: &Tensor,
) -> R<Arc<Tensor>> {
    match saves {
        None if op == UnaryOp::Neg => o.unary(UnaryOp::Neg, t),
        None => o.zeros_like(out),
        Some(true) => times_derivative(o, op, t, out),
        Some(false) => times_derivative(o, op, t, x),
    }
}

/// `a @ b`'s tangent: `ta @ b + a @ tb`.
pub fn matmul<O: Ops>(
    o: &mut O,
    (a, b): (&Tensor, &Tensor),
    (ta, tb): (&T, &T),
    out: &Tensor,
) -> R<Arc<Tensor>> {
    let first = ta.as_ref().map(|t| o.matmul(t, b)).transpose()?;
    let second = tb.as_ref().map(|t| o.matmul(a, t)).transpose()?;
    total(o, vec![first, second], out)
}

/// A sum's or a mean's tangent: the same reduction of the tangent.
pub fn reduce<O: Ops>(
    o: &mut O,
    op: ReduceOp,
    t: &Arc<Tensor>,
    (dims, keepdim): (Option<&[i64]>, bool),
) -> R<Arc<Tensor>> {
    match op {
        ReduceOp::Sum | ReduceOp::Mean => o.reduce(op, t, dims, keepdim),
        _ => Err(forward_ad::unsupported()),
    }
}

/// `softmax`'s tangent: `y * (t - sum(y * t, dim))`; `log_softmax`'s:
/// `t - sum(softmax * t, dim)`.
pub fn softmax<O: Ops>(o: &mut O, out: &Tensor, t: &Tensor, dim: i64, log: bool) -> R<Arc<Tensor>> {
    let y = match log {
        true => o.unary(UnaryOp::Exp, out)?,
        false => Arc::new(out.alias()),
    };
    let yt = o.bin(BinaryOp::Mul, &y, t)?;
    let s = o.reduce(ReduceOp::Sum, &yt, Some(&[dim]), true)?;
    let d = o.bin(BinaryOp::Sub, t, &s)?;
    match log {
        true => Ok(d),
        false => o.bin(BinaryOp::Mul, &y, &d),
    }
}

/// The tangent, zeros like `out` for an input without one.
fn or_zeros<O: Ops>(o: &mut O, t: &T, out: &Tensor) -> R<Arc<Tensor>> {
    match t {
        Some(t) => Ok(Arc::clone(t)),
        None => o.zeros_like(out),
    }
}

/// `where(cond, a, b)`'s tangent: `where(cond, ta, tb)`; `clamp(x, lo,
/// hi)`'s with number bounds: the tangent where `lo <= x <= hi`, else
/// zero; `a + c * b`'s: `ta + c * tb`.
pub fn ternary<O: Ops>(
    o: &mut O,
    op: TernaryOp,
    (a, b, c): (Operand, Operand, Operand),
    ts: &[T],
    out: &Tensor,
) -> R<Arc<Tensor>> {
    match op {
        TernaryOp::Where => {
            let za = or_zeros(o, &ts[1], out)?;
            let zb = or_zeros(o, &ts[2], out)?;
            o.pick(a.tensor, &za, &zb)
        }
        TernaryOp::Clamp if b.weak && c.weak => {
            let above = o.bin(BinaryOp::Ge, a.tensor, b.tensor)?;
            let below = o.bin(BinaryOp::Le, a.tensor, c.tensor)?;
            let inside = o.bin(BinaryOp::LogicalAnd, &above, &below)?;
            let t = or_zeros(o, &ts[0], out)?;
            o.masked(&inside, &t)
        }
        TernaryOp::AddScaled if c.weak => {
            let scaled = ts[1]
                .as_ref()
                .map(|t| o.bin(BinaryOp::Mul, t, c.tensor))
                .transpose()?;
            total(o, vec![ts[0].clone(), scaled], out)
        }
        _ => Err(forward_ad::unsupported()),
    }
}

/// `cat(xs, dim)`'s tangent: the tangents joined alike (zeros for a part
/// without one); `stack`'s the same.
pub fn join<O: Ops>(
    o: &mut O,
    xs: &[&Tensor],
    ts: &[T],
    (dim, stack): (i64, bool),
) -> R<Arc<Tensor>> {
    let mut parts = Vec::with_capacity(xs.len());
    for (x, t) in xs.iter().zip(ts) {
        parts.push(or_zeros(o, t, x)?);
    }
    let refs: Vec<&Tensor> = parts.iter().map(|p| &**p).collect();
    o.join(&refs, dim, stack)
}

/// The op-layer copy of `t` like `out` (its device, dtype and layout):
/// what [`Ops::copy_like`] records.
pub fn copied_like(rt: &mut Runtime, t: &Arc<Tensor>, out: &Tensor) -> R<Arc<Tensor>> {
    let moved = t.device() != out.device() || t.dtype() != out.dtype();
    let mut t = Arc::clone(t);
    if t.device() != out.device() {
        t = rt.transfer(&t, out.device(), false)?;
    }
    if t.dtype() != out.dtype() {
        t = rt.cast(&t, out.dtype())?;
    }
    if !moved || t.strides() != out.strides() {
        t = rt.copy_strided(&t, out.strides().to_vec())?;
    }
    Ok(t)
}

/// The tangent of an op that picks one element of `t`'s primal per result
/// element along `dim` (`max(dim)`, `min(dim)`, `median(dim)`, `sort`,
/// `topk`, `gather`): the same elements of the tangent, `indices` naming
/// them (PyTorch's `gather_with_keepdimed_indices`). Without `keepdim`
/// the indices have no `dim`. Indexed with one position tensor per
/// dimension, so the tangent's history is `IndexBackward0`.
pub fn gathered<O: Ops>(
    o: &mut O,
    t: &Arc<Tensor>,
    (dim, indices): (usize, &Tensor),
    keepdim: bool,
) -> R<Arc<Tensor>> {
    if t.ndim() == 0 {
        return o.copy_like(t, t);
    }
    let rank = indices.ndim();
    let device = t.device();
    let mut items = Vec::with_capacity(t.ndim());
    for d in 0..t.ndim() {
        if d == dim {
            items.push(Index::Tensor(Arc::new(indices.alias())));
            continue;
        }
        // Where dimension `d` of the primal lies among the indices' dims.
        let at = match keepdim || d < dim {
            true => d,
            false => d - 1,
        };
        let n = indices.shape()[at];
        items.push(Index::Tensor(super::ops::positions(
            o.rt(),
            n,
            at,
            rank,
            device,
        )?));
    }
    o.index(t, &items)
}

/// The tangent of a reduction to one element equal to some of `x`'s
/// (`max()`, `min()`, `median()`): the mean of the tangent over the
/// elements equal to the result (PyTorch's `evenly_read_jvp`).
pub fn evenly<O: Ops>(o: &mut O, x: &Tensor, t: &Tensor, out: &Tensor) -> R<Arc<Tensor>> {
    amax(o, (x, t), out, (None, false))
}

/// A max pooling's tangent: at each window, the tangent's element where
/// the primal's maximum was (`places`: `h * W + w` within each plane, as
/// `return_indices=True` gives them), PyTorch's
/// `gather(self_t.flatten(-2), -1, indices.flatten(-2))`.
pub fn pooled_max<O: Ops>(o: &mut O, t: &Arc<Tensor>, places: &Tensor) -> R<Arc<Tensor>> {
    let rank = places.ndim();
    let width = Tensor::scalar(t.shape()[t.ndim() - 1] as i64);
    let rt = o.rt();
    let row = rt.binary(
        BinaryOp::FloorDiv,
        Operand::strong(places),
        Operand::weak(&width),
    )?;
    let col = rt.binary(
        BinaryOp::Rem,
        Operand::strong(places),
        Operand::weak(&width),
    )?;
    let mut items = Vec::with_capacity(rank);
    for d in 0..rank - 2 {
        let n = places.shape()[d];
        items.push(Index::Tensor(super::ops::positions(
            rt,
            n,
            d,
            rank,
            t.device(),
        )?));
    }
    items.push(Index::Tensor(row));
    items.push(Index::Tensor(col));
    o.index(t, &items)
}

/// A normalization's tangent (layer, batch and group norm; PyTorch's
/// `layer_norm_jvp` and `batch_norm_jvp`): [`standardized`], then
/// [`affine`]. `mean`, `invstd`, `w` and the parameters' tangents
/// broadcast against `x`.
pub fn normalized<O: Ops>(
    o: &mut O,
    (x, tx): (&Tensor, &T),
    (mean, invstd): (&Tensor, &Tensor),
    dims: Option<&[i64]>,
    (w, tw, tb): (Option<&Tensor>, &T, &T),
    out: &Tensor,
) -> R<Arc<Tensor>> {
    let (x_hat, dx_hat) = standardized(o, (x, tx), (mean, invstd), dims)?;
    affine(o, (&x_hat, dx_hat), (w, tw, tb), out)
}

/// `x_hat = (x - mean) * invstd` over `dims` and its tangent `dx_hat =
/// invstd * (tx - mean(tx) - x_hat * mean(x_hat * tx))` (`dims` None:
/// statistics that are constants, as the running ones in eval: `invstd *
/// tx`; None without `tx`).
pub fn standardized<O: Ops>(
    o: &mut O,
    (x, tx): (&Tensor, &T),
    (mean, invstd): (&Tensor, &Tensor),
    dims: Option<&[i64]>,
) -> R<(Arc<Tensor>, T)> {
    let centered = o.bin(BinaryOp::Sub, x, mean)?;
    let x_hat = o.bin(BinaryOp::Mul, &centered, invstd)?;
    drop(centered);
    let dx_hat = match (tx, dims) {
        (None, _) => None,
        (Some(tx), None) => Some(o.bin(BinaryOp::Mul, tx, invstd)?),
        (Some(tx), Some(dims)) => {
            let m = o.reduce(ReduceOp::Mean, tx, Some(dims), true)?;
            let xt = o.bin(BinaryOp::Mul, &x_hat, tx)?;
            let m2 = o.reduce(ReduceOp::Mean, &xt, Some(dims), true)?;
            let a = o.bin(BinaryOp::Sub, tx, &m)?;
            let b = o.bin(BinaryOp::Mul, &x_hat, &m2)?;
            let c = o.bin(BinaryOp::Sub, &a, &b)?;
            Some(o.bin(BinaryOp::Mul, &c, invstd)?)
        }
    };
    Ok((x_hat, dx_hat))
}

/// `y = x_hat * w + b`'s tangent: `dx_hat * w + x_hat * tw + tb`.
pub fn affine<O: Ops>(
    o: &mut O,
    (x_hat, dx_hat): (&Tensor, T),
    (w, tw, tb): (Option<&Tensor>, &T, &T),
    out: &Tensor,
) -> R<Arc<Tensor>> {
    let first = match (dx_hat, w) {
        (Some(d), Some(w)) => Some(o.bin(BinaryOp::Mul, &d, w)?),
        (d, _) => d,
    };
    let second = match tw {
        Some(tw) => Some(o.bin(BinaryOp::Mul, x_hat, tw)?),
        None => None,
    };
    total(o, vec![first, second, tb.clone()], out)
}

/// `mse_loss`'s tangent: `2 * (x - y) * (tx - ty)`, reduced as the loss
/// is (`reduce`: its sum or mean; None for none).
pub fn mse<O: Ops>(
    o: &mut O,
    (x, y): (&Tensor, &Tensor),
    (tx, ty): (&T, &T),
    reduce: Option<ReduceOp>,
    out: &Tensor,
) -> R<Arc<Tensor>> {
    let dt = match (tx, ty) {
        (Some(a), Some(b)) => o.bin(BinaryOp::Sub, a, b)?,
        (Some(a), None) => Arc::clone(a),
        (None, Some(b)) => o.unary(UnaryOp::Neg, b)?,
        (None, None) => return o.zeros_like(out),
    };
    let d = o.bin(BinaryOp::Sub, x, y)?;
    let twice = o.bin_s(BinaryOp::Mul, &d, 2.0)?;
    let t = o.bin(BinaryOp::Mul, &twice, &dt)?;
    match reduce {
        Some(op) => o.reduce(op, &t, None, false),
        None => Ok(t),
    }
}

/// The tangent of `var`, `std` (`p`: the correction) or a vector norm
/// (`p`: its order) of `x` over `dims` (None: every element), `out` the
/// result: PyTorch's `var_jvp` (`2 * sum((x - mean) * t) / (N -
/// correction)`), `std_jvp` (that over `2 * std`) and `norm_jvp` (`sum(x *
/// t) / norm` for p = 2, `sum(sgn(x) * t)` for p = 1, `sum(|x|^(p-2) * x *
/// t) / norm^(p-1)` else; 0 where the norm is 0). An infinite or zero
/// order has none here.
pub fn along<O: Ops>(
    o: &mut O,
    (op, p): (crate::runtime::op::along::AlongOp, f64),
    (x, t): (&Tensor, &Arc<Tensor>),
    (dims, keepdim): (Option<&[usize]>, bool),
    out: &Tensor,
) -> R<Arc<Tensor>> {
    use crate::runtime::op::along::AlongOp;
    let all: Vec<i64> = match dims {
        Some(d) => d.iter().map(|&d| d as i64).collect(),
        None => (0..x.ndim() as i64).collect(),
    };
    let dims = (x.ndim() > 0).then_some(all.as_slice());
    let keepdim = keepdim && dims.is_some();
    let sum = |o: &mut O, v: &Arc<Tensor>| o.reduce(ReduceOp::Sum, v, dims, keepdim);
    match op {
        AlongOp::Var | AlongOp::Std => {
            let n: usize = all.iter().map(|&d| x.shape()[d as usize]).product();
            let xa = Arc::new(x.alias());
            let mean = o.reduce(ReduceOp::Mean, &xa, dims, true)?;
            let c = o.bin(BinaryOp::Sub, x, &mean)?;
            let ct = o.bin(BinaryOp::Mul, &c, t)?;
            let s = sum(o, &ct)?;
            let var_t = o.bin_s(BinaryOp::Mul, &s, 2.0 / (n as f64 - p))?;
            match op {
                AlongOp::Std => {
                    let twice = o.bin_s(BinaryOp::Mul, out, 2.0)?;
                    o.bin(BinaryOp::Div, &var_t, &twice)
                }
                _ => Ok(var_t),
            }
        }
        AlongOp::Norm if p.is_finite() && p > 0.0 => {
            let r = if p == 1.0 {
                let s = o.sign(x)?;
                let st = o.bin(BinaryOp::Mul, &s, t)?;
                return sum(o, &st);
            } else if p == 2.0 {
                let xt = o.bin(BinaryOp::Mul, x, t)?;
                let s = sum(o, &xt)?;
                o.bin(BinaryOp::Div, &s, out)?
            } else {
                let a = o.unary(UnaryOp::Abs, x)?;
                let a = o.bin_s(BinaryOp::Pow, &a, p - 2.0)?;
                let ax = o.bin(BinaryOp::Mul, &a, x)?;
                let axt = o.bin(BinaryOp::Mul, &ax, t)?;
                let s = sum(o, &axt)?;
                let np = o.bin_s(BinaryOp::Pow, out, p - 1.0)?;
                o.bin(BinaryOp::Div, &s, &np)?
            };
            let zero = o.bin_s(BinaryOp::Ne, out, 0.0)?;
            o.masked(&zero, &r)
        }
        _ => Err(forward_ad::unsupported()),
    }
}

/// `amax`/`amin`'s tangent over `dims` (None: every dim): the mean of the
/// tangent where the primal equals the result (`out_kept`: the result
/// with the dims kept).
pub fn amax<O: Ops>(
    o: &mut O,
    (x, t): (&Tensor, &Tensor),
    out_kept: &Tensor,
    (dims, keepdim): (Option<&[i64]>, bool),
) -> R<Arc<Tensor>> {
    let at = o.bin(BinaryOp::Eq, x, out_kept)?;
    let picked = o.masked(&at, t)?;
    let sum = o.reduce(ReduceOp::Sum, &picked, dims, keepdim)?;
    let ones = super::ops::full_like(o.rt(), x, 1)?;
    let ones = o.masked(&at, &ones)?;
    let count = o.reduce(ReduceOp::Sum, &ones, dims, keepdim)?;
    o.bin(BinaryOp::Div, &sum, &count)
}

/// `logsumexp`'s tangent: `sum(t * exp(x - result))` over `dims`.
pub fn logsumexp<O: Ops>(
    o: &mut O,
    (x, t): (&Tensor, &Tensor),
    out_kept: &Tensor,
    (dims, keepdim): (&[i64], bool),
) -> R<Arc<Tensor>> {
    let d = o.bin(BinaryOp::Sub, x, out_kept)?;
    let e = o.unary(UnaryOp::Exp, &d)?;
    let te = o.bin(BinaryOp::Mul, t, &e)?;
    o.reduce(ReduceOp::Sum, &te, Some(dims), keepdim)
}

/// `addcmul(input, t1, t2, value)`'s tangent: `ti + value * (tt1 * t2 +
/// t1 * tt2)`; `addcdiv`'s: `ti + value * (tt1 / t2 - t1 * tt2 / t2^2)`.
pub fn addc<O: Ops>(
    o: &mut O,
    (t1, t2): (&Tensor, &Tensor),
    ts: &[T],
    (value, div): (f64, bool),
    out: &Tensor,
) -> R<Arc<Tensor>> {
    let first = match &ts[1] {
        Some(a) => {
            let op = if div { BinaryOp::Div } else { BinaryOp::Mul };
            Some(o.bin(op, a, t2)?)
        }
        None => None,
    };
    let second = match &ts[2] {
        Some(b) => {
            let p = o.bin(BinaryOp::Mul, t1, b)?;
            Some(match div {
                false => p,
                true => {
                    let sq = o.bin(BinaryOp::Mul, t2, t2)?;
                    let q = o.bin(BinaryOp::Div, &p, &sq)?;
                    o.unary(UnaryOp::Neg, &q)?
                }
            })
        }
        None => None,
    };
    let products = match (first, second) {
        (Some(a), Some(b)) => Some(o.bin(BinaryOp::Add, &a, &b)?),
        (a, b) => a.or(b),
    };
    let scaled = match products {
        Some(p) => Some(o.bin_s(BinaryOp::Mul, &p, value)?),
        None => None,
    };
    total(o, vec![ts[0].clone(), scaled], out)
}

/// `lerp(start, end, w)`'s tangent: `ts + w * (te - ts)`, and `tw * (end -
/// start)` for a tensor weight with a tangent.
pub fn lerp<O: Ops>(
    o: &mut O,
    (start, end): (&Tensor, &Tensor),
    weight: Result<f64, &Tensor>,
    ts: &[T],
    out: &Tensor,
) -> R<Arc<Tensor>> {
    let te_minus_ts = match (&ts[0], &ts[1]) {
        (Some(a), Some(b)) => Some(o.bin(BinaryOp::Sub, b, a)?),
        (None, Some(b)) => Some(Arc::clone(b)),
        (Some(a), None) => Some(o.unary(UnaryOp::Neg, a)?),
        (None, None) => None,
    };
    let step = match (te_minus_ts, weight) {
        (Some(d), Ok(w)) => Some(o.bin_s(BinaryOp::Mul, &d, w)?),
        (Some(d), Err(w)) => Some(o.bin(BinaryOp::Mul, w, &d)?),
        (None, _) => None,
    };
    let by_weight = match ts.get(2).and_then(Option::as_ref) {
        Some(tw) => {
            let diff = o.bin(BinaryOp::Sub, end, start)?;
            Some(o.bin(BinaryOp::Mul, tw, &diff)?)
        }
        None => None,
    };
    total(o, vec![ts[0].clone(), step, by_weight], out)
}

/// `prod`'s tangent over `dim` (every element when None): `sum(d * t)`
/// with `d` the product's derivative as PyTorch's `prod_backward` gives
/// it: `result / x`, but at a line's only zero the product of the others,
/// and 0 along a line with two zeros or more.
pub fn prod<O: Ops>(
    o: &mut O,
    (x, t): (&Tensor, &Tensor),
    out: &Tensor,
    (dim, keepdim): (Option<i64>, bool),
) -> R<Arc<Tensor>> {
    if x.ndim() == 0 {
        return o.copy_like(&Arc::new(t.alias()), out);
    }
    let dims: Vec<i64> = match dim {
        Some(d) => vec![d],
        None => (0..x.ndim() as i64).collect(),
    };
    let kept = |o: &mut O, v: &Arc<Tensor>| match dim {
        Some(d) => o.reduce(ReduceOp::Prod, v, Some(&[d]), true),
        None => {
            let all = o.reduce(ReduceOp::Prod, v, None, false)?;
            let ones = vec![1usize; x.ndim()];
            Ok(Arc::new(all.view(ones, vec![1; x.ndim()], all.offset())))
        }
    };
    let zero = o.bin_s(BinaryOp::Eq, x, 0.0)?;
    let xa = Arc::new(x.alias());
    let ones = super::ops::full_like(o.rt(), x, 1)?;
    let nonzero = o.pick(&zero, &ones, &xa)?;
    let others = kept(o, &nonzero)?;
    let zero_f = o.masked(&zero, &ones)?;
    let zeros = o.reduce(ReduceOp::Sum, &zero_f, Some(&dims), true)?;
    let one_zero = o.bin_s(BinaryOp::Eq, &zeros, 1.0)?;
    let at_zero = o.masked(&one_zero, &others)?;
    // The product itself where a line has no zero (0 elsewhere), over x.
    let no_zero = o.bin_s(BinaryOp::Eq, &zeros, 0.0)?;
    let result = o.masked(&no_zero, &others)?;
    let away = o.bin(BinaryOp::Div, &result, x)?;
    let d = o.pick(&zero, &at_zero, &away)?;
    let dt = o.bin(BinaryOp::Mul, &d, t)?;
    o.reduce(ReduceOp::Sum, &dt, Some(&dims), keepdim && dim.is_some())
}
