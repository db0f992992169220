//! What `profile { }` counts: ops, kernels, allocations, copies by direction
//! and host syncs, and the modelled device time of everything queued.

/// Counters behind `profile { }`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters {
    pub ops: u64,
    /// Kernels queued on CUDA devices.
    pub kernels: u64,
    /// Modelled device time of everything queued, in nanoseconds.
    pub device_ns: u64,
    /// The part of it spent in copies (the copy engines' busy time), in nanoseconds.
    pub copy_ns: u64,
    /// Segments the caching allocators reserved from the devices (filled in by `profile`).
    pub segments: u64,
    pub allocations: u64,
    pub bytes: u64,
    /// Copies and their bytes by direction: host to device, device to host, device to device.
    pub h2d: (u64, u64),
    pub d2h: (u64, u64),
    pub d2d: (u64, u64),
    pub host_syncs: u64,
}

impl Counters {
    /// Adds what another runtime counted (a rank's, to the session's).
    pub fn add(&mut self, other: &Counters) {
        self.ops += other.ops;
        self.kernels += other.kernels;
        self.device_ns += other.device_ns;
        self.copy_ns += other.copy_ns;
        self.segments += other.segments;
        self.allocations += other.allocations;
        self.bytes += other.bytes;
        self.h2d = (self.h2d.0 + other.h2d.0, self.h2d.1 + other.h2d.1);
        self.d2h = (self.d2h.0 + other.d2h.0, self.d2h.1 + other.d2h.1);
        self.d2d = (self.d2d.0 + other.d2d.0, self.d2d.1 + other.d2d.1);
        self.host_syncs += other.host_syncs;
    }

    /// What was counted since `before` was taken.
    pub fn since(&self, before: &Counters) -> Counters {
        let now = self;
        Counters {
            ops: now.ops - before.ops,
            kernels: now.kernels - before.kernels,
            device_ns: now.device_ns - before.device_ns,
            copy_ns: now.copy_ns - before.copy_ns,
            segments: now.segments - before.segments,
            allocations: now.allocations - before.allocations,
            bytes: now.bytes - before.bytes,
            h2d: (now.h2d.0 - before.h2d.0, now.h2d.1 - before.h2d.1),
            d2h: (now.d2h.0 - before.d2h.0, now.d2h.1 - before.d2h.1),
            d2d: (now.d2d.0 - before.d2d.0, now.d2d.1 - before.d2d.1),
            host_syncs: now.host_syncs - before.host_syncs,
        }
    }
}
