//! Tensor methods that change the shape: views (`view`, `unsqueeze`,
//! `squeeze`, `permute`, `expand`, `chunk`, `split`, `.mT`) and the two that
//! copy a strided layout out (`flip`, `repeat`), as PyTorch's.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::node::Backward;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::op::index::Index;
use crate::runtime::op::view;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// The ints of `*rest` (or of one list or tuple of them), for `what`.
pub(super) fn int_list(items: &[(Value, Span)], what: &str) -> Result<Vec<i64>, Diagnostic> {
    let flat: Vec<(Value, Span)> = match items {
        [(v @ (Value::List(_) | Value::Tensor(_)), s)] => super::super::args::flatten(v, *s)?,
        rest => rest.to_vec(),
    };
    flat.iter()
        .map(|(v, s)| match v {
            Value::Int(i) => Ok(*i),
            other => Err(Error::wrong_type(what, "an int", other.type_name()).at(*s)),
        })
        .collect()
}

fn ints(b: &Bound, what: &str) -> Result<Vec<i64>, Diagnostic> {
    int_list(&b.rest, what)
}

/// A view of `t` (or an error at the call), recorded for autograd as `name`.
fn viewed(
    me: &Interp,
    t: &Arc<Tensor>,
    r: Result<Tensor, Error>,
    b: &Bound,
    name: &'static str,
    backward: Backward,
) -> Out {
    let x = Arc::new(r.map_err(|e| e.at(b.span))?);
    Ok(Value::Tensor(me.recorded(t, x, name, backward)))
}

pub(super) fn view(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dims = ints(b, "a size of view()")?;
    viewed(
        me,
        t,
        view::view(t, &dims),
        b,
        "ViewBackward0",
        Backward::Reshape,
    )
}

/// `x.view_as(other)`, `x.expand_as(other)`, `x.reshape_as(other)`: as
/// `view`, `expand`, `reshape` with `other`'s shape.
pub(super) fn as_other(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let other = b.tensor("other")?;
    let dims: Vec<i64> = other.shape().iter().map(|&d| d as i64).collect();
    match name {
        "view_as" => viewed(
            me,
            t,
            view::view(t, &dims),
            b,
            "ViewBackward0",
            Backward::Reshape,
        ),
        "expand_as" => viewed(
            me,
            t,
            view::expand(t, &dims),
            b,
            "ExpandBackward0",
            Backward::Expand,
        ),
        _ => {
            let x = me.rt.reshape(t, &dims).map_err(|e| e.at(b.span))?;
            Ok(Value::Tensor(me.reshaped(t, x).map_err(|e| e.at(b.span))?))
        }
    }
}

pub(super) fn unsqueeze(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dim = b.int("dim")?.unwrap_or(0);
    viewed(
        me,
        t,
        view::unsqueeze(t, dim),
        b,
        "UnsqueezeBackward0",
        Backward::Reshape,
    )
}

pub(super) fn squeeze(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dim = b.int("dim")?;
    let name = match dim {
        None => "SqueezeBackward0",
        Some(_) => "SqueezeBackward1",
    };
    viewed(me, t, view::squeeze(t, dim), b, name, Backward::Reshape)
}

pub(super) fn permute(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dims = ints(b, "a dimension of permute()")?;
    let order = crate::runtime::shape::norm_dims(&dims, t.ndim()).unwrap_or_default();
    let backward = Backward::Permute { dims: order };
    viewed(
        me,
        t,
        view::permute(t, &dims),
        b,
        "PermuteBackward0",
        backward,
    )
}

pub(super) fn expand(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let sizes = ints(b, "a size of expand()")?;
    viewed(
        me,
        t,
        view::expand(t, &sizes),
        b,
        "ExpandBackward0",
        Backward::Expand,
    )
}

/// `x.flatten(start_dim=0, end_dim=-1)`: a reshape (a view when possible).
pub(super) fn flatten(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    if t.ndim() == 0 {
        let x = me.rt.reshape(t, &[1]).map_err(at)?;
        return Ok(Value::Tensor(me.reshaped(t, x).map_err(|e| e.at(b.span))?));
    }
    let n = t.ndim();
    let start = crate::runtime::shape::norm_dim(b.int("start_dim")?.unwrap_or(0), n).map_err(at)?;
    let end = crate::runtime::shape::norm_dim(b.int("end_dim")?.unwrap_or(-1), n).map_err(at)?;
    if start > end {
        return Err(at(Error::shape(format!(
            "flatten(): start_dim {start} comes after end_dim {end}"
        ))));
    }
    let mut dims: Vec<i64> = t.shape()[..start].iter().map(|&s| s as i64).collect();
    dims.push(t.shape()[start..=end].iter().product::<usize>() as i64);
    dims.extend(t.shape()[end + 1..].iter().map(|&s| s as i64));
    let x = me.rt.reshape(t, &dims).map_err(at)?;
    Ok(Value::Tensor(me.reshaped(t, x).map_err(|e| e.at(b.span))?))
}

