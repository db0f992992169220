//! Tensor methods and properties: moving and copying (`.to`, `.cuda`,
//! `.cpu`, `.copy_to`, `.pin`), shape (`.reshape`, `.contiguous`,
//! `.transpose`), math, `.item`, in-place fills and `.new_full`.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::builtins::math::unary_op;
use super::super::builtins::pointwise::binary_op;
use super::super::literal::data_arg;
use super::super::{Interp, Value};
use crate::autograd::node::Backward;
use crate::autograd::{inplace, record};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::memory_format::MemoryFormat;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::shape::norm_dim;
use crate::runtime::{DType, Device, Tensor};

type Out = Result<Value, Diagnostic>;

/// `x.to(device | dtype | other, non_blocking=false)`, `x.to(device=…,
/// dtype=…)`: the dtype first, then the device (one or both; another
/// tensor's both); `x` itself when nothing changes.
/// CUDA device `i` (an int given as a device), checked.
pub(super) fn cuda_index(me: &Interp, i: i64) -> Result<Device, Error> {
    let i = u32::try_from(i)
        .map_err(|_| Error::value(format!("a device's number is 0 or more, not {i}")))?;
    me.rt.cuda(Some(i))
}

pub(super) fn to(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    // `x.to("cpu", torch.uint8)`: PyTorch's `to(device, dtype,
    // non_blocking)`, the dtype second.
    let (non_blocking, mut device, mut dtype) = match b.get("non_blocking") {
        Some((Value::DType(d), _)) => {
            let non_blocking = match b.get("device") {
                Some((Value::Bool(w), _)) => w.get(),
                _ => false,
            };
            (non_blocking, None, Some(d.get()))
        }
        _ => (
            b.bool("non_blocking", false)?,
            b.device("device")?,
            b.dtype("dtype")?,
        ),
    };
    match b.get("target").map(|(v, s)| (v.clone(), *s)) {
        Some((Value::Device(d), _)) if device.is_none() => device = Some(d.get()),
        Some((Value::DType(d), _)) if dtype.is_none() => dtype = Some(d.get()),
        // `x.to(rank)`: CUDA device `rank`, as PyTorch reads an int.
        Some((Value::Int(i), s)) if device.is_none() => {
            device = Some(cuda_index(me, i).map_err(|e| e.at(s))?)
        }
        // `x.to(other)`: other's dtype and device, as PyTorch's.
        Some((Value::Tensor(other), _)) if device.is_none() && dtype.is_none() => {
            device = Some(other.device());
            dtype = Some(other.dtype());
        }
        Some((v @ (Value::Device(_) | Value::DType(_)), s)) => {
            let what = match v {
                Value::Device(_) => "device",
                _ => "dtype",
            };
            return Err(Error::value(format!(
                "the {what} is given twice: positionally and as `{what}=`"
            ))
            .at(s));
        }
        Some((v, s)) => {
            return Err(Error::wrong_type(
                "the target of .to()",
                "a device or a dtype",
                v.type_name(),
            )
            .at(s))
        }
        None => {}
    }
    let format = b.memory_format("memory_format")?;
    if device.is_none() && dtype.is_none() && format.is_none() {
        return Err(at(Error::value(".to() needs a device or a dtype")));
    }
    let mut x = Arc::clone(t);
    if let Some(f) = format {
        let span = b.span_of("memory_format");
        x = me.rt.in_format(&x, f).map_err(|e| e.at(span))?;
    }
    if let Some(d) = dtype.filter(|&d| d != x.dtype()) {
        x = me.rt.cast_keeping_layout(&x, d).map_err(at)?;
    }
    if let Some(d) = device {
        let span = b
            .get("device")
            .or(b.get("target"))
            .map_or(b.span, |(_, s)| *s);
        let d = me.rt.check_device(d).map_err(|e| e.at(span))?;
        let r = me
            .rt
            .keeping_layout(&x, |rt, x| rt.transfer(x, d, non_blocking));
        me.flush_notes();
        x = r.map_err(at)?;
    }
    Ok(Value::Tensor(to_copy(me, t, x).map_err(|e| e.at(b.span))?))
}

