//! Python's `struct`: numbers packed into bytes and read back by a format
//! (`struct.unpack(">IIII", f.read(16))`, the header of an MNIST idx
//! file), as CPython lays them out: `<`, `>`, `!` and `=` standard sizes
//! with no padding, `@` (the default) the x86-64 sizes and alignment.

use std::sync::Arc;

use super::args::ArgVal;
use super::Value;
use crate::error::Error;

/// The functions this module answers.
pub const NAMES: [&str; 5] = [
    "struct.pack",
    "struct.unpack",
    "struct.unpack_from",
    "struct.calcsize",
    "struct.iter_unpack",
];

fn error(message: String) -> Error {
    Error::Module {
        class: "struct.error",
        message,
        help: None,
    }
}

/// One item of a format: its code, how many (a string's length for `s`).
#[derive(Clone, Copy)]
struct Item {
    code: char,
    count: usize,
}

/// A parsed format: the byte order, whether native alignment applies, the items.
struct Format {
    little: bool,
    native: bool,
    items: Vec<Item>,
}

impl Format {
    fn parse(fmt: &str) -> Result<Format, Error> {
        let mut chars = fmt.chars().peekable();
        let (little, native) = match chars.peek() {
            Some('<') => (true, false),
            Some('>') | Some('!') => (false, false),
            Some('=') => (true, false),
            Some('@') => (true, true),
            _ => (true, true),
        };
        if matches!(chars.peek(), Some('<' | '>' | '!' | '=' | '@')) {
            chars.next();
        }
        let mut items = Vec::new();
        let mut count: Option<usize> = None;
        for c in chars {
            match c {
                ' ' | '\t' | '\n' | '\r' => {}
                '0'..='9' => {
                    let digit = c as usize - '0' as usize;
                    count = Some(count.unwrap_or(0).saturating_mul(10).saturating_add(digit));
                }
                'x' | 'c' | 'b' | 'B' | '?' | 'h' | 'H' | 'i' | 'I' | 'l' | 'L' | 'q' | 'Q'
                | 'e' | 'f' | 'd' | 's' => {
                    items.push(Item {
                        code: c,
                        count: count.take().unwrap_or(1),
                    });
                }
                'n' | 'N' | 'P' if native => items.push(Item {
                    code: c,
                    count: count.take().unwrap_or(1),
                }),
                _ => return Err(error("bad char in struct format".into())),
            }
        }
        if count.is_some() {
            return Err(error("repeat count given without format specifier".into()));
        }
        Ok(Format {
            little,
            native,
            items,
        })
    }

    /// The size of one of `code` (native or standard).
    fn size(&self, code: char) -> usize {
        match code {
            'x' | 'c' | 'b' | 'B' | '?' | 's' => 1,
            'h' | 'H' | 'e' => 2,
            'i' | 'I' | 'f' => 4,
            'l' | 'L' if self.native => 8,
            'l' | 'L' => 4,
            _ => 8,
        }
    }

    /// Each value's place and code (`s` one place of its length), and the total size.
    fn layout(&self) -> (Vec<(usize, Item)>, usize) {
        let mut at: usize = 0;
        let mut out = Vec::new();
        for item in &self.items {
            let size = self.size(item.code);
            // Past what any buffer holds, one place per item is not listed
            // (`pack` and `unpack` then refuse the size; `calcsize` gives it).
            if at.saturating_add(item.count.saturating_mul(size)) > 1 << 30 {
                at = at.saturating_add(item.count.saturating_mul(size));
                continue;
            }
            if self.native && item.code != 's' && item.code != 'x' {
                at = at.div_ceil(size) * size;
            }
            match item.code {
                's' => {
                    out.push((at, *item));
                    at += item.count;
                }
                'x' => at += item.count,
                _ => {
                    for _ in 0..item.count {
                        out.push((at, Item { count: 1, ..*item }));
                        at += size;
                    }
                }
            }
        }
        (out, at)
    }
}

fn int_range(code: char, native: bool) -> (i128, i128) {
    let bits = match code {
        'b' | 'B' => 8,
        'h' | 'H' => 16,
        'i' | 'I' => 32,
        'l' | 'L' if native => 64,
        'l' | 'L' => 32,
        _ => 64,
    };
    match code.is_ascii_lowercase() {
        true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        false => (0, (1i128 << bits) - 1),
    }
}

