//! `torch.load(path, weights_only=False)` of a whole model, and of an
//! instance of the program's classes: what `module_pickle.rs` writes and
//! what PyTorch's `torch.save(model, path)` writes. Nothing in the file
//! runs. A built-in layer is made by cudash's own constructor from the
//! settings the file keeps (`in_features`, `kernel_size`...), drawing no
//! random numbers, then given the file's parameters and buffers; a class
//! of the program's is found as pickle finds it (`__main__`'s, or its
//! module's, imported) and its instance gets the file's attributes
//! without `__init__` running (or its `__setstate__` gets them).

use std::collections::HashMap;
use std::sync::Arc;

use super::args::ArgVal;
use super::module_pickle::HOOK_DICTS;
use super::value::{Class, Object};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::lang::Span;
use crate::nn::layer::Layer;
use crate::nn::module::Buffer;
use crate::nn::{Module, ModuleRef};
use crate::runtime::io::{Pickled, SavedObject};
use crate::runtime::lock::lock;
use crate::runtime::{Device, Tensor};

/// What a layer keeps that its constructor recomputes (a convolution's
/// padding reversed, a recurrent layer's weights listed again).
const DERIVED: &[&str] = &[
    "_is_full_backward_hook",
    "_reversed_padding_repeated_twice",
    "_flat_weights_names",
    "_all_weights",
    "_flat_weights",
    "_flat_weight_refs",
    "transposed",
    "mode",
];

/// A load under way: where its tensors go, those made so far by the
/// file's tensor they came from (one tensor the file names twice, as tied
/// weights are, is one tensor of the session too), and how a value of the
/// file becomes the session's (`checkpoint.rs`'s reader, which calls back
/// here for objects).
pub(super) struct Loading {
    pub device: Option<Device>,
    pub tensors: HashMap<usize, Arc<Tensor>>,
    pub read: Read,
}

/// The reader of one value of the file.
pub(super) type Read = fn(&mut Interp, Pickled, &mut Loading, Span) -> Result<Value, Diagnostic>;

fn value(me: &mut Interp, p: Pickled, load: &mut Loading, span: Span) -> Result<Value, Diagnostic> {
    (load.read)(me, p, load, span)
}

/// An object of the file, made in the session.
pub(super) fn load_object(
    me: &mut Interp,
    o: SavedObject,
    load: &mut Loading,
    span: Span,
) -> Result<Value, Diagnostic> {
    if o.module.starts_with("torch.nn.modules.") {
        let name = o.name.clone();
        return load_module(me, None, Some(&name), o, load, span);
    }
    let qualified = format!("{}.{}", o.module, o.name);
    if o.module == "torch" || o.module.starts_with("torch.") || o.module.starts_with("numpy") {
        let help = match o.module.starts_with("torch.nn.parallel") {
            true => "save the model inside it: `torch.save(model.module, path)`",
            false => "save plain values, tensors, or a model's state_dict",
        };
        return Err(Error::value_help(
            format!("cudash cannot load a {qualified} from a file"),
            help,
        )
        .at(span));
    }
    let class = match me.pickled_global(&o.module, &o.name, span)? {
        Some(Value::Class(c)) => c,
        Some(other) => {
            return Err(Error::wrong_type(
                format!("`{qualified}`, which the file makes an object of"),
                "a class",
                other.type_name(),
            )
            .at(span))
        }
        None => {
            return Err(Error::Attribute {
                message: format!("Can't get attribute '{}' on <module '{}'>", o.name, o.module),
                help: Some(format!(
                    "pickle keeps a model's class by name, not its code: define (or import) `{}` before loading the file",
                    o.name
                )),
            }
            .at(span))
        }
    };
    match class.is_module() {
        true => {
            let layer = class.layer();
            load_module(me, Some(class), layer, o, load, span)
        }
        false => load_plain(me, class, o, load, span),
    }
}

/// A pickled `__dict__` (the object's `state`, taken): its keys and
/// values, in order.
fn entries(o: &mut SavedObject, span: Span) -> Result<Vec<(String, Pickled)>, Diagnostic> {
    let damaged = Error::value(format!(
        "the file's {}.{} has a damaged state (not a dict of attributes)",
        o.module, o.name
    ))
    .at(span);
    match o.state.take().map(|s| *s) {
        None => Ok(Vec::new()),
        Some(Pickled::Dict(pairs) | Pickled::OrderedDict(pairs)) => pairs
            .into_iter()
            .map(|(k, v)| match k {
                Pickled::Str(k) => Ok((k, v)),
                _ => Err(damaged.clone()),
            })
            .collect(),
        Some(_) => Err(damaged),
    }
}

fn take(state: &mut Vec<(String, Pickled)>, key: &str) -> Option<Pickled> {
    let at = state.iter().position(|(k, _)| k == key)?;
    Some(state.remove(at).1)
}

