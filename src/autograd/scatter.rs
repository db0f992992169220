//! Ops that pick or place elements along one dimension by an index tensor,
//! as PyTorch's: `gather` (`GatherBackward0`), `scatter` / `scatter_add`
//! (`ScatterBackward0`, `ScatterBackward1` for a number, `ScatterAddBackward0`),
//! `index_select` (`IndexSelectBackward0`) and `masked_select`
//! (`MaskedSelectBackward0`).
//!
//! `gather` and `scatter` run as one advanced index into x's elements in
//! order: each picked element's offset is `index * stride[dim]` plus its
//! position's offset along the other dimensions, computed on x's device
//! (nothing is read by the host, so nothing waits). An index outside
//! `[0, size)` gets an offset past the end, which the indexing kernel
//! refuses, as PyTorch's gather kernel asserts.

use std::sync::Arc;

use super::node::Backward;
use super::ops::{add_into_zeros, bin, full_like, positions};
use super::record::attach_node;
use super::{forward_ad, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::view;
use crate::runtime::shape::fmt_shape;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// What `scatter` writes: a tensor's elements, or one number.
pub enum Src<'a> {
    Tensor(&'a Arc<Tensor>),
    Value(&'a Tensor),
}

/// `a op n` with an integer `n` (the dtype stays i64).
fn bin_i(rt: &mut Runtime, op: BinaryOp, a: &Tensor, n: i64) -> R<Arc<Tensor>> {
    rt.binary(op, Operand::strong(a), Operand::weak(&Tensor::scalar(n)))
}

/// PyTorch's checks of `gather`/`scatter`'s index against `x` (`what`
/// names the op in the message).
fn check(what: &str, x: &Tensor, dim: usize, index: &Tensor) -> R<()> {
    if !matches!(index.dtype(), DType::I64 | DType::I32) {
        return Err(Error::dtype(
            format!("{what}(): Expected dtype int32/int64 for index"),
            Some("convert it: `index.long()`".into()),
        ));
    }
    let (xd, id) = (x.ndim().max(1), index.ndim().max(1));
    if xd != id {
        return Err(Error::Shape {
            message: format!(
                "Index tensor must have the same number of dimensions as {} tensor",
                if what == "gather" { "input" } else { "self" }
            ),
            help: Some(format!(
                "x is {} and the index {}: unsqueeze the index (`index.unsqueeze({dim})`)",
                fmt_shape(x.shape()),
                fmt_shape(index.shape())
            )),
        });
    }
    for d in 0..index.ndim() {
        if d != dim && index.shape()[d] > x.shape()[d] {
            return Err(Error::Shape {
                message: format!(
                    "Size does not match at dimension {d} expected index {} to be smaller than self {} apart from dimension {dim}",
                    fmt_shape(index.shape()),
                    fmt_shape(x.shape())
                ),
                help: None,
            });
        }
    }
    // A cpu index is checked here, as PyTorch's cpu kernel does; a device's
    // kernel refuses an offset past the end (a device-side assertion).
    if index.device() == crate::runtime::Device::Cpu && x.ndim() > 0 {
        let size = x.shape()[dim] as i64;
        if let Some(bad) = index
            .to_vec::<i64>()
            .into_iter()
            .find(|&i| i < 0 || i >= size)
        {
            return Err(Error::Module {
                class: "RuntimeError",
                message: format!(
                    "index {bad} is out of bounds for dimension {dim} with size {size}"
                ),
                help: Some(format!("an index along dimension {dim} is 0..{size}")),
            });
        }
    }
    Ok(())
}

/// What a scatter writes at the offsets: src's elements the index
/// covers (src may be larger than the index), or the one value.
fn values(what: &str, x: &Tensor, index: &Tensor, src: &Src) -> R<Arc<Tensor>> {
    let s = match src {
        Src::Tensor(s) => s,
        Src::Value(v) => return Ok(Arc::new(v.alias())),
    };
    let fits = s.ndim().max(1) == index.ndim().max(1)
        && (0..index.ndim()).all(|d| index.shape()[d] <= s.shape()[d]);
    if !fits {
        return Err(Error::value(format!(
            "{what}(): Expected index {} to be smaller than src {}",
            fmt_shape(index.shape()),
            fmt_shape(s.shape())
        )));
    }
    same_dtype(what, x, s)?;
    let mut part = Arc::clone(s);
    for (d, &n) in index.shape().iter().enumerate() {
        if part.shape()[d] != n {
            part = Arc::new(crate::runtime::op::index::narrow(&part, d, 0, n)?);
        }
    }
    Ok(part)
}

/// PyTorch's refusal of a `src` of another dtype than x's; and of
/// `scatter_add` on a tensor cudash cannot add into yet (integers).
fn same_dtype(what: &str, x: &Tensor, src: &Tensor) -> R<()> {
    if x.dtype() != src.dtype() {
        return Err(Error::Module {
            class: "RuntimeError",
            message: format!(
                "{}(): Expected self.dtype to be equal to src.dtype",
                what.trim_end_matches('_')
            ),
            help: Some(format!("convert one: `src.to({})`", x.dtype())),
        });
    }
    if what.starts_with("scatter_add") && !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Err(Error::dtype(
            format!(
                "cudash's {what} adds into f32 and f64 tensors only, not {}",
                x.dtype()
            ),
            Some(
                "count in floats (`zeros(n).scatter_add_(0, idx, ones(k))`), then `.long()`".into(),
            ),
        ));
    }
    Ok(())
}

/// The offset into a contiguous tensor of `shape` of each element `index`
/// points at along `dim` (at the index element's own position along the
/// other dims); past the end for an index outside the dimension.
fn offsets(rt: &mut Runtime, shape: &[usize], dim: usize, index: &Tensor) -> R<Arc<Tensor>> {
    let ndim = shape.len();
    if ndim == 0 {
        let size = 1;
        return in_range(rt, index, Arc::new(index.alias()), size, 1);
    }
    let mut strides = vec![1usize; ndim];
    for d in (0..ndim.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    let mut off = bin_i(rt, BinaryOp::Mul, index, strides[dim] as i64)?;
    for (d, &stride) in strides.iter().enumerate() {
        if d == dim || index.shape()[d] == 1 && shape[d] == 1 {
            continue;
        }
        let pos = positions(rt, index.shape()[d], d, ndim, index.device())?;
        let at = bin_i(rt, BinaryOp::Mul, &pos, stride as i64)?;
        off = bin(rt, BinaryOp::Add, &off, &at)?;
    }
    let numel = shape.iter().product::<usize>();
    in_range(rt, index, off, shape[dim], numel)
}

/// `off` where `0 <= index < size`, else `numel` (one past the end).
fn in_range(
    rt: &mut Runtime,
    index: &Tensor,
    off: Arc<Tensor>,
    size: usize,
    numel: usize,
) -> R<Arc<Tensor>> {
    let low = bin_i(rt, BinaryOp::Ge, index, 0)?;
    let high = bin_i(rt, BinaryOp::Lt, index, size as i64)?;
    let ok = bin(rt, BinaryOp::LogicalAnd, &low, &high)?;
    let past = Tensor::scalar(numel as i64);
    rt.ternary(
        TernaryOp::Where,
        Operand::strong(&ok),
        Operand::strong(&off),
        Operand::weak(&past),
    )
}

/// x's elements in order, as one dimension (a view when x is contiguous).
fn flat(rt: &mut Runtime, x: &Arc<Tensor>) -> R<Arc<Tensor>> {
    rt.reshape(x, &[-1])
}

/// `x.gather(dim, index)`: `out[i][j] = x[i][index[i][j]]` for `dim=1`,
/// the index's shape.
pub fn gather(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    dim: usize,
    index: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    check("gather", x, dim, index)?;
    let off = offsets(rt, x.shape(), dim, index)?;
    let elements = flat(rt, x)?;
    let out = rt.index(&elements, &[Index::Tensor(Arc::clone(&off))])?;
    let backward = Backward::GatherAlong { offsets: off };
    let out = attach_node(rt, mode, out, "GatherBackward0", backward, &[x]);
    // Forward-mode AD: linear, so the same gather of the tangent.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        gather(rt, mode, t, dim, index)
    })
}

