//! DataParallel's coalesced copies, as `torch.cuda.comm` makes them, and
//! the autograd node that joins a module's parameters to its replicas'
//! (PyTorch's `Broadcast` Function, shown as `BroadcastBackward`, whose
//! backward is `ReduceAddCoalesced`).
//!
//! - `broadcast_coalesced`: the tensors (all on the first device) in
//!   buckets of about 10 MiB per dtype (`take_tensors`: a bucket closes
//!   once it reaches the limit, with the tensor that reached it); each
//!   bucket flattened into one buffer on the first device (a bucket of one
//!   tensor is its own flat view), broadcast, and cut back into views on
//!   every other device. The first device's outputs are the tensors
//!   themselves. So a replica's parameters are views of a few large
//!   buffers, which live as long as any of them.
//! - `reduce_add_coalesced`: each device's gradients in buckets of at
//!   most 10 MiB (Python's `_take_tensors`: a bucket closes before the
//!   tensor that would pass the limit), flattened on each device, reduced
//!   onto the destination with `reduce_to` (NCCL's `reduce`), and cut back
//!   into views of the result. An undefined gradient is zeros (a custom
//!   Function's gradients are materialised).

use std::sync::Arc;

use super::meta::{requires_grad, Meta};
use super::node::{Backward, Edges, Grads, InputMeta, Inputs, Node};
use super::ops::full;
use super::record::{edge, forward_stream, with_meta};
use super::Mode;
use crate::error::Error;
use crate::runtime::dispatch::collective::RedOp;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::view;
use crate::runtime::shape::contiguous_strides;
use crate::runtime::{DType, Device, Tensor};

type R<T> = Result<T, Error>;

/// `broadcast_coalesced`'s and `reduce_add_coalesced`'s default bucket
/// (`buffer_size=10485760`).
pub const BUFFER_SIZE: usize = 10 * 1024 * 1024;

/// C++ `take_tensors` (`fine_grained=false`): the tensors' indices in
/// buckets of one dtype, each closed once its bytes reach `limit` (the
/// tensor that reached it included); the open ones last, in dtype order.
pub fn take_tensors(ts: &[&Tensor], limit: usize) -> Vec<Vec<usize>> {
    let mut done = Vec::new();
    let mut open: Vec<(DType, Vec<usize>, usize)> = Vec::new();
    for (i, t) in ts.iter().enumerate() {
        let (_, group, size) = open_bucket(&mut open, t.dtype());
        group.push(i);
        *size += t.nbytes();
        if *size >= limit {
            done.push(std::mem::take(group));
            *size = 0;
        }
    }
    open.sort_by_key(|(d, _, _)| *d as u8);
    done.extend(
        open.into_iter()
            .map(|(_, g, _)| g)
            .filter(|g| !g.is_empty()),
    );
    done
}

/// The open bucket of `dtype` (a new one at the end when there is none).
fn open_bucket(
    open: &mut Vec<(DType, Vec<usize>, usize)>,
    dtype: DType,
) -> &mut (DType, Vec<usize>, usize) {
    let at = match open.iter().position(|(d, _, _)| *d == dtype) {
        Some(at) => at,
        None => {
            open.push((dtype, Vec::new(), 0));
            open.len() - 1
        }
    };
    &mut open[at]
}

/// Python's `torch._utils._take_tensors`: buckets of one dtype, each
/// closed before the tensor that would take it past `limit`; the open ones
/// last, in the order their dtype first came.
pub fn take_tensors_py(ts: &[&Tensor], limit: usize) -> Vec<Vec<usize>> {
    let mut done = Vec::new();
    let mut open: Vec<(DType, Vec<usize>, usize)> = Vec::new();
    for (i, t) in ts.iter().enumerate() {
        let (_, group, size) = open_bucket(&mut open, t.dtype());
        if *size + t.nbytes() > limit && *size > 0 {
            done.push(std::mem::take(group));
            *size = 0;
        }
        group.push(i);
        *size += t.nbytes();
    }
    done.extend(
        open.into_iter()
            .map(|(_, g, _)| g)
            .filter(|g| !g.is_empty()),
    );
    done
}

