//! `F.pad(x, pad, mode="constant", value=0)`: PyTorch's `constant_pad_nd`,
//! a new tensor of the padded shape filled with `value` and x copied into
//! its middle (a negative pad crops), recorded as `ConstantPadNdBackward0`,
//! whose backward pads the gradient by the negated amounts (a crop of it);
//! and the modes `reflect` and `replicate`, places read from the input's
//! edges (`ReflectionPad2DBackward0`, `ReplicationPad2DBackward0`...).

use std::sync::Arc;

use super::node::Backward;
use super::record::attach_node;
use super::{forward_ad, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::op::index::{narrow, Index};
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// PyTorch's `RuntimeError` with its words.
fn runtime_error(message: String) -> Error {
    Error::Module {
        class: "RuntimeError",
        message,
        help: Some("`pad` is (before, after) pairs, the last dim first".into()),
    }
}

/// `x` padded by `pads` (pairs for the last dims, the last dim first),
/// the new elements `value`; nothing recorded.
pub fn constant_pad(rt: &mut Runtime, x: &Tensor, pads: &[i64], value: Fill) -> R<Arc<Tensor>> {
    let nd = x.ndim();
    if !pads.len().is_multiple_of(2) {
        return Err(runtime_error(
            "Padding length must be divisible by 2".into(),
        ));
    }
    if pads.len() / 2 > nd {
        return Err(runtime_error(format!(
            "Padding length should be less than or equal to two times the input dimension but got padding length {} and input of dimension {nd}",
            pads.len()
        )));
    }
    let mut shape = x.shape().to_vec();
    // (dim, before, after) of each padded dim.
    let mut sides = Vec::with_capacity(pads.len() / 2);
    for (k, pair) in pads.chunks(2).enumerate() {
        let d = nd - 1 - k;
        let (before, after) = (pair[0], pair[1]);
        let size = shape[d] as i64 + before + after;
        if size < 0 {
            return Err(runtime_error(format!(
                "The input size {}, plus negative padding {before} and {after} resulted in a negative output size, which is invalid. Check dimension {d} of your input.",
                shape[d]
            )));
        }
        shape[d] = size as usize;
        sides.push((d, before, after));
    }
    let new = NewTensor {
        shape: &shape,
        dtype: x.dtype(),
        device: x.device(),
        like: None,
    };
    let out = rt.full(new, value)?;
    // The part of x that stays, and where it goes in `out`.
    let (mut src, mut dst) = (x.alias(), out.alias());
    for &(d, before, after) in &sides {
        let size = x.shape()[d] as i64;
        let from = (-before).max(0);
        let to = size - (-after).max(0);
        if to <= from {
            return Ok(out);
        }
        src = narrow(&src, d, from as usize, (to - from) as usize)?;
        dst = narrow(&dst, d, before.max(0) as usize, (to - from) as usize)?;
    }
    if src.numel() > 0 {
        rt.assign(&dst, &src)?;
    }
    Ok(out)
}

/// `F.pad(x, pads, value=value)`, recorded.
pub fn pad(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    pads: &[i64],
    value: Fill,
) -> R<Arc<Tensor>> {
    let out = pad_node(rt, mode, x, pads, value)?;
    // Forward-mode AD: the tangent padded with zeros (what is written in
    // has none).
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        pad_node(rt, mode, t, pads, Fill::Int(0))
    })
}

/// [`pad`] recorded, without its tangent.
fn pad_node(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    pads: &[i64],
    value: Fill,
) -> R<Arc<Tensor>> {
    let out = constant_pad(rt, x, pads, value)?;
    let backward = Backward::ConstantPad {
        pads: pads.to_vec(),
    };
    Ok(attach_node(
        rt,
        mode,
        out,
        "ConstantPadNdBackward0",
        backward,
        &[x],
    ))
}

/// `ConstantPadNdBackward0`: the gradient padded by the negated amounts.
pub fn pad_backward(rt: &mut Runtime, mode: Mode, g: &Arc<Tensor>, pads: &[i64]) -> R<Arc<Tensor>> {
    let back: Vec<i64> = pads.iter().map(|p| -p).collect();
    // The crop recorded as a pad by the opposite amounts (its gradient pads).
    pad(rt, mode, g, &back, Fill::Int(0))
}

