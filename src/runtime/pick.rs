//! The one place `--backend` becomes a backend: `auto` will pick CUDA when a
//! driver and a device are found, and picks the simulator today; `emu` is
//! the CUDA backend's code on the CPU.

use std::sync::Arc;

use super::backend::{Backend, BackendChoice, SimBackend, H100};
use super::cuda::backend::DriverBackend;
use super::cuda::emu::Emu;
use super::cuda::interface::{Driver, DriverError};
use super::cuda::real::Cuda;

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
        BackendChoice::Cuda => {
            let cuda = Cuda::open().map_err(|e| match e {
                DriverError::Unavailable(why) => why,
                e => format!("--backend cuda: {e}; use --backend sim or auto"),
            })?;
            let n = cuda.device_count();
            let reason = format!(
                "{n} NVIDIA GPU(s) through the CUDA driver, chosen with --backend cuda \
                 (not yet verified on a GPU: see README)"
            );
            Ok(Picked {
                backend: Box::new(DriverBackend::new(Arc::new(cuda), &H100)?),
                reason,
            })
        }
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
