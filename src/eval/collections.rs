//! Python's `collections.defaultdict` and `collections.Counter`: dicts
//! whose missing keys read as `factory()` (kept) or 0 (not kept), as a
//! vocabulary's counts are built (`counts[w] += 1`,
//! `Counter(words).most_common(n)`); and `collections.namedtuple`, a class
//! whose instances are tuples with named fields (fast_neural_style's
//! `VggOutputs`).

use super::args::ArgVal;
use std::sync::Arc;

use super::value::{Class, Key, Missing, PyDict};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

impl Interp {
    /// A named tuple's `_asdict()` (its fields in order) and
    /// `_replace(**fields)` (a copy with those changed).
    pub(crate) fn named_tuple_method(
        &mut self,
        o: &Arc<super::value::Object>,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let pairs: Vec<(Key, Value)> = o
            .class
            .fields
            .iter()
            .cloned()
            .zip(o.tuple_items())
            .map(|(f, v)| (Key::Str(f), v))
            .collect();
        if name == "_asdict" {
            return Ok(Value::Dict(PyDict::new(pairs)));
        }
        let mut items = pairs;
        for a in args {
            let Some(k) = a.keyword else {
                return Err(Error::Module {
                    class: "TypeError",
                    message: "_replace() takes the fields to change by keyword".into(),
                    help: None,
                }
                .at(a.span));
            };
            match items
                .iter_mut()
                .find(|(f, _)| matches!(f, Key::Str(s) if *s == k.name))
            {
                Some(slot) => slot.1 = a.value,
                None => {
                    return Err(
                        Error::value(format!("Got unexpected field names: ['{}']", k.name))
                            .at(a.span),
                    )
                }
            }
        }
        let copy = Arc::new(super::value::Object::new(Arc::clone(&o.class)));
        for (k, v) in items {
            if let Key::Str(f) = k {
                copy.set(&f, v);
            }
        }
        let _ = span;
        Ok(Value::Object(copy))
    }

    /// `collections.defaultdict(factory=None, ...)` and
    /// `collections.Counter(iterable=None)`.
    pub(super) fn call_collections(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let args_keyword: Vec<(String, Value, Span)> = args
            .iter()
            .filter_map(|a| {
                a.keyword
                    .as_ref()
                    .map(|k| (k.name.clone(), a.value.clone(), a.span))
            })
            .collect();
        let mut positional = args
            .into_iter()
            .filter(|a| a.keyword.is_none())
            .map(|a| (a.value, a.span));
        let first = positional.next();
        let second = positional.next();
        match name {
            "collections.namedtuple" => {
                let defaults = args_keyword
                    .iter()
                    .find(|(k, _, _)| k == "defaults")
                    .cloned();
                named_tuple(first, second, defaults, span)
            }
            "collections.defaultdict" => {
                let mut items = match &second {
                    Some((v, at)) => super::methods::dict::pairs_of(v).map_err(|e| e.at(*at))?,
                    None => Vec::new(),
                };
                // `defaultdict(int, a=1)`: the keywords are items too.
                items.extend(
                    args_keyword
                        .iter()
                        .filter(|(k, _, _)| k != "default_factory")
                        .map(|(k, v, _)| (Key::Str(k.clone()), v.clone())),
                );
                let missing = match first.map(|(v, _)| v) {
                    None | Some(Value::None) => None,
                    Some(f) if callable(&f) => Some(Missing::Factory(f)),
                    Some(other) => {
                        return Err(Error::Module {
                            class: "TypeError",
                            message: "first argument must be callable or None".into(),
                            help: Some(format!("this is {}", other.type_name())),
                        }
                        .at(span))
                    }
                };
                Ok(Value::Dict(match missing {
                    Some(m) => PyDict::with_missing(items, m),
                    None => PyDict::new(items),
                }))
            }
            // `OrderedDict(pairs or a dict, **kwargs)`.
            "collections.OrderedDict" => {
                let mut items = match &first {
                    Some((v, at)) => super::methods::dict::pairs_of(v).map_err(|e| e.at(*at))?,
                    None => Vec::new(),
                };
                items.extend(args_keyword.into_iter().map(|(k, v, _)| (Key::Str(k), v)));
                Ok(Value::Dict(PyDict::ordered(items)))
            }
            _ => {
                let counter = PyDict::with_missing(Vec::new(), Missing::Count);
                if let Some((v, at)) = first {
                    self.count_into(&counter, v, at)?;
                }
                // `Counter(a=2, b=1)`: counts given by name.
                for (k, v, at) in args_keyword.iter().filter(|(k, _, _)| k != "iterable") {
                    let now = counter.get(&Key::Str(k.clone())).unwrap_or(Value::Int(0));
                    counter.set(Key::Str(k.clone()), add(&now, v).map_err(|e| e.at(*at))?);
                }
                Ok(Value::Dict(counter))
            }
        }
    }

