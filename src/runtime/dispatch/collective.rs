//! Collectives across devices, as NCCL runs them on a ring of the
//! participating devices (in list order): `all_reduce`, `broadcast`,
//! `reduce` (onto one root: DataParallel's gradient reduce-add),
//! `reduce_scatter` and `all_gather`.
//!
//! - **Checks** as NCCL's and PyTorch's: one tensor per device, on distinct
//!   CUDA devices, contiguous, of one shape and dtype.
//! - **Values** as the ring computes them: the buffer is cut into one chunk
//!   per device, and chunk `c` is reduced in ring order, starting with
//!   device `c + 1`'s part and ending with device `c`'s (the device that
//!   holds it reduced after the reduce-scatter half), in the tensors' dtype.
//!   `avg` multiplies each part by 1/n first for floats (NCCL's premultiplied
//!   sum), and divides the integer sum, truncating. On bool, `sum` is `max`
//!   (logical or) and `avg` is refused, as PyTorch's NCCL group does.
//! - **Cost**: one item per device on its current stream, after every
//!   participant's stream has reached the collective, and before any goes
//!   on past it (a barrier at both ends: the ring finishes everywhere at
//!   once, as NCCL's kernels do, each waiting for its peers). The
//!   item is the peer traffic the device receives, which `profile` counts as
//!   D2D copies and the time model prices at the peer bandwidth: 2(n−1)/n of
//!   the buffer for `all_reduce`, (n−1)/n of the input for `reduce_scatter`,
//!   (n−1)/n of the output for `all_gather`, and the buffer for every device
//!   but the root for `broadcast` (its pipeline passes it down the ring),
//!   and the buffer for every device but the one after the root for
//!   `reduce` (its chain starts there and ends at the root).
//!
//! On `cuda` with NCCL the values are NCCL's (`nccl.rs`). On a driver's
//! devices without it (`emu`, and `cuda` where NCCL is missing) the values
//! are computed there, by peer copies and kernels (`ring.rs`); on the
//! simulator, and for `reduce_scatter`'s `avg` and an integer `all_reduce`
//! `avg`, they are computed on the host from each device's bytes and
//! written to device memory.

use std::sync::Arc;

use super::Runtime;
use crate::error::Error;
use crate::runtime::buffer::Buffer;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::ops::elementwise;
use crate::runtime::ops::index;
use crate::runtime::timing::{CopyPath, Work};
use crate::runtime::{DType, Device, Tensor};

/// The reduction of `all_reduce` and `reduce_scatter` (NCCL's `ncclRedOp_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedOp {
    Sum,
    Avg,
    Max,
    Min,
    Product,
}

