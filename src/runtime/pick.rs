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
    // Simulated and emulated devices honour CUDA_VISIBLE_DEVICES as the
    // driver does for real ones: a selection, renumbered from 0.
    let env = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    let (count, visible_note) = visible(sim.count, env.as_deref());
    let sim = SimBackend { count, ..sim };
    let sim_reason = |why: &str| {
        if sim.count == 0 && visible_note.is_empty() {
            String::new()
        } else {
            format!(
                "{} simulated device(s) with {} each{visible_note}; {why}",
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
                "{} emulated device(s) with {} each{visible_note}: the CUDA backend's code with \
                 the kernels compiled for the host, chosen with --backend emu",
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

/// How many of `count` devices `CUDA_VISIBLE_DEVICES` (`env`) leaves
/// visible, and a note saying so. As the CUDA driver reads it: a
/// comma-separated list of device indices, the visible devices renumbered
/// from 0 in its order; the list stops at the first entry that is not an
/// index of a device (or repeats one); an empty value hides every device.
pub fn visible(count: u32, env: Option<&str>) -> (u32, String) {
    let Some(list) = env else {
        return (count, String::new());
    };
    let mut seen: Vec<u32> = Vec::new();
    for item in list.split(',') {
        match item.trim().parse::<u32>() {
            Ok(i) if i < count && !seen.contains(&i) => seen.push(i),
            _ => break,
        }
    }
    let note = format!(
        " (CUDA_VISIBLE_DEVICES={list}: {} of {count} visible)",
        seen.len()
    );
    (seen.len() as u32, note)
}

#[cfg(test)]
mod tests {
    use super::visible;

    #[test]
    fn cuda_visible_devices_selects_and_stops_at_the_first_invalid_index() {
        assert_eq!(visible(4, None).0, 4);
        assert_eq!(visible(4, Some("1,3")).0, 2);
        assert_eq!(visible(4, Some("2")).0, 1);
        assert_eq!(
            visible(4, Some("0,7,1")).0,
            1,
            "7 is not a device: 1 is hidden too"
        );
        assert_eq!(visible(4, Some("1,1")).0, 1, "a repeat ends the list");
        assert_eq!(visible(4, Some("")).0, 0);
        assert_eq!(visible(4, Some("GPU-abc")).0, 0);
        assert!(visible(4, Some("1,3")).1.contains("2 of 4 visible"));
    }
}
