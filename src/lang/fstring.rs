//! An f-string's text (`f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]"`)
//! as text and fields: escapes and `{{ }}` in the text, each field's
//! expression parsed where it stands in the source (its errors point at
//! their column), its `!r` conversion, its format spec (which may hold
//! fields of its own) and Python's `{x=}` form.

use super::ast::FPart;
use super::Span;

/// An error at `Span` with its message.
pub type FError = (Span, String);

/// Parses the text between an f-string's quotes, which starts at byte
/// `at` of the source.
pub fn parse(body: &str, at: usize) -> Result<Vec<FPart>, FError> {
    let mut parts = Vec::new();
    parse_into(body, at, 0, &mut parts)?;
    Ok(parts)
}

/// Fields nest at most this deep (`{x:{w}}` is 2), as Python's.
const DEEPEST: usize = 2;

fn parse_into(body: &str, at: usize, depth: usize, parts: &mut Vec<FPart>) -> Result<(), FError> {
    let bytes = body.as_bytes();
    let mut text = String::new();
    let mut i = 0;
    let here = |i: usize, n: usize| Span::from(at + i..at + i + n);
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') && depth == 0 => {
                text.push('{');
                i += 2;
            }
            b'}' if bytes.get(i + 1) == Some(&b'}') && depth == 0 => {
                text.push('}');
                i += 2;
            }
            b'}' => return Err((here(i, 1), "f-string: single '}' is not allowed".into())),
            b'{' => {
                if depth >= DEEPEST {
                    return Err((here(i, 1), "f-string: expressions nested too deeply".into()));
                }
                if !text.is_empty() {
                    parts.push(FPart::Text(std::mem::take(&mut text)));
                }
                i = field(body, at, i, depth, parts)?;
            }
            b'\\' if depth == 0 => {
                let c = body[i + 1..].chars().next().unwrap_or('\\');
                // `\033`, `\x1b`, `\u00e9`, `\U0001F600`: a character by its code.
                let (ch, used) = match c {
                    '0'..='7' => coded(&body[i + 1..], 8, 1, 3),
                    'x' => coded(&body[i + 2..], 16, 2, 2),
                    'u' => coded(&body[i + 2..], 16, 4, 4),
                    'U' => coded(&body[i + 2..], 16, 8, 8),
                    _ => (None, 0),
                };
                if let Some(ch) = ch {
                    text.push(ch);
                    i += 1 + used + usize::from(!c.is_digit(8));
                    continue;
                }
                match c {
                    'n' => text.push('\n'),
                    't' => text.push('\t'),
                    'r' => text.push('\r'),
                    'a' => text.push('\x07'),
                    'b' => text.push('\x08'),
                    'f' => text.push('\x0c'),
                    'v' => text.push('\x0b'),
                    '\\' => text.push('\\'),
                    '\'' => text.push('\''),
                    '"' => text.push('"'),
                    '\n' => {}
                    other => {
                        text.push('\\');
                        text.push(other);
                    }
                }
                i += 1 + c.len_utf8();
            }
            _ => {
                let c = body[i..].chars().next().unwrap_or(' ');
                text.push(c);
                i += c.len_utf8();
            }
        }
    }
    if !text.is_empty() {
        parts.push(FPart::Text(text));
    }
    Ok(())
}

/// The field opened by the `{` at `open`; returns where the text goes on.
fn field(
    body: &str,
    at: usize,
    open: usize,
    depth: usize,
    parts: &mut Vec<FPart>,
) -> Result<usize, FError> {
    let bytes = body.as_bytes();
    let start = open + 1;
    // The expression ends at a `!`, `:` or `}` outside brackets and strings.
    let mut i = start;
    let mut nest = 0i32;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'(' | b'[' | b'{' => nest += 1,
                b')' | b']' => nest -= 1,
                b'}' if nest > 0 => nest -= 1,
                b'}' | b':' if nest == 0 => break,
                b'!' if nest == 0 && bytes.get(i + 1) != Some(&b'=') => break,
                _ => {}
            },
        }
        i += 1;
    }
    if i >= bytes.len() {
        return Err((
            Span::from(at + open..at + body.len()),
            "f-string: expecting '}'".into(),
        ));
    }
    let mut text = &body[start..i];
    // `{x=}`: the text and `=` go before the value.
    let mut debug = None;
    let trimmed = text.trim_end();
    if trimmed.ends_with('=')
        && !trimmed.ends_with("==")
        && !trimmed.ends_with("!=")
        && !trimmed.ends_with("<=")
        && !trimmed.ends_with(">=")
    {
        debug = Some(text.to_string());
        text = &trimmed[..trimmed.len() - 1];
    }
    if text.trim().is_empty() {
        return Err((
            Span::from(at + open..at + i + 1),
            "f-string: empty expression not allowed".into(),
        ));
    }
    let expr = super::parse_expr_at(text, at + start).map_err(|d| {
        let d = &d[0];
        (d.span, format!("f-string: {}", d.error))
    })?;
    let mut conv = None;
    if bytes[i] == b'!' {
        let c = body[i + 1..].chars().next();
        match c {
            Some(c @ ('r' | 's' | 'a')) => conv = Some(c),
            _ => {
                return Err((
                    Span::from(at + i..at + i + 2),
                    "f-string: invalid conversion character: expected 's', 'r', or 'a'".into(),
                ))
            }
        }
        i += 2;
        if !matches!(bytes.get(i), Some(b':' | b'}')) {
            return Err((
                Span::from(at + i..at + i + 1),
                "f-string: expecting '}'".into(),
            ));
        }
    }
    let mut spec = Vec::new();
    if bytes.get(i) == Some(&b':') {
        // The spec runs to the `}` that closes this field; `{...}` inside it are fields.
        let spec_start = i + 1;
        let mut j = spec_start;
        let mut inner = 0;
        while j < bytes.len() {
            match bytes[j] {
                b'{' => inner += 1,
                b'}' if inner > 0 => inner -= 1,
                b'}' => break,
                _ => {}
            }
            j += 1;
        }
        if j >= bytes.len() {
            return Err((
                Span::from(at + open..at + body.len()),
                "f-string: expecting '}'".into(),
            ));
        }
        parse_into(&body[spec_start..j], at + spec_start, depth + 1, &mut spec)?;
        i = j;
    }
    if debug.is_some() && conv.is_none() && spec.is_empty() {
        conv = Some('r');
    }
    parts.push(FPart::Field {
        expr,
        conv,
        spec,
        debug,
    });
    Ok(i + 1)
}

/// The character whose code `text` starts with: `fewest` to `most` digits
/// of `radix` (Python's escapes), and how many digits it took; None when
/// the digits are too few (`\x1`, kept as written).
fn coded(text: &str, radix: u32, fewest: usize, most: usize) -> (Option<char>, usize) {
    let digits: String = text
        .chars()
        .take(most)
        .take_while(|d| d.is_digit(radix))
        .collect();
    if digits.len() < fewest {
        return (None, 0);
    }
    let ch = u32::from_str_radix(&digits, radix)
        .ok()
        .and_then(char::from_u32);
    (ch, digits.len())
}
