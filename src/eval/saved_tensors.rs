//! Saved tensors from the language: the hooks of `torch.autograd.graph`
//! (`saved_tensors_hooks`, `save_on_cpu`, `disable_saved_tensors_hooks`,
//! written in `stdlib/torch_autograd_graph.py` over the natives here), the
//! program's `pack` hook called right after the op that saved a tensor,
//! its `unpack` hook when backward needs the tensor, and a node's
//! `_saved_<name>` (autograd's `saved_hooks.rs` and `saved_names.rs`).

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::autograd::create_graph::{with_history, Source};
use crate::autograd::hook_list::HookFn;
use crate::autograd::node::{GraphFn, Node};
use crate::autograd::saved_hooks::{self, PackCell, Pair};
use crate::autograd::saved_names::SavedAttr;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::Tensor;

/// The natives `stdlib/torch_autograd_graph.py` calls.
pub const NAMES: [&str; 3] = [
    "_cudash.saved_hooks_push",
    "_cudash.saved_hooks_pop",
    "_cudash.saved_hooks_disable",
];

/// A value of the program's, as autograd keeps it (a hook, what `pack` returned).
fn held(v: Value) -> HookFn {
    Arc::new(v)
}

fn value(h: &HookFn) -> Value {
    h.downcast_ref::<Value>()
        .cloned()
        .unwrap_or_else(|| unreachable!("saved-tensor hooks hold the session's values"))
}

/// Python's name for a value's type, for PyTorch's messages (a hook's result).
pub(super) fn python_type(v: &Value) -> String {
    match v {
        Value::Int(_) => "int".into(),
        Value::Float(_) => "float".into(),
        Value::Bool(_) => "bool".into(),
        Value::Str(_) => "str".into(),
        Value::None => "NoneType".into(),
        Value::List(_) => "tuple".into(),
        Value::MutList(_) => "list".into(),
        Value::Dict(_) => "dict".into(),
        Value::Object(o) => o.class.name.to_string(),
        other => other.type_name().to_string(),
    }
}

impl Interp {
    pub(super) fn call_saved_hooks(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let mut args = args.into_iter().map(|a| a.value);
        match name {
            "_cudash.saved_hooks_push" => {
                let (Some(pack), Some(unpack)) = (args.next(), args.next()) else {
                    return Err(
                        Error::value("saved_tensors_hooks(pack_hook, unpack_hook)").at(span)
                    );
                };
                let pair = Pair {
                    pack: held(pack),
                    unpack: held(unpack),
                };
                saved_hooks::push(pair).map_err(|e| e.at(span))?;
                Ok(Value::None)
            }
            "_cudash.saved_hooks_pop" => {
                saved_hooks::pop();
                Ok(Value::None)
            }
            // The message in force before, to restore on exit.
            _ => {
                let message = match args.next() {
                    Some(Value::Str(s)) => Some(s.to_string()),
                    _ => None,
                };
                Ok(saved_hooks::set_disabled(message)
                    .map_or(Value::None, |m| Value::Str(Arc::new(m))))
            }
        }
    }

    /// `v`, the result of an op at `span`, once what it saved under the
    /// program's hooks is packed (one test of a flag when nothing is).
    #[inline(always)]
    pub(crate) fn packed_after(
        &mut self,
        v: Result<Value, Diagnostic>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        // An op on dual tensors that computed no tangent (forward-mode AD):
        // refused here, rather than give a result without one.
        // (A result without float tensors, as `argmax`'s, has no tangent to lose.)
        if crate::autograd::forward_ad::take_unhandled()
            && v.as_ref().is_ok_and(|v| {
                v.any_inside(&mut |x| matches!(x, Value::Tensor(t) if t.dtype().is_float()))
            })
        {
            saved_hooks::take_pending();
            return Err(crate::autograd::forward_ad::unsupported().at(span));
        }
        if !saved_hooks::has_pending() {
            return v;
        }
        let packed = self.pack_saved(span);
        let v = v?;
        packed.map(|()| v)
    }

