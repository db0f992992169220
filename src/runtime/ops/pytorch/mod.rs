//! PyTorch's CPU numerics, as its CPU kernels compute them: the vector
//! widths and thread chunks it picks (`pytorch_cpu`), the cascade sum, the
//! vectorised reductions and softmax, the vector norm, SLEEF's exp, log
//! and pow (with f32 `pow` on AVX-512 in a kernel of its own), sigmoid,
//! `**`'s elementwise loop, and its f32 matrix product. Only CPU tensors
//! take these paths; the host ops in `ops/` call them.

pub mod cascade;
pub mod norm;
pub mod pow;
#[cfg(target_arch = "x86_64")]
pub mod powf_avx512;
pub mod pytorch_cpu;
pub mod sgemm;
pub mod sigmoid;
pub mod sleef;
pub mod softmax;
pub mod vector_split;
pub mod vectorized;
