//! Python's strings in a program: f-strings, `str()`, `repr()`,
//! `format()`, `"..." % args`, `"...".format(...)`, `+` and `*` on
//! strings. The formatting itself is `format.rs`'s; here a one-element
//! tensor is read first (a host read, as PyTorch's `Tensor.__format__`
//! takes `.item()` of a 0-d tensor and `float(t)` reads one element).

use std::sync::Arc;

use super::format;
use super::value::Key;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::FPart;

impl Interp {
    /// `f"..."`: its text and fields, formatted in order.
    pub(super) fn eval_fstring(&mut self, parts: &[FPart], d: usize) -> Result<Value, Diagnostic> {
        let mut out = String::new();
        self.fstring_into(parts, d, &mut out)?;
        Ok(Value::Str(Arc::new(out)))
    }

    fn fstring_into(
        &mut self,
        parts: &[FPart],
        d: usize,
        out: &mut String,
    ) -> Result<(), Diagnostic> {
        for part in parts {
            match part {
                FPart::Text(t) => out.push_str(t),
                FPart::Field {
                    expr,
                    conv,
                    spec,
                    debug,
                } => {
                    let v = self.eval(expr, d)?;
                    let mut spec_text = String::new();
                    self.fstring_into(spec, d, &mut spec_text)?;
                    if let Some(text) = debug {
                        out.push_str(text);
                    }
                    // `{x=}` writes the value's repr unless given a
                    // conversion or a format spec (Python's rule:
                    // `f"{t.sum()=}"` is `t.sum()=tensor(3.5000)`).
                    let conv = match (conv, debug) {
                        (None, Some(_)) if spec_text.is_empty() => Some('r'),
                        _ => *conv,
                    };
                    let conv = conv.map(|c| c.to_string());
                    // `f"{d:%H:%M}"`: a class's own `__format__(spec)`.
                    if let (Value::Object(o), None) = (&v, &conv) {
                        if o.class.find("__format__").is_some() {
                            let arg = super::args::ArgVal::positional(
                                Value::Str(Arc::new(spec_text)),
                                expr.span,
                            );
                            match self.call_object_method(&v, "__format__", vec![arg], expr.span)? {
                                Ok(Value::Str(text)) => {
                                    out.push_str(&text);
                                    continue;
                                }
                                Ok(other) => {
                                    return Err(Error::wrong_type(
                                        "what __format__ returned",
                                        "a str",
                                        other.type_name(),
                                    )
                                    .at(expr.span))
                                }
                                Err(_) => unreachable!("the class defines __format__"),
                            }
                        }
                    }
                    let text = self
                        .formatted(&v, conv.as_deref(), &spec_text)
                        .map_err(|e| e.at(expr.span))?;
                    out.push_str(&text);
                }
            }
        }
        Ok(())
    }

    /// `format(v, spec)` with `!conv`: a 0-d tensor as its number
    /// (`Tensor.__format__`), but with `!r` or `!s` its repr or str, which
    /// Python takes before formatting; a tensor of more elements shown (a
    /// host read of its values).
    pub(super) fn formatted(
        &mut self,
        v: &Value,
        conv: Option<&str>,
        spec: &str,
    ) -> Result<String, Error> {
        let v = match conv {
            None => self.python_scalar(v.clone())?,
            Some(_) => v.clone(),
        };
        if let Value::Tensor(_) = &v {
            if !spec.is_empty() {
                return Err(Error::type_error(
                    "unsupported format string passed to Tensor.__format__: only a tensor of \
                     one element takes a format spec (`.item()` reads it)",
                ));
            }
        }
        let values = [&v];
        self.host_read(&values, || format::convert_and_format(&v, conv, spec))?
    }

    /// A 0-d tensor read as its number (`.item()`); anything else as it is.
    pub(super) fn python_scalar(&mut self, v: Value) -> Result<Value, Error> {
        match &v {
            // (PyTorch's `Tensor.__format__` leaves a meta tensor a tensor.)
            Value::Tensor(t) if t.ndim() == 0 && !t.device().is_meta() => self.one_element_value(v),
            _ => Ok(v),
        }
    }

