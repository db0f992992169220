//! `torch.nn`'s classes and helpers: the layers' constructors (`Linear`,
//! `ReLU`, `Sequential`, the losses), `Module` itself (the base of a
//! user's class), `Parameter`, and Python's `isinstance` and `super`.

use super::super::args::Bound;
use super::super::{Interp, Value};
use super::classes::PYTHON_TYPES;
use crate::autograd::meta;
use crate::error::{Diagnostic, Error};
use crate::nn::layers::{self, Layer, Place};
use crate::nn::repr::activation_name;
use crate::nn::Module;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::DType;

type Out = Result<Value, Diagnostic>;

/// The layers a program can make by name (not `Module` itself).
pub const LAYERS: &[&str] = &[
    "Linear",
    "ReLU",
    "Tanh",
    "Sigmoid",
    "Identity",
    "Flatten",
    "Dropout",
    "Dropout2d",
    "GELU",
    "SiLU",
    "Mish",
    "Softmax",
    "LogSoftmax",
    "Softmax2d",
    "Bilinear",
    "EmbeddingBag",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "Embedding",
    "BatchNorm1d",
    "BatchNorm2d",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "BatchNorm3d",
    "GroupNorm",
    "LayerNorm",
    "RMSNorm",
    "MSELoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "L1Loss",
    "SmoothL1Loss",
    "HuberLoss",
    "CrossEntropyLoss",
    "NLLLoss",
    "LSTM",
    "GRU",
    "RNN",
    "LSTMCell",
    "GRUCell",
    "RNNCell",
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerDecoder",
    "Transformer",
];

/// Whether `name` is a built-in layer's class.
pub fn is_layer(name: &str) -> bool {
    LAYERS.contains(&name)
        || super::activations::CLASSES.contains(&name)
        || super::conv::CLASSES.contains(&name)
        || super::lazy::CLASSES.contains(&name)
        || super::resize::CLASSES.contains(&name)
        || super::fold::CLASSES.contains(&name)
        || super::pool::CLASSES.contains(&name)
        || super::super::param_containers::CLASSES.contains(&name)
        || super::composed_losses::CLASSES
            .iter()
            .any(|(c, _)| *c == name)
        || name == "SoftMarginLoss"
}

fn module(m: Module) -> Out {
    Ok(Value::Module(m.into_ref()))
}

/// Where a layer's weights go (`device=`, `dtype=`; cpu and float32 by
/// default): a floating point dtype, as PyTorch's layers need.
fn float_place(me: &mut Interp, b: &Bound, what: &str) -> Result<Place, Diagnostic> {
    let place = me.place(b)?;
    if !place.dtype.is_float() {
        return Err(Error::dtype(
            format!("{what} need a floating point dtype, not {}", place.dtype),
            None,
        )
        .at(b.span_of("dtype")));
    }
    Ok(place)
}

