//! Streams and events: the order in which a device runs queued work.
//!
//! Each stream numbers the items queued on it (kernels, copies, event records,
//! waits) 1, 2, 3, ...; `issued` is the last number handed out, `done` the
//! last item known to be complete, and `synced` the last one the program has
//! synchronised with (`sync`, a host read, an event's `.sync()` or a query
//! that saw it complete). On the simulator nothing completes on its own: as
//! CUDA allows, queued work counts as still running until a synchronisation
//! point, so `done` is `synced`. On a GPU `done` follows what the driver
//! reports (`Gpu::refresh`), for `pending` and the caching allocator; hazard
//! checks go by `synced` on every backend, so a racy program is reported the
//! same way on every run, however fast the GPU finished the write.
//!
//! `seen` is a vector clock: for every other stream, the last of its items this
//! stream's next item is ordered after (through `wait`). A read on stream R of
//! memory written by item n of stream W is safe when R is W, when W's item n
//! is done, or when R has seen W up to n.
//!
//! Each stream also has a modelled clock: when its last item finishes, in
//! seconds since the session started (see `timing.rs`).

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::alloc::StreamId;
use super::driver::StreamHandle;

/// A stream of some device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamKey {
    pub device: u32,
    pub stream: StreamId,
}

impl StreamKey {
    pub const fn new(device: u32, stream: StreamId) -> StreamKey {
        StreamKey { device, stream }
    }
}

#[derive(Debug, Clone)]
pub struct Stream {
    pub name: Arc<str>,
    /// Made by `stream()` without a name: the first variable it is assigned
    /// to names it (`s = stream()` is `s` in warnings, as the user knows it).
    pub unnamed: bool,
    /// The driver's stream this one is, on `cuda` and `emu` (None: the
    /// default stream, or a simulated device's stream).
    pub handle: Option<StreamHandle>,
    /// The last item queued.
    pub issued: u64,
    /// The last item known complete.
    pub done: u64,
    /// The last item the program has synchronised with (`done` or earlier).
    pub synced: u64,
    /// Modelled time at which the last queued item finishes.
    pub clock: f64,
    /// For each other stream, the last of its items this stream has waited for.
    seen: HashMap<StreamKey, u64>,
    /// Waits queued here: (own item, stream waited for, its item). When this
    /// stream's item completes, the item it waited for is complete too.
    deps: Vec<(u64, StreamKey, u64)>,
}

impl Stream {
    fn new(name: &str, handle: Option<StreamHandle>) -> Stream {
        Stream {
            name: name.into(),
            unnamed: false,
            handle,
            issued: 0,
            done: 0,
            synced: 0,
            clock: 0.0,
            seen: HashMap::new(),
            deps: Vec::new(),
        }
    }

    /// Items queued and not known complete.
    pub fn pending(&self) -> u64 {
        self.issued - self.done
    }

    /// Whether this stream's next item is ordered after item `seq` of `other`.
    pub fn has_seen(&self, other: StreamKey, seq: u64) -> bool {
        self.seen.get(&other).is_some_and(|&k| k >= seq)
    }
}

/// A point in a stream: where an event was recorded, or the tail of a stream
/// that another one waits for.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub stream: StreamKey,
    pub seq: u64,
    /// Modelled time at which the stream reaches this point.
    pub time: f64,
    /// What the stream had waited for by then (so waiting for the mark waits for those too).
    seen: Vec<(StreamKey, u64)>,
}

/// The streams of one device: `default` is stream 0.
#[derive(Debug, Clone)]
pub struct Streams {
    device: u32,
    list: Vec<Stream>,
    /// The stream new work on this device goes to (`stream s { }` changes
    /// it), for each process that set one other than `default` (see
    /// `Process`).
    current: Vec<(u64, StreamId)>,
}

thread_local! {
    /// The process this thread runs as: 0 for the session, a number of its
    /// own for each rank or process it starts.
    static PROCESS: Cell<u64> = const { Cell::new(0) };
}

/// A rank or process started by the session (`spawn`, `mp.Process`): while
/// it lives, the thread it runs on has current streams of its own, each
/// device's `default` at first, as each PyTorch process has. The device's
/// streams, their work and its memory stay shared: one rank's `stream s { }`
/// changes where that rank's work goes, never another's, even when a rank
/// queues work on another rank's device (a message it passes).
pub struct Process {
    outer: u64,
}

