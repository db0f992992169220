//! The tensor runtime: dtypes, devices, buffers, tensors and the ops on them.
//! It knows no syntax, interpreter, rendering or front end.
//!
//! `dispatch` is the op layer every session op goes through (`Runtime`);
//! `ops` holds the host computations it runs for cpu and simulated devices;
//! `alloc`, `gpu`, `stream`, `event` and `timing` model a CUDA device (its
//! caching allocator, streams, hazards and time); `timeline` records what
//! `profile` saw in that time (and writes Chrome traces); `backend` and `devices`
//! provide the devices; `cuda` is the CUDA backend's parts and its driver
//! interface (`cuda::interface`, implemented by cudarc and by `cuda::emu`);
//! `device_bytes` is a tensor's elements in a driver's device memory.

pub mod alloc;
pub mod backend;
pub mod buffer;
pub mod counters;
pub mod cpu_random;
pub mod cuda;
pub mod device_bytes;
pub mod devices;
pub mod dispatch;
pub mod driver;
pub mod element;
pub mod event;
pub mod gpu;
pub mod host;
pub mod host_alloc;
pub mod host_clock;
pub mod inference;
pub mod io;
pub mod libm;
pub mod lock;
pub mod memory_format;
pub mod op;
pub mod ops;
pub mod page_locked;
mod parallel;
mod record_slot;
pub mod rng;
pub mod scratch;
pub mod shape;
pub mod snapshot;
pub mod spec;
pub mod stream;
mod tensor;
pub mod timeline;
pub mod timing;

pub use crate::vocab::{DType, Device};
pub use buffer::Buffer;
/// The host threads CPU ops split across (`torch.get_num_threads`), and their cap.
pub use parallel::{set_thread_cap, threads as host_threads};
pub use tensor::{BufRef, StorageHandle, Tensor, WeakTensor, WriteRef};
