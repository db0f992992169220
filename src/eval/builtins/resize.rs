//! The layers and functions that change an image's or a sequence's size:
//! `F.interpolate` / `nn.Upsample` (and `UpsamplingNearest2d`,
//! `UpsamplingBilinear2d`), `PixelShuffle` / `PixelUnshuffle`,
//! `Unflatten`, and the padding layers (`ZeroPad2d`, `ConstantPad1d/2d`,
//! `ReflectionPad1d/2d`, `ReplicationPad1d/2d`, `CircularPad1d/2d`), their settings read and
//! shown as PyTorch's.

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::pad::Edges;
use crate::autograd::upsample::{self, Interpolation};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::layers::Layer;
use crate::nn::repr::py_float;
use crate::nn::Module;

type Out = Result<Value, Diagnostic>;

/// The classes this file makes.
pub const CLASSES: &[&str] = &[
    "Upsample",
    "UpsamplingNearest2d",
    "UpsamplingBilinear2d",
    "PixelShuffle",
    "PixelUnshuffle",
    "Unflatten",
    "ZeroPad1d",
    "ZeroPad2d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "CircularPad1d",
    "CircularPad2d",
];

fn module(name: &str, layer: Layer) -> Out {
    Ok(Value::Module(Module::new(name, layer).into_ref()))
}

/// An int or a tuple of ints (`size`, `padding`), as given.
fn ints(v: &Value, span: Span, what: &str) -> Result<Vec<i64>, Diagnostic> {
    super::super::args::flatten(v, span)?
        .iter()
        .map(|(x, s)| match x {
            Value::Int(i) => Ok(*i),
            other => {
                Err(Error::wrong_type(what, "an int or a tuple of ints", other.type_name()).at(*s))
            }
        })
        .collect()
}

/// A number or a tuple of numbers (`scale_factor`).
fn numbers(v: &Value, span: Span) -> Result<Vec<f64>, Diagnostic> {
    super::super::args::flatten(v, span)?
        .iter()
        .map(|(x, s)| match x {
            Value::Int(i) => Ok(*i as f64),
            Value::Float(f) => Ok(f.get()),
            other => Err(Error::wrong_type("scale_factor", "a number", other.type_name()).at(*s)),
        })
        .collect()
}

/// Sizes from `ints`, refusing negative ones.
fn sizes(v: &Value, span: Span, what: &str) -> Result<Vec<usize>, Diagnostic> {
    ints(v, span, what)?
        .into_iter()
        .map(|i| {
            usize::try_from(i)
                .map_err(|_| Error::value(format!("{what} must be at least 0, not {i}")).at(span))
        })
        .collect()
}

/// `mode` and `align_corners` as an interpolation, with PyTorch's checks.
fn interpolation(
    mode: &str,
    align_corners: Option<bool>,
    b: &Bound,
) -> Result<Interpolation, Diagnostic> {
    let how = match mode {
        "nearest" => Interpolation::Nearest,
        "nearest-exact" => Interpolation::NearestExact,
        "linear" | "bilinear" | "trilinear" => Interpolation::Linear {
            align_corners: align_corners.unwrap_or(false),
        },
        "bicubic" => Interpolation::Cubic {
            align_corners: align_corners.unwrap_or(false),
        },
        other => {
            return Err(Error::Module {
                class: "NotImplementedError",
                message: format!("Input Error: Only 3D, 4D and 5D input Tensors supported (got ?D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {other})"),
                help: None,
            }
            .at(b.span_of("mode")))
        }
    };
    if align_corners.is_some() && how.align_corners().is_none() {
        return Err(Error::value(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear",
        )
        .at(b.span_of("align_corners")));
    }
    Ok(how)
}

/// `align_corners`: none, or a bool.
fn align_corners(b: &Bound) -> Result<Option<bool>, Diagnostic> {
    match b.given("align_corners") {
        None | Some((Value::None, _)) => Ok(None),
        Some(_) => Ok(Some(b.bool("align_corners", false)?)),
    }
}

/// `size` and `scale_factor`, as given (none for none).
type SizeOrScale = (Option<Vec<usize>>, Option<Vec<f64>>);

fn size_or_scale(b: &Bound) -> Result<SizeOrScale, Diagnostic> {
    let size = match b.given("size") {
        None | Some((Value::None, _)) => None,
        Some((v, span)) => Some(sizes(v, *span, "size")?),
    };
    let scale = match b.given("scale_factor") {
        None | Some((Value::None, _)) => None,
        Some((v, span)) => Some(numbers(v, *span)?),
    };
    Ok((size, scale))
}

