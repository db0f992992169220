//! One CUDA device's mutable state behind one lock: its caching allocator,
//! its streams, the blocks waiting for streams before they can be reused, and
//! the hazards found since the interpreter last asked.
//!
//! Hazard tracking works per storage (`Access`): the last write still pending,
//! on which stream and as which item, and the last item of each stream that
//! used the memory. The checks are the same on every backend; only the
//! simulator also shows the consequence (a racing read sees the old bytes).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::alloc::history::{Context, History};
pub use super::alloc::DeviceAllocator;
use super::alloc::{Block, CachingAllocator, SegmentSource, StreamId};
use super::driver::Driver;
use super::spec::GpuSpec;
use super::stream::{Mark, StreamKey, Streams};
use super::timing::Work;

pub use super::lock::lock;

pub struct Gpu {
    pub index: u32,
    pub spec: &'static GpuSpec,
    pub allocator: DeviceAllocator,
    pub streams: Streams,
    /// Blocks freed by their tensors while recorded streams still use them:
    /// each returns to the cache once every (stream, item) listed is done.
    waiting: Vec<(Block, Vec<(StreamId, u64)>)>,
    hazards: Vec<String>,
    /// Raised with every hazard, shared by all devices: lets the interpreter
    /// skip asking each device after every statement.
    hazard_flag: Arc<AtomicBool>,
    /// `--launch-blocking`: every item completes before the host goes on.
    pub launch_blocking: bool,
    /// Set while the host reads its copies of this device's memory
    /// (`Runtime::host_read`): races were reported with the copies.
    pub host_reading: bool,
    /// Modelled device time of all work queued so far (for `profile`).
    pub busy: f64,
    /// The driver to ask what queued work has completed, where work runs
    /// asynchronously (a GPU). None on the simulator and `emu`, whose
    /// queued work completes only at synchronisation points.
    completion: Option<Arc<dyn Driver>>,
}

/// An item just queued: its stream, its number there, and when it runs on
/// the modelled clock (seconds).
#[derive(Debug, Clone, Copy)]
pub struct Queued {
    pub stream: StreamId,
    pub seq: u64,
    pub start: f64,
    pub end: f64,
}

/// An asynchronous write not yet known to be complete: item `seq` of `stream`
/// on the device `gpu`.
#[derive(Clone)]
pub struct PendingWrite {
    pub gpu: Arc<Mutex<Gpu>>,
    pub stream: StreamId,
    pub seq: u64,
    /// Where this write was queued while an earlier one was still pending,
    /// that one's stream: the bytes a racing reader sees (kept when the
    /// oldest pending write was queued) predate it too.
    pub after_pending: Option<StreamId>,
}

/// The stream bookkeeping of one storage.
#[derive(Default)]
pub struct Access {
    /// The variable it was last bound to, for warnings.
    pub label: Option<Arc<str>>,
    pub write: Option<PendingWrite>,
    /// A non-blocking copy still reading this host memory (same shape as a write).
    pub read: Option<PendingWrite>,
    /// The last item of each stream of its device that used it.
    uses: Vec<(StreamId, u64)>,
    /// Streams named by `record_stream`: a free waits for them.
    recorded: Vec<StreamId>,
    /// The last host read reported as a race: (reader stream, writer stream,
    /// the write's item). The host's reading of its copy (`Gpu::host_reading`)
    /// sees the same old bytes without a second warning.
    warned: Option<(StreamId, StreamId, u64)>,
    /// The last device read reported as a race: (reader stream, its item,
    /// writer stream, the write's item). One op reading a tensor twice
    /// (`x += x`) races once.
    warned_read: Option<(StreamId, u64, StreamId, u64)>,
}

impl Access {
    fn name(&self) -> String {
        match &self.label {
            Some(l) => format!("`{l}`"),
            None => "a temporary tensor".into(),
        }
    }

    fn note_use(&mut self, stream: StreamId, seq: u64) {
        match self.uses.iter_mut().find(|(s, _)| *s == stream) {
            Some(u) => u.1 = u.1.max(seq),
            None => self.uses.push((stream, seq)),
        }
    }

    pub fn record_stream(&mut self, stream: StreamId) {
        if !self.recorded.contains(&stream) {
            self.recorded.push(stream);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Read,
    /// Read by the host, through a copy on the reading stream.
    HostRead,
    Write,
}

/// What a read should see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sees {
    /// The current bytes.
    Live,
    /// The bytes from before a write that may still be running.
    Stale,
}

impl Gpu {
    pub fn new(
        index: u32,
        spec: &'static GpuSpec,
        source: Box<dyn SegmentSource + Send>,
        hazard_flag: Arc<AtomicBool>,
        driver: Option<Arc<dyn Driver>>,
        history: Arc<Context>,
    ) -> Gpu {
        Gpu {
            index,
            spec,
            allocator: CachingAllocator::with_history(source, History::new(history)),
            streams: Streams::new(index),
            waiting: Vec::new(),
            hazards: Vec::new(),
            hazard_flag,
            launch_blocking: false,
            host_reading: false,
            busy: 0.0,
            completion: driver.filter(|d| !d.runs_when_queued()),
        }
    }

