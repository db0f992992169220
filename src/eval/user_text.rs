//! A class's `__str__` and `__repr__`, as Python calls them where a value
//! is read as text (`print`, `str`, `repr`, f-strings, `format`, `%`):
//! called before the text is made (`Interp::host_read`), their results
//! kept here while `format.rs` and `show.rs` write the value, which take
//! an instance's text from here first. `dunder_text.rs` calls them.

use std::cell::RefCell;
use std::sync::Arc;

use super::value::Object;

/// What an instance's methods returned: `str` for a value read as it is
/// (`print(x)`, `str(x)`), `repr` for `repr(x)` and inside a list, a
/// tuple or a dict.
#[derive(Debug, Default, Clone)]
pub struct Texts {
    pub(super) str: Option<String>,
    pub(super) repr: Option<String>,
    /// A module's `extra_repr()` (kept under the module's address).
    pub(super) extra_repr: Option<String>,
}

thread_local! {
    static TEXTS: RefCell<Vec<(usize, Texts)>> = const { RefCell::new(Vec::new()) };
}

/// The key an instance's texts are kept under.
pub(super) fn key(o: &Arc<Object>) -> usize {
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
    let extras: Vec<(usize, String)> = texts
        .iter()
        .filter_map(|(k, t)| Some((*k, t.extra_repr.clone()?)))
        .collect();
    let before = TEXTS.with(|t| std::mem::replace(&mut *t.borrow_mut(), texts));
    let r = crate::nn::repr::with_extra_reprs(extras, f);
    TEXTS.with(|t| *t.borrow_mut() = before);
    r
}

/// `str(m)` of a module whose class writes its own text.
pub fn module_str(m: &crate::nn::ModuleRef) -> Option<String> {
    super::value::object_of(m).and_then(|o| str_of(&o))
}

/// `repr(m)` of a module whose class writes its own `__repr__`.
pub fn module_repr(m: &crate::nn::ModuleRef) -> Option<String> {
    super::value::object_of(m).and_then(|o| repr_of(&o))
}
