//! `x.untyped_storage()` from the language: the natives
//! `stdlib/torch_storage.py`'s `UntypedStorage` reads (the storage's
//! address and size in bytes, and its bytes), so a program sees that a
//! view keeps its base's whole allocation alive, as PyTorch shows it.

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::Tensor;

/// The natives `stdlib/torch_storage.py` calls.
pub const NAMES: [&str; 3] = [
    "_cudash.storage_ptr",
    "_cudash.storage_nbytes",
    "_cudash.storage_bytes",
];

/// Each element's bytes, little-endian, as the storage holds them.
fn bytes_of(t: &Tensor) -> Vec<Value> {
    t.contiguous_buffer()
        .to_le_bytes()
        .into_iter()
        .map(|b| Value::Int(b as i64))
        .collect()
}

impl Interp {
    pub(super) fn call_storage(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let t = match args.first().map(|a| &a.value) {
            Some(Value::Tensor(t)) => Arc::clone(t),
            _ => return Err(Error::value(format!("{name} takes a tensor")).at(span)),
        };
        Ok(match name {
            "_cudash.storage_ptr" => Value::Int(t.storage_ptr() as i64),
            "_cudash.storage_nbytes" => Value::Int((t.storage_len() * t.dtype().size()) as i64),
            // The whole storage copied to the host, as PyTorch's printing
            // of a storage does (a sync for a device's).
            _ => {
                let whole = t.view(vec![t.storage_len()], vec![1], 0);
                let bytes = self
                    .rt
                    .read_all(&whole, || bytes_of(&whole))
                    .map_err(|e| e.at(span))?;
                Value::list(bytes)
            }
        })
    }
}
