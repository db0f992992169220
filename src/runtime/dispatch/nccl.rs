//! Collectives with NCCL, on a driver that has it (`cuda` where the loader
//! finds `libnccl.so.2`): each is one NCCL group over the participants'
//! current streams, between `collective.rs`'s barriers, and the values are
//! NCCL's (its ring or tree order, which may round floats differently from
//! the simulator's ring). The outputs of `reduce_scatter`, `all_gather` and
//! `broadcast` are allocated on their devices first, as PyTorch does.
//! Integer averages stay on the host, as on the other backends.
//!
//! A process group's collective (`group.rs`) runs on its ranks' own
//! communicators, in group rank order (the devices are listed so).
//!
//! NOT YET RUN: no lent GPU has run this (README, *Collectives*).

use std::sync::Arc;

use super::collective::RedOp;
use super::device::no_driver;
use super::device::{driver_error, Operand};
use super::Runtime;
use crate::error::Error;
use crate::runtime::driver::{Collective, CollectiveOp, Rank, Reduce};
use crate::runtime::{DType, Tensor};

impl Runtime {
    /// Whether collectives of `t`'s device run with NCCL.
    pub(super) fn uses_nccl(&self, t: &Tensor) -> bool {
        self.launches_on(t.device()).is_some()
            && self.devices.driver().is_some_and(|d| d.nccl().is_some())
    }

    /// `all_reduce` in place, with `ncclAllReduce`.
    pub(super) fn nccl_all_reduce(
        &mut self,
        ts: &[&Tensor],
        devices: &[u32],
        op: RedOp,
    ) -> Result<(), Error> {
        let addrs = addresses(ts)?;
        for t in ts {
            t.before_write();
        }
        let op = CollectiveOp::AllReduce(reduce(op));
        self.nccl(op, ts[0].dtype(), ts[0].numel(), devices, &addrs, &addrs)
    }

    /// `reduce_scatter` into new outputs of `shape`, with `ncclReduceScatter`.
    pub(super) fn nccl_reduce_scatter(
        &mut self,
        ts: &[&Tensor],
        devices: &[u32],
        op: RedOp,
        shape: &[usize],
    ) -> Result<Vec<Tensor>, Error> {
        let op = CollectiveOp::ReduceScatter(reduce(op));
        self.nccl_to_outputs(op, ts[0].numel() / ts.len(), ts, devices, shape)
    }

    /// `all_gather` into new outputs of `shape`, with `ncclAllGather`.
    pub(super) fn nccl_all_gather(
        &mut self,
        ts: &[&Tensor],
        devices: &[u32],
        shape: &[usize],
    ) -> Result<Vec<Tensor>, Error> {
        self.nccl_to_outputs(CollectiveOp::AllGather, ts[0].numel(), ts, devices, shape)
    }

    /// `op` of `count` elements from each of `ts` into a new output of
    /// `shape` on each device.
    fn nccl_to_outputs(
        &mut self,
        op: CollectiveOp,
        count: usize,
        ts: &[&Tensor],
        devices: &[u32],
        shape: &[usize],
    ) -> Result<Vec<Tensor>, Error> {
        let send = addresses(ts)?;
        let (outs, recv) = self.outputs(devices, shape, ts[0].dtype())?;
        self.nccl(op, ts[0].dtype(), count, devices, &send, &recv)?;
        Ok(outs)
    }

    /// `broadcast` of `t` (on device `root`, one of `devices`) with
    /// `ncclBroadcast`: a new tensor on each other device, in list order
    /// (the root's buffer is sent in place).
    pub(super) fn nccl_broadcast(
        &mut self,
        t: &Tensor,
        devices: &[u32],
        root: u32,
    ) -> Result<Vec<Tensor>, Error> {
        let others: Vec<u32> = devices.iter().copied().filter(|&d| d != root).collect();
        let (outs, mut recv) = self.outputs(&others, t.shape(), t.dtype())?;
        let at = devices
            .iter()
            .position(|&d| d == root)
            .ok_or_else(|| Error::value("broadcast()'s root is not one of its devices"))?;
        let sent = address(t)?;
        recv.insert(at, sent);
        let send = vec![sent; devices.len()];
        let op = CollectiveOp::Broadcast { root: at };
        self.nccl(op, t.dtype(), t.numel(), devices, &send, &recv)?;
        Ok(outs)
    }

