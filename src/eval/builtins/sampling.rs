//! `torch.multinomial(input, num_samples, replacement=False)`: indices
//! drawn by each row's weights. A CPU tensor's as PyTorch's CPU kernels
//! draw them (`runtime::cpu_random::multinomial`); a GPU tensor's composed
//! of device ops (a cumulative sum, uniform draws, a count of the sums at
//! or below each draw), so they are drawn on its device without a host
//! read, as PyTorch's are, from cudash's Philox generator. Also
//! `torch.bernoulli` and `torch.randint_like`.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::cpu_random::multinomial;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::along::AlongOp;
use crate::runtime::op::binary::Operand;
use crate::runtime::op::factory::{Distribution, NewTensor};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::{DType, Device, Tensor};
use crate::vocab::BinaryOp;

type R<T> = Result<T, Error>;

pub(super) fn multinomial(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let p = b.tensor("input")?;
    let n = b.int("num_samples")?.unwrap_or(1);
    let replacement = b.bool("replacement", false)?;
    b.result(draw(&mut me.rt, &p, n, replacement))
}

/// PyTorch's checks, then `n` draws per row.
fn draw(rt: &mut Runtime, p: &Arc<Tensor>, n: i64, replacement: bool) -> R<Arc<Tensor>> {
    rt.check_random()?;
    if !matches!(p.ndim(), 1 | 2) {
        return Err(Error::shape("prob_dist must be 1 or 2 dim"));
    }
    if !p.dtype().is_float() {
        return Err(Error::dtype(
            format!(
                "multinomial only supports floating-point dtypes for input, got: {}",
                p.dtype().scalar_name()
            ),
            Some("weights are floats: `torch.multinomial(w.float(), 1)`".into()),
        ));
    }
    let cols = p.shape()[p.ndim() - 1];
    if n <= 0 {
        return Err(Error::shape("cannot sample n_sample <= 0 samples"));
    }
    let n = n as usize;
    if !replacement && n > cols {
        return Err(Error::shape(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
        ));
    }
    // PyTorch's CPU kernel checks the weights (its GPU kernel asserts on
    // the device); a cpu tensor's are read here, where reading costs nothing.
    if p.device() == Device::Cpu {
        let w = p.to_vec::<f64>();
        if w.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err(Error::shape(
                "probability tensor contains either `inf`, `nan` or element < 0",
            ));
        }
        if w.chunks(cols.max(1))
            .any(|row| row.iter().sum::<f64>() <= 0.0)
        {
            return Err(Error::shape(
                "invalid multinomial distribution (sum of probabilities <= 0)",
            ));
        }
    }
    let rows = if p.ndim() == 2 { p.shape()[0] } else { 1 };
    if p.device() == Device::Cpu {
        // PyTorch's CPU kernels, on its CPU generator.
        let w = p.to_vec::<f64>();
        let drawn = multinomial::draw(rt.generators.cpu(), &w, cols, n, replacement, p.dtype());
        let shape = match p.ndim() {
            1 => vec![n],
            _ => vec![rows, n],
        };
        return rt.tensor(&Tensor::from_vec(drawn, shape), DType::I64, Device::Cpu);
    }
    let dims = [rows as i64, cols as i64];
    let mut weights = rt.reshape(p, &dims)?;
    let positions = rt.arange(0.0, cols as f64, 1.0, DType::I64, p.device())?;
    let mut picked = Vec::with_capacity(n);
    for _ in 0..n {
        let index = one_draw(rt, &weights, rows, cols)?;
        if !replacement {
            // The drawn column weighs nothing for the next draw.
            let other = rt.binary(
                BinaryOp::Ne,
                Operand::strong(&positions),
                Operand::strong(&index),
            )?;
            weights = rt.binary(
                BinaryOp::Mul,
                Operand::strong(&weights),
                Operand::strong(&other),
            )?;
        }
        picked.push(index);
    }
    let refs: Vec<&Tensor> = picked.iter().map(|t| &**t).collect();
    let out = rt.join(&refs, 1, false)?;
    match p.ndim() {
        1 => rt.reshape(&out, &[n as i64]),
        _ => Ok(out),
    }
}

