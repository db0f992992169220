//! Builtin functions. Their signatures and help live in `docs.rs`.

use std::sync::Arc;

use super::args::{bind, ArgVal, Bound};
use super::docs::Doc;
use super::expr::literal_tensor_from_value;
use super::{not_available, Interp, Output, Value};
use crate::display;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::ops::elementwise::{self, UnaryOp};
use crate::runtime::ops::factory::{self, Distribution};
use crate::runtime::ops::reduce::{self, ReduceOp};
use crate::runtime::ops::{join, matmul};
use crate::runtime::{DType, Device, Tensor};

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
                let t = match &data {
                    Value::Tensor(t) => t.copy(),
                    other => literal_tensor_from_value(other, dspan)?,
                };
                let t = match b.dtype("dtype")? {
                    Some(d) if d != t.dtype() => t.cast(d),
                    _ => t,
                };
                let t = self
                    .place(t, b.device("device")?.unwrap_or(Device::Cpu))
                    .map_err(at)?;
                Ok(self.made(t))
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
                let t = factory::arange(start, end, step, dtype, device).map_err(at)?;
                Ok(self.made(t))
            }
            "linspace" => {
                let start = b.float("start")?.unwrap_or(0.0);
                let end = b.float("end")?.unwrap_or(0.0);
                let steps = b.sizes("steps")?[0];
                let dtype = b.dtype("dtype")?.unwrap_or(DType::F32);
                let t = factory::linspace(start, end, steps, dtype, self.device_arg(&b)?)
                    .map_err(at)?;
                Ok(self.made(t))
            }
            "eye" => {
                let n = b.sizes("n")?[0];
                let m = match b.given("m") {
                    Some(_) => b.sizes("m")?[0],
                    None => n,
                };
                let dtype = b.dtype("dtype")?.unwrap_or(DType::F32);
                let t = factory::eye(n, m, dtype, self.device_arg(&b)?).map_err(at)?;
                Ok(self.made(t))
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
                let t = factory::random(&mut self.generator, dist, &shape, dtype, device)
                    .map_err(at)?;
                Ok(self.made(t))
            }
            "zeros_like" | "ones_like" | "empty_like" | "full_like" | "rand_like"
            | "randn_like" => {
                let like = b.tensor("input")?;
                let dtype = b.dtype("dtype")?.unwrap_or(like.dtype());
                let device = b.device("device")?.unwrap_or(like.device());
                let shape = like.shape().to_vec();
                let t = match name {
                    "rand_like" | "randn_like" => {
                        let dist = if name == "rand_like" {
                            Distribution::Uniform
                        } else {
                            Distribution::Normal
                        };
                        factory::random(&mut self.generator, dist, &shape, dtype, device)
                    }
                    _ => {
                        let v = match name {
                            "ones_like" => 1.0,
                            "full_like" => b.float("value")?.unwrap_or(0.0),
                            _ => 0.0,
                        };
                        factory::full(&shape, v, dtype, device)
                    }
                }
                .map_err(at)?;
                Ok(self.made(t))
            }
            "cat" | "stack" => {
                let items = b.list("tensors")?;
                let mut ts = Vec::with_capacity(items.len());
                for (v, s) in &items {
                    ts.push(super::args::to_tensor(v).ok_or_else(|| {
                        Error::wrong_type(
                            format!("an element of the list given to {name}()"),
                            "a tensor",
                            v.type_name(),
                        )
                        .at(*s)
                    })?);
                }
                let refs: Vec<&Tensor> = ts.iter().map(|t| t.as_ref()).collect();
                let dim = b.int("dim")?.unwrap_or(0);
                let t = if name == "cat" {
                    join::cat(&refs, dim)
                } else {
                    join::stack(&refs, dim)
                }
                .map_err(at)?;
                Ok(self.made(t))
            }
            "seed" => {
                let n = b.int("n")?.unwrap_or(0);
                self.generator = crate::runtime::rng::Generator::new(n as u64);
                Ok(Value::None)
            }
            "sum" | "mean" | "max" | "min" | "argmax" => {
                let t = b.tensor("input")?;
                self.reduce(name, &t, &b)
            }
            "exp" | "log" | "sqrt" | "abs" | "relu" | "sigmoid" | "tanh" => {
                let t = b.tensor("input")?;
                let r = elementwise::unary(unary_op(name), &t).map_err(at)?;
                Ok(self.made(r))
            }
            "matmul" => {
                let (x, y) = (b.tensor("a")?, b.tensor("b")?);
                let r = matmul::matmul(&x, &y).map_err(at)?;
                Ok(self.made(r))
            }
            "print" => {
                let parts: Vec<String> = b
                    .rest
                    .iter()
                    .map(|(v, _)| display::value::print_text(v))
                    .collect();
                self.out.push(Output::Text(parts.join(" ")));
                Ok(Value::None)
            }
            "device" => {
                let i = b.int("index")?.unwrap_or(0);
                let i = u32::try_from(i)
                    .map_err(|_| at(Error::value(format!("device index {i} is out of range"))))?;
                self.cuda(Some(i)).map(Value::Device).map_err(at)
            }
            "devices" => {
                let list = (0..self.cuda_devices)
                    .map(|i| Value::Device(Device::Cuda(i)))
                    .collect();
                Ok(Value::List(Arc::new(list)))
            }
            "device_count" => Ok(Value::Int(self.cuda_devices as i64)),
            "current_device" => self.cuda(None).map(Value::Device).map_err(at),
            "stream"
            | "event"
            | "empty_cache"
            | "reset_peak"
            | "memory_allocated"
            | "max_memory_allocated"
            | "memory_reserved"
            | "memory_stats" => Err(at(not_available(&format!("{name}()")))),
            _ => Err(at(Error::value(format!(
                "`{name}` is documented but not implemented yet"
            )))),
        }
    }

    fn device_arg(&self, b: &Bound) -> Result<Device, Diagnostic> {
        Ok(b.device("device")?.unwrap_or(Device::Cpu))
    }

    fn factory_full(
        &mut self,
        b: &Bound,
        shape: &[usize],
        value: f64,
        default: DType,
    ) -> Result<Value, Diagnostic> {
        let dtype = b.dtype("dtype")?.unwrap_or(default);
        let device = b.device("device")?.unwrap_or(Device::Cpu);
        let t = factory::full(shape, value, dtype, device).map_err(|e| e.at(b.span))?;
        Ok(self.made(t))
    }

    /// Puts a host-built tensor on `device`.
    pub(crate) fn place(&mut self, t: Tensor, device: Device) -> Result<Tensor, Error> {
        match device {
            Device::Cpu => Ok(t),
            Device::Cuda(i) => {
                self.cuda(Some(i))?;
                Ok(t.with_device(device))
            }
        }
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
        let r = reduce::reduce(op, t, dim, keepdim).map_err(|e| e.at(b.span))?;
        Ok(self.made(r))
    }
}

pub(crate) fn unary_op(name: &str) -> UnaryOp {
    match name {
        "exp" => UnaryOp::Exp,
        "log" => UnaryOp::Log,
        "sqrt" => UnaryOp::Sqrt,
        "abs" => UnaryOp::Abs,
        "relu" => UnaryOp::Relu,
        "sigmoid" => UnaryOp::Sigmoid,
        _ => UnaryOp::Tanh,
    }
}