/// The modes of `F.pad` other than `constant`: what a padded place reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edges {
    /// The input mirrored at its edge, not repeating the edge.
    Reflect,
    /// The edge itself.
    Replicate,
    /// The other end of the input, as if it wrapped around.
    Circular,
}

impl Edges {
    /// PyTorch's name of the mode (`F.pad`'s `mode`, a conv's `padding_mode`).
    pub fn name(self) -> &'static str {
        match self {
            Edges::Reflect => "reflect",
            Edges::Replicate => "replicate",
            Edges::Circular => "circular",
        }
    }

    /// The mode PyTorch names `name`.
    pub fn named(name: &str) -> Option<Edges> {
        [Edges::Reflect, Edges::Replicate, Edges::Circular]
            .into_iter()
            .find(|e| e.name() == name)
    }
}

/// `F.pad(x, pads, mode="reflect")`, `mode="replicate"` or
/// `mode="circular"`. Reflect and replicate read each padded place from the
/// input's edges, recorded as `ReflectionPad2DBackward0` /
/// `ReplicationPad1DBackward0`... (by how many dims are padded); circular is
/// PyTorch's `_pad_circular`, copies between slices of a new tensor, so its
/// history is `CopySlices`.
pub fn pad_by_edges(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    pads: &[i64],
    edges: Edges,
) -> R<Arc<Tensor>> {
    let reflect = match edges {
        Edges::Circular => return circular(rt, mode, x, pads),
        Edges::Reflect => true,
        Edges::Replicate => false,
    };
    let out = pad_by_edges_node(rt, mode, x, pads, reflect)?;
    // Forward-mode AD: linear, so the same op of the tangent.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        pad_by_edges_node(rt, mode, t, pads, reflect)
    })
}

/// [`pad_by_edges`] recorded, without its tangent.
fn pad_by_edges_node(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    pads: &[i64],
    reflect: bool,
) -> R<Arc<Tensor>> {
    let k = pads.len() / 2;
    check_dims(x, pads)?;
    let nd = x.ndim();
    let mut places = Vec::with_capacity(k);
    for d in 0..k {
        // pads run from the last dim backwards: (left, right) of the last first.
        let dim = nd - k + d;
        let (before, after) = (pads[2 * (k - 1 - d)], pads[2 * (k - 1 - d) + 1]);
        let n = x.shape()[dim] as i64;
        let too_big = before.max(after) >= n;
        if (reflect && too_big) || n == 0 {
            return Err(Error::runtime(format!(
                "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ({before}, {after}) at dimension {dim} of input {}",
                crate::runtime::shape::spaced_shape(x.shape())
            )));
        }
        let m = n + before + after;
        if m <= 0 {
            return Err(Error::runtime(format!(
                "input (W: {n}) is too small. Calculated output W: {m}"
            )));
        }
        let at = |j: i64| {
            let i = j - before;
            match reflect {
                true if i < 0 => -i,
                true if i >= n => 2 * (n - 1) - i,
                true => i,
                false => i.clamp(0, n - 1),
            }
        };
        places.push((0..m).map(at).collect());
    }
    let name = match (reflect, k) {
        (true, 1) => "ReflectionPad1DBackward0",
        (true, 2) => "ReflectionPad2DBackward0",
        (true, _) => "ReflectionPad3DBackward0",
        (false, 1) => "ReplicationPad1DBackward0",
        (false, 2) => "ReplicationPad2DBackward0",
        (false, _) => "ReplicationPad3DBackward0",
    };
    super::upsample::by_places(rt, mode, x, places, name)
}

/// PyTorch's check of a mode other than constant: 1, 2 or 3 dims padded,
/// of an input with 1 or 2 more.
fn check_dims(x: &Tensor, pads: &[i64]) -> R<()> {
    let k = pads.len() / 2;
    if !pads.len().is_multiple_of(2)
        || !(1..=3).contains(&k)
        || x.ndim() < k + 1
        || x.ndim() > k + 2
    {
        return Err(Error::Module {
            class: "NotImplementedError",
            message: format!(
                "Padding size {} is not supported for {}D input tensor.\n\
                 Supported combinations for non-constant padding:\n  \
                 - 2D or 3D input: padding size = 2 (pads last dimension)\n  \
                 - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n  \
                 - 4D or 5D input: padding size = 6 (pads last 3 dimensions)",
                pads.len(),
                x.ndim()
            ),
            help: None,
        });
    }
    Ok(())
}

