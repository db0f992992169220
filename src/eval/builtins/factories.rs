//! Factories: `tensor`, `zeros`/`ones`/`empty`/`full`, `arange`, `linspace`,
//! `eye`, `rand`/`randn`, the `*_like` family, `cat`/`stack` and `seed`.

use std::sync::Arc;

use super::super::args::{to_tensor, Bound};
use super::super::literal::{data_arg, dtype_of_value};
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::memory_format::{self, MemoryFormat, Order};
use crate::runtime::op::factory::{Distribution, Fill, NewTensor};
use crate::runtime::{DType, Tensor};

pub(super) fn tensor(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (data, default) = data_arg(b, "tensor()")?;
    let dtype = b.dtype("dtype")?.unwrap_or(default);
    // Numbers written as data must fit an integer dtype asked for
    // (`tensor([300], dtype=uint8)` is PyTorch's overflow error); a
    // tensor given as data converts as `.to` does.
    let written = !matches!(b.get("data"), Some((Value::Tensor(_), _)));
    if written && dtype.int_bounds().is_some() && data.dtype() != DType::Bool {
        for x in data.cast(DType::F64).to_vec::<f64>() {
            super::masked::number_fits(dtype, x, data.dtype().is_int(), true)
                .map_err(|e| e.at(b.get("data").map_or(b.span, |(_, s)| *s)))?;
        }
    }
    let device = me.device_arg(b)?;
    b.result(me.rt.tensor(&data, dtype, device))
}

/// `torch.as_tensor(data, dtype=None, device=None)`: a tensor given with
/// its own dtype and device (or none asked) is itself, no copy, as
/// PyTorch's; else a new tensor as `tensor(data, ...)` makes it.
pub(super) fn as_tensor(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    if let Some((Value::Tensor(t), _)) = b.get("data") {
        let dtype = b.dtype("dtype")?.unwrap_or(t.dtype());
        let device = match b.given("device") {
            Some(_) => me.device_arg(b)?,
            None => t.device(),
        };
        if dtype == t.dtype() && device == t.device() {
            return Ok(Value::Tensor(Arc::clone(t)));
        }
        return b.result(me.rt.tensor(t, dtype, device));
    }
    tensor(me, "tensor", b)
}

/// `torch.Tensor(data)` / `torch.Tensor(*sizes)`: PyTorch's legacy
/// constructor (and `torch.LongTensor`, ... of their dtypes), float32
/// whatever the data (fresh memory for sizes, which
/// reads as zeros here); also the class `isinstance(x, torch.Tensor)` asks of.
pub(super) fn legacy_tensor(
    me: &mut Interp,
    name: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    // `torch.LongTensor(n)` and the other typed ones: their dtype.
    let dtype = match name {
        "LongTensor" => DType::I64,
        "IntTensor" => DType::I32,
        "ByteTensor" => DType::U8,
        "DoubleTensor" => DType::F64,
        "HalfTensor" => DType::F16,
        "BoolTensor" => DType::Bool,
        _ => DType::F32,
    };
    match b.rest.as_slice() {
        [(v @ (Value::List(_) | Value::MutList(_) | Value::Tensor(_)), span)] => {
            let data = match v {
                Value::Tensor(t) => Arc::clone(t),
                other => Arc::new(super::super::literal::literal_tensor_from_value(
                    other,
                    *span,
                    DType::F64,
                )?),
            };
            let device = me.device_arg(b)?;
            b.result(me.rt.tensor(&data, dtype, device))
        }
        _ => {
            let shape = b.sizes_from_rest()?;
            fill(me, b, &shape, None, dtype)
        }
    }
}

/// `zeros`, `ones` and `empty` (whose memory reads as zeros, as fresh memory does).
pub(super) fn filled(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let shape = b.sizes_from_rest()?;
    let value = match name {
        "ones" => Some(Fill::Int(1)),
        "empty" => None,
        _ => Some(Fill::Int(0)),
    };
    fill(me, b, &shape, value, DType::default_float())
}

