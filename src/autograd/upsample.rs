//! `F.interpolate` / `nn.Upsample` over sequences [N, C, L] and images
//! [N, C, H, W]: `nearest`, `nearest-exact`, `linear`, `bilinear` and
//! `bicubic` (images only), as
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
}

impl Interpolation {
    /// PyTorch's name of the mode.
    pub fn mode(&self, dims: usize) -> &'static str {
        match (self, dims) {
            (Interpolation::Nearest, _) => "nearest",
            (Interpolation::NearestExact, _) => "nearest-exact",
            (Interpolation::Linear { .. }, 1) => "linear",
            (Interpolation::Linear { .. }, _) => "bilinear",
            (Interpolation::Cubic { .. }, _) => "bicubic",
        }
    }

    /// `align_corners` as given to a blending mode (none for nearest).
    pub fn align_corners(&self) -> Option<bool> {
        match *self {
            Interpolation::Linear { align_corners } | Interpolation::Cubic { align_corners } => {
                Some(align_corners)
            }
            _ => None,
        }
    }

    fn node(&self, dims: usize) -> &'static str {
        match (self, dims) {
            (Interpolation::Nearest, 1) => "UpsampleNearest1DBackward0",
            (Interpolation::Nearest, _) => "UpsampleNearest2DBackward0",
            (Interpolation::NearestExact, 1) => "UpsampleNearestExact1DBackward0",
            (Interpolation::NearestExact, _) => "UpsampleNearestExact2DBackward0",
            (Interpolation::Linear { .. }, 1) => "UpsampleLinear1DBackward0",
            (Interpolation::Linear { .. }, _) => "UpsampleBilinear2DBackward0",
            (Interpolation::Cubic { .. }, _) => "UpsampleBicubic2DBackward0",
        }
    }
}

/// The samples along one dim: for each tap along it, the input place and
/// the weight of every output position.
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
            let s = match align_corners {
                true if m > 1 => round((n as f64 - 1.0) / (m as f64 - 1.0)),
                true => 0.0,
                false => round(scale_value(scale, n, m)),
            };
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
            let s = match align_corners {
                true if m > 1 => round((n as f64 - 1.0) / (m as f64 - 1.0)),
                true => 0.0,
                false => round(scale_value(scale, n, m)),
            };
            // PyTorch's `cubic_convolution1/2` (`UpSample.h`), each step
            // rounded as the kernel computes it.
            const A: f64 = -0.75;
            let near =
                |x: f64| round(round(round(round(round((A + 2.0) * x) - (A + 3.0)) * x) * x) + 1.0);
            let far = |x: f64| {
                round(
                    round(round(round(round(round(A * x) - 5.0 * A) * x) + 8.0 * A) * x) - 4.0 * A,
                )
            };
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
    }
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
    if !(1..=2).contains(&dims) || x.ndim() != dims + 2 {
        return Err(Error::Module {
            class: "NotImplementedError",
            message: format!(
                "Got {}D input, but {} mode needs {}D input",
                x.ndim(),
                how.mode(dims),
                dims + 2
            ),
            help: Some("interpolate takes [N, C, L] (linear) or [N, C, H, W] (bilinear, bicubic); trilinear is not in cudash yet".into()),
        });
    }
    // PyTorch's CPU kernels' names in its refusal of integers.
    let kernel = match (how, dims) {
        (Interpolation::Linear { .. }, 1) => "compute_indices_weights_linear",
        (Interpolation::Linear { .. }, _) => "upsample_bilinear2d_channels_last",
        (_, 1) => "compute_indices_weights_nearest",
        (_, _) => "upsample_nearest2d_channels_last",
    };
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
    let spatial = &x.shape()[2..];
    if spatial.contains(&0) || out.contains(&0) {
        return Err(Error::runtime(format!(
            "Input and output sizes should be greater than 0, but got input ({}) and output ({})",
            spaced_shape(spatial).trim_matches(['[', ']']),
            spaced_shape(out).trim_matches(['[', ']'])
        )));
    }
    let f32_math = !matches!(x.dtype(), DType::F64);
    let per_dim: Vec<Along> = (0..dims)
        .map(|d| along(how, spatial[d], out[d], scales[d], f32_math))
        .collect();
    let taps = taps(rt, x, &per_dim)?;
    let out_t = resample(rt, x, &taps)?;
    let backward = Backward::Upsample { taps };
    Ok(attach_node(rt, mode, out_t, how.node(dims), backward, &[x]))
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
