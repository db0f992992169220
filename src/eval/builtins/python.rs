//! Python's own builtins a training script calls: `str`, `repr`,
//! `format`, `int`, `float`, `zip`, `sorted`, `any`, `all`, `tuple`,
//! `dict`, and Python's `sum`, `max`, `min`, `abs` and `round` of numbers
//! and lists (the same names on a tensor are PyTorch's, `math.rs`).

use crate::eval::value::PyDict;
use std::sync::Arc;

use super::super::args::{ArgVal, Bound};
use super::super::value::Key;
use super::super::{format, Interp, Value};
use crate::error::{Diagnostic, Error};

fn text(s: String) -> Value {
    Value::Str(Arc::new(s))
}

/// `str(x)`, `repr(x)`: Python's text of a value (a tensor as cudash shows it).
pub(super) fn str_or_repr(
    me: &mut Interp,
    name: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let v = b
        .get("object")
        .map_or(text(String::new()), |(v, _)| v.clone());
    // `str(b, "utf-8")`: bytes decoded, as `b.decode("utf-8")`.
    if name == "str" {
        if let Some(encoding) = b.str("encoding")? {
            let Value::Bytes(bytes) = &v else {
                return Err(
                    crate::error::Error::type_error("decoding str is not supported").at(b.span),
                );
            };
            let errors = b.str("errors")?.unwrap_or_else(|| "strict".into());
            let decoded =
                crate::eval::bytes::decode(bytes, &encoding, &errors).map_err(|e| e.at(b.span))?;
            return Ok(text(decoded));
        }
    }
    let values = [&v];
    let s = me
        .host_read(&values, || match name {
            "repr" => format::repr_of(&v),
            _ => format::str_of(&v),
        })
        .map_err(|e| e.at(b.span))?;
    Ok(text(s))
}

/// `bytes(source=b"", encoding=None, errors="strict")`: Python's bytes of
/// a count, a list of ints, a string in an encoding, or bytes.
pub(super) fn bytes_builtin(
    _: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let source = b.get("source").map(|(v, _)| v);
    let encoding = b.str("encoding")?;
    let made =
        crate::eval::bytes::construct(source, encoding.as_deref()).map_err(|e| e.at(b.span))?;
    Ok(Value::Bytes(std::sync::Arc::new(made)))
}

/// `slice(stop)`, `slice(start, stop, step=None)`: Python's slice, what
/// `x[s]` indexes with as `x[start:stop:step]` does.
pub(super) fn slice_builtin(
    _: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let part = |name: &str| -> Result<Option<i64>, Diagnostic> {
        match b.get(name) {
            None | Some((Value::None, _)) => Ok(None),
            Some((Value::Int(i), _)) => Ok(Some(*i)),
            Some((Value::Bool(x), _)) => Ok(Some(x.get() as i64)),
            Some((other, span)) => Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "slice indices must be integers or None, not {}",
                    format::python_type(other)
                ),
                help: None,
            }
            .at(*span)),
        }
    };
    let (start, stop, step) = match b.get("stop") {
        None => (None, part("start")?, None),
        Some(_) => (part("start")?, part("stop")?, part("step")?),
    };
    Ok(crate::eval::value::slice_value(start, stop, step))
}

/// `format(value, spec)`: Python's format-spec mini-language.
pub(super) fn format_builtin(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let v = b.get("value").map_or(Value::None, |(v, _)| v.clone());
    let spec = b.str("format_spec")?.unwrap_or_default();
    me.formatted(&v, None, &spec)
        .map(text)
        .map_err(|e| e.at(b.span))
}

