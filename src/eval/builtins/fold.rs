//! `F.unfold(input, kernel_size, dilation=1, padding=0, stride=1)` and
//! `F.fold(input, output_size, kernel_size, ...)`, and their modules
//! `nn.Unfold` and `nn.Fold`: an image's sliding windows as columns and
//! back (`autograd::fold`).

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::fold::Windows;
use crate::error::Diagnostic;
use crate::nn::layers::Layer;
use crate::nn::Module;

type Out = Result<Value, Diagnostic>;

/// The classes this file makes.
pub const CLASSES: &[&str] = &["Unfold", "Fold"];

/// The windows' settings as given (each an int or a pair).
fn windows(b: &Bound) -> Result<Windows, Diagnostic> {
    Ok(Windows {
        kernel: b.pair("kernel_size", None)?,
        dilation: b.pair("dilation", Some(1))?,
        padding: b.pair("padding", Some(0))?,
        stride: b.pair("stride", Some(1))?,
    })
}

/// `F.unfold(...)` and `F.fold(...)`.
pub(super) fn function(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let win = windows(b)?;
    let (rt, mode) = (&mut me.rt, me.grad);
    match name {
        "unfold" => b.result(crate::autograd::fold::unfold(rt, mode, &x, win)),
        _ => {
            let size = b.pair("output_size", None)?;
            b.result(crate::autograd::fold::fold(rt, mode, &x, size, win))
        }
    }
}

/// A setting as PyTorch's `extra_repr` shows it: as the program gave it.
fn shown(b: &Bound, name: &str, default: &str) -> String {
    match b.given(name) {
        Some((v, _)) => super::super::format::repr_of(v),
        None => default.to_string(),
    }
}

/// `nn.Unfold(kernel_size, dilation=1, padding=0, stride=1)` and
/// `nn.Fold(output_size, kernel_size, ...)`.
pub(super) fn layer(_: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let win = windows(b)?;
    let settings = format!(
        "kernel_size={}, dilation={}, padding={}, stride={}",
        shown(b, "kernel_size", ""),
        shown(b, "dilation", "1"),
        shown(b, "padding", "0"),
        shown(b, "stride", "1")
    );
    let layer = match name {
        "Unfold" => Layer::Unfold {
            win,
            shown: settings,
        },
        _ => Layer::Fold {
            size: b.pair("output_size", None)?,
            win,
            shown: format!("output_size={}, {settings}", shown(b, "output_size", "")),
        },
    };
    Ok(Value::Module(Module::new(name, layer).into_ref()))
}
