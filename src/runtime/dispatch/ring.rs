//! Collectives on a driver's devices (`cuda` without NCCL, and `emu`):
//! `all_reduce`'s ring itself, over peer copies and reduction kernels, and
//! the others as copies and folds on the devices, so the buffers never leave
//! device memory.
//!
//! Each device's flat buffer is cut into n chunks. In the reduce-scatter
//! half, at step s each device r sends chunk (r − 1 − s) mod n to device
//! r + 1, which receives it into scratch memory and folds its own chunk in
//! (`received ⊕ own`, in place); after n − 1 steps device c holds chunk c
//! reduced, folded from device c + 1 round to device c. In the all-gather
//! half, at step s device r sends chunk (r − s) mod n on, copied straight
//! into place. Before each copy the receiving stream waits for the sending
//! one, so every step follows the last on both devices. The values are the
//! ones `collective.rs` computes on the host for the simulator.
//!
//! `reduce_scatter` pulls: device i's output starts as device i + 1's
//! chunk i, and each other device's chunk i, copied into scratch on device
//! i, is folded in, in ring order (the same bytes cross the links as in the
//! ring, and the same values come out). `all_gather` and `broadcast` move
//! bytes only: each device's output is filled by peer copies straight from
//! the devices that hold the parts.

use std::sync::Arc;

use super::device::no_driver;
use super::device::Operand;
use super::Runtime;
use crate::error::Error;
use crate::runtime::cuda::exec::{self, Launcher, View};
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::view;
use crate::runtime::ops::elementwise;
use crate::runtime::ops::index;
use crate::runtime::DType;
use crate::runtime::Tensor;

impl Runtime {
    /// Reduces `ts` (contiguous, one per device of `devices`, checked) in
    /// place with `combine`, as NCCL's ring does.
    pub(super) fn ring_all_reduce_on(
        &mut self,
        ts: &[&Tensor],
        devices: &[u32],
        combine: BinaryOp,
    ) -> Result<(), Error> {
        let n = ts.len();
        let flat: Vec<Tensor> = ts
            .iter()
            .map(|t| view::view(t, &[-1]))
            .collect::<Result<_, _>>()?;
        let len = flat[0].numel();
        let size = len.div_ceil(n).max(1);
        let chunk = |c: usize| ((c * size).min(len), ((c + 1) * size).min(len));
        let dtype = flat[0].dtype();
        let compute = elementwise::compute_dtype(combine, dtype);
        for s in 0..n - 1 {
            for r in 0..n {
                let to = (r + 1) % n;
                let (lo, hi) = chunk((r + n - 1 - s) % n);
                if lo == hi {
                    continue;
                }
                let sent = index::narrow(&flat[r], 0, lo, hi - lo)?;
                let own = index::narrow(&flat[to], 0, lo, hi - lo)?;
                self.wait_stream(self.stream_on(devices[to]), self.stream_on(devices[r]))?;
                let l = self.on_device(devices[to]).ok_or_else(no_driver)?;
                let scratch = l.scratch(dtype, hi - lo)?;
                let addr = l.addr(&scratch);
                self.peer_copy_into(devices[r], &sent, devices[to], addr)?;
                let l = self.on_device(devices[to]).ok_or_else(no_driver)?;
                let place = Operand::own(&own)?;
                let received = View {
                    mem: &scratch,
                    dtype,
                    shape: own.shape(),
                    strides: &[1],
                    offset: 0,
                };
                let dst = place.view(&own);
                exec::binary_into(&l, combine, (received, dst), compute, dst, false)?;
            }
        }
        for s in 0..n - 1 {
            for r in 0..n {
                let to = (r + 1) % n;
                let (lo, hi) = chunk((r + n - s) % n);
                if lo == hi {
                    continue;
                }
                let sent = index::narrow(&flat[r], 0, lo, hi - lo)?;
                let place = index::narrow(&flat[to], 0, lo, hi - lo)?;
                self.wait_stream(self.stream_on(devices[to]), self.stream_on(devices[r]))?;
                let at = Operand::own(&place)?.addr() + (place.offset() * dtype.size()) as u64;
                self.peer_copy_into(devices[r], &sent, devices[to], at)?;
            }
        }
        Ok(())
    }

