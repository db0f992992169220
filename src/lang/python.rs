//! Python written where cudash has its own syntax: `import torch`, and a
//! block opened with `:` and indentation (`for i in range(3):`). When a
//! program does not parse, the first such line gets a diagnostic that shows
//! the cudash form instead of the parser's list of expected tokens.

use crate::error::{Diagnostic, Error};
use crate::vocab::Span;

/// What to write instead of PyTorch's module prefix (an import, `torch`).
pub const BUILTINS_HELP: &str = "write `zeros(2, 3)` for `torch.zeros(2, 3)` and `synchronize()` \
     for `torch.cuda.synchronize()`; `help` lists every builtin";

/// Words that open a Python block with `:`.
const BLOCK_WORDS: &[&str] = &[
    "for", "with", "while", "if", "elif", "else", "def", "try", "except", "class",
];

/// A diagnostic for the first line of `src` written as Python, if any.
pub fn hint(src: &str) -> Option<Diagnostic> {
    let mut at = 0;
    let lines: Vec<&str> = src.split_inclusive('\n').collect();
    for (n, line) in lines.iter().enumerate() {
        let start = at;
        at += line.len();
        let code = strip_comment(line).trim_end();
        let indent = code.len() - code.trim_start().len();
        let code = code.trim_start();
        let span = Span::from(start + indent..start + indent + code.len());
        let first = code.split_whitespace().next().unwrap_or("");
        if first == "import" || (first == "from" && code.contains(" import ")) {
            return Some(
                spelling(
                    format!(
                        "cudash needs no imports (`{code}`): PyTorch's functions are its builtins"
                    ),
                    "Python's import",
                    BUILTINS_HELP,
                )
                .at(span),
            );
        }
        if first == "def" {
            // The header may span lines (parameters one per line).
            let header = def_header(&lines[n..]);
            return Some(
                spelling(
                    "cudash defines a function with `fn` and a block in braces".into(),
                    "Python's def",
                    &format!("write `fn {header} {{ ... }}`"),
                )
                .at(span),
            );
        }
        if BLOCK_WORDS.contains(&first.trim_end_matches(':')) && code.ends_with(':') {
            let header = code.trim_end_matches(':').trim_end();
            return Some(
                spelling(
                    "cudash writes a block in braces, not with `:` and indentation".into(),
                    "Python's block",
                    &format!("write `{}`", cudash_block(header)),
                )
                .at(span),
            );
        }
    }
    None
}

/// A Python `def`'s name and parameters as cudash's `fn` takes them, from
/// the lines that start with it: joined up to the `:` that closes the
/// header, without type annotations (`x: int = 3` is `x=3`) or the return
/// annotation.
fn def_header(lines: &[&str]) -> String {
    let mut text = String::new();
    let mut depth = 0i32;
    for line in lines {
        let code = strip_comment(line).trim();
        for c in code.chars() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                _ => {}
            }
        }
        if !text.is_empty() && !text.ends_with('(') {
            text.push(' ');
        }
        text.push_str(code);
        if depth <= 0 {
            break;
        }
    }
    let text = text.strip_prefix("def").unwrap_or(&text).trim();
    let Some((name, rest)) = text.split_once('(') else {
        return text.trim_end_matches([':', '{']).trim().to_string();
    };
    let params = match close_of(rest) {
        Some(end) => &rest[..end],
        None => rest,
    };
    let params: Vec<String> = split_top(params)
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (head, default) = match p.split_once('=') {
                Some((h, d)) => (h, Some(d.trim())),
                None => (p, None),
            };
            let name = head.split(':').next().unwrap_or(head).trim();
            match default {
                Some(d) => format!("{name}={d}"),
                None => name.to_string(),
            }
        })
        .collect();
    format!("{}({})", name.trim(), params.join(", "))
}

