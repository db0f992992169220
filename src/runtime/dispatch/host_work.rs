//! The host's own work, in time: an op computed on a CPU tensor, a copy
//! into pinned memory, `sleep`. Where device time is modelled (`sim`,
//! `emu`) it advances the host's modelled clock by its cost on the
//! reference CPU (`spec::HOST`, `timing::host_op`), so device work queued
//! after it starts later and the GPU is seen idle while the host works; on
//! a GPU the host's wall clock has it already. A recorded timeline draws it
//! on the host lane either way (measured on a GPU: from the op's start).

use super::{Flops, Runtime};
use crate::runtime::spec::HOST;
use crate::runtime::timeline::Kind;
use crate::runtime::timing;
use crate::runtime::Tensor;

impl Runtime {
    /// An op whose output `out` is a CPU tensor, computed from `inputs`.
    pub(super) fn host_op(&mut self, inputs: &[&Tensor], out: &Tensor, cost: Flops) {
        let read: usize = inputs.iter().map(|t| t.nbytes()).sum();
        let bytes = (read + out.nbytes()) as u64;
        let elements = out.numel();
        let seconds = timing::host_op(&HOST, bytes, cost.flops, elements, HOST.cores)
            + elements as f64 * cost.host_serial;
        self.host_works(seconds, bytes);
    }

    /// The host works for `seconds` (modelled), `bytes` its traffic.
    pub(super) fn host_works(&mut self, seconds: f64, bytes: u64) {
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
    pub fn sleep(&mut self, seconds: f64) {
        std::thread::sleep(std::time::Duration::from_secs_f64(seconds));
        self.host_works(seconds, 0);
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
}
