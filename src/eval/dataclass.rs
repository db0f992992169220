//! Python's `@dataclass` (the configs of makemore, minGPT, FSDP's
//! examples): a class whose annotated names (`n_layer: int = 4`) are its
//! fields, in the order written (a base dataclass's first). Made with
//! the fields as keywords or in order, defaults from the class, then
//! `__post_init__`; shown as `GPTConfig(n_layer=4, ...)`; `==` compares
//! the fields; `dataclasses.asdict` gives a dict of them. `frozen=True`
//! refuses assignments (`FrozenInstanceError`) and hashes by the fields,
//! `order=True` orders instances as tuples of their fields. The module's
//! Python side (`stdlib/dataclasses.py`) has `fields`, `replace`,
//! `astuple`, `is_dataclass`.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::args::ArgVal;
use super::value::{Class, Object};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::lock::lock;

/// `@dataclass(frozen=True)`: its instances' attributes cannot be set.
pub const FROZEN: u8 = 1;
/// `@dataclass(order=True)`: `<`, `<=`, `>`, `>=` compare the fields.
pub const ORDER: u8 = 2;
/// `@dataclass(unsafe_hash=True)` (or frozen): hashed by the fields.
pub const HASH: u8 = 4;

/// Whether the class of `o` was made a dataclass with option `flag`.
pub fn has_option(o: &Object, flag: u8) -> bool {
    is_dataclass(o) && o.class.dataclass_options.load(Ordering::Relaxed) & flag != 0
}

/// The values of `o`'s fields, in order (None for one it lacks).
pub fn field_values(o: &Object) -> Vec<Value> {
    let attrs = lock(&o.attrs);
    fields_of(&o.class)
        .iter()
        .map(|f| {
            attrs
                .iter()
                .find(|(n, _)| n == f)
                .map_or(Value::None, |(_, v)| v.clone())
        })
        .collect()
}

/// Python's error for setting or deleting an attribute of a frozen
/// dataclass's instance (`dataclasses.FrozenInstanceError`).
pub fn frozen_error(action: &str, name: &str) -> Error {
    Error::Module {
        class: "FrozenInstanceError",
        message: format!("cannot {action} field '{name}'"),
        help: Some(
            "a frozen dataclass's instance keeps its fields: make a changed copy with \
             `dataclasses.replace(obj, name=value)`"
                .into(),
        ),
    }
}

/// The fields of a dataclass, a base dataclass's first (a field named
/// again keeps its first place, as Python's).
pub fn fields_of(class: &Class) -> Vec<String> {
    // Python collects them from the bases in reverse MRO order.
    let mut out = Vec::new();
    for base in class.mro.iter().rev() {
        if base.dataclass.load(Ordering::Relaxed) {
            for f in &base.fields {
                if !out.contains(f) {
                    out.push(f.clone());
                }
            }
        }
    }
    for f in &class.fields {
        if !out.contains(f) {
            out.push(f.clone());
        }
    }
    out
}

/// Is this object an instance of a dataclass?
pub fn is_dataclass(o: &Object) -> bool {
    o.class.dataclass.load(Ordering::Relaxed)
}

