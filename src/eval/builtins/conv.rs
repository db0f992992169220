//! The convolutions: `nn.Conv1d`, `nn.Conv2d`, `nn.ConvTranspose1d`,
//! `nn.ConvTranspose2d` and `F.conv1d`, `F.conv2d`, `F.conv_transpose1d`,
//! `F.conv_transpose2d`, their settings read and shown as PyTorch's. A
//! 1-d one's settings are kept as a 2-d one's over a 1 x L image.

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::conv;
use crate::autograd::pad::Edges;
use crate::error::{Diagnostic, Error};
use crate::nn::layers::{self, Layer, Place};
use crate::runtime::DType;

type Out = Result<Value, Diagnostic>;

/// The classes this file makes.
pub const CLASSES: &[&str] = &["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d"];

/// A setting of a 1-d convolution (an int or a 1-tuple) as a 2-d one's:
/// `(height, v)`, the height's part being what leaves it alone; a 2-d
/// one's as a pair.
pub(super) fn setting(
    b: &Bound,
    name: &str,
    default: Option<usize>,
    (one_d, height): (bool, usize),
) -> Result<(usize, usize), Diagnostic> {
    if !one_d {
        return b.pair(name, default);
    }
    let Some((v, span)) = b.given(name) else {
        return match default {
            Some(d) => Ok((height, d)),
            None => Err(Error::value(format!("missing `{name}`")).at(b.span)),
        };
    };
    let items = super::super::args::flatten(v, *span)?;
    match items.as_slice() {
        [(Value::Int(i), _)] if *i >= 0 => Ok((height, *i as usize)),
        _ => Err(Error::wrong_type(name, "an int or a tuple of one int", v.type_name()).at(*span)),
    }
}

/// `padding`: ints, or PyTorch's "valid" (none) and "same" (the output as
/// large as the input; stride 1). With it, PyTorch's
/// `_reversed_padding_repeated_twice`: each padded dim's (left, right), the
/// last dim first; "same" with an odd total (an even kernel) puts the extra
/// place on the right.
fn padding(
    b: &Bound,
    one_d: bool,
    kernel: (usize, usize),
    stride: (usize, usize),
    dilation: (usize, usize),
) -> Result<((usize, usize), Vec<i64>), Diagnostic> {
    let reversed = |pairs: [(usize, usize); 2]| -> Vec<i64> {
        let dims = match one_d {
            true => &pairs[1..],
            false => &pairs[..],
        };
        dims.iter()
            .rev()
            .flat_map(|&(l, r)| [l as i64, r as i64])
            .collect()
    };
    match b.given("padding") {
        Some((Value::Str(s), span)) => match s.as_str() {
            "valid" => Ok(((0, 0), reversed([(0, 0), (0, 0)]))),
            "same" => {
                if stride != (1, 1) {
                    return Err(Error::value(
                        "padding='same' is not supported for strided convolutions",
                    )
                    .at(*span));
                }
                let total = |k: usize, d: usize| d * (k - 1);
                let (th, tw) = (total(kernel.0, dilation.0), total(kernel.1, dilation.1));
                let sides = [(th / 2, th - th / 2), (tw / 2, tw - tw / 2)];
                Ok(((th / 2, tw / 2), reversed(sides)))
            }
            other => Err(Error::value(format!(
                "Invalid padding string '{other}', should be one of {{'valid', 'same'}}"
            ))
            .at(*span)),
        },
        _ => {
            let (h, w) = setting(b, "padding", Some(0), (one_d, 0))?;
            Ok(((h, w), reversed([(h, h), (w, w)])))
        }
    }
}

/// `padding_mode`: `"zeros"` (None) or one of `F.pad`'s modes; a
/// transposed convolution pads with zeros only, as PyTorch's.
fn padding_mode(b: &Bound, name: &str, transposed: bool) -> Result<Option<Edges>, Diagnostic> {
    let Some((v, span)) = b.given("padding_mode") else {
        return Ok(None);
    };
    let Value::Str(s) = v else {
        return Err(Error::wrong_type("padding_mode", "a string", v.type_name()).at(*span));
    };
    let edges = match s.as_str() {
        "zeros" => None,
        other => match Edges::named(other) {
            Some(e) => Some(e),
            None => {
                return Err(Error::value(format!(
                    "padding_mode must be one of {{'zeros', 'circular', 'replicate', 'reflect'}}, but got padding_mode='{other}'"
                ))
                .at(*span))
            }
        },
    };
    if transposed && edges.is_some() {
        return Err(Error::value(format!(
            "Only \"zeros\" padding mode is supported for {name}"
        ))
        .at(*span));
    }
    Ok(edges)
}

/// A setting as PyTorch's `extra_repr` shows it: `(3,)` for a 1-d layer,
/// `(3, 3)` for a 2-d one.
fn tuple(one_d: bool, (a, c): (usize, usize)) -> String {
    match one_d {
        true => format!("({c},)"),
        false => format!("({a}, {c})"),
    }
}