/// A dict of the state (`_parameters`, `_modules`) as its pairs by name.
fn named(p: Option<Pickled>, what: &str, span: Span) -> Result<Vec<(String, Pickled)>, Diagnostic> {
    match p {
        None => Ok(Vec::new()),
        Some(Pickled::Dict(pairs) | Pickled::OrderedDict(pairs)) => pairs
            .into_iter()
            .map(|(k, v)| match k {
                Pickled::Str(k) => Ok((k, v)),
                _ => Err(
                    Error::value(format!("the file's {what} are not named by strings")).at(span),
                ),
            })
            .collect(),
        Some(_) => Err(Error::value(format!("the file's {what} are not a dict")).at(span)),
    }
}

fn tensor(
    me: &mut Interp,
    p: Pickled,
    load: &mut Loading,
    span: Span,
) -> Result<Option<Arc<Tensor>>, Diagnostic> {
    match value(me, p, load, span)? {
        Value::None => Ok(None),
        Value::Tensor(t) => Ok(Some(t)),
        other => Err(Error::wrong_type(
            "a module's parameter or buffer in the file",
            "a tensor",
            other.type_name(),
        )
        .at(span)),
    }
}

/// A module of the file: a built-in layer (`layer`), an instance of the
/// program's `class`, or both (`class Net(nn.Linear)`).
fn load_module(
    me: &mut Interp,
    class: Option<Arc<Class>>,
    layer: Option<&str>,
    mut o: SavedObject,
    load: &mut Loading,
    span: Span,
) -> Result<Value, Diagnostic> {
    let mut state = entries(&mut o, span)?;
    let training = !matches!(take(&mut state, "training"), Some(Pickled::Bool(false)));
    let params = named(take(&mut state, "_parameters"), "parameters", span)?;
    let buffers = named(take(&mut state, "_buffers"), "buffers", span)?;
    let children = named(take(&mut state, "_modules"), "modules", span)?;
    let non_persistent: Vec<String> = match take(&mut state, "_non_persistent_buffers_set") {
        Some(Pickled::List(names) | Pickled::Tuple(names)) => names
            .into_iter()
            .filter_map(|n| match n {
                Pickled::Str(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    for hooks in HOOK_DICTS {
        match take(&mut state, hooks) {
            Some(Pickled::Dict(d) | Pickled::OrderedDict(d)) if !d.is_empty() => {
                return Err(Error::value_help(
                    format!(
                        "the file's {} has hooks ({hooks}), which cudash cannot load",
                        o.name
                    ),
                    "save the model without its hooks, or its state_dict",
                )
                .at(span))
            }
            _ => {}
        }
    }
    // The layer, made by cudash's constructor from the settings it takes.
    let module = match layer {
        Some(name) => {
            let bias = params
                .iter()
                .find(|(n, _)| n == "bias")
                .map(|(_, v)| !matches!(v, Pickled::None));
            build_layer(me, name, &mut state, bias, class.is_none(), load, span)?
        }
        None => Module::new("Module", Layer::Custom).into_ref(),
    };
    let object = class.map(|c| Arc::new(Object::new(c)));
    let mut loaded_params = Vec::new();
    for (n, p) in params {
        loaded_params.push((n, tensor(me, p, load, span)?));
    }
    let mut loaded_buffers = Vec::new();
    for (n, p) in buffers {
        let persistent = !non_persistent.contains(&n);
        loaded_buffers.push(Buffer {
            tensor: tensor(me, p, load, span)?,
            name: n,
            persistent,
        });
    }
    let mut loaded_children = Vec::new();
    for (n, p) in children {
        let child = match value(me, p, load, span)? {
            Value::None => None,
            Value::Module(m) => Some(m),
            other => {
                return Err(Error::wrong_type(
                    format!("the file's child module `{n}`"),
                    "a module",
                    other.type_name(),
                )
                .at(span))
            }
        };
        loaded_children.push((n, child));
    }
    {
        let mut m = lock(&module);
        if let Some(o) = &object {
            m.type_name = Arc::from(o.class.name.as_str());
            m.object = Some(Arc::clone(o) as Arc<dyn std::any::Any + Send + Sync>);
        }
        m.training = training;
        m.initialised = true;
        m.parameters = loaded_params;
        m.buffers = loaded_buffers;
        m.modules = loaded_children;
    }
    // The program's own attributes (`self.hidden = 128`).
    if let Some(o) = &object {
        for (k, v) in state {
            if DERIVED.contains(&k.as_str()) {
                continue;
            }
            let v = value(me, v, load, span)?;
            o.set(&k, v);
        }
    }
    Ok(Value::Module(module))
}

/// Whether a setting the constructor does not take is PyTorch's default,
/// which cudash computes anyway (`Embedding`'s `sparse=False`).
fn default_setting(layer: &str, name: &str, v: &Pickled) -> bool {
    match (name, v) {
        ("norm_type", Pickled::Float(x)) => *x == 2.0,
        ("scale_grad_by_freq" | "sparse" | "return_indices", Pickled::Bool(b)) => !b,
        ("count_include_pad", Pickled::Bool(b)) => *b,
        ("max_norm" | "divisor_override", Pickled::None) => true,
        ("proj_size", Pickled::Int(0)) => true,
        ("output_padding", _) => !layer.starts_with("ConvTranspose"),
        ("min_val" | "max_val", _) => layer == "ReLU6",
        ("inplace", Pickled::Bool(b)) => !b,
        ("value", Pickled::Float(x)) => *x == 0.0 && layer.starts_with("ZeroPad"),
        ("name", _) => layer.starts_with("Upsampl"),
        ("align_corners" | "recompute_scale_factor", _) => layer.starts_with("Upsampling"),
        ("init", _) => true,
        _ => false,
    }
}

/// The layer `name` as cudash's constructor makes it from the settings in
/// `state` (taking those it uses); `bias`: whether the file's layer has
/// one. `whole`: the layer is not part of a class of the program's, so a
/// setting cudash does not know is an error, not an attribute.
fn build_layer(
    me: &mut Interp,
    name: &str,
    state: &mut Vec<(String, Pickled)>,
    bias: Option<bool>,
    whole: bool,
    load: &mut Loading,
    span: Span,
) -> Result<ModuleRef, Diagnostic> {
    let doc = super::docs::function(name).ok_or_else(|| {
        Error::value_help(
            format!("the file's model has a {name}, which cudash does not have"),
            "see `help(\"nn\")` for the layers cudash has",
        )
        .at(span)
    })?;
    let takes: Vec<&str> = super::docs::params(doc.signature)
        .iter()
        .map(|p| p.name)
        .collect();
    let keyword = |k: &str, value: Value| ArgVal {
        keyword: Some(Name::new(k.into(), span)),
        value,
        span,
    };
    let mut args = Vec::new();
    let mut kept = Vec::new();
    for (k, v) in std::mem::take(state) {
        if takes.contains(&k.as_str()) {
            let value = value(me, v, load, span)?;
            args.push(keyword(&k, value));
        } else if k.starts_with('_')
            || DERIVED.contains(&k.as_str())
            || default_setting(name, &k, &v)
        {
            if !whole && !DERIVED.contains(&k.as_str()) {
                kept.push((k, v));
            }
        } else if whole {
            return Err(Error::value_help(
                format!("the file's {name} has a setting cudash's {name} does not take: {k}"),
                "save the model's state_dict and build the model in cudash",
            )
            .at(span));
        } else {
            kept.push((k, v));
        }
    }
    *state = kept;
    let has_affine_off = args.iter().any(|a| {
        matches!(
            a.keyword.as_ref().map(|k| k.name.as_str()),
            Some("affine" | "elementwise_affine")
        ) && matches!(a.value, Value::Bool(ref b) if !b.get())
    });
    if let Some(bias) = bias {
        let given = args
            .iter()
            .any(|a| a.keyword.as_ref().is_some_and(|k| k.name == "bias"));
        if takes.contains(&"bias") && !given && !has_affine_off {
            args.push(keyword("bias", Value::bool(bias)));
        }
    }
    // Its weights are the file's: the draws of `reset_parameters` leave
    // the session's generators as they were.
    let generators = me.rt.generators.clone();
    let made = me.call_builtin(doc, args, span);
    me.rt.generators = generators;
    match made? {
        Value::Module(m) => Ok(m),
        _ => Err(Error::value(format!("internal error: {name}() made no module")).at(span)),
    }
}

/// An instance of the program's class (not a module): made without
/// `__init__`, given the file's attributes, or passed them through its
/// `__setstate__`.
fn load_plain(
    me: &mut Interp,
    class: Arc<Class>,
    mut o: SavedObject,
    load: &mut Loading,
    span: Span,
) -> Result<Value, Diagnostic> {
    let object = Arc::new(Object::new(Arc::clone(&class)));
    let this = Value::Object(Arc::clone(&object));
    if class.tuple {
        for (field, v) in class.fields.iter().zip(std::mem::take(&mut o.args)) {
            let v = value(me, v, load, span)?;
            object.set(field, v);
        }
    }
    if let Some(Value::Function(f)) = class.find("__setstate__") {
        if let Some(state) = o.state.take() {
            let state = value(me, *state, load, span)?;
            me.call_bound(&this, f, vec![ArgVal::positional(state, span)], span)?;
        }
        return Ok(this);
    }
    for (k, v) in entries(&mut o, span)? {
        let v = value(me, v, load, span)?;
        object.set(&k, v);
    }
    Ok(this)
}
