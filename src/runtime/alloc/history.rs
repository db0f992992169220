//! The allocator's history, as PyTorch's `_record_memory_history` keeps it:
//! every alloc, free (requested, then completed once no stream uses the
//! block), segment alloc and free, and out-of-memory, with its size, address,
//! stream, time and the statement that caused it, in a ring of at most
//! `max_entries` per device (the oldest dropped first). `Context` is what all
//! of a session's allocators record with: the statement and op running now
//! (set by the interpreter) and the host's clock.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::StreamId;
use crate::runtime::host_clock::HostClock;
use crate::runtime::lock::lock;

/// PyTorch's default `max_entries`.
pub const DEFAULT_MAX_ENTRIES: usize = 100_000;

/// What happened, with PyTorch's trace names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    /// Memory put behind an expandable segment's address space (pages).
    SegmentMap,
    /// An expandable segment's pages given back.
    SegmentUnmap,
    /// `addr` holds what the device had free (`device_free`).
    Oom,
    /// A free requested and completed at once (no other stream used the
    /// block): kept as one entry, read back as `FreeRequested` then
    /// `FreeCompleted`, so that the commonest event costs one write.
    Free,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Alloc => "alloc",
            Action::FreeRequested => "free_requested",
            Action::FreeCompleted => "free_completed",
            Action::SegmentAlloc => "segment_alloc",
            Action::SegmentFree => "segment_free",
            Action::SegmentMap => "segment_map",
            Action::SegmentUnmap => "segment_unmap",
            Action::Oom => "oom",
            Action::Free => "free",
        }
    }
}

/// Where an event happened: a statement (its source, by the number
/// `Context::add_source` gave it, and its byte offset there) and the op
/// running, packed in one word so the interpreter moves it with one store.
/// Source 0 is none (before any statement ran).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Frame(u64);

const SOURCE_BITS: u32 = 20;
const OFFSET_BITS: u32 = 32;
const OP_BITS: u32 = 64 - SOURCE_BITS - OFFSET_BITS;
const MAX_OPS: usize = (1 << OP_BITS) - 1;

impl Frame {
    pub fn new(source: u32, offset: u32, op: u16) -> Frame {
        let source = (source as u64) & ((1 << SOURCE_BITS) - 1);
        let op = (op as u64) & ((1 << OP_BITS) - 1);
        Frame((source << (OFFSET_BITS + OP_BITS)) | ((offset as u64) << OP_BITS) | op)
    }
    pub fn source(self) -> u32 {
        (self.0 >> (OFFSET_BITS + OP_BITS)) as u32
    }
    pub fn offset(self) -> u32 {
        (self.0 >> OP_BITS) as u32
    }
    pub fn op(self) -> u16 {
        (self.0 & ((1 << OP_BITS) - 1)) as u16
    }
    fn with_op(self, op: u16) -> Frame {
        Frame::new(self.source(), self.offset(), op)
    }
}

/// One event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    pub action: Action,
    /// The block's or segment's device address; for `Oom`, the device's free bytes.
    pub addr: u64,
    /// The requested size of a block (as PyTorch's trace), a segment's size.
    pub size: u64,
    pub stream: StreamId,
    /// Microseconds since the Unix epoch, on the host's clock (modelled
    /// where device time is modelled).
    pub time_us: u64,
    pub frame: Frame,
    /// `memory_allocated()` and `memory_reserved()` just after it.
    pub allocated: u64,
    pub reserved: u64,
}

/// An event as the ring keeps it: the host clock's seconds, converted to
/// PyTorch's microseconds when read.
#[derive(Debug, Clone, Copy)]
struct Kept {
    action: Action,
    stream: StreamId,
    addr: u64,
    size: u64,
    time: f64,
    frame: Frame,
    allocated: u64,
    reserved: u64,
}

impl Kept {
    /// How many of PyTorch's events it stands for.
    fn weight(&self) -> usize {
        match self.action {
            Action::Free => 2,
            _ => 1,
        }
    }
}

/// What a source is called in frames: a cell of the REPL or a notebook by
/// its number (no text of its own), or a script by its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceName {
    Cell(u32),
    File(Arc<str>),
}