    /// `"..." % args`: a one-element tensor is read as its number by a
    /// numeric conversion (`%.2f`, `%d`), written as itself by `%s`/`%r`.
    pub(super) fn percent_format(&mut self, fmt: &str, args: Value) -> Result<Value, Error> {
        let values = [&args];
        let text = self.host_read(&values, || format::percent(fmt, &args))??;
        Ok(Value::Str(Arc::new(text)))
    }

    /// `s.format(*args, **kwargs)`.
    pub(super) fn str_format(
        &mut self,
        fmt: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, Error> {
        // A 0-d tensor is its number where a field formats it
        // (`Tensor.__format__`), itself where `!r`/`!s` converts it
        // (`format::convert_and_format`, under this host read).
        let values: Vec<&Value> = args.iter().chain(kwargs.iter().map(|(_, v)| v)).collect();
        let text = self.host_read(&values, || format::str_format(fmt, &args, &kwargs))??;
        Ok(Value::Str(Arc::new(text)))
    }
}

/// The methods of a string `str_method` gives.
pub(super) const STR_METHODS: &[&str] = &[
    "format",
    "join",
    "upper",
    "lower",
    "casefold",
    "format_map",
    "strip",
    "lstrip",
    "rstrip",
    "startswith",
    "endswith",
    "replace",
    "split",
    "rsplit",
    "splitlines",
    "find",
    "count",
    "isdigit",
    "isalpha",
    "isspace",
    "isalnum",
    "isupper",
    "islower",
    "title",
    "capitalize",
    "swapcase",
    "center",
    "ljust",
    "rjust",
    "zfill",
    "expandtabs",
    "index",
    "rfind",
    "partition",
    "rpartition",
    "translate",
];

/// `str.maketrans(x, y=None, z=None)`: a translation table for
/// `s.translate` (code points to code points, strings or None), from a
/// dict of characters, or two strings of one length (and the characters
/// of a third, deleted).
pub(super) fn maketrans(args: &[Value]) -> Result<Value, Error> {
    let code = |c: char| Key::Int(c as i64);
    let mut table: Vec<(Key, Value)> = Vec::new();
    match args {
        [Value::Dict(d)] => {
            for (k, v) in d.items().iter() {
                let key = match k {
                    Key::Int(_) => k.clone(),
                    Key::Str(s) if s.chars().count() == 1 => code(s.chars().next().unwrap_or('\0')),
                    Key::Str(_) => {
                        return Err(Error::value(
                            "string keys in translate table must be of length 1",
                        ))
                    }
                    _ => {
                        return Err(Error::type_error(
                            "keys in translate table must be strings or integers",
                        ))
                    }
                };
                let value = match v {
                    Value::Str(s) if s.chars().count() == 1 => {
                        Value::Int(s.chars().next().unwrap_or('\0') as i64)
                    }
                    other => other.clone(),
                };
                table.push((key, value));
            }
        }
        [_] => {
            return Err(Error::type_error(
                "if you give only one argument to maketrans it must be a dict",
            ))
        }
        [Value::Str(x), Value::Str(y), rest @ ..] if rest.len() <= 1 => {
            if x.chars().count() != y.chars().count() {
                return Err(Error::value(
                    "the first two maketrans arguments must have equal length",
                ));
            }
            for (a, b) in x.chars().zip(y.chars()) {
                table.push((code(a), Value::Int(b as i64)));
            }
            match rest {
                [Value::Str(z)] => table.extend(z.chars().map(|c| (code(c), Value::None))),
                [] => {}
                _ => return Err(Error::type_error("maketrans() argument 3 must be str")),
            }
        }
        _ => {
            return Err(Error::type_error(
                "maketrans() takes a dict, or two or three strings",
            ))
        }
    }
    Ok(Value::Dict(super::value::PyDict::new(table)))
}

/// `s.translate(table)`: each character looked up by its code point: a
/// code point or a string put in its place, None deleting it, a missing
/// one kept.
fn translate(s: &str, table: &Value) -> Result<String, Error> {
    let Value::Dict(table) = table else {
        return Err(Error::wrong_type(
            "the table of `str.translate`",
            "a dict (`str.maketrans(...)`)",
            table.type_name(),
        ));
    };
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match table.get(&Key::Int(c as i64)) {
            None => out.push(c),
            Some(Value::None) => {}
            Some(Value::Str(t)) => out.push_str(&t),
            Some(Value::Int(i)) => out.push(
                u32::try_from(i)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| Error::value("character mapping must be in range(0x110000)"))?,
            ),
            Some(_) => {
                return Err(Error::type_error(
                    "character mapping must return integer, None or str",
                ))
            }
        }
    }
    Ok(out)
}