/// `flatten_dense_tensors`: one tensor's flat view, or the tensors
/// flattened and joined into a new buffer on their device.
fn flatten(rt: &mut Runtime, ts: &[&Tensor]) -> R<Arc<Tensor>> {
    let mut flat = Vec::with_capacity(ts.len());
    for t in ts {
        // `t.contiguous().view(-1)`: a strided gradient is copied first.
        let dense = match t.is_contiguous() {
            true => t.alias(),
            false => rt.copy(t)?.alias(),
        };
        flat.push(view::view(&dense, &[-1])?);
    }
    if let [one] = flat.as_slice() {
        return Ok(Arc::new(one.alias()));
    }
    let refs: Vec<&Tensor> = flat.iter().collect();
    rt.join(&refs, 0, false)
}

/// `unflatten_dense_tensors`: views of `flat`, one per tensor of `like`,
/// in their shapes, one after another.
fn unflatten(flat: &Tensor, like: &[&Tensor]) -> Vec<Arc<Tensor>> {
    let mut at = flat.offset();
    like.iter()
        .map(|t| {
            let shape = t.shape().to_vec();
            let strides = contiguous_strides(&shape);
            let v = flat.view(shape, strides, at);
            at += t.numel();
            Arc::new(v)
        })
        .collect()
}

/// `comm.broadcast_coalesced(tensors, devices)`: for each device of
/// `devices` (the first the tensors' own), its copy of every tensor, in
/// the tensors' order; the first device's are the tensors themselves.
pub fn broadcast_coalesced(
    rt: &mut Runtime,
    ts: &[Arc<Tensor>],
    devices: &[Device],
) -> R<Vec<Vec<Arc<Tensor>>>> {
    let source = devices[0];
    if let Some(t) = ts.iter().find(|t| t.device() != source) {
        return Err(Error::value(format!(
            "all tensors must be on devices[0] ({source}), and one is on {}",
            t.device()
        )));
    }
    let mut outputs: Vec<Vec<Option<Arc<Tensor>>>> = vec![vec![None; ts.len()]; devices.len()];
    outputs[0] = ts.iter().cloned().map(Some).collect();
    let refs: Vec<&Tensor> = ts.iter().map(|t| &**t).collect();
    for bucket in take_tensors(&refs, BUFFER_SIZE) {
        let members: Vec<&Tensor> = bucket.iter().map(|&i| refs[i]).collect();
        let flat = flatten(rt, &members)?;
        let copies = rt.broadcast(&flat, devices).map_err(|m| m.error)?;
        for (j, copy) in copies.iter().enumerate().skip(1) {
            for (&i, v) in bucket.iter().zip(unflatten(copy, &members)) {
                outputs[j][i] = Some(v);
            }
        }
        // The flat buffer on the first device goes with this bucket.
    }
    Ok(outputs
        .into_iter()
        .map(|row| row.into_iter().flatten().collect())
        .collect())
}

/// `Broadcast.apply(devices, *tensors)`: the copies of
/// `broadcast_coalesced`, as outputs of one `BroadcastBackward` node when
/// a tensor requires grad (the copies of those that do not are not
/// differentiable), each device's copies in the tensors' order.
pub fn broadcast(
    rt: &mut Runtime,
    mode: Mode,
    ts: &[Arc<Tensor>],
    devices: &[Device],
) -> R<Vec<Vec<Arc<Tensor>>>> {
    let copies = broadcast_coalesced(rt, ts, devices)?;
    let refs: Vec<&Tensor> = ts.iter().map(|t| &**t).collect();
    if !super::record::recording(mode, &refs) || ts.is_empty() {
        return Ok(copies);
    }
    let next: Edges = ts.iter().map(|t| edge(t)).collect();
    let inputs: Inputs = ts.iter().map(|t| InputMeta::of(t)).collect();
    let backward = Backward::BroadcastCoalesced {
        devices: devices.to_vec(),
    };
    let mut node = Node::new(
        "BroadcastBackward",
        backward,
        next,
        inputs,
        forward_stream(rt, &ts[0]),
    );
    node.outputs = ts.len() * devices.len();
    node.view = true;
    let node = Arc::new(node);
    let n = ts.len();
    Ok(copies
        .into_iter()
        .enumerate()
        .map(|(j, row)| {
            row.into_iter()
                .enumerate()
                .map(
                    |(k, copy)| match requires_grad(&ts[k]) && ts[k].dtype().is_float() {
                        true => {
                            let view = Meta::view_of(&ts[k], &copy);
                            with_meta(copy, Meta::output_of(Arc::clone(&node), j * n + k, view))
                        }
                        false => copy,
                    },
                )
                .collect()
        })
        .collect())
}

