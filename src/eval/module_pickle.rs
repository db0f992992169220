//! A whole model in a checkpoint: `torch.save(model, path)` writes the
//! module as PyTorch pickles one (its class by module and name, then its
//! `__dict__`: `training`, `_parameters`, `_buffers`, the hook dicts,
//! `_modules`, the layer's settings, the program's own attributes), and
//! `torch.load(path, weights_only=False)` reads back what PyTorch or
//! cudash wrote. Nothing of the file runs: a built-in layer is made by
//! cudash's own constructor from its settings (drawing no random numbers)
//! and given the file's tensors; a class of the program's must be defined
//! (or importable) in the session, as Python's pickle needs, and its
//! instance gets the file's attributes without `__init__`.

use std::sync::Arc;

use super::value::Object;
use super::{Interp, Value};
use crate::autograd::node::Reduction;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::layer::{Layer, Recurrence};
use crate::nn::{Module, ModuleRef};
use crate::runtime::io::{Pickled, SavedObject};
use crate::runtime::lock::lock;
use crate::runtime::op::unary::UnaryOp;

/// `Module.__init__`'s dicts of hooks, in PyTorch 2.15's order: empty in
/// a model cudash writes or reads.
pub(super) const HOOK_DICTS: &[&str] = &[
    "_backward_pre_hooks",
    "_backward_hooks",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
];

fn text(s: &str) -> Pickled {
    Pickled::Str(s.to_string())
}

fn int(i: impl TryInto<i64>) -> Pickled {
    Pickled::Int(i.try_into().unwrap_or(i64::MAX))
}

fn ints(v: &[usize]) -> Pickled {
    Pickled::Tuple(v.iter().map(|&i| int(i)).collect())
}

/// What `cls(*args)` returns, as pickle writes a call (REDUCE).
fn called(module: &str, name: &str, args: Vec<Pickled>) -> Pickled {
    Pickled::Object(SavedObject {
        module: module.into(),
        name: name.into(),
        args,
        state: None,
        called: true,
    })
}

fn ordered_dict() -> Pickled {
    called("collections", "OrderedDict", Vec::new())
}

/// An instance made without `__init__` and given `state` (NEWOBJ, BUILD).
fn instance(module: &str, name: &str, args: Vec<Pickled>, state: Option<Pickled>) -> Pickled {
    Pickled::Object(SavedObject {
        module: module.into(),
        name: name.into(),
        args,
        state: state.map(Box::new),
        called: false,
    })
}

/// How a value of the session is written (`checkpoint.rs`'s writer, which
/// calls back here for modules and objects).
pub(super) type Write = fn(&mut Interp, &Value, Span) -> Result<Pickled, Diagnostic>;

