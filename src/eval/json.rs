//! Python's `json`: `dumps`/`dump` write a value as JSON text as Python's
//! encoder writes it (`", "` and `": "` between items, or `indent`'s lines
//! with `","`; `sort_keys`; floats as Python's `repr`; `NaN`, `Infinity`;
//! non-ASCII escaped unless `ensure_ascii=False`), and `loads`/`load` read
//! JSON into dicts (in the text's order), lists, strings, ints, floats,
//! booleans and None, as Python's decoder does (`NaN` and `Infinity`
//! too), with its messages for bad text.

use std::sync::Arc;

use super::args::ArgVal;
use super::value::{Key, PyDict};
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::lang::Span;

/// What `dumps` is asked for.
struct Style {
    indent: Option<String>,
    item_sep: String,
    key_sep: String,
    sort_keys: bool,
    ascii: bool,
}

fn type_error(message: String) -> Error {
    Error::type_error(message)
}

impl Interp {
    /// `json.dumps`, `json.dump`, `json.loads`, `json.load`.
    pub(super) fn call_json(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let (pos, kw): (Vec<&ArgVal>, Vec<&ArgVal>) =
            args.iter().partition(|a| a.keyword.is_none());
        let keyword = |k: &str| {
            kw.iter()
                .find(|a| a.keyword.as_ref().is_some_and(|n| n.name == k))
                .map(|a| (a.value.clone(), a.span))
        };
        let first = |what: &str| {
            pos.first()
                .map(|a| (a.value.clone(), a.span))
                .or_else(|| keyword(what))
                .ok_or_else(|| Error::value(format!("{name}() needs `{what}`")).at(span))
        };
        match name {
            "json.loads" => {
                let (s, at) = first("s")?;
                let Value::Str(text) = s else {
                    return Err(type_error(format!(
                        "the JSON object must be str, bytes or bytearray, not {}",
                        super::format::python_type(&s)
                    ))
                    .at(at));
                };
                parse(&text).map_err(|e| e.at(at))
            }
            "json.load" => {
                let (f, at) = first("fp")?;
                let read = Name::new("read".into(), at);
                let text = self.call_method(f, &read, Vec::new(), at)?;
                let Value::Str(text) = text else {
                    return Err(type_error("the file gave no text to read".into()).at(at));
                };
                parse(&text).map_err(|e| e.at(at))
            }
            _ => {
                let (obj, _) = first("obj")?;
                // `default=f`: what is no JSON value is written as `f(value)`.
                let obj = match keyword("default") {
                    None | Some((Value::None, _)) => obj,
                    Some((f, at)) => self.json_ready(obj, &f, at, 0)?,
                };
                let style = style(&keyword)?;
                let mut out = String::new();
                write(&obj, &style, 0, &mut out).map_err(|e| e.at(span))?;
                if name == "json.dumps" {
                    return Ok(Value::Str(Arc::new(out)));
                }
                let (f, at) = pos
                    .get(1)
                    .map(|a| (a.value.clone(), a.span))
                    .or_else(|| keyword("fp"))
                    .ok_or_else(|| {
                        Error::value("json.dump() needs a file: `json.dump(obj, f)`").at(span)
                    })?;
                let text = ArgVal {
                    keyword: None,
                    value: Value::Str(Arc::new(out)),
                    span: at,
                };
                let write = Name::new("write".into(), at);
                self.call_method(f, &write, vec![text], at)?;
                Ok(Value::None)
            }
        }
    }
}