/// `int(x)` and `float(x)`: a number, a string of one, or a tensor of one
/// element (a host read, as Python's `int(t)` calls `t.item()`).
pub(super) fn number(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let Some((mut v, span)) = b.get("x").cloned() else {
        return Ok(match name {
            "int" => Value::Int(0),
            _ => Value::float(0.0),
        });
    };
    let at = |e: Error| e.at(span);
    // An instance's `__int__` (or `__index__`), `__float__`: an IntEnum's.
    if let Value::Object(o) = &v {
        let methods: &[&str] = match name {
            "int" => &["__int__", "__index__"],
            _ => &["__float__", "__index__"],
        };
        if let Some(f) = methods.iter().find_map(|m| match o.class.find(m) {
            Some(Value::Function(f)) => Some(f),
            _ => None,
        }) {
            v = me.call_bound(&v, f, Vec::new(), span)?;
        }
    }
    let v = me.one_element_value(v).map_err(at)?;
    let bad = |v: &Value| {
        Error::Module {
            class: "TypeError",
            message: format!(
                "{name}() argument must be a string or a real number, not '{}'",
                format::python_type(v)
            ),
            help: None,
        }
        .at(span)
    };
    match (name, &v) {
        ("int", Value::Int(_)) => Ok(v),
        ("int", Value::Bool(x)) => Ok(Value::Int(x.get() as i64)),
        ("int", Value::Float(x)) => {
            let x = x.get();
            if !x.is_finite() {
                return Err(at(Error::value(format!(
                    "cannot convert float {} to integer",
                    super::super::show::float(x)
                ))));
            }
            Ok(Value::Int(x.trunc() as i64))
        }
        ("int", Value::Str(s)) => {
            let base = match b.get("base").map(|(v, _)| v) {
                None | Some(Value::None) => 10,
                Some(Value::Int(n)) if *n == 0 || (2..=36).contains(n) => *n as u32,
                Some(_) => return Err(at(Error::value("int() base must be >= 2 and <= 36, or 0"))),
            };
            let t = s.trim().replace('_', "");
            let (negative, digits) = match t.strip_prefix('-') {
                Some(rest) => (true, rest.to_string()),
                None => (false, t.trim_start_matches('+').to_string()),
            };
            // A `0x`/`0o`/`0b` prefix: its base (base 0), or allowed in it.
            let lower = digits.to_ascii_lowercase();
            let prefixed = [("0x", 16), ("0o", 8), ("0b", 2)]
                .into_iter()
                .find(|(p, _)| lower.starts_with(p));
            let (base, digits) = match (base, prefixed) {
                (0, Some((p, radix))) | (_, Some((p, radix))) if base == 0 || base == radix => {
                    (radix, &digits[p.len()..])
                }
                (0, _) => (10, digits.as_str()),
                (b, _) => (b, digits.as_str()),
            };
            i64::from_str_radix(digits, base)
                .map(|n| Value::Int(if negative { -n } else { n }))
                .map_err(|_| {
                    at(Error::value(format!(
                        "invalid literal for int() with base {base}: {}",
                        format::repr_of(&v)
                    )))
                })
        }
        (_, Value::Str(s)) => {
            let t = s.trim().to_lowercase();
            let x = match t.as_str() {
                "inf" | "+inf" | "infinity" => Some(f64::INFINITY),
                "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
                "nan" | "+nan" | "-nan" => Some(f64::NAN),
                _ => t.replace('_', "").parse::<f64>().ok(),
            };
            x.map(Value::float).ok_or_else(|| {
                at(Error::value(format!(
                    "could not convert string to float: {}",
                    format::repr_of(&v)
                )))
            })
        }
        (_, Value::Int(_) | Value::Bool(_) | Value::Float(_)) => {
            Ok(Value::float(v.as_number().unwrap_or(0.0)))
        }
        _ => Err(bad(&v)),
    }
}

/// `zip(a, b, ...)`: tuples of the items at each position, as many as the
/// shortest has.
pub(super) fn zip(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let mut columns = Vec::with_capacity(b.rest.len());
    for (v, span) in &b.rest {
        columns.push(items_of(me, v, *span, "zip()")?);
    }
    let n = columns.iter().map(Vec::len).min().unwrap_or(0);
    // `strict=True`: Python's error naming the first argument whose length
    // differs from those before it.
    if matches!(b.get("strict"), Some((Value::Bool(s), _)) if s.get()) {
        if let Some(k) = columns.iter().position(|c| c.len() != columns[0].len()) {
            let which = if columns[k].len() < columns[0].len() {
                "shorter"
            } else {
                "longer"
            };
            let before = match k {
                1 => "argument 1".to_string(),
                _ => format!("arguments 1-{k}"),
            };
            return Err(
                Error::value(format!("zip() argument {} is {which} than {before}", k + 1))
                    .at(b.span),
            );
        }
    }
    let rows = (0..n)
        .map(|k| Value::List(Arc::new(columns.iter().map(|c| c[k].clone()).collect())))
        .collect();
    Ok(Value::List(Arc::new(rows)))
}

