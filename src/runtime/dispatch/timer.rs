//! Device time of a block of work: `time N { }`, `profile { }` and
//! `e1.elapsed(e2)`. On a GPU it is measured with CUDA timing events; on
//! the simulator and `emu` (whose work runs on the host, at no telling
//! speed) it is the time model's, the same on every run. Output says which.
//!
//! A block's device time covers every stream it queued work on, on every
//! device: from the moment the first of them reached the block's start to
//! the moment the last of them finished its work, on each device; the
//! longest device's span is the block's. As events recorded on every stream
//! at the start and the end would measure it, the span includes the time a
//! stream waits for the host to launch its next item (launch-bound loops,
//! host syncs). `time` and `profile` report the same figure for the same work.

use super::device::driver_error;
use super::Runtime;
use crate::error::Error;
use crate::runtime::event::{DriverEvent, Recorded};
use crate::runtime::stream::StreamKey;

/// Where a block started: each stream's place and clock at the start.
pub struct Start {
    /// The host's modelled clock.
    host: f64,
    /// The part of it spent page-locking (`Devices::page_locking_time`).
    page_locking: f64,
    streams: Vec<StreamStart>,
}

struct StreamStart {
    key: StreamKey,
    /// The last item queued before the block.
    issued: u64,
    /// When the stream reaches the block's start, modelled.
    at: f64,
    /// A timing event recorded at the start, on a driver's device.
    event: Option<DriverEvent>,
}

/// Device time, and how it is known.
pub struct DeviceTime {
    pub seconds: f64,
    /// `measured with CUDA events on NVIDIA H100 …` or `modelled on …`.
    pub basis: String,
    /// Measured with events (a GPU), not modelled.
    pub measured: bool,
    /// The streams the block queued work on, by device, then stream.
    pub streams: Vec<StreamKey>,
}

impl Runtime {
    /// Whether device time is measured (a GPU) rather than modelled.
    pub(super) fn measures_time(&self) -> bool {
        self.devices.driver().is_some_and(|d| !d.runs_when_queued())
    }

    /// How device time on device `d` is known, for output that shows it.
    pub fn time_basis(&self, d: u32) -> String {
        let Some(info) = self.devices.info(d) else {
            return String::new();
        };
        if self.measures_time() {
            format!("measured with CUDA events on {}", info.name)
        } else {
            format!("modelled on {}", info.spec.name)
        }
    }

    /// The start of a timed block: every stream's place, and on a driver a
    /// timing event recorded on each (on `emu` too, so CI runs that path).
    pub fn time_start(&mut self) -> Result<Start, Error> {
        let host = self.devices.host_time();
        let mut streams = Vec::new();
        for d in self.profiled_devices() {
            let places: Vec<(StreamKey, u64, f64)> = match self.devices.gpu(d) {
                Some(gpu) => gpu
                    .streams
                    .iter()
                    .map(|(id, s)| (gpu.streams.key(id), s.issued, s.clock.max(host)))
                    .collect(),
                None => Vec::new(),
            };
            for (key, issued, at) in places {
                // Recording the start event is a call on the device: one
                // that failed an assertion reports it here (on a driver the
                // record itself fails).
                self.check_fault(d)?;
                streams.push(StreamStart {
                    key,
                    issued,
                    at,
                    event: self.driver_event(key)?,
                });
            }
        }
        let page_locking = self.devices.page_locking_time();
        Ok(Start {
            host,
            page_locking,
            streams,
        })
    }

