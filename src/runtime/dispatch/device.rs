//! Devices whose memory a driver holds (`emu`, `cuda`): a
//! tensor's elements live in device memory, and ops run `cuda::exec`'s
//! launch plans on the driver (`OnDevice`, the `exec::Launcher` of one
//! device and its current stream).
//!
//! The stream model is the simulator's: it decides what a racing read sees
//! and what `time` reports. `emu` runs each launch when it is queued, so
//! where the model says a kernel reads bytes a pending write has not yet
//! replaced, the kernel is given a copy of the bytes from before it
//! (`operand`): racy programs show the simulator's worst case.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::Runtime;
use crate::error::Error;
use crate::runtime::buffer::Buffer;
use crate::runtime::cuda::args::bytes_of;
use crate::runtime::cuda::exec::{KernelArgs, Launcher, Out, View};
use crate::runtime::device_bytes::{upload, DeviceBytes};
use crate::runtime::devices::{Devices, Memory};
use crate::runtime::driver::{Driver, DriverError, StreamHandle};
use crate::runtime::driver::{Gemm, Geometry, Kernel, Launch};
use crate::runtime::gpu::Sees;
use crate::runtime::lock::lock;
use crate::runtime::scratch::Scratch;
use crate::runtime::{DType, Device, Tensor};

/// Device memory an op uses: a tensor's (borrowed), a block of the caching
/// allocator (an output), or scratch memory straight from the driver.
pub struct DevMem {
    pub addr: u64,
    keep: Keep,
}

enum Keep {
    Borrowed,
    Block(Memory),
    Scratch {
        pool: Arc<Mutex<Scratch>>,
        size: usize,
        stream: StreamHandle,
    },
}

impl Drop for DevMem {
    fn drop(&mut self) {
        if let Keep::Scratch { pool, size, stream } = &self.keep {
            // The work using it is queued on `stream`, so later work there
            // may have it (scratch.rs).
            lock(pool).give_back(self.addr, *size, *stream);
        }
    }
}

/// Where a replay's kernels put their outputs on a driver's device: the
/// blocks of the program's tensors the op's results are (None: a result
/// the program dropped, made in scratch memory for the replay), in the
/// order it asks for them.
#[derive(Default)]
pub(super) struct ReplayOutputs {
    pub into: VecDeque<Option<Tensor>>,
    pub lent: Vec<Tensor>,
    /// The scratch memory of the replay's temporaries, given back when it ends.
    pub held: Vec<DevMem>,
}

/// Where a replayed kernel's output goes (`ReplayOutputs::next`).
pub(super) enum Output {
    /// The block of the program's tensor at this address.
    Into(u64),
    /// Scratch memory, for the replay only.
    Scratch,
    /// A block of the caching allocator, as outside a replay.
    Fresh,
}

impl ReplayOutputs {
    /// Where the next output, of `bytes`, goes.
    pub fn next(&mut self, bytes: usize) -> Output {
        match self.into.front() {
            Some(Some(t)) if t.nbytes() == bytes => {
                let addr = t.data_ptr();
                if let Some(Some(t)) = self.into.pop_front() {
                    self.lent.push(t);
                }
                Output::Into(addr)
            }
            Some(None) => {
                self.into.pop_front();
                Output::Scratch
            }
            _ => Output::Fresh,
        }
    }

    /// The captured tensor whose block starts at `addr`, as an output of
    /// `shape`.
    pub fn tensor_at(&self, addr: u64, shape: Vec<usize>) -> Option<Tensor> {
        let t = self.lent.iter().find(|t| t.data_ptr() == addr)?;
        let strides = crate::runtime::shape::contiguous_strides(&shape);
        Some(t.view(shape, strides, t.offset()))
    }
}

/// One device and its current stream, as `exec` launches on it.
pub struct OnDevice<'a> {
    devices: &'a Devices,
    driver: &'a Arc<dyn Driver>,
    device: u32,
    stream: StreamHandle,
    /// The session's stop request: no launch starts once it is set.
    interrupt: &'a AtomicBool,
    /// `--launch-blocking`: the host waits for each launch.
    blocking: bool,
    /// While a graph replays: the captured blocks its outputs go to.
    replay: Option<&'a Mutex<ReplayOutputs>>,
}