/// The items of something Python iterates (a dict: its keys).
pub(crate) fn items_of(
    me: &Interp,
    v: &Value,
    span: crate::vocab::Span,
    what: &str,
) -> Result<Vec<Value>, Diagnostic> {
    match (v, me.elements_of(v)) {
        (_, Some(items)) => items.map_err(|e| e.at(span)),
        (Value::Dict(pairs), None) => Ok(pairs.items().iter().map(|(k, _)| k.value()).collect()),
        (Value::Str(s), None) => Ok(s.chars().map(|c| text(c.to_string())).collect()),
        (other, None) => Err(Error::Module {
            class: "TypeError",
            message: format!(
                "'{}' object is not iterable (the argument of {what})",
                match other {
                    Value::Object(o) => o.class.name.clone(),
                    other => super::super::format::python_type(other).to_string(),
                }
            ),
            help: None,
        }
        .at(span)),
    }
}

/// `tuple(xs)`: the items as a tuple.
pub(super) fn tuple(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let items = match b.get("iterable") {
        None => Vec::new(),
        Some((v, span)) => items_of(me, v, *span, "tuple()")?,
    };
    Ok(Value::List(Arc::new(items)))
}

/// `dict(a=1, b=2)`, `dict(pairs)`.
pub(super) fn dict(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let mut out: Vec<(Key, Value)> = Vec::new();
    // A repeated key keeps its first place and its last value (`PyDict::new`).
    let mut put = |k: Key, v: Value| out.push((k, v));
    if let Some((v, span)) = b.get("iterable") {
        match v {
            Value::Dict(pairs) => pairs
                .items()
                .iter()
                .for_each(|(k, v)| put(k.clone(), v.clone())),
            other => {
                for pair in items_of(me, other, *span, "dict()")? {
                    match pair.elements() {
                        Some(Ok(kv)) if kv.len() == 2 => put(
                            Key::required(&kv[0]).map_err(|e| e.at(*span))?,
                            kv[1].clone(),
                        ),
                        _ => return Err(Error::value("dict() takes (key, value) pairs").at(*span)),
                    }
                }
            }
        }
    }
    for (k, (v, _)) in &b.kwargs {
        put(Key::Str(k.clone()), v.clone());
    }
    Ok(Value::Dict(PyDict::new(out)))
}

/// `sorted(xs, key=None, reverse=False)`: a new list in order.
pub(super) fn sorted(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (v, span) = b
        .get("iterable")
        .cloned()
        .ok_or_else(|| Error::value("sorted() needs a list").at(b.span))?;
    let items = items_of(me, &v, span, "sorted()")?;
    let key = b
        .get("key")
        .map(|(k, _)| k.clone())
        .filter(|k| !matches!(k, Value::None));
    let items = sort_values(me, items, key, b.bool("reverse", false)?, span)?;
    Ok(Value::list(items))
}

/// Python's sort (`sorted`, `list.sort`): stable, by `key(item)` when a
/// key function is given, numbers with numbers, strings with strings,
/// tuples item by item; `reverse` keeps equal items in their order.
pub(crate) fn sort_values(
    me: &mut Interp,
    items: Vec<Value>,
    key: Option<Value>,
    reverse: bool,
    span: crate::vocab::Span,
) -> Result<Vec<Value>, Diagnostic> {
    let mut keyed = Vec::with_capacity(items.len());
    for v in items {
        // The items of a tensor literal (`sorted([3, 1, 2])`) as numbers.
        let v = me.one_element_value(v).map_err(|e| e.at(span))?;
        let k = match &key {
            Some(f) => me.call_value(f.clone(), vec![ArgVal::positional(v.clone(), span)], span)?,
            None => v.clone(),
        };
        keyed.push((me.one_element_value(k).map_err(|e| e.at(span))?, v));
    }
    // Instances of a class of the program's with `__lt__` (a `pathlib`
    // path, a dataclass with `order=True`): Python's stable sort, by `<`.
    if keyed.iter().any(|(k, _)| {
        matches!(k, Value::Object(o) if o.class.find("__lt__").is_some()
            || crate::eval::dataclass::has_option(o, crate::eval::dataclass::ORDER))
    }) {
        if reverse {
            keyed.reverse();
        }
        let mut sorted = merge_sort(me, keyed, span)?;
        if reverse {
            sorted.reverse();
        }
        return Ok(sorted.into_iter().map(|(_, v)| v).collect());
    }
    let mut err = None;
    keyed.sort_by(|(a, _), (b, _)| {
        let order = compare(a, b).unwrap_or_else(|| {
            err.get_or_insert_with(|| {
                format!(
                    "'<' not supported between instances of '{}' and '{}'",
                    format::python_type(a),
                    format::python_type(b)
                )
            });
            std::cmp::Ordering::Equal
        });
        match reverse {
            true => order.reverse(),
            false => order,
        }
    });
    if let Some(message) = err {
        return Err(Error::Module {
            class: "TypeError",
            message,
            help: None,
        }
        .at(span));
    }
    Ok(keyed.into_iter().map(|(_, v)| v).collect())
}

