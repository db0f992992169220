//! Streams, events and synchronisation: the current stream, `wait`, `sync`,
//! event records, and the host's blocking reads of device memory. Each host
//! wait counts as a host sync for `profile`.

use std::sync::Arc;

use super::device::driver_error;
use super::graph::Refused;
use super::Runtime;
use crate::error::Error;
use crate::runtime::event::{DriverEvent, Event, Recorded, StreamRef};
use crate::runtime::gpu::lock;
use crate::runtime::stream::{Mark, StreamKey};
use crate::runtime::timing::{CopyPath, Work};
use crate::runtime::{Device, Tensor};

/// PyTorch's `torch.cuda.set_sync_debug_mode`: whether an op that makes
/// the host wait for a stream passes (`default`, 0), warns (`warn`, 1) or
/// is refused (`error`, 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncDebugMode {
    Default,
    Warn,
    Error,
}

impl SyncDebugMode {
    pub fn from_level(level: i64) -> Option<SyncDebugMode> {
        match level {
            0 => Some(SyncDebugMode::Default),
            1 => Some(SyncDebugMode::Warn),
            2 => Some(SyncDebugMode::Error),
            _ => None,
        }
    }

    pub fn level(self) -> i64 {
        self as i64
    }
}

impl Runtime {
    /// The current stream of device `d`.
    pub fn stream_on(&self, d: u32) -> StreamKey {
        StreamKey::new(d, self.devices.gpu(d).map_or(0, |g| g.streams.current()))
    }

    /// The current stream of the current CUDA device.
    pub fn current_stream(&self) -> Result<StreamKey, Error> {
        self.need_cuda("a stream")?;
        Ok(self.stream_on(self.current_device))
    }

    /// The stream value for `key`.
    pub fn stream_ref(&self, key: StreamKey) -> StreamRef {
        let gpu = self
            .devices
            .gpu_handle(key.device)
            .expect("streams belong to existing devices");
        let name = Arc::clone(&lock(gpu).streams.get(key.stream).name);
        StreamRef {
            key,
            name,
            gpu: Arc::clone(gpu),
        }
    }

    /// The current device's default stream, when there is a CUDA device.
    pub fn default_stream(&self) -> Option<StreamRef> {
        (self.devices.count() > 0).then(|| self.stream_ref(StreamKey::new(self.current_device, 0)))
    }

    /// A new stream on the current device; a `name` it already has finds that
    /// stream again.
    pub fn new_stream(&mut self, name: Option<&str>) -> Result<StreamRef, Error> {
        let d = self.current_stream()?.device;
        self.check_fault(d)?;
        let (found, count) = {
            let gpu = self.devices.gpu(d).expect("the current device exists");
            (
                name.and_then(|n| gpu.streams.find(n)),
                gpu.streams.iter().count(),
            )
        };
        let s = match (found, name) {
            (Some(s), _) => s,
            (None, Some(n)) => self
                .devices
                .create_stream(d, n)
                .map_err(|e| driver_error(d, e))?,
            (None, None) => {
                let s = self
                    .devices
                    .create_stream(d, &format!("stream{count}"))
                    .map_err(|e| driver_error(d, e))?;
                if let Some(mut gpu) = self.devices.gpu(d) {
                    gpu.streams.unnamed(s);
                }
                s
            }
        };
        Ok(self.stream_ref(StreamKey::new(d, s)))
    }

    /// `s` named `name` when it was made without a name and is first
    /// assigned to the variable `name` (None: it keeps its name).
    pub fn name_stream(&mut self, s: &StreamRef, name: &str) -> Option<StreamRef> {
        let mut gpu = self.devices.gpu(s.key.device)?;
        gpu.streams.name(s.key.stream, name).then_some(())?;
        drop(gpu);
        Some(self.stream_ref(s.key))
    }

    /// Makes `key` the current stream (and its device the current device);
    /// returns what to give `restore` afterwards.
    pub fn enter_stream(&mut self, key: StreamKey) -> (u32, StreamKey) {
        let saved_stream = self
            .devices
            .gpu(key.device)
            .map_or(0, |mut g| g.streams.set_current(key.stream));
        let saved_device = std::mem::replace(&mut self.current_device, key.device);
        (saved_device, StreamKey::new(key.device, saved_stream))
    }

    /// Undoes `enter_stream`.
    pub fn restore(&mut self, (device, stream): (u32, StreamKey)) {
        if let Some(mut g) = self.devices.gpu(stream.device) {
            g.streams.set_current(stream.stream);
        }
        self.current_device = device;
    }

