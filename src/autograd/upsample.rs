//! `F.interpolate` / `nn.Upsample` over sequences [N, C, L], images
//! [N, C, H, W] and volumes [N, C, D, H, W]: `nearest`, `nearest-exact`,
//! `linear`, `bilinear`, `trilinear` and `bicubic` (images only), as
//! PyTorch's kernels place their samples (`aten/src/ATen/native/UpSample.h`:
//! `nearest_idx`, `area_pixel_compute_source_index`), with PyTorch's
//! nodes (`UpsampleNearest2DBackward0`, `UpsampleBilinear2DBackward0`...).
//! Each output sample reads one input place (nearest) or blends two per
//! dim (linear), or four (cubic, Keys' kernel with PyTorch's `A = -0.75`,
//! the places clamped at the edges): the places are computed on the host (as many as the
//! output has rows and columns), the samples gathered with one advanced
//! index per tap and blended with the op layer's ops; the gradient is each
//! tap's share added back into its places.

use std::sync::Arc;

use super::node::{Backward, Tap};
use super::ops::bin;
use super::record::attach_node;
use super::{forward_ad, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::index::Index;
use crate::runtime::shape::spaced_shape;
use crate::runtime::{DType, Device, Tensor};

type R<T> = Result<T, Error>;

/// How output samples are placed over the input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Interpolation {
    /// The input place `floor(i * scale)` (PyTorch's legacy `nearest`).
    Nearest,
    /// The input place `floor((i + 0.5) * scale)`.
    NearestExact,
    /// Two places per dim blended by distance (`linear`, `bilinear`).
    Linear { align_corners: bool },
    /// Four places per dim blended by the cubic convolution kernel
    /// (`bicubic`).
    Cubic { align_corners: bool },
    /// `antialias=True` of `bilinear` or `bicubic` (images only): when
    /// shrinking, each output blends every input place its widened filter
    /// covers (PIL's resampling, as PyTorch's `_upsample_*_aa` kernels).
    Antialias { cubic: bool, align_corners: bool },
}

impl Interpolation {
    /// PyTorch's name of the mode.
    pub fn mode(&self, dims: usize) -> &'static str {
        match (self, dims) {
            (Interpolation::Nearest, _) => "nearest",
            (Interpolation::NearestExact, _) => "nearest-exact",
            (Interpolation::Linear { .. }, 1) => "linear",
            (Interpolation::Linear { .. }, 3) => "trilinear",
            (Interpolation::Linear { .. }, _) => "bilinear",
            (Interpolation::Cubic { .. }, _) => "bicubic",
            (Interpolation::Antialias { cubic: false, .. }, _) => "bilinear",
            (Interpolation::Antialias { cubic: true, .. }, _) => "bicubic",
        }
    }

    /// `align_corners` as given to a blending mode (none for nearest).
    pub fn align_corners(&self) -> Option<bool> {
        match *self {
            Interpolation::Linear { align_corners }
            | Interpolation::Cubic { align_corners }
            | Interpolation::Antialias { align_corners, .. } => Some(align_corners),
            _ => None,
        }
    }

    fn node(&self, dims: usize) -> &'static str {
        match (self, dims) {
            (Interpolation::Nearest, 1) => "UpsampleNearest1DBackward0",
            (Interpolation::Nearest, 3) => "UpsampleNearest3DBackward0",
            (Interpolation::Nearest, _) => "UpsampleNearest2DBackward0",
            (Interpolation::NearestExact, 1) => "UpsampleNearestExact1DBackward0",
            (Interpolation::NearestExact, 3) => "UpsampleNearestExact3DBackward0",
            (Interpolation::NearestExact, _) => "UpsampleNearestExact2DBackward0",
            (Interpolation::Linear { .. }, 1) => "UpsampleLinear1DBackward0",
            (Interpolation::Linear { .. }, 3) => "UpsampleTrilinear3DBackward0",
            (Interpolation::Linear { .. }, _) => "UpsampleBilinear2DBackward0",
            (Interpolation::Cubic { .. }, _) => "UpsampleBicubic2DBackward0",
            (Interpolation::Antialias { cubic: false, .. }, _) => "UpsampleBilinear2DAaBackward0",
            (Interpolation::Antialias { cubic: true, .. }, _) => "UpsampleBicubic2DAaBackward0",
        }
    }
}

