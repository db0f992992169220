//! Python's `bytes`: what a file opened "rb" reads, `s.encode()` makes and
//! `b"..."` writes; its repr (`b'\x89PNG'`), its methods (`decode`,
//! `hex`, `startswith`, `find`, `split`...), `bytes(...)`, and
//! `int.from_bytes` / `n.to_bytes`, as CPython has them.

use std::sync::Arc;

use super::args::ArgVal;
use super::Value;
use crate::error::Error;
use crate::lang::ast::BinOp;
use crate::vocab::BinaryOp;

fn value_error(message: String) -> Error {
    Error::Module {
        class: "ValueError",
        message,
        help: None,
    }
}

fn type_error(message: String) -> Error {
    Error::Module {
        class: "TypeError",
        message,
        help: None,
    }
}

/// `s.encode(encoding)`: utf-8 (the default), ascii, latin-1.
pub fn encode(s: &str, encoding: &str) -> Result<Vec<u8>, Error> {
    match normalized(encoding).as_str() {
        "utf8" => Ok(s.as_bytes().to_vec()),
        "ascii" | "latin1" => {
            let limit = if normalized(encoding) == "ascii" {
                0x7f
            } else {
                0xff
            };
            s.chars()
                .enumerate()
                .map(|(k, c)| match c as u32 {
                    n if n <= limit => Ok(n as u8),
                    _ => Err(Error::Module {
                        class: "UnicodeEncodeError",
                        message: format!(
                            "'{}' codec can't encode character {:?} in position {k}: ordinal \
                             not in range({})",
                            if limit == 0x7f { "ascii" } else { "latin-1" },
                            c,
                            limit + 1
                        ),
                        help: None,
                    }),
                })
                .collect()
        }
        _ => Err(Error::Module {
            class: "LookupError",
            message: format!("unknown encoding: {encoding}"),
            help: Some("cudash encodes utf-8, ascii and latin-1".into()),
        }),
    }
}

/// `b.decode(encoding, errors)`: utf-8 (strict, or "replace"/"ignore"),
/// ascii, latin-1.
pub fn decode(b: &[u8], encoding: &str, errors: &str) -> Result<String, Error> {
    match normalized(encoding).as_str() {
        "utf8" => match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_string()),
            Err(_) if errors == "replace" => Ok(String::from_utf8_lossy(b).into_owned()),
            Err(_) if errors == "ignore" => Ok(String::from_utf8_lossy(b).replace('\u{fffd}', "")),
            Err(e) => Err(Error::Module {
                class: "UnicodeDecodeError",
                message: format!(
                    "'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid start byte",
                    b[e.valid_up_to()],
                    e.valid_up_to()
                ),
                help: Some("`errors=\"replace\"` puts U+FFFD in its place".into()),
            }),
        },
        "latin1" => Ok(b.iter().map(|&c| c as char).collect()),
        "ascii" => match b.iter().position(|&c| c > 0x7f) {
            Some(k) if errors == "strict" => Err(Error::Module {
                class: "UnicodeDecodeError",
                message: format!(
                    "'ascii' codec can't decode byte 0x{:02x} in position {k}: ordinal not in \
                     range(128)",
                    b[k]
                ),
                help: None,
            }),
            _ => Ok(b
                .iter()
                .filter_map(|&c| match c {
                    0..=0x7f => Some(c as char),
                    _ if errors == "replace" => Some('\u{fffd}'),
                    _ => None,
                })
                .collect()),
        },
        _ => Err(Error::Module {
            class: "LookupError",
            message: format!("unknown encoding: {encoding}"),
            help: Some("cudash decodes utf-8, ascii and latin-1".into()),
        }),
    }
}

/// `"UTF-8"`, `"utf_8"` and `"utf8"` are one codec, as Python's lookup.
fn normalized(encoding: &str) -> String {
    let e: String = encoding
        .to_ascii_lowercase()
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .collect();
    match e.as_str() {
        "latin1" | "iso88591" | "l1" => "latin1".into(),
        "ascii" | "usascii" => "ascii".into(),
        other => other.into(),
    }
}