/// A stable merge sort by Python's `<` (each comparison may run the
/// program's `__lt__`, and fail).
fn merge_sort(
    me: &mut Interp,
    mut items: Vec<(Value, Value)>,
    span: crate::vocab::Span,
) -> Result<Vec<(Value, Value)>, Diagnostic> {
    if items.len() < 2 {
        return Ok(items);
    }
    let right = items.split_off(items.len() / 2);
    let (left, right) = (merge_sort(me, items, span)?, merge_sort(me, right, span)?);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut l, mut r) = (left.into_iter().peekable(), right.into_iter().peekable());
    while let (Some(a), Some(b)) = (l.peek(), r.peek()) {
        // The right one goes first only when it is less: equal items keep their order.
        let less = match me.operator_method(
            crate::lang::ast::BinOp::Elementwise(crate::vocab::BinaryOp::Lt),
            &b.0,
            &a.0,
            span,
        ) {
            Some(v) => {
                let v = v?;
                me.truth(&v, span)?
            }
            None => match compare(&b.0, &a.0) {
                Some(order) => order == std::cmp::Ordering::Less,
                None => {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!(
                            "'<' not supported between instances of '{}' and '{}'",
                            format::python_type(&b.0),
                            format::python_type(&a.0)
                        ),
                        help: None,
                    }
                    .at(span))
                }
            },
        };
        let next = if less { r.next() } else { l.next() };
        out.extend(next);
    }
    out.extend(l);
    out.extend(r);
    Ok(out)
}

/// Python's `<` order of two values, if it has one: numbers, strings, and
/// sequences item by item.
pub(crate) fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
        _ => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) => x.partial_cmp(&y).or(Some(std::cmp::Ordering::Equal)),
            _ => {
                let (x, y) = (a.items()?, b.items()?);
                for (p, q) in x.iter().zip(y.iter()) {
                    match compare(p, q)? {
                        std::cmp::Ordering::Equal => continue,
                        order => return Some(order),
                    }
                }
                Some(x.len().cmp(&y.len()))
            }
        },
    }
}

/// `any(xs)`, `all(xs)`: Python's truth of each item.
pub(super) fn any_all(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (v, span) = b
        .get("iterable")
        .cloned()
        .ok_or_else(|| Error::value(format!("{name}() needs a list")).at(b.span))?;
    let want = name == "any";
    for item in items_of(me, &v, span, &format!("{name}()"))? {
        if me.truth(&item, span)? == want {
            return Ok(Value::bool(want));
        }
    }
    Ok(Value::bool(!want))
}

impl Interp {
    /// A tensor of one element as its number; anything else as it is.
    pub(crate) fn one_element_value(&mut self, v: Value) -> Result<Value, Error> {
        match &v {
            Value::Tensor(t) if t.numel() == 1 => {
                let t = Arc::clone(t);
                let read = || match t.dtype() {
                    crate::runtime::DType::Bool => Value::bool(t.to_vec::<bool>()[0]),
                    d if d.is_int() => Value::Int(t.to_vec::<i64>()[0]),
                    _ => Value::float(t.to_vec::<f64>()[0]),
                };
                self.rt.read_item(&t, read)
            }
            _ => Ok(v),
        }
    }

