//! Methods and properties of tensors (`x.to(cuda)`, `x.shape`).

use std::sync::Arc;

use super::args::{bind, ArgVal};
use super::builtins::unary_op;
use super::docs::{self, Kind};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::lang::Span;
use crate::runtime::{DType, Device, Tensor};

impl Interp {
    pub(crate) fn call_method(
        &mut self,
        recv: Value,
        name: &Name,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let t = match &recv {
            Value::Tensor(t) => Arc::clone(t),
            Value::Stream(_) | Value::Event(_) => {
                let doc =
                    docs::member(recv.kind(), &name.name).ok_or_else(|| no_member(&recv, name))?;
                if doc.kind == Kind::Property && !args.is_empty() {
                    return Err(property_called(&name.name).at(name.span));
                }
                return self.stream_member(&recv, doc, args, span);
            }
            other => return Err(no_member(other, name)),
        };
        let doc = docs::member("tensor", &name.name).ok_or_else(|| no_member(&recv, name))?;
        if doc.kind == Kind::Property {
            // `x.nbytes()` and friends: accept the call form when nothing is passed.
            if args.is_empty() {
                return self.property(&recv, &name.name, name.span);
            }
            return Err(property_called(&name.name).at(name.span));
        }
        let b = bind(doc, args, span)?;
        let at = |e: Error| e.at(span);
        match doc.name {
            "to" => {
                let non_blocking = b.bool("non_blocking", false)?;
                match b.get("target").map(|(v, s)| (v.clone(), *s)) {
                    Some((Value::Device(d), s)) => {
                        let d = self.rt.check_device(d).map_err(|e| e.at(s))?;
                        let r = self.rt.transfer(&t, d, non_blocking);
                        self.flush_notes();
                        r.map(Value::Tensor).map_err(at)
                    }
                    Some((Value::DType(d), _)) if d == t.dtype() => Ok(Value::Tensor(t)),
                    Some((Value::DType(d), _)) => {
                        self.rt.cast(&t, d).map(Value::Tensor).map_err(at)
                    }
                    Some((v, s)) => Err(Error::wrong_type(
                        "the target of .to()",
                        "a device or a dtype",
                        v.type_name(),
                    )
                    .at(s)),
                    None => Err(at(Error::value(".to() needs a device or a dtype"))),
                }
            }
            "cpu" => self
                .rt
                .move_to(&t, Device::Cpu)
                .map(Value::Tensor)
                .map_err(at),
            "cuda" => {
                let i = b.int("index")?;
                let i = i.map(|i| u32::try_from(i).unwrap_or(u32::MAX));
                let d = self.rt.cuda(i).map_err(at)?;
                self.rt.move_to(&t, d).map(Value::Tensor).map_err(at)
            }
            "copy_to" => {
                let d = b.device("device")?.unwrap_or(Device::Cpu);
                self.rt.copy_to(&t, d).map(Value::Tensor).map_err(at)
            }
            "pin" => self.rt.pinned_copy(&t).map(Value::Tensor).map_err(at),
            "record_stream" => {
                let (s, tspan) = b.stream("stream")?;
                if t.device() != Device::Cuda(s.key.device) {
                    return Err(Error::value_help(
                        format!(
                            "this tensor is on {}, and stream `{}` on cuda:{}",
                            t.device(),
                            s.name,
                            s.key.device
                        ),
                        "record_stream takes a stream of the tensor's own device",
                    )
                    .at(tspan));
                }
                t.record_stream(s.key.stream);
                Ok(Value::None)
            }
            "reshape" => {
                let dims = reshape_dims(&b.rest)?;
                self.rt.reshape(&t, &dims).map(Value::Tensor).map_err(at)
            }
            "contiguous" => {
                if t.is_contiguous() {
                    Ok(Value::Tensor(t))
                } else {
                    self.rt.copy(&t).map(Value::Tensor).map_err(at)
                }
            }
            "transpose" => {
                let n = t.ndim();
                let d0 =
                    crate::runtime::shape::norm_dim(b.int("dim0")?.unwrap_or(0), n).map_err(at)?;
                let d1 =
                    crate::runtime::shape::norm_dim(b.int("dim1")?.unwrap_or(1), n).map_err(at)?;
                if n == 0 {
                    return Ok(Value::Tensor(t));
                }
                Ok(Value::tensor(t.transpose(d0, d1)))
            }
            "sum" | "mean" | "max" | "min" | "argmax" => self.reduce(doc.name, &t, &b),
            "exp" | "log" | "sqrt" | "abs" | "relu" | "sigmoid" | "tanh" => {
                let op = unary_op(doc.name).map_err(at)?;
                self.rt.unary(op, &t).map(Value::Tensor).map_err(at)
            }
            "item" => {
                self.rt.read_item(&t);
                item(&t).map_err(at)
            }
            "numel" => Ok(Value::Int(t.numel() as i64)),
            "fill_" => {
                let v = b.float("value")?.unwrap_or(0.0);
                self.rt.fill(&t, v);
                Ok(Value::Tensor(t))
            }
            "normal_" => {
                let mean = b.float("mean")?.unwrap_or(0.0);
                let std = b.float("std")?.unwrap_or(1.0);
                self.rt.normal_(&t, mean, std).map_err(at)?;
                Ok(Value::Tensor(t))
            }
            "new_full" => {
                let shape = b.sizes("size")?;
                let v = b.float("value")?.unwrap_or(0.0);
                self.rt
                    .full(&shape, v, t.dtype(), t.device(), Some(&t))
                    .map(Value::Tensor)
                    .map_err(at)
            }
            other => Err(at(Error::value(format!(
                "`.{other}` is documented but not implemented yet"
            )))),
        }
    }

