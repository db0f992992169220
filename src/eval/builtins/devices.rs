//! Devices, streams and events, and DataParallel's steps: `scatter`,
//! `gather`, `replicate`.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use super::factories::tensor_list;
use crate::autograd::node::Backward;
use crate::autograd::record;
use crate::error::{Diagnostic, Error};
use crate::runtime::event::Event;
use crate::runtime::{Device, Tensor};

/// `device(type, index=none)`, as `torch.device`: `device(1)` and
/// `device("cuda:1")` and `device("cuda", 1)` are cuda:1, `device("cuda")`
/// the current CUDA device (`cuda`), `device("cpu")` the host.
pub(super) fn device(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let index = b.int("index")?;
    let (what, span) = b.get("type").cloned().unwrap_or((Value::None, b.span));
    let named = match what {
        Value::Int(i) if index.is_none() => return cuda_device(me, i, b.span),
        Value::Str(s) => super::super::spelling::device_string(&s).ok_or_else(|| {
            Error::value_help(
                format!("expected a device type (cpu, cuda, meta) at the start of the device string, not {s:?}"),
                "write \"cpu\", \"cuda\" or \"cuda:1\" (cudash also has them as literals: `cpu`, `cuda`, `cuda:1`)",
            )
            .at(span)
        })?,
        v @ (Value::Device(_) | Value::CurrentCuda) => v,
        Value::Tensor(_) if index.is_none() => match b.int("type")? {
            Some(i) => return cuda_device(me, i, b.span),
            None => Value::None,
        },
        other => {
            return Err(Error::wrong_type(
                "argument `type` of device",
                "a device string (\"cuda:1\"), an index or a device",
                other.type_name(),
            )
            .at(span))
        }
    };
    match (named, index) {
        (v, None) => Ok(v),
        (Value::CurrentCuda, Some(i)) => cuda_device(me, i, b.span_of("index")),
        (_, Some(_)) => Err(Error::value_help(
            "this device has its index already (or is the cpu, which has none)",
            "give the index once: `device(\"cuda\", 1)` or `device(\"cuda:1\")`; the cpu has none",
        )
        .at(b.span_of("index"))),
    }
}

/// `cuda:i`, checked against the session's devices.
fn cuda_device(me: &mut Interp, i: i64, span: crate::lang::Span) -> Result<Value, Diagnostic> {
    let i = u32::try_from(i)
        .map_err(|_| Error::value(format!("device index {i} is out of range")).at(span))?;
    me.rt
        .cuda(Some(i))
        .map(Value::device)
        .map_err(|e| e.at(span))
}

pub(super) fn list(me: &mut Interp, _: &'static str, _: &Bound) -> Result<Value, Diagnostic> {
    let list = (0..me.rt.devices.count())
        .map(|i| Value::device(Device::Cuda(i)))
        .collect();
    Ok(Value::List(Arc::new(list)))
}

pub(super) fn count(me: &mut Interp, _: &'static str, _: &Bound) -> Result<Value, Diagnostic> {
    Ok(Value::Int(me.rt.devices.count() as i64))
}

pub(super) fn current(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    me.rt
        .cuda(None)
        .map(Value::device)
        .map_err(|e| e.at(b.span))
}

/// `set_device(n)`: device `n` is current from now on in this thread (a
/// rank's own), as `torch.cuda.set_device`.
pub(super) fn set_device(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let index = match b.get("device") {
        Some((Value::Int(i), span)) => u32::try_from(*i).map_err(|_| {
            Error::value(format!("a device is a CUDA device's number, not {i}")).at(*span)
        })?,
        Some((Value::Device(d), span)) => match d.get() {
            crate::runtime::Device::Cuda(i) => i,
            other @ (crate::runtime::Device::Cpu | crate::runtime::Device::Meta) => {
                return Err(Error::value_help(
                    format!("set_device takes a CUDA device, not {other}"),
                    "pass the device's number: `set_device(rank)`",
                )
                .at(*span))
            }
        },
        Some((Value::CurrentCuda, _)) => me.rt.current_device,
        Some((other, span)) => {
            return Err(Error::wrong_type(
                "set_device's device",
                "a CUDA device's number or a device",
                other.type_name(),
            )
            .at(*span))
        }
        None => return Err(Error::value("set_device() needs a device").at(b.span)),
    };
    me.rt
        .cuda(Some(index))
        .map_err(|e| e.at(b.span_of("device")))?;
    me.rt.current_device = index;
    Ok(Value::None)
}

pub(super) fn is_available(
    me: &mut Interp,
    _: &'static str,
    _: &Bound,
) -> Result<Value, Diagnostic> {
    Ok(Value::bool(me.rt.devices.count() > 0))
}

/// `get_device_name(device=none)`: an index or `cuda:N`; the current device by default.
pub(super) fn name(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let index = b.cuda_index("device")?;
    let name = match me.rt.cuda(index).map_err(|e| e.at(b.span))? {
        Device::Cuda(d) => me
            .rt
            .devices
            .info(d)
            .map_or_else(String::new, |i| i.name.clone()),
        other @ (Device::Cpu | Device::Meta) => other.to_string(),
    };
    Ok(Value::Str(name.into()))
}

/// `stream(name=none)`: a new stream on the current device; given a stream,
/// that stream (PyTorch's `torch.cuda.stream(s)`, for `with stream(s) { }`).
pub(super) fn stream(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let name = match b.get("name") {
        Some((Value::Stream(s), _)) => return Ok(Value::Stream(s.clone())),
        Some((Value::Str(s), _)) => Some(s.to_string()),
        Some((Value::None, _)) | None => None,
        Some((other, s)) => {
            return Err(
                Error::wrong_type("the name of a stream", "a string", other.type_name()).at(*s),
            )
        }
    };
    me.rt
        .new_stream(name.as_deref())
        .map(Value::stream)
        .map_err(|e| e.at(b.span))
}

