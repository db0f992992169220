//! The language: tokens, the chumsky lexer and parser, and the spanned AST.
//! `grammar/cudash.ebnf` is the reference the parser is tested against.

pub mod ast;
pub mod flow;
pub mod fstring;
pub mod layout;
pub mod lexer;
pub mod parser;
pub mod resolve;
pub mod token;

use chumsky::error::{RichPattern, RichReason};
use chumsky::prelude::*;

use crate::error::Diagnostic;
use ast::Block;
use token::Token;

pub use crate::vocab::Span;

/// Which language a source is written in: cudash's (cells, `.cudash`
/// scripts, notebooks) or Python's (a `.py` program or module), where
/// cudash's own statement words (`mem`, `sync`, `fn`, ...) are names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Cudash,
    Python,
}

impl Dialect {
    /// The dialect of a source by its name: a `.py` file is Python.
    pub fn of(name: &str) -> Dialect {
        // `<string>`: what Python's `exec` runs.
        if name.ends_with(".py") || name == "<string>" {
            Dialect::Python
        } else {
            Dialect::Cudash
        }
    }
}

/// Parses a whole cell or script.
pub fn parse(src: &str) -> Result<Block, Vec<Diagnostic>> {
    parse_as(src, Dialect::Cudash)
}

/// `parse` for a source in `dialect`.
pub fn parse_as(src: &str, dialect: Dialect) -> Result<Block, Vec<Diagnostic>> {
    let tokens = lexer::lex_as(src, dialect)?;
    let eoi = Span::from(src.len()..src.len());
    let input = || tokens.as_slice().map(eoi, |(t, s)| (t, s));
    let (ast, errs) = parser::program_parser::<_, chumsky::error::EmptyErr>()
        .parse(input())
        .into_output_errors();
    match ast {
        Some(ast) if errs.is_empty() => match flow::check(&ast) {
            Ok(()) => Ok(ast),
            Err(d) => Err(vec![d]),
        },
        _ => Err(at_least_one(
            parser::program_parser::<_, Rich<'_, Token, Span>>()
                .parse(input())
                .into_errors()
                .into_iter()
                .map(|e| syntax_diagnostic(src, e))
                .collect(),
            src,
        )),
    }
}

/// What a whole file gives when some of it does not parse: each top-level
/// statement that does, and every syntax error (Python reports the first;
/// a pasted program is fixed faster seeing them all).
pub struct Parsed {
    pub stmts: Block,
    pub errors: Vec<Diagnostic>,
}

/// Parses `src` statement by statement: a statement that does not parse
/// costs itself, not the file. An error of the lexer or of the layout
/// (an unclosed bracket, bad indentation) costs the file, as in Python.
pub fn parse_each(src: &str, dialect: Dialect) -> Parsed {
    let parse = |src| parse_as(src, dialect);
    match parse(src) {
        Ok(stmts) => {
            return Parsed {
                stmts,
                errors: Vec::new(),
            }
        }
        Err(errors) if errors.iter().any(|e| !from_parser(e)) => {
            return Parsed {
                stmts: Vec::new(),
                errors,
            }
        }
        Err(_) => {}
    }
    let Ok(tokens) = lexer::lex_as(src, dialect) else {
        return Parsed {
            stmts: Vec::new(),
            errors: parse(src).err().unwrap_or_default(),
        };
    };
    let mut parsed = Parsed {
        stmts: Vec::new(),
        errors: Vec::new(),
    };
    for chunk in statements(&tokens) {
        let end = chunk.last().map_or(0, |(_, s)| s.end);
        let eoi = Span::from(end..end);
        let input = || chunk.map(eoi, |(t, s)| (t, s));
        match parser::program_parser::<_, Rich<'_, Token, Span>>()
            .parse(input())
            .into_result()
        {
            Ok(stmts) => match flow::check(&stmts) {
                Ok(()) => parsed.stmts.extend(stmts),
                Err(d) => parsed.errors.push(d),
            },
            // A statement cut short ends at its own line, not the file's end.
            Err(errs) => parsed.errors.extend(
                errs.into_iter()
                    .map(|e| syntax_diagnostic(src, e))
                    .map(|d| ended_early(d, eoi, "the statement ended early")),
            ),
        }
    }
    if parsed.errors.is_empty() {
        // The pieces parsed where the whole did not: say so rather than run half.
        parsed.errors = parse(src).err().unwrap_or_default();
        parsed.stmts.clear();
    }
    parsed
}

/// Was this error the parser's (rather than the lexer's or the layout's)?
fn from_parser(e: &Diagnostic) -> bool {
    matches!(
        &e.error,
        crate::error::Error::Syntax { .. }
            | crate::error::Error::Spelling {
                class: "SyntaxError",
                ..
            }
    ) && !e.incomplete_input()
}