    /// `reduce` of `ts` onto `ts[root]`'s device with `ncclReduce`: a new
    /// output there (the other ranks receive nothing).
    pub(super) fn nccl_reduce(
        &mut self,
        ts: &[&Tensor],
        devices: &[u32],
        op: RedOp,
        root: usize,
    ) -> Result<Tensor, Error> {
        let send = addresses(ts)?;
        let (mut outs, out) = self.outputs(&devices[root..=root], ts[0].shape(), ts[0].dtype())?;
        // Only the root's receive buffer is written; the others name their
        // own send buffer, which NCCL does not touch.
        let recv: Vec<u64> = (0..ts.len())
            .map(|k| if k == root { out[0] } else { send[k] })
            .collect();
        let op = CollectiveOp::Reduce {
            op: reduce(op),
            root,
        };
        self.nccl(op, ts[0].dtype(), ts[0].numel(), devices, &send, &recv)?;
        Ok(outs.remove(0))
    }

    /// A new tensor of `shape` on each of `devices`, and its address.
    fn outputs(
        &mut self,
        devices: &[u32],
        shape: &[usize],
        dtype: DType,
    ) -> Result<(Vec<Tensor>, Vec<u64>), Error> {
        let mut outs = Vec::with_capacity(devices.len());
        let mut addrs = Vec::with_capacity(devices.len());
        for &d in devices {
            outs.push(self.filled_on(d, shape, dtype, |_, addr| {
                addrs.push(addr);
                Ok(())
            })?);
        }
        Ok((outs, addrs))
    }

    /// Queues one NCCL group: rank k is `devices[k]` on its current stream.
    fn nccl(
        &mut self,
        op: CollectiveOp,
        dtype: DType,
        count: usize,
        devices: &[u32],
        send: &[u64],
        recv: &[u64],
    ) -> Result<(), Error> {
        if dtype == DType::I16 {
            // NCCL has no 16-bit integers (PyTorch's `getNcclDataType`).
            return Err(Error::value(format!(
                "Input tensor data type is not supported for NCCL process group: {}",
                dtype.scalar_name()
            )));
        }
        let driver = Arc::clone(self.devices.driver().ok_or_else(no_driver)?);
        let ranks = devices
            .iter()
            .zip(send.iter().zip(recv))
            .map(|(&d, (&send, &recv))| Rank {
                stream: self.devices.stream_handle(self.stream_on(d)),
                send,
                recv,
            })
            .collect();
        let c = Collective {
            op,
            dtype,
            count,
            ranks,
            // A process group's: its ranks' own communicators (`group.rs`).
            group: self.dist.as_ref().and_then(|m| m.ranked_comms),
        };
        // SAFETY: every address is a contiguous tensor (checked by
        // `participants`) or a new output of `count`'s size on its device.
        unsafe { driver.collective(&c) }.map_err(|e| driver_error(devices[0], e))
    }
}

/// The device addresses of contiguous tensors' first elements.
fn addresses(ts: &[&Tensor]) -> Result<Vec<u64>, Error> {
    ts.iter().map(|t| address(t)).collect()
}

/// The device address of a contiguous tensor's first element.
fn address(t: &Tensor) -> Result<u64, Error> {
    Ok(Operand::own(t)?.addr() + (t.offset() * t.dtype().size()) as u64)
}

fn reduce(op: RedOp) -> Reduce {
    match op {
        RedOp::Sum => Reduce::Sum,
        RedOp::Avg => Reduce::Avg,
        RedOp::Max => Reduce::Max,
        RedOp::Min => Reduce::Min,
        RedOp::Product => Reduce::Prod,
    }
}
