//! The tensor runtime: dtypes, devices, buffers, tensors and the ops on them.

pub mod buffer;
mod device;
mod dtype;
pub mod element;
pub mod host;
pub mod ops;
pub mod rng;
pub mod shape;
mod tensor;

pub use buffer::Buffer;
pub use device::Device;
pub use dtype::DType;
pub use tensor::Tensor;
