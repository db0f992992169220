//! NumPy arrays inside pickles: read as NumPy rebuilds them
//! (`numpy._core.multiarray._reconstruct` then its state, protocol 2 to
//! 4; `numpy._core.numeric._frombuffer`, protocol 5; `dtype(descr)` and
//! its byte order), and written as NumPy writes one at protocol 2 (what
//! `torch.save(array)` and `pickle.dump` hold), so a file of arrays moves
//! between cudash and Python both ways. Only a full unpickler reads them
//! (`pickle.load`, `torch.load(weights_only=False)`): PyTorch's safe load
//! refuses NumPy's globals, and so does cudash's.

use std::sync::Arc;

use super::super::buffer::Buffer;
use super::super::{DType, Device, Tensor};

/// The NumPy dtypes cudash's `numpy` has (`stdlib/numpy.py`); uint16's
/// values are held in an int64 tensor there, as here.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NpDType {
    F64,
    F32,
    F16,
    I64,
    I32,
    U8,
    U16,
    Bool,
}

/// A NumPy array as a pickle holds it: its dtype, and its elements in a
/// host tensor of its shape.
#[derive(Clone, Debug)]
pub struct SavedArray {
    pub dtype: NpDType,
    pub tensor: Arc<Tensor>,
}

impl NpDType {
    pub const ALL: [NpDType; 8] = [
        NpDType::F64,
        NpDType::F32,
        NpDType::F16,
        NpDType::I64,
        NpDType::I32,
        NpDType::U8,
        NpDType::U16,
        NpDType::Bool,
    ];

    /// From a dtype's pickled argument (`'f8'`, `'u1'`, `'b1'`).
    pub fn from_descr(descr: &str) -> Result<NpDType, String> {
        let d = match descr.trim_start_matches(['<', '>', '|', '=']) {
            "f8" => NpDType::F64,
            "f4" => NpDType::F32,
            "f2" => NpDType::F16,
            "i8" => NpDType::I64,
            "i4" => NpDType::I32,
            "u1" => NpDType::U8,
            "u2" => NpDType::U16,
            "b1" => NpDType::Bool,
            other => {
                return Err(format!(
                    "a NumPy array of dtype '{other}': cudash's NumPy has float64, float32, float16, int64, int32, uint8, uint16 and bool (convert it in Python first: `a.astype(np.int64)`)"
                ))
            }
        };
        Ok(d)
    }

    /// NumPy's name for it (`float64`), as `numpy.py` knows it.
    pub fn name(self) -> &'static str {
        match self {
            NpDType::F64 => "float64",
            NpDType::F32 => "float32",
            NpDType::F16 => "float16",
            NpDType::I64 => "int64",
            NpDType::I32 => "int32",
            NpDType::U8 => "uint8",
            NpDType::U16 => "uint16",
            NpDType::Bool => "bool",
        }
    }

    pub fn from_name(name: &str) -> Option<NpDType> {
        NpDType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// What NumPy pickles: the dtype's argument and its byte order.
    fn descr(self) -> (&'static str, &'static str) {
        match self {
            NpDType::F64 => ("f8", "<"),
            NpDType::F32 => ("f4", "<"),
            NpDType::F16 => ("f2", "<"),
            NpDType::I64 => ("i8", "<"),
            NpDType::I32 => ("i4", "<"),
            NpDType::U8 => ("u1", "|"),
            NpDType::U16 => ("u2", "<"),
            NpDType::Bool => ("b1", "|"),
        }
    }

    /// The bytes of one element in the file.
    fn width(self) -> usize {
        match self {
            NpDType::F64 | NpDType::I64 => 8,
            NpDType::F32 | NpDType::I32 => 4,
            NpDType::F16 | NpDType::U16 => 2,
            NpDType::U8 | NpDType::Bool => 1,
        }
    }

    /// The tensor's dtype that holds its values.
    pub fn torch(self) -> DType {
        match self {
            NpDType::F64 => DType::F64,
            NpDType::F32 => DType::F32,
            NpDType::F16 => DType::F16,
            NpDType::I64 | NpDType::U16 => DType::I64,
            NpDType::I32 => DType::I32,
            NpDType::U8 => DType::U8,
            NpDType::Bool => DType::Bool,
        }
    }
}