/// `bytes(x)`: empty, `n` zero bytes, the items of a list of ints, a
/// string in an encoding, or bytes as they are.
pub fn construct(x: Option<&Value>, encoding: Option<&str>) -> Result<Vec<u8>, Error> {
    match (x, encoding) {
        (None, _) => Ok(Vec::new()),
        (Some(Value::Str(s)), Some(e)) => encode(s, e),
        (Some(Value::Str(_)), None) => {
            Err(type_error("string argument without an encoding".into()))
        }
        (Some(Value::Bytes(b)), _) => Ok(b.to_vec()),
        (Some(Value::Int(n)), _) if *n < 0 => Err(value_error("negative count".into())),
        (Some(Value::Int(n)), _) => Ok(vec![0; within_limit(*n as u64)?]),
        (Some(v), _) => match v.elements() {
            Some(Ok(items)) => items.iter().map(byte).collect(),
            _ => Err(type_error(format!(
                "cannot convert '{}' object to bytes",
                v.type_name()
            ))),
        },
    }
}

/// One item of a list given to `bytes`: an int in 0..=255.
pub fn byte(v: &Value) -> Result<u8, Error> {
    match v {
        Value::Int(n) if (0..=255).contains(n) => Ok(*n as u8),
        Value::Bool(b) => Ok(b.get() as u8),
        // A one-element integer tensor on the host (a number of a list
        // literal in cudash's own language; Python's `__index__`).
        Value::Tensor(t) if t.numel() == 1 && !t.dtype().is_float() && !t.device().is_cuda() => {
            byte(&Value::Int(t.to_vec::<i64>()[0]))
        }
        Value::Int(_) => Err(value_error("bytes must be in range(0, 256)".into())),
        other => Err(type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            other.type_name()
        ))),
    }
}

/// The most bytes cudash makes at once (1 GiB): past it Python's
/// `MemoryError`, before the host is asked.
pub fn within_limit(n: u64) -> Result<usize, Error> {
    match n <= 1 << 30 {
        true => Ok(n as usize),
        false => Err(Error::Module {
            class: "MemoryError",
            message: format!("{n} bytes are more than cudash makes at once (1 GiB)"),
            help: None,
        }),
    }
}

/// `int.from_bytes(b, byteorder, signed=False)`.
pub fn int_from(b: &[u8], order: &str, signed: bool) -> Result<i64, Error> {
    let big = byte_order(order)?;
    let mut bytes: Vec<u8> = b.to_vec();
    if !big {
        bytes.reverse();
    }
    // Big-endian now: leading bytes beyond 8 must be the sign's.
    let fill = match signed && bytes.first().is_some_and(|&c| c & 0x80 != 0) {
        true => 0xff,
        false => 0x00,
    };
    let extra = bytes.len().saturating_sub(8);
    if bytes[..extra].iter().any(|&c| c != fill) {
        return Err(too_big());
    }
    let mut v: u64 = match fill {
        0xff => u64::MAX,
        _ => 0,
    };
    for &c in &bytes[extra..] {
        v = (v << 8) | c as u64;
    }
    let n = v as i64;
    if !signed && n < 0 {
        return Err(too_big());
    }
    if signed && bytes.len() >= 8 && (n < 0) != (fill == 0xff) {
        return Err(too_big());
    }
    Ok(n)
}

/// `n.to_bytes(length, byteorder, signed=False)`.
pub fn int_to(n: i64, length: usize, order: &str, signed: bool) -> Result<Vec<u8>, Error> {
    let big = byte_order(order)?;
    if n < 0 && !signed {
        return Err(Error::Module {
            class: "OverflowError",
            message: "can't convert negative int to unsigned".into(),
            help: None,
        });
    }
    let fits = match length {
        0 => n == 0,
        l if l >= 8 => n >= 0 || signed,
        l => {
            let bits = 8 * l as u32;
            match signed {
                true => n >= -(1i64 << (bits - 1)) && n < (1i64 << (bits - 1)),
                false => (n as u64) < (1u64 << bits),
            }
        }
    };
    if !fits {
        return Err(Error::Module {
            class: "OverflowError",
            message: "int too big to convert".into(),
            help: None,
        });
    }
    let length = within_limit(length as u64)?;
    let fill = if n < 0 { 0xff } else { 0x00 };
    let mut out: Vec<u8> = (0..length)
        .map(|k| match k < 8 {
            true => (n >> (8 * k)) as u8,
            false => fill,
        })
        .collect();
    if big {
        out.reverse();
    }
    Ok(out)
}

