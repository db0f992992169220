//! `nn.ParameterList` and `nn.ParameterDict`, as PyTorch's `container.py`
//! keeps them: modules whose own parameters are their items (named `0`,
//! `1`, ... in a list, by key in a dict), so `parameters()`,
//! `state_dict()`, `to()` and an optimizer see them. A tensor put in is
//! made a `Parameter`, as PyTorch's `__setitem__` makes it; and the
//! container methods a program calls on them and on `ModuleDict`,
//! `ModuleList` and `Sequential` (`extend`, `keys`, `values`, `items`,
//! `update`, `pop`, `get`).

use std::sync::Arc;

use super::args::Bound;
use super::{Interp, Value};
use crate::autograd::meta;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::layers::Layer;
use crate::nn::module::{Member, ModuleRef};
use crate::nn::Module;
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// The classes this file makes.
pub const CLASSES: &[&str] = &["ParameterList", "ParameterDict"];

fn type_error(message: String) -> Error {
    Error::type_error(message)
}

/// `ParameterList(values=none)`, `ParameterDict(parameters=none)`.
pub(super) fn constructor(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let (layer, arg) = match name {
        "ParameterList" => (Layer::ParameterList, "values"),
        _ => (Layer::ParameterDict, "parameters"),
    };
    let m = Module::new(name, layer).into_ref();
    match b.given(arg) {
        None | Some((Value::None, _)) => {}
        Some((v, span)) if name == "ParameterList" => extend(me, &m, v, *span)?,
        Some((v, span)) => update(me, &m, v, *span)?,
    }
    Ok(Value::Module(m))
}

/// What a container keeps a tensor as: the tensor itself when it is a
/// `Parameter`, else a new `Parameter` of its data (PyTorch's
/// `Parameter(value)`, which refuses a tensor of integers).
fn parameter_of(v: Value, span: Span) -> Result<Arc<Tensor>, Diagnostic> {
    let Value::Tensor(t) = v else {
        return Err(Error::wrong_type(
            "a ParameterList's or a ParameterDict's item",
            "a tensor (a Parameter)",
            v.type_name(),
        )
        .at(span));
    };
    if meta::is_parameter(&t) {
        return Ok(t);
    }
    if !t.dtype().is_float() {
        return Err(Error::Autograd {
            message: "Only Tensors of floating point and complex dtype can require gradients"
                .into(),
            help: "make it a float tensor first (`.float()`)".into(),
        }
        .at(span));
    }
    Ok(Arc::new(meta::parameter(&t, true)))
}

/// `pl.append(value)`: the next position.
pub(crate) fn append(m: &ModuleRef, v: Value, span: Span) -> Result<(), Diagnostic> {
    let p = parameter_of(v, span)?;
    let mut module = lock(m);
    let key = module.parameters.len().to_string();
    module.set_parameter(&key, Some(p)).map_err(|e| e.at(span))
}

/// `extend(values)` of a ParameterList (each made a Parameter), a
/// ModuleList or a Sequential (each a module): every item of an iterable,
/// in order.
fn extend(me: &mut Interp, m: &ModuleRef, values: &Value, span: Span) -> Result<(), Diagnostic> {
    let (type_name, layer) = {
        let module = lock(m);
        (module.type_name.to_string(), module.layer.clone())
    };
    let items = match values {
        Value::Tensor(_) => None,
        v => me.items_of(v.clone(), span).ok(),
    };
    let Some(items) = items else {
        return Err(type_error(format!(
            "{type_name}.extend should be called with an iterable, but got {}",
            super::format::python_type(values)
        ))
        .at(span));
    };
    for item in items {
        match layer {
            Layer::ParameterList => append(m, item, span)?,
            _ => {
                let Value::Module(child) = item else {
                    return Err(type_error(format!(
                        "{} is not a Module subclass",
                        super::format::python_type(&item)
                    ))
                    .at(span));
                };
                let mut module = lock(m);
                let key = module.modules.len().to_string();
                module
                    .set_module(&key, Some(child))
                    .map_err(|e| e.at(span))?;
            }
        }
    }
    Ok(())
}

