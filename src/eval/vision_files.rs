//! The files behind cudash's `torchvision` (`stdlib/torchvision_*.py`):
//!
//! - `_cudash.read_idx(path)`: an IDX file (MNIST's format, LeCun's
//!   "SN3 pascalvincent" files) as a tensor of its shape, as
//!   torchvision's `read_sn3_pascalvincent_tensor` reads it;
//! - `_cudash.download(url, path)`: a `file://` URL copied, any other
//!   fetched with `curl` (cudash carries no HTTP client);
//! - `_cudash.gunzip(src, dst)`: a `.gz` file unpacked;
//! - `_cudash.untar(src, dst, names=None)`: a `.tar` (or `.tar.gz`,
//!   `.tgz`) unpacked into a folder, all of it or the members named, the
//!   paths written returned (`runtime::io::tar`);
//! - `_cudash.tar_members(src)`: its members as `(name, size, is_dir)`,
//!   in order (Python's `tarfile`, `stdlib/tarfile.py`), the archive kept
//!   read until `_cudash.tar_close()`;
//! - `_cudash.md5(path)`: the file's MD5, as torchvision checks downloads;
//! - `_cudash.write_png(path, pixels)`: an `H×W×C` tensor of values in
//!   0..=255 as a PNG file (`torchvision.utils.save_image`);
//! - `_cudash.encode_figure(pixels, format, width_pt, height_pt)`: the
//!   bytes of a figure's file, `"png"`, `"pdf"` (one page of the figure's
//!   size holding its pixels, `runtime::io::pdf`) or `"svg"` (the PNG in
//!   an `<image>`), for `savefig` to a path or a file object;
//! - `_cudash.png_data_uri(pixels)`: the same PNG as a `data:` URI (the
//!   frames of `matplotlib.animation`'s HTML);
//! - `_cudash.show_png(text, pixels)`, `_cudash.show_html(text, html)`:
//!   shown in a notebook (false elsewhere); `_cudash.notebook()`: whether
//!   outputs go to one.

use std::io::{Read, Write};
use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::io::tar;
use crate::runtime::Tensor;

/// The names this module answers.
pub const NAMES: [&str; 13] = [
    "_cudash.read_idx",
    "_cudash.download",
    "_cudash.gunzip",
    "_cudash.untar",
    "_cudash.tar_members",
    "_cudash.tar_close",
    "_cudash.md5",
    "_cudash.write_png",
    "_cudash.encode_figure",
    "_cudash.show_png",
    "_cudash.png_data_uri",
    "_cudash.show_html",
    "_cudash.notebook",
];