/// A module as `torch.save` pickles it.
pub(super) fn save_module(
    me: &mut Interp,
    m: &ModuleRef,
    span: Span,
    write: Write,
) -> Result<Pickled, Diagnostic> {
    // What is needed, copied out: a child or an attribute may be saved
    // while this module would stay locked.
    let object = super::value::object_of(m);
    let (layer, type_name, training, parameters, buffers, modules, hooked) = {
        let m = lock(m);
        let hooked = !m.forward_pre_hooks.is_empty() || !m.forward_hooks.is_empty();
        (
            m.layer.clone(),
            m.type_name.to_string(),
            m.training,
            m.parameters.clone(),
            m.buffers.clone(),
            m.modules.clone(),
            hooked,
        )
    };
    let refuse = |message: String| {
        Error::value_help(
            message,
            "save its state_dict instead: `torch.save(model.state_dict(), path)`, then `model.load_state_dict(torch.load(path))`",
        )
        .at(span)
    };
    if hooked {
        return Err(refuse(format!(
            "cudash cannot save a whole {type_name} with forward hooks (pickle would need their functions)"
        )));
    }
    let (module, name) = match &object {
        Some(o) => (o.class.module(), o.class.name.clone()),
        None => {
            let path = super::builtins::classes::qualified(&type_name)
                .filter(|p| p.starts_with("torch.nn.modules."))
                .ok_or_else(|| refuse(format!("cudash cannot save a whole {type_name} yet")))?;
            let (module, name) = path.rsplit_once('.').expect("a qualified name");
            (module.to_string(), name.to_string())
        }
    };
    let settings = settings(&layer, &type_name, &parameters)
        .map_err(|what| refuse(format!("cudash cannot save a whole {what} yet")))?;
    let tensor = |me: &mut Interp, t: &Option<Arc<crate::runtime::Tensor>>| match t {
        Some(t) => write(me, &Value::Tensor(Arc::clone(t)), span),
        None => Ok(Pickled::None),
    };
    let mut params = Vec::new();
    for (n, t) in &parameters {
        params.push((text(n), tensor(me, t)?));
    }
    let mut bufs = Vec::new();
    for b in &buffers {
        bufs.push((text(&b.name), tensor(me, &b.tensor)?));
    }
    let non_persistent = buffers
        .iter()
        .filter(|b| !b.persistent)
        .map(|b| text(&b.name))
        .collect();
    let mut children = Vec::new();
    for (n, c) in &modules {
        let c = match c {
            Some(c) => save_module(me, c, span, write)?,
            None => Pickled::None,
        };
        children.push((text(n), c));
    }
    // PyTorch 2.15's `Module.__init__` order, then the layer's settings.
    let mut state = vec![
        ("training".to_string(), Pickled::Bool(training)),
        ("_parameters".into(), Pickled::Dict(params)),
        ("_buffers".into(), Pickled::Dict(bufs)),
        (
            "_non_persistent_buffers_set".into(),
            called("__builtin__", "set", vec![Pickled::List(non_persistent)]),
        ),
    ];
    // `_is_full_backward_hook` sits after the backward hooks' dicts.
    for (k, hooks) in HOOK_DICTS.iter().enumerate() {
        if k == 2 {
            state.push(("_is_full_backward_hook".into(), Pickled::None));
        }
        state.push((hooks.to_string(), ordered_dict()));
    }
    state.push(("_modules".into(), Pickled::Dict(children)));
    let first = match settings.first() {
        // RNN's `nonlinearity` and PReLU's `num_parameters` are set before
        // `Module.__init__` runs.
        Some(("nonlinearity", _)) if matches!(layer, Layer::Recurrent(_)) => 1,
        Some(("num_parameters", _)) => 1,
        _ => 0,
    };
    let mut flat_weights = None;
    for (k, v) in settings.iter().take(first) {
        state.insert(0, (k.to_string(), v.clone()));
    }
    for (k, v) in settings.into_iter().skip(first) {
        // A recurrent layer's `_flat_weights`: its parameters again, in
        // the order of their names (the pickle names each tensor once).
        if let ("_flat_weights_names", Pickled::List(names)) = (k, &v) {
            let mut flat = Vec::new();
            for n in names {
                let t = parameters
                    .iter()
                    .find(|(p, _)| matches!(n, Pickled::Str(s) if s == p))
                    .and_then(|(_, t)| t.clone());
                flat.push(tensor(me, &t)?);
            }
            state.push((k.to_string(), v.clone()));
            flat_weights = Some(Pickled::List(flat));
            continue;
        }
        state.push((k.to_string(), v));
    }
    if let Some(flat) = flat_weights {
        state.push(("_flat_weights".into(), flat));
    }
    if let Some(o) = &object {
        let attrs = lock(&o.attrs).clone();
        for (k, v) in attrs {
            let v = write(me, &v, span)?;
            state.push((k, v));
        }
    }
    let state = Pickled::Dict(state.into_iter().map(|(k, v)| (text(&k), v)).collect());
    Ok(instance(&module, &name, Vec::new(), Some(state)))
}