    /// The tail of a stream, recorded now (what `time` measures between).
    pub fn mark(&self, key: StreamKey) -> Mark {
        self.devices.mark(key)
    }

    /// `wait s`: `waiter` waits for all work queued on `target` so far.
    pub fn wait_stream(&mut self, waiter: StreamKey, target: StreamKey) -> Result<(), Error> {
        if waiter == target {
            // A stream is ordered after its own work already: no call is made.
            return Ok(());
        }
        self.check_capture_crossing(&[waiter, target])?;
        self.check_fault(waiter.device)?;
        self.check_fault(target.device)?;
        self.devices
            .wait_for_stream(waiter, target)
            .map_err(|e| driver_error(waiter.device, e))
    }

    /// `wait e`: `waiter` waits for the work before the event's record; an
    /// event never recorded is nothing to wait for, as in CUDA.
    pub fn wait_event(&mut self, waiter: StreamKey, e: &Event) -> Result<(), Error> {
        let Some(r) = e.recorded() else {
            return Ok(());
        };
        self.check_capture_crossing(&[waiter, r.mark.stream])?;
        self.check_fault(waiter.device)?;
        self.devices.wait(waiter, &r.mark);
        if let Some(ev) = &r.driver {
            let w = self.devices.stream_handle(waiter);
            ev.driver
                .stream_wait_event(w, ev.handle)
                .map_err(|e| driver_error(waiter.device, e))?;
        }
        Ok(())
    }

    /// `e.record(s)`: the event marks the tail of stream `key` (on a driver,
    /// a fresh timing event recorded there, so `elapsed` can measure).
    pub fn record(&mut self, e: &Event, key: StreamKey) -> Result<(), Error> {
        self.check_capture_crossing(&[key])?;
        self.check_fault(key.device)?;
        let driver = self.driver_event(key)?.map(Arc::new);
        let mark = self.devices.mark(key);
        e.record(Recorded {
            mark,
            stream: self.stream_ref(key),
            driver,
        });
        Ok(())
    }

    /// On a driver's device, a new timing event recorded at the tail of `key`.
    pub(super) fn driver_event(&self, key: StreamKey) -> Result<Option<DriverEvent>, Error> {
        let Some(driver) = self.devices.driver() else {
            return Ok(None);
        };
        let failed = |e| driver_error(key.device, e);
        let handle = driver.event_create(key.device, true).map_err(failed)?;
        let event = DriverEvent {
            driver: Arc::clone(driver),
            handle,
        };
        driver
            .event_record(handle, self.devices.stream_handle(key))
            .map_err(failed)?;
        Ok(Some(event))
    }

    /// The host waits for one stream as PyTorch's `stream_synchronize`
    /// and `memcpy_and_sync` do (`s.synchronize()`, a blocking copy, a
    /// read of a value): a synchronizing op for `set_sync_debug_mode`.
    pub fn sync_stream(&mut self, key: StreamKey) -> Result<(), Error> {
        self.synchronizing_op()?;
        self.sync_stream_quietly(key)
    }

    /// `torch.cuda.set_sync_debug_mode`'s check, made where PyTorch makes
    /// it (`warn_or_error_on_sync`): before the host waits for a stream.
    /// Waits for a device or an event are not checked, as in PyTorch.
    fn synchronizing_op(&mut self) -> Result<(), Error> {
        const WHAT: &str = "called a synchronizing CUDA operation";
        match self.sync_debug {
            SyncDebugMode::Default => Ok(()),
            SyncDebugMode::Warn => {
                self.note(format!(
                    "UserWarning: {WHAT} (Triggered internally at \
                     /__w/pytorch/pytorch/c10/cuda/CUDAFunctions.cpp:162.)"
                ));
                Ok(())
            }
            SyncDebugMode::Error => Err(Error::runtime(WHAT)),
        }
    }

    /// The host waits for one stream where PyTorch's wait is not one
    /// `set_sync_debug_mode` reports (freeing cached blocks, a collective's
    /// barrier, the end of a `time` loop).
    pub fn sync_stream_quietly(&mut self, key: StreamKey) -> Result<(), Error> {
        self.refuse_sync_while_capturing(Refused::Sync)?;
        self.check_fault(key.device)?;
        self.counters.host_syncs += 1;
        let before = self.sync_began();
        self.devices
            .sync_stream(key)
            .map_err(|e| driver_error(key.device, e))?;
        if before.is_some() {
            let name = self.stream_ref(key).name.to_string();
            self.record_wait(before, || format!("cuda:{} {name}", key.device));
        }
        Ok(())
    }

