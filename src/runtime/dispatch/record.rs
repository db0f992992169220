//! `profile`'s timeline: `Runtime::issue` records each kernel and copy with
//! the times the stream model gives it, and the host syncs record how long
//! the host waited (`runtime/timeline.rs`).

use super::Runtime;
use crate::runtime::gpu::Queued;
use crate::runtime::stream::StreamKey;
use crate::runtime::timeline::trace::TraceWriter;
use crate::runtime::timeline::{Kind, Lane, Timeline};
use crate::runtime::timing::{CopyPath, Work};
use crate::runtime::{Device, Tensor};

impl Runtime {
    /// Starts recording a timeline (and streaming it to `trace`).
    pub fn timeline_start(&mut self, trace: Option<TraceWriter>) {
        let origin = self.devices.host_time();
        self.timeline = Some(Timeline::new(origin, trace));
    }

    /// Stops recording: the timeline ends when the host clock says (after
    /// the profile's final wait). A trace file that could not be written
    /// gives its error with the timeline.
    pub fn timeline_end(&mut self) -> Option<(Timeline, std::io::Result<()>)> {
        let mut t = self.timeline.take()?;
        let r = t.close(self.devices.host_time());
        Some((t, r))
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
    }

    /// The host time a sync begins at, while a timeline is recorded (the
    /// host clock's lock is not taken otherwise).
    pub(super) fn sync_began(&self) -> Option<f64> {
        self.timeline.as_ref().map(|_| self.devices.host_time())
    }

    /// After a host sync that began at `before` (from `sync_began`): an
    /// instant, and the wait as a segment on the host lane when the host had
    /// to wait.
    pub(super) fn record_wait(&mut self, before: Option<f64>, waited_for: impl FnOnce() -> String) {
        let Some(before) = before else {
            return;
        };
        let after = self.devices.host_time();
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
