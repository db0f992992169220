//! Streams, events and synchronisation: `stream s { }`, `with s { }`, `wait`,
//! `sync`, host reads, stream and event methods, and the hazard warnings the
//! runtime reports.

use std::sync::Arc;

use super::args::{bind, ArgVal};
use super::docs::Doc;
use super::{not_available, Interp, Output, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, Name};
use crate::lang::Span;
use crate::runtime::event::{Event, Recorded, StreamRef};
use crate::runtime::stream::StreamKey;
use crate::runtime::Device;

impl Interp {
    /// The stream value for `key`.
    pub(crate) fn stream_ref(&self, key: StreamKey) -> StreamRef {
        let gpu = self
            .devices
            .gpu_handle(key.device)
            .expect("streams belong to existing devices");
        let name = Arc::clone(&crate::runtime::gpu::lock(gpu).streams.get(key.stream).name);
        StreamRef {
            key,
            name,
            gpu: Arc::clone(gpu),
        }
    }

    /// The current stream of the current CUDA device.
    pub(crate) fn current_stream(&self) -> Result<StreamKey, Error> {
        if self.devices.count() == 0 {
            return Err(not_available("a stream"));
        }
        Ok(self.stream_on(self.current_device))
    }

    /// `default`: the current device's default stream.
    pub(crate) fn default_stream(&self) -> Option<Value> {
        (self.devices.count() > 0)
            .then(|| Value::Stream(self.stream_ref(StreamKey::new(self.current_device, 0))))
    }

