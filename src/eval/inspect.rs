//! What Python's `inspect` module (`stdlib/inspect.py`) asks of the
//! interpreter: `_cudash.parameters(obj)`, the parameters of a callable as
//! `(name, kind)` or `(name, kind, default)` tuples (`kind` as
//! `inspect.Parameter`'s numbers), and `_cudash.kind(obj)`, what sort of
//! object it is. For a function of the program's, its own parameters and
//! their evaluated defaults; for a class, its `__init__`'s without `self`
//! (a dataclass's fields); for one of cudash's builtins (`torch.optim.AdamW`,
//! `nn.Linear`), the signature its help shows, which names PyTorch's
//! parameters (nanoGPT asks whether AdamW takes `fused`).

use std::sync::Arc;

use super::args::ArgVal;
use super::value::Function;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Spread;
use crate::lang::Span;

/// The names this module answers.
pub const NAMES: [&str; 2] = ["_cudash.parameters", "_cudash.kind"];

/// `inspect.Parameter`'s kinds.
const POSITIONAL_OR_KEYWORD: i64 = 1;
const VAR_POSITIONAL: i64 = 2;
const KEYWORD_ONLY: i64 = 3;
const VAR_KEYWORD: i64 = 4;

impl Interp {
    pub(super) fn call_inspect(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let Some(obj) = args.first().map(|a| a.value.clone()) else {
            return Err(Error::value(format!("{name}() takes one object")).at(span));
        };
        match name {
            "_cudash.kind" => Ok(Value::Str(Arc::new(kind(&obj).into()))),
            _ => parameters(&obj).map_err(|e| e.at(span)),
        }
    }
}

/// `inspect.isclass`, `isfunction`, `ismethod`, `isbuiltin`, `ismodule`.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Class(_) | Value::ExcClass(_) => "class",
        Value::Function(_) => "function",
        Value::Method(_) => "method",
        Value::Builtin(doc) if doc.name.starts_with(char::is_uppercase) => "class",
        Value::Builtin(_) | Value::Native(_) => "builtin",
        Value::Namespace(_) | Value::OwnModule(_) => "module",
        _ => "other",
    }
}

fn tuple(items: Vec<Value>) -> Value {
    Value::List(Arc::new(items))
}

fn entry(name: &str, kind: i64, default: Option<Value>) -> Value {
    let mut items = vec![Value::Str(Arc::new(name.to_string())), Value::Int(kind)];
    items.extend(default);
    tuple(items)
}

fn parameters(obj: &Value) -> Result<Value, Error> {
    let entries = match obj {
        Value::Function(f) => of_function(f, 0),
        // A bound method: without its `self`.
        Value::Method(m) => of_function(&m.1, 1),
        Value::Class(c) => match c.find("__init__") {
            Some(Value::Function(f)) => of_function(&f, 1),
            _ if c.dataclass.load(std::sync::atomic::Ordering::Relaxed) => c
                .fields
                .iter()
                .map(|name| entry(name, POSITIONAL_OR_KEYWORD, c.own(name)))
                .collect(),
            _ => Vec::new(),
        },
        Value::Builtin(doc) => super::docs::params(doc.signature)
            .into_iter()
            .filter(|p| !p.name.is_empty())
            .map(|p| {
                let kind = match (p.variadic, p.keywords) {
                    (true, _) => VAR_POSITIONAL,
                    (_, true) => VAR_KEYWORD,
                    _ => POSITIONAL_OR_KEYWORD,
                };
                entry(p.name, kind, p.default.map(default_value))
            })
            .collect(),
        other => {
            return Err(Error::value(format!(
                "no signature found for {}",
                other.type_name()
            )))
        }
    };
    Ok(Value::list(entries))
}

/// A function's parameters after the first `skip` (a method's `self`):
/// those after `*args` (or a bare `*`) take keywords only.
fn of_function(f: &Function, skip: usize) -> Vec<Value> {
    let mut keyword_only = false;
    let mut out = Vec::new();
    for (k, (p, default)) in f.def.params.iter().zip(&f.defaults).enumerate() {
        let kind = match p.spread {
            Spread::Items => {
                keyword_only = true;
                VAR_POSITIONAL
            }
            Spread::Entries => VAR_KEYWORD,
            Spread::No if keyword_only => KEYWORD_ONLY,
            Spread::No => POSITIONAL_OR_KEYWORD,
        };
        if k < skip || p.name.name.is_empty() {
            continue;
        }
        out.push(entry(&p.name.name, kind, default.clone()));
    }
    out
}

/// A default as a builtin's signature writes it, as a value: numbers,
/// `true`/`false`/`none` (either spelling), quoted strings and tuples;
/// anything else (`f32`, `cpu`) its text.
fn default_value(text: &str) -> Value {
    let text = text.trim();
    match text {
        "none" | "None" => return Value::None,
        "true" | "True" => return Value::bool(true),
        "false" | "False" => return Value::bool(false),
        _ => {}
    }
    if let Ok(i) = text.parse::<i64>() {
        return Value::Int(i);
    }
    if let Ok(x) = text.parse::<f64>() {
        return Value::float(x);
    }
    let quoted = |q: char| text.len() >= 2 && text.starts_with(q) && text.ends_with(q);
    if quoted('"') || quoted('\'') {
        return Value::Str(Arc::new(text[1..text.len() - 1].to_string()));
    }
    if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        return tuple(
            inner
                .split(", ")
                .filter(|s| !s.is_empty())
                .map(default_value)
                .collect(),
        );
    }
    Value::Str(Arc::new(text.to_string()))
}