/// The samples along one dim: for each tap along it, the input place and
/// the weight of every output position.
#[derive(Clone)]
struct Along {
    taps: Vec<(Vec<i64>, Option<Vec<f64>>)>,
}

/// PyTorch's `compute_scales_value`: `1 / scale` when a scale was given,
/// else `input / output`.
fn scale_value(scale: Option<f64>, n: usize, m: usize) -> f64 {
    match scale {
        Some(s) if s > 0.0 => 1.0 / s,
        _ => n as f64 / m as f64,
    }
}

/// The places along one dim of input size `n`, output size `m`, in the
/// precision the kernel computes them (`f32`: float; else double).
fn along(how: Interpolation, n: usize, m: usize, scale: Option<f64>, f32_math: bool) -> Along {
    let round = |v: f64| if f32_math { v as f32 as f64 } else { v };
    match how {
        Interpolation::Nearest | Interpolation::NearestExact => {
            // `nearest_idx` computes in float for every dtype.
            let s = scale_value(scale, n, m) as f32;
            let places = (0..m)
                .map(|i| {
                    let exact = how == Interpolation::NearestExact;
                    let p = match (exact, m) {
                        (false, m) if m == n => i,
                        (false, m) if m == 2 * n => i >> 1,
                        (false, _) => (i as f32 * s).floor() as usize,
                        (true, _) => ((i as f32 + 0.5) * s).floor() as usize,
                    };
                    p.min(n - 1) as i64
                })
                .collect();
            Along {
                taps: vec![(places, None)],
            }
        }
        Interpolation::Linear { align_corners } => {
            let s = source_scale(align_corners, n, m, scale, &round);
            let (mut p0, mut p1, mut w0, mut w1) = (vec![], vec![], vec![], vec![]);
            for i in 0..m {
                let real = match align_corners {
                    true => round(s * i as f64),
                    false => round(round(s * round(i as f64 + 0.5)) - 0.5).max(0.0),
                };
                let h = real as usize;
                let next = if h < n - 1 { 1 } else { 0 };
                let l1 = round(real - h as f64).clamp(0.0, 1.0);
                let l0 = round(1.0 - l1);
                p0.push(h as i64);
                p1.push((h + next) as i64);
                w0.push(l0);
                w1.push(l1);
            }
            Along {
                taps: vec![(p0, Some(w0)), (p1, Some(w1))],
            }
        }
        Interpolation::Cubic { align_corners } => {
            let s = source_scale(align_corners, n, m, scale, &round);
            // PyTorch's `cubic_convolution1/2` (`UpSample.h`), each step
            // rounded as the kernel computes it.
            let near = |x: f64| cubic_near(x, -0.75, &round);
            let far = |x: f64| cubic_far(x, -0.75, &round);
            let last = n as i64 - 1;
            let mut taps: Vec<(Vec<i64>, Option<Vec<f64>>)> = (0..4)
                .map(|_| (Vec::with_capacity(m), Some(Vec::with_capacity(m))))
                .collect();
            for i in 0..m {
                // Not clamped at 0: a cubic's first sample may sit before
                // the input's first place.
                let real = match align_corners {
                    true => round(s * i as f64),
                    false => round(round(s * round(i as f64 + 0.5)) - 0.5),
                };
                let place = (real.floor() as i64).min(last);
                let t = round(real - place as f64).clamp(0.0, 1.0);
                let rest = round(1.0 - t);
                let weights = [
                    far(round(t + 1.0)),
                    near(t),
                    near(rest),
                    far(round(rest + 1.0)),
                ];
                for (k, (places, w)) in taps.iter_mut().enumerate() {
                    places.push((place - 1 + k as i64).clamp(0, last));
                    if let Some(w) = w {
                        w.push(weights[k]);
                    }
                }
            }
            Along { taps }
        }
        Interpolation::Antialias {
            cubic,
            align_corners,
        } => antialiased((cubic, align_corners, true), n, m, scale, round),
    }
}

