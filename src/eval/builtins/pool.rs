//! The pools: `nn.MaxPool1d`/`2d`, `nn.AvgPool1d`/`2d`, the adaptive ones
//! (`AdaptiveAvgPool1d`/`2d`, `AdaptiveMaxPool1d`/`2d`) and their functions
//! (`F.max_pool1d`, `F.adaptive_avg_pool2d`, ...), `nn.MaxUnpool1d`/`2d`
//! and `F.max_unpool1d`/`2d`, their settings read and
//! shown as PyTorch's. A 1-d pool's settings are kept as a 2-d one's over a
//! 1 x L image, as PyTorch computes it.

use super::super::args::Bound;
use super::super::{Interp, Value};
use super::conv::setting;
use crate::autograd::window::PoolSettings;
use crate::error::{Diagnostic, Error};
use crate::nn::layers::{self, Layer};
use crate::nn::Module;

type Out = Result<Value, Diagnostic>;

/// The classes this file makes.
pub const CLASSES: &[&str] = &[
    "MaxPool1d",
    "MaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "MaxUnpool1d",
    "MaxUnpool2d",
];

/// A pool's kernel, stride (the kernel's unless given), padding and
/// dilation, each as a 2-d pool's, and a max pool's `ceil_mode`; the
/// settings cudash does not compute are refused, pointing at them.
fn settings(b: &Bound, max: bool, one_d: bool) -> Result<(PoolSettings, bool), Diagnostic> {
    let kernel = setting(b, "kernel_size", None, (one_d, 1))?;
    let stride = match b.given("stride") {
        None => kernel,
        Some(_) => setting(b, "stride", None, (one_d, 1))?,
    };
    let padding = setting(b, "padding", Some(0), (one_d, 0))?;
    let dilation = match max {
        true => setting(b, "dilation", Some(1), (one_d, 1))?,
        false => (1, 1),
    };
    let ceil_mode = b.bool("ceil_mode", false)?;
    let refused = [
        ("ceil_mode", !max && ceil_mode),
        (
            "count_include_pad",
            !max && !b.bool("count_include_pad", true)?,
        ),
        ("divisor_override", b.given("divisor_override").is_some()),
    ];
    if let Some((flag, _)) = refused.iter().find(|(_, on)| *on) {
        return Err(Error::value_help(
            format!("{}'s {flag} is not in cudash yet", b.func),
            "leave it at its default: an average pool's windows inside the padded image, padding counted",
        )
        .at(b.span_of(flag)));
    }
    Ok(((kernel, stride, padding, dilation), ceil_mode))
}

/// A setting as PyTorch prints it: as given (an int, or a tuple), or its
/// default `v`; `tuple` (AvgPool1d keeps `_single(...)`): always a tuple.
fn shown(b: &Bound, name: &str, (h, w): (usize, usize), one_d: bool, tuple: bool) -> String {
    match (b.given(name), one_d) {
        (Some((Value::Int(i), _)), _) if !tuple => i.to_string(),
        (None, true) if !tuple => w.to_string(),
        (_, true) => format!("({w},)"),
        (None, false) if h == w => h.to_string(),
        _ => format!("({h}, {w})"),
    }
}

/// `MaxPool1d(kernel_size, stride=None, padding=0, dilation=1)`, the other
/// pools, and the adaptive ones (`AdaptiveAvgPool2d(output_size)`).
pub(super) fn layer(_: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let one_d = name.ends_with("1d");
    let max = name.contains("Max");
    if name.starts_with("MaxUnpool") {
        let (kernel, stride, padding) = unpool_settings(b, one_d)?;
        // PyTorch keeps each as `_pair(...)` (`_single` in 1-d).
        let tuple = |(h, w): (usize, usize)| match one_d {
            true => format!("({w},)"),
            false => format!("({h}, {w})"),
        };
        let shown = format!(
            "kernel_size={}, stride={}, padding={}",
            tuple(kernel),
            tuple(stride),
            tuple(padding)
        );
        let layer = Layer::MaxUnpool {
            one_d,
            kernel,
            stride,
            padding,
            shown,
        };
        return Ok(Value::Module(Module::new(name, layer).into_ref()));
    }
    if name.starts_with("Adaptive") {
        let out = setting(b, "output_size", None, (one_d, 1))?;
        let shown = format!("output_size={}", shown(b, "output_size", out, one_d, false));
        let layer = Layer::AdaptivePool {
            max,
            one_d,
            out,
            shown,
        };
        return Ok(Value::Module(Module::new(name, layer).into_ref()));
    }
    let ((kernel, stride, padding, dilation), ceil_mode) = settings(b, max, one_d)?;
    let tuple = one_d && !max;
    let stride_shown = match b.given("stride") {
        None => shown(b, "kernel_size", kernel, one_d, tuple),
        Some(_) => shown(b, "stride", stride, one_d, tuple),
    };
    let mut text = format!(
        "kernel_size={}, stride={stride_shown}, padding={}",
        shown(b, "kernel_size", kernel, one_d, tuple),
        shown(b, "padding", padding, one_d, tuple),
    );
    if max {
        let dilated = shown(b, "dilation", dilation, one_d, false);
        let ceil = match ceil_mode {
            true => "True",
            false => "False",
        };
        text.push_str(&format!(", dilation={dilated}, ceil_mode={ceil}"));
    }
    let layer = Layer::Pool {
        max,
        one_d,
        kernel,
        stride,
        padding,
        dilation,
        ceil_mode,
        return_indices: max && b.bool("return_indices", false)?,
        shown: text,
    };
    Ok(Value::Module(Module::new(name, layer).into_ref()))
}

