//! `Session`: the one object every front end drives (REPL, Jupyter kernel,
//! `cudash run`, `cudash present`). Nothing reaches around it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::diag;
use crate::error::Diagnostic;
use crate::eval::docs::{self, Kind};
use crate::eval::{Interp, Output, Value};
use crate::lang::{self, ast::Stmt, Completeness};
use crate::runtime::shape::fmt_shape;

#[derive(Debug, Clone, Default)]
pub struct Config {
    pub seed: u64,
    /// Colour in rendered diagnostics.
    pub color: bool,
}

/// A failed statement, rendered.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReport {
    /// `SyntaxError`, `ShapeError`, ...
    pub ename: String,
    /// The one-line message.
    pub evalue: String,
    /// The message with the source and a caret under the span.
    pub report: String,
}

/// What running a cell produced: outputs in order, then the error that stopped it, if any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub outputs: Vec<Output>,
    pub error: Option<ErrorReport>,
}

/// Completions for the word before the cursor, replacing `start..end` (byte offsets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub start: usize,
    pub end: usize,
    pub matches: Vec<String>,
}

/// A snapshot for live displays. Per-device allocator and stream state arrive with CUDA devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub backend: &'static str,
    pub cuda_devices: u32,
    pub variables: usize,
    /// Bytes held by tensors bound to names.
    pub host_tensor_bytes: usize,
}

/// One row of `:vars`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarInfo {
    pub name: String,
    pub summary: String,
    pub bytes: usize,
}

pub struct Session {
    interp: Interp,
    config: Config,
    history: Vec<String>,
}

impl Session {
    pub fn new(config: Config) -> Session {
        Session {
            interp: Interp::new(config.seed),
            config,
            history: Vec::new(),
        }
    }

