//! The backward formulas of the reductions that need more than a sum
//! expanded back: `max(dim)`/`min(dim)`, `prod`, `var`/`std`, `norm`,
//! `cumsum`, `cumprod`, `sort`/`topk`, each as PyTorch's `FunctionsManual.cpp` computes it, with the
//! op layer's ops (so on sim, emu and cuda alike).

use std::sync::Arc;

use super::create_graph as cg;
use super::ops::{add_into_zeros, bin, bin_s, masked, pick, positions, sign, unsqueeze_back};
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::along::AlongOp;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `max(dim)` / `min(dim)`: `g` at the index each slice picked, zeros
/// elsewhere (the position along `dim` compared with the index).
pub fn select_reduce(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    indices: &Tensor,
    (shape, dim, keepdim): (&[usize], usize, bool),
) -> R<Arc<Tensor>> {
    if shape.is_empty() {
        return Ok(Arc::clone(g));
    }
    let idx = unsqueeze_back(indices, &[dim], keepdim)?;
    let gu = cg::unsqueeze_back(rt, mode, g, &[dim], keepdim)?;
    let pos = positions(rt, shape[dim], dim, shape.len(), g.device())?;
    let hit = bin(rt, BinaryOp::Eq, &pos, &idx)?;
    cg::masked(rt, mode, &hit, &gu)
}

/// `prod()` / `prod(dim)`: `g * (out / x)` when no element is zero (read
/// by the host, a sync on a GPU, as PyTorch's `prod_backward` reads it);
/// else each element's product of the others: the product of its slice's
/// non-zeros at a slice's only zero, zero where a slice has two.
pub fn prod(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    x: &Tensor,
    out: &Tensor,
    dim: Option<usize>,
    keepdim: bool,
) -> R<Arc<Tensor>> {
    if x.ndim() == 0 {
        return Ok(Arc::clone(g));
    }
    let dims: Vec<usize> = dim.into_iter().collect();
    let gu = unsqueeze_back(g, &dims, keepdim || dim.is_none())?;
    let ou = unsqueeze_back(out, &dims, keepdim || dim.is_none())?;
    let zero = bin_s(rt, BinaryOp::Eq, x, 0.0)?;
    let count = rt.reduce(ReduceOp::Sum, &zero, None, false)?;
    let zeros = rt.on_host(&count)?.to_vec::<i64>()[0];
    let quotient = bin(rt, BinaryOp::Div, &ou, x)?;
    if zeros == 0 {
        return bin(rt, BinaryOp::Mul, &gu, &quotient);
    }
    let one = Tensor::scalar(1.0f64);
    let nonzero = rt.ternary(
        TernaryOp::Where,
        Operand::strong(&zero),
        Operand::weak(&one),
        Operand::strong(x),
    )?;
    let d = dim.map(|d| d as i64);
    let (others, counts) = match d {
        Some(_) => (
            rt.reduce(ReduceOp::Prod, &nonzero, d, true)?,
            rt.reduce(ReduceOp::Sum, &zero, d, true)?,
        ),
        None => (
            rt.reduce(ReduceOp::Prod, &nonzero, None, false)?,
            rt.reduce(ReduceOp::Sum, &zero, None, false)?,
        ),
    };
    let single = bin_s(rt, BinaryOp::Eq, &counts, 1.0)?;
    let at_zero = masked(rt, &single, &others)?;
    let none = bin_s(rt, BinaryOp::Eq, &counts, 0.0)?;
    let elsewhere = masked(rt, &none, &quotient)?;
    let picked = pick(rt, &zero, &at_zero, &elsewhere)?;
    bin(rt, BinaryOp::Mul, &gu, &picked)
}

