//! A kernel as a driver launches it: its compile unit and its name.

use crate::runtime::DType;

/// One NVRTC program: a kernel file restricted to one dtype's kernels
/// (`fill` has none per dtype beyond `arange`, and is compiled whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit {
    pub file: &'static str,
    pub dtype: Option<DType>,
}

/// A kernel: its unit and its `extern "C"` name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kernel {
    pub unit: Unit,
    pub name: String,
}
