//! The simulator's time model: how long queued work takes on the reference
//! GPU (`GpuSpec`). Device time is modelled, never measured, so it is the same
//! on every run and every machine; output that shows it says so.

use super::spec::GpuSpec;

/// The shortest a kernel runs, however little it does.
pub const MIN_KERNEL: f64 = 2e-6;
/// Fixed cost of a copy between host and device (driver and DMA set-up).
pub const COPY_OVERHEAD: f64 = 8e-6;

/// Fixed cost of page-locking host memory (`cudaHostAlloc`, `cudaHostRegister`).
pub const PAGE_LOCK_OVERHEAD: f64 = 10e-6;
/// Page-locking maps and locks every page of the range: a few GB/s on a
/// Linux host, far slower than copying the bytes, and paid on the host.
pub const PAGE_LOCK_RATE: f64 = 4e9;

/// Host time to page-lock `bytes` of memory: what pinning costs, so that
/// pinning a buffer for one copy costs more than the pinned copy saves,
/// and a pinned buffer pays off when it is reused.
pub fn page_lock(bytes: u64) -> f64 {
    PAGE_LOCK_OVERHEAD + bytes as f64 / PAGE_LOCK_RATE
}

/// What a queued item does, for its duration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Work {
    /// A kernel reading and writing `bytes` of device memory and doing `flops`
    /// floating point operations (`half`: f16/bf16, on tensor cores).
    Kernel { bytes: u64, flops: u64, half: bool },
    /// A copy of `bytes` along `path`.
    Copy { bytes: u64, path: CopyPath },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyPath {
    /// Host to device or back through pageable host memory (staged by the driver).
    Pageable,
    /// Host to device or back from page-locked memory (direct DMA).
    Pinned,
    /// Between two devices.
    Peer,
}

impl Work {
    /// Work on no bytes at all: an op on empty tensors, which queues nothing.
    pub fn is_empty(&self) -> bool {
        match *self {
            Work::Kernel { bytes, .. } | Work::Copy { bytes, .. } => bytes == 0,
        }
    }

    /// Modelled device time of this item, in seconds.
    pub fn duration(&self, spec: &GpuSpec) -> f64 {
        match *self {
            Work::Kernel { bytes, flops, half } => {
                let rate = if half {
                    spec.fp16_flops
                } else {
                    spec.fp32_flops
                };
                (bytes as f64 / spec.memory_bandwidth + flops as f64 / rate).max(MIN_KERNEL)
            }
            Work::Copy { bytes, path } => {
                let rate = match path {
                    CopyPath::Pageable => spec.pcie_pageable,
                    CopyPath::Pinned => spec.pcie_pinned,
                    CopyPath::Peer => spec.peer_bandwidth,
                };
                COPY_OVERHEAD + bytes as f64 / rate
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::spec::H100;

    #[test]
    fn tiny_kernels_cost_the_minimum_and_big_ones_their_bandwidth() {
        let tiny = Work::Kernel {
            bytes: 8,
            flops: 1,
            half: false,
        };
        assert_eq!(tiny.duration(&H100), MIN_KERNEL);
        let big = Work::Kernel {
            bytes: 3_350_000_000,
            flops: 0,
            half: false,
        };
        assert!((big.duration(&H100) - 1e-3).abs() < 1e-9);
    }

    #[test]
    fn pinned_copies_are_faster_than_pageable_ones() {
        let bytes = 64 << 20;
        let pageable = Work::Copy {
            bytes,
            path: CopyPath::Pageable,
        }
        .duration(&H100);
        let pinned = Work::Copy {
            bytes,
            path: CopyPath::Pinned,
        }
        .duration(&H100);
        assert!(pinned * 3.0 < pageable, "{pinned} vs {pageable}");
    }

    #[test]
    fn pinning_for_one_copy_costs_more_than_it_saves() {
        let bytes = 64 << 20;
        let copy = |path| Work::Copy { bytes, path }.duration(&H100);
        let saved = copy(CopyPath::Pageable) - copy(CopyPath::Pinned);
        assert!(page_lock(bytes) > saved, "{} vs {saved}", page_lock(bytes));
        assert!(page_lock(bytes) < 10.0 * saved, "but reuse pays it back");
    }
}
