//! What the allocators' history records each event with: the interpreter
//! tells the op layer which script or cell runs (`begin_source`), which
//! statement (`at_statement`) and which op (`begin_op`), and the op layer
//! keeps them in the devices' shared `Context`, one word the allocators read.
//! `record_memory_history` configures every device's ring.

use std::sync::Arc;

use super::Runtime;
use crate::runtime::alloc::history::SourceName;
use crate::runtime::gpu::lock;

/// Slots of the op-number cache (a power of two): op names are static
/// strings, so a slot is keyed by the name's address.
pub(super) const OP_SLOTS: usize = 64;

impl Runtime {
    /// A script or cell named `name` is about to run.
    pub fn begin_source(&mut self, name: SourceName, text: Arc<str>) {
        if self.devices.count() > 0 && self.worker.is_none() {
            self.source = self.devices.history().add_source(name, text);
        }
    }

    /// The statement at byte `offset` of the running source starts.
    pub fn at_statement(&self, offset: usize) {
        // A DataLoader worker's statements allocate nothing on a device.
        if self.devices.count() > 0 && self.worker.is_none() {
            self.devices.history().set_statement(self.source, offset);
        }
    }

    /// Op `op` runs now: the history's frames name it.
    pub(super) fn note_op(&mut self, op: &'static str) {
        if self.devices.count() == 0 || self.worker.is_some() {
            return;
        }
        // Names lie bytes apart in the binary: Fibonacci hashing spreads them.
        let key = op.as_ptr() as usize ^ op.len();
        let hash =
            (key as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - OP_SLOTS.trailing_zeros());
        let slot = &mut self.op_numbers[hash as usize];
        let number = match *slot {
            (k, n) if k == key => n,
            _ => {
                let n = self.devices.history().intern_op(op);
                *slot = (key, n);
                n
            }
        };
        self.devices.history().set_op(number);
    }

    /// `record_memory_history(enabled, max_entries)` on every device.
    pub fn record_memory_history(&self, enabled: bool, max_entries: usize) {
        for d in 0..self.devices.count() {
            if let Some(g) = self.devices.gpu_handle(d) {
                lock(g)
                    .allocator
                    .history_mut()
                    .configure(enabled, max_entries);
            }
        }
    }
}
