//! Elementwise ops over three operands, broadcast together: `where(cond, x,
//! y)` and `clamp(x, min, max)` with both bounds (one bound is `maximum` or
//! `minimum`, a binary op).

use super::super::buffer::{Buffer, Stored};
use super::super::element::Num;
use super::super::shape::{broadcast_strides, for_each_offsets, numel};
use super::super::{DType, Tensor};
use crate::error::Error;
use crate::runtime::op::binary::{cast_to, Operand};
pub use crate::runtime::op::ternary::{plan, Plan, TernaryOp};
use crate::{with_dtype, with_num_dtype};

/// The op on the host (the cpu, and the simulator's devices).
pub fn ternary(op: TernaryOp, a: Operand, b: Operand, c: Operand) -> Result<Tensor, Error> {
    let p = plan(op, a, b, c)?;
    if numel(&p.shape) == 0 {
        // No element: no operand is read (a kernel would not launch).
        return Ok(Tensor::new(Buffer::zeros(p.compute, 0), p.shape, p.device));
    }
    let first = match op {
        TernaryOp::Where => DType::Bool,
        TernaryOp::Clamp => p.compute,
    };
    let ca = cast_to(a.tensor, first);
    let cb = cast_to(b.tensor, p.compute);
    let cc = cast_to(c.tensor, p.compute);
    let (ta, tb, tc) = (
        ca.as_ref().unwrap_or(a.tensor),
        cb.as_ref().unwrap_or(b.tensor),
        cc.as_ref().unwrap_or(c.tensor),
    );
    let buf = match op {
        TernaryOp::Where => with_dtype!(p.compute, T => select::<T>(ta, tb, tc, &p.shape)),
        TernaryOp::Clamp => with_num_dtype!(p.compute, T => clamp::<T>(ta, tb, tc, &p.shape),
            bool => unreachable!("clamp refuses bool in plan")),
    };
    Ok(Tensor::new(buf, p.shape, p.device))
}

/// The clamp of one element, as PyTorch's: a NaN in any operand wins, then
/// `min(max(x, lo), hi)` (so `lo > hi` gives hi).
pub fn clamp_one<T: Num>(x: T, lo: T, hi: T) -> T {
    if x.is_nan() {
        return x;
    }
    if lo.is_nan() {
        return lo;
    }
    if hi.is_nan() {
        return hi;
    }
    let m = if x < lo { lo } else { x };
    if hi < m {
        hi
    } else {
        m
    }
}

fn select<T: Stored>(cond: &Tensor, x: &Tensor, y: &Tensor, shape: &[usize]) -> Buffer {
    zip3::<bool, T, T>(cond, x, y, shape, |c, a, b| if c { a } else { b })
}

fn clamp<T: Num + Stored>(x: &Tensor, lo: &Tensor, hi: &Tensor, shape: &[usize]) -> Buffer {
    zip3::<T, T, T>(x, lo, hi, shape, clamp_one)
}

/// Applies `f` over three tensors broadcast to `shape`.
fn zip3<A: Stored, B: Stored, U: Stored>(
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    shape: &[usize],
    f: impl Fn(A, B, B) -> U,
) -> Buffer {
    let (ga, gb, gc) = (a.read(), b.read(), c.read());
    let (sa, sb, sc) = (ga.as_slice::<A>(), gb.as_slice::<B>(), gc.as_slice::<B>());
    let strides = |t: &Tensor| broadcast_strides(t.shape(), t.strides(), shape);
    let (ta, tb, tc) = (strides(a), strides(b), strides(c));
    let mut out = Vec::with_capacity(numel(shape));
    for_each_offsets(
        shape,
        [(&ta, a.offset()), (&tb, b.offset()), (&tc, c.offset())],
        |[i, j, k]| out.push(f(sa[i], sb[j], sc[k])),
    );
    U::into_buffer(out)
}
