//! `F.pixel_shuffle(x, r)`: [*, C * r * r, H, W] to [*, C, H * r, W * r],
//! each channel group's r * r planes interleaved into one plane (the
//! sub-pixel convolution of super-resolution), and `F.pixel_unshuffle`,
//! its inverse; one copy each, recorded as `PixelShuffleBackward0` /
//! `PixelUnshuffleBackward0`, whose gradient is the inverse of `g`.

use std::sync::Arc;

use super::node::Backward;
use super::record::attach_node;
use super::{forward_ad, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::view;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// The rearrangement alone (`inverse`: unshuffle), nothing recorded.
pub fn shuffled(rt: &mut Runtime, x: &Arc<Tensor>, r: usize, inverse: bool) -> R<Arc<Tensor>> {
    let name = match inverse {
        false => "pixel_shuffle",
        true => "pixel_unshuffle",
    };
    if x.ndim() < 3 {
        return Err(Error::runtime(format!(
            "{name} expects input to have at least 3 dimensions, but got input with {} dimension(s)",
            x.ndim()
        )));
    }
    if r == 0 {
        return Err(Error::runtime(format!(
            "{name} expects a positive {}, but got 0",
            if inverse {
                "downscale_factor"
            } else {
                "upscale_factor"
            }
        )));
    }
    let nd = x.ndim();
    let lead: Vec<i64> = x.shape()[..nd - 3].iter().map(|&d| d as i64).collect();
    let (c, h, w) = (x.shape()[nd - 3], x.shape()[nd - 2], x.shape()[nd - 1]);
    let (r_, l) = (r as i64, lead.len());
    let x = match x.is_contiguous() {
        true => Arc::clone(x),
        false => rt.copy(x)?,
    };
    let with = |tail: &[i64]| -> Vec<i64> { lead.iter().chain(tail).copied().collect() };
    let (split, order, joined): (Vec<i64>, [usize; 5], Vec<i64>) = match inverse {
        false => {
            if c % (r * r) != 0 {
                return Err(Error::runtime(format!(
                    "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {}",
                    r * r
                )));
            }
            let oc = (c / (r * r)) as i64;
            let (h, w) = (h as i64, w as i64);
            // [*, oc, r, r, h, w] -> [*, oc, h, r, w, r]
            (
                with(&[oc, r_, r_, h, w]),
                [0, 3, 1, 4, 2],
                with(&[oc, h * r_, w * r_]),
            )
        }
        true => {
            if h % r != 0 || w % r != 0 {
                let (what, n) = match h % r != 0 {
                    true => ("height", h),
                    false => ("width", w),
                };
                return Err(Error::runtime(format!(
                    "pixel_unshuffle expects {what} to be divisible by downscale_factor, but input.size({})={n} is not divisible by {r}",
                    if what == "height" { -2 } else { -1 }
                )));
            }
            let (oh, ow) = ((h / r) as i64, (w / r) as i64);
            // [*, c, oh, r, ow, r] -> [*, c, r, r, oh, ow]
            (
                with(&[c as i64, oh, r_, ow, r_]),
                [0, 2, 4, 1, 3],
                with(&[c as i64 * r_ * r_, oh, ow]),
            )
        }
    };
    let parts = Arc::new(view::view(&x, &split)?);
    let mut perm: Vec<i64> = (0..l as i64).collect();
    perm.extend(order.iter().map(|&d| (l + d) as i64));
    let moved = view::permute(&parts, &perm)?;
    let laid = rt.copy(&moved)?;
    rt.reshape(&laid, &joined)
}

/// `pixel_shuffle(x, r)` (`inverse`: `pixel_unshuffle`), recorded.
pub fn pixel_shuffle(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    r: usize,
    inverse: bool,
) -> R<Arc<Tensor>> {
    let out = pixel_shuffle_node(rt, mode, x, r, inverse)?;
    // Forward-mode AD: linear, so the same op of the tangent.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        pixel_shuffle_node(rt, mode, t, r, inverse)
    })
}

/// [`pixel_shuffle`] recorded, without its tangent.
fn pixel_shuffle_node(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    r: usize,
    inverse: bool,
) -> R<Arc<Tensor>> {
    let out = shuffled(rt, x, r, inverse)?;
    let name = match inverse {
        false => "PixelShuffleBackward0",
        true => "PixelUnshuffleBackward0",
    };
    let backward = Backward::PixelShuffle { r, inverse };
    Ok(attach_node(rt, mode, out, name, backward, &[x]))
}