/// Where the `)` that closes an opened `(` is in `s` (which starts after it).
fn close_of(s: &str) -> Option<usize> {
    let mut depth = 1;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` split at its commas outside brackets.
fn split_top(s: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut from) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[from..]);
    parts
}

fn spelling(message: String, label: &str, help: &str) -> Error {
    Error::Spelling {
        message,
        label: label.into(),
        help: help.into(),
        class: "SyntaxError",
    }
}

/// A Python block's header as a cudash block: `with torch.no_grad()` is
/// `no_grad { ... }`; a `for` whose targets nest (`for i, (x, y) in ...`)
/// unpacks the inner ones in its body, as cudash's `for` takes plain names.
fn cudash_block(header: &str) -> String {
    let header = cudash_header(header);
    if header == "with no_grad()" {
        return "no_grad { ... }".into();
    }
    // `class Net(nn.Module):`: cudash's `Module` needs no namespace yet.
    if let Some(rest) = header.strip_prefix("class ") {
        let rest = rest
            .replace("nn.Module", "Module")
            .replace("torch.Module", "Module");
        return format!("class {rest} {{ fn __init__(self) {{ super().__init__(); ... }} ... }}");
    }
    if let Some(rest) = header.strip_prefix("for ") {
        if let Some((targets, iter)) = rest.split_once(" in ") {
            let mut names = Vec::new();
            let mut unpack = Vec::new();
            for t in split_top(targets).into_iter().map(str::trim) {
                match t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
                    Some(inner) => {
                        let parts: Vec<&str> =
                            split_top(inner).into_iter().map(str::trim).collect();
                        let name = parts.concat();
                        unpack.push(format!("{} = {name}", parts.join(", ")));
                        names.push(name);
                    }
                    None => names.push(t.to_string()),
                }
            }
            if !unpack.is_empty() {
                return format!(
                    "for {} in {iter} {{ {}; ... }}",
                    names.join(", "),
                    unpack.join("; ")
                );
            }
        }
    }
    format!("{header} {{ ... }}")
}

/// `for i in range(3)` as cudash writes it: `for i in 0..3`; `with
/// torch.cuda.device(1)` as `with device(1)`.
fn cudash_header(header: &str) -> String {
    let header = header.replace("torch.cuda.", "").replace("torch.", "");
    if let Some((head, arg)) = header.split_once(" in range(") {
        if let Some(args) = arg.strip_suffix(')') {
            let parts: Vec<&str> = args.split(',').map(str::trim).collect();
            let range = match parts.as_slice() {
                [n] => format!("0..{n}"),
                [a, b] => format!("{a}..{b}"),
                _ => format!("range({args})"),
            };
            return format!("{head} in {range}");
        }
    }
    header
}

/// The code of a line without its `#` comment (outside strings).
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help(src: &str) -> String {
        hint(src).and_then(|d| d.error.help()).unwrap_or_default()
    }

    #[test]
    fn blocks_show_the_cudash_header() {
        assert_eq!(help("for i in range(3):"), "write `for i in 0..3 { ... }`");
        assert_eq!(help("with torch.no_grad():"), "write `no_grad { ... }`");
        assert_eq!(
            help("for batch, (X, y) in enumerate(dataloader):"),
            "write `for batch, Xy in enumerate(dataloader) { X, y = Xy; ... }`"
        );
        assert_eq!(
            help("x = 1\nfor i in range(2, 5):  # loop\n    x = x * 2"),
            "write `for i in 2..5 { ... }`"
        );
        assert_eq!(
            help("with torch.cuda.device(1):"),
            "write `with device(1) { ... }`"
        );
        assert_eq!(
            help("with torch.cuda.stream(s):"),
            "write `with stream(s) { ... }`"
        );
    }

    #[test]
    fn defs_lose_their_annotations_and_join_their_lines() {
        assert_eq!(
            help("def train(dataloader,\n          model, lr=0.1):\n    pass"),
            "write `fn train(dataloader, model, lr=0.1) { ... }`"
        );
        assert_eq!(
            help("def f(x: int, y: float = 2.0) -> int:"),
            "write `fn f(x, y=2.0) { ... }`"
        );
        assert_eq!(
            help("def forward(self, x: Tensor) -> Tensor:"),
            "write `fn forward(self, x) { ... }`"
        );
    }

    #[test]
    fn imports_and_their_spans() {
        let d = hint("x = 1\n  import torch\n").unwrap();
        assert_eq!((d.span.start, d.span.end), (8, 20));
        assert!(hint("from torch import nn").is_some());
        assert!(hint("x = y[1:]").is_none());
        assert!(hint("print(\"for x:\")").is_none());
    }
}