/// Every layer's constructor, by the class's name.
pub(super) fn layer(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let activation = |op: UnaryOp| {
        let layer = Layer::Activation { op, inplace: false };
        module(Module::new(activation_name(op), layer))
    };
    match name {
        "Module" => module(Module::new("Module", Layer::Custom)),
        "Linear" => {
            let place = float_place(me, b, "Linear's parameters")?;
            let (n_in, n_out) = (b.size("in_features")?, b.size("out_features")?);
            let bias = b.bool("bias", true)?;
            module(layers::linear(&mut me.rt, n_in, n_out, bias, place).map_err(at)?)
        }
        "ReLU" | "SiLU" | "Mish" => {
            let op = match name {
                "ReLU" => UnaryOp::Relu,
                "SiLU" => UnaryOp::Silu,
                _ => UnaryOp::Mish,
            };
            let inplace = b.bool("inplace", false)?;
            let layer = Layer::Activation { op, inplace };
            module(Module::new(activation_name(op), layer))
        }
        "Tanh" => activation(UnaryOp::Tanh),
        "Sigmoid" => activation(UnaryOp::Sigmoid),
        "Identity" => module(Module::new("Identity", Layer::Identity)),
        "LSTM" | "GRU" | "RNN" | "LSTMCell" | "GRUCell" | "RNNCell" => recurrent(me, name, b),
        "Flatten" => module(Module::new(
            "Flatten",
            Layer::Flatten {
                start_dim: b.int("start_dim")?.unwrap_or(1),
                end_dim: b.int("end_dim")?.unwrap_or(-1),
            },
        )),
        "GELU" => match b.str("approximate")?.as_deref().unwrap_or("none") {
            "none" => activation(UnaryOp::Gelu),
            "tanh" => activation(UnaryOp::GeluTanh),
            other => Err(Error::value(format!(
                "approximate argument must be either none or tanh, not '{other}'"
            ))
            .at(b.span_of("approximate"))),
        },
        "Dropout" | "Dropout2d" => {
            let p = b.float("p")?.unwrap_or(0.5);
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::value(format!(
                    "dropout probability has to be between 0 and 1, but got {p}"
                ))
                .at(b.span_of("p")));
            }
            let channels = name == "Dropout2d";
            let inplace = b.bool("inplace", false)?;
            let layer = Layer::Dropout {
                p,
                channels,
                inplace,
            };
            module(Module::new(name, layer))
        }
        "Softmax2d" => module(Module::new(name, Layer::Softmax2d)),
        "Bilinear" => {
            let place = float_place(me, b, "Bilinear's parameters")?;
            let sizes = (
                b.size("in1_features")?,
                b.size("in2_features")?,
                b.size("out_features")?,
            );
            let bias = b.bool("bias", true)?;
            module(layers::bilinear(&mut me.rt, sizes, bias, place).map_err(at)?)
        }
        "Softmax" | "LogSoftmax" => {
            let dim = b.int("dim")?;
            let log = name == "LogSoftmax";
            module(Module::new(name, Layer::Softmax { dim, log }))
        }
        "Sequential" | "ModuleList" => {
            // `Sequential(OrderedDict([("fc1", Linear(...)), ...]))`: the
            // modules under the dict's names.
            if let [(Value::Dict(d), span)] = b.rest.as_slice() {
                let mut m = Module::new(name, Layer::Sequential);
                for (k, v) in d.items().iter() {
                    let Value::Module(child) = v else {
                        return Err(Error::Module {
                            class: "TypeError",
                            message: format!("{} is not a Module subclass", v.type_name()),
                            help: None,
                        }
                        .at(*span));
                    };
                    let key = crate::eval::format::str_of(&k.value());
                    m.set_module(&key, Some(std::sync::Arc::clone(child)))
                        .map_err(at)?;
                }
                return module(m);
            }
            let items: Vec<(Value, crate::lang::Span)> = match name {
                "Sequential" => b.rest.clone(),
                _ => match b.given("modules") {
                    None => Vec::new(),
                    Some((v, span)) => match v.elements() {
                        Some(Ok(items)) => items.into_iter().map(|v| (v, *span)).collect(),
                        _ => {
                            return Err(Error::wrong_type(
                                "modules",
                                "a list of modules",
                                v.type_name(),
                            )
                            .at(*span))
                        }
                    },
                },
            };
            let layer = match name {
                "Sequential" => Layer::Sequential,
                _ => Layer::ModuleList,
            };
            let mut m = Module::new(name, layer);
            for (k, (v, span)) in items.into_iter().enumerate() {
                let Value::Module(child) = v else {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!("{} is not a Module subclass", v.type_name()),
                        help: None,
                    }
                    .at(span));
                };
                m.set_module(&k.to_string(), Some(child)).map_err(at)?;
            }
            module(m)
        }
        "EmbeddingBag" => {
            let place = me.place(b)?;
            for (setting, on) in [
                (
                    "max_norm",
                    !matches!(b.given("max_norm"), None | Some((Value::None, _))),
                ),
                (
                    "padding_idx",
                    !matches!(b.given("padding_idx"), None | Some((Value::None, _))),
                ),
                (
                    "_weight",
                    !matches!(b.given("_weight"), None | Some((Value::None, _))),
                ),
                ("scale_grad_by_freq", b.bool("scale_grad_by_freq", false)?),
                ("sparse", b.bool("sparse", false)?),
            ] {
                if on {
                    return Err(Error::value_help(
                        format!("EmbeddingBag's {setting} is not in cudash yet"),
                        "leave it out: modes `sum` and `mean` over dense gradients are there",
                    )
                    .at(b.span_of(setting)));
                }
            }
            let mean = match b.str("mode")?.as_deref().unwrap_or("mean") {
                "mean" => true,
                "sum" => false,
                "max" => {
                    return Err(Error::value_help(
                        "EmbeddingBag's mode='max' is not in cudash yet",
                        "`mode='sum'` or `mode='mean'`",
                    )
                    .at(b.span_of("mode")))
                }
                other => {
                    return Err(Error::value(format!(
                        "mode has to be one of sum, mean or max, not {other:?}"
                    ))
                    .at(b.span_of("mode")))
                }
            };
            let (num, dim) = (b.size("num_embeddings")?, b.size("embedding_dim")?);
            let mut m = layers::embedding(&mut me.rt, num, dim, None, place).map_err(at)?;
            m.layer = Layer::EmbeddingBag {
                num_embeddings: num,
                embedding_dim: dim,
                mean,
                include_last_offset: b.bool("include_last_offset", false)?,
            };
            m.type_name = std::sync::Arc::from("EmbeddingBag");
            module(m)
        }
        "Embedding" => {
            let place = me.place(b)?;
            let (num, dim) = (b.size("num_embeddings")?, b.size("embedding_dim")?);
            let padding_idx = b.int("padding_idx")?;
            let limit = max_norm(b)?.map(|(max, norm_type)| {
                // Shown as given (`max_norm=2`), `norm_type` only when not 2.
                let given = |k: &str| {
                    b.given(k)
                        .map_or(String::new(), |(v, _)| super::super::format::repr_of(v))
                };
                let mut shown = format!(", max_norm={}", given("max_norm"));
                if norm_type != 2.0 {
                    shown.push_str(&format!(", norm_type={}", given("norm_type")));
                }
                crate::nn::layer::MaxNorm {
                    max,
                    norm_type,
                    shown,
                }
            });
            let mut m = layers::embedding(&mut me.rt, num, dim, padding_idx, place)
                .map_err(|e| e.at(b.span_of("padding_idx")))?;
            if let Layer::Embedding { max_norm: kept, .. } = &mut m.layer {
                *kept = limit;
            }
            module(m)
        }
        "RMSNorm" => {
            let (place, shape) = (me.place(b)?, normalized_shape(b, name)?);
            let layer = Layer::RmsNorm {
                normalized_shape: shape,
                eps: b.float("eps")?,
                elementwise_affine: b.bool("elementwise_affine", true)?,
            };
            module(layers::rms_norm(&mut me.rt, layer, place).map_err(at)?)
        }
        "LayerNorm" => {
            let (place, shape) = (me.place(b)?, normalized_shape(b, name)?);
            let layer = Layer::LayerNorm {
                normalized_shape: shape,
                eps: b.float("eps")?.unwrap_or(1e-5),
                elementwise_affine: b.bool("elementwise_affine", true)?,
                bias: b.bool("bias", true)?,
            };
            module(layers::layer_norm(&mut me.rt, layer, place).map_err(at)?)
        }
        "BatchNorm1d" | "BatchNorm2d" | "BatchNorm3d" | "InstanceNorm1d" | "InstanceNorm2d"
        | "InstanceNorm3d" => {
            let place = me.place(b)?;
            let momentum = match b.get("momentum") {
                Some((Value::None, _)) => None,
                _ => Some(b.float("momentum")?.unwrap_or(0.1)),
            };
            // An instance norm has neither parameters nor running
            // statistics unless asked.
            let instance = name.starts_with("Instance");
            let layer = Layer::BatchNorm {
                spatial: match name.ends_with("1d") {
                    true => 1,
                    false if name.ends_with("3d") => 3,
                    false => 2,
                },
                num_features: b.size("num_features")?,
                eps: b.float("eps")?.unwrap_or(1e-5),
                momentum,
                affine: b.bool("affine", !instance)?,
                bias: b.bool("bias", true)?,
                track_running_stats: b.bool("track_running_stats", !instance)?,
                instance,
            };
            module(layers::batch_norm(&mut me.rt, layer, place).map_err(at)?)
        }
        "GroupNorm" => {
            let place = me.place(b)?;
            let layer = Layer::GroupNorm {
                groups: b.size("num_groups")?,
                num_channels: b.size("num_channels")?,
                eps: b.float("eps")?.unwrap_or(1e-5),
                affine: b.bool("affine", true)?,
            };
            module(layers::group_norm(&mut me.rt, layer, place).map_err(at)?)
        }
        "ModuleDict" => {
            let mut m = Module::new("ModuleDict", Layer::ModuleDict);
            if let Some((v, span)) = b.given("modules") {
                let Value::Dict(pairs) = v else {
                    return Err(
                        Error::wrong_type("modules", "a dict of modules", v.type_name()).at(*span),
                    );
                };
                for (k, v) in pairs.items().iter() {
                    let Value::Module(child) = v else {
                        return Err(Error::wrong_type(
                            format!("modules[{}]", k.repr()),
                            "a module",
                            v.type_name(),
                        )
                        .at(*span));
                    };
                    m.set_module(&k.to_string(), Some(std::sync::Arc::clone(child)))
                        .map_err(at)?;
                }
            }
            module(m)
        }
        "MSELoss" => module(Module::new(
            "MSELoss",
            Layer::MseLoss(super::losses::loss_reduction(me, b)?),
        )),
        "CrossEntropyLoss" | "NLLLoss" => {
            let ignore_index = b.int("ignore_index")?.unwrap_or(-100);
            let reduction = super::losses::reduction(b)?;
            let label_smoothing = match name {
                "CrossEntropyLoss" => b.float("label_smoothing")?.unwrap_or(0.0),
                _ => 0.0,
            };
            if !(0.0..=1.0).contains(&label_smoothing) {
                return Err(Error::value(format!(
                    "label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
                ))
                .at(b.span_of("label_smoothing")));
            }
            let layer = match name {
                "NLLLoss" => Layer::NllLoss {
                    ignore_index,
                    reduction,
                },
                _ => Layer::CrossEntropyLoss {
                    ignore_index,
                    reduction,
                    label_smoothing,
                },
            };
            let mut m = Module::new(name, layer);
            m.set_buffer("weight", b.optional_tensor("weight")?, None)
                .map_err(at)?;
            module(m)
        }
        _ => Err(Error::value(format!("internal error: no layer `{name}`")).at(b.span)),
    }
}

