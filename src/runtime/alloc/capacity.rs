//! The simulator's segment source: a device whose memory is a number.

use super::{SegmentError, SegmentSource};

/// A device whose memory is a number: what the simulator uses.
#[derive(Debug, Clone)]
pub struct Capacity {
    pub total: usize,
    pub used: usize,
    next: u64,
}

impl Capacity {
    pub fn new(total: usize) -> Self {
        Capacity {
            total,
            used: 0,
            next: 0,
        }
    }
}

impl SegmentSource for Capacity {
    fn reserve(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        match self.used.checked_add(bytes) {
            Some(used) if used <= self.total => {
                self.used = used;
                self.next += 1;
                Ok(self.next)
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
}
