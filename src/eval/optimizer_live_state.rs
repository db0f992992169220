//! `opt.state` of a built-in optimizer: the natives behind the views of
//! `stdlib/torch_optim_state.py`, which read a parameter's state as
//! PyTorch's dict (`opt.state[p]["exp_avg"]`) and write an entry back into
//! the optimizer (`state[k] = v.to(device)`, as a program resuming from a
//! checkpoint does).

use std::sync::Arc;

use super::args::ArgVal;
use super::optimizer_state::{number_entry, state_value};
use super::value::{Key, PyDict};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::lock::lock;

/// The natives `stdlib/torch_optim_state.py` calls.
pub const NAMES: [&str; 3] = [
    "_cudash.optim_state_params",
    "_cudash.optim_state_of",
    "_cudash.optim_state_set",
];

impl Interp {
    pub(super) fn call_optim_state(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        self.optim_state(name, &args).map_err(|e| e.at(span))
    }

    fn optim_state(&mut self, name: &str, args: &[ArgVal]) -> Result<Value, Error> {
        let arg = |i: usize| args.get(i).map(|a| &a.value);
        let Some(Value::Optimizer(o)) = arg(0) else {
            return Err(Error::value(format!("{name}() takes an optimizer")));
        };
        if name == "_cudash.optim_state_params" {
            let o = lock(o);
            let params = o.entries_with_state().into_iter();
            let keys = params.map(|k| Value::Tensor(Arc::clone(&o.params[k])));
            return Ok(Value::list(keys.collect()));
        }
        // PyTorch keys the state by the tensor: anything else is no key of
        // a parameter's.
        let entry = match arg(1) {
            Some(Value::Tensor(p)) => lock(o).entry_of(p),
            _ => None,
        };
        if name == "_cudash.optim_state_of" {
            let o = lock(o);
            let entries = entry.map_or(Vec::new(), |k| o.state_of(k));
            let pairs = entries
                .into_iter()
                .map(|(n, v)| (Key::from(n), state_value(v)));
            return Ok(Value::Dict(PyDict::new(pairs.collect())));
        }
        let (Some(k), Some(Value::Str(key)), Some(value)) = (entry, arg(2), arg(3)) else {
            return Err(Error::value(
                "cudash keeps an optimizer's state for its parameters only: \
                 `opt.state[p][name] = value` takes one of its parameters and a name",
            ));
        };
        let known = {
            let o = lock(o);
            let names = o.groups[o.group_of[k]].state_names();
            match names.iter().find(|(n, _)| *n == key.as_str()) {
                Some(&(n, _)) => n,
                None => {
                    let all: Vec<String> = names.iter().map(|(n, _)| format!("{n:?}")).collect();
                    return Err(Error::value(format!(
                        "{} keeps {} in a parameter's state, not {key:?}",
                        o.name(),
                        all.join(", ")
                    )));
                }
            }
        };
        let v = match known {
            "step" | "mu_product" => number_entry(self, known, value).unwrap_or_else(|| {
                Err(Error::wrong_type(
                    format!("the state's {known:?}"),
                    "a number or a one-element tensor",
                    value.type_name(),
                ))
            })?,
            // As PyTorch's dict: the tensor itself, wherever it lives.
            _ => match value {
                Value::Tensor(t) => Arc::clone(t),
                other => {
                    return Err(Error::wrong_type(
                        format!("the state's {known:?}"),
                        "a tensor",
                        other.type_name(),
                    ))
                }
            },
        };
        lock(o).set_state_of(k, known, v).map_err(Error::value)?;
        Ok(Value::None)
    }
}
