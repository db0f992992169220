//! Backward hooks from the language: `x.register_hook(f)`,
//! `p.register_post_accumulate_grad_hook(f)`, `h.remove()`, and the
//! interpreter as the engine's [`Host`], calling the hooks' functions
//! while backward runs (autograd's `hooks.rs` has what they do).

use std::sync::Arc;

use super::args::{ArgVal, Bound};
use super::{Interp, Value};
use crate::autograd::callbacks;
use crate::autograd::hooks::{self, Handle, HookFn, Host};
use crate::error::{Diagnostic, Error};
use crate::runtime::dispatch::Runtime;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// `x.register_hook(hook)` and `x.register_post_accumulate_grad_hook(hook)`:
/// `hook` a function of one parameter.
pub(super) fn register_hook(_: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let what = match name {
        "register_hook" => "a hook takes one argument (the gradient)",
        _ => "a hook takes one argument (the gradient's parameter)",
    };
    let f = function_arg(b, ("hook", "a hook"), (1, what), "fn hook(g) { ... }")?;
    let handle = match name {
        "register_hook" => hooks::register(t, f),
        _ => hooks::register_post_accumulate(t, f),
    }
    .map_err(|e| e.at(b.span))?;
    Ok(Value::HookHandle(Arc::new(handle)))
}

/// `grad_fn.register_hook(hook)`: `hook(grad_inputs, grad_outputs)` once
/// the node has run; `grad_fn.register_prehook(hook)`:
/// `hook(grad_outputs)` before. Either may give new gradients (a tuple of
/// as many), as PyTorch's `Node` hooks.
pub(super) fn register_node_hook(
    _: &mut Interp,
    name: &'static str,
    f: &Arc<crate::autograd::node::GraphFn>,
    b: &Bound,
) -> Out {
    let (params, rule, example) = match name {
        "register_prehook" => (
            1,
            "a node's pre-hook takes one argument (the gradients of its outputs)",
            "fn hook(grad_outputs) { ... }",
        ),
        _ => (
            2,
            "a node's hook takes two arguments (the gradients of its inputs, of its outputs)",
            "fn hook(grad_inputs, grad_outputs) { ... }",
        ),
    };
    let hook = function_arg(b, ("hook", "a hook"), (params, rule), example)?;
    match &**f {
        crate::autograd::node::GraphFn::Node(node) => {
            let handle = hooks::register_on_node(node, hook, name == "register_prehook");
            Ok(Value::HookHandle(Arc::new(handle)))
        }
        crate::autograd::node::GraphFn::Accumulate(_) => Err(Error::value_help(
            format!("cudash has no `{name}` on AccumulateGrad"),
            "register the hook on the leaf tensor itself: `w.register_hook(f)`",
        )
        .at(b.span)),
    }
}

/// `queue_callback(callback)`: `callback()` at the end of the running
/// backward (autograd's `callbacks.rs`).
pub(super) fn queue_callback(_: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let what = "a final callback takes no arguments";
    let f = function_arg(
        b,
        ("callback", "a callback"),
        (0, what),
        "fn done() { ... }",
    )?;
    callbacks::queue(callbacks::Callback::Hook(f)).map_err(|e| e.at(b.span))?;
    Ok(Value::None)
}

/// The function argument `arg` (called `noun` in messages), which must
/// take `params` parameters (`rule` says so when it does not; `example`
/// shows how to define one).
fn function_arg(
    b: &Bound,
    (arg, noun): (&str, &str),
    (params, rule): (usize, &str),
    example: &str,
) -> Result<HookFn, Diagnostic> {
    let (v, span) = b.get(arg).ok_or_else(|| {
        Error::value(format!("internal error: `{arg}` is a required argument")).at(b.span)
    })?;
    match v {
        Value::Function(f) if f.def.params.len() == params => Ok(Arc::clone(f) as HookFn),
        Value::Function(f) => Err(Error::value_help(
            format!("{rule}, but `{}` takes {}", f.name(), f.def.params.len()),
            format!("define it so: `{example}`"),
        )
        .at(*span)),
        other => Err(Error::wrong_type(noun, "a function (`fn`)", other.type_name()).at(*span)),
    }
}

/// `h.remove()`.
pub(super) fn remove(_: &mut Interp, _: &'static str, h: &Arc<Handle>, _: &Bound) -> Out {
    h.remove();
    Ok(Value::None)
}

/// The function a hook holds (hooks are registered from the language only).
fn function(f: &HookFn) -> Arc<super::value::Function> {
    Arc::clone(f)
        .downcast::<super::value::Function>()
        .unwrap_or_else(|_| unreachable!("a hook is a function of the session"))
}

impl Interp {
    /// `f(arg)` as backward calls a hook: nothing recorded unless the
    /// backward creates a graph (`recording`: PyTorch's engine runs in grad
    /// mode only then); an error raised in its body ends the backward,
    /// shown where it was raised.
    fn call_hook(
        &mut self,
        f: &Arc<super::value::Function>,
        arg: Option<Value>,
        recording: bool,
    ) -> Result<Value, Error> {
        self.call_hook_with(f, arg.into_iter().collect(), recording)
    }