/// An array from its pickled state: `shape`, elements of `dtype` in
/// `byteorder` ('<', '>', '|', '='), C or Fortran order.
pub fn array(
    dtype: NpDType,
    big_endian: bool,
    shape: &[i64],
    fortran: bool,
    data: &[u8],
) -> Result<SavedArray, String> {
    if shape.iter().any(|&d| d < 0) {
        return Err("the pickle is damaged (an array's shape is negative)".into());
    }
    let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let numel = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or("the pickle is damaged (an array's shape is too large)")?;
    let width = dtype.width();
    if numel.checked_mul(width) != Some(data.len()) {
        return Err(format!(
            "the pickle is damaged (a NumPy array of shape {shape:?} and dtype {} holds {} bytes)",
            dtype.name(),
            data.len()
        ));
    }
    let mut bytes = data.to_vec();
    if big_endian && width > 1 {
        bytes.chunks_exact_mut(width).for_each(<[u8]>::reverse);
    }
    let buffer = match dtype {
        NpDType::U16 => Buffer::I64(
            bytes
                .chunks_exact(2)
                .map(|c| i64::from(u16::from_le_bytes([c[0], c[1]])))
                .collect(),
        ),
        _ => Buffer::from_le_bytes(dtype.torch(), &bytes),
    };
    let tensor = if fortran && shape.len() > 1 {
        let reversed: Vec<usize> = shape.iter().rev().copied().collect();
        Tensor::new(buffer, reversed, Device::Cpu).t().copy()
    } else {
        Tensor::new(buffer, shape, Device::Cpu)
    };
    Ok(SavedArray {
        dtype,
        tensor: Arc::new(tensor),
    })
}

/// A NumPy scalar (`numpy._core.multiarray.scalar(dtype, bytes)`: a
/// `np.float64` a program kept) as the Python number it stands for.
pub fn scalar(dtype: NpDType, big_endian: bool, data: &[u8]) -> Result<Scalar, String> {
    let a = array(dtype, big_endian, &[], false, data)?;
    let buffer = a.tensor.contiguous_buffer();
    Ok(match dtype {
        NpDType::F64 | NpDType::F32 | NpDType::F16 => Scalar::Float(floats(&buffer)[0]),
        NpDType::Bool => Scalar::Bool(ints(&buffer)[0] != 0),
        _ => Scalar::Int(ints(&buffer)[0]),
    })
}

fn floats(b: &Buffer) -> Vec<f64> {
    match b.cast(DType::F64) {
        Buffer::F64(v) => v,
        _ => unreachable!("cast to f64"),
    }
}

fn ints(b: &Buffer) -> Vec<i64> {
    match b.cast(DType::I64) {
        Buffer::I64(v) => v,
        _ => unreachable!("cast to i64"),
    }
}

/// What a NumPy scalar is in Python's numbers.
pub enum Scalar {
    Float(f64),
    Int(i64),
    Bool(bool),
}

/// The array's elements as NumPy holds them, little-endian, C order.
fn element_bytes(a: &SavedArray) -> Vec<u8> {
    let buffer = a.tensor.contiguous_buffer();
    match a.dtype {
        NpDType::U16 => ints(&buffer)
            .into_iter()
            .flat_map(|v| (v as u16).to_le_bytes())
            .collect(),
        _ => buffer.to_le_bytes(),
    }
}

/// The array as NumPy pickles one at protocol 2:
/// `_reconstruct(ndarray, (0,), b'b')`, then the state
/// `(1, shape, dtype('f8'), False, _codecs.encode(data, 'latin1'))`.
pub(super) fn write(out: &mut Vec<u8>, a: &SavedArray) {
    use super::opcodes::{global, int, ints_tuple, string};
    global(out, "numpy._core.multiarray", "_reconstruct");
    global(out, "numpy", "ndarray");
    int(out, 0);
    out.push(0x85); // TUPLE1
    latin1_bytes(out, b"b");
    out.extend([0x87, b'R']); // TUPLE3 REDUCE
    out.push(b'(');
    int(out, 1);
    ints_tuple(out, a.tensor.shape().iter().map(|&d| d as i64));
    let (descr, order) = a.dtype.descr();
    global(out, "numpy", "dtype");
    string(out, descr);
    out.extend([0x89, 0x88, 0x87, b'R']); // False, True, TUPLE3, REDUCE
    out.push(b'(');
    int(out, 3);
    string(out, order);
    out.extend([b'N', b'N', b'N']);
    int(out, -1);
    int(out, -1);
    int(out, 0);
    out.extend([b't', b'b']); // the dtype's state, BUILD
    out.push(0x89); // not Fortran order
    latin1_bytes(out, &element_bytes(a));
    out.extend([b't', b'b']);
}