/// PyTorch's `area_pixel_compute_scale`: input places per output place
/// (`(n - 1) / (m - 1)` with `align_corners`), rounded as the kernel holds it.
fn source_scale(
    align_corners: bool,
    n: usize,
    m: usize,
    scale: Option<f64>,
    round: &impl Fn(f64) -> f64,
) -> f64 {
    match align_corners {
        true if m > 1 => round((n as f64 - 1.0) / (m as f64 - 1.0)),
        true => 0.0,
        false => round(scale_value(scale, n, m)),
    }
}

/// PyTorch's `cubic_convolution1`: Keys' kernel with parameter `a` for a
/// distance `x` below 1, `((a + 2) x - (a + 3)) x x + 1`, each step rounded.
fn cubic_near(x: f64, a: f64, round: &impl Fn(f64) -> f64) -> f64 {
    round(round(round(round(round((a + 2.0) * x) - (a + 3.0)) * x) * x) + 1.0)
}

/// PyTorch's `cubic_convolution2`: Keys' kernel for a distance in [1, 2),
/// `((a x - 5a) x + 8a) x - 4a`, each step rounded.
fn cubic_far(x: f64, a: f64, round: &impl Fn(f64) -> f64) -> f64 {
    round(round(round(round(round(round(a * x) - 5.0 * a) * x) + 8.0 * a) * x) - 4.0 * a)
}