/// The tokens of each top-level statement: split at newlines and `;`
/// outside brackets, an `elif`, `else`, `except` or `finally` kept with
/// the statement before it.
fn statements(tokens: &[lexer::Spanned<Token>]) -> Vec<&[lexer::Spanned<Token>]> {
    use token::{Kw, Punct};
    let mut out: Vec<&[lexer::Spanned<Token>]> = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, (t, _)) in tokens.iter().enumerate() {
        match t {
            Token::P(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            Token::P(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.saturating_sub(1)
            }
            Token::Newline | Token::P(Punct::Semi) if depth == 0 => {
                let next = tokens[i + 1..].iter().find(|(t, _)| *t != Token::Newline);
                // A decorator's line goes with the `def` or `class` below it.
                let decorator = matches!(tokens.get(start), Some((Token::P(Punct::At), _)));
                let continues = decorator
                    || matches!(
                        next,
                        Some((Token::Kw(Kw::Elif | Kw::Else | Kw::Except | Kw::Finally), _))
                    );
                if !continues {
                    if start < i {
                        out.push(&tokens[start..i]);
                    }
                    start = i + 1;
                }
            }
            _ => {}
        }
    }
    if start < tokens.len() {
        out.push(&tokens[start..]);
    }
    out
}

/// Parses one expression, `src`, found at byte `at` of a larger source
/// (an f-string's field): its spans and errors are the larger source's.
pub fn parse_expr_at(src: &str, at: usize) -> Result<ast::Expr, Vec<Diagnostic>> {
    let shift = |s: Span| Span::from(s.start + at..s.end + at);
    let tokens = lexer::lex_fragment(src).map_err(|ds| {
        ds.into_iter()
            .map(|mut d| {
                d.span = shift(d.span);
                d
            })
            .collect::<Vec<_>>()
    })?;
    let tokens: Vec<_> = tokens.into_iter().map(|(t, s)| (t, shift(s))).collect();
    let eoi = Span::from(at + src.len()..at + src.len());
    let input = || tokens.as_slice().map(eoi, |(t, s)| (t, s));
    let parser = || parser::expr_parser::<_, Rich<'_, Token, Span>>().then_ignore(end());
    let (expr, errs) = parser().parse(input()).into_output_errors();
    match expr {
        Some(e) if errs.is_empty() => Ok(e),
        // An incomplete field is not input that more lines would finish.
        _ => Err(at_least_one(
            errs.into_iter()
                .map(|e| syntax_diagnostic(src, e))
                .map(|d| ended_early(d, eoi, "the field ended early"))
                .collect(),
            src,
        )),
    }
}

/// An "input ended early" error of a piece of the source (a statement, an
/// f-string's field) as an error at the piece's end, which more lines
/// would not fix.
fn ended_early(d: Diagnostic, end: Span, message: &str) -> Diagnostic {
    match d.error.clone() {
        crate::error::Error::Syntax {
            label,
            incomplete: true,
            ..
        } => crate::error::Error::Syntax {
            message: message.into(),
            label,
            incomplete: false,
        }
        .at(end),
        _ => d,
    }
}

/// The fast pass failed, so the `Rich` pass must say why; should the two ever
/// disagree, the user still gets a diagnostic rather than none.
fn at_least_one(mut diags: Vec<Diagnostic>, src: &str) -> Vec<Diagnostic> {
    if diags.is_empty() {
        diags.push(Diagnostic::syntax(
            Span::from(0..src.len()),
            "this input could not be parsed",
        ));
    }
    diags
}

/// Does `src` end inside a Python `:` block (its lines may go on after a
/// blank line, in a file)?
pub fn ends_in_block(src: &str) -> bool {
    lexer::ends_in_block(src)
}

/// Whether a cell is ready to run, needs more lines, or is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completeness {
    Complete,
    /// The input ended early (an open bracket or block); `indent` for the next line.
    Incomplete {
        indent: String,
    },
    Invalid,
}

/// A cell that ends inside a Python `:` block (`for x in xs:` and its
/// lines) goes on until a blank line, as in Python's REPL.
pub fn completeness(src: &str) -> Completeness {
    match parse(src) {
        Ok(_) if lexer::ends_in_block(src) && !src.ends_with("\n\n") => Completeness::Incomplete {
            indent: python_indent(src),
        },
        Ok(_) => Completeness::Complete,
        Err(errs) if errs.iter().all(|e| e.incomplete_input()) => {
            let depth = open_blocks(src);
            Completeness::Incomplete {
                indent: match depth {
                    0 => python_indent(src),
                    _ => "  ".repeat(depth),
                },
            }
        }
        Err(_) => Completeness::Invalid,
    }
}

