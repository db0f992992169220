//! `torch.autograd.Function` of the program's: a class with a static
//! `forward(ctx, *args)` and `backward(ctx, *grads)`, called through
//! `MyFunction.apply(*args)`, as PyTorch's "Defining new autograd
//! functions" writes it. `forward` runs without recording; its outputs
//! become the outputs of one node, `MyFunctionBackward`, whose inputs are
//! the tensor arguments; backward calls the program's `backward` with the
//! same `ctx` (what `ctx.save_for_backward` kept is `ctx.saved_tensors`),
//! and frees the node's `ctx` once it ran, as any node's saved tensors.

use std::sync::{Arc, Mutex};

use super::args::ArgVal;
use super::value::{Class, Object};
use super::{Interp, Value};
use crate::autograd::create_graph::{with_history, Source};
use crate::autograd::forward_ad;
use crate::autograd::hook_list::HookFn;
use crate::autograd::meta::requires_grad;
use crate::autograd::saved_hooks::{self, PackCell};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::lock::lock;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

/// What a node of a program's Function keeps: its `backward`, the `ctx`,
/// how many arguments `forward` took, and which of them are the node's
/// inputs (the tensors).
struct CustomCall {
    class: String,
    backward: Value,
    ctx: Arc<Object>,
    arguments: usize,
    tensors: Vec<usize>,
    /// Which input or output of the node each of `ctx.saved_tensors` is
    /// (none: another tensor), so that a backward that creates a graph
    /// reads them with their history, as PyTorch's saved variables.
    saved: Vec<Option<Source>>,
    /// Under saved-tensor hooks, each of `ctx.saved_tensors` as its `pack`
    /// hook kept it (the ctx then holds None in its place).
    packed: Vec<Option<Arc<PackCell>>>,
    /// The outputs' shapes, dtypes and devices: zeros of them stand for a
    /// gradient that never came (`ctx.set_materialize_grads`, on unless
    /// the program turns it off), as PyTorch gives `backward`.
    outputs: Vec<(Vec<usize>, crate::runtime::DType, crate::runtime::Device)>,
    materialize: bool,
}

/// `ctx.mark_non_differentiable(*outputs)`: those outputs of `forward`
/// get no history (they do not require grad; their gradient in `backward`
/// is zeros, or None without materialising). `ctx.set_materialize_grads(v)`.
pub(super) fn ctx_setting(
    ctx: &Object,
    name: &str,
    args: Vec<ArgVal>,
) -> Result<Value, Diagnostic> {
    match name {
        "set_materialize_grads" => {
            let on = match args.first().map(|a| &a.value) {
                Some(Value::Bool(b)) => b.get(),
                None => true,
                Some(other) => {
                    return Err(Error::wrong_type(
                        "set_materialize_grads's value",
                        "True or False",
                        other.type_name(),
                    )
                    .at(args[0].span))
                }
            };
            ctx.set("_materialize_grads", Value::bool(on));
        }
        _ => {
            let mut marked: Vec<Value> = ctx
                .get("_non_differentiable")
                .and_then(|v| v.items())
                .map(|items| items.to_vec())
                .unwrap_or_default();
            for a in args {
                match a.value {
                    Value::Tensor(t) => marked.push(Value::Tensor(t)),
                    other => {
                        return Err(Error::type_error(format!(
                            "mark_non_differentiable only accepts tensors, got {}",
                            super::format::python_type(&other)
                        ))
                        .at(a.span))
                    }
                }
            }
            ctx.set("_non_differentiable", Value::List(Arc::new(marked)));
        }
    }
    Ok(Value::None)
}

/// Which of `inputs` (else of `outputs`) `t` is: the same elements of the
/// same memory.
fn source_of(t: &Tensor, inputs: &[Arc<Tensor>], outputs: &[Arc<Tensor>]) -> Option<Source> {
    let same = |o: &Arc<Tensor>| {
        t.shares_storage(o)
            && t.offset() == o.offset()
            && t.shape() == o.shape()
            && t.strides() == o.strides()
    };
    let input = inputs.iter().position(same).map(Source::Input);
    input.or_else(|| outputs.iter().position(same).map(Source::Output))
}

