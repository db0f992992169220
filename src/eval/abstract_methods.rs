//! Python's abstract base classes (`stdlib/abc.py` has `ABC`):
//! `@abstractmethod` marks a function, and a class derived from `abc.ABC`
//! that leaves a marked one (or a property over one) without an override
//! is not instantiated, with Python's TypeError naming them.

use std::sync::Arc;

use super::args::ArgVal;
use super::value::{Class, Decorated};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

/// The functions of `_cudash` this file answers.
pub const NAMES: [&str; 1] = ["_cudash.abstractmethod"];

/// Whether `v`, as a class holds it, is an abstract method: a marked
/// function, or a property, static or class method over one.
fn is_abstract(v: &Value) -> bool {
    match v {
        Value::Function(f) => f.abstract_method,
        Value::Decorated(d) => match &**d {
            Decorated::Static(f)
            | Decorated::ClassMethod(f)
            | Decorated::Property(f, _)
            | Decorated::CachedProperty(f) => is_abstract(f),
            Decorated::Apply(_) => false,
        },
        _ => false,
    }
}

/// The abstract methods `class` leaves (sorted, as Python names them), if
/// it derives from `abc.ABC`.
pub(crate) fn abstract_left(class: &Class) -> Vec<String> {
    if !class.derives_from("abc", "ABC") {
        return Vec::new();
    }
    let mut names: Vec<String> = std::iter::once(class)
        .chain(class.mro.iter().map(|c| &**c))
        .flat_map(|c| crate::runtime::lock::lock(&c.attrs).clone())
        .map(|(name, _)| name)
        .collect();
    names.sort();
    names.dedup();
    names.retain(|n| class.find(n).is_some_and(|v| is_abstract(&v)));
    names
}

/// Python's TypeError for making an instance of `class`, which leaves
/// the abstract methods `left`.
pub(crate) fn cannot_instantiate(class: &Class, left: &[String], span: Span) -> Diagnostic {
    Error::Module {
        class: "TypeError",
        message: format!(
            "Can't instantiate abstract class {} with abstract method{} {}",
            class.name,
            if left.len() == 1 { "" } else { "s" },
            left.join(", ")
        ),
        help: Some(format!(
            "define {} in {} (or a class between it and the base that marks them)",
            left.join(", "),
            class.name
        )),
    }
    .at(span)
}

impl Interp {
    /// `@abstractmethod` over a function: the function, marked.
    pub(crate) fn abstract_method(
        &mut self,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match args.into_iter().next().map(|a| a.value) {
            Some(Value::Function(f)) => Ok(Value::Function(Arc::new(f.abstract_copy()))),
            // `@abstractmethod` over `@staticmethod` and the like: as it is.
            Some(other) => Ok(other),
            None => Err(Error::type_error("abstractmethod() takes a function").at(span)),
        }
    }
}
