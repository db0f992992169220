//! Copies between the host and devices: `.to`, `.copy_to`, `.cuda`, `.cpu`,
//! scatter/gather, and pinned memory.

use std::sync::Arc;

use super::{Interp, Output, Value};
use crate::error::Error;
use crate::runtime::{Device, Tensor};

impl Interp {
    /// `.to(d)`: the tensor itself when it is already on `d`, else a copy.
    pub(crate) fn move_value(&mut self, t: &Arc<Tensor>, d: Device) -> Result<Value, Error> {
        self.move_tensor(t, d).map(Value::Tensor)
    }

    /// `move_value` for callers that need the tensor itself.
    pub(crate) fn move_tensor(&mut self, t: &Arc<Tensor>, d: Device) -> Result<Arc<Tensor>, Error> {
        if t.device() == d {
            return Ok(Arc::clone(t));
        }
        self.copy_tensor(t, d)
    }

    /// Always a new tensor on `d` (`.copy_to`, scatter, replicate).
    pub(crate) fn copy_value(&mut self, t: &Tensor, d: Device) -> Result<Value, Error> {
        self.copy_tensor(t, d).map(Value::Tensor)
    }

    fn copy_tensor(&mut self, t: &Tensor, d: Device) -> Result<Arc<Tensor>, Error> {
        let d = self.check_device(d)?;
        let mem = self.reserve(d, t.shape(), t.dtype())?;
        self.count_copy(t.device(), d, t.nbytes());
        self.made_in(t.with_device(d), mem)
    }

    /// `.to(d, non_blocking=true)`: asynchronous only from pinned memory; a
    /// device-to-host copy lands in pinned memory, as in PyTorch.
    pub(crate) fn transfer(
        &mut self,
        t: &Arc<Tensor>,
        d: Device,
        non_blocking: bool,
    ) -> Result<Value, Error> {
        if !non_blocking || t.device() == d {
            return self.move_value(t, d);
        }
        match (t.device(), d) {
            (Device::Cpu, Device::Cuda(_)) if !t.is_pinned() => {
                self.out.push(Output::Warning(
                    "non_blocking=true: the source is in pageable memory, so this copy runs synchronously; \
                     pin it first (`pin x`) to let the copy overlap other work"
                        .into(),
                ));
                self.move_value(t, d)
            }
            (Device::Cuda(_), Device::Cpu) => {
                let copy = t.with_device(Device::Cpu);
                let _ = copy.attach(self.devices.pinned(t.nbytes()));
                self.count_copy(t.device(), d, t.nbytes());
                self.made(copy)
            }
            _ => self.move_value(t, d),
        }
    }

    /// A copy in freshly pinned host memory (`x.pin()`).
    pub(crate) fn pinned_copy(&mut self, t: &Tensor) -> Result<Value, Error> {
        if self.devices.count() == 0 {
            return Err(super::not_available(".pin()"));
        }
        if t.device() != Device::Cpu {
            return Err(Error::value_help(
                format!("only host tensors can be pinned, and this one is on {}", t.device()),
                "pinned (page-locked) memory is host memory; `.cpu().pin()` copies it to the host first",
            ));
        }
        let copy = t.copy();
        let _ = copy.attach(self.devices.pinned(t.nbytes()));
        self.made(copy)
    }

    pub(crate) fn count_copy(&mut self, from: Device, to: Device, bytes: usize) {
        let slot = match (from, to) {
            (Device::Cpu, Device::Cuda(_)) => &mut self.counters.h2d,
            (Device::Cuda(_), Device::Cpu) => &mut self.counters.d2h,
            (Device::Cuda(_), Device::Cuda(_)) => &mut self.counters.d2d,
            (Device::Cpu, Device::Cpu) => return,
        };
        slot.0 += 1;
        slot.1 += bytes as u64;
    }
}
