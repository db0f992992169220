//! Looking for a CUDA driver without ever panicking: cudarc loads libcuda
//! dynamically and panics when it is missing, so every call is preceded by
//! `is_culib_present`. The probe says what `--backend auto` found, why
//! `--backend cuda` cannot start, and what `cudash cuda` reports.

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
        code: TOO_OLD.into(),
    })
}

/// A CUDA device as the driver describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverDevice {
    pub index: u32,
    pub name: String,
    pub total_memory: usize,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
}

const TOO_OLD: &str = "the driver is missing functions cudarc needs (too old?)";

/// Device `index` as the driver describes it. Call only after `probe` found
/// a working driver with more than `index` devices.
pub fn describe(index: u32) -> Result<DriverDevice, String> {
    std::panic::catch_unwind(|| query(index)).unwrap_or_else(|_| Err(TOO_OLD.into()))
}

fn query(index: u32) -> Result<DriverDevice, String> {
    use sys::CUdevice_attribute as A;
    let check = |what: &str, r: sys::CUresult| {
        if r == sys::CUresult::CUDA_SUCCESS {
            Ok(())
        } else {
            Err(format!("{what} failed for device {index}: {r:?}"))
        }
    };
    // SAFETY: driver queries with valid out-pointers and buffer lengths, after `cuInit` succeeded.
    unsafe {
        let mut dev: sys::CUdevice = 0;
        check("cuDeviceGet", sys::cuDeviceGet(&mut dev, index as i32))?;
        let mut name = [0 as std::ffi::c_char; 256];
        check(
            "cuDeviceGetName",
            sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev),
        )?;
        let name = std::ffi::CStr::from_ptr(name.as_ptr())
            .to_string_lossy()
            .into_owned();
        let mut total = 0usize;
        check(
            "cuDeviceTotalMem",
            sys::cuDeviceTotalMem_v2(&mut total, dev),
        )?;
        let attr = |a: A| {
            let mut v = 0;
            check(
                "cuDeviceGetAttribute",
                sys::cuDeviceGetAttribute(&mut v, a, dev),
            )
            .map(|_| v.max(0) as u32)
        };
        Ok(DriverDevice {
            index,
            name,
            total_memory: total,
            compute_capability: (
                attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            multiprocessors: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        })
    }
}

/// Whether a driver that supports CUDA `driver` (as `cuDriverGetVersion`
/// gives it: 13000 for 13.0) can load the CUBINs NVRTC `nvrtc` makes. A
/// CUBIN needs a driver of at least NVRTC's major version (minor versions
/// are compatible); an older one fails at `cuModuleLoadData` with an error
/// that does not say why, so say it first.
pub fn driver_runs_cubins_of(driver: i32, nvrtc: (i32, i32)) -> Result<(), String> {
    let (major, minor) = (driver / 1000, driver % 1000 / 10);
    if major >= nvrtc.0 {
        return Ok(());
    }
    Err(format!(
        "the NVIDIA driver supports CUDA {major}.{minor}, but NVRTC {}.{} compiles kernels that need a CUDA {} driver: update the driver (CUDA 13 needs R580 or newer), or put an NVRTC {major}.x first on the loader path (LD_LIBRARY_PATH)",
        nvrtc.0, nvrtc.1, nvrtc.0
    ))
}

/// Whether cuBLAS can be loaded (no call is made).
pub fn cublas_present() -> bool {
    // SAFETY: dlopen of cuBLAS's library names only.
    unsafe { cudarc::cublas::sys::is_culib_present() }
}

/// Why `--backend auto` found no devices to run on, for the banner and
/// `devices` (`found`: what `probe` said).
pub fn auto_reason(found: &Probe) -> String {
    match found {
        Probe::NoDriver => "no CUDA driver found".into(),
        Probe::InitFailed { code } => {
            format!("a CUDA driver is installed but did not start ({code})")
        }
        Probe::Driver { devices: 0, .. } => "a CUDA driver is installed but sees no GPU".into(),
        Probe::Driver { .. } => "a CUDA driver and GPU were found".into(),
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
            "--backend cuda: found {devices} device(s) on driver {version}, but they could not be opened; \
             use --backend sim or auto"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_driver_older_than_nvrtc_is_refused_with_the_fix() {
        assert_eq!(driver_runs_cubins_of(13000, (13, 0)), Ok(()));
        assert_eq!(driver_runs_cubins_of(13000, (13, 2)), Ok(()));
        assert_eq!(driver_runs_cubins_of(13010, (12, 8)), Ok(()));
        let e = driver_runs_cubins_of(12080, (13, 0)).unwrap_err();
        assert!(
            e.contains("supports CUDA 12.8") && e.contains("NVRTC 13.0") && e.contains("R580"),
            "{e}"
        );
    }
}
