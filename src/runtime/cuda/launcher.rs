//! `exec::Launcher` on a real CUDA device: memory is blocks of the device's
//! caching allocator (segments from `cuMemAlloc`), allocated for one stream;
//! kernels and cuBLAS products are queued on that stream and nothing waits
//! for them. A block freed here goes back to the cache at once and is handed
//! out again only for the same stream, so work already queued that uses it
//! runs before any new use (the rule PyTorch's allocator relies on too).

use std::sync::{Arc, Mutex};

use super::blas::Blas;
use super::driver::{CudaDevice, Stream};
use super::exec::{KernelArgs, Launcher};
use crate::error::Error;
use crate::runtime::alloc::DeviceAllocator;
use crate::runtime::alloc::{Block, StreamId};
use crate::runtime::driver::{Gemm, Geometry, Kernel, Launch};
use crate::runtime::lock::lock;
use crate::runtime::{DType, Device};

/// Device memory from the caching allocator, returned to it when dropped.
pub struct DeviceMemory {
    pub addr: u64,
    pub bytes: usize,
    block: Block,
    allocator: Arc<Mutex<DeviceAllocator>>,
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        lock(&self.allocator).free(self.block);
    }
}

/// One device and the stream its work goes to.
pub struct OnStream<'a> {
    pub device: &'a CudaDevice,
    pub index: u32,
    pub allocator: &'a Arc<Mutex<DeviceAllocator>>,
    pub blas: &'a Mutex<Blas>,
    /// None: the legacy default stream (`default`).
    pub stream: Option<&'a Stream>,
    pub stream_id: StreamId,
    pub geometry: Geometry,
}

impl OnStream<'_> {
    /// `bytes` of uninitialised device memory for this stream.
    pub fn memory(&self, bytes: usize) -> Result<DeviceMemory, Error> {
        let mut a = lock(self.allocator);
        let block = a
            .malloc(bytes, self.stream_id)
            .map_err(|e| e.to_error(Device::Cuda(self.index)))?;
        let addr = a
            .address(&block)
            .expect("a block just allocated lies in a live segment");
        drop(a);
        Ok(DeviceMemory {
            addr,
            bytes,
            block,
            allocator: Arc::clone(self.allocator),
        })
    }

    fn driver(&self, e: impl std::fmt::Display) -> Error {
        Error::Cuda {
            device: Device::Cuda(self.index),
            message: e.to_string(),
            sticky: false,
        }
    }
}

impl Launcher for OnStream<'_> {
    type Mem = DeviceMemory;

    fn alloc(&self, dt: DType, n: usize) -> Result<DeviceMemory, Error> {
        self.memory(n * dt.size())
    }

    fn addr(&self, m: &DeviceMemory) -> u64 {
        m.addr
    }

    fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn launch<A: KernelArgs>(&self, kernel: &Kernel, at: Launch, args: A) -> Result<(), Error> {
        // SAFETY: exec sizes every address in `args` from live memory of this
        // device, and memory dropped after the launch is reused only by work
        // queued later on the same stream.
        unsafe { self.device.launch(kernel, at, self.stream, &args) }.map_err(|e| self.driver(e))
    }

    fn gemm(&self, dt: DType, g: &Gemm, first: u64, second: u64, out: u64) -> Result<(), Error> {
        let mut blas = lock(self.blas);
        // SAFETY: exec::matmul sizes the operands and output for `g`, all
        // live memory of this device.
        unsafe { blas.gemm(dt, g, first, second, out, self.stream) }.map_err(|e| self.driver(e))
    }
}