/// `x` moved or converted (`to`, `cuda`, `cpu`, `float()`): a new tensor
/// autograd follows back to `t` (`ToCopyBackward0`), or `t` itself.
fn to_copy(me: &mut Interp, t: &Arc<Tensor>, x: Arc<Tensor>) -> Result<Arc<Tensor>, Error> {
    match Arc::ptr_eq(t, &x) {
        true => Ok(x),
        false => me.copied(t, x, "ToCopyBackward0"),
    }
}

pub(super) fn cpu(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let x = me
        .rt
        .keeping_layout(t, |rt, x| rt.move_to(x, Device::Cpu))
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(to_copy(me, t, x).map_err(|e| e.at(b.span))?))
}

/// `x.cuda(device=none, non_blocking=false)`: to the current CUDA device,
/// or the one given as an index or as `cuda:N`.
pub(super) fn cuda(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let d = me.rt.cuda(b.cuda_index("device")?).map_err(at)?;
    let non_blocking = b.bool("non_blocking", false)?;
    let r = me
        .rt
        .keeping_layout(t, |rt, x| rt.transfer(x, d, non_blocking));
    me.flush_notes();
    let x = r.map_err(at)?;
    Ok(Value::Tensor(to_copy(me, t, x).map_err(|e| e.at(b.span))?))
}

pub(super) fn copy_to(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let d = b.device("device")?.unwrap_or(Device::Cpu);
    let x = me.rt.copy_to(t, d).map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(to_copy(me, t, x).map_err(|e| e.at(b.span))?))
}

/// `x.pin()`: a copy in pinned memory; `x` itself when it is pinned already.
pub(super) fn pin(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    if t.is_pinned() {
        return Ok(Value::Tensor(Arc::clone(t)));
    }
    b.result(me.rt.pinned_copy(t))
}

pub(super) fn record_stream(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
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

pub(super) fn reshape(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dims = reshape_dims(&b.rest)?;
    let x = me.rt.reshape(t, &dims).map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(me.reshaped(t, x).map_err(|e| e.at(b.span))?))
}

/// `x.contiguous(memory_format=torch.contiguous_format)`: x itself when
/// laid out so already, else a copy that is (`CloneBackward0`).
pub(super) fn contiguous(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let format = b
        .memory_format("memory_format")?
        .unwrap_or(MemoryFormat::Contiguous);
    if format == MemoryFormat::Preserve {
        return Err(Error::runtime(
            "preserve memory format is unsupported by the contiguous operator",
        )
        .at(b.span_of("memory_format")));
    }
    let x = me.rt.in_format(t, format).map_err(|e| e.at(b.span))?;
    if Arc::ptr_eq(&x, t) {
        return Ok(Value::Tensor(x));
    }
    let x = me
        .copied(t, x, "CloneBackward0")
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(x))
}

pub(super) fn transpose(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let n = t.ndim();
    let d0 = norm_dim(b.int("dim0")?.unwrap_or(0), n).map_err(at)?;
    let d1 = norm_dim(b.int("dim1")?.unwrap_or(1), n).map_err(at)?;
    if n == 0 {
        return Ok(Value::Tensor(Arc::clone(t)));
    }
    let x = Arc::new(t.transpose(d0, d1));
    Ok(Value::Tensor(me.recorded(
        t,
        x,
        "TransposeBackward0",
        Backward::Transpose { d0, d1 },
    )))
}

/// `x.t()`: PyTorch's transpose of a matrix (`TBackward0`); a vector or a
/// number as it is; more dimensions are PyTorch's error.
pub(super) fn t(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    match t.ndim() {
        0 | 1 => Ok(Value::Tensor(Arc::clone(t))),
        2 => {
            let x = Arc::new(t.transpose(0, 1));
            let backward = Backward::Transpose { d0: 0, d1: 1 };
            Ok(Value::Tensor(me.recorded(t, x, "TBackward0", backward)))
        }
        n => Err(Error::shape(format!(
            "t() expects a tensor with <= 2 dimensions, but self is {n}D"
        ))
        .at(b.span)),
    }
}