/// `x.flip(*dims)`: a copy of `x` read backwards along `dims`.
pub(super) fn flip(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dims = ints(b, "a dimension of flip()")?;
    let out = crate::autograd::create_graph::flip(&mut me.rt, me.grad, t, &dims);
    Ok(Value::Tensor(out.map_err(|e| e.at(b.span))?))
}

/// `x.roll(shifts, dims=None)`: a copy with the elements moved along dims
/// (or the flattened tensor), wrapping around.
pub(super) fn roll(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    me.roll_of(t, b)
}

/// `x.repeat(*sizes)`: a copy of `x` tiled `sizes` times.
pub(super) fn repeat(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let sizes = ints(b, "a size of repeat()")?;
    // PyTorch's refusals of the sizes, before anything is copied.
    view::repeated(t, &sizes).map_err(at)?;
    let sizes: Vec<usize> = sizes.iter().map(|&s| s.max(0) as usize).collect();
    let out = crate::autograd::views::repeat(&mut me.rt, me.grad, t, &sizes).map_err(at)?;
    Ok(Value::Tensor(out))
}

pub(super) fn chunk(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let chunks = b.int("chunks")?.unwrap_or(1);
    let dim = b.int("dim")?.unwrap_or(0);
    let parts = view::chunk(t, chunks, dim).map_err(|e| e.at(b.span))?;
    pieces(me, t, parts, dim, "SplitBackward0").map_err(|e| e.at(b.span))
}

/// `x.split(size, dim=0)` or `x.split([sizes], dim=0)`.
pub(super) fn split(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let dim = b.int("dim")?.unwrap_or(0);
    let mut node = "SplitBackward0";
    let parts = match b.get("split_size") {
        Some((Value::Int(n), _)) => view::split(t, *n, dim),
        Some((v @ (Value::List(_) | Value::Tensor(_)), s)) => {
            let sizes = int_list(&[(v.clone(), *s)], "a size of split()")?;
            node = "SplitWithSizesBackward0";
            view::split_sizes(t, &sizes, dim)
        }
        Some((other, s)) => {
            return Err(Error::wrong_type(
                "the size of split()",
                "an int or a list of ints",
                other.type_name(),
            )
            .at(*s))
        }
        None => return Err(at(Error::value("split() needs the size of its parts"))),
    }
    .map_err(at)?;
    pieces(me, t, parts, dim, node).map_err(at)
}

/// `x.unbind(dim=0)`: the slices along `dim`, each without it.
pub(super) fn unbind(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let dim = b.int("dim")?.unwrap_or(0);
    let parts = me.unbind(t, dim).map_err(|e| e.at(b.span))?;
    Ok(Value::List(Arc::new(parts)))
}

/// The parts `chunk` and `split` made of `t` along `dim`: recorded as the
/// outputs of one node (PyTorch's `SplitBackward0`), whose backward joins
/// their gradients into one.
fn pieces(
    me: &Interp,
    t: &Arc<Tensor>,
    parts: Vec<Tensor>,
    dim: i64,
    node: &'static str,
) -> Result<Value, Error> {
    let d = crate::runtime::shape::norm_dim(dim, t.ndim().max(1))?;
    let sizes = parts
        .iter()
        .map(|p| p.shape().get(d).copied().unwrap_or(0))
        .collect();
    let backward = Backward::Split {
        dim: d,
        sizes,
        stacked: false,
    };
    let parts = parts.into_iter().map(Arc::new).collect();
    Ok(me.parts(t, parts, (node, backward)))
}

/// `x.mT`.
pub(super) fn matrix_transpose(t: &Tensor) -> Result<Value, Error> {
    view::matrix_transpose(t).map(Value::tensor)
}

/// `x.H`: a matrix's conjugate transpose (a real one's transpose).
pub(super) fn adjoint(t: &Tensor) -> Result<Value, Error> {
    if t.ndim() != 2 {
        return Err(Error::runtime(format!(
            "tensor.H is only supported on matrices (2-D tensors). Got {}-D tensor.",
            t.ndim()
        )));
    }
    matrix_transpose(t)
}

