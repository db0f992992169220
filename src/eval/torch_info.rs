//! Small `torch.` functions a program asks about its numbers and shapes:
//! `torch.finfo(dtype)` and `torch.iinfo(dtype)` (PyTorch's limits of a
//! dtype, read as attributes: `torch.finfo(torch.float16).eps`),
//! `torch.get_default_dtype()`, `torch.Size(sizes)`,
//! `torch.broadcast_shapes(*shapes)`, `torch.broadcast_tensors(*tensors)`
//! (views, `ExpandBackward0` each), `torch.meshgrid(*tensors, indexing)`
//! (each a view, then expanded: `ViewBackward0`, `ExpandBackward0`) and
//! `torch.normal(mean, std, size)`
//! (PyTorch's `normal_` draws, then scaled and shifted for tensors).

use std::sync::Arc;

use super::args::ArgVal;
use super::value::Object;
use super::{Interp, Value};
use crate::autograd::node::Backward;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::NewTensor;
use crate::runtime::shape::{broadcast_shapes, fmt_shape};
use crate::runtime::{DType, Device, Tensor};

type Out = Result<Value, Diagnostic>;

/// The names this module answers.
pub const NAMES: [&str; 9] = [
    "torch.finfo",
    "torch.iinfo",
    "torch.get_default_dtype",
    "torch.set_default_dtype",
    "torch.Size",
    "torch.broadcast_shapes",
    "torch.broadcast_tensors",
    "torch.meshgrid",
    "torch.normal",
];

fn positional(args: &[ArgVal]) -> Vec<&Value> {
    args.iter()
        .filter(|a| a.keyword.is_none())
        .map(|a| &a.value)
        .collect()
}

fn keyword<'a>(args: &'a [ArgVal], name: &str) -> Option<&'a Value> {
    args.iter()
        .find(|a| a.keyword.as_ref().is_some_and(|k| k.name == name))
        .map(|a| &a.value)
}

fn ints(v: &Value, span: Span, what: &str) -> Result<Vec<i64>, Diagnostic> {
    let items = v.items().ok_or_else(|| {
        Error::wrong_type(what, "a tuple or list of ints", v.type_name()).at(span)
    })?;
    items
        .iter()
        .map(|x| match x {
            Value::Int(i) => Ok(*i),
            other => Err(Error::wrong_type(what, "an int", other.type_name()).at(span)),
        })
        .collect()
}

impl Interp {
    /// `torch.meshgrid(*tensors, indexing="ij")` (or one list of them):
    /// the grid's coordinates, one tensor per input, as PyTorch's C++ makes
    /// them: each 0-d or 1-d input viewed along its own dim, then expanded
    /// to the grid's shape (`"xy"`: the first two dims swapped). Without
    /// `indexing`, PyTorch's warning, and `"ij"`.
    fn meshgrid(&mut self, args: &[ArgVal], span: Span) -> Out {
        let pos = positional(args);
        let given: Vec<Value> = match pos.as_slice() {
            [one @ (Value::List(_) | Value::MutList(_))] => {
                one.items().unwrap_or_default().to_vec()
            }
            more => more.iter().map(|v| (*v).clone()).collect(),
        };
        let xy = match keyword(args, "indexing") {
            None => {
                self.warn_once(
                    "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
                        .to_string(),
                );
                false
            }
            Some(Value::Str(s)) if s.as_str() == "ij" => false,
            Some(Value::Str(s)) if s.as_str() == "xy" => true,
            Some(other) => {
                return Err(Error::value(format!(
                    "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {}",
                    super::format::str_of(other)
                ))
                .at(span))
            }
        };
        let mut ts = Vec::with_capacity(given.len());
        for v in &given {
            match v {
                Value::Tensor(t) if t.ndim() <= 1 => ts.push(Arc::clone(t)),
                Value::Tensor(t) => {
                    return Err(Error::value(format!(
                        "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {}",
                        fmt_shape(t.shape())
                    ))
                    .at(span))
                }
                other => {
                    return Err(
                        Error::wrong_type("meshgrid", "a tensor", other.type_name()).at(span)
                    )
                }
            }
        }
        // The grid's dim of each input: "xy" swaps the first two.
        let place = |i: usize| match (xy && ts.len() >= 2, i) {
            (true, 0) => 1,
            (true, 1) => 0,
            _ => i,
        };
        let mut grid = vec![0i64; ts.len()];
        for (i, t) in ts.iter().enumerate() {
            grid[place(i)] = t.numel() as i64;
        }
        let mut out = Vec::with_capacity(ts.len());
        for (i, t) in ts.iter().enumerate() {
            let mut dims = vec![1i64; ts.len()];
            dims[place(i)] = -1;
            let viewed = crate::autograd::views::view(&self.rt, self.grad, t, &dims)
                .map_err(|e| e.at(span))?;
            let grown = crate::runtime::op::view::expand(&viewed, &grid).map_err(|e| e.at(span))?;
            out.push(Value::Tensor(crate::autograd::record::attach_node(
                &self.rt,
                self.grad,
                Arc::new(grown),
                "ExpandBackward0",
                Backward::Expand,
                &[&viewed],
            )));
        }
        Ok(Value::List(Arc::new(out)))
    }
}