/// `max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1)`,
/// `max_pool2d`, `avg_pool1d`, `avg_pool2d`.
pub(super) fn function(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let one_d = name.ends_with("1d") || name == "max_pool1d_with_indices";
    let max = name.starts_with("max");
    let (pool, ceil_mode) = settings(b, max, one_d)?;
    // `return_indices=True` (`max_pool2d_with_indices`): (maxima, places).
    if max && (name.ends_with("with_indices") || b.bool("return_indices", false)?) {
        let r = layers::max_pool_with_indices(&mut me.rt, me.grad, &x, one_d, pool, ceil_mode);
        let (out, places) = r.map_err(|e| e.at(b.span))?;
        return Ok(Value::List(std::sync::Arc::new(vec![
            Value::Tensor(out),
            Value::Tensor(places),
        ])));
    }
    let kind = (max, one_d);
    b.result(layers::pool(&mut me.rt, me.grad, &x, kind, pool, ceil_mode))
}

/// `adaptive_avg_pool1d(input, output_size)`, `adaptive_avg_pool2d`,
/// `adaptive_max_pool1d`, `adaptive_max_pool2d`.
pub(super) fn adaptive(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let (one_d, max) = (name.ends_with("1d"), name.contains("max"));
    let out = setting(b, "output_size", None, (one_d, 1))?;
    if max && b.bool("return_indices", false)? {
        return Err(
            Error::value(format!("{name}'s return_indices is not in cudash yet"))
                .at(b.span_of("return_indices")),
        );
    }
    let kind = (max, one_d);
    b.result(layers::adaptive_pool(&mut me.rt, me.grad, &x, kind, out))
}

/// An unpool's kernel, stride and padding, each (height, width).
type UnpoolSettings = ((usize, usize), (usize, usize), (usize, usize));

/// An unpool's kernel, stride (the kernel's unless given) and padding.
fn unpool_settings(b: &Bound, one_d: bool) -> Result<UnpoolSettings, Diagnostic> {
    let kernel = setting(b, "kernel_size", None, (one_d, 1))?;
    let stride = match b.given("stride") {
        None | Some((Value::None, _)) => kernel,
        Some(_) => setting(b, "stride", None, (one_d, 1))?,
    };
    let padding = setting(b, "padding", Some(0), (one_d, 0))?;
    Ok((kernel, stride, padding))
}

/// `output_size` given to an unpool: sizes (an int list, a `torch.Size`).
pub(crate) fn output_size(
    v: &Value,
    span: crate::lang::Span,
) -> Result<Option<Vec<usize>>, Diagnostic> {
    let v = match v {
        Value::None => return Ok(None),
        Value::Size(items) => Value::List(items.clone()),
        other => other.clone(),
    };
    let items = super::super::args::flatten(&v, span)?;
    items
        .iter()
        .map(|(x, s)| match x {
            Value::Int(i) if *i >= 0 => Ok(*i as usize),
            other => {
                Err(Error::wrong_type("output_size", "a list of sizes", other.type_name()).at(*s))
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// `F.max_unpool1d(input, indices, kernel_size, stride=None, padding=0,
/// output_size=None)`, `F.max_unpool2d`.
pub(super) fn unpool(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let (x, indices) = (b.tensor("input")?, b.tensor("indices")?);
    let one_d = name.ends_with("1d");
    let settings = unpool_settings(b, one_d)?;
    let size = match b.given("output_size") {
        Some((v, span)) => output_size(v, *span)?,
        None => None,
    };
    let r = layers::max_unpool(
        &mut me.rt,
        me.grad,
        (&x, &indices),
        one_d,
        settings,
        size.as_deref(),
    );
    b.result(r)
}
