//! The chumsky lexer, and a structure pass over its tokens that drops
//! newlines inside `()` and `[]`, matches brackets and bounds their nesting.

use std::sync::Arc;

use chumsky::error::{EmptyErr, LabelError};
use chumsky::prelude::*;

use super::token::{DeviceLit, Kw, Punct, Token};
use super::{Dialect, Span};
use crate::error::Diagnostic;
use crate::vocab::{BinaryOp, DType};

/// Deepest bracket nesting accepted. Deeper input is an error, never a stack overflow.
pub const MAX_NESTING: usize = 128;

/// Deepest expression accepted, counting brackets plus chained operators
/// (`1 + 1 + ...`, `- - x`, `x.T.T`): the parser recurses once per level.
pub const MAX_EXPR_DEPTH: usize = 256;

pub use super::token::Spanned;

/// The lexer runs twice only when the input is wrong: first with chumsky's
/// zero-cost `EmptyErr` (tracking expected tokens costs more than lexing), then,
/// on failure, with `Rich` errors for the diagnostic.
pub(crate) trait LexError<'src>:
    chumsky::error::Error<'src, &'src str>
    + LabelError<'src, &'src str, chumsky::text::TextExpected<()>>
    + LabelError<'src, &'src str, chumsky::text::TextExpected<&'src str>>
{
    fn message(span: Span, msg: String) -> Self;
}

impl<'src> LexError<'src> for Rich<'src, char, Span> {
    fn message(span: Span, msg: String) -> Self {
        Rich::custom(span, msg)
    }
}

impl<'src> LexError<'src> for EmptyErr {
    fn message(_: Span, _: String) -> Self {
        EmptyErr::default()
    }
}