impl Interp {
    /// `v` with each value JSON has no form for replaced by `default(value)`
    /// (itself made ready in turn), as `json.dumps(default=...)` does.
    fn json_ready(
        &mut self,
        v: Value,
        default: &Value,
        at: Span,
        depth: usize,
    ) -> Result<Value, Diagnostic> {
        if depth > 100 {
            return Err(Error::Module {
                class: "ValueError",
                message: "Circular reference detected".into(),
                help: None,
            }
            .at(at));
        }
        Ok(match v {
            Value::None | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => v,
            Value::Dict(d) => {
                let mut pairs = Vec::with_capacity(d.len());
                for (k, x) in d.items().iter() {
                    pairs.push((
                        k.clone(),
                        self.json_ready(x.clone(), default, at, depth + 1)?,
                    ));
                }
                Value::Dict(super::value::PyDict::new(pairs))
            }
            Value::List(_) | Value::MutList(_) => {
                let items = v.items().unwrap_or_default();
                let mut out = Vec::with_capacity(items.len());
                for x in items.iter() {
                    out.push(self.json_ready(x.clone(), default, at, depth + 1)?);
                }
                Value::list(out)
            }
            other => {
                let made =
                    self.call_value(default.clone(), vec![ArgVal::positional(other, at)], at)?;
                self.json_ready(made, default, at, depth + 1)?
            }
        })
    }
}

/// `indent`, `separators`, `sort_keys`, `ensure_ascii` as `dumps` reads them.
fn style(keyword: &dyn Fn(&str) -> Option<(Value, Span)>) -> Result<Style, Diagnostic> {
    let indent = match keyword("indent") {
        None | Some((Value::None, _)) => None,
        Some((Value::Int(n), _)) => Some(" ".repeat(n.max(0) as usize)),
        Some((Value::Str(s), _)) => Some(s.to_string()),
        Some((v, at)) => {
            return Err(Error::wrong_type("indent", "an int or a string", v.type_name()).at(at))
        }
    };
    let (mut item_sep, mut key_sep) = match indent {
        Some(_) => (",".to_string(), ": ".to_string()),
        None => (", ".to_string(), ": ".to_string()),
    };
    if let Some((v, at)) = keyword("separators") {
        match v.items().as_deref().map(Vec::as_slice) {
            Some([Value::Str(i), Value::Str(k)]) => {
                item_sep = i.to_string();
                key_sep = k.to_string();
            }
            _ if matches!(v, Value::None) => {}
            _ => {
                return Err(
                    Error::wrong_type("separators", "a pair of strings", v.type_name()).at(at),
                )
            }
        }
    }
    let flag = |k: &str, default: bool| match keyword(k) {
        Some((Value::Bool(b), _)) => b.get(),
        _ => default,
    };
    Ok(Style {
        indent,
        item_sep,
        key_sep,
        sort_keys: flag("sort_keys", false),
        ascii: flag("ensure_ascii", true),
    })
}

/// `v` as JSON text at nesting `level`.
fn write(v: &Value, style: &Style, level: usize, out: &mut String) -> Result<(), Error> {
    match v {
        Value::None => out.push_str("null"),
        Value::Bool(b) => out.push_str(if b.get() { "true" } else { "false" }),
        Value::Int(n) => out.push_str(&n.to_string()),
        Value::Float(x) => out.push_str(&number(x.get())),
        Value::Str(s) => string(s, style.ascii, out),
        Value::Dict(d) => {
            let mut pairs: Vec<(String, Value)> = Vec::new();
            for (k, v) in d.items().iter() {
                pairs.push((key_text(&k.value())?, v.clone()));
            }
            if style.sort_keys {
                pairs.sort_by(|a, b| a.0.cmp(&b.0));
            }
            if pairs.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            for (i, (k, v)) in pairs.iter().enumerate() {
                separate(i, style, level + 1, out);
                string(k, style.ascii, out);
                out.push_str(&style.key_sep);
                write(v, style, level + 1, out)?;
            }
            close(style, level, out);
            out.push('}');
        }
        other => {
            let Some(items) = other.items() else {
                let name = match other {
                    Value::Tensor(_) => "Tensor".into(),
                    // A layer of PyTorch's; one of the program's by its class.
                    Value::Module(_) if super::value::class_of(other).is_none() => "Module".into(),
                    o => super::format::python_type(o),
                };
                return Err(type_error(format!(
                    "Object of type {name} is not JSON serializable"
                )));
            };
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                separate(i, style, level + 1, out);
                write(item, style, level + 1, out)?;
            }
            close(style, level, out);
            out.push(']');
        }
    }
    Ok(())
}

