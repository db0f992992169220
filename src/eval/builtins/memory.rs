//! The caching allocator's statistics: `memory_allocated` and friends,
//! `memory_stats`, `reset_peak`, `empty_cache`.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::display::memory::{host_stat_pairs, stat_pairs};
use crate::error::{Diagnostic, Error};
use crate::runtime::alloc::Stats;
use crate::runtime::Device;

pub(super) fn empty_cache(
    me: &mut Interp,
    _: &'static str,
    _: &Bound,
) -> Result<Value, Diagnostic> {
    me.rt.empty_cache();
    Ok(Value::None)
}

pub(super) fn reset_peak(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let d = stats_device(me, b)?;
    me.rt.reset_peak(d);
    Ok(Value::None)
}

/// `memory_allocated`, `max_memory_allocated`, `memory_reserved`, `max_memory_reserved`.
pub(super) fn stat(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (allocated, reserved) = match stats_device(me, b)? {
        Device::Cpu => {
            let h = me.rt.devices.host();
            (h.stats().allocated, h.stats().reserved)
        }
        Device::Cuda(d) => {
            let s = allocator_stats(me, d, b)?;
            (s.allocated, s.reserved)
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
        Device::Cpu => host_stat_pairs(me.rt.devices.host().stats()),
        Device::Cuda(d) => stat_pairs(&allocator_stats(me, d, b)?),
    };
    Ok(Value::Dict(Arc::new(
        pairs
            .into_iter()
            .map(|(k, v)| (k, Value::Int(v as i64)))
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
    d.map_err(|e| e.at(b.span))
}

/// `memory_summary(device=none)`: PyTorch's `torch.cuda.memory_summary`,
/// the text of `mem` for one device (the cpu: pinned host memory), as a
/// string to `print`.
pub(super) fn summary(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let text = match stats_device(me, b)? {
        Device::Cpu => crate::display::memory::host_summary(me.rt.devices.host().stats()),
        Device::Cuda(d) => {
            let info = me.rt.devices.info(d).cloned();
            let gpu = me.rt.devices.gpu(d);
            match (info, gpu) {
                (Some(info), Some(gpu)) => crate::display::memory::summary(&info, &gpu.allocator),
                _ => return Err(Error::value("no such device").at(b.span)),
            }
        }
    };
    Ok(Value::Str(text.into()))
}
