//! What `torch.nn.utils.parametrize` (`stdlib/torch_nn_utils_parametrize.py`)
//! asks of the interpreter. PyTorch turns a parametrized `module.weight`
//! into a property of a class made for the module; cudash keeps the class
//! and answers here: reading the name calls the module's
//! `_get_parametrized(module, name)` (its parametrizations on the
//! original, cached inside `parametrize.cached()`), assigning calls
//! `_set_parametrized` (the `right_inverse`s), and a built-in layer's
//! forward (`Linear`, `Conv2d`, `LSTM`) computes with the parametrized
//! tensors, put in the module's slots for that call only.

use std::sync::Arc;

use super::args::to_tensor;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::module::{Buffer, Member};
use crate::nn::ModuleRef;
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

const MODULE: &str = "torch.nn.utils.parametrize";

impl Interp {
    /// `module.name` of a parametrized name.
    pub(crate) fn parametrized_attr(
        &mut self,
        m: &ModuleRef,
        name: &str,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let args = vec![
            Value::Module(Arc::clone(m)),
            Value::Str(Arc::new(name.to_string())),
        ];
        self.call_stdlib(MODULE, "_get_parametrized", args, span)
    }

    /// `module.name = v` of a parametrized name.
    pub(crate) fn set_parametrized_attr(
        &mut self,
        m: &ModuleRef,
        name: &str,
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let args = vec![
            Value::Module(Arc::clone(m)),
            Value::Str(Arc::new(name.to_string())),
            v,
        ];
        self.call_stdlib(MODULE, "_set_parametrized", args, span)?;
        Ok(())
    }

    /// Runs `forward` (a built-in layer's own) with each parametrized
    /// tensor of `m` in the parameter or buffer slot of its name, as the
    /// layer's forward reads `self.weight` in PyTorch; the slots are
    /// emptied again after.
    pub(crate) fn with_parametrized<T>(
        &mut self,
        m: &ModuleRef,
        span: Span,
        forward: impl FnOnce(&mut Interp) -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        let names = lock(m).parametrized();
        if names.is_empty() {
            return forward(self);
        }
        let mut computed: Vec<(String, Arc<Tensor>, bool)> = Vec::new();
        for name in names {
            let v = self.parametrized_attr(m, &name, span)?;
            let t = to_tensor(&v).ok_or_else(|| {
                Error::type_error(format!(
                    "the parametrization of '{name}' gave {}, not a tensor",
                    v.type_name()
                ))
                .at(span)
            })?;
            computed.push((name.clone(), t, is_buffer(m, &name)));
        }
        {
            let mut module = lock(m);
            for (name, t, buffer) in &computed {
                match buffer {
                    true => module.buffers.push(Buffer {
                        name: name.clone(),
                        tensor: Some(Arc::clone(t)),
                        persistent: false,
                    }),
                    false => module.parameters.push((name.clone(), Some(Arc::clone(t)))),
                }
            }
        }
        let r = forward(self);
        let mut module = lock(m);
        let gone = |n: &str| computed.iter().any(|(c, _, _)| c == n);
        module.parameters.retain(|(n, _)| !gone(n));
        module.buffers.retain(|b| !gone(&b.name));
        r
    }
}

/// Whether the parametrized `name` of `m` starts from a buffer (its
/// `original` is one) rather than a parameter.
fn is_buffer(m: &ModuleRef, name: &str) -> bool {
    let Some(Member::Module(Some(d))) = lock(m).member("parametrizations") else {
        return false;
    };
    let Some(Member::Module(Some(list))) = lock(&d).member(name) else {
        return false;
    };
    let list = lock(&list);
    matches!(
        list.member("original").or_else(|| list.member("original0")),
        Some(Member::Buffer(_))
    )
}