/// The places and weights of an antialiased resize along one dim, as
/// PyTorch's `_compute_weights_aa` makes them: a triangle (bilinear) or
/// Keys' cubic with `a = -0.5` (bicubic), widened by the scale when
/// shrinking (`aa`; without it, a uint8 image's plain bilinear resize, as
/// PyTorch computes that too), over the places it covers, normalised to
/// sum to one. As many taps as the widest window; a window's missing taps
/// read its first place with weight 0.
fn antialiased(
    (cubic, align_corners, aa): (bool, bool, bool),
    n: usize,
    m: usize,
    scale: Option<f64>,
    round: impl Fn(f64) -> f64,
) -> Along {
    let s = source_scale(align_corners, n, m, scale, &round);
    let interp_size = if cubic { 4.0 } else { 2.0 };
    let widened = aa && s >= 1.0;
    let support = match widened {
        true => round(interp_size * 0.5 * s),
        false => interp_size * 0.5,
    };
    let invscale = if widened { round(1.0 / s) } else { 1.0 };
    // PyTorch's `align_corners_delta`: a uint8 image's plain resize with
    // `align_corners` samples half a place over.
    let delta = if !aa && align_corners { 0.5 } else { 0.0 };
    let filter = |x: f64| -> f64 {
        let x = x.abs();
        match cubic {
            false if x < 1.0 => round(1.0 - x),
            false => 0.0,
            // PyTorch's `cubic_convolution1/2` with a = -0.5 (PIL's).
            true if x < 1.0 => cubic_near(x, -0.5, &round),
            true if x < 2.0 => cubic_far(x, -0.5, &round),
            true => 0.0,
        }
    };
    let windows: Vec<(i64, Vec<f64>)> = (0..m)
        .map(|i| {
            // (Each step in the kernel's own mix of float and double.)
            let center = round(s * (i as f64 + 0.5 - delta));
            let xmin = ((round(center - support) + 0.5 + delta) as i64).max(0);
            let xmax = ((round(center + support) + 0.5 + delta) as i64).min(n as i64);
            let size = (xmax - xmin).max(0);
            let mut w: Vec<f64> = (0..size)
                .map(|j| {
                    filter(round(
                        (round((j + xmin) as f64 - center) + 0.5 - delta) * invscale,
                    ))
                })
                .collect();
            let total = w.iter().fold(0.0, |acc, &v| round(acc + v));
            if total != 0.0 {
                w.iter_mut().for_each(|v| *v = round(*v / total));
            }
            (xmin.min(n as i64 - 1), w)
        })
        .collect();
    let width = windows
        .iter()
        .map(|(_, w)| w.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let taps = (0..width)
        .map(|k| {
            let places = windows
                .iter()
                .map(|(xmin, w)| if k < w.len() { xmin + k as i64 } else { *xmin })
                .collect();
            let weights = windows
                .iter()
                .map(|(_, w)| w.get(k).copied().unwrap_or(0.0))
                .collect();
            (places, Some(weights))
        })
        .collect();
    Along { taps }
}

/// `x` resized to `out` along its spatial dims (its last one or two).
pub fn upsample(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    how: Interpolation,
    out: &[usize],
    scales: &[Option<f64>],
) -> R<Arc<Tensor>> {
    let dims = out.len();
    if matches!(how, Interpolation::Antialias { .. }) && x.ndim() != 4 {
        return Err(Error::value(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input",
        ));
    }
    if matches!(how, Interpolation::Cubic { .. }) && x.ndim() != 4 {
        return Err(Error::Module {
            class: "NotImplementedError",
            message: format!(
                "Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: \
                 nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact \
                 (got bicubic)",
                x.ndim()
            ),
            help: Some("bicubic takes images: [N, C, H, W]".into()),
        });
    }
    if !(1..=3).contains(&dims) || x.ndim() != dims + 2 {
        return Err(Error::Module {
            class: "NotImplementedError",
            message: format!(
                "Got {}D input, but {} mode needs {}D input",
                x.ndim(),
                how.mode(dims),
                dims + 2
            ),
            help: Some("interpolate takes [N, C, L] (linear), [N, C, H, W] (bilinear, bicubic) or [N, C, D, H, W] (trilinear)".into()),
        });
    }
    // PyTorch's CPU kernels' names in its refusal of integers.
    let kernel = match (how, dims) {
        (Interpolation::Linear { .. }, 1 | 3) => "compute_indices_weights_linear",
        (Interpolation::Linear { .. }, _) => "upsample_bilinear2d_channels_last",
        (_, 1 | 3) => "compute_indices_weights_nearest",
        (_, _) => "upsample_nearest2d_channels_last",
    };
    let spatial = &x.shape()[2..];
    if spatial.contains(&0) || out.contains(&0) {
        return Err(Error::runtime(format!(
            "Input and output sizes should be greater than 0, but got input ({}) and output ({})",
            spaced_shape(spatial).trim_matches(['[', ']']),
            spaced_shape(out).trim_matches(['[', ']'])
        )));
    }
    // A CPU's uint8 image, bilinear or antialiased: PyTorch's uint8
    // kernel (without antialias, the antialiased weights left unwidened).
    if x.dtype() == DType::U8 && x.device() == Device::Cpu && x.ndim() == 4 {
        let uint8 = match how {
            Interpolation::Linear { align_corners } => Some((false, align_corners, false)),
            Interpolation::Antialias {
                cubic,
                align_corners,
            } => Some((cubic, align_corners, true)),
            _ => None,
        };
        if let Some(kind) = uint8 {
            let per_dim: Vec<Along> = (0..2)
                .map(|d| antialiased(kind, spatial[d], out[d], scales[d], |v| v))
                .collect();
            return uint8_separable(rt, x, &per_dim);
        }
    }
    if let Interpolation::Antialias { .. } = how {
        if !x.dtype().is_float() {
            return Err(Error::Module {
                class: "NotImplementedError",
                message: format!(
                    "cudash's antialiased resize takes floating point tensors and a CPU's uint8 \
                     images, not {}",
                    x.dtype().scalar_name()
                ),
                help: Some("resize `x.float()`, then `.round()` it back".into()),
            });
        }
    }
    if !x.dtype().is_float() && matches!(how, Interpolation::Cubic { .. }) {
        // (PyTorch names this one without the device.)
        return Err(Error::Module {
            class: "NotImplementedError",
            message: format!(
                "\"compute_indices_weights_cubic\" not implemented for '{}'",
                x.dtype().scalar_name()
            ),
            help: Some("bicubic takes a floating point tensor: `x.float()`".into()),
        });
    }
    if !x.dtype().is_float() {
        let e = super::activation_ops::check_dtype(kernel, x);
        return Err(e.err().unwrap_or_else(|| Error::value("internal error")));
    }
    let f32_math = !matches!(x.dtype(), DType::F64);
    let per_dim: Vec<Along> = (0..dims)
        .map(|d| along(how, spatial[d], out[d], scales[d], f32_math))
        .collect();
    if let Interpolation::Antialias { .. } = how {
        let out_t = separable(rt, x, &per_dim)?;
        // Every combination of the two dims' taps, for the gradient only.
        let backward = match super::record::recording(mode, &[x]) {
            true => Backward::Upsample {
                taps: taps(rt, x, &per_dim)?,
            },
            false => Backward::Upsample { taps: Vec::new() },
        };
        return Ok(attach_node(rt, mode, out_t, how.node(dims), backward, &[x]));
    }
    let taps = taps(rt, x, &per_dim)?;
    let out_t = resample(rt, x, &taps)?;
    let backward = Backward::Upsample { taps };
    Ok(attach_node(rt, mode, out_t, how.node(dims), backward, &[x]))
}

/// A uint8 image's antialiased resize as PyTorch's CPU computes it (PIL's
/// method, `upsample_avx_bilinear_bicubic_uint8`): each dim's weights (in
/// double) scaled to int16 at the largest precision that keeps the biggest
/// below 2^15, each output summed in int32 from half a unit, shifted back
/// and clamped to 0..255 after each pass. Integers have no gradient: no
/// node.
fn uint8_separable(rt: &mut Runtime, x: &Arc<Tensor>, per_dim: &[Along]) -> R<Arc<Tensor>> {
    width_then_height(rt, x, per_dim, |rt, y, along, rest| {
        let (weights, precision) = quantised(along);
        let dims: Vec<Along> = std::iter::once(weights).chain(rest).collect();
        uint8_pass(rt, y, &dims, precision)
    })
}

/// A resize one dim at a time, as PyTorch's separable kernels make it:
/// `pass` over the width, then over the height (given the columns as they
/// are as `rest`), each pass's output in the dtype; a dim whose size stays
/// is not passed over, and where neither changes the result is a copy.
fn width_then_height(
    rt: &mut Runtime,
    x: &Arc<Tensor>,
    per_dim: &[Along],
    mut pass: impl FnMut(&mut Runtime, &Arc<Tensor>, &Along, Option<Along>) -> R<Arc<Tensor>>,
) -> R<Arc<Tensor>> {
    let [along_h, along_w] = per_dim else {
        return Err(Error::value(
            "internal error: a separable resize has two dims",
        ));
    };
    let (h, w) = (x.shape()[2], x.shape()[3]);
    let mut y = Arc::clone(x);
    if along_w.taps[0].0.len() != w {
        y = pass(rt, &y, along_w, None)?;
    }
    if along_h.taps[0].0.len() != h {
        let columns = (0..y.shape()[3] as i64).collect();
        let each_column = Along {
            taps: vec![(columns, None)],
        };
        y = pass(rt, &y, along_h, Some(each_column))?;
    }
    if Arc::ptr_eq(&y, x) {
        let copy = super::ops::full(rt, x.shape(), x.dtype(), x.device(), 0)?;
        rt.assign(&copy, x)?;
        return Ok(copy);
    }
    Ok(y)
}

/// PyTorch's `compute_index_ranges_int16_weights`: the weights times
/// `2^precision`, rounded half away from zero, and the precision.
fn quantised(along: &Along) -> (Along, u32) {
    let most = along
        .taps
        .iter()
        .filter_map(|(_, w)| w.as_ref())
        .flatten()
        .fold(0.0f64, |m, &v| m.max(v));
    let mut precision = 0u32;
    while precision < 22 {
        let next = (0.5 + most * f64::from(1u32 << (precision + 1))) as i64;
        if next >= 1 << 15 {
            break;
        }
        precision += 1;
    }
    let scale = f64::from(1u32 << precision);
    let taps = along
        .taps
        .iter()
        .map(|(places, w)| {
            let w = w.as_ref().map(|w| {
                w.iter()
                    .map(|&v| {
                        let v = v * scale;
                        (if v < 0.0 { v - 0.5 } else { v + 0.5 }).trunc()
                    })
                    .collect()
            });
            (places.clone(), w)
        })
        .collect();
    (Along { taps }, precision)
}

/// One pass of [`uint8_separable`] over the dims `per_dim` names, its
/// weights scaled by `2^precision`.
fn uint8_pass(
    rt: &mut Runtime,
    y: &Arc<Tensor>,
    per_dim: &[Along],
    precision: u32,
) -> R<Arc<Tensor>> {
    let wide = rt.cast(y, DType::I32)?;
    let taps = taps(rt, &wide, per_dim)?;
    let mut acc: Option<Arc<Tensor>> = None;
    for tap in &taps {
        let picked = rt.index(&wide, &tap.items)?;
        let term = match &tap.weight {
            None => picked,
            Some(w) => {
                let w = rt.cast(w, DType::I32)?;
                bin(rt, BinaryOp::Mul, &w, &picked)?
            }
        };
        acc = Some(match acc {
            None => term,
            Some(a) => bin(rt, BinaryOp::Add, &a, &term)?,
        });
    }
    let acc = acc.ok_or_else(|| Error::value("internal error: a resize with no taps"))?;
    let half = super::ops::full(
        rt,
        &[],
        DType::I32,
        y.device(),
        1i64 << precision.saturating_sub(1),
    )?;
    let sum = bin(rt, BinaryOp::Add, &acc, &half)?;
    let shift = super::ops::full(rt, &[], DType::I32, y.device(), i64::from(precision))?;
    let shifted = bin(rt, BinaryOp::Shr, &sum, &shift)?;
    let zero = super::ops::full(rt, &[], DType::I32, y.device(), 0)?;
    let top = super::ops::full(rt, &[], DType::I32, y.device(), 255)?;
    let low = bin(rt, BinaryOp::Maximum, &shifted, &zero)?;
    let clamped = bin(rt, BinaryOp::Minimum, &low, &top)?;
    rt.cast(&clamped, DType::U8)
}

/// An antialiased resize as PyTorch's separable kernel computes it: along
/// the width first, then the height, each output of a pass rounded to the
/// dtype.
fn separable(rt: &mut Runtime, x: &Arc<Tensor>, per_dim: &[Along]) -> R<Arc<Tensor>> {
    width_then_height(rt, x, per_dim, |rt, y, along, rest| {
        let dims: Vec<Along> = std::iter::once(along.clone()).chain(rest).collect();
        let taps = taps(rt, y, &dims)?;
        resample(rt, y, &taps)
    })
}

/// Every combination of one tap per dim: its index over the last dims
/// (each dim's places shaped to broadcast against the others') and the
/// product of its weights, on x's device in x's dtype (float for half).
fn taps(rt: &mut Runtime, x: &Tensor, per_dim: &[Along]) -> R<Vec<Tap>> {
    let device = x.device();
    let wdtype = match x.dtype() {
        DType::F64 => DType::F64,
        _ => DType::F32,
    };
    let dims = per_dim.len();
    let mut combos: Vec<Vec<usize>> = vec![vec![]];
    for d in per_dim {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                (0..d.taps.len()).map(move |k| {
                    let mut c = c.clone();
                    c.push(k);
                    c
                })
            })
            .collect();
    }
    let mut out = Vec::new();
    for combo in combos {
        let mut items = vec![Index::Slice(None, None, None); x.ndim() - dims];
        let mut weight: Option<Arc<Tensor>> = None;
        for (d, &k) in combo.iter().enumerate() {
            let (places, w) = &per_dim[d].taps[k];
            let mut shape = vec![1usize; dims];
            shape[d] = places.len();
            let idx = Tensor::from_vec(places.clone(), shape.clone());
            items.push(Index::Tensor(rt.tensor(&idx, DType::I64, device)?));
            if let Some(w) = w {
                let wt = Tensor::from_vec(w.clone(), shape);
                let wt = rt.tensor(&wt, wdtype, device)?;
                weight = Some(match weight {
                    None => wt,
                    Some(prev) => bin(rt, BinaryOp::Mul, &prev, &wt)?,
                });
            }
        }
        out.push(Tap { items, weight });
    }
    Ok(out)
}

