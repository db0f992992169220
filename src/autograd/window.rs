//! Where a convolution's or a pooling's windows lie over an image: the
//! vocabulary `conv.rs` computes with and the graph's nodes keep.

pub use crate::runtime::op::window::Geometry;

/// A height and a width (a kernel's, a stride's, a padding's).
pub type Pair = (usize, usize);

/// A convolution's settings: stride, padding, dilation, groups.
pub type ConvSettings = (Pair, Pair, Pair, usize);

/// A pooling's settings: kernel, stride, padding, dilation.
pub type PoolSettings = (Pair, Pair, Pair, Pair);