impl RedOp {
    pub const NAMES: [&'static str; 5] = ["sum", "avg", "max", "min", "product"];

    pub fn from_name(name: &str) -> Option<RedOp> {
        match name {
            "sum" => Some(RedOp::Sum),
            "avg" => Some(RedOp::Avg),
            "max" => Some(RedOp::Max),
            "min" => Some(RedOp::Min),
            "product" => Some(RedOp::Product),
            _ => None,
        }
    }
}

/// A collective's argument that does not fit: which tensor of the list
/// (None: the call as a whole), and why.
#[derive(Debug)]
pub struct Misfit {
    pub index: Option<usize>,
    pub error: Error,
}

fn misfit(index: Option<usize>, error: Error) -> Misfit {
    Misfit { index, error }
}

/// An error of the call as a whole (`?` on the runtime's own errors).
impl From<Error> for Misfit {
    fn from(error: Error) -> Misfit {
        misfit(None, error)
    }
}

impl Runtime {
    /// `all_reduce(tensors, op)`: every tensor becomes the reduction of all
    /// of them, in place.
    pub fn all_reduce(&mut self, ts: &[&Tensor], op: RedOp) -> Result<(), Misfit> {
        let devices = self.participants(ts, "all_reduce()")?;
        let op = reduction(op, ts[0].dtype())?;
        let n = ts.len();
        self.counters.ops += 1;
        let dtype = ts[0].dtype();
        let int_avg = op == RedOp::Avg && !dtype.is_float();
        // NCCL is called for a ring of one too, as PyTorch's group does.
        let nccl = self.uses_nccl(ts[0]) && !int_avg;
        if n == 1 && !nccl {
            // A ring of one: the buffer is its own reduction.
            return Ok(());
        }
        let bytes = ts[0].nbytes() as u64;
        let received = 2 * (n as u64 - 1) * bytes / n as u64;
        self.barrier(&devices)?;
        let on_driver = self.launches_on(ts[0].device()).is_some();
        if !nccl {
            // Each buffer is read and written by one collective: checked as
            // the write (one race reported, not two), before it is read.
            for t in ts {
                t.before_write();
            }
        }
        if nccl {
            self.nccl_all_reduce(ts, &devices, op)?;
        } else if on_driver && !int_avg {
            // The ring on the devices (`ring.rs`); an integer average, whose
            // truncating division no kernel does, is computed on the host.
            if op == RedOp::Avg {
                let k = Tensor::scalar(1.0 / n as f64);
                for t in ts.iter() {
                    let k = Operand {
                        tensor: &k,
                        weak: true,
                    };
                    let plan = elementwise::plan_binary(BinaryOp::Mul, Operand::strong(t), k)?;
                    self.compute(t.device())
                        .binary_in_place(self, BinaryOp::Mul, t, k, plan)?;
                }
            }
            self.ring_all_reduce_on(ts, &devices, combine(op))?;
        } else {
            reduce_on_host(ts, op)?;
        }
        for &d in &devices {
            self.received(d, received, None)?;
        }
        self.barrier(&devices)?;
        Ok(())
    }

    /// `reduce_scatter(tensors, op)`: device `i` gets chunk `i` (along the
    /// first dimension) of the reduction of all of them.
    pub fn reduce_scatter(
        &mut self,
        ts: &[&Tensor],
        op: RedOp,
    ) -> Result<Vec<Arc<Tensor>>, Misfit> {
        let devices = self.participants(ts, "reduce_scatter()")?;
        let op = reduction(op, ts[0].dtype())?;
        let n = ts.len();
        let shape = ts[0].shape();
        let Some(&rows) = shape.first() else {
            return Err(misfit(
                None,
                Error::shape(
                    "reduce_scatter() splits the first dimension, and a 0-d tensor has none",
                ),
            ));
        };
        if !rows.is_multiple_of(n) {
            return Err(misfit(
                None,
                Error::shape(format!(
                    "reduce_scatter() gives each of the {n} devices an equal share of the first dimension, and {rows} rows do not divide by {n}"
                )),
            ));
        }
        let mut out_shape = shape.to_vec();
        out_shape[0] /= n;
        let received = (n as u64 - 1) * ts[0].nbytes() as u64 / n as u64;
        self.barrier(&devices)?;
        let on_driver = self.launches_on(ts[0].device()).is_some();
        let int_avg = op == RedOp::Avg && !ts[0].dtype().is_float();
        let outs = if self.uses_nccl(ts[0]) && !int_avg {
            let filled = self.nccl_reduce_scatter(ts, &devices, op, &out_shape)?;
            self.delivered(filled, &devices, received)?
        } else if on_driver && op != RedOp::Avg {
            let filled = self.reduce_scatter_on(ts, &devices, combine(op), &out_shape)?;
            self.delivered(filled, &devices, received)?
        } else {
            // The simulator, and `avg` (premultiplied as the host does it).
            let parts = flat_parts(ts);
            let reduced = ring_reduce(&parts, op, n)?;
            let whole = Tensor::new(reduced, vec![ts[0].numel()], Device::Cpu);
            let chunk = ts[0].numel() / n;
            let mut outs = Vec::with_capacity(n);
            for (i, &d) in devices.iter().enumerate() {
                let part = index::narrow(&whole, 0, i * chunk, chunk)?;
                let part = Tensor::new(part.contiguous_buffer(), out_shape.clone(), Device::Cpu);
                outs.push(self.output_on(d, part, received)?);
            }
            outs
        };
        self.barrier(&devices)?;
        self.counters.ops += 1;
        Ok(outs)
    }

