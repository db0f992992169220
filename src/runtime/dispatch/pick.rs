//! The one place `--backend` becomes a backend: `auto` picks CUDA when a
//! driver and a device are found and pass a first check (a copy and a few
//! kernels, `dispatch::first_check`), and the simulator otherwise, saying
//! why; `emu` is the CUDA backend's code on the CPU.

use std::sync::Arc;

use super::first_check::first_check;
use crate::runtime::backend::{Backend, BackendChoice, SimBackend, H100};
use crate::runtime::cuda::backend::DriverBackend;
use crate::runtime::cuda::emu::Emu;
use crate::runtime::cuda::probe::{self, Probe};
use crate::runtime::cuda::real::Cuda;
use crate::runtime::driver::{Driver, DriverError};

/// The backend a session runs on, and why it was picked (the banner says).
pub struct Picked {
    pub backend: Box<dyn Backend>,
    pub reason: String,
}

/// The one place a backend is picked: `choice`, with the simulator's device
/// count and memory (used whenever the simulator is picked).
///
/// `auto` (the default) defers to `CUDASH_BACKEND` when it is set, so a
/// front end started by another program (Jupyter) can be told which
/// backend to use, and the test suite runs on the simulator everywhere.
pub fn pick(choice: BackendChoice, sim: SimBackend) -> Result<Picked, String> {
    let from_env = std::env::var("CUDASH_BACKEND")
        .ok()
        .filter(|v| !v.is_empty());
    let (choice, chosen_with) = match (choice, from_env) {
        (BackendChoice::Auto, Some(v)) => (
            BackendChoice::from_name(&v).map_err(|e| format!("CUDASH_BACKEND={v}: {e}"))?,
            format!("CUDASH_BACKEND={v}"),
        ),
        (choice, _) => (choice, format!("--backend {}", choice.name())),
    };
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
        BackendChoice::Auto => Ok(match auto_cuda() {
            Ok(picked) => picked,
            Err(why) => Picked {
                reason: sim_reason(&why),
                backend: Box::new(sim),
            },
        }),
        BackendChoice::Sim => Ok(Picked {
            reason: sim_reason(&format!("chosen with {chosen_with}")),
            backend: Box::new(sim),
        }),
        BackendChoice::Cuda => {
            let cuda = Cuda::open().map_err(|e| match e {
                DriverError::Unavailable(why) => why,
                e => format!("{chosen_with}: {e}; use --backend sim or auto"),
            })?;
            let reason = format!("{}, chosen with {chosen_with}", gpus(&cuda));
            Ok(Picked {
                backend: Box::new(DriverBackend::new(Arc::new(cuda), &H100)?),
                reason,
            })
        }
        BackendChoice::Emu => {
            let name = crate::runtime::spec::stand_in_name(&H100, "emulated", sim.memory);
            let emu = Emu::new(sim.count, sim.memory, &name, H100.compute_capability);
            emu.prepare()
                .map_err(|e| format!("{chosen_with} cannot start: {e}"))?;
            let reason = format!(
                "{} emulated device(s) with {} each{visible_note}: the CUDA backend's code with \
                 the kernels compiled for the host, chosen with {chosen_with}",
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

/// The GPUs `auto` picks, or (the error) why it picks none.
pub fn auto_cuda() -> Result<Picked, String> {
    match probe::probe() {
        Probe::Driver { devices, .. } if devices > 0 => {
            auto_on(Cuda::open().map(|c| Arc::new(c) as Arc<dyn Driver>))
        }
        found => Err(probe::auto_reason(&found)),
    }
}

/// What `auto` picks when a driver offers devices: them, when they pass
/// the first check; otherwise (the error) why not, for the banner.
pub fn auto_on(driver: Result<Arc<dyn Driver>, DriverError>) -> Result<Picked, String> {
    let not_picked = |why: String| {
        format!("a CUDA driver and GPU were found, but {why}; auto picked the simulator (`cudash cuda` says more)")
    };
    let driver = driver.map_err(|e| not_picked(format!("they could not be opened ({e})")))?;
    let backend = DriverBackend::new(Arc::clone(&driver), &H100)
        .map_err(|e| not_picked(format!("they could not be described ({e})")))?;
    first_check(&backend).map_err(|e| not_picked(format!("the first check failed on {e}")))?;
    Ok(Picked {
        reason: format!("{}, picked by --backend auto", gpus(driver.as_ref())),
        backend: Box::new(backend),
    })
}

/// "2 NVIDIA H100 80GB HBM3 GPU(s) through the CUDA driver".
fn gpus(driver: &dyn Driver) -> String {
    let n = driver.device_count();
    let name = driver
        .properties(0)
        .map(|p| p.name)
        .unwrap_or_else(|_| "NVIDIA".into());
    format!("{n} {name} GPU(s) through the {} driver", driver.name())
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