/// `LSTM`, `GRU`, `RNN` and their cells: the settings checked as
/// PyTorch's `RNNBase.__init__` checks them, the weights drawn as its
/// `reset_parameters` draws them.
fn recurrent(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    use crate::nn::layer::{Recurrence, Recurrent, RecurrentCell};
    use crate::nn::recurrent;
    let place = float_place(me, b, &format!("{name}'s weights"))?;
    let kind = match name {
        "LSTM" | "LSTMCell" => Recurrence::Lstm,
        "GRU" | "GRUCell" => Recurrence::Gru,
        _ => match b.str("nonlinearity")?.as_deref().unwrap_or("tanh") {
            "tanh" => Recurrence::RnnTanh,
            "relu" => Recurrence::RnnRelu,
            other => {
                return Err(Error::value(format!(
                    "Unknown nonlinearity '{other}'. Select from 'tanh' or 'relu'."
                ))
                .at(b.span_of("nonlinearity")))
            }
        },
    };
    let positive = |what: &str| -> Result<usize, Diagnostic> {
        match b.size(what)? {
            0 => Err(Error::value(format!("{what} must be greater than zero")).at(b.span_of(what))),
            n => Ok(n),
        }
    };
    let (input_size, hidden_size) = (positive("input_size")?, positive("hidden_size")?);
    let bias = b.bool("bias", true)?;
    let at = |e: Error| e.at(b.span);
    if name.ends_with("Cell") {
        let spec = RecurrentCell {
            kind,
            input_size,
            hidden_size,
            bias,
        };
        return module(recurrent::cell(&mut me.rt, spec, place).map_err(at)?);
    }
    let num_layers = match b.int("num_layers")?.unwrap_or(1) {
        n if n > 0 => n as usize,
        _ => {
            return Err(
                Error::value("num_layers must be greater than zero").at(b.span_of("num_layers"))
            )
        }
    };
    let dropout = b.float("dropout")?.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&dropout) {
        return Err(Error::value(
            "dropout should be a number in range [0, 1] representing the probability of an \
             element being zeroed",
        )
        .at(b.span_of("dropout")));
    }
    if dropout > 0.0 && num_layers == 1 {
        me.rt.note(format!(
            "UserWarning: dropout option adds dropout after all but last recurrent layer, so \
             non-zero dropout expects num_layers greater than 1, but got dropout={} and \
             num_layers=1",
            crate::nn::repr::py_float(dropout)
        ));
    }
    if b.int("proj_size")?.unwrap_or(0) != 0 {
        return Err(Error::value_help(
            "LSTM's proj_size is not in cudash yet",
            "leave it out: the hidden state is then not projected",
        )
        .at(b.span_of("proj_size")));
    }
    let spec = Recurrent {
        kind,
        input_size,
        hidden_size,
        num_layers,
        bias,
        batch_first: b.bool("batch_first", false)?,
        dropout,
        bidirectional: b.bool("bidirectional", false)?,
    };
    module(recurrent::recurrent(&mut me.rt, spec, place).map_err(at)?)
}