pub(super) fn reduce(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    me.reduce(name, t, b)
}

pub(super) fn unary(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    if name == "round" {
        if let Some(n) = b.int("decimals")?.filter(|&n| n != 0) {
            return crate::eval::builtins::math::round_decimals(me, t, n).map_err(at);
        }
    }
    let op = unary_op(name).map_err(at)?;
    b.result(crate::autograd::autocast::unary(&mut me.rt, me.grad, op, t))
}

/// `x.exp_()`, `x.relu_()`, ...: the op written into x, x returned.
pub(super) fn unary_(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let op = unary_op(name).map_err(at)?;
    inplace::unary_(&mut me.rt, me.grad, op, t).map_err(at)?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `.item()`: a host read of the one element (a copy on the current stream,
/// which the host waits for).
pub(super) fn item(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    if t.numel() != 1 {
        return Err(Error::value_help(
            format!(
                "item() needs a tensor with exactly one element, but this one has {}",
                t.numel()
            ),
            "reduce it first, e.g. `x.sum().item()`, or index one element: `x[0].item()`",
        )
        .at(b.span));
    }
    let value = || match t.dtype() {
        DType::Bool => Value::bool(t.to_vec::<bool>()[0]),
        d if d.is_int() => Value::Int(t.to_vec::<i64>()[0]),
        _ => Value::float(t.to_vec::<f64>()[0]),
    };
    me.rt.read_item(t, value).map_err(|e| e.at(b.span))
}

pub(super) fn numel(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, _: &Bound) -> Out {
    Ok(Value::Int(t.numel() as i64))
}

/// `x.fill_(v)` and `x.zero_()`: every element set in place, `x` returned.
pub(super) fn fill_(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let (v, node) = match name {
        "zero_" => (Fill::Int(0), "ZeroBackward0"),
        _ => (b.fill("value")?.unwrap_or(Fill::Int(0)), "FillBackward2"),
    };
    inplace::overwrite(&mut me.rt, me.grad, t, node, |rt| rt.fill(t, v))
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(Arc::clone(t)))
}

pub(super) fn normal_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let mean = b.float("mean")?.unwrap_or(0.0);
    let std = b.float("std")?.unwrap_or(1.0);
    inplace::overwrite(&mut me.rt, me.grad, t, "NormalBackward0", |rt| {
        rt.normal_(t, mean, std)
    })
    .map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.new_full(size, fill_value)`, and `x.new_zeros(*size)`,
/// `x.new_ones(*size)`, `x.new_empty(*size)`: a new tensor with the dtype
/// and device of `x` unless `dtype=`/`device=` say otherwise.
pub(super) fn new_full(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let (shape, v) = match name {
        "new_full" => (
            b.sizes("size")?,
            b.fill("fill_value")?.unwrap_or(Fill::Int(0)),
        ),
        "new_ones" => (b.sizes_from_rest()?, Fill::Int(1)),
        _ => (b.sizes_from_rest()?, Fill::Int(0)),
    };
    let dtype = b.dtype("dtype")?.unwrap_or(t.dtype());
    let device = match b.device("device")? {
        Some(d) => me
            .rt
            .check_device(d)
            .map_err(|e| e.at(b.span_of("device")))?,
        None => t.device(),
    };
    let new = NewTensor {
        shape: &shape,
        dtype,
        device,
        like: Some(t),
    };
    b.result(match name {
        "new_empty" => me.rt.empty(new),
        _ => me.rt.full(new, v),
    })
}

/// `x.data_ptr()`: the address of the first element.
pub(super) fn data_ptr(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, _: &Bound) -> Out {
    Ok(Value::Int(t.data_ptr() as i64))
}

/// `x.type(dtype)`: `x` in `dtype`, as `x.to(dtype)`; `x.type()`: PyTorch's
/// name for its type (`torch.cuda.FloatTensor`).
pub(super) fn type_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    // `x.type(torch.DoubleTensor)`, `x.type("torch.cuda.FloatTensor")`: a
    // tensor type names a dtype and a device, and `x` goes to both.
    let named = match b.get("dtype") {
        Some((Value::Str(s), _)) => Some(s.to_string()),
        Some((v, _)) => super::super::cuda_legacy::type_named(v),
        None => None,
    };
    if let Some(name) = named {
        let Some((dtype, cuda)) = crate::runtime::DType::ALL.iter().find_map(|&d| {
            [false, true]
                .into_iter()
                .find(|&c| d.torch_type(c) == name)
                .map(|c| (d, c))
        }) else {
            return Err(Error::value(format!("invalid type: '{name}'")).at(b.span_of("dtype")));
        };
        let device = match cuda {
            true if t.device().is_cuda() => Value::device(t.device()),
            true => Value::CurrentCuda,
            false => Value::device(crate::runtime::Device::Cpu),
        };
        let args = [device, Value::dtype(dtype)]
            .into_iter()
            .map(|value| super::super::args::ArgVal {
                keyword: None,
                value,
                span: b.span,
            })
            .collect();
        let to = crate::lang::ast::Name::new("to".into(), b.span);
        return me.call_method(Value::Tensor(Arc::clone(t)), &to, args, b.span);
    }
    let Some(dtype) = b.dtype("dtype")? else {
        let name = t.dtype().torch_type(t.device().is_cuda());
        return Ok(Value::Str(Arc::new(name)));
    };
    if t.dtype() == dtype {
        return Ok(Value::Tensor(Arc::clone(t)));
    }
    let x = me
        .rt
        .cast_keeping_layout(t, dtype)
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(to_copy(me, t, x).map_err(|e| e.at(b.span))?))
}

/// `x.data`: the same elements (shared memory) without autograd history, as
/// `x.detach()`, but, as PyTorch's, with a version counter of its own:
/// autograd does not see an in-place change made through it (backward then
/// uses the changed values, where after `detach()` it reports the change).
pub(super) fn data(t: &Tensor) -> Result<Value, Error> {
    Ok(Value::tensor(crate::autograd::meta::data_of(t)))
}

pub(super) fn is_cuda(t: &Tensor) -> Result<Value, Error> {
    Ok(Value::bool(t.device().is_cuda()))
}

/// `x._version`: PyTorch's version counter; an inference tensor has none.
pub(super) fn version(t: &Tensor) -> Result<Value, Error> {
    match t.is_inference() {
        true => Err(Error::runtime(
            "Inference tensors do not track version counter.",
        )),
        false => Ok(Value::Int(t.version() as i64)),
    }
}

pub(super) fn is_pinned(t: &Tensor) -> Result<Value, Error> {
    Ok(Value::bool(t.is_pinned()))
}

/// `x.share_memory_()`: `x` itself, its memory shared memory from now on.
pub(super) fn share_memory_(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, _: &Bound) -> Out {
    t.share_memory();
    Ok(Value::Tensor(Arc::clone(t)))
}

pub(super) fn nbytes(t: &Tensor) -> Result<Value, Error> {
    Ok(Value::Int(t.nbytes() as i64))
}

/// `x.itemsize`: bytes per element, as `x.element_size()`.
pub(super) fn itemsize(t: &Tensor) -> Result<Value, Error> {
    Ok(Value::Int(t.dtype().size() as i64))
}

pub(super) fn shape(t: &Tensor) -> Value {
    Value::Size(Arc::new(
        t.shape().iter().map(|&d| Value::Int(d as i64)).collect(),
    ))
}

/// `reshape(2, 3)` or `reshape([2, 3])`.
fn reshape_dims(rest: &[(Value, Span)]) -> Result<Vec<i64>, Diagnostic> {
    super::shape::int_list(rest, "a dimension of reshape()")
}

/// `x.matmul(other)`: `x @ other`.
pub(super) fn matmul(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let other = b.tensor("other")?;
    b.result(crate::autograd::autocast::matmul(
        &mut me.rt, me.grad, "matmul", t, &other,
    ))
}

/// `x.mm(y)`, `x.bmm(y)`, `x.mv(v)`.
pub(super) fn product(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let other = b.tensor("other")?;
    crate::eval::builtins::math::ranked_product(me, name, t, &other).map_err(|e| e.at(b.span))
}

/// `x.any()` / `x.all()`: whether any / every element is nonzero (NaN
/// counts as nonzero), as a 0-d bool tensor on x's device.
pub(super) fn any_all(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let zero = Tensor::scalar(0i64);
    let operand = |tensor| Operand { tensor, weak: true };
    let nonzero = me
        .rt
        .binary(BinaryOp::Ne, operand(t), operand(&zero))
        .map_err(at)?;
    // Over every element, or along `dim` (an int or several) with `keepdim`.
    let dims: Vec<i64> = match b.given("dim") {
        None => vec![],
        Some((Value::Int(d), _)) => vec![*d],
        Some((v, s)) => super::shape::int_list(&[(v.clone(), *s)], "a dim")?,
    };
    let keepdim = b.bool("keepdim", false)?;
    let count = match dims.is_empty() {
        true => me.rt.reduce(ReduceOp::Sum, &nonzero, None, false),
        false => me.rt.reduce_dims(ReduceOp::Sum, &nonzero, &dims, keepdim),
    }
    .map_err(at)?;
    let along = crate::runtime::shape::norm_dims(&dims, t.ndim().max(1)).map_err(at)?;
    let size: usize = match dims.is_empty() {
        true => t.numel(),
        false => along
            .iter()
            .map(|&d| t.shape().get(d).copied().unwrap_or(1))
            .product(),
    };
    let (op, against) = match name {
        "any" => (BinaryOp::Gt, Tensor::scalar(0i64)),
        _ => (BinaryOp::Eq, Tensor::scalar(size as i64)),
    };
    b.result(me.rt.binary(op, operand(&count), operand(&against)))
}

/// `x.copy_(src, non_blocking=false)`: `src`'s elements into x in place,
/// broadcast and converted to x's dtype, from any device; returns x.
pub(super) fn copy_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let src = b.tensor("src")?;
    let non_blocking = b.bool("non_blocking", false)?;
    let r = inplace::copy_(&mut me.rt, me.grad, t, &src, |rt| {
        rt.copy_(t, &src, non_blocking)
    });
    me.flush_notes();
    r.map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.new_tensor(data)`: a tensor of `data` with x's dtype, on x's device.
pub(super) fn new_tensor(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let (data, _) = data_arg(b, "new_tensor()")?;
    b.result(me.rt.tensor(&data, t.dtype(), t.device()))
}

/// `.float()`, `.double()`, `.half()`, `.bfloat16()`, `.int()`, `.long()`,
/// `.bool()`: `.to(dtype)`, `x` itself when it has that dtype already.
pub(super) fn cast_to(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dtype = match name {
        "float" => DType::F32,
        "double" => DType::F64,
        "half" => DType::F16,
        "bfloat16" => DType::BF16,
        "int" => DType::I32,
        "long" => DType::I64,
        "byte" => DType::U8,
        "char" => DType::I8,
        "short" => DType::I16,
        _ => DType::Bool,
    };
    if t.dtype() == dtype {
        return Ok(Value::Tensor(Arc::clone(t)));
    }
    let x = me
        .rt
        .cast_keeping_layout(t, dtype)
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(to_copy(me, t, x).map_err(|e| e.at(b.span))?))
}