/// `x.scatter(dim, index, src)` (`add`: `scatter_add`): a copy of x with
/// src's elements written (added) where the index points.
pub fn scatter(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    (dim, index): (usize, &Arc<Tensor>),
    src: Src,
    add: bool,
) -> R<Arc<Tensor>> {
    let what = if add { "scatter_add" } else { "scatter" };
    check(what, x, dim, index)?;
    let out = rt.copy(x)?;
    let off = offsets(rt, x.shape(), dim, index)?;
    let values = values(what, x, index, &src)?;
    let elements = flat(rt, &out)?;
    let items = [Index::Tensor(Arc::clone(&off))];
    match add {
        true => rt.index_put_add(&elements, &items, &values)?,
        false => rt.index_put(&elements, &items, &values)?,
    }
    let inputs: Vec<&Tensor> = match &src {
        Src::Tensor(s) => vec![x, s],
        Src::Value(_) => vec![x],
    };
    let name = match (&src, add) {
        (_, true) => "ScatterAddBackward0",
        (Src::Tensor(_), false) => "ScatterBackward0",
        (Src::Value(_), false) => "ScatterBackward1",
    };
    let backward = Backward::ScatterAlong { offsets: off, add };
    let out = attach_node(rt, mode, out, name, backward, &inputs);
    // Forward-mode AD: linear in x and src together, so the same scatter
    // of their tangents (zeros for one without); a number written is 0.
    forward_ad::carry(rt, Arc::clone(&out), &inputs, true, |rt, ts| {
        let tx = match &ts[0] {
            Some(t) => Arc::clone(t),
            None => full_like(rt, x, 0)?,
        };
        let zero = Tensor::scalar(0.0f64);
        let ts_src;
        let src = match &src {
            Src::Tensor(s) => {
                ts_src = match ts.get(1).and_then(Option::as_ref) {
                    Some(t) => Arc::clone(t),
                    None => full_like(rt, s, 0)?,
                };
                Src::Tensor(&ts_src)
            }
            Src::Value(_) => Src::Value(&zero),
        };
        scatter(rt, mode, &tx, (dim, index), src, add)
    })
}