/// `Parameter(data, requires_grad=true)`: `data`'s elements as a
/// parameter, which a module registers when it is assigned to it.
pub(super) fn parameter(_: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let t = b.tensor("data")?;
    let requires_grad = b.bool("requires_grad", true)?;
    if requires_grad && !t.dtype().is_float() {
        return Err(Error::Autograd {
            message: "Only Tensors of floating point and complex dtype can require gradients"
                .into(),
            help: "make it a float tensor first (`.float()`), or pass `requires_grad=false`".into(),
        }
        .at(b.span_of("data")));
    }
    Ok(Value::tensor(meta::parameter(&t, requires_grad)))
}

/// `isinstance(obj, classinfo)`: a class of the program's (or one above
/// it), `Module`, a layer's class, or a list of them.
pub(super) fn isinstance(_: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (obj, _) = b.get("obj").cloned().unwrap_or((Value::None, b.span));
    let (info, span) = b.get("classinfo").cloned().unwrap_or((Value::None, b.span));
    let classes = match &info {
        Value::List(_) | Value::MutList(_) => info.items().unwrap_or_default().to_vec(),
        other => vec![other.clone()],
    };
    for c in &classes {
        if is_instance(&obj, c).map_err(|e| e.at(span))? {
            return Ok(Value::bool(true));
        }
    }
    Ok(Value::bool(false))
}

/// `issubclass(cls, classinfo)`: whether class `cls` is `classinfo` (or
/// one of a tuple of them) or derives from it, as Python's: the program's
/// classes, the exception classes (`issubclass(FutureWarning, Warning)`)
/// and a class derived from a built-in one (`Module`, a layer, an
/// exception).
pub(super) fn issubclass(_: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (cls, cls_span) = b.get("cls").cloned().unwrap_or((Value::None, b.span));
    let (info, _) = b.get("classinfo").cloned().unwrap_or((Value::None, b.span));
    // Python's `bool` (a dtype's name here) is a class deriving from int.
    let is_bool =
        |v: &Value| matches!(v, Value::DType(d) if d.get() == crate::runtime::DType::Bool);
    if is_bool(&cls) {
        let int_or_bool = |c: &Value| {
            is_bool(c)
                || matches!(c, Value::Builtin(doc) if doc.name == "int")
                || matches!(c, Value::Class(o) if std::sync::Arc::ptr_eq(o, &super::super::value::object_class()))
        };
        let found = match &info {
            Value::List(_) | Value::MutList(_) => {
                info.items().unwrap_or_default().iter().any(int_or_bool)
            }
            one => int_or_bool(one),
        };
        return Ok(Value::bool(found));
    }
    if !matches!(
        cls,
        Value::Class(_) | Value::ExcClass(_) | Value::Builtin(_)
    ) {
        return Err(
            Error::wrong_type("issubclass() arg 1", "a class", cls.type_name()).at(cls_span),
        );
    }
    Ok(Value::bool(is_subclass(&cls, &info)))
}

