//! `torch.profiler.profile` from the language (`stdlib/torch_profiler.py`
//! over the natives here): the runtime's timeline, recorded between
//! `start` and `stop` (measured on a GPU, modelled elsewhere, as `profile
//! { }`'s), kept for the program's `key_averages().table()` and
//! `export_chrome_trace(path)`.

use std::path::Path;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::display::profiler_table;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

/// The natives `stdlib/torch_profiler.py` calls.
pub const NAMES: [&str; 6] = [
    "_cudash.profiler_range_begin",
    "_cudash.profiler_range_end",
    "_cudash.profiler_start",
    "_cudash.profiler_stop",
    "_cudash.profiler_table",
    "_cudash.profiler_trace",
];

impl Interp {
    pub(super) fn call_profiler(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let arg = |k: usize| args.get(k).map(|a| a.value.clone()).unwrap_or(Value::None);
        let flag = |k: usize| matches!(arg(k), Value::Bool(b) if b.get());
        match name {
            "_cudash.profiler_start" => {
                if self.rt.recording() {
                    return Err(Error::value_help(
                        "the profiler is already recording",
                        "one profile at a time: `torch.profiler.profile` and `profile { }` do not nest",
                    )
                    .at(span));
                }
                self.rt.timeline_start(None).map_err(|e| e.at(span))?;
                self.rt.timeline_each_launch();
                Ok(Value::None)
            }
            // The timeline ends, then the host waits for the work it
            // queued, as PyTorch's profiler synchronises when it stops.
            "_cudash.profiler_stop" => {
                let ended = self.rt.timeline_end().map_err(|e| e.at(span))?;
                self.rt.sync_all().map_err(|e| e.at(span))?;
                let Some((timeline, _)) = ended else {
                    return Ok(Value::None);
                };
                self.profiles.push(timeline);
                Ok(Value::Int(self.profiles.len() as i64 - 1))
            }
            "_cudash.profiler_range_begin" => {
                let name = match arg(0) {
                    Value::Str(s) => s.to_string(),
                    other => other.type_name().to_string(),
                };
                Ok(match self.rt.timeline_range_begin(name) {
                    Some(k) => Value::Int(k as i64),
                    None => Value::None,
                })
            }
            "_cudash.profiler_range_end" => {
                if let Value::Int(k) = arg(0) {
                    self.rt.timeline_range_end(k as usize);
                }
                Ok(Value::None)
            }
            "_cudash.profiler_table" => {
                let timeline = self.profile_result(&arg(0), span)?;
                let rows = profiler_table::key_averages(timeline, flag(3));
                let sort_by = match arg(1) {
                    Value::Str(s) => Some(s.to_string()),
                    _ => None,
                };
                let limit = match arg(2) {
                    Value::Int(n) if n >= 0 => n as usize,
                    _ => usize::MAX,
                };
                let text =
                    profiler_table::table(rows, sort_by.as_deref(), limit).map_err(|by| {
                        if by.contains("memory_usage") {
                            // PyTorch's key, for what cudash does not record.
                            return Error::Module {
                                class: "NotImplementedError",
                                message: format!(
                                    "sort_by='{by}': cudash's torch.profiler does not record memory (profile_memory=True), so its tables have no memory columns"
                                ),
                                help: Some(format!(
                                    "sort by time ({}); `mem`, torch.cuda.memory_stats() and torch.cuda.memory._record_memory_history() show the allocator",
                                    profiler_table::SORT_KEYS
                                )),
                            }
                            .at(span);
                        }
                        Error::Module {
                            class: "AttributeError",
                            message: format!("'FunctionEventAvg' object has no attribute '{by}'"),
                            help: Some(format!("sort_by takes {}", profiler_table::SORT_KEYS)),
                        }
                        .at(span)
                    })?;
                Ok(Value::Str(std::sync::Arc::new(text)))
            }
            _ => {
                let timeline = self.profile_result(&arg(0), span)?;
                let Value::Str(path) = arg(1) else {
                    return Err(Error::value("export_chrome_trace(path) needs a path").at(span));
                };
                let syncs = flag(2);
                timeline
                    .write_trace(Path::new(path.as_str()), syncs)
                    .map_err(|e| {
                        Error::Module {
                            class: "OSError",
                            message: format!("cannot write the trace to {path}: {e}"),
                            help: None,
                        }
                        .at(span)
                    })?;
                Ok(Value::None)
            }
        }
    }

    fn profile_result(
        &self,
        id: &Value,
        span: Span,
    ) -> Result<&crate::runtime::timeline::Timeline, Diagnostic> {
        match id {
            Value::Int(k) if (*k as usize) < self.profiles.len() => Ok(&self.profiles[*k as usize]),
            _ => Err(Error::Module {
                class: "AssertionError",
                message: "the profiler has no results: it recorded nothing yet (call it after the profile ends)".into(),
                help: None,
            }
            .at(span)),
        }
    }
}
