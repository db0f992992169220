//! Temporaries of device ops: an operand converted to another dtype, a
//! reduction's partial results, a host number a kernel reads. They come
//! straight from the driver, outside the caching allocator (so `mem` shows
//! what the simulator shows: tensors only), and are kept for reuse: a
//! `cuMemFree` per temporary would wait for the whole device each time.
//!
//! Reuse is stream-ordered, as in the caching allocator: a temporary
//! returned after work on stream S was queued goes back to S's list, and
//! only later work on S gets it again, which S runs after that work.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::runtime::driver::{DevicePtr, Driver, DriverError, StreamHandle};

/// Bytes of temporaries kept for reuse per device; more are freed.
const KEEP: usize = 256 << 20;
/// Temporaries up to this size are rounded to a power of two (at least
/// `SMALLEST`), larger ones to whole `LARGE_STEP`s.
const SMALL: usize = 1 << 20;
const SMALLEST: usize = 512;
const LARGE_STEP: usize = 2 << 20;

/// One device's temporaries.
pub struct Scratch {
    driver: Arc<dyn Driver>,
    device: u32,
    /// Temporaries free for reuse: (address, bytes, the stream that last used it).
    free: Vec<(DevicePtr, usize, StreamHandle)>,
    /// Bytes in `free`.
    kept: usize,
    /// `kept`, for the caching allocator to count as free (`mem`'s device
    /// free: this memory is released whenever an allocation needs it).
    shown: Arc<AtomicUsize>,
}

/// The size a request of `bytes` takes.
fn rounded(bytes: usize) -> usize {
    if bytes <= SMALL {
        bytes.next_power_of_two().max(SMALLEST)
    } else {
        bytes.div_ceil(LARGE_STEP) * LARGE_STEP
    }
}

impl Scratch {
    pub fn new(driver: Arc<dyn Driver>, device: u32) -> Scratch {
        Scratch {
            driver,
            device,
            free: Vec::new(),
            kept: 0,
            shown: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The bytes kept for reuse, as they change (`CachingAllocator::count_as_free`).
    pub fn kept_bytes(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.shown)
    }

    fn set_kept(&mut self, kept: usize) {
        self.kept = kept;
        self.shown.store(kept, Ordering::Relaxed);
    }

    /// A temporary of at least `bytes` for work on `stream`: (address, size).
    /// When the device is full, the kept temporaries are freed and the
    /// request tried again.
    pub fn take(
        &mut self,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<(DevicePtr, usize), DriverError> {
        let size = rounded(bytes);
        if let Some(i) = self
            .free
            .iter()
            .position(|&(_, b, s)| b == size && s == stream)
        {
            let (addr, _, _) = self.free.swap_remove(i);
            self.set_kept(self.kept - size);
            return Ok((addr, size));
        }
        match self.driver.mem_alloc(self.device, size) {
            Err(DriverError::OutOfMemory { .. }) if !self.free.is_empty() => {
                self.release();
                self.driver
                    .mem_alloc(self.device, size)
                    .map(|addr| (addr, size))
            }
            r => r.map(|addr| (addr, size)),
        }
    }

    /// `take`'s temporary back, once the work using it is queued on `stream`.
    pub fn give_back(&mut self, addr: DevicePtr, size: usize, stream: StreamHandle) {
        if self.kept + size > KEEP {
            // cuMemFree waits for the work using it; a refusal leaves the
            // memory to the process's end.
            let _ = self.driver.mem_free(self.device, addr);
            return;
        }
        self.free.push((addr, size, stream));
        self.set_kept(self.kept + size);
    }

    /// Frees every kept temporary (`empty_cache()`, out of memory, the end).
    pub fn release(&mut self) {
        for (addr, _, _) in self.free.drain(..) {
            let _ = self.driver.mem_free(self.device, addr);
        }
        self.set_kept(0);
    }

    /// Bytes kept for reuse.
    pub fn kept(&self) -> usize {
        self.kept
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.release();
    }
}