/// An instance of the program's class as pickle writes one: its class by
/// module and name, and its attributes (a named tuple: its fields, given
/// to `__new__`).
pub(super) fn save_object(
    me: &mut Interp,
    o: &Arc<Object>,
    span: Span,
    write: Write,
) -> Result<Pickled, Diagnostic> {
    let class = &o.class;
    if class.exception().is_some() || class.is_autograd_function() {
        return Err(Error::wrong_type(
            "what save() writes",
            "tensors, modules, dicts, lists, numbers, strings, or instances of the program's classes",
            class.name.clone(),
        )
        .at(span));
    }
    let module = class.module();
    if class.tuple {
        let mut args = Vec::new();
        for v in o.tuple_items() {
            args.push(write(me, &v, span)?);
        }
        return Ok(instance(&module, &class.name, args, None));
    }
    let attrs = lock(&o.attrs).clone();
    let mut state = Vec::new();
    for (k, v) in attrs {
        state.push((text(&k), write(me, &v, span)?));
    }
    Ok(instance(
        &module,
        &class.name,
        Vec::new(),
        Some(Pickled::Dict(state)),
    ))
}

/// The layer's settings as PyTorch 2.15 keeps them in its `__dict__`, in
/// its order; an error names a layer cudash cannot write whole yet.
fn settings(
    layer: &Layer,
    type_name: &str,
    parameters: &[(String, Option<Arc<crate::runtime::Tensor>>)],
) -> Result<Vec<(&'static str, Pickled)>, String> {
    let b = Pickled::Bool;
    let f = Pickled::Float;
    let weight_shape = || {
        parameters
            .iter()
            .find(|(n, _)| n == "weight")
            .and_then(|(_, t)| t.as_ref().map(|t| t.shape().to_vec()))
            .ok_or_else(|| format!("{type_name} without its weight"))
    };
    // A pair as PyTorch keeps a 1-d layer's (`(w,)`) or a 2-d one's.
    let pair = |one_d: bool, (h, w): (usize, usize)| match one_d {
        true => ints(&[w]),
        false => ints(&[h, w]),
    };
    // A pool's setting as the program gave it, an int or a tuple, as its
    // shown settings keep it (`kernel_size=2`, `output_size=(1, 1)`).
    let single = |shown: &str, key: &str, one_d: bool, (h, w): (usize, usize)| {
        let tuple = shown
            .split(&format!("{key}="))
            .nth(1)
            .is_some_and(|v| v.starts_with('('));
        match tuple {
            true => pair(one_d, (h, w)),
            false => int(w),
        }
    };
    let reduction = |r: &Reduction| text(r.name());
    Ok(match layer {
        Layer::Custom
        | Layer::Sequential
        | Layer::ModuleList
        | Layer::ModuleDict
        | Layer::Identity => Vec::new(),
        Layer::Linear {
            in_features,
            out_features,
        } => vec![
            ("in_features", int(*in_features)),
            ("out_features", int(*out_features)),
        ],
        Layer::Bilinear {
            in1_features,
            in2_features,
            out_features,
        } => vec![
            ("in1_features", int(*in1_features)),
            ("in2_features", int(*in2_features)),
            ("out_features", int(*out_features)),
        ],
        Layer::Embedding {
            num_embeddings,
            embedding_dim,
            padding_idx,
            max_norm,
        } => vec![
            ("num_embeddings", int(*num_embeddings)),
            ("embedding_dim", int(*embedding_dim)),
            (
                "padding_idx",
                match padding_idx {
                    Some(i) if *i < 0 => int(*num_embeddings as i64 + i),
                    Some(i) => int(*i),
                    None => Pickled::None,
                },
            ),
            (
                "max_norm",
                max_norm.as_ref().map_or(Pickled::None, |m| f(m.max)),
            ),
            (
                "norm_type",
                f(max_norm.as_ref().map_or(2.0, |m| m.norm_type)),
            ),
            ("scale_grad_by_freq", b(false)),
            ("sparse", b(false)),
        ],
        Layer::Conv {
            transposed,
            one_d,
            stride,
            padding,
            dilation,
            output_padding,
            groups,
            padding_mode,
            reversed_padding,
            shown,
        } => {
            let shape = weight_shape()?;
            let (a, c) = (shape[0], shape[1] * groups);
            let (cin, cout) = if *transposed { (a, c) } else { (c, a) };
            let kernel: Vec<usize> = shape[2..].to_vec();
            let kernel_pair = match kernel.as_slice() {
                [k] => (1, *k),
                [h, w] => (*h, *w),
                _ => return Err(format!("{type_name} of {} dimensions", kernel.len())),
            };
            let named = ["same", "valid"]
                .into_iter()
                .find(|p| shown.contains(&format!("padding={p}")));
            // PyTorch's `_reversed_padding_repeated_twice`: a list for a
            // padding named, else a tuple.
            let listed: Vec<Pickled> = reversed_padding.iter().map(|&p| int(p)).collect();
            let (pad_value, reversed) = match named {
                Some(p) => (text(p), Pickled::List(listed)),
                None => (pair(*one_d, *padding), Pickled::Tuple(listed)),
            };
            let mode_name = padding_mode.map_or("zeros", |e| e.name());
            vec![
                ("in_channels", int(cin)),
                ("out_channels", int(cout)),
                ("kernel_size", pair(*one_d, kernel_pair)),
                ("stride", pair(*one_d, *stride)),
                ("padding", pad_value),
                ("dilation", pair(*one_d, *dilation)),
                ("transposed", b(*transposed)),
                ("output_padding", pair(*one_d, *output_padding)),
                ("groups", int(*groups)),
                ("padding_mode", text(mode_name)),
                ("_reversed_padding_repeated_twice", reversed),
            ]
        }
        Layer::Pool {
            max: true,
            one_d,
            kernel,
            stride,
            padding,
            dilation,
            ceil_mode,
            return_indices,
            shown,
        } => vec![
            ("kernel_size", single(shown, "kernel_size", *one_d, *kernel)),
            ("stride", single(shown, "stride", *one_d, *stride)),
            ("padding", single(shown, "padding", *one_d, *padding)),
            ("dilation", single(shown, "dilation", *one_d, *dilation)),
            ("return_indices", b(*return_indices)),
            ("ceil_mode", b(*ceil_mode)),
        ],
        Layer::Pool {
            max: false,
            one_d,
            kernel,
            stride,
            padding,
            ceil_mode,
            shown,
            ..
        } => vec![
            ("kernel_size", single(shown, "kernel_size", *one_d, *kernel)),
            ("stride", single(shown, "stride", *one_d, *stride)),
            ("padding", single(shown, "padding", *one_d, *padding)),
            ("ceil_mode", b(*ceil_mode)),
            ("count_include_pad", b(true)),
        ]
        .into_iter()
        // AvgPool1d has no `divisor_override`.
        .chain((!*one_d).then_some(("divisor_override", Pickled::None)))
        .collect(),
        Layer::MaxUnpool {
            one_d,
            kernel,
            stride,
            padding,
            shown,
        } => vec![
            ("kernel_size", single(shown, "kernel_size", *one_d, *kernel)),
            ("stride", single(shown, "stride", *one_d, *stride)),
            ("padding", single(shown, "padding", *one_d, *padding)),
        ],
        Layer::AdaptivePool {
            max,
            one_d,
            out,
            shown,
        } => {
            let mut s = vec![("output_size", single(shown, "output_size", *one_d, *out))];
            if *max {
                s.push(("return_indices", b(false)));
            }
            s
        }
        Layer::BatchNorm {
            num_features,
            eps,
            momentum,
            affine,
            track_running_stats,
            ..
        } => vec![
            ("num_features", int(*num_features)),
            ("eps", f(*eps)),
            ("momentum", momentum.map_or(Pickled::None, f)),
            ("affine", b(*affine)),
            ("track_running_stats", b(*track_running_stats)),
        ],
        Layer::GroupNorm {
            groups,
            num_channels,
            eps,
            affine,
        } => vec![
            ("num_groups", int(*groups)),
            ("num_channels", int(*num_channels)),
            ("eps", f(*eps)),
            ("affine", b(*affine)),
        ],
        Layer::LayerNorm {
            normalized_shape,
            eps,
            elementwise_affine,
            ..
        } => vec![
            ("normalized_shape", ints(normalized_shape)),
            ("eps", f(*eps)),
            ("elementwise_affine", b(*elementwise_affine)),
        ],
        Layer::RmsNorm {
            normalized_shape,
            eps,
            elementwise_affine,
        } => vec![
            ("normalized_shape", ints(normalized_shape)),
            ("eps", eps.map_or(Pickled::None, f)),
            ("elementwise_affine", b(*elementwise_affine)),
        ],
        Layer::Flatten { start_dim, end_dim } => {
            vec![("start_dim", int(*start_dim)), ("end_dim", int(*end_dim))]
        }
        Layer::Unflatten { dim, sizes, .. } => vec![
            ("dim", int(*dim)),
            (
                "unflattened_size",
                Pickled::Tuple(sizes.iter().map(|&s| int(s)).collect()),
            ),
        ],
        Layer::Dropout { p, inplace, .. } => vec![("p", f(*p)), ("inplace", b(*inplace))],
        Layer::Activation { op, inplace } => match op {
            UnaryOp::Relu | UnaryOp::Silu | UnaryOp::Mish => vec![("inplace", b(*inplace))],
            UnaryOp::Gelu => vec![("approximate", text("none"))],
            UnaryOp::GeluTanh => vec![("approximate", text("tanh"))],
            _ => Vec::new(),
        },
        Layer::Pointwise { kind, inplace, .. } => {
            use crate::autograd::activation::Activation as A;
            let inplace = ("inplace", b(*inplace));
            match (type_name, kind) {
                ("SELU", _) => vec![inplace],
                ("ELU" | "CELU", A::Elu { alpha, .. }) => vec![("alpha", f(*alpha)), inplace],
                (_, A::Softplus { beta, threshold }) => {
                    vec![("beta", f(*beta)), ("threshold", f(*threshold))]
                }
                (_, A::Hardtanh { min, max }) => {
                    vec![("min_val", f(*min)), ("max_val", f(*max)), inplace]
                }
                (_, A::LeakyRelu { slope }) => vec![("negative_slope", f(*slope)), inplace],
                (_, A::LogSigmoid) => Vec::new(),
                (_, A::Hardswish | A::Hardsigmoid) => vec![inplace],
                (_, A::Hardshrink { lambd } | A::Softshrink { lambd }) => {
                    vec![("lambd", f(*lambd))]
                }
                (_, A::Threshold { threshold, value }) => {
                    vec![("threshold", f(*threshold)), ("value", f(*value)), inplace]
                }
                _ => return Err(type_name.to_string()),
            }
        }
        Layer::Softsign | Layer::Tanhshrink | Layer::Softmax2d => Vec::new(),
        Layer::Softmin { dim } => vec![("dim", dim.map_or(Pickled::None, int))],
        Layer::Glu { dim } => vec![("dim", int(*dim))],
        Layer::Softmax { dim, .. } => vec![("dim", dim.map_or(Pickled::None, int))],
        Layer::Unfold { win, shown } | Layer::Fold { win, shown, .. } => {
            let mut all = vec![];
            if let Layer::Fold { size, .. } = layer {
                all.push(("output_size", single(shown, "output_size", false, *size)));
            }
            all.extend([
                (
                    "kernel_size",
                    single(shown, "kernel_size", false, win.kernel),
                ),
                ("dilation", single(shown, "dilation", false, win.dilation)),
                ("padding", single(shown, "padding", false, win.padding)),
                ("stride", single(shown, "stride", false, win.stride)),
            ]);
            all
        }
        Layer::PixelShuffle {
            factor,
            inverse: false,
        } => vec![("upscale_factor", int(*factor))],
        Layer::PixelShuffle {
            factor,
            inverse: true,
        } => vec![("downscale_factor", int(*factor))],
        Layer::MseLoss(r) | Layer::L1Loss(r) => vec![("reduction", reduction(r))],
        Layer::PointwiseLoss { kind, reduction: r } => {
            use crate::autograd::node::PointwiseLoss as P;
            match kind {
                P::BinaryCrossEntropy | P::BinaryCrossEntropyWithLogits | P::SoftMargin => {
                    vec![("reduction", reduction(r))]
                }
                P::SmoothL1 { beta } => vec![("reduction", reduction(r)), ("beta", f(*beta))],
                P::Huber { delta } => vec![("reduction", reduction(r)), ("delta", f(*delta))],
            }
        }
        Layer::CrossEntropyLoss {
            ignore_index,
            reduction: r,
            label_smoothing,
        } => vec![
            ("reduction", reduction(r)),
            ("ignore_index", int(*ignore_index)),
            ("label_smoothing", f(*label_smoothing)),
        ],
        Layer::NllLoss {
            ignore_index,
            reduction: r,
        } => vec![
            ("reduction", reduction(r)),
            ("ignore_index", int(*ignore_index)),
        ],
        Layer::Recurrent(r) => {
            let mode = match r.kind {
                Recurrence::Lstm => "LSTM",
                Recurrence::Gru => "GRU",
                Recurrence::RnnTanh => "RNN_TANH",
                Recurrence::RnnRelu => "RNN_RELU",
            };
            let mut s = Vec::new();
            match r.kind {
                Recurrence::RnnTanh => s.push(("nonlinearity", text("tanh"))),
                Recurrence::RnnRelu => s.push(("nonlinearity", text("relu"))),
                _ => {}
            }
            // The weights' names by layer and direction, in PyTorch's order.
            let mut all = Vec::new();
            let mut flat_names = Vec::new();
            for layer in 0..r.num_layers {
                for direction in 0..r.directions() {
                    let suffix = if direction == 1 { "_reverse" } else { "" };
                    let mut names = vec![
                        format!("weight_ih_l{layer}{suffix}"),
                        format!("weight_hh_l{layer}{suffix}"),
                    ];
                    if r.bias {
                        names.push(format!("bias_ih_l{layer}{suffix}"));
                        names.push(format!("bias_hh_l{layer}{suffix}"));
                    }
                    for n in &names {
                        if !parameters.iter().any(|(p, t)| p == n && t.is_some()) {
                            return Err(format!("{type_name} without its {n}"));
                        }
                        flat_names.push(text(n));
                    }
                    all.push(Pickled::List(names.iter().map(|n| text(n)).collect()));
                }
            }
            s.extend([
                ("mode", text(mode)),
                ("input_size", int(r.input_size)),
                ("hidden_size", int(r.hidden_size)),
                ("num_layers", int(r.num_layers)),
                ("bias", b(r.bias)),
                ("batch_first", b(r.batch_first)),
                ("dropout", f(r.dropout)),
                ("bidirectional", b(r.bidirectional)),
                ("proj_size", int(0)),
                ("_flat_weights_names", Pickled::List(flat_names)),
                ("_all_weights", Pickled::List(all)),
            ]);
            s
        }
        Layer::RecurrentCell(c) => {
            let mut s = vec![
                ("input_size", int(c.input_size)),
                ("hidden_size", int(c.hidden_size)),
                ("bias", b(c.bias)),
            ];
            match c.kind {
                Recurrence::RnnTanh => s.push(("nonlinearity", text("tanh"))),
                Recurrence::RnnRelu => s.push(("nonlinearity", text("relu"))),
                _ => {}
            }
            s
        }
        Layer::Prelu { num_parameters } => {
            // `init` only fills the weight, which the file has.
            vec![("num_parameters", int(*num_parameters)), ("init", f(0.25))]
        }
        Layer::Upsample {
            size,
            scale,
            how,
            recompute_scale_factor,
            shown,
            ..
        } => {
            // As the program gave them: an int size or a tuple, one float
            // scale or a tuple of floats (its shown settings keep which).
            let tuple = |key: &str| {
                shown
                    .split(&format!("{key}="))
                    .nth(1)
                    .is_some_and(|v| v.starts_with('('))
            };
            let size = match size {
                Some(s) if tuple("size") => ints(s),
                Some(s) => s.first().map_or(Pickled::None, |&n| int(n)),
                None => Pickled::None,
            };
            let scale_factor = match scale {
                Some(s) if tuple("scale_factor") => {
                    Pickled::Tuple(s.iter().map(|&x| f(x)).collect())
                }
                Some(s) => s.first().map_or(Pickled::None, |&x| f(x)),
                None => Pickled::None,
            };
            let dims = match (&size, &scale_factor) {
                (Pickled::Tuple(t), _) | (_, Pickled::Tuple(t)) => t.len(),
                _ => 2,
            };
            // Not given is None, which PyTorch reads as False.
            let align_corners = match how.align_corners() {
                Some(true) => b(true),
                _ => Pickled::None,
            };
            vec![
                ("name", text(type_name)),
                ("size", size),
                ("scale_factor", scale_factor),
                ("mode", text(how.mode(dims))),
                ("align_corners", align_corners),
                (
                    "recompute_scale_factor",
                    if *recompute_scale_factor {
                        b(true)
                    } else {
                        Pickled::None
                    },
                ),
            ]
        }
        Layer::Pad {
            pads, edges, value, ..
        } => {
            let padding = Pickled::Tuple(pads.iter().map(|&p| int(p)).collect());
            match edges {
                None => vec![("value", f(*value)), ("padding", padding)],
                Some(_) => vec![("padding", padding)],
            }
        }
        Layer::EmbeddingBag {
            num_embeddings,
            embedding_dim,
            mean,
            include_last_offset,
        } => vec![
            ("num_embeddings", int(*num_embeddings)),
            ("embedding_dim", int(*embedding_dim)),
            ("max_norm", Pickled::None),
            ("norm_type", f(2.0)),
            ("scale_grad_by_freq", b(false)),
            ("padding_idx", Pickled::None),
            ("mode", text(if *mean { "mean" } else { "sum" })),
            ("sparse", b(false)),
            ("include_last_offset", b(*include_last_offset)),
        ],
        Layer::ParameterList => vec![("_size", int(parameters.len()))],
        Layer::ParameterDict => vec![(
            "_keys",
            Pickled::Dict(
                parameters
                    .iter()
                    .map(|(n, _)| (text(n), Pickled::None))
                    .collect(),
            ),
        )],
        _ => return Err(type_name.to_string()),
    })
}

/// A layer's setting as PyTorch keeps it (`conv.kernel_size`,
/// `emb.padding_idx`, `bn.num_features`), read as an attribute.
pub(super) fn setting(m: &Module, name: &str) -> Option<Value> {
    if name.starts_with('_') && name != "_reversed_padding_repeated_twice" {
        return None;
    }
    let all = settings(&m.layer, &m.type_name, &m.parameters).ok()?;
    let (_, p) = all.into_iter().find(|(k, _)| *k == name)?;
    plain(&p)
}

/// A setting's value in the session (numbers, strings, tuples, lists).
fn plain(p: &Pickled) -> Option<Value> {
    Some(match p {
        Pickled::None => Value::None,
        Pickled::Bool(b) => Value::bool(*b),
        Pickled::Int(i) => Value::Int(*i),
        Pickled::Float(f) => Value::float(*f),
        Pickled::Str(s) => Value::Str(Arc::new(s.clone())),
        Pickled::Tuple(items) => {
            Value::List(Arc::new(items.iter().map(plain).collect::<Option<_>>()?))
        }
        Pickled::List(items) => Value::list(items.iter().map(plain).collect::<Option<_>>()?),
        _ => return None,
    })
}