/// Before item `i` of a container at `level`: the item separator, and
/// with `indent` a new line.
fn separate(i: usize, style: &Style, level: usize, out: &mut String) {
    match &style.indent {
        Some(pad) => {
            if i > 0 {
                out.push_str(&style.item_sep);
            }
            out.push('\n');
            out.push_str(&pad.repeat(level));
        }
        None if i > 0 => out.push_str(&style.item_sep),
        None => {}
    }
}

fn close(style: &Style, level: usize, out: &mut String) {
    if let Some(pad) = &style.indent {
        out.push('\n');
        out.push_str(&pad.repeat(level));
    }
}

/// A float as Python's encoder writes it.
fn number(x: f64) -> String {
    match x {
        x if x.is_nan() => "NaN".into(),
        f64::INFINITY => "Infinity".into(),
        f64::NEG_INFINITY => "-Infinity".into(),
        x => super::show::float(x),
    }
}

/// A dict key as JSON's string: Python turns numbers, booleans and None
/// into their JSON text.
fn key_text(k: &Value) -> Result<String, Error> {
    Ok(match k {
        Value::Str(s) => s.to_string(),
        Value::Int(n) => n.to_string(),
        Value::Float(x) => number(x.get()),
        Value::Bool(b) => (if b.get() { "true" } else { "false" }).into(),
        Value::None => "null".into(),
        other => {
            return Err(type_error(format!(
                "keys must be str, int, float, bool or None, not {}",
                super::format::python_type(other)
            )))
        }
    })
}