/// `var` (and `std`, whose gradient first becomes var's: `g / (2 std)`,
/// 0 where std is 0): `(2 / (n - correction)) * g * (x - mean)`.
pub fn var(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (x, std): (&Arc<Tensor>, Option<&Arc<Tensor>>),
    (dims, correction, keepdim): (Option<&[usize]>, f64, bool),
) -> R<Arc<Tensor>> {
    let g = match std {
        Some(s) => {
            let twice = cg::bin_s(rt, mode, BinaryOp::Mul, s, 2.0)?;
            let q = cg::bin(rt, mode, BinaryOp::Div, g, &twice)?;
            let on = cg::bin_s(rt, mode, BinaryOp::Ne, s, 0.0)?;
            cg::masked(rt, mode, &on, &q)?
        }
        None => Arc::clone(g),
    };
    match dims {
        Some(dims) if x.ndim() > 0 => {
            let g = cg::unsqueeze_back(rt, mode, &g, dims, keepdim || x.ndim() == 1)?;
            let n: usize = dims.iter().map(|&d| x.shape()[d]).product();
            let ds: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
            let mean = record::reduce_dims(rt, mode, ReduceOp::Mean, x, &ds, true)?;
            let centred = cg::bin(rt, mode, BinaryOp::Sub, x, &mean)?;
            let scaled = cg::s_bin(rt, mode, BinaryOp::Mul, 2.0 / (n as f64 - correction), &g)?;
            cg::bin(rt, mode, BinaryOp::Mul, &scaled, &centred)
        }
        _ => {
            let mean = record::reduce(rt, mode, ReduceOp::Mean, x, None, false)?;
            let dof = x.numel() as f64 - correction;
            if dof <= 0.0 {
                // NaN where x is its mean, inf elsewhere, as PyTorch.
                let nan = full_scalar(rt, x, f64::NAN)?;
                let inf = full_scalar(rt, x, f64::INFINITY)?;
                let at_mean = cg::bin(rt, mode, BinaryOp::Eq, x, &mean)?;
                let w = cg::pick(rt, mode, &at_mean, &nan, &inf)?;
                return cg::bin(rt, mode, BinaryOp::Mul, &g, &w);
            }
            let centred = cg::bin(rt, mode, BinaryOp::Sub, x, &mean)?;
            let scaled = cg::s_bin(rt, mode, BinaryOp::Mul, 2.0 / dof, &g)?;
            cg::bin(rt, mode, BinaryOp::Mul, &scaled, &centred)
        }
    }
}

/// A tensor of `like`'s shape, dtype and device filled with a float.
fn full_scalar(rt: &mut Runtime, like: &Tensor, v: f64) -> R<Arc<Tensor>> {
    let zeros = super::ops::full_like(rt, like, 0)?;
    bin_s(rt, BinaryOp::Add, &zeros, v)
}

/// The vector `p`-norm's gradient (PyTorch's `norm_backward`).
pub fn norm(
    rt: &mut Runtime,
    mode: Mode,
    g: &Arc<Tensor>,
    (x, out): (&Arc<Tensor>, &Arc<Tensor>),
    (p, dims, keepdim): (f64, &[usize], bool),
) -> R<Arc<Tensor>> {
    let flat = keepdim || x.ndim() == 0;
    let g = cg::unsqueeze_back(rt, mode, g, dims, flat)?;
    let n = cg::unsqueeze_back(rt, mode, out, dims, flat)?;
    use BinaryOp::*;
    if p == 0.0 {
        // PyTorch gives no gradient: zeros.
        return super::ops::full_like(rt, x, 0);
    }
    if p == 1.0 {
        let s = sign(rt, x)?;
        let s = cg::flat(rt, mode, s, x, "SgnBackward0");
        return cg::bin(rt, mode, Mul, &s, &g);
    }
    if p == 2.0 {
        // g * (x / norm), 0 where the norm is 0.
        let q = cg::bin(rt, mode, Div, x, &n)?;
        let on = cg::bin_s(rt, mode, Ne, &n, 0.0)?;
        let q = cg::masked(rt, mode, &on, &q)?;
        return cg::bin(rt, mode, Mul, &g, &q);
    }
    if p.is_infinite() {
        // sgn(x) * ((g / count) * mask): the elements that reach the norm share it.
        let a = cg::unary(rt, mode, UnaryOp::Abs, x)?;
        let hit = cg::bin(rt, mode, Eq, &a, &n)?;
        let nan = cg::bin(rt, mode, Ne, &a, &a)?;
        let mask = cg::bin(rt, mode, LogicalOr, &hit, &nan)?;
        let ds: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let count = match ds.is_empty() {
            true => rt.reduce(ReduceOp::Sum, &mask, None, false)?,
            false => rt.reduce_dims(ReduceOp::Sum, &mask, &ds, true)?,
        };
        let share = cg::bin(rt, mode, Div, &g, &count)?;
        let share = cg::cast(rt, mode, &share, g.dtype())?;
        let picked = cg::bin(rt, mode, Mul, &share, &mask)?;
        let s = sign(rt, x)?;
        let s = cg::flat(rt, mode, s, x, "SgnBackward0");
        return cg::bin(rt, mode, Mul, &s, &picked);
    }
    let a = cg::unary(rt, mode, UnaryOp::Abs, x)?;
    let s = sign(rt, x)?;
    let s = cg::flat(rt, mode, s, x, "SgnBackward0");
    if p < 1.0 {
        // sgn(x) |x|^(p-1) (0 where x is 0) * g * norm^(1-p)
        let pw = cg::bin_s(rt, mode, Pow, &a, p - 1.0)?;
        let scaled = cg::bin(rt, mode, Mul, &s, &pw)?;
        let on = cg::bin_s(rt, mode, Ne, x, 0.0)?;
        let scaled = cg::masked(rt, mode, &on, &scaled)?;
        let t = cg::bin(rt, mode, Mul, &scaled, &g)?;
        let np = cg::bin_s(rt, mode, Pow, &n, 1.0 - p)?;
        return cg::bin(rt, mode, Mul, &t, &np);
    }
    let scaled = if p < 2.0 {
        let pw = cg::bin_s(rt, mode, Pow, &a, p - 1.0)?;
        cg::bin(rt, mode, Mul, &s, &pw)?
    } else {
        let pw = cg::bin_s(rt, mode, Pow, &a, p - 2.0)?;
        cg::bin(rt, mode, Mul, x, &pw)?
    };
    let np = cg::bin_s(rt, mode, Pow, &n, p - 1.0)?;
    let v = cg::bin(rt, mode, Div, &g, &np)?;
    let on = cg::bin_s(rt, mode, Ne, &n, 0.0)?;
    let v = cg::masked(rt, mode, &on, &v)?;
    cg::bin(rt, mode, Mul, &scaled, &v)
}

