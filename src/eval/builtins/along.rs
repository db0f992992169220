//! Ops along a dimension: cumsum, cumprod, softmax, log_softmax, var, std,
//! norm, sort, argsort, topk; tril, triu; and nonzero / argwhere. Each is a function and a
//! method of the same name (`methods/tensor.rs` calls `Interp::along_op`).

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use super::math::dims_arg;
use crate::error::{Diagnostic, Error};
use crate::runtime::op::along::AlongOp;
use crate::runtime::op::index::Index;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::Tensor;

/// Every function here, by name.
pub(super) fn call(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    me.along_op(name, &t, b)
}

impl Interp {
    /// The op `name` of `t`, its other arguments in `b`.
    pub(crate) fn along_op(
        &mut self,
        name: &str,
        t: &Arc<Tensor>,
        b: &Bound,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(b.span);
        match name {
            "cumsum" | "cumprod" | "softmax" | "log_softmax" => {
                let op = along_named(name).map_err(at)?;
                // `F.log_softmax(x)` of older programs: PyTorch's implicit
                // dim, with its deprecation warning.
                let implicit = self.python_program()
                    && matches!(name, "softmax" | "log_softmax")
                    && b.get("dim").is_none();
                let dim = match implicit {
                    true => Some(crate::nn::layers::implicit_dim(
                        &mut self.rt,
                        name,
                        t.ndim(),
                    )),
                    false => b.int("dim")?,
                };
                let dim = dim.ok_or_else(|| {
                    Error::value_help(
                        format!("{name}() needs `dim`: the dimension it runs along"),
                        format!("e.g. `{name}(x, dim=-1)`"),
                    )
                    .at(b.span)
                })?;
                let dtype = b.dtype("dtype")?;
                let t = self.converted(name, t, b)?;
                let mut r = self.rt.along(op, 0.0, &t, Some(dim), false).map_err(at)?;
                if matches!(op, AlongOp::Softmax | AlongOp::LogSoftmax) {
                    let log = op == AlongOp::LogSoftmax;
                    r = crate::autograd::record::softmax(&mut self.rt, self.grad, &t, r, dim, log)
                        .map_err(at)?;
                }
                if op == AlongOp::Cumsum {
                    r = crate::autograd::record::cumsum(&mut self.rt, self.grad, &t, r, dim)
                        .map_err(at)?;
                }
                if op == AlongOp::Cumprod {
                    r = crate::autograd::record::cumprod(&mut self.rt, self.grad, &t, r, dim)
                        .map_err(at)?;
                }
                // `cumsum(x, 0, dtype=i32)` is i32: integer scans are i64 otherwise.
                match dtype {
                    Some(dt) if dt != r.dtype() => b.result(self.rt.cast(&r, dt)),
                    _ => Ok(Value::Tensor(r)),
                }
            }
            "var" | "std" => {
                let op = along_named(name).map_err(at)?;
                let correction = correction(b)?;
                let keepdim = b.bool("keepdim", false)?;
                // `x.var(false)`: PyTorch's older var(input, unbiased).
                let dims = match b.given("dim") {
                    Some((Value::Bool(_), _)) => None,
                    _ => dims_arg(b)?,
                };
                self.reduce_along(op, correction, t, dims, keepdim, b)
            }
            "var_mean" | "std_mean" => {
                let std = name == "std_mean";
                let op = if std { AlongOp::Std } else { AlongOp::Var };
                let correction = correction(b)?;
                let keepdim = b.bool("keepdim", false)?;
                let dims = match b.given("dim") {
                    Some((Value::Bool(_), _)) => None,
                    _ => dims_arg(b)?,
                };
                let (var, mean) = match dims.as_deref() {
                    None | Some([]) => (
                        self.rt.along(op, correction, t, None, keepdim),
                        self.rt.reduce(ReduceOp::Mean, t, None, keepdim),
                    ),
                    Some(&[d]) => (
                        self.rt.along(op, correction, t, Some(d), keepdim),
                        self.rt.reduce(ReduceOp::Mean, t, Some(d), keepdim),
                    ),
                    Some(ds) => (
                        self.rt.along_dims(op, correction, t, ds, keepdim),
                        self.rt.reduce_dims(ReduceOp::Mean, t, ds, keepdim),
                    ),
                };
                let (var, mean) = crate::autograd::record::var_mean(
                    &mut self.rt,
                    self.grad,
                    t,
                    (var.map_err(at)?, mean.map_err(at)?),
                    (std, correction),
                    dims.as_deref(),
                    keepdim,
                )
                .map_err(at)?;
                Ok(Value::List(Arc::new(vec![
                    Value::Tensor(var),
                    Value::Tensor(mean),
                ])))
            }
            "median" | "nanmedian" => {
                let nan = name == "nanmedian";
                let Some(dim) = b.int("dim")? else {
                    let m = crate::autograd::median::median_all(&mut self.rt, self.grad, t, nan);
                    return b.result(m);
                };
                let keepdim = b.bool("keepdim", false)?;
                let (v, i) = crate::autograd::median::median_dim(
                    &mut self.rt,
                    self.grad,
                    t,
                    (dim, keepdim),
                    nan,
                )
                .map_err(at)?;
                let class = if nan { "nanmedian" } else { "median" };
                Ok(Value::values_indices(class, v, i))
            }
            "vector_norm" | "linalg_norm" => {
                let p = linalg_order(name, t, b)?;
                let keepdim = b.bool("keepdim", false)?;
                let t = self.converted("norm", t, b)?;
                self.reduce_along(AlongOp::Norm, p, &t, dims_arg(b)?, keepdim, b)
            }
            "norm" => {
                let p = norm_order(b)?;
                let keepdim = b.bool("keepdim", false)?;
                let t = self.converted("norm", t, b)?;
                self.reduce_along(AlongOp::Norm, p, &t, dims_arg(b)?, keepdim, b)
            }
            "tril" | "triu" => {
                let diagonal = b.int("diagonal")?.unwrap_or(0);
                let upper = name == "triu";
                let out = self.rt.tri(t, diagonal, upper).map_err(at)?;
                let node = if upper {
                    "TriuBackward0"
                } else {
                    "TrilBackward0"
                };
                let backward = crate::autograd::node::Backward::Tri { diagonal, upper };
                Ok(Value::Tensor(self.recorded(t, out, node, backward)))
            }
            "sort" | "argsort" => {
                let dim = b.int("dim")?.unwrap_or(-1);
                let descending = b.bool("descending", false)?;
                // Every sort is stable, so `stable=true` asks for nothing more.
                b.bool("stable", false)?;
                let (v, i) = self.rt.sort(t, dim, descending).map_err(at)?;
                if name == "argsort" {
                    return Ok(Value::Tensor(i));
                }
                let v = crate::autograd::record::sorted(
                    &mut self.rt,
                    self.grad,
                    t,
                    (v, &i),
                    dim,
                    false,
                )
                .map_err(at)?;
                Ok(Value::values_indices("sort", v, i))
            }
            "topk" => {
                let k = b.int("k")?.ok_or_else(|| {
                    Error::value_help("topk() needs `k`: how many", "e.g. `x.topk(3)`").at(b.span)
                })?;
                let dim = b.int("dim")?.unwrap_or(-1);
                let largest = b.bool("largest", true)?;
                // Always in order: `sorted=false` leaves the order open, and sorted is one.
                b.bool("sorted", true)?;
                let (v, i) = self.rt.topk(t, k, dim, largest).map_err(at)?;
                let v =
                    crate::autograd::record::sorted(&mut self.rt, self.grad, t, (v, &i), dim, true)
                        .map_err(at)?;
                Ok(Value::values_indices("topk", v, i))
            }
            "nonzero" | "argwhere" => {
                let rows = self.rt.nonzero(t).map_err(at)?;
                if !b.bool("as_tuple", false)? {
                    return Ok(Value::Tensor(rows));
                }
                // One index tensor per dimension: `x[nonzero(m, as_tuple=true)]`'s parts.
                let cols = (0..t.ndim() as i64)
                    .map(|d| {
                        let col = crate::runtime::op::index::select(
                            &rows,
                            &[Index::Slice(None, None, None), Index::At(d)],
                        )?;
                        self.rt.copy(&col).map(Value::Tensor)
                    })
                    .collect::<Result<Vec<Value>, Error>>()
                    .map_err(at)?;
                Ok(Value::List(Arc::new(cols)))
            }
            _ => Err(at(Error::value(format!(
                "internal error: `{name}` is not an op along a dimension"
            )))),
        }
    }

