//! A module's attributes and methods, as PyTorch's `nn.Module` has them:
//! reading `model.fc1` finds the instance's own attributes, then its
//! class's methods, then the registered parameters, buffers and children
//! (PyTorch's `__getattr__`); assigning registers a `Parameter`, a module
//! or a buffer (its `__setattr__`); calling the module runs `forward`.

use crate::eval::value::PyDict;
use std::sync::Arc;

use super::super::args::{to_tensor, ArgVal, Bound};
use super::super::class::no_attribute;
use super::super::value::{class_of, object_of, Key};
use super::super::{Interp, Value};
use crate::autograd::meta;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::layers::Layer;
use crate::nn::module::{self, Member};
use crate::nn::ModuleRef;
use crate::runtime::lock::lock;
use crate::runtime::memory_format::MemoryFormat;
use crate::runtime::op::factory::Fill;
use crate::runtime::{DType, Device, Tensor};

type Out = Result<Value, Diagnostic>;

/// PyTorch's name of a tensor's type in its messages (`torch.FloatTensor`).
fn torch_type(v: &Value) -> String {
    match v {
        Value::Tensor(t) => t.dtype().torch_type(t.device().is_cuda()),
        Value::Int(_) => "int".into(),
        Value::Float(_) => "float".into(),
        Value::Bool(_) => "bool".into(),
        Value::Str(_) => "str".into(),
        other => other.kind().to_string(),
    }
}

/// The function `model.forward = f` set on the instance, if any.
fn forward_override(m: &ModuleRef) -> Option<Value> {
    let f = lock(m).forward_override.clone()?;
    f.downcast_ref::<Value>().cloned()
}

fn type_error(message: String) -> Error {
    Error::type_error(message)
}

impl Interp {
    /// `model.name`.
    pub(crate) fn module_attr(&mut self, v: &Value, m: &ModuleRef, name: &str, span: Span) -> Out {
        if name == "forward" {
            if let Some(f) = forward_override(m) {
                return Ok(f);
            }
        }
        if let Some(o) = object_of(m) {
            if let Some(x) = o.get(name) {
                return Ok(x);
            }
            if let Some(x) = o.class.find(name) {
                return self.class_attribute(v, &o.class, x, span);
            }
        }
        let module = lock(m);
        // A registered name first (the common case: `self.fc1`); a
        // parametrized or plain one is never registered too.
        if let Some(member) = module.member(name) {
            return Ok(match member {
                Member::Parameter(t) | Member::Buffer(t) => t.map_or(Value::None, Value::Tensor),
                Member::Module(c) => c.map_or(Value::None, Value::Module),
            });
        }
        if let Some(t) = module.plain(name) {
            return Ok(Value::Tensor(t));
        }
        // PyTorch's own tables of the module's members, in registration
        // order (`None` where one was registered empty): read as a dict
        // made now (PyTorch 2's are plain dicts); `m._parameters[k] = p` and `del
        // m._modules[k]` go to the module (`stmt.rs`, `context.rs`).
        if let Some(items) = match name {
            "_parameters" => Some(
                module
                    .parameters
                    .iter()
                    .map(|(n, p)| (n.clone(), p.clone().map_or(Value::None, Value::Tensor)))
                    .collect::<Vec<_>>(),
            ),
            "_buffers" => Some(
                module
                    .buffers
                    .iter()
                    .map(|b| {
                        let t = b.tensor.clone().map_or(Value::None, Value::Tensor);
                        (b.name.clone(), t)
                    })
                    .collect(),
            ),
            "_modules" => Some(
                module
                    .modules
                    .iter()
                    .map(|(n, c)| (n.clone(), c.clone().map_or(Value::None, Value::Module)))
                    .collect(),
            ),
            _ => None,
        } {
            let items = items.into_iter().map(|(k, v)| (Key::Str(k), v)).collect();
            return Ok(Value::Dict(PyDict::new(items)));
        }
        if name == "_is_full_backward_hook" {
            return Ok(module.full_backward_hook.map_or(Value::None, Value::bool));
        }
        if let Some(hooks) = match name {
            "_forward_pre_hooks" => Some(&module.forward_pre_hooks),
            "_forward_hooks" => Some(&module.forward_hooks),
            "_backward_hooks" => Some(&module.backward_hooks),
            "_backward_pre_hooks" => Some(&module.backward_pre_hooks),
            _ => None,
        } {
            // PyTorch's OrderedDict of each hook by its handle's number (a
            // copy here: a handle's `remove()` takes a hook off).
            let items = hooks
                .list()
                .iter()
                .map(|h| (Key::Int(h.id() as i64), hook_value(&h.f)))
                .collect();
            return Ok(Value::Dict(PyDict::ordered(items)));
        }
        if module.is_parametrized(name) {
            drop(module);
            return self.parametrized_attr(m, name, span);
        }
        let setting = match (name, &module.layer) {
            ("training", _) => Some(Value::bool(module.training)),
            ("in_features", Layer::Linear { in_features, .. }) => {
                Some(Value::Int(*in_features as i64))
            }
            ("out_features", Layer::Linear { out_features, .. }) => {
                Some(Value::Int(*out_features as i64))
            }
            ("p", Layer::Dropout { p, .. }) => Some(Value::float(*p)),
            ("inplace", Layer::Dropout { inplace, .. }) => Some(Value::bool(*inplace)),
            ("dim", Layer::DataParallel { dim, .. }) => Some(Value::Int(*dim)),
            ("dim", Layer::Softmax { dim, .. }) => Some(dim.map_or(Value::None, Value::Int)),
            (
                "device_ids",
                Layer::DataParallel { device_ids, .. }
                | Layer::DistributedDataParallel { device_ids, .. },
            ) => Some(Value::list(
                device_ids.iter().map(|&d| Value::Int(d as i64)).collect(),
            )),
            ("output_device", Layer::DataParallel { output_device, .. }) => {
                Some(Value::Int(*output_device as i64))
            }
            (_, Layer::Recurrent(_) | Layer::RecurrentCell(_)) => {
                recurrent_setting(name, &module.layer)
            }
            (
                _,
                Layer::MultiheadAttention(_)
                | Layer::TransformerLayer { .. }
                | Layer::TransformerStack { .. }
                | Layer::Transformer { .. },
            ) => super::super::transformer::setting(name, &module.layer),
            _ => super::super::module_pickle::setting(&module, name),
        };
        if let Some(x) = setting {
            return Ok(x);
        }
        let type_name = module.type_name.clone();
        drop(module);
        // `getattr(model, "train")`, `f = model.eval`: the method bound to
        // the module, as Python's (cudash's own language says to call it).
        if let Some(d) = super::super::docs::member("module", name) {
            if self.python_program() {
                return Ok(Value::BuiltinMethod(std::sync::Arc::new((
                    v.clone(),
                    d.name,
                ))));
            }
        }
        if super::super::docs::member("module", name).is_some() {
            return Err(Error::value_help(
                format!("`.{name}` is a method"),
                format!("call it: `model.{name}()`"),
            )
            .at(span));
        }
        Err(no_attribute(&type_name, name, span))
    }

