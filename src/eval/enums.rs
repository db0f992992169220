//! What Python's `EnumMeta` does for a class derived from `enum.Enum`
//! (what a member does is Python, `stdlib/enum.py`): the class body's
//! values made its members, each an instance of the class with `_name_`
//! and `_value_` (`auto()` counted on by `_generate_next_value_`, a value
//! met before an alias of that member); `Color(1)` finds a member by
//! value, `Color["RED"]` by name; the class iterates its members in order
//! (`list(Color)`, `len(Color)`, `Color.RED in Color`).

use std::sync::Arc;

use super::args::ArgVal;
use super::value::{Base, Class, Decorated, Key, Object, PyDict};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Expr;
use crate::lang::Span;
use crate::runtime::lock::lock;

/// Whether `class` derives from `enum.Enum`.
pub(crate) fn is_enum(class: &Class) -> bool {
    class.derives_from("enum", "Enum")
}

/// A class body's value that is not a member: a method, a property, a
/// static or class method, a class, a `_private` or `__dunder__` name.
fn not_a_member(name: &str, v: &Value) -> bool {
    name.starts_with('_')
        || matches!(
            v,
            Value::Function(_)
                | Value::Decorated(_)
                | Value::Class(_)
                | Value::Builtin(_)
                | Value::Native(_)
        )
}

/// Whether two members' values are one (by hash, as Python's
/// `_value2member_map_` finds them: `1` and `1.0` are one).
fn same_value(a: &Value, b: &Value) -> bool {
    matches!((Key::of(a), Key::of(b)), (Some(x), Some(y)) if x == y)
}

/// Whether `v` is `enum.auto()`.
fn is_auto(v: &Value) -> bool {
    matches!(v, Value::Object(o) if o.class.is_stdlib("enum", "auto"))
}

impl Interp {
    /// `class Mode(str, Enum)` (`mixin` names `str`, `int` or `float`):
    /// enum's `_ValueMixin` put before the Enum base, so members are
    /// compared, hashed and added as their values, as Python's are. Not
    /// an Enum: cudash's classes do not derive from Python's types.
    pub(crate) fn enum_value_mixin(
        &mut self,
        bases: &mut Vec<Base>,
        mixin: &Expr,
    ) -> Result<(), Diagnostic> {
        let first_enum = bases
            .iter()
            .position(|b| matches!(b, Base::Class(c) if c.is_stdlib("enum", "Enum") || is_enum(c)));
        let Some(at) = first_enum else {
            return Err(Error::wrong_type(
                "a class's base",
                "a class (`Module`, a layer, `Dataset`, `Sampler`, or one defined with `class`)",
                "a Python type (cudash's classes derive from str, int or float only as an Enum's values)",
            )
            .at(mixin.span));
        };
        let has_mixin = |c: &Class| c.derives_from("enum", "_ValueMixin");
        if bases
            .iter()
            .any(|b| matches!(b, Base::Class(c) if has_mixin(c)))
        {
            return Ok(());
        }
        match self.pickled_global("enum", "_ValueMixin", mixin.span)? {
            Some(Value::Class(c)) => bases.insert(at, Base::Class(c)),
            _ => return Err(Error::value("enum has lost its _ValueMixin").at(mixin.span)),
        }
        Ok(())
    }

