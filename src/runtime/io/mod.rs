//! `save` and `load`: NumPy's `.npy` (written and read here), `.safetensors`
//! (through the `safetensors` crate), and `torch.save`'s `.pt` (its zip
//! archive and restricted pickle, both here), keeping dtype and shape.

pub mod image;
pub mod jpeg;
mod numpy_pickle;
mod opcodes;
pub mod pdf;
mod pickle;
pub mod tar;
pub mod zip;

pub use numpy_pickle::{NpDType, SavedArray};
pub use pickle::{Pickled, Py2Strings, SavedObject, SavedTensor, Unpickler};

use std::path::Path;

use safetensors::tensor::{Dtype as StDtype, SafeTensors, TensorView};

use super::buffer::Buffer;
use super::{DType, Device, Tensor};
use crate::error::Error;

/// An image of `width`×`height` pixels may be decoded: Pillow refuses more
/// than twice its `Image.MAX_IMAGE_PIXELS` (a "decompression bomb").
pub fn check_pixels(width: usize, height: usize) -> Result<(), String> {
    const LIMIT: usize = 2 * 89_478_485;
    match width.saturating_mul(height) {
        n if n > LIMIT => Err(format!(
            "Image size ({n} pixels) exceeds limit of {LIMIT} pixels, could be decompression bomb DOS attack."
        )),
        _ => Ok(()),
    }
}

fn io_err(action: &str, path: &Path, reason: impl Into<String>) -> Error {
    Error::Io {
        action: action.into(),
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

fn npy_descr(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::Bool => "|b1",
        DType::U8 => "|u1",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::BF16 => return None,
    })
}

pub fn save(t: &Tensor, path: &Path) -> Result<(), Error> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let bytes = match ext {
        "npy" => npy_bytes(t, path)?,
        "safetensors" => safetensors_bytes(t, path)?,
        _ => {
            return Err(Error::value_help(
                format!(
                    "cannot tell the format of `{}` from its extension",
                    path.display()
                ),
                "use a name ending in .npy or .safetensors",
            ))
        }
    };
    std::fs::write(path, bytes).map_err(|e| io_err("write", path, e.to_string()))
}

fn npy_bytes(t: &Tensor, path: &Path) -> Result<Vec<u8>, Error> {
    let descr = npy_descr(t.dtype()).ok_or_else(|| {
        Error::value_help(
            format!("`{}`: NumPy has no bf16 dtype", path.display()),
            "save as .safetensors, or convert first: `x.to(f32)`",
        )
    })?;
    let shape = crate::runtime::shape::python_tuple(t.shape());
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, ending in \n.
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat(total.next_multiple_of(64) - total));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(t.contiguous_buffer().to_le_bytes());
    Ok(out)
}

fn st_dtype(d: DType) -> StDtype {
    match d {
        DType::Bool => StDtype::BOOL,
        DType::U8 => StDtype::U8,
        DType::I8 => StDtype::I8,
        DType::I16 => StDtype::I16,
        DType::I32 => StDtype::I32,
        DType::I64 => StDtype::I64,
        DType::F16 => StDtype::F16,
        DType::BF16 => StDtype::BF16,
        DType::F32 => StDtype::F32,
        DType::F64 => StDtype::F64,
    }
}

fn safetensors_bytes(t: &Tensor, path: &Path) -> Result<Vec<u8>, Error> {
    safetensors_of(&[("tensor".to_string(), t)], path)
}

/// Host tensors by name (a model's `state_dict`) as one `.safetensors`
/// file, which `safetensors.torch.load_file` reads back as the same dict.
pub fn save_named(tensors: &[(String, &Tensor)], path: &Path) -> Result<(), Error> {
    if path.extension().and_then(|e| e.to_str()) != Some("safetensors") {
        return Err(Error::value_help(
            format!(
                "`{}`: several named tensors (a state_dict) are saved as .safetensors",
                path.display()
            ),
            "use a name ending in .safetensors",
        ));
    }
    let bytes = safetensors_of(tensors, path)?;
    std::fs::write(path, bytes).map_err(|e| io_err("write", path, e.to_string()))
}

