//! `F.max_unpool2d(x, indices, ...)` (and `max_unpool1d` over 1 x L
//! images): a max pool's outputs written back at the places its
//! `return_indices=True` gave (`h * W + w` in each plane), zeros
//! elsewhere; one node, `MaxUnpool2DBackward0`, whose gradient reads `g`
//! at those places.

use std::sync::Arc;

use super::node::{Backward, Saved};
use super::record::attach_node;
use super::{forward_ad, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::shape::spaced_shape;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// `x` [N, C, H, W] (or [C, H, W]) unpooled into planes of `size`
/// (height, width), recorded.
pub fn max_unpool2d(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    indices: &Arc<Tensor>,
    size: (usize, usize),
) -> R<Arc<Tensor>> {
    let out = unpool_node(rt, mode, x, indices, size)?;
    // Forward-mode AD: linear in x, so the tangent unpooled alike.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        unpool_node(rt, mode, t, indices, size)
    })
}

fn unpool_node(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    indices: &Arc<Tensor>,
    size: (usize, usize),
) -> R<Arc<Tensor>> {
    let out = unpooled(rt, x, indices, size)?;
    let backward = Backward::MaxUnpool {
        which: Saved::new(indices),
    };
    Ok(attach_node(
        rt,
        mode,
        out,
        "MaxUnpool2DBackward0",
        backward,
        &[x],
    ))
}

/// The unpooling alone, nothing recorded, with PyTorch's checks.
fn unpooled(
    rt: &mut Runtime,
    x: &Arc<Tensor>,
    indices: &Arc<Tensor>,
    (oh, ow): (usize, usize),
) -> R<Arc<Tensor>> {
    if indices.dtype() != DType::I64 {
        return Err(Error::runtime(format!(
            "elements in indices should be type int64 but got: {}",
            indices.dtype().scalar_name()
        )));
    }
    if x.shape() != indices.shape() {
        return Err(Error::runtime(format!(
            "Expected shape of indices to be same as that of the input tensor ({}) but got indices tensor with shape: {}",
            spaced_shape(x.shape()),
            spaced_shape(indices.shape())
        )));
    }
    if !matches!(x.ndim(), 3 | 4) || x.shape()[x.ndim() - 2..].contains(&0) {
        return Err(Error::runtime(format!(
            "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {} dimensions.",
            x.ndim()
        )));
    }
    let nd = x.ndim();
    let planes: usize = x.shape()[..nd - 2].iter().product();
    let per = x.shape()[nd - 2] * x.shape()[nd - 1];
    let area = oh * ow;
    let flat = rt.reshape(indices, &[planes as i64, per as i64])?;
    // PyTorch's kernel checks each index as it writes (the host reads them).
    let read = rt.read_all(&flat, || flat.to_vec::<i64>())?;
    if let Some(idx) = read.iter().find(|&&i| i < 0 || i >= area as i64) {
        return Err(Error::runtime(format!(
            "Found an invalid max index: {idx} (output volumes are of size {oh}x{ow})"
        )));
    }
    // Each element's place in the flat output: its plane's start plus
    // its index.
    let base = super::ops::positions(rt, planes, 0, 2, x.device())?;
    let step = Tensor::scalar(area as i64);
    let base = rt.binary(BinaryOp::Mul, Operand::strong(&base), Operand::weak(&step))?;
    let places = rt.binary(
        BinaryOp::Add,
        Operand::strong(&flat),
        Operand::strong(&base),
    )?;
    let places = rt.reshape(&places, &[-1])?;
    let values = rt.reshape(x, &[-1])?;
    let out = super::ops::full(rt, &[planes * area], x.dtype(), x.device(), 0)?;
    rt.index_put(&out, &[Index::Tensor(places)], &values)?;
    let mut shape: Vec<i64> = x.shape()[..nd - 2].iter().map(|&n| n as i64).collect();
    shape.extend([oh as i64, ow as i64]);
    rt.reshape(&out, &shape)
}
