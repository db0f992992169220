//! Backends provide CUDA devices: their properties and their memory. Compute on
//! the simulator runs the host ops; on `emu` and `cuda` tensors
//! live in a driver's device memory and ops run the CUDA kernels.
//! `pick.rs` is the one place `--backend` is turned into a backend.

use std::sync::Arc;

use super::alloc::{Capacity, SegmentError, SegmentSource};
use super::driver::Driver;

pub use super::spec::{GpuSpec, H100};

/// One CUDA device as a backend describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceInfo {
    pub index: u32,
    pub name: String,
    pub total_memory: usize,
    pub compute_capability: (u32, u32),
    pub spec: &'static GpuSpec,
}

pub trait Backend: Send + Sync {
    /// `sim` or `cuda`.
    fn name(&self) -> &'static str;
    fn devices(&self) -> Vec<DeviceInfo>;
    /// Where device `index` gets its segments from.
    fn segment_source(&self, index: u32) -> Box<dyn SegmentSource + Send>;
    /// The driver whose device memory tensors live in (`cuda`, `emu`); None
    /// on the simulator, whose devices compute with the host ops.
    fn driver(&self) -> Option<Arc<dyn Driver>> {
        None
    }
}

/// Simulated devices: host compute, CUDA semantics, a real capacity.
pub struct SimBackend {
    pub count: u32,
    pub memory: usize,
}

impl Backend for SimBackend {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn devices(&self) -> Vec<DeviceInfo> {
        (0..self.count)
            .map(|index| DeviceInfo {
                index,
                name: super::spec::stand_in_name(&H100, "simulated", self.memory),
                total_memory: self.memory,
                compute_capability: H100.compute_capability,
                spec: &H100,
            })
            .collect()
    }

    fn segment_source(&self, _index: u32) -> Box<dyn SegmentSource + Send> {
        Box::new(Capacity::new(self.memory))
    }
}

impl<T: SegmentSource + ?Sized> SegmentSource for Box<T> {
    fn reserve(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        (**self).reserve(bytes)
    }
    fn release(&mut self, handle: u64, bytes: usize) {
        (**self).release(handle, bytes)
    }
    fn capacity(&self) -> usize {
        (**self).capacity()
    }
    fn free(&self) -> Option<usize> {
        (**self).free()
    }
    fn process_memory(&self) -> Option<usize> {
        (**self).process_memory()
    }
    fn reserve_address(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        (**self).reserve_address(bytes)
    }
    fn map(&mut self, addr: u64, bytes: usize) -> Result<(), SegmentError> {
        (**self).map(addr, bytes)
    }
    fn unmap(&mut self, addr: u64, bytes: usize) {
        (**self).unmap(addr, bytes)
    }
    fn release_address(&mut self, addr: u64, bytes: usize) {
        (**self).release_address(addr, bytes)
    }
}

/// `--backend`: which backend provides the session's CUDA devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// A real GPU when one is found and the CUDA backend is built, else the simulator.
    #[default]
    Auto,
    /// Simulated devices: CUDA semantics on the host.
    Sim,
    /// Real NVIDIA GPUs through the CUDA driver.
    Cuda,
    /// The CUDA backend's own code on the CPU, to test it without a GPU.
    Emu,
}

impl BackendChoice {
    pub const ALL: [BackendChoice; 4] = [
        BackendChoice::Auto,
        BackendChoice::Sim,
        BackendChoice::Cuda,
        BackendChoice::Emu,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Sim => "sim",
            BackendChoice::Cuda => "cuda",
            BackendChoice::Emu => "emu",
        }
    }

    /// Parses a `--backend` value.
    pub fn from_name(name: &str) -> Result<BackendChoice, String> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| format!("unknown backend `{name}`: use auto, sim, cuda or emu"))
    }
}