fn byte_order(order: &str) -> Result<bool, Error> {
    match order {
        "big" => Ok(true),
        "little" => Ok(false),
        _ => Err(value_error(
            "byteorder must be either 'little' or 'big'".into(),
        )),
    }
}

fn too_big() -> Error {
    Error::Module {
        class: "OverflowError",
        message: "the bytes hold a number past cudash's 64-bit ints".into(),
        help: None,
    }
}

/// `b.find(sub, start)`: where `sub` first starts, or -1.
pub fn find(b: &[u8], sub: &[u8], start: usize) -> i64 {
    if start > b.len() {
        return -1;
    }
    if sub.is_empty() {
        return start as i64;
    }
    b[start..]
        .windows(sub.len())
        .position(|w| w == sub)
        .map_or(-1, |k| (k + start) as i64)
}

/// `b.split(sep=None)`: at runs of ASCII whitespace, or at each `sep`.
pub fn split(b: &[u8], sep: Option<&[u8]>) -> Result<Vec<Vec<u8>>, Error> {
    match sep {
        None => Ok(b
            .split(|c| c.is_ascii_whitespace())
            .filter(|p| !p.is_empty())
            .map(<[u8]>::to_vec)
            .collect()),
        Some([]) => Err(value_error("empty separator".into())),
        Some(sep) => {
            let mut parts = Vec::new();
            let mut rest = b;
            loop {
                let k = find(rest, sep, 0);
                if k < 0 {
                    break;
                }
                let k = k as usize;
                parts.push(rest[..k].to_vec());
                rest = &rest[k + sep.len()..];
            }
            parts.push(rest.to_vec());
            Ok(parts)
        }
    }
}

/// `b.strip()`, `lstrip`, `rstrip`: ASCII whitespace (or the given bytes) off the ends.
pub fn strip(b: &[u8], chars: Option<&[u8]>, left: bool, right: bool) -> Vec<u8> {
    let drop = |c: &u8| match chars {
        Some(set) => set.contains(c),
        None => c.is_ascii_whitespace(),
    };
    let start = match left {
        true => b.iter().position(|c| !drop(c)).unwrap_or(b.len()),
        false => 0,
    };
    let end = match right {
        true => b.iter().rposition(|c| !drop(c)).map_or(start, |k| k + 1),
        false => b.len(),
    };
    b[start..end.max(start)].to_vec()
}

/// `x in b`: a byte (an int) or a run of bytes.
pub fn contains(b: &[u8], item: &Value) -> Result<bool, Error> {
    match item {
        Value::Bytes(sub) => Ok(find(b, sub, 0) >= 0),
        Value::Int(_) | Value::Bool(_) => Ok(b.contains(&byte(item)?)),
        other => Err(type_error(format!(
            "a bytes-like object is required, not '{}'",
            super::format::python_type(other)
        ))),
    }
}

/// `a + b`, `b * n`, and the orderings of bytes; None where bytes take no
/// part (the caller goes on).
pub fn binary(a: &Value, b: &Value, op: BinOp) -> Option<Result<Value, Error>> {
    let made = |v: Vec<u8>| Some(Ok(Value::Bytes(Arc::new(v))));
    match (a, b, op) {
        (Value::Bytes(x), Value::Bytes(y), BinOp::Elementwise(BinaryOp::Add)) => {
            made([x.as_slice(), y.as_slice()].concat())
        }
        (Value::Bytes(x), Value::Int(n), BinOp::Elementwise(BinaryOp::Mul))
        | (Value::Int(n), Value::Bytes(x), BinOp::Elementwise(BinaryOp::Mul)) => {
            match x.len().checked_mul((*n).max(0) as usize) {
                Some(size) if size <= 1 << 30 => made(x.repeat((*n).max(0) as usize)),
                _ => Some(Err(Error::Module {
                    class: "MemoryError",
                    message: "repeated bytes past 1 GiB".into(),
                    help: None,
                })),
            }
        }
        (
            Value::Bytes(x),
            Value::Bytes(y),
            BinOp::Elementwise(op @ (BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)),
        ) => {
            let order = x.cmp(y);
            Some(Ok(Value::bool(match op {
                BinaryOp::Lt => order.is_lt(),
                BinaryOp::Le => order.is_le(),
                BinaryOp::Gt => order.is_gt(),
                _ => order.is_ge(),
            })))
        }
        (_, _, BinOp::Elementwise(BinaryOp::Add)) => Some(Err(type_error(format!(
            "can't concat {} to {}",
            super::format::python_type(b),
            super::format::python_type(a)
        )))),
        _ => None,
    }
}

