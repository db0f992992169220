//! Long warnings and error reports broken at word boundaries to a width:
//! the terminal's in the REPL and `present`, a fixed one in notebooks (whose
//! output areas break long lines anywhere, mid-word included). ANSI colour
//! escapes take no columns.

use crate::diag::strip_ansi;

/// A warning as shown: `warning: ` and the text, its further lines indented.
pub fn warning(text: &str, width: usize) -> String {
    line(&format!("warning: {text}"), width, "  ")
}

/// An error report (`diag::render`'s): its message line and its `Help:`
/// lines broken to `width`, continued under their own text; the source
/// lines with their carets stay as they are.
pub fn report(report: &str, width: usize) -> String {
    let mut out = String::with_capacity(report.len());
    for (i, l) in report.lines().enumerate() {
        let indent = match help_prefix(l) {
            Some(prefix) => format!("{prefix}{}", " ".repeat("Help: ".len())),
            None if i == 0 => "  ".to_string(),
            None => {
                out.push_str(l);
                out.push('\n');
                continue;
            }
        };
        out.push_str(&line(l, width, &indent));
        out.push('\n');
    }
    if !report.ends_with('\n') {
        out.pop();
    }
    out
}

/// What comes before a report's `Help: ` text on a line of its box
/// (`   │ `), without colour.
fn help_prefix(l: &str) -> Option<String> {
    let plain = strip_ansi(l);
    let at = plain.find("Help: ")?;
    let prefix = &plain[..at];
    prefix
        .chars()
        .all(|c| c == ' ' || c == '│')
        .then(|| prefix.to_string())
}

/// `text` (one line) broken at spaces so each piece fits `width` columns
/// where it can (a word longer than that stays whole); pieces after the
/// first start with `indent`.
pub fn line(text: &str, width: usize, indent: &str) -> String {
    if columns(text) <= width {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut used = 0;
    // Whether the line being filled has a word yet (a new line has only the indent).
    let mut has_word = false;
    for (i, word) in text.split(' ').enumerate() {
        let w = columns(word);
        if has_word && used + 1 + w > width && !word.is_empty() {
            out.push('\n');
            out.push_str(indent);
            used = columns(indent);
            has_word = false;
        } else if i > 0 {
            out.push(' ');
            used += 1;
        }
        out.push_str(word);
        used += w;
        has_word |= !word.is_empty();
    }
    out
}

/// Display columns of `s`: characters, without ANSI escape sequences.
fn columns(s: &str) -> usize {
    strip_ansi(s).chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_break_between_words_and_indent() {
        let w = warning(
            "`a` is read on stream `s` while a write may still be running",
            30,
        );
        assert_eq!(
            w,
            "warning: `a` is read on stream\n  `s` while a write may still\n  be running"
        );
        for l in w.lines() {
            assert!(columns(l) <= 30, "{l:?}");
        }
        assert_eq!(warning("short", 80), "warning: short");
    }

    #[test]
    fn a_word_longer_than_the_width_stays_whole() {
        assert_eq!(line("a bbbbbbbbbb c", 5, " "), "a\n bbbbbbbbbb\n c");
    }

    #[test]
    fn colour_escapes_take_no_columns() {
        let red = "\u{1b}[31mred\u{1b}[0m";
        assert_eq!(columns(red), 3);
        assert_eq!(line(&format!("{red} {red}"), 7, ""), format!("{red} {red}"));
    }

    #[test]
    fn reports_wrap_their_message_and_help_not_their_source() {
        let r = "ValueError: one two three four five\n   │\n 1 │ x = some_long_source_line(1, 2, 3)\n   │ Help: alpha beta gamma delta\n───╯\n";
        let w = report(r, 24);
        assert_eq!(
            w,
            "ValueError: one two\n  three four five\n   │\n 1 │ x = some_long_source_line(1, 2, 3)\n   │ Help: alpha beta\n   │       gamma delta\n───╯\n"
        );
    }
}