    /// Python's `sum`, `max`, `min`, `abs`, `round` when the argument is
    /// not a tensor (a number, a list, a range); None: PyTorch's.
    pub(super) fn python_math(
        &mut self,
        name: &str,
        b: &Bound,
    ) -> Option<Result<Value, Diagnostic>> {
        let (first, span) = b.get("input")?.clone();
        // `max(t, 0.5)`: a float is no dim, and a 0-d tensor has no dim to
        // reduce, so Python's max of the two (LBFGS's `min(max(t, lo), hi)`
        // of 0-d tensors and numbers).
        let python_pair = matches!(name, "max" | "min")
            && match (&first, b.get("dim")) {
                (_, Some((Value::Float(_), _))) => true,
                (Value::Tensor(t), Some((Value::Int(_), _))) => {
                    t.ndim() == 0 && b.get("keepdim").is_none()
                }
                _ => false,
            };
        if matches!(first, Value::Tensor(_)) && !python_pair {
            return None;
        }
        let numbers = |v: &Value| matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_));
        Some(match name {
            "abs" => match first {
                Value::Object(_) => return self.unary_method(&first, "__abs__", span),
                Value::Int(i) => Ok(Value::Int(i.abs())),
                Value::Float(x) => Ok(Value::float(x.get().abs())),
                Value::Bool(x) => Ok(Value::Int(x.get() as i64)),
                _ => return None,
            },
            "round" => {
                let x = first.as_number().filter(|_| numbers(&first))?;
                let int = matches!(first, Value::Int(_) | Value::Bool(_));
                Ok(python_round(x, int, b))
            }
            "sum" => {
                let items = match items_of(self, &first, span, "sum()") {
                    Ok(items) => items,
                    Err(e) => return Some(Err(e)),
                };
                // Python's `sum(xs, start)`: a number, or a list the items
                // are joined to (`sum(batches, [])`).
                // (An argument list comes as a snapshot: a list the items
                // are lists is one too.)
                let mut total = match b.get("dim") {
                    Some((Value::List(start), _))
                        if matches!(items.first(), Some(Value::MutList(_))) =>
                    {
                        Value::list(start.to_vec())
                    }
                    Some((v, _))
                        if numbers(v) || matches!(v, Value::MutList(_) | Value::List(_)) =>
                    {
                        v.clone()
                    }
                    _ => Value::Int(0),
                };
                for v in items {
                    total = match self.binary(
                        crate::lang::ast::BinOp::Elementwise(crate::vocab::BinaryOp::Add),
                        total,
                        v,
                    ) {
                        Ok(t) => t,
                        Err(e) => return Some(Err(e.at(span))),
                    };
                }
                Ok(total)
            }
            "max" | "min" => {
                // `max(a, b, ...)` of several values (or one number), or
                // `max(xs)` of a list, as Python's.
                let values: Vec<Value> = ["input", "dim", "keepdim"]
                    .iter()
                    .filter_map(|n| b.get(n).map(|(v, _)| v.clone()))
                    .chain(b.rest.iter().map(|(v, _)| v.clone()))
                    .filter(|v| !matches!(v, Value::None))
                    .collect();
                let mut items = match numbers(&first) || values.len() > 1 {
                    true => values,
                    false => match items_of(self, &first, span, &format!("{name}()")) {
                        Ok(items) => items,
                        Err(e) => return Some(Err(e)),
                    },
                };
                if items.is_empty() {
                    // `max(xs, default=0)`: what an empty sequence gives.
                    if let Some((d, _)) = b.get("default") {
                        return Some(Ok(d.clone()));
                    }
                    return Some(Err(Error::value(format!(
                        "{name}() arg is an empty sequence"
                    ))
                    .at(span)));
                }
                // Compared by their numbers; the one chosen given back as
                // it was (`min(1.0, t)` is the tensor `t`, as in Python).
                let given = items.clone();
                for v in items.iter_mut() {
                    match self.one_element_value(v.clone()) {
                        Ok(n) => *v = n,
                        Err(e) => return Some(Err(e.at(span))),
                    }
                }
                // `key=f`: each item compared by `f(item)`.
                let key = b
                    .get("key")
                    .map(|(k, _)| k.clone())
                    .filter(|k| !matches!(k, Value::None));
                let mut keys = Vec::with_capacity(items.len());
                for v in &items {
                    keys.push(match &key {
                        Some(f) => {
                            let k = self.call_value(
                                f.clone(),
                                vec![super::super::args::ArgVal::positional(v.clone(), span)],
                                span,
                            );
                            match k.and_then(|k| self.one_element_value(k).map_err(|e| e.at(span)))
                            {
                                Ok(k) => k,
                                Err(e) => return Some(Err(e)),
                            }
                        }
                        None => v.clone(),
                    });
                }
                // Python's order: numbers, strings, tuples item by item;
                // the first of equal ones.
                let mut best = 0;
                let mut best_key = keys[0].clone();
                for (i, k) in keys.iter().enumerate().skip(1) {
                    // A class of the program's: its `__gt__` (max) or `__lt__` (min).
                    let op = match name {
                        "max" => crate::vocab::BinaryOp::Gt,
                        _ => crate::vocab::BinaryOp::Lt,
                    };
                    let by_method = match k {
                        Value::Object(_) => self.operator_method(
                            crate::lang::ast::BinOp::Elementwise(op),
                            k,
                            &best_key,
                            span,
                        ),
                        _ => None,
                    };
                    if let Some(better) = by_method {
                        let better = match better.and_then(|v| self.truth(&v, span)) {
                            Ok(b) => b,
                            Err(e) => return Some(Err(e)),
                        };
                        if better {
                            best = i;
                            best_key = k.clone();
                        }
                        continue;
                    }
                    let Some(order) = compare(k, &best_key) else {
                        return Some(Err(Error::Module {
                            class: "TypeError",
                            message: format!(
                                "'>' not supported between instances of '{}' and '{}'",
                                format::python_type(k),
                                format::python_type(&best_key)
                            ),
                            help: None,
                        }
                        .at(span)));
                    };
                    if (name == "max" && order.is_gt()) || (name == "min" && order.is_lt()) {
                        best = i;
                        best_key = k.clone();
                    }
                }
                Ok(given[best].clone())
            }
            _ => return None,
        })
    }
}