/// A JSON string literal of `s`.
fn string(s: &str, ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (ascii && !c.is_ascii()) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// JSON text as values, or Python's `JSONDecodeError` (a ValueError:
/// `except ValueError` catches it, as it catches Python's).
fn parse(text: &str) -> Result<Value, Error> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = Parser { s: &chars, at: 0 };
    p.space();
    let v = p.value()?;
    p.space();
    if p.at < chars.len() {
        return Err(p.fail("Extra data"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [char],
    at: usize,
}

impl Parser<'_> {
    fn fail(&self, what: &str) -> Error {
        let before = &self.s[..self.at.min(self.s.len())];
        let line = before.iter().filter(|&&c| c == '\n').count() + 1;
        let col = match before.iter().rposition(|&c| c == '\n') {
            Some(nl) => self.at - nl,
            None => self.at + 1,
        };
        Error::Module {
            class: "JSONDecodeError",
            message: format!("{what}: line {line} column {col} (char {})", self.at),
            help: None,
        }
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.at += 1;
        }
    }

    fn word(&mut self, w: &str) -> bool {
        let n = w.chars().count();
        if self.s.len() >= self.at + n && self.s[self.at..self.at + n].iter().copied().eq(w.chars())
        {
            self.at += n;
            return true;
        }
        false
    }

    fn value(&mut self) -> Result<Value, Error> {
        match self.peek() {
            Some('{') => self.object(),
            Some('[') => self.array(),
            Some('"') => Ok(Value::Str(Arc::new(self.string()?))),
            _ if self.word("null") => Ok(Value::None),
            _ if self.word("true") => Ok(Value::bool(true)),
            _ if self.word("false") => Ok(Value::bool(false)),
            _ if self.word("NaN") => Ok(Value::float(f64::NAN)),
            _ if self.word("Infinity") => Ok(Value::float(f64::INFINITY)),
            _ if self.word("-Infinity") => Ok(Value::float(f64::NEG_INFINITY)),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            _ => Err(self.fail("Expecting value")),
        }
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.at;
        let digits = |p: &mut Parser| {
            let from = p.at;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.at += 1;
            }
            p.at > from
        };
        if self.peek() == Some('-') {
            self.at += 1;
        }
        if !digits(self) {
            self.at = start;
            return Err(self.fail("Expecting value"));
        }
        let mut float = false;
        if self.peek() == Some('.') && self.s.get(self.at + 1).is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
            digits(self);
            float = true;
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let mark = self.at;
            self.at += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.at += 1;
            }
            match digits(self) {
                true => float = true,
                false => self.at = mark,
            }
        }
        let text: String = self.s[start..self.at].iter().collect();
        match float {
            false => match text.parse::<i64>() {
                Ok(n) => Ok(Value::Int(n)),
                Err(_) => Ok(Value::float(text.parse::<f64>().unwrap_or(f64::NAN))),
            },
            true => Ok(Value::float(text.parse::<f64>().unwrap_or(f64::NAN))),
        }
    }

    fn string(&mut self) -> Result<String, Error> {
        let start = self.at;
        self.at += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                self.at = start;
                return Err(self.fail("Unterminated string starting at"));
            };
            self.at += 1;
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let e = self.peek();
                    self.at += 1;
                    match e {
                        Some('"') => out.push('"'),
                        Some('\\') => out.push('\\'),
                        Some('/') => out.push('/'),
                        Some('b') => out.push('\u{8}'),
                        Some('f') => out.push('\u{c}'),
                        Some('n') => out.push('\n'),
                        Some('r') => out.push('\r'),
                        Some('t') => out.push('\t'),
                        Some('u') => {
                            let unit = self.hex4()?;
                            let c = match (0xD800..0xDC00).contains(&unit) && self.word("\\u") {
                                true => {
                                    let low = self.hex4()?;
                                    char::from_u32(
                                        0x10000
                                            + ((unit - 0xD800) << 10)
                                            + (low.wrapping_sub(0xDC00) & 0x3FF),
                                    )
                                }
                                false => char::from_u32(unit),
                            };
                            out.push(c.unwrap_or('\u{FFFD}'));
                        }
                        _ => {
                            self.at -= 1;
                            return Err(self.fail("Invalid \\escape"));
                        }
                    }
                }
                c if (c as u32) < 0x20 => {
                    self.at -= 1;
                    return Err(self.fail("Invalid control character at"));
                }
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let end = self.at + 4;
        let text: String = self
            .s
            .get(self.at..end)
            .map(|h| h.iter().collect())
            .unwrap_or_default();
        match u32::from_str_radix(&text, 16) {
            Ok(u) if text.len() == 4 => {
                self.at = end;
                Ok(u)
            }
            _ => Err(self.fail("Invalid \\uXXXX escape")),
        }
    }

    fn array(&mut self) -> Result<Value, Error> {
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.peek() == Some(']') {
            self.at += 1;
            return Ok(Value::list(items));
        }
        loop {
            self.space();
            items.push(self.value()?);
            self.space();
            match self.peek() {
                Some(',') => self.at += 1,
                Some(']') => {
                    self.at += 1;
                    return Ok(Value::list(items));
                }
                _ => return Err(self.fail("Expecting ',' delimiter")),
            }
        }
    }

    fn object(&mut self) -> Result<Value, Error> {
        self.at += 1;
        let mut pairs: Vec<(Key, Value)> = Vec::new();
        self.space();
        if self.peek() == Some('}') {
            self.at += 1;
            return Ok(Value::Dict(PyDict::new(pairs)));
        }
        loop {
            self.space();
            if self.peek() != Some('"') {
                return Err(self.fail("Expecting property name enclosed in double quotes"));
            }
            let k = self.string()?;
            self.space();
            if self.peek() != Some(':') {
                return Err(self.fail("Expecting ':' delimiter"));
            }
            self.at += 1;
            self.space();
            let v = self.value()?;
            // A repeated key keeps its first place and takes the last value.
            match pairs.iter_mut().find(|(n, _)| *n == Key::Str(k.clone())) {
                Some(slot) => slot.1 = v,
                None => pairs.push((Key::Str(k), v)),
            }
            self.space();
            match self.peek() {
                Some(',') => self.at += 1,
                Some('}') => {
                    self.at += 1;
                    return Ok(Value::Dict(PyDict::new(pairs)));
                }
                _ => return Err(self.fail("Expecting ',' delimiter")),
            }
        }
    }
}
