//! `profile`'s timeline on a GPU: times measured, not modelled.
//!
//! - At the start, the host waits for each device's current stream (on the
//!   legacy default stream that is every blocking stream's work too), then
//!   records an anchor there: a timing event on an idle stream completes as
//!   the host records it, so its time on the device's clock is a known
//!   moment of the host's wall clock.
//! - Each item's end is a timing event recorded on its stream right after
//!   the item was queued; the event completes when the item's work does.
//! - An item starts when both its stream had finished the item before it and
//!   the host had begun the op that queued it: the later of the two. (The
//!   GPU starts a kernel within microseconds of both.)
//! - The host's syncs are timed with the host's wall clock.
//!
//! The times are known once the work has run: `timeline_end` waits for the
//! last event of each stream, then reads them all. On `emu` presented as a
//! GPU (`Emu::like_a_gpu`) the same code runs in the tests, its events
//! stamped with the host's clock.

use std::collections::HashMap;
use std::time::Instant;

use super::device::driver_error;
use super::Runtime;
use crate::error::Error;
use crate::runtime::event::DriverEvent;
use crate::runtime::stream::StreamKey;
use crate::runtime::timeline::Timeline;

/// What a measured timeline keeps until its times are read.
pub(super) struct Measured {
    /// The host's wall clock at the timeline's zero.
    origin: Instant,
    /// Per device: its anchor event, complete at this many seconds.
    anchors: Vec<(DriverEvent, f64)>,
    /// When the op running now began on the host (seconds).
    op_began: f64,
    /// The items whose end events are not read yet.
    pending: Vec<Pending>,
}

struct Pending {
    /// The item's index in the timeline.
    item: usize,
    key: StreamKey,
    /// Seconds: when its op began on the host.
    began: f64,
    end: Option<DriverEvent>,
}

impl Measured {
    /// Seconds since the timeline's zero, on the host's wall clock.
    pub(super) fn now(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }

    /// An instant of the host's wall clock, in seconds since the zero.
    pub(super) fn seconds_at(&self, at: Instant) -> f64 {
        at.saturating_duration_since(self.origin).as_secs_f64()
    }

    /// When the op running now began (seconds since the timeline's zero).
    pub(super) fn op_began(&self) -> f64 {
        self.op_began
    }
}

impl Runtime {
    /// A measured timeline's anchors, one per device, each recorded on its
    /// current stream once the host has waited for it (that wait is not one
    /// of the block's host syncs), so each completes as the host records it.
    pub(super) fn measure_start(&self) -> Result<Measured, Error> {
        let count = self.devices.count();
        for d in 0..count {
            if let Some(before) = self.driver_event(self.stream_on(d))? {
                before
                    .driver
                    .event_synchronize(before.handle)
                    .map_err(|e| driver_error(d, e))?;
            }
        }
        let origin = Instant::now();
        let mut anchors = Vec::new();
        for d in 0..count {
            let recording = origin.elapsed().as_secs_f64();
            let Some(event) = self.driver_event(self.stream_on(d))? else {
                continue;
            };
            let at = (recording + origin.elapsed().as_secs_f64()) / 2.0;
            anchors.push((event, at));
        }
        Ok(Measured {
            origin,
            anchors,
            op_began: 0.0,
            pending: Vec::new(),
        })
    }

    /// The interpreter is about to run `op`: it labels the work queued next,
    /// and (measured) that work cannot start before now.
    pub fn begin_op(&mut self, op: &'static str) {
        self.begin(op, false);
    }

    /// Before a call of Python's own (`len`, `append`): as `begin_op`, and
    /// `torch.profiler` lists no row for it.
    pub fn begin_python_op(&mut self, op: &'static str) {
        self.begin(op, true);
    }

    fn begin(&mut self, op: &'static str, python: bool) {
        self.op = op;
        self.note_op(op);
        if let Some(m) = &mut self.measured {
            m.op_began = m.now();
        }
        if self.timeline.is_some() {
            let at = self.timeline_clock();
            if let Some(t) = &mut self.timeline {
                t.op_began(op, at, python);
            }
        }
    }

    /// Item `item` of the timeline was just queued on `key`: its end event.
    pub(super) fn measure_item(&mut self, item: usize, key: StreamKey) {
        // An event the driver refuses leaves the item at its op's start.
        let end = self.driver_event(key).ok().flatten();
        if let Some(m) = &mut self.measured {
            let began = m.op_began;
            m.pending.push(Pending {
                item,
                key,
                began,
                end,
            });
        }
    }

    /// Reads the times of every item of `t`, once their work has run.
    pub(super) fn measure_end(&self, m: Measured, t: &mut Timeline) -> Result<(), Error> {
        // Waiting for each stream's last event waits for all of its items.
        let mut last: HashMap<StreamKey, &DriverEvent> = HashMap::new();
        for p in &m.pending {
            if let Some(e) = &p.end {
                last.insert(p.key, e);
            }
        }
        for (key, e) in last {
            e.driver
                .event_synchronize(e.handle)
                .map_err(|err| driver_error(key.device, err))?;
        }
        let mut free_at: HashMap<StreamKey, f64> = HashMap::new();
        for p in &m.pending {
            let anchor = m.anchors.get(p.key.device as usize);
            let end = match (anchor, &p.end) {
                (Some((a, at)), Some(e)) => {
                    let ms = e
                        .driver
                        .event_elapsed(a.handle, e.handle)
                        .map_err(|err| driver_error(p.key.device, err))?;
                    at + f64::from(ms) / 1e3
                }
                _ => p.began,
            };
            let free = free_at.get(&p.key).copied().unwrap_or(0.0);
            let start = p.began.max(free).min(end);
            t.retime(p.item, start, end);
            free_at.insert(p.key, end.max(free));
        }
        Ok(())
    }
}
