//! `:watch`: a line whenever a stream's queued work finishes while the user
//! types. Only a GPU finishes work by itself; the simulator and `emu`
//! complete queued work at sync points, so there is nothing to watch there.

use std::collections::HashMap;
use std::sync::Arc;

use crate::runtime::devices::Devices;

/// Watches every device's streams; `poll` from any thread.
pub struct StreamWatcher {
    devices: Arc<Devices>,
    /// Streams with pending work at the last poll: (device, name) to items.
    busy: HashMap<(u32, Arc<str>), u64>,
}

impl StreamWatcher {
    /// A watcher of `devices`, when their driver reports completion (a GPU).
    pub fn new(devices: Arc<Devices>) -> Option<StreamWatcher> {
        let asks = (0..devices.count()).any(|d| devices.gpu(d).is_some_and(|g| g.asks_driver()));
        asks.then(|| StreamWatcher {
            devices,
            busy: HashMap::new(),
        })
    }

    /// Lines for the streams whose queued work finished since the last poll.
    pub fn poll(&mut self) -> Vec<String> {
        let mut now = HashMap::new();
        for d in 0..self.devices.count() {
            if let Some(mut gpu) = self.devices.gpu(d) {
                for (name, pending) in gpu.busy_streams() {
                    now.insert((d, name), pending);
                }
            }
        }
        let mut lines: Vec<String> = self
            .busy
            .iter()
            .filter(|(k, _)| !now.contains_key(*k))
            .map(|((d, name), n)| {
                format!(
                    "cuda:{d} stream `{name}` drained ({n} item{} done)",
                    if *n == 1 { "" } else { "s" }
                )
            })
            .collect();
        lines.sort();
        self.busy = now;
        lines
    }
}