/// Python's `str.split` (`rsplit` from the right): on `sep`, or on runs
/// of whitespace (none at the ends kept) without one; at most `max` cuts.
fn split(s: &str, sep: Option<&str>, max: Option<usize>, from_right: bool) -> Vec<String> {
    let owned = |v: Vec<&str>| v.into_iter().map(str::to_string).collect();
    match (sep, max) {
        (Some(sep), None) => owned(s.split(sep).collect()),
        (Some(sep), Some(m)) if from_right => {
            let mut v: Vec<&str> = s.rsplitn(m + 1, sep).collect();
            v.reverse();
            owned(v)
        }
        (Some(sep), Some(m)) => owned(s.splitn(m + 1, sep).collect()),
        (None, None) => owned(s.split_whitespace().collect()),
        (None, Some(m)) => {
            let mut parts = Vec::new();
            let mut rest = if from_right {
                s.trim_end()
            } else {
                s.trim_start()
            };
            while parts.len() < m && !rest.is_empty() {
                let cut = match from_right {
                    true => rest.rfind(char::is_whitespace).map(|k| {
                        let w = rest[k..].chars().next().map_or(1, char::len_utf8);
                        (rest[k + w..].to_string(), rest[..k].trim_end())
                    }),
                    false => rest.find(char::is_whitespace).map(|k| {
                        let w = rest[k..].chars().next().map_or(1, char::len_utf8);
                        (rest[..k].to_string(), rest[k + w..].trim_start())
                    }),
                };
                match cut {
                    Some((part, left)) => {
                        parts.push(part);
                        rest = left;
                    }
                    None => break,
                }
            }
            if !rest.is_empty() {
                parts.push(rest.to_string());
            }
            if from_right {
                parts.reverse();
            }
            parts
        }
    }
}

/// A string's characters, each a string: what `for c in s` takes.
pub(super) fn chars_of(s: &str) -> Vec<Value> {
    s.chars()
        .map(|c| Value::Str(Arc::new(c.to_string())))
        .collect()
}