pub(crate) fn lexer<'src, E: LexError<'src> + 'src>(
) -> impl Parser<'src, &'src str, Vec<Spanned<Token>>, extra::Err<E>> {
    let digits = text::digits(10);
    let exponent = one_of("eE")
        .then(one_of("+-").or_not())
        .then(digits)
        .ignored();
    // `1.` and `1.5` are floats, but `0..10` is a range: a dot followed by a dot is not a fraction.
    let fraction = just('.')
        .and_is(just("..").not())
        .then(digits.or_not())
        .ignored();
    // Python's `0x1f`, `0o17`, `0b101` (underscores between digits allowed).
    let radix = just('0')
        .then(one_of("xXoObB"))
        .then(
            any()
                .filter(|c: &char| c.is_ascii_alphanumeric() || *c == '_')
                .repeated()
                .at_least(1),
        )
        .to_slice()
        .try_map(|s: &str, span| {
            let base = match &s[1..2] {
                "x" | "X" => 16,
                "o" | "O" => 8,
                _ => 2,
            };
            let body = s[2..].trim_start_matches('_').replace('_', "");
            i64::from_str_radix(&body, base)
                .map(Token::Int)
                .map_err(|_| E::message(span, format!("`{s}` is not a valid number")))
        });
    // `1_000_000`: Python's underscores between digits.
    let grouped = digits.then(just('_').then(digits).repeated()).ignored();
    let number = grouped
        .then(fraction.or_not())
        .then(exponent.or_not())
        .to_slice()
        .try_map(|s: &str, span| {
            let s = &s.replace('_', "");
            if s.contains(['.', 'e', 'E']) {
                s.parse::<f64>()
                    .map(Token::Float)
                    .map_err(|_| E::message(span, format!("`{s}` is not a valid number")))
            } else {
                s.parse::<i64>().map(Token::Int).map_err(|_| {
                    E::message(
                        span,
                        format!("integer literal `{s}` does not fit in 64 bits; write it as a float (`{s}.`)"),
                    )
                })
            }
        });

    // `\x41`, `\u00e9`, `\U0001F600`: a character by its code point.
    let code = |lead: char, n: usize| {
        just(lead)
            .ignore_then(
                any()
                    .filter(char::is_ascii_hexdigit)
                    .repeated()
                    .exactly(n)
                    .to_slice(),
            )
            .try_map(|hex: &str, span| {
                u32::from_str_radix(hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| E::message(span, format!("`{hex}` is not a character's code")))
            })
    };
    let escape = just('\\').ignore_then(choice((
        just('n').to('\n'),
        just('t').to('\t'),
        just('r').to('\r'),
        // `\033`, `\0`: a character by one to three octal digits.
        any()
            .filter(|c: &char| ('0'..='7').contains(c))
            .repeated()
            .at_least(1)
            .at_most(3)
            .to_slice()
            .map(|oct: &str| {
                char::from_u32(u32::from_str_radix(oct, 8).unwrap_or(0)).unwrap_or('\0')
            }),
        just('\\').to('\\'),
        just('"').to('"'),
        just('\'').to('\''),
        just('a').to('\x07'),
        just('b').to('\x08'),
        just('f').to('\x0c'),
        just('v').to('\x0b'),
        code('x', 2),
        code('u', 4),
        code('U', 8),
    )));
    // `"""..."""` and `'''...'''`: over several lines (a docstring).
    let triple = |q: &'static str| {
        just(q)
            .ignore_then(
                choice((escape, any().and_is(just(q).not())))
                    .repeated()
                    .collect::<String>(),
            )
            .then_ignore(just(q))
            .map(|s: String| Token::Str(s.into()))
    };
    // `f"..."` and `r"..."` (and `rf`, `fr`, `f"""..."""`): the text as
    // written; a backslash keeps the character after it inside the string.
    let raw_body = |q: &'static str| {
        let multi = q.len() == 3;
        just(q)
            .ignore_then(
                choice((
                    just('\\').then(any()).ignored(),
                    any()
                        .and_is(just(q).not())
                        .filter(move |c: &char| multi || *c != '\n')
                        .ignored(),
                ))
                .repeated()
                .to_slice()
                .map_with(|body: &str, e| {
                    let span: Span = e.span();
                    (body, span.start)
                }),
            )
            .then_ignore(just(q))
    };
    let raw_string = || {
        choice((
            raw_body("\"\"\""),
            raw_body("'''"),
            raw_body("\""),
            raw_body("'"),
        ))
    };
    let prefixed = choice((
        one_of("fF")
            .then(one_of("rR").or_not())
            .ignored()
            .or(one_of("rR").then(one_of("fF")).ignored())
            .ignore_then(raw_string())
            .map(|(body, at): (&str, usize)| Token::FStr(Arc::new((body.to_string(), at)))),
        one_of("rR")
            .ignore_then(raw_string())
            .map(|(body, _): (&str, usize)| Token::Str(body.into())),
    ));
    let string = |q: char| {
        just(q)
            .ignore_then(
                choice((escape, any().and_is(one_of([q, '\n']).not())))
                    .repeated()
                    .collect::<String>(),
            )
            .then_ignore(just(q))
            .map(|s: String| Token::Str(s.into()))
    };

    // `b"..."` (and `rb`, `br`): bytes, escapes read by `byte_escapes`
    // (none in a raw one). A bad one is reported where it stands, and
    // lexing goes on.
    let bytes = choice((
        one_of("bB")
            .then(one_of("rR"))
            .ignored()
            .or(one_of("rR").then(one_of("bB")).ignored())
            .ignore_then(raw_string())
            .map(|(body, _): (&str, usize)| (true, body)),
        one_of("bB")
            .ignore_then(raw_string())
            .map(|(body, _): (&str, usize)| (false, body)),
    ))
    .validate(|(raw, body): (bool, &str), e, emitter| {
        let made = match raw {
            true if body.is_ascii() => Ok(body.as_bytes().to_vec()),
            true => Err("bytes can only contain ASCII literal characters".to_string()),
            false => byte_escapes(body),
        };
        match made {
            Ok(b) => Token::Bytes(b.into()),
            Err(message) => {
                emitter.emit(E::message(e.span(), message));
                Token::Bytes(Vec::new().into())
            }
        }
    });
    let cuda = text::keyword("cuda")
        .ignore_then(just(':').ignore_then(digits.to_slice()).or_not())
        .try_map(|index: Option<&str>, span| match index {
            None => Ok(Token::Device(DeviceLit::Cuda(None))),
            Some(n) => n
                .parse::<u32>()
                .map(|n| Token::Device(DeviceLit::Cuda(Some(n))))
                .map_err(|_| E::message(span, format!("device index `{n}` is too large"))),
        });

    let word = text::ascii::ident().map(|w: &str| match w {
        "true" => Token::Bool(true),
        "false" => Token::Bool(false),
        "none" => Token::None,
        "cpu" => Token::Device(DeviceLit::Cpu),
        _ => {
            if let Some(k) = Kw::from_word(w) {
                Token::Kw(k)
            } else if let Some(d) = DType::from_name(w) {
                Token::DType(d)
            } else {
                Token::Ident(w.into())
            }
        }
    });

    // One character, then maybe a second and a third: `**`, `..`, `==`,
    // `!=`, `<=`, `>=`, `//`, `<<`, `>>`, `:=`, `+=` and the other
    // augmented assignments, `**=`, `//=`, `<<=`, `>>=`.
    let punct = one_of("()[]{},;:.=+-*/@<>!%&|^~")
        .then(one_of("*./=<>").or_not())
        .then(one_of("=.").or_not())
        .try_map(|((a, b), c): ((char, Option<char>), Option<char>), span| {
            let aug = |op| Some(Punct::Augmented(op));
            let known = match (a, b, c) {
                ('.', Some('.'), Some('.')) => Some(Punct::Ellipsis),
                ('*', Some('*'), Some('=')) => aug(BinaryOp::Pow),
                ('/', Some('/'), Some('=')) => aug(BinaryOp::FloorDiv),
                ('<', Some('<'), Some('=')) => aug(BinaryOp::Shl),
                ('>', Some('>'), Some('=')) => aug(BinaryOp::Shr),
                (_, _, Some(_)) => None,
                ('*', Some('*'), None) => Some(Punct::StarStar),
                ('/', Some('/'), None) => Some(Punct::SlashSlash),
                ('.', Some('.'), None) => Some(Punct::DotDot),
                ('-', Some('>'), None) => Some(Punct::Arrow),
                (':', Some('='), None) => Some(Punct::Walrus),
                ('<', Some('<'), None) => Some(Punct::Shl),
                ('>', Some('>'), None) => Some(Punct::Shr),
                ('=', Some('='), None) => Some(Punct::EqEq),
                ('!', Some('='), None) => Some(Punct::Ne),
                ('<', Some('='), None) => Some(Punct::Le),
                ('>', Some('='), None) => Some(Punct::Ge),
                ('+', Some('='), None) => aug(BinaryOp::Add),
                ('-', Some('='), None) => aug(BinaryOp::Sub),
                ('*', Some('='), None) => aug(BinaryOp::Mul),
                ('/', Some('='), None) => aug(BinaryOp::Div),
                ('%', Some('='), None) => aug(BinaryOp::Rem),
                ('&', Some('='), None) => aug(BinaryOp::BitAnd),
                ('|', Some('='), None) => aug(BinaryOp::BitOr),
                ('^', Some('='), None) => aug(BinaryOp::BitXor),
                _ => None,
            };
            match (known, b) {
                (Some(p), _) => Ok(p),
                // The second character belongs to the next token: only single ones get here.
                (None, None) => {
                    single(a).ok_or_else(|| E::message(span, format!("unexpected character `{a}`")))
                }
                (None, Some(_)) => Err(E::message(span, String::new())),
            }
        })
        .or(one_of("()[]{},;:.=+-*/@<>%&|^~").map(|c| single(c).unwrap_or(Punct::Dot)))
        .map(Token::P);

    // Python's `.001`: a float may start at its dot (tried before `.`).
    let dot_number = just('.')
        .then(digits)
        .then(exponent.or_not())
        .to_slice()
        .try_map(|s: &str, span| {
            s.parse::<f64>()
                .map(Token::Float)
                .map_err(|_| E::message(span, format!("`{s}` is not a valid number")))
        });

    let newline = just('\n').to(Token::Newline);
    // The most common tokens first: each failed alternative costs time on every token.
    let token = choice((
        cuda,
        bytes,
        prefixed,
        word,
        dot_number,
        punct,
        radix,
        number,
        newline,
        triple("\"\"\""),
        triple("'''"),
        string('"'),
        string('\''),
    ));

    // A backslash at the end of a line continues the line.
    let blank = choice((
        one_of(" \t\r\x0c").ignored(),
        just('\\')
            .then(just('\r').or_not())
            .then(just('\n'))
            .ignored(),
    ));
    let comment = just('#')
        .then(any().and_is(just('\n').not()).repeated())
        .ignored();
    let skip = blank.or(comment).repeated();

    token
        .map_with(|t, e| (t, e.span()))
        .padded_by(skip)
        .recover_with(skip_then_retry_until(any().ignored(), end()))
        .repeated()
        .collect()
        .then_ignore(skip)
        .then_ignore(end())
}