    /// The tensors saved under hooks by the op that just returned (at
    /// `span`), each given to its `pack` hook in the order they were saved,
    /// with grad off (PyTorch's `NoGradGuard`). A hook that raises, or
    /// changes its tensor in place, makes the op raise.
    #[inline(never)]
    pub(crate) fn pack_saved(&mut self, span: Span) -> Result<(), Diagnostic> {
        let mut failed = None;
        if saved_hooks::take_inference_saved() {
            failed = Some(saved_hooks::inference_saved_refused().at(span));
        }
        for cell in saved_hooks::take_pending() {
            if failed.is_some() {
                cell.failed();
                continue;
            }
            let Some((tensor, pack)) = cell.to_pack() else {
                continue;
            };
            let version = tensor.version();
            let off = crate::autograd::Mode {
                enabled: false,
                ..self.grad
            };
            let mode = std::mem::replace(&mut self.grad, off);
            let arg = ArgVal::positional(Value::Tensor(Arc::clone(&tensor)), span);
            let r = self.call_value(value(&pack), vec![arg], span);
            self.grad = mode;
            match r {
                Ok(_) if tensor.version() != version => {
                    cell.failed();
                    failed = Some(
                        Error::Module {
                            class: "RuntimeError",
                            message: "A saved tensor pack hook is modifying its input in place. \
                                      Tensors provided as input to pack hook cannot be modified \
                                      by in-place operations as this can lead to unexpected \
                                      side-effects. Please open an issue if you need to perform \
                                      in-place operations on the input to a pack hook."
                                .into(),
                            help: Some(
                                "return a changed copy instead (`x * 4`, not `x.mul_(4)`)".into(),
                            ),
                        }
                        .at(span),
                    );
                }
                Ok(v) => cell.packed(held(v)),
                Err(d) => {
                    cell.failed();
                    failed = Some(d);
                }
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// `unpack(packed)`: the tensor back, recording when `recording`.
    fn unpack_cell(
        &mut self,
        cell: &PackCell,
        recording: bool,
        span: Span,
    ) -> Result<Arc<Tensor>, Error> {
        let (packed, unpack) = cell.to_unpack()?;
        let unpack = value(&unpack);
        // Called by backward, no line of the program's calls it: shown as
        // called where the hook is defined, as backward's other hooks are.
        let span = match (&unpack, span == Span::default()) {
            (Value::Function(f), true) => f.def.name.span,
            _ => span,
        };
        let mode = crate::autograd::Mode {
            enabled: recording,
            ..self.grad
        };
        let saved = std::mem::replace(&mut self.grad, mode);
        let r = self.call_value(unpack, vec![ArgVal::positional(value(&packed), span)], span);
        self.grad = saved;
        match r.map_err(|d| Error::Located(Box::new(d)))? {
            Value::Tensor(t) => Ok(t),
            other => Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}",
                    python_type(&other)
                ),
                help: Some("the unpack hook returns the tensor its pack hook saved".into()),
            }),
        }
    }

    /// Backward's call of `unpack` (the engine's `Host`): as PyTorch's
    /// engine runs it, recording only when the backward creates a graph.
    pub(super) fn unpack_for_backward(
        &mut self,
        cell: &PackCell,
        mode: crate::autograd::Mode,
    ) -> Result<Arc<Tensor>, Error> {
        let off = self.grad.without_autocast();
        let outer = std::mem::replace(&mut self.grad, off);
        let r = self.unpack_cell(cell, mode.enabled, Span::default());
        self.grad = outer;
        r
    }

    /// `grad_fn._saved_<name>`: what the node saved, as PyTorch gives it
    /// back (an input as the same variable; its own output as a new tensor
    /// whose `grad_fn` is the node; under hooks what `unpack` returns,
    /// given the history it had).
    pub(super) fn saved_attr(
        &mut self,
        f: &Arc<GraphFn>,
        name: &str,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let missing = || {
            Error::Module {
                class: "AttributeError",
                message: format!("'{}' object has no attribute '{name}'", f.name()),
                help: None,
            }
            .at(span)
        };
        if let Some(field) = name.strip_prefix("_raw_saved_") {
            return Err(Error::Module {
                class: "NotImplementedError",
                message: format!(
                    "cudash does not give a saved tensor's SavedTensor object (`{name}`) to \
                     register hooks on one tensor"
                ),
                help: Some(format!(
                    "`grad_fn._saved_{field}` reads it; `torch.autograd.graph.saved_tensors_hooks` \
                     sets hooks for every tensor saved inside it"
                )),
            }
            .at(span));
        }
        let (GraphFn::Node(node), Some(field)) = (&**f, name.strip_prefix("_saved_")) else {
            return Err(missing());
        };
        let attr = node.saved_attr(field).map_err(|e| e.at(span))?;
        let t = match attr.ok_or_else(missing)? {
            SavedAttr::Unset => return Ok(Value::None),
            SavedAttr::Number(x) if x.fract() == 0.0 && x.abs() < 1e15 => {
                return Ok(Value::Int(x as i64))
            }
            SavedAttr::Number(x) => return Ok(Value::float(x)),
            SavedAttr::Held {
                tensor,
                record: Some(record),
                source: Source::Input(_),
            } => Arc::new(crate::autograd::variable::with_record(&tensor, record)),
            SavedAttr::Held { tensor, source, .. } => with_history(&tensor, node, source),
            SavedAttr::Hooked { cell, source } => {
                let recording = self.grad.enabled;
                let t = self
                    .unpack_cell(&cell, recording, span)
                    .map_err(|e| e.at(span))?;
                history(&t, node, source)
            }
        };
        Ok(Value::Tensor(t))
    }
}

/// What `unpack` gave, with the history of what was saved (PyTorch's
/// `make_variable` with the saved variable's edge): none when nothing
/// there needs a gradient, and then the tensor itself.
fn history(t: &Arc<Tensor>, node: &Arc<Node>, source: Source) -> Arc<Tensor> {
    let plain = match source {
        Source::Input(k) => !node.wants(k),
        Source::Output(_) => false,
    };
    match plain {
        true => Arc::clone(t),
        false => with_history(t, node, source),
    }
}