/// `ReduceAddCoalesced`: the gradient of each input of a
/// `BroadcastBackward` node (`inputs`, copied to `devices`) from its
/// outputs' gradients `gs` (device by device), summed on the first device.
pub fn reduce_add_backward(
    rt: &mut Runtime,
    node: &Node,
    devices: &[Device],
    gs: &[Option<Arc<Tensor>>],
) -> R<Grads> {
    let n = node.inputs.len();
    let mut per_device: Vec<Vec<Arc<Tensor>>> = Vec::with_capacity(devices.len());
    for (j, &d) in devices.iter().enumerate() {
        let mut row = Vec::with_capacity(n);
        for (k, input) in node.inputs.iter().enumerate() {
            row.push(match &gs[j * n + k] {
                Some(g) => Arc::clone(g),
                None => full(rt, &input.shape, input.dtype, d, 0)?,
            });
        }
        per_device.push(row);
    }
    let summed = reduce_add_coalesced(rt, &per_device)?;
    Ok(summed
        .into_iter()
        .enumerate()
        .map(|(k, g)| node.wants(k).then_some(g))
        .collect())
}

/// `comm.reduce_add_coalesced(inputs, destination)`: `per_device[j][k]`
/// is device j's tensor k; the sums land on device 0's device, as views
/// of one buffer per bucket.
pub fn reduce_add_coalesced(
    rt: &mut Runtime,
    per_device: &[Vec<Arc<Tensor>>],
) -> R<Vec<Arc<Tensor>>> {
    let first: Vec<&Tensor> = per_device[0].iter().map(|t| &**t).collect();
    let mut out: Vec<Option<Arc<Tensor>>> = vec![None; first.len()];
    // The last bucket's flat buffers stay until the next ones are made,
    // as the Python loop's list does until it is bound again.
    let mut _previous: Vec<Arc<Tensor>> = Vec::new();
    for bucket in take_tensors_py(&first, BUFFER_SIZE) {
        let mut flats = Vec::with_capacity(per_device.len());
        for row in per_device {
            let members: Vec<&Tensor> = bucket.iter().map(|&i| &*row[i]).collect();
            flats.push(flatten(rt, &members)?);
        }
        let result = match flats.as_slice() {
            [one] => Arc::clone(one),
            _ => {
                let refs: Vec<&Tensor> = flats.iter().map(|t| &**t).collect();
                rt.reduce_to(&refs, 0, RedOp::Sum).map_err(|m| m.error)?
            }
        };
        let members: Vec<&Tensor> = bucket.iter().map(|&i| first[i]).collect();
        for (&i, v) in bucket.iter().zip(unflatten(&result, &members)) {
            out[i] = Some(v);
        }
        _previous = flats;
    }
    Ok(out.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(n: usize) -> Tensor {
        Tensor::from_vec(vec![0f32; n], vec![n])
    }

    /// Three 4 MiB tensors: C++'s buckets close once they reach 10 MiB
    /// (all three in one), Python's before the one that would pass it.
    #[test]
    fn buckets_close_as_cpps_and_pythons_take_tensors_close_them() {
        let ts = [f32s(1 << 20), f32s(1 << 20), f32s(1 << 20)];
        let refs: Vec<&Tensor> = ts.iter().collect();
        assert_eq!(take_tensors(&refs, BUFFER_SIZE), vec![vec![0, 1, 2]]);
        assert_eq!(
            take_tensors_py(&refs, BUFFER_SIZE),
            vec![vec![0, 1], vec![2]]
        );
        // One bucket per dtype, each in its own order.
        let mixed = [f32s(4), Tensor::from_vec(vec![0i64; 4], vec![4]), f32s(4)];
        let refs: Vec<&Tensor> = mixed.iter().collect();
        assert_eq!(
            take_tensors_py(&refs, BUFFER_SIZE),
            vec![vec![0, 2], vec![1]]
        );
        // A tensor larger than the limit is a bucket of its own.
        let big = [f32s(4), f32s(3 << 20), f32s(4)];
        let refs: Vec<&Tensor> = big.iter().collect();
        assert_eq!(take_tensors(&refs, BUFFER_SIZE), vec![vec![0, 1], vec![2]]);
        assert_eq!(
            take_tensors_py(&refs, BUFFER_SIZE),
            vec![vec![0], vec![1], vec![2]]
        );
    }
}
