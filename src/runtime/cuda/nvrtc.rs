//! Compiling kernels with NVRTC, to CUBIN for the device's own architecture
//! (so an NVRTC newer than the driver cannot produce PTX the driver rejects),
//! cached in memory and on disk. The disk cache is keyed by a hash of the
//! source and options, the NVRTC version and the architecture.
//!
//! NVRTC is not part of the driver: it comes with the CUDA toolkit or the
//! `nvidia-cuda-nvrtc` Python wheel, and is found through the loader path.
//! cudarc panics when it is missing, so nothing here calls it before
//! `is_culib_present` says it is there.

use std::collections::HashMap;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::nvrtc::{result, sys};

use crate::runtime::driver::Unit;

/// A GPU architecture: compute capability (major, minor), e.g. (9, 0) for `sm_90`.
pub type Arch = (u32, u32);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NvrtcError {
    /// libnvrtc could not be loaded.
    Missing,
    /// The library loaded but lacks a function (too old), or a call failed.
    Broken(String),
    /// The source did not compile: NVRTC's log.
    Compile {
        unit: String,
        arch: Arch,
        log: String,
    },
}

impl std::fmt::Display for NvrtcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NvrtcError::Missing => write!(
                f,
                "the CUDA kernel compiler NVRTC (libnvrtc.so.13) could not be loaded: install the CUDA \
                 toolkit, or `pip install nvidia-cuda-nvrtc` and add its nvidia/cu13/lib folder to \
                 LD_LIBRARY_PATH"
            ),
            NvrtcError::Broken(why) => write!(f, "NVRTC (libnvrtc) failed: {why}"),
            NvrtcError::Compile { unit, arch, log } => write!(
                f,
                "NVRTC could not compile the `{unit}` kernels for sm_{}{}:\n{log}",
                arch.0, arch.1
            ),
        }
    }
}

impl std::error::Error for NvrtcError {}

/// Whether libnvrtc can be loaded (no NVRTC call is made).
pub fn present() -> bool {
    // SAFETY: dlopen of NVRTC's library names only.
    unsafe { sys::is_culib_present() }
}

/// Runs an NVRTC call, turning a missing library or missing symbol (cudarc
/// panics for both) into an error.
fn guarded<T>(f: impl FnOnce() -> Result<T, NvrtcError>) -> Result<T, NvrtcError> {
    if !present() {
        return Err(NvrtcError::Missing);
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(NvrtcError::Broken(
            "the library is missing functions cudash needs (too old?)".into(),
        ))
    })
}

/// NVRTC's version, (major, minor).
pub fn version() -> Result<(i32, i32), NvrtcError> {
    guarded(|| {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
            .result()
            .map_err(|e| NvrtcError::Broken(format!("nvrtcVersion: {e}")))?;
        Ok((major, minor))
    })
}

/// What to produce: a CUBIN for the real architecture, or PTX for its virtual one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Output {
    Cubin,
    Ptx,
}

/// NVRTC's options: the target, the language, exact rounding, and `defines`.
fn options(defines: Vec<String>, arch: Arch, output: Output) -> Vec<String> {
    let target = match output {
        Output::Cubin => format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        Output::Ptx => format!("--gpu-architecture=compute_{}{}", arch.0, arch.1),
    };
    // No fused multiply-adds: `start + i * step` (arange) and `mean + std * z`
    // (randn) must round twice, as on the host, or an i32 arange can land on
    // the other side of an integer (seen on an H100: 5 + 10 * -0.7 gave -1).
    let mut opts = vec![
        target,
        "--std=c++17".to_string(),
        "--fmad=false".to_string(),
    ];
    opts.extend(defines);
    // Tuning knobs of the kernels (FLAT_UNROLL, REDUCE_UNROLL in
    // kernels/common.cuh), for benchmarks that compare launch shapes: part
    // of the options, so part of the cache key.
    if let Ok(extra) = std::env::var("CUDASH_KERNEL_DEFINES") {
        opts.extend(extra.split_whitespace().map(str::to_string));
    }
    opts
}

