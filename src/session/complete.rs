//! What the front ends ask about text being typed: completion of the word
//! before the cursor, the signature of the call the cursor is in, and help
//! for the name under it (`Session::complete`, `signature_at`, `inspect`).

use super::{Completion, Session};
use crate::eval::docs::{self, Kind};
use crate::eval::Value;
use crate::lang;

impl Session {
    /// Completes the word before `cursor` (a byte offset): file paths inside a
    /// string; after `.`, the members of the receiver's type; after `help`, topics;
    /// otherwise variables, builtins, keywords, dtypes, devices and the keyword
    /// arguments of the call the cursor is in.
    pub fn complete(&self, src: &str, cursor: usize) -> Completion {
        let cursor = floor_char_boundary(src, cursor);
        let before = &src[..cursor];
        if let Some(q) = open_string(before) {
            return complete_path(&before[q + 1..], q + 1, cursor);
        }
        let prefix = word_before(before);
        let start = cursor - prefix.len();
        let head = before[..start].trim_end();
        let mut candidates: Vec<String> = if before[..start].ends_with('.') {
            let receiver = word_before(&before[..start - 1]);
            docs::members(self.kind_of(receiver))
                .map(|d| d.name.to_string())
                .collect()
        } else if head.ends_with("help") && word_before(head) == "help" {
            docs::DOCS.iter().map(|d| d.name.to_string()).collect()
        } else {
            let mut names = self.interp.known_names();
            names.extend(lang::token::Kw::ALL.iter().map(|k| k.as_str().to_string()));
            names.extend(
                crate::runtime::DType::ALL
                    .iter()
                    .map(|d| d.name().to_string()),
            );
            names.extend(["cpu", "cuda", "true", "false", "none", "stream"].map(String::from));
            names.extend((0..self.devices.count()).map(|i| format!("cuda:{i}")));
            if let Some(doc) = enclosing_call(&before[..start], &|r| self.kind_of(r)) {
                names.extend(
                    docs::params(doc.signature)
                        .into_iter()
                        .filter(|p| !p.variadic)
                        .map(|p| format!("{}=", p.name)),
                );
            }
            // A function `fn` defined: its parameters, as keywords.
            if let Some((name, None)) = open_call(&before[..start]) {
                if let Some(Value::Function(f)) = self.interp.vars().get(name) {
                    names.extend(f.def.params.iter().map(|p| format!("{}=", p.name.name)));
                }
            }
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

    /// The signature of the function (a builtin, a method, or one `fn`
    /// defined) whose argument list the cursor is in.
    pub fn signature_at(&self, src: &str, cursor: usize) -> Option<String> {
        let cursor = floor_char_boundary(src, cursor);
        let before = &src[..cursor];
        if let Some((name, None)) = open_call(before) {
            if let Some(Value::Function(f)) = self.interp.vars().get(name) {
                return Some(f.signature());
            }
        }
        enclosing_call(before, &|r| self.kind_of(r)).map(|d| d.signature.to_string())
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
            return Some(format!("{word}: {}", crate::eval::show::repr(v)));
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

    /// The kind of value a name holds, for member completion (`tensor` when unknown).
    fn kind_of(&self, name: &str) -> &'static str {
        match self.interp.vars().get(name) {
            Some(v) => v.kind(),
            None if name == "default" => "stream",
            None => "tensor",
        }
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
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

/// The builtin or method named just before the innermost `(` still open in `s`.
fn enclosing_call(s: &str, kind_of: &dyn Fn(&str) -> &'static str) -> Option<&'static docs::Doc> {
    let (name, receiver) = open_call(s)?;
    match receiver {
        Some(r) => docs::member(kind_of(r), name),
        None => docs::function(name),
    }
}

/// The name before the innermost `(` still open in `s`, and its receiver
/// when it is a method (`x` in `x.sum(`); None inside `[ ]` or no call.
fn open_call(s: &str) -> Option<(&str, Option<&str>)> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            ')' | ']' => depth += 1,
            '(' | '[' if depth > 0 => depth -= 1,
            '[' => return None,
            '(' => {
                let name = word_before(&s[..i]);
                let is_method = s[..i - name.len()].ends_with('.');
                let receiver = is_method.then(|| word_before(&s[..i - name.len() - 1]));
                return Some((name, receiver));
            }
            _ => {}
        }
    }
    None
}

/// File names completing `partial` (a path typed inside a string).
fn complete_path(partial: &str, start: usize, end: usize) -> Completion {
    let (dir, file) = match partial.rfind('/') {
        Some(i) => (&partial[..=i], &partial[i + 1..]),
        None => ("", partial),
    };
    let read = if dir.is_empty() {
        std::fs::read_dir(".")
    } else {
        std::fs::read_dir(dir)
    };
    let mut matches: Vec<String> = read
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let slash = if e.file_type().is_ok_and(|t| t.is_dir()) {
                "/"
            } else {
                ""
            };
            name.starts_with(file)
                .then(|| format!("{dir}{name}{slash}"))
        })
        .collect();
    matches.sort();
    Completion {
        start,
        end,
        matches,
    }
}

/// Where the string literal the text ends inside starts, if it does.
fn open_string(s: &str) -> Option<usize> {
    let mut open: Option<(usize, char)> = None;
    for (i, c) in s.char_indices() {
        match open {
            Some((_, q)) if c == q => open = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => open = Some((i, c)),
            None if c == '#' => return None,
            None => {}
        }
    }
    open.map(|(i, _)| i)
}