/// A bytes literal's text with its escapes read as Python reads them:
/// `\n`, `\t`, `\\`, the quotes, `\a \b \f \v \r`, `\xhh`, octal `\0` to
/// `\377`, a backslash before a newline joining the lines; any other
/// backslash kept as written (`b"\u1234"` is six bytes after the
/// backslash, as in Python). Only ASCII may be written as itself.
fn byte_escapes(body: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii() {
            return Err("bytes can only contain ASCII literal characters".into());
        }
        if c != '\\' {
            out.push(c as u8);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push(b'\\');
            break;
        };
        match e {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(e as u8),
            'a' => out.push(0x07),
            'b' => out.push(0x08),
            'f' => out.push(0x0c),
            'n' => out.push(b'\n'),
            'r' => out.push(b'\r'),
            't' => out.push(b'\t'),
            'v' => out.push(0x0b),
            '0'..='7' => {
                let mut n = e as u32 - '0' as u32;
                for _ in 0..2 {
                    match chars.peek() {
                        Some(d @ '0'..='7') => {
                            n = n * 8 + (*d as u32 - '0' as u32);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                out.push((n & 0xff) as u8);
            }
            'x' => {
                let hex: String = (0..2).filter_map(|_| chars.next()).collect();
                match u8::from_str_radix(&hex, 16) {
                    Ok(b) if hex.len() == 2 => out.push(b),
                    _ => {
                        return Err(format!(
                            "invalid \\x escape `\\x{hex}`: two hex digits are needed"
                        ))
                    }
                }
            }
            other if !other.is_ascii() => {
                return Err("bytes can only contain ASCII literal characters".into())
            }
            other => {
                out.push(b'\\');
                out.push(other as u8);
            }
        }
    }
    Ok(out)
}

fn single(c: char) -> Option<Punct> {
    Some(match c {
        '(' => Punct::LParen,
        ')' => Punct::RParen,
        '[' => Punct::LBracket,
        ']' => Punct::RBracket,
        '{' => Punct::LBrace,
        '}' => Punct::RBrace,
        ',' => Punct::Comma,
        ';' => Punct::Semi,
        ':' => Punct::Colon,
        '.' => Punct::Dot,
        '=' => Punct::Assign,
        '+' => Punct::Plus,
        '-' => Punct::Minus,
        '*' => Punct::Star,
        '/' => Punct::Slash,
        '%' => Punct::Percent,
        '&' => Punct::Amp,
        '|' => Punct::Pipe,
        '^' => Punct::Caret,
        '~' => Punct::Tilde,
        '@' => Punct::At,
        '<' => Punct::Lt,
        '>' => Punct::Gt,
        _ => return None,
    })
}

/// Lex `src` into tokens, then run the layout and structure passes.
pub fn lex(src: &str) -> Result<Vec<Spanned<Token>>, Vec<Diagnostic>> {
    lex_as(src, Dialect::Cudash)
}

/// `lex` for a source in `dialect`.
pub fn lex_as(src: &str, dialect: Dialect) -> Result<Vec<Spanned<Token>>, Vec<Diagnostic>> {
    lex_laid(src, dialect).map(|(tokens, _)| tokens)
}

/// Lexes a piece of a line (an f-string's field): no layout, and newlines
/// are not expected.
pub fn lex_fragment(src: &str) -> Result<Vec<Spanned<Token>>, Vec<Diagnostic>> {
    let (tokens, errs) = lexer::<Rich<'_, char, Span>>()
        .parse(src)
        .into_output_errors();
    match tokens {
        // A field holds an expression, where cudash's statement words
        // cannot stand: there they are names, as in Python (`{mem.mean()}`).
        Some(mut tokens) if errs.is_empty() => {
            python_names(&mut tokens, src, false);
            structure(tokens, src.len()).map_err(|e| vec![e])
        }
        _ => Err(super::at_least_one(
            errs.into_iter().map(|e| lex_error(src, e)).collect(),
            src,
        )),
    }
}

/// Does `src` lex and end inside a Python `:` block (so the REPL waits
/// for more lines, or a blank one)?
pub fn ends_in_block(src: &str) -> bool {
    matches!(lex_laid(src, Dialect::Cudash), Ok((_, true)))
}

/// `lex`, and whether the input ended inside a `:` block.
fn lex_laid(src: &str, dialect: Dialect) -> Result<(Vec<Spanned<Token>>, bool), Vec<Diagnostic>> {
    let (tokens, errs) = lexer::<EmptyErr>().parse(src).into_output_errors();
    match tokens {
        Some(mut tokens) if errs.is_empty() => {
            if dialect == Dialect::Python {
                python_names(&mut tokens, src, true);
            }
            let laid = super::layout::layout(tokens, src).map_err(|e| vec![e])?;
            let tokens = structure(laid.tokens, src.len()).map_err(|e| vec![e])?;
            Ok((tokens, laid.in_block))
        }
        _ => {
            let errs = lexer::<Rich<'_, char, Span>>().parse(src).into_errors();
            Err(super::at_least_one(
                errs.into_iter().map(|e| lex_error(src, e)).collect(),
                src,
            ))
        }
    }
}

/// In Python, cudash's own statement words (`mem`, `sync`, `fn`, `help`,
/// ...) and, but in an f-string's field (which cudash's own lines use too),
/// its lower-case literals (`none`, `true`, `false`) are names: a
/// program's `mem = Module()`, `def f(fn):` or `out, none = attn(...)`
/// means them as Python does. `def` stays the keyword it always is.
///
/// A dtype word (`i8`, `u8`, `f32`) the program binds (`i8 = ...`, `for u8
/// in ...`, `... as f16`, `def f16(...)`, `class f32`) is a name throughout
/// it, as in Python, where only `torch.int8` means the dtype.
fn python_names(tokens: &mut [Spanned<Token>], src: &str, literals: bool) {
    let bound: Vec<crate::runtime::DType> = tokens
        .iter()
        .enumerate()
        .filter_map(|(k, (tok, _))| {
            let Token::DType(d) = tok else { return None };
            let before = k.checked_sub(1).map(|b| &tokens[b].0);
            let after = tokens.get(k + 1).map(|a| &a.0);
            let binds = matches!(after, Some(Token::P(Punct::Assign)))
                || matches!(
                    before,
                    Some(Token::Kw(Kw::For | Kw::As | Kw::Fn | Kw::Class))
                );
            binds.then_some(*d)
        })
        .collect();
    for (tok, span) in tokens.iter_mut() {
        if let Token::DType(d) = tok {
            if bound.contains(d) {
                *tok = Token::Ident(d.name().into());
                continue;
            }
        }
        let written = src.get(span.start..span.end);
        let word = match tok {
            Token::Kw(
                Kw::Wait | Kw::Pin | Kw::Sync | Kw::Mem | Kw::Profile | Kw::Help | Kw::NoGrad,
            ) => true,
            Token::Kw(Kw::Fn) => written == Some("fn"),
            Token::None | Token::Bool(_) => {
                literals && matches!(written, Some("none" | "true" | "false"))
            }
            _ => false,
        };
        if word {
            if let Some(w) = src.get(span.start..span.end) {
                *tok = Token::Ident(w.into());
            }
        }
    }
}

fn lex_error(src: &str, e: Rich<'_, char, Span>) -> Diagnostic {
    let span = *e.span();
    match e.reason() {
        chumsky::error::RichReason::Custom(msg) => Diagnostic::syntax(span, msg.clone()),
        _ => match e.found() {
            Some(c) if *c == '"' || *c == '\'' => Diagnostic::syntax(
                span,
                "this string is never closed (strings end on the same line)",
            ),
            Some(c) if c.is_control() => Diagnostic::syntax(
                span,
                format!("unexpected control character U+{:04X}", *c as u32),
            ),
            Some(c) => Diagnostic::syntax(span, format!("unexpected character `{c}`")),
            None => {
                // An unterminated string reaches the end of the input: point at its opening quote.
                let end = span.start.min(src.len());
                let start = src[..end].rfind(['"', '\'']).unwrap_or(end);
                Diagnostic::syntax(
                    Span::from(start..src.len()),
                    "this string is never closed (strings end on the same line)",
                )
            }
        },
    }
}

/// Drops newlines inside `()` and `[]`, checks that brackets match, and
/// bounds their nesting so the recursive parser never runs out of stack.
fn structure(tokens: Vec<Spanned<Token>>, len: usize) -> Result<Vec<Spanned<Token>>, Diagnostic> {
    let mut open: Vec<Spanned<Punct>> = Vec::new();
    // Operators chained since the last separator, per open bracket (index 0: top level).
    let mut runs: Vec<usize> = vec![0];
    let mut depth = 0usize;
    let mut out = Vec::with_capacity(tokens.len());
    for (tok, span) in tokens {
        match &tok {
            Token::P(Punct::Comma | Punct::Semi) | Token::Newline => {
                let run = runs.last_mut().expect("top level is never popped");
                depth -= *run;
                *run = 0;
            }
            Token::P(Punct::LParen | Punct::LBracket | Punct::LBrace) => {
                runs.push(0);
                depth += 1;
            }
            Token::P(Punct::RParen | Punct::RBracket | Punct::RBrace) if runs.len() > 1 => {
                depth -= runs.pop().unwrap_or(0) + 1;
            }
            Token::P(_) | Token::Kw(Kw::Is | Kw::In | Kw::Not | Kw::And | Kw::Or) => {
                *runs.last_mut().expect("top level is never popped") += 1;
                depth += 1;
                if depth > MAX_EXPR_DEPTH {
                    return Err(Diagnostic::syntax(
                        span,
                        format!("this expression nests deeper than {MAX_EXPR_DEPTH} levels; split it into several statements"),
                    ));
                }
            }
            _ => {}
        }
        match tok {
            Token::Newline if matches!(open.last(), Some((Punct::LParen | Punct::LBracket, _))) => {
                continue
            }
            Token::P(p @ (Punct::LParen | Punct::LBracket | Punct::LBrace)) => {
                if open.len() >= MAX_NESTING {
                    return Err(Diagnostic::syntax(
                        span,
                        format!("brackets nest deeper than {MAX_NESTING} levels here"),
                    ));
                }
                open.push((p, span));
            }
            Token::P(p @ (Punct::RParen | Punct::RBracket | Punct::RBrace)) => match open.pop() {
                Some((o, _)) if o.closer() == Some(p) => {}
                Some((o, ospan)) => {
                    let want = o.closer().map(Punct::as_str).unwrap_or("?");
                    return Err(Diagnostic::mismatched(span, p, ospan, o, want));
                }
                None => {
                    return Err(Diagnostic::syntax(
                        span,
                        format!("`{}` has no matching opening bracket", p.as_str()),
                    ))
                }
            },
            _ => {}
        }
        out.push((tok, span));
    }
    if let Some((o, ospan)) = open.pop() {
        return Err(Diagnostic::unclosed(ospan, o, len));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {

    #[test]
    fn bytes_literals_read_escapes_as_python() {
        assert_eq!(
            super::byte_escapes(r"\x41\102\0\n").unwrap(),
            b"AB\0\n".to_vec()
        );
        assert_eq!(
            super::byte_escapes(r"\u1234\d").unwrap(),
            b"\\u1234\\d".to_vec()
        );
        assert_eq!(super::byte_escapes("a\\\nb").unwrap(), b"ab".to_vec());
        assert!(super::byte_escapes(r"\xg1").is_err());
        assert!(super::byte_escapes("é").is_err());
    }
    use super::*;

    #[test]
    fn the_fast_pass_accepts_valid_input() {
        for src in [
            "x = x + 1\n",
            "x = [1., 2.].to(cuda:1)",
            "for i in 0..3 { y = x ** 2 }",
            "a != b; c <= d",
        ] {
            let (_, errs) = lexer::<EmptyErr>().parse(src).into_output_errors();
            assert!(errs.is_empty(), "{src:?}: {} errors", errs.len());
        }
    }
}
