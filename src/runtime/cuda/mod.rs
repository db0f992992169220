//! The CUDA backend, part by part. All of it builds without CUDA installed
//! (cudarc loads the libraries at run time).
//!
//! - `probe`: is there a driver, what devices, and why `--backend cuda` cannot start.
//! - `source`: the CUDA C kernels of `kernels/`, embedded, and the name of
//!   every kernel the runtime launches, grouped into compile units.
//! - `args`: the kernels' argument structs (mirroring `kernels/common.cuh`)
//!   and how a tensor's strides become them.
//! - `launch`: grid sizes and the reduction plan.
//! - `exec`: each tensor op as the kernels it launches (kernel, arguments,
//!   launch shape, temporaries), on any `Launcher`.
//!   `exec_along` holds the ops along one dimension (scans, softmax, var,
//!   std, norm, sort, topk) and tril/triu.
//! - `launcher`: that `Launcher` on a real device: operands in blocks of the
//!   caching allocator, kernels and cuBLAS queued on one stream.
//! - `nvrtc`: compiling a unit to CUBIN for a device's architecture, with an
//!   in-memory and an on-disk cache.
//! - `blas`: a row-major matrix product as the column-major cuBLAS call, and
//!   the call itself.
//! - `driver`: one device on the driver API: context, modules, memory,
//!   copies, launches, streams, events, pinned memory, peer access, and
//!   segments for the caching allocator.
//! - `real`: the driver interface (`runtime/driver/`, the vocabulary the
//!   core speaks to a device) on cudarc through `driver`; `emu` implements
//!   the same interface on the CPU, and `backend` turns any implementation's
//!   devices into the session's.
//!
//! Tested without a GPU: `tests/kernels_host.rs` compiles the kernels as C++
//! and runs every op through `exec` on them, against the simulator (cuBLAS's
//! part by its column-major contract); `tests/nvrtc.rs` compiles every unit
//! with the real NVRTC for sm_90. Only on a GPU (ignored tests,
//! `scripts/gpu-check`): `tests/kernels_gpu.rs` (the same checks through the
//! driver and cuBLAS), `tests/driver_gpu.rs`, compute-sanitizer, and the
//! benchmark beside PyTorch (`benches/gpu/`, which runs `exec` on
//! `launcher::OnStream`); all passed on an H100 (`benches/gpu/results.md`).
//! Tensors in device memory run `exec` on the `Launcher` of
//! `runtime/dispatch/device.rs`, over a `Driver`: tested on every machine
//! with `emu` (`--backend emu`, `tests/emu.rs`, the golden transcripts and
//! lessons), and on an H100 and an H200 over `real` (`benches/gpu/results.md`).

pub mod args;
pub mod backend;
pub mod blas;
pub mod driver;
pub mod emu;
pub mod exec;
pub mod exec_along;
pub mod exec_attention;
pub mod exec_window;
pub mod launch;
pub mod launcher;
pub mod nccl;
pub mod nvrtc;
pub mod probe;
pub mod real;
pub mod source;