/// Python's `round(x)` (an int, halves to even) and `round(x, n)` (a
/// float, correctly rounded).
/// Python's `round(x, n)`: an int stays an int (`round(7, 2)` is 7,
/// `round(25, -1)` is 20, ties to even), a float rounds to `n` places.
fn python_round(x: f64, int: bool, b: &Bound) -> Value {
    match b
        .get("decimals")
        .or_else(|| b.rest.first())
        .map(|(v, _)| v.clone())
    {
        Some(Value::Int(n)) if int => {
            let p = 10f64.powi(n.clamp(-18, 0).unsigned_abs() as i32);
            Value::Int(((x / p).round_ties_even() * p) as i64)
        }
        Some(Value::Int(n)) if n >= 0 => {
            let n = n as usize;
            Value::float(format!("{x:.n$}").parse().unwrap_or(x))
        }
        Some(Value::Int(n)) => {
            let p = 10f64.powi((-n) as i32);
            Value::float((x / p).round_ties_even() * p)
        }
        _ => Value::Int(x.round_ties_even() as i64),
    }
}

/// `iter(xs)`: an iterator over the items; a DataLoader's pass starts
/// here (as PyTorch's: its workers start at `iter(loader)`), each batch
/// made as `next` asks.
pub(super) fn iter(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    use super::super::value::PyIterator;
    let (v, span) = b
        .get("iterable")
        .cloned()
        .ok_or_else(|| Error::value("iter() needs something to iterate").at(b.span))?;
    let v = match &v {
        Value::Object(_) => me.iter_method(v, span)?,
        _ => v,
    };
    let state = match &v {
        Value::DataLoader(l) => return me.loader_iter(l, span),
        Value::Iterator(_) => return Ok(v),
        // A range's numbers are made as `next` asks (`iter(range(10**12))`,
        // `iter(itertools.count())`).
        Value::Range(r) => PyIterator::Range {
            next: r.start,
            stop: r.stop,
            step: r.step,
        },
        other => PyIterator::Items(items_of(me, other, span, "iter()")?.into()),
    };
    Ok(Value::Iterator(Arc::new(std::sync::Mutex::new(state))))
}

/// `map(function, *iterables)`: an iterator of `function` of one item of
/// each iterable, made as the loop (or `list`, `next`) asks, ending with
/// the shortest, as Python 3's map.
pub(super) fn map(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    use super::super::value::PyIterator;
    let (f, _) = b
        .get("function")
        .cloned()
        .ok_or_else(|| type_error("map() must have at least two arguments.").at(b.span))?;
    if b.rest.is_empty() {
        return Err(type_error("map() must have at least two arguments.").at(b.span));
    }
    let mut sources = Vec::with_capacity(b.rest.len());
    for (v, span) in &b.rest {
        sources.push(me.iterator_of(v.clone(), *span, "map()")?);
    }
    Ok(Value::Iterator(Arc::new(std::sync::Mutex::new(
        PyIterator::Map(Arc::new((f, sources))),
    ))))
}

/// `filter(function, iterable)`: an iterator of the items `function`
/// finds true (`None`: the items true themselves), made as asked.
pub(super) fn filter(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    use super::super::value::PyIterator;
    let (f, (v, span)) = match (b.get("function"), b.get("iterable")) {
        (Some((f, _)), Some(it)) => (f.clone(), it.clone()),
        _ => return Err(type_error("filter expected 2 arguments").at(b.span)),
    };
    let source = me.iterator_of(v, span, "filter()")?;
    Ok(Value::Iterator(Arc::new(std::sync::Mutex::new(
        PyIterator::Filter(Arc::new((f, source))),
    ))))
}

