//! A host tensor's own memory, page-locked by a driver (`cuMemHostRegister`):
//! what `.pin()` and `pin x` give on `cuda` and `emu`, so copies from and to
//! it are direct DMA. Unlocked when dropped, which a storage does before it
//! frees the memory.

use std::sync::Arc;

use super::driver::{Driver, DriverError};

pub struct PageLocked {
    driver: Arc<dyn Driver>,
    ptr: *mut u8,
}

// SAFETY: the pointer is only handed back to the driver that locked it.
unsafe impl Send for PageLocked {}
unsafe impl Sync for PageLocked {}

impl PageLocked {
    /// Page-locks `bytes` bytes at `ptr`.
    ///
    /// # Safety
    /// The memory stays allocated, and does not move, until this is dropped.
    pub unsafe fn lock(
        driver: &Arc<dyn Driver>,
        ptr: *mut u8,
        bytes: usize,
    ) -> Result<PageLocked, DriverError> {
        driver.host_register(ptr, bytes)?;
        Ok(PageLocked {
            driver: Arc::clone(driver),
            ptr,
        })
    }
}

impl Drop for PageLocked {
    fn drop(&mut self) {
        // SAFETY: registered by `lock`; the storage frees the memory only
        // after this. A refusal leaves the pages locked until the process ends.
        let _ = unsafe { self.driver.host_unregister(self.ptr) };
    }
}