fn size(dims: &[usize]) -> Value {
    Value::Size(Arc::new(
        dims.iter().map(|&d| Value::Int(d as i64)).collect(),
    ))
}

impl Interp {
    pub(super) fn call_torch_info(&mut self, name: &str, args: Vec<ArgVal>, span: Span) -> Out {
        let at = |e: Error| e.at(span);
        let pos = positional(&args);
        match name {
            "torch.finfo" | "torch.iinfo" => {
                let dt = match pos.first().or(keyword(&args, "type").as_ref()) {
                    None if name == "torch.finfo" => DType::default_float(),
                    Some(Value::DType(d)) => d.get(),
                    Some(other) => {
                        return Err(Error::wrong_type(name, "a dtype", other.type_name()).at(span))
                    }
                    None => return Err(Error::value("torch.iinfo needs a dtype").at(span)),
                };
                dtype_info(name == "torch.finfo", dt).map_err(at)
            }
            "torch.get_default_dtype" => Ok(Value::dtype(DType::default_float())),
            "torch.set_default_dtype" => {
                let d = match args.first().map(|a| &a.value) {
                    Some(Value::DType(d)) => d.get(),
                    _ => return Err(Error::type_error("set_default_dtype needs a dtype").at(span)),
                };
                match DType::set_default_float(d) {
                    true => Ok(Value::None),
                    false => Err(Error::Module {
                        class: "TypeError",
                        message: "only floating-point types are supported as the default type"
                            .into(),
                        help: None,
                    }
                    .at(span)),
                }
            }
            "torch.Size" => {
                let dims = match pos.first() {
                    None => vec![],
                    Some(v) => ints(v, span, "torch.Size")?,
                };
                Ok(Value::Size(Arc::new(
                    dims.into_iter().map(Value::Int).collect(),
                )))
            }
            "torch.broadcast_shapes" => {
                let mut shape: Vec<usize> = vec![];
                for v in pos {
                    let dims: Vec<usize> = match v {
                        Value::Int(n) => vec![*n as usize],
                        other => ints(other, span, "broadcast_shapes")?
                            .into_iter()
                            .map(|d| d as usize)
                            .collect(),
                    };
                    shape = broadcast_shapes(&shape, &dims).ok_or_else(|| {
                        Error::Shape {
                            message: format!(
                                "Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between {} and {}",
                                fmt_shape(&shape),
                                fmt_shape(&dims)
                            ),
                            help: None,
                        }
                        .at(span)
                    })?;
                }
                Ok(size(&shape))
            }
            "torch.broadcast_tensors" => {
                let ts: Vec<Arc<Tensor>> = pos
                    .iter()
                    .map(|v| match v {
                        Value::Tensor(t) => Ok(Arc::clone(t)),
                        other => Err(Error::wrong_type(
                            "broadcast_tensors",
                            "a tensor",
                            other.type_name(),
                        )
                        .at(span)),
                    })
                    .collect::<Result<_, _>>()?;
                let mut shape: Vec<usize> = vec![];
                for t in &ts {
                    shape = broadcast_shapes(&shape, t.shape()).ok_or_else(|| {
                        Error::Broadcast {
                            op: "broadcast_tensors".into(),
                            lhs: fmt_shape(&shape),
                            rhs: fmt_shape(t.shape()),
                        }
                        .at(span)
                    })?;
                }
                let sizes: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
                let mut out = Vec::with_capacity(ts.len());
                for t in &ts {
                    let v = Arc::new(crate::runtime::op::view::expand(t, &sizes).map_err(at)?);
                    out.push(Value::Tensor(crate::autograd::record::attach_node(
                        &self.rt,
                        self.grad,
                        v,
                        "ExpandBackward0",
                        Backward::Expand,
                        &[t],
                    )));
                }
                Ok(Value::List(Arc::new(out)))
            }
            "torch.meshgrid" => self.meshgrid(&args, span),
            _ => match keyword(&args, "generator") {
                Some(Value::Generator(g)) => {
                    let g = g.clone();
                    self.drawing_with(&g, span, None, |me| me.normal(&args, span))
                }
                _ => self.normal(&args, span),
            },
        }
    }

