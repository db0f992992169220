//! Reductions, elementwise functions and matmul (the methods of the same
//! names use `reduce` and `unary_op` too).

use std::sync::Arc;

use super::super::args::{flatten, Bound};
use super::super::{Interp, Value};
use crate::autograd::record;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::BinOp;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{DType, Tensor};

/// `sum`, `mean`, `max`, `min`, `argmax`, `argmin`, `prod`.
pub(super) fn reduce(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    // Python's `sum(losses)`, `max(a, b)` of numbers and lists.
    if let Some(r) = me.python_math(name, b) {
        return r;
    }
    if b.given("key")
        .is_some_and(|(k, _)| !matches!(k, Value::None))
    {
        return Err(Error::value_help(
            format!(
                "{name}(..., key=f) is Python's {name} over a list, not torch.{name} of a tensor"
            ),
            format!(
                "give a list (`{name}(x.tolist(), key=f)`), or use torch.arg{name} on the tensor"
            ),
        )
        .at(b.span_of("key")));
    }
    let t = b.tensor("input")?;
    me.reduce(name, &t, b)
}

/// `exp`, `log`, `sqrt`, `abs`, `relu`, `sigmoid`, `tanh`.
pub(super) fn unary(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    // Python's `abs(-2)`, `round(x, 2)` of numbers.
    if let Some(r) = me.python_math(name, b) {
        return r;
    }
    let t = b.tensor("input")?;
    if let Some(n) = b.int("decimals")?.filter(|&n| n != 0) {
        return round_decimals(me, &t, n).map_err(|e| e.at(b.span));
    }
    let op = unary_op(name).map_err(|e| e.at(b.span))?;
    // `F.relu(x, inplace=True)`: PyTorch's `torch.relu_(x)`, x returned.
    if b.bool("inplace", false)? {
        crate::autograd::inplace::unary_(&mut me.rt, me.grad, op, &t).map_err(|e| e.at(b.span))?;
        return Ok(Value::Tensor(t));
    }
    b.result(crate::autograd::autocast::unary(
        &mut me.rt, me.grad, op, &t,
    ))
}

/// `torch.round(x, decimals=n)` as PyTorch's kernel computes it, in x's
/// dtype: `round(x * 10^n) / 10^n`, or `round(x / 10^-n) * 10^-n` for a
/// negative n (halves to even).
pub(crate) fn round_decimals(me: &mut Interp, t: &Arc<Tensor>, n: i64) -> Result<Value, Error> {
    if !t.dtype().is_float() {
        return Err(Error::dtype(
            format!(
                "\"round_cpu\" not implemented for '{}'",
                t.dtype().scalar_name()
            ),
            Some("round a float tensor (`x.float()`); an integer has no decimals".into()),
        ));
    }
    let ten = Tensor::scalar(10f64.powi(n.unsigned_abs().min(400) as i32)).cast(t.dtype());
    let (into, back) = match n > 0 {
        true => (BinaryOp::Mul, BinaryOp::Div),
        false => (BinaryOp::Div, BinaryOp::Mul),
    };
    // PyTorch's `round.decimals` is one op (`RoundBackward1`, a zero
    // gradient), computed as x * 10^n rounded and divided back.
    let off = crate::autograd::Mode::off();
    let scaled = record::binary(
        &mut me.rt,
        off,
        into,
        Operand::strong(t),
        Operand::strong(&ten),
    )?;
    let rounded = record::unary(&mut me.rt, off, UnaryOp::Round, &scaled)?;
    let out = record::binary(
        &mut me.rt,
        off,
        back,
        Operand::strong(&rounded),
        Operand::strong(&ten),
    )?;
    let out = record::attach_node(
        &me.rt,
        me.grad,
        out,
        "RoundBackward1",
        crate::autograd::node::Backward::Zero,
        &[t],
    );
    Ok(Value::Tensor(out))
}

/// `torch.relu_(x)`, `F.relu_(x)`: the op written into x, x returned.
pub(super) fn unary_in_place(
    me: &mut Interp,
    name: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    let op = unary_op(name.trim_end_matches('_')).map_err(|e| e.at(b.span))?;
    crate::autograd::inplace::unary_(&mut me.rt, me.grad, op, &t).map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(t))
}