fn is_subclass(cls: &Value, info: &Value) -> bool {
    use super::super::exceptions::is_a;
    match (cls, info) {
        (_, Value::List(_) | Value::MutList(_)) => info
            .items()
            .unwrap_or_default()
            .iter()
            .any(|c| is_subclass(cls, c)),
        (_, Value::Class(o)) if std::sync::Arc::ptr_eq(o, &super::super::value::object_class()) => {
            true
        }
        (Value::Class(a), Value::Class(b)) => a.derives(b),
        (Value::ExcClass(a), Value::ExcClass(b)) => is_a(a.name, b),
        (Value::Class(a), Value::ExcClass(b)) => a.exception().is_some_and(|c| is_a(c.name, b)),
        (Value::Class(a), Value::Builtin(doc)) if doc.name == "Module" => a.is_module(),
        (Value::Class(a), Value::Builtin(doc)) => a.layer() == Some(doc.name),
        (Value::Builtin(a), Value::Builtin(doc)) => {
            a.name == doc.name || (doc.name == "Module" && is_layer(a.name))
        }
        _ => false,
    }
}

pub(crate) fn is_instance(obj: &Value, class: &Value) -> Result<bool, Error> {
    // `isinstance(x, torch.FloatTensor)`, `torch.cuda.FloatTensor`: a
    // tensor of its dtype on its kind of device.
    if let Some(name) = super::super::cuda_legacy::type_named(class) {
        return Ok(
            matches!(obj, Value::Tensor(t) if super::super::cuda_legacy::instance_of(&name, t)),
        );
    }
    Ok(match class {
        // Tuples of classes nest: `isinstance(p, ((int, float), tuple))`.
        Value::List(_) | Value::MutList(_) => {
            for c in class.items().unwrap_or_default().iter() {
                if is_instance(obj, c)? {
                    return Ok(true);
                }
            }
            false
        }
        // Everything is an `object`.
        Value::Class(c) if std::sync::Arc::ptr_eq(c, &super::super::value::object_class()) => true,
        // The built-in optimizers are `torch.optim.Optimizer`s too.
        Value::Class(c) if matches!(obj, Value::Optimizer(_)) => c.is_optimizer_base(),
        // `torch.autograd.graph.Node`: every autograd node is one.
        Value::Class(c) if matches!(obj, Value::GradFn(_)) => {
            c.find("_every_autograd_node").is_some()
        }
        Value::Class(c) => super::super::value::class_of(obj).is_some_and(|k| k.derives(c)),
        Value::Builtin(doc) if PYTHON_TYPES.contains(&doc.name) => {
            super::super::format::python_type(obj) == doc.name
                || (doc.name == "int" && matches!(obj, Value::Bool(_)))
                || (doc.name == "tuple" && matches!(obj, Value::Size(_)))
                || (doc.name == "tuple" && matches!(obj, Value::Object(o) if o.class.tuple))
        }
        Value::Builtin(doc) if doc.name == "range" => matches!(obj, Value::Range(_)),
        // `isinstance(x, type)`: a class (the program's, an exception's,
        // Python's built-in ones).
        Value::Builtin(doc) if doc.name == "type" => match obj {
            Value::Class(_) | Value::ExcClass(_) => true,
            Value::Builtin(d) => PYTHON_TYPES.contains(&d.name),
            Value::Native(f) => f.is_class(),
            _ => false,
        },
        // `isinstance(key, slice)` in a `__getitem__`.
        Value::Builtin(doc) if doc.name == "slice" => matches!(
            obj,
            Value::Object(o) if std::sync::Arc::ptr_eq(&o.class, &super::super::value::slice_class())
        ),
        // `isinstance(sd, OrderedDict)`: a `state_dict()`, an `OrderedDict(...)`;
        // `isinstance(x, type(None))`.
        Value::Native(f) if f.is_class() => type_native(obj) == Some(*f),
        // `bool` reads as the dtype in cudash's language; as a class it is
        // Python's.
        Value::DType(d) if d.get() == crate::runtime::DType::Bool => {
            matches!(obj, Value::Bool(_))
        }
        Value::Builtin(doc) if doc.name == "Module" => matches!(obj, Value::Module(_)),
        Value::Builtin(doc) if is_layer(doc.name) || doc.name == "DataParallel" => match obj {
            // An instance of a class derived from the layer is one too.
            Value::Module(_) if super::super::value::class_of(obj).is_some() => {
                super::super::value::class_of(obj).and_then(|c| c.layer()) == Some(doc.name)
            }
            Value::Module(m) => &*crate::runtime::lock::lock(m).type_name == doc.name,
            _ => false,
        },
        Value::Builtin(doc)
            if matches!(doc.name, "UninitializedParameter" | "UninitializedBuffer") =>
        {
            matches!(obj, Value::Tensor(t)
                if meta::is_uninitialized(t) && meta::is_parameter(t) == (doc.name == "UninitializedParameter"))
        }
        Value::Builtin(doc) if doc.name == "Parameter" => {
            matches!(obj, Value::Tensor(t) if meta::is_parameter(t))
        }
        Value::Builtin(doc) if matches!(doc.name, "tensor" | "Tensor" | "Variable") => {
            matches!(obj, Value::Tensor(_) | Value::Sparse(_))
        }
        // Every sampler is a `Sampler`: the builtins and the program's own.
        Value::Builtin(doc) if doc.name == "Sampler" => match obj {
            Value::Sampler(_) => true,
            Value::Object(o) => o.class.is_sampler(),
            _ => false,
        },
        Value::Builtin(doc) if doc.name.ends_with("Sampler") => {
            matches!(obj, Value::Sampler(s) if s.name() == doc.name)
        }
        Value::Builtin(doc) if doc.name == "DataLoader" => matches!(obj, Value::DataLoader(_)),
        Value::Builtin(doc) if super::classes::OPTIMIZERS.contains(&doc.name) => {
            matches!(obj, Value::Optimizer(o) if crate::runtime::lock::lock(o).name() == doc.name)
        }
        // `isinstance(e, ValueError)`: a raised error, or an instance of
        // the program's exception class below it.
        Value::ExcClass(c) => match obj {
            Value::Exception(x) => super::super::exceptions::is_a(x.class.name, c),
            Value::Object(o) => o
                .class
                .exception()
                .is_some_and(|b| super::super::exceptions::is_a(b.name, c)),
            _ => false,
        },
        Value::Builtin(doc) if doc.name == "Dataset" => match obj {
            Value::Dataset(_) => true,
            Value::Object(o) => o.class.is_dataset(),
            _ => false,
        },
        Value::Builtin(doc) if doc.name == "TensorDataset" => {
            matches!(obj, Value::Dataset(d) if matches!(**d, crate::data::dataset::Dataset::Tensors(_)))
        }
        Value::Builtin(doc) if doc.name == "Subset" => {
            matches!(obj, Value::Dataset(d) if matches!(**d, crate::data::dataset::Dataset::Subset(_)))
        }
        other => {
            return Err(Error::Module {
                class: "TypeError",
                message: "isinstance() arg 2 must be a type, a tuple of types, or a union".into(),
                help: Some(format!(
                    "give a class (`Module`, `Linear`, one of yours), not {}",
                    other.type_name()
                )),
            })
        }
    })
}

