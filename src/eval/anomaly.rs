//! Anomaly detection from the language: `torch.set_anomaly_enabled`,
//! `torch.is_anomaly_enabled`, `torch.is_anomaly_check_nan_enabled` (the
//! natives `stdlib/torch_autograd_anomaly_mode.py` builds
//! `detect_anomaly` and `set_detect_anomaly` on), and the tracebacks the
//! nodes made under the mode keep (`autograd/anomaly.rs`): written when
//! the statement that made them ends, one line pair per frame, as
//! Python's `traceback` prints them.

use super::args::ArgVal;
use super::{Interp, Value};
use crate::autograd::anomaly;
use crate::error::{Error, Source};

impl Interp {
    /// The frames the running statement is in, outermost first: each
    /// `  File "name", line N, in function` and the line's text.
    fn traceback_frames(&self) -> Vec<String> {
        let mut levels: Vec<(Option<&std::sync::Arc<Source>>, String)> =
            vec![(self.source.as_ref(), "<module>".to_string())];
        for frame in &self.frames {
            let source = frame.function.source.as_ref().or(self.source.as_ref());
            levels.push((source, frame.function.name().to_string()));
        }
        let mut ats: Vec<usize> = self.frames.iter().map(|f| f.caller_at).collect();
        ats.push(self.statement_at.get());
        let mut frames = Vec::with_capacity(levels.len());
        for ((source, function), at) in levels.into_iter().zip(ats) {
            let Some(source) = source else { continue };
            let src = &source.text;
            let at = at.min(src.len());
            let line = src[..at].matches('\n').count() + 1;
            let start = src[..at].rfind('\n').map_or(0, |i| i + 1);
            let end = src[at..].find('\n').map_or(src.len(), |i| at + i);
            frames.push(format!(
                "  File \"{}\", line {line}, in {function}\n    {}\n",
                source.name,
                src[start..end].trim()
            ));
        }
        frames
    }

    /// Writes the running statement's traceback into the nodes made under
    /// anomaly detection since the last statement ended.
    #[inline(never)]
    pub(super) fn trace_new_nodes(&mut self) {
        let slots = anomaly::take_untraced();
        let frames = self.traceback_frames();
        for slot in slots {
            let _ = slot.set(frames.clone());
        }
    }
}

/// The natives of anomaly detection; None: not one of them.
pub(super) fn native(name: &str, args: &[ArgVal]) -> Option<Result<Value, Error>> {
    let flag = |keyword: &str, position: usize, default: bool| -> Result<bool, Error> {
        let given = args
            .iter()
            .find(|a| a.keyword.as_ref().is_some_and(|k| k.name == keyword))
            .or_else(|| args.iter().filter(|a| a.keyword.is_none()).nth(position));
        match given.map(|a| &a.value) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(b.get()),
            Some(other) => Err(Error::wrong_type(
                format!("{name}'s `{keyword}`"),
                "True or False",
                other.type_name(),
            )),
        }
    };
    Some(match name {
        "torch.set_anomaly_enabled" => (|| {
            let on = flag("enabled", 0, false)?;
            let check_nan = flag("check_nan", 1, true)?;
            anomaly::set(on, check_nan);
            Ok(Value::None)
        })(),
        "torch.is_anomaly_enabled" => Ok(Value::bool(anomaly::enabled())),
        "torch.is_anomaly_check_nan_enabled" => Ok(Value::bool(anomaly::check_nan_enabled())),
        _ => return None,
    })
}
