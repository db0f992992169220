//! What each activation with settings is: its settings, PyTorch's names
//! for its op and node, and PyTorch's refusals of its settings (computed
//! in `activation_ops.rs`).

use crate::error::Error;

type R<T> = Result<T, Error>;

/// SELU's constants (PyTorch's `SELU_ALPHA`, `SELU_SCALE`).
pub const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
pub const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

/// An activation and its settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// `elu(x, alpha, scale, input_scale)`: `x * scale` above 0, else
    /// `expm1(x * input_scale) * alpha * scale` (ELU: scale 1; SELU: its
    /// constants; CELU: `input_scale = 1 / alpha`, `celu` its node).
    Elu {
        alpha: f64,
        scale: f64,
        input_scale: f64,
        celu: bool,
    },
    /// `softplus(x, beta, threshold)`: `log1p(exp(x * beta)) / beta`, `x`
    /// itself where `x * beta > threshold`.
    Softplus { beta: f64, threshold: f64 },
    /// `hardtanh(x, min, max)` (ReLU6: 0 and 6): x clamped.
    Hardtanh { min: f64, max: f64 },
    /// `leaky_relu(x, slope)`: `x` above 0, `x * slope` elsewhere.
    LeakyRelu { slope: f64 },
    /// `logsigmoid(x)`: `min(x, 0) - log1p(exp(-|x|))`.
    LogSigmoid,
    /// `hardswish(x)`: `x * min(max(x + 3, 0), 6) / 6`.
    Hardswish,
    /// `hardsigmoid(x)`: `min(max(x + 3, 0), 6) / 6`.
    Hardsigmoid,
    /// `hardshrink(x, lambd)`: 0 within `lambd` of 0, else x.
    Hardshrink { lambd: f64 },
    /// `softshrink(x, lambd)`: x moved `lambd` towards 0, 0 within it.
    Softshrink { lambd: f64 },
    /// `threshold(x, threshold, value)`: `value` where `x <= threshold`.
    Threshold { threshold: f64, value: f64 },
}

impl Activation {
    /// PyTorch's name of the op (its kernel is `"{name}_cpu"`).
    pub fn op_name(&self) -> &'static str {
        match self {
            Activation::Elu { celu: true, .. } => "celu",
            Activation::Elu { .. } => "elu",
            Activation::Softplus { .. } => "softplus",
            Activation::Hardtanh { .. } => "hardtanh",
            Activation::LeakyRelu { .. } => "leaky_relu",
            Activation::LogSigmoid => "log_sigmoid",
            Activation::Hardswish => "hardswish",
            Activation::Hardsigmoid => "hardsigmoid",
            Activation::Hardshrink { .. } => "hardshrink",
            Activation::Softshrink { .. } => "softshrink",
            Activation::Threshold { .. } => "threshold",
        }
    }

    /// Its node's name.
    pub fn node_name(&self) -> &'static str {
        match self {
            Activation::Elu { celu: true, .. } => "CeluBackward0",
            Activation::Elu { .. } => "EluBackward0",
            Activation::Softplus { .. } => "SoftplusBackward0",
            Activation::Hardtanh { .. } => "HardtanhBackward0",
            Activation::LeakyRelu { .. } => "LeakyReluBackward0",
            Activation::LogSigmoid => "LogSigmoidBackward0",
            Activation::Hardswish => "HardswishBackward0",
            Activation::Hardsigmoid => "HardsigmoidBackward0",
            Activation::Hardshrink { .. } => "HardshrinkBackward0",
            Activation::Softshrink { .. } => "SoftshrinkBackward0",
            Activation::Threshold { .. } => "ThresholdBackward0",
        }
    }

    /// The node of its in-place form (`elu_`: `EluBackward1`, which saves
    /// the result), and whether that node saves the result (else a copy
    /// of the input's old elements).
    pub fn in_place_node(&self) -> (&'static str, bool) {
        match self {
            Activation::Elu { celu: true, .. } => ("CeluBackward1", true),
            Activation::Elu { .. } => ("EluBackward1", true),
            Activation::LeakyRelu { .. } => ("LeakyReluBackward1", true),
            Activation::Hardtanh { .. } => ("HardtanhBackward0", true),
            Activation::Threshold { .. } => ("ThresholdBackward1", false),
            other => (other.node_name(), false),
        }
    }

    /// PyTorch's refusals of its settings, in its words.
    pub fn check(&self) -> R<()> {
        match *self {
            Activation::Elu {
                celu: true,
                alpha: 0.0,
                ..
            } => Err(Error::runtime(
                "ZeroDivisionError: alpha cannot be 0 for CELU",
            )),
            Activation::Hardtanh { min, max } if min > max => {
                Err(Error::value("min_val cannot be greater than max_val"))
            }
            _ => Ok(()),
        }
    }
}
