//! Stream methods (`s.wait`, `s.sync`, `s.query`) and properties
//! (`s.device`, `s.pending`), and event methods (`e.record`, `e.sync`,
//! `e.query`, `e.elapsed`).

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::event::{Event, StreamRef};
use crate::runtime::Device;

type Out = Result<Value, Diagnostic>;

pub(super) fn wait(me: &mut Interp, _: &'static str, s: &StreamRef, b: &Bound) -> Out {
    let (target, tspan) = b
        .get("target")
        .cloned()
        .ok_or_else(|| Error::value(".wait() needs a stream or an event").at(b.span))?;
    me.wait_for(s.key, &target).map_err(|e| e.at(tspan))?;
    Ok(Value::None)
}

pub(super) fn sync(me: &mut Interp, _: &'static str, s: &StreamRef, b: &Bound) -> Out {
    me.rt.sync_stream(s.key).map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

pub(super) fn query(_: &mut Interp, _: &'static str, s: &StreamRef, _: &Bound) -> Out {
    Ok(Value::bool(s.pending() == 0))
}

/// `s.pending`: how many items the stream has queued and not yet run.
pub(super) fn pending(s: &StreamRef) -> Value {
    Value::Int(s.pending() as i64)
}

pub(super) fn device(s: &StreamRef) -> Value {
    Value::device(Device::Cuda(s.key.device))
}

/// `e.record(stream=none)`: on the current stream by default; returns `e`
/// in cudash's language (`start = event().record()`), None in a Python
/// program, as PyTorch's `Event.record`.
pub(super) fn record(me: &mut Interp, _: &'static str, e: &Arc<Event>, b: &Bound) -> Out {
    let key = match b.get("stream") {
        Some((Value::Stream(s), _)) => s.key,
        Some((Value::None, _)) | None => me.rt.current_stream().map_err(|err| err.at(b.span))?,
        Some((other, s)) => {
            return Err(
                Error::wrong_type("the stream to record on", "a stream", other.type_name()).at(*s),
            )
        }
    };
    me.rt.record(e, key).map_err(|e| e.at(b.span))?;
    if me.python_program() {
        return Ok(Value::None);
    }
    Ok(Value::Event(Arc::clone(e)))
}

pub(super) fn event_sync(me: &mut Interp, _: &'static str, e: &Arc<Event>, b: &Bound) -> Out {
    me.rt.sync_event(e).map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

pub(super) fn event_query(_: &mut Interp, _: &'static str, e: &Arc<Event>, _: &Bound) -> Out {
    Ok(Value::bool(e.recorded().is_none_or(|r| r.is_complete())))
}

/// `e.elapsed(end)`: milliseconds of device time, once both have completed.
pub(super) fn elapsed(me: &mut Interp, _: &'static str, e: &Arc<Event>, b: &Bound) -> Out {
    let at = |err: Error| err.at(b.span);
    let end = b.event("end")?;
    if !e.timing || !end.timing {
        return Err(at(Error::Module {
            class: "ValueError",
            message: "Both events must be created with argument 'enable_timing=True'.".into(),
            help: Some("make each with `torch.cuda.Event(enable_timing=True)`".into()),
        }));
    }
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
    let ms = me.rt.elapsed(&a, &z).map_err(at)?;
    Ok(Value::float((ms * 1e4).round() / 1e4))
}

/// `s.record_event(event=None)`: records `event` (a new one, not made to
/// time, as PyTorch's `torch.cuda.Event()`) at the tail of `s`; returns it.
pub(super) fn record_event(me: &mut Interp, _: &'static str, s: &StreamRef, b: &Bound) -> Out {
    let e = match b.get("event") {
        Some((Value::Event(e), _)) => Arc::clone(e),
        Some((Value::None, _)) | None => Arc::new(match me.python_program() {
            true => Event::default(),
            false => Event::timed(),
        }),
        Some((other, span)) => {
            return Err(
                Error::wrong_type("the event to record", "an event", other.type_name()).at(*span),
            )
        }
    };
    me.rt.record(&e, s.key).map_err(|err| err.at(b.span))?;
    Ok(Value::Event(e))
}

/// `s.wait_event(event)`: `s` waits, on the device, for `event`.
pub(super) fn wait_event(me: &mut Interp, _: &'static str, s: &StreamRef, b: &Bound) -> Out {
    let (target, span) = b
        .get("event")
        .cloned()
        .ok_or_else(|| Error::value(".wait_event() needs an event").at(b.span))?;
    if !matches!(target, Value::Event(_)) {
        return Err(
            Error::wrong_type("the event to wait for", "an event", target.type_name()).at(span),
        );
    }
    me.wait_for(s.key, &target).map_err(|e| e.at(span))?;
    Ok(Value::None)
}

/// `s.wait_stream(other)`: PyTorch's name for `s.wait(other)` with a stream.
pub(super) fn wait_stream(me: &mut Interp, _: &'static str, s: &StreamRef, b: &Bound) -> Out {
    let (other, span) = b.stream("stream")?;
    me.rt
        .wait_stream(s.key, other.key)
        .map_err(|e| e.at(span))?;
    Ok(Value::None)
}