    /// `all_gather(tensors)`: each device gets all of them joined along a
    /// new first dimension's worth of rows (in list order).
    pub fn all_gather(&mut self, ts: &[&Tensor]) -> Result<Vec<Arc<Tensor>>, Misfit> {
        let devices = self.participants(ts, "all_gather()")?;
        let n = ts.len();
        let mut out_shape = ts[0].shape().to_vec();
        match out_shape.first_mut() {
            Some(rows) => *rows *= n,
            None => out_shape.push(n),
        }
        let received = (n as u64 - 1) * ts[0].nbytes() as u64;
        self.barrier(&devices)?;
        let outs = if self.uses_nccl(ts[0]) {
            let filled = self.nccl_all_gather(ts, &devices, &out_shape)?;
            self.delivered(filled, &devices, received)?
        } else if self.launches_on(ts[0].device()).is_some() {
            let filled = self.all_gather_on(ts, &devices, &out_shape)?;
            self.delivered(filled, &devices, received)?
        } else {
            let joined: Vec<Tensor> = flat_parts(ts);
            let refs: Vec<&Tensor> = joined.iter().collect();
            let all = crate::runtime::ops::join::cat(&refs, 0)?;
            let all = all.contiguous_buffer();
            let mut outs = Vec::with_capacity(n);
            for &d in &devices {
                let values = Tensor::new(all.clone(), out_shape.clone(), Device::Cpu);
                outs.push(self.output_on(d, values, received)?);
            }
            outs
        };
        self.barrier(&devices)?;
        self.counters.ops += 1;
        Ok(outs)
    }

    /// `broadcast(t, devices)`: `t` on every device of the list, down the
    /// ring from `t`'s own; `t` itself for its own device.
    pub fn broadcast(
        &mut self,
        t: &Arc<Tensor>,
        devices: &[Device],
    ) -> Result<Vec<Arc<Tensor>>, Misfit> {
        let Device::Cuda(root) = t.device() else {
            return Err(misfit(
                None,
                Error::NotAvailable {
                    message:
                        "broadcast() sends a tensor from a CUDA device, and this one is on cpu"
                            .into(),
                    help: "move it first: broadcast(t.to(cuda:0), devices)".into(),
                },
            ));
        };
        if !t.is_contiguous() {
            return Err(misfit(None, not_contiguous("broadcast()")));
        }
        let mut ids = Vec::with_capacity(devices.len());
        for (i, d) in devices.iter().enumerate() {
            let Device::Cuda(id) = *d else {
                return Err(misfit(Some(i), cpu_participant("broadcast()", i)));
            };
            if let Some(j) = ids.iter().position(|&x| x == id) {
                return Err(misfit(Some(i), twice("broadcast()", j, i, *d)));
            }
            ids.push(id);
        }
        if !ids.contains(&root) {
            return Err(misfit(
                None,
                Error::value_help(
                    format!(
                        "broadcast() sends from cuda:{root}, which is not in the list of devices"
                    ),
                    format!("add cuda:{root} to the list: the root takes part in the ring"),
                ),
            ));
        }
        let bytes = t.nbytes() as u64;
        self.barrier(&ids)?;
        let on_driver = self.launches_on(t.device()).is_some();
        // With NCCL, one group fills every other device's output at once.
        let mut nccl = match self.uses_nccl(t) {
            true => Some(self.nccl_broadcast(t, &ids, root)?.into_iter()),
            false => None,
        };
        let data = (!on_driver).then(|| t.contiguous_buffer());
        let mut outs = Vec::with_capacity(ids.len());
        for &d in &ids {
            if d == root {
                outs.push(Arc::clone(t));
                continue;
            }
            let out = match (&mut nccl, &data) {
                (None, Some(data)) => {
                    let values = Tensor::new(data.clone(), t.shape().to_vec(), Device::Cpu);
                    outs.push(self.output_on(d, values, bytes)?);
                    continue;
                }
                (Some(filled), _) => filled
                    .next()
                    .ok_or_else(|| Error::value("NCCL's broadcast gave too few outputs"))?,
                (None, None) => self.filled_on(d, t.shape(), t.dtype(), |rt, addr| {
                    rt.peer_copy_into(root, t, d, addr)
                })?,
            };
            self.received(d, bytes, Some(&out))?;
            outs.push(Arc::new(out));
        }
        self.barrier(&ids)?;
        self.counters.ops += 1;
        Ok(outs)
    }