    /// A new tensor of `shape` on driver device `d`, its bytes written by
    /// `fill` (given the device address) with copies queued on `d`'s stream.
    pub(super) fn filled_on(
        &mut self,
        d: u32,
        shape: &[usize],
        dtype: DType,
        fill: impl FnOnce(&mut Runtime, u64) -> Result<(), Error>,
    ) -> Result<Tensor, Error> {
        let device = crate::runtime::Device::Cuda(d);
        let block = self.reserve(device, shape, dtype)?.ok_or_else(no_driver)?;
        let driver = Arc::clone(self.devices.driver().ok_or_else(no_driver)?);
        let len = crate::runtime::shape::numel(shape);
        let bytes = self.device_bytes(d, block, dtype, len, &driver)?;
        fill(self, bytes.addr)?;
        Ok(Tensor::in_device_memory(bytes, shape.to_vec(), device))
    }

    /// `all_gather` on a driver's devices: each output filled with every
    /// part, in list order, by peer copies (a device's own part by a copy
    /// within it).
    pub(super) fn all_gather_on(
        &mut self,
        ts: &[&Tensor],
        devices: &[u32],
        shape: &[usize],
    ) -> Result<Vec<Tensor>, Error> {
        let part = ts[0].nbytes() as u64;
        let mut outs = Vec::with_capacity(ts.len());
        for &to in devices {
            let out = self.filled_on(to, shape, ts[0].dtype(), |rt, addr| {
                for (j, (t, &from)) in ts.iter().zip(devices).enumerate() {
                    rt.peer_copy_into(from, t, to, addr + j as u64 * part)?;
                }
                Ok(())
            })?;
            outs.push(out);
        }
        Ok(outs)
    }

    /// `reduce_scatter` on a driver's devices: device i's output is chunk i
    /// folded in ring order, from device i + 1 round to device i, each part
    /// copied to device i (into its output first, then into scratch) and
    /// folded in there, on device i's stream.
    pub(super) fn reduce_scatter_on(
        &mut self,
        ts: &[&Tensor],
        devices: &[u32],
        combine: BinaryOp,
        shape: &[usize],
    ) -> Result<Vec<Tensor>, Error> {
        let n = ts.len();
        let flat: Vec<Tensor> = ts
            .iter()
            .map(|t| view::view(t, &[-1]))
            .collect::<Result<_, _>>()?;
        let len = flat[0].numel() / n;
        let mut outs = Vec::with_capacity(n);
        for i in 0..n {
            let order = (1..=n)
                .map(|k| {
                    let from = (i + k) % n;
                    Ok((devices[from], index::narrow(&flat[from], 0, i * len, len)?))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            outs.push(self.pulled(devices[i], &order, combine, shape)?);
        }
        Ok(outs)
    }

    /// `reduce` on a driver's devices: the parts folded onto the root in
    /// ring order, from the device after it round to the root's own.
    pub(super) fn reduce_on(
        &mut self,
        ts: &[&Tensor],
        devices: &[u32],
        combine: BinaryOp,
        root: usize,
    ) -> Result<Tensor, Error> {
        let n = ts.len();
        let order: Vec<(u32, Tensor)> = (1..=n)
            .map(|k| {
                let from = (root + k) % n;
                (devices[from], ts[from].alias())
            })
            .collect();
        self.pulled(devices[root], &order, combine, ts[0].shape())
    }

    /// A new tensor of `shape` on device `to`: the first of `order`'s parts
    /// (each on its device) copied in, then each next one copied into
    /// scratch memory there and folded in with `combine`, on `to`'s stream.
    fn pulled(
        &mut self,
        to: u32,
        order: &[(u32, Tensor)],
        combine: BinaryOp,
        shape: &[usize],
    ) -> Result<Tensor, Error> {
        let (from, first) = &order[0];
        let dtype = first.dtype();
        let compute = elementwise::compute_dtype(combine, dtype);
        let strides = crate::runtime::shape::contiguous_strides(shape);
        let len = first.numel();
        let out = self.filled_on(to, shape, dtype, |rt, addr| {
            rt.peer_copy_into(*from, first, to, addr)
        })?;
        for (from, part) in &order[1..] {
            let l = self.on_device(to).ok_or_else(no_driver)?;
            let scratch = l.scratch(dtype, len)?;
            let addr = l.addr(&scratch);
            self.peer_copy_into(*from, part, to, addr)?;
            let l = self.on_device(to).ok_or_else(no_driver)?;
            let acc = Operand::own(&out)?;
            let received = View {
                mem: &scratch,
                dtype,
                shape,
                strides: &strides,
                offset: 0,
            };
            let dst = acc.view(&out);
            exec::binary_into(&l, combine, (dst, received), compute, dst, false)?;
        }
        Ok(out)
    }
}
