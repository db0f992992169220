//! The lazy layers' constructors (`nn.LazyLinear(10)`): the settings given,
//! and the size the first input will give (`eval::lazy_modules`).

use super::super::args::{ArgVal, Bound};
use super::super::{Interp, Value};
use crate::error::Diagnostic;
use crate::lang::ast::Name;

/// The classes this file makes.
pub const CLASSES: &[&str] = &[
    "LazyLinear",
    "LazyConv1d",
    "LazyConv2d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
];

/// `LazyX(settings)`: a lazy `X`, every setting given passed on to `X`'s
/// constructor by its name.
pub(super) fn layer(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let class = name.trim_start_matches("Lazy");
    let size_name = match class {
        "Linear" => "in_features",
        "Conv1d" | "Conv2d" => "in_channels",
        _ => "num_features",
    };
    let settings = b
        .given_all()
        .into_iter()
        .map(|(k, (v, span))| ArgVal {
            keyword: Some(Name::new(k.to_string(), *span)),
            value: v.clone(),
            span: *span,
        })
        .collect();
    me.lazy_module(class, size_name, settings, b.span)
}

/// `UninitializedParameter(requires_grad=True, device=None, dtype=None)`
/// and `UninitializedBuffer(...)`: no elements, of the dtype and device.
pub(super) fn uninitialized(
    me: &mut Interp,
    name: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let parameter = name == "UninitializedParameter";
    let requires_grad = b.bool("requires_grad", parameter)?;
    let dtype = b
        .dtype("dtype")?
        .unwrap_or_else(crate::runtime::DType::default_float);
    let device = me.device_arg(b)?;
    let empty = me.empty_on(dtype, device).map_err(|e| e.at(b.span))?;
    let t = crate::autograd::meta::uninitialized(&empty, parameter, requires_grad);
    Ok(Value::Tensor(std::sync::Arc::new(t)))
}
