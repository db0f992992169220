//! `profile`'s timeline: `Runtime::issue` records each kernel and copy with
//! the times the stream model gives it, and the host syncs record how long
//! the host waited (`runtime/timeline.rs`). On a GPU the times are measured
//! instead (`measured.rs`).

use super::Runtime;
use crate::error::Error;
use crate::runtime::gpu::Queued;
use crate::runtime::stream::StreamKey;
use crate::runtime::timeline::trace::TraceWriter;
use crate::runtime::timeline::{HostCall, Kind, Lane, Timeline};
use crate::runtime::timing::{CopyPath, Work};
use crate::runtime::{Device, Tensor};

/// When a launch began on the timeline's clock, and whether the device
/// launches blocking.
#[derive(Clone, Copy)]
pub(super) struct LaunchBegan {
    pub at: f64,
    pub blocking: bool,
}

impl Runtime {
    /// Starts recording a timeline (and writing it to `trace`): measured
    /// on a GPU, modelled elsewhere.
    pub fn timeline_start(&mut self, trace: Option<TraceWriter>) -> Result<(), Error> {
        self.measured = match self.measures_time() {
            true => Some(self.measure_start()?),
            false => None,
        };
        let measured = self.measured.is_some();
        let origin = match measured {
            true => 0.0,
            false => self.devices.host_time(),
        };
        let mut t = Timeline::new(origin, trace, measured);
        if !measured {
            self.draw_work_before(&mut t, origin);
        }
        self.timeline = Some(t);
        Ok(())
    }

    /// Each stream still busy with work queued before `origin`, drawn from
    /// the start to when that work ends: what the device time waits for.
    fn draw_work_before(&self, t: &mut Timeline, origin: f64) {
        for d in self.profiled_devices() {
            let busy: Vec<(StreamKey, f64)> = match self.devices.gpu(d) {
                Some(gpu) => gpu
                    .streams
                    .iter()
                    .filter(|(_, s)| s.clock > origin)
                    .map(|(id, s)| (gpu.streams.key(id), s.clock))
                    .collect(),
                None => Vec::new(),
            };
            for (key, until) in busy {
                let name = format!("cuda:{d} {}", self.stream_ref(key).name);
                let lane = t.lane(Lane::Stream(key), || name);
                t.push(lane, Kind::Before, "before", origin, until, 0, None);
            }
        }
    }

    /// Stops recording: the timeline ends now, on the host's clock (before
    /// the profile's final wait; items still running end later). A measured
    /// timeline reads its times first, which waits for its work. A trace
    /// file that could not be written gives its error with the timeline.
    pub fn timeline_end(&mut self) -> Result<Option<(Timeline, std::io::Result<()>)>, Error> {
        let end = self.timeline_clock();
        let Some(mut t) = self.timeline.take() else {
            return Ok(None);
        };
        if let Some(m) = self.measured.take() {
            self.measure_end(m, &mut t)?;
        }
        let r = t.close(end);
        Ok(Some((t, r)))
    }

    /// The timeline's clock: the host's wall clock since the start when
    /// measured, else the modelled host clock.
    pub(super) fn timeline_clock(&self) -> f64 {
        match &self.measured {
            Some(m) => m.now(),
            None => self.devices.host_time(),
        }
    }

    /// Where a rank's own timeline starts when the session records one on
    /// the model (none when it records none, or measures it on a GPU).
    pub fn timeline_origin(&self) -> Option<f64> {
        self.timeline
            .as_ref()
            .filter(|t| !t.measured)
            .map(Timeline::origin)
    }

    /// Records a timeline of this runtime's own from `origin` (a rank's,
    /// taken in by the session's at the end: `absorb_timeline`).
    pub fn follow_timeline(&mut self, origin: f64) {
        self.timeline = Some(Timeline::new(origin, None, false));
    }

    /// The timeline recorded so far, ended.
    pub fn take_timeline(&mut self) -> Option<Timeline> {
        self.timeline.take()
    }

    /// Takes in a rank's timeline: its host lane as `lane`, named `name`.
    pub fn absorb_timeline(&mut self, t: Timeline, lane: Lane, name: &str) {
        if let Some(mine) = &mut self.timeline {
            mine.absorb(t, lane, name);
        }
    }

    /// `record_function(name)` begins: the range's number, None when no
    /// timeline is recorded.
    pub fn timeline_range_begin(&mut self, name: String) -> Option<usize> {
        let at = self.timeline_clock();
        self.timeline.as_mut().map(|t| t.range_began(name, at))
    }

    /// Range `k` of the timeline ends now.
    pub fn timeline_range_end(&mut self, k: usize) {
        let at = self.timeline_clock();
        if let Some(t) = &mut self.timeline {
            t.range_ended(k, at);
        }
    }