    /// `model.name = v`, as PyTorch's `Module.__setattr__`.
    pub(crate) fn set_module_attr(
        &mut self,
        m: &ModuleRef,
        name: &str,
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let at = |e: Error| e.at(span);
        if lock(m).is_parametrized(name) {
            return self.set_parametrized_attr(m, name, v, span);
        }
        let function = matches!(
            v,
            Value::Function(_) | Value::Method(_) | Value::BuiltinMethod(_) | Value::Native(_)
        );
        if name == "forward" && function {
            // An instance's own forward (`make_graphed_callables` sets one).
            lock(m).forward_override = Some(Arc::new(v));
            return Ok(());
        }
        let object = object_of(m);
        let mut module = lock(m);
        let member = module.member(name);
        match (&v, &member) {
            (Value::Tensor(t), _) if meta::is_parameter(t) => {
                module
                    .set_parameter(name, Some(Arc::clone(t)))
                    .map_err(at)?;
            }
            (Value::None, Some(Member::Parameter(_))) => {
                module.set_parameter(name, None).map_err(at)?
            }
            (_, Some(Member::Parameter(_))) => {
                return Err(at(type_error(format!(
                "cannot assign '{}' as parameter '{name}' (torch.nn.Parameter or None expected)",
                torch_type(&v)
            ))))
            }
            (Value::Module(child), _) => module
                .set_module(name, Some(Arc::clone(child)))
                .map_err(at)?,
            (Value::None, Some(Member::Module(_))) => module.set_module(name, None).map_err(at)?,
            (_, Some(Member::Module(_))) => {
                return Err(at(type_error(format!(
                "cannot assign '{}' as child module '{name}' (torch.nn.Module or None expected)",
                torch_type(&v)
            ))))
            }
            (Value::Tensor(t), Some(Member::Buffer(_))) => module
                .set_buffer(name, Some(Arc::clone(t)), None)
                .map_err(at)?,
            (Value::None, Some(Member::Buffer(_))) => {
                module.set_buffer(name, None, None).map_err(at)?
            }
            (_, Some(Member::Buffer(_))) => {
                return Err(at(type_error(format!(
                    "cannot assign '{}' as buffer '{name}' (torch.Tensor or None expected)",
                    torch_type(&v)
                ))))
            }
            // A norm layer's `momentum` (None: the cumulative average, as
            // `swa_utils.update_bn` sets it) and `eps`, read by its next call.
            (_, None)
                if matches!(module.layer, Layer::BatchNorm { .. })
                    && matches!(name, "momentum" | "eps") =>
            {
                let Layer::BatchNorm { momentum, eps, .. } = &mut module.layer else {
                    unreachable!("matched above")
                };
                match (name, &v, v.as_number()) {
                    ("momentum", Value::None, _) => *momentum = None,
                    ("momentum", _, Some(x)) => *momentum = Some(x),
                    ("eps", _, Some(x)) => *eps = x,
                    _ => {
                        return Err(at(Error::wrong_type(
                            format!("{}'s {name}", module.type_name),
                            "a number",
                            v.type_name(),
                        )))
                    }
                }
            }
            (_, None) if name == "training" => match v {
                Value::Bool(b) => module.training = b.get(),
                _ => {
                    return Err(at(Error::wrong_type(
                        "training",
                        "true or false",
                        v.type_name(),
                    )))
                }
            },
            // A tensor as a plain attribute of a layer (a class of the
            // program's own keeps it in its instance).
            (Value::Tensor(t), None)
                if object.is_none() || !matches!(module.layer, Layer::Custom) =>
            {
                module.set_plain(name, Arc::clone(t));
            }
            (_, None) => match &object {
                Some(o) => {
                    o.set(name, v);
                    return Ok(());
                }
                None => {
                    return Err(at(Error::Attribute {
                        message: format!(
                            "cannot set '{name}' on a built-in {} in cudash",
                            module.type_name
                        ),
                        help: Some(
                            "keep it in a class of your own: `class Net(Module) { ... }`".into(),
                        ),
                    }))
                }
            },
        }
        // A registered name is no plain attribute any more.
        if let Some(o) = object {
            o.remove(name);
        }
        Ok(())
    }

    /// `md["fc"] = m` of a ModuleDict, `seq[i] = m` of a Sequential or a
    /// ModuleList (an existing position).
    pub(crate) fn module_item_assign(
        &mut self,
        m: &ModuleRef,
        items: &[crate::lang::ast::IndexItem],
        value: super::super::stmt::Rhs,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let layer = lock(m).layer.clone();
        let key = match layer {
            Layer::ModuleDict | Layer::ParameterDict => self.group_key(items, span, 0)?,
            Layer::Sequential | Layer::ModuleList | Layer::ParameterList => {
                let [crate::lang::ast::IndexItem::At(k)] = items else {
                    return Err(Error::value(
                        "a module is assigned at one index, e.g. `seq[0] = m`",
                    )
                    .at(span));
                };
                let i = self.eval_int(k, 0, "an index")?;
                let names: Vec<String> = super::super::param_containers::entries(m)
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect();
                let j = super::super::expr::list_index(i, names.len()).map_err(|e| e.at(k.span))?;
                names[j].clone()
            }
            _ => {
                let name = lock(m).type_name.clone();
                return Err(type_error(format!(
                    "'{name}' object does not support item assignment"
                ))
                .at(span));
            }
        };
        let v = value.value(self)?;
        self.container_assign(m, &key, v, span)
    }

