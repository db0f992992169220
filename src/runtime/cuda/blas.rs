//! Row-major matrix products as cuBLAS calls (`Blas::gemm`). cuBLAS is column-major; a
//! row-major `C = A·B` is the column-major `Cᵀ = Bᵀ·Aᵀ`, and a row-major
//! matrix read as column-major *is* its transpose. So the call passes B first,
//! then A, with no transposition and no copy.

use crate::runtime::driver::Gemm;

/// A column-major gemm with no transposition, as cuBLAS defines it:
/// `C[i + j*ldc] = Σ_p A[i + p*lda] · B[p + j*ldb]`, for each batch. The tests
/// check `Gemm::row_major`'s arguments against it; it is the contract, not a kernel.
pub fn reference_gemm(g: &Gemm, a: &[f64], b: &[f64], c: &mut [f64]) {
    for t in 0..g.batch as usize {
        let (oa, ob, oc) = (
            t * g.stride_a as usize,
            t * g.stride_b as usize,
            t * g.stride_c as usize,
        );
        for j in 0..g.n as usize {
            for i in 0..g.m as usize {
                let mut acc = 0.0;
                for p in 0..g.k as usize {
                    acc += a[oa + i + p * g.lda as usize] * b[ob + p + j * g.ldb as usize];
                }
                c[oc + i + j * g.ldc as usize] = acc;
            }
        }
    }
}

/// A cuBLAS handle for one device: made with that device's context current,
/// which every call and the drop bind again (cuBLAS works in whatever context
/// is current on the calling thread), and which it keeps alive.
pub struct Blas {
    handle: cudarc::cublas::sys::cublasHandle_t,
    device: std::sync::Arc<super::driver::CudaDevice>,
}

// SAFETY: the handle is used from one thread at a time (the session's), behind `&mut self`.
unsafe impl Send for Blas {}

impl Blas {
    /// A handle on `device`; a clear error when libcublas is missing.
    pub fn new(device: &std::sync::Arc<super::driver::CudaDevice>) -> Result<Blas, String> {
        if !super::probe::cublas_present() {
            return Err("cuBLAS (libcublas.so.13) could not be loaded: install the CUDA toolkit's \
                        libraries, or `pip install nvidia-cublas` and add its lib folder to LD_LIBRARY_PATH"
                .into());
        }
        device.bind().map_err(|e| e.to_string())?;
        cudarc::cublas::result::create_handle()
            .map(|handle| Blas {
                handle,
                device: std::sync::Arc::clone(device),
            })
            .map_err(|e| format!("cublasCreate failed: {e}"))
    }

    /// `g` on `stream`: `first` is the row-major B, `second` the row-major A
    /// (see `Gemm::row_major`), `out` the row-major C, all of `dtype` (f16, bf16,
    /// f32 or f64), accumulating in f32 (f64 for f64) as PyTorch does.
    ///
    /// # Safety
    /// The addresses are live device memory of the handle's device, large
    /// enough for `g`. (`stream`: None is the legacy default stream.)
    pub unsafe fn gemm(
        &mut self,
        dtype: crate::runtime::DType,
        g: &Gemm,
        first: u64,
        second: u64,
        out: u64,
        stream: Option<&super::driver::Stream>,
    ) -> Result<(), String> {
        use crate::runtime::DType;
        use cudarc::cublas::sys::{
            cublasComputeType_t as C, cublasOperation_t as Op, cudaDataType as T,
        };
        let (ty, compute) = match dtype {
            DType::F16 => (T::CUDA_R_16F, C::CUBLAS_COMPUTE_32F),
            DType::BF16 => (T::CUDA_R_16BF, C::CUBLAS_COMPUTE_32F),
            DType::F32 if g.tf32 => (T::CUDA_R_32F, C::CUBLAS_COMPUTE_32F_FAST_TF32),
            DType::F32 => (T::CUDA_R_32F, C::CUBLAS_COMPUTE_32F),
            DType::F64 => (T::CUDA_R_64F, C::CUBLAS_COMPUTE_64F),
            other => return Err(format!("cuBLAS has no {other} matrix product")),
        };
        let (one32, zero32, one64, zero64) = (1f32, 0f32, 1f64, 0f64);
        let (alpha, beta): (*const std::ffi::c_void, *const std::ffi::c_void) =
            if dtype == DType::F64 {
                (
                    (&one64 as *const f64).cast(),
                    (&zero64 as *const f64).cast(),
                )
            } else {
                (
                    (&one32 as *const f32).cast(),
                    (&zero32 as *const f32).cast(),
                )
            };
        let stream = stream.map_or(std::ptr::null_mut(), |s| s.raw);
        self.device.bind().map_err(|e| e.to_string())?;
        cudarc::cublas::result::set_stream(
            self.handle,
            stream as cudarc::cublas::sys::cudaStream_t,
        )
        .map_err(|e| format!("cublasSetStream failed: {e}"))?;
        cudarc::cublas::result::gemm_strided_batched_ex(
            self.handle,
            Op::CUBLAS_OP_N,
            Op::CUBLAS_OP_N,
            g.m,
            g.n,
            g.k,
            alpha,
            first as *const std::ffi::c_void,
            ty,
            g.lda,
            g.stride_a,
            second as *const std::ffi::c_void,
            ty,
            g.ldb,
            g.stride_b,
            beta,
            out as *mut std::ffi::c_void,
            ty,
            g.ldc,
            g.stride_c,
            g.batch,
            compute,
            cudarc::cublas::sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        )
        .map_err(|e| format!("cublasGemmStridedBatchedEx failed: {e}"))
    }
}

impl Drop for Blas {
    fn drop(&mut self) {
        let _ = self.device.bind();
        // SAFETY: a handle from `create_handle`, destroyed once.
        let _ = unsafe { cudarc::cublas::result::destroy_handle(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_major_product(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    #[test]
    fn operand_order_gives_the_row_major_product() {
        for (m, k, n) in [(2, 3, 4), (1, 5, 1), (7, 1, 3), (4, 4, 4)] {
            let a: Vec<f64> = (0..m * k).map(|x| x as f64 * 0.5 - 1.0).collect();
            let b: Vec<f64> = (0..k * n).map(|x| (x * x) as f64 % 7.0).collect();
            let g = Gemm::row_major(m, k, n, 1, m * k, k * n).unwrap();
            let mut c = vec![f64::NAN; m * n];
            // cuBLAS's first operand is B, its second A.
            reference_gemm(&g, &b, &a, &mut c);
            assert_eq!(c, row_major_product(&a, &b, m, k, n), "{m}x{k}x{n}");
        }
    }

    #[test]
    fn batches_and_a_broadcast_operand() {
        let (m, k, n, batch) = (3, 2, 5, 4);
        let a: Vec<f64> = (0..batch * m * k).map(|x| x as f64).collect();
        let b: Vec<f64> = (0..k * n).map(|x| 1.0 + x as f64).collect(); // one B for all batches
        let g = Gemm::row_major(m, k, n, batch, m * k, 0).unwrap();
        let mut c = vec![0.0; batch * m * n];
        reference_gemm(&g, &b, &a, &mut c);
        for t in 0..batch {
            let want = row_major_product(&a[t * m * k..(t + 1) * m * k], &b, m, k, n);
            assert_eq!(&c[t * m * n..(t + 1) * m * n], &want[..], "batch {t}");
        }
    }

    #[test]
    fn sizes_beyond_int_are_refused() {
        assert!(Gemm::row_major(1 << 31, 2, 2, 1, 0, 0).is_none());
    }
}
