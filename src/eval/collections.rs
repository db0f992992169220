//! Python's `collections.defaultdict` and `collections.Counter`: dicts
//! whose missing keys read as `factory()` (kept) or 0 (not kept), as a
//! vocabulary's counts are built (`counts[w] += 1`,
//! `Counter(words).most_common(n)`).

use super::args::ArgVal;
use super::value::{Key, Missing, PyDict};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

impl Interp {
    /// `collections.defaultdict(factory=None, ...)` and
    /// `collections.Counter(iterable=None)`.
    pub(super) fn call_collections(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let mut positional = args
            .into_iter()
            .filter(|a| a.keyword.is_none())
            .map(|a| (a.value, a.span));
        let first = positional.next();
        let second = positional.next();
        match name {
            "collections.defaultdict" => {
                let items = match &second {
                    Some((v, at)) => super::methods::dict::pairs_of(v).map_err(|e| e.at(*at))?,
                    None => Vec::new(),
                };
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
            _ => {
                let counter = PyDict::with_missing(Vec::new(), Missing::Count);
                if let Some((v, at)) = first {
                    self.count_into(&counter, v, at)?;
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
