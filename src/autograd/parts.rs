//! The backward of ops whose outputs are parts or copies of one input,
//! recorded as one node with an output per part: `chunk`, `split` and
//! `unbind` (`SplitBackward0`, `UnbindBackward0`), DataParallel's
//! `scatter` (`ScatterBackward`) and `replicate` (`BroadcastBackward`).
//! The outputs' gradients (none where undefined) become the input's in
//! one op, as PyTorch's formulas do: one `cat` or `stack`, one gather onto
//! the input's device, one reduce-add.

use std::sync::Arc;

use super::node::{Grads, InputMeta};
use super::ops::full;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::{Device, Tensor};

type R<T> = Result<T, Error>;

/// PyTorch's `split_backward` / `unbind_backward`: the parts' gradients
/// joined along `dim` (stacked when the parts lost it), zeros for a part
/// whose gradient is undefined.
pub fn split(
    rt: &mut Runtime,
    mode: super::Mode,
    input: &InputMeta,
    gs: &[Option<Arc<Tensor>>],
    (dim, sizes, stacked): (usize, &[usize], bool),
) -> R<Grads> {
    let mut parts = Vec::with_capacity(gs.len());
    for (g, &size) in gs.iter().zip(sizes) {
        parts.push(or_zeros(rt, g, input, (dim, size, stacked), input.device)?);
    }
    let parts: Vec<&Tensor> = parts.iter().map(|p| &**p).collect();
    let joined = rt.join(&parts, dim as i64, stacked)?;
    // Recorded (`CatBackward0`, `StackBackward0`) when creating a graph.
    Ok(vec![Some(super::record::join(
        rt, mode, &parts, joined, dim as i64, stacked,
    )?)])
}

/// `Scatter`'s backward (`torch.nn.parallel._functions`): the parts'
/// gradients gathered onto the input's device in one output (`Gather`),
/// zeros on a part's device for an undefined one (PyTorch materialises
/// them for a custom Function).
pub fn gather(
    rt: &mut Runtime,
    input: &InputMeta,
    gs: &[Option<Arc<Tensor>>],
    (dim, parts): (usize, &[(usize, Device)]),
) -> R<Grads> {
    let mut grads = Vec::with_capacity(gs.len());
    for (g, &(size, device)) in gs.iter().zip(parts) {
        grads.push(or_zeros(rt, g, input, (dim, size, false), device)?);
    }
    let grads: Vec<&Tensor> = grads.iter().map(|p| &**p).collect();
    Ok(vec![Some(rt.gather(&grads, dim as i64, input.device)?)])
}

/// A part's gradient `g`, or zeros of the part's shape on `device` when
/// it is undefined: the input's shape with `size` along `dim` (without
/// `dim` when the parts lost it).
fn or_zeros(
    rt: &mut Runtime,
    g: &Option<Arc<Tensor>>,
    input: &InputMeta,
    (dim, size, stacked): (usize, usize, bool),
    device: Device,
) -> R<Arc<Tensor>> {
    if let Some(g) = g {
        return Ok(Arc::clone(g));
    }
    let mut shape = input.shape.clone();
    match stacked {
        true => drop(shape.remove(dim)),
        false => shape[dim] = size,
    }
    full(rt, &shape, input.dtype, device, 0)
}

/// `Broadcast`'s backward (`ReduceAddCoalesced`): the replicas'
/// gradients summed on the input's device, as `torch.cuda.comm.reduce_add`
/// does without NCCL: the one there plus each other one copied over, added
/// in place.
pub fn reduce_add(rt: &mut Runtime, input: &InputMeta, gs: &[Option<Arc<Tensor>>]) -> R<Grads> {
    let mut defined: Vec<&Arc<Tensor>> = gs.iter().flatten().collect();
    // The root (the replica on the input's device) first.
    if let Some(i) = defined.iter().position(|g| g.device() == input.device) {
        defined.swap(0, i);
    }
    let mut others = defined.into_iter();
    let Some(root) = others.next() else {
        return Ok(vec![None]);
    };
    let root = match root.device() == input.device {
        true => Arc::clone(root),
        false => rt.copy_to(root, input.device)?,
    };
    let Some(first) = others.next() else {
        return Ok(vec![Some(root)]);
    };
    let first = rt.copy_to(first, input.device)?;
    let sum = rt.binary(
        BinaryOp::Add,
        Operand::strong(&root),
        Operand::strong(&first),
    )?;
    for other in others {
        let other = rt.copy_to(other, input.device)?;
        rt.binary_(BinaryOp::Add, &sum, Operand::strong(&other))?;
    }
    Ok(vec![Some(sum)])
}