/// `x.narrow(dim, start, length)`: the `length` elements from `start`
/// along `dim`, a view (`SliceBackward0`, as PyTorch's `slice`).
pub(super) fn narrow(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let dim = b.int("dim")?.unwrap_or(0);
    let (start, length) = (b.int("start")?.unwrap_or(0), b.int("length")?.unwrap_or(0));
    if t.ndim() == 0 {
        return Err(at(Error::value(
            "narrow() cannot be applied to a 0-dim tensor.",
        )));
    }
    let d = crate::runtime::shape::norm_dim(dim, t.ndim()).map_err(at)?;
    let size = t.shape()[d] as i64;
    if start < -size || start > size {
        return Err(at(Error::Module {
            class: "IndexError",
            message: format!(
                "start out of range (expected to be in range of [{}, {size}], but got {start})",
                -size
            ),
            help: None,
        }));
    }
    let start = if start < 0 { start + size } else { start };
    if length < 0 || start + length > size {
        return Err(at(Error::Module {
            class: "RuntimeError",
            message: match length < 0 {
                true => "narrow(): length must be non-negative.".into(),
                false => {
                    format!("start ({start}) + length ({length}) exceeds dimension size ({size}).")
                }
            },
            help: None,
        }));
    }
    let mut items = vec![Index::Slice(None, None, None); d];
    items.push(Index::Slice(Some(start), Some(start + length), None));
    let out = me.rt.index(t, &items).map_err(at)?;
    crate::autograd::record::index(&mut me.rt, me.grad, t, out, &items)
        .map(Value::Tensor)
        .map_err(at)
}

/// `x.select(dim, index)`: the view `x[..., index]` at `dim`, as PyTorch's
/// (its errors for a 0-d tensor and an index out of range).
pub(super) fn select(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let dim = b.int("dim")?.unwrap_or(0);
    let index = b.int("index")?.unwrap_or(0);
    if t.ndim() == 0 {
        return Err(at(Error::Module {
            class: "IndexError",
            message: "select() cannot be applied to a 0-dim tensor.".into(),
            help: None,
        }));
    }
    let d = crate::runtime::shape::norm_dim(dim, t.ndim()).map_err(at)?;
    let size = t.shape()[d] as i64;
    if index < -size || index >= size {
        return Err(at(Error::Module {
            class: "IndexError",
            message: format!(
                "select(): index {index} out of range for tensor of size [{}] at dimension {d}",
                t.shape()
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            help: None,
        }));
    }
    let mut items = vec![Index::Slice(None, None, None); d];
    items.push(Index::At(index));
    let out = me.rt.index(t, &items).map_err(at)?;
    crate::autograd::record::index(&mut me.rt, me.grad, t, out, &items)
        .map(Value::Tensor)
        .map_err(at)
}

/// `x.unfold(dimension, size, step)`: a view of x's windows along
/// `dimension` (`UnfoldBackward0`).
pub(super) fn unfold(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let int = |name: &str| -> Result<i64, Diagnostic> {
        b.int(name)?
            .ok_or_else(|| Error::value(format!("unfold() needs `{name}`")).at(b.span))
    };
    let (dim, size, step) = (int("dimension")?, int("size")?, int("step")?);
    let r = crate::autograd::views::unfold(&me.rt, me.grad, t, dim, size, step);
    r.map(Value::Tensor).map_err(|e| e.at(b.span))
}

/// `x.as_strided(size, stride, storage_offset=None)`: a view of x's
/// storage with the given sizes and strides, starting `storage_offset`
/// elements into the storage (x's own offset by default), as PyTorch's;
/// one that reaches past the storage is its RuntimeError.
pub(super) fn as_strided(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let list = |name: &str| -> Result<Vec<i64>, Diagnostic> {
        let (v, s) = b.get(name).cloned().unwrap_or((Value::None, b.span));
        let v = match v {
            Value::Size(items) => Value::List(items),
            Value::Int(i) => Value::List(Arc::new(vec![Value::Int(i)])),
            other => other,
        };
        int_list(&[(v, s)], &format!("as_strided()'s {name}"))
    };
    let (size, stride) = (list("size")?, list("stride")?);
    let offset = b.int("storage_offset")?.unwrap_or(t.offset() as i64);
    let r = crate::autograd::views::as_strided(&me.rt, me.grad, t, (&size, &stride, offset));
    r.map(Value::Tensor).map_err(|e| e.at(b.span))
}
