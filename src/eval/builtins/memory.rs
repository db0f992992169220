//! The caching allocator's statistics: `memory_allocated` and friends,
//! `memory_stats`, `reset_peak`, `empty_cache`; the allocator's history:
//! `record_memory_history`, `dump_snapshot`.

use crate::eval::value::PyDict;
use std::path::Path;

use super::super::args::Bound;
use super::super::{Interp, Output, Value};
use crate::display::memory::host_stat_pairs;
use crate::error::{Diagnostic, Error};
use crate::runtime::alloc::history::DEFAULT_MAX_ENTRIES;
use crate::runtime::alloc::Stats;
use crate::runtime::snapshot;
use crate::runtime::Device;
use crate::vocab::human_bytes;

pub(super) fn empty_cache(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    me.rt.empty_cache().map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

/// `set_per_process_memory_fraction(fraction, device=none)`: PyTorch's
/// limit on what the caching allocator of one device (the current one by
/// default) may reserve: past it, an allocation is out of memory.
pub(super) fn set_memory_fraction(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let (fraction, span) = match b.get("fraction") {
        Some((Value::Float(f), s)) => (f.get(), *s),
        Some((v, s)) => {
            return Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "Invalid type for fraction argument, must be `float` (not {})",
                    v.type_name()
                ),
                help: Some("write it as a float: 0.5, 1.0".into()),
            }
            .at(*s))
        }
        None => {
            return Err(
                Error::value("set_per_process_memory_fraction() needs a fraction").at(b.span),
            )
        }
    };
    if !(0.0..=1.0).contains(&fraction) {
        return Err(Error::value(format!(
            "Invalid fraction value: {fraction}. Allowed range: 0~1"
        ))
        .at(span));
    }
    match stats_device(me, b)? {
        Device::Cuda(d) => me.rt.set_memory_fraction(d, fraction),
        Device::Cpu | Device::Meta => {
            return Err(
                Error::value("set_per_process_memory_fraction() limits a CUDA device")
                    .at(b.span_of("device")),
            )
        }
    }
    Ok(Value::None)
}

pub(super) fn reset_peak(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let d = stats_device(me, b)?;
    me.rt.reset_peak(d);
    Ok(Value::None)
}