/// `x.add(y)`, `x.sub(y)`, `x.mul(y)`, `x.div(y)`, `x.pow(y)`: `x OP y`,
/// with a number as weak as one written beside the operator.
/// `x.eq(other)`, `ne`, `lt`, `le`, `gt`, `ge`: `x == other` and the rest.
pub(super) fn compare(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let op = match name {
        "eq" => BinaryOp::Eq,
        "ne" => BinaryOp::Ne,
        "lt" => BinaryOp::Lt,
        "le" => BinaryOp::Le,
        "gt" => BinaryOp::Gt,
        _ => BinaryOp::Ge,
    };
    let other = b.get("other").map_or(Value::None, |(v, _)| v.clone());
    me.binary(
        crate::lang::ast::BinOp::Elementwise(op),
        Value::Tensor(Arc::clone(t)),
        other,
    )
    .map_err(|e| e.at(b.span))
}

pub(super) fn arith(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let op = match name {
        "add" => BinaryOp::Add,
        "sub" => BinaryOp::Sub,
        "mul" => BinaryOp::Mul,
        "div" => BinaryOp::Div,
        _ => BinaryOp::Pow,
    };
    let (other, weak) = me.operand_arg(b, "other")?;
    let other = Operand {
        tensor: &other,
        weak,
    };
    if let Some(rounding) = rounding_mode(b)? {
        return b.result(rounded_div(&mut me.rt, me.grad, t, other, rounding));
    }
    if let Some(alpha) = alpha_arg(b, name == "sub")? {
        let alpha = Operand::weak(&alpha);
        let op = crate::runtime::op::ternary::TernaryOp::AddScaled;
        return b.result(record::ternary(
            &mut me.rt,
            me.grad,
            op,
            Operand::strong(t),
            other,
            alpha,
        ));
    }
    b.result(crate::autograd::autocast::binary(
        &mut me.rt,
        me.grad,
        op,
        Operand::strong(t),
        other,
    ))
}

