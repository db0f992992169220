//! Tensor methods that pick or place elements by an index tensor, as
//! PyTorch's: `gather`, `scatter` / `scatter_add` (and in place),
//! `index_select`, `masked_select` (`autograd::scatter` records them).

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::scatter::{self, Src};
use crate::error::{Diagnostic, Error};
use crate::runtime::shape::norm_dim;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// `dim`, counted from the end when negative, for a tensor of `ndim`
/// dimensions (a 0-d tensor takes 0 and -1).
fn dim_of(b: &Bound, ndim: usize) -> Result<usize, Diagnostic> {
    let d = b
        .int("dim")?
        .ok_or_else(|| Error::value("`dim` is required").at(b.span))?;
    norm_dim(d, ndim.max(1)).map_err(|e| e.at(b.span_of("dim")))
}

/// `x.gather(dim, index)`.
pub(super) fn gather(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dim = dim_of(b, t.ndim())?;
    let index = b.tensor("index")?;
    b.result(scatter::gather(&mut me.rt, me.grad, t, dim, &index))
}

/// `x.index_select(dim, index)`.
pub(super) fn index_select(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dim = dim_of(b, t.ndim())?;
    let index = b.tensor("index")?;
    b.result(scatter::index_select(&mut me.rt, me.grad, t, dim, &index))
}

/// `x.masked_select(mask)`.
pub(super) fn masked_select(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let mask = b.tensor("mask")?;
    b.result(scatter::masked_select(&mut me.rt, me.grad, t, &mask))
}

/// What a scatter writes: `src` (a tensor), or `value` (a number, also
/// given as the third argument in `src`'s place, as PyTorch takes it).
fn source(b: &Bound) -> Result<(Option<Arc<Tensor>>, Option<Tensor>), Diagnostic> {
    let number = |v: &Value| match v {
        Value::Int(i) => Some(Tensor::scalar(*i)),
        Value::Float(f) => Some(Tensor::scalar(f.get())),
        Value::Bool(x) => Some(Tensor::scalar(x.get())),
        _ => None,
    };
    if let Some((v, _)) = b.given("src") {
        if let Some(n) = number(v) {
            return Ok((None, Some(n)));
        }
        return Ok((Some(b.tensor("src")?), None));
    }
    if let Some((v, s)) = b.given("value") {
        let n = number(v).ok_or_else(|| {
            Error::wrong_type("argument `value` of scatter", "a number", v.type_name()).at(*s)
        })?;
        return Ok((None, Some(n)));
    }
    Err(Error::value_help(
        "scatter needs `src` (a tensor) or `value` (a number)",
        "e.g. `x.scatter(1, index, 1.0)` or `x.scatter(1, index, src)`",
    )
    .at(b.span))
}

/// `x.scatter(dim, index, src)`, `scatter_add`, and in place (`scatter_`,
/// `scatter_add_`, recorded in a graph as PyTorch records them).
pub(super) fn scatter(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    if b.given("reduce").is_some() {
        return Err(Error::value_help(
            "scatter's `reduce=` is not in cudash",
            "use `scatter_add` for \"add\"; `scatter_reduce` is not in cudash either",
        )
        .at(b.span_of("reduce")));
    }
    let dim = dim_of(b, t.ndim())?;
    let index = b.tensor("index")?;
    let (src_t, value) = source(b)?;
    let src = match (&src_t, &value) {
        (Some(s), _) => Src::Tensor(s),
        (None, Some(v)) => Src::Value(v),
        (None, None) => unreachable!("source gives one"),
    };
    let add = name.starts_with("scatter_add");
    if !name.ends_with('_') {
        return b.result(scatter::scatter(
            &mut me.rt,
            me.grad,
            t,
            (dim, &index),
            src,
            add,
        ));
    }
    scatter::scatter_recorded(&mut me.rt, me.grad, t, (dim, &index), src, add)
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(Arc::clone(t)))
}
