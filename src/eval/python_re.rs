//! The matching behind Python's `re` (`stdlib/re.py` holds the module:
//! `Pattern`, `Match`, `sub`'s templates, `split`, `findall`), on the
//! `fancy-regex` crate: Python's syntax (look-around, back-references,
//! `(?P<name>...)`, `(?P=name)`, `\Z`) and its flags, positions counted
//! in characters as Python counts them, and Python's rule for successive
//! matches (after an empty match the next may not be empty at the same
//! place, but may start there: `re.findall("|a", "a")` is `['', 'a', '']`).
//!
//! - `_cudash.re_compile(pattern, flags)`: `[groups, [[name, index], ...]]`,
//!   or a `ValueError` with the pattern's fault (`re.error` in `re.py`);
//! - `_cudash.re_find(pattern, flags, mode, text, pos, endpos)`: the first
//!   match (`mode` is `"search"`, `"match"` at `pos`, or `"fullmatch"`),
//!   as its groups' spans `[start0, end0, start1, end1, ...]` (-1 for a
//!   group that did not take part), or None;
//! - `_cudash.re_all(pattern, flags, text, pos, endpos, limit)`: every
//!   match in turn (at most `limit`, 0 for all), each as `re_find` gives it;
//! - `_cudash.re_findall(pattern, flags, text, pos, endpos)`: what
//!   `findall` returns (each match's text, its one group's, or a tuple of
//!   its groups', `''` for a group that did not take part), made here
//!   for tokenizers' long texts;
//! - `_cudash.re_pieces(pattern, flags, text, pos, endpos, limit)`: for
//!   `sub` and `split` on long texts, each match as `[text before it,
//!   spans, group texts (None where a group did not take part)]`, then
//!   the text after the last (slicing a long str by characters in the
//!   language would cost its length each time).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use fancy_regex::{Captures, Regex, RegexBuilder, RegexInput};

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::vocab::Span;

/// The names this module answers.
pub(super) const NAMES: &[&str] = &[
    "_cudash.re_compile",
    "_cudash.re_find",
    "_cudash.re_all",
    "_cudash.re_findall",
    "_cudash.re_pieces",
];

/// Python's flag bits (`re.IGNORECASE` ...).
const IGNORECASE: i64 = 2;
const MULTILINE: i64 = 8;
const DOTALL: i64 = 16;
const VERBOSE: i64 = 64;
const ASCII: i64 = 256;

/// Which compiled form of a pattern: as written, for `fullmatch` (up to
/// the end), or finding only non-empty matches (after an empty one).
#[derive(Clone, Copy, Hash, PartialEq, Eq)]
enum Form {
    Plain,
    Full,
    NotEmpty,
}

type Compiled = Result<Option<Rc<Regex>>, String>;

thread_local! {
    /// Compiled patterns, as Python's `re` caches them (cleared past 512).
    static CACHE: RefCell<HashMap<(String, i64, Form), Compiled>> = RefCell::new(HashMap::new());
}

/// The pattern compiled in `form`; None when the form can never match (a
/// pattern that only matches empty, asked for a non-empty match).
fn compiled(pattern: &str, flags: i64, form: Form) -> Compiled {
    let key = (pattern.to_string(), flags, form);
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return hit;
    }
    let mut text = String::new();
    for (bit, letter) in [
        (IGNORECASE, 'i'),
        (MULTILINE, 'm'),
        (DOTALL, 's'),
        (VERBOSE, 'x'),
    ] {
        if flags & bit != 0 {
            text.push(letter);
        }
    }
    if !text.is_empty() {
        text = format!("(?{text})");
    }
    let multiline = flags & MULTILINE != 0 || inline_flag(pattern, 'm');
    let body = translate(pattern, flags & ASCII != 0, multiline);
    let verbose = flags & VERBOSE != 0 || inline_flag(pattern, 'x');
    // In verbose mode a comment runs to the line's end: the group closes on the next.
    let close = if verbose { "\n)" } else { ")" };
    match form {
        Form::Full => text.push_str(&format!("(?:{body}{close}\\z")),
        _ => text.push_str(&body),
    }
    let mut builder = RegexBuilder::new(&text);
    builder.find_not_empty(form == Form::NotEmpty);
    let result = match builder.build() {
        Ok(re) => Ok(Some(Rc::new(re))),
        Err(fancy_regex::Error::CompileError(e))
            if form == Form::NotEmpty
                && matches!(*e, fancy_regex::CompileError::PatternCanNeverMatch) =>
        {
            Ok(None)
        }
        Err(e) => Err(e.to_string()),
    };
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 512 {
            c.clear();
        }
        c.insert(key, result.clone());
    });
    result
}

/// Whether the pattern turns a flag on itself (`(?x)` at its start).
fn inline_flag(pattern: &str, flag: char) -> bool {
    pattern
        .strip_prefix("(?")
        .and_then(|rest| rest.split(')').next())
        .is_some_and(|flags| flags.chars().all(|c| c.is_ascii_alphabetic()) && flags.contains(flag))
}