/// `x` read at `places` along each of its last dims (one list of input
/// places per dim, as long as the output is along it), recorded with the
/// node `name`, whose gradient adds back into the places read (a
/// reflection or replication pad).
pub fn by_places(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    places: Vec<Vec<i64>>,
    name: &'static str,
) -> R<Arc<Tensor>> {
    let per_dim: Vec<Along> = places
        .into_iter()
        .map(|p| Along {
            taps: vec![(p, None)],
        })
        .collect();
    let taps = taps(rt, x, &per_dim)?;
    let out = resample(rt, x, &taps)?;
    Ok(attach_node(
        rt,
        mode,
        out,
        name,
        Backward::Upsample { taps },
        &[x],
    ))
}

/// The output: each tap's samples times its weight, summed (in float for
/// half precision, rounded once).
fn resample(rt: &mut Runtime, x: &Arc<Tensor>, taps: &[Tap]) -> R<Arc<Tensor>> {
    let mut acc: Option<Arc<Tensor>> = None;
    for tap in taps {
        let picked = rt.index(x, &tap.items)?;
        let term = match &tap.weight {
            None => picked,
            Some(w) => bin(rt, BinaryOp::Mul, w, &picked)?,
        };
        acc = Some(match acc {
            None => term,
            Some(a) => bin(rt, BinaryOp::Add, &a, &term)?,
        });
    }
    let out = acc.ok_or_else(|| Error::value("internal error: a resize with no taps"))?;
    match out.dtype() == x.dtype() {
        true => Ok(out),
        false => rt.cast(&out, x.dtype()),
    }
}

