//! The CUDA C kernels of `kernels/`, compiled for the host: what NVRTC does
//! on a GPU, done by the system's C++ compiler (`$CXX`, else `c++`) with
//! `kernels/host_shim.h` standing in for the CUDA keywords. Compiled once on
//! first use, kept on disk beside NVRTC's CUBINs (keyed by the sources and
//! the compiler), and loaded with `dlopen`.
//!
//! Each kernel gets a C entry point `emu_run__NAME(args, grid, block, syncs)`
//! that runs the whole grid (`emu_run` of `kernels/host_emu.cpp`), so the
//! argument struct crosses the boundary as bytes and the thread loop runs in C++.

use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::runtime::cuda::source;
use crate::runtime::driver::Kernel;

const SHIM: &str = include_str!("../../../../kernels/host_shim.h");
const HOST_EMU: &str = include_str!("../../../../kernels/host_emu.cpp");
/// `initial-exec`: the thread indices are thread-locals read by every
/// emulated thread, and the default model for a shared library makes each
/// read a call.
/// `-ffp-contract=off`: no fused multiply-adds, as NVRTC's `--fmad=false`.
const FLAGS: [&str; 7] = [
    "-std=c++20",
    "-O2",
    "-ffp-contract=off",
    "-fPIC",
    "-shared",
    "-pthread",
    "-ftls-model=initial-exec",
];

type Run = unsafe extern "C" fn(*const c_void, u32, u32, i32);

/// The loaded library and the entry points found so far.
/// `emu_take_assert` (kernels/host_emu.cpp).
type TakeAssert = unsafe extern "C" fn(*mut libc::c_char, libc::c_ulong) -> i32;

pub struct Kernels {
    handle: *mut c_void,
    entries: Mutex<std::collections::HashMap<String, Run>>,
    take_assert: TakeAssert,
}

// SAFETY: the handle is only used for dlsym, which is thread-safe; the
// kernels themselves are serialised by the emulated device.
unsafe impl Send for Kernels {}
unsafe impl Sync for Kernels {}

fn compiler() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".into())
}

/// The translation unit: the shim, every kernel file, the launcher side, and
/// one entry point per kernel.
fn translation_unit() -> String {
    let mut src = String::from(SHIM);
    src.push_str(source::COMMON);
    for (_, body) in source::FILES {
        src.push('\n');
        src.push_str(body);
    }
    src.push('\n');
    src.push_str(HOST_EMU);
    for k in source::all_kernels() {
        src.push_str(&format!(
            "extern \"C\" void emu_run__{0}(const void* a, unsigned g, unsigned b, int s) {{ emu_run({0}, a, g, b, s); }}\n",
            k.name
        ));
    }
    src
}

/// Where the library for this source and compiler is kept.
fn library_path(dir: &Path, unit: &str, cxx: &str) -> PathBuf {
    let key = format!("{unit}\0{cxx}\0{}", FLAGS.join(" "));
    let digest = ring::digest::digest(&ring::digest::SHA256, key.as_bytes());
    let hex: String = digest.as_ref()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    dir.join(format!("emu-kernels-{hex}.so"))
}