pub(super) fn full(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let shape = b.sizes("size")?;
    let (v, _) = b
        .get("fill_value")
        .cloned()
        .unwrap_or((Value::float(0.0), b.span));
    let default = dtype_of_value(&v).unwrap_or_else(DType::default_float);
    let value = b.fill("fill_value")?.unwrap_or(Fill::Float(0.0));
    fill(me, b, &shape, Some(value), default)
}

fn fill(
    me: &mut Interp,
    b: &Bound,
    shape: &[usize],
    value: Option<Fill>,
    default: DType,
) -> Result<Value, Diagnostic> {
    let dtype = b.dtype("dtype")?.unwrap_or(default);
    let device = me.device_arg(b)?;
    let order = match b.memory_format("memory_format")? {
        Some(f) => {
            let at = |e: Error| e.at(b.span_of("memory_format"));
            crate::runtime::shape::checked_numel(shape).map_err(|e| e.at(b.span))?;
            Order::of(shape, memory_format::strides_for(f, shape).map_err(at)?)
        }
        None => None,
    };
    let made = order.as_ref().map_or(shape.to_vec(), Order::permuted_shape);
    let new = NewTensor {
        shape: &made,
        dtype,
        device,
        like: None,
    };
    let out = match value {
        Some(value) => me.rt.full(new, value),
        None => me.rt.empty(new),
    };
    b.result(out.map(|t| restored(order, t)))
}

/// `empty_strided(size, stride)`: memory laid out by the strides given
/// (PyTorch's `preserve_format` primitive): the storage holds as many
/// elements as the largest offset needs, so strides that skip or repeat
/// elements are made as PyTorch makes them; no kernel.
pub(super) fn empty_strided(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let shape = b.sizes("size")?;
    let strides = b.sizes("stride")?;
    if shape.len() != strides.len() {
        return Err(Error::runtime(format!(
            "mismatch in length of strides and shape: {} strides for {} sizes",
            strides.len(),
            shape.len()
        ))
        .at(b.span_of("stride")));
    }
    crate::runtime::shape::checked_numel(&shape).map_err(|e| e.at(b.span))?;
    // The element count the storage needs: one past the largest offset.
    let needed = shape
        .iter()
        .zip(&strides)
        .try_fold(1usize, |acc, (&d, &s)| {
            let reach = d.checked_sub(1)?.checked_mul(s)?;
            acc.checked_add(reach)
        });
    let storage = match (shape.contains(&0), needed) {
        (true, _) => 0,
        (false, Some(n)) => n,
        (false, None) => {
            return Err(
                Error::value("empty_strided: the strides reach past any storage")
                    .at(b.span_of("stride")),
            )
        }
    };
    let new = NewTensor {
        shape: &[storage],
        dtype: b.dtype("dtype")?.unwrap_or_else(DType::default_float),
        device: me.device_arg(b)?,
        like: None,
    };
    let strides: Vec<isize> = strides.iter().map(|&s| s as isize).collect();
    let made = me.rt.empty(new).map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(Arc::new(made.view(shape, strides, 0))))
}

/// `made`, a factory's new tensor in a layout's permuted order, seen with
/// the layout's strides (as it is when there is no order to restore).
fn restored(order: Option<Order>, made: Arc<Tensor>) -> Arc<Tensor> {
    match order {
        Some(order) => Arc::new(order.restore(&made)),
        None => made,
    }
}

pub(super) fn arange(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let first = b.float("start")?.unwrap_or(0.0);
    let (start, end) = match b.float("end")? {
        Some(end) => (first, end),
        None => (0.0, first),
    };
    let step = b.float("step")?.unwrap_or(1.0);
    let all_int = ["start", "end", "step"]
        .iter()
        .all(|n| !matches!(b.given(n), Some((Value::Float(_), _))));
    let dtype = b.dtype("dtype")?.unwrap_or(if all_int {
        DType::I64
    } else {
        DType::default_float()
    });
    let device = me.device_arg(b)?;
    b.result(me.rt.arange(start, end, step, dtype, device))
}