pub(super) fn matmul(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (x, y) = (b.tensor("a")?, b.tensor("b")?);
    b.result(crate::autograd::autocast::matmul(
        &mut me.rt, me.grad, "matmul", &x, &y,
    ))
}

/// `mm(a, b)`, `bmm(a, b)`, `mv(a, b)`: `matmul` of operands of the
/// ranks each takes, checked with PyTorch's messages.
pub(super) fn product(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    // `torch.spmm` and `torch.sparse.mm` of two dense matrices: `mm`.
    let (name, other) = match name {
        "spmm" => ("mm", "mat2"),
        "sparse_mm" => ("mm", "dense"),
        _ => (name, "other"),
    };
    let input = if b.get("input").is_some() {
        "input"
    } else {
        "sparse"
    };
    let (x, y) = (b.tensor(input)?, b.tensor(other)?);
    ranked_product(me, name, &x, &y).map_err(|e| e.at(b.span))
}

/// `x.mm(y)` and the others: `product` of the receiver.
pub(in crate::eval) fn ranked_product(
    me: &mut Interp,
    name: &'static str,
    x: &Tensor,
    y: &Tensor,
) -> Result<Value, Error> {
    let wrong = match name {
        "mm" if x.ndim() != 2 => Some(format!(
            "mm: self must be a matrix, got {}-D tensor",
            x.ndim()
        )),
        "mm" if y.ndim() != 2 => Some(format!(
            "mm: mat2 must be a matrix, got {}-D tensor",
            y.ndim()
        )),
        "bmm" if x.ndim() != 3 => Some("batch1 must be a 3D tensor".into()),
        "bmm" if y.ndim() != 3 => Some("batch2 must be a 3D tensor".into()),
        "mv" if x.ndim() != 2 || y.ndim() != 1 => Some(format!(
            "vector + matrix @ vector expected, got 1, {}, {}",
            x.ndim(),
            y.ndim()
        )),
        _ => None,
    };
    if let Some(message) = wrong {
        return Err(Error::shape(message));
    }
    crate::autograd::autocast::matmul(&mut me.rt, me.grad, name, x, y).map(Value::Tensor)
}

/// `equal(a, b)`: the same shape and the same elements, as `torch.equal`
/// (a host read of one count); `allclose(a, b, rtol, atol, equal_nan)`:
/// every element within `atol + rtol * |b|` of the other's (equal ones,
/// infinities too, always; NaNs only with `equal_nan`), as
/// `torch.allclose`.
pub(super) fn equal_allclose(
    me: &mut Interp,
    name: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let x = b.tensor("input")?;
    closeness(me, name, &x, b)
}

/// `equal`, `allclose` and `isclose` of `x` and the argument `other`
/// (also the methods: `x.allclose(y)`).
pub(crate) fn closeness(
    me: &mut Interp,
    name: &str,
    x: &Arc<Tensor>,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let y = b.tensor("other")?;
    if name == "isclose" {
        let tolerance = (
            b.float("rtol")?.unwrap_or(1e-05),
            b.float("atol")?.unwrap_or(1e-08),
            b.bool("equal_nan", false)?,
        );
        return b.result(close_elements(&mut me.rt, x, &y, Some(tolerance)));
    }
    if name == "equal" && x.shape() != y.shape() {
        return Ok(Value::bool(false));
    }
    let tolerance = match name {
        "allclose" => Some((
            b.float("rtol")?.unwrap_or(1e-05),
            b.float("atol")?.unwrap_or(1e-08),
            b.bool("equal_nan", false)?,
        )),
        _ => None,
    };
    let at = |e: Error| e.at(b.span);
    let apart = elements_apart(&mut me.rt, x, &y, tolerance).map_err(at)?;
    match me.one_element_value(Value::Tensor(apart)).map_err(at)? {
        Value::Int(n) => Ok(Value::bool(n == 0)),
        other => Ok(Value::bool(other.as_number() == Some(0.0))),
    }
}

/// `isclose(a, b, rtol, atol, equal_nan)`: a bool per element, as
/// `torch.isclose` (the elements `allclose` counts).
pub(super) fn isclose(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let x = b.tensor("input")?;
    closeness(me, name, &x, b)
}

