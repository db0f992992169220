//! The one place where diagnostics become text: a caret under the span, the
//! message, and a hint. Terminal, Jupyter and tests all use this.

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};

use crate::error::Diagnostic;

/// Renders `diag` against `src` (the cell or script it came from).
pub fn render(diag: &Diagnostic, name: &str, src: &str, color: bool) -> String {
    let len = src.len();
    let start = diag.span.start.min(len);
    let end = diag.span.end.clamp(start, len);
    let id = name.to_string();
    let kind = ReportKind::Custom(diag.error.class(), Color::Red);
    let mut report = Report::build(kind, (id.clone(), start..end))
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(IndexType::Byte),
        )
        .with_message(diag.error.to_string())
        .with_label(Label::new((id.clone(), start..end)).with_message(diag.error.label()));
    if let Some(help) = diag.error.help() {
        report = report.with_help(help);
    }
    let mut out = Vec::new();
    let written = report.finish().write((id, Source::from(src)), &mut out);
    match written {
        // ariadne colours a custom report kind even when colour is off.
        Ok(()) if !color => strip_ansi(&String::from_utf8_lossy(&out)),
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(_) => one_line(diag),
    }
}

/// A single line: `SyntaxError: unexpected `)``.
pub fn one_line(diag: &Diagnostic) -> String {
    format!("{}: {}", diag.error.class(), diag.error)
}

/// Removes ANSI colour sequences (`ESC [ ... m`).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