/// `set_allocator_settings(settings)`: `PYTORCH_CUDA_ALLOC_CONF`'s
/// settings for every allocator from now on, over those in force.
pub(super) fn set_allocator_settings(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let text = b.str("settings")?.unwrap_or_default();
    me.configure_allocators(&text, false)
        .map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

/// `reset_accumulated_memory_stats(device=none)`: the totals and the
/// counters of `memory_stats()` start again from zero (cpu: nothing to reset).
pub(super) fn reset_accumulated(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    if let Device::Cuda(d) = stats_device(me, b)? {
        if let Some(mut g) = me.rt.devices.gpu(d) {
            g.allocator.reset_accumulated();
        }
    }
    Ok(Value::None)
}

/// `memory_allocated`, `max_memory_allocated`, `memory_reserved`, `max_memory_reserved`.
pub(super) fn stat(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (allocated, reserved) = match stats_device(me, b)? {
        Device::Cpu | Device::Meta => {
            let h = me.rt.devices.host();
            (h.stats().allocated, h.stats().reserved)
        }
        Device::Cuda(d) => {
            let s = allocator_stats(me, d, b)?;
            (s.allocated_bytes.all, s.reserved_bytes.all)
        }
    };
    let v = match name {
        "memory_allocated" => allocated.current,
        "max_memory_allocated" => allocated.peak,
        "memory_reserved" => reserved.current,
        _ => reserved.peak,
    };
    Ok(Value::Int(v as i64))
}

pub(super) fn stats(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let pairs = match stats_device(me, b)? {
        Device::Cpu | Device::Meta => host_stat_pairs(me.rt.devices.host().stats())
            .into_iter()
            .map(|(k, v)| (k, v as i64))
            .collect(),
        Device::Cuda(d) => allocator_stats(me, d, b)?.pairs(),
    };
    Ok(Value::Dict(PyDict::new(
        pairs
            .into_iter()
            .map(|(k, v)| (k.into(), Value::Int(v)))
            .collect(),
    )))
}

/// A snapshot of device `d`'s caching allocator statistics.
fn allocator_stats(me: &Interp, d: u32, b: &Bound) -> Result<Stats, Diagnostic> {
    me.rt
        .devices
        .gpu(d)
        .map(|g| g.allocator.stats().clone())
        .ok_or_else(|| Error::value("no such device").at(b.span))
}

/// The device a statistic is about: `device=` (a device or an index), else the current one.
fn stats_device(me: &Interp, b: &Bound) -> Result<Device, Diagnostic> {
    let d = match b.given("device") {
        None => me.rt.cuda(None),
        Some((Value::Int(i), _)) => me.rt.cuda(Some(*i as u32)),
        Some(_) => match b.device("device")? {
            Some(d) => me.rt.check_device(d),
            None => me.rt.cuda(None),
        },
    };
    match d.map_err(|e| e.at(b.span))? {
        Device::Meta => Err(Error::value("Expected a cuda device, but got: meta").at(b.span)),
        d => Ok(d),
    }
}

/// `memory_summary(device=none, abbreviated=false)`: PyTorch's
/// `torch.cuda.memory_summary`, its table of the device's allocator
/// statistics as a string to `print` (the cpu: the text of `mem` for pinned
/// host memory, which PyTorch has no summary of).
pub(super) fn summary(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let text = match stats_device(me, b)? {
        Device::Cpu | Device::Meta => {
            crate::display::memory::host_summary(me.rt.devices.host().stats())
        }
        Device::Cuda(d) => {
            let abbreviated = b.bool("abbreviated", false)?;
            let stats = allocator_stats(me, d, b)?;
            crate::display::memory::pytorch_summary(&stats, d, abbreviated)
        }
    };
    Ok(Value::Str(text.into()))
}

/// `record_memory_history(enabled=true, max_entries=100000)`, as PyTorch's
/// `torch.cuda.memory._record_memory_history`: `enabled=false` (or `none`,
/// PyTorch's way) stops recording and keeps what was recorded; a smaller
/// `max_entries` drops the oldest events at once. Every device.
pub(super) fn record_memory_history(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    me.rt
        .need_cuda("`record_memory_history`")
        .map_err(|e| e.at(b.span))?;
    let enabled = match b.get("enabled") {
        None => true,
        Some((Value::None, _)) => false,
        Some((Value::Bool(x), _)) => x.get(),
        Some((Value::Str(s), _)) if s.as_str() == "all" || s.as_str() == "state" => true,
        Some((v, span)) => {
            return Err(Error::wrong_type(
                "argument `enabled` of record_memory_history",
                "true, false or none",
                v.type_name(),
            )
            .at(*span))
        }
    };
    let max_entries = match b.int("max_entries")? {
        None => DEFAULT_MAX_ENTRIES,
        Some(n) if n >= 1 => usize::try_from(n).unwrap_or(usize::MAX),
        Some(n) => {
            return Err(Error::value_help(
                format!("max_entries must be at least 1, not {n}"),
                "it is how many events each device keeps (PyTorch's default, 100000); \
                 `record_memory_history(enabled=false)` stops recording",
            )
            .at(b.span_of("max_entries")))
        }
    };
    me.rt.record_memory_history(enabled, max_entries);
    Ok(Value::None)
}

/// `dump_snapshot(filename="dump_snapshot.pickle")`, as PyTorch's
/// `torch.cuda.memory._dump_snapshot`: every device's segments, blocks and
/// recorded history, in the pickle pytorch.org/memory_viz opens.
pub(super) fn dump_snapshot(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    me.rt
        .need_cuda("`dump_snapshot`")
        .map_err(|e| e.at(b.span))?;
    let path = match b.given("filename") {
        None => "dump_snapshot.pickle".to_string(),
        Some((Value::Str(s), _)) => s.to_string(),
        Some((v, span)) => {
            return Err(Error::wrong_type("the file name", "a string", v.type_name()).at(*span))
        }
    };
    let w = snapshot::dump(&me.rt.devices, Path::new(&path))
        .map_err(|e| e.at(b.span_of("filename")))?;
    me.emit(Output::Text(format!(
        "wrote {path}: {} segment{}, {} event{} ({}); open it at pytorch.org/memory_viz",
        w.segments,
        if w.segments == 1 { "" } else { "s" },
        w.events,
        if w.events == 1 { "" } else { "s" },
        human_bytes(w.bytes as u128)
    )));
    Ok(Value::None)
}