impl OnDevice<'_> {
    fn failed(&self, e: DriverError) -> Error {
        driver_error(self.device, e)
    }

    /// Before a launch: a stop request (Ctrl-C) stops the op here.
    fn may_launch(&self) -> Result<(), Error> {
        if self.interrupt.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        Ok(())
    }

    /// After a launch: with `--launch-blocking` the host waits for it, so a
    /// fault is reported by the statement that caused it.
    fn launched(&self) -> Result<(), Error> {
        if self.blocking {
            self.driver
                .stream_synchronize(self.stream)
                .map_err(|e| self.failed(e))?;
        }
        Ok(())
    }
}

/// What an op on a driver's device reports when the session has no driver
/// (the ops pick kernels for a driver's devices only).
pub(super) fn no_driver() -> Error {
    Error::value("internal error: a device op on a device without a driver")
}

pub fn driver_error(device: u32, e: DriverError) -> Error {
    match e {
        DriverError::OutOfMemory { bytes } => Error::value(format!(
            "cuda:{device}: the driver could not allocate {bytes} bytes for a temporary"
        )),
        DriverError::Assert { device: failed, .. } => Error::DeviceAssert {
            device: Device::Cuda(failed.unwrap_or(device)),
        },
        e => Error::Cuda {
            device: Device::Cuda(device),
            sticky: e.is_sticky(),
            message: e.to_string(),
        },
    }
}

impl Launcher for OnDevice<'_> {
    type Mem = DevMem;

    fn alloc(&self, dt: DType, n: usize) -> Result<DevMem, Error> {
        if let Some(outputs) = self.replay {
            // A graph's replay: the output is the program's tensor its
            // capture made, or scratch memory where the program dropped it.
            let next = lock(outputs).next(n * dt.size());
            match next {
                Output::Into(addr) => {
                    return Ok(DevMem {
                        addr,
                        keep: Keep::Borrowed,
                    })
                }
                Output::Scratch => return self.scratch(dt, n),
                Output::Fresh => {}
            }
        }
        let block = self
            .devices
            .alloc(self.device, n * dt.size())
            .map_err(|e| e.to_error(Device::Cuda(self.device)))?;
        let addr = block
            .address()
            .ok_or_else(|| Error::value("internal error: a device block without an address"))?;
        Ok(DevMem {
            addr,
            keep: Keep::Block(block),
        })
    }

    fn scratch(&self, dt: DType, n: usize) -> Result<DevMem, Error> {
        let pool = self
            .devices
            .scratch(self.device)
            .ok_or_else(|| Error::value("internal error: scratch memory without a driver"))?;
        let bytes = n * dt.size();
        let taken = lock(pool).take(bytes, self.stream);
        let (addr, size) = match taken {
            Ok(t) => t,
            // The device is full: the temporary comes from the caching
            // allocator, as all of PyTorch's do (its cached blocks first,
            // then its release-and-retry, then its out-of-memory error).
            Err(DriverError::OutOfMemory { .. }) => return self.alloc(dt, n),
            Err(e) => return Err(self.failed(e)),
        };
        Ok(DevMem {
            addr,
            keep: Keep::Scratch {
                pool: Arc::clone(pool),
                size,
                stream: self.stream,
            },
        })
    }

    fn addr(&self, m: &DevMem) -> u64 {
        m.addr
    }

    fn geometry(&self) -> Geometry {
        self.driver.geometry(self.device)
    }

    fn launch<A: KernelArgs>(&self, kernel: &Kernel, at: Launch, args: A) -> Result<(), Error> {
        self.may_launch()?;
        // SAFETY: exec sizes every address in `args` from live memory of this
        // device (tensors the op holds, blocks and scratch it keeps until the
        // launch is queued; a dropped block is reused only by later work).
        unsafe { self.driver.launch(self.stream, kernel, at, bytes_of(&args)) }
            .map_err(|e| self.failed(e))?;
        self.launched()
    }

    fn gemm(&self, dt: DType, g: &Gemm, first: u64, second: u64, out: u64) -> Result<(), Error> {
        self.may_launch()?;
        // SAFETY: exec::matmul sizes the operands and output for `g`.
        unsafe { self.driver.gemm(self.stream, dt, g, first, second, out) }
            .map_err(|e| self.failed(e))?;
        self.launched()
    }
}

