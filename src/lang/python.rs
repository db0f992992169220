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
    for line in src.split_inclusive('\n') {
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
            let header = code.trim_end_matches(['{', ':']).trim_end();
            return Some(
                spelling(
                    "cudash defines a function with `fn` and a block in braces".into(),
                    "Python's def",
                    &format!("write `fn{} {{ ... }}`", &header["def".len()..]),
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
                    &format!("write `{} {{ ... }}`", cudash_header(header)),
                )
                .at(span),
            );
        }
    }
    None
}

fn spelling(message: String, label: &str, help: &str) -> Error {
    Error::Spelling {
        message,
        label: label.into(),
        help: help.into(),
        class: "SyntaxError",
    }
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
    fn imports_and_their_spans() {
        let d = hint("x = 1\n  import torch\n").unwrap();
        assert_eq!((d.span.start, d.span.end), (8, 20));
        assert!(hint("from torch import nn").is_some());
        assert!(hint("x = y[1:]").is_none());
        assert!(hint("print(\"for x:\")").is_none());
    }
}