/// The class of a value no builtin constructs: `collections.OrderedDict`
/// of a `state_dict()`, `NoneType`, `function`, `generator`, `torch.dtype`,
/// `torch.Size`, `dict_keys` (`value::TYPES`).
fn type_native(v: &Value) -> Option<&'static super::super::value::Native> {
    use super::super::value::{type_named, Missing, COUNTER, DEFAULT_DICT, ORDERED_DICT};
    let name = match v {
        Value::Dict(d) if d.is_ordered() => return Some(&ORDERED_DICT),
        Value::Dict(d) => match d.missing() {
            Some(Missing::Count) => return Some(&COUNTER),
            Some(Missing::Factory(_)) => return Some(&DEFAULT_DICT),
            None => return None,
        },
        Value::None => "NoneType",
        Value::Function(_) => "function",
        Value::Method(_) => "method",
        Value::BuiltinMethod(_) => "builtin_function_or_method",
        Value::Builtin(doc) if super::classes::qualified(doc.name).is_none() => {
            "builtin_function_or_method"
        }
        Value::Native(f) if !f.is_class() => "builtin_function_or_method",
        Value::Iterator(i) if super::super::generator::is_generator(i) => "generator",
        Value::DType(d) if d.get() != crate::runtime::DType::Bool => "torch.dtype",
        Value::Size(_) => "torch.Size",
        Value::DictView(view) => view.python_type(),
        Value::GradFn(f) => return Some(super::super::value::node_class(f.name())),
        _ => return None,
    };
    type_named(name)
}

