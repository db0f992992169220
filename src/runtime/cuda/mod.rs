//! The CUDA backend's parts that need no GPU to build or test.
//!
//! - `probe`: is there a driver, and why `--backend cuda` cannot start.
//! - `source`: the CUDA C kernels of `kernels/`, embedded, and the name of
//!   every kernel the runtime launches, grouped into compile units.
//! - `args`: the kernels' argument structs (mirroring `kernels/common.cuh`)
//!   and how a tensor's strides become them.
//! - `launch`: grid sizes and the reduction plan.
//! - `nvrtc`: compiling a unit to CUBIN for a device's architecture, with an
//!   in-memory and an on-disk cache.
//! - `blas`: a row-major matrix product as the column-major cuBLAS call.
//!
//! The kernels are tested on the CPU: `tests/kernels_host.rs` compiles the same
//! source as C++ and checks every kernel against the simulator, and
//! `tests/nvrtc.rs` compiles every unit with NVRTC for real GPU architectures.
//! What is still to come needs a GPU to verify: device memory, launches,
//! streams and events on the driver (issue 5).

pub mod args;
pub mod blas;
pub mod driver;
pub mod launch;
pub mod nvrtc;
pub mod probe;
pub mod source;