impl Process {
    pub fn enter() -> Process {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        Process {
            outer: PROCESS.with(|p| p.replace(id)),
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        PROCESS.with(|p| p.set(self.outer));
    }
}

impl Streams {
    pub fn new(device: u32) -> Streams {
        Streams {
            device,
            list: vec![Stream::new("default", None)],
            current: Vec::new(),
        }
    }

    /// The stream new work on this device goes to, for this thread's process.
    pub fn current(&self) -> StreamId {
        let me = PROCESS.with(Cell::get);
        self.current
            .iter()
            .find(|(p, _)| *p == me)
            .map_or(0, |(_, s)| *s)
    }

    /// Makes `stream` the current one for this thread's process; returns
    /// the one it replaces.
    pub fn set_current(&mut self, stream: StreamId) -> StreamId {
        let me = PROCESS.with(Cell::get);
        let was = self.current();
        self.current.retain(|(p, _)| *p != me);
        if stream != 0 {
            self.current.push((me, stream));
        }
        was
    }

    pub fn key(&self, stream: StreamId) -> StreamKey {
        StreamKey::new(self.device, stream)
    }

    pub fn get(&self, stream: StreamId) -> &Stream {
        &self.list[stream as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = (StreamId, &Stream)> {
        self.list
            .iter()
            .enumerate()
            .map(|(i, s)| (i as StreamId, s))
    }

    pub fn find(&self, name: &str) -> Option<StreamId> {
        self.list
            .iter()
            .position(|s| &*s.name == name)
            .map(|i| i as StreamId)
    }

    /// A new stream named `name`, the driver's `handle` on `cuda` and `emu`.
    pub fn create(&mut self, name: &str, handle: Option<StreamHandle>) -> StreamId {
        self.list.push(Stream::new(name, handle));
        (self.list.len() - 1) as StreamId
    }

    /// Marks `stream` as made without a name (see `Stream::unnamed`).
    pub fn unnamed(&mut self, stream: StreamId) {
        self.list[stream as usize].unnamed = true;
    }

    /// Gives the unnamed `stream` the name `name`, unless a stream of this
    /// device has it already; whether it did.
    pub fn name(&mut self, stream: StreamId, name: &str) -> bool {
        if !self.list[stream as usize].unnamed || self.find(name).is_some() {
            return false;
        }
        let s = &mut self.list[stream as usize];
        s.name = name.into();
        s.unnamed = false;
        true
    }

    /// The driver's stream for `stream` (the default stream when it has none).
    pub fn handle(&self, stream: StreamId) -> StreamHandle {
        self.list[stream as usize]
            .handle
            .unwrap_or(StreamHandle::default_of(self.device))
    }

    /// Queues one item that takes `duration` seconds of device time on `stream`,
    /// issued by the host at `host_time`; returns its number and when it ends.
    pub fn enqueue(&mut self, stream: StreamId, host_time: f64, duration: f64) -> (u64, f64) {
        let s = &mut self.list[stream as usize];
        s.issued += 1;
        s.clock = s.clock.max(host_time) + duration;
        (s.issued, s.clock)
    }

    /// The tail of `stream`, to record an event at or to wait for. Recording is
    /// an item of its own, so that an event completes only when it is reached.
    pub fn mark(&mut self, stream: StreamId, host_time: f64) -> Mark {
        let (seq, time) = self.enqueue(stream, host_time, 0.0);
        let s = &self.list[stream as usize];
        Mark {
            stream: self.key(stream),
            seq,
            time,
            seen: s.seen.iter().map(|(k, v)| (*k, *v)).collect(),
        }
    }

    /// Queues on `stream` a wait for `mark` (which may be on another device).
    pub fn wait(&mut self, stream: StreamId, mark: &Mark, host_time: f64) {
        let (seq, _) = self.enqueue(stream, host_time, 0.0);
        let key = self.key(stream);
        let s = &mut self.list[stream as usize];
        s.clock = s.clock.max(mark.time);
        for &(k, v) in mark.seen.iter().chain([(mark.stream, mark.seq)].iter()) {
            if k != key {
                let e = s.seen.entry(k).or_insert(0);
                *e = (*e).max(v);
            }
        }
        if mark.stream != key {
            s.deps.push((seq, mark.stream, mark.seq));
        }
    }

    /// Records that the program has synchronised with `stream` up to item
    /// `seq`. Returns the items of streams (here or on other devices) that
    /// are therefore complete too.
    pub fn complete(&mut self, stream: StreamId, seq: u64) -> Vec<(StreamKey, u64)> {
        let mut follow = Vec::new();
        let mut work = vec![(stream, seq)];
        while let Some((st, seq)) = work.pop() {
            let s = &mut self.list[st as usize];
            let seq = seq.min(s.issued);
            if seq <= s.synced {
                continue;
            }
            s.synced = seq;
            s.done = s.done.max(seq);
            let mut i = 0;
            while i < s.deps.len() {
                let (own, target, k) = s.deps[i];
                if own <= seq {
                    s.deps.swap_remove(i);
                    if target.device == self.device {
                        work.push((target.stream, k));
                    } else {
                        follow.push((target, k));
                    }
                } else {
                    i += 1;
                }
            }
        }
        follow
    }

    /// The driver reports `stream` idle (a GPU): everything it queued has
    /// run, though the program has not synchronised with it.
    pub fn observe_idle(&mut self, stream: StreamId) {
        let s = &mut self.list[stream as usize];
        s.done = s.issued;
    }

    /// Everything queued on `stream` completes; returns the finishing time and
    /// the items of other devices' streams that completed with it.
    pub fn drain(&mut self, stream: StreamId) -> (f64, Vec<(StreamKey, u64)>) {
        let s = &self.list[stream as usize];
        let (issued, clock) = (s.issued, s.clock);
        (clock, self.complete(stream, issued))
    }

    /// Whether `reader`'s next item is ordered after item `seq` of `writer`,
    /// both of this device: the same stream, an item synchronised with, or a wait.
    pub fn ordered_after(&self, reader: StreamId, writer: StreamId, seq: u64) -> bool {
        reader == writer
            || self.list[writer as usize].synced >= seq
            || self.list[reader as usize].has_seen(self.key(writer), seq)
    }

    /// Total items queued and not complete.
    pub fn pending(&self) -> u64 {
        self.list.iter().map(Stream::pending).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_completes_until_drained() {
        let mut s = Streams::new(0);
        let side = s.create("s", None);
        let (seq, _) = s.enqueue(0, 0.0, 1e-6);
        assert!(!s.ordered_after(side, 0, seq));
        assert_eq!(s.get(0).pending(), 1);
        s.drain(0);
        assert!(s.ordered_after(side, 0, seq));
        assert_eq!(s.pending(), 0);
    }

    #[test]
    fn work_a_gpu_finished_is_not_ordered_until_the_program_syncs() {
        let mut s = Streams::new(0);
        let side = s.create("s", None);
        let (seq, _) = s.enqueue(0, 0.0, 1e-6);
        s.observe_idle(0);
        // Nothing pending any more, but the side stream is not ordered after
        // the write: the program has not synchronised with it.
        assert_eq!(s.pending(), 0);
        assert!(!s.ordered_after(side, 0, seq));
        s.complete(0, seq);
        assert!(s.ordered_after(side, 0, seq));
    }

    #[test]
    fn a_wait_orders_the_waiter_after_the_mark_and_transitively() {
        let mut s = Streams::new(0);
        let a = s.create("a", None);
        let b = s.create("b", None);
        let (seq, _) = s.enqueue(0, 0.0, 1e-6);
        let m = s.mark(0, 0.0);
        s.wait(a, &m, 0.0);
        assert!(s.ordered_after(a, 0, seq));
        assert!(!s.ordered_after(b, 0, seq));
        let ma = s.mark(a, 0.0);
        s.wait(b, &ma, 0.0);
        assert!(
            s.ordered_after(b, 0, seq),
            "b waited for a, which waited for default"
        );
    }

    #[test]
    fn completing_a_waiter_completes_what_it_waited_for() {
        let mut s = Streams::new(0);
        let a = s.create("a", None);
        s.enqueue(0, 0.0, 1e-3);
        let m = s.mark(0, 0.0);
        s.wait(a, &m, 0.0);
        s.enqueue(a, 0.0, 1e-3);
        assert_eq!(s.get(0).done, 0);
        s.drain(a);
        assert_eq!(s.get(0).done, 2);
        assert!(
            (s.get(a).clock - 2e-3).abs() < 1e-12,
            "a ran after default's 1 ms"
        );
    }
}
