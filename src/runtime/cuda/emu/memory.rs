//! The emulated devices' memory: host pages each device owns, mapped on
//! allocation (zeroed, and committed only when touched, as device memory
//! costs nothing until used) and unmapped when freed. Device addresses are
//! these pages' host addresses, which the host-compiled kernels use as they are.

use std::collections::BTreeMap;

/// One mapping of `bytes` at a host address.
pub struct Region;

impl Region {
    /// `bytes` of zeroed, page-aligned memory, or None when the host refuses.
    pub fn map(bytes: usize) -> Option<u64> {
        let len = bytes.max(1);
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
    /// `addr` and `bytes` are a mapping `map` returned, not used afterwards.
    pub unsafe fn unmap(addr: u64, bytes: usize) {
        libc::munmap(addr as *mut libc::c_void, bytes.max(1));
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
    fn mapped_memory_is_zeroed_and_writable() {
        let addr = Region::map(8192).expect("the host maps 8 KiB");
        // SAFETY: the mapping just made, unmapped once.
        unsafe {
            let s = std::slice::from_raw_parts_mut(addr as *mut u8, 8192);
            assert!(s.iter().all(|&b| b == 0));
            s[8191] = 7;
            Region::unmap(addr, 8192);
        }
    }
}
