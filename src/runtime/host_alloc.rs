//! The caching host allocator for page-locked ("pinned") memory, modelled on
//! PyTorch's: sizes round up to a power of two, freed blocks are cached by size
//! and reused, and `pin x` registers existing memory in place
//! (`cudaHostRegister`). On the simulator page-locking is bookkeeping; the CUDA
//! backend backs it with the driver.

use std::collections::BTreeMap;

use super::alloc::Stat;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostStats {
    /// Bytes in pinned blocks in use.
    pub allocated: Stat,
    /// Bytes held page-locked by the cache (in use or cached).
    pub reserved: Stat,
    /// Bytes of ordinary memory registered in place with `pin x`.
    pub registered: Stat,
    pub allocations: Stat,
    pub total_allocations: u64,
    /// Allocations served from the cache.
    pub cache_hits: u64,
}

#[derive(Debug, Default)]
pub struct HostAllocator {
    /// Cached (free) blocks by size.
    cached: BTreeMap<usize, usize>,
    stats: HostStats,
}

impl HostAllocator {
    pub fn stats(&self) -> &HostStats {
        &self.stats
    }

    /// A pinned block of at least `size` bytes; returns its (rounded) size.
    pub fn malloc(&mut self, size: usize) -> usize {
        let rounded = size.max(1).next_power_of_two();
        match self.cached.get_mut(&rounded) {
            Some(n) if *n > 0 => {
                *n -= 1;
                self.stats.cache_hits += 1;
            }
            _ => self.stats.reserved.increase(rounded as u64),
        }
        self.stats.allocated.increase(rounded as u64);
        self.stats.allocations.increase(1);
        self.stats.total_allocations += 1;
        rounded
    }

    pub fn free(&mut self, rounded: usize) {
        *self.cached.entry(rounded).or_default() += 1;
        self.stats.allocated.decrease(rounded as u64);
        self.stats.allocations.decrease(1);
    }

    pub fn register(&mut self, bytes: usize) {
        self.stats.registered.increase(bytes as u64);
    }

    pub fn unregister(&mut self, bytes: usize) {
        self.stats.registered.decrease(bytes as u64);
    }

    /// Releases cached blocks; returns the bytes released.
    pub fn empty_cache(&mut self) -> usize {
        let bytes: usize = self.cached.iter().map(|(size, n)| size * n).sum();
        self.cached.clear();
        self.stats.reserved.decrease(bytes as u64);
        bytes
    }

    pub fn reset_peak(&mut self) {
        let s = &mut self.stats;
        for st in [
            &mut s.allocated,
            &mut s.reserved,
            &mut s.registered,
            &mut s.allocations,
        ] {
            st.peak = st.current;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_powers_of_two_and_reuses() {
        let mut h = HostAllocator::default();
        let a = h.malloc(3000);
        assert_eq!(a, 4096);
        h.free(a);
        assert_eq!(h.malloc(4000), 4096);
        assert_eq!(h.stats().cache_hits, 1);
        assert_eq!(h.stats().reserved.current, 4096);
        h.free(4096);
        assert_eq!(h.empty_cache(), 4096);
        assert_eq!(h.stats().reserved.current, 0);
    }
}