/// `s.encode(encoding="utf-8", errors="strict")`.
pub fn str_encode(s: &str, args: &[ArgVal]) -> Result<Value, Error> {
    let encoding = text_arg(args, 0, "encoding")?.unwrap_or_else(|| "utf-8".into());
    Ok(Value::Bytes(Arc::new(encode(s, &encoding)?)))
}

/// A string argument by position or keyword.
fn text_arg(args: &[ArgVal], k: usize, name: &str) -> Result<Option<String>, Error> {
    match keyword(args, name).or_else(|| positional(args).get(k).copied()) {
        None => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s.to_string())),
        Some(other) => Err(type_error(format!(
            "{name} must be str, not {}",
            super::format::python_type(other)
        ))),
    }
}

/// A keyword argument's value (`signed=True`), of a native's arguments.
pub(super) fn keyword<'a>(args: &'a [ArgVal], name: &str) -> Option<&'a Value> {
    args.iter()
        .find(|a| a.keyword.as_ref().is_some_and(|n| n.name == name))
        .map(|a| &a.value)
}

/// The positional arguments' values, of a native's arguments.
pub(super) fn positional(args: &[ArgVal]) -> Vec<&Value> {
    args.iter()
        .filter(|a| a.keyword.is_none())
        .map(|a| &a.value)
        .collect()
}

/// A bytes argument (`b.startswith(b"PK")`), or a tuple of them.
fn bytes_args(v: Option<&Value>, method: &str) -> Result<Vec<Vec<u8>>, Error> {
    match v {
        Some(Value::Bytes(b)) => Ok(vec![b.to_vec()]),
        Some(Value::List(items)) => items
            .iter()
            .map(|i| bytes_args(Some(i), method).map(|mut v| v.remove(0)))
            .collect(),
        Some(other) => Err(type_error(format!(
            "a bytes-like object is required, not '{}'",
            super::format::python_type(other)
        ))),
        None => Err(type_error(format!(
            "{method}() takes at least 1 argument (0 given)"
        ))),
    }
}

/// The methods of bytes `bytes_method` answers.
pub const METHODS: &[&str] = &[
    "decode",
    "hex",
    "startswith",
    "endswith",
    "find",
    "index",
    "count",
    "split",
    "strip",
    "lstrip",
    "rstrip",
    "join",
    "replace",
    "upper",
    "lower",
    "isascii",
    "isdigit",
];

