//! The activations with settings, as `torch.nn` classes (`ELU`,
//! `Softplus`, `Hardtanh`, `ReLU6`, `PReLU`, `GLU`...) and as
//! `torch.nn.functional` functions (`F.elu`, `F.relu6`, `F.glu`...),
//! their settings checked and shown as PyTorch's.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::activation::{Activation, SELU_ALPHA, SELU_SCALE};
use crate::autograd::activation_ops as ops;
use crate::autograd::meta;
use crate::error::{Diagnostic, Error};
use crate::nn::layers::{Layer, Place};
use crate::nn::Module;
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::DType;

type Out = Result<Value, Diagnostic>;

/// The classes this file makes.
pub const CLASSES: &[&str] = &[
    "ELU",
    "SELU",
    "CELU",
    "Softplus",
    "Hardtanh",
    "ReLU6",
    "LeakyReLU",
    "LogSigmoid",
    "Hardswish",
    "Hardsigmoid",
    "Hardshrink",
    "Softshrink",
    "Threshold",
    "Softsign",
    "Tanhshrink",
    "Softmin",
    "GLU",
    "PReLU",
];

/// A number argument with its default.
fn number(b: &Bound, name: &str, default: f64) -> Result<f64, Diagnostic> {
    Ok(b.float(name)?.unwrap_or(default))
}

/// A setting as PyTorch's `extra_repr` shows it: as the program gave it
/// (`2` stays `2`), else PyTorch's default (`1.0`).
fn shown(b: &Bound, name: &str, default: &str) -> String {
    match b.given(name) {
        Some((Value::Int(i), _)) => i.to_string(),
        Some((Value::Float(x), _)) => crate::nn::repr::py_float(x.get()),
        _ => default.to_string(),
    }
}

/// The activation a class or function `name` computes, from its settings.
fn kind_of(name: &str, b: &Bound) -> Result<Option<Activation>, Diagnostic> {
    let base = name.trim_end_matches('_');
    let kind = match base {
        "ELU" | "elu" => {
            let alpha = number(b, "alpha", 1.0)?;
            Activation::Elu {
                alpha,
                scale: 1.0,
                input_scale: 1.0,
                celu: false,
            }
        }
        "SELU" | "selu" => Activation::Elu {
            alpha: SELU_ALPHA,
            scale: SELU_SCALE,
            input_scale: 1.0,
            celu: false,
        },
        "CELU" | "celu" => {
            let alpha = number(b, "alpha", 1.0)?;
            Activation::Elu {
                alpha,
                scale: 1.0,
                input_scale: 1.0 / alpha,
                celu: true,
            }
        }
        "Softplus" | "softplus" => Activation::Softplus {
            beta: number(b, "beta", 1.0)?,
            threshold: number(b, "threshold", 20.0)?,
        },
        "Hardtanh" | "hardtanh" => Activation::Hardtanh {
            min: number(b, "min_val", -1.0)?,
            max: number(b, "max_val", 1.0)?,
        },
        "ReLU6" | "relu6" => Activation::Hardtanh { min: 0.0, max: 6.0 },
        "LeakyReLU" | "leaky_relu" => Activation::LeakyRelu {
            slope: number(b, "negative_slope", 0.01)?,
        },
        "LogSigmoid" | "logsigmoid" => Activation::LogSigmoid,
        "Hardswish" | "hardswish" => Activation::Hardswish,
        "Hardsigmoid" | "hardsigmoid" => Activation::Hardsigmoid,
        "Hardshrink" | "hardshrink" => Activation::Hardshrink {
            lambd: number(b, "lambd", 0.5)?,
        },
        "Softshrink" | "softshrink" => Activation::Softshrink {
            lambd: number(b, "lambd", 0.5)?,
        },
        "Threshold" | "threshold" => {
            let need = |n: &str| {
                b.float(n)?.ok_or_else(|| {
                    Error::value(format!(
                        "{name} needs `{n}`: the bound and the value below it"
                    ))
                    .at(b.span)
                })
            };
            Activation::Threshold {
                threshold: need("threshold")?,
                value: need("value")?,
            }
        }
        _ => return Ok(None),
    };
    kind.check().map_err(|e| e.at(b.span))?;
    Ok(Some(kind))
}