    /// After an Enum's class statement: its members made from the values
    /// its body assigned, in order; the class's `_member_names_` (the
    /// members, aliases left out) and `__members__` (every name).
    pub(crate) fn make_enum_members(
        &mut self,
        class: &Arc<Class>,
        span: Span,
    ) -> Result<(), Diagnostic> {
        if !is_enum(class) {
            return Ok(());
        }
        let body: Vec<(String, Value)> = lock(&class.attrs).clone();
        let mut names: Vec<Value> = Vec::new();
        let mut members: Vec<(String, Value)> = Vec::new();
        let mut values: Vec<Value> = Vec::new();
        for (name, v) in body {
            if not_a_member(&name, &v) {
                continue;
            }
            let value = match is_auto(&v) {
                true => self.next_enum_value(class, &name, &values, span)?,
                false => v,
            };
            let earlier = members.iter().find_map(|(_, m)| match m {
                Value::Object(o) if o.get("_value_").is_some_and(|w| same_value(&w, &value)) => {
                    Some(m.clone())
                }
                _ => None,
            });
            let member = match earlier {
                // `CRIMSON = 1` after `RED = 1`: another name for RED.
                Some(m) => m,
                None => {
                    let o = Object::new(Arc::clone(class));
                    o.set("_name_", Value::Str(Arc::new(name.clone())));
                    o.set("_value_", value.clone());
                    names.push(Value::Str(Arc::new(name.clone())));
                    values.push(value);
                    Value::Object(Arc::new(o))
                }
            };
            members.push((name, member));
        }
        let map = PyDict::new(
            members
                .iter()
                .map(|(n, m)| (Key::Str(n.clone()), m.clone()))
                .collect(),
        );
        let mut attrs = lock(&class.attrs);
        for (name, member) in members {
            if let Some(slot) = attrs.iter_mut().find(|(n, _)| *n == name) {
                slot.1 = member;
            }
        }
        attrs.push(("_member_names_".into(), Value::list(names)));
        attrs.push(("__members__".into(), Value::Dict(map)));
        Ok(())
    }

    /// `auto()`'s value: the class's `_generate_next_value_(name, 1,
    /// count, last_values)` (the last int plus one; a StrEnum's, the name
    /// in lower case).
    fn next_enum_value(
        &mut self,
        class: &Arc<Class>,
        name: &str,
        values: &[Value],
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let f = match class.find("_generate_next_value_") {
            Some(Value::Decorated(d)) => match &*d {
                Decorated::Static(f) => f.clone(),
                _ => Value::Decorated(d.clone()),
            },
            Some(f) => f,
            None => return Ok(Value::Int(values.len() as i64 + 1)),
        };
        let arg = |value| ArgVal {
            keyword: None,
            value,
            span,
        };
        let args = vec![
            arg(Value::Str(Arc::new(name.to_string()))),
            arg(Value::Int(1)),
            arg(Value::Int(values.len() as i64)),
            arg(Value::list(values.to_vec())),
        ];
        self.call_value(f, args, span)
    }

    /// `Color(value)`: the member of that value (a member given is
    /// itself), or Python's ValueError. None: not an Enum with members.
    pub(crate) fn enum_by_value(
        &mut self,
        class: &Arc<Class>,
        args: &[ArgVal],
        span: Span,
    ) -> Option<Result<Value, Diagnostic>> {
        let members = class.enum_members()?;
        let [arg] = args else {
            return Some(Err(Error::Module {
                class: "TypeError",
                message: format!("{}() takes one value: the member's", class.name),
                help: Some(format!(
                    "`{}(1)` finds the member whose value is 1; members are not made by calling",
                    class.name
                )),
            }
            .at(span)));
        };
        let found = members.into_iter().find(|m| match (m, &arg.value) {
            (Value::Object(o), Value::Object(given)) if Arc::ptr_eq(o, given) => true,
            (Value::Object(o), given) => o.get("_value_").is_some_and(|v| same_value(&v, given)),
            _ => false,
        });
        Some(found.ok_or_else(|| {
            Error::Module {
                class: "ValueError",
                message: format!(
                    "{} is not a valid {}",
                    super::format::repr_of(&arg.value),
                    class.name
                ),
                help: None,
            }
            .at(arg.span)
        }))
    }
}

/// `Color["RED"]`: the member of that name (an alias's too), or Python's
/// KeyError.
pub(crate) fn enum_by_name(class: &Class, key: &Value) -> Result<Value, Error> {
    let Some(Value::Dict(map)) = class.own("__members__") else {
        return Err(Error::type_error(format!(
            "type '{}' is not subscriptable",
            class.name
        )));
    };
    Key::of(key)
        .and_then(|k| map.get(&k))
        .ok_or_else(|| Error::Module {
            class: "KeyError",
            message: super::format::repr_of(key),
            help: Some(format!(
                "the members of {} are {}",
                class.name,
                map.items()
                    .keys()
                    .map(|k| k.repr())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        })
}