    /// `t` in the `dtype=` the call asks for (PyTorch converts the input first).
    fn converted(
        &mut self,
        name: &str,
        t: &Arc<Tensor>,
        b: &Bound,
    ) -> Result<Arc<Tensor>, Diagnostic> {
        match b.dtype("dtype")? {
            Some(dt) if dt != t.dtype() => {
                let x = self.rt.cast(t, dt).map_err(|e| e.at(b.span))?;
                self.copied(t, x, "ToCopyBackward0")
                    .map_err(|e| e.at(b.span))
            }
            Some(_) => Ok(Arc::clone(t)),
            // No dtype given: what autocast makes of the input (float32
            // for `softmax`, `cumsum`, `norm` ... in a CUDA region).
            None => {
                let cast = crate::autograd::autocast::inputs(&mut self.rt, self.grad, name, &[t])
                    .map_err(|e| e.at(b.span))?;
                Ok(cast.arc(0, t))
            }
        }
    }

    /// var, std or norm over every element, one dim, or a list of them.
    fn reduce_along(
        &mut self,
        op: AlongOp,
        p: f64,
        t: &Arc<Tensor>,
        dims: Option<Vec<i64>>,
        keepdim: bool,
        b: &Bound,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(b.span);
        let out = match dims.as_deref() {
            None | Some([]) => self.rt.along(op, p, t, None, keepdim),
            Some(&[d]) => self.rt.along(op, p, t, Some(d), keepdim),
            Some(dims) => self.rt.along_dims(op, p, t, dims, keepdim),
        }
        .map_err(at)?;
        let out = crate::autograd::record::along_reduce(
            &mut self.rt,
            self.grad,
            (op, p),
            t,
            out,
            dims.as_deref(),
            keepdim,
        )
        .map_err(at)?;
        Ok(Value::Tensor(out))
    }
}