pub(super) fn event(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    me.rt.need_cuda("an event").map_err(|e| e.at(b.span))?;
    // PyTorch's events measure no time unless asked (`enable_timing=True`);
    // cudash's own `event()` is made to time.
    let timing = b.bool("enable_timing", !me.python_program())?;
    Ok(Value::Event(Arc::new(match timing {
        true => Event::timed(),
        false => Event::default(),
    })))
}

/// Splits `input` along `dim` into one chunk per device (the last may be
/// smaller, and devices past the end get none) and copies each there.
pub(super) fn scatter(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let x = b.tensor("input")?;
    let targets = device_list(me, b, "devices")?;
    let dim = b.int("dim")?.unwrap_or(0);
    let parts = me
        .scatter_tensor(&x, &targets, dim)
        .map_err(|e| e.at(b.span))?;
    Ok(Value::List(Arc::new(
        parts.into_iter().map(Value::Tensor).collect(),
    )))
}

/// Joins the tensors of several devices on one (the current one by
/// default), copying each into its slice of one output (`Runtime::gather`).
pub(super) fn gather(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let at = |e: Error| e.at(b.span);
    let target = b
        .device("device")?
        .unwrap_or(Device::Cuda(me.rt.current_device));
    let target = me.rt.check_device(target).map_err(at)?;
    let dim = b.int("dim")?.unwrap_or(0);
    // The replicas' outputs of `parallel_apply`: lists, tuples or dicts
    // of tensors, gathered item by item, and 0-d tensors (one loss per
    // replica) as a vector (`torch.nn.parallel.gather`).
    if let Some((v, _)) = b.get("tensors") {
        let items = v.items().unwrap_or_default();
        let nested = items.iter().any(|o| !matches!(o, Value::Tensor(_)));
        let scalars = items
            .iter()
            .all(|o| matches!(o, Value::Tensor(t) if t.ndim() == 0));
        if !items.is_empty() && (nested || (scalars && dim == 0)) {
            return me.gather_values(&items, target, dim, b.span);
        }
    }
    let ts = tensor_list(b, "tensors", name)?;
    if ts.is_empty() {
        return Err(at(Error::value("gather() needs at least one tensor")));
    }
    let refs: Vec<&Tensor> = ts.iter().map(|t| t.as_ref()).collect();
    let out = me.rt.gather(&refs, dim, target).map_err(at)?;
    b.result(record::gather(&me.rt, me.grad, &refs, out, dim))
}

pub(super) fn replicate(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    if let Some(m) = super::parallel::as_module(b) {
        return super::parallel::replicate_module(me, &m, b);
    }
    let x = b.tensor("input")?;
    let targets = device_list(me, b, "devices")?;
    let mut copies = Vec::with_capacity(targets.len());
    for d in targets {
        // As torch.cuda.comm.broadcast: x itself for its own device.
        copies.push(match d == x.device() {
            true => Arc::clone(&x),
            false => me.rt.copy_to(&x, d).map_err(|e| e.at(b.span))?,
        });
    }
    // One node with an output per replica, whose backward sums their
    // gradients on x's device (PyTorch's `Broadcast` Function, whose
    // backward is `ReduceAddCoalesced`).
    Ok(me.parts(&x, copies, ("BroadcastBackward", Backward::Broadcast)))
}

/// The devices of the list argument `name` (devices or GPU indices): at
/// least one, each existing.
pub(super) fn device_list(me: &Interp, b: &Bound, name: &str) -> Result<Vec<Device>, Diagnostic> {
    let items = b.list(name)?;
    if items.is_empty() {
        return Err(Error::value(format!("`{name}` must list at least one device")).at(b.span));
    }
    items
        .iter()
        .map(|(v, s)| match v {
            Value::Device(d) => me.rt.check_device(d.get()).map_err(|e| e.at(*s)),
            // A GPU's index, as `device_ids=[0, 1]` gives it (PyTorch's
            // `_get_device_index`).
            Value::Int(i) if *i >= 0 && *i <= u32::MAX as i64 => me
                .rt
                .check_device(Device::Cuda(*i as u32))
                .map_err(|e| e.at(*s)),
            other => Err(Error::wrong_type(
                format!("an element of `{name}`"),
                "a device or a GPU's index",
                other.type_name(),
            )
            .at(*s)),
        })
        .collect()
}

/// `synchronize(device=none)`: PyTorch's `torch.cuda.synchronize`, the
/// statement `sync` (the current device) or `sync cuda:1`.
pub(super) fn synchronize(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    if b.given("device").is_none() && me.rt.devices.count() == 0 {
        return Ok(Value::None); // no device: nothing queued anywhere
    }
    let d = cuda_arg(me, b)?;
    me.rt.sync_device(d).map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

/// `current_stream(device=none)`: the stream work on a device goes to now.
pub(super) fn current_stream(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let d = cuda_arg(me, b)?;
    Ok(Value::stream(me.rt.stream_ref(me.rt.stream_on(d))))
}

/// `device=`: a CUDA device (an index or `cuda:N`), the current one by default.
fn cuda_arg(me: &Interp, b: &Bound) -> Result<u32, Diagnostic> {
    match me.rt.cuda(b.cuda_index("device")?) {
        Ok(Device::Cuda(d)) => Ok(d),
        Ok(other @ (Device::Cpu | Device::Meta)) => {
            Err(Error::value(format!("{other} has no streams to wait for")).at(b.span))
        }
        Err(e) => Err(e.at(b.span)),
    }
}