fn type_error(message: &str) -> Error {
    Error::Module {
        class: "TypeError",
        message: message.into(),
        help: None,
    }
}

/// `reversed(seq)`: an iterator over a sequence's items, last first (a
/// list, a tuple, a range, a string, a dict's keys; not a generator,
/// whose end is not known, as Python's).
pub(super) fn reversed(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    use super::super::value::PyIterator;
    let (v, span) = b
        .get("sequence")
        .cloned()
        .ok_or_else(|| Error::value("reversed() needs a sequence").at(b.span))?;
    if matches!(v, Value::Iterator(_) | Value::Enumerate(_)) {
        return Err(Error::Module {
            class: "TypeError",
            message: format!(
                "'{}' object is not reversible",
                super::super::format::python_type(&v)
            ),
            help: Some("make it a list first: `reversed(list(it))`".into()),
        }
        .at(span));
    }
    let mut items = items_of(me, &v, span, "reversed()")?;
    items.reverse();
    Ok(Value::Iterator(Arc::new(std::sync::Mutex::new(
        PyIterator::Items(items.into()),
    ))))
}

/// `next(it, default)`: the iterator's next item; at the end, `default`
/// or Python's `StopIteration`.
pub(super) fn next(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (v, span) = b
        .get("iterator")
        .cloned()
        .ok_or_else(|| Error::value("next() needs an iterator").at(b.span))?;
    let is_next = |v: &Value| matches!(v, Value::Object(o) if o.class.find("__next__").is_some());
    let found = if is_next(&v) {
        me.object_next(&v, span)?
    } else {
        let Value::Iterator(it) = &v else {
            return Err(Error::Module {
                class: "TypeError",
                message: format!("'{}' object is not an iterator", v.kind()),
                help: Some(
                    "make one with `iter(xs)`: `next(iter(loader))` is the first batch".into(),
                ),
            }
            .at(span));
        };
        me.next_item(it, span)?
    };
    match (found, b.get("default")) {
        (Some(v), _) => Ok(v),
        (None, Some((d, _))) => Ok(d.clone()),
        (None, None) => Err(Error::Module {
            class: "StopIteration",
            message: String::new(),
            help: None,
        }
        .at(b.span)),
    }
}

/// `staticmethod(f)`, `classmethod(f)`, `property(f)`: what `@staticmethod`
/// and the others above a method in a class body make of it.
pub(super) fn method_kind(
    _: &mut Interp,
    name: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    use super::super::value::Decorated;
    let (f, span) = b
        .get("function")
        .cloned()
        .ok_or_else(|| Error::value(format!("{name}() takes a function")).at(b.span))?;
    if !matches!(
        f,
        Value::Function(_) | Value::Builtin(_) | Value::Native(_) | Value::Method(_)
    ) {
        return Err(
            Error::wrong_type(format!("what `{name}` takes"), "a function", f.type_name()).at(span),
        );
    }
    let d = match name {
        "staticmethod" => Decorated::Static(f),
        "classmethod" => Decorated::ClassMethod(f),
        _ => Decorated::Property(f, b.get("fset").map(|(s, _)| s.clone())),
    };
    Ok(Value::Decorated(Arc::new(d)))
}

/// `getattr(obj, "name", default)`, `hasattr(obj, "name")`: an attribute
/// read by its name, as `obj.name` reads it (the default, or false, where
/// that is Python's AttributeError).
/// `divmod(a, b)`: Python's `(a // b, a % b)`.
pub(super) fn divmod(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    use crate::lang::ast::BinOp;
    use crate::vocab::BinaryOp;
    let get = |n: &str| b.get(n).map(|(v, _)| v.clone()).unwrap_or(Value::None);
    let (x, y) = (get("a"), get("b"));
    let at = |e: Error| e.at(b.span);
    let q = me
        .binary(BinOp::Elementwise(BinaryOp::FloorDiv), x.clone(), y.clone())
        .map_err(at)?;
    let r = me
        .binary(BinOp::Elementwise(BinaryOp::Rem), x, y)
        .map_err(at)?;
    Ok(Value::List(Arc::new(vec![q, r])))
}

/// `bin(x)`, `hex(x)`, `oct(x)` of an int, as Python's.
pub(super) fn radix(_: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (v, span) = b
        .get("x")
        .cloned()
        .ok_or_else(|| Error::value(format!("{name}() takes one argument")).at(b.span))?;
    let n = match v {
        Value::Int(n) => n,
        Value::Bool(x) => x.get() as i64,
        other => {
            return Err(Error::type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                format::python_type(&other)
            ))
            .at(span))
        }
    };
    let m = n.unsigned_abs();
    let digits = match name {
        "bin" => format!("0b{m:b}"),
        "hex" => format!("0x{m:x}"),
        _ => format!("0o{m:o}"),
    };
    let sign = if n < 0 { "-" } else { "" };
    Ok(Value::Str(Arc::new(format!("{sign}{digits}"))))
}

