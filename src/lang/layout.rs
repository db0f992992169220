//! Python's indented blocks as cudash's braces. A block keyword's line
//! ending in `:` (`for x in xs:`, `def f(x):`, `else:`) opens a block that
//! the following, deeper indented lines make up, closed where a line comes
//! back out: this pass turns that `:` into `{` and the way out into `}`
//! followed by the end of the line, so the parser sees one language. A
//! block on the header's own line (`if x: y = 1`) ends with that line.
//!
//! Indentation counts only inside such a block: a brace block's lines, and
//! the lines outside any block, are indented as the writer likes, as ever.
//! Newlines inside a dict's braces (a dict literal over several lines) are
//! dropped here, as the structure pass drops them inside `()` and `[]`.

use super::token::{Kw, Punct, Spanned, Token};
use super::Span;
use crate::error::{Diagnostic, Error};

/// What is open at a point of the token stream.
#[derive(Debug)]
enum Open<'s> {
    /// `(` or `[`.
    Bracket,
    /// `{` of a dict literal.
    Dict,
    /// `{` of a block written in braces.
    Brace,
    /// A block opened by `:`. `header` is the indentation of the line
    /// holding the `:`; `body` that of the block's lines, once one is seen.
    /// `inline`: the block is the rest of the header's line.
    Indent {
        header: &'s str,
        body: Option<&'s str>,
        inline: bool,
        /// The header's line number (1-based) and keyword, for messages.
        line: usize,
        keyword: String,
    },
}

/// How two lines' indentation compare, as Python compares them.
#[derive(Debug, PartialEq)]
enum Depth {
    Same,
    Deeper,
    Shallower,
    /// Tabs and spaces mixed so that neither line is inside the other.
    Mixed,
}

fn compare(line: &str, block: &str) -> Depth {
    if line == block {
        Depth::Same
    } else if line.starts_with(block) {
        Depth::Deeper
    } else if block.starts_with(line) {
        Depth::Shallower
    } else {
        Depth::Mixed
    }
}

/// Does a statement starting with `t` take a block (`if ...:`)?
fn opens_block(t: &Token) -> bool {
    match t {
        Token::Kw(k) => matches!(
            k,
            Kw::If
                | Kw::Elif
                | Kw::Else
                | Kw::For
                | Kw::While
                | Kw::Fn
                | Kw::Class
                | Kw::With
                | Kw::Profile
                | Kw::NoGrad
                | Kw::Try
                | Kw::Except
                | Kw::Finally
        ),
        Token::Ident(s) => matches!(&**s, "stream" | "time"),
        _ => false,
    }
}

/// Does this `:` open a block of Python's `match` statement? `match` and
/// `case` are names elsewhere (`match = re.match(...)`): `match x:` opens
/// one only where the `:` ends its line, `case p:` only directly inside a
/// `match` block.
fn opens_match_block(head: Option<&Token>, open: &[Open], next: Option<&Spanned<Token>>) -> bool {
    match head {
        Some(Token::Ident(s)) if &**s == "match" => {
            matches!(next, None | Some((Token::Newline, _)))
        }
        Some(Token::Ident(s)) if &**s == "case" => {
            matches!(open.last(), Some(Open::Indent { keyword, .. }) if keyword == "match")
        }
        _ => false,
    }
}

/// Is a `{` after `prev` a dict literal rather than a block? A block's
/// `{` follows its header (a name, `)`, `]`, a literal, `else`, `no_grad`);
/// a dict's follows an operator, an opening bracket, `,`, `=`, `:`, `return`.
fn opens_dict(prev: Option<&Token>) -> bool {
    match prev {
        None | Some(Token::Newline) => true,
        // A mapping pattern: `case {"action": a}:`.
        Some(Token::Ident(s)) if &**s == "case" => true,
        Some(Token::P(p)) => !matches!(p, Punct::RParen | Punct::RBracket | Punct::RBrace),
        Some(Token::Kw(k)) => matches!(
            k,
            Kw::Return
                | Kw::Yield
                | Kw::In
                | Kw::And
                | Kw::Or
                | Kw::Not
                | Kw::Is
                | Kw::If
                | Kw::Elif
                | Kw::While
                | Kw::Lambda
                | Kw::Assert
                | Kw::Raise
        ),
        _ => false,
    }
}

