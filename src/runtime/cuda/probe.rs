//! Looking for a CUDA driver without ever panicking: cudarc loads libcuda
//! dynamically and panics when it is missing, so every call is preceded by
//! `is_culib_present`. The CUDA backend itself is not built yet; the probe says
//! what `--backend auto` found and why `--backend cuda` cannot start.

use cudarc::driver::sys;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// libcuda could not be loaded.
    NoDriver,
    /// The driver loaded but initialising it failed (no device, or a broken install).
    InitFailed { code: String },
    /// The driver works; `devices` CUDA devices are visible.
    Driver { version: i32, devices: u32 },
}

/// Only whether libcuda can be loaded: cheap enough for every start-up.
pub fn driver_present() -> bool {
    // SAFETY: dlopen of the driver's library names; no driver call is made.
    unsafe { sys::is_culib_present() }
}

/// Loads and initialises the driver and counts devices (`cuInit` can take a while).
pub fn probe() -> Probe {
    if !driver_present() {
        return Probe::NoDriver;
    }
    // Symbols missing from an older driver make cudarc panic; keep that from
    // ending the program, and say what happened instead.
    let result = std::panic::catch_unwind(|| {
        // SAFETY: plain driver API calls with valid out-pointers, after the library is known to load.
        unsafe {
            let r = sys::cuInit(0);
            if r != sys::CUresult::CUDA_SUCCESS {
                return Probe::InitFailed {
                    code: format!("{r:?}"),
                };
            }
            let mut version = 0;
            let _ = sys::cuDriverGetVersion(&mut version);
            let mut count = 0;
            let r = sys::cuDeviceGetCount(&mut count);
            if r != sys::CUresult::CUDA_SUCCESS {
                return Probe::InitFailed {
                    code: format!("{r:?}"),
                };
            }
            Probe::Driver {
                version,
                devices: count.max(0) as u32,
            }
        }
    });
    result.unwrap_or_else(|_| Probe::InitFailed {
        code: "the driver is missing functions cudarc needs (too old?)".into(),
    })
}

/// Why `--backend auto` chose the simulator, for the banner and `devices`.
pub fn auto_reason() -> &'static str {
    if driver_present() {
        "a CUDA driver is installed, but this build has no CUDA backend yet"
    } else {
        "no CUDA driver found"
    }
}

/// The error `--backend cuda` exits with.
pub fn cuda_backend_error() -> String {
    match probe() {
        Probe::NoDriver => "--backend cuda: no CUDA driver found (libcuda.so could not be loaded); \
             use --backend sim (simulated devices, the same semantics) or auto"
            .into(),
        Probe::InitFailed { code } => format!("--backend cuda: the CUDA driver did not start ({code}); use --backend sim or auto"),
        Probe::Driver { devices: 0, version } => {
            format!("--backend cuda: the CUDA driver ({version}) sees no devices; use --backend sim or auto")
        }
        Probe::Driver { devices, version } => format!(
            "--backend cuda: found {devices} device(s) on driver {version}, but this build has no CUDA backend yet; \
             use --backend sim or auto"
        ),
    }
}