    /// `torch.profiler`'s timeline: each launch an item of its own.
    pub fn timeline_each_launch(&mut self) {
        if let Some(t) = &mut self.timeline {
            t.each_launch = true;
        }
    }

    /// Whether a timeline is being recorded.
    pub fn recording(&self) -> bool {
        self.timeline.is_some()
    }

    pub(super) fn record_item(&mut self, d: u32, work: Work, q: Queued, out: Option<&Tensor>) {
        let key = StreamKey::new(d, q.stream);
        let lane = Lane::Stream(key);
        let name = match self.timeline.as_ref().is_some_and(|t| t.has_lane(lane)) {
            true => String::new(),
            false => format!("cuda:{d} {}", self.stream_ref(key).name),
        };
        let op = self.op;
        let Some(t) = &mut self.timeline else {
            return;
        };
        let lane = t.lane(lane, || name);
        let (kind, bytes) = match work {
            Work::Kernel { .. } => (Kind::Kernel, out.map_or(0, |o| o.nbytes() as u64)),
            Work::Copy { bytes, path } => {
                let dir = match (path, out.map(Tensor::device)) {
                    (CopyPath::Peer, _) => "D2D",
                    (_, Some(Device::Cuda(_))) => "H2D",
                    _ => "D2H",
                };
                (Kind::Copy(dir), bytes)
            }
        };
        let detail = out.map(|o| t.shape_label(o.dtype(), o.shape()));
        t.push(lane, kind, op, q.start, q.end, bytes, detail);
        if self.measured.is_some() {
            let index = t.items.len() - 1;
            self.measure_item(index, key);
        }
    }

    /// When a launch on device `d` begins, while a timeline is recorded
    /// (and whether the device launches blocking: `CUDA_LAUNCH_BLOCKING=1`).
    pub(super) fn launch_began(&self, d: u32) -> Option<LaunchBegan> {
        self.timeline.as_ref()?;
        Some(LaunchBegan {
            at: self.timeline_clock(),
            blocking: self.devices.gpu(d).is_some_and(|g| g.launch_blocking),
        })
    }

    /// The launch of `work` (item `q`), which began at `began`, on the
    /// host lane: until the host had issued it (a blocking launch's wait
    /// for the item is drawn apart, by `record_blocking_launch`).
    pub(super) fn record_launch(&mut self, began: LaunchBegan, q: Queued, call: HostCall) {
        let mut end = self.timeline_clock();
        if began.blocking {
            if self.measured.is_some() {
                return; // measured, the wait drawn from `began` covers it
            }
            // Modelled, the host issued the item when it started.
            end = end.min(q.start.max(began.at));
        }
        let op = self.op;
        if let Some(t) = &mut self.timeline {
            if end > began.at {
                t.launch(op, began.at, end, call);
            }
        }
    }

    /// After a blocking launch that began at `before`: the host waited in
    /// it until the item `q` was done, drawn on the host lane as a wait
    /// (not a sync: no `synchronize` was called, and none is counted).
    pub(super) fn record_blocking_launch(&mut self, before: f64, work: Work, q: Queued) {
        let after = self.timeline_clock();
        // Modelled, the host issued the item when it started (its stream
        // was idle: every earlier item was waited for).
        let from = match self.measured {
            Some(_) => before,
            None => q.start.max(before),
        };
        let op = self.op;
        let Some(t) = &mut self.timeline else {
            return;
        };
        if after > from {
            let what = match work {
                Work::Kernel { .. } => "its kernel (launch blocking)",
                Work::Copy { .. } => "its copy (launch blocking)",
            };
            t.push(0, Kind::HostWait, op, from, after, 0, Some(what.into()));
        }
    }

    /// The host time a sync begins at, while a timeline is recorded (the
    /// host clock's lock is not taken otherwise).
    pub(super) fn sync_began(&self) -> Option<f64> {
        self.timeline.as_ref().map(|_| self.timeline_clock())
    }

    /// After a host sync that began at `before` (from `sync_began`): an
    /// instant, and the wait as a segment on the host lane when the host had
    /// to wait.
    pub(super) fn record_wait(&mut self, before: Option<f64>, waited_for: impl FnOnce() -> String) {
        let Some(before) = before else {
            return;
        };
        let after = self.timeline_clock();
        let op = self.op;
        let Some(t) = &mut self.timeline else {
            return;
        };
        t.sync(op, before);
        if after > before {
            t.push(
                0,
                Kind::HostWait,
                op,
                before,
                after,
                0,
                Some(waited_for().into()),
            );
        }
    }
}