    /// `reduce_to(tensors, root, op)` (NCCL's `reduce`): a new tensor on `tensors[root]`'s
    /// device holding the reduction of all of them (NCCL's `ncclReduce`;
    /// the inputs are unchanged), folded along the ring from the device
    /// after the root round to the root itself.
    pub fn reduce_to(
        &mut self,
        ts: &[&Tensor],
        root: usize,
        op: RedOp,
    ) -> Result<Arc<Tensor>, Misfit> {
        let devices = self.participants(ts, "reduce_to()")?;
        if root >= ts.len() {
            return Err(misfit(
                None,
                Error::value(format!(
                    "reduce_to()'s root is tensor {root}, and there are {} tensors",
                    ts.len()
                )),
            ));
        }
        let op = reduction(op, ts[0].dtype())?;
        let n = ts.len();
        let bytes = ts[0].nbytes() as u64;
        let int_avg = op == RedOp::Avg && !ts[0].dtype().is_float();
        self.barrier(&devices)?;
        let out = if self.uses_nccl(ts[0]) && !int_avg {
            self.nccl_reduce(ts, &devices, op, root)?
        } else if self.launches_on(ts[0].device()).is_some() && op != RedOp::Avg {
            self.reduce_on(ts, &devices, combine(op), root)?
        } else {
            // The simulator, and `avg` (premultiplied as the host does it):
            // the ring's order is the chunk order of the root's chunk.
            let order: Vec<Tensor> = (1..=n).map(|k| flat_part(ts[(root + k) % n])).collect();
            let folded = averaged(fold(&order, op, n)?.contiguous_buffer(), op, n);
            let values = Tensor::new(folded, ts[0].shape().to_vec(), Device::Cpu);
            let device = Device::Cuda(devices[root]);
            let mem = self.reserve(device, values.shape(), values.dtype())?;
            self.attached(values.with_device(device), mem)?
        };
        for k in 2..=n {
            let d = devices[(root + k) % n];
            let last = k == n;
            self.received(d, bytes, last.then_some(&out))?;
        }
        self.barrier(&devices)?;
        self.counters.ops += 1;
        Ok(Arc::new(out))
    }

    /// The devices of a collective's tensors, checked: one contiguous tensor
    /// per CUDA device, all of one shape and dtype.
    fn participants(&self, ts: &[&Tensor], what: &str) -> Result<Vec<u32>, Misfit> {
        let Some(first) = ts.first() else {
            return Err(misfit(
                None,
                Error::value(format!("{what} needs at least one tensor")),
            ));
        };
        let mut devices: Vec<u32> = Vec::with_capacity(ts.len());
        for (i, t) in ts.iter().enumerate() {
            let Device::Cuda(d) = t.device() else {
                return Err(misfit(Some(i), cpu_participant(what, i)));
            };
            if let Some(j) = devices.iter().position(|&x| x == d) {
                return Err(misfit(Some(i), twice(what, j, i, t.device())));
            }
            if t.dtype() != first.dtype() {
                return Err(misfit(
                    Some(i),
                    Error::dtype(
                        format!(
                            "{what} needs one dtype on every device: tensor {i} is {} and tensor 0 is {}",
                            t.dtype(),
                            first.dtype()
                        ),
                        Some(format!("convert it: .to({})", first.dtype())),
                    ),
                ));
            }
            if t.shape() != first.shape() {
                return Err(misfit(
                    Some(i),
                    Error::shape(format!(
                        "{what} needs one shape on every device: tensor {i} is {} and tensor 0 is {}",
                        crate::runtime::shape::fmt_shape(t.shape()),
                        crate::runtime::shape::fmt_shape(first.shape())
                    )),
                ));
            }
            if !t.is_contiguous() {
                return Err(misfit(Some(i), not_contiguous(what)));
            }
            devices.push(d);
        }
        Ok(devices)
    }