/// `F.pad(x, pads, mode="circular")` as PyTorch's `_pad_circular`: a new
/// tensor, x copied into its middle, then each padded dim's ends copied
/// from the other end of the new tensor (the last dim first, so corners
/// are copies of copies). Each copy is an in-place `copy_` into a slice,
/// so the history is a chain of `CopySlices`, as PyTorch's.
fn circular(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, pads: &[i64]) -> R<Arc<Tensor>> {
    if !pads.len().is_multiple_of(2) {
        return Err(runtime_error(
            "Padding length must be divisible by 2".into(),
        ));
    }
    check_dims(x, pads)?;
    let nd = x.ndim();
    let k = pads.len() / 2;
    // (dim, left, right) of each padded dim, the last dim first.
    let sides: Vec<(usize, i64, i64)> = (0..k)
        .map(|i| (nd - 1 - i, pads[2 * i], pads[2 * i + 1]))
        .collect();
    let mut shape = x.shape().to_vec();
    for &(d, left, right) in sides.iter().rev() {
        let size = x.shape()[d] as i64;
        if left > size || right > size {
            return Err(Error::runtime(
                "Padding value causes wrapping around more than once.",
            ));
        }
        let m = size + left + right;
        if m < 0 {
            return Err(Error::runtime(
                "Negative padding value is resulting in an empty dimension",
            ));
        }
        shape[d] = m as usize;
    }
    let new = NewTensor {
        shape: &shape,
        dtype: x.dtype(),
        device: x.device(),
        like: None,
    };
    let out = rt.empty(new)?;
    // x (cropped where a pad is negative) into the middle.
    let (mut dst, mut src) = (Arc::clone(&out), Arc::clone(x));
    for &(d, left, right) in &sides {
        dst = slice(
            rt,
            mode,
            &dst,
            d,
            left.max(0),
            shape[d] as i64 - right.max(0),
        )?;
        src = slice(
            rt,
            mode,
            &src,
            d,
            (-left).max(0),
            x.shape()[d] as i64 - (-right).max(0),
        )?;
    }
    copy_into(rt, mode, &dst, &src)?;
    // Each side from the other end.
    for &(d, left, right) in &sides {
        let m = shape[d] as i64;
        if left > 0 {
            let to = slice(rt, mode, &out, d, 0, left)?;
            let from = slice(rt, mode, &out, d, m - left - right.max(0), m - right.max(0))?;
            copy_into(rt, mode, &to, &from)?;
        }
        if right > 0 {
            let to = slice(rt, mode, &out, d, m - right, m)?;
            let from = slice(rt, mode, &out, d, left.max(0), left.max(0) + right)?;
            copy_into(rt, mode, &to, &from)?;
        }
    }
    Ok(out)
}

/// `t[..., from:to]` along `dim`, recorded as a view (`SliceBackward0`).
fn slice(
    rt: &mut Runtime,
    mode: Mode,
    t: &Arc<Tensor>,
    dim: usize,
    from: i64,
    to: i64,
) -> R<Arc<Tensor>> {
    let view = Arc::new(narrow(t, dim, from as usize, (to - from).max(0) as usize)?);
    let mut items = vec![Index::Slice(None, None, None); dim];
    items.push(Index::Slice(Some(from), Some(to), None));
    super::record::index(rt, mode, t, view, &items)
}

/// `to.copy_(from)`, recorded (`to` a view: its base's history `CopySlices`).
fn copy_into(rt: &mut Runtime, mode: Mode, to: &Arc<Tensor>, from: &Arc<Tensor>) -> R<()> {
    if to.numel() == 0 {
        return Ok(());
    }
    super::inplace::copy_(rt, mode, to, from, |rt| rt.assign(to, from))
}