/// `cumsum(dim)`: the gradient summed from the end (`g.flip(dim).cumsum(dim).flip(dim)`).
pub fn cumsum(rt: &mut Runtime, mode: Mode, g: &Arc<Tensor>, dim: usize) -> R<Arc<Tensor>> {
    if g.numel() <= 1 || g.shape().get(dim).is_none_or(|&n| n == 1) {
        return Ok(Arc::clone(g));
    }
    let d = [dim as i64];
    let flipped = cg::flip(rt, mode, g, &d)?;
    let sums = rt.along(AlongOp::Cumsum, 0.0, &flipped, Some(dim as i64), false)?;
    let sums = record::cumsum(rt, mode, &flipped, sums, dim as i64)?;
    cg::flip(rt, mode, &sums, &d)
}

/// `cumprod(dim)`: where `x` has no zero (read by the host, a sync on a
/// GPU, as PyTorch's `cumprod_backward` reads it), `g * out` summed from
/// the end, over `x`. Else, per slice: that before its first zero; at the
/// first zero, `g` times the products with that zero taken as 1, summed
/// from the end; zero after it (every product there holds the zero).
pub fn cumprod(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    x: &Tensor,
    out: &Tensor,
    dim: usize,
) -> R<Arc<Tensor>> {
    if g.numel() <= 1 || x.shape().get(dim).is_none_or(|&n| n == 1) {
        return Ok(Arc::clone(g));
    }
    let w = bin(rt, BinaryOp::Mul, out, g)?;
    let zero = bin_s(rt, BinaryOp::Eq, x, 0.0)?;
    let count = rt.reduce(ReduceOp::Sum, &zero, None, false)?;
    if rt.on_host(&count)?.to_vec::<i64>()[0] == 0 {
        let sums = cumsum(rt, Mode::off(), &w, dim)?;
        return bin(rt, BinaryOp::Div, &sums, x);
    }
    let d = Some(dim as i64);
    let seen = rt.along(AlongOp::Cumsum, 0.0, &zero, d, false)?;
    // Before the first zero: x is not zero there.
    let before = bin_s(rt, BinaryOp::Eq, &seen, 0.0)?;
    let ones = bin_s(rt, BinaryOp::Mul, x, 0.0)?;
    let ones = bin_s(rt, BinaryOp::Add, &ones, 1.0)?;
    let safe = pick(rt, &before, x, &ones)?;
    let sums = cumsum(rt, Mode::off(), &w, dim)?;
    let early = bin(rt, BinaryOp::Div, &sums, &safe)?;
    let early = masked(rt, &before, &early)?;
    // At the first zero: the products with it taken as 1.
    let once = bin_s(rt, BinaryOp::Eq, &seen, 1.0)?;
    let first = bin(rt, BinaryOp::BitAnd, &once, &zero)?;
    let lifted = pick(rt, &first, &ones, x)?;
    let products = rt.along(AlongOp::Cumprod, 0.0, &lifted, d, false)?;
    let w = bin(rt, BinaryOp::Mul, &products, g)?;
    let sums = cumsum(rt, Mode::off(), &w, dim)?;
    let at = masked(rt, &first, &sums)?;
    bin(rt, BinaryOp::Add, &early, &at)
}

/// `sort(dim)` / `topk(k, dim)`: `g` written into zeros of the input's
/// `shape` at the places `indices` picked along `dim` (PyTorch's
/// `value_selecting_reduction_backward`, a scatter).
pub fn scatter_along(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    indices: &Tensor,
    shape: &[usize],
    dim: usize,
) -> R<Arc<Tensor>> {
    use crate::runtime::op::index::Index;
    if shape.is_empty() {
        return Ok(Arc::clone(g));
    }
    if g.numel() == 0 {
        return super::ops::full(rt, shape, g.dtype(), g.device(), 0);
    }
    let mut items = Vec::with_capacity(shape.len());
    for (d, &n) in indices.shape().iter().enumerate() {
        let item = match d == dim {
            true => Arc::new(indices.alias()),
            false => positions(rt, n, d, shape.len(), g.device())?,
        };
        items.push(Index::Tensor(item));
    }
    add_into_zeros(rt, shape, g.device(), &items, g)
}