/// The settings an activation class shows (`ELU(alpha=1.0)`), as PyTorch's
/// `extra_repr`.
fn shown_settings(name: &str, b: &Bound, inplace: bool) -> String {
    let mut parts: Vec<String> = match name {
        "ELU" | "CELU" => vec![format!("alpha={}", shown(b, "alpha", "1.0"))],
        "Softplus" => vec![
            format!("beta={}", shown(b, "beta", "1.0")),
            format!("threshold={}", shown(b, "threshold", "20.0")),
        ],
        "Hardtanh" => vec![
            format!("min_val={}", shown(b, "min_val", "-1.0")),
            format!("max_val={}", shown(b, "max_val", "1.0")),
        ],
        "LeakyReLU" => vec![format!(
            "negative_slope={}",
            shown(b, "negative_slope", "0.01")
        )],
        "Hardshrink" | "Softshrink" => vec![shown(b, "lambd", "0.5")],
        "Threshold" => vec![
            format!("threshold={}", shown(b, "threshold", "")),
            format!("value={}", shown(b, "value", "")),
        ],
        _ => vec![],
    };
    // Hardswish and Hardsigmoid do not show `inplace` (PyTorch's have no
    // extra_repr).
    if inplace && !matches!(name, "Hardswish" | "Hardsigmoid") {
        parts.push("inplace=True".into());
    }
    parts.join(", ")
}

/// The classes' constructors (`nn.ELU(alpha=1.0, inplace=False)`...).
pub(super) fn layer(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let layer = match name {
        "Softsign" => Layer::Softsign,
        "Tanhshrink" => Layer::Tanhshrink,
        "Softmin" => Layer::Softmin { dim: b.int("dim")? },
        "GLU" => Layer::Glu {
            dim: b.int("dim")?.unwrap_or(-1),
        },
        "PReLU" => return prelu_layer(me, b),
        _ => {
            let kind = kind_of(name, b)?
                .ok_or_else(|| Error::value(format!("internal error: no `{name}`")).at(b.span))?;
            let inplace = b.bool("inplace", false)?;
            Layer::Pointwise {
                kind,
                inplace,
                shown: shown_settings(name, b, inplace),
            }
        }
    };
    Ok(Value::Module(Module::new(name, layer).into_ref()))
}

/// `nn.PReLU(num_parameters=1, init=0.25)`: a weight of `num_parameters`
/// elements, each `init`.
fn prelu_layer(me: &mut Interp, b: &Bound) -> Out {
    let at = Place {
        device: me.device_arg(b)?,
        dtype: b.dtype("dtype")?.unwrap_or_else(DType::default_float),
    };
    let n = b.int("num_parameters")?.unwrap_or(1);
    let n = usize::try_from(n).map_err(|_| {
        Error::value(format!("num_parameters must be at least 0, not {n}"))
            .at(b.span_of("num_parameters"))
    })?;
    let init = number(b, "init", 0.25)?;
    let new = NewTensor {
        shape: &[n],
        dtype: at.dtype,
        device: at.device,
        like: None,
    };
    let w = me
        .rt
        .full(new, Fill::Float(init))
        .map(crate::nn::layers::filled)
        .map_err(|e| e.at(b.span))?;
    let mut m = Module::new("PReLU", Layer::Prelu { num_parameters: n });
    m.set_parameter("weight", Some(Arc::new(meta::parameter(&w, true))))
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Module(m.into_ref()))
}

/// The functions (`F.elu(input, alpha=1.0, inplace=False)`, `F.elu_`...):
/// `inplace=True` or a name ending in `_` writes into `input`, which is
/// returned.
pub(super) fn function(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let kind = kind_of(name, b)?
        .ok_or_else(|| Error::value(format!("internal error: no `{name}`")).at(b.span))?;
    let inplace = name.ends_with('_') || b.bool("inplace", false)?;
    match inplace {
        true => {
            ops::activation_(&mut me.rt, me.grad, kind, &x).map_err(|e| e.at(b.span))?;
            Ok(Value::Tensor(x))
        }
        false => b.result(ops::activation(&mut me.rt, me.grad, kind, &x)),
    }
}

/// `F.softsign(input)`, `F.tanhshrink(input)`, `F.softmin(input, dim)`,
/// `F.glu(input, dim=-1)`, `F.prelu(input, weight)`.
pub(super) fn composite(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let (rt, mode) = (&mut me.rt, me.grad);
    b.result(match name {
        "softsign" => ops::softsign(rt, mode, &x),
        "tanhshrink" => ops::tanhshrink(rt, mode, &x),
        "softmin" => crate::nn::layers::softmin(rt, mode, &x, b.int("dim")?),
        "glu" => ops::glu(rt, mode, &x, b.int("dim")?.unwrap_or(-1)),
        "prelu" => ops::prelu(rt, mode, &x, &b.tensor("weight")?),
        _ => Err(Error::value(format!("internal error: no `{name}`"))),
    })
}