    /// A new stream on the current device; `stream s { }` after `del s` (or
    /// after a failed first block) finds the stream of that name again.
    pub(crate) fn new_stream(&mut self, name: Option<&str>) -> Result<StreamRef, Error> {
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

    /// `stream s { }`: `s` is created on the current device on first use.
    pub(crate) fn exec_stream_block(
        &mut self,
        name: &Name,
        body: &Block,
    ) -> Result<(), Diagnostic> {
        let s = match self.vars.get(&name.name) {
            Some(Value::Stream(s)) => s.clone(),
            Some(other) => {
                return Err(Error::value_help(
                    format!("`{}` is {}, not a stream", name.name, other.type_name()),
                    "pick another name for the stream, or `del` the variable first",
                )
                .at(name.span))
            }
            None => {
                let s = self
                    .new_stream(Some(&name.name))
                    .map_err(|e| e.at(name.span))?;
                self.set_var(&name.name, Value::Stream(s.clone()));
                s
            }
        };
        self.with_stream(&s, body)
    }

    /// Runs `body` with `s` as the current stream (and its device as the
    /// current device); both are restored afterwards, also after an error.
    pub(crate) fn with_stream(&mut self, s: &StreamRef, body: &Block) -> Result<(), Diagnostic> {
        let d = s.key.device;
        let saved_device = self.current_device;
        let saved_stream = self.devices.gpu(d).map_or(0, |mut g| {
            std::mem::replace(&mut g.streams.current, s.key.stream)
        });
        self.current_device = d;
        let r = body.iter().try_for_each(|st| self.exec(st));
        if let Some(mut g) = self.devices.gpu(d) {
            g.streams.current = saved_stream;
        }
        self.current_device = saved_device;
        r
    }

    /// Makes `waiter` wait for a stream's queued work or an event.
    pub(crate) fn wait_for(&mut self, waiter: StreamKey, target: &Value) -> Result<(), Error> {
        let mark = match target {
            Value::Stream(s) => self.devices.mark(s.key),
            Value::Event(e) => match e.recorded() {
                Some(r) => r.mark,
                // CUDA: waiting for an event never recorded does nothing.
                None => return Ok(()),
            },
            other => {
                return Err(Error::wrong_type(
                    "what `wait` waits for",
                    "a stream or an event",
                    other.type_name(),
                ))
            }
        };
        self.devices.wait(waiter, &mark);
        Ok(())
    }

    /// The host waits for one stream, counted as a host sync.
    pub(crate) fn sync_stream(&mut self, key: StreamKey) {
        self.devices.sync_stream(key);
        self.counters.host_syncs += 1;
    }

    /// The host waits for a device, counted as a host sync.
    pub(crate) fn sync_device(&mut self, d: u32) {
        self.devices.sync_device(d);
        self.counters.host_syncs += 1;
    }

    /// The host waits until the stream reaches the event (one host sync); an
    /// event never recorded is complete, as in CUDA.
    pub(crate) fn sync_event(&mut self, e: &Event) {
        if let Some(r) = e.recorded() {
            self.devices
                .complete(r.mark.stream, r.mark.seq, r.mark.time);
            self.counters.host_syncs += 1;
        }
    }

    pub(crate) fn sync_all(&mut self) {
        if self.devices.count() > 0 {
            self.devices.sync_all();
            self.counters.host_syncs += 1;
        }
    }

    /// A blocking host read of `v` (display, `.item()`, `print`, `save`): like
    /// `cudaMemcpy` on CUDA's legacy default stream, it waits for all work
    /// queued on each device `v`'s tensors live on.
    pub(crate) fn host_read(&mut self, v: &Value) {
        let mut devices = Vec::new();
        collect_devices(v, &mut devices);
        devices.sort_unstable();
        devices.dedup();
        for d in devices {
            self.sync_device(d);
        }
    }

    /// Turns the hazards the runtime found into warnings; a warning repeated
    /// within one top-level statement (a loop) is shown once and counted.
    pub(crate) fn flush_hazards(&mut self) {
        for msg in self.devices.take_hazards() {
            match self.warned.iter_mut().find(|(m, _)| *m == msg) {
                Some((_, n)) => *n += 1,
                None => {
                    self.emit(Output::Warning(msg.clone()));
                    self.warned.push((msg, 1));
                }
            }
        }
    }

    pub(crate) fn summarise_repeats(&mut self) {
        for (_, n) in std::mem::take(&mut self.warned) {
            if n > 1 {
                self.emit(Output::Warning(format!(
                    "(the warning above came {} more time{} in this statement)",
                    n - 1,
                    if n == 2 { "" } else { "s" }
                )));
            }
        }
    }

    /// `stream(name=none)` and `event()`.
    pub(crate) fn stream_builtin(
        &mut self,
        name: &str,
        b: &super::args::Bound,
    ) -> Result<Value, Error> {
        match name {
            "stream" => {
                let n = match b.get("name") {
                    Some((Value::Str(s), _)) => Some(s.to_string()),
                    Some((Value::None, _)) | None => None,
                    Some((other, _)) => {
                        return Err(Error::wrong_type(
                            "the name of a stream",
                            "a string",
                            other.type_name(),
                        ))
                    }
                };
                self.new_stream(n.as_deref()).map(Value::Stream)
            }
            _ => {
                if self.devices.count() == 0 {
                    return Err(not_available("an event"));
                }
                Ok(Value::Event(Arc::new(Event::default())))
            }
        }
    }

    /// Methods and properties of streams and events.
    pub(crate) fn stream_member(
        &mut self,
        recv: &Value,
        doc: &'static Doc,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let b = bind(doc, args, span)?;
        let at = |e: Error| e.at(span);
        match (recv, doc.name) {
            (Value::Stream(s), "wait") => {
                let (target, tspan) = b
                    .get("target")
                    .cloned()
                    .ok_or_else(|| at(Error::value(".wait() needs a stream or an event")))?;
                self.wait_for(s.key, &target).map_err(|e| e.at(tspan))?;
                Ok(Value::None)
            }
            (Value::Stream(s), "sync") => {
                self.sync_stream(s.key);
                Ok(Value::None)
            }
            (Value::Stream(s), "query") => Ok(Value::Bool(s.pending() == 0)),
            (Value::Stream(s), "pending") => Ok(Value::Int(s.pending() as i64)),
            (Value::Stream(s), "device") => Ok(Value::Device(Device::Cuda(s.key.device))),
            (Value::Event(e), "record") => {
                let key = match b.get("stream") {
                    Some((Value::Stream(s), _)) => s.key,
                    Some((Value::None, _)) | None => self.current_stream().map_err(at)?,
                    Some((other, s)) => {
                        return Err(Error::wrong_type(
                            "the stream to record on",
                            "a stream",
                            other.type_name(),
                        )
                        .at(*s))
                    }
                };
                let mark = self.devices.mark(key);
                e.record(Recorded {
                    mark,
                    stream: self.stream_ref(key),
                });
                Ok(recv.clone())
            }
            (Value::Event(e), "sync") => {
                self.sync_event(e);
                Ok(Value::None)
            }
            (Value::Event(e), "query") => {
                Ok(Value::Bool(e.recorded().is_none_or(|r| r.is_complete())))
            }
            (Value::Event(e), "elapsed") => {
                let end = b.event("end")?;
                let (Some(a), Some(z)) = (e.recorded(), end.recorded()) else {
                    return Err(at(Error::value_help(
                        "both events must be recorded before .elapsed()",
                        "call `e.record()` on each, around the work to time",
                    )));
                };
                if !a.is_complete() || !z.is_complete() {
                    return Err(at(Error::value_help(
                        "the events have not completed yet (CUDA: cudaErrorNotReady)",
                        "wait for the later one first: `e2.sync()` (or `sync`)",
                    )));
                }
                // CUDA events resolve about half a microsecond; show 0.1 µs.
                let ms = (z.mark.time - a.mark.time) * 1e3;
                Ok(Value::Float((ms * 1e4).round() / 1e4))
            }
            (v, name) => Err(at(Error::value(format!(
                "{} has no member `.{name}`",
                v.type_name()
            )))),
        }
    }
}

fn collect_devices(v: &Value, out: &mut Vec<u32>) {
    match v {
        Value::Tensor(t) => {
            if let Device::Cuda(d) = t.device() {
                out.push(d);
            }
        }
        Value::List(items) => items.iter().for_each(|v| collect_devices(v, out)),
        Value::Dict(pairs) => pairs.iter().for_each(|(_, v)| collect_devices(v, out)),
        _ => {}
    }
}
