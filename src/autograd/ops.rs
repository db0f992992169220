//! The op layer's ops in the forms backward formulas, losses and
//! optimizers write them: `a op b` of two tensors, with a number on either
//! side (weak, so it does not promote), a masked copy, and a tensor filled
//! like another, a reduced gradient given its dims back. None of them
//! records anything.

use std::sync::Arc;

use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::op::index::Index;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::view;
use crate::runtime::{DType, Device, Tensor};

type R<T> = Result<T, Error>;

/// `a op b`.
pub fn bin(rt: &mut Runtime, op: BinaryOp, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    rt.binary(op, Operand::strong(a), Operand::strong(b))
}

/// `a op s` with a number `s` (weak: `a`'s dtype stays).
pub fn bin_s(rt: &mut Runtime, op: BinaryOp, a: &Tensor, s: f64) -> R<Arc<Tensor>> {
    rt.binary(op, Operand::strong(a), Operand::weak(&Tensor::scalar(s)))
}

/// `s op a` with a number `s`.
pub fn s_bin(rt: &mut Runtime, op: BinaryOp, s: f64, a: &Tensor) -> R<Arc<Tensor>> {
    rt.binary(op, Operand::weak(&Tensor::scalar(s)), Operand::strong(a))
}

/// `where(cond, a, 0)`.
pub fn masked(rt: &mut Runtime, cond: &Tensor, a: &Tensor) -> R<Arc<Tensor>> {
    let zero = Tensor::scalar(0.0f64);
    rt.ternary(
        TernaryOp::Where,
        Operand::strong(cond),
        Operand::strong(a),
        Operand::weak(&zero),
    )
}

/// `where(cond, a, b)`.
pub fn pick(rt: &mut Runtime, cond: &Tensor, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    rt.ternary(
        TernaryOp::Where,
        Operand::strong(cond),
        Operand::strong(a),
        Operand::strong(b),
    )
}

/// `sgn(x)`: 1, 0 or -1 in `x`'s dtype.
pub fn sign(rt: &mut Runtime, x: &Tensor) -> R<Arc<Tensor>> {
    let pos = bin_s(rt, BinaryOp::Gt, x, 0.0)?;
    let neg = bin_s(rt, BinaryOp::Lt, x, 0.0)?;
    let pos = rt.cast(&pos, x.dtype())?;
    let neg = rt.cast(&neg, x.dtype())?;
    bin(rt, BinaryOp::Sub, &pos, &neg)
}

/// `t` with size-1 dims put back at `dims` (sorted), where a reduction
/// without `keepdim` removed them (PyTorch's `unsqueeze_multiple`).
pub fn unsqueeze_back(t: &Tensor, dims: &[usize], keepdim: bool) -> R<Arc<Tensor>> {
    let mut t = t.alias();
    if !keepdim {
        let mut sorted = dims.to_vec();
        sorted.sort_unstable();
        for d in sorted {
            t = view::unsqueeze(&t, d as i64)?;
        }
    }
    Ok(Arc::new(t))
}

/// A new tensor of `shape` filled with `value`.
pub fn full(
    rt: &mut Runtime,
    shape: &[usize],
    dtype: DType,
    device: Device,
    value: i64,
) -> R<Arc<Tensor>> {
    let new = NewTensor {
        shape,
        dtype,
        device,
        like: None,
    };
    rt.full(new, Fill::Int(value))
}

/// A new tensor of `like`'s shape, dtype and device filled with `value`.
pub fn full_like(rt: &mut Runtime, like: &Tensor, value: i64) -> R<Arc<Tensor>> {
    full(rt, like.shape(), like.dtype(), like.device(), value)
}

/// `g` added into zeros of `shape` on `device` at the elements `items`
/// pick, repeated ones adding up (PyTorch's `index_put_(...,
/// accumulate=True)` into zeros). Halves add up in f32 (the engine casts
/// the sum back).
pub fn add_into_zeros(
    rt: &mut Runtime,
    shape: &[usize],
    device: Device,
    items: &[Index],
    g: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    let acc = match g.dtype() {
        DType::F16 | DType::BF16 => DType::F32,
        dt => dt,
    };
    let zeros = full(rt, shape, acc, device, 0)?;
    let g = match g.dtype() == acc {
        true => Arc::clone(g),
        false => rt.cast(g, acc)?,
    };
    rt.index_put_add(&zeros, items, &g)?;
    Ok(zeros)
}

/// `0, 1, …, n - 1` along dim `d` of `ndim` dims (size 1 elsewhere), to
/// broadcast against a tensor: each element's position along `d`.
pub fn positions(
    rt: &mut Runtime,
    n: usize,
    d: usize,
    ndim: usize,
    device: Device,
) -> R<Arc<Tensor>> {
    let pos = rt.arange(0.0, n as f64, 1.0, DType::I64, device)?;
    let mut along = vec![1i64; ndim];
    along[d] = n as i64;
    rt.reshape(&pos, &along)
}

/// `a + alpha * b`, PyTorch's `a.add(b, alpha=alpha)`: one kernel.
pub fn add_scaled(rt: &mut Runtime, a: &Tensor, b: &Tensor, alpha: f64) -> R<Arc<Tensor>> {
    let alpha = Tensor::scalar(alpha);
    rt.ternary(
        TernaryOp::AddScaled,
        Operand::strong(a),
        Operand::strong(b),
        Operand::weak(&alpha),
    )
}