pub(super) fn linspace(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let start = b.float("start")?.unwrap_or(0.0);
    let end = b.float("end")?.unwrap_or(0.0);
    let steps = b.sizes("steps")?[0];
    let dtype = b.dtype("dtype")?.unwrap_or_else(DType::default_float);
    let device = me.device_arg(b)?;
    b.result(me.rt.linspace(start, end, steps, dtype, device))
}

/// `logspace(start, end, steps, base)`: `base ** e` for the exponents
/// `linspace(start, end, steps)` gives in `dtype` (a float dtype's, as
/// PyTorch steps them in `dtype`; an integer dtype's in doubles from the
/// truncated ends), each power taken in double precision and rounded to
/// `dtype` once, as PyTorch's kernel does.
pub(super) fn logspace(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let at = |e: crate::error::Error| e.at(b.span);
    let start = b.float("start")?.unwrap_or(0.0);
    let end = b.float("end")?.unwrap_or(0.0);
    let steps = b.sizes("steps")?[0];
    let base = b.float("base")?.unwrap_or(10.0);
    let dtype = b.dtype("dtype")?.unwrap_or_else(DType::default_float);
    let device = me.device_arg(b)?;
    let exponents = match dtype.is_float() {
        true => me
            .rt
            .linspace(start, end, steps, dtype, device)
            .map_err(at)?,
        false => {
            let e = me
                .rt
                .linspace(start.trunc(), end.trunc(), steps, DType::F64, device);
            e.map_err(at)?
        }
    };
    let exponents = me.rt.cast(&exponents, DType::F64).map_err(at)?;
    let base = crate::runtime::Tensor::scalar(base);
    let powers = me
        .rt
        .binary(
            crate::runtime::op::binary::BinaryOp::Pow,
            crate::runtime::op::binary::Operand::weak(&base),
            crate::runtime::op::binary::Operand::strong(&exponents),
        )
        .map_err(at)?;
    b.result(me.rt.cast(&powers, dtype))
}

pub(super) fn eye(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let n = b.sizes("n")?[0];
    let m = match b.given("m") {
        Some(_) => b.sizes("m")?[0],
        None => n,
    };
    let dtype = b.dtype("dtype")?.unwrap_or_else(DType::default_float);
    let device = me.device_arg(b)?;
    b.result(me.rt.eye(n, m, dtype, device))
}

/// `rand` (uniform in [0, 1)) and `randn` (standard normal).
pub(super) fn random(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let shape = b.sizes_from_rest()?;
    let dtype = b.dtype("dtype")?.unwrap_or_else(DType::default_float);
    let device = me.device_arg(b)?;
    let new = NewTensor {
        shape: &shape,
        dtype,
        device,
        like: None,
    };
    b.result(me.rt.random(new, distribution(name)))
}

