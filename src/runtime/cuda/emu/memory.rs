//! The emulated devices' memory: host memory each device owns, zeroed on
//! allocation (large allocations are mapped pages, committed only when
//! touched, as device memory costs nothing until used) and freed when freed. Device addresses are
//! these pages' host addresses, which the host-compiled kernels use as they are.

use std::collections::BTreeMap;

/// Host memory for one allocation: small ones from the heap, large ones
/// mapped (zeroed, and committed only when touched).
pub struct Region;

/// Allocations up to this size come from the heap: a launch's scratch
/// memory is small, and a heap allocation costs far less than a mapping.
const HEAP_MAX: usize = 1 << 20;
/// CUDA's allocations are aligned to at least 256 bytes.
const ALIGN: usize = 256;

impl Region {
    /// `bytes` of zeroed memory, or None when the host refuses.
    pub fn map(bytes: usize) -> Option<u64> {
        let len = bytes.max(1);
        if len <= HEAP_MAX {
            let layout = std::alloc::Layout::from_size_align(len, ALIGN).ok()?;
            // SAFETY: a layout of non-zero size.
            let p = unsafe { std::alloc::alloc_zeroed(layout) };
            return (!p.is_null()).then_some(p as u64);
        }
        // SAFETY: an anonymous private mapping; no existing memory is touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        (p != libc::MAP_FAILED).then_some(p as u64)
    }

    /// # Safety
    /// `addr` and `bytes` are what `map` returned and was given, not used afterwards.
    pub unsafe fn unmap(addr: u64, bytes: usize) {
        let len = bytes.max(1);
        if len <= HEAP_MAX {
            let layout = std::alloc::Layout::from_size_align_unchecked(len, ALIGN);
            std::alloc::dealloc(addr as *mut u8, layout);
        } else {
            libc::munmap(addr as *mut libc::c_void, len);
        }
    }
}

/// The allocations of one place (a device, or the host's page-locked memory).
#[derive(Default)]
pub struct Allocations {
    /// Start address → size.
    live: BTreeMap<u64, usize>,
    pub used: usize,
}

impl Allocations {
    pub fn insert(&mut self, addr: u64, bytes: usize) {
        self.live.insert(addr, bytes);
        self.used += bytes;
    }

    /// Removes the allocation starting at `addr`; its size, or None if there is none.
    pub fn remove(&mut self, addr: u64) -> Option<usize> {
        let bytes = self.live.remove(&addr)?;
        self.used -= bytes;
        Some(bytes)
    }

    /// Whether `addr..addr+bytes` lies inside one allocation.
    pub fn contains(&self, addr: u64, bytes: usize) -> bool {
        match self.live.range(..=addr).next_back() {
            Some((&start, &size)) => addr + bytes as u64 <= start + size as u64,
            None => false,
        }
    }

    pub fn drain(&mut self) -> impl Iterator<Item = (u64, usize)> + '_ {
        self.used = 0;
        std::mem::take(&mut self.live).into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked_against_one_allocation() {
        let mut a = Allocations::default();
        a.insert(1000, 100);
        a.insert(1100, 50);
        assert!(a.contains(1000, 100));
        assert!(a.contains(1099, 1));
        assert!(!a.contains(1050, 100), "spans two allocations");
        assert!(!a.contains(999, 1));
        assert!(a.contains(1100, 50));
        assert!(!a.contains(1100, 51));
        assert_eq!(a.used, 150);
        assert_eq!(a.remove(1000), Some(100));
        assert!(!a.contains(1000, 1));
        assert_eq!(a.remove(1000), None);
        assert_eq!(a.used, 50);
    }

    #[test]
    fn memory_is_zeroed_aligned_and_writable() {
        for bytes in [1, 8192, HEAP_MAX + 1] {
            let addr = Region::map(bytes).expect("the host gives the memory");
            assert_eq!(addr % ALIGN as u64, 0);
            // SAFETY: the memory just allocated, freed once.
            unsafe {
                let s = std::slice::from_raw_parts_mut(addr as *mut u8, bytes);
                assert!(s.iter().all(|&b| b == 0));
                s[bytes - 1] = 7;
                Region::unmap(addr, bytes);
            }
        }
    }
}