    /// `model(x)`: the forward pre-hooks, the class's `forward` (or the
    /// layer's own), then the forward hooks, as PyTorch's `Module.__call__`.
    pub(crate) fn call_module(&mut self, m: &ModuleRef, args: Vec<ArgVal>, span: Span) -> Out {
        let (pre, post, full, non_full) = {
            let mut module = lock(m);
            if module.lazy.is_some() {
                drop(module);
                self.materialize_lazy(m, &args, span)?;
                module = lock(m);
            }
            let backward = !module.backward_hooks.is_empty();
            let full_kind = module.full_backward_hook == Some(true);
            (
                module.forward_pre_hooks.list(),
                module.forward_hooks.list(),
                (backward && full_kind) || !module.backward_pre_hooks.is_empty(),
                backward && !full_kind,
            )
        };
        if pre.is_empty() && post.is_empty() && !full && !non_full {
            return self.forward_of(m, args, span);
        }
        let this = Value::Module(Arc::clone(m));
        // The hooks see the positional arguments (PyTorch passes keywords
        // to `forward` alone, unless a hook asks `with_kwargs`).
        let (mut args, keywords): (Vec<ArgVal>, Vec<ArgVal>) =
            args.into_iter().partition(|a| a.keyword.is_none());
        let tuple =
            |args: &[ArgVal]| Value::List(Arc::new(args.iter().map(|a| a.value.clone()).collect()));
        let arg = |v: Value| ArgVal {
            keyword: None,
            value: v,
            span,
        };
        for hook in pre {
            let f = hook_value(&hook.f);
            let r = self.call_value(f, vec![arg(this.clone()), arg(tuple(&args))], span)?;
            // A new input: a tuple of arguments, or the one argument.
            match r {
                Value::None => {}
                Value::List(items) => args = items.iter().cloned().map(arg).collect(),
                v => args = vec![arg(v)],
            }
        }
        // Full backward hooks: the inputs through BackwardHook's identity
        // node (`stdlib/torch_utils_hooks.py`), as PyTorch's `_call_impl`.
        const HOOKS: &str = "torch.utils.hooks";
        let mut bw_hook = None;
        if full {
            let r = self.call_stdlib(
                HOOKS,
                "_setup_input",
                vec![this.clone(), tuple(&args)],
                span,
            )?;
            if let [bw, new_args] = r.items().unwrap_or_default().as_slice() {
                bw_hook = Some(bw.clone());
                let items = new_args.items().unwrap_or_default();
                args = items.iter().cloned().map(arg).collect();
            }
        }
        let inputs = tuple(&args);
        args.extend(keywords);
        let mut out = self.forward_of(m, args, span)?;
        for hook in post {
            let f = hook_value(&hook.f);
            let r = self.call_value(
                f,
                vec![arg(this.clone()), arg(inputs.clone()), arg(out.clone())],
                span,
            )?;
            if !matches!(r, Value::None) {
                out = r;
            }
        }
        if let Some(bw) = bw_hook {
            out = self.call_stdlib(HOOKS, "_setup_output", vec![bw, out], span)?;
        }
        if non_full {
            let args = vec![this.clone(), inputs, out.clone()];
            self.call_stdlib(HOOKS, "_register_non_full", args, span)?;
        }
        Ok(out)
    }

    /// The instance's `forward` if one was set, else the class's, or the
    /// layer's own.
    fn forward_of(&mut self, m: &ModuleRef, args: Vec<ArgVal>, span: Span) -> Out {
        if let Some(f) = forward_override(m) {
            return self.call_value(f, args, span);
        }
        self.own_forward(m, args, span)
    }

    /// The class's `forward`, or the layer's own, whatever the instance set.
    pub(crate) fn own_forward(&mut self, m: &ModuleRef, args: Vec<ArgVal>, span: Span) -> Out {
        let this = Value::Module(Arc::clone(m));
        if let Some(class) = class_of(&this) {
            if let Some(f) = class.find("forward") {
                return match f {
                    Value::Function(f) => self.call_bound(&this, f, args, span),
                    other => self.call_value(other, args, span),
                };
            }
        }
        self.layer_forward(m, args, span)
    }

    /// A layer's own forward (`Module.forward` for a class without one),
    /// with its parametrized tensors where it has some.
    pub(crate) fn layer_forward(&mut self, m: &ModuleRef, args: Vec<ArgVal>, span: Span) -> Out {
        self.with_parametrized(m, span, |me| me.layer_forward_of(m, args, span))
    }