/// `MyFunctionBackward`, as PyTorch names the node: one name per class,
/// kept for the process (nodes name themselves with a `&'static str`).
fn node_name(class: &str) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let name = format!("{class}Backward");
    let mut names = lock(&NAMES);
    if let Some(n) = names.iter().find(|n| **n == name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    names.push(leaked);
    leaked
}

/// A static method of the class (`@staticmethod def forward(ctx, x):`).
fn static_method(class: &Class, name: &str, span: Span) -> Result<Value, Diagnostic> {
    match class.find(name) {
        Some(Value::Decorated(d)) => match &*d {
            super::value::Decorated::Static(f) => Ok(f.clone()),
            _ => Err(not_static(class, name, span)),
        },
        Some(f @ Value::Function(_)) => Ok(f),
        _ => Err(Error::Module {
            class: "NotImplementedError",
            message: format!(
                "You must implement the {name} function for custom autograd.Function."
            ),
            help: Some(format!(
                "give `{}` a `@staticmethod def {name}(ctx, ...)`",
                class.name
            )),
        }
        .at(span)),
    }
}

fn not_static(class: &Class, name: &str, span: Span) -> Diagnostic {
    Error::value_help(
        format!("`{}.{name}` must be a @staticmethod", class.name),
        format!("write `@staticmethod` above `def {name}(ctx, ...)`"),
    )
    .at(span)
}

impl Interp {
    /// `MyFunction.apply(*args)`; in forward-mode AD, with the outputs'
    /// tangents from the class's `jvp(ctx, *tangents)` (PyTorch's
    /// `_process_forward_mode_AD`: `forward` runs with tangents off).
    pub(super) fn apply_function(
        &mut self,
        class: &Arc<Class>,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let tangents: Vec<Value> = args
            .iter()
            .map(|a| match &a.value {
                Value::Tensor(t) => forward_ad::tangent(t).map_or(Value::None, Value::Tensor),
                _ => Value::None,
            })
            .collect();
        let dual = forward_ad::active() && tangents.iter().any(|t| !matches!(t, Value::None));
        let ctx = Arc::new(Object::new(super::value::function_ctx_class()));
        let out = forward_ad::suspended(|| self.apply_recorded(class, args, &ctx, span))?;
        if !dual {
            return Ok(out);
        }
        let jvp = static_method(class, "jvp", span).map_err(|_| {
            Error::Module {
                class: "NotImplementedError",
                message: "You must implement the jvp function for custom autograd.Function to use \
                          it with forward mode AD."
                    .into(),
                help: Some(format!(
                    "give `{}` a `@staticmethod def jvp(ctx, *tangents)` returning the outputs' \
                     tangents",
                    class.name
                )),
            }
            .at(span)
        })?;
        let mut call = vec![ArgVal::positional(Value::Object(Arc::clone(&ctx)), span)];
        call.extend(tangents.into_iter().map(|t| ArgVal::positional(t, span)));
        let given = self.call_value(jvp, call, span)?;
        let given: Vec<Value> = match &given {
            Value::Tensor(_) | Value::None => vec![given.clone()],
            v => v.items().map_or_else(|| vec![v.clone()], |i| i.to_vec()),
        };
        let carry = |out: &Arc<Tensor>, t: Option<&Value>| -> Result<Arc<Tensor>, Diagnostic> {
            match t {
                Some(Value::Tensor(t)) if t.shape() == out.shape() => {
                    Ok(forward_ad::give(Arc::clone(out), Arc::clone(t)))
                }
                Some(Value::None) | None => Ok(Arc::clone(out)),
                Some(other) => Err(Error::value(format!(
                    "jvp of {} gave {} for an output of shape {}: each output's tangent is a \
                     tensor of its shape, or None",
                    class.name,
                    match other {
                        Value::Tensor(t) => format!("a tensor of shape {}", fmt_shape(t.shape())),
                        v => v.type_name().to_string(),
                    },
                    fmt_shape(out.shape())
                ))
                .at(span)),
            }
        };
        match out {
            Value::Tensor(o) => Ok(Value::Tensor(carry(&o, given.first())?)),
            v => {
                let items = v.items().unwrap_or_default();
                let mut with = Vec::with_capacity(items.len());
                for (k, item) in items.iter().enumerate() {
                    with.push(match item {
                        Value::Tensor(o) => Value::Tensor(carry(o, given.get(k))?),
                        other => other.clone(),
                    });
                }
                Ok(Value::List(Arc::new(with)))
            }
        }
    }

