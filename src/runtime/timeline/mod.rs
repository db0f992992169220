//! What `profile { }` saw, in time: every kernel and copy as a segment on
//! its (device, stream) lane, and the host's syncs on the host lane. On the
//! simulator and `emu` the times are the model's (`timing.rs`; the same on
//! every run); on a GPU they are measured (`dispatch/measured.rs`) and known
//! only once the work has run. `profile "run.json" { }` also writes each item
//! to a Chrome trace (`trace.rs`): as it is recorded when modelled, at the
//! end when measured. `item.rs` holds what is recorded.

use std::sync::Arc;

mod item;
pub mod trace;

pub use item::{Item, Kind, Lane, STAGING};
use trace::TraceWriter;

use super::shape::fmt_shape;
use super::DType;

/// The CUDA call that queued an item, as `torch.profiler` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCall {
    Kernel,
    Copy,
    /// A CUDA graph's replay: one call for all of its kernels.
    Graph,
}

impl HostCall {
    pub fn name(self) -> &'static str {
        match self {
            HostCall::Kernel => "cudaLaunchKernel",
            HostCall::Copy => "cudaMemcpyAsync",
            HostCall::Graph => "cudaGraphLaunch",
        }
    }
}

/// The timeline of one `profile` block.
pub struct Timeline {
    /// The lanes in order of first use, with their names (`host`,
    /// `cuda:0 default`).
    pub lanes: Vec<(Lane, String)>,
    pub items: Vec<Item>,
    /// Host syncs, as instants (seconds since the start), with what they waited for.
    pub syncs: Vec<(f64, &'static str)>,
    /// The modelled host clock when the profile began.
    origin: f64,
    /// When the profile ended, or its last item if later (set by `close`).
    pub end: f64,
    /// The host clock when the profile ended (set by `close`).
    pub host_end: f64,
    /// Times measured on a GPU (set by `retime` at the end), not modelled.
    pub measured: bool,
    trace: Option<TraceWriter>,
    last_shape: Option<(DType, Vec<usize>, Arc<str>)>,
    /// The host lane's last launch item, extended by the next launch when
    /// that one follows it without a gap.
    last_launch: Option<usize>,
    /// Each op the host began (`begin_op`), when (seconds since the
    /// start), and whether it is Python's own (`len`, a list's `append`),
    /// not PyTorch's: an op runs until the next begins (`torch.profiler`'s
    /// rows).
    pub ops: Vec<(&'static str, f64, bool)>,
    /// The program's labelled ranges (`torch.profiler.record_function`):
    /// name, start and end (seconds since the start; open ones end at the
    /// timeline's end).
    pub ranges: Vec<(String, f64, Option<f64>)>,
    /// Every launch an item of its own, named by the runtime call it is
    /// (`cudaLaunchKernel`, `cudaMemcpyAsync`), as `torch.profiler` counts
    /// them.
    pub each_launch: bool,
}

impl Timeline {
    /// A timeline starting at host time `origin`, streaming to `trace` when
    /// given. A `measured` one gets its items' times at the end (`retime`),
    /// and writes them to the trace then.
    pub fn new(origin: f64, trace: Option<TraceWriter>, measured: bool) -> Timeline {
        let mut t = Timeline {
            lanes: Vec::new(),
            items: Vec::new(),
            syncs: Vec::new(),
            origin,
            end: 0.0,
            host_end: 0.0,
            measured,
            trace,
            last_shape: None,
            last_launch: None,
            ops: Vec::new(),
            ranges: Vec::new(),
            each_launch: false,
        };
        t.lane(Lane::Host, || "host".into());
        t
    }

    /// The modelled host clock when the profile began.
    pub fn origin(&self) -> f64 {
        self.origin
    }

    /// Takes in what another host recorded from the same origin (a rank
    /// of `spawn`): its host lane's items on lane `host`, named `name`,
    /// its streams' items on theirs.
    pub fn absorb(&mut self, other: Timeline, host: Lane, name: &str) {
        for item in other.items {
            let (lane, lane_name) = &other.lanes[item.lane];
            let (lane, lane_name) = match lane {
                Lane::Host => (host, name.to_string()),
                l => (*l, lane_name.clone()),
            };
            let at = self.lane(lane, || lane_name);
            let o = self.origin;
            self.push(
                at,
                item.kind,
                item.op,
                item.start + o,
                item.end + o,
                item.bytes,
                item.detail,
            );
        }
    }

    /// Whether `lane` has had an item.
    pub fn has_lane(&self, lane: Lane) -> bool {
        self.lanes.iter().any(|(l, _)| *l == lane)
    }

    /// `f32[1024, 1024]`, shared with the last item of that dtype and shape
    /// (a loop's items all have one).
    pub fn shape_label(&mut self, dtype: DType, shape: &[usize]) -> Arc<str> {
        if let Some((d, s, label)) = &self.last_shape {
            if *d == dtype && s.as_slice() == shape {
                return Arc::clone(label);
            }
        }
        let label: Arc<str> = Arc::from(format!("{dtype}{}", fmt_shape(shape)));
        self.last_shape = Some((dtype, shape.to_vec(), Arc::clone(&label)));
        label
    }

    /// The index of `lane`, added (named by `name`) on first use.
    pub fn lane(&mut self, lane: Lane, name: impl FnOnce() -> String) -> usize {
        if let Some(i) = self.lanes.iter().position(|(l, _)| *l == lane) {
            return i;
        }
        let name = name();
        if let Some(w) = &mut self.trace {
            w.lane(lane, &name);
        }
        self.lanes.push((lane, name));
        self.lanes.len() - 1
    }

    /// Records an item that ran from host-clock `start` to `end`.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        lane: usize,
        kind: Kind,
        op: &'static str,
        start: f64,
        end: f64,
        bytes: u64,
        detail: Option<Arc<str>>,
    ) {
        let item = Item {
            lane,
            kind,
            op,
            start: (start - self.origin).max(0.0),
            end: (end - self.origin).max(0.0),
            bytes,
            detail,
        };
        if let (Some(w), false) = (&mut self.trace, self.measured) {
            w.item(self.lanes[lane].0, &item);
        }
        self.items.push(item);
    }

    /// Extends the last item when it is the main thread's host work of
    /// `op` that ends where this work (from host-clock `start` to `end`)
    /// begins; false otherwise.
    pub fn extend_host_work(&mut self, op: &'static str, start: f64, end: f64, bytes: u64) -> bool {
        let (start, end) = ((start - self.origin).max(0.0), (end - self.origin).max(0.0));
        let Some(last) = self.items.last_mut() else {
            return false;
        };
        // The main thread's lane only: other host threads' work is theirs.
        let follows = last.lane == 0
            && last.kind == Kind::HostWork
            && last.op == op
            && (start - last.end).abs() < 1e-9;
        // A trace being written has the last item already.
        if !follows || (self.trace.is_some() && !self.measured) {
            return false;
        }
        last.end = end;
        last.bytes += bytes;
        true
    }

    /// The host issued device work for `op` from host-clock `start` to
    /// `end`: one item per run of launches without a gap between them
    /// (named `launches` when the run is of several ops), or one per launch
    /// while a trace is written (Perfetto shows each, as PyTorch's traces
    /// show each `cudaLaunchKernel`).
    pub fn launch(&mut self, op: &'static str, start: f64, end: f64, call: HostCall) {
        let (s, e) = ((start - self.origin).max(0.0), (end - self.origin).max(0.0));
        if self.each_launch {
            self.push(0, Kind::Launch, op, start, end, 0, Some(call.name().into()));
            return;
        }
        let streaming = self.trace.is_some() && !self.measured;
        if let Some(last) = self.last_launch.map(|k| &mut self.items[k]) {
            if !streaming && (s - last.end).abs() < 1e-12 {
                last.end = e;
                if last.op != op {
                    last.op = "launches";
                }
                return;
            }
        }
        self.last_launch = Some(self.items.len());
        self.push(0, Kind::Launch, op, start, end, 0, None);
    }

    /// The host began `op` (Python's own when `python`) at host-clock `at`.
    pub fn op_began(&mut self, op: &'static str, at: f64, python: bool) {
        self.ops.push((op, (at - self.origin).max(0.0), python));
    }

    /// A labelled range begins at host-clock `at`; its number.
    pub fn range_began(&mut self, name: String, at: f64) -> usize {
        self.ranges.push((name, (at - self.origin).max(0.0), None));
        self.ranges.len() - 1
    }

    /// Range `k` ends at host-clock `at`.
    pub fn range_ended(&mut self, k: usize, at: f64) {
        let at = (at - self.origin).max(0.0);
        if let Some(r) = self.ranges.get_mut(k) {
            r.2 = Some(at);
        }
    }

    /// The whole timeline as a Chrome trace in `path` (after it ended),
    /// with the host syncs as instants when `syncs`.
    pub fn write_trace(&self, path: &std::path::Path, syncs: bool) -> std::io::Result<()> {
        let mut w = TraceWriter::create(path)?;
        for (lane, name) in &self.lanes {
            w.lane(*lane, name);
        }
        for item in &self.items {
            w.item(self.lanes[item.lane].0, item);
        }
        for (at, op) in self.syncs.iter().filter(|_| syncs) {
            w.instant(op, *at);
        }
        w.finish()
    }

    /// The measured times of item `index` (seconds since the start).
    pub fn retime(&mut self, index: usize, start: f64, end: f64) {
        let item = &mut self.items[index];
        item.start = start.max(0.0);
        item.end = end.max(item.start);
    }

    /// A host sync at host-clock `at`, by `op`.
    pub fn sync(&mut self, op: &'static str, at: f64) {
        let at = (at - self.origin).max(0.0);
        if let Some(w) = &mut self.trace {
            w.instant(op, at);
        }
        self.syncs.push((at, op));
    }

    /// Ends the timeline at host-clock `end` (items still running end
    /// later); finishes the trace file, writing a measured timeline's items
    /// to it now. Returns the file's error, if any.
    pub fn close(&mut self, end: f64) -> std::io::Result<()> {
        let last = self.items.iter().map(|i| i.end).fold(0.0, f64::max);
        self.host_end = (end - self.origin).max(0.0);
        self.end = self.host_end.max(last);
        let Some(mut w) = self.trace.take() else {
            return Ok(());
        };
        if self.measured {
            for item in &self.items {
                w.item(self.lanes[item.lane].0, item);
            }
        }
        w.finish()
    }
}