/// `chr(i)` and `ord(c)`, as Python's.
pub(super) fn chr_ord(_: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (v, span) = b
        .get(if name == "chr" { "i" } else { "c" })
        .cloned()
        .ok_or_else(|| Error::value(format!("{name}() takes one argument")).at(b.span))?;
    match (name, &v) {
        ("chr", Value::Int(i)) => u32::try_from(*i)
            .ok()
            .and_then(char::from_u32)
            .map(|c| Value::Str(Arc::new(c.to_string())))
            .ok_or_else(|| Error::value("chr() arg not in range(0x110000)").at(span)),
        ("ord", Value::Str(s)) if s.chars().count() == 1 => {
            Ok(Value::Int(s.chars().next().map_or(0, |c| c as i64)))
        }
        ("ord", Value::Str(s)) => Err(Error::type_error(format!(
            "ord() expected a character, but string of length {} found",
            s.chars().count()
        ))
        .at(span)),
        _ => Err(Error::type_error(format!(
            "{name}() takes {}, not {}",
            if name == "chr" {
                "an integer"
            } else {
                "a one-character string"
            },
            format::python_type(&v)
        ))
        .at(span)),
    }
}

/// `callable(x)`: whether `x(...)` calls something, as Python's.
pub(super) fn callable(_: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let v = b
        .get("object")
        .map(|(v, _)| v)
        .ok_or_else(|| Error::value("callable() takes one object").at(b.span))?;
    Ok(Value::bool(match v {
        Value::Builtin(_)
        | Value::Native(_)
        | Value::Function(_)
        | Value::Method(_)
        | Value::BuiltinMethod(_)
        | Value::Class(_)
        | Value::ExcClass(_)
        | Value::Module(_)
        | Value::Decorated(_) => true,
        Value::Object(o) => o.class.find("__call__").is_some(),
        _ => false,
    }))
}

pub(super) fn getattr(me: &mut Interp, name: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let obj = b.get("object").map_or(Value::None, |(v, _)| v.clone());
    let attr = b
        .str("name")?
        .ok_or_else(|| Error::value(format!("{name}() takes the attribute's name")).at(b.span))?;
    match (me.property(&obj, &attr, b.span), name) {
        (Ok(_), "hasattr") => Ok(Value::bool(true)),
        (Ok(v), _) => Ok(v),
        (Err(d), "hasattr") if d.error.class() == "AttributeError" => Ok(Value::bool(false)),
        (Err(d), _) if d.error.class() == "AttributeError" => match b.get("default") {
            Some((v, _)) => Ok(v.clone()),
            None => Err(d),
        },
        (Err(d), _) => Err(d),
    }
}

/// `setattr(obj, "name", value)`: as `obj.name = value`.
pub(super) fn setattr(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let obj = b.get("object").map_or(Value::None, |(v, _)| v.clone());
    let attr = b
        .str("name")?
        .ok_or_else(|| Error::value("setattr() takes the attribute's name").at(b.span))?;
    let (v, vspan) = b.get("value").cloned().unwrap_or((Value::None, b.span));
    me.set_attr_of(&obj, &attr, v, vspan, b.span)?;
    Ok(Value::None)
}

/// `delattr(object, name)`: `del object.name` for a name held in a string.
pub(super) fn delattr(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let obj = b.get("object").map_or(Value::None, |(v, _)| v.clone());
    let attr = b
        .str("name")?
        .ok_or_else(|| Error::value("delattr() takes the attribute's name").at(b.span))?;
    me.del_attr(&obj, &attr, b.span)?;
    Ok(Value::None)
}

/// `id(obj)`: one number per object (`expr::object_id`).
/// `hash(obj)`: Python's hash, equal for keys a dict takes as one.
pub(super) fn hash(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let (v, span) = b.get("obj").cloned().unwrap_or((Value::None, b.span));
    Ok(Value::Int(me.hash_of(&v, span)?))
}

pub(super) fn id(_: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let v = b.get("obj").map(|(v, _)| v.clone()).unwrap_or(Value::None);
    Ok(Value::Int(super::super::value::object_id(&v)))
}