    /// `apply` with `ctx` made: `forward` run, its outputs recorded as one
    /// node when an input requires grad.
    fn apply_recorded(
        &mut self,
        class: &Arc<Class>,
        args: Vec<ArgVal>,
        ctx: &Arc<Object>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let forward = static_method(class, "forward", span)?;
        let ctx = Arc::clone(ctx);
        let tensors: Vec<usize> = (0..args.len())
            .filter(|&k| matches!(args[k].value, Value::Tensor(_)))
            .collect();
        let needs: Vec<Value> = args
            .iter()
            .map(|a| Value::bool(matches!(&a.value, Value::Tensor(t) if requires_grad(t))))
            .collect();
        ctx.set("needs_input_grad", Value::List(Arc::new(needs)));
        let inputs: Vec<Arc<Tensor>> = tensors
            .iter()
            .filter_map(|&k| match &args[k].value {
                Value::Tensor(t) => Some(Arc::clone(t)),
                _ => None,
            })
            .collect();
        let arguments = args.len();
        let mut call = vec![ArgVal::positional(Value::Object(Arc::clone(&ctx)), span)];
        call.extend(args);
        // `forward` records nothing: its outputs are the node's.
        let recording = self.grad.enabled;
        self.grad.enabled = false;
        let out = self.call_value(forward, call, span);
        self.grad.enabled = recording;
        let out = out?;
        if !recording || !inputs.iter().any(|t| requires_grad(t)) {
            return Ok(out);
        }
        // The node keeps what `ctx.save_for_backward` kept: no inference tensor.
        let saves_inference = ctx
            .get("saved_tensors")
            .and_then(|l| l.items())
            .is_some_and(|l| {
                l.iter()
                    .any(|v| matches!(v, Value::Tensor(t) if t.is_inference()))
            });
        if saves_inference {
            return Err(saved_hooks::inference_saved_refused().at(span));
        }
        let (outputs, single) = match &out {
            Value::Tensor(t) => (vec![Arc::clone(t)], true),
            v => match v.items() {
                Some(items) if items.iter().all(|x| matches!(x, Value::Tensor(_))) => (
                    items
                        .iter()
                        .filter_map(|x| match x {
                            Value::Tensor(t) => Some(Arc::clone(t)),
                            _ => None,
                        })
                        .collect(),
                    false,
                ),
                _ => {
                    return Err(Error::wrong_type(
                        format!("what `{}.forward` returned", class.name),
                        "a tensor or a tuple of tensors",
                        v.type_name(),
                    )
                    .at(span))
                }
            },
        };
        // As PyTorch: a Function without `backward` (one written for
        // forward-mode AD) is refused when a backward reaches it.
        let backward = static_method(class, "backward", span).unwrap_or(Value::None);
        let saved = match ctx.get("saved_tensors") {
            Some(list) => list
                .items()
                .unwrap_or_default()
                .iter()
                .map(|v| match v {
                    Value::Tensor(t) => source_of(t, &inputs, &outputs),
                    _ => None,
                })
                .collect(),
            None => Vec::new(),
        };
        // The outputs `ctx.mark_non_differentiable` named: the same
        // elements of the same memory.
        let marked: Vec<Arc<Tensor>> = ctx
            .get("_non_differentiable")
            .and_then(|v| v.items())
            .unwrap_or_default()
            .iter()
            .filter_map(|v| match v {
                Value::Tensor(t) => Some(Arc::clone(t)),
                _ => None,
            })
            .collect();
        let non_differentiable: Vec<bool> = outputs
            .iter()
            .map(|o| source_of(o, &marked, &[]).is_some())
            .collect();
        let materialize =
            !matches!(ctx.get("_materialize_grads"), Some(Value::Bool(b)) if !b.get());
        let shapes = outputs
            .iter()
            .map(|o| (o.shape().to_vec(), o.dtype(), o.device()))
            .collect();
        // Under saved-tensor hooks the saved tensors go to `pack`, as
        // PyTorch packs a Function's saved variables: the node keeps what
        // `pack` returned, not the tensors.
        let mut packed = Vec::new();
        if let Some(list) = ctx.get("saved_tensors").and_then(|l| l.items()) {
            let cells: Vec<Option<Arc<PackCell>>> = list
                .iter()
                .map(|v| match v {
                    Value::Tensor(t) => saved_hooks::queue_saved(Arc::clone(t)),
                    _ => None,
                })
                .collect();
            if cells.iter().any(Option::is_some) {
                let kept = list
                    .iter()
                    .zip(&cells)
                    .map(|(v, c)| if c.is_some() { Value::None } else { v.clone() })
                    .collect();
                ctx.set("saved_tensors", Value::List(Arc::new(kept)));
                packed = cells;
            }
        }
        let custom: HookFn = Arc::new(CustomCall {
            class: class.name.clone(),
            backward,
            ctx,
            arguments,
            tensors,
            saved,
            packed,
            outputs: shapes,
            materialize,
        });
        let refs: Vec<&Tensor> = inputs.iter().map(|t| t.as_ref()).collect();
        let plain = outputs.clone();
        let mut outputs = crate::autograd::record::attach_custom(
            &self.rt,
            outputs,
            (node_name(&class.name), custom),
            &refs,
        );
        for (k, off) in non_differentiable.iter().enumerate() {
            if *off {
                outputs[k] = Arc::new(crate::autograd::meta::detached(&plain[k]));
            }
        }
        Ok(match single {
            true => Value::Tensor(Arc::clone(&outputs[0])),
            false => Value::List(Arc::new(outputs.into_iter().map(Value::Tensor).collect())),
        })
    }

