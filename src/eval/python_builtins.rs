//! Python's own `sum`, `max` and `min` as a Python program's bare names
//! give them: over a tensor they iterate its rows, as Python does (`sum(x)`
//! of a matrix is the sum of its rows, a vector; `max(x)` compares rows
//! with `>`), where `torch.sum` reduces every element. The rest (numbers,
//! lists, several arguments) is the builtin cudash's cells call by the
//! same names, which follows Python there.

use super::args::ArgVal;
use super::{docs, Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::BinOp;
use crate::lang::Span;
use crate::vocab::BinaryOp;

pub(super) const NAMES: &[&str] = &["builtins.sum", "builtins.max", "builtins.min"];

impl Interp {
    /// `sum(iterable, start=0)`, `max(iterable)`, `min(iterable)` as
    /// Python's builtins.
    pub(super) fn call_python_builtin(
        &mut self,
        name: &'static str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let short = name.trim_start_matches("builtins.");
        let positional = args.iter().filter(|a| a.keyword.is_none()).count();
        let rows_of_tensor = match args.first() {
            Some(ArgVal {
                keyword: None,
                value: Value::Tensor(t),
                ..
            }) if t.ndim() > 0 => Some(t.clone()),
            _ => None,
        };
        let python_way = match short {
            "sum" => {
                positional <= 2
                    && args.iter().all(|a| {
                        matches!(
                            a.keyword.as_ref().map(|k| k.name.as_str()),
                            None | Some("start")
                        )
                    })
            }
            _ => positional == 1 && args.iter().all(|a| a.keyword.is_none()),
        };
        let Some(t) = rows_of_tensor.filter(|_| python_way) else {
            let builtin = docs::function(short).expect("sum, max and min are builtins");
            return self.call_value(Value::Builtin(builtin), args, span);
        };
        let rows = self.rows_of(&t).map_err(|e| e.at(span))?;
        match short {
            "sum" => {
                let start = args
                    .iter()
                    .skip(1)
                    .find(|a| {
                        a.keyword.is_none()
                            || a.keyword.as_ref().map(|k| k.name.as_str()) == Some("start")
                    })
                    .map_or(Value::Int(0), |a| a.value.clone());
                let mut total = start;
                for r in rows {
                    total = self
                        .binary(BinOp::Elementwise(BinaryOp::Add), total, r)
                        .map_err(|e| e.at(span))?;
                }
                Ok(total)
            }
            _ => {
                let mut rows = rows.into_iter();
                let Some(mut best) = rows.next() else {
                    return Err(
                        Error::value(format!("{short}() iterable argument is empty")).at(span),
                    );
                };
                // Python keeps the first of equal items: it replaces the one
                // it holds only when the next compares strictly past it.
                let past = match short {
                    "max" => BinaryOp::Gt,
                    _ => BinaryOp::Lt,
                };
                for r in rows {
                    let beats = self
                        .binary(BinOp::Elementwise(past), r.clone(), best.clone())
                        .map_err(|e| e.at(span))?;
                    if self.truth(&beats, span)? {
                        best = r;
                    }
                }
                Ok(best)
            }
        }
    }
}