/// `div`'s `rounding_mode=`: none, `"floor"` (`floor`: true) or `"trunc"`
/// (false), with PyTorch's error for another.
fn rounding_mode(b: &Bound) -> Result<Option<bool>, Diagnostic> {
    match b.given("rounding_mode") {
        None | Some((Value::None, _)) => Ok(None),
        Some((Value::Str(s), span)) => match s.as_str() {
            "floor" => Ok(Some(true)),
            "trunc" => Ok(Some(false)),
            other => Err(Error::runtime(format!(
                "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{other}'"
            ))
            .at(*span)),
        },
        Some((v, span)) => {
            Err(Error::wrong_type("rounding_mode", "a string or None", v.type_name()).at(*span))
        }
    }
}

/// `x.div(other, rounding_mode=...)`: the quotient rounded down
/// (`floor`, PyTorch's `floor_divide`) or towards zero (`trunc`: for
/// floats the true quotient truncated, for integers `(x - fmod(x, y)) //
/// y`, exact); in the operands' promoted dtype, as PyTorch's.
fn rounded_div(
    rt: &mut crate::runtime::dispatch::Runtime,
    mode: crate::autograd::Mode,
    t: &Arc<Tensor>,
    other: Operand,
    floor: bool,
) -> Result<Arc<Tensor>, Error> {
    if floor {
        return record::binary(rt, mode, BinaryOp::FloorDiv, Operand::strong(t), other);
    }
    let quotient = record::binary(rt, mode, BinaryOp::Div, Operand::strong(t), other)?;
    if quotient.dtype().is_float() && (t.dtype().is_float() || other.tensor.dtype().is_float()) {
        return record::unary(
            rt,
            mode,
            crate::runtime::op::unary::UnaryOp::Trunc,
            &quotient,
        );
    }
    let rest = record::binary(rt, mode, BinaryOp::Fmod, Operand::strong(t), other)?;
    let exact = record::binary(
        rt,
        mode,
        BinaryOp::Sub,
        Operand::strong(t),
        Operand::strong(&rest),
    )?;
    record::binary(rt, mode, BinaryOp::FloorDiv, Operand::strong(&exact), other)
}