impl Interp {
    /// A string's method (`"{} {}".format(a, b)`, `", ".join(names)`), one
    /// of `STR_METHODS`.
    pub(super) fn str_method(
        &mut self,
        s: &str,
        name: &str,
        args: Vec<super::args::ArgVal>,
    ) -> Result<Value, Error> {
        let text = |t: String| Ok(Value::Str(Arc::new(t)));
        let str_arg = |k: usize| match args.get(k).map(|a| &a.value) {
            Some(Value::Str(x)) => Ok(x.to_string()),
            Some(other) => Err(Error::wrong_type(
                format!("the argument of `str.{name}`"),
                "a string",
                other.type_name(),
            )),
            None => Err(Error::value(format!("`str.{name}` needs an argument"))),
        };
        // `s.find(sub, start, end)`: the part searched (Python's slice of
        // characters) and where it starts, in characters.
        let window = || -> Result<(String, i64), Error> {
            let n = s.chars().count() as i64;
            let bound = |k: usize, default: i64| match args.get(k).map(|a| &a.value) {
                None | Some(Value::None) => Ok(default),
                Some(Value::Int(i)) => Ok(if *i < 0 { (*i + n).max(0) } else { (*i).min(n) }),
                Some(other) => Err(Error::wrong_type(
                    format!("a bound of `str.{name}`"),
                    "an int",
                    other.type_name(),
                )),
            };
            let (a, z) = (bound(1, 0)?, bound(2, n)?);
            let part: String = s
                .chars()
                .skip(a as usize)
                .take((z - a).max(0) as usize)
                .collect();
            Ok((part, a))
        };
        let char_at = |part: &str, k: usize| part[..k].chars().count() as i64;
        match name {
            "format" => {
                let (mut pos, mut kw) = (Vec::new(), Vec::new());
                for a in args {
                    match a.keyword {
                        Some(k) => kw.push((k.name, a.value)),
                        None => pos.push(a.value),
                    }
                }
                self.str_format(s, pos, kw)
            }
            // `"{lr}".format_map(config)`: `format(**config)`.
            "format_map" => match args.first().map(|a| &a.value) {
                Some(Value::Dict(d)) => {
                    let kw = d
                        .items()
                        .iter()
                        .filter_map(|(k, v)| k.as_str().map(|k| (k.to_string(), v.clone())))
                        .collect();
                    self.str_format(s, Vec::new(), kw)
                }
                _ => Err(Error::type_error("format_map() takes one dict")),
            },
            "join" => match args.first().map(|a| a.value.elements()) {
                Some(Some(Ok(items))) => {
                    let mut parts = Vec::with_capacity(items.len());
                    for v in items {
                        match v {
                            Value::Str(x) => parts.push(x.to_string()),
                            other => {
                                return Err(Error::value(format!(
                                    "sequence item: expected str instance, {} found",
                                    other.type_name()
                                )))
                            }
                        }
                    }
                    text(parts.join(s))
                }
                Some(Some(Err(e))) => Err(e),
                _ => Err(Error::value("`str.join` takes a list of strings")),
            },
            "upper" => text(s.to_uppercase()),
            "lower" => text(s.to_lowercase()),
            // Python's caseless form: lower case, and the German sharp s
            // as "ss" (the one fold programs meet).
            "casefold" => text(s.to_lowercase().replace('ß', "ss")),
            // `s.strip(".,")`: those characters; none given (or None): whitespace.
            "strip" | "lstrip" | "rstrip" => {
                let chars = match args.first().map(|a| &a.value) {
                    None | Some(Value::None) => None,
                    Some(_) => Some(str_arg(0)?),
                };
                let strip = |c: char| match &chars {
                    Some(set) => set.contains(c),
                    None => c.is_whitespace(),
                };
                text(
                    match name {
                        "strip" => s.trim_matches(strip),
                        "lstrip" => s.trim_start_matches(strip),
                        _ => s.trim_end_matches(strip),
                    }
                    .to_string(),
                )
            }
            // A prefix, or a tuple of them (any one).
            "startswith" | "endswith" => {
                let test = |p: &str| match name {
                    "startswith" => s.starts_with(p),
                    _ => s.ends_with(p),
                };
                match args.first().map(|a| &a.value) {
                    Some(v @ (Value::List(_) | Value::MutList(_))) => {
                        let mut any = false;
                        for p in v.items().unwrap_or_default().iter() {
                            match p {
                                Value::Str(p) => any |= test(p),
                                other => {
                                    return Err(Error::type_error(format!(
                                        "tuple for {name} must only contain str, not {}",
                                        format::python_type(other)
                                    )))
                                }
                            }
                        }
                        Ok(Value::bool(any))
                    }
                    _ => str_arg(0).map(|p| Value::bool(test(&p))),
                }
            }
            // `s.replace(old, new, count=-1)`: at most `count` replaced
            // (every one when negative), from the left.
            "replace" => str_arg(0).and_then(|a| {
                str_arg(1).and_then(|b| {
                    let count = args
                        .iter()
                        .find(|x| x.keyword.as_ref().is_some_and(|n| n.name == "count"))
                        .or_else(|| args.iter().filter(|x| x.keyword.is_none()).nth(2))
                        .map(|x| &x.value);
                    let replaced = match count {
                        None => s.replace(&a, &b),
                        Some(Value::Int(n)) if *n < 0 => s.replace(&a, &b),
                        Some(Value::Int(n)) => s.replacen(&a, &b, *n as usize),
                        Some(other) => {
                            return Err(Error::wrong_type(
                                "the count of `str.replace`",
                                "an int",
                                other.type_name(),
                            ))
                        }
                    };
                    Ok(Value::Str(Arc::new(replaced)))
                })
            }),
            // `s.split(sep=None, maxsplit=-1)`, `s.rsplit(...)`: as Python's,
            // runs of whitespace without `sep`, at most `maxsplit` cuts
            // (from the right for rsplit).
            "split" | "rsplit" => {
                let arg = |k: usize, key: &str| {
                    args.iter()
                        .find(|a| a.keyword.as_ref().is_some_and(|n| n.name == key))
                        .or_else(|| args.iter().filter(|a| a.keyword.is_none()).nth(k))
                        .map(|a| a.value.clone())
                };
                let sep = match arg(0, "sep") {
                    None | Some(Value::None) => None,
                    Some(Value::Str(sep)) if sep.is_empty() => {
                        return Err(Error::value("empty separator"))
                    }
                    Some(Value::Str(sep)) => Some(sep.to_string()),
                    Some(other) => {
                        return Err(Error::wrong_type(
                            format!("the separator of `str.{name}`"),
                            "a string or None",
                            other.type_name(),
                        ))
                    }
                };
                let max = match arg(1, "maxsplit") {
                    None => None,
                    Some(Value::Int(m)) => usize::try_from(m).ok(),
                    Some(other) => {
                        return Err(Error::wrong_type(
                            format!("maxsplit of `str.{name}`"),
                            "an int",
                            other.type_name(),
                        ))
                    }
                };
                let parts = split(s, sep.as_deref(), max, name == "rsplit");
                Ok(Value::list(
                    parts.into_iter().map(|p| Value::Str(Arc::new(p))).collect(),
                ))
            }
            // Python's line ends: \n, \r\n and \r (not kept).
            "splitlines" => {
                let mut parts = Vec::new();
                let mut line = String::new();
                let mut chars = s.chars().peekable();
                while let Some(c) = chars.next() {
                    match c {
                        '\r' | '\n' => {
                            if c == '\r' && chars.peek() == Some(&'\n') {
                                chars.next();
                            }
                            parts.push(Value::Str(Arc::new(std::mem::take(&mut line))));
                        }
                        c => line.push(c),
                    }
                }
                if !line.is_empty() {
                    parts.push(Value::Str(Arc::new(line)));
                }
                Ok(Value::MutList(Arc::new(std::sync::Mutex::new(Arc::new(
                    parts,
                )))))
            }
            "find" => {
                let (p, (part, a)) = (str_arg(0)?, window()?);
                Ok(Value::Int(
                    part.find(&p).map_or(-1, |k| a + char_at(&part, k)),
                ))
            }
            "count" => {
                let (p, (part, _)) = (str_arg(0)?, window()?);
                Ok(match p.is_empty() {
                    true => Value::Int(part.chars().count() as i64 + 1),
                    false => Value::Int(part.matches(&p).count() as i64),
                })
            }
            "isdigit" => Ok(Value::bool(
                !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()),
            )),
            "isalpha" => Ok(Value::bool(
                !s.is_empty() && s.chars().all(char::is_alphabetic),
            )),
            "isspace" => Ok(Value::bool(
                !s.is_empty() && s.chars().all(char::is_whitespace),
            )),
            "isalnum" => Ok(Value::bool(
                !s.is_empty() && s.chars().all(char::is_alphanumeric),
            )),
            // A cased character, and no cased one of the other case.
            "isupper" | "islower" => {
                let upper = name == "isupper";
                let cased = s.chars().any(|c| c.is_lowercase() || c.is_uppercase());
                let other = s.chars().any(|c| match upper {
                    true => c.is_lowercase(),
                    false => c.is_uppercase(),
                });
                Ok(Value::bool(cased && !other))
            }
            // Each word's first letter upper, the rest lower (a word: a run of letters).
            "title" => {
                let mut out = String::with_capacity(s.len());
                let mut in_word = false;
                for c in s.chars() {
                    match (c.is_alphabetic(), in_word) {
                        (true, false) => out.extend(c.to_uppercase()),
                        (true, true) => out.extend(c.to_lowercase()),
                        _ => out.push(c),
                    }
                    in_word = c.is_alphabetic();
                }
                text(out)
            }
            "capitalize" => {
                let mut chars = s.chars();
                let out: String = match chars.next() {
                    Some(c) => c
                        .to_uppercase()
                        .chain(chars.flat_map(char::to_lowercase))
                        .collect(),
                    None => String::new(),
                };
                text(out)
            }
            "swapcase" => text(
                s.chars()
                    .flat_map(|c| -> Vec<char> {
                        match c.is_uppercase() {
                            true => c.to_lowercase().collect(),
                            false => c.to_uppercase().collect(),
                        }
                    })
                    .collect(),
            ),
            // `s.center(width, fill=" ")`: Python puts the odd space on the
            // right (on the left when the string's length is odd).
            "center" | "ljust" | "rjust" => {
                let width = match args.first().map(|a| &a.value) {
                    Some(Value::Int(n)) => (*n).max(0) as usize,
                    _ => return Err(Error::value(format!("`str.{name}` needs a width"))),
                };
                let fill = match args.get(1).map(|a| &a.value) {
                    None => ' ',
                    Some(Value::Str(f)) if f.chars().count() == 1 => {
                        f.chars().next().unwrap_or(' ')
                    }
                    Some(_) => {
                        return Err(Error::type_error(
                            "The fill character must be exactly one character long",
                        ))
                    }
                };
                let len = s.chars().count();
                let pad = width.saturating_sub(len);
                let (left, right) = match name {
                    "ljust" => (0, pad),
                    "rjust" => (pad, 0),
                    _ => {
                        let left = pad / 2 + (pad & width & 1);
                        (left, pad - left)
                    }
                };
                let f = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
                text(format!("{}{s}{}", f(left), f(right)))
            }
            "translate" => match args.first() {
                Some(a) => text(translate(s, &a.value)?),
                None => Err(Error::value("`str.translate` needs a table")),
            },
            // Each tab to the next multiple of `tabsize` columns (8), the
            // column counted from the line's start.
            "expandtabs" => {
                let size = match args.first().map(|a| &a.value) {
                    Some(Value::Int(n)) => (*n).max(0) as usize,
                    None => 8,
                    _ => return Err(Error::value("`str.expandtabs` takes an int tabsize")),
                };
                let mut out = String::new();
                let mut column = 0usize;
                for c in s.chars() {
                    match c {
                        '\t' if size > 0 => {
                            let spaces = size - column % size;
                            out.extend(std::iter::repeat_n(' ', spaces));
                            column += spaces;
                        }
                        '\t' => {}
                        '\n' | '\r' => {
                            out.push(c);
                            column = 0;
                        }
                        _ => {
                            out.push(c);
                            column += 1;
                        }
                    }
                }
                text(out)
            }
            "zfill" => {
                let width = match args.first().map(|a| &a.value) {
                    Some(Value::Int(n)) => (*n).max(0) as usize,
                    _ => return Err(Error::value("`str.zfill` needs a width")),
                };
                let len = s.chars().count();
                let (sign, digits) = match s.strip_prefix(['-', '+']) {
                    Some(rest) => (&s[..1], rest),
                    None => ("", s),
                };
                text(format!(
                    "{sign}{}{digits}",
                    "0".repeat(width.saturating_sub(len))
                ))
            }
            "index" => {
                let (p, (part, a)) = (str_arg(0)?, window()?);
                match part.find(p.as_str()) {
                    Some(k) => Ok(Value::Int(a + char_at(&part, k))),
                    None => Err(Error::value("substring not found")),
                }
            }
            "rfind" => {
                let (p, (part, a)) = (str_arg(0)?, window()?);
                Ok(Value::Int(
                    part.rfind(p.as_str()).map_or(-1, |k| a + char_at(&part, k)),
                ))
            }
            "partition" | "rpartition" => {
                let sep = str_arg(0)?;
                if sep.is_empty() {
                    return Err(Error::value("empty separator"));
                }
                let found = match name {
                    "partition" => s.find(sep.as_str()),
                    _ => s.rfind(sep.as_str()),
                };
                let part = |t: &str| Value::Str(Arc::new(t.to_string()));
                Ok(Value::List(Arc::new(match found {
                    Some(k) => vec![part(&s[..k]), part(&sep), part(&s[k + sep.len()..])],
                    None if name == "partition" => vec![part(s), part(""), part("")],
                    None => vec![part(""), part(""), part(s)],
                })))
            }
            other => Err(Error::value(format!(
                "internal error: no string method `{other}`"
            ))),
        }
    }
}