fn along_named(name: &str) -> Result<AlongOp, Error> {
    AlongOp::ALL
        .into_iter()
        .find(|op| op.name() == name)
        .ok_or_else(|| Error::value(format!("internal error: `{name}` is not an AlongOp")))
}

/// var and std's divisor `n - correction`: `correction=` (a number) or
/// `unbiased=` (true: 1, false: 0), not both; 1 by default.
fn correction(b: &Bound) -> Result<f64, Diagnostic> {
    let unbiased = match (b.given("unbiased"), b.given("dim")) {
        (Some((Value::Bool(u), _)), _) | (None, Some((Value::Bool(u), _))) => Some(*u),
        (Some((v, span)), _) => {
            return Err(Error::wrong_type(
                format!("argument `unbiased` of {}", b.func),
                "true or false",
                v.type_name(),
            )
            .at(*span))
        }
        _ => None,
    };
    match (b.float("correction")?, unbiased) {
        (Some(_), Some(_)) => Err(Error::value_help(
            "pass `correction` or `unbiased`, not both",
            "`correction=0` is `unbiased=false`, `correction=1` is `unbiased=true`",
        )
        .at(b.span)),
        (Some(c), None) => Ok(c),
        (None, Some(u)) => Ok(if u.get() { 1.0 } else { 0.0 }),
        (None, None) => Ok(1.0),
    }
}

/// norm's `p`: a number (`inf` and `-inf` too) or "fro" (2, over the
/// elements); "nuc" and other matrix norms are not there.
/// `torch.linalg.vector_norm`'s `ord` (2 unless given), or
/// `torch.linalg.norm`'s: a vector norm of a vector, of one `dim`, or (no
/// `ord`, or "fro") of every element given; the matrix norms (`ord` of a
/// matrix over two dims: the spectral norm, "nuc", ...) are refused.
fn linalg_order(name: &str, t: &Tensor, b: &Bound) -> Result<f64, Diagnostic> {
    let vector = name == "vector_norm"
        || t.ndim() == 1
        || matches!(b.given("dim"), Some((Value::Int(_), _)));
    match b.given("ord") {
        None => Ok(2.0),
        Some((Value::Str(s), _)) if &**s == "fro" && !vector => Ok(2.0),
        Some((_, span)) if !vector => Err(Error::value_help(
            "torch.linalg.norm's matrix norms (an `ord` over two dims: the spectral norm, \"nuc\", 1, inf, ...) are not in cudash",
            "leave `ord` out (or \"fro\"): the 2-norm of every element; or give one `dim` for vector norms",
        )
        .at(*span)),
        Some((Value::Str(s), span)) => Err(Error::value(format!(
            "linalg.vector_norm: ord must be a number, not {s:?}"
        ))
        .at(*span)),
        Some(_) => Ok(b.float("ord")?.unwrap_or(2.0)),
    }
}

fn norm_order(b: &Bound) -> Result<f64, Diagnostic> {
    match b.given("p") {
        None => Ok(2.0),
        Some((Value::Str(s), _)) if &**s == "fro" => Ok(2.0),
        Some((Value::Str(s), span)) => Err(Error::value_help(
            format!("norm(p={s:?}) is not available: cudash has vector norms only"),
            "use a number for p (`2`, `1`, `inf`), or \"fro\" (the 2-norm of the elements)",
        )
        .at(*span)),
        Some(_) => Ok(b.float("p")?.unwrap_or(2.0)),
    }
}
