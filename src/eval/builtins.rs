//! Builtin functions. Their signatures and help live in `docs.rs`.

use std::sync::Arc;

use super::args::{bind, to_tensor, ArgVal, Bound};
use super::docs::Doc;
use super::expr::literal_tensor_from_value;
use super::{Interp, Output, Value};
use crate::display;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::ops::elementwise::UnaryOp;
use crate::runtime::ops::factory::Distribution;
use crate::runtime::ops::index::{self, Index};
use crate::runtime::ops::reduce::ReduceOp;
use crate::runtime::shape::norm_dim;
use crate::runtime::{io, DType, Device, Tensor};

impl Interp {
    pub(crate) fn call_builtin(
        &mut self,
        doc: &'static Doc,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let b = bind(doc, args, span)?;
        let at = |e: Error| e.at(span);
        let name = doc.name;
        match name {
            "tensor" => {
                let (data, dspan) = b
                    .get("data")
                    .cloned()
                    .ok_or_else(|| at(Error::value("tensor() needs data")))?;
                let data = match &data {
                    Value::Tensor(t) => Arc::clone(t),
                    other => Arc::new(literal_tensor_from_value(other, dspan)?),
                };
                let dtype = b.dtype("dtype")?.unwrap_or(data.dtype());
                let device = self.device_arg(&b)?;
                self.rt
                    .tensor(&data, dtype, device)
                    .map(Value::Tensor)
                    .map_err(at)
            }
            "zeros" | "ones" | "empty" => {
                let shape = b.sizes_from_rest()?;
                let value = if name == "ones" { 1.0 } else { 0.0 };
                self.factory_full(&b, &shape, value, DType::F32)
            }
            "full" => {
                let shape = b.sizes("size")?;
                let (v, _) = b.get("value").cloned().unwrap_or((Value::Float(0.0), span));
                let default = super::expr::dtype_of_value(&v).unwrap_or(DType::F32);
                let value = b.float("value")?.unwrap_or(0.0);
                self.factory_full(&b, &shape, value, default)
            }
            "arange" => {
                let first = b.float("start")?.unwrap_or(0.0);
                let (start, end) = match b.float("end")? {
                    Some(end) => (first, end),
                    None => (0.0, first),
                };
                let step = b.float("step")?.unwrap_or(1.0);
                let all_int = ["start", "end", "step"]
                    .iter()
                    .all(|n| !matches!(b.given(n), Some((Value::Float(_), _))));
                let dtype =
                    b.dtype("dtype")?
                        .unwrap_or(if all_int { DType::I64 } else { DType::F32 });
                let device = self.device_arg(&b)?;
                self.rt
                    .arange(start, end, step, dtype, device)
                    .map(Value::Tensor)
                    .map_err(at)
            }
            "linspace" => {
                let start = b.float("start")?.unwrap_or(0.0);
                let end = b.float("end")?.unwrap_or(0.0);
                let steps = b.sizes("steps")?[0];
                let dtype = b.dtype("dtype")?.unwrap_or(DType::F32);
                let device = self.device_arg(&b)?;
                self.rt
                    .linspace(start, end, steps, dtype, device)
                    .map(Value::Tensor)
                    .map_err(at)
            }
            "eye" => {
                let n = b.sizes("n")?[0];
                let m = match b.given("m") {
                    Some(_) => b.sizes("m")?[0],
                    None => n,
                };
                let dtype = b.dtype("dtype")?.unwrap_or(DType::F32);
                let device = self.device_arg(&b)?;
                self.rt
                    .eye(n, m, dtype, device)
                    .map(Value::Tensor)
                    .map_err(at)
            }
            "rand" | "randn" => {
                let shape = b.sizes_from_rest()?;
                let dist = if name == "rand" {
                    Distribution::Uniform
                } else {
                    Distribution::Normal
                };
                let dtype = b.dtype("dtype")?.unwrap_or(DType::F32);
                let device = self.device_arg(&b)?;
                self.rt
                    .random(dist, &shape, dtype, device, None)
                    .map(Value::Tensor)
                    .map_err(at)
            }
            "zeros_like" | "ones_like" | "empty_like" | "full_like" | "rand_like"
            | "randn_like" => {
                let like = b.tensor("input")?;
                let dtype = b.dtype("dtype")?.unwrap_or(like.dtype());
                let device = match b.device("device")? {
                    Some(d) => self.rt.check_device(d).map_err(at)?,
                    None => like.device(),
                };
                let shape = like.shape().to_vec();
                let value = match name {
                    "ones_like" => 1.0,
                    "full_like" => b.float("value")?.unwrap_or(0.0),
                    _ => 0.0,
                };
                let like = Some(like.as_ref());
                match name {
                    "rand_like" => {
                        self.rt
                            .random(Distribution::Uniform, &shape, dtype, device, like)
                    }
                    "randn_like" => {
                        self.rt
                            .random(Distribution::Normal, &shape, dtype, device, like)
                    }
                    _ => self.rt.full(&shape, value, dtype, device, like),
                }
                .map(Value::Tensor)
                .map_err(at)
            }
            "cat" | "stack" => {
                let ts = self.tensor_list(&b, "tensors", name)?;
                let refs: Vec<&Tensor> = ts.iter().map(|t| t.as_ref()).collect();
                let dim = b.int("dim")?.unwrap_or(0);
                self.rt
                    .join(&refs, dim, name == "stack")
                    .map(Value::Tensor)
                    .map_err(at)
            }
            "seed" => {
                let n = b.int("n")?.unwrap_or(0);
                self.rt.generator = crate::runtime::rng::Generator::new(n as u64);
                Ok(Value::None)
            }
            "sum" | "mean" | "max" | "min" | "argmax" => {
                let t = b.tensor("input")?;
                self.reduce(name, &t, &b)
            }
            "exp" | "log" | "sqrt" | "abs" | "relu" | "sigmoid" | "tanh" => {
                let t = b.tensor("input")?;
                let op = unary_op(name).map_err(at)?;
                self.rt.unary(op, &t).map(Value::Tensor).map_err(at)
            }
            "matmul" => {
                let (x, y) = (b.tensor("a")?, b.tensor("b")?);
                self.rt.matmul(&x, &y).map(Value::Tensor).map_err(at)
            }
            "clear_output" => {
                let wait = b.bool("wait", false)?;
                self.emit(Output::Clear { wait });
                Ok(Value::None)
            }
            "print" => {
                for (v, _) in &b.rest {
                    self.host_read(v);
                }
                let parts: Vec<String> = b
                    .rest
                    .iter()
                    .map(|(v, _)| super::show::print_text(v))
                    .collect();
                self.emit(Output::Text(parts.join(" ")));
                Ok(Value::None)
            }
            "device" => {
                let i = b.int("index")?.unwrap_or(0);
                let i = u32::try_from(i)
                    .map_err(|_| at(Error::value(format!("device index {i} is out of range"))))?;
                self.rt.cuda(Some(i)).map(Value::Device).map_err(at)
            }
            "devices" => {
                let list = (0..self.rt.devices.count())
                    .map(|i| Value::Device(Device::Cuda(i)))
                    .collect();
                Ok(Value::List(Arc::new(list)))
            }
            "device_count" => Ok(Value::Int(self.rt.devices.count() as i64)),
            "current_device" => self.rt.cuda(None).map(Value::Device).map_err(at),
            "empty_cache" => {
                for d in 0..self.rt.devices.count() {
                    if let Some(mut a) = self.rt.devices.gpu(d) {
                        a.allocator.empty_cache();
                    }
                }
                self.rt.devices.host().empty_cache();
                Ok(Value::None)
            }
            "reset_peak" => {
                match self.stats_device(&b)? {
                    Device::Cpu => self.rt.devices.host().reset_peak(),
                    Device::Cuda(d) => {
                        if let Some(mut a) = self.rt.devices.gpu(d) {
                            a.allocator.reset_peak();
                        }
                    }
                }
                Ok(Value::None)
            }
            "memory_allocated"
            | "max_memory_allocated"
            | "memory_reserved"
            | "max_memory_reserved" => {
                let (allocated, reserved) = match self.stats_device(&b)? {
                    Device::Cpu => {
                        let h = self.rt.devices.host();
                        (h.stats().allocated, h.stats().reserved)
                    }
                    Device::Cuda(d) => {
                        let a = self
                            .rt
                            .devices
                            .gpu(d)
                            .ok_or_else(|| at(Error::value("no such device")))?;
                        (a.allocator.stats().allocated, a.allocator.stats().reserved)
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
            "memory_stats" => {
                let pairs = match self.stats_device(&b)? {
                    Device::Cpu => display::memory::host_stat_pairs(self.rt.devices.host().stats()),
                    Device::Cuda(d) => {
                        let a = self
                            .rt
                            .devices
                            .gpu(d)
                            .ok_or_else(|| at(Error::value("no such device")))?;
                        display::memory::stat_pairs(a.allocator.stats())
                    }
                };
                Ok(Value::Dict(Arc::new(
                    pairs
                        .into_iter()
                        .map(|(k, v)| (k, Value::Int(v as i64)))
                        .collect(),
                )))
            }
            "scatter" => {
                let x = b.tensor("input")?;
                let targets = self.device_list(&b, "devices")?;
                let dim = norm_dim(b.int("dim")?.unwrap_or(0), x.ndim()).map_err(at)?;
                if x.ndim() == 0 {
                    return Err(at(Error::shape(
                        "scatter() needs a tensor with at least one dimension",
                    )));
                }
                let n = x.shape()[dim];
                let chunk = n.div_ceil(targets.len()).max(1);
                let mut parts = Vec::new();
                for (k, &d) in targets.iter().enumerate() {
                    let lo = k * chunk;
                    if lo >= n {
                        break;
                    }
                    let mut idx = vec![Index::Slice(None, None, None); dim];
                    idx.push(Index::Slice(
                        Some(lo as i64),
                        Some((lo + chunk).min(n) as i64),
                        None,
                    ));
                    let part = index::select(&x, &idx).map_err(at)?;
                    parts.push(Value::Tensor(self.rt.copy_to(&part, d).map_err(at)?));
                }
                Ok(Value::List(Arc::new(parts)))
            }
            "gather" => {
                let ts = self.tensor_list(&b, "tensors", name)?;
                if ts.is_empty() {
                    return Err(at(Error::value("gather() needs at least one tensor")));
                }
                let target = b
                    .device("device")?
                    .unwrap_or(Device::Cuda(self.rt.current_device));
                let target = self.rt.check_device(target).map_err(at)?;
                let dim = b.int("dim")?.unwrap_or(0);
                let mut moved = Vec::with_capacity(ts.len());
                for t in &ts {
                    moved.push(self.rt.move_to(t, target).map_err(at)?);
                }
                let refs: Vec<&Tensor> = moved.iter().map(|t| t.as_ref()).collect();
                self.rt
                    .join(&refs, dim, false)
                    .map(Value::Tensor)
                    .map_err(at)
            }
            "replicate" => {
                let x = b.tensor("input")?;
                let targets = self.device_list(&b, "devices")?;
                let mut copies = Vec::with_capacity(targets.len());
                for d in targets {
                    copies.push(Value::Tensor(self.rt.copy_to(&x, d).map_err(at)?));
                }
                Ok(Value::List(Arc::new(copies)))
            }
            "save" => {
                let x = b.tensor("tensor")?;
                let path = self.path_arg(&b)?;
                self.rt.read_all(&x);
                io::save(&x, std::path::Path::new(&path)).map_err(at)?;
                Ok(Value::None)
            }
            "load" => {
                let path = self.path_arg(&b)?;
                let device = self.device_arg(&b)?;
                let mut loaded = io::load(std::path::Path::new(&path)).map_err(at)?;
                if loaded.len() == 1 {
                    let (_, t) = loaded.remove(0);
                    return self.rt.copy_to(&t, device).map(Value::Tensor).map_err(at);
                }
                let mut pairs = Vec::with_capacity(loaded.len());
                for (k, t) in loaded {
                    pairs.push((k, Value::Tensor(self.rt.copy_to(&t, device).map_err(at)?)));
                }
                Ok(Value::Dict(Arc::new(pairs)))
            }
            "stream" | "event" => self.stream_builtin(name, &b).map_err(at),
            _ => Err(at(Error::value(format!(
                "`{name}` is documented but not implemented yet"
            )))),
        }
    }

    fn device_arg(&self, b: &Bound) -> Result<Device, Diagnostic> {
        match b.device("device")? {
            None => Ok(Device::Cpu),
            Some(d) => {
                let span = b.get("device").map_or(b.span, |(_, s)| *s);
                self.rt.check_device(d).map_err(|e| e.at(span))
            }
        }
    }

    /// The device a memory statistic is about: `device=` (a device or an index), else the current one.
    fn stats_device(&self, b: &Bound) -> Result<Device, Diagnostic> {
        let d = match b.given("device") {
            None => self.rt.cuda(None),
            Some((Value::Int(i), _)) => self.rt.cuda(Some(*i as u32)),
            Some(_) => match b.device("device")? {
                Some(d) => self.rt.check_device(d),
                None => self.rt.cuda(None),
            },
        };
        d.map_err(|e| e.at(b.span))
    }

    fn device_list(&self, b: &Bound, name: &str) -> Result<Vec<Device>, Diagnostic> {
        let items = b.list(name)?;
        if items.is_empty() {
            return Err(Error::value(format!("`{name}` must list at least one device")).at(b.span));
        }
        items
            .iter()
            .map(|(v, s)| match v {
                Value::Device(d) => self.rt.check_device(*d).map_err(|e| e.at(*s)),
                other => Err(Error::wrong_type(
                    format!("an element of `{name}`"),
                    "a device",
                    other.type_name(),
                )
                .at(*s)),
            })
            .collect()
    }

    fn tensor_list(
        &self,
        b: &Bound,
        name: &str,
        func: &str,
    ) -> Result<Vec<Arc<Tensor>>, Diagnostic> {
        b.list(name)?
            .iter()
            .map(|(v, s)| {
                to_tensor(v).ok_or_else(|| {
                    Error::wrong_type(
                        format!("an element of the list given to {func}()"),
                        "a tensor",
                        v.type_name(),
                    )
                    .at(*s)
                })
            })
            .collect()
    }

    fn path_arg(&self, b: &Bound) -> Result<String, Diagnostic> {
        match b.get("path") {
            Some((Value::Str(s), _)) => Ok(s.to_string()),
            Some((v, s)) => Err(Error::wrong_type("the path", "a string", v.type_name()).at(*s)),
            None => Err(Error::value("a path is needed").at(b.span)),
        }
    }

    fn factory_full(
        &mut self,
        b: &Bound,
        shape: &[usize],
        value: f64,
        default: DType,
    ) -> Result<Value, Diagnostic> {
        let dtype = b.dtype("dtype")?.unwrap_or(default);
        let device = self.device_arg(b)?;
        self.rt
            .full(shape, value, dtype, device, None)
            .map(Value::Tensor)
            .map_err(|e| e.at(b.span))
    }

    pub(crate) fn reduce(
        &mut self,
        name: &str,
        t: &Tensor,
        b: &Bound,
    ) -> Result<Value, Diagnostic> {
        let op = match name {
            "sum" => ReduceOp::Sum,
            "mean" => ReduceOp::Mean,
            "max" => ReduceOp::Max,
            "min" => ReduceOp::Min,
            _ => ReduceOp::Argmax,
        };
        let dim = b.int("dim")?;
        let keepdim = b.bool("keepdim", false)?;
        self.rt
            .reduce(op, t, dim, keepdim)
            .map(Value::Tensor)
            .map_err(|e| e.at(b.span))
    }
}

/// The unary op a builtin or method is named after; an internal error (not a
/// quiet `tanh`) for a name that is routed here but names no op.
pub(crate) fn unary_op(name: &str) -> Result<UnaryOp, Error> {
    UnaryOp::from_name(name)
        .ok_or_else(|| Error::shape(format!("internal error: `{name}` is not a unary op")))
}