/// `randint(high, size)` and `randint(low, high, size)`, as PyTorch's:
/// integers uniform in `[low, high)`, i64 unless `dtype` says otherwise.
pub(super) fn randint(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (low, high, size) = match b.given("size") {
        // `randint(n, size=(1,))`: one positional is `high`, as PyTorch's
        // `randint(high, size)`.
        Some((v, span)) if b.given("high").is_none() && b.given("low").is_some() => {
            (0, b.int("low")?, (v.clone(), *span))
        }
        Some((v, span)) => (
            b.int("low")?.unwrap_or(0),
            b.int("high")?,
            (v.clone(), *span),
        ),
        // Two positional arguments are (high, size).
        None => {
            let size = b.get("high").cloned().ok_or_else(|| {
                Error::value_help(
                    "randint() needs a size",
                    "write `randint(10, (64,))` for 64 integers in 0..10, or `randint(5, 10, (64,))`",
                )
                .at(b.span)
            })?;
            (0, b.int("low")?, size)
        }
    };
    let high = high.ok_or_else(|| {
        Error::value_help(
            "randint() needs `high`, the integer above the largest it draws",
            "write `randint(10, (64,))` for 64 integers in 0..10",
        )
        .at(b.span)
    })?;
    if high <= low {
        return Err(Error::value(format!(
            "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        ))
        .at(b.span));
    }
    let shape = super::super::args::sizes(&super::super::args::flatten(&size.0, size.1)?)?;
    let dtype = b.dtype("dtype")?.unwrap_or(DType::I64);
    // Both ends must be values of the dtype (PyTorch's
    // `check_from_to_in_range`), not wrapped into it.
    if let Some((min, max)) = dtype.int_bounds() {
        let cpp = dtype.cpp_name();
        if low < min || low > max {
            return Err(Error::runtime(format!("from is out of bounds for {cpp}")).at(b.span));
        }
        if high - 1 > max {
            return Err(Error::runtime(format!("to - 1 is out of bounds for {cpp}")).at(b.span));
        }
    }
    let device = me.device_arg(b)?;
    let new = NewTensor {
        shape: &shape,
        dtype,
        device,
        like: None,
    };
    let range = high.abs_diff(low);
    b.result(me.rt.random(new, Distribution::Integers { low, range }))
}

fn distribution(name: &str) -> Distribution {
    if name.starts_with("randn") {
        Distribution::Normal
    } else {
        Distribution::Uniform
    }
}

/// `zeros_like`, `ones_like`, `full_like`, `empty_like`, `rand_like`, `randn_like`.
pub(super) fn like(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let at = |e: Error| e.at(b.span);
    let like = b.tensor("input")?;
    let dtype = b.dtype("dtype")?.unwrap_or(like.dtype());
    let device = match b.device("device")? {
        Some(d) => me.rt.check_device(d).map_err(at)?,
        None => like.device(),
    };
    let shape = like.shape().to_vec();
    // PyTorch's `preserve_format`: like's own order, unless another is asked.
    let format = b
        .memory_format("memory_format")?
        .unwrap_or(MemoryFormat::Preserve);
    let strides = memory_format::copy_strides(format, like.shape(), like.strides())
        .map_err(|e| e.at(b.span_of("memory_format")))?;
    let order = Order::of(&shape, strides);
    let shape = order.as_ref().map_or(shape, Order::permuted_shape);
    let value = match name {
        "ones_like" => Fill::Int(1),
        "full_like" => b.fill("value")?.unwrap_or(Fill::Int(0)),
        _ => Fill::Int(0),
    };
    let like = Some(like.as_ref());
    let new = NewTensor {
        shape: &shape,
        dtype,
        device,
        like,
    };
    let out = match name {
        "rand_like" | "randn_like" => me.rt.random(new, distribution(name)),
        "empty_like" => me.rt.empty(new),
        _ => me.rt.full(new, value),
    };
    b.result(out.map(|t| restored(order, t)))
}

/// `cat` (along an existing dimension) and `stack` (along a new one).
pub(super) fn join(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let ts = tensor_list(b, "tensors", name)?;
    let refs: Vec<&Tensor> = ts.iter().map(|t| t.as_ref()).collect();
    let dim = b.int("dim")?.unwrap_or(0);
    let stack = name == "stack";
    let out = me.rt.join(&refs, dim, stack).map_err(|e| e.at(b.span))?;
    b.result(crate::autograd::record::join(
        &mut me.rt, me.grad, &refs, out, dim, stack,
    ))
}

/// `seed(n)` and PyTorch's `manual_seed(n)`: every device's generator;
/// `manual_seed_all(n)` (`torch.cuda.manual_seed_all`): the CUDA devices'.
pub(super) fn seed(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let given = b.int(if name == "seed" { "n" } else { "seed" })?;
    // `torch.seed()`: a seed of the clock's, given back (PyTorch's
    // non-deterministic seed, from the OS there).
    let n = match (name, given) {
        (_, Some(n)) => n,
        ("seed", None) => super::super::pyrandom::clock_seed() & i64::MAX,
        _ => 0,
    };
    match name {
        "manual_seed_all" => me.rt.generators.reseed_cuda(n as u64),
        _ => me.rt.generators.reseed(n as u64),
    }
    Ok(match (name, given) {
        ("seed", None) => Value::Int(n),
        _ => Value::None,
    })
}

/// The tensors of the list argument `name` of `func`.
pub(super) fn tensor_list(
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