/// `add`'s and `sub`'s `alpha=` (none when left out or 1): the scale of
/// `other`, negated for `sub` (PyTorch's `sub` is `add` with `-alpha`).
fn alpha_arg(b: &Bound, negate: bool) -> Result<Option<Tensor>, Diagnostic> {
    let sign = if negate { -1 } else { 1 };
    match b.given("alpha") {
        None => Ok(None),
        Some((Value::Int(1), _)) => Ok(None),
        Some((Value::Int(i), _)) => Ok(Some(Tensor::scalar(sign * *i))),
        Some((Value::Bool(v), _)) => Ok(Some(Tensor::scalar(sign * i64::from(v.get())))),
        // A 0-d tensor that needs no gradient is a number, as in PyTorch
        // (LBFGS scales by its dot products: `q.add_(d, alpha=-al[i])`).
        Some((Value::Tensor(t), span)) if t.device().is_meta() => {
            Err(super::super::args::no_item(*span))
        }
        Some((Value::Tensor(t), _))
            if t.ndim() == 0 && !crate::autograd::meta::requires_grad(t) =>
        {
            Ok(Some(match t.dtype() {
                d if d.is_float() => Tensor::scalar(sign as f64 * t.to_vec::<f64>()[0]),
                _ => Tensor::scalar(sign * t.to_vec::<i64>()[0]),
            }))
        }
        Some((v, span)) => match v.as_number() {
            Some(x) => Ok(Some(Tensor::scalar(sign as f64 * x))),
            None => Err(Error::wrong_type("argument `alpha`", "a number", v.type_name()).at(*span)),
        },
    }
}