/// `F.interpolate(input, size=None, scale_factor=None, mode='nearest',
/// align_corners=None, recompute_scale_factor=None, antialias=False)` and
/// its old name `F.upsample`.
pub(super) fn interpolate(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let (size, scale) = size_or_scale(b)?;
    let mode = b.str("mode")?.unwrap_or_else(|| "nearest".into());
    if mode == "area" {
        return area(me, &x, (size, scale), b);
    }
    upsample::check_mode_dims(&mode, &x).map_err(|e| e.at(b.span_of("mode")))?;
    let mut how = interpolation(&mode, align_corners(b)?, b)?;
    if b.bool("antialias", false)? {
        how = match how {
            Interpolation::Linear { align_corners } if x.ndim() == 4 => Interpolation::Antialias {
                cubic: false,
                align_corners,
            },
            Interpolation::Cubic { align_corners } if x.ndim() == 4 => Interpolation::Antialias {
                cubic: true,
                align_corners,
            },
            _ => {
                return Err(Error::value(
                    "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input",
                )
                .at(b.span_of("antialias")))
            }
        };
    }
    let recompute =
        matches!(b.given("recompute_scale_factor"), Some((Value::Bool(t), _)) if t.get());
    b.result(upsample::interpolate(
        &mut me.rt,
        me.grad,
        &x,
        (size.as_deref(), scale.as_deref()),
        how,
        recompute,
    ))
}

/// `F.interpolate(mode="area")`: PyTorch's `adaptive_avg_pool1d/2d` to
/// the output size (`size`, or `floor(input * scale_factor)`).
fn area(
    me: &mut Interp,
    x: &std::sync::Arc<crate::runtime::Tensor>,
    (size, scale): SizeOrScale,
    b: &Bound,
) -> Out {
    if align_corners(b)?.is_some() {
        return Err(Error::value(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear",
        )
        .at(b.span_of("align_corners")));
    }
    let spatial = x.ndim().saturating_sub(2);
    if !matches!(spatial, 1..=3) {
        return Err(Error::value_help(
            format!(
                "interpolate's mode 'area' of a {}-D input is not in cudash",
                x.ndim()
            ),
            "a 3-D (N, C, L), 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input is",
        )
        .at(b.span_of("input")));
    }
    let inputs = &x.shape()[2..];
    let out: Vec<usize> = match (size, scale) {
        (Some(_), Some(_)) => {
            return Err(Error::value("only one of size or scale_factor should be defined").at(b.span))
        }
        (Some(s), None) if s.len() == 1 => vec![s[0]; spatial],
        (Some(s), None) if s.len() == spatial => s,
        (Some(s), None) => {
            return Err(Error::value(format!(
                "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of {inputs:?} and output size of {s:?}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
            ))
            .at(b.span_of("size")))
        }
        (None, Some(f)) if f.len() == 1 || f.len() == spatial => inputs
            .iter()
            .enumerate()
            .map(|(k, &n)| (n as f64 * f[if f.len() == 1 { 0 } else { k }]).floor() as usize)
            .collect(),
        (None, Some(f)) => {
            return Err(Error::value(format!(
                "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of {inputs:?} and scale_factor of shape {f:?}."
            ))
            .at(b.span_of("scale_factor")))
        }
        (None, None) => {
            return Err(Error::value("either size or scale_factor should be defined").at(b.span))
        }
    };
    // A volume's: `adaptive_avg_pool3d` (`stdlib/torch_nn_more.py`).
    if spatial == 3 {
        let size = Value::List(std::sync::Arc::new(
            out.iter().map(|&n| Value::Int(n as i64)).collect(),
        ));
        let args = vec![Value::Tensor(std::sync::Arc::clone(x)), size];
        return me.call_stdlib("torch.nn._more", "adaptive_avg_pool3d", args, b.span);
    }
    let target = match spatial {
        1 => (1, out[0]),
        _ => (out[0], out[1]),
    };
    b.result(crate::nn::layers::adaptive_pool(
        &mut me.rt,
        me.grad,
        x,
        (false, spatial == 1),
        target,
    ))
}

/// `F.pixel_shuffle(input, upscale_factor)`, `F.pixel_unshuffle(input,
/// downscale_factor)`.
pub(super) fn pixel_shuffle(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let inverse = name == "pixel_unshuffle";
    let factor = factor(b, inverse)?;
    b.result(crate::autograd::pixel_shuffle::pixel_shuffle(
        &mut me.rt, me.grad, &x, factor, inverse,
    ))
}

fn factor(b: &Bound, inverse: bool) -> Result<usize, Diagnostic> {
    let name = match inverse {
        false => "upscale_factor",
        true => "downscale_factor",
    };
    let r = b
        .int(name)?
        .ok_or_else(|| Error::value(format!("missing `{name}`")).at(b.span))?;
    usize::try_from(r).map_err(|_| {
        Error::runtime(format!("{name} must be positive, not {r}")).at(b.span_of(name))
    })
}

