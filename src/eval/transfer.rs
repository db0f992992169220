//! Copies between the host and devices: `.to`, `.copy_to`, `.cuda`, `.cpu`,
//! scatter/gather, and pinned memory.

use std::sync::Arc;

use super::{Interp, Output, Value};
use crate::error::Error;
use crate::runtime::devices::Memory;
use crate::runtime::stream::StreamKey;
use crate::runtime::timing::{CopyPath, Work};
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

    /// A blocking copy, queued on the current stream of the device that runs
    /// it. To the host it waits for the device (`cudaMemcpy`); from pageable
    /// host memory it waits for the copy (PyTorch's `non_blocking=false`);
    /// between two devices the destination's stream first waits for the source's.
    fn copy_tensor(&mut self, t: &Tensor, d: Device) -> Result<Arc<Tensor>, Error> {
        let d = self.check_device(d)?;
        let from = t.device();
        let mem = self.reserve(d, t.shape(), t.dtype())?;
        self.count_copy(from, d, t.nbytes());
        self.counters.ops += 1;
        let bytes = t.nbytes() as u64;
        let copy = match (from, d) {
            (Device::Cpu, Device::Cpu) => t.with_device(d),
            (Device::Cuda(s), Device::Cpu) => {
                self.issue(
                    s,
                    Work::Copy {
                        bytes,
                        path: CopyPath::Pageable,
                    },
                    None,
                );
                self.sync_device(s);
                t.with_device(d)
            }
            (Device::Cpu, Device::Cuda(to)) => {
                let copy = attached(t.with_device(d), mem);
                let path = if t.is_pinned() {
                    CopyPath::Pinned
                } else {
                    CopyPath::Pageable
                };
                self.issue(to, Work::Copy { bytes, path }, Some(&copy));
                let key = self.stream_on(to);
                self.sync_stream(key);
                copy
            }
            (Device::Cuda(s), Device::Cuda(to)) if s == to => {
                let copy = attached(t.with_device(d), mem);
                let work = Work::Kernel {
                    bytes: 2 * bytes,
                    flops: 0,
                    half: false,
                };
                self.issue(to, work, Some(&copy));
                copy
            }
            (Device::Cuda(s), Device::Cuda(to)) => {
                let src_tail = self.devices.mark(self.stream_on(s));
                self.devices.wait(self.stream_on(to), &src_tail);
                let copy = attached(t.with_device(d), mem);
                self.issue(
                    to,
                    Work::Copy {
                        bytes,
                        path: CopyPath::Peer,
                    },
                    Some(&copy),
                );
                copy
            }
        };
        Ok(Arc::new(copy))
    }

    /// The current stream of device `d`.
    pub(crate) fn stream_on(&self, d: u32) -> StreamKey {
        StreamKey::new(d, self.devices.gpu(d).map_or(0, |g| g.streams.current))
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
                self.emit(Output::Warning(
                    "non_blocking=true: the source is in pageable memory, so this copy runs synchronously; \
                     pin it first (`pin x`) to let the copy overlap other work"
                        .into(),
                ));
                self.move_value(t, d)
            }
            (Device::Cuda(s), Device::Cpu) => {
                // Lands in pinned memory; the host must sync before reading it.
                let copy = t.with_device(Device::Cpu);
                let _ = copy.attach(self.devices.pinned(t.nbytes()));
                Ok(self.queue_copy(t, copy, s))
            }
            (Device::Cpu, Device::Cuda(to)) => {
                // From pinned memory: queued, and the host goes on at once.
                let mem = self.reserve(d, t.shape(), t.dtype())?;
                let copy = attached(t.with_device(d), mem);
                Ok(self.queue_copy(t, copy, to))
            }
            _ => self.move_value(t, d),
        }
    }

    /// Queues the asynchronous copy of `t` into `copy` on device `on`'s current stream.
    fn queue_copy(&mut self, t: &Tensor, copy: Tensor, on: u32) -> Value {
        self.count_copy(t.device(), copy.device(), t.nbytes());
        self.counters.ops += 1;
        let work = Work::Copy {
            bytes: t.nbytes() as u64,
            path: CopyPath::Pinned,
        };
        self.issue(on, work, Some(&copy));
        Value::tensor(copy)
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

/// `t` holding the block reserved for it.
fn attached(t: Tensor, mem: Option<Memory>) -> Tensor {
    if let Some(mem) = mem {
        let _ = t.attach(mem);
    }
    t
}
