//! A Python list's methods (`list()` makes one).

use std::sync::{Arc, Mutex};

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::lock::lock;

/// A Python list: one vector every name for it shares.
pub(super) type List = Arc<Mutex<Arc<Vec<Value>>>>;

/// `xs.append(v)`: `v` at the end of `xs` (every name for `xs` sees it).
pub(super) fn append(
    _: &mut Interp,
    _: &'static str,
    xs: &List,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let (v, _) = b
        .get("value")
        .ok_or_else(|| Error::value("append() needs a value").at(b.span))?;
    // Copied only while a reading of the list as it was is still alive.
    Arc::make_mut(&mut lock(xs)).push(v.clone());
    Ok(Value::None)
}