    /// Whether the driver says what has completed (a GPU), rather than sync points.
    pub fn asks_driver(&self) -> bool {
        self.completion.is_some()
    }

    /// On a GPU: every stream the driver reports idle has completed all it
    /// queued, so `pending`, the status line, event queries and the blocks
    /// held back for streams follow real completion. Hazards do not: the
    /// program has not synchronised with that work (`Streams::observe_idle`).
    /// A failed query changes nothing (the error surfaces at the next sync).
    pub fn refresh(&mut self) {
        let Some(driver) = &self.completion else {
            return;
        };
        let idle: Vec<StreamId> = self
            .streams
            .iter()
            .filter(|(i, s)| {
                s.pending() > 0 && driver.stream_query(self.streams.handle(*i)) == Ok(true)
            })
            .map(|(i, _)| i)
            .collect();
        if idle.is_empty() {
            return;
        }
        for stream in idle {
            // Other devices' items it waited for are done too; each of
            // their streams answers for itself when asked.
            self.streams.observe_idle(stream);
        }
        self.release_ready();
    }

    fn stream_name(&self, s: StreamId) -> String {
        format!("`{}`", self.streams.get(s).name)
    }

    /// Queues `work` on the current stream; `host` is the host's modelled
    /// clock, advanced by the cost of issuing it (none for a graph's kernel
    /// after its first: `launch` false). Returns the item's number
    /// and when it starts and ends on the modelled clock.
    pub fn launch(&mut self, work: Work, host: &mut f64, launch: bool) -> Queued {
        let s = self.streams.current();
        let d = work.duration(self.spec);
        if launch {
            *host += self.spec.launch_latency;
        }
        self.busy += d;
        let (seq, end) = self.streams.enqueue(s, *host, d);
        if self.launch_blocking {
            *host = host.max(end);
            self.streams.complete(s, seq);
            self.release_ready();
        }
        Queued {
            stream: s,
            seq,
            start: end - d,
            end,
        }
    }

    /// A mark at the tail of `stream` (an event record, or the point a wait waits for).
    pub fn mark(&mut self, stream: StreamId, host: f64) -> Mark {
        let m = self.streams.mark(stream, host);
        if self.launch_blocking {
            self.streams.complete(stream, m.seq);
        }
        m
    }

    /// Completes `stream` up to `seq`; returns other devices' items completed with it.
    pub fn complete(&mut self, stream: StreamId, seq: u64) -> Vec<(StreamKey, u64)> {
        let follow = self.streams.complete(stream, seq);
        self.release_ready();
        follow
    }

    /// Returns waiting blocks whose streams are done to the cache.
    fn release_ready(&mut self) {
        let streams = &self.streams;
        let (ready, still): (Vec<_>, Vec<_>) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|(_, waits)| waits.iter().all(|&(s, k)| streams.get(s).done >= k));
        self.waiting = still;
        for (block, _) in ready {
            self.allocator.free(block);
        }
    }

    /// A block whose memory guard dropped: back to the cache, unless it waits for a stream.
    pub fn free(&mut self, block: Block) {
        if !self.waiting.iter().any(|(b, _)| *b == block) {
            self.allocator.free(block);
        }
    }

    /// The last view of a storage on this device is gone. Streams other than
    /// the block's own that may still use it either hold the block back
    /// (`record_stream`) or are reported as a hazard.
    pub fn retire(&mut self, block: Block, access: &Access) {
        let own = block.stream;
        let mut waits = Vec::new();
        for &s in &access.recorded {
            let st = self.streams.get(s);
            if s != own && st.issued > st.done {
                waits.push((s, st.issued));
            }
        }
        for &(s, seq) in &access.uses {
            let unfinished = self.still_queued(s, seq);
            if s != own && unfinished && !access.recorded.contains(&s) {
                let msg = format!(
                    "{} is freed while stream {} (cuda:{}) may still be using it: its block goes back \
                     to {}'s cache at once, and the next allocation there can overwrite it. \
                     Fix: call `{}.record_stream({})` before freeing it (or `wait {}` / `sync` first).",
                    access.name(),
                    self.stream_name(s),
                    self.index,
                    self.stream_name(own),
                    access.label.as_deref().unwrap_or("x"),
                    self.streams.get(s).name,
                    self.streams.get(s).name,
                );
                self.report(msg);
            }
        }
        if !waits.is_empty() {
            self.allocator.free_later(block);
            self.waiting.push((block, waits));
        }
    }

