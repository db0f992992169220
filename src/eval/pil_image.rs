//! The natives behind cudash's `PIL.Image` (`stdlib/pil_image.py`):
//!
//! - `_cudash.image_open(fp)`: a PNG or JPEG file (a path, a path-like or
//!   a file opened "rb", or the bytes of an `io.BytesIO`) as `(format, mode, pixels, palette, alphas)`,
//!   the pixels an `H×W×C` uint8 tensor (`runtime::io::image`);
//! - `_cudash.image_resize(pixels, (w, h), filter, box)`: PIL's
//!   `Image.resize` of those pixels (`data::resample`);
//! - `_cudash.read_file(path)`: a file's bytes as a uint8 tensor
//!   (`torchvision.io.read_file`), which `image_open` also takes.

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::data::resample::{self, Filter};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::{DType, Tensor};

/// The names this module answers.
pub const NAMES: [&str; 3] = [
    "_cudash.image_open",
    "_cudash.image_resize",
    "_cudash.read_file",
];

fn bytes_value(b: Vec<u8>) -> Value {
    Value::list(b.into_iter().map(|v| Value::Int(v as i64)).collect())
}

impl Interp {
    pub(super) fn call_pil_image(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        let arg = |k: usize| args.get(k).map(|a| &a.value).unwrap_or(&Value::None);
        if name == "_cudash.image_open" || name == "_cudash.read_file" {
            // The bytes themselves (what `read_file` gave), or a file's.
            let (path, data) = match arg(0) {
                Value::Tensor(t) if t.dtype() == DType::U8 && t.shape().len() == 1 => {
                    ("<bytes>".to_string(), t.to_vec::<u8>())
                }
                Value::Bytes(b) => ("<bytes>".to_string(), b.to_vec()),
                v => {
                    let path = match v {
                        Value::File(f) => crate::runtime::lock::lock(f).name.clone(),
                        v => super::value::fspath(v).ok_or_else(|| {
                            at(Error::value(
                                "Image.open takes a file name, a path or a file opened \"rb\"",
                            ))
                        })?,
                    };
                    let data =
                        std::fs::read(&path).map_err(|e| at(super::files::os_error(&e, &path)))?;
                    (path, data)
                }
            };
            if name == "_cudash.read_file" {
                let n = data.len();
                return Ok(Value::tensor(Tensor::from_vec(data, vec![n])));
            }
            let image = crate::runtime::io::image::open(&data).map_err(|m| {
                // `PIL.Image.open` raises "cannot identify" as its
                // UnidentifiedImageError (an OSError).
                let message = if m == "cannot identify image file" {
                    format!("cannot identify image file '{path}'")
                } else {
                    format!("{path}: {m}")
                };
                at(Error::Module {
                    class: "OSError",
                    message,
                    help: None,
                })
            })?;
            let channels = image.pixels.len() / (image.width * image.height).max(1);
            let pixels = Tensor::from_vec(image.pixels, vec![image.height, image.width, channels]);
            return Ok(Value::list(vec![
                Value::Str(Arc::new(image.format.into())),
                Value::Str(Arc::new(image.mode.into())),
                Value::tensor(pixels),
                image.palette.map(bytes_value).unwrap_or(Value::None),
                image.palette_alpha.map(bytes_value).unwrap_or(Value::None),
            ]));
        }
        let Value::Tensor(t) = arg(0) else {
            return Err(at(Error::value("image_resize: argument 0 is the pixels")));
        };
        let (h, w, c) = match t.shape() {
            &[h, w, c] if t.dtype() == DType::U8 => (h, w, c),
            s => {
                return Err(at(Error::value(format!(
                    "image_resize: pixels are H×W×C uint8, not {s:?} {:?}",
                    t.dtype()
                ))))
            }
        };
        // The Python side passes tuples of numbers.
        let numbers = |v: &Value| -> Vec<f64> {
            match v {
                Value::List(items) => items
                    .iter()
                    .filter_map(|x| match x {
                        Value::Int(i) => Some(*i as f64),
                        Value::Float(f) => Some(f.get()),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            }
        };
        let size = numbers(arg(1));
        let area = numbers(arg(3));
        let filter = match arg(2) {
            Value::Int(n) => Filter::from_pil(*n),
            _ => None,
        };
        let (Some(filter), [out_w, out_h], [l, t0, r, b]) = (filter, &size[..], &area[..]) else {
            return Err(at(Error::value(
                "image_resize(pixels, (w, h), filter, (left, top, right, bottom))",
            )));
        };
        // Pillow's checks (`_imaging.c`'s resize), as its ValueErrors.
        let bad = if *l < 0.0 || *t0 < 0.0 {
            Some("box offset can't be negative")
        } else if *r > w as f64 || *b > h as f64 {
            Some("box can't exceed original image size")
        } else if r - l < 0.0 || b - t0 < 0.0 {
            Some("box can't be empty")
        } else if *out_w < 1.0 || *out_h < 1.0 {
            Some("height and width must be > 0")
        } else {
            None
        };
        if let Some(m) = bad {
            return Err(at(Error::value(m)));
        }
        let pixels = t.to_vec::<u8>();
        let out = resample::resize(
            &pixels,
            (w, h, c),
            (*out_w as usize, *out_h as usize),
            filter,
            [*l, *t0, *r, *b],
        );
        Ok(Value::tensor(Tensor::from_vec(
            out,
            vec![*out_h as usize, *out_w as usize, c],
        )))
    }
}