/// The indentation for the line after `src` inside a `:` block: the last
/// line's, one level (4 spaces) deeper after a header ending in `:`.
fn python_indent(src: &str) -> String {
    let last = src
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let indent: String = last
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    match last.trim_end().ends_with(':') {
        true => indent + "    ",
        false if indent.is_empty() => "  ".into(),
        false => indent,
    }
}

fn syntax_diagnostic(src: &str, e: Rich<'_, Token, Span>) -> Diagnostic {
    let span = *e.span();
    if let RichReason::Custom(msg) = e.reason() {
        return Diagnostic::syntax(span, msg.clone());
    }
    let mut expected: Vec<String> = e
        .expected()
        .filter_map(|p| match p {
            RichPattern::Token(t) if **t == Token::Newline => Some("end of line".into()),
            RichPattern::Token(t) => Some(format!("`{}`", &**t)),
            RichPattern::Label(l) => Some(l.to_string()),
            RichPattern::EndOfInput => Some("end of input".into()),
            _ => None,
        })
        .collect();
    expected.sort();
    expected.dedup();
    // "an expression" already covers the tokens that can start one.
    if expected.iter().any(|x| x == "an expression") {
        expected.retain(|x| !matches!(x.as_str(), "`-`" | "`(`" | "`[`"));
    }
    if let (Some(Token::Kw(k)), true) = (e.found(), expected.iter().any(|x| x == "a name")) {
        return keyword_as_name(*k, span);
    }
    let found = e.found().map(|t| match t {
        Token::Newline => "end of line".to_string(),
        t => format!("`{t}`"),
    });
    match found {
        None => Diagnostic::incomplete(span.start.min(src.len()), src.len(), expected),
        Some(found) => Diagnostic::unexpected(span, found, expected),
    }
}

/// A statement keyword written where a name belongs (`fn run(n, pin)`,
/// `for sync in xs`): say it is reserved and offer a name that is not.
fn keyword_as_name(k: token::Kw, span: Span) -> Diagnostic {
    let word = k.as_str();
    let instead = match word {
        "pin" => "pinned",
        "sync" => "synced",
        "mem" => "memory",
        "wait" => "waited",
        "profile" => "prof",
        "help" => "help_text",
        "in" => "inputs",
        _ => "",
    };
    let instead = match instead {
        "" => format!("`{word}_`"),
        w => format!("`{w}` or `{word}_`"),
    };
    crate::error::Error::Spelling {
        message: format!(
            "`{word}` is a keyword in cudash, so it cannot name a parameter or a variable"
        ),
        label: "a keyword".into(),
        help: format!(
            "`{word}` starts a statement (`help {word}`); choose another name, such as {instead}"
        ),
        class: "SyntaxError",
    }
    .at(span)
}

/// How many brackets are open at the end of `src` (for the continuation indent).
fn open_blocks(src: &str) -> usize {
    let (mut depth, mut in_str, mut comment) = (0i64, None, false);
    for c in src.chars() {
        match (in_str, c) {
            (_, '\n') => {
                in_str = None;
                comment = false;
            }
            _ if comment => {}
            (Some(q), c) if c == q => in_str = None,
            (Some(_), _) => {}
            (None, '#') => comment = true,
            (None, '"' | '\'') => in_str = Some(c),
            (None, '{' | '(' | '[') => depth += 1,
            (None, '}' | ')' | ']') => depth -= 1,
            _ => {}
        }
    }
    depth.max(0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fast_and_rich_agree(src: &str) -> Result<(), TestCaseError> {
        let lex_fast = lexer::lexer::<chumsky::error::EmptyErr>()
            .parse(src)
            .into_errors()
            .is_empty();
        let lex_rich = lexer::lexer::<Rich<'_, char, Span>>()
            .parse(src)
            .into_errors()
            .is_empty();
        prop_assert_eq!(lex_fast, lex_rich, "lexer passes disagree on {:?}", src);
        let Ok(tokens) = lexer::lex(src) else {
            return Ok(());
        };
        let eoi = Span::from(src.len()..src.len());
        let input = || tokens.as_slice().map(eoi, |(t, s)| (t, s));
        let fast = parser::program_parser::<_, chumsky::error::EmptyErr>()
            .parse(input())
            .into_errors()
            .is_empty();
        let rich = parser::program_parser::<_, Rich<'_, Token, Span>>()
            .parse(input())
            .into_errors()
            .is_empty();
        prop_assert_eq!(fast, rich, "parser passes disagree on {:?}", src);
        Ok(())
    }

    proptest! {
        // `parse` trusts the fast `EmptyErr` pass to accept exactly what the
        // `Rich` pass accepts; only rejected input is parsed twice.
        #[test]
        fn the_fast_pass_accepts_exactly_what_the_rich_pass_accepts(
            src in "[a-z0-9 .,:;=+*/@<>!(){}\\[\\]\"'#\\n-]{0,40}"
        ) {
            fast_and_rich_agree(&src)?;
        }
    }
}
