//! What `torch.cuda` tells about a device and the host's threads:
//!
//! - `torch.cuda.get_device_properties(d)`: name, compute capability and
//!   memory (`total_memory`), printed as PyTorch's
//!   `_CudaDeviceProperties(...)`;
//! - `torch.cuda.get_device_capability(d)`, `is_bf16_supported()`;
//! - `torch.cuda.mem_get_info(d)`: `(free, total)` as `cudaMemGetInfo`
//!   gives them, free being what the caching allocator has not reserved
//!   (memory it caches counts as used, the point of `empty_cache()`);
//! - `torch.cuda.default_stream(d)`;
//! - `torch.cuda.set_sync_debug_mode(m)` / `get_sync_debug_mode()`: whether
//!   an op that makes the host wait for a stream passes, warns or is
//!   refused (the runtime's `SyncDebugMode`);
//! - `torch.cuda.get_allocator_backend()`: `"native"`, the caching
//!   allocator (cudash models no `cudaMallocAsync` backend);
//! - `torch.get_num_threads()` / `set_num_threads(n)`: the host threads the
//!   CPU ops split their work across.

use std::sync::Arc;

use super::args::ArgVal;
use super::value::Object;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::dispatch::SyncDebugMode;
use crate::runtime::Device;

/// The names this module answers.
pub const NAMES: [&str; 10] = [
    "torch.cuda.set_sync_debug_mode",
    "torch.cuda.get_sync_debug_mode",
    "torch.cuda.get_allocator_backend",
    "torch.cuda.get_device_properties",
    "torch.cuda.get_device_capability",
    "torch.cuda.mem_get_info",
    "torch.cuda.is_bf16_supported",
    "torch.cuda.default_stream",
    "torch.get_num_threads",
    "torch.set_num_threads",
];

impl Interp {
    pub(super) fn call_cuda_info(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        let first = args.first().map(|a| a.value.clone());
        match name {
            "torch.get_num_threads" => {
                return Ok(Value::Int(crate::runtime::host_threads() as i64));
            }
            "torch.set_num_threads" => {
                let n = match first {
                    Some(Value::Int(n)) if n >= 1 => n as usize,
                    _ => {
                        return Err(at(Error::runtime(
                            "set_num_threads expects a positive integer",
                        )))
                    }
                };
                crate::runtime::set_thread_cap(n);
                return Ok(Value::None);
            }
            "torch.cuda.get_allocator_backend" => {
                return Ok(Value::Str(Arc::new("native".into())));
            }
            "torch.cuda.set_sync_debug_mode" => {
                self.rt.cuda(None).map_err(at)?;
                let mode = match &first {
                    Some(Value::Str(s)) => match s.as_str() {
                        "default" => Some(SyncDebugMode::Default),
                        "warn" => Some(SyncDebugMode::Warn),
                        "error" => Some(SyncDebugMode::Error),
                        _ => {
                            return Err(at(Error::runtime(
                                "invalid value of debug_mode, expected one of `default`, `warn`, `error`",
                            )))
                        }
                    },
                    // PyTorch's C++ takes any other level as `default`.
                    Some(Value::Int(i)) => {
                        Some(SyncDebugMode::from_level(*i).unwrap_or(SyncDebugMode::Default))
                    }
                    _ => None,
                };
                let Some(mode) = mode else {
                    return Err(at(Error::wrong_type(
                        "`debug_mode` of `torch.cuda.set_sync_debug_mode`",
                        "a str or an int",
                        first.as_ref().map_or("nothing", Value::type_name),
                    )));
                };
                self.rt.sync_debug = mode;
                return Ok(Value::None);
            }
            "torch.cuda.get_sync_debug_mode" => {
                self.rt.cuda(None).map_err(at)?;
                return Ok(Value::Int(self.rt.sync_debug.level()));
            }
            _ => {}
        }
        // The rest are about a CUDA device: the current one unless given
        // (an index, "cuda:1", a device).
        let index = match first.map(|v| self.resolve(v)) {
            None | Some(Value::None) => None,
            Some(Value::Int(i)) => Some(u32::try_from(i).unwrap_or(u32::MAX)),
            Some(Value::Device(d)) => match d.get() {
                Device::Cuda(i) => Some(i),
                other @ (Device::Cpu | Device::Meta) => {
                    return Err(at(Error::value(format!(
                        "Expected a cuda device, but got: {other} ({name})"
                    ))))
                }
            },
            Some(Value::Bool(_)) if name == "torch.cuda.is_bf16_supported" => None,
            Some(other) => {
                return Err(at(Error::wrong_type(
                    format!("the device of `{name}`"),
                    "an index or a cuda device",
                    other.type_name(),
                )))
            }
        };
        let d = match self.rt.cuda(index).map_err(at)? {
            Device::Cuda(d) => d,
            Device::Cpu | Device::Meta => return Err(at(Error::value("no CUDA device"))),
        };
        let info = self
            .rt
            .devices
            .info(d)
            .cloned()
            .ok_or_else(|| at(Error::value(format!("cuda:{d} does not exist"))))?;
        let (major, minor) = info.compute_capability;
        Ok(match name {
            "torch.cuda.get_device_properties" => {
                let o = Object::new(super::value::device_properties_class());
                o.set("name", Value::Str(Arc::new(info.name.clone())));
                o.set("major", Value::Int(i64::from(major)));
                o.set("minor", Value::Int(i64::from(minor)));
                o.set("total_memory", Value::Int(info.total_memory as i64));
                o.set("is_integrated", Value::bool(false));
                o.set("is_multi_gpu_board", Value::bool(false));
                Value::Object(Arc::new(o))
            }
            "torch.cuda.get_device_capability" => Value::List(Arc::new(vec![
                Value::Int(i64::from(major)),
                Value::Int(i64::from(minor)),
            ])),
            "torch.cuda.mem_get_info" => {
                let reserved = self
                    .rt
                    .devices
                    .gpu(d)
                    .map_or(0, |g| g.allocator.stats().reserved_bytes.all.current);
                let total = info.total_memory;
                Value::List(Arc::new(vec![
                    Value::Int(total.saturating_sub(reserved as usize) as i64),
                    Value::Int(total as i64),
                ]))
            }
            // bf16 arithmetic needs compute capability 8.0 (Ampere) or later.
            "torch.cuda.is_bf16_supported" => Value::bool(major >= 8),
            _ => Value::stream(
                self.rt
                    .stream_ref(crate::runtime::stream::StreamKey::new(d, 0)),
            ),
        })
    }
}