    fn layer_forward_of(&mut self, m: &ModuleRef, args: Vec<ArgVal>, span: Span) -> Out {
        let (layer, type_name) = {
            let module = lock(m);
            (module.layer.clone(), module.type_name.clone())
        };
        // `Embedding(max_norm=...)`: the rows it reads renormalised first.
        if let (
            Layer::Embedding {
                max_norm: Some(limit),
                ..
            },
            Some(Value::Tensor(x)),
        ) = (&layer, args.first().map(|a| &a.value))
        {
            let weight = lock(m).tensor_named("weight");
            if let Some(w) = weight {
                self.embedding_renorm(&w, x, (limit.max, limit.norm_type), span)?;
            }
        }
        match layer {
            Layer::DataParallel { .. } => return self.data_parallel_forward(m, args, span),
            Layer::DistributedDataParallel { .. } => return self.ddp_forward(m, args, span),
            // `lstm(packed, hx)`: PyTorch's `RNNBase.forward` over a PackedSequence.
            Layer::Recurrent(_) if super::super::packed_sequence::packed_input(&args) => {
                return self.recurrent_packed_forward(m, args, span)
            }
            Layer::Recurrent(_) | Layer::RecurrentCell(_) => {
                return self.recurrent_forward(m, args, span)
            }
            Layer::MultiheadAttention(_) => return self.attention_forward(m, args, span),
            Layer::MaxUnpool { .. } => return self.unpool_forward(m, args, span),
            Layer::Pool {
                return_indices: true,
                one_d,
                kernel,
                stride,
                padding,
                dilation,
                ceil_mode,
                ..
            } => {
                let inputs = input_tensors(&args, &type_name)?;
                let x = inputs.first().ok_or_else(|| {
                    type_error(format!(
                        "{type_name}.forward() missing 1 required positional argument: 'input'"
                    ))
                    .at(span)
                })?;
                let settings = (kernel, stride, padding, dilation);
                let (rt, mode) = (&mut self.rt, self.grad);
                let r = crate::nn::layers::max_pool_with_indices(
                    rt, mode, x, one_d, settings, ceil_mode,
                );
                let (out, places) = r.map_err(|e| e.at(span))?;
                return Ok(Value::List(Arc::new(vec![
                    Value::Tensor(out),
                    Value::Tensor(places),
                ])));
            }
            Layer::ComposedLoss(loss) => {
                let inputs = input_tensors(&args, &type_name)?;
                let weight = lock(m)
                    .buffers
                    .iter()
                    .find(|b| b.name == "weight")
                    .and_then(|b| b.tensor.clone());
                return self.composed_loss_forward(&loss, weight, &inputs, span);
            }
            Layer::TransformerLayer { .. }
            | Layer::TransformerStack { .. }
            | Layer::Transformer { .. } => return self.transformer_forward(m, args, span),
            // `bag(input, offsets=none, per_sample_weights=none)`.
            Layer::EmbeddingBag { .. } => {
                let mut inputs = Vec::new();
                for (k, a) in args.iter().enumerate() {
                    let name = a.keyword.as_ref().map(|n| n.name.as_str());
                    match (k, name, &a.value) {
                        (_, Some("per_sample_weights") | None, Value::None) if k == 2 => {}
                        (_, Some("per_sample_weights"), Value::None) => {}
                        (_, Some("per_sample_weights"), _) | (2, None, _) => {
                            return Err(Error::value_help(
                                "EmbeddingBag's per_sample_weights are not in cudash yet",
                                "leave them out: each row of a bag counts once",
                            )
                            .at(a.span))
                        }
                        (1, None | Some("offsets"), Value::None) => {}
                        (0 | 1, None | Some("input" | "offsets"), v) => {
                            inputs.push(to_tensor(v).ok_or_else(|| {
                                Error::wrong_type("an EmbeddingBag's input", "a tensor", v.type_name())
                                    .at(a.span)
                            })?)
                        }
                        (_, Some(other), _) => {
                            return Err(type_error(format!(
                                "EmbeddingBag.forward() got an unexpected keyword argument '{other}'"
                            ))
                            .at(a.span))
                        }
                        _ => {
                            return Err(type_error(format!(
                                "EmbeddingBag.forward() takes from 2 to 4 positional arguments but {} were given",
                                args.len() + 1
                            ))
                            .at(a.span))
                        }
                    }
                }
                let module = lock(m);
                let mode = self.grad;
                let r = crate::nn::layers::forward(&mut self.rt, mode, &module, &inputs);
                return r.map(Value::Tensor).map_err(|e| e.at(span));
            }
            _ => {}
        }
        if let Some(k) = args.iter().find(|a| a.keyword.is_some()) {
            return Err(type_error(format!(
                "{type_name}.forward() got an unexpected keyword argument '{}'",
                k.keyword.as_ref().map_or("", |n| n.name.as_str())
            ))
            .at(k.span));
        }
        match layer {
            Layer::ParameterList | Layer::ParameterDict => {
                return Err(Error::Module {
                    class: "RuntimeError",
                    message: format!("{type_name} should not be called."),
                    help: Some("index it for a parameter: `params[0]`, `params[\"w\"]`".into()),
                }
                .at(span))
            }
            Layer::Custom | Layer::ModuleList | Layer::ModuleDict => {
                return Err(Error::Module {
                    class: "NotImplementedError",
                    message: format!(
                        "Module [{type_name}] is missing the required \"forward\" function"
                    ),
                    help: Some("define `fn forward(self, x) { ... }` in its class".into()),
                }
                .at(span))
            }
            Layer::Sequential => {
                let children = lock(m).children();
                let mut args = args;
                for (_, child) in children {
                    let x = self.call_module(&child, args, span)?;
                    args = vec![ArgVal {
                        keyword: None,
                        value: x,
                        span,
                    }];
                }
                return Ok(args.pop().map_or(Value::None, |a| a.value));
            }
            _ => {}
        }
        let arity = layer.arity();
        if args.len() != arity {
            return Err(type_error(format!(
                "{type_name}.forward() takes {arity} tensor{} ({} given)",
                if arity == 1 { "" } else { "s" },
                args.len()
            ))
            .at(span));
        }
        let inputs = input_tensors(&args, &type_name)?;
        self.begin_op("forward");
        let module = lock(m);
        let r = crate::nn::layers::forward(&mut self.rt, self.grad, &module, &inputs);
        drop(module);
        self.flush_notes();
        r.map(Value::Tensor).map_err(|e| e.at(span))
    }
}

/// A layer's inputs, each a tensor (PyTorch's refusal of another value
/// names the layer).
fn input_tensors(args: &[ArgVal], type_name: &str) -> Result<Vec<Arc<Tensor>>, Diagnostic> {
    args.iter()
        .map(|a| {
            to_tensor(&a.value).ok_or_else(|| {
                Error::wrong_type(
                    format!("the input of {type_name}"),
                    "a tensor",
                    a.value.type_name(),
                )
                .at(a.span)
            })
        })
        .collect()
}

/// A recurrent layer's or cell's settings, as PyTorch keeps them on the module.
fn recurrent_setting(name: &str, layer: &Layer) -> Option<Value> {
    use crate::nn::layer::Recurrence;
    let (kind, input_size, hidden_size, bias) = match layer {
        Layer::Recurrent(r) => (r.kind, r.input_size, r.hidden_size, r.bias),
        Layer::RecurrentCell(c) => (c.kind, c.input_size, c.hidden_size, c.bias),
        _ => return None,
    };
    let int = |n: usize| Some(Value::Int(n as i64));
    match (name, layer) {
        ("input_size", _) => int(input_size),
        ("hidden_size", _) => int(hidden_size),
        ("bias", _) => Some(Value::bool(bias)),
        ("nonlinearity", _) if matches!(kind, Recurrence::RnnTanh | Recurrence::RnnRelu) => {
            let f = if kind == Recurrence::RnnRelu {
                "relu"
            } else {
                "tanh"
            };
            Some(Value::Str(Arc::new(f.into())))
        }
        ("num_layers", Layer::Recurrent(r)) => int(r.num_layers),
        ("batch_first", Layer::Recurrent(r)) => Some(Value::bool(r.batch_first)),
        ("dropout", Layer::Recurrent(r)) => Some(Value::float(r.dropout)),
        ("bidirectional", Layer::Recurrent(r)) => Some(Value::bool(r.bidirectional)),
        ("proj_size", Layer::Recurrent(_)) => int(0),
        _ => None,
    }
}

/// `model.parameters(recurse=true)`: the tensors an optimizer takes.
pub(super) fn parameters(me: &mut Interp, name: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let recurse = b.bool("recurse", true)?;
    let named = match name {
        "parameters" | "named_parameters" => module::named_parameters(m, recurse),
        _ => module::named_buffers(m, recurse),
    };
    let prefix = match b.given("prefix") {
        Some((Value::Str(s), _)) => s.to_string(),
        _ => String::new(),
    };
    let items = named
        .into_iter()
        .map(|(n, t)| match name.starts_with("named_") {
            true => pair(join(&prefix, &n), Value::Tensor(t)),
            false => Value::Tensor(t),
        })
        .collect();
    Ok(generated(me, items))
}

