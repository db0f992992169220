//! What `torch.func.functional_call` (`stdlib/torch_func.py`) asks of the
//! interpreter: `_cudash.swap_module_tensors(module, tensors)` puts each
//! tensor of the dict in the module's parameter or buffer of that key
//! (`fc1.weight`), whatever it is (a plain tensor with a history, a slice
//! of stacked parameters), and gives back a dict of the tensors it took
//! out, which the same call puts back. PyTorch's `functional_call` does
//! this swap too (`torch.nn.utils.stateless._reparametrize_module`).

use std::sync::Arc;

use super::args::ArgVal;
use super::value::{Key, PyDict};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::module::{self, ModuleRef};
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

/// The names this module answers.
pub const NAMES: [&str; 3] = [
    "_cudash.swap_module_tensors",
    "_cudash.vmap_retain",
    "_cudash.vmap_random_refused",
];

impl Interp {
    pub(super) fn call_stateless(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        // `_cudash.vmap_retain(flag)`: sets whether backward keeps its
        // graph for vmap's loop (`Interp::vmap_retain`), giving the setting
        // before; with none, only gives it.
        // `_cudash.vmap_random_refused(flag)`: the same for whether a random
        // op is refused (`Runtime::random_refused`).
        if name != "_cudash.swap_module_tensors" {
            let flag = match name {
                "_cudash.vmap_retain" => &mut self.vmap_retain,
                _ => &mut self.rt.random_refused,
            };
            let before = *flag;
            if let Some(Value::Bool(on)) = args.first().map(|a| &a.value) {
                *flag = on.get();
            }
            return Ok(Value::bool(before));
        }
        let (Some(Value::Module(m)), Some(Value::Dict(d))) = (
            args.first().map(|a| a.value.clone()),
            args.get(1).map(|a| a.value.clone()),
        ) else {
            return Err(Error::type_error(
                "swap_module_tensors(module, tensors) takes a module and a dict of tensors",
            )
            .at(span));
        };
        swap(&m, &d).map_err(|e| e.at(span))
    }
}

/// Where a key's tensor lives: a module, and a parameter's or buffer's name.
struct Slot {
    module: ModuleRef,
    name: String,
    parameter: bool,
}

fn find(m: &ModuleRef, key: &str) -> Option<Slot> {
    let (prefix, name) = key.rsplit_once('.').unwrap_or(("", key));
    let (_, owner) = module::named_modules(m, "")
        .into_iter()
        .find(|(p, _)| p == prefix)?;
    let (parameter, found) = {
        let o = lock(&owner);
        let parameter = o.parameters.iter().any(|(n, _)| n == name);
        (
            parameter,
            parameter || o.buffers.iter().any(|b| b.name == name),
        )
    };
    found.then(|| Slot {
        module: owner,
        name: name.to_string(),
        parameter,
    })
}

fn swap(m: &ModuleRef, tensors: &PyDict) -> Result<Value, Error> {
    // Every key checked before anything moves.
    let mut planned: Vec<(String, Slot, Option<Arc<Tensor>>)> = Vec::new();
    for (key, value) in tensors.items().iter() {
        let Key::Str(key) = key else {
            return Err(Error::type_error(
                "functional_call's keys are strings (`fc1.weight`)",
            ));
        };
        let tensor = match value {
            Value::Tensor(t) => Some(Arc::clone(t)),
            Value::None => None,
            other => {
                return Err(Error::type_error(format!(
                    "functional_call: the value of `{key}` must be a tensor, not {}",
                    other.type_name()
                )))
            }
        };
        let slot = find(m, key).ok_or_else(|| {
            Error::value(format!(
                "functional_call: the module has no parameter or buffer named `{key}`"
            ))
        })?;
        planned.push((key.clone(), slot, tensor));
    }
    let mut old = Vec::with_capacity(planned.len());
    for (key, slot, tensor) in planned {
        let mut o = lock(&slot.module);
        let taken = match slot.parameter {
            true => o
                .parameters
                .iter_mut()
                .find(|(n, _)| *n == slot.name)
                .and_then(|(_, p)| std::mem::replace(p, tensor)),
            false => o
                .buffers
                .iter_mut()
                .find(|b| b.name == slot.name)
                .and_then(|b| std::mem::replace(&mut b.tensor, tensor)),
        };
        old.push((Key::Str(key), taken.map_or(Value::None, Value::Tensor)));
    }
    Ok(Value::Dict(PyDict::new(old)))
}