/// How many elements of `x` are not close to `y`'s, as a 0-d count.
fn elements_apart(
    rt: &mut crate::runtime::dispatch::Runtime,
    x: &Tensor,
    y: &Tensor,
    tolerance: Option<(f64, f64, bool)>,
) -> Result<Arc<Tensor>, Error> {
    use crate::runtime::op::binary::Operand;
    let close = close_elements(rt, x, y, tolerance)?;
    let no = Tensor::scalar(false);
    let apart = rt.binary(BinaryOp::Eq, Operand::strong(&close), Operand::weak(&no))?;
    rt.reduce(ReduceOp::Sum, &apart, None, false)
}

/// Whether each element of `x` is close to `y`'s: equal, or, with `(rtol,
/// atol, equal_nan)`, within `atol + rtol * |y|` (and both NaN when
/// `equal_nan`).
fn close_elements(
    rt: &mut crate::runtime::dispatch::Runtime,
    x: &Tensor,
    y: &Tensor,
    tolerance: Option<(f64, f64, bool)>,
) -> Result<Arc<Tensor>, Error> {
    use crate::runtime::op::binary::Operand;
    let op = |rt: &mut crate::runtime::dispatch::Runtime, op, a: &Tensor, b: &Tensor| {
        rt.binary(op, Operand::strong(a), Operand::strong(b))
    };
    let mut close = op(rt, BinaryOp::Eq, x, y)?;
    if let Some((rtol, atol, equal_nan)) = tolerance {
        let diff = op(rt, BinaryOp::Sub, x, y)?;
        let diff = rt.unary(UnaryOp::Abs, &diff)?;
        let size = rt.unary(UnaryOp::Abs, y)?;
        let (rtol, atol) = (Tensor::scalar(rtol), Tensor::scalar(atol));
        let tol = rt.binary(BinaryOp::Mul, Operand::strong(&size), Operand::weak(&rtol))?;
        let tol = rt.binary(BinaryOp::Add, Operand::strong(&tol), Operand::weak(&atol))?;
        let within = op(rt, BinaryOp::Le, &diff, &tol)?;
        close = op(rt, BinaryOp::LogicalOr, &close, &within)?;
        if equal_nan {
            let nan_x = op(rt, BinaryOp::Ne, x, x)?;
            let nan_y = op(rt, BinaryOp::Ne, y, y)?;
            let both = op(rt, BinaryOp::LogicalAnd, &nan_x, &nan_y)?;
            close = op(rt, BinaryOp::LogicalOr, &close, &both)?;
        }
    }
    Ok(close)
}

/// `dot(a, b)`: two vectors of one dtype and length, as PyTorch's `dot`
/// (one matmul of a row by a column).
pub(super) fn dot(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (x, y) = (b.tensor("input")?, b.tensor("other")?);
    b.result(dot_of(me, &x, &y))
}

/// `x.dot(other)`: as `dot(x, other)`.
pub(crate) fn dot_method(
    me: &mut Interp,
    _: &'static str,
    t: &Arc<Tensor>,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let y = b.tensor("other")?;
    b.result(dot_of(me, t, &y))
}

fn dot_of(me: &mut Interp, x: &Arc<Tensor>, y: &Arc<Tensor>) -> Result<Arc<Tensor>, Error> {
    // Autocast promotes `dot`'s inputs to the wider type first.
    let cast = crate::autograd::autocast::inputs(&mut me.rt, me.grad, "dot", &[x, y])?;
    let (x, y) = (cast.get(0, x), cast.get(1, y));
    if x.ndim() != 1 || y.ndim() != 1 {
        return Err(Error::shape(format!(
            "1D tensors expected, but got {}D and {}D tensors",
            x.ndim(),
            y.ndim()
        )));
    }
    if x.dtype() != y.dtype() {
        return Err(Error::dtype(
            format!(
                "dot expects both vectors to have the same dtype, but found {} and {}",
                x.dtype(),
                y.dtype()
            ),
            Some(format!("convert one first, e.g. `.to({})`", x.dtype())),
        ));
    }
    if x.numel() != y.numel() {
        return Err(Error::shape(format!(
            "inconsistent tensor size: dot of vectors of {} and {} elements",
            x.numel(),
            y.numel()
        )));
    }
    record::matmul(&mut me.rt, me.grad, x, y)
}