    /// `torch.normal(mean, std, size)` with numbers (`empty(size).normal_(mean,
    /// std)`), or with tensors: `normal_(0, 1)` draws of their broadcast
    /// shape, then `* std + mean`, as PyTorch's `normal_out_impl`.
    fn normal(&mut self, args: &[ArgVal], span: Span) -> Out {
        let at = |e: Error| e.at(span);
        let pos = positional(args);
        let arg = |k: usize, name: &str| pos.get(k).copied().or_else(|| keyword(args, name));
        let (mean, std) = (
            arg(0, "mean"),
            arg(1, "std").cloned().unwrap_or(Value::float(1.0)),
        );
        let number = |v: &Value| match v {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(f.get()),
            _ => None,
        };
        let device = match keyword(args, "device") {
            Some(Value::Device(d)) => d.get(),
            Some(Value::CurrentCuda) => Device::Cuda(self.rt.current_device),
            _ => Device::Cpu,
        };
        let (mean_t, std_t) = (
            mean.and_then(|v| match v {
                Value::Tensor(t) => Some(Arc::clone(t)),
                _ => None,
            }),
            match &std {
                Value::Tensor(t) => Some(Arc::clone(t)),
                _ => None,
            },
        );
        if mean_t.is_none() && std_t.is_none() {
            let (Some(m), Some(s)) = (mean.and_then(number), number(&std)) else {
                return Err(Error::value_help(
                    "torch.normal takes numbers or tensors for `mean` and `std`",
                    "e.g. `torch.normal(0.0, 1.0, size=(3,))`",
                )
                .at(span));
            };
            let dims = match arg(2, "size") {
                Some(v) => ints(v, span, "size")?,
                None => {
                    return Err(Error::value_help(
                        "torch.normal with numbers needs `size`",
                        "e.g. `torch.normal(0.0, 1.0, size=(3,))`",
                    )
                    .at(span))
                }
            };
            let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
            let new = NewTensor {
                shape: &shape,
                dtype: DType::default_float(),
                device,
                like: None,
            };
            let out = self.rt.empty(new).map_err(at)?;
            self.rt.normal_(&out, m, s).map_err(at)?;
            return Ok(Value::Tensor(out));
        }
        let like = mean_t.as_ref().or(std_t.as_ref()).expect("one is a tensor");
        let shape = match (&mean_t, &std_t) {
            (Some(m), Some(s)) => broadcast_shapes(m.shape(), s.shape()).ok_or_else(|| {
                Error::Broadcast {
                    op: "normal".into(),
                    lhs: fmt_shape(m.shape()),
                    rhs: fmt_shape(s.shape()),
                }
                .at(span)
            })?,
            _ => like.shape().to_vec(),
        };
        let new = NewTensor {
            shape: &shape,
            dtype: like.dtype().to_float(),
            device: like.device(),
            like: None,
        };
        let out = self.rt.empty(new).map_err(at)?;
        self.rt.normal_(&out, 0.0, 1.0).map_err(at)?;
        let scalar = |v: f64| Tensor::scalar(v);
        match (&std_t, number(&std)) {
            (Some(s), _) => self.rt.binary_(BinaryOp::Mul, &out, Operand::strong(s)),
            (None, Some(s)) => self
                .rt
                .binary_(BinaryOp::Mul, &out, Operand::weak(&scalar(s))),
            (None, None) => Err(Error::value("torch.normal: `std` is a number or a tensor")),
        }
        .map_err(at)?;
        match (&mean_t, mean.and_then(number)) {
            (Some(m), _) => self.rt.binary_(BinaryOp::Add, &out, Operand::strong(m)),
            (None, Some(m)) => self
                .rt
                .binary_(BinaryOp::Add, &out, Operand::weak(&scalar(m))),
            (None, None) => Err(Error::value("torch.normal: `mean` is a number or a tensor")),
        }
        .map_err(at)?;
        Ok(Value::Tensor(out))
    }
}