impl std::fmt::Display for SourceName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceName::Cell(n) => write!(f, "cell {n}"),
            SourceName::File(name) => f.write_str(name),
        }
    }
}

/// A script or cell that ran, for resolving frames to lines. Its text is
/// shared with the session's input history, so each run keeps only this
/// entry (40 bytes) beyond what the history keeps anyway.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: SourceName,
    pub text: Arc<str>,
}

/// A resolved frame: PyTorch's `filename`, `line`, `name`, and the statement's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub filename: String,
    pub line: u32,
    pub name: &'static str,
    pub statement: String,
}

/// Op names by number (0 is none), and numbers by name.
#[derive(Default)]
struct Ops {
    names: Vec<&'static str>,
    numbers: HashMap<&'static str, u16>,
}

thread_local! {
    /// The frame of a rank's thread, which runs statements of its own.
    static OWN_FRAME: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// While alive, this thread keeps the frame of what it runs apart from the
/// session's (a rank of `spawn`, whose allocations are its statements').
pub struct OwnFrame(());

impl OwnFrame {
    pub fn install() -> OwnFrame {
        OWN_FRAME.with(|own| own.set(Some(0)));
        OwnFrame(())
    }
}

impl Drop for OwnFrame {
    fn drop(&mut self) {
        OWN_FRAME.with(|own| own.set(None));
    }
}

/// What a session's allocators record with.
pub struct Context {
    now: AtomicU64,
    clock: Arc<HostClock>,
    /// The Unix time the host clock's zero is, in microseconds.
    origin_us: u64,
    ops: Mutex<Ops>,
    sources: Mutex<Vec<Source>>,
}

impl Default for Context {
    fn default() -> Self {
        Context::new(Arc::new(HostClock::default()))
    }
}

impl Context {
    pub fn new(clock: Arc<HostClock>) -> Context {
        let origin_us = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_micros() as u64)
            .unwrap_or(0);
        Context {
            now: AtomicU64::new(0),
            clock,
            origin_us,
            ops: Mutex::new(Ops {
                names: vec![""],
                numbers: HashMap::new(),
            }),
            sources: Mutex::new(Vec::new()),
        }
    }

    /// The frame of what runs now (on this thread, when it is a rank's).
    pub fn frame(&self) -> Frame {
        OWN_FRAME.with(|own| match own.get() {
            Some(f) => Frame(f),
            None => Frame(self.now.load(Ordering::Relaxed)),
        })
    }

    fn set_frame(&self, f: Frame) {
        OWN_FRAME.with(|own| match own.get() {
            Some(_) => own.set(Some(f.0)),
            None => self.now.store(f.0, Ordering::Relaxed),
        })
    }

    /// A statement of `source` at byte `offset` starts (its op is none yet).
    /// Only the session's thread calls this and `set_op`, or a rank's
    /// thread for itself (`OwnFrame`).
    pub fn set_statement(&self, source: u32, offset: usize) {
        self.set_frame(Frame::new(source, offset.min(u32::MAX as usize) as u32, 0));
    }

    /// Op `op` (a number from `intern_op`) runs now.
    pub fn set_op(&self, op: u16) {
        self.set_frame(self.frame().with_op(op));
    }

    /// The number of op name `name` (0, none, once the table is full).
    pub fn intern_op(&self, name: &'static str) -> u16 {
        let mut ops = lock(&self.ops);
        if let Some(&i) = ops.numbers.get(name) {
            return i;
        }
        if ops.names.len() >= MAX_OPS {
            return 0;
        }
        let i = ops.names.len() as u16;
        ops.names.push(name);
        ops.numbers.insert(name, i);
        i
    }

    pub fn op_name(&self, op: u16) -> &'static str {
        lock(&self.ops)
            .names
            .get(op as usize)
            .copied()
            .unwrap_or("")
    }

    /// A script or cell about to run: its number for `set_statement`.
    pub fn add_source(&self, name: SourceName, text: Arc<str>) -> u32 {
        let mut s = lock(&self.sources);
        s.push(Source { name, text });
        // Numbers start at 1 (0 is none) and wrap past what a frame holds.
        (s.len() % (1 << SOURCE_BITS)) as u32
    }

    /// The sources that ran, in order (source `n` is `sources()[n - 1]`).
    pub fn sources(&self) -> Vec<Source> {
        lock(&self.sources).clone()
    }

    /// Now on the host's clock (this thread's), in seconds since the
    /// session began.
    fn now(&self) -> f64 {
        crate::runtime::host_clock::on(&self.clock, HostClock::now)
    }

    /// A time on the host's clock in microseconds since the Unix epoch.
    fn time_us(&self, seconds: f64) -> u64 {
        self.origin_us + (seconds * 1e6) as u64
    }
}

