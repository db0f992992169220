//! The backward formulas of in-place ops (`inplace.rs`): `CopySlices`,
//! a view made again (`AsStridedBackward0`), ops that overwrite, `copy_`
//! and `index_put_`, as PyTorch's `torch/csrc/autograd` computes them,
//! with the op layer's ops.

use std::sync::Arc;

use super::node::{Geometry, Grads, InputMeta, Node};
use super::ops::{add_into_zeros, bin, full, positions};
use super::Mode;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::Fill;
use crate::runtime::op::index::Index;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// `CopySlices`: `g` is the base's gradient. The view's part of it goes
/// through the op's own node (`inner`), whose gradient for the view's old
/// elements is written back in its place; the other inputs' gradients are
/// `inner`'s.
pub fn copy_slices(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    view: &Geometry,
    inner: &Arc<Node>,
) -> R<Grads> {
    let base = rt.copy(g)?;
    let region = Arc::new(view.of(&base));
    // The op's formula may hand `g` itself to several inputs: it gets a copy.
    let part = rt.copy(&region)?;
    let mut grads = inner.with_saved(|b| b.apply(rt, (inner, Mode::off()), &part))?;
    // `inner`'s first edge is the base's: whether the base wants a gradient.
    grads[0] = match (inner.wants(0), grads[0].take()) {
        (false, _) => None,
        (true, Some(old)) => {
            let old = to_input(rt, &old, &inner.inputs[0])?;
            rt.assign(&region, &old)?;
            Some(base)
        }
        (true, None) => {
            rt.fill(&region, Fill::Int(0))?;
            Some(base)
        }
    };
    Ok(grads)
}

/// `AsStridedBackward0`: `g`, the gradient of a view, written back to
/// where the view lies in a base of `base`'s shape (added up where the
/// view repeats elements, as an `expand`ed view does).
pub fn as_strided(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    view: &Geometry,
    base: &InputMeta,
) -> R<Grads> {
    let g = to_device(rt, g, base)?;
    if !view.overlaps() || g.numel() == 0 {
        let zeros = full(rt, &base.shape, g.dtype(), base.device, 0)?;
        rt.assign(&view.of(&zeros), &g)?;
        return Ok(vec![Some(zeros)]);
    }
    // Each element's place in the base, added into a flat zeros.
    let numel: usize = base.shape.iter().product();
    let mut places = full(rt, &view.shape, DType::I64, base.device, view.offset as i64)?;
    for (d, (&n, &s)) in view.shape.iter().zip(&view.strides).enumerate() {
        let step = positions(rt, n, d, view.shape.len(), base.device)?;
        // An int stride: the places stay int64 (a float would promote them).
        let stride = Tensor::scalar(s as i64);
        let step = rt.binary(
            BinaryOp::Mul,
            Operand::strong(&step),
            Operand::weak(&stride),
        )?;
        places = bin(rt, BinaryOp::Add, &places, &step)?;
    }
    let flat = add_into_zeros(rt, &[numel], base.device, &[Index::Tensor(places)], &g)?;
    let shape: Vec<i64> = base.shape.iter().map(|&n| n as i64).collect();
    Ok(vec![Some(rt.reshape(&flat, &shape)?)])
}

/// `fill_`, `zero_`, `normal_`: zeros for the old elements.
pub fn overwritten(rt: &mut Runtime, g: &Tensor, node: &Node) -> R<Grads> {
    let x = &node.inputs[0];
    Ok(vec![Some(full(rt, &x.shape, g.dtype(), g.device(), 0)?)])
}

/// `CopyBackwards`: zeros for the old elements, `g` for the source (in
/// its shape: `x[0] = ones(1, 3)` gave its leading 1s up).
pub fn copy(rt: &mut Runtime, g: &Arc<Tensor>, node: &Node) -> R<Grads> {
    let gx = match node.wants(0) {
        true => Some(full(rt, &node.inputs[0].shape, g.dtype(), g.device(), 0)?),
        false => None,
    };
    let gs = match node.wants(1) {
        true => Some(to_input(rt, g, &node.inputs[1])?),
        false => None,
    };
    Ok(vec![gx, gs])
}

/// `x[indices] = v`: `g` with the written elements zeroed to `x`, those
/// elements (`g[indices]`) to `v`.
pub fn index_put(rt: &mut Runtime, g: &Arc<Tensor>, items: &[Index], node: &Node) -> R<Grads> {
    let gx = match node.wants(0) {
        true => {
            let gx = rt.copy(g)?;
            let zero = full(rt, &[], g.dtype(), g.device(), 0)?;
            rt.index_put(&gx, items, &zero)?;
            Some(gx)
        }
        false => None,
    };
    let gv = match node.wants(1) {
        true => {
            let picked = rt.index(g, items)?;
            Some(to_input(rt, &picked, &node.inputs[1])?)
        }
        false => None,
    };
    Ok(vec![gx, gv])
}

/// `g` summed to an input's shape, where that input may have leading 1s
/// the write gave up (the engine gives it the input's dtype and device).
fn to_input(rt: &mut Runtime, g: &Arc<Tensor>, input: &InputMeta) -> R<Arc<Tensor>> {
    if g.shape() == input.shape.as_slice() {
        return Ok(Arc::clone(g));
    }
    let lead = input.shape.iter().take_while(|&&n| n == 1).count();
    let lead = lead.min(
        input
            .shape
            .len()
            .saturating_sub(g.ndim().min(input.shape.len())),
    );
    let summed = super::create_graph::sum_to(rt, Mode::off(), g, &input.shape[lead..])?;
    let shape: Vec<i64> = input.shape.iter().map(|&n| n as i64).collect();
    rt.reshape(&summed, &shape)
}

fn to_device(rt: &mut Runtime, g: &Arc<Tensor>, input: &InputMeta) -> R<Arc<Tensor>> {
    match g.device() == input.device {
        true => Ok(Arc::clone(g)),
        false => rt.copy_to(g, input.device),
    }
}