/// What a module's walk gives: in a Python program a generator, as
/// PyTorch's (`next(model.parameters())` is the first parameter, a second
/// loop over it finds nothing); in cudash's own language a list.
fn generated(me: &Interp, items: Vec<Value>) -> Value {
    use super::super::value::PyIterator;
    match me.python_program() {
        true => Value::Iterator(Arc::new(std::sync::Mutex::new(PyIterator::Items(
            items.into(),
        )))),
        false => Value::List(Arc::new(items)),
    }
}

fn join(prefix: &str, name: &str) -> String {
    match (prefix.is_empty(), name.is_empty()) {
        (true, _) => name.to_string(),
        (false, true) => prefix.to_string(),
        (false, false) => format!("{prefix}.{name}"),
    }
}

fn pair(name: String, v: Value) -> Value {
    Value::List(Arc::new(vec![Value::Str(Arc::new(name)), v]))
}

/// `children()`, `named_children()`, `modules()`, `named_modules()`.
pub(super) fn modules(me: &mut Interp, name: &'static str, m: &ModuleRef, _: &Bound) -> Out {
    let named = match name {
        "children" | "named_children" | "items" => lock(m).children(),
        _ => module::named_modules(m, ""),
    };
    let items = named
        .into_iter()
        .map(
            |(n, c)| match name.starts_with("named_") || name == "items" {
                true => pair(n, Value::Module(c)),
                false => Value::Module(c),
            },
        )
        .collect();
    Ok(match name {
        "items" => Value::List(Arc::new(items)),
        _ => generated(me, items),
    })
}

/// `train(mode=true)`, `eval()`: the mode of the module and everything in
/// it; the module back.
pub(super) fn train(_: &mut Interp, name: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let mode = name == "train" && b.bool("mode", true)?;
    module::train(m, mode);
    Ok(Value::Module(Arc::clone(m)))
}

/// `zero_grad(set_to_none=true)`.
pub(super) fn zero_grad(me: &mut Interp, _: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let to_none = b.bool("set_to_none", true)?;
    for (_, p) in module::named_parameters(m, true) {
        let Some(record) = meta::meta(&p) else {
            continue;
        };
        match (to_none, record.grad()) {
            (_, None) => {}
            (true, Some(_)) => record.set_grad(None),
            (false, Some(g)) => me
                .rt
                .fill(&g, crate::runtime::op::factory::Fill::Int(0))
                .map_err(|e| e.at(b.span))?,
        }
    }
    Ok(Value::None)
}

/// `rnn.flatten_parameters()` of an `LSTM`, `GRU` or `RNN`: PyTorch lays
/// the weights out as one cuDNN buffer on a GPU (a no-op on the CPU);
/// cudash's recurrent layers compute from the weights as they are, so
/// there is nothing to lay out.
pub(super) fn flatten_parameters(_: &mut Interp, _: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let module = lock(m);
    match module.layer {
        Layer::Recurrent(_) => Ok(Value::None),
        _ => Err(no_attribute(
            &module.type_name,
            "flatten_parameters",
            b.span,
        )),
    }
}

/// `requires_grad_(requires_grad=true)` of every parameter.
pub(super) fn requires_grad_(_: &mut Interp, _: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let flag = b.bool("requires_grad", true)?;
    for (_, p) in module::named_parameters(m, true) {
        crate::autograd::meta::set_requires_grad(crate::autograd::meta::meta_or_leaf(&p), flag);
    }
    Ok(Value::Module(Arc::clone(m)))
}

/// `bn.reset_running_stats()`: a norm layer's running statistics back to
/// their start (mean 0, variance 1, no batch counted), in place, as
/// PyTorch's `_NormBase`.
pub(super) fn reset_running_stats(
    me: &mut Interp,
    _: &'static str,
    m: &ModuleRef,
    b: &Bound,
) -> Out {
    let type_name = lock(m).type_name.clone();
    if !matches!(lock(m).layer, Layer::BatchNorm { .. }) {
        return Err(no_attribute(&type_name, "reset_running_stats", b.span));
    }
    for (name, t) in module::named_buffers(m, false) {
        let value = match name.as_str() {
            "running_var" => Fill::Int(1),
            "running_mean" | "num_batches_tracked" => Fill::Int(0),
            _ => continue,
        };
        me.rt.fill(&t, value).map_err(|e| e.at(b.span))?;
    }
    Ok(Value::None)
}

/// `share_memory()`: every parameter and buffer in shared memory
/// (`Tensor::share_memory`), the module back, as PyTorch's
/// `_apply(lambda t: t.share_memory_())`.
pub(super) fn share_memory(_: &mut Interp, _: &'static str, m: &ModuleRef, _: &Bound) -> Out {
    let named = module::named_parameters(m, true)
        .into_iter()
        .chain(module::named_buffers(m, true));
    for (_, t) in named {
        t.share_memory();
    }
    Ok(Value::Module(Arc::clone(m)))
}

/// `to(device | dtype)`, `cuda(device)`, `cpu()`, `half()`, `float()`,
/// `double()`, `bfloat16()`: every parameter and buffer converted, the
/// module back (PyTorch's `_apply`; floating dtypes only change floating
/// tensors).
pub(super) fn to(me: &mut Interp, name: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let (mut device, mut dtype): (Option<Device>, Option<DType>) = (None, None);
    match name {
        "to" => {
            device = b.device("device")?;
            dtype = b.dtype("dtype")?;
            match b.given("target").map(|(v, s)| (v.clone(), *s)) {
                Some((Value::Device(d), _)) => device = Some(d.get()),
                Some((Value::DType(d), _)) => dtype = Some(d.get()),
                Some((Value::Int(i), s)) => {
                    device = Some(super::tensor::cuda_index(me, i).map_err(|e| e.at(s))?)
                }
                Some((v, s)) => {
                    return Err(Error::wrong_type(
                        "the target of .to()",
                        "a device or a dtype",
                        v.type_name(),
                    )
                    .at(s))
                }
                None => {}
            }
        }
        "cuda" => device = Some(me.rt.cuda(b.cuda_index("device")?).map_err(at)?),
        "cpu" => device = Some(Device::Cpu),
        "half" => dtype = Some(DType::F16),
        "bfloat16" => dtype = Some(DType::BF16),
        "float" => dtype = Some(DType::F32),
        _ => dtype = Some(DType::F64),
    }
    let format = match name {
        "to" => b.memory_format("memory_format")?,
        _ => None,
    };
    module_to(me, name, m, (device, dtype, format), b.span)
}