/// `pow(input, exponent)`: `input ** exponent`, numbers as weak as beside `**`.
pub(super) fn pow(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let get = |name: &str| b.get(name).map(|(v, _)| v.clone()).unwrap_or(Value::None);
    let (base, exponent) = (get("input"), get("exponent"));
    // Python's `pow(base, exp, mod)` of ints: modular exponentiation.
    match (&base, &exponent, get("mod")) {
        (_, _, Value::None) => {}
        (Value::Int(x), Value::Int(e), Value::Int(m)) if m != 0 => {
            let m = i128::from(m);
            // A negative exponent: the inverse's power (Python 3.8's
            // `pow(3, -1, 7)`), when base and modulus are coprime.
            let base = match *e < 0 {
                true => inverse_mod(i128::from(*x), m).ok_or_else(|| {
                    Error::value("base is not invertible for the given modulus").at(b.span)
                })?,
                false => i128::from(*x),
            };
            let (mut acc, mut sq, mut e) = (1i128, base.rem_euclid(m), e.unsigned_abs());
            while e > 0 {
                if e & 1 == 1 {
                    acc = acc * sq % m;
                }
                sq = sq * sq % m;
                e >>= 1;
            }
            // Python's result takes the modulus's sign.
            let r = acc.rem_euclid(m);
            let r = if m < 0 && r != 0 { r + m } else { r };
            return Ok(Value::Int(r as i64));
        }
        _ => {
            return Err(Error::type_error(
                "pow() 3rd argument not allowed unless all arguments are integers",
            )
            .at(b.span_of("mod")))
        }
    }
    me.binary(BinOp::Elementwise(BinaryOp::Pow), base, exponent)
        .map_err(|e| e.at(b.span))
}

impl Interp {
    /// The reduction `name` of `t`, with `dim` and `keepdim` from `b`, and
    /// for `sum` and `mean` a list of dims and `dtype` (the input converted
    /// first, as PyTorch's `sum(dtype=)` computes in it).
    pub(crate) fn reduce(
        &mut self,
        name: &str,
        t: &Arc<Tensor>,
        b: &Bound,
    ) -> Result<Value, Diagnostic> {
        let op = ReduceOp::from_name(name).ok_or_else(|| {
            Error::value(format!("internal error: `{name}` is not a reduction")).at(b.span)
        })?;
        // `torch.max(x, other)` of two tensors is `torch.maximum`, as PyTorch's.
        if let (ReduceOp::Max | ReduceOp::Min, Some((Value::Tensor(other), _))) =
            (op, b.given("dim"))
        {
            let pair = if op == ReduceOp::Max {
                BinaryOp::Maximum
            } else {
                BinaryOp::Minimum
            };
            return b.result(crate::autograd::autocast::binary(
                &mut self.rt,
                self.grad,
                pair,
                crate::runtime::op::binary::Operand::strong(t),
                crate::runtime::op::binary::Operand::strong(other),
            ));
        }
        let keepdim = b.bool("keepdim", false)?;
        let mut t = Arc::clone(t);
        let dtype = b.dtype("dtype")?;
        if let Some(dt) = dtype.filter(|&dt| dt != t.dtype()) {
            let x = self.rt.cast(&t, dt).map_err(|e| e.at(b.span))?;
            t = self
                .copied(&t, x, "ToCopyBackward0")
                .map_err(|e| e.at(b.span))?;
        }
        if dtype.is_none() {
            // Autocast: `sum` and `prod` in float32 in a CUDA region.
            let cast = crate::autograd::autocast::inputs(&mut self.rt, self.grad, name, &[&t])
                .map_err(|e| e.at(b.span))?;
            t = cast.arc(0, &t);
        }
        // `x.max(dim)` is (values, indices), as PyTorch's: two reductions.
        // (A list of dims goes on to `reduce_over`, which refuses it.)
        let with_dim = match (op, dims_arg(b)?.as_deref()) {
            (ReduceOp::Max | ReduceOp::Min, Some(&[d])) => Some(d),
            _ => None,
        };
        if let Some(dim) = with_dim {
            let arg = if op == ReduceOp::Max {
                ReduceOp::Argmax
            } else {
                ReduceOp::Argmin
            };
            let at = |e: Error| e.at(b.span);
            let values = self.rt.reduce(op, &t, Some(dim), keepdim).map_err(at)?;
            // Bool has no argmax of its own (PyTorch's max(dim) takes it).
            let ints = match t.dtype() {
                DType::Bool => self.rt.cast(&t, DType::I64).map_err(at)?,
                _ => Arc::clone(&t),
            };
            let indices = self.rt.reduce(arg, &ints, Some(dim), keepdim).map_err(at)?;
            let max = op == ReduceOp::Max;
            let values = record::select_reduce(
                &mut self.rt,
                self.grad,
                &t,
                (values, &indices),
                dim,
                keepdim,
                max,
            )
            .map_err(at)?;
            let op = match max {
                true => "max",
                false => "min",
            };
            return Ok(Value::values_indices(op, values, indices));
        }
        let r = self.reduce_over(op, name, &t, b, keepdim)?;
        // `sum(dtype=i32)` is i32 (integer sums are i64 otherwise).
        match (dtype, &r) {
            (Some(dt), Value::Tensor(x)) if x.dtype() != dt => b.result(self.rt.cast(x, dt)),
            _ => Ok(r),
        }
    }

