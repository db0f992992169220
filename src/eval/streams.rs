//! Streams, events and synchronisation: `stream s { }`, `with s { }`, `wait`,
//! `sync`, host reads, stream and event methods, and the hazard warnings the
//! runtime reports.

use std::sync::Arc;

use super::args::{bind, ArgVal};
use super::docs::Doc;
use super::{Interp, Output, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, Name};
use crate::lang::Span;
use crate::runtime::event::{Event, StreamRef};
use crate::runtime::stream::StreamKey;
use crate::runtime::Device;

impl Interp {
    /// `default`: the current device's default stream.
    pub(crate) fn default_stream(&self) -> Option<Value> {
        self.rt.default_stream().map(Value::Stream)
    }

    /// `stream s { }`: `s` is created on the current device on first use
    /// (after `del s`, or after a failed first block, the stream of that name
    /// is found again).
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
                    .rt
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
        let saved = self.rt.enter_stream(s.key);
        let r = body.iter().try_for_each(|st| self.exec(st));
        self.rt.restore(saved);
        r
    }

    /// Makes `waiter` wait for a stream's queued work or an event.
    pub(crate) fn wait_for(&mut self, waiter: StreamKey, target: &Value) -> Result<(), Error> {
        match target {
            Value::Stream(s) => self.rt.wait_stream(waiter, s.key),
            Value::Event(e) => self.rt.wait_event(waiter, e),
            other => {
                return Err(Error::wrong_type(
                    "what `wait` waits for",
                    "a stream or an event",
                    other.type_name(),
                ))
            }
        }
        Ok(())
    }

    /// A blocking host read of every tensor in `v` (display, `print`).
    pub(crate) fn host_read(&mut self, v: &Value) {
        let mut devices = Vec::new();
        collect_devices(v, &mut devices);
        self.rt.host_read(&devices);
    }

    /// Shows the runtime's notes (a non-blocking copy that had to block) as warnings.
    pub(crate) fn flush_notes(&mut self) {
        for note in self.rt.take_notes() {
            self.emit(Output::Warning(note));
        }
    }

    /// Turns the hazards the runtime found into warnings; a warning repeated
    /// within one top-level statement (a loop) is shown once and counted.
    pub(crate) fn flush_hazards(&mut self) {
        for msg in self.rt.take_hazards() {
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
                self.rt.new_stream(n.as_deref()).map(Value::Stream)
            }
            _ => {
                self.rt.need_cuda("an event")?;
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
                self.rt.sync_stream(s.key);
                Ok(Value::None)
            }
            (Value::Stream(s), "query") => Ok(Value::Bool(s.pending() == 0)),
            (Value::Stream(s), "pending") => Ok(Value::Int(s.pending() as i64)),
            (Value::Stream(s), "device") => Ok(Value::Device(Device::Cuda(s.key.device))),
            (Value::Event(e), "record") => {
                let key = match b.get("stream") {
                    Some((Value::Stream(s), _)) => s.key,
                    Some((Value::None, _)) | None => self.rt.current_stream().map_err(at)?,
                    Some((other, s)) => {
                        return Err(Error::wrong_type(
                            "the stream to record on",
                            "a stream",
                            other.type_name(),
                        )
                        .at(*s))
                    }
                };
                self.rt.record(e, key);
                Ok(recv.clone())
            }
            (Value::Event(e), "sync") => {
                self.rt.sync_event(e);
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

fn collect_devices(v: &Value, out: &mut Vec<Device>) {
    match v {
        Value::Tensor(t) => out.push(t.device()),
        Value::List(items) => items.iter().for_each(|v| collect_devices(v, out)),
        Value::Dict(pairs) => pairs.iter().for_each(|(_, v)| collect_devices(v, out)),
        _ => {}
    }
}