/// `x.maximum(y)`, `x.floor_divide(y)` and the other binary methods named
/// as PyTorch's functions (`pointwise.rs`).
pub(super) fn pointwise(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    me.pointwise_binary(name, t, b)
}

/// `x.logical_not()`, `x.isnan()`, `x.bitwise_not()`.
pub(super) fn pointwise_unary(
    me: &mut Interp,
    name: &'static str,
    t: &Arc<Tensor>,
    b: &Bound,
) -> Out {
    me.pointwise_unary(name, t, b.span)
}

/// `x.masked_fill(mask, value)`.
pub(super) fn masked_fill(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    me.masked_fill_of(t, b)
}

/// `x.masked_fill_(mask, value)`.
pub(super) fn masked_fill_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    me.masked_fill_in_place(t, b)
}

/// `x.where(condition, other)`: `where(condition, x, other)`.
pub(super) fn where_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let cond = b.tensor("condition")?;
    me.where_of(&cond, (Arc::clone(t), false), b)
}

/// `x.cumsum(dim)`, `x.softmax(dim)`, `x.var()`, `x.sort()`, `x.tril()`
/// and the rest of `builtins/along.rs`.
pub(super) fn along(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    me.along_op(name, t, b)
}

/// `x.allclose(y)`, `x.isclose(y)`, `x.equal(y)`: as `torch.allclose(x, y)`...
pub(super) fn close(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    crate::eval::builtins::math::closeness(me, name, t, b)
}

/// `x.unique(...)`: `torch.unique(x, ...)`.
pub(super) fn unique(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    crate::eval::builtins::unique::unique_of(me, t, b)
}

/// `x.clamp(min, max)`.
pub(super) fn clamp(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    me.clamp_of(t, b).map(Value::Tensor)
}

