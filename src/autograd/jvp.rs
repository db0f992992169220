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