/// The gradient of a resize: each tap's share of `g` (times its weight)
/// added back into the input places it read.
pub fn upsample_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    shape: &[usize],
    device: Device,
    taps: &[Tap],
) -> R<Arc<Tensor>> {
    let acc = match g.dtype() {
        DType::F16 | DType::BF16 => DType::F32,
        dt => dt,
    };
    let zeros = super::ops::full(rt, shape, acc, device, 0)?;
    let g = match g.dtype() == acc {
        true => Arc::clone(g),
        false => rt.cast(g, acc)?,
    };
    for tap in taps {
        let share = match &tap.weight {
            None => Arc::clone(&g),
            Some(w) => {
                let w = match w.dtype() == acc {
                    true => Arc::clone(w),
                    false => rt.cast(w, acc)?,
                };
                bin(rt, BinaryOp::Mul, &g, &w)?
            }
        };
        rt.index_put_add(&zeros, &tap.items, &share)?;
    }
    Ok(zeros)
}

/// PyTorch's check that each linear mode gets inputs of its own number of
/// dims (`linear` [N, C, L], `bilinear` [N, C, H, W], `trilinear` [N, C,
/// D, H, W]).
pub fn check_mode_dims(mode: &str, x: &Tensor) -> R<()> {
    let needs = match mode {
        "linear" => 3,
        "bilinear" => 4,
        "trilinear" => 5,
        _ => return Ok(()),
    };
    match x.ndim() == needs || !(3..=5).contains(&x.ndim()) {
        true => Ok(()),
        false => Err(Error::Module {
            class: "NotImplementedError",
            message: format!(
                "Got {}D input, but {mode} mode needs {needs}D input",
                x.ndim()
            ),
            help: None,
        }),
    }
}