fn indentation_error(span: Span, class: &'static str, message: String, help: &str) -> Diagnostic {
    Error::Spelling {
        message,
        label: "this line".into(),
        help: help.into(),
        class,
    }
    .at(span)
}

/// The indentation of the line holding `at`, and the line's number.
fn indent_of(src: &str, at: usize) -> &str {
    let begin = src[..at].rfind('\n').map_or(0, |i| i + 1);
    let rest = &src[begin..at];
    let width = rest.len() - rest.trim_start_matches([' ', '\t', '\x0c']).len();
    &rest[..width]
}

/// The 1-based line holding byte `at`, by a binary search over where the
/// lines start (counting newlines from the top at every block made parsing
/// quadratic in a file's length).
fn line_of(line_starts: &[usize], at: usize) -> usize {
    line_starts.partition_point(|&start| start <= at)
}

/// The tokens with Python's `:` blocks as braces (see the module's comment).
pub struct Laid {
    pub tokens: Vec<Spanned<Token>>,
    /// The input ended inside a `:` block: in the REPL, more lines may follow.
    pub in_block: bool,
}

/// Rewrites Python's `:` blocks as braces (see the module's comment).
pub fn layout(tokens: Vec<Spanned<Token>>, src: &str) -> Result<Laid, Diagnostic> {
    let mut out: Vec<Spanned<Token>> = Vec::with_capacity(tokens.len() + tokens.len() / 8);
    let mut open: Vec<Open> = Vec::new();
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(src.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    // The next token starts a line (after a newline outside brackets).
    let mut line_start = true;
    // The first token of the statement being read, and where; None before it.
    let mut head: Option<Token> = None;
    let mut head_at = 0usize;
    // `lambda`s on this line whose `:` is still to come.
    let mut lambdas = 0usize;
    // The last token read from the source (not one this pass made).
    let mut prev: Option<Token> = None;
    // A block was opened by a `:` ending its line: its first line is next.
    let mut pending: Option<Span> = None;
    let close = |out: &mut Vec<Spanned<Token>>, at: usize| {
        let span = Span::from(at..at);
        out.push((Token::P(Punct::RBrace), span));
        out.push((Token::Newline, span));
    };
    let mut iter = tokens.into_iter().peekable();
    while let Some((tok, span)) = iter.next() {
        let in_brackets = matches!(open.last(), Some(Open::Bracket | Open::Dict));
        if tok == Token::Newline {
            if in_brackets {
                prev = Some(tok);
                continue;
            }
            // A block on its header's line ends with the line.
            while let Some(Open::Indent { inline: true, .. }) = open.last() {
                open.pop();
                out.push((Token::P(Punct::RBrace), Span::from(span.start..span.start)));
            }
            out.push((tok.clone(), span));
            line_start = true;
            head = None;
            lambdas = 0;
            prev = Some(tok);
            continue;
        }
        if line_start && !in_brackets {
            line_start = false;
            let indent = indent_of(src, span.start);
            let here = Span::from(span.start - indent.len()..span.start);
            if pending.take().is_some() {
                let Some(Open::Indent {
                    header,
                    body,
                    keyword,
                    line: hline,
                    ..
                }) = open.last_mut()
                else {
                    unreachable!("a pending block is the innermost open one");
                };
                match compare(indent, header) {
                    Depth::Deeper => *body = Some(indent),
                    Depth::Mixed => return Err(tab_error(here)),
                    _ => {
                        return Err(indentation_error(
                            span,
                            "IndentationError",
                            format!("expected an indented block after the `{keyword}` on line {hline}"),
                            "indent the block's lines under its header (4 spaces, as Python's style), or write `pass` for a block that does nothing",
                        ))
                    }
                }
            } else if tok != Token::P(Punct::RBrace) {
                let end = prev_end(&out);
                dedent(&mut open, &mut out, indent, here, end)?;
            }
        }
        if head.is_none() {
            head = Some(tok.clone());
            head_at = span.start;
        }
        match &tok {
            Token::P(Punct::LParen | Punct::LBracket) => open.push(Open::Bracket),
            Token::P(Punct::LBrace) => open.push(match opens_dict(prev.as_ref()) {
                true => Open::Dict,
                false => Open::Brace,
            }),
            Token::P(Punct::RParen | Punct::RBracket) if in_brackets => {
                open.pop();
            }
            Token::P(Punct::RBrace) => {
                // A brace closes the `:` blocks opened inside it first.
                while let Some(Open::Indent { .. }) = open.last() {
                    open.pop();
                    close(&mut out, span.start);
                }
                open.pop();
            }
            Token::P(Punct::Semi) if !in_brackets => {
                head = None;
                lambdas = 0;
            }
            Token::Kw(Kw::Lambda) if !in_brackets => lambdas += 1,
            Token::P(Punct::Colon) if !in_brackets && lambdas > 0 => lambdas -= 1,
            Token::P(Punct::Colon)
                if !in_brackets
                    && (head.as_ref().is_some_and(opens_block)
                        || opens_match_block(head.as_ref(), &open, iter.peek())) =>
            {
                let ends_line = matches!(iter.peek(), None | Some((Token::Newline, _)));
                let header = indent_of(src, head_at);
                let line = line_of(&line_starts, head_at);
                // As written: `def`, not the `fn` it lexes as.
                let keyword = src[head_at..]
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                open.push(Open::Indent {
                    header,
                    body: None,
                    inline: !ends_line,
                    line,
                    keyword,
                });
                if ends_line {
                    pending = Some(span);
                }
                // What follows on the line is a statement of its own.
                head = None;
                prev = Some(tok);
                out.push((Token::P(Punct::LBrace), span));
                continue;
            }
            _ => {}
        }
        prev = Some(tok.clone());
        out.push((tok, span));
    }
    if let Some(colon) = pending {
        return Err(Diagnostic::incomplete(
            colon.start,
            src.len(),
            vec!["an indented block".into()],
        ));
    }
    let end = prev_end(&out);
    let in_block = open.iter().any(|o| matches!(o, Open::Indent { .. }));
    while let Some(o) = open.pop() {
        match o {
            Open::Indent { inline, .. } => {
                out.push((Token::P(Punct::RBrace), Span::from(end..end)));
                if !inline {
                    out.push((Token::Newline, Span::from(end..end)));
                }
            }
            // Left for the structure pass, which says what is unclosed.
            _ => break,
        }
    }
    Ok(Laid {
        tokens: out,
        in_block,
    })
}

fn tab_error(span: Span) -> Diagnostic {
    indentation_error(
        span,
        "TabError",
        "inconsistent use of tabs and spaces in indentation".into(),
        "indent every line of a block the same way: spaces only (Python's style) or tabs only",
    )
}

/// Where the last token written ends (a made brace goes there).
fn prev_end(out: &[Spanned<Token>]) -> usize {
    out.iter()
        .rev()
        .find(|(t, _)| *t != Token::Newline)
        .map_or(0, |(_, s)| s.end)
}

/// A line at `indent` starts: close the `:` blocks it comes out of, and
/// check it lines up with the block it is in.
fn dedent(
    open: &mut Vec<Open>,
    out: &mut Vec<Spanned<Token>>,
    indent: &str,
    here: Span,
    end: usize,
) -> Result<(), Diagnostic> {
    let mut closed = false;
    while let Some(Open::Indent {
        header,
        body: Some(body),
        ..
    }) = open.last()
    {
        match compare(indent, body) {
            Depth::Same => return Ok(()),
            Depth::Mixed => return Err(tab_error(here)),
            Depth::Deeper if closed => break,
            Depth::Deeper => {
                return Err(indentation_error(
                    here,
                    "IndentationError",
                    "unexpected indent".into(),
                    "a line inside a block lines up with the block's other lines; only a line ending in `:` starts a deeper block",
                ))
            }
            Depth::Shallower => {
                let header = *header;
                open.pop();
                out.push((Token::P(Punct::RBrace), Span::from(end..end)));
                out.push((Token::Newline, Span::from(end..end)));
                closed = true;
                // Out of every `:` block at this level: the line must line
                // up with the header of the last one left.
                if !matches!(open.last(), Some(Open::Indent { body: Some(_), .. })) {
                    return match compare(indent, header) {
                        Depth::Same => Ok(()),
                        Depth::Mixed => Err(tab_error(here)),
                        _ => Err(unindent(here)),
                    };
                }
            }
        }
    }
    match closed {
        true => Err(unindent(here)),
        false => Ok(()),
    }
}

fn unindent(span: Span) -> Diagnostic {
    indentation_error(
        span,
        "IndentationError",
        "unindent does not match any outer indentation level".into(),
        "a line that ends a block lines up with a line above it: the block's header, or a block around it",
    )
}