impl super::Interp {
    /// `b.decode()`, `b.hex()`, `b.startswith(p)`, ...
    pub(super) fn bytes_method(
        &mut self,
        b: &Arc<Vec<u8>>,
        name: &str,
        args: Vec<ArgVal>,
    ) -> Result<Value, Error> {
        let made = |v: Vec<u8>| Ok(Value::Bytes(Arc::new(v)));
        let pos = positional(&args);
        match name {
            "decode" => {
                let encoding = text_arg(&args, 0, "encoding")?.unwrap_or_else(|| "utf-8".into());
                let errors = text_arg(&args, 1, "errors")?.unwrap_or_else(|| "strict".into());
                Ok(Value::Str(Arc::new(decode(b, &encoding, &errors)?)))
            }
            "hex" => Ok(Value::Str(Arc::new(
                b.iter().map(|c| format!("{c:02x}")).collect(),
            ))),
            "startswith" | "endswith" => {
                let options = bytes_args(pos.first().copied(), name)?;
                Ok(Value::bool(options.iter().any(|p| match name {
                    "startswith" => b.starts_with(p),
                    _ => b.ends_with(p),
                })))
            }
            "find" | "index" | "count" => {
                let sub = match pos.first() {
                    Some(Value::Int(_)) => vec![byte(pos[0])?],
                    other => bytes_args(other.copied(), name)?.remove(0),
                };
                let start = match pos.get(1) {
                    Some(Value::Int(i)) if *i < 0 => (*i + b.len() as i64).max(0) as usize,
                    Some(Value::Int(i)) => *i as usize,
                    _ => 0,
                };
                if name == "count" {
                    let mut n = 0;
                    let mut at = start;
                    while let Ok(k) = usize::try_from(find(b, &sub, at)) {
                        n += 1;
                        at = k + sub.len().max(1);
                        if at > b.len() {
                            break;
                        }
                    }
                    return Ok(Value::Int(n));
                }
                match find(b, &sub, start) {
                    -1 if name == "index" => Err(value_error("subsection not found".into())),
                    k => Ok(Value::Int(k)),
                }
            }
            "split" => {
                let sep = match pos.first() {
                    None | Some(Value::None) => None,
                    other => Some(bytes_args(other.copied(), name)?.remove(0)),
                };
                let parts = split(b, sep.as_deref())?;
                Ok(Value::list(
                    parts
                        .into_iter()
                        .map(|p| Value::Bytes(Arc::new(p)))
                        .collect(),
                ))
            }
            "strip" | "lstrip" | "rstrip" => {
                let chars = match pos.first() {
                    None | Some(Value::None) => None,
                    other => Some(bytes_args(other.copied(), name)?.remove(0)),
                };
                made(strip(
                    b,
                    chars.as_deref(),
                    name != "rstrip",
                    name != "lstrip",
                ))
            }
            "join" => {
                let items = match pos.first().and_then(|v| v.elements()) {
                    Some(items) => items?,
                    None => return Err(type_error("can only join an iterable".into())),
                };
                let mut out = Vec::new();
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        out.extend_from_slice(b);
                    }
                    out.extend(bytes_args(Some(item), name)?.remove(0));
                }
                made(out)
            }
            "replace" => {
                let old = bytes_args(pos.first().copied(), name)?.remove(0);
                let new = bytes_args(pos.get(1).copied(), name)?.remove(0);
                if old.is_empty() {
                    return made(b.to_vec());
                }
                let parts = split(b, Some(&old))?;
                made(parts.join(new.as_slice()))
            }
            "upper" => made(b.to_ascii_uppercase()),
            "lower" => made(b.to_ascii_lowercase()),
            "isascii" => Ok(Value::bool(b.is_ascii())),
            "isdigit" => Ok(Value::bool(
                !b.is_empty() && b.iter().all(u8::is_ascii_digit),
            )),
            other => Err(Error::Module {
                class: "AttributeError",
                message: format!("'bytes' object has no attribute '{other}'"),
                help: Some(format!("cudash's bytes have {}", METHODS.join(", "))),
            }),
        }
    }
}

/// The functions of Python's this module answers, and `_cudash.frombuffer`
/// (`torch.frombuffer`, `np.frombuffer`).
pub const NAMES: [&str; 3] = ["int.from_bytes", "bytes.fromhex", "_cudash.frombuffer"];

/// `int.from_bytes(b, byteorder="big", signed=False)`, `bytes.fromhex(s)`.
pub fn call_native(name: &str, args: &[ArgVal]) -> Result<Value, Error> {
    let pos = positional(args);
    match name {
        "_cudash.frombuffer" => frombuffer(&pos),
        "int.from_bytes" => {
            let data = match pos.first() {
                Some(Value::Bytes(b)) => b.to_vec(),
                Some(v) => construct(Some(v), None)?,
                None => {
                    return Err(type_error(
                        "from_bytes() missing required argument 'bytes' (pos 1)".into(),
                    ))
                }
            };
            let order = text_arg(args, 1, "byteorder")?.unwrap_or_else(|| "big".into());
            Ok(Value::Int(int_from(&data, &order, flag(args, "signed")?)?))
        }
        _ => {
            let text = text_arg(args, 0, "string")?.unwrap_or_default();
            let digits: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
            let bad = || value_error("non-hexadecimal number found in fromhex() arg".into());
            if !digits.len().is_multiple_of(2) {
                return Err(bad());
            }
            let out: Option<Vec<u8>> = digits
                .chunks(2)
                .map(|p| u8::from_str_radix(&p.iter().collect::<String>(), 16).ok())
                .collect();
            Ok(Value::Bytes(Arc::new(out.ok_or_else(bad)?)))
        }
    }
}