/// `GPTConfig(n_layer=4, n_head=None)`: each field as `item` writes it.
/// An instance that holds itself shows as `...` inside itself, as
/// Python's (`Node(next=...)`), never recursing until the stack ends.
pub fn text(o: &Object, item: &dyn Fn(&Value) -> String) -> String {
    thread_local! {
        static SHOWING: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let me = o as *const Object as usize;
    if SHOWING.with(|s| s.borrow().contains(&me)) {
        return "...".into();
    }
    SHOWING.with(|s| s.borrow_mut().push(me));
    let attrs = lock(&o.attrs).clone();
    let fields: Vec<String> = fields_of(&o.class)
        .into_iter()
        .map(|f| {
            let v = attrs.iter().find(|(n, _)| *n == f).map(|(_, v)| v.clone());
            let shown = v.as_ref().map_or("?".into(), item);
            // A value of several lines (a matrix) stays under its name in
            // cudash's display; Python's repr writes it as it is.
            match super::python_text::pytorch_text() {
                true => format!("{f}={shown}"),
                false => {
                    let pad = format!("\n{}", " ".repeat(f.len() + 1));
                    format!("{f}={}", shown.replace('\n', &pad))
                }
            }
        })
        .collect();
    SHOWING.with(|s| s.borrow_mut().retain(|&p| p != me));
    // `load_state_dict`'s result when nothing is missing or unexpected,
    // as PyTorch's `_IncompatibleKeys.__repr__` says it.
    if o.class.name == "_IncompatibleKeys" && o.tuple_items().iter().all(|v| v.count() == Some(0)) {
        return "<All keys matched successfully>".into();
    }
    // PyTorch's results show a field a line.
    match o.class.name.starts_with(super::value::RETURN_TYPES) {
        true => format!("{}(\n{})", o.class.name, fields.join(",\n")),
        false => format!("{}({})", o.class.name, fields.join(", ")),
    }
}

/// `a == b` of two instances of one dataclass: their fields, in order.
pub fn same_fields(a: &Object, b: &Object, eq: &dyn Fn(&Value, &Value) -> bool) -> bool {
    if !Arc::ptr_eq(&a.class, &b.class) {
        return false;
    }
    let (x, y) = (lock(&a.attrs).clone(), lock(&b.attrs).clone());
    let get = |attrs: &[(String, Value)], f: &str| {
        attrs.iter().find(|(n, _)| n == f).map(|(_, v)| v.clone())
    };
    fields_of(&a.class)
        .iter()
        .all(|f| match (get(&x, f), get(&y, f)) {
            (Some(p), Some(q)) => eq(&p, &q),
            (None, None) => true,
            _ => false,
        })
}

/// `field(...)`'s object, when the class holds one for `f`.
fn field_spec(class: &Class, f: &str) -> Option<Arc<Object>> {
    match class.find(f) {
        Some(Value::Object(o)) if Arc::ptr_eq(&o.class, &super::value::field_class()) => Some(o),
        _ => None,
    }
}

/// Whether the field `f` has a default (a value, or `field(default=...)`
/// or `field(default_factory=...)`).
fn has_default(class: &Class, f: &str) -> bool {
    match field_spec(class, f) {
        Some(spec) => !lock(&spec.attrs).is_empty(),
        None => class.find(f).is_some(),
    }
}

fn type_error(message: String, span: Span) -> Diagnostic {
    Error::Module {
        class: "TypeError",
        message,
        help: None,
    }
    .at(span)
}

impl Interp {
    /// `_cudash.dataclass(cls, frozen, order, unsafe_hash)`: the class
    /// made a dataclass (`dataclasses.dataclass` checks its options first).
    pub(super) fn dataclass(&mut self, args: Vec<ArgVal>, span: Span) -> Result<Value, Diagnostic> {
        let class = match args.first().map(|a| &a.value) {
            Some(Value::Class(c)) => Arc::clone(c),
            other => {
                return Err(Error::wrong_type(
                    "what @dataclass decorates",
                    "a class",
                    other.map_or("nothing", |v| v.type_name()),
                )
                .at(args.first().map_or(span, |a| a.span)))
            }
        };
        let flag = |k: usize, bit: u8| match args.get(k).map(|a| &a.value) {
            Some(Value::Bool(b)) if b.get() => bit,
            _ => 0,
        };
        let options = flag(1, FROZEN | HASH) | flag(2, ORDER) | flag(3, HASH);
        // Python's check: a mutable default would be shared by every instance.
        for f in &class.fields {
            if let Some(v) = lock(&class.attrs)
                .iter()
                .find(|(n, _)| n == f)
                .map(|(_, v)| v.clone())
            {
                let kind = match v {
                    Value::MutList(_) => "list",
                    Value::Dict(_) => "dict",
                    Value::Set(_) => "set",
                    _ => continue,
                };
                return Err(Error::value(format!(
                    "mutable default <class '{kind}'> for field {f} is not allowed: use default_factory"
                ))
                .at(span));
            }
        }
        // Python's rule for the `__init__` it makes.
        let mut defaulted = false;
        for f in &fields_of(&class) {
            match has_default(&class, f) {
                true => defaulted = true,
                false if defaulted => {
                    return Err(type_error(
                        format!("non-default argument '{f}' follows default argument"),
                        span,
                    ))
                }
                false => {}
            }
        }
        class.dataclass_options.store(options, Ordering::Relaxed);
        class.dataclass.store(true, Ordering::Relaxed);
        Ok(Value::Class(class))
    }

    /// The default of field `f` for a new instance: the class's value,
    /// `field(default=v)`'s `v`, or a new `field(default_factory=f)`'s
    /// `f()`; None when it has none.
    fn default_of(
        &mut self,
        class: &Class,
        f: &str,
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        let Some(spec) = field_spec(class, f) else {
            return Ok(class.find(f));
        };
        let attrs = lock(&spec.attrs).clone();
        let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        match (get("default_factory"), get("default")) {
            (Some(factory), _) => self.call_value(factory, Vec::new(), span).map(Some),
            (None, default) => Ok(default),
        }
    }

    /// `dataclasses.field(default=..., default_factory=...)`.
    pub(super) fn dataclass_field(
        &mut self,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let spec = Object::new(super::value::field_class());
        for a in args {
            let name = match &a.keyword {
                Some(k) if matches!(k.name.as_str(), "default" | "default_factory") => {
                    k.name.clone()
                }
                Some(k) => {
                    return Err(Error::Module {
                        class: "NotImplementedError",
                        message: format!(
                            "cudash's field() takes `default` and `default_factory`, not `{}`",
                            k.name
                        ),
                        help: None,
                    }
                    .at(a.span))
                }
                None => {
                    return Err(type_error(
                        "field() takes keyword arguments only".into(),
                        a.span,
                    ))
                }
            };
            lock(&spec.attrs).push((name, a.value));
        }
        if lock(&spec.attrs).len() == 2 {
            return Err(Error::value("cannot specify both default and default_factory").at(span));
        }
        Ok(Value::Object(Arc::new(spec)))
    }

    /// A dataclass's `__init__`: each field from the arguments (in order,
    /// or by name) or the class's default, then `__post_init__`.
    pub(super) fn init_dataclass(
        &mut self,
        this: &Value,
        object: &Object,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let class = &object.class;
        let fields = fields_of(class);
        // PyTorch's `torch.return_types.*` are structseqs: made from one
        // sequence of the fields' values (`type(r)(x for x in r)`).
        let args = match (
            class.name.starts_with(super::value::RETURN_TYPES),
            args.as_slice(),
        ) {
            (true, [one]) if one.keyword.is_none() && fields.len() != 1 => {
                let (value, at) = (one.value.clone(), one.span);
                let items = self.iterated(value, at)?;
                if items.len() != fields.len() {
                    return Err(type_error(
                        format!(
                            "{} takes a {}-sequence ({}-sequence given)",
                            class.name,
                            fields.len(),
                            items.len()
                        ),
                        at,
                    ));
                }
                items
                    .into_iter()
                    .map(|v| ArgVal::positional(v, at))
                    .collect()
            }
            _ => args,
        };
        let init = format!("{}.__init__()", class.name);
        let mut given: Vec<Option<Value>> = vec![None; fields.len()];
        let positional = args.iter().filter(|a| a.keyword.is_none()).count();
        if positional > fields.len() {
            // Python counts `self`: "takes from 2 to 3 positional arguments".
            let required = fields.iter().filter(|f| !has_default(class, f)).count();
            let takes = match required == fields.len() {
                true if fields.is_empty() => "1 positional argument".to_string(),
                true => format!("{} positional arguments", fields.len() + 1),
                false => format!(
                    "from {} to {} positional arguments",
                    required + 1,
                    fields.len() + 1
                ),
            };
            return Err(type_error(
                format!("{init} takes {takes} but {} were given", positional + 1),
                span,
            ));
        }
        let mut k = 0;
        for a in args {
            let slot = match &a.keyword {
                None => {
                    k += 1;
                    k - 1
                }
                Some(name) => match fields.iter().position(|f| *f == name.name) {
                    Some(i) if given[i].is_some() => {
                        return Err(type_error(
                            format!("{init} got multiple values for argument '{}'", name.name),
                            a.span,
                        ))
                    }
                    Some(i) => i,
                    None => {
                        return Err(type_error(
                            format!("{init} got an unexpected keyword argument '{}'", name.name),
                            a.span,
                        ))
                    }
                },
            };
            given[slot] = Some(a.value);
        }
        let mut missing = Vec::new();
        for (f, v) in fields.iter().zip(given.iter_mut()) {
            if v.is_none() {
                match self.default_of(class, f, span)? {
                    Some(d) => *v = Some(d),
                    None => missing.push(format!("'{f}'")),
                }
            }
        }
        if !missing.is_empty() {
            let names = match missing.len() {
                1 => missing[0].clone(),
                n => format!("{} and {}", missing[..n - 1].join(", "), missing[n - 1]),
            };
            return Err(type_error(
                format!(
                    "{init} missing {} required positional argument{}: {names}",
                    missing.len(),
                    if missing.len() == 1 { "" } else { "s" }
                ),
                span,
            ));
        }
        {
            let mut attrs = lock(&object.attrs);
            for (f, v) in fields.into_iter().zip(given) {
                attrs.retain(|(n, _)| *n != f);
                attrs.push((f, v.unwrap_or(Value::None)));
            }
        }
        if let Some(Value::Function(post)) = class.find("__post_init__") {
            self.call_bound(this, post, Vec::new(), span)?;
        }
        Ok(())
    }

    /// `_cudash.dataclass_fields(cls_or_instance)`: its fields' names, in
    /// order; Python's TypeError for anything not a dataclass.
    pub(super) fn dataclass_fields(
        &mut self,
        args: &[ArgVal],
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let class = match args.first().map(|a| &a.value) {
            Some(Value::Class(c)) if c.dataclass.load(Ordering::Relaxed) => Arc::clone(c),
            Some(Value::Object(o)) if is_dataclass(o) => Arc::clone(&o.class),
            _ => {
                return Err(type_error(
                    "must be called with a dataclass type or instance".into(),
                    args.first().map_or(span, |a| a.span),
                ))
            }
        };
        Ok(Value::list(
            fields_of(&class)
                .into_iter()
                .map(|f| Value::Str(Arc::new(f)))
                .collect(),
        ))
    }

    /// `dataclasses.asdict(obj)`: its fields as a dict, a dataclass among
    /// them as a dict too.
    pub(super) fn asdict(&mut self, args: &[ArgVal], span: Span) -> Result<Value, Diagnostic> {
        match args {
            [a] => match &a.value {
                Value::Object(o) if is_dataclass(o) => as_dict(o, 0).map_err(|e| e.at(a.span)),
                _ => Err(type_error(
                    "asdict() should be called on dataclass instances".into(),
                    a.span,
                )),
            },
            _ => Err(type_error(
                "asdict() takes one dataclass instance".into(),
                span,
            )),
        }
    }
}

/// Dataclasses nested deeper than this in `asdict` are Python's
/// RecursionError (one that holds itself), not a stack overflow.
const MAX_NESTING: usize = 200;

fn as_dict(o: &Object, depth: usize) -> Result<Value, Error> {
    if depth > MAX_NESTING {
        return Err(Error::Recursion {
            function: "asdict".into(),
            depth,
        });
    }
    let attrs = lock(&o.attrs).clone();
    let mut pairs = Vec::new();
    for f in fields_of(&o.class) {
        let v = match attrs.iter().find(|(n, _)| *n == f).map(|(_, v)| v) {
            None => Value::None,
            Some(Value::Object(inner)) if is_dataclass(inner) => as_dict(inner, depth + 1)?,
            Some(other) => other.clone(),
        };
        pairs.push((super::value::Key::Str(f), v));
    }
    Ok(Value::Dict(super::value::PyDict::new(pairs)))
}
