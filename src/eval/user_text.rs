//! A class's `__str__` and `__repr__`, as Python calls them where a value
//! is read as text (`print`, `str`, `repr`, f-strings, `format`, `%`):
//! called before the text is made (`Interp::host_read`), their results
//! kept here while `format.rs` and `show.rs` write the value, which take
//! an instance's text from here first.

use std::cell::RefCell;
use std::sync::Arc;

use super::args::ArgVal;
use super::value::{Object, Value};
use super::Interp;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

/// What an instance's methods returned: `str` for a value read as it is
/// (`print(x)`, `str(x)`), `repr` for `repr(x)` and inside a list, a
/// tuple or a dict.
#[derive(Debug, Default, Clone)]
pub struct Texts {
    str: Option<String>,
    repr: Option<String>,
}

thread_local! {
    static TEXTS: RefCell<Vec<(usize, Texts)>> = const { RefCell::new(Vec::new()) };
}

/// Containers deeper than this are written without their instances' own
/// texts (as a list that holds itself is, once).
const DEPTH: usize = 32;

fn key(o: &Arc<Object>) -> usize {
    Arc::as_ptr(o) as usize
}

/// `str(o)` as the class writes it, if it writes one (`__str__`, else
/// `__repr__`).
pub fn str_of(o: &Arc<Object>) -> Option<String> {
    let k = key(o);
    TEXTS.with(|t| {
        t.borrow()
            .iter()
            .find(|(p, _)| *p == k)
            .and_then(|(_, x)| x.str.clone().or_else(|| x.repr.clone()))
    })
}

/// `repr(o)` as the class writes it (`__repr__`), if it does.
pub fn repr_of(o: &Arc<Object>) -> Option<String> {
    let k = key(o);
    TEXTS.with(|t| {
        t.borrow()
            .iter()
            .find(|(p, _)| *p == k)
            .and_then(|(_, x)| x.repr.clone())
    })
}

/// Runs `f` with `texts` known (restoring what was known before: a
/// `__repr__` may print).
pub fn with<R>(texts: Vec<(usize, Texts)>, f: impl FnOnce() -> R) -> R {
    if texts.is_empty() {
        return f();
    }
    let before = TEXTS.with(|t| std::mem::replace(&mut *t.borrow_mut(), texts));
    let r = f();
    TEXTS.with(|t| *t.borrow_mut() = before);
    r
}

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
            Value::Object(o) => {
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
                texts.repr = self.dunder(v, o, "__repr__", said)?;
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
            }
            Value::List(items) | Value::Size(items) => {
                for x in items.iter() {
                    self.texts_of(x, false, depth + 1, out)?;
                }
            }
            Value::MutList(_) | Value::Set(_) => {
                for x in v.items().unwrap_or_default().iter() {
                    self.texts_of(x, false, depth + 1, out)?;
                }
            }
            Value::Dict(d) => {
                for (_, x) in d.items().iter() {
                    self.texts_of(x, false, depth + 1, out)?;
                }
            }
            _ => {}
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