/// `struct.pack(fmt, *values)`.
pub fn pack(fmt: &str, values: &[Value]) -> Result<Vec<u8>, Error> {
    let f = Format::parse(fmt)?;
    let (places, size) = f.layout();
    let size = super::bytes::within_limit(size as u64)?;
    if places.len() != values.len() {
        return Err(error(format!(
            "pack expected {} items for packing (got {})",
            places.len(),
            values.len()
        )));
    }
    let mut out = vec![0u8; size];
    for ((at, item), v) in places.iter().zip(values) {
        let size = f.size(item.code);
        let bytes: Vec<u8> = match item.code {
            's' | 'c' => {
                let Value::Bytes(b) = v else {
                    return Err(error(format!(
                        "argument for '{}' must be a bytes object",
                        item.code
                    )));
                };
                if item.code == 'c' && b.len() != 1 {
                    return Err(error(
                        "char format requires a bytes object of length 1".into(),
                    ));
                }
                let n = if item.code == 'c' { 1 } else { item.count };
                let mut s = b.iter().copied().take(n).collect::<Vec<u8>>();
                s.resize(n, 0);
                s
            }
            '?' => vec![v.as_number().is_some_and(|x| x != 0.0) as u8],
            'e' | 'f' | 'd' => {
                let x = v
                    .as_number()
                    .ok_or_else(|| error("required argument is not a float".into()))?;
                let mut b = match item.code {
                    'e' => half::f16::from_f64(x).to_le_bytes().to_vec(),
                    'f' => (x as f32).to_le_bytes().to_vec(),
                    _ => x.to_le_bytes().to_vec(),
                };
                if !f.little {
                    b.reverse();
                }
                b
            }
            code => {
                let n = match v {
                    Value::Int(n) => *n as i128,
                    Value::Bool(b) => b.get() as i128,
                    _ => return Err(error("required argument is not an integer".into())),
                };
                let (lo, hi) = int_range(code, f.native);
                if n < lo || n > hi {
                    let what = match code {
                        'b' => "byte".to_string(),
                        'B' => "ubyte".to_string(),
                        'h' => "short".to_string(),
                        'H' => "ushort".to_string(),
                        _ => format!("'{code}'"),
                    };
                    return Err(error(format!(
                        "{what} format requires {lo} <= number <= {hi}"
                    )));
                }
                let mut b: Vec<u8> = (0..size).map(|k| (n >> (8 * k)) as u8).collect();
                if !f.little {
                    b.reverse();
                }
                b
            }
        };
        out[*at..*at + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(out)
}

/// `struct.unpack_from(fmt, buffer, offset)`: the values at `offset`.
pub fn unpack(fmt: &str, data: &[u8], exact: bool) -> Result<Vec<Value>, Error> {
    let f = Format::parse(fmt)?;
    let (places, size) = f.layout();
    if (exact && data.len() != size) || data.len() < size {
        return Err(error(match exact {
            true => format!("unpack requires a buffer of {size} bytes"),
            false => format!(
                "unpack_from requires a buffer of at least {size} bytes for unpacking {size} \
                 bytes at offset 0 (actual buffer size is {})",
                data.len()
            ),
        }));
    }
    let mut out = Vec::with_capacity(places.len());
    for (at, item) in places {
        let width = f.size(item.code);
        let mut raw: Vec<u8> =
            data[at..at + if item.code == 's' { item.count } else { width }].to_vec();
        let v = match item.code {
            's' | 'c' => Value::Bytes(Arc::new(raw)),
            '?' => Value::bool(raw[0] != 0),
            code => {
                if !f.little {
                    raw.reverse();
                }
                match code {
                    'e' => Value::float(half::f16::from_le_bytes([raw[0], raw[1]]).to_f64()),
                    'f' => {
                        Value::float(f32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]) as f64)
                    }
                    'd' => Value::float(f64::from_le_bytes(raw[..8].try_into().unwrap_or([0; 8]))),
                    _ => {
                        let mut n: u64 = 0;
                        for (k, b) in raw.iter().enumerate() {
                            n |= (*b as u64) << (8 * k);
                        }
                        let bits = 8 * width as u32;
                        let signed = code.is_ascii_lowercase();
                        let v = match signed && bits < 64 && n >> (bits - 1) & 1 == 1 {
                            true => (n as i64) - (1i64 << bits),
                            false => n as i64,
                        };
                        if !signed && bits == 64 && (n as i64) < 0 {
                            return Err(Error::Module {
                                class: "OverflowError",
                                message: format!("{n} is past cudash's 64-bit ints"),
                                help: None,
                            });
                        }
                        Value::Int(v)
                    }
                }
            }
        };
        out.push(v);
    }
    Ok(out)
}