/// `x.index_select(dim, index)`: whole slices of x along `dim`, in the
/// order a 1-d index gives them (a copy).
pub fn index_select(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    dim: usize,
    index: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    if index.ndim() > 1 {
        return Err(Error::value(
            "index_select(): Index is supposed to be a vector",
        ));
    }
    if !index.dtype().is_int() {
        return Err(Error::dtype(
            "index_select(): Expected dtype int32/int64 for index",
            None,
        ));
    }
    let mut items = vec![Index::Slice(None, None, None); dim];
    let flat_index = match index.ndim() {
        0 => Arc::new(view::view(index, &[1])?),
        _ => Arc::clone(index),
    };
    items.push(Index::Tensor(flat_index));
    // A 0-d x is indexed as one element (recorded, so its gradient
    // flows back) and gives a 0-d result, as PyTorch's.
    let scalar = x.ndim() == 0;
    let x = match scalar {
        true => super::views::view(rt, mode, x, &[1])?,
        false => Arc::clone(x),
    };
    let out = rt.index(&x, &items)?;
    let backward = Backward::Index {
        items,
        padding_idx: None,
    };
    let out = attach_node(rt, mode, out, "IndexSelectBackward0", backward, &[&x]);
    // Forward-mode AD: the same slices of the tangent.
    let out = forward_ad::carry_one(rt, Arc::clone(&out), &x, |rt, t| {
        index_select(rt, mode, t, dim, index)
    })?;
    match scalar && out.numel() == 1 {
        true => super::views::reshape(rt, mode, &out, &[]),
        false => Ok(out),
    }
}

/// `x.masked_select(mask)`: the elements where the mask (broadcast with
/// x) holds, as one dimension. The host reads the mask to learn how many
/// there are, as PyTorch's does.
pub fn masked_select(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    mask: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    if mask.dtype() != DType::Bool {
        return Err(Error::dtype(
            format!(
                "masked_select: expected BoolTensor for mask, not {}",
                mask.dtype()
            ),
            Some("compare to make one: `x.masked_select(x > 0)`".into()),
        ));
    }
    let shape =
        crate::runtime::shape::broadcast_shapes(x.shape(), mask.shape()).ok_or_else(|| {
            Error::Broadcast {
                op: "masked_select".into(),
                lhs: fmt_shape(x.shape()),
                rhs: fmt_shape(mask.shape()),
            }
        })?;
    let dims: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    let xs = match x.shape() == shape.as_slice() {
        true => Arc::clone(x),
        false => attach_node(
            rt,
            mode,
            Arc::new(view::expand(x, &dims)?),
            "ExpandBackward0",
            Backward::Expand,
            &[x],
        ),
    };
    let mask = match mask.shape() == shape.as_slice() {
        true => Arc::clone(mask),
        false => Arc::new(view::expand(mask, &dims)?),
    };
    let items = vec![Index::Tensor(Arc::clone(&mask))];
    let out = rt.index(&xs, &items)?;
    let backward = Backward::Index {
        items,
        padding_idx: None,
    };
    let out = attach_node(rt, mode, out, "MaskedSelectBackward0", backward, &[&xs]);
    // Forward-mode AD: the tangent's elements where the mask holds.
    forward_ad::carry_one(rt, Arc::clone(&out), &xs, |rt, t| {
        masked_select(rt, mode, t, &mask)
    })
}

