//! Device time between two points of a stream: `time N { }` and
//! `e1.elapsed(e2)`. On a GPU it is measured with CUDA timing events; on
//! the simulator and `emu` (whose work runs on the host, at no telling
//! speed) it is the time model's, the same on every run. Output says which.

use super::device::driver_error;
use super::Runtime;
use crate::error::Error;
use crate::runtime::event::{DriverEvent, Recorded};
use crate::runtime::stream::{Mark, StreamKey};

/// Where a `time` loop started on its stream.
pub struct Start {
    mark: Mark,
    /// A timing event recorded at the same point, on a driver's device.
    event: Option<DriverEvent>,
}

/// Device time, and how it is known.
pub struct DeviceTime {
    pub seconds: f64,
    /// `measured with CUDA events on NVIDIA H100 …` or `modelled on …`.
    pub basis: String,
}

impl Runtime {
    /// Whether device time is measured (a GPU) rather than modelled.
    fn measures_time(&self) -> bool {
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

    /// The start of a `time` loop on stream `key`.
    pub fn time_start(&mut self, key: StreamKey) -> Result<Start, Error> {
        let event = self.driver_event(key)?;
        Ok(Start {
            mark: self.devices.mark(key),
            event,
        })
    }

    /// The end of a `time` loop: the host waits for the stream (one host
    /// sync), and the device time since `start` comes back.
    pub fn time_end(&mut self, key: StreamKey, start: Start) -> Result<DeviceTime, Error> {
        let end_event = self.driver_event(key)?;
        let end = self.finish_stream(key)?;
        let modelled = end.time - start.mark.time;
        let measured = match (&start.event, &end_event) {
            (Some(a), Some(z)) => Some(
                a.driver
                    .event_elapsed(a.handle, z.handle)
                    .map_err(|e| driver_error(key.device, e))?,
            ),
            _ => None,
        };
        let seconds = match measured {
            Some(ms) if self.measures_time() => f64::from(ms) / 1e3,
            _ => modelled,
        };
        Ok(DeviceTime {
            seconds,
            basis: self.time_basis(key.device),
        })
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
