//! The CUDA kernels, run on the CPU: `kernels/*.cu` compiled as C++ with
//! `kernels/host_shim.h` (each thread of each block is a call, or a real
//! thread where the kernel synchronises) and checked against the simulator's
//! own ops on the same inputs (the checks are in `kernel_checks/`, shared with
//! the GPU run in `kernels_gpu.rs`). What this cannot check is the GPU itself:
//! memory, launches and streams on the driver.
//!
//! Needs a C++20 compiler (`$CXX`, else `c++`). Without one the tests say so
//! and pass, except under CI, where they fail.

#[macro_use]
mod kernel_checks;

use std::cell::UnsafeCell;
use std::ffi::{c_void, CString};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use cudash::error::Error;
use cudash::runtime::buffer::Buffer;
use cudash::runtime::cuda::blas::reference_gemm;
use cudash::runtime::cuda::exec::{KernelArgs, Launcher};
use cudash::runtime::cuda::source;
use cudash::runtime::driver::{Gemm, Geometry, Kernel, Launch};
use cudash::runtime::element::Element;
use cudash::runtime::{DType, Tensor};
use cudash::with_dtype;
use kernel_checks::Runner;
use proptest::prelude::*;

/// The compiled kernels, loaded; None when no C++ compiler is found.
struct Lib(*mut c_void);
unsafe impl Send for Lib {}
unsafe impl Sync for Lib {}

fn lib() -> Option<&'static Lib> {
    static LIB: OnceLock<Option<Lib>> = OnceLock::new();
    LIB.get_or_init(build).as_ref()
}

fn build() -> Option<Lib> {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("kernels_host");
    std::fs::create_dir_all(&out).unwrap();
    let mut all = String::from(source::COMMON);
    for (_, src) in source::FILES {
        all.push_str(src);
    }
    let src = out.join("all.cu");
    std::fs::write(&src, all).unwrap();
    let so = out.join(format!("libkernels-{}.so", std::process::id()));
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let status = Command::new(&cxx)
        .args([
            "-std=c++20",
            "-O2",
            "-ffp-contract=off",
            "-fPIC",
            "-shared",
            "-pthread",
            "-include",
        ])
        .arg(format!("{root}/kernels/host_shim.h"))
        .args(["-x", "c++"])
        .arg(&src)
        .arg(format!("{root}/kernels/host_emu.cpp"))
        .arg("-o")
        .arg(&so)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            panic!("the kernels did not compile as C++ ({s}): see the compiler's messages above")
        }
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI needs a C++ compiler for the kernel tests: `{cxx}` could not run ({e})"
            );
            eprintln!("SKIPPED: no C++ compiler (`{cxx}`: {e}); the CUDA kernels were not checked");
            return None;
        }
    }
    let path = CString::new(so.to_str().unwrap()).unwrap();
    // SAFETY: loading the library just built.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    assert!(
        !handle.is_null(),
        "dlopen of the host-compiled kernels failed"
    );
    // Loaded: the file is no longer needed (each test process builds its own).
    let _ = std::fs::remove_file(&so);
    Some(Lib(handle))
}

impl Lib {
    fn symbol(&self, name: &str) -> *mut c_void {
        let c = CString::new(name).unwrap();
        // SAFETY: a live handle and a NUL-terminated name.
        let p = unsafe { libc::dlsym(self.0, c.as_ptr()) };
        assert!(!p.is_null(), "the kernels define no `{name}`");
        p
    }
}

/// Host memory the kernels write through raw pointers.
struct HostMem(UnsafeCell<Buffer>);

impl Runner for Lib {
    fn input(&self, t: &Tensor) -> HostMem {
        HostMem(UnsafeCell::new(t.read().clone()))
    }
    fn download(&self, m: &HostMem) -> Buffer {
        // SAFETY: no kernel is running.
        unsafe { (*m.0.get()).clone() }
    }
    fn check_defined(&self, kernel: &Kernel) {
        self.symbol(&kernel.name);
    }
}

impl Launcher for Lib {
    type Mem = HostMem;
    fn alloc(&self, dt: DType, n: usize) -> Result<HostMem, Error> {
        Ok(HostMem(UnsafeCell::new(kernel_checks::poisoned(dt, n))))
    }
    fn addr(&self, m: &HostMem) -> u64 {
        // SAFETY: the buffer is only reached through this pointer while a kernel runs.
        let b = unsafe { &mut *m.0.get() };
        with_dtype!(b.dtype(), T => b.as_mut_slice::<T>().as_mut_ptr() as u64)
    }
    fn geometry(&self) -> Geometry {
        kernel_checks::SMALL
    }
    /// cuBLAS's contract (`blas::reference_gemm`), on the host's memory.
    fn gemm(&self, dt: DType, g: &Gemm, first: u64, second: u64, out: u64) -> Result<(), Error> {
        let (na, nb, nc) = g.extents();
        let mut c = vec![0.0; nc];
        with_dtype!(dt, T => {
            // SAFETY: the addresses are live host buffers of `dt` holding at
            // least these spans (exec::matmul sized them for the call).
            let (a, b, o) = unsafe {
                (
                    std::slice::from_raw_parts(first as *const T, na),
                    std::slice::from_raw_parts(second as *const T, nb),
                    std::slice::from_raw_parts_mut(out as *mut T, nc),
                )
            };
            let wide = |s: &[T]| s.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
            reference_gemm(g, &wide(a), &wide(b), &mut c);
            for (o, v) in o.iter_mut().zip(c) {
                *o = T::from_f64(v);
            }
        });
        Ok(())
    }
    /// Runs `kernel` over `grid` blocks of `block` threads, as a GPU would:
    /// sequential calls, or one OS thread per GPU thread when it synchronises.
    fn launch<A: KernelArgs>(&self, kernel: &Kernel, at: Launch, args: A) -> Result<(), Error> {
        let Launch { grid, block, syncs } = at;
        static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
        let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        type Dims = unsafe extern "C" fn(u32, u32);
        type Begin = unsafe extern "C" fn(u32);
        type End = unsafe extern "C" fn();
        // SAFETY: the symbols have these C signatures (kernels/host_emu.cpp), and every
        // kernel takes one argument struct by value, laid out as `A` (args.rs).
        unsafe {
            let dims: Dims = std::mem::transmute(self.symbol("emu_launch_dims"));
            let thread: Dims = std::mem::transmute(self.symbol("emu_thread"));
            let begin: Begin = std::mem::transmute(self.symbol("emu_begin_block"));
            let end: End = std::mem::transmute(self.symbol("emu_end_block"));
            let f: unsafe extern "C" fn(A) = std::mem::transmute(self.symbol(&kernel.name));
            dims(grid, block);
            for b in 0..grid {
                if syncs {
                    begin(block);
                    std::thread::scope(|s| {
                        for t in 0..block {
                            s.spawn(move || {
                                thread(b, t);
                                f(args)
                            });
                        }
                    });
                    end();
                } else {
                    for t in 0..block {
                        thread(b, t);
                        f(args);
                    }
                }
            }
        }
        Ok(())
    }
}

macro_rules! checks {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                if let Some(lib) = lib() {
                    kernel_checks::$name(lib);
                }
            }
        )*
    };
}

all_checks!(checks);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Shapes of up to four dimensions (some empty), transposed, strided and
    /// offset, against a broadcast operand.
    #[test]
    fn views_match_the_simulator(l in kernel_checks::layouts()) {
        if let Some(lib) = lib() {
            kernel_checks::views_match_the_simulator(lib, &l);
        }
    }
}
