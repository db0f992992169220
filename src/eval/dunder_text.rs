//! Calling a class's `__str__` and `__repr__` before a value is written
//! as text: what they return is kept in `user_text.rs` for `format.rs`
//! and `show.rs` to take.

use std::sync::Arc;

use super::args::ArgVal;
use super::user_text::{key, Texts};
use super::value::{Object, Value};
use super::Interp;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

/// Containers deeper than this are written without their instances' own
/// texts (as a list that holds itself is, once).
const DEPTH: usize = 32;

impl Interp {
    /// The texts of the instances among `values` (and inside their lists,
    /// tuples and dicts) whose classes write their own.
    pub(crate) fn user_texts(
        &mut self,
        values: &[&Value],
    ) -> Result<Vec<(usize, Texts)>, Diagnostic> {
        let mut out = Vec::new();
        for v in values {
            self.texts_of(v, true, 0, &mut out)?;
        }
        Ok(out)
    }

    fn texts_of(
        &mut self,
        v: &Value,
        top: bool,
        depth: usize,
        out: &mut Vec<(usize, Texts)>,
    ) -> Result<(), Diagnostic> {
        if depth > DEPTH {
            return Ok(());
        }
        match v {
            Value::Object(o) => self.object_texts(v, o, top, out)?,
            // A module of the program's class that writes its own text.
            Value::Module(m) => {
                if let Some(o) = super::value::object_of(m) {
                    if o.class.find("__repr__").is_some() || o.class.find("__str__").is_some() {
                        self.object_texts(v, &o, top, out)?;
                    }
                }
                self.extra_reprs(m, depth, out)?;
            }
            Value::List(items) | Value::Size(items) => {
                for x in items.iter() {
                    self.texts_of(x, false, depth + 1, out)?;
                }
            }
            // A set's items, a view's, a dict's keys and values.
            Value::MutList(_) | Value::Set(_) | Value::DictView(_) => {
                for x in v.elements().and_then(Result::ok).unwrap_or_default().iter() {
                    self.texts_of(x, false, depth + 1, out)?;
                }
            }
            Value::Dict(d) => {
                for (k, x) in d.items().iter() {
                    self.texts_of(&k.value(), false, depth + 1, out)?;
                    self.texts_of(x, false, depth + 1, out)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The `extra_repr()` of each module in `m`'s tree whose class (a
    /// program's) defines one, kept under the module's address, for the
    /// module's repr to show as PyTorch's `Module.__repr__` does.
    fn extra_reprs(
        &mut self,
        m: &crate::nn::ModuleRef,
        depth: usize,
        out: &mut Vec<(usize, Texts)>,
    ) -> Result<(), Diagnostic> {
        if depth > DEPTH {
            return Ok(());
        }
        let k = Arc::as_ptr(m) as *const () as usize;
        if out.iter().any(|(p, t)| *p == k && t.extra_repr.is_some()) {
            return Ok(());
        }
        if let Some(o) = super::value::object_of(m) {
            if let Some(Value::Function(f)) = o.class.find("extra_repr") {
                let this = Value::Module(Arc::clone(m));
                let span: Span = f.def.name.span;
                let r = self.call_bound(&this, f, Vec::<ArgVal>::new(), span)?;
                let text = match r {
                    Value::Str(s) => s.to_string(),
                    other => super::format::str_of(&other),
                };
                out.push((
                    k,
                    Texts {
                        extra_repr: Some(text),
                        ..Texts::default()
                    },
                ));
            }
        }
        let children: Vec<crate::nn::ModuleRef> = crate::runtime::lock::lock(m)
            .modules
            .iter()
            .filter_map(|(_, c)| c.clone())
            .collect();
        for c in &children {
            self.extra_reprs(c, depth + 1, out)?;
        }
        Ok(())
    }

    /// The texts an instance's class writes (`__str__`, `__repr__`, an
    /// exception's), kept under the instance's key.
    fn object_texts(
        &mut self,
        v: &Value,
        o: &Arc<super::value::Object>,
        top: bool,
        out: &mut Vec<(usize, Texts)>,
    ) -> Result<(), Diagnostic> {
        if out.iter().any(|(k, _)| *k == key(o)) {
            return Ok(());
        }
        let mut texts = Texts::default();
        // Where it is read as it is, `repr(x)` may be what is made.
        if top {
            texts.str = self.dunder(v, o, "__str__", "__str__")?;
        }
        // Python's `str(x)` of a class with `__repr__` alone names
        // `__str__` when what it returned is no string.
        let said = match top && texts.str.is_none() {
            true => "__str__",
            false => "__repr__",
        };
        // `str(self)` inside the instance's own `__repr__` needs its
        // `__str__` only (asking `__repr__` again would not end).
        let inside_repr = self.reprs_running.contains(&key(o));
        if !(inside_repr && texts.str.is_some()) {
            self.reprs_running.push(key(o));
            let r = self.dunder(v, o, "__repr__", said);
            self.reprs_running.pop();
            texts.repr = r?;
        }
        // An exception's own texts come from its `args`, as
        // `BaseException.__str__` and `__repr__` make them.
        if o.class.exception().is_some() {
            let args = o.get("args").and_then(|a| a.items()).unwrap_or_default();
            if texts.str.is_none() {
                texts.str = Some(match args.as_slice() {
                    [] => String::new(),
                    [one] => super::format::str_of(one),
                    _ => super::format::repr_of(&Value::List(Arc::clone(&args))),
                });
            }
            if texts.repr.is_none() {
                let parts: Vec<String> = args.iter().map(super::format::repr_of).collect();
                texts.repr = Some(format!("{}({})", o.class.name, parts.join(", ")));
            }
        }
        if texts.str.is_some() || texts.repr.is_some() {
            out.push((key(o), texts));
        }
        Ok(())
    }

    /// `o.__str__()` or `o.__repr__()` when its class (or one above it)
    /// defines it: a string, as Python requires.
    fn dunder(
        &mut self,
        v: &Value,
        o: &Arc<Object>,
        name: &str,
        said: &str,
    ) -> Result<Option<String>, Diagnostic> {
        let Some(Value::Function(f)) = o.class.find(name) else {
            return Ok(None);
        };
        let span: Span = f.def.name.span;
        let r = self.call_bound(v, f, Vec::<ArgVal>::new(), span)?;
        match r {
            Value::Str(s) => Ok(Some(s.to_string())),
            other => Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "{said} returned non-string (type {})",
                    super::format::python_type(&other)
                ),
                help: None,
            }
            .at(span)),
        }
    }
}
