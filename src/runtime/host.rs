//! Host memory checks, so an absurd tensor is an error instead of an abort.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::Error;
use crate::vocab::human_bytes;

use super::shape::fmt_shape;
use super::DType;

/// Allocations above this size are checked against the memory the host has available.
const CHECK_ABOVE: usize = 64 << 20;

/// A cap below what the host has, for the whole process (fuzzing sets one).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Tensors above `bytes` become out-of-memory errors, whatever the host has.
pub fn limit(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// Fails with an out-of-memory error if a tensor of `shape` and `dtype` cannot fit in host memory.
pub fn check_alloc(shape: &[usize], dtype: DType) -> Result<usize, Error> {
    let n = super::shape::checked_numel(shape)?;
    let bytes = n.saturating_mul(dtype.size());
    if bytes > CHECK_ABOVE {
        let avail = available_bytes().min(LIMIT.load(Ordering::Relaxed) as u64);
        if bytes as u128 > avail as u128 {
            return Err(Error::HostOutOfMemory {
                needed: bytes as u64,
                message: format!(
                    "out of memory: {} {dtype} tensor of shape {} needs {}, but the host has about {} available",
                    if dtype.name().starts_with(['f', 'i']) { "an" } else { "a" },
                    fmt_shape(shape),
                    human_bytes(bytes as u128),
                    human_bytes(avail as u128)
                ),
            });
        }
    }
    Ok(n)
}

/// `MemAvailable` from /proc/meminfo; without it, assume 8 GiB.
fn available_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(8 << 30)
}
