//! The one place where diagnostics become text: a caret under the span, the
//! message, and a hint. Terminal, Jupyter and tests all use this.

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};

use crate::error::Diagnostic;

/// Renders `diag` against `src` (the cell or script it came from).
pub fn render(diag: &Diagnostic, name: &str, src: &str, color: bool) -> String {
    let len = src.len();
    let start = floor_char(src, diag.span.start.min(len));
    let end = floor_char(src, diag.span.end.clamp(start, len));
    match Window::around(src, start, end) {
        Some(w) => {
            let shown = w.source(src);
            let (s, e) = (w.shift(start), w.shift(end));
            let text = render_at(diag, name, &shown, s, e, color);
            // The header gives the column in the window; give the real one.
            let col = |at: usize| src[w.line_start..at].chars().count() + 1;
            let (wrong, right) = (
                format!(
                    "{name}:{}:{}",
                    w.line + 1,
                    shown[w.line..s].chars().count() + 1
                ),
                format!("{name}:{}:{}", w.line + 1, col(start)),
            );
            text.replacen(&wrong, &right, 1)
        }
        None => render_at(diag, name, src, start, end, color),
    }
}

/// Lines longer than this are shown as a window around the span.
const LONG_LINE: usize = 200;
/// Characters of context kept on each side of the span in a long line.
const CONTEXT: usize = 60;
/// At most this much of a long span is underlined.
const LONG_SPAN: usize = 80;

/// A window on one long line: a 1 MB line in a script gets a diagnostic of a
/// few lines, not the whole line three times over.
struct Window {
    /// Line number (0-based) and where that line starts in the source.
    line: usize,
    line_start: usize,
    /// The part of the line shown, as byte offsets into the source.
    from: usize,
    to: usize,
}

impl Window {
    fn around(src: &str, start: usize, end: usize) -> Option<Window> {
        let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        if line_end - line_start <= LONG_LINE {
            return None;
        }
        let end = end.min(line_end).min(start + LONG_SPAN);
        let from = floor_char(src, start.saturating_sub(CONTEXT).max(line_start));
        let to = floor_char(src, (end + CONTEXT).min(line_end));
        Some(Window {
            line: src[..line_start].matches('\n').count(),
            line_start,
            from,
            to,
        })
    }

    /// Empty lines up to the line, then the window with `…` where it was cut.
    fn source(&self, src: &str) -> String {
        let mut s = "\n".repeat(self.line);
        if self.from > self.line_start {
            s.push('…');
        }
        s.push_str(&src[self.from..self.to]);
        if !src[self.to..].starts_with('\n') && self.to < src.len() {
            s.push('…');
        }
        s
    }

    /// An offset into the source, as an offset into `source()`.
    fn shift(&self, at: usize) -> usize {
        let lead = if self.from > self.line_start {
            '…'.len_utf8()
        } else {
            0
        };
        self.line + lead + at.clamp(self.from, self.to) - self.from
    }
}

fn floor_char(src: &str, mut at: usize) -> usize {
    while !src.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn render_at(
    diag: &Diagnostic,
    name: &str,
    src: &str,
    start: usize,
    end: usize,
    color: bool,
) -> String {
    let id = name.to_string();
    // A Python program's report names the class Python sees.
    let class = match crate::lang::Dialect::of(name) {
        crate::lang::Dialect::Python => diag.error.python_program_name(),
        crate::lang::Dialect::Cudash => diag.error.python_name(),
    };
    let kind = ReportKind::Custom(&class, Color::Red);
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

/// The calls an error left, innermost first, one line each: where the
/// call is (`train.py:40:9`), the function it is in, and the line's text
/// (what Python's traceback gives, read upwards). `name` and `src` are the
/// running script's, for calls made in it.
pub fn render_calls(diag: &Diagnostic, name: &str, src: &str) -> String {
    if diag.called_from.is_empty() {
        return String::new();
    }
    let mut out = String::from("called from:\n");
    for c in &diag.called_from {
        let (name, src) = match &c.source {
            Some(s) => (s.name.as_str(), s.text.as_ref()),
            None => (name, src),
        };
        let at = floor_char(src, c.span.start.min(src.len()));
        let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[at..].find('\n').map_or(src.len(), |i| at + i);
        let line = src[..line_start].matches('\n').count() + 1;
        let col = src[line_start..at].chars().count() + 1;
        let text: String = src[line_start..line_end]
            .trim()
            .chars()
            .take(CONTEXT * 2)
            .collect();
        let within = c
            .within
            .as_ref()
            .map_or(String::new(), |f| format!(" in {f}"));
        out.push_str(&format!("  {name}:{line}:{col}{within}: {text}\n"));
        if c.repeats > 0 {
            out.push_str(&format!(
                "  [the line above repeated {} more times]\n",
                c.repeats
            ));
        }
    }
    if diag.more_calls > 0 {
        out.push_str(&format!("  … and {} calls more\n", diag.more_calls));
    }
    out
}

/// A single line: `SyntaxError: unexpected `)``.
pub fn one_line(diag: &Diagnostic) -> String {
    format!("{}: {}", diag.error.python_name(), diag.error)
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