/// `torch.finfo(dt)` / `torch.iinfo(dt)`: an object with PyTorch's
/// attributes (`bits`, `eps`, `max`, `min`, `tiny`, `smallest_normal`,
/// `resolution`, `dtype`; `bits`, `max`, `min`, `dtype` for integers).
fn dtype_info(float: bool, dt: DType) -> Result<Value, Error> {
    let obj = Object::new(super::value::dtype_info_class(float));
    let name = dt.pytorch_name().trim_start_matches("torch.");
    obj.set("dtype", Value::Str(Arc::new(name.into())));
    obj.set("bits", Value::Int(dt.size() as i64 * 8));
    match (float, dt) {
        (true, DType::F32 | DType::F64 | DType::F16 | DType::BF16) => {
            // (eps, max, smallest normal, resolution) of each format.
            let (eps, max, tiny, resolution): (f64, f64, f64, f64) = match dt {
                DType::F32 => (f32::EPSILON.into(), f32::MAX.into(), f32::MIN_POSITIVE.into(), 1e-6),
                DType::F64 => (f64::EPSILON, f64::MAX, f64::MIN_POSITIVE, 1e-15),
                DType::F16 => (
                    half::f16::EPSILON.into(),
                    half::f16::MAX.into(),
                    half::f16::MIN_POSITIVE.into(),
                    0.001,
                ),
                _ => (
                    half::bf16::EPSILON.into(),
                    half::bf16::MAX.into(),
                    half::bf16::MIN_POSITIVE.into(),
                    0.01,
                ),
            };
            obj.set("eps", Value::float(eps));
            obj.set("max", Value::float(max));
            obj.set("min", Value::float(-max));
            obj.set("tiny", Value::float(tiny));
            obj.set("smallest_normal", Value::float(tiny));
            obj.set("resolution", Value::float(resolution));
        }
        (false, d) if d.is_int() => {
            let (min, max) = dt.int_bounds().expect("an integer dtype");
            obj.set("max", Value::Int(max));
            obj.set("min", Value::Int(min));
        }
        (true, _) => {
            return Err(Error::Module {
                class: "TypeError",
                message: "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'".into(),
                help: None,
            })
        }
        (false, _) => {
            return Err(Error::Module {
                class: "TypeError",
                message: "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'".into(),
                help: None,
            })
        }
    }
    Ok(Value::Object(Arc::new(obj)))
}
