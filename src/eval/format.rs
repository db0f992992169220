//! Python's string formatting: `str()` of a value, the format-spec
//! mini-language (`f"{loss:>7f}"`, `"{:.2f}".format(x)`, `format(x, "5d")`)
//! and printf-style `%` (`"%d/%d" % (i, n)`), as CPython writes them. The
//! values come in with any one-element tensor already read (`Interp`
//! does that: a host read, as PyTorch's `Tensor.__format__` does with
//! `.item()`).

use super::show;
use super::value::Missing;
use super::Value;
use crate::error::Error;

/// Python's `str(v)`: a string as it is, `True`, `None`, a float's repr, a
/// list `[1, 'a']`, a tuple `(1, 'a')`; anything else as cudash shows it
/// (a tensor).
pub fn str_of(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        // `str(e)`: the message.
        Value::Exception(x) => x.message.clone(),
        Value::Object(o) => super::user_text::str_of(o).unwrap_or_else(|| repr_of(v)),
        Value::Module(m) => super::user_text::module_str(m).unwrap_or_else(|| repr_of(v)),
        // `cuda:0`; its repr is `device(type='cuda', index=0)`.
        Value::Device(_) | Value::CurrentCuda => show::repr(v),
        other => repr_of(other),
    }
}

/// Python's `repr(v)`: a string quoted (`'a'`).
pub fn repr_of(v: &Value) -> String {
    match v {
        Value::None => "None".into(),
        Value::Bool(b) => if b.get() { "True" } else { "False" }.into(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => show::float(x.get()),
        Value::Str(s) => quote(s),
        Value::Bytes(b) => show::bytes_repr(b),
        v if super::value::is_ellipsis(v) => "Ellipsis".into(),
        // `slice(1, 7, None)`.
        v if super::value::slice_bounds(v).is_some() => {
            let (a, b, c) = super::value::slice_bounds(v).unwrap_or_default();
            let part = |p: Option<i64>| p.map_or("None".to_string(), |i| i.to_string());
            format!("slice({}, {}, {})", part(a), part(b), part(c))
        }
        // A parameter group: its dict, as PyTorch's is one.
        Value::ParamGroup(g) => repr_of(&Value::Dict(super::param_group::group_dict(&g.0, g.1))),
        Value::Optimizer(o) => optimizer_repr(o),
        // A tuple as Python writes one: `(1, 'a')`, `(1,)`, `()`.
        Value::List(items) => match items.as_slice() {
            [one] => format!("({},)", repr_of(one)),
            _ => format!(
                "({})",
                items.iter().map(repr_of).collect::<Vec<_>>().join(", ")
            ),
        },
        Value::MutList(list) => show::once_inside(std::sync::Arc::as_ptr(list) as usize, || {
            let items = v.items().unwrap_or_default();
            format!(
                "[{}]",
                items.iter().map(repr_of).collect::<Vec<_>>().join(", ")
            )
        }),
        // `Counter({'a': 5, 'b': 2})`, its counts largest first, as
        // Python's `Counter.__repr__` writes them; `Counter()` empty.
        Value::Dict(pairs) if matches!(pairs.missing(), Some(Missing::Count)) => {
            match pairs.most_common(None) {
                Value::MutList(_) if pairs.is_empty() => "Counter()".into(),
                items => {
                    let parts: Vec<String> = items
                        .items()
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|kv| kv.items())
                        .map(|kv| format!("{}: {}", repr_of(&kv[0]), repr_of(&kv[1])))
                        .collect();
                    format!("Counter({{{}}})", parts.join(", "))
                }
            }
        }
        // `defaultdict(<class 'list'>, {'a': [1]})`.
        Value::Dict(pairs) if matches!(pairs.missing(), Some(Missing::Factory(_))) => {
            let factory = match pairs.missing() {
                Some(Missing::Factory(f)) => repr_of(f),
                _ => String::new(),
            };
            let plain = Value::Dict(super::value::PyDict::from_map((*pairs.items()).clone()));
            format!("defaultdict({factory}, {})", repr_of(&plain))
        }
        // `OrderedDict([('a', 1)])`, `OrderedDict()`: Python 3.11's repr.
        Value::Dict(pairs) if pairs.is_ordered() => {
            show::once_inside_as(pairs.addr(), "...", || match pairs.is_empty() {
                true => "OrderedDict()".into(),
                false => format!(
                    "OrderedDict([{}])",
                    pairs
                        .items()
                        .iter()
                        .map(|(k, v)| format!("({}, {})", repr_of(&k.value()), repr_of(v)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
        }
        // A dict that holds itself shows as `{...}` inside, as Python's.
        Value::Dict(pairs) => show::once_inside_as(pairs.addr(), "{...}", || {
            format!(
                "{{{}}}",
                pairs
                    .items()
                    .iter()
                    .map(|(k, v)| format!("{}: {}", repr_of(&k.value()), repr_of(v)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }),
        Value::Set(items) => show::set_text(items, |k| repr_of(&k.value())),
        Value::DictView(view) => view.text(&repr_of),
        Value::Size(items) => format!(
            "torch.Size([{}])",
            items.iter().map(repr_of).collect::<Vec<_>>().join(", ")
        ),
        Value::Tensor(t) => show::tensor_text(t),
        // In a Python program, PyTorch's `device(type='cuda', index=0)`.
        Value::Device(d) if super::python_text::pytorch_text() => match d.get() {
            crate::runtime::Device::Cuda(i) => format!("device(type='cuda', index={i})"),
            other => format!("device(type='{other}')"),
        },
        Value::CurrentCuda if super::python_text::pytorch_text() => "device(type='cuda')".into(),
        // `ValueError('x')`, `ValueError('bad', 3)`, `ValueError()`.
        Value::Exception(x) => format!(
            "{}({})",
            x.class.short_name(),
            x.args.iter().map(repr_of).collect::<Vec<_>>().join(", ")
        ),
        // `f"{x.dtype}"` is PyTorch's `torch.float32`.
        Value::DType(d) => d.get().pytorch_name().into(),
        Value::Object(o) if super::user_text::repr_of(o).is_some() => {
            super::user_text::repr_of(o).unwrap_or_default()
        }
        Value::Module(m) if super::user_text::module_repr(m).is_some() => {
            super::user_text::module_repr(m).unwrap_or_default()
        }
        Value::Object(o) if o.is_namespace() => o.namespace_text(&repr_of),
        Value::Object(o)
            if super::dataclass::is_dataclass(o) && o.class.find("__repr__").is_none() =>
        {
            super::dataclass::text(o, &repr_of)
        }
        other => show::repr(other),
    }
}

/// A string as Python's repr quotes it: single quotes unless it holds one
/// and no double quote.
fn quote(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            // Python's repr escapes what is not printable: `\x1b`, `\x00`,
            // `\x7f`, and the C1 controls; other characters stay as they are.
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// A parsed format spec: `[[fill]align][sign][z][#][0][width][,|_][.precision][type]`.
#[derive(Debug, Default, PartialEq)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    zero: bool,
    width: Option<usize>,
    grouping: Option<char>,
    precision: Option<usize>,
    kind: Option<char>,
}

fn bad_spec(spec: &str) -> Error {
    Error::value(format!("Invalid format specifier '{spec}'"))
}

fn parse_spec(spec: &str) -> Result<Spec, Error> {
    let chars: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && is_align(chars[1]) {
        s.fill = Some(chars[0]);
        s.align = Some(chars[1]);
        i = 2;
    } else if !chars.is_empty() && is_align(chars[0]) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if i < chars.len() && matches!(chars[i], '+' | '-' | ' ') {
        s.sign = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == 'z' {
        i += 1;
    }
    if i < chars.len() && chars[i] == '#' {
        s.alternate = true;
        i += 1;
    }
    if i < chars.len() && chars[i] == '0' {
        s.zero = true;
        i += 1;
    }
    let digits = |i: &mut usize| -> Option<usize> {
        let start = *i;
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
        (start < *i)
            .then(|| chars[start..*i].iter().collect::<String>().parse().ok())
            .flatten()
    };
    s.width = digits(&mut i);
    if i < chars.len() && matches!(chars[i], ',' | '_') {
        s.grouping = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == '.' {
        i += 1;
        s.precision =
            Some(digits(&mut i).ok_or_else(|| Error::value("Format specifier missing precision"))?);
    }
    if i < chars.len() {
        s.kind = Some(chars[i]);
        i += 1;
    }
    if i != chars.len() {
        return Err(bad_spec(spec));
    }
    Ok(s)
}

/// `format(v, spec)`: Python's `__format__` of an int, a float, a bool, a
/// string or None (the empty spec: `str(v)`).
pub fn format_value(v: &Value, spec: &str) -> Result<String, Error> {
    if spec.is_empty() {
        return Ok(str_of(v));
    }
    let s = parse_spec(spec)?;
    let (body, numeric) = match v {
        Value::Str(text) => {
            if s.kind.is_some_and(|k| k != 's') || s.sign.is_some() || s.grouping.is_some() {
                return Err(Error::value(format!(
                    "Unknown format code '{}' for object of type 'str'",
                    s.kind.unwrap_or('s')
                )));
            }
            let text: String = match s.precision {
                Some(p) => text.chars().take(p).collect(),
                None => text.to_string(),
            };
            (text, false)
        }
        Value::Int(_) | Value::Bool(_)
            if matches!(s.kind, None | Some('d' | 'n' | 'b' | 'o' | 'x' | 'X' | 'c')) =>
        {
            let i = match v {
                Value::Bool(b) => b.get() as i64,
                Value::Int(i) => *i,
                _ => 0,
            };
            if s.precision.is_some() {
                return Err(Error::value(
                    "Precision not allowed in integer format specifier",
                ));
            }
            (int_body(i, &s), true)
        }
        Value::Int(_) | Value::Bool(_) | Value::Float(_) => {
            let x = v.as_number().unwrap_or(0.0);
            (float_body(x, &s, spec)?, true)
        }
        other => {
            return Err(Error::type_error(format!(
                "unsupported format string passed to {}.__format__",
                python_type(other)
            )))
        }
    };
    Ok(pad(body, &s, numeric))
}

/// Python's name for a value's type, as its errors give it: an instance
/// of a class of the program's by its class (`'Net' object is not
/// iterable`), a builtin value by Python's name for it.
pub(super) fn python_type(v: &Value) -> std::borrow::Cow<'static, str> {
    if let Some(class) = super::value::class_of(v) {
        return class.short_name().to_string().into();
    }
    std::borrow::Cow::Borrowed(builtin_type(v))
}

/// Python's name for the type of a value that is not an instance of a
/// class (`object` for cudash's own kinds of value).
fn builtin_type(v: &Value) -> &'static str {
    match v {
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Bool(_) => "bool",
        Value::Str(_) => "str",
        Value::Bytes(_) => "bytes",
        Value::None => "NoneType",
        Value::Tensor(_) => "Tensor",
        Value::List(_) => "tuple",
        Value::MutList(_) => "list",
        Value::Dict(_) => "dict",
        Value::Set(s) if s.is_frozen() => "frozenset",
        Value::Set(_) => "set",
        Value::DictView(view) => view.python_type(),
        _ => "object",
    }
}

fn sign_of(negative: bool, s: &Spec) -> &'static str {
    match (negative, s.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    }
}

fn group(digits: &str, sep: Option<char>) -> String {
    let Some(sep) = sep else {
        return digits.to_string();
    };
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn int_body(i: i64, s: &Spec) -> String {
    let n = i.unsigned_abs();
    let (digits, prefix) = match s.kind {
        Some('b') => (format!("{n:b}"), "0b"),
        Some('o') => (format!("{n:o}"), "0o"),
        Some('x') => (format!("{n:x}"), "0x"),
        Some('X') => (format!("{n:X}"), "0X"),
        Some('c') => {
            return char::from_u32(i as u32)
                .map(String::from)
                .unwrap_or_default()
        }
        _ => (group(&n.to_string(), s.grouping), ""),
    };
    let prefix = if s.alternate { prefix } else { "" };
    format!("{}{prefix}{digits}", sign_of(i < 0, s))
}

fn float_body(x: f64, s: &Spec, spec: &str) -> Result<String, Error> {
    let negative = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    let upper = matches!(s.kind, Some('F' | 'E' | 'G'));
    let body = if !a.is_finite() {
        let t = if a.is_nan() { "nan" } else { "inf" };
        if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        }
    } else {
        match s.kind {
            Some('f' | 'F') => fixed(a, s.precision.unwrap_or(6), s.grouping),
            Some('e' | 'E') => {
                let t = show::exponent(a, s.precision.unwrap_or(6));
                if upper {
                    t.to_uppercase()
                } else {
                    t
                }
            }
            Some('%') => format!(
                "{}%",
                fixed(a * 100.0, s.precision.unwrap_or(6), s.grouping)
            ),
            Some('g' | 'G') => {
                let t = show::general(a, s.precision.unwrap_or(6), s.alternate);
                if upper {
                    t.to_uppercase()
                } else {
                    t
                }
            }
            None => match s.precision {
                // Python's `format(x, ".3")`: `g`, with at least one digit
                // after the point in fixed form (`3.0`).
                Some(p) => {
                    let t = show::general(a, p.max(1), s.alternate);
                    match t.contains(['.', 'e']) {
                        true => t,
                        false => t + ".0",
                    }
                }
                None => {
                    let r = show::float(a);
                    match s.grouping {
                        Some(g) => {
                            let (int, frac) = r.split_once('.').unwrap_or((&r, ""));
                            format!("{}.{frac}", group(int, Some(g)))
                        }
                        None => r,
                    }
                }
            },
            Some('d') => {
                return Err(Error::value(
                    "Unknown format code 'd' for object of type 'float'".to_string(),
                ))
            }
            Some(_) => return Err(bad_spec(spec)),
        }
    };
    Ok(format!("{}{body}", sign_of(negative, s)))
}

fn fixed(a: f64, precision: usize, grouping: Option<char>) -> String {
    let t = format!("{a:.precision$}");
    match grouping {
        Some(g) => {
            let (int, frac) = t
                .split_once('.')
                .map_or((t.as_str(), None), |(i, f)| (i, Some(f)));
            match frac {
                Some(f) => format!("{}.{f}", group(int, Some(g))),
                None => group(int, Some(g)),
            }
        }
        None => t,
    }
}

/// Pads `body` to the spec's width: numbers align right by default (and
/// `0` or `=` pads after the sign), strings left.
fn pad(body: String, s: &Spec, numeric: bool) -> String {
    let width = s.width.unwrap_or(0);
    let len = body.chars().count();
    if len >= width {
        return body;
    }
    let (fill, align) = match (s.fill, s.align, s.zero) {
        (Some(f), Some(a), _) => (f, a),
        (None, Some(a), true) if numeric => ('0', a),
        (None, Some(a), _) => (' ', a),
        (_, None, true) if numeric => ('0', '='),
        (_, None, _) => (' ', if numeric { '>' } else { '<' }),
    };
    let n = width - len;
    let fills = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    match align {
        '<' => body + &fills(n),
        '^' => format!("{}{body}{}", fills(n / 2), fills(n - n / 2)),
        '=' => {
            let cut = body
                .char_indices()
                .find(|(_, c)| !matches!(c, '+' | '-' | ' '))
                .map_or(0, |(i, _)| i);
            // After a `0x` prefix too.
            let cut = match &body[cut..] {
                r if r.starts_with("0x")
                    || r.starts_with("0X")
                    || r.starts_with("0b")
                    || r.starts_with("0o") =>
                {
                    cut + 2
                }
                _ => cut,
            };
            format!("{}{}{}", &body[..cut], fills(n), &body[cut..])
        }
        _ => fills(n) + &body,
    }
}

/// `fmt % args`: printf-style formatting; `args` is a tuple or one value.
pub fn percent(fmt: &str, args: &Value) -> Result<String, Error> {
    let items: Vec<Value> = match args {
        Value::List(items) => items.to_vec(),
        other => vec![other.clone()],
    };
    let mut next = items.iter();
    let mut mapped = false;
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // %[(key)][flags][width][.precision]type
        let key = match chars.peek() {
            Some('(') => {
                chars.next();
                let k = take_while(&mut chars, |c| c != ')');
                if chars.next() != Some(')') {
                    return Err(Error::value("incomplete format key"));
                }
                Some(k)
            }
            None | Some(_) => None,
        };
        let flags = take_while(&mut chars, |c| matches!(c, '-' | '+' | ' ' | '0' | '#'));
        let width = take_while(&mut chars, |c| c.is_ascii_digit());
        let mut precision = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            precision = Some(take_while(&mut chars, |c| c.is_ascii_digit()));
        }
        let kind = chars
            .next()
            .ok_or_else(|| Error::value("incomplete format"))?;
        if kind == '%' {
            out.push('%');
            continue;
        }
        let keyed;
        let v = match (&key, args) {
            (Some(k), Value::Dict(d)) => {
                keyed =
                    d.get(&super::value::Key::from(k.as_str()))
                        .ok_or_else(|| Error::Module {
                            class: "KeyError",
                            message: format!("'{k}'"),
                            help: None,
                        })?;
                mapped = true;
                &keyed
            }
            (Some(_), _) => {
                return Err(Error::Module {
                    class: "TypeError",
                    message: "format requires a mapping".into(),
                    help: None,
                })
            }
            (None, _) => next
                .next()
                .ok_or_else(|| Error::value("not enough arguments for format string"))?,
        };
        let text = match kind {
            's' | 'r' => {
                let t = if kind == 's' { str_of(v) } else { repr_of(v) };
                let t: String = match &precision {
                    Some(p) => t.chars().take(p.parse().unwrap_or(0)).collect(),
                    None => t,
                };
                let w: usize = width.parse().unwrap_or(0);
                let n = t.chars().count();
                match (n < w, flags.contains('-')) {
                    (true, true) => t + &" ".repeat(w - n),
                    (true, false) => " ".repeat(w - n) + &t,
                    _ => t,
                }
            }
            'd' | 'i' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'x' | 'X' | 'o' => {
                let number = match v {
                    Value::Int(_) | Value::Bool(_) | Value::Float(_) => v.clone(),
                    // A one-element tensor's number (`float(t)`, `int(t)`),
                    // read under the caller's host read.
                    Value::Tensor(t) if t.numel() == 1 && !t.device().is_meta() => number_of(t),
                    other => {
                        return Err(Error::value(format!(
                            "%{kind} format: a real number is required, not {}",
                            python_type(other)
                        )))
                    }
                };
                let number = match (kind, &number) {
                    ('d' | 'i' | 'x' | 'X' | 'o', Value::Float(x)) => {
                        Value::Int(x.get().trunc() as i64)
                    }
                    _ => number,
                };
                let align = if flags.contains('-') { "<" } else { "" };
                let sign = if flags.contains('+') {
                    "+"
                } else if flags.contains(' ') {
                    " "
                } else {
                    ""
                };
                let alt = if flags.contains('#') { "#" } else { "" };
                let zero = if flags.contains('0') && align.is_empty() {
                    "0"
                } else {
                    ""
                };
                let kind = match kind {
                    'i' => 'd',
                    k => k,
                };
                let precision = precision
                    .map(|p| format!(".{}", if p.is_empty() { "0" } else { &p }))
                    .unwrap_or_default();
                let precision = if matches!(kind, 'd' | 'x' | 'X' | 'o') {
                    String::new()
                } else {
                    precision
                };
                format_value(
                    &number,
                    &format!("{align}{sign}{alt}{zero}{width}{precision}{kind}"),
                )?
            }
            other => {
                return Err(Error::value(format!(
                    "unsupported format character '{other}'"
                )))
            }
        };
        out.push_str(&text);
    }
    // A mapping's values are taken by key, not in turn.
    if next.next().is_some() && !mapped && !matches!(args, Value::Dict(_)) {
        return Err(Error::value(
            "not all arguments converted during string formatting",
        ));
    }
    Ok(out)
}

/// The characters from `chars` while `keep` takes them.
fn take_while(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    keep: impl Fn(char) -> bool,
) -> String {
    let mut out = String::new();
    while let Some(&c) = chars.peek().filter(|&&c| keep(c)) {
        out.push(c);
        chars.next();
    }
    out
}

/// `fmt.format(*args, **kwargs)`: `{}` and `{0}` take the arguments in
/// turn or by number, `{name}` by keyword; `{x:spec}` and `{x!r}` as in an
/// f-string; `{{` and `}}` are braces.
pub fn str_format(fmt: &str, args: &[Value], kwargs: &[(String, Value)]) -> Result<String, Error> {
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut auto = 0usize;
    let mut rest = fmt;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let c = rest.as_bytes()[i];
        let after = &rest[i + 1..];
        if after.as_bytes().first() == Some(&c) {
            out.push(c as char);
            rest = &after[1..];
            continue;
        }
        if c == b'}' {
            return Err(Error::value("Single '}' encountered in format string"));
        }
        let end = after
            .find('}')
            .ok_or_else(|| Error::value("Single '{' encountered in format string"))?;
        let field = &after[..end];
        rest = &after[end + 1..];
        let (name, spec) = field.split_once(':').unwrap_or((field, ""));
        let (name, conv) = match name.split_once('!') {
            Some((n, c)) => (n, Some(c)),
            None => (name, None),
        };
        // `{0.shape}`, `{x[0]}`: attribute and index paths are not read here.
        if name.contains(['.', '[']) {
            return Err(Error::value(format!(
                "cudash's format() takes `{{}}`, `{{0}}` and `{{name}}` fields, not `{{{name}}}`: compute it first, or use an f-string"
            )));
        }
        let v = if name.is_empty() {
            let v = args.get(auto).ok_or_else(|| {
                Error::value(format!(
                    "Replacement index {auto} out of range for positional args tuple"
                ))
            })?;
            auto += 1;
            v
        } else if let Ok(k) = name.parse::<usize>() {
            args.get(k).ok_or_else(|| {
                Error::value(format!(
                    "Replacement index {k} out of range for positional args tuple"
                ))
            })?
        } else {
            &kwargs
                .iter()
                .find(|(k, _)| k == name)
                .ok_or_else(|| Error::value(format!("KeyError: '{name}'")))?
                .1
        };
        out.push_str(&convert_and_format(v, conv, spec)?);
    }
    if rest.contains('}') {
        return Err(Error::value("Single '}' encountered in format string"));
    }
    out.push_str(rest);
    Ok(out)
}

/// A one-element tensor's number as Python's (`t.item()`): a bool, an int
/// or a float. The caller holds the host read.
fn number_of(t: &crate::runtime::Tensor) -> Value {
    match t.dtype() {
        crate::runtime::DType::Bool => Value::bool(t.to_vec::<bool>()[0]),
        d if d.is_int() => Value::Int(t.to_vec::<i64>()[0]),
        _ => Value::float(t.to_vec::<f64>()[0]),
    }
}

/// `{v!r:spec}`: the conversion (`!s`, `!r`), then the spec.
pub fn convert_and_format(v: &Value, conv: Option<&str>, spec: &str) -> Result<String, Error> {
    match conv {
        // PyTorch's `Tensor.__format__`: a 0-d tensor formats its number
        // (read under the caller's host read).
        None => match v {
            Value::Tensor(t) if t.ndim() == 0 && !t.device().is_meta() => {
                format_value(&number_of(t), spec)
            }
            _ => format_value(v, spec),
        },
        Some("s") => format_value(&Value::Str(std::sync::Arc::new(str_of(v))), spec),
        Some("r") | Some("a") => format_value(&Value::Str(std::sync::Arc::new(repr_of(v))), spec),
        Some(c) => Err(Error::value(format!("Unknown conversion specifier {c}"))),
    }
}

/// `print(optimizer)` in a Python program, as PyTorch's `Optimizer.__repr__`:
/// the class, then each group's settings by sorted name (not its params).
fn optimizer_repr(
    o: &std::sync::Arc<std::sync::Mutex<crate::autograd::optim::Optimizer>>,
) -> String {
    let (name, groups) = {
        let opt = crate::runtime::lock::lock(o);
        (opt.name(), opt.groups.len())
    };
    let mut out = format!("{name} (");
    for g in 0..groups {
        out.push_str(&format!("\nParameter Group {g}\n"));
        let dict = super::param_group::group_dict(o, g);
        let mut items: Vec<(String, Value)> = dict
            .items()
            .iter()
            .filter(|(k, _)| *k != "params")
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        items.sort_by(|a, b| a.0.cmp(&b.0));
        for (k, v) in items {
            out.push_str(&format!("    {k}: {}\n", str_of(&v)));
        }
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: Value, spec: &str) -> String {
        format_value(&v, spec).unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn floats_repr_as_python() {
        for (x, want) in [
            (0.1, "0.1"),
            (2.0, "2.0"),
            (4e-6, "4e-06"),
            (1e-4, "0.0001"),
            (1e16, "1e+16"),
            (1.5e15, "1500000000000000.0"),
            (123.456, "123.456"),
            (-0.0, "-0.0"),
            (1.0 / 3.0, "0.3333333333333333"),
            (2.5e-10, "2.5e-10"),
        ] {
            assert_eq!(show::float(x), want, "{x}");
        }
    }

    #[test]
    fn specs_as_python() {
        // The quickstart's and the MNIST example's formats.
        assert_eq!(f(Value::float(2.3021), ">7f"), "2.302100");
        assert_eq!(f(Value::float(0.5), ">7f"), "0.500000");
        assert_eq!(f(Value::Int(64), ">5d"), "   64");
        assert_eq!(f(Value::float(45.67), ">0.1f"), "45.7");
        assert_eq!(f(Value::float(1.23456), ".4f"), "1.2346");
        assert_eq!(f(Value::float(0.000123), ".2e"), "1.23e-04");
        assert_eq!(f(Value::float(1234.5), ",.1f"), "1,234.5");
        assert_eq!(f(Value::float(0.256), ".1%"), "25.6%");
        assert_eq!(f(Value::float(0.0001234), "g"), "0.0001234");
        assert_eq!(f(Value::float(123456789.0), "g"), "1.23457e+08");
        assert_eq!(f(Value::float(3.0), ".3"), "3.0");
        assert_eq!(f(Value::Int(5), "03d"), "005");
        assert_eq!(f(Value::Int(-5), "05d"), "-0005");
        assert_eq!(f(Value::Int(255), "#x"), "0xff");
        assert_eq!(f(Value::Int(7), "f"), "7.000000");
        assert_eq!(f(Value::Int(1234567), ","), "1,234,567");
        assert_eq!(
            f(Value::Str(std::sync::Arc::new("ab".to_string())), "<5"),
            "ab   "
        );
        assert_eq!(
            f(Value::Str(std::sync::Arc::new("ab".to_string())), "*^6"),
            "**ab**"
        );
        assert_eq!(
            f(Value::Str(std::sync::Arc::new("ab".to_string())), ">4"),
            "  ab"
        );
        assert_eq!(f(Value::float(2.5), "+.1f"), "+2.5");
        assert!(f(Value::float(2.5), "d").starts_with("error"));
        assert!(f(Value::None, ".2f").starts_with("error"));
    }

    #[test]
    fn percent_and_format_as_python() {
        let t = |items: Vec<Value>| Value::List(std::sync::Arc::new(items));
        assert_eq!(
            percent(
                "%d/%d (%.0f%%)",
                &t(vec![Value::Int(3), Value::Int(4), Value::float(75.0)])
            )
            .unwrap(),
            "3/4 (75%)"
        );
        assert_eq!(
            percent("loss %.4f", &Value::float(0.12345)).unwrap(),
            "loss 0.1235"
        );
        assert_eq!(
            percent(
                "%5s|%-5s|",
                &t(vec![
                    Value::Str(std::sync::Arc::new("a".to_string())),
                    Value::Str(std::sync::Arc::new("b".to_string()))
                ])
            )
            .unwrap(),
            "    a|b    |"
        );
        assert_eq!(percent("%s", &Value::bool(true)).unwrap(), "True");
        assert!(percent("%d %d", &Value::Int(1)).is_err());
        assert_eq!(
            str_format(
                "{} {:.2f} {x} {{}} {0!r}",
                &[
                    Value::Str(std::sync::Arc::new("a".to_string())),
                    Value::float(1.0)
                ],
                &[("x".into(), Value::Int(3))]
            )
            .unwrap(),
            "a 1.00 3 {} 'a'"
        );
    }
}
