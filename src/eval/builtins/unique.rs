//! `torch.unique(input, sorted=True, return_inverse=False,
//! return_counts=False)` and `x.unique(...)`: the distinct elements in
//! order, composed of the op layer's ops so a device tensor stays on its
//! device: a stable sort of the flattened input, a mask of where each run
//! of equal elements starts, the mask's elements (a host read of how many,
//! as PyTorch's unique syncs on a GPU: the count decides the shape), and
//! from the mask the counts (the runs' lengths) and the inverse (each
//! element's run, put back at its place before the sort).

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::along::AlongOp;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::op::index::Index;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// `unique(input, ...)`: the values, and the inverse and counts asked for
/// (a tuple of them when either is).
pub(super) fn unique(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let x = b.tensor("input")?;
    unique_of(me, &x, b)
}

/// `x.unique(sorted=True, return_inverse=False, return_counts=False)`.
pub(crate) fn unique_of(me: &mut Interp, x: &Arc<Tensor>, b: &Bound) -> Result<Value, Diagnostic> {
    b.bool("sorted", true)?;
    let (inverse, counts) = (
        b.bool("return_inverse", false)?,
        b.bool("return_counts", false)?,
    );
    if b.given("dim").is_some() {
        return Err(Error::value_help(
            "unique(dim=...) (distinct slices) is not in cudash yet",
            "leave `dim` out: the distinct elements of the whole tensor",
        )
        .at(b.span_of("dim")));
    }
    let parts = distinct(&mut me.rt, x, (inverse, counts)).map_err(|e| e.at(b.span))?;
    Ok(match parts.as_slice() {
        [values] => Value::Tensor(Arc::clone(values)),
        _ => Value::List(Arc::new(parts.into_iter().map(Value::Tensor).collect())),
    })
}

/// The distinct values of `x` in order, then its inverse and its counts
/// when `wanted`.
fn distinct(rt: &mut Runtime, x: &Arc<Tensor>, wanted: (bool, bool)) -> R<Vec<Arc<Tensor>>> {
    let n = x.numel();
    let flat = rt.reshape(x, &[-1])?;
    let (sorted, perm) = rt.sort(&flat, 0, false)?;
    // Where each run starts: the first element, and every one unlike the last.
    let head = rt.full(new(&[1.min(n)], DType::Bool, x), Fill::Bool(true))?;
    let later = rt.index(&sorted, &[slice(1, n)])?;
    let earlier = rt.index(&sorted, &[slice(0, n.saturating_sub(1))])?;
    let unlike = rt.binary(
        BinaryOp::Ne,
        Operand::strong(&later),
        Operand::strong(&earlier),
    )?;
    let starts = rt.join(&[&head, &unlike], 0, false)?;
    let mut out = vec![rt.index(&sorted, &[Index::Tensor(Arc::clone(&starts))])?];
    if wanted.0 {
        // Each sorted element's run: the starts counted so far, less one.
        let ones = rt.cast(&starts, DType::I64)?;
        let run = rt.along(AlongOp::Cumsum, 0.0, &ones, Some(0), false)?;
        let run = rt.binary(
            BinaryOp::Sub,
            Operand::strong(&run),
            Operand::weak(&Tensor::scalar(1i64)),
        )?;
        let inverse = rt.empty(new(&[n], DType::I64, x))?;
        rt.index_put(&inverse, &[Index::Tensor(perm)], &run)?;
        let dims: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
        out.push(rt.reshape(&inverse, &dims)?);
    }
    if wanted.1 {
        // A run's length: where the next one starts (or the end), less its start.
        let at = rt.nonzero(&starts)?;
        let at = rt.reshape(&at, &[-1])?;
        let k = at.numel();
        let end = rt.full(new(&[1.min(k)], DType::I64, x), Fill::Int(n as i64))?;
        let next = rt.index(&at, &[slice(1, k)])?;
        let ends = rt.join(&[&next, &end], 0, false)?;
        out.push(rt.binary(BinaryOp::Sub, Operand::strong(&ends), Operand::strong(&at))?);
    }
    Ok(out)
}

/// `[from:to]` of the first dim.
fn slice(from: usize, to: usize) -> Index {
    Index::Slice(Some(from as i64), Some(to as i64), None)
}

/// A new tensor of `shape` and `dtype` on `like`'s device.
fn new<'a>(shape: &'a [usize], dtype: DType, like: &Tensor) -> NewTensor<'a> {
    NewTensor {
        shape,
        dtype,
        device: like.device(),
        like: None,
    }
}