    pub fn backend_name(&self) -> &'static str {
        "cpu"
    }

    pub fn banner(&self) -> String {
        format!(
            "cudash {} — backend: cpu (no CUDA devices in this build yet). `help` lists topics.",
            env!("CARGO_PKG_VERSION")
        )
    }

    /// Runs a cell. Statements run in order; the first error stops the cell and
    /// leaves every variable as it was before that statement.
    pub fn execute(&mut self, src: &str) -> Outcome {
        self.history.push(src.to_string());
        let mut outcome = Outcome::default();
        self.run_source("cell", src, false, |_, o| outcome.merge(o));
        outcome
    }

    /// Runs a script statement by statement, calling `each` with the statement's
    /// text and what it produced. Returns false if any statement failed.
    pub fn run_script(
        &mut self,
        name: &str,
        src: &str,
        keep_going: bool,
        mut each: impl FnMut(&str, Outcome),
    ) -> bool {
        self.run_source(name, src, keep_going, |text, o| each(text, o))
    }

    fn run_source(
        &mut self,
        name: &str,
        src: &str,
        keep_going: bool,
        mut each: impl FnMut(&str, Outcome),
    ) -> bool {
        self.interp.interrupt.store(false, Ordering::Relaxed);
        let stmts = match lang::parse(src) {
            Ok(s) => s,
            Err(diags) => {
                each("", self.error_outcome(&diags, name, src));
                return false;
            }
        };
        let mut ok = true;
        for (i, s) in stmts.iter().enumerate() {
            let r = self.interp.run_top(s);
            let mut o = Outcome {
                outputs: std::mem::take(&mut self.interp.out),
                error: None,
            };
            if let Err(d) = r {
                o.error = Some(self.report(&d, name, src));
                ok = false;
            }
            let failed = o.error.is_some();
            each(statement_text(src, &stmts, i), o);
            if failed && !keep_going {
                break;
            }
        }
        ok
    }

    fn error_outcome(&self, diags: &[Diagnostic], name: &str, src: &str) -> Outcome {
        let first = &diags[0];
        let mut report = self.report(first, name, src);
        for d in &diags[1..] {
            report
                .report
                .push_str(&diag::render(d, name, src, self.config.color));
        }
        Outcome {
            outputs: Vec::new(),
            error: Some(report),
        }
    }

    fn report(&self, d: &Diagnostic, name: &str, src: &str) -> ErrorReport {
        ErrorReport {
            ename: d.error.class().to_string(),
            evalue: d.error.to_string(),
            report: diag::render(d, name, src, self.config.color),
        }
    }

    pub fn is_complete(&self, src: &str) -> Completeness {
        lang::completeness(src)
    }

    /// Completes the word before `cursor` (a byte offset): after `.`, the members of
    /// the receiver's type; otherwise variables, builtins, keywords, dtypes and devices.
    pub fn complete(&self, src: &str, cursor: usize) -> Completion {
        let cursor = floor_char_boundary(src, cursor);
        let before = &src[..cursor];
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
            .last()
            .map_or(cursor, |(i, _)| i);
        let prefix = &src[start..cursor];
        let mut candidates: Vec<String> = if before[..start].ends_with('.') {
            let receiver = word_before(&before[..start - 1]);
            match self.interp.vars().get(receiver) {
                Some(v) if v.kind() != "tensor" => Vec::new(),
                _ => docs::members().map(|d| d.name.to_string()).collect(),
            }
        } else {
            let mut names = self.interp.known_names();
            names.extend(lang::token::Kw::ALL.iter().map(|k| k.as_str().to_string()));
            names.extend(
                crate::runtime::DType::ALL
                    .iter()
                    .map(|d| d.name().to_string()),
            );
            names.extend(["cpu", "cuda", "true", "false", "none", "stream"].map(String::from));
            names
        };
        candidates.retain(|c| c.starts_with(prefix));
        candidates.sort();
        candidates.dedup();
        Completion {
            start,
            end: cursor,
            matches: candidates,
        }
    }

    /// Help for the name under (or just before) the cursor.
    pub fn inspect(&self, src: &str, cursor: usize) -> Option<String> {
        let cursor = floor_char_boundary(src, cursor);
        let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let start = src[..cursor]
            .rfind(|c: char| !is_word(c))
            .map_or(0, |i| i + 1);
        let end = src[cursor..]
            .find(|c: char| !is_word(c))
            .map_or(src.len(), |i| cursor + i);
        let word = &src[start..end];
        if word.is_empty() {
            return None;
        }
        if let Some(v) = self.interp.vars().get(word) {
            return Some(format!("{word}: {}", crate::display::value::repr(v)));
        }
        let after_dot = src[..start].ends_with('.');
        let found: Vec<_> = docs::lookup(word)
            .into_iter()
            .filter(|d| !after_dot || matches!(d.kind, Kind::Method | Kind::Property))
            .collect();
        (!found.is_empty()).then(|| {
            found
                .iter()
                .map(|d| d.help_text())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
    }

    pub fn status(&self) -> Status {
        let host_tensor_bytes = self
            .interp
            .vars()
            .values()
            .filter_map(|v| match v {
                Value::Tensor(t) => Some(t.nbytes()),
                _ => None,
            })
            .sum();
        Status {
            backend: self.backend_name(),
            cuda_devices: self.interp.cuda_devices,
            variables: self.interp.vars().len(),
            host_tensor_bytes,
        }
    }

    /// Set from another thread (Ctrl-C, a Jupyter interrupt) to stop the running statement.
    pub fn interrupt_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.interp.interrupt)
    }

    pub fn vars(&self) -> Vec<VarInfo> {
        let mut rows: Vec<VarInfo> = self
            .interp
            .vars()
            .iter()
            .map(|(name, v)| {
                let (summary, bytes) = match v {
                    Value::Tensor(t) => (
                        format!("{} {} @{}", t.dtype(), fmt_shape(t.shape()), t.device()),
                        t.nbytes(),
                    ),
                    other => (crate::display::value::repr(other), 0),
                };
                VarInfo {
                    name: name.clone(),
                    summary,
                    bytes,
                }
            })
            .collect();
        rows.sort_by(|a, b| a.name.cmp(&b.name));
        rows
    }

    /// Forgets every variable and reseeds the generator.
    pub fn reset(&mut self) {
        self.interp = Interp::new(self.config.seed);
    }

    pub fn history(&self) -> &[String] {
        &self.history
    }
}

impl Outcome {
    fn merge(&mut self, o: Outcome) {
        self.outputs.extend(o.outputs);
        if self.error.is_none() {
            self.error = o.error;
        }
    }

    /// Everything as plain text, in order (outputs, then the error report).
    pub fn plain_text(&self) -> String {
        let mut parts: Vec<String> = self
            .outputs
            .iter()
            .map(|o| match o {
                Output::Value(s) | Output::Text(s) => s.clone(),
                Output::Warning(s) => format!("warning: {s}"),
            })
            .collect();
        if let Some(e) = &self.error {
            parts.push(e.report.trim_end().to_string());
        }
        parts.join("\n")
    }
}

/// The source of statement `i`, with the comment lines just above it.
fn statement_text<'a>(src: &'a str, stmts: &[Stmt], i: usize) -> &'a str {
    let span = stmts[i].span;
    let prev_end = if i == 0 { 0 } else { stmts[i - 1].span.end };
    let gap = &src[prev_end..span.start];
    // Start at the first comment line in the gap, if any.
    let mut start = span.start;
    let mut offset = prev_end;
    for line in gap.split_inclusive('\n') {
        if line.trim_start().starts_with('#') {
            start = offset;
            break;
        }
        offset += line.len();
    }
    &src[start..span.end]
}

fn word_before(s: &str) -> &str {
    let start = s
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
        .last()
        .map_or(s.len(), |(i, _)| i);
    &s[start..]
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