/// `_cudash.frombuffer(buffer, code, big, count, offset)`: the bytes read
/// as elements of `code` (struct's letters; `E` bfloat16), little-endian
/// unless `big`, `count` of them (-1: all) from `offset`: a new CPU tensor
/// (bytes cannot change, so sharing them is not needed).
fn frombuffer(pos: &[&Value]) -> Result<Value, Error> {
    use crate::runtime::Tensor;
    let (Some(Value::Bytes(data)), Some(Value::Str(code))) = (pos.first(), pos.get(1)) else {
        return Err(type_error("frombuffer() takes bytes".into()));
    };
    let big = matches!(pos.get(2), Some(Value::Bool(b)) if b.get());
    let count = match pos.get(3) {
        Some(Value::Int(n)) => *n,
        _ => -1,
    };
    let offset = match pos.get(4) {
        Some(Value::Int(n)) if *n >= 0 => *n as usize,
        Some(Value::Int(n)) => {
            return Err(value_error(format!(
                "offset must be non-negative and no greater than buffer length ({}) , but got {n}",
                data.len()
            )))
        }
        _ => 0,
    };
    let width = match code.as_str() {
        "b" | "B" | "?" => 1,
        "h" | "H" | "e" | "E" => 2,
        "i" | "I" | "f" => 4,
        _ => 8,
    };
    if offset > data.len() {
        return Err(value_error(format!(
            "offset must be non-negative and no greater than buffer length ({}) , but got {offset}",
            data.len()
        )));
    }
    let rest = &data[offset..];
    let n = match usize::try_from(count) {
        Ok(n) if n * width <= rest.len() => n,
        Ok(n) => {
            return Err(value_error(format!(
                "requested buffer length ({n} * {width} bytes) after offset ({offset} bytes) must \
                 not be greater than actual buffer length ({} bytes)",
                data.len()
            )))
        }
        Err(_) if rest.len() % width != 0 => {
            return Err(value_error(format!(
                "buffer length ({} bytes) after offset ({offset} bytes) must be a multiple of \
                 element size ({width})",
                rest.len()
            )))
        }
        Err(_) => rest.len() / width,
    };
    let words: Vec<[u8; 8]> = rest[..n * width]
        .chunks(width)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..width].copy_from_slice(c);
            if big {
                w[..width].reverse();
            }
            w
        })
        .collect();
    let u = |w: &[u8; 8]| u64::from_le_bytes(*w);
    let t = match code.as_str() {
        "B" => Tensor::from_vec(words.iter().map(|w| w[0]).collect::<Vec<u8>>(), vec![n]),
        "b" => Tensor::from_vec(
            words.iter().map(|w| w[0] as i8).collect::<Vec<i8>>(),
            vec![n],
        ),
        "?" => Tensor::from_vec(
            words.iter().map(|w| w[0] != 0).collect::<Vec<bool>>(),
            vec![n],
        ),
        "h" => Tensor::from_vec(
            words
                .iter()
                .map(|w| u(w) as u16 as i16)
                .collect::<Vec<i16>>(),
            vec![n],
        ),
        "H" => Tensor::from_vec(
            words
                .iter()
                .map(|w| u(w) as u16 as i64)
                .collect::<Vec<i64>>(),
            vec![n],
        ),
        "i" => Tensor::from_vec(
            words
                .iter()
                .map(|w| u(w) as u32 as i32)
                .collect::<Vec<i32>>(),
            vec![n],
        ),
        "I" => Tensor::from_vec(
            words
                .iter()
                .map(|w| u(w) as u32 as i64)
                .collect::<Vec<i64>>(),
            vec![n],
        ),
        "e" => Tensor::from_vec(
            words
                .iter()
                .map(|w| half::f16::from_bits(u(w) as u16))
                .collect::<Vec<_>>(),
            vec![n],
        ),
        "E" => Tensor::from_vec(
            words
                .iter()
                .map(|w| half::bf16::from_bits(u(w) as u16))
                .collect::<Vec<_>>(),
            vec![n],
        ),
        "f" => Tensor::from_vec(
            words
                .iter()
                .map(|w| f32::from_bits(u(w) as u32))
                .collect::<Vec<f32>>(),
            vec![n],
        ),
        "d" => Tensor::from_vec(
            words
                .iter()
                .map(|w| f64::from_bits(u(w)))
                .collect::<Vec<f64>>(),
            vec![n],
        ),
        _ => Tensor::from_vec(
            words.iter().map(|w| u(w) as i64).collect::<Vec<i64>>(),
            vec![n],
        ),
    };
    Ok(Value::Tensor(Arc::new(t)))
}