/// `type(obj)`: its class, as Python's: a class of the program's, a
/// layer's class, `Parameter`, `Tensor`, or Python's `int`, `float`,
/// `str`, `bool`, `list`, `tuple`, `dict` (each with its `__name__`).
pub(super) fn type_(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    use super::super::docs;
    let (v, span) = b
        .get("object")
        .cloned()
        .ok_or_else(|| Error::value("type() needs an object").at(b.span))?;
    match (b.given("bases"), b.given("dict")) {
        (None, None) => {}
        (Some((bases, _)), Some((dict, _))) => {
            return me
                .class_from_parts(&v, bases, dict)
                .map_err(|e| e.at(b.span))
        }
        _ => {
            return Err(Error::Module {
                class: "TypeError",
                message: "type() takes 1 or 3 arguments".into(),
                help: Some(
                    "`type(x)`: the class of `x`; `type(name, bases, dict)`: a new class".into(),
                ),
            }
            .at(b.span))
        }
    }
    if let Some(class) = super::super::value::class_of(&v) {
        return Ok(Value::Class(class));
    }
    if let Value::Exception(e) = &v {
        // cudash's own names for PyTorch's RuntimeErrors are PyTorch's class.
        let class = match e.class.name {
            "ShapeError" | "DTypeError" | "DeviceError" | "CudaError" => {
                super::super::exceptions::named("RuntimeError").unwrap_or(e.class)
            }
            _ => e.class,
        };
        return Ok(Value::ExcClass(class));
    }
    // `type(True)`: what the name `bool` is (cudash's language reads it as
    // the dtype), so `type(x) == type(y)` and `type(x) == bool` hold.
    if let Value::Bool(_) = &v {
        return Ok(Value::DType(crate::eval::value::Word::new(
            crate::runtime::DType::Bool,
        )));
    }
    if let Some(class) = type_native(&v) {
        return Ok(Value::Native(class));
    }
    let name: &str = match &v {
        Value::Tensor(t) if meta::is_uninitialized(t) => match meta::is_parameter(t) {
            true => "UninitializedParameter",
            false => "UninitializedBuffer",
        },
        Value::Tensor(t) if meta::is_parameter(t) => "Parameter",
        Value::Tensor(_) | Value::Sparse(_) => "Tensor",
        Value::Module(m) => &crate::runtime::lock::lock(m).type_name.clone(),
        Value::Sampler(s) => s.name(),
        Value::DataLoader(_) => "DataLoader",
        Value::Optimizer(o) => crate::runtime::lock::lock(o).name(),
        Value::Scheduler(s) => crate::runtime::lock::lock(&s.scheduler).name(),
        Value::Device(_) | Value::CurrentCuda => "device",
        Value::Range(_) => "range",
        Value::Generator(_) => "Generator",
        Value::Dataset(ds) => match **ds {
            crate::data::dataset::Dataset::Tensors(_) => "TensorDataset",
            crate::data::dataset::Dataset::Subset(_) => "Subset",
            crate::data::dataset::Dataset::Function(_) => "Dataset",
        },
        other => &super::super::format::python_type(other),
    };
    match docs::function(name) {
        Some(doc)
            if PYTHON_TYPES.contains(&doc.name)
                || is_type(doc.name)
                || matches!(v, Value::Scheduler(_)) =>
        {
            Ok(Value::Builtin(doc))
        }
        _ => Err(Error::value_help(
            format!(
                "cudash's type() does not name the class of {}",
                v.type_name()
            ),
            "isinstance(x, cls) asks whether x is of a class",
        )
        .at(span)),
    }
}

/// Whether a builtin is a class `type()` gives.
fn is_type(name: &str) -> bool {
    is_layer(name)
        || super::classes::OPTIMIZERS.contains(&name)
        || matches!(
            name,
            "Tensor"
                | "device"
                | "range"
                | "Generator"
                | "Parameter"
                | "UninitializedParameter"
                | "UninitializedBuffer"
                | "Module"
                | "DataParallel"
                | "DataLoader"
                | "TensorDataset"
                | "Subset"
                | "Dataset"
                | "RandomSampler"
                | "SequentialSampler"
                | "SubsetRandomSampler"
                | "WeightedRandomSampler"
                | "DistributedSampler"
                | "BatchSampler"
                | "Sampler"
        )
}

/// `super()` in a method.
pub(super) fn super_(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    // `super(Net, self)`: Python 2's spelling, as PyTorch's examples write it.
    match (b.given("type"), b.given("obj")) {
        (Some((Value::Class(c), _)), Some((obj, _))) => Ok(Value::Super(std::sync::Arc::new((
            obj.clone(),
            std::sync::Arc::clone(c),
        )))),
        (Some((v, span)), _) if !matches!(v, Value::Class(_)) => {
            Err(Error::wrong_type("super()'s first argument", "a class", v.type_name()).at(*span))
        }
        _ => me.super_of_frame(b.span),
    }
}

/// `flatten(input, start_dim=0, end_dim=-1)`, as torch.flatten.
pub(super) fn flatten(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let start = b.int("start_dim")?.unwrap_or(0);
    let end = b.int("end_dim")?.unwrap_or(-1);
    b.result(layers::flatten(&mut me.rt, me.grad, &x, start, end))
}

/// `max_norm` and `norm_type` of an embedding: none, or both.
fn max_norm(b: &Bound) -> Result<Option<(f64, f64)>, Diagnostic> {
    Ok(match b.float("max_norm")? {
        None => None,
        Some(max) => Some((max, b.float("norm_type")?.unwrap_or(2.0))),
    })
}

/// `embedding(input, weight, padding_idx=None, max_norm=None,
/// norm_type=2.0)`: `weight`'s rows picked by the indices, as
/// torch.nn.functional.embedding (`EmbeddingBackward0`); with `max_norm`,
/// the rows picked are renormalised in `weight` first.
pub(super) fn embedding(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (x, w) = (b.tensor("input")?, b.tensor("weight")?);
    if let Some(limit) = max_norm(b)? {
        me.embedding_renorm(&w, &x, limit, b.span)?;
    }
    let padding_idx = b.int("padding_idx")?;
    b.result(crate::autograd::record::embedding(
        &mut me.rt,
        me.grad,
        &w,
        &x,
        padding_idx,
    ))
}

/// `batch_norm(input, running_mean, running_var, weight=none, bias=none,
/// training=false, momentum=0.1, eps=1e-5)`, as torch.nn.functional.batch_norm.
pub(super) fn batch_norm(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let (rm, rv, w, bias) = (
        b.optional_tensor("running_mean")?,
        b.optional_tensor("running_var")?,
        b.optional_tensor("weight")?,
        b.optional_tensor("bias")?,
    );
    let args = crate::autograd::functional::BatchNormArgs {
        running_mean: rm.as_deref(),
        running_var: rv.as_deref(),
        weight: w.as_ref(),
        bias: bias.as_ref(),
        training: b.bool("training", false)?,
        momentum: b.float("momentum")?.unwrap_or(0.1),
        eps: b.float("eps")?.unwrap_or(1e-5),
    };
    b.result(crate::autograd::functional::batch_norm(
        &mut me.rt, me.grad, &x, args,
    ))
}