/// The four classes' constructors (`Conv2d(in_channels, out_channels,
/// kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
/// ...)`; the transposed ones take `output_padding` before `groups`).
pub(super) fn layer(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let one_d = name.ends_with("1d");
    let transposed = name.starts_with("ConvTranspose");
    let place = Place {
        device: me.device_arg(b)?,
        dtype: b.dtype("dtype")?.unwrap_or_else(DType::default_float),
    };
    let (cin, cout) = (b.size("in_channels")?, b.size("out_channels")?);
    let kernel = setting(b, "kernel_size", None, (one_d, 1))?;
    let stride = setting(b, "stride", Some(1), (one_d, 1))?;
    let dilation = setting(b, "dilation", Some(1), (one_d, 1))?;
    let output_padding = match transposed {
        true => setting(b, "output_padding", Some(0), (one_d, 0))?,
        false => (0, 0),
    };
    let groups = b.int("groups")?.unwrap_or(1).max(0) as usize;
    let bias = b.bool("bias", true)?;
    let padding_mode = padding_mode(b, name, transposed)?;
    let (padding, reversed_padding) = match transposed {
        true => {
            let (h, w) = setting(b, "padding", Some(0), (one_d, 0))?;
            let reversed = match one_d {
                true => vec![w as i64; 2],
                false => vec![w as i64, w as i64, h as i64, h as i64],
            };
            ((h, w), reversed)
        }
        false => padding(b, one_d, kernel, stride, dilation)?,
    };
    // PyTorch's extra_repr: the settings that differ from the defaults.
    let mut shown = format!(
        "{cin}, {cout}, kernel_size={}, stride={}",
        tuple(one_d, kernel),
        tuple(one_d, stride)
    );
    if let Some((Value::Str(s), _)) = b.given("padding") {
        shown.push_str(&format!(", padding={s}"));
    } else if padding != (0, 0) {
        shown.push_str(&format!(", padding={}", tuple(one_d, padding)));
    }
    if dilation != (1, 1) {
        shown.push_str(&format!(", dilation={}", tuple(one_d, dilation)));
    }
    if output_padding != (0, 0) {
        shown.push_str(&format!(
            ", output_padding={}",
            tuple(one_d, output_padding)
        ));
    }
    if groups != 1 {
        shown.push_str(&format!(", groups={groups}"));
    }
    if !bias {
        shown.push_str(", bias=False");
    }
    if let Some(edges) = padding_mode {
        shown.push_str(&format!(", padding_mode={}", edges.name()));
    }
    let layer = Layer::Conv {
        transposed,
        one_d,
        stride,
        padding,
        dilation,
        output_padding,
        groups,
        padding_mode,
        reversed_padding,
        shown,
    };
    let m = layers::conv(&mut me.rt, name, (cin, cout), kernel, layer, bias, place);
    Ok(Value::Module(m.map_err(at)?.into_ref()))
}

/// `F.conv1d`/`F.conv2d(input, weight, bias=none, stride=1, padding=0,
/// dilation=1, groups=1)` and `F.conv_transpose1d`/`F.conv_transpose2d(input,
/// weight, bias=none, stride=1, padding=0, output_padding=0, groups=1,
/// dilation=1)`.
pub(super) fn function(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let (x, w) = (b.tensor("input")?, b.tensor("weight")?);
    let bias = b.optional_tensor("bias")?;
    let one_d = name.ends_with("1d");
    let stride = setting(b, "stride", Some(1), (one_d, 1))?;
    let dilation = setting(b, "dilation", Some(1), (one_d, 1))?;
    let groups = b.int("groups")?.unwrap_or(1).max(0) as usize;
    let kernel = match (one_d, w.ndim()) {
        (false, 4) => (w.shape()[2], w.shape()[3]),
        (true, 3) => (1, w.shape()[2]),
        _ => (1, 1),
    };
    let (rt, mode) = (&mut me.rt, me.grad);
    let inputs = (&x, &w, bias.as_ref());
    let result = match name.starts_with("conv_transpose") {
        true => {
            let padding = setting(b, "padding", Some(0), (one_d, 0))?;
            let output_padding = setting(b, "output_padding", Some(0), (one_d, 0))?;
            let settings = (stride, padding, dilation, groups);
            conv::conv_transpose2d(rt, mode, inputs, settings, output_padding)
        }
        false => {
            let (padding, reversed) = padding(b, one_d, kernel, stride, dilation)?;
            conv::padded_first(rt, mode, &x, padding, None, &reversed).and_then(|(x, padding)| {
                let settings = (stride, padding, dilation, groups);
                conv::conv2d(rt, mode, &x, &w, bias.as_ref(), settings)
            })
        }
    };
    b.result(result)
}