/// `n.to_bytes(length=1, byteorder="big", signed=False)`.
pub fn int_to_bytes(n: i64, args: &[ArgVal]) -> Result<Value, Error> {
    let pos = positional(args);
    let length = match keyword(args, "length").or(pos.first().copied()) {
        None => 1,
        Some(Value::Int(l)) if *l >= 0 => *l as usize,
        Some(Value::Int(_)) => {
            return Err(value_error("length argument must be non-negative".into()))
        }
        Some(other) => {
            return Err(type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                super::format::python_type(other)
            )))
        }
    };
    let order = text_arg(args, 1, "byteorder")?.unwrap_or_else(|| "big".into());
    Ok(Value::Bytes(Arc::new(int_to(
        n,
        length,
        &order,
        flag(args, "signed")?,
    )?)))
}

/// A keyword-only flag (`signed=True`).
fn flag(args: &[ArgVal], name: &str) -> Result<bool, Error> {
    match keyword(args, name) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(b.get()),
        Some(Value::Int(i)) => Ok(*i != 0),
        Some(other) => Err(type_error(format!(
            "{name} must be a bool, not {}",
            super::format::python_type(other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_go_to_bytes_and_back_as_pythons() {
        assert_eq!(int_to(2051, 4, "big", false).unwrap(), vec![0, 0, 8, 3]);
        assert_eq!(int_from(&[0, 0, 8, 3], "big", false).unwrap(), 2051);
        assert_eq!(int_from(&[0xff, 0xfe], "little", true).unwrap(), -257);
        assert_eq!(int_to(-2, 2, "little", true).unwrap(), vec![0xfe, 0xff]);
        assert!(int_to(256, 1, "big", false).is_err());
        assert!(int_to(-1, 1, "big", false).is_err());
        assert!(int_from(&[0xff; 8], "big", false).is_err());
    }

    #[test]
    fn text_is_encoded_and_decoded() {
        assert_eq!(encode("é", "utf-8").unwrap(), vec![0xc3, 0xa9]);
        assert_eq!(encode("é", "latin-1").unwrap(), vec![0xe9]);
        assert!(encode("é", "ascii").is_err());
        assert_eq!(decode(&[0xc3, 0xa9], "UTF-8", "strict").unwrap(), "é");
        assert!(decode(&[0xff], "utf-8", "strict").is_err());
        assert_eq!(decode(&[0x61, 0xff], "utf-8", "ignore").unwrap(), "a");
    }

    #[test]
    fn split_find_and_strip() {
        assert_eq!(
            split(b" a  b ", None).unwrap(),
            vec![b"a".to_vec(), b"b".to_vec()]
        );
        assert_eq!(
            split(b"a,,b", Some(b",")).unwrap(),
            vec![b"a".to_vec(), b"".to_vec(), b"b".to_vec()]
        );
        assert_eq!(find(b"hello", b"l", 0), 2);
        assert_eq!(find(b"hello", b"z", 0), -1);
        assert_eq!(strip(b"  x \n", None, true, true), b"x".to_vec());
    }
}