/// `group_norm(input, num_groups, weight=none, bias=none, eps=1e-5)`.
pub(super) fn group_norm(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let groups = b.size("num_groups")?;
    let (w, bias) = (b.optional_tensor("weight")?, b.optional_tensor("bias")?);
    let eps = b.float("eps")?.unwrap_or(1e-5);
    b.result(crate::autograd::group_norm::group_norm(
        &mut me.rt,
        me.grad,
        &x,
        groups,
        (w.as_ref(), bias.as_ref()),
        eps,
    ))
}

/// `instance_norm(input, running_mean=none, running_var=none, weight=none,
/// bias=none, use_input_stats=true, momentum=0.1, eps=1e-5)`.
pub(super) fn instance_norm(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let (rm, rv) = (
        b.optional_tensor("running_mean")?,
        b.optional_tensor("running_var")?,
    );
    let (w, bias) = (b.optional_tensor("weight")?, b.optional_tensor("bias")?);
    let args = crate::autograd::group_norm::InstanceNormArgs {
        weight: w.as_ref(),
        bias: bias.as_ref(),
        running_mean: rm.as_ref(),
        running_var: rv.as_ref(),
        use_input_stats: b.bool("use_input_stats", true)?,
        momentum: b.float("momentum")?.unwrap_or(0.1),
        eps: b.float("eps")?.unwrap_or(1e-5),
    };
    b.result(crate::autograd::group_norm::instance_norm(
        &mut me.rt, me.grad, &x, args,
    ))
}

/// `layer_norm(input, normalized_shape, weight=none, bias=none, eps=1e-5)`.
pub(super) fn layer_norm(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let (v, span) = b
        .get("normalized_shape")
        .cloned()
        .ok_or_else(|| Error::value("layer_norm needs `normalized_shape`").at(b.span))?;
    let shape = super::super::args::sizes(&super::super::args::flatten(&v, span)?)?;
    let opt = |name: &str| -> Result<Option<std::sync::Arc<crate::runtime::Tensor>>, Diagnostic> {
        match b.given(name) {
            None => Ok(None),
            Some(_) => b.tensor(name).map(Some),
        }
    };
    let (w, bias) = (opt("weight")?, opt("bias")?);
    let eps = b.float("eps")?.unwrap_or(1e-5);
    b.result(crate::autograd::functional::layer_norm(
        &mut me.rt,
        me.grad,
        &x,
        &shape,
        (w.as_ref(), bias.as_ref()),
        eps,
    ))
}

/// A norm layer's `normalized_shape` (an int or a list of them).
fn normalized_shape(b: &Bound, class: &str) -> Result<Vec<usize>, Diagnostic> {
    let (v, span) = b
        .get("normalized_shape")
        .cloned()
        .ok_or_else(|| Error::value(format!("{class} needs `normalized_shape`")).at(b.span))?;
    super::super::args::sizes(&super::super::args::flatten(&v, span)?)
}

impl Interp {
    /// A layer's `device=` and `dtype=` (cpu and f32 unless given).
    fn place(&self, b: &Bound) -> Result<Place, Diagnostic> {
        Ok(Place {
            device: self.device_arg(b)?,
            dtype: b.dtype("dtype")?.unwrap_or_else(DType::default_float),
        })
    }
}

/// `rms_norm(input, normalized_shape, weight=none, eps=none)`.
pub(super) fn rms_norm(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let shape = normalized_shape(b, "rms_norm")?;
    let w = b.optional_tensor("weight")?;
    let eps = b.float("eps")?;
    b.result(crate::autograd::rms_norm::rms_norm(
        &mut me.rt,
        me.grad,
        &x,
        &shape,
        w.as_deref(),
        eps,
    ))
}

/// `Function()`: `torch.autograd.Function` is a base class, not called.
pub(super) fn autograd_function(
    _: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    Err(Error::value_help(
        "torch.autograd.Function is a base class: derive from it and call `MyFunction.apply(...)`",
        "class Square(torch.autograd.Function): with @staticmethod forward(ctx, x) and backward(ctx, g)",
    )
    .at(b.span))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_layer_is_named_where_pytorch_defines_it() {
        use crate::eval::builtins::classes::qualified;
        use crate::eval::builtins::nn::LAYERS;
        let activations = crate::eval::builtins::activations::CLASSES;
        let convs = crate::eval::builtins::conv::CLASSES;
        let resize = crate::eval::builtins::resize::CLASSES;
        let fold = crate::eval::builtins::fold::CLASSES;
        let pools = crate::eval::builtins::pool::CLASSES;
        let params = crate::eval::param_containers::CLASSES;
        let losses = crate::eval::builtins::composed_losses::CLASSES
            .iter()
            .map(|(c, _)| c);
        for layer in LAYERS
            .iter()
            .chain(activations)
            .chain(convs)
            .chain(resize)
            .chain(fold)
            .chain(pools)
            .chain(params)
            .chain(losses)
        {
            assert!(qualified(layer).is_some(), "{layer}");
        }
    }
}