/// `struct.calcsize(fmt)`.
pub fn calcsize(fmt: &str) -> Result<usize, Error> {
    Ok(Format::parse(fmt)?.layout().1)
}

/// The natives' calls: `pack`, `unpack`, `unpack_from`, `calcsize`, `iter_unpack`.
pub fn call(name: &str, args: &[ArgVal]) -> Result<Value, Error> {
    let pos = super::bytes::positional(args);
    let keyword = |k: &str| super::bytes::keyword(args, k);
    let fmt = match pos.first().copied().or(keyword("format")) {
        Some(Value::Str(s)) => s.to_string(),
        Some(Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        _ => {
            return Err(Error::Module {
                class: "TypeError",
                message: format!("{name}() argument 1 must be a str or bytes"),
                help: None,
            })
        }
    };
    let buffer = || match pos.get(1).copied().or(keyword("buffer")) {
        Some(Value::Bytes(b)) => Ok(Arc::clone(b)),
        other => Err(Error::Module {
            class: "TypeError",
            message: format!(
                "a bytes-like object is required, not '{}'",
                other.map_or("NoneType".into(), |v| super::format::python_type(v)
                    .into_owned())
            ),
            help: None,
        }),
    };
    let tuple = |v: Vec<Value>| Value::List(Arc::new(v));
    match name {
        "struct.pack" => {
            let values: Vec<Value> = pos[1..].iter().map(|v| (*v).clone()).collect();
            Ok(Value::Bytes(Arc::new(pack(&fmt, &values)?)))
        }
        "struct.unpack" => Ok(tuple(unpack(&fmt, &buffer()?, true)?)),
        "struct.unpack_from" => {
            let data = buffer()?;
            let offset = match pos.get(2).copied().or(keyword("offset")) {
                Some(Value::Int(o)) if *o < 0 => (*o + data.len() as i64).max(0) as usize,
                Some(Value::Int(o)) => *o as usize,
                _ => 0,
            };
            Ok(tuple(unpack(
                &fmt,
                data.get(offset..).unwrap_or(&[]),
                false,
            )?))
        }
        "struct.iter_unpack" => {
            let data = buffer()?;
            let size = calcsize(&fmt)?;
            if size == 0 || data.len() % size != 0 {
                return Err(error(format!(
                    "iterative unpacking requires a buffer of a multiple of {size} bytes"
                )));
            }
            let rows = data
                .chunks(size)
                .map(|c| unpack(&fmt, c, true).map(tuple))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Value::list(rows))
        }
        _ => Ok(Value::Int(calcsize(&fmt)? as i64)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idx_header_reads_as_pythons() {
        let header = [0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 28, 0, 0, 0, 28];
        let v = unpack(">IIII", &header, true).unwrap();
        let ints: Vec<i64> = v
            .iter()
            .filter_map(|v| v.as_number())
            .map(|x| x as i64)
            .collect();
        assert_eq!(ints, vec![2051, 2, 28, 28]);
    }

    #[test]
    fn sizes_and_alignment_are_cpythons() {
        assert_eq!(calcsize("ci").unwrap(), 8);
        assert_eq!(calcsize("<ci").unwrap(), 5);
        assert_eq!(calcsize("@l").unwrap(), 8);
        assert_eq!(calcsize("=l").unwrap(), 4);
        assert_eq!(calcsize("3s2xh").unwrap(), 8);
        assert_eq!(pack("<h", &[Value::Int(-2)]).unwrap(), vec![0xfe, 0xff]);
        assert!(pack("<h", &[Value::Int(40000)]).is_err());
    }
}