/// Compiles `unit` for `arch` (no caching).
pub fn compile(unit: &Unit, arch: Arch, output: Output) -> Result<Vec<u8>, NvrtcError> {
    compile_source(&unit.label(), &unit.source(), unit.defines(), arch, output)
}

/// Compiles CUDA C `source` for `arch` with preprocessor `defines`; `label`
/// names it in errors.
pub fn compile_source(
    label: &str,
    source: &str,
    defines: Vec<String>,
    arch: Arch,
    output: Output,
) -> Result<Vec<u8>, NvrtcError> {
    let options = options(defines, arch, output);
    let src = CString::new(source)
        .map_err(|_| NvrtcError::Broken("the source contains a NUL byte".into()))?;
    let name = CString::new(format!("{label}.cu"))
        .map_err(|_| NvrtcError::Broken("the name contains a NUL byte".into()))?;
    guarded(|| {
        let broken = |what: &str, e: result::NvrtcError| NvrtcError::Broken(format!("{what}: {e}"));
        let prog = result::create_program(&src, Some(&name))
            .map_err(|e| broken("nvrtcCreateProgram", e))?;
        // SAFETY: `prog` is live until destroyed below; the buffers are sized by NVRTC's own size calls.
        unsafe {
            let out = match result::compile_program(prog, &options) {
                Ok(()) if output == Output::Ptx => result::get_ptx(prog)
                    .map(|p| p.into_iter().map(|c| c as u8).collect())
                    .map_err(|e| broken("nvrtcGetPTX", e)),
                Ok(()) => cubin(prog).map_err(|e| broken("nvrtcGetCUBIN", e)),
                Err(_) => {
                    let log = result::get_program_log(prog)
                        .map(|l| l.into_iter().map(|c| c as u8).collect::<Vec<u8>>())
                        .unwrap_or_default();
                    let log = String::from_utf8_lossy(&log)
                        .trim_end_matches('\0')
                        .trim()
                        .to_string();
                    Err(NvrtcError::Compile {
                        unit: label.to_string(),
                        arch,
                        log,
                    })
                }
            };
            let _ = result::destroy_program(prog);
            out
        }
    })
}

/// # Safety
/// `prog` must be a live, successfully compiled program.
unsafe fn cubin(prog: sys::nvrtcProgram) -> Result<Vec<u8>, result::NvrtcError> {
    let mut size = 0usize;
    sys::nvrtcGetCUBINSize(prog, &mut size).result()?;
    let mut buf = vec![0u8; size];
    sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr().cast()).result()?;
    Ok(buf)
}

/// The entry points a PTX text defines (`.entry name(`), for tests and `cudash` checks.
pub fn ptx_entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix(".visible .entry ")?;
            Some(rest.split('(').next()?.trim().to_string())
        })
        .collect()
}

/// A compiled unit: an ELF file for the driver to load.
pub type Cubin = Arc<Vec<u8>>;

/// Compiled units, in memory and on disk.
pub struct Cache {
    dir: Option<PathBuf>,
    memory: Mutex<HashMap<(Unit, Arch), Cubin>>,
}

/// Where compiled kernels are kept: `$CUDASH_KERNEL_CACHE`, else
/// `$XDG_CACHE_HOME/cudash/kernels`, else `~/.cache/cudash/kernels`.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CUDASH_KERNEL_CACHE") {
        return Some(PathBuf::from(d));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("cudash").join("kernels"))
}

/// A CUBIN is an ELF file; anything else on disk is a damaged entry.
fn looks_like_cubin(bytes: &[u8]) -> bool {
    bytes.len() > 64 && bytes.starts_with(b"\x7fELF")
}

impl Cache {
    /// A cache writing to `dir` (None: memory only).
    pub fn new(dir: Option<PathBuf>) -> Cache {
        Cache {
            dir,
            memory: Mutex::new(HashMap::new()),
        }
    }