/// An op's input in device memory, as a kernel reads it.
pub struct Operand {
    mem: DevMem,
    /// Where the view starts (a copy of stale bytes starts at the storage's start too).
    offset: usize,
    /// The strides of a host operand's contiguous copy (None: the tensor's own).
    strides: Option<Vec<isize>>,
}

impl Runtime {
    /// The launcher for device `d`'s current stream, when a driver holds its memory.
    pub(super) fn on_device(&self, d: u32) -> Option<OnDevice<'_>> {
        let driver = self.devices.driver()?;
        let (stream, blocking) = {
            let gpu = self.devices.gpu(d)?;
            (
                gpu.streams.handle(gpu.streams.current()),
                gpu.launch_blocking,
            )
        };
        Some(OnDevice {
            devices: &self.devices,
            driver,
            device: d,
            stream,
            interrupt: &self.interrupt,
            blocking,
            replay: self.replaying.then_some(&self.replay_outputs),
        })
    }

    /// Whether `device`'s memory is a driver's (ops launch kernels there).
    pub(super) fn launches_on(&self, device: Device) -> Option<u32> {
        match device {
            Device::Cuda(d) if self.devices.driver().is_some() => Some(d),
            _ => None,
        }
    }

    /// The new tensor `out` (computed on the host) in the device block
    /// `block`: on a driver's device its elements are copied there.
    pub(super) fn place(&self, out: Tensor, block: Memory) -> Result<Tensor, Error> {
        let (Some(driver), Device::Cuda(d)) = (self.devices.driver(), out.device()) else {
            return Ok(out.placed(block));
        };
        let bytes = self.device_bytes(d, block, out.dtype(), out.numel(), driver)?;
        let stream = self.devices.current_handle(d);
        // A whole contiguous host tensor is copied from its own memory (a
        // pinned one's page-locked memory: direct DMA); a view, gathered first.
        let own = out.read();
        let uploaded = if out.is_contiguous() && out.offset() == 0 && own.len() == out.numel() {
            bytes.upload(&own, stream)
        } else {
            drop(own);
            bytes.upload(&out.contiguous_buffer(), stream)
        };
        uploaded.map_err(|e| driver_error(d, e))?;
        Ok(Tensor::in_device_memory(
            bytes,
            out.shape().to_vec(),
            out.device(),
        ))
    }

    pub(super) fn device_bytes(
        &self,
        d: u32,
        block: Memory,
        dtype: DType,
        len: usize,
        driver: &Arc<dyn Driver>,
    ) -> Result<DeviceBytes, Error> {
        let addr = block
            .address()
            .ok_or_else(|| Error::value("internal error: a device block without an address"))?;
        Ok(DeviceBytes {
            block,
            addr,
            device: d,
            len,
            dtype,
            driver: Arc::clone(driver),
        })
    }

    /// `t` as a kernel on its device's current stream reads it: its own
    /// memory, or (racing a pending write, on a driver that has already run
    /// it) a scratch copy of the bytes from before the write.
    pub(super) fn operand(&self, l: &OnDevice, t: &Tensor) -> Result<Operand, Error> {
        if !t.device().is_cuda() {
            // A host operand (a number, a 0-d cpu tensor): copied over for the
            // kernel, in scratch memory (the simulator allocates nothing for it).
            let buf = t.contiguous_buffer();
            let mem = l.scratch(buf.dtype(), buf.len())?;
            upload(&**l.driver, l.device, mem.addr, &buf, l.stream)
                .map_err(|e| driver_error(l.device, e))?;
            return Ok(Operand {
                mem,
                offset: 0,
                strides: Some(crate::runtime::shape::contiguous_strides(t.shape())),
            });
        }
        let own = Operand::own(t)?;
        if t.before_device_read() == Sees::Stale && l.driver.runs_when_queued() {
            let old: Buffer = t.stale_bytes();
            let mem = l.scratch(old.dtype(), old.len())?;
            upload(&**l.driver, l.device, mem.addr, &old, l.stream)
                .map_err(|e| driver_error(l.device, e))?;
            return Ok(Operand {
                mem,
                offset: t.offset(),
                strides: None,
            });
        }
        Ok(own)
    }

    /// The output of `exec` as a tensor on device `d`.
    pub(super) fn launched(&mut self, d: u32, out: Out<DevMem>) -> Result<Tensor, Error> {
        let driver = self
            .devices
            .driver()
            .ok_or_else(|| Error::value("internal error: launched on a device without a driver"))?;
        let addr = out.mem.addr;
        let block = match replace_keep(out.mem) {
            Keep::Block(block) => block,
            // A replayed graph's output, in its captured block.
            Keep::Borrowed if self.replaying => {
                let t = lock(&self.replay_outputs).tensor_at(addr, out.shape);
                return t.ok_or_else(|| Error::value("internal error: a replay lost its output"));
            }
            // A replay's temporary (a result the program dropped): scratch
            // memory, kept until the replay ends.
            keep @ Keep::Scratch { .. } if self.replaying => {
                let gpu = self.devices.gpu_handle(d).ok_or_else(no_driver)?;
                let unowned = Memory::Device {
                    gpu: Arc::clone(gpu),
                    block: None,
                    device: d,
                };
                let len = crate::runtime::shape::numel(&out.shape);
                let bytes = DeviceBytes {
                    block: unowned,
                    addr,
                    device: d,
                    len,
                    dtype: out.dtype,
                    driver: Arc::clone(driver),
                };
                lock(&self.replay_outputs).held.push(DevMem { addr, keep });
                return Ok(Tensor::in_device_memory(bytes, out.shape, Device::Cuda(d)));
            }
            _ => {
                return Err(Error::value(
                    "internal error: an op's output is not a block of the caching allocator",
                ));
            }
        };
        let len = crate::runtime::shape::numel(&out.shape);
        let driver = Arc::clone(driver);
        if len > 0 {
            // An empty tensor takes no block: nothing was allocated (`alloc`).
            self.counters.allocations += 1;
            self.counters.bytes += (len * out.dtype.size()) as u64;
        }
        let bytes = self.device_bytes(d, block, out.dtype, len, &driver)?;
        Ok(Tensor::in_device_memory(bytes, out.shape, Device::Cuda(d)))
    }
}

