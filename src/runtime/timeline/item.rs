//! What a timeline records: items on lanes.

use std::sync::Arc;

use crate::runtime::stream::StreamKey;

/// Where an item ran: the host's main thread, one of its other threads (a
/// DataLoader's workers and pin thread), or one stream of one device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lane {
    Host,
    Worker(u32),
    PinThread,
    /// The host of rank `r` of `spawn` (a process of its own).
    Rank(u32),
    Stream(StreamKey),
}

/// What a host wait inside a non-blocking copy from pageable memory waited
/// for: part of the copy's call (`cudaMemcpyAsync`), not a sync.
pub const STAGING: &str = "the driver staging pageable memory";

/// What an item was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Kernel,
    /// A copy: `H2D`, `D2H` or `D2D` (between devices).
    Copy(&'static str),
    /// The host waiting for device work (`sync`, `.item()`, a blocking copy).
    HostWait,
    /// The host working: an op on CPU tensors, a copy into pinned memory,
    /// `sleep`.
    HostWork,
    /// The host issuing device work (a kernel launch, an async copy): the
    /// few microseconds each op costs the host however little it does.
    /// Back-to-back launches on one host lane are one item.
    Launch,
    /// Work queued before the profile began, still running when it did: a
    /// stream's device time starts after it (an event recorded at the start
    /// completes only once the stream reaches it).
    Before,
}

/// One segment of the timeline; times in seconds since the profile began.
#[derive(Debug, Clone)]
pub struct Item {
    pub lane: usize,
    pub kind: Kind,
    /// The op that issued it (`matmul`, `to`, `item`, `sync`).
    pub op: &'static str,
    pub start: f64,
    pub end: f64,
    /// Bytes written (kernels) or moved (copies); 0 for host waits.
    pub bytes: u64,
    /// `f32[1024, 1024]` for a kernel's output, or what a wait waited for.
    pub detail: Option<Arc<str>>,
}
