//! The caching allocator's statistics, kept as PyTorch's `DeviceStats`
//! keeps them: each statistic for all pools and for the small and the large
//! pool apart, each with its current value, its peak, and how much it ever
//! rose (`allocated`) and fell (`freed`); and the event counters. What
//! `torch.cuda.memory_stats()` returns and `memory_summary()` prints.

use super::Pool;

/// One statistic (PyTorch's `Stat`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stat {
    pub current: u64,
    pub peak: u64,
    /// Everything it ever rose by.
    pub allocated: u64,
    /// Everything it ever fell by.
    pub freed: u64,
}

impl Stat {
    pub(crate) fn increase(&mut self, n: u64) {
        self.current += n;
        self.peak = self.peak.max(self.current);
        self.allocated += n;
    }

    pub(crate) fn decrease(&mut self, n: u64) {
        self.current -= n;
        self.freed += n;
    }

    pub(crate) fn reset_peak(&mut self) {
        self.peak = self.current;
    }

    fn reset_accumulated(&mut self) {
        self.allocated = 0;
        self.freed = 0;
    }
}

/// A statistic for all pools and for each pool (PyTorch's `StatArray`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatArray {
    pub all: Stat,
    pub large_pool: Stat,
    pub small_pool: Stat,
}

impl StatArray {
    pub fn pool(&self, pool: Pool) -> &Stat {
        match pool {
            Pool::Small => &self.small_pool,
            Pool::Large => &self.large_pool,
        }
    }

    fn pool_mut(&mut self, pool: Pool) -> &mut Stat {
        match pool {
            Pool::Small => &mut self.small_pool,
            Pool::Large => &mut self.large_pool,
        }
    }

    pub(crate) fn increase(&mut self, pool: Pool, n: u64) {
        self.all.increase(n);
        self.pool_mut(pool).increase(n);
    }

    pub(crate) fn decrease(&mut self, pool: Pool, n: u64) {
        self.all.decrease(n);
        self.pool_mut(pool).decrease(n);
    }

    fn each(&mut self) -> [&mut Stat; 3] {
        [&mut self.all, &mut self.large_pool, &mut self.small_pool]
    }
}

/// Every statistic of one device's allocator, named as PyTorch names them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Blocks handed out to tensors.
    pub allocation: StatArray,
    /// Segments held from the device (`cudaMalloc`).
    pub segment: StatArray,
    /// Blocks in use: handed out, or freed but still awaiting a stream.
    pub active: StatArray,
    /// Free blocks that share a segment with other blocks, so cannot be
    /// given back to the device (what fragmentation holds).
    pub inactive_split: StatArray,
    /// Bytes in blocks handed out (rounded sizes).
    pub allocated_bytes: StatArray,
    /// Bytes of segments held from the device.
    pub reserved_bytes: StatArray,
    pub active_bytes: StatArray,
    pub inactive_split_bytes: StatArray,
    /// Bytes asked for (before rounding), until the block is free again.
    pub requested_bytes: StatArray,
    /// Segments that could not be had, so the cache was released and the
    /// request tried again.
    pub num_alloc_retries: u64,
    /// Out-of-memory errors.
    pub num_ooms: u64,
    /// Times every stream's pending frees were waited for (`empty_cache`,
    /// and before the retry of a failed request).
    pub num_sync_all_streams: u64,
    /// Segments reserved from and released to the device.
    pub num_device_alloc: u64,
    pub num_device_free: u64,
    /// Blocks and segments of `max_split_size` or more (none without
    /// one, PyTorch's default: blocks of any size split).
    pub oversize_allocations: Stat,
    pub oversize_segments: Stat,
    /// `PYTORCH_CUDA_ALLOC_CONF`'s `max_split_size_mb` in bytes; -1 for
    /// none (PyTorch's `SIZE_MAX` read as a signed integer).
    pub max_split_size: i64,
}

impl Stats {
    fn arrays(&mut self) -> [&mut StatArray; 9] {
        [
            &mut self.allocation,
            &mut self.segment,
            &mut self.active,
            &mut self.inactive_split,
            &mut self.allocated_bytes,
            &mut self.reserved_bytes,
            &mut self.active_bytes,
            &mut self.inactive_split_bytes,
            &mut self.requested_bytes,
        ]
    }

    /// `reset_peak_memory_stats()`: every peak starts again from now.
    pub fn reset_peak(&mut self) {
        for a in self.arrays() {
            for s in a.each() {
                s.reset_peak();
            }
        }
        self.oversize_allocations.reset_peak();
        self.oversize_segments.reset_peak();
    }

    /// `reset_accumulated_memory_stats()`: the totals and the counters start
    /// again from zero.
    pub fn reset_accumulated(&mut self) {
        for a in self.arrays() {
            for s in a.each() {
                s.reset_accumulated();
            }
        }
        self.num_alloc_retries = 0;
        self.num_ooms = 0;
        self.num_sync_all_streams = 0;
        self.num_device_alloc = 0;
        self.num_device_free = 0;
        self.oversize_allocations.reset_accumulated();
        self.oversize_segments.reset_accumulated();
    }

    /// The statistics kept per pool, under PyTorch's names.
    pub fn named(&self) -> [(&'static str, &StatArray); 9] {
        [
            ("allocation", &self.allocation),
            ("segment", &self.segment),
            ("active", &self.active),
            ("inactive_split", &self.inactive_split),
            ("allocated_bytes", &self.allocated_bytes),
            ("reserved_bytes", &self.reserved_bytes),
            ("active_bytes", &self.active_bytes),
            ("inactive_split_bytes", &self.inactive_split_bytes),
            ("requested_bytes", &self.requested_bytes),
        ]
    }

    /// `torch.cuda.memory_stats()`: every statistic under PyTorch's key
    /// (`allocated_bytes.small_pool.peak`), sorted as PyTorch sorts them.
    pub fn pairs(&self) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        for (name, a) in self.named() {
            for (pool, s) in [
                ("all", &a.all),
                ("large_pool", &a.large_pool),
                ("small_pool", &a.small_pool),
            ] {
                stat_pairs(&mut out, &format!("{name}.{pool}"), s);
            }
        }
        stat_pairs(&mut out, "oversize_allocations", &self.oversize_allocations);
        stat_pairs(&mut out, "oversize_segments", &self.oversize_segments);
        for (name, n) in [
            ("num_alloc_retries", self.num_alloc_retries),
            ("num_ooms", self.num_ooms),
            ("num_sync_all_streams", self.num_sync_all_streams),
            ("num_device_alloc", self.num_device_alloc),
            ("num_device_free", self.num_device_free),
            ("num_oom_rejections", 0),
        ] {
            out.push((name.into(), n as i64));
        }
        out.push(("max_split_size".into(), self.max_split_size));
        out.sort();
        out
    }
}

fn stat_pairs(out: &mut Vec<(String, i64)>, prefix: &str, s: &Stat) {
    for (field, v) in [
        ("current", s.current),
        ("peak", s.peak),
        ("allocated", s.allocated),
        ("freed", s.freed),
    ] {
        out.push((format!("{prefix}.{field}"), v as i64));
    }
}