/// `m` with every parameter and buffer on `device` and in `dtype` (each
/// where given): what `to`, `cuda`, `half` do.
pub(crate) fn module_to(
    me: &mut Interp,
    name: &str,
    m: &ModuleRef,
    (mut device, dtype, format): (Option<Device>, Option<DType>, Option<MemoryFormat>),
    span: Span,
) -> Out {
    let at = |e: Error| e.at(span);
    if let Some(d) = device {
        device = Some(me.rt.check_device(d).map_err(at)?);
    }
    if let Some(d) = dtype.filter(|d| !d.is_float()) {
        return Err(at(Error::dtype(
            format!("nn.Module.to only accepts floating point dtypes, but got desired dtype={d}"),
            None,
        )));
    }
    // How many of the model's slots hold each parameter (by address): a
    // weight tied to two modules (nanoGPT's `wte.weight = lm_head.weight`)
    // is held by both, not elsewhere.
    let mut slots: Vec<usize> = Vec::new();
    for (_, module) in module::named_modules(m, "") {
        let module = lock(&module);
        slots.extend(
            module
                .parameters
                .iter()
                .flat_map(|(_, p)| p)
                .map(|t| Arc::as_ptr(t) as usize),
        );
    }
    let rt = &mut me.rt;
    let mut held_elsewhere = 0;
    module::apply_tensors(m, &mut |t, is_param| {
        let mut x = Arc::clone(t);
        // PyTorch's `convert`: a memory format for the 4-d and 5-d tensors.
        if let Some(f) = format.filter(|_| matches!(t.ndim(), 4 | 5)) {
            x = rt.in_format(&x, f)?;
        }
        if let Some(d) = dtype.filter(|d| t.dtype().is_float() && *d != t.dtype()) {
            x = rt.cast_keeping_layout(&x, d)?;
        }
        if let Some(d) = device.filter(|d| *d != t.device()) {
            x = rt.keeping_layout(&x, |rt, x| rt.transfer(x, d, false))?;
        }
        if Arc::ptr_eq(&x, t) {
            return Ok(x);
        }
        if !is_param {
            return Ok(x);
        }
        // A parameter stays a leaf parameter; its `.grad` goes along.
        let p = Arc::new(meta::parameter(&x, meta::requires_grad(t)));
        // An optimizer made before steps the moved parameter, as PyTorch's.
        crate::autograd::optim::replace_param(t, &p);
        // The module's slot holds it; anything more is a name or a list
        // that will keep the old tensor.
        let held_by_model = slots
            .iter()
            .filter(|&&a| a == Arc::as_ptr(t) as usize)
            .count();
        if Arc::strong_count(t) > held_by_model.max(1) {
            held_elsewhere += 1;
        }
        if let Some(g) = meta::meta(t).and_then(|r| r.grad()) {
            let mut g2 = g;
            if let Some(f) = format.filter(|_| matches!(g2.ndim(), 4 | 5)) {
                g2 = rt.in_format(&g2, f)?;
            }
            if let Some(d) = dtype.filter(|d| *d != g2.dtype()) {
                g2 = rt.cast_keeping_layout(&g2, d)?;
            }
            if let Some(d) = device.filter(|d| *d != g2.device()) {
                g2 = rt.keeping_layout(&g2, |rt, x| rt.transfer(x, d, false))?;
            }
            meta::meta_or_leaf(&p).set_grad(Some(g2));
        }
        Ok(p)
    })
    .map_err(at)?;
    if held_elsewhere > 0 {
        me.rt.note(format!(
            "`{name}` made new parameter tensors; {held_elsewhere} of the old ones {} still held elsewhere \
             (a variable, a list) and will not see the model's updates: read the parameters again \
             after moving the model (PyTorch swaps each parameter's data in place instead; \
             optimizers made before are given the moved parameters)",
            if held_elsewhere == 1 { "is" } else { "are" }
        ));
    }
    me.flush_notes();
    Ok(Value::Module(Arc::clone(m)))
}

/// `state_dict()`: PyTorch's keys, in its order, detached tensors.
pub(super) fn state_dict(_: &mut Interp, _: &'static str, m: &ModuleRef, _: &Bound) -> Out {
    let pairs = module::state_dict(m)
        .into_iter()
        .map(|(k, t)| (k.into(), Value::Tensor(t)))
        .collect();
    Ok(Value::Dict(PyDict::ordered(pairs)))
}

/// `to_empty(device=, recurse=True)`: every parameter and buffer replaced
/// by an uninitialised tensor of its shape, dtype and strides on `device`
/// (PyTorch's `empty_like`): how a model made on the meta device gets
/// memory (its values are then loaded or initialised).
pub(super) fn to_empty(me: &mut Interp, _: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let device = match b.device("device")? {
        Some(d) => me.rt.check_device(d).map_err(at)?,
        None => return Err(Error::value("to_empty() needs `device=`").at(b.span)),
    };
    let rt = &mut me.rt;
    module::apply_tensors(m, &mut |t, is_param| {
        let order = crate::runtime::memory_format::Order::of(t.shape(), t.strides().to_vec());
        let shape = order
            .as_ref()
            .map_or(t.shape().to_vec(), |o| o.permuted_shape());
        let new = crate::runtime::op::factory::NewTensor {
            shape: &shape,
            dtype: t.dtype(),
            device,
            like: None,
        };
        let x = rt.empty(new)?;
        let x = match order {
            Some(o) => Arc::new(o.restore(&x)),
            None => x,
        };
        Ok(match is_param {
            true => Arc::new(meta::parameter(&x, meta::requires_grad(t))),
            false => x,
        })
    })
    .map_err(at)?;
    Ok(Value::Module(Arc::clone(m)))
}

