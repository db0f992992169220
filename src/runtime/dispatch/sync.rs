//! Streams, events and synchronisation: the current stream, `wait`, `sync`,
//! event records, and the host's blocking reads of device memory. Each host
//! wait counts as a host sync for `profile`.

use std::sync::Arc;

use super::Runtime;
use crate::error::Error;
use crate::runtime::event::{Event, Recorded, StreamRef};
use crate::runtime::gpu::lock;
use crate::runtime::stream::{Mark, StreamKey};
use crate::runtime::Device;

impl Runtime {
    /// The current stream of device `d`.
    pub fn stream_on(&self, d: u32) -> StreamKey {
        StreamKey::new(d, self.devices.gpu(d).map_or(0, |g| g.streams.current))
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
        let mut gpu = self.devices.gpu(d).expect("the current device exists");
        let s = match name {
            Some(n) => gpu.streams.find(n).unwrap_or_else(|| gpu.streams.create(n)),
            None => {
                let n = format!("stream{}", gpu.streams.iter().count());
                gpu.streams.create(&n)
            }
        };
        drop(gpu);
        Ok(self.stream_ref(StreamKey::new(d, s)))
    }

    /// Makes `key` the current stream (and its device the current device);
    /// returns what to give `restore` afterwards.
    pub fn enter_stream(&mut self, key: StreamKey) -> (u32, StreamKey) {
        let saved_stream = self.devices.gpu(key.device).map_or(0, |mut g| {
            std::mem::replace(&mut g.streams.current, key.stream)
        });
        let saved_device = std::mem::replace(&mut self.current_device, key.device);
        (saved_device, StreamKey::new(key.device, saved_stream))
    }

    /// Undoes `enter_stream`.
    pub fn restore(&mut self, (device, stream): (u32, StreamKey)) {
        if let Some(mut g) = self.devices.gpu(stream.device) {
            g.streams.current = stream.stream;
        }
        self.current_device = device;
    }

    /// The tail of a stream, recorded now (what `time` measures between).
    pub fn mark(&self, key: StreamKey) -> Mark {
        self.devices.mark(key)
    }

    /// `wait s`: `waiter` waits for all work queued on `target` so far.
    pub fn wait_stream(&mut self, waiter: StreamKey, target: StreamKey) {
        let mark = self.devices.mark(target);
        self.devices.wait(waiter, &mark);
    }

    /// `wait e`: `waiter` waits for the work before the event's record; an
    /// event never recorded is nothing to wait for, as in CUDA.
    pub fn wait_event(&mut self, waiter: StreamKey, e: &Event) {
        if let Some(r) = e.recorded() {
            self.devices.wait(waiter, &r.mark);
        }
    }

    /// `e.record(s)`: the event marks the tail of stream `key`.
    pub fn record(&mut self, e: &Event, key: StreamKey) {
        let mark = self.devices.mark(key);
        e.record(Recorded {
            mark,
            stream: self.stream_ref(key),
        });
    }

    /// The host waits for one stream.
    pub fn sync_stream(&mut self, key: StreamKey) {
        self.devices.sync_stream(key);
        self.counters.host_syncs += 1;
    }

    /// The host waits for every stream of a device.
    pub fn sync_device(&mut self, d: u32) {
        self.devices.sync_device(d);
        self.counters.host_syncs += 1;
    }

    /// The host waits until the stream reaches the event; an event never
    /// recorded is complete, as in CUDA.
    pub fn sync_event(&mut self, e: &Event) {
        if let Some(r) = e.recorded() {
            self.devices
                .complete(r.mark.stream, r.mark.seq, r.mark.time);
            self.counters.host_syncs += 1;
        }
    }

    pub fn sync_all(&mut self) {
        if self.devices.count() > 0 {
            self.devices.sync_all();
            self.counters.host_syncs += 1;
        }
    }

    /// The host waits until everything queued on `key` so far is done, and
    /// returns the mark it waited for (the end of a `time` loop).
    pub fn finish_stream(&mut self, key: StreamKey) -> Mark {
        let m = self.devices.mark(key);
        self.devices.complete(key, m.seq, m.time);
        self.counters.host_syncs += 1;
        m
    }

    /// A blocking host read of tensors on `devices` (display, `.item()`,
    /// `print`, `save`): like `cudaMemcpy` on CUDA's legacy default stream, it
    /// waits for all work queued on each of those devices.
    pub fn host_read(&mut self, devices: &[Device]) {
        let mut cuda: Vec<u32> = devices
            .iter()
            .filter_map(|d| match d {
                Device::Cuda(i) => Some(*i),
                Device::Cpu => None,
            })
            .collect();
        cuda.sort_unstable();
        cuda.dedup();
        for d in cuda {
            self.sync_device(d);
        }
    }

    /// Hazards the devices found since the last call.
    pub fn take_hazards(&self) -> Vec<String> {
        self.devices.take_hazards()
    }
}