    /// The host waits for every stream of a device.
    pub fn sync_device(&mut self, d: u32) -> Result<(), Error> {
        self.refuse_sync_while_capturing(Refused::Sync)?;
        self.check_fault(d)?;
        self.counters.host_syncs += 1;
        let before = self.sync_began();
        self.devices
            .sync_device(d)
            .map_err(|e| driver_error(d, e))?;
        self.record_wait(before, || format!("cuda:{d}"));
        Ok(())
    }

    /// The host waits until the stream reaches the event; an event never
    /// recorded is complete, as in CUDA.
    pub fn sync_event(&mut self, e: &Event) -> Result<(), Error> {
        let Some(r) = e.recorded() else {
            return Ok(());
        };
        self.refuse_sync_while_capturing(Refused::Sync)?;
        self.check_fault(r.mark.stream.device)?;
        self.counters.host_syncs += 1;
        let before = self.sync_began();
        if let Some(ev) = &r.driver {
            ev.driver
                .event_synchronize(ev.handle)
                .map_err(|err| driver_error(r.mark.stream.device, err))?;
        }
        self.devices
            .complete(r.mark.stream, r.mark.seq, r.mark.time);
        self.record_wait(before, || "an event".into());
        Ok(())
    }

    pub fn sync_all(&mut self) -> Result<(), Error> {
        if self.devices.count() == 0 {
            return Ok(());
        }
        self.refuse_sync_while_capturing(Refused::Sync)?;
        self.counters.host_syncs += 1;
        let before = self.sync_began();
        for d in 0..self.devices.count() {
            self.check_fault(d)?;
            self.devices
                .sync_device(d)
                .map_err(|e| driver_error(d, e))?;
        }
        self.record_wait(before, || "every device".into());
        Ok(())
    }

    /// The host waits until everything queued on `key` so far is done, and
    /// returns the mark it waited for (the end of a `time` loop).
    pub fn finish_stream(&mut self, key: StreamKey) -> Result<Mark, Error> {
        let m = self.devices.mark(key);
        self.sync_stream_quietly(key)?;
        Ok(m)
    }

    /// A blocking host read of `tensors` (display, `print`, `.item()`, a
    /// blocking `.to(cpu)`, `save`), as PyTorch does one: each device
    /// tensor's bytes are copied to the host on its device's current stream
    /// (`bytes` of it: all, or one element), and the host waits for those
    /// streams only. Side streams are created non-blocking, so their work is
    /// not waited for: a read of what one may still be writing is reported
    /// as a race. Then `read` runs: the host reading its copies (rendering
    /// them, taking the element, writing the file), which see the bytes from
    /// before a racing write without a second warning.
    pub fn host_read<R>(
        &mut self,
        tensors: &[&Tensor],
        bytes: impl Fn(&Tensor) -> u64,
        read: impl FnOnce() -> R,
    ) -> Result<R, Error> {
        let mut streams: Vec<StreamKey> = Vec::new();
        if tensors.iter().any(|t| t.device().is_cuda()) {
            // A copy to pageable host memory cannot be captured.
            self.refuse_sync_while_capturing(Refused::HostRead)?;
        }
        for t in tensors {
            let Device::Cuda(d) = t.device() else {
                continue;
            };
            t.before_host_copy();
            let n = bytes(t);
            let path = CopyPath::Pageable;
            self.issue(d, Work::Copy { bytes: n, path }, None)?;
            self.count_copy(t.device(), Device::Cpu, n as usize);
            let key = self.stream_on(d);
            if !streams.contains(&key) {
                streams.push(key);
            }
        }
        for &key in &streams {
            self.sync_stream(key)?;
        }
        let reading = |on: bool| {
            for key in &streams {
                if let Some(mut g) = self.devices.gpu(key.device) {
                    g.host_reading = on;
                }
            }
        };
        reading(true);
        let r = read();
        reading(false);
        Ok(r)
    }

    /// Whether `take_hazards` has something to give.
    #[inline]
    pub fn hazards_pending(&self) -> bool {
        self.devices.hazards_pending()
    }

    /// Hazards the devices found since the last call.
    pub fn take_hazards(&self) -> Vec<String> {
        self.devices.take_hazards()
    }
}
