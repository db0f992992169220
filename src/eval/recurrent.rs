//! Calling a recurrent layer or cell (`lstm(x, (h0, c0))`): its arguments
//! read as PyTorch's `forward(input, hx=None)` reads them, its result as
//! PyTorch gives it (`output, (h_n, c_n)` for an LSTM, `output, h_n` for a
//! GRU or RNN; `(h, c)` or `h` for a cell).

use std::sync::Arc;

use super::args::{to_tensor, ArgVal};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::layers::Layer;
use crate::nn::recurrent::{self, Hidden};
use crate::nn::ModuleRef;
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

impl Interp {
    /// `rnn(input, hx=None)` of a built-in `LSTM`/`GRU`/`RNN` or cell.
    pub(crate) fn recurrent_forward(
        &mut self,
        m: &ModuleRef,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Out {
        let type_name = lock(m).type_name.clone();
        let mut input = None;
        let mut hx = None;
        for (k, a) in args.iter().enumerate() {
            let slot = match (a.keyword.as_ref().map(|n| n.name.as_str()), k) {
                (Some("input"), _) | (None, 0) => &mut input,
                (Some("hx"), _) | (None, 1) => &mut hx,
                (Some(other), _) => {
                    return Err(type_error(format!(
                        "{type_name}.forward() got an unexpected keyword argument '{other}'"
                    ))
                    .at(a.span))
                }
                (None, _) => {
                    return Err(type_error(format!(
                        "{type_name}.forward() takes from 2 to 3 positional arguments but {} were given",
                        args.len() + 1
                    ))
                    .at(a.span))
                }
            };
            if slot.is_some() {
                return Err(type_error(format!(
                    "{type_name}.forward() got multiple values for an argument"
                ))
                .at(a.span));
            }
            *slot = Some(a);
        }
        let Some(input) = input else {
            return Err(type_error(format!(
                "{type_name}.forward() missing 1 required positional argument: 'input'"
            ))
            .at(span));
        };
        let x = to_tensor(&input.value).ok_or_else(|| {
            Error::wrong_type(
                format!("the input of {type_name}"),
                "a tensor",
                input.value.type_name(),
            )
            .at(input.span)
        })?;
        let state = match hx {
            None => None,
            Some(a) => state(&a.value).map_err(|e| e.at(a.span))?,
        };
        self.begin_op("forward");
        let module = lock(m);
        let (rt, mode) = (&mut self.rt, self.grad);
        let r = match &module.layer {
            Layer::Recurrent(_) => recurrent::forward(rt, mode, &module, &x, state)
                .map(|(out, h)| Value::List(Arc::new(vec![Value::Tensor(out), state_value(h)]))),
            _ => recurrent::cell_forward(rt, mode, &module, &x, state).map(state_value),
        };
        drop(module);
        self.flush_notes();
        r.map_err(|e| e.at(span))
    }
}

/// `hx` as given: none, a tensor, or a pair of tensors (an LSTM's).
pub(super) fn state(v: &Value) -> Result<Option<Hidden>, Error> {
    if matches!(v, Value::None) {
        return Ok(None);
    }
    if let Value::Tensor(h) = v {
        return Ok(Some(Hidden {
            h: Arc::clone(h),
            c: None,
        }));
    }
    let items = match v {
        Value::List(items) => items.to_vec(),
        Value::MutList(items) => lock(items).to_vec(),
        other => {
            return Err(Error::wrong_type(
                "hx",
                "a tensor, or a tuple (h_0, c_0) of tensors",
                other.type_name(),
            ))
        }
    };
    let tensors: Vec<Arc<Tensor>> = items.iter().filter_map(to_tensor).collect();
    match tensors.as_slice() {
        [h, c] if items.len() == 2 => Ok(Some(Hidden {
            h: Arc::clone(h),
            c: Some(Arc::clone(c)),
        })),
        _ => Err(Error::value(format!(
            "hx is a tensor (a GRU's, an RNN's) or a tuple of two tensors (an LSTM's h_0, c_0), \
             not a tuple of {} item{}",
            items.len(),
            if items.len() == 1 { "" } else { "s" }
        ))),
    }
}

/// A state as the program gets it: `(h, c)` for an LSTM, else `h`.
pub(super) fn state_value(h: Hidden) -> Value {
    match h.c {
        Some(c) => Value::List(Arc::new(vec![Value::Tensor(h.h), Value::Tensor(c)])),
        None => Value::Tensor(h.h),
    }
}

fn type_error(message: String) -> Error {
    Error::type_error(message)
}