/// `x.add_(y)` and the other in-place ops: `x` updated where it lies (every
/// view of it sees the change) and returned, as `x += y`.
pub(super) fn in_place(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let op = binary_op(name).map_err(|e| e.at(b.span))?;
    let (y, weak) = me.operand_arg(b, "other")?;
    let y = Operand { tensor: &y, weak };
    // `x.div_(y, rounding_mode=...)`: the rounded quotient written back.
    if name == "div_" {
        if let Some(rounding) = rounding_mode(b)? {
            let q = rounded_div(&mut me.rt, me.grad, t, y, rounding).map_err(|e| e.at(b.span))?;
            let r = inplace::copy_(&mut me.rt, me.grad, t, &q, |rt| rt.assign(t, &q));
            r.map_err(|e| e.at(b.span))?;
            return Ok(Value::Tensor(Arc::clone(t)));
        }
    }
    if let Some(alpha) = alpha_arg(b, name == "sub_")? {
        inplace::add_scaled_(&mut me.rt, me.grad, t, y, &alpha).map_err(|e| e.at(b.span))?;
        return Ok(Value::Tensor(Arc::clone(t)));
    }
    inplace::binary_(&mut me.rt, me.grad, op, t, y).map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.clamp_(min, max)`: `maximum` then `minimum` in place (the same values
/// as `clamp`, NaN included), and `x` returned.
pub(super) fn clamp_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let mut any = false;
    for (name, op) in [("min", BinaryOp::Maximum), ("max", BinaryOp::Minimum)] {
        if b.given(name).is_none() {
            continue;
        }
        any = true;
        let (y, weak) = me.operand_arg(b, name)?;
        let y = Operand { tensor: &y, weak };
        inplace::binary_(&mut me.rt, me.grad, op, t, y).map_err(|e| e.at(b.span))?;
    }
    if !any {
        return Err(Error::value_help(
            "clamp_ needs `min` or `max` (or both)",
            "e.g. `x.clamp_(min=0)`",
        )
        .at(b.span));
    }
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.clone(memory_format=torch.preserve_format)`: a copy in x's own
/// order (a channels-last x gives a channels-last copy), or in the
/// format given.
pub(super) fn clone(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let format = b
        .memory_format("memory_format")?
        .unwrap_or(MemoryFormat::Preserve);
    let x = me.rt.copy_as(t, format).map_err(|e| e.at(b.span))?;
    let x = me
        .copied(t, x, "CloneBackward0")
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(x))
}

/// `x.size(dim=none)`: PyTorch's: the shape, or the size of one dimension.
pub(super) fn size(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    match b.int("dim")? {
        None => Ok(shape(t)),
        Some(d) => {
            let d = norm_dim(d, t.ndim()).map_err(|e| e.at(b.span))?;
            match t.shape().get(d) {
                Some(&n) => Ok(Value::Int(n as i64)),
                // A 0-d tensor: PyTorch's "dimension specified as 0 but tensor has no dimensions".
                None => Err(Error::value(format!(
                    "size({d}): the tensor is 0-d and has no dimension {d}"
                ))
                .at(b.span)),
            }
        }
    }
}

/// `x.tolist()`: the elements as (nested) lists of numbers, a number for a
/// 0-d tensor; like `.item()`, a host read that waits for the device.
pub(super) fn tolist(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let values = || -> Vec<Value> {
        match t.dtype() {
            DType::Bool => t.to_vec::<bool>().into_iter().map(Value::bool).collect(),
            d if d.is_int() => t.to_vec::<i64>().into_iter().map(Value::Int).collect(),
            _ => t.to_vec::<f64>().into_iter().map(Value::float).collect(),
        }
    };
    let flat = me.rt.read_all(t, values).map_err(|e| e.at(b.span))?;
    Ok(nest(&flat, t.shape()))
}

/// `flat` (row-major) as Python lists nested by `shape`; a 0-d tensor's
/// one value as itself.
fn nest(flat: &[Value], shape: &[usize]) -> Value {
    match shape {
        [] => flat.first().cloned().unwrap_or(Value::None),
        [_] => Value::list(flat.to_vec()),
        [n, rest @ ..] => {
            let step = rest.iter().product::<usize>();
            Value::list(
                (0..*n)
                    .map(|i| nest(&flat[i * step..(i + 1) * step], rest))
                    .collect(),
            )
        }
    }
}

/// `x.to_sparse()`: a sparse COO tensor of `x`'s nonzero elements.
pub(super) fn to_sparse(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let s = crate::autograd::sparse::from_dense(&mut me.rt, t).map_err(|e| e.at(b.span))?;
    Ok(Value::Sparse(Arc::new(s)))
}

/// `x.to_dense()` of a dense tensor: `x` itself.
pub(super) fn to_dense(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, _: &Bound) -> Out {
    Ok(Value::Tensor(Arc::clone(t)))
}