/// `load_state_dict(state_dict, strict=true)`: each entry copied into the
/// model's tensor of that key (on the model's device and dtype), after
/// PyTorch's checks, all made before anything is copied.
pub(super) fn load_state_dict(me: &mut Interp, _: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let strict = b.bool("strict", true)?;
    let (v, span) = b
        .get("state_dict")
        .ok_or_else(|| Error::value("load_state_dict() needs a state_dict").at(b.span))?;
    let Value::Dict(given) = v else {
        return Err(Error::wrong_type(
            "the state_dict",
            "a dict of tensors (`model.state_dict()`, `load(\"m.safetensors\")`)",
            v.type_name(),
        )
        .at(*span));
    };
    let given = given.items();
    let targets = module::state_targets(m);
    let missing: Vec<&str> = targets
        .iter()
        .filter(|(k, _)| !given.iter().any(|(g, _)| *g == k.as_str()))
        .map(|(k, _)| k.as_str())
        .collect();
    let unexpected_keys: Vec<String> = given
        .iter()
        .filter(|(g, _)| !targets.iter().any(|(k, _)| *g == k.as_str()))
        .map(|(g, _)| g.to_string())
        .collect();
    let unexpected: Vec<&str> = unexpected_keys.iter().map(String::as_str).collect();
    let mut errors = Vec::new();
    let mut copies = Vec::new();
    for (key, target) in &targets {
        let Some((_, value)) = given.iter().find(|(g, _)| *g == key.as_str()) else {
            continue;
        };
        let Some(src) = to_tensor(value) else {
            errors.push(format!(
                "While copying the parameter named \"{key}\", expected torch.Tensor or Tensor-like object from checkpoint but received {}",
                torch_type(value)
            ));
            continue;
        };
        if src.shape() != target.shape() {
            errors.push(format!(
                "size mismatch for {key}: copying a param with shape {} from checkpoint, the shape in current model is {}.",
                torch_size(src.shape()),
                torch_size(target.shape())
            ));
            continue;
        }
        copies.push((Arc::clone(target), src));
    }
    if strict {
        if !unexpected.is_empty() {
            errors.insert(
                0,
                format!("Unexpected key(s) in state_dict: {}. ", quoted(&unexpected)),
            );
        }
        if !missing.is_empty() {
            errors.insert(
                0,
                format!("Missing key(s) in state_dict: {}. ", quoted(&missing)),
            );
        }
    }
    if !errors.is_empty() {
        return Err(Error::Module {
            class: "RuntimeError",
            message: format!(
                "Error(s) in loading state_dict for {}:\n\t{}",
                lock(m).type_name,
                errors.join("\n\t")
            ),
            help: Some("`strict=false` loads the keys that match and lists the others".into()),
        }
        .at(*span));
    }
    if b.bool("assign", false)? {
        assign_state(m, copies);
        return Ok(incompatible_keys(&missing, &unexpected));
    }
    for (dst, src) in copies {
        if dst.device().is_meta() && !src.device().is_meta() {
            let key = targets.iter().find(|(_, t)| Arc::ptr_eq(t, &dst));
            me.warn_once(format!(
                "UserWarning: for {}: copying from a non-meta parameter in the checkpoint to a \
                 meta parameter in the current model, which is a no-op. (Did you mean to pass \
                 `assign=True` to assign items in the state dictionary to their corresponding \
                 key in the module instead of copying them in place?)",
                key.map_or("", |(k, _)| k.as_str())
            ));
            continue;
        }
        let src = match src.dtype() == dst.dtype() {
            true => src,
            false => me.rt.cast(&src, dst.dtype()).map_err(|e| e.at(*span))?,
        };
        me.rt.assign(&dst, &src).map_err(|e| e.at(*span))?;
    }
    Ok(incompatible_keys(&missing, &unexpected))
}

/// What `load_state_dict` gives: the keys it found missing and unexpected.
fn incompatible_keys(missing: &[&str], unexpected: &[&str]) -> Value {
    let list = |keys: &[&str]| {
        Value::list(
            keys.iter()
                .map(|k| Value::Str(Arc::new(k.to_string())))
                .collect(),
        )
    };
    Value::named_tuple(
        "_IncompatibleKeys",
        &[
            ("missing_keys", list(missing)),
            ("unexpected_keys", list(unexpected)),
        ],
    )
}

/// `load_state_dict(..., assign=True)`: each of the model's tensors
/// replaced by the state dict's own (no copy), a parameter staying a
/// parameter that requires grad as the one it replaces (PyTorch 2.1's
/// `assign`, how a model made on the meta device takes a checkpoint).
fn assign_state(m: &ModuleRef, copies: Vec<(Arc<Tensor>, Arc<Tensor>)>) {
    let _ = module::apply_tensors(m, &mut |t, is_param| {
        let Some((_, src)) = copies.iter().find(|(dst, _)| Arc::ptr_eq(dst, t)) else {
            return Ok(Arc::clone(t));
        };
        Ok(match is_param {
            true => Arc::new(meta::parameter(src, meta::requires_grad(t))),
            false => Arc::clone(src),
        })
    });
}

/// `torch.Size([512, 784])`.
fn torch_size(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("torch.Size([{}])", dims.join(", "))
}

/// `"a", "b"`, as PyTorch lists keys.
fn quoted(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `register_buffer(name, tensor, persistent=true)`.
pub(super) fn register_buffer(_: &mut Interp, _: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let name = string(b, "name")?;
    let t = match b.given("tensor") {
        None => None,
        Some(_) => Some(b.tensor("tensor")?),
    };
    let persistent = b.bool("persistent", true)?;
    lock(m)
        .set_buffer(&name, t, Some(persistent))
        .map_err(|e| e.at(b.span))?;
    if let Some(o) = object_of(m) {
        o.remove(&name);
    }
    Ok(Value::None)
}

/// `register_parameter(name, param)`, `add_module(name, module)`.
pub(super) fn register(_: &mut Interp, name: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let key = string(b, "name")?;
    let (v, span) = b
        .get(if name == "add_module" {
            "module"
        } else {
            "param"
        })
        .cloned()
        .unwrap_or((Value::None, b.span));
    let ok = match (&v, name) {
        (Value::None, _) | (Value::Module(_), "add_module") => true,
        (Value::Tensor(t), "register_parameter") => meta::is_parameter(t),
        _ => false,
    };
    if !ok {
        // PyTorch's words for each.
        let message = match name {
            "add_module" => format!("{} is not a Module subclass", torch_type(&v)),
            _ => format!(
                "cannot assign '{}' object to parameter '{key}' (torch.nn.Parameter or None required)",
                torch_type(&v)
            ),
        };
        return Err(type_error(message).at(span));
    }
    let mut module = lock(m);
    let r = match (v, name) {
        (Value::Module(c), _) => module.set_module(&key, Some(c)),
        (Value::Tensor(t), _) => module.set_parameter(&key, Some(t)),
        (_, "add_module") => module.set_module(&key, None),
        _ => module.set_parameter(&key, None),
    };
    drop(module);
    r.map_err(|e| e.at(b.span))?;
    if let Some(o) = object_of(m) {
        o.remove(&key);
    }
    Ok(Value::None)
}

fn string(b: &Bound, name: &str) -> Result<String, Diagnostic> {
    match b.get(name) {
        Some((Value::Str(s), _)) => Ok(s.to_string()),
        Some((v, span)) => Err(Error::wrong_type(name, "a string", v.type_name()).at(*span)),
        None => Err(Error::value(format!("missing `{name}`")).at(b.span)),
    }
}

/// `apply(fn)`: `fn(module)` on every child (depth first), then on the
/// module itself, as PyTorch's; the module back.
pub(super) fn apply(me: &mut Interp, _: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let (f, span) = b
        .get("fn")
        .cloned()
        .ok_or_else(|| Error::value("apply() needs a function").at(b.span))?;
    for module in module::apply_order(m) {
        let arg = ArgVal {
            keyword: None,
            value: Value::Module(module),
            span,
        };
        me.call_value(f.clone(), vec![arg], b.span)?;
    }
    Ok(Value::Module(Arc::clone(m)))
}

/// `forward(*inputs)`: the layer's own forward (a class's own `forward`
/// is found before this).
pub(super) fn forward(me: &mut Interp, _: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let args = b
        .rest
        .iter()
        .map(|(v, s)| ArgVal {
            keyword: None,
            value: v.clone(),
            span: *s,
        })
        .collect();
    me.layer_forward(m, args, b.span)
}

/// `append(module)` of a `Sequential` or a `ModuleList`.
pub(super) fn append(_: &mut Interp, _: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let (v, span) = b
        .get("module")
        .cloned()
        .ok_or_else(|| Error::value("append() needs a module").at(b.span))?;
    if lock(m).layer == Layer::ParameterList {
        super::super::param_containers::append(m, v, span)?;
        return Ok(Value::Module(Arc::clone(m)));
    }
    let mut module = lock(m);
    if !matches!(module.layer, Layer::Sequential | Layer::ModuleList) {
        return Err(no_attribute(&module.type_name, "append", b.span));
    }
    let Value::Module(child) = v else {
        return Err(type_error(format!("{} is not a Module subclass", torch_type(&v))).at(span));
    };
    let key = module.modules.len().to_string();
    module
        .set_module(&key, Some(child))
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Module(Arc::clone(m)))
}

