//! The simulator's segment source: a device whose memory is a number.
//! Its segments get addresses as a GPU's would (each 2 MiB aligned, none
//! overlapping, in a range where a 64-bit process's device memory lies), so
//! a snapshot's segments and blocks read as PyTorch's do. Expandable
//! segments' address space costs nothing; their mapped pages count as used.

use super::{SegmentError, SegmentSource};

/// A device whose memory is a number: what the simulator uses.
#[derive(Debug, Clone)]
pub struct Capacity {
    pub total: usize,
    pub used: usize,
    /// The address the next segment gets (never reused).
    next: u64,
}

/// Where the simulator's addresses start.
const BASE: u64 = 0x7f00_0000_0000;
/// Segments start on 2 MiB boundaries, as `cudaMalloc`'s large allocations do.
const ALIGN: u64 = 2 << 20;

impl Capacity {
    pub fn new(total: usize) -> Self {
        Capacity {
            total,
            used: 0,
            next: BASE,
        }
    }
}

impl SegmentSource for Capacity {
    fn reserve(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        match self.used.checked_add(bytes) {
            Some(used) if used <= self.total => {
                self.used = used;
                let at = self.next;
                let step = (bytes as u64).div_ceil(ALIGN).max(1) * ALIGN;
                self.next = self.next.saturating_add(step);
                Ok(at)
            }
            _ => Err(SegmentError::OutOfMemory),
        }
    }
    fn release(&mut self, _handle: u64, bytes: usize) {
        self.used -= bytes;
    }
    fn capacity(&self) -> usize {
        self.total
    }
    fn free(&self) -> Option<usize> {
        Some(self.total - self.used)
    }
    fn process_memory(&self) -> Option<usize> {
        // A simulated device has one process: this one.
        Some(self.used)
    }
    fn reserve_address(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        let at = self.next;
        let step = (bytes as u64).div_ceil(ALIGN).max(1) * ALIGN;
        self.next = self.next.saturating_add(step);
        Ok(at)
    }
    fn map(&mut self, _addr: u64, bytes: usize) -> Result<(), SegmentError> {
        match self.used.checked_add(bytes) {
            Some(used) if used <= self.total => {
                self.used = used;
                Ok(())
            }
            _ => Err(SegmentError::OutOfMemory),
        }
    }
    fn unmap(&mut self, _addr: u64, bytes: usize) {
        self.used -= bytes;
    }
}