    fn reduce_over(
        &mut self,
        op: ReduceOp,
        name: &str,
        t: &Arc<Tensor>,
        b: &Bound,
        keepdim: bool,
    ) -> Result<Value, Diagnostic> {
        match dims_arg(b)?.as_deref() {
            None | Some([]) => b.result(record::reduce(
                &mut self.rt,
                self.grad,
                op,
                t,
                None,
                keepdim,
            )),
            Some(&[d]) => b.result(record::reduce(
                &mut self.rt,
                self.grad,
                op,
                t,
                Some(d),
                keepdim,
            )),
            Some(dims) => {
                if !matches!(op, ReduceOp::Sum | ReduceOp::Mean) {
                    let span = b.span_of("dim");
                    return Err(Error::wrong_type(
                        format!("argument `dim` of {name}()"),
                        "one int (a list of dims is for sum, mean, var, std and norm)",
                        "a list",
                    )
                    .at(span));
                }
                b.result(record::reduce_dims(
                    &mut self.rt,
                    self.grad,
                    op,
                    t,
                    dims,
                    keepdim,
                ))
            }
        }
    }
}

/// `dim` as a list of dims: an int, a list or tuple of them, or none.
pub(crate) fn dims_arg(b: &Bound) -> Result<Option<Vec<i64>>, Diagnostic> {
    match b.given("dim") {
        Some((v @ (Value::List(_) | Value::Tensor(_)), span)) if !matches!(v, Value::Tensor(x) if x.ndim() == 0) =>
        {
            let items = flatten(v, *span)?;
            Ok(Some(sizes_as_ints(&items)?))
        }
        _ => Ok(b.int("dim")?.map(|d| vec![d])),
    }
}

/// A list of dims as ints.
fn sizes_as_ints(items: &[(Value, crate::lang::Span)]) -> Result<Vec<i64>, Diagnostic> {
    items
        .iter()
        .map(|(v, span)| match v {
            Value::Int(i) => Ok(*i),
            other => Err(Error::wrong_type("a dim", "an int", other.type_name()).at(*span)),
        })
        .collect()
}

/// The unary op a builtin or method is named after; an internal error (not a
/// quiet `tanh`) for a name that is routed here but names no op.
pub(crate) fn unary_op(name: &str) -> Result<UnaryOp, Error> {
    // NumPy's names, which PyTorch has too; `exp_` is `exp` in place.
    let name = match name.trim_end_matches('_') {
        "arctan" => "atan",
        "arcsin" => "asin",
        "arccos" => "acos",
        other => other,
    };
    UnaryOp::from_name(name)
        .ok_or_else(|| Error::value(format!("internal error: `{name}` is not a unary op")))
}

/// `x`'s inverse modulo `m` (Euclid's extended algorithm), if they are
/// coprime.
fn inverse_mod(x: i128, m: i128) -> Option<i128> {
    let m = m.abs();
    let (mut a, mut b) = (x.rem_euclid(m), m);
    let (mut u, mut v) = (1i128, 0i128);
    while b != 0 {
        let q = a / b;
        (a, b) = (b, a - q * b);
        (u, v) = (v, u - q * v);
    }
    (a == 1).then(|| u.rem_euclid(m))
}