/// Resolves frames to places, with each source's line starts computed once.
pub struct Resolver<'a> {
    ctx: &'a Context,
    sources: Vec<Source>,
    lines: Vec<Option<Vec<usize>>>,
}

impl<'a> Resolver<'a> {
    pub fn new(ctx: &'a Context) -> Resolver<'a> {
        let sources = ctx.sources();
        let lines = vec![None; sources.len()];
        Resolver {
            ctx,
            sources,
            lines,
        }
    }

    /// The place of `frame`; None before any statement ran.
    pub fn place(&mut self, frame: Frame) -> Option<Place> {
        let i = (frame.source() as usize).checked_sub(1)?;
        let src = self.sources.get(i)?;
        let starts = self.lines[i].get_or_insert_with(|| {
            std::iter::once(0)
                .chain(src.text.match_indices('\n').map(|(k, _)| k + 1))
                .collect()
        });
        let at = (frame.offset() as usize).min(src.text.len());
        let line = starts.partition_point(|&s| s <= at).max(1);
        let start = starts[line - 1];
        let end = src.text[start..]
            .find('\n')
            .map_or(src.text.len(), |e| start + e);
        Some(Place {
            filename: src.name.to_string(),
            line: line as u32,
            name: self.ctx.op_name(frame.op()),
            statement: src.text[start..end].trim().to_string(),
        })
    }
}

/// A device's recorded events.
pub struct History {
    enabled: bool,
    max_entries: usize,
    kept: VecDeque<Kept>,
    /// PyTorch's events in `kept` (a `Free` is two).
    events: usize,
    /// Events dropped from the front since recording began.
    dropped: u64,
    ctx: Arc<Context>,
}

impl Default for History {
    fn default() -> Self {
        History::new(Arc::new(Context::default()))
    }
}

impl History {
    pub fn new(ctx: Arc<Context>) -> History {
        History {
            enabled: true,
            max_entries: DEFAULT_MAX_ENTRIES,
            kept: VecDeque::new(),
            events: 0,
            dropped: 0,
            ctx,
        }
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    pub fn max_entries(&self) -> usize {
        self.max_entries
    }

    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// `record_memory_history(enabled, max_entries)`: a smaller ring drops
    /// its oldest events at once.
    pub fn configure(&mut self, enabled: bool, max_entries: usize) {
        self.enabled = enabled;
        self.max_entries = max_entries.max(1);
        self.make_room(0);
        if self.kept.capacity() > self.max_entries {
            self.kept.shrink_to(self.max_entries);
        }
    }

    /// Drops the oldest events until `more` fit (of a free, its request
    /// first, when one event is all that must go).
    fn make_room(&mut self, more: usize) {
        while self.events + more > self.max_entries {
            let excess = self.events + more - self.max_entries;
            let Some(front) = self.kept.front_mut() else {
                break;
            };
            if front.action == Action::Free && excess == 1 {
                front.action = Action::FreeCompleted;
                self.events -= 1;
                self.dropped += 1;
                continue;
            }
            let Some(k) = self.kept.pop_front() else {
                break;
            };
            self.events -= k.weight();
            self.dropped += k.weight() as u64;
        }
    }

    /// How many events are kept.
    pub fn len(&self) -> usize {
        self.events
    }

    pub fn is_empty(&self) -> bool {
        self.events == 0
    }

    /// The kept events, oldest first, as PyTorch's trace lists them.
    pub fn entries(&self) -> Vec<Entry> {
        let mut out = Vec::with_capacity(self.events);
        for k in &self.kept {
            let e = Entry {
                action: k.action,
                addr: k.addr,
                size: k.size,
                stream: k.stream,
                time_us: self.ctx.time_us(k.time),
                frame: k.frame,
                allocated: k.allocated,
                reserved: k.reserved,
            };
            match k.action {
                Action::Free => {
                    out.push(Entry {
                        action: Action::FreeRequested,
                        ..e
                    });
                    out.push(Entry {
                        action: Action::FreeCompleted,
                        ..e
                    });
                }
                _ => out.push(e),
            }
        }
        out
    }

    pub fn clear(&mut self) {
        self.kept.clear();
        self.events = 0;
        self.dropped = 0;
    }

    /// The frame of what runs now (a block's or segment's when it is made).
    pub fn frame(&self) -> Frame {
        self.ctx.frame()
    }

    /// Records one event, with the totals just after it.
    pub(super) fn record(
        &mut self,
        action: Action,
        addr: u64,
        size: u64,
        stream: StreamId,
        totals: (u64, u64),
    ) {
        if !self.enabled {
            return;
        }
        let mut k = Kept {
            action,
            stream,
            addr,
            size,
            time: self.ctx.now(),
            frame: self.ctx.frame(),
            allocated: totals.0,
            reserved: totals.1,
        };
        if self.kept.capacity() == 0 {
            // The whole ring at once: growing it by doubling copies it and
            // touches twice the pages (the pages themselves come as written).
            self.kept.reserve_exact(self.max_entries.min(1 << 24));
        }
        if k.weight() > self.max_entries {
            // A ring of one keeps a free's completion alone.
            k.action = Action::FreeCompleted;
        }
        self.make_room(k.weight());
        self.events += k.weight();
        self.kept.push_back(k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_packs_its_statement_and_op() {
        let f = Frame::new(7, 1234, 42);
        assert_eq!((f.source(), f.offset(), f.op()), (7, 1234, 42));
        let g = f.with_op(3);
        assert_eq!((g.source(), g.offset(), g.op()), (7, 1234, 3));
    }

    #[test]
    fn the_ring_keeps_the_newest_entries() {
        let mut h = History::default();
        h.configure(true, 3);
        for i in 0..5 {
            h.record(Action::Alloc, i, 512, 0, (0, 0));
        }
        let addrs: Vec<u64> = h.entries().iter().map(|e| e.addr).collect();
        assert_eq!(addrs, [2, 3, 4]);
        assert_eq!(h.dropped(), 2);
        // A free is two events: it pushes out two.
        h.record(Action::Free, 5, 512, 0, (0, 0));
        let actions: Vec<Action> = h.entries().iter().map(|e| e.action).collect();
        assert_eq!(
            actions,
            [Action::Alloc, Action::FreeRequested, Action::FreeCompleted]
        );
        assert_eq!((h.len(), h.dropped()), (3, 4));
        // One more event drops the oldest; then one more only the free's request.
        h.record(Action::Alloc, 6, 512, 0, (0, 0));
        h.record(Action::Alloc, 7, 512, 0, (0, 0));
        let got: Vec<(Action, u64)> = h.entries().iter().map(|e| (e.action, e.addr)).collect();
        assert_eq!(
            got,
            [
                (Action::FreeCompleted, 5),
                (Action::Alloc, 6),
                (Action::Alloc, 7)
            ]
        );
        assert_eq!((h.len(), h.dropped()), (3, 6));
        h.configure(false, 3);
        h.record(Action::Alloc, 9, 512, 0, (0, 0));
        assert_eq!(h.len(), 3, "nothing is recorded while disabled");
    }

    #[test]
    fn frames_resolve_to_lines_and_ops() {
        let ctx = Context::default();
        let src = ctx.add_source(
            SourceName::File(Arc::from("train.cudash")),
            Arc::from("x = 1\n\ny = x @ w\n"),
        );
        ctx.set_statement(src, 8);
        ctx.set_op(ctx.intern_op("matmul"));
        let place = Resolver::new(&ctx).place(ctx.frame()).unwrap();
        assert_eq!(
            place,
            Place {
                filename: "train.cudash".into(),
                line: 3,
                name: "matmul",
                statement: "y = x @ w".into(),
            }
        );
        assert_eq!(Resolver::new(&ctx).place(Frame::default()), None);
    }
}
