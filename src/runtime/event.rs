//! Streams and events as values a program holds: handles onto a device's state.

use std::sync::{Arc, Mutex};

use super::driver::{Driver, EventHandle};
use super::gpu::{lock, Gpu};
use super::stream::{Mark, StreamKey};

/// A stream of some device (`s`, `default`).
#[derive(Clone)]
pub struct StreamRef {
    pub key: StreamKey,
    pub name: Arc<str>,
    pub gpu: Arc<Mutex<Gpu>>,
}

impl StreamRef {
    /// Items queued on it and not known complete.
    pub fn pending(&self) -> u64 {
        let mut gpu = lock(&self.gpu);
        gpu.refresh();
        gpu.streams.get(self.key.stream).pending()
    }

    /// `<stream s @cuda:0: 2 pending>`
    pub fn describe(&self) -> String {
        format!(
            "<stream {} @cuda:{}: {} pending>",
            self.name,
            self.key.device,
            self.pending()
        )
    }
}

impl std::fmt::Debug for StreamRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StreamRef({:?}, {})", self.key, self.name)
    }
}

/// A CUDA event: a point recorded in a stream.
#[derive(Default)]
pub struct Event {
    recorded: Mutex<Option<Recorded>>,
    /// Made to measure time (`enable_timing=True`): only such events
    /// give `elapsed_time`, as CUDA's (`cudaEventDisableTiming` otherwise).
    pub timing: bool,
}

#[derive(Clone)]
pub struct Recorded {
    pub mark: Mark,
    pub stream: StreamRef,
    /// The driver's event recorded at the same point (`cuda`, `emu`).
    pub driver: Option<Arc<DriverEvent>>,
}

/// An event of a driver, destroyed when the last record holding it goes.
pub struct DriverEvent {
    pub driver: Arc<dyn Driver>,
    pub handle: EventHandle,
}

impl Drop for DriverEvent {
    fn drop(&mut self) {
        // Destroying an event whose work is still queued is allowed; a
        // refusal leaves the handle to the session's end.
        let _ = self.driver.event_destroy(self.handle);
    }
}

impl Recorded {
    /// Whether the stream has run past the event: known from a sync, or (on
    /// a GPU) because the driver says the event's work is done.
    pub fn is_complete(&self) -> bool {
        let (stream, seq) = (self.mark.stream.stream, self.mark.seq);
        let mut gpu = lock(&self.stream.gpu);
        if gpu.streams.get(stream).synced >= seq {
            return true;
        }
        // A query that sees the event complete synchronises with it, as
        // `cudaEventQuery` returning `cudaSuccess` does.
        let reached = gpu.streams.get(stream).done >= seq
            || gpu.asks_driver()
                && self
                    .driver
                    .as_ref()
                    .is_some_and(|e| e.driver.event_query(e.handle) == Ok(true));
        if reached {
            // Other devices' work it waited for is done too; each of their
            // streams answers for itself when asked.
            gpu.complete(stream, seq);
        }
        reached
    }
}

impl Event {
    /// An event that measures time (`torch.cuda.Event(enable_timing=True)`).
    pub fn timed() -> Event {
        Event {
            timing: true,
            ..Event::default()
        }
    }

    pub fn record(&self, r: Recorded) {
        *lock(&self.recorded) = Some(r);
    }

    pub fn recorded(&self) -> Option<Recorded> {
        lock(&self.recorded).clone()
    }

    /// `<event @cuda:0 on s: pending>`
    pub fn describe(&self) -> String {
        match self.recorded() {
            None => "<event: not recorded>".into(),
            Some(r) => format!(
                "<event @cuda:{} on {}: {}>",
                r.mark.stream.device,
                r.stream.name,
                if r.is_complete() {
                    "complete"
                } else {
                    "pending"
                }
            ),
        }
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}