    /// Every participant's current stream waits for every other's: no
    /// device's part of the ring starts before all have reached it.
    fn barrier(&mut self, devices: &[u32]) -> Result<(), Error> {
        for &a in devices {
            for &b in devices {
                if a != b {
                    self.wait_stream(self.stream_on(a), self.stream_on(b))?;
                }
            }
        }
        Ok(())
    }

    /// Device `d` received `bytes` from its neighbour in the ring: one item
    /// on its current stream (none when it received nothing).
    fn received(&mut self, d: u32, bytes: u64, out: Option<&Tensor>) -> Result<(), Error> {
        if bytes == 0 {
            return Ok(());
        }
        let from = Device::Cuda(d);
        self.count_copy(from, from, bytes as usize);
        let path = CopyPath::Peer;
        self.issue(d, Work::Copy { bytes, path }, out)?;
        Ok(())
    }

    /// Outputs filled on the devices (`ring.rs`), each having received `bytes`.
    fn delivered(
        &mut self,
        outs: Vec<Tensor>,
        devices: &[u32],
        bytes: u64,
    ) -> Result<Vec<Arc<Tensor>>, Error> {
        let mut delivered = Vec::with_capacity(outs.len());
        for (out, &d) in outs.into_iter().zip(devices) {
            self.received(d, bytes, Some(&out))?;
            delivered.push(Arc::new(out));
        }
        Ok(delivered)
    }