fn safetensors_of(tensors: &[(String, &Tensor)], path: &Path) -> Result<Vec<u8>, Error> {
    let data: Vec<Vec<u8>> = tensors
        .iter()
        .map(|(_, t)| t.contiguous_buffer().to_le_bytes())
        .collect();
    let views = tensors
        .iter()
        .zip(&data)
        .map(|((name, t), bytes)| {
            TensorView::new(st_dtype(t.dtype()), t.shape().to_vec(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| io_err("write", path, e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    safetensors::tensor::serialize(views, None).map_err(|e| io_err("write", path, e.to_string()))
}

/// Every tensor in the file with its name (`.npy` files hold one, named after the file).
pub fn load(path: &Path) -> Result<Vec<(String, Tensor)>, Error> {
    let bytes = std::fs::read(path).map_err(|e| io_err("read", path, e.to_string()))?;
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "npy" => {
            let name = path
                .file_stem()
                .map_or("tensor".into(), |s| s.to_string_lossy().into_owned());
            Ok(vec![(
                name,
                parse_npy(&bytes).map_err(|r| io_err("load", path, r))?,
            )])
        }
        "safetensors" => parse_safetensors(&bytes).map_err(|r| io_err("load", path, r)),
        _ => Err(Error::value_help(
            format!(
                "cannot tell the format of `{}` from its extension",
                path.display()
            ),
            "cudash reads .npy and .safetensors files",
        )),
    }
}

pub fn parse_npy(b: &[u8]) -> Result<Tensor, String> {
    if b.len() < 10 || &b[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (the magic bytes are missing)".into());
    }
    let (hlen, start): (usize, usize) = match b[6] {
        1 => (u16::from_le_bytes([b[8], b[9]]) as usize, 10),
        2 | 3 if b.len() >= 12 => (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = b
        .get(start..start.saturating_add(hlen))
        .ok_or("the header is cut short")?;
    let header = std::str::from_utf8(header).map_err(|_| "the header is not text")?;
    let field = |key: &str| -> Result<&str, String> {
        let at = header
            .find(&format!("'{key}'"))
            .ok_or(format!("the header has no '{key}'"))?;
        let rest = header[at + key.len() + 2..].trim_start();
        rest.strip_prefix(':')
            .map(str::trim_start)
            .ok_or(format!("malformed '{key}' entry"))
    };
    let descr = field("descr")?;
    let descr = descr
        .strip_prefix('\'')
        .and_then(|d| d.split('\'').next())
        .ok_or("malformed 'descr'")?;
    let dtype = match descr {
        "|b1" => DType::Bool,
        "|u1" => DType::U8,
        "|i1" => DType::I8,
        "<i2" | "=i2" => DType::I16,
        "<i4" | "=i4" => DType::I32,
        "<i8" | "=i8" => DType::I64,
        "<f2" | "=f2" => DType::F16,
        "<f4" | "=f4" => DType::F32,
        "<f8" | "=f8" => DType::F64,
        other => return Err(format!("element type '{other}' is not supported (cudash reads bool, u1, i1, i2, i4, i8, f2, f4, f8, little-endian)")),
    };
    let fortran = field("fortran_order")?.starts_with("True");
    let shape_text = field("shape")?;
    let inner = shape_text
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or("malformed 'shape'")?;
    let shape: Vec<usize> = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| format!("bad dimension '{s}' in 'shape'"))
        })
        .collect::<Result<_, _>>()?;
    let n = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or("the shape is too large")?;
    let data = &b[start + hlen..];
    let need = n
        .checked_mul(dtype.size())
        .ok_or("the shape is too large")?;
    if data.len() != need {
        return Err(format!(
            "the data holds {} bytes but shape {:?} of {dtype} needs {need}",
            data.len(),
            shape
        ));
    }
    let buf = Buffer::from_le_bytes(dtype, data);
    if fortran && shape.len() > 1 {
        let rev: Vec<usize> = shape.iter().rev().copied().collect();
        return Ok(Tensor::new(buf, rev, Device::Cpu).t().copy());
    }
    Ok(Tensor::new(buf, shape, Device::Cpu))
}

pub fn parse_safetensors(b: &[u8]) -> Result<Vec<(String, Tensor)>, String> {
    let st =
        SafeTensors::deserialize(b).map_err(|e| format!("not a valid .safetensors file: {e}"))?;
    let mut named = st.tensors();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    named
        .into_iter()
        .map(|(name, view)| {
            let dtype = match view.dtype() {
                StDtype::BOOL => DType::Bool,
                StDtype::U8 => DType::U8,
                StDtype::I8 => DType::I8,
                StDtype::I16 => DType::I16,
                StDtype::I32 => DType::I32,
                StDtype::I64 => DType::I64,
                StDtype::F16 => DType::F16,
                StDtype::BF16 => DType::BF16,
                StDtype::F32 => DType::F32,
                StDtype::F64 => DType::F64,
                other => {
                    return Err(format!(
                        "tensor `{name}` has dtype {other:?}, which cudash does not support"
                    ))
                }
            };
            let n: usize = view.shape().iter().product();
            if view.data().len() != n * dtype.size() {
                return Err(format!(
                    "tensor `{name}`: the data does not match its shape"
                ));
            }
            Ok((
                name,
                Tensor::new(
                    Buffer::from_le_bytes(dtype, view.data()),
                    view.shape().to_vec(),
                    Device::Cpu,
                ),
            ))
        })
        .collect()
}

/// What `torch.save` wrote: its zip archive's pickle, read as
/// `torch.load` reads it (`weights_only=True` unless `how` is full).
pub fn load_torch(path: &Path, how: Unpickler) -> Result<Pickled, Error> {
    let bytes = std::fs::read(path).map_err(|e| io_err("read", path, e.to_string()))?;
    load_torch_bytes(&bytes, how, path)
}

/// What `torch.save` wrote, read from `bytes` (a file's, or an
/// `io.BytesIO`'s: `name` says which in an error).
pub fn load_torch_bytes(bytes: &[u8], how: Unpickler, name: &Path) -> Result<Pickled, Error> {
    parse_torch(bytes, how).map_err(|r| match r.starts_with("Unsupported global") {
        // What PyTorch's safe load raises: `pickle.UnpicklingError`.
        true => Error::Module {
            class: "UnpicklingError",
            message: format!("Weights only load failed for `{}`: {r}", name.display()),
            help: None,
        },
        false => io_err("load", name, r),
    })
}

pub fn parse_torch(b: &[u8], how: Unpickler) -> Result<Pickled, String> {
    if !zip::is_zip(b) {
        return Err(if b.starts_with(&[0x80]) || b.starts_with(&[0x8a, 0x0a]) {
            "written by torch.save before PyTorch 1.6 (or with _use_new_zipfile_serialization=False): load and save it again with a newer PyTorch".into()
        } else {
            "not a torch.save file (it is not a zip archive)".into()
        });
    }
    let archive = zip::read(b)?;
    // Every record is under one folder, named after the file when it was written.
    let prefix = archive
        .entries
        .first()
        .and_then(|(n, _)| n.split_once('/'))
        .map(|(folder, _)| format!("{folder}/"))
        .ok_or("not a torch.save file (the archive is empty)")?;
    let record = |name: &str| archive.get(&format!("{prefix}{name}"));
    if archive.has(&format!("{prefix}constants.pkl")) {
        return Err("a TorchScript archive (torch.jit.save), not torch.save's: in PyTorch, `torch.save(model.state_dict(), path)` and load that".into());
    }
    let data = record("data.pkl").ok_or(if archive.has(&format!("{prefix}data.pkl")) {
        "data.pkl is compressed: torch.save writes its archives uncompressed"
    } else {
        "not a torch.save file (the archive has no data.pkl)"
    })?;
    if let Some(order) = record("byteorder") {
        if order != b"little" {
            return Err("saved on a big-endian machine: cudash reads little-endian files".into());
        }
    }
    pickle::unpickle(data, |key| archive.get(&format!("{prefix}data/{key}")), how)
}

/// A value as Python's `pickle.dump` writes one (protocol 2), for values
/// without tensors (their bytes live only in torch.save's archive).
pub fn pickle_bytes(v: &Pickled) -> Vec<u8> {
    pickle::pickle(v, &mut Vec::new())
}

/// What Python's `pickle.load` reads of a file of Python's values and
/// NumPy's arrays (no tensors, no classes: refused, never run), Python 2's
/// strings read as `strings` says.
pub fn unpickle_bytes(b: &[u8], strings: Py2Strings) -> Result<Pickled, String> {
    pickle::unpickle(b, |_| None, Unpickler::Full(strings))
}

/// `torch.save`'s format: `torch.load` (also with `weights_only=True`) reads it back.
pub fn save_torch(v: &Pickled, path: &Path) -> Result<(), Error> {
    let stem = path
        .file_stem()
        .map_or("archive".into(), |s| s.to_string_lossy().into_owned());
    let bytes = torch_bytes(v, &stem).map_err(|r| io_err("write", path, r))?;
    std::fs::write(path, bytes).map_err(|e| io_err("write", path, e.to_string()))
}

/// The bytes of a `torch.save` file whose records are under `stem/`.
pub fn torch_bytes(v: &Pickled, stem: &str) -> Result<Vec<u8>, String> {
    // PyTorch names the folder after the file, as text it can put in a zip.
    let folder: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut storages = Vec::new();
    let data = pickle::pickle(v, &mut storages);
    let mut entries = vec![
        (format!("{folder}/data.pkl"), data),
        (format!("{folder}/.format_version"), b"1".to_vec()),
        (format!("{folder}/.storage_alignment"), b"64".to_vec()),
        (format!("{folder}/byteorder"), b"little".to_vec()),
    ];
    for (key, bytes) in storages.into_iter().enumerate() {
        entries.push((format!("{folder}/data/{key}"), bytes));
    }
    entries.push((format!("{folder}/version"), b"3\n".to_vec()));
    zip::write(&entries)
}