    pub(crate) fn property(
        &mut self,
        v: &Value,
        name: &str,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        if let Value::Stream(_) | Value::Event(_) = v {
            return match docs::member(v.kind(), name) {
                Some(doc) if doc.kind == Kind::Property => {
                    self.stream_member(v, doc, Vec::new(), span)
                }
                Some(_) => Err(Error::value_help(
                    format!("`.{name}` is a method"),
                    format!("call it: `.{name}()`"),
                )
                .at(span)),
                None => Err(no_member(
                    v,
                    &Name {
                        name: name.into(),
                        span,
                    },
                )),
            };
        }
        let Value::Tensor(t) = v else {
            return Err(no_member(
                v,
                &Name {
                    name: name.into(),
                    span,
                },
            ));
        };
        Ok(match name {
            "shape" => Value::List(Arc::new(
                t.shape().iter().map(|&d| Value::Int(d as i64)).collect(),
            )),
            "dtype" => Value::DType(t.dtype()),
            "device" => Value::Device(t.device()),
            "ndim" => Value::Int(t.ndim() as i64),
            "nbytes" => Value::Int(t.nbytes() as i64),
            "numel" => Value::Int(t.numel() as i64),
            "is_pinned" => Value::Bool(t.is_pinned()),
            "T" => Value::tensor(t.t()),
            _ => {
                return Err(match docs::member("tensor", name) {
                    Some(d) if d.kind == Kind::Method => Error::value_help(
                        format!("`.{name}` is a method"),
                        format!("call it: `x.{name}()`"),
                    )
                    .at(span),
                    _ => no_member(
                        v,
                        &Name {
                            name: name.into(),
                            span,
                        },
                    ),
                })
            }
        })
    }
}

fn no_member(v: &Value, name: &Name) -> Diagnostic {
    let suggestion = match v {
        Value::Tensor(_) | Value::Stream(_) | Value::Event(_) => {
            super::suggest::closest(&name.name, docs::members(v.kind()).map(|d| d.name))
        }
        _ => None,
    };
    Error::UnknownAttr {
        ty: v.type_name().to_string(),
        name: name.name.clone(),
        suggestion,
    }
    .at(name.span)
}

fn property_called(name: &str) -> Error {
    Error::value_help(
        format!("`.{name}` is a property, not a method"),
        format!("write `.{name}` without parentheses"),
    )
}

fn reshape_dims(rest: &[(Value, Span)]) -> Result<Vec<i64>, Diagnostic> {
    let flat: Vec<(Value, Span)> = match rest {
        [(v @ (Value::List(_) | Value::Tensor(_)), s)] => super::args::flatten(v, *s)?,
        _ => rest.to_vec(),
    };
    flat.iter()
        .map(|(v, s)| match v {
            Value::Int(i) => Ok(*i),
            other => {
                Err(
                    Error::wrong_type("a dimension of reshape()", "an int", other.type_name())
                        .at(*s),
                )
            }
        })
        .collect()
}

fn item(t: &Tensor) -> Result<Value, Error> {
    if t.numel() != 1 {
        return Err(Error::value_help(
            format!(
                "item() needs a tensor with exactly one element, but this one has {}",
                t.numel()
            ),
            "reduce it first, e.g. `x.sum().item()`, or index one element: `x[0].item()`",
        ));
    }
    Ok(match t.dtype() {
        DType::Bool => Value::Bool(t.to_vec::<bool>()[0]),
        DType::I32 | DType::I64 => Value::Int(t.to_vec::<i64>()[0]),
        _ => Value::Float(t.to_vec::<f64>()[0]),
    })
}