    /// The end of a timed block. The host waits for every stream the block
    /// queued work on (one host sync each, not counted in the block's own
    /// counters: the caller took them before), and the block's device time
    /// comes back; None when it queued no device work.
    pub fn time_end(&mut self, start: Start) -> Result<Option<DeviceTime>, Error> {
        let touched = self.streams_since(&start);
        if touched.is_empty() {
            return Ok(None);
        }
        // Every end event is recorded before the host waits for any stream,
        // so that no stream's end is taken after another stream's wait.
        let end_events = touched
            .iter()
            .map(|&key| self.driver_event(key))
            .collect::<Result<Vec<_>, _>>()?;
        let mut spans: Vec<Span> = Vec::new();
        for (&key, end_event) in touched.iter().zip(end_events) {
            let from = start.streams.iter().find(|s| s.key == key);
            let end = self.finish_stream(key)?;
            let begin = from.map_or(start.host, |s| s.at);
            let span = match spans.iter_mut().find(|s| s.device == key.device) {
                Some(s) => s,
                None => {
                    spans.push(Span::new(key.device));
                    spans.last_mut().expect("just pushed")
                }
            };
            span.modelled = (span.modelled.0.min(begin), span.modelled.1.max(end.time));
            if let (Some(a), Some(z)) = (from.and_then(|s| s.event.as_ref()), end_event) {
                span.events.push((a.handle, z));
            }
        }
        let mut seconds: f64 = 0.0;
        for span in &spans {
            let measured = match self.measures_time() {
                true => self.measured_span(span)?,
                false => None,
            };
            let (begin, end) = span.modelled;
            seconds = seconds.max(measured.unwrap_or(end - begin));
        }
        Ok(Some(DeviceTime {
            seconds,
            basis: self.time_basis(touched[0].device),
            measured: self.measures_time(),
            streams: touched,
        }))
    }

    /// Host time the model charged since `start` that the simulator's own
    /// CPU did not spend (page-locking): None on a GPU, where the host's
    /// wall clock shows it. (The host's other work, CPU-tensor ops and
    /// `sleep`, really runs: a block with no device work is timed by the
    /// wall clock.)
    pub fn modelled_host_time(&self, start: &Start) -> Option<f64> {
        let spent = self.devices.page_locking_time() - start.page_locking;
        (!self.measures_time() && spent > 0.0).then_some(spent)
    }

    /// The streams that queued anything since `start` (new ones included).
    fn streams_since(&self, start: &Start) -> Vec<StreamKey> {
        let mut touched = Vec::new();
        for d in self.profiled_devices() {
            let Some(gpu) = self.devices.gpu(d) else {
                continue;
            };
            for (id, s) in gpu.streams.iter() {
                let key = gpu.streams.key(id);
                let before = start.streams.iter().find(|p| p.key == key);
                if s.issued > before.map_or(0, |p| p.issued) {
                    touched.push(key);
                }
            }
        }
        touched
    }

    /// One device's span, measured: from the earliest start event of its
    /// streams to the latest end event, all complete (the streams were
    /// finished). Events of one device compare; those of two devices do not.
    fn measured_span(&self, span: &Span) -> Result<Option<f64>, Error> {
        let Some(&(reference, _)) = span.events.first() else {
            return Ok(None);
        };
        let Some(driver) = self.devices.driver() else {
            return Ok(None);
        };
        let failed = |e| driver_error(span.device, e);
        let (mut first, mut last) = (0.0f32, f32::MIN);
        for (a, z) in &span.events {
            first = first.min(driver.event_elapsed(reference, *a).map_err(failed)?);
            last = last.max(driver.event_elapsed(reference, z.handle).map_err(failed)?);
        }
        Ok(Some(f64::from(last - first).max(0.0) / 1e3))
    }

    /// Milliseconds from record `a` to record `z`, both complete.
    pub fn elapsed(&self, a: &Recorded, z: &Recorded) -> Result<f64, Error> {
        if let (Some(ea), Some(ez), true) = (&a.driver, &z.driver, self.measures_time()) {
            let ms = ea
                .driver
                .event_elapsed(ea.handle, ez.handle)
                .map_err(|e| driver_error(a.mark.stream.device, e))?;
            return Ok(f64::from(ms));
        }
        Ok((z.mark.time - a.mark.time) * 1e3)
    }
}

/// What one device did during a block: its modelled start and end, and the
/// (start, end) timing events of its streams on a driver.
struct Span {
    device: u32,
    modelled: (f64, f64),
    events: Vec<(crate::runtime::driver::EventHandle, DriverEvent)>,
}

impl Span {
    fn new(device: u32) -> Span {
        Span {
            device,
            modelled: (f64::INFINITY, f64::NEG_INFINITY),
            events: Vec::new(),
        }
    }
}