/// Bytes at protocol 2, as Python 3 writes them: `_codecs.encode(text,
/// 'latin1')` of the text whose characters are the bytes.
fn latin1_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    use super::opcodes::{global, string};
    global(out, "_codecs", "encode");
    let text = latin1_text(bytes);
    string(out, &text);
    string(out, "latin1");
    out.extend([0x86, b'R']); // TUPLE2 REDUCE
}

/// The bytes a string of `_codecs.encode(s, 'latin1')` stands for: each
/// character below U+0100 is one byte (read from the UTF-8 directly: an
/// array's data is tens of megabytes of such text).
pub fn latin1(s: &str) -> Result<Vec<u8>, String> {
    let utf8 = s.as_bytes();
    let mut out = Vec::with_capacity(utf8.len());
    let mut i = 0;
    while i < utf8.len() {
        match utf8[i] {
            b if b < 0x80 => {
                out.push(b);
                i += 1;
            }
            // U+0080..U+00FF: two bytes, C2 or C3 then a continuation.
            lead @ (0xc2 | 0xc3) => {
                out.push(((lead & 0x03) << 6) | (utf8[i + 1] & 0x3f));
                i += 2;
            }
            _ => {
                // Python's message: the character, its position in characters.
                let c = s[i..].chars().next().map_or(0, u32::from);
                let escaped = match c {
                    0..=0xffff => format!("\\u{c:04x}"),
                    _ => format!("\\U{c:08x}"),
                };
                let at = s[..i].chars().count();
                return Err(format!(
                    "'latin-1' codec can't encode character '{escaped}' in position {at}: \
                     ordinal not in range(256)"
                ));
            }
        }
    }
    Ok(out)
}

/// The text whose characters are `bytes` (a Python 2 string read with
/// `encoding="latin1"`).
pub fn latin1_text(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_text_and_bytes_round_trip() {
        let bytes: Vec<u8> = (0..=255).chain([0, 0xff, b'a']).collect();
        let text = latin1_text(&bytes);
        assert_eq!(text.chars().count(), bytes.len());
        assert_eq!(latin1(&text).unwrap(), bytes);
        assert_eq!(
            latin1("a\u{100}").unwrap_err(),
            "'latin-1' codec can't encode character '\\u0100' in position 1: ordinal not in range(256)"
        );
        assert_eq!(
            latin1("\u{e9}\u{1F600}").unwrap_err(),
            "'latin-1' codec can't encode character '\\U0001f600' in position 1: ordinal not in range(256)"
        );
    }

    #[test]
    fn a_fortran_array_reads_in_c_order() {
        // [[1, 2, 3], [4, 5, 6]] in column-major order.
        let data: Vec<u8> = [1i64, 4, 2, 5, 3, 6]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let a = array(NpDType::I64, false, &[2, 3], true, &data).unwrap();
        assert_eq!(ints(&a.tensor.contiguous_buffer()), [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn big_endian_and_uint16_elements_read_as_numpy_gives_them() {
        let a = array(NpDType::U16, true, &[2], false, &[0xff, 0xfe, 0, 1]).unwrap();
        assert_eq!(ints(&a.tensor.contiguous_buffer()), [0xfffe, 1]);
        assert_eq!(element_bytes(&a), [0xfe, 0xff, 1, 0]);
    }

    #[test]
    fn a_size_that_does_not_match_the_data_is_an_error() {
        let e = array(NpDType::F32, false, &[3], false, &[0; 8]).unwrap_err();
        assert!(e.contains("holds 8 bytes"), "{e}");
        assert!(array(NpDType::F32, false, &[-1], false, &[]).is_err());
    }

    #[test]
    fn an_unknown_dtype_says_which_cudash_has() {
        let e = NpDType::from_descr("U5").unwrap_err();
        assert!(e.contains("'U5'") && e.contains("uint16"), "{e}");
    }
}