/// `update(pairs)` of a ParameterDict or a ModuleDict: a dict's entries
/// (a ParameterDict takes a plain dict's in sorted key order, as
/// PyTorch's does for a mapping that is not an `OrderedDict`), another
/// container's, or key-value pairs in order.
fn update(me: &mut Interp, m: &ModuleRef, v: &Value, span: Span) -> Result<(), Diagnostic> {
    let layer = lock(m).layer.clone();
    let params = layer == Layer::ParameterDict;
    let pairs: Vec<(Value, Value)> = match v {
        Value::Dict(d) => {
            let mut pairs: Vec<(Value, Value)> = d
                .items()
                .iter()
                .map(|(k, v)| (k.value(), v.clone()))
                .collect();
            if params {
                if let Some(bad) = pairs.iter().find(|(k, _)| !matches!(k, Value::Str(_))) {
                    return Err(key_type(&bad.0).at(span));
                }
                pairs.sort_by_key(|(k, _)| super::format::str_of(k));
            }
            pairs
        }
        Value::Module(other) if dict_of(other).is_some() => entries(other)
            .into_iter()
            .map(|(k, v)| (Value::Str(Arc::new(k)), v))
            .collect(),
        Value::Tensor(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::None => {
            let what = if params {
                "ParametersDict"
            } else {
                "ModuleDict"
            };
            return Err(type_error(format!(
                "{what}.update should be called with an iterable of key/value pairs, but got {}",
                super::format::python_type(v)
            ))
            .at(span));
        }
        v => {
            let items = me.items_of(v.clone(), span)?;
            let mut pairs = Vec::new();
            for (j, p) in items.into_iter().enumerate() {
                let kv = me.items_of(p.clone(), span).ok();
                match kv.as_deref() {
                    Some([k, v]) => pairs.push((k.clone(), v.clone())),
                    Some(kv) => {
                        return Err(Error::value(format!(
                            "{} update sequence element #{j} has length {}; 2 is required",
                            lock(m).type_name,
                            kv.len()
                        ))
                        .at(span))
                    }
                    None => {
                        return Err(type_error(format!(
                            "{} update sequence element #{j} should be Iterable; is{}",
                            lock(m).type_name,
                            super::format::python_type(&p)
                        ))
                        .at(span))
                    }
                }
            }
            pairs
        }
    };
    for (k, v) in pairs {
        set_key(m, &k, v, span)?;
    }
    Ok(())
}

fn key_type(k: &Value) -> Error {
    type_error(format!(
        "Index given to ParameterDict cannot be used as a key as it is not a string (type is '{}'). Open an issue on github if you need non-string keys.",
        super::format::python_type(k)
    ))
}

/// `pd[key] = value` (a ParameterDict), `md[key] = module` (a ModuleDict).
fn set_key(m: &ModuleRef, k: &Value, v: Value, span: Span) -> Result<(), Diagnostic> {
    let params = lock(m).layer == Layer::ParameterDict;
    let key = match k {
        Value::Str(s) => s.to_string(),
        other if params => return Err(key_type(other).at(span)),
        other => super::format::str_of(other),
    };
    set(m, &key, v, span)
}

/// `m[key] = v` of a parameter container (made a Parameter) or a module
/// container (a module).
fn set(m: &ModuleRef, key: &str, v: Value, span: Span) -> Result<(), Diagnostic> {
    let params = matches!(lock(m).layer, Layer::ParameterList | Layer::ParameterDict);
    if params {
        let p = parameter_of(v, span)?;
        return lock(m).set_parameter(key, Some(p)).map_err(|e| e.at(span));
    }
    let Value::Module(child) = v else {
        return Err(type_error(format!(
            "{} is not a Module subclass",
            super::format::python_type(&v)
        ))
        .at(span));
    };
    lock(m).set_module(key, Some(child)).map_err(|e| e.at(span))
}

/// Whether `m` keeps its items by name: `Some(true)` for a ParameterDict,
/// `Some(false)` for a ModuleDict.
pub(crate) fn dict_of(m: &ModuleRef) -> Option<bool> {
    match lock(m).layer {
        Layer::ParameterDict => Some(true),
        Layer::ModuleDict => Some(false),
        _ => None,
    }
}

/// Whether `m` is a ParameterList or a ParameterDict.
pub(crate) fn holds_parameters(m: &Module) -> bool {
    matches!(m.layer, Layer::ParameterList | Layer::ParameterDict)
}

/// A container's items with their names, in order: a parameter
/// container's parameters, a module container's children.
pub(crate) fn entries(m: &ModuleRef) -> Vec<(String, Value)> {
    let module = lock(m);
    match holds_parameters(&module) {
        true => module
            .parameters
            .iter()
            .map(|(k, p)| (k.clone(), p.clone().map_or(Value::None, Value::Tensor)))
            .collect(),
        false => module
            .children()
            .into_iter()
            .map(|(k, c)| (k, Value::Module(c)))
            .collect(),
    }
}

/// A key a dict container lacks: Python's KeyError of a ModuleDict; a
/// ParameterDict's lookup is an attribute's, so PyTorch's AttributeError.
fn missing(m: &ModuleRef, key: &str) -> Error {
    let module = lock(m);
    match module.layer {
        Layer::ParameterDict => Error::Attribute {
            message: format!("'{}' object has no attribute '{key}'", module.type_name),
            help: None,
        },
        _ => Error::Module {
            class: "KeyError",
            message: format!("'{key}'"),
            help: None,
        },
    }
}

impl Interp {
    /// `pd["w"]` of a ParameterDict, `md["fc"]` of a ModuleDict: the item,
    /// or Python's KeyError.
    pub(super) fn container_key(&mut self, m: &ModuleRef, key: &str, span: Span) -> Out {
        let found = lock(m).member(key);
        match found {
            Some(Member::Module(Some(c))) => Ok(Value::Module(c)),
            Some(Member::Parameter(Some(p))) => Ok(Value::Tensor(p)),
            _ => Err(missing(m, key).at(span)),
        }
    }

    /// `m[key] = v` of any container: by name of a dict, at an existing
    /// position of a list (`pl[0] = p`, `seq[1] = m`).
    pub(super) fn container_assign(
        &mut self,
        m: &ModuleRef,
        key: &str,
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        set(m, key, v, span)
    }
}

/// A container's methods beyond `Module`'s: `extend`, `keys`, `values`,
/// `items`, `update`, `pop`, `get`; an AttributeError for a module that
/// is not such a container.
pub(super) fn method(me: &mut Interp, name: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    let (type_name, layer) = {
        let module = lock(m);
        (module.type_name.to_string(), module.layer.clone())
    };
    let dict = matches!(layer, Layer::ParameterDict | Layer::ModuleDict);
    let list = matches!(
        layer,
        Layer::ParameterList | Layer::ModuleList | Layer::Sequential
    );
    let fits = match name {
        "extend" => list,
        "get" => layer == Layer::ParameterDict,
        _ => dict,
    };
    if !fits {
        return Err(Error::Attribute {
            message: format!("'{type_name}' object has no attribute '{name}'"),
            help: None,
        }
        .at(b.span));
    }
    let arg = |k: &str| b.get(k).cloned();
    let pairs = |m: &ModuleRef| entries(m);
    match name {
        "extend" => {
            let (v, span) = arg("values").unwrap_or((Value::None, b.span));
            extend(me, m, &v, span)?;
            Ok(Value::Module(Arc::clone(m)))
        }
        "update" => {
            let (v, span) = arg("values").unwrap_or((Value::None, b.span));
            update(me, m, &v, span)?;
            Ok(Value::None)
        }
        "keys" => Ok(Value::List(Arc::new(
            pairs(m)
                .into_iter()
                .map(|(k, _)| Value::Str(Arc::new(k)))
                .collect(),
        ))),
        "values" => Ok(Value::List(Arc::new(
            pairs(m).into_iter().map(|(_, v)| v).collect(),
        ))),
        "items" => Ok(Value::List(Arc::new(
            pairs(m)
                .into_iter()
                .map(|(k, v)| Value::List(Arc::new(vec![Value::Str(Arc::new(k)), v])))
                .collect(),
        ))),
        "get" | "pop" => {
            let (k, span) = arg("key").unwrap_or((Value::None, b.span));
            let key = match &k {
                Value::Str(s) => s.to_string(),
                other if layer == Layer::ParameterDict => return Err(key_type(other).at(span)),
                other => super::format::str_of(other),
            };
            let found = pairs(m).into_iter().find(|(n, _)| *n == key);
            match (name, found) {
                ("get", found) => Ok(found
                    .map(|(_, v)| v)
                    .unwrap_or_else(|| arg("default").map_or(Value::None, |(v, _)| v))),
                (_, Some((_, v))) => {
                    lock(m).remove(&key);
                    Ok(v)
                }
                (_, None) => Err(missing(m, &key).at(span)),
            }
        }
        _ => Err(Error::value(format!("internal error: no container method `{name}`")).at(b.span)),
    }
}