/// `GatherBackward0`: g added into zeros of x's shape at the offsets.
pub fn gather_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    shape: &[usize],
    offsets: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    let numel = shape.iter().product::<usize>();
    let g = match g.is_contiguous() {
        true => Arc::clone(g),
        false => rt.copy(g)?,
    };
    let items = [Index::Tensor(Arc::clone(offsets))];
    let sum = add_into_zeros(rt, &[numel], g.device(), &items, &g)?;
    let dims: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
    rt.reshape(&sum, &dims)
}

/// `ScatterBackward0` / `ScatterAddBackward0`: x's gradient (g, zeros
/// where a scatter overwrote), and src's (g's elements at the offsets).
pub fn scatter_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    offsets: &Arc<Tensor>,
    add: bool,
    wants_src: bool,
) -> R<(Arc<Tensor>, Option<Arc<Tensor>>)> {
    let items = [Index::Tensor(Arc::clone(offsets))];
    let elements = match g.is_contiguous() {
        true => Arc::clone(g),
        false => rt.copy(g)?,
    };
    let elements = flat(rt, &elements)?;
    let gsrc = match wants_src {
        true => Some(rt.index(&elements, &items)?),
        false => None,
    };
    let gx = match add {
        true => Arc::clone(g),
        false => {
            let cleared = rt.copy(g)?;
            let cells = flat(rt, &cleared)?;
            let zero = Tensor::scalar(0.0f64).cast(g.dtype());
            rt.index_put(&cells, &items, &zero)?;
            cleared
        }
    };
    Ok((gx, gsrc))
}

/// `x.scatter_(dim, index, src)` / `scatter_add_`, recorded when x or src
/// requires grad, as PyTorch records them: the out-of-place op's node
/// (`ScatterAddBackward0`, `ScatterBackward0`, `ScatterBackward1` for a
/// number) becomes x's history, its first edge where x's old elements'
/// gradient goes (a view's base through `CopySlices`).
pub fn scatter_recorded(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    (dim, index): (usize, &Arc<Tensor>),
    src: Src,
    add: bool,
) -> R<()> {
    let what = if add { "scatter_add_" } else { "scatter_" };
    check(what, x, dim, index)?;
    let (others, name): (Vec<Option<&Tensor>>, &'static str) = match (&src, add) {
        (Src::Tensor(s), true) => (vec![Some(&***s)], "ScatterAddBackward0"),
        (Src::Tensor(s), false) => (vec![Some(&***s)], "ScatterBackward0"),
        (Src::Value(_), _) => (Vec::new(), "ScatterBackward1"),
    };
    let offsets = offsets(rt, x.shape(), dim, index)?;
    super::inplace::recorded(
        rt,
        mode,
        x,
        &others,
        || (name, Backward::ScatterAlong { offsets, add }),
        |rt| scatter_(rt, x, (dim, index), src, add),
    )
}

/// `x.scatter_(dim, index, src)` / `scatter_add_` where nothing is
/// recorded: written into x's
/// own elements when x is contiguous (nothing allocated but the offsets),
/// else computed aside and copied in.
pub fn scatter_(
    rt: &mut Runtime,
    x: &Arc<Tensor>,
    (dim, index): (usize, &Arc<Tensor>),
    src: Src,
    add: bool,
) -> R<()> {
    if !x.is_contiguous() {
        let off = Mode {
            enabled: false,
            ..Mode::default()
        };
        let out = scatter(rt, off, x, (dim, index), src, add)?;
        return rt.assign(x, &out);
    }
    let what = if add { "scatter_add_" } else { "scatter_" };
    check(what, x, dim, index)?;
    let off = offsets(rt, x.shape(), dim, index)?;
    let values = values(what, x, index, &src)?;
    let elements = flat(rt, x)?;
    let items = [Index::Tensor(off)];
    match add {
        true => rt.index_put_add(&elements, &items, &values),
        false => rt.index_put(&elements, &items, &values),
    }
}
