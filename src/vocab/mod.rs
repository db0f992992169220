//! The vocabulary every layer shares and that uses nothing else of cudash:
//! source spans, element types, devices, byte counts, elementwise operators. The language, the
//! runtime, errors and the front ends all speak it; it knows none of them.

mod bytes;
mod device;
mod dtype;
mod op;

pub use bytes::{bytes_of, human_bytes, parse_size};
pub use device::Device;
pub use dtype::DType;
pub use op::BinaryOp;

/// Byte offsets into the source.
pub type Span = chumsky::span::SimpleSpan<usize>;