    /// A read of this device's memory by its current stream's next item.
    pub fn on_read(&mut self, access: &mut Access) -> Sees {
        let r = self.streams.current();
        // The host reading its own copy (`host_reading`) is no device item:
        // the copy was noted when it was queued (`on_copy_to_host`).
        if !self.host_reading {
            let next = self.streams.get(r).issued + 1;
            access.note_use(r, next);
        }
        self.check(access, r, Verb::Read)
    }

    /// An in-place write to this device's memory by the current stream's next
    /// item. Returns whether the bytes before it must be kept for racing readers.
    pub fn on_write(&mut self, access: &mut Access, gpu: &Arc<Mutex<Gpu>>) -> bool {
        let r = self.streams.current();
        let next = self.streams.get(r).issued + 1;
        access.note_use(r, next);
        self.check(access, r, Verb::Write);
        // While an earlier write is pending, the oldest bytes a racing reader may see are kept already.
        // The same item writing again (the simulator's `all_reduce` checks its
        // buffers, then assigns them) is one write, not an earlier one.
        let again = access
            .write
            .as_ref()
            .is_some_and(|w| w.stream == r && w.seq == next);
        let earlier = match &access.write {
            Some(w) if again => w.after_pending,
            Some(w) => Some(w.after_pending.unwrap_or(w.stream)),
            None => None,
        };
        let earlier_pending = again || earlier.is_some();
        access.write = (!self.launch_blocking).then(|| PendingWrite {
            gpu: Arc::clone(gpu),
            stream: r,
            seq: next,
            after_pending: earlier,
        });
        !self.launch_blocking && !earlier_pending
    }

    /// A host read of this device's memory (display, `print`, `.item()`, a
    /// blocking `.to(cpu)`, `save`) through a copy on the current stream.
    pub fn on_copy_to_host(&mut self, access: &mut Access) -> Sees {
        let r = self.streams.current();
        let next = self.streams.get(r).issued + 1;
        access.note_use(r, next);
        self.check(access, r, Verb::HostRead)
    }

    /// Whether item `seq` of `stream` may still be using memory being freed:
    /// queued, and not synchronised with. A use noted for an item that was
    /// never queued (an op that failed, or copied no bytes) counts as the
    /// last item queued before it.
    fn still_queued(&self, stream: StreamId, seq: u64) -> bool {
        let s = self.streams.get(stream);
        s.synced < seq.min(s.issued)
    }

    /// The pending write as (stream, item), unless it is known complete (then it is forgotten).
    fn running_write(&self, access: &mut Access) -> Option<(StreamId, u64)> {
        let w = access.write.as_ref()?;
        if self.streams.get(w.stream).synced >= w.seq {
            access.write = None;
            return None;
        }
        Some((w.stream, w.seq))
    }

    /// What a racing reader of `access` sees, for the warning: the bytes
    /// kept when the oldest pending write was queued, so from before the
    /// racing write and any still-pending write it was queued after.
    fn what_is_seen(&self, access: &Access, ws: StreamId) -> String {
        let earlier = access.write.as_ref().and_then(|w| w.after_pending);
        match earlier {
            None => "the values from before that write".into(),
            Some(e) if e == ws => format!(
                "the values from before that write and the earlier writes still pending on {}",
                self.stream_name(ws)
            ),
            Some(e) => format!(
                "the values from before that write and from before the write queued on {} \
                 that it raced (the memory as it was before either ran)",
                self.stream_name(e)
            ),
        }
    }

    /// Whether stream `r`'s next item is ordered after the pending write; a
    /// hazard when it is not. Forgets the write once it is complete.
    fn check(&mut self, access: &mut Access, r: StreamId, verb: Verb) -> Sees {
        let Some((ws, seq)) = self.running_write(access) else {
            return Sees::Live;
        };
        if self.streams.ordered_after(r, ws, seq) {
            return Sees::Live;
        }
        // The host reading its copy of racing memory: reported with the copy.
        if self.host_reading && access.warned == Some((r, ws, seq)) {
            return Sees::Stale;
        }
        if verb == Verb::HostRead {
            access.warned = Some((r, ws, seq));
        }
        let this_item = Some((r, self.streams.get(r).issued + 1, ws, seq));
        if verb == Verb::Read {
            if access.warned_read == this_item {
                return Sees::Stale;
            }
            access.warned_read = this_item;
        }
        if verb == Verb::Write && access.warned_read == this_item {
            // The item that read it writes it too (`x += 1`, `all_reduce`):
            // one race, reported as the write.
            let read = self.race_message(access, r, ws, Verb::Read);
            if let Some(at) = self.hazards.iter().rposition(|m| *m == read) {
                self.hazards.remove(at);
            }
        }
        let msg = self.race_message(access, r, ws, verb);
        self.report(msg);
        Sees::Stale
    }