/// `a + b` and `a * n` on strings (and `n * a`); None when neither is a string.
pub(super) fn string_binary(
    op: crate::lang::ast::BinOp,
    a: &Value,
    b: &Value,
) -> Option<Result<Value, Error>> {
    use crate::lang::ast::BinOp;
    use crate::vocab::BinaryOp;
    // Python's OverflowError past what a size holds; a string over a GiB
    // is refused here (MemoryError) before the host is asked for it.
    let repeat = |s: &str, n: i64| -> Result<Value, Error> {
        let n = n.max(0) as usize;
        match s.len().checked_mul(n) {
            None => Err(Error::Module {
                class: "OverflowError",
                message: "repeated string is too long".into(),
                help: None,
            }),
            Some(bytes) if bytes > 1 << 30 => Err(Error::Module {
                class: "MemoryError",
                message: format!("a string of {bytes} bytes is more than cudash makes (1 GiB)"),
                help: None,
            }),
            Some(_) => Ok(Value::Str(Arc::new(s.repeat(n)))),
        }
    };
    match (a, b, op) {
        (Value::Str(x), Value::Str(y), BinOp::Elementwise(BinaryOp::Add)) => {
            Some(Ok(Value::Str(Arc::new(format!("{x}{y}")))))
        }
        (Value::Bytes(_), _, _) | (_, Value::Bytes(_), _) => super::bytes::binary(a, b, op),
        (Value::Str(x), Value::Int(n), BinOp::Elementwise(BinaryOp::Mul))
        | (Value::Int(n), Value::Str(x), BinOp::Elementwise(BinaryOp::Mul)) => Some(repeat(x, *n)),
        // Python orders strings by their code points.
        (
            Value::Str(x),
            Value::Str(y),
            BinOp::Elementwise(op @ (BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)),
        ) => {
            let order = x.as_str().cmp(y.as_str());
            Some(Ok(Value::bool(match op {
                BinaryOp::Lt => order.is_lt(),
                BinaryOp::Le => order.is_le(),
                BinaryOp::Gt => order.is_gt(),
                _ => order.is_ge(),
            })))
        }
        (Value::Str(_), _, BinOp::Elementwise(BinaryOp::Add)) | (_, Value::Str(_), BinOp::Elementwise(BinaryOp::Add)) => {
            Some(Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "can only concatenate str (not \"{}\") to str",
                    format::python_type(if matches!(a, Value::Str(_)) { b } else { a })
                ),
                help: Some("make it a string first: `\"loss: \" + str(x)`, or use an f-string: `f\"loss: {x}\"`".into()),
            }))
        }
        _ => None,
    }
}
