//! The simulator's time model: how long queued work takes on the reference
//! GPU (`GpuSpec`). Device time is modelled, never measured, so it is the same
//! on every run and every machine; output that shows it says so.

use super::spec::{CpuSpec, GpuSpec, HOST};

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

/// Host time to copy `bytes` from one host buffer into another (into a
/// pinned block: `pin_memory()`, a DataLoader's pin thread) on `threads`
/// cores: their memcpy, up to what the memory system moves (each byte read
/// and written).
pub fn host_copy(cpu: &CpuSpec, bytes: u64, threads: u32) -> f64 {
    let rate =
        (cpu.memcpy * f64::from(threads.clamp(1, cpu.cores))).min(cpu.memory_bandwidth / 2.0);
    cpu.op_overhead + bytes as f64 / rate
}

/// The rate of a copy between pageable host memory and a device. The DMA
/// engine reads only page-locked memory, so the driver copies the bytes
/// through a pinned staging buffer, chunk by chunk, on the calling thread:
/// one core's `memcpy` pipelined with the DMA, the slower of the two
/// (NVIDIA's "API synchronization behavior": a pageable host-to-device
/// copy returns once the buffer is copied to staging memory).
pub fn staged_rate(gpu: &GpuSpec, cpu: &CpuSpec) -> f64 {
    cpu.memcpy.min(gpu.pcie_pinned)
}

/// PyTorch's CPU kernels split an op across threads from this many
/// elements on (`at::internal::GRAIN_SIZE`); smaller ops run on one core.
pub const PARALLEL_FROM: usize = 32_768;

/// Host time of one eager op on the reference CPU (`spec`): its fixed cost,
/// then its bytes and FLOPs at one core's rates, or at all cores' when it
/// has `PARALLEL_FROM` elements or more and `threads` allows (a DataLoader
/// worker runs ops on one thread, as PyTorch sets its workers).
pub fn host_op(spec: &CpuSpec, bytes: u64, flops: u64, elements: usize, threads: u32) -> f64 {
    let cores = match elements >= PARALLEL_FROM {
        true => threads.clamp(1, spec.cores),
        false => 1,
    };
    let bandwidth = (spec.core_bandwidth * f64::from(cores)).min(spec.memory_bandwidth);
    let flop_rate = spec.core_flops * f64::from(cores);
    spec.op_overhead + bytes as f64 / bandwidth + flops as f64 / flop_rate
}

/// What a queued item does, for its duration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Work {
    /// A kernel reading and writing `bytes` of device memory and doing `flops`
    /// floating point operations at `math`'s rate.
    Kernel { bytes: u64, flops: u64, math: Math },
    /// A copy of `bytes` along `path`.
    Copy { bytes: u64, path: CopyPath },
}

/// Which units do a kernel's floating point operations, for their rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Math {
    /// The FP32 (SIMT) cores: f32 and f64 work, f32 products with TF32 off.
    #[default]
    Fp32,
    /// Tensor cores on f32 operands rounded to TF32 (an f32 product with
    /// `torch.backends.cuda.matmul.allow_tf32`).
    Tf32,
    /// Tensor cores on f16 or bf16.
    Half,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyPath {
    /// Host to device or back through pageable host memory (staged by the
    /// driver: `staged_rate`).
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
            Work::Kernel { bytes, flops, math } => {
                let rate = match math {
                    Math::Fp32 => spec.fp32_flops,
                    Math::Tf32 => spec.tf32_flops,
                    Math::Half => spec.fp16_flops,
                };
                (bytes as f64 / spec.memory_bandwidth + flops as f64 / rate).max(MIN_KERNEL)
            }
            Work::Copy { bytes, path } => {
                let rate = match path {
                    CopyPath::Pageable => staged_rate(spec, &HOST),
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
    use crate::runtime::spec::{H100, HOST};

    #[test]
    fn host_ops_cost_their_overhead_then_their_bytes() {
        let tiny = host_op(&HOST, 64, 0, 16, HOST.cores);
        assert!((tiny - HOST.op_overhead).abs() < 1e-8, "{tiny}");
        // 4 MiB read and written: one core's rate below the grain size is
        // moot here; above it, all cores up to the socket's bandwidth.
        let big = host_op(&HOST, 8 << 20, 0, 1 << 20, HOST.cores);
        let one = host_op(&HOST, 8 << 20, 0, 1 << 20, 1);
        assert!(one > 9.0 * big, "{one} vs {big}");
        assert!((big - HOST.op_overhead - (8 << 20) as f64 / HOST.memory_bandwidth).abs() < 1e-9);
    }

    #[test]
    fn tiny_kernels_cost_the_minimum_and_big_ones_their_bandwidth() {
        let tiny = Work::Kernel {
            bytes: 8,
            flops: 1,
            math: Math::Fp32,
        };
        assert_eq!(tiny.duration(&H100), MIN_KERNEL);
        let big = Work::Kernel {
            bytes: 3_350_000_000,
            flops: 0,
            math: Math::Fp32,
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

    #[test]
    fn a_pageable_copy_runs_at_the_memcpy_that_stages_it() {
        // 8 MiB: the driver's staging copy is the same one-core memcpy a
        // pin thread makes, so pinning on another thread saves the main
        // thread that time; the main thread pinning on all its cores is
        // several times faster than either.
        let bytes = 8 << 20;
        let pageable = Work::Copy {
            bytes,
            path: CopyPath::Pageable,
        }
        .duration(&H100);
        let pin_thread = host_copy(&HOST, bytes, 1);
        assert!(
            (pageable - pin_thread).abs() < 2e-5,
            "{pageable} vs {pin_thread}"
        );
        assert_eq!(staged_rate(&H100, &HOST), HOST.memcpy);
        assert!(host_copy(&HOST, bytes, HOST.cores) * 5.0 < pin_thread);
    }
}
