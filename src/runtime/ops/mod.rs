//! How the host (the CPU, and the simulator's devices) computes each op
//! that `op/` defines and plans: one file per family, each taking tensors
//! and returning new ones, with PyTorch's CPU numerics (SLEEF, the cascade
//! sum, sgemm, the vectorised reductions) beside them. The CUDA backend
//! (`cuda/`) never uses these loops.

pub mod along;
pub mod attention;
mod axis;
mod device_sum;
pub mod elementwise;
pub mod factory;
pub mod index;
pub mod join;
pub mod matmul;
pub mod pow_shortcut;
mod pytorch;
pub use pytorch::pytorch_cpu::{capability, capability_name, Capability, Isa};
pub mod reduce;
pub mod sort;
pub mod ternary;
pub mod tri;
pub mod window;
