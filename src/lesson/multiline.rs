//! nbformat's multi-line strings, read and written: a notebook stores a
//! cell's source and its outputs' text as one string or as a list of lines.

use serde_json::{json, Value};

/// A multi-line string as nbformat stores it: a string, or a list of lines.
pub fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// A string as a list of lines, each keeping its `\n` (as nbformat writes).
pub fn lines(s: &str) -> Value {
    Value::Array(s.split_inclusive('\n').map(|l| json!(l)).collect())
}
