//! Streams and events as values a program holds: handles onto a device's state.

use std::sync::{Arc, Mutex};

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
        lock(&self.gpu).streams.get(self.key.stream).pending()
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
}

#[derive(Clone)]
pub struct Recorded {
    pub mark: Mark,
    pub stream: StreamRef,
}

impl Recorded {
    /// Whether the stream has run past the event.
    pub fn is_complete(&self) -> bool {
        lock(&self.stream.gpu)
            .streams
            .get(self.mark.stream.stream)
            .done
            >= self.mark.seq
    }
}

impl Event {
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