    /// `ctx.save_for_backward(*tensors)`: kept as `ctx.saved_tensors` (each
    /// an alias that holds no autograd record: an output kept by its own
    /// node makes no cycle).
    pub(super) fn save_for_backward(
        &mut self,
        ctx: &Object,
        args: Vec<ArgVal>,
    ) -> Result<Value, Diagnostic> {
        let mut kept = Vec::with_capacity(args.len());
        for a in args {
            match a.value {
                Value::Tensor(t) => kept.push(Value::Tensor(Arc::new(t.alias()))),
                Value::None => kept.push(Value::None),
                other => {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!(
                        "save_for_backward can only save variables, but argument 0 is of type {}",
                        super::format::python_type(&other)
                    ),
                        help: Some("keep numbers as attributes of ctx instead: `ctx.k = k`".into()),
                    }
                    .at(a.span))
                }
            }
        }
        ctx.set("saved_tensors", Value::List(Arc::new(kept)));
        Ok(Value::None)
    }

    /// The program's `backward(ctx, *grads)` for the node: one gradient (or
    /// None) per argument of `forward`, the tensors' handed on.
    pub(super) fn custom_backward_of(
        &mut self,
        f: &HookFn,
        grads: &[Option<Arc<Tensor>>],
        (node, backward_mode): (&Arc<crate::autograd::node::Node>, crate::autograd::Mode),
    ) -> Result<Vec<Option<Arc<Tensor>>>, Error> {
        let call = Arc::clone(f)
            .downcast::<CustomCall>()
            .map_err(|_| Error::value("internal error: not a Function's backward"))?;
        if matches!(call.backward, Value::None) {
            return Err(Error::Module {
                class: "NotImplementedError",
                message: "You must implement either the backward or vjp method for your custom \
                          autograd.Function to use it with backward mode AD."
                    .into(),
                help: Some(format!(
                    "give `{}` a `@staticmethod def backward(ctx, *grads)`",
                    call.class
                )),
            });
        }
        let span = match &call.backward {
            Value::Function(f) => f.def.name.span,
            _ => Span::from(0..0),
        };
        let mut args = vec![ArgVal::positional(
            Value::Object(Arc::clone(&call.ctx)),
            span,
        )];
        // A gradient that never came is zeros of its output, as PyTorch
        // materialises it (unless `ctx.set_materialize_grads(False)`).
        for (k, g) in grads.iter().enumerate() {
            let g = match (g, call.materialize, call.outputs.get(k)) {
                (Some(g), _, _) => Value::Tensor(Arc::clone(g)),
                (None, true, Some((shape, dtype, device))) => Value::Tensor(
                    crate::autograd::ops::full(&mut self.rt, shape, *dtype, *device, 0)?,
                ),
                (None, _, _) => Value::None,
            };
            args.push(ArgVal::positional(g, span));
        }
        // As PyTorch's engine runs it: no autocast, and recording only in
        // a backward that creates a graph (then the gradients it returns
        // have a history, and can be differentiated again).
        let off = crate::autograd::Mode {
            enabled: backward_mode.enabled,
            ..self.grad.without_autocast()
        };
        // `ctx.saved_tensors` with their history for the call, as PyTorch
        // unpacks saved variables: an input that requires grad still does
        // in backward (a reentrant checkpoint recomputes from it), and a
        // backward that creates a graph differentiates through them.
        let kept = call.ctx.get("saved_tensors");
        if let Some(list) = &kept {
            let mut items = list.items().unwrap_or_default().to_vec();
            // What the program's `unpack` gives back for each packed one.
            for (item, cell) in items.iter_mut().zip(&call.packed) {
                if let Some(cell) = cell {
                    *item = Value::Tensor(self.unpack_for_backward(cell, backward_mode)?);
                }
            }
            let sources = call.saved.iter().chain(std::iter::repeat(&None));
            let unpacked = items
                .iter()
                .zip(sources)
                .map(|(v, source)| match (v, source) {
                    (Value::Tensor(t), Some(s)) => Value::Tensor(with_history(t, node, *s)),
                    (v, _) => v.clone(),
                })
                .collect();
            call.ctx
                .set("saved_tensors", Value::List(Arc::new(unpacked)));
        }
        let mode = std::mem::replace(&mut self.grad, off);
        let r = self.call_value(call.backward.clone(), args, span);
        self.grad = mode;
        if let Some(list) = kept {
            call.ctx.set("saved_tensors", list);
        }
        let r = r.map_err(|d| Error::Located(Box::new(d)))?;
        let mut returned = match &r {
            Value::List(items) => items.to_vec(),
            v => vec![v.clone()],
        };
        // PyTorch drops extra gradients when they are all None (a backward
        // written for forward's defaulted arguments too).
        if returned.len() > call.arguments
            && returned[call.arguments..]
                .iter()
                .all(|v| matches!(v, Value::None))
        {
            returned.truncate(call.arguments);
        }
        if returned.len() != call.arguments {
            return Err(Error::Autograd {
                message: format!(
                    "function {}Backward returned an incorrect number of gradients (expected {}, got {})",
                    call.class,
                    call.arguments,
                    returned.len()
                ),
                help: "backward returns one gradient (or None) per argument of forward".into(),
            });
        }
        call.tensors
            .iter()
            .map(|&k| match &returned[k] {
                Value::Tensor(t) => Ok(Some(Arc::clone(t))),
                Value::None => Ok(None),
                other => Err(Error::Autograd {
                    message: format!(
                        "function {}Backward returned a gradient different than None at position {}, but the corresponding forward input was not a Variable",
                        call.class,
                        k + 1
                    )
                    .replace(
                        "different than None",
                        &format!("of type {}", super::format::python_type(other)),
                    ),
                    help: "a gradient is a tensor of its input's shape, or None".into(),
                }),
            })
            .collect()
    }
}