    /// The new tensor `values` on device `d`, after receiving `bytes`.
    fn output_on(&mut self, d: u32, values: Tensor, bytes: u64) -> Result<Arc<Tensor>, Error> {
        let device = Device::Cuda(d);
        let mem = self.reserve(device, values.shape(), values.dtype())?;
        let out = self.attached(values.with_device(device), mem)?;
        self.received(d, bytes, Some(&out))?;
        Ok(Arc::new(out))
    }
}

/// What the ring computes for `op` on `dt` (bool: `sum` is `max`), or an
/// error where PyTorch's NCCL group refuses it.
fn reduction(op: RedOp, dt: DType) -> Result<RedOp, Error> {
    match (dt, op) {
        (DType::Bool, RedOp::Sum) => Ok(RedOp::Max),
        (DType::Bool, RedOp::Product) => Ok(RedOp::Min),
        (DType::Bool, RedOp::Avg) => Err(Error::dtype(
            "op=\"avg\" cannot average bool tensors",
            Some("use op=\"max\" (any) or op=\"min\" (all), or convert to a number type".into()),
        )),
        _ => Ok(op),
    }
}

/// `ts` (any devices, one shape and dtype) each set to the reduction of
/// all of them, computed on the host as the ring computes it: the
/// simulator's `all_reduce`, and gloo's on CPU tensors.
pub(super) fn reduce_on_host(ts: &[&Tensor], op: RedOp) -> Result<(), Error> {
    let op = reduction(op, ts[0].dtype())?;
    let parts = flat_parts(ts);
    let reduced = ring_reduce(&parts, op, ts.len())?;
    for t in ts {
        let whole = Tensor::new(reduced.clone(), t.shape().to_vec(), t.device());
        index::assign(t, &whole)?;
    }
    Ok(())
}

/// Each tensor's elements as a flat host tensor.
fn flat_parts(ts: &[&Tensor]) -> Vec<Tensor> {
    ts.iter().map(|t| flat_part(t)).collect()
}

fn flat_part(t: &Tensor) -> Tensor {
    Tensor::new(t.contiguous_buffer(), vec![t.numel()], Device::Cpu)
}

/// `parts` (flat, in the order the chain visits them) folded with `op`;
/// `avg` premultiplies floats by 1/n (NCCL's premultiplied sum), and
/// leaves integers summed for `averaged`.
fn fold(parts: &[Tensor], op: RedOp, n: usize) -> Result<Tensor, Error> {
    let premul = op == RedOp::Avg && parts[0].dtype().is_float();
    let k = Tensor::scalar(1.0 / n as f64);
    let scaled = |p: &Tensor| match premul {
        true => binary(BinaryOp::Mul, p, &k, true),
        false => Ok(p.alias()),
    };
    let mut acc = scaled(&parts[0])?;
    for p in &parts[1..] {
        acc = binary(combine(op), &acc, &scaled(p)?, false)?;
    }
    Ok(acc)
}

/// An integer `avg`'s sum divided by n, truncating (floats were
/// premultiplied by `fold`).
fn averaged(mut buf: Buffer, op: RedOp, n: usize) -> Buffer {
    if op == RedOp::Avg {
        let n = n as i64;
        match &mut buf {
            Buffer::I32(v) => v.iter_mut().for_each(|x| *x /= n as i32),
            Buffer::I64(v) => v.iter_mut().for_each(|x| *x /= n),
            _ => {}
        }
    }
    buf
}

/// The ring's reduction of `parts` (flat, one per device): chunk `c` folded
/// from device `c + 1` round to device `c`.
fn ring_reduce(parts: &[Tensor], op: RedOp, n: usize) -> Result<Buffer, Error> {
    let len = parts[0].numel();
    let size = len.div_ceil(n).max(1);
    let mut chunks = Vec::with_capacity(n);
    for c in 0..n {
        let lo = (c * size).min(len);
        let hi = ((c + 1) * size).min(len);
        let order = (1..=n)
            .map(|k| index::narrow(&parts[(c + k) % n], 0, lo, hi - lo))
            .collect::<Result<Vec<_>, _>>()?;
        chunks.push(fold(&order, op, n)?);
    }
    let refs: Vec<&Tensor> = chunks.iter().collect();
    let all = crate::runtime::ops::join::cat(&refs, 0)?;
    Ok(averaged(all.contiguous_buffer(), op, n))
}

/// The elementwise op that folds two parts.
fn combine(op: RedOp) -> BinaryOp {
    match op {
        RedOp::Sum | RedOp::Avg => BinaryOp::Add,
        RedOp::Max => BinaryOp::Maximum,
        RedOp::Min => BinaryOp::Minimum,
        RedOp::Product => BinaryOp::Mul,
    }
}

fn binary(op: BinaryOp, a: &Tensor, b: &Tensor, weak: bool) -> Result<Tensor, Error> {
    let a = Operand {
        tensor: a,
        weak: false,
    };
    let b = Operand { tensor: b, weak };
    // A product with the number 1/n (weak) keeps the parts' dtype.
    elementwise::binary(op, a, b)
}

fn cpu_participant(what: &str, i: usize) -> Error {
    Error::NotAvailable {
        message: format!("{what} runs between CUDA devices, and tensor {i} is on cpu"),
        help: "move each part to its own device first: scatter(x, [cuda:0, cuda:1])".into(),
    }
}

fn twice(what: &str, j: usize, i: usize, d: Device) -> Error {
    Error::value_help(
        format!("{what} takes one tensor per device, and tensors {j} and {i} are both on {d}"),
        "give each device of the ring one tensor",
    )
}

fn not_contiguous(what: &str) -> Error {
    Error::value_help(
        format!("{what} sends whole buffers, and this tensor is a strided view"),
        "pass .contiguous() of it (NCCL needs dense buffers)",
    )
}
