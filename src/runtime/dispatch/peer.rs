//! Copies from one driver device to another: the driver's peer copy, on
//! the destination's current stream (`.to(cuda:1)`, scatter and gather,
//! the ring collectives).

use std::sync::Arc;

use super::device::{driver_error, no_driver};
use super::Runtime;
use crate::error::Error;
use crate::runtime::cuda::exec;
use crate::runtime::devices::Memory;
use crate::runtime::driver::{Addr, DevicePtr};
use crate::runtime::{Device, Tensor};

impl Runtime {
    /// `t` (on device `s`) copied into `block` on device `to` by the
    /// driver's peer copy (`peer_copy_into`).
    pub(super) fn peer_copy(
        &mut self,
        s: u32,
        t: &Tensor,
        to: u32,
        block: Memory,
    ) -> Result<Tensor, Error> {
        let driver = Arc::clone(self.devices.driver().ok_or_else(no_driver)?);
        let dst = self.device_bytes(to, block, t.dtype(), t.numel(), &driver)?;
        self.peer_copy_into(s, t, to, dst.addr)?;
        Ok(Tensor::in_device_memory(
            dst,
            t.shape().to_vec(),
            Device::Cuda(to),
        ))
    }

    /// `t` (on device `s`) copied to the device address `dst` on device
    /// `to`, `t.nbytes()` of contiguous memory there, by the driver's peer
    /// copy on `to`'s current stream. A contiguous view is copied from where
    /// it lies; any other is made contiguous on its own device first.
    pub(super) fn peer_copy_into(
        &mut self,
        s: u32,
        t: &Tensor,
        to: u32,
        dst: DevicePtr,
    ) -> Result<(), Error> {
        let driver = Arc::clone(self.devices.driver().ok_or_else(no_driver)?);
        let l = self.on_device(s).ok_or_else(no_driver)?;
        let operand = self.operand(&l, t)?;
        // A view that is not contiguous: made so in scratch.
        let staged = (!t.is_contiguous())
            .then(|| exec::converted(&l, operand.view(t), t.dtype(), true))
            .transpose()?;
        let from = match &staged {
            Some(o) => o.mem.addr,
            None => operand.addr() + (t.offset() * t.dtype().size()) as u64,
        };
        // SAFETY: both ranges hold `t.nbytes()` bytes of live device memory.
        unsafe {
            driver.copy(
                Addr::Device {
                    device: to,
                    ptr: dst,
                },
                Addr::Device {
                    device: s,
                    ptr: from,
                },
                t.nbytes(),
                self.devices.current_handle(to),
            )
        }
        .map_err(|e| driver_error(to, e))
    }
}