    fn call_hook_with(
        &mut self,
        f: &Arc<super::value::Function>,
        args: Vec<Value>,
        recording: bool,
    ) -> Result<Value, Error> {
        let span = f.def.name.span;
        let args = args.into_iter().map(|value| ArgVal {
            keyword: None,
            value,
            span,
        });
        // Backward's hooks run as PyTorch's engine runs them: no autocast,
        // and recording only when creating a graph.
        let off = crate::autograd::Mode {
            enabled: recording,
            ..self.grad.without_autocast()
        };
        let mode = std::mem::replace(&mut self.grad, off);
        let r = self.call_function(Arc::clone(f), args.collect(), span);
        self.grad = mode;
        r.map_err(|d| Error::Located(Box::new(d)))
    }
}

impl Host for Interp {
    fn runtime(&mut self) -> &mut Runtime {
        &mut self.rt
    }

    fn warn(&mut self, message: String) {
        self.warn_once(message);
    }

    fn tensor_hook(
        &mut self,
        f: &HookFn,
        grad: &Arc<Tensor>,
        mode: crate::autograd::Mode,
    ) -> Result<Option<Arc<Tensor>>, Error> {
        let f = function(f);
        match self.call_hook(&f, Some(Value::Tensor(Arc::clone(grad))), mode.enabled)? {
            Value::None => Ok(None),
            Value::Tensor(t) => {
                hooks::check_result(grad, &t, f.name())?;
                Ok(Some(t))
            }
            other => Err(Error::Call {
                message: format!(
                    "expected Variable, but hook returned '{}'",
                    super::saved_tensors::python_type(&other)
                ),
                signature: format!("fn {}(g) {{ return a tensor like g, or none }}", f.name()),
            }),
        }
    }

    fn node_hook(
        &mut self,
        f: &HookFn,
        grad_inputs: Option<&[Option<Arc<Tensor>>]>,
        grad_outputs: &[Option<Arc<Tensor>>],
        mode: crate::autograd::Mode,
    ) -> Result<Option<hooks::Grads>, Error> {
        let f = function(f);
        let tuple = |grads: &[Option<Arc<Tensor>>]| {
            Value::List(Arc::new(
                grads
                    .iter()
                    .map(|g| {
                        g.as_ref()
                            .map_or(Value::None, |g| Value::Tensor(Arc::clone(g)))
                    })
                    .collect(),
            ))
        };
        let args = match grad_inputs {
            Some(inputs) => vec![tuple(inputs), tuple(grad_outputs)],
            None => vec![tuple(grad_outputs)],
        };
        let given = grad_inputs.unwrap_or(grad_outputs);
        let r = self.call_hook_with(&f, args, mode.enabled)?;
        if matches!(r, Value::None) {
            return Ok(None);
        }
        let items = match &r {
            Value::List(_) | Value::MutList(_) => {
                r.items().map(|items| items.to_vec()).unwrap_or_default()
            }
            Value::Tensor(_) => vec![r.clone()],
            other => {
                return Err(Error::type_error(format!(
                    "hook '{}' returned {}: a node's hook returns none or a tuple of gradients",
                    f.name(),
                    super::saved_tensors::python_type(other)
                )))
            }
        };
        if items.len() != given.len() {
            return Err(Error::runtime(format!(
                "hook '{}' has returned an incorrect number of values (got {}, but expected {})",
                f.name(),
                items.len(),
                given.len()
            )));
        }
        let mut out = Vec::with_capacity(items.len());
        for (item, old) in items.iter().zip(given) {
            out.push(match (item, old) {
                (Value::None, _) => None,
                (Value::Tensor(t), Some(old)) => {
                    hooks::check_result(old, t, f.name())?;
                    Some(Arc::clone(t))
                }
                (Value::Tensor(t), None) => Some(Arc::clone(t)),
                (other, _) => {
                    return Err(Error::type_error(format!(
                        "hook '{}' returned a tuple holding {}: gradients are tensors or none",
                        f.name(),
                        super::saved_tensors::python_type(other)
                    )))
                }
            });
        }
        Ok(Some(out))
    }

    fn post_accumulate_hook(&mut self, f: &HookFn, param: &Arc<Tensor>) -> Result<(), Error> {
        let f = function(f);
        self.call_hook(&f, Some(Value::Tensor(Arc::clone(param))), false)?;
        Ok(())
    }

    fn final_callback(&mut self, f: &HookFn) -> Result<(), Error> {
        self.call_hook(&function(f), None, false)?;
        Ok(())
    }

    fn custom_backward(
        &mut self,
        f: &HookFn,
        grads: &[Option<Arc<Tensor>>],
        node: (&Arc<crate::autograd::node::Node>, crate::autograd::Mode),
    ) -> Result<Vec<Option<Arc<Tensor>>>, Error> {
        self.custom_backward_of(f, grads, node)
    }

    fn unpack_saved(
        &mut self,
        cell: &crate::autograd::saved_hooks::PackCell,
        mode: crate::autograd::Mode,
    ) -> Result<Arc<Tensor>, Error> {
        self.unpack_for_backward(cell, mode)
    }
}
