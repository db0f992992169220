//! The pools: `nn.MaxPool1d`/`2d`, `nn.AvgPool1d`/`2d`, the adaptive ones
//! (`AdaptiveAvgPool1d`/`2d`, `AdaptiveMaxPool1d`/`2d`) and their functions
//! (`F.max_pool1d`, `F.adaptive_avg_pool2d`, ...), their settings read and
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
        ("return_indices", max && b.bool("return_indices", false)?),
        (
            "count_include_pad",
            !max && !b.bool("count_include_pad", true)?,
        ),
        ("divisor_override", b.given("divisor_override").is_some()),
    ];
    if let Some((flag, _)) = refused.iter().find(|(_, on)| *on) {
        return Err(Error::value_help(
            format!("{}'s {flag} is not in cudash yet", b.func),
            "leave it at its default: an average pool's windows inside the padded image, padding counted; no indices",
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
        shown: text,
    };
    Ok(Value::Module(Module::new(name, layer).into_ref()))
}

/// `max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1)`,
/// `max_pool2d`, `avg_pool1d`, `avg_pool2d`.
pub(super) fn function(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let (one_d, max) = (name.ends_with("1d"), name.starts_with("max"));
    let (pool, ceil_mode) = settings(b, max, one_d)?;
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