    /// A Counter's `update(iterable)`: each item counted once more (a
    /// mapping's values added).
    pub(super) fn count_into(
        &mut self,
        counter: &PyDict,
        v: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        if let Value::Dict(d) = &v {
            for (k, n) in d.items().iter() {
                let now = counter.get(k).unwrap_or(Value::Int(0));
                counter.set(k.clone(), add(&now, n).map_err(|e| e.at(span))?);
            }
            return Ok(());
        }
        for item in self.iterated(v, span)? {
            let k = Key::required(&item).map_err(|e| e.at(span))?;
            let n = match counter.get(&k) {
                Some(Value::Int(n)) => n + 1,
                _ => 1,
            };
            counter.set(k, Value::Int(n));
        }
        Ok(())
    }
}

fn callable(v: &Value) -> bool {
    matches!(
        v,
        Value::Builtin(_)
            | Value::Function(_)
            | Value::Method(_)
            | Value::Class(_)
            | Value::Native(_)
            | Value::DType(_)
            | Value::Decorated(_)
    )
}

fn add(a: &Value, b: &Value) -> Result<Value, Error> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(Value::Int(x + y)),
        (Value::Int(x), Value::Float(y)) => Ok(Value::float(*x as f64 + y.get())),
        (Value::Float(x), Value::Int(y)) => Ok(Value::float(x.get() + *y as f64)),
        (Value::Float(x), Value::Float(y)) => Ok(Value::float(x.get() + y.get())),
        _ => Err(Error::wrong_type("a count", "a number", b.type_name())),
    }
}

/// `namedtuple(typename, field_names, defaults=None)`: a class whose
/// fields are `field_names` (a list of strings, or one string of names
/// split at commas and spaces), made with them in order or by keyword, the
/// last ones defaulting to `defaults`; its instances show as `P(x=1,
/// y=2)`, compare by fields, and are tuples of them (`r[0]`, `len(r)`,
/// `a, b = r`, `for v in r`); `P._fields` names them.
fn named_tuple(
    typename: Option<(Value, Span)>,
    field_names: Option<(Value, Span)>,
    defaults: Option<(String, Value, Span)>,
    span: Span,
) -> Result<Value, Diagnostic> {
    let type_error = |message: &str, at: Span| {
        Error::Module {
            class: "TypeError",
            message: message.into(),
            help: None,
        }
        .at(at)
    };
    let name = match typename {
        Some((Value::Str(s), _)) => s.to_string(),
        Some((_, at)) => return Err(type_error("namedtuple()'s typename must be a string", at)),
        None => return Err(type_error(
            "namedtuple() missing 2 required positional arguments: 'typename' and 'field_names'",
            span,
        )),
    };
    let Some((names, at)) = field_names else {
        return Err(type_error(
            "namedtuple() missing 1 required positional argument: 'field_names'",
            span,
        ));
    };
    let fields: Vec<String> = match &names {
        Value::Str(s) => s
            .replace(',', " ")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        other => match other.elements() {
            Some(Ok(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::Str(s) => Ok(s.to_string()),
                    _ => Err(type_error("Type names and field names must be strings", at)),
                })
                .collect::<Result<_, _>>()?,
            _ => {
                return Err(type_error(
                    "field_names must be a string or a list of strings",
                    at,
                ))
            }
        },
    };
    for (k, f) in fields.iter().enumerate() {
        let ok = f.chars().next().is_some_and(|c| c.is_alphabetic())
            && f.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !ok {
            return Err(Error::value(format!(
                "Type names and field names must be valid identifiers: {f:?}"
            ))
            .at(at));
        }
        if fields[..k].contains(f) {
            return Err(Error::value(format!("Encountered duplicate field name: {f:?}")).at(at));
        }
    }
    let mut attrs: Vec<(String, Value)> = vec![(
        "_fields".into(),
        Value::List(Arc::new(
            fields
                .iter()
                .map(|f| Value::Str(Arc::new(f.clone())))
                .collect(),
        )),
    )];
    if let Some((_, v, at)) = defaults.filter(|(_, v, _)| !matches!(v, Value::None)) {
        let values = match v.elements() {
            Some(Ok(items)) => items,
            _ => return Err(type_error("defaults must be a list or a tuple", at)),
        };
        if values.len() > fields.len() {
            return Err(type_error("Got more default values than field names", at));
        }
        let first = fields.len() - values.len();
        attrs.extend(fields[first..].iter().cloned().zip(values));
    }
    Ok(Value::Class(Arc::new(Class {
        name,
        bases: Vec::new(),
        mro: Vec::new(),
        attrs: std::sync::Mutex::new(attrs),
        fields,
        dataclass: std::sync::atomic::AtomicBool::new(true),
        dataclass_options: Default::default(),
        tuple: true,
    })))
}