/// Python's syntax where the crate's differs: `\Z` is the end of the text
/// (the crate's would also match before a final newline); `$` is the end
/// or before a final newline (outside `re.MULTILINE`); with `re.ASCII`,
/// `\d`, `\w` and `\s` are ASCII's classes.
fn translate(pattern: &str, ascii: bool, multiline: bool) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let class = match e {
                    'd' => Some("0-9"),
                    'w' => Some("0-9A-Za-z_"),
                    's' => Some("\\t\\n\\x0b\\x0c\\r "),
                    _ => None,
                };
                let negated = match e {
                    'D' => Some("0-9"),
                    'W' => Some("0-9A-Za-z_"),
                    'S' => Some("\\t\\n\\x0b\\x0c\\r "),
                    _ => None,
                };
                match (e, ascii, in_class, class, negated) {
                    ('Z', _, false, _, _) => out.push_str("\\z"),
                    (_, true, true, Some(set), _) => out.push_str(set),
                    (_, true, false, Some(set), _) => out.push_str(&format!("[{set}]")),
                    (_, true, false, _, Some(set)) => out.push_str(&format!("[^{set}]")),
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // A `]` (after an optional `^`) first in a class is itself.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push_str("\\]");
                    chars.next();
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            // The crate reads `[` inside a class as a nested class; Python, as itself.
            '[' => out.push_str("\\["),
            '$' if !in_class && !multiline => out.push_str("(?=\\n?\\z)"),
            c => out.push(c),
        }
    }
    out
}

/// Where each character starts, to give Python's positions (characters)
/// for the crate's (bytes).
struct Offsets {
    /// Byte offset of each character, then the text's length.
    starts: Option<Vec<usize>>,
    len: usize,
}

impl Offsets {
    fn of(text: &str) -> Offsets {
        let starts = (!text.is_ascii()).then(|| {
            let mut s: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
            s.push(text.len());
            s
        });
        Offsets {
            starts,
            len: text.len(),
        }
    }

    fn chars(&self) -> usize {
        self.starts.as_ref().map_or(self.len, |s| s.len() - 1)
    }

    fn byte(&self, char_at: usize) -> usize {
        match &self.starts {
            None => char_at.min(self.len),
            Some(s) => s[char_at.min(s.len() - 1)],
        }
    }

    fn char(&self, byte: usize) -> usize {
        match &self.starts {
            None => byte,
            Some(s) => s.partition_point(|&b| b < byte),
        }
    }

    /// The next character's start after `byte` (past the end: one more).
    fn next(&self, byte: usize) -> usize {
        match byte >= self.len {
            true => self.len + 1,
            false => self.byte(self.char(byte) + 1),
        }
    }
}

fn spans(c: &Captures<str>, at: &Offsets) -> Value {
    let mut out = Vec::with_capacity(c.len() * 2);
    for g in 0..c.len() {
        match c.get(g) {
            Some(m) => {
                out.push(Value::Int(at.char(m.start()) as i64));
                out.push(Value::Int(at.char(m.end()) as i64));
            }
            None => out.extend([Value::Int(-1), Value::Int(-1)]),
        }
    }
    Value::list(out)
}

fn run_error(e: fancy_regex::Error) -> Error {
    Error::runtime(format!(
        "the regular expression gave up: {e} (a pattern that backtracks without end: simplify its nested repeats)"
    ))
}