/// The driver memory of `t`, a tensor on a driver's device.
fn device_memory(t: &Tensor) -> Result<&DeviceBytes, Error> {
    t.device_bytes().ok_or_else(|| {
        Error::value(format!(
            "internal error: a {} tensor without device memory",
            t.device()
        ))
    })
}

/// Takes the memory's ownership out of `m` (leaving it borrowed, so its drop does nothing).
fn replace_keep(mut m: DevMem) -> Keep {
    std::mem::replace(&mut m.keep, Keep::Borrowed)
}

impl Operand {
    /// The device address of the operand's storage (a view's offset is
    /// added by the kernels).
    pub fn addr(&self) -> u64 {
        self.mem.addr
    }

    /// `t`'s own device memory, as a kernel reads it or writes it in place
    /// (after `before_write`).
    pub fn own(t: &Tensor) -> Result<Operand, Error> {
        let bytes = device_memory(t)?;
        Ok(Operand {
            mem: DevMem {
                addr: bytes.addr,
                keep: Keep::Borrowed,
            },
            offset: t.offset(),
            strides: None,
        })
    }

    /// The kernel's view of `t` through this operand.
    pub fn view<'a>(&'a self, t: &'a Tensor) -> View<'a, DevMem> {
        View {
            mem: &self.mem,
            dtype: t.dtype(),
            shape: t.shape(),
            strides: self.strides.as_deref().unwrap_or(t.strides()),
            offset: self.offset,
        }
    }
}