impl Interp {
    pub(super) fn call_vision_files(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        let text = |k: usize| match args.get(k).and_then(|a| super::value::fspath(&a.value)) {
            Some(s) => Ok(s),
            None => Err(at(Error::value(format!(
                "{name}: argument {k} is a string"
            )))),
        };
        let io = |action: &str, path: &str, e: std::io::Error| {
            at(Error::Io {
                action: action.into(),
                path: path.to_string(),
                reason: e.to_string(),
            })
        };
        match name {
            "_cudash.read_idx" => {
                let path = text(0)?;
                let bytes = std::fs::read(&path).map_err(|e| io("read", &path, e))?;
                read_idx(&bytes)
                    .map(Value::tensor)
                    .map_err(|m| at(Error::runtime(format!("{path}: {m}"))))
            }
            "_cudash.download" => {
                let (url, path) = (text(0)?, text(1)?);
                download(&url, &path).map_err(|m| at(Error::runtime(m)))?;
                Ok(Value::None)
            }
            "_cudash.gunzip" => {
                let (src, dst) = (text(0)?, text(1)?);
                let file = std::fs::File::open(&src).map_err(|e| io("read", &src, e))?;
                let mut out = Vec::new();
                flate2::read::GzDecoder::new(file)
                    .read_to_end(&mut out)
                    .map_err(|e| io("unpack", &src, e))?;
                std::fs::write(&dst, out).map_err(|e| io("write", &dst, e))?;
                Ok(Value::None)
            }
            "_cudash.untar" => {
                let (src, dst) = (text(0)?, text(1)?);
                let wanted: Option<Vec<String>> = match args.get(2).map(|a| &a.value) {
                    None | Some(Value::None) => None,
                    Some(v) => Some(
                        v.items()
                            .unwrap_or_default()
                            .iter()
                            .filter_map(|n| match n {
                                Value::Str(s) => Some(s.to_string()),
                                _ => None,
                            })
                            .collect(),
                    ),
                };
                // Unpacking it all (CIFAR-10's download) keeps nothing;
                // `tarfile`'s member by member keeps the archive read.
                let members = archive(&src, wanted.is_some()).map_err(at)?;
                let chosen: Vec<&tar::Member> = members
                    .iter()
                    .filter(|m| wanted.as_ref().is_none_or(|w| w.contains(&m.name)))
                    .collect();
                let unpack = |m: String| at(Error::runtime(format!("{src}: {m}")));
                let written = tar::extract(chosen, std::path::Path::new(&dst)).map_err(unpack)?;
                Ok(Value::list(
                    written
                        .into_iter()
                        .map(|p| Value::Str(Arc::new(p.display().to_string())))
                        .collect(),
                ))
            }
            "_cudash.tar_members" => {
                let src = text(0)?;
                let members = archive(&src, true).map_err(at)?;
                Ok(Value::list(
                    members
                        .iter()
                        .map(|m| {
                            Value::list(vec![
                                Value::Str(Arc::new(m.name.clone())),
                                Value::Int(m.data.len() as i64),
                                Value::bool(m.dir),
                            ])
                        })
                        .collect(),
                ))
            }
            "_cudash.tar_close" => {
                LAST.with(|l| l.borrow_mut().take());
                Ok(Value::None)
            }
            "_cudash.md5" => {
                let path = text(0)?;
                let bytes = std::fs::read(&path).map_err(|e| io("read", &path, e))?;
                Ok(Value::Str(Arc::new(format!("{:x}", md5::compute(bytes)))))
            }
            // `_cudash.show_png(text, pixels)`: a figure shown in a notebook
            // (matplotlib's inline backend), as an image beside its text;
            // false elsewhere (a terminal shows nothing, as matplotlib's Agg).
            "_cudash.show_png" => {
                if !self.hooks.html {
                    return Ok(Value::bool(false));
                }
                let caption = text(0)?;
                let png = encoded(args.get(1).map(|a| &a.value)).map_err(at)?;
                let png = png.map_err(|e| io("show", "a figure", e))?;
                let html = format!("<img src=\"data:image/png;base64,{}\"/>", base64(&png));
                self.emit(super::Output::Display(super::Shown {
                    text: caption,
                    html: Some(html),
                }));
                Ok(Value::bool(true))
            }
            // `_cudash.show_html(text, html)`: an object's HTML shown in a
            // notebook (`IPython.display.display`); false elsewhere.
            "_cudash.show_html" => {
                if !self.hooks.html {
                    return Ok(Value::bool(false));
                }
                let (caption, html) = (text(0)?, text(1)?);
                self.emit(super::Output::Display(super::Shown {
                    text: caption,
                    html: Some(html),
                }));
                Ok(Value::bool(true))
            }
            "_cudash.notebook" => Ok(Value::bool(self.hooks.html)),
            "_cudash.encode_figure" => {
                let format = text(1)?;
                let points = |k: usize| match args.get(k).map(|a| &a.value) {
                    Some(Value::Float(v)) => Ok(v.get()),
                    Some(Value::Int(v)) => Ok(*v as f64),
                    _ => Err(at(Error::value(format!(
                        "{name}: argument {k} is a number"
                    )))),
                };
                let (width_pt, height_pt) = (points(2)?, points(3)?);
                let pixels = args.first().map(|a| &a.value);
                let bytes = match format.as_str() {
                    "png" => encoded(pixels).map_err(at)?,
                    "svg" => encoded(pixels)
                        .map_err(at)?
                        .map(|png| svg(&png, width_pt, height_pt)),
                    "pdf" => {
                        let (pixels, w, h, c) = samples(pixels).map_err(at)?;
                        crate::runtime::io::pdf::raster_pdf(&pixels, w, h, c, width_pt, height_pt)
                    }
                    _ => {
                        return Err(at(Error::value(format!(
                            "cudash writes figures as png, pdf or svg, not {format}"
                        ))))
                    }
                };
                let bytes = bytes.map_err(|e| io("encode", "a figure", e))?;
                Ok(Value::Bytes(Arc::new(bytes)))
            }
            "_cudash.png_data_uri" => {
                let png = encoded(args.first().map(|a| &a.value)).map_err(at)?;
                let png = png.map_err(|e| io("encode", "a frame", e))?;
                Ok(Value::Str(Arc::new(format!(
                    "data:image/png;base64,{}",
                    base64(&png)
                ))))
            }
            _ => {
                let path = text(0)?;
                let png = encoded(args.get(1).map(|a| &a.value)).map_err(at)?;
                let png = png.map_err(|e| io("write", &path, e))?;
                std::fs::write(&path, png).map_err(|e| io("write", &path, e))?;
                Ok(Value::None)
            }
        }
    }
}