impl Interp {
    pub(super) fn call_python_re(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        let text = |k: usize| match args.get(k).map(|a| &a.value) {
            Some(Value::Str(s)) => Ok(Arc::clone(s)),
            Some(other) => Err(at(Error::wrong_type(
                "a pattern or the string it searches",
                "a str",
                other.type_name(),
            ))),
            None => Err(at(Error::value(format!("{name}: argument {k} is missing")))),
        };
        let int = |k: usize| match args.get(k).map(|a| &a.value) {
            Some(Value::Int(i)) => Ok(*i),
            Some(Value::Bool(b)) => Ok(i64::from(b.get())),
            _ => Err(at(Error::value(format!("{name}: argument {k} is an int")))),
        };
        let pattern = text(0)?;
        let flags = int(1)?;
        let plain = compiled(&pattern, flags, Form::Plain)
            .map_err(|m| at(Error::value(m)))?
            .expect("a plain pattern compiles or fails");
        if name == "_cudash.re_compile" {
            let groups = plain.captures_len() as i64 - 1;
            let names = plain
                .capture_names()
                .enumerate()
                .filter_map(|(i, n)| {
                    n.map(|n| {
                        Value::List(Arc::new(vec![
                            Value::Str(Arc::new(n.to_string())),
                            Value::Int(i as i64),
                        ]))
                    })
                })
                .collect();
            return Ok(Value::list(vec![Value::Int(groups), Value::list(names)]));
        }
        let (mode, text_at) = match name {
            "_cudash.re_find" => (Some(text(2)?), 3),
            _ => (None, 2),
        };
        let full = text(text_at)?;
        let offsets = Offsets::of(&full);
        let chars = offsets.chars() as i64;
        let clamp = |v: i64| v.clamp(0, chars) as usize;
        let (pos, endpos) = (clamp(int(text_at + 1)?), clamp(int(text_at + 2)?));
        // Python reads the text as if it ended at `endpos`.
        let hay = &full[..offsets.byte(endpos)];
        let start = offsets.byte(pos);
        if pos > endpos {
            return Ok(match mode {
                Some(_) => Value::None,
                None => Value::list(Vec::new()),
            });
        }
        if let Some(mode) = mode {
            let (re, anchored) = match mode.as_str() {
                "fullmatch" => (
                    compiled(&pattern, flags, Form::Full)
                        .map_err(|m| at(Error::value(m)))?
                        .expect("a full pattern compiles or fails"),
                    true,
                ),
                "match" => (Rc::clone(&plain), true),
                _ => (Rc::clone(&plain), false),
            };
            let input = RegexInput::new(hay).from_pos(start).anchored(anchored);
            let found = re.captures_input(input).map_err(|e| at(run_error(e)))?;
            return Ok(found.map_or(Value::None, |c| spans(&c, &offsets)));
        }
        let findall = name == "_cudash.re_findall";
        let pieces = name == "_cudash.re_pieces";
        let mut last_end = start;
        let limit = match findall {
            true => 0,
            false => int(text_at + 3)?.max(0) as usize,
        };
        let groups = plain.captures_len();
        let group_text = |c: &Captures<str>, g: usize| {
            Value::Str(Arc::new(c.get(g).map_or("", |m| m.as_str()).to_string()))
        };
        let not_empty =
            compiled(&pattern, flags, Form::NotEmpty).map_err(|m| at(Error::value(m)))?;
        let mut out = Vec::new();
        let mut from = start;
        let mut must_advance = false;
        while from <= hay.len() && (limit == 0 || out.len() < limit) {
            let mut found = None;
            if must_advance {
                if let Some(ne) = &not_empty {
                    let input = RegexInput::new(hay).from_pos(from).anchored(true);
                    found = ne.captures_input(input).map_err(|e| at(run_error(e)))?;
                }
                if found.is_none() {
                    from = offsets.next(from);
                    if from > hay.len() {
                        break;
                    }
                }
            }
            if found.is_none() {
                found = plain
                    .captures_from_pos(hay, from)
                    .map_err(|e| at(run_error(e)))?;
            }
            let Some(c) = found else { break };
            let whole = c.get(0).expect("group 0 of a match");
            if pieces {
                let texts = (0..groups)
                    .map(|g| {
                        c.get(g).map_or(Value::None, |m| {
                            Value::Str(Arc::new(m.as_str().to_string()))
                        })
                    })
                    .collect();
                out.push(Value::List(Arc::new(vec![
                    Value::Str(Arc::new(hay[last_end..whole.start()].to_string())),
                    spans(&c, &offsets),
                    Value::List(Arc::new(texts)),
                ])));
                last_end = whole.end();
                must_advance = whole.start() == whole.end();
                from = whole.end();
                continue;
            }
            out.push(match (findall, groups) {
                (false, _) => spans(&c, &offsets),
                (true, 1) => group_text(&c, 0),
                (true, 2) => group_text(&c, 1),
                (true, _) => {
                    Value::List(Arc::new((1..groups).map(|g| group_text(&c, g)).collect()))
                }
            });
            must_advance = whole.start() == whole.end();
            from = whole.end();
        }
        if pieces {
            out.push(Value::Str(Arc::new(
                full[last_end.min(full.len())..].to_string(),
            )));
        }
        Ok(Value::list(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_syntax_becomes_the_crates() {
        assert_eq!(translate(r"a\Z", false, false), r"a\z");
        assert_eq!(translate(r"[\Z]", false, false), r"[\Z]");
        assert_eq!(translate(r"\d+\w", true, false), "[0-9]+[0-9A-Za-z_]");
        assert_eq!(translate(r"[\d.]\D", true, false), "[0-9.][^0-9]");
        assert_eq!(
            translate(r"[]a][^]b][a[b]", false, false),
            r"[\]a][^\]b][a\[b]"
        );
        assert_eq!(translate(r"a$|[$]\$", false, false), r"a(?=\n?\z)|[$]\$");
        assert_eq!(translate(r"a$", false, true), r"a$");
    }

    #[test]
    fn character_positions_are_pythons() {
        let o = Offsets::of("añb");
        assert_eq!((o.chars(), o.byte(2), o.char(3), o.next(1)), (3, 3, 2, 3));
        let o = Offsets::of("abc");
        assert_eq!((o.chars(), o.byte(5), o.char(2), o.next(3)), (3, 3, 2, 4));
    }
}
