//! Literals: `[...]` nests become tensors (f32 if any float, else i64, else
//! bool) when every leaf is a number, lists otherwise; and the plain scalars
//! (ints, floats, bools) Python-style arithmetic works on.

use std::sync::Arc;

use super::args::Bound;
use super::Value;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::{DType, Tensor};

/// A nested literal before it is known to be a tensor or a list.
pub(super) enum Lit {
    Leaf(Value, Span),
    Node(Vec<Lit>, Span),
}

fn all_scalars(l: &Lit) -> bool {
    match l {
        Lit::Leaf(v, _) => scalar(v).is_some(),
        Lit::Node(kids, _) => kids.iter().all(all_scalars),
    }
}

pub(super) fn literal_value(l: Lit) -> Result<Value, Diagnostic> {
    match l {
        Lit::Leaf(v, _) => Ok(v),
        node if all_scalars(&node) => {
            literal_tensor(&node, DType::default_float()).map(Value::tensor)
        }
        Lit::Node(kids, _) => Ok(Value::List(Arc::new(
            kids.into_iter()
                .map(literal_value)
                .collect::<Result<_, _>>()?,
        ))),
    }
}

/// The `data` argument of `tensor(data)` and `x.new_tensor(data)`, and the
/// dtype it gives when none is asked for: a tensor and its own dtype, or a
/// literal (numbers, nested lists; `Interp::eval_call` passes those as
/// lists) made into one that keeps every number exactly (floats in f64,
/// f32 by default, as PyTorch reads Python's floats).
pub(crate) fn data_arg(b: &Bound, func: &str) -> Result<(Arc<Tensor>, DType), Diagnostic> {
    let (data, span) = b
        .get("data")
        .ok_or_else(|| Error::value(format!("{func} needs data")).at(b.span))?;
    match data {
        Value::Tensor(t) => Ok((Arc::clone(t), t.dtype())),
        other => {
            let t = literal_tensor_from_value(other, *span, DType::F64)?;
            let default = if t.dtype() == DType::F64 {
                DType::default_float()
            } else {
                t.dtype()
            };
            Ok((Arc::new(t), default))
        }
    }
}

/// A literal nest as plain values (lists of numbers), for a function that
/// reads its numbers exactly (`data_arg`).
pub(super) fn literal_list(l: Lit) -> Value {
    match l {
        Lit::Leaf(v, _) => v,
        Lit::Node(kids, _) => Value::List(Arc::new(kids.into_iter().map(literal_list).collect())),
    }
}

/// A literal nest as Python lists (`{"w": [1, 2]}`'s value): every
/// bracketed level a list of its own, numbers kept as numbers.
pub(super) fn python_list(l: Lit) -> Value {
    match l {
        Lit::Leaf(v, _) => v,
        Lit::Node(kids, _) => Value::list(kids.into_iter().map(python_list).collect()),
    }
}

/// A tensor from a rectangular nest of numbers: `float` if any float, else
/// i64, else bool.
pub(crate) fn literal_tensor_from_value(
    v: &Value,
    span: Span,
    float: DType,
) -> Result<Tensor, Diagnostic> {
    fn to_lit(v: &Value, span: Span) -> Lit {
        match v {
            Value::List(_) | Value::MutList(_) => {
                let items = v.items().unwrap_or_default();
                Lit::Node(items.iter().map(|v| to_lit(v, span)).collect(), span)
            }
            // `torch.tensor([loss_a, loss_b])`: a CPU tensor of one
            // number is that number, as PyTorch reads it.
            Value::Tensor(t) if t.ndim() == 0 && t.device() == crate::runtime::Device::Cpu => {
                let x = t.to_vec::<f64>()[0];
                let leaf = match t.dtype() {
                    d if d.is_float() => Value::float(x),
                    DType::Bool => Value::bool(x != 0.0),
                    _ => Value::Int(t.to_vec::<i64>()[0]),
                };
                Lit::Leaf(leaf, span)
            }
            other => Lit::Leaf(other.clone(), span),
        }
    }
    let lit = to_lit(v, span);
    if !all_scalars(&lit) {
        return Err(Error::wrong_type(
            "the data",
            "numbers or nested lists of numbers",
            v.type_name(),
        )
        .at(span));
    }
    literal_tensor(&lit, float)
}

