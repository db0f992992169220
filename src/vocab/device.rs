//! Where a tensor lives.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Device {
    Cpu,
    Cuda(u32),
    /// PyTorch's `meta` device: tensors with a shape, dtype and strides
    /// but no elements and no memory; ops compute only their results'
    /// shapes.
    Meta,
}

impl Device {
    pub fn is_cuda(self) -> bool {
        matches!(self, Device::Cuda(_))
    }

    pub fn is_meta(self) -> bool {
        matches!(self, Device::Meta)
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(n) => write!(f, "cuda:{n}"),
            Device::Meta => f.write_str("meta"),
        }
    }
}
