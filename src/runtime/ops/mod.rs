//! Tensor operations. Each file is one family; all take tensors and return new ones or views.

pub mod along;
mod axis;
mod cascade;
mod device_sum;
pub mod elementwise;
pub mod factory;
pub mod index;
pub mod join;
pub mod matmul;
mod norm;
pub mod overlap;
mod pow;
pub mod pow_shortcut;
#[cfg(target_arch = "x86_64")]
mod powf_avx512;
mod pytorch_cpu;
pub use pytorch_cpu::{capability, capability_name, Capability, Isa};
pub mod reduce;
mod sgemm;
mod sigmoid;
mod sleef;
mod softmax;
pub mod sort;
pub mod ternary;
pub mod tri;
mod vector_split;
mod vectorized;
pub mod view;
