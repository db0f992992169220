//! The kernel checks of `kernel_checks/` on a real GPU, through the driver
//! layer (`runtime::cuda::driver`): device memory, NVRTC-compiled CUBINs,
//! launches. Ignored unless asked for, on a machine with an NVIDIA GPU and
//! NVRTC on the loader path:
//!
//! ```sh
//! cargo test --release --test kernels_gpu -- --ignored
//! ```

#[macro_use]
mod kernel_checks;

use std::sync::{Arc, Mutex, OnceLock};

use cudash::error::Error;
use cudash::runtime::buffer::Buffer;
use cudash::runtime::cuda::blas::Blas;
use cudash::runtime::cuda::driver::{CudaDevice, DevicePtr};
use cudash::runtime::cuda::exec::{KernelArgs, Launcher};
use cudash::runtime::driver::{Gemm, Geometry, Kernel, Launch};
use cudash::runtime::{DType, Tensor};
use kernel_checks::Runner;

fn device() -> &'static Arc<CudaDevice> {
    static DEVICE: OnceLock<Arc<CudaDevice>> = OnceLock::new();
    DEVICE.get_or_init(|| Arc::new(CudaDevice::open(0).unwrap_or_else(|e| panic!("cuda:0: {e}"))))
}

/// cuda:0, launching with the given shapes.
struct Gpu(Geometry);

/// Device memory, freed when dropped.
struct GpuMem {
    ptr: DevicePtr,
    dt: DType,
    n: usize,
}

impl Drop for GpuMem {
    fn drop(&mut self) {
        device().free(self.ptr).unwrap_or_else(|e| panic!("{e}"));
    }
}

fn upload(b: &Buffer) -> GpuMem {
    let bytes = b.to_le_bytes();
    let ptr = device()
        .alloc(bytes.len())
        .unwrap_or_else(|e| panic!("{e}"));
    device()
        .upload(ptr, &bytes)
        .unwrap_or_else(|e| panic!("{e}"));
    GpuMem {
        ptr,
        dt: b.dtype(),
        n: b.len(),
    }
}

impl Runner for Gpu {
    fn input(&self, t: &Tensor) -> GpuMem {
        upload(&t.read())
    }
    fn download(&self, m: &GpuMem) -> Buffer {
        let mut bytes = vec![0u8; m.n * m.dt.size()];
        device()
            .download(&mut bytes, m.ptr)
            .unwrap_or_else(|e| panic!("{e}"));
        Buffer::from_le_bytes(m.dt, &bytes)
    }
    fn check_defined(&self, kernel: &Kernel) {
        device()
            .function(kernel)
            .unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
    }
    fn exact_math(&self) -> bool {
        false
    }
}

impl Launcher for Gpu {
    type Mem = GpuMem;
    fn alloc(&self, dt: DType, n: usize) -> Result<GpuMem, Error> {
        Ok(upload(&kernel_checks::poisoned(dt, n)))
    }
    fn addr(&self, m: &GpuMem) -> u64 {
        m.ptr
    }
    fn geometry(&self) -> Geometry {
        self.0
    }
    fn gemm(&self, dt: DType, g: &Gemm, first: u64, second: u64, out: u64) -> Result<(), Error> {
        static BLAS: OnceLock<Mutex<Blas>> = OnceLock::new();
        let blas = BLAS.get_or_init(|| {
            Mutex::new(Blas::new(device()).unwrap_or_else(|e| panic!("cuBLAS: {e}")))
        });
        let mut blas = blas.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the addresses are live device memory sized by exec::matmul for `g`.
        unsafe { blas.gemm(dt, g, first, second, out, None) }.unwrap_or_else(|e| panic!("{e}"));
        device()
            .synchronize()
            .unwrap_or_else(|e| panic!("gemm: {e}"));
        Ok(())
    }
    fn launch<A: KernelArgs>(&self, kernel: &Kernel, at: Launch, args: A) -> Result<(), Error> {
        let d = device();
        // SAFETY: the default stream; every buffer stays alive past the
        // synchronize below (the checks free temporaries after a launch).
        unsafe { d.launch(kernel, at, None, &args) }
            .unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
        d.synchronize()
            .unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
        Ok(())
    }
}

macro_rules! checks {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            #[ignore = "needs an NVIDIA GPU: cargo test --release --test kernels_gpu -- --ignored"]
            fn $name() {
                // The launch shapes the backend uses on this device, then
                // small ones, so grid-stride loops go round several times.
                kernel_checks::$name(&Gpu(Geometry::for_device(device().info.multiprocessors)));
                kernel_checks::$name(&Gpu(kernel_checks::SMALL));
            }
        )*
    };
}

all_checks!(checks);

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    #[ignore = "needs an NVIDIA GPU: cargo test --release --test kernels_gpu -- --ignored"]
    fn views_match_the_simulator(l in kernel_checks::layouts()) {
        kernel_checks::views_match_the_simulator(&Gpu(kernel_checks::SMALL), &l);
    }
}