/// The function a module hook holds.
fn hook_value(f: &crate::autograd::hooks::HookFn) -> Value {
    f.downcast_ref::<Value>().cloned().unwrap_or(Value::None)
}

/// `register_forward_pre_hook(hook)`: `hook(module, args)` before each
/// forward (a value it gives is the new input); `register_forward_hook(hook)`:
/// `hook(module, args, output)` after (a value it gives is the new output).
/// A handle back: `h.remove()` takes the hook off.
pub(super) fn register_forward_hook(
    _: &mut Interp,
    name: &'static str,
    m: &ModuleRef,
    b: &Bound,
) -> Out {
    let (f, span) = b
        .get("hook")
        .cloned()
        .ok_or_else(|| Error::value("a hook function is needed").at(b.span))?;
    // A function, or an object whose class has `__call__` (a pruning
    // method is its own hook).
    let callable = match &f {
        Value::Function(_)
        | Value::Method(_)
        | Value::Builtin(_)
        | Value::Module(_)
        | Value::Class(_) => true,
        Value::Object(o) => o.class.find("__call__").is_some(),
        _ => false,
    };
    if !callable {
        return Err(Error::wrong_type("the hook", "a function", f.type_name()).at(span));
    }
    let mut module = lock(m);
    // A module takes full backward hooks or the older ones, not both.
    let full = match name {
        "register_full_backward_hook" => Some(true),
        "register_backward_hook" => Some(false),
        _ => None,
    };
    if let Some(full) = full {
        if module.full_backward_hook == Some(!full) {
            return Err(Error::runtime(
                "Cannot use both regular backward hooks and full backward hooks on a single \
                 Module. Please use only one of them.",
            )
            .at(b.span));
        }
        module.full_backward_hook = Some(full);
    }
    let hooks = match name {
        "register_forward_pre_hook" => &module.forward_pre_hooks,
        "register_full_backward_hook" | "register_backward_hook" => &module.backward_hooks,
        "register_full_backward_pre_hook" => &module.backward_pre_hooks,
        _ => &module.forward_hooks,
    };
    let handle = crate::autograd::hooks::register_in(hooks, Arc::new(f));
    Ok(Value::HookHandle(Arc::new(handle)))
}

impl Interp {
    /// `unpool(input, indices, output_size=None)` of a built-in
    /// `MaxUnpool1d`/`MaxUnpool2d`.
    fn unpool_forward(&mut self, m: &ModuleRef, args: Vec<ArgVal>, span: Span) -> Out {
        let (layer, type_name) = {
            let module = lock(m);
            (module.layer.clone(), module.type_name.clone())
        };
        let Layer::MaxUnpool {
            one_d,
            kernel,
            stride,
            padding,
            ..
        } = layer
        else {
            return Err(Error::value("internal error: not an unpool").at(span));
        };
        let mut slots: [Option<&ArgVal>; 3] = [None, None, None];
        for (k, a) in args.iter().enumerate() {
            let at = match a.keyword.as_ref().map(|n| n.name.as_str()) {
                None if k < 3 => k,
                Some("input") => 0,
                Some("indices") => 1,
                Some("output_size") => 2,
                Some(other) => {
                    return Err(type_error(format!(
                        "{type_name}.forward() got an unexpected keyword argument '{other}'"
                    ))
                    .at(a.span))
                }
                None => {
                    return Err(type_error(format!(
                        "{type_name}.forward() takes from 3 to 4 positional arguments but {} were given",
                        args.len() + 1
                    ))
                    .at(a.span))
                }
            };
            slots[at] = Some(a);
        }
        let tensor = |k: usize, what: &str| -> Result<Arc<Tensor>, Diagnostic> {
            let a = slots[k].ok_or_else(|| {
                type_error(format!(
                    "{type_name}.forward() missing 1 required positional argument: '{what}'"
                ))
                .at(span)
            })?;
            to_tensor(&a.value)
                .ok_or_else(|| Error::wrong_type(what, "a tensor", a.value.type_name()).at(a.span))
        };
        let (x, indices) = (tensor(0, "input")?, tensor(1, "indices")?);
        let size = match slots[2] {
            Some(a) => crate::eval::builtins::pool::output_size(&a.value, a.span)?,
            None => None,
        };
        let (rt, mode) = (&mut self.rt, self.grad);
        let settings = (kernel, stride, padding);
        let r = crate::nn::layers::max_unpool(
            rt,
            mode,
            (&x, &indices),
            one_d,
            settings,
            size.as_deref(),
        );
        r.map(Value::Tensor).map_err(|e| e.at(span))
    }
}
