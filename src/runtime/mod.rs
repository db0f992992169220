//! The tensor runtime: dtypes, devices, buffers, tensors and the ops on them.

pub mod alloc;
pub mod backend;
pub mod buffer;
pub mod cuda;
mod device;
pub mod devices;
mod dtype;
pub mod element;
pub mod event;
pub mod gpu;
pub mod host;
pub mod host_alloc;
pub mod io;
pub mod ops;
pub mod rng;
pub mod shape;
pub mod stream;
mod tensor;
pub mod timing;

pub use buffer::Buffer;
pub use device::Device;
pub use dtype::DType;
pub use tensor::{BufRef, Tensor};