    /// The warning for `verb` by stream `r` racing a write queued on `ws`.
    fn race_message(&self, access: &Access, r: StreamId, ws: StreamId, verb: Verb) -> String {
        let (reader, writer) = (self.stream_name(r), self.stream_name(ws));
        let name = access.name();
        let (d, w) = (self.index, &self.streams.get(ws).name);
        let seen = self.what_is_seen(access, ws);
        match verb {
            Verb::Read => format!(
                "{name} is read on stream {reader} (cuda:{d}) while a write to it queued on \
                 {writer} may still be running: {reader} sees {seen}. \
                 Fix: `wait {w}` inside {reader} before using it (or `sync` first)."
            ),
            Verb::HostRead => format!(
                "{name} is read on the host, through a copy on {reader} (cuda:{d}), while a \
                 write to it queued on {writer} may still be running: the host waits for \
                 {reader} only, and sees {seen}. Fix: `sync {w}` \
                 (or `{w}.sync()`) before reading it, or `wait {w}` on {reader} first."
            ),
            Verb::Write => format!(
                "{name} is written on stream {reader} (cuda:{d}) while an earlier write to it \
                 queued on {writer} may still be running: the two writes race. Fix: `wait {w}` \
                 inside {reader} before using it (or `sync` first)."
            ),
        }
    }

    /// A copy queued on the current stream reading host memory that an
    /// asynchronous copy from this device writes (pinned memory a
    /// non-blocking download fills, uploaded again): ordered after that
    /// download on its own stream, else a race between the two streams.
    pub fn on_copy_from_host(&mut self, access: &mut Access) -> Sees {
        let r = self.streams.current();
        self.check(access, r, Verb::Read)
    }

    /// A host read of memory an asynchronous copy from this device writes.
    pub fn on_host_read(&mut self, access: &mut Access) -> Sees {
        let Some((ws, _)) = self.running_write(access) else {
            return Sees::Live;
        };
        let msg = format!(
            "{} is read on the host while the non-blocking copy into it (queued on {} @cuda:{}) \
             may still be running: it shows what the memory held before. Fix: `sync` (or an \
             event's `.sync()`) before reading it.",
            access.name(),
            self.stream_name(ws),
            self.index,
        );
        self.report(msg);
        Sees::Stale
    }

    /// A host write to host memory that a non-blocking copy queued on this
    /// device may still be reading.
    pub fn on_host_write(&mut self, access: &mut Access) {
        let Some(r) = access.read.take() else {
            return;
        };
        if self.streams.get(r.stream).synced >= r.seq {
            return;
        }
        let msg = format!(
            "{} is written on the host while the non-blocking copy from it (queued on {} @cuda:{}) \
             may still be reading it: the copy may take the new values. Fix: `sync` (or an \
             event's `.sync()`) before writing it.",
            access.name(),
            self.stream_name(r.stream),
            self.index,
        );
        self.report(msg);
    }

    fn report(&mut self, msg: String) {
        self.hazards.push(msg);
        self.hazard_flag.store(true, Ordering::Release);
    }

    pub fn take_hazards(&mut self) -> Vec<String> {
        std::mem::take(&mut self.hazards)
    }

    pub fn has_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// The streams the blocks held back wait for, each once.
    pub fn waited_streams(&self) -> Vec<StreamId> {
        let mut out: Vec<StreamId> = self
            .waiting
            .iter()
            .flat_map(|(_, w)| w.iter().map(|&(s, _)| s))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The streams a block held back at (segment, offset) waits for, for `mem map`.
    pub fn waits_at(&self, segment: u64, offset: usize) -> Vec<StreamId> {
        self.waiting
            .iter()
            .filter(|(b, _)| b.segment == segment && b.offset == offset)
            .flat_map(|(_, w)| w.iter().map(|&(s, _)| s))
            .collect()
    }

    /// Streams with queued work, as (name, pending items).
    pub fn busy_streams(&mut self) -> Vec<(Arc<str>, u64)> {
        self.refresh();
        self.streams
            .iter()
            .filter(|(_, s)| s.pending() > 0)
            .map(|(_, s)| (Arc::clone(&s.name), s.pending()))
            .collect()
    }
}