    /// The process-wide cache at `default_dir()`.
    pub fn global() -> &'static Cache {
        static CACHE: OnceLock<Cache> = OnceLock::new();
        CACHE.get_or_init(|| Cache::new(default_dir()))
    }

    /// The file `unit` compiled for `arch` by NVRTC `nvrtc` is kept in.
    pub fn path(&self, unit: &Unit, arch: Arch, nvrtc: (i32, i32)) -> Option<PathBuf> {
        let mut key = unit.source();
        key.push('\0');
        key.push_str(&options(unit.defines(), arch, Output::Cubin).join(" "));
        let digest = ring::digest::digest(&ring::digest::SHA256, key.as_bytes());
        let hex: String = digest.as_ref()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let name = format!(
            "{}-sm{}{}-nvrtc{}.{}-{hex}.cubin",
            unit.label(),
            arch.0,
            arch.1,
            nvrtc.0,
            nvrtc.1
        );
        self.dir.as_ref().map(|d| d.join(name))
    }

    /// The CUBIN for `unit` on `arch`: from memory, from disk, or compiled now
    /// (and then kept in both). A damaged disk entry is compiled again.
    pub fn cubin(&self, unit: &Unit, arch: Arch) -> Result<Cubin, NvrtcError> {
        if let Some(c) = crate::runtime::lock::lock(&self.memory).get(&(*unit, arch)) {
            return Ok(Arc::clone(c));
        }
        let nvrtc = version()?;
        let path = self.path(unit, arch, nvrtc);
        let from_disk = path
            .as_deref()
            .and_then(|p| std::fs::read(p).ok())
            .filter(|b| looks_like_cubin(b));
        let bytes = match from_disk {
            Some(b) => b,
            None => {
                let b = compile(unit, arch, Output::Cubin)?;
                if let Some(p) = &path {
                    // A cache that cannot be written only costs a compile next time.
                    let _ = write_atomically(p, &b);
                }
                b
            }
        };
        let bytes = Arc::new(bytes);
        crate::runtime::lock::lock(&self.memory).insert((*unit, arch), Arc::clone(&bytes));
        Ok(bytes)
    }
}

/// Writes through a temporary file and a rename, so a reader never sees half a file.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("cubin"),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::DType;

    #[test]
    fn ptx_entries_are_read_from_their_declarations() {
        let ptx =
            "//\n.version 9.0\n.visible .entry binary_add_f32(\n\t.param .align 8 .b8 p[440]\n)\n\
                   .func (.param .b64 r) strided_offset(\n.visible .entry fill_1(\n";
        assert_eq!(ptx_entries(ptx), vec!["binary_add_f32", "fill_1"]);
    }

    #[test]
    fn cache_paths_name_unit_arch_and_nvrtc_and_change_with_the_source() {
        let cache = Cache::new(Some(PathBuf::from("/c")));
        let f32_unit = Unit {
            file: "elementwise",
            dtype: Some(DType::F32),
        };
        let p = cache.path(&f32_unit, (9, 0), (13, 0)).unwrap();
        let name = p.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with("elementwise.f32-sm90-nvrtc13.0-"),
            "{name}"
        );
        assert!(name.ends_with(".cubin"));
        let f16_unit = Unit {
            file: "elementwise",
            dtype: Some(DType::F16),
        };
        assert_ne!(cache.path(&f16_unit, (9, 0), (13, 0)), Some(p.clone()));
        assert_ne!(cache.path(&f32_unit, (8, 0), (13, 0)), Some(p.clone()));
        assert_ne!(cache.path(&f32_unit, (9, 0), (13, 1)), Some(p));
        assert!(Cache::new(None).path(&f32_unit, (9, 0), (13, 0)).is_none());
    }

    #[test]
    fn a_missing_nvrtc_names_the_library_and_the_fix() {
        let msg = NvrtcError::Missing.to_string();
        assert!(msg.contains("libnvrtc.so.13"), "{msg}");
        assert!(msg.contains("nvidia-cuda-nvrtc"), "{msg}");
    }

    #[test]
    fn damaged_entries_are_not_taken_for_cubins() {
        assert!(!looks_like_cubin(b""));
        assert!(!looks_like_cubin(&[0u8; 100]));
        let mut elf = b"\x7fELF".to_vec();
        elf.resize(100, 0);
        assert!(looks_like_cubin(&elf));
    }
}
