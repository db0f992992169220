//! The host's own work, in time: an op computed on a CPU tensor, a copy
//! into pinned memory, `sleep`. Where device time is modelled (`sim`,
//! `emu`) it advances the host's modelled clock by its cost on the
//! reference CPU (`spec::HOST`, `timing::host_op`), so device work queued
//! after it starts later and the GPU is seen idle while the host works; on
//! a GPU the host's wall clock has it already. A recorded timeline draws it
//! on the host lane either way (measured on a GPU: from the op's start).

use std::time::Instant;

use super::{Flops, Runtime};
use crate::runtime::spec::HOST;
use crate::runtime::timeline::{Kind, Lane};
use crate::runtime::timing;
use crate::runtime::Tensor;

impl Runtime {
    /// An op whose output `out` is a CPU tensor, computed from `inputs`.
    pub(super) fn host_op(&mut self, inputs: &[&Tensor], out: &Tensor, cost: Flops) {
        let read: usize = inputs.iter().map(|t| t.nbytes()).sum();
        let bytes = (read + out.nbytes()) as u64;
        let elements = out.numel();
        // A DataLoader worker computes on one thread, as PyTorch sets its workers.
        let threads = match self.worker {
            Some(_) => 1,
            None => HOST.cores,
        };
        let seconds = timing::host_op(&HOST, bytes, cost.flops, elements, threads)
            + elements as f64 * cost.host_serial;
        self.host_works(seconds, bytes);
    }

    /// The host works for `seconds` (modelled), `bytes` its traffic.
    pub(super) fn host_works(&mut self, seconds: f64, bytes: u64) {
        if let Some(w) = &mut self.worker {
            w.seconds += seconds;
            return;
        }
        if self.measures_time() {
            if let Some(m) = &self.measured {
                let (start, end) = (m.op_began(), m.now());
                self.draw_host_work(start, end, bytes);
            }
            return;
        }
        let (start, end) = self.devices.host_work(seconds);
        if self.timeline.is_some() {
            self.draw_host_work(start, end, bytes);
        }
    }

    /// `sleep(s)`: the host does nothing for `seconds` (what a script
    /// writes for CPU work cudash cannot express, such as decoding images).
    /// It really sleeps, on every backend, and the modelled clock advances.
    /// Ctrl-C stops it (the clock then advances by what was slept).
    pub fn sleep(&mut self, seconds: f64) -> Result<(), crate::error::Error> {
        let began = Instant::now();
        let whole = std::time::Duration::from_secs_f64(seconds);
        while let Some(left) = whole.checked_sub(began.elapsed()).filter(|d| !d.is_zero()) {
            if self.interrupted() {
                self.host_works(began.elapsed().as_secs_f64(), 0);
                return Err(crate::error::Error::Interrupted);
            }
            std::thread::sleep(left.min(std::time::Duration::from_millis(20)));
        }
        self.host_works(seconds, 0);
        Ok(())
    }

    /// A segment of host work on the timeline's host lane; one that follows
    /// the last one of the same op without a gap extends it (a loop of CPU
    /// ops draws as one segment per op, not 10⁵ items).
    fn draw_host_work(&mut self, start: f64, end: f64, bytes: u64) {
        let op = self.op;
        let Some(t) = &mut self.timeline else {
            return;
        };
        if t.extend_host_work(op, start, end, bytes) {
            return;
        }
        t.push(0, Kind::HostWork, op, start, end, bytes, None);
    }

    /// Whether the host's time is modelled (`sim`, `emu`) rather than
    /// measured by its wall clock (a GPU).
    pub fn host_modelled(&self) -> bool {
        !self.measures_time()
    }

    /// The host's modelled clock (seconds since the session began).
    pub fn host_now(&self) -> f64 {
        self.devices.host_time()
    }

    /// The main thread works `seconds` (modelled) on `op`'s behalf.
    pub fn host_time(&mut self, op: &'static str, seconds: f64, bytes: u64) {
        self.op = op;
        self.host_works(seconds, bytes);
    }

    /// The host's clock moves to `t` when later, drawn as nothing (the
    /// time a collective's ring starts from).
    pub(super) fn host_wait_until_silent(&mut self, t: f64) {
        self.devices.host_wait_until(t);
    }

    /// The host's clock reads `t` (back where it was, after a collective
    /// run from another rank's time).
    pub(super) fn set_host_time(&mut self, t: f64) {
        self.devices.set_host_time(t);
    }

    /// The main thread waits until `until` on the modelled clock for
    /// another host thread's work (`what`: a DataLoader's next batch).
    pub fn host_wait_until(&mut self, op: &'static str, until: f64, what: &str) {
        let now = self.devices.host_time();
        if until <= now {
            return;
        }
        self.devices.host_wait_until(until);
        if let Some(t) = &mut self.timeline {
            t.push(0, Kind::HostWait, op, now, until, 0, Some(what.into()));
        }
    }

    /// The main thread waited from `began` until now, on the wall clock of
    /// a measured timeline.
    pub fn host_waited(&mut self, op: &'static str, began: Instant, what: &str) {
        let (Some(start), Some(end)) = (
            self.measured_seconds(began),
            self.measured_seconds(Instant::now()),
        ) else {
            return;
        };
        if let Some(t) = &mut self.timeline {
            if end > start {
                t.push(0, Kind::HostWait, op, start, end, 0, Some(what.into()));
            }
        }
    }

    /// Work another host thread did (`lane`: a DataLoader worker or its pin
    /// thread), from `start` to `end` on the timeline's clock (the modelled
    /// one, or seconds from `measured_seconds`).
    pub fn draw_thread_work(
        &mut self,
        lane: Lane,
        name: impl FnOnce() -> String,
        op: &'static str,
        (start, end): (f64, f64),
        bytes: u64,
        detail: Option<std::sync::Arc<str>>,
    ) {
        let Some(t) = &mut self.timeline else {
            return;
        };
        let lane = t.lane(lane, name);
        t.push(lane, Kind::HostWork, op, start, end, bytes, detail);
    }

    /// An instant of the host's wall clock in a measured timeline's seconds.
    pub fn measured_seconds(&self, at: Instant) -> Option<f64> {
        self.measured.as_ref().map(|m| m.seconds_at(at))
    }
}