/// `F.interpolate(x, size, scale_factor, ...)`: the output size from
/// `size` or from `floor(input * scale_factor)` (one number for every
/// spatial dim, or one each); a scale given reaches the kernel as PyTorch
/// passes it (unless `recompute_scale_factor`), so the places follow
/// `1 / scale`, not the sizes' ratio.
pub fn interpolate(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    sizes: (Option<&[usize]>, Option<&[f64]>),
    how: Interpolation,
    recompute_scale_factor: bool,
) -> R<Arc<Tensor>> {
    let out = interpolate_node(rt, mode, x, sizes, how, recompute_scale_factor)?;
    // Forward-mode AD: linear, so the same op of the tangent.
    forward_ad::carry_one(rt, Arc::clone(&out), x, |rt, t| {
        interpolate_node(rt, mode, t, sizes, how, recompute_scale_factor)
    })
}

/// [`interpolate`] recorded, without its tangent.
fn interpolate_node(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    (size, scale): (Option<&[usize]>, Option<&[f64]>),
    how: Interpolation,
    recompute_scale_factor: bool,
) -> R<Arc<Tensor>> {
    let dims = x.ndim().saturating_sub(2);
    let spread = |n: usize| if n == 1 { dims } else { n };
    let out: Vec<usize>;
    let mut scales = vec![None; dims.max(1)];
    match (size, scale) {
        (Some(_), Some(_)) => {
            return Err(Error::value(
                "only one of size or scale_factor should be defined",
            ))
        }
        (None, None) => {
            return Err(Error::value(
                "either size or scale_factor should be defined",
            ))
        }
        (Some(s), None) => {
            if spread(s.len()) != dims {
                let shown: Vec<String> = s.iter().map(usize::to_string).collect();
                return Err(same_dims(x, "output size of", &shown));
            }
            out = match s.len() {
                1 => vec![s[0]; dims],
                _ => s.to_vec(),
            };
        }
        (None, Some(f)) => {
            if spread(f.len()) != dims {
                let shown: Vec<String> = f.iter().map(|&v| shown_float(v)).collect();
                return Err(same_dims(x, "scale_factor of shape", &shown));
            }
            let f: Vec<f64> = match f.len() {
                1 => vec![f[0]; dims],
                _ => f.to_vec(),
            };
            out = x.shape()[2..]
                .iter()
                .zip(&f)
                .map(|(&n, &s)| (n as f64 * s).floor().max(0.0) as usize)
                .collect();
            if !recompute_scale_factor {
                scales = f.into_iter().map(Some).collect();
            }
        }
    }
    upsample(rt, mode, x, how, &out, &scales)
}

/// PyTorch's refusal of a size or scale for another number of dims.
fn same_dims(x: &Tensor, what: &str, given: &[String]) -> Error {
    let spatial: Vec<String> = x.shape().iter().skip(2).map(usize::to_string).collect();
    let (subject, tail) = match what.starts_with("scale") {
        true => ("Input and scale_factor", "."),
        false => ("Input and output", ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."),
    };
    let tuple = match given.len() {
        1 => format!("({},)", given[0]),
        _ => format!("({})", given.join(", ")),
    };
    Error::value(format!(
        "{subject} must have the same number of spatial dimensions, but got input with spatial dimensions of [{}] and {what} {tuple}{tail}",
        spatial.join(", ")
    ))
}

/// A float as Python shows a simple one: `2.0`, `1.5`.
fn shown_float(v: f64) -> String {
    match v.fract() == 0.0 && v.abs() < 1e16 {
        true => format!("{v:.1}"),
        false => format!("{v}"),
    }
}