/// A tuple as Python shows it: `(2, 5)`, `(4,)`.
fn py_tuple(items: &[String]) -> String {
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

/// The classes' constructors.
pub(super) fn layer(_me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    match name {
        "Upsample" | "UpsamplingNearest2d" | "UpsamplingBilinear2d" => {
            let (size, scale) = size_or_scale(b)?;
            let (mode, corners) = match name {
                "UpsamplingNearest2d" => ("nearest".to_string(), None),
                "UpsamplingBilinear2d" => ("bilinear".to_string(), Some(true)),
                _ => (
                    b.str("mode")?.unwrap_or_else(|| "nearest".into()),
                    align_corners(b)?,
                ),
            };
            let how = interpolation(&mode, corners, b)?;
            // PyTorch keeps a scale as floats, a size as given.
            let shown = match (&scale, b.given("size")) {
                (Some(f), _) => {
                    let given_tuple = matches!(b.given("scale_factor"), Some((Value::List(_), _)));
                    let parts: Vec<String> = f.iter().map(|&v| py_float(v)).collect();
                    match given_tuple {
                        true => format!("scale_factor={}", py_tuple(&parts)),
                        false => format!("scale_factor={}", parts[0]),
                    }
                }
                (None, Some((Value::Int(i), _))) => format!("size={i}"),
                (None, Some(_)) => {
                    let parts: Vec<String> = size.iter().flatten().map(usize::to_string).collect();
                    format!("size={}", py_tuple(&parts))
                }
                (None, None) => "size=None".to_string(),
            };
            let recompute_scale_factor =
                matches!(b.given("recompute_scale_factor"), Some((Value::Bool(t), _)) if t.get());
            let layer = Layer::Upsample {
                size,
                scale,
                how,
                recompute_scale_factor,
                shown: format!("{shown}, mode='{mode}'"),
                mode,
            };
            module(name, layer)
        }
        "PixelShuffle" | "PixelUnshuffle" => {
            let inverse = name == "PixelUnshuffle";
            let factor = factor(b, inverse)?;
            module(name, Layer::PixelShuffle { factor, inverse })
        }
        "Unflatten" => {
            let dim = b
                .int("dim")?
                .ok_or_else(|| Error::value("Unflatten needs `dim`").at(b.span))?;
            let (v, span) = b
                .given("unflattened_size")
                .cloned()
                .ok_or_else(|| Error::value("Unflatten needs `unflattened_size`").at(b.span))?;
            let sizes = ints(&v, span, "unflattened_size")?;
            let parts: Vec<String> = sizes.iter().map(i64::to_string).collect();
            let shown = format!("dim={dim}, unflattened_size={}", py_tuple(&parts));
            module(name, Layer::Unflatten { dim, sizes, shown })
        }
        _ => pad_layer(name, b),
    }
}

/// `ZeroPad2d(padding)`, `ConstantPad2d(padding, value)`,
/// `ReflectionPad2d(padding)`, `ReplicationPad2d(padding)`,
/// `CircularPad2d(padding)` and their 1-d
/// forms: one int pads every side; else (left, right[, top, bottom]).
fn pad_layer(name: &'static str, b: &Bound) -> Out {
    let sides = match name.ends_with("1d") {
        true => 2,
        false => 4,
    };
    let (v, span) = b
        .given("padding")
        .cloned()
        .ok_or_else(|| Error::value(format!("{name} needs `padding`")).at(b.span))?;
    let given = ints(&v, span, "padding")?;
    let pads = match given.len() {
        1 => vec![given[0]; sides],
        n if n == sides => given,
        n => {
            return Err(Error::value(format!(
                "{name}'s padding is one int or {sides} of them, not {n}"
            ))
            .at(span))
        }
    };
    let edges = match name {
        n if n.starts_with("Reflection") => Some(Edges::Reflect),
        n if n.starts_with("Replication") => Some(Edges::Replicate),
        n if n.starts_with("Circular") => Some(Edges::Circular),
        _ => None,
    };
    let value = match name.starts_with("ConstantPad") {
        true => b
            .float("value")?
            .ok_or_else(|| Error::value(format!("{name} needs `value`")).at(b.span))?,
        false => 0.0,
    };
    let parts: Vec<String> = pads.iter().map(i64::to_string).collect();
    let shown = match name.starts_with("ConstantPad") {
        true => format!("padding={}, value={}", py_tuple(&parts), py_float(value)),
        false => py_tuple(&parts),
    };
    let layer = Layer::Pad {
        pads,
        edges,
        value,
        shown,
    };
    module(name, layer)
}