/// The PNG file of an `H×W×C` tensor of pixels (1, 3 or 4 channels).
fn encoded(v: Option<&Value>) -> Result<std::io::Result<Vec<u8>>, Error> {
    let (pixels, w, h, c) = samples(v)?;
    Ok(png(&pixels, w, h, c))
}

/// An SVG document of the figure's size holding its PNG, as matplotlib's
/// SVG backend embeds raster images (`width`/`height` in points).
fn svg(png: &[u8], width_pt: f64, height_pt: f64) -> Vec<u8> {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"no\"?>\n\
         <svg xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"{width_pt}pt\" \
         height=\"{height_pt}pt\" viewBox=\"0 0 {width_pt} {height_pt}\" \
         xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\">\n \
         <image width=\"{width_pt}\" height=\"{height_pt}\" \
         xlink:href=\"data:image/png;base64,{}\"/>\n</svg>\n",
        base64(png)
    )
    .into_bytes()
}

/// The 8-bit samples of an `H×W×C` tensor of pixels (1, 3 or 4
/// channels) with its width, height and channels.
fn samples(v: Option<&Value>) -> Result<(Vec<u8>, usize, usize, usize), Error> {
    let Some(Value::Tensor(t)) = v else {
        return Err(Error::value("the pixels are a tensor"));
    };
    let (h, w, c) = match t.shape() {
        &[h, w, c] if matches!(c, 1 | 3 | 4) => (h, w, c),
        s => {
            return Err(Error::value(format!(
                "save_image: pixels of shape {s:?} are not H×W×C with 1, 3 or 4 channels"
            )))
        }
    };
    let pixels: Vec<u8> = t
        .to_vec::<i64>()
        .into_iter()
        .map(|v| v.clamp(0, 255) as u8)
        .collect();
    Ok((pixels, w, h, c))
}

/// Standard base64 (RFC 4648, with padding), for a data URL.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            match k <= chunk.len() {
                true => out.push(ABC[(n >> (18 - 6 * k)) as usize & 63] as char),
                false => out.push('='),
            }
        }
    }
    out
}

/// An archive read: its path, when it was last changed, its members.
type ReadArchive = (String, std::time::SystemTime, Arc<Vec<tar::Member>>);

thread_local! {
    /// The archive a `tarfile.TarFile` has open, until `close()`.
    static LAST: std::cell::RefCell<Option<ReadArchive>> = const { std::cell::RefCell::new(None) };
}

/// The members of the archive at `src` (gzipped or not). With `keep`, the
/// archive is kept until `_cudash.tar_close()`, so that `tarfile`'s
/// `extract(member)` over each member in turn reads and unpacks the file
/// once.
fn archive(src: &str, keep: bool) -> Result<Arc<Vec<tar::Member>>, Error> {
    let io = |e: std::io::Error| Error::Io {
        action: "read".into(),
        path: src.to_string(),
        reason: e.to_string(),
    };
    let modified = std::fs::metadata(src)
        .and_then(|m| m.modified())
        .map_err(io)?;
    let kept = LAST.with(|l| match &*l.borrow() {
        Some((path, when, members)) if path == src && *when == modified => {
            Some(Arc::clone(members))
        }
        _ => None,
    });
    if let Some(members) = kept {
        return Ok(members);
    }
    let mut bytes = std::fs::read(src).map_err(io)?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .map_err(|e| Error::Io {
                action: "unpack".into(),
                path: src.to_string(),
                reason: e.to_string(),
            })?;
        bytes = out;
    }
    // Python's tarfile refuses a file shorter than one header (an empty
    // archive is two zero blocks).
    let whole = match bytes.len() < 512 {
        true => Err("not a tar archive (shorter than a tar header)".to_string()),
        false => tar::members(&bytes),
    };
    let members = whole.map(Arc::new).map_err(|m| Error::Module {
        class: "tarfile.ReadError",
        message: format!("{src}: {m}"),
        help: None,
    })?;
    if keep {
        LAST.with(|l| *l.borrow_mut() = Some((src.to_string(), modified, Arc::clone(&members))));
    }
    Ok(members)
}