impl Kernels {
    /// Compiles (or finds in the cache) and loads the kernels.
    pub fn load() -> Result<Kernels, String> {
        let unit = translation_unit();
        let cxx = compiler();
        let dir = crate::runtime::cuda::nvrtc::default_dir()
            .unwrap_or_else(|| std::env::temp_dir().join("cudash-kernels"));
        let path = library_path(&dir, &unit, &cxx);
        if !path.exists() {
            compile(&unit, &cxx, &path)?;
        }
        let c = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| "the kernel cache's path holds a NUL byte".to_string())?;
        // SAFETY: loading a library this module compiled.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(format!(
                "could not load the emulated kernels from {} (delete it to compile them again)",
                path.display()
            ));
        }
        // SAFETY: a symbol lookup in the library just loaded.
        let p = unsafe { libc::dlsym(handle, c"emu_take_assert".as_ptr()) };
        if p.is_null() {
            return Err(format!(
                "the emulated kernels in {} lack emu_take_assert (delete the file to compile them again)",
                path.display()
            ));
        }
        // SAFETY: the symbol has this C signature (kernels/host_emu.cpp).
        let take_assert = unsafe { std::mem::transmute::<*mut c_void, TakeAssert>(p) };
        Ok(Kernels {
            handle,
            entries: Mutex::new(Default::default()),
            take_assert,
        })
    }

    /// The entry point that runs `kernel`'s grid.
    /// The device-side assertion that failed in the launches since the
    /// last call, as CUDA's device printf shows it (`emu_take_assert`).
    pub fn take_assert(&self) -> Option<String> {
        let mut buf = [0 as libc::c_char; 512];
        // SAFETY: the library's function, given a buffer of `buf.len()` bytes.
        if unsafe { (self.take_assert)(buf.as_mut_ptr(), buf.len() as libc::c_ulong) } == 0 {
            return None;
        }
        // SAFETY: the function wrote a NUL-terminated string into `buf`.
        let text = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        Some(text.to_string_lossy().into_owned())
    }

    pub fn entry(&self, kernel: &Kernel) -> Result<Run, String> {
        let mut entries = crate::runtime::gpu::lock(&self.entries);
        if let Some(f) = entries.get(&kernel.name) {
            return Ok(*f);
        }
        let name = CString::new(format!("emu_run__{}", kernel.name))
            .map_err(|_| "a kernel name holds a NUL byte".to_string())?;
        // SAFETY: a live handle and a NUL-terminated name.
        let p = unsafe { libc::dlsym(self.handle, name.as_ptr()) };
        if p.is_null() {
            return Err(format!("the emulated kernels define no `{}`", kernel.name));
        }
        // SAFETY: every `emu_run__*` entry has this C signature (translation_unit).
        let f: Run = unsafe { std::mem::transmute::<*mut c_void, Run>(p) };
        entries.insert(kernel.name.clone(), f);
        Ok(f)
    }
}

/// Compiles `unit` into the library at `path` (through a temporary file and
/// a rename, so a concurrent session never loads half a library).
fn compile(unit: &str, cxx: &str, path: &Path) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the kernel cache {}: {e}", dir.display()))?;
    let tag = format!("{}.{:?}", std::process::id(), std::thread::current().id())
        .replace(|c: char| !c.is_ascii_alphanumeric() && c != '.', "");
    let src = dir.join(format!(".emu-{tag}.cpp"));
    let tmp = dir.join(format!(".emu-{tag}.so"));
    std::fs::write(&src, unit).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let out = Command::new(cxx)
        .args(FLAGS)
        .arg(&src)
        .arg("-o")
        .arg(&tmp)
        .output();
    let _ = std::fs::remove_file(&src);
    match out {
        Ok(o) if o.status.success() => {
            std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        Ok(o) => {
            let _ = std::fs::remove_file(&tmp);
            let log = String::from_utf8_lossy(&o.stderr);
            let first: Vec<&str> = log.lines().take(20).collect();
            Err(format!(
                "the kernels did not compile for the host with `{cxx}`:\n{}",
                first.join("\n")
            ))
        }
        Err(e) => Err(format!(
            "--backend emu compiles the CUDA kernels for the host with a C++20 compiler, \
             and `{cxx}` could not run ({e}); install g++ or clang++, or set CXX"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_has_an_entry_point_in_the_unit() {
        let unit = translation_unit();
        for k in source::all_kernels() {
            assert!(
                unit.contains(&format!("emu_run__{}(", k.name)),
                "{}",
                k.name
            );
        }
    }

    #[test]
    fn the_library_path_changes_with_the_source_and_the_compiler() {
        let d = Path::new("/c");
        let a = library_path(d, "x", "c++");
        assert_ne!(a, library_path(d, "y", "c++"));
        assert_ne!(a, library_path(d, "x", "clang++"));
        assert!(a.to_str().unwrap().starts_with("/c/emu-kernels-"));
    }
}