fn literal_tensor(l: &Lit, float_dtype: DType) -> Result<Tensor, Diagnostic> {
    let mut shape = Vec::new();
    let mut cur = l;
    while let Lit::Node(kids, _) = cur {
        shape.push(kids.len());
        match kids.first() {
            Some(k) => cur = k,
            None => break,
        }
    }
    let mut leaves = Vec::new();
    check_shape(l, &shape, 0, &mut leaves)?;
    let float = leaves.iter().any(|v| matches!(v, Scalar::Float(_)));
    let int = leaves.iter().any(|v| matches!(v, Scalar::Int(_)));
    let t = if (float || leaves.is_empty()) && float_dtype == DType::F64 {
        Tensor::from_vec(leaves.iter().map(|s| s.as_f64()).collect(), shape)
    } else if float || leaves.is_empty() {
        Tensor::from_vec(leaves.iter().map(|s| s.as_f64() as f32).collect(), shape)
    } else if int {
        Tensor::from_vec(leaves.iter().map(|s| s.as_i64()).collect(), shape)
    } else {
        Tensor::from_vec(leaves.iter().map(|s| s.as_f64() != 0.0).collect(), shape)
    };
    Ok(t)
}

fn check_shape(
    l: &Lit,
    shape: &[usize],
    d: usize,
    leaves: &mut Vec<Scalar>,
) -> Result<(), Diagnostic> {
    match l {
        Lit::Leaf(v, span) => {
            if d != shape.len() {
                return Err(Error::shape(format!(
                    "this tensor literal is ragged: a number stands where a list of {} was expected",
                    shape[d]
                ))
                .at(*span));
            }
            leaves.push(scalar(v).unwrap_or(Scalar::Int(0)));
        }
        Lit::Node(kids, span) => {
            if d >= shape.len() || kids.len() != shape[d] {
                let want = shape
                    .get(d)
                    .map_or("a number".to_string(), |n| format!("{n} elements"));
                return Err(Error::Shape {
                    message: format!(
                        "this tensor literal is ragged: expected {want} like the first, found {}",
                        kids.len()
                    ),
                    help: Some("every row of a tensor literal must have the same length".into()),
                }
                .at(*span));
            }
            for k in kids {
                check_shape(k, shape, d + 1, leaves)?;
            }
        }
    }
    Ok(())
}

#[derive(Clone, Copy)]
pub(super) enum Scalar {
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl Scalar {
    pub(super) fn as_f64(self) -> f64 {
        match self {
            Scalar::Int(i) => i as f64,
            Scalar::Float(x) => x,
            Scalar::Bool(b) => b as i64 as f64,
        }
    }
    pub(super) fn as_i64(self) -> i64 {
        match self {
            Scalar::Int(i) => i,
            Scalar::Float(x) => x as i64,
            Scalar::Bool(b) => b as i64,
        }
    }
}

pub(super) fn scalar(v: &Value) -> Option<Scalar> {
    match v {
        Value::Int(i) => Some(Scalar::Int(*i)),
        Value::Float(x) => Some(Scalar::Float(x.get())),
        Value::Bool(b) => Some(Scalar::Bool(b.get())),
        _ => None,
    }
}

pub(crate) fn dtype_of_value(v: &Value) -> Option<DType> {
    match v {
        Value::Int(_) => Some(DType::I64),
        Value::Float(_) => Some(DType::default_float()),
        Value::Bool(_) => Some(DType::Bool),
        Value::Tensor(t) => Some(t.dtype()),
        _ => None,
    }
}