/// An IDX file: two zero bytes, the element type, the number of
/// dimensions, each dimension as a big-endian `u32`, then the elements,
/// big-endian. Unsigned bytes become `uint8` (MNIST's pixels and labels,
/// as torchvision reads them), signed bytes and shorts `int64` (cudash has
/// no `int8` or `int16`; their values are the same), the rest their own.
fn read_idx(b: &[u8]) -> Result<Tensor, String> {
    if b.len() < 4 || b[0] != 0 || b[1] != 0 {
        return Err("not an IDX file (it starts with two zero bytes)".into());
    }
    let (code, ndim) = (b[2], usize::from(b[3]));
    let head = 4 + 4 * ndim;
    let shape: Vec<usize> = b
        .get(4..head)
        .ok_or("the file ends inside its header")?
        .chunks(4)
        .map(|d| u32::from_be_bytes([d[0], d[1], d[2], d[3]]) as usize)
        .collect();
    let n: usize = shape.iter().product();
    let size = match code {
        0x08 | 0x09 => 1,
        0x0B => 2,
        0x0C | 0x0D => 4,
        0x0E => 8,
        c => return Err(format!("element type 0x{c:02X} is not one IDX defines")),
    };
    let body = b
        .get(head..head + n * size)
        .ok_or_else(|| format!("the file holds fewer than the {n} elements its header gives"))?;
    let be = |k: usize| &body[k * size..(k + 1) * size];
    Ok(match code {
        0x08 => Tensor::from_vec(body.to_vec(), shape),
        0x09 => Tensor::from_vec(body.iter().map(|&v| i64::from(v as i8)).collect(), shape),
        0x0B => Tensor::from_vec(
            (0..n)
                .map(|k| i64::from(i16::from_be_bytes([be(k)[0], be(k)[1]])))
                .collect(),
            shape,
        ),
        0x0C => Tensor::from_vec(
            (0..n)
                .map(|k| i32::from_be_bytes(be(k).try_into().unwrap_or_default()))
                .collect(),
            shape,
        ),
        0x0D => Tensor::from_vec(
            (0..n)
                .map(|k| f32::from_be_bytes(be(k).try_into().unwrap_or_default()))
                .collect(),
            shape,
        ),
        _ => Tensor::from_vec(
            (0..n)
                .map(|k| f64::from_be_bytes(be(k).try_into().unwrap_or_default()))
                .collect(),
            shape,
        ),
    })
}

/// `url` to `path`: a `file://` URL is a copy; http(s) goes through
/// `curl`, which every system cudash runs on carries.
fn download(url: &str, path: &str) -> Result<(), String> {
    if let Some(src) = url.strip_prefix("file://") {
        return std::fs::copy(src, path)
            .map(|_| ())
            .map_err(|e| format!("<urlopen error {src}: {e}>"));
    }
    let out = std::process::Command::new("curl")
        .args([
            "--fail",
            "--silent",
            "--show-error",
            "--location",
            "--output",
            path,
            url,
        ])
        .output()
        .map_err(|e| format!("cudash downloads with `curl`, which did not start: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let _ = std::fs::remove_file(path);
    let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
    Err(format!("<urlopen error {why}>"))
}

/// A PNG of 8-bit pixels: gray (1 channel), RGB (3) or RGBA (4).
fn png(pixels: &[u8], w: usize, h: usize, c: usize) -> std::io::Result<Vec<u8>> {
    let color = match c {
        1 => 0u8,
        3 => 2,
        _ => 6,
    };
    let mut raw = Vec::with_capacity(h * (w * c + 1));
    for row in pixels.chunks(w * c).take(h) {
        raw.push(0); // filter: none
        raw.extend_from_slice(row);
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw)?;
    let data = z.finish()?;
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(w as u32).to_be_bytes());
    ihdr.extend_from_slice(&(h as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, color, 0, 0, 0]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &data);
    chunk(&mut out, b"IEND", &[]);
    Ok(out)
}

/// One PNG chunk: length, type, data, and the CRC-32 of type and data.
fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// CRC-32 (IEEE, as PNG and gzip use it).
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::DType;

    #[test]
    fn base64_is_rfc_4648s() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"M"), "TQ==");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(&[0xff, 0xfe, 0x00, 0x10]), "//4AEA==");
    }

    #[test]
    fn an_idx_file_of_bytes_reads_in_its_shape() {
        let mut b = vec![0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 0, 3];
        b.extend_from_slice(&[0, 1, 2, 253, 254, 255]);
        let t = read_idx(&b).unwrap();
        assert_eq!(t.shape(), &[2, 3]);
        assert_eq!(t.dtype(), DType::U8);
        assert_eq!(t.to_vec::<i64>(), vec![0, 1, 2, 253, 254, 255]);
    }

    #[test]
    fn a_short_idx_file_is_an_error() {
        let b = vec![0, 0, 0x08, 1, 0, 0, 0, 5, 1, 2];
        assert!(read_idx(&b).unwrap_err().contains("fewer than the 5"));
        assert!(read_idx(b"PK\x03\x04").is_err());
    }

    #[test]
    fn crc32_is_the_png_one() {
        // The CRC of an IEND chunk, as every PNG ends.
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }
}
