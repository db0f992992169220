//! The emulated devices' memory: host memory each device owns, zeroed on
//! allocation (large allocations are mapped pages, committed only when
//! touched, as device memory costs nothing until used) and freed when freed. Device addresses are
//! these pages' host addresses, which the host-compiled kernels use as they are.
//! Expandable segments' address space is a host mapping no one may touch
//! (`PROT_NONE`) whose pages become readable and writable as they are mapped
//! and are discarded (zeroed) and closed again as they are unmapped.

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

    /// `bytes` of address space no one may touch yet, or None when the host refuses.
    pub fn reserve(bytes: usize) -> Option<u64> {
        // SAFETY: an anonymous private mapping; no existing memory is touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes.max(1),
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        (p != libc::MAP_FAILED).then_some(p as u64)
    }

    /// Opens `addr..addr+bytes` of reserved space (zeroed); whether the host let it.
    ///
    /// # Safety
    /// The range lies in space `reserve` gave, page-aligned.
    pub unsafe fn commit(addr: u64, bytes: usize) -> bool {
        let p = addr as *mut libc::c_void;
        libc::mprotect(p, bytes, libc::PROT_READ | libc::PROT_WRITE) == 0
    }

    /// Discards `addr..addr+bytes` (it reads as zeros when opened again) and closes it.
    ///
    /// # Safety
    /// The range was opened by `commit` and nothing uses it any more.
    pub unsafe fn decommit(addr: u64, bytes: usize) {
        let p = addr as *mut libc::c_void;
        libc::madvise(p, bytes, libc::MADV_DONTNEED);
        libc::mprotect(p, bytes, libc::PROT_NONE);
    }

    /// # Safety
    /// `addr` and `bytes` are what `reserve` returned and was given, not used afterwards.
    pub unsafe fn release(addr: u64, bytes: usize) {
        libc::munmap(addr as *mut libc::c_void, bytes.max(1));
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
    /// Reserved address space (expandable segments'): start → size.
    pub reserved: BTreeMap<u64, usize>,
    /// Pages mapped in reserved space: start → size.
    pub mapped: BTreeMap<u64, usize>,
    /// Bytes of memory held (allocations and mapped pages).
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

    /// Whether `addr..addr+bytes` lies inside one allocation, or in pages
    /// mapped one after another.
    pub fn contains(&self, addr: u64, bytes: usize) -> bool {
        let end = addr + bytes as u64;
        if let Some((&start, &size)) = self.live.range(..=addr).next_back() {
            if end <= start + size as u64 {
                return true;
            }
        }
        let Some((&start, &size)) = self.mapped.range(..=addr).next_back() else {
            return false;
        };
        let mut at = start + size as u64;
        while at < end {
            match self.mapped.get(&at) {
                Some(&size) => at += size as u64,
                None => return false,
            }
        }
        addr < start + size as u64
    }

    /// Whether `addr..addr+bytes` lies in one reserved range and overlaps no mapped page.
    pub fn can_map(&self, addr: u64, bytes: usize) -> bool {
        let end = addr + bytes as u64;
        let reserved = self
            .reserved
            .range(..=addr)
            .next_back()
            .is_some_and(|(&s, &n)| end <= s + n as u64);
        let below = self.mapped.range(..end).next_back();
        reserved && below.is_none_or(|(&s, &n)| s + n as u64 <= addr)
    }

    /// Every allocation and reserved range, forgotten: to give back.
    pub fn drain(&mut self) -> impl Iterator<Item = (u64, usize)> + '_ {
        self.used = 0;
        self.mapped.clear();
        let reserved = std::mem::take(&mut self.reserved);
        std::mem::take(&mut self.live).into_iter().chain(reserved)
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
    fn mapped_pages_in_a_row_hold_a_range() {
        let mut a = Allocations::default();
        a.reserved.insert(0, 100);
        a.mapped.insert(0, 20);
        a.mapped.insert(20, 20);
        a.mapped.insert(60, 20);
        assert!(a.contains(10, 25), "across two pages");
        assert!(!a.contains(30, 20), "into a page not mapped");
        assert!(!a.contains(45, 1));
        assert!(a.can_map(40, 20));
        assert!(!a.can_map(30, 20), "over a mapped page");
        assert!(!a.can_map(80, 40), "past the reserved range");
    }

    #[test]
    fn reserved_space_opens_zeroed_and_closes() {
        let page = 2 << 20;
        let addr = Region::reserve(4 * page).expect("address space");
        // SAFETY: pages of the range just reserved, opened before use.
        unsafe {
            assert!(Region::commit(addr + page as u64, page));
            let s = std::slice::from_raw_parts_mut((addr + page as u64) as *mut u8, page);
            s[7] = 9;
            Region::decommit(addr + page as u64, page);
            assert!(Region::commit(addr + page as u64, page));
            let s = std::slice::from_raw_parts((addr + page as u64) as *const u8, page);
            assert_eq!(s[7], 0, "unmapped memory comes back zeroed");
            Region::release(addr, 4 * page);
        }
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
