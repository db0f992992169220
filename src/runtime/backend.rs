//! Backends provide CUDA devices: their properties and their memory. Compute on
//! the simulator runs the host ops; on `emu` (and `cuda`, once wired) tensors
//! live in a driver's device memory and ops run the CUDA kernels.
//! `pick` is the one place `--backend` is turned into a backend: `auto` will
//! pick CUDA when a driver and a device are found, and picks the simulator today.

use std::sync::Arc;

use super::alloc::{Capacity, SegmentError, SegmentSource};
use super::cuda::backend::DriverBackend;
use super::cuda::emu::Emu;
use super::cuda::interface::Driver;

/// The reference GPU the simulator's timing model uses.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuSpec {
    pub name: &'static str,
    pub compute_capability: (u32, u32),
    /// Device memory bandwidth, bytes per second.
    pub memory_bandwidth: f64,
    /// Dense FLOP rates, per second.
    pub fp32_flops: f64,
    pub fp16_flops: f64,
    /// Time from launch to a kernel starting.
    pub launch_latency: f64,
    /// Host-device copies over PCIe, bytes per second.
    pub pcie_pageable: f64,
    pub pcie_pinned: f64,
    /// Device-to-device copies (NVLink), bytes per second.
    pub peer_bandwidth: f64,
}

/// NVIDIA H100 SXM5 (public datasheet figures; PCIe gen5 x16 practical rates).
pub const H100: GpuSpec = GpuSpec {
    name: "NVIDIA H100 80GB HBM3",
    compute_capability: (9, 0),
    memory_bandwidth: 3.35e12,
    fp32_flops: 67e12,
    fp16_flops: 989e12,
    launch_latency: 4e-6,
    pcie_pageable: 12e9,
    pcie_pinned: 50e9,
    peer_bandwidth: 450e9,
};

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
                name: format!("{} (simulated)", H100.name),
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
    fn free(&self) -> usize {
        (**self).free()
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

/// The backend a session runs on, and why it was picked (the banner says).
pub struct Picked {
    pub backend: Box<dyn Backend>,
    pub reason: String,
}

/// The one place a backend is picked: `choice`, with the simulator's device
/// count and memory (used whenever the simulator is picked).
pub fn pick(choice: BackendChoice, sim: SimBackend) -> Result<Picked, String> {
    let sim_reason = |why: &str| {
        if sim.count == 0 {
            String::new()
        } else {
            format!(
                "{} simulated device(s) with {} each; {why}",
                sim.count,
                crate::vocab::human_bytes(sim.memory as u128),
            )
        }
    };
    match choice {
        BackendChoice::Auto => Ok(Picked {
            reason: sim_reason(super::cuda::probe::auto_reason()),
            backend: Box::new(sim),
        }),
        BackendChoice::Sim => Ok(Picked {
            reason: sim_reason("chosen with --backend sim"),
            backend: Box::new(sim),
        }),
        BackendChoice::Cuda => Err(super::cuda::probe::cuda_backend_error()),
        BackendChoice::Emu => {
            let emu = Emu::new(sim.count, sim.memory, H100.name, H100.compute_capability);
            emu.prepare()
                .map_err(|e| format!("--backend emu cannot start: {e}"))?;
            let reason = format!(
                "{} emulated device(s) with {} each: the CUDA backend's code with the kernels \
                 compiled for the host, chosen with --backend emu",
                sim.count,
                crate::vocab::human_bytes(sim.memory as u128),
            );
            Ok(Picked {
                backend: Box::new(DriverBackend::new(Arc::new(emu), &H100)?),
                reason,
            })
        }
    }
}