/// One index per row [rows, 1]: the first column whose running sum of
/// weights passes a uniform draw scaled to the row's total.
fn one_draw(rt: &mut Runtime, w: &Arc<Tensor>, rows: usize, cols: usize) -> R<Arc<Tensor>> {
    let sums = rt.along(AlongOp::Cumsum, 0.0, w, Some(1), false)?;
    let total = Arc::new(crate::runtime::op::index::narrow(&sums, 1, cols - 1, 1)?);
    let new = NewTensor {
        shape: &[rows, 1],
        dtype: w.dtype(),
        device: w.device(),
        like: None,
    };
    let u = rt.random(new, Distribution::Uniform)?;
    let target = rt.binary(BinaryOp::Mul, Operand::strong(&u), Operand::strong(&total))?;
    let passed = rt.binary(
        BinaryOp::Le,
        Operand::strong(&sums),
        Operand::strong(&target),
    )?;
    let count = rt.reduce(ReduceOp::Sum, &passed, Some(1), true)?;
    let count = rt.cast(&count, DType::I64)?;
    // A draw at the very top (rounding) stays in the last column.
    rt.binary(
        BinaryOp::Minimum,
        Operand::strong(&count),
        Operand::weak(&Tensor::scalar((cols - 1) as i64)),
    )
}

/// `0..n` in a random order, as `randperm(n)` draws it on the cpu's
/// generator.
pub(crate) fn permutation(me: &mut Interp, n: usize) -> Result<Vec<usize>, Error> {
    me.rt.check_random()?;
    crate::data::sampler::permutation(n, me.rt.generators.cpu())
}

/// `torch.randperm(n, dtype=torch.int64, device=None)`: `0..n` in a random
/// order (PyTorch's `randperm_cpu` on the cpu's generator, then put on
/// `device`).
pub(super) fn randperm(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let n = b.int("n")?.unwrap_or(0);
    let n = usize::try_from(n)
        .map_err(|_| Error::shape(format!("n must be non-negative, got{n}")).at(b.span_of("n")))?;
    let dtype = b.dtype("dtype")?.unwrap_or(DType::I64);
    let device = me.device_arg(b)?;
    let order = permutation(me, n).map_err(|e| e.at(b.span))?;
    let host = Tensor::from_vec(
        order.into_iter().map(|i| i as i64).collect::<Vec<i64>>(),
        vec![n],
    );
    b.result(me.rt.tensor(&host, dtype, device))
}

/// `torch.bernoulli(input)`: 1 where a draw falls below `input`'s element
/// (each a probability), else 0, in its dtype (`BernoulliBackward0`: zeros).
pub(super) fn bernoulli(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let p = b.tensor("input")?;
    let at = |e: Error| e.at(b.span);
    crate::eval::methods::random::floats_only(&p, "bernoulli_tensor_cpu_p_").map_err(at)?;
    let u = crate::eval::methods::random::uniform(me, &p, Some(p.dtype())).map_err(at)?;
    let hit = me
        .rt
        .binary(BinaryOp::Lt, Operand::strong(&u), Operand::strong(&p))
        .map_err(at)?;
    let out = me.rt.cast(&hit, p.dtype()).map_err(at)?;
    let backward = crate::autograd::node::Backward::Zero;
    Ok(Value::Tensor(me.recorded(
        &p,
        out,
        "BernoulliBackward0",
        backward,
    )))
}

/// `torch.randint_like(input, low=0, high)`: integers uniform in [low,
/// high) of input's shape, in its dtype (or `dtype=`) on its device.
pub(super) fn randint_like(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let like = b.tensor("input")?;
    let (low, high) = match (b.int("low")?, b.int("high")?) {
        (Some(l), Some(h)) => (l, h),
        (Some(h), None) => (0, h),
        _ => {
            return Err(Error::value(
                "randint_like() needs `high`, the integer above the largest it draws",
            )
            .at(b.span))
        }
    };
    if low >= high {
        return Err(Error::runtime(format!(
            "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        ))
        .at(b.span));
    }
    let new = NewTensor {
        shape: like.shape(),
        dtype: b.dtype("dtype")?.unwrap_or(like.dtype()),
        device: like.device(),
        like: Some(&like),
    };
    let range = high.abs_diff(low);
    b.result(me.rt.random(new, Distribution::Integers { low, range }))
}
