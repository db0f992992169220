//! Image files as PIL opens them: PNG (through the `png` crate, its samples
//! put in PIL's modes) and JPEG (`jpeg`, decoded as PIL's libjpeg-turbo
//! decodes). Pixels come as rows of interleaved 8-bit samples.

use std::io::Cursor;

use png::{BitDepth, ColorType, Transformations};

/// An opened image: PIL's `format` and `mode`, `height` rows of `width`
/// pixels of the mode's channels, and for a palette image its RGB palette
/// and the alpha of each entry (PNG's `tRNS`).
pub struct ImageFile {
    pub format: &'static str,
    pub mode: &'static str,
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
    pub palette: Option<Vec<u8>>,
    pub palette_alpha: Option<Vec<u8>>,
}

/// The file's image, or why not (PIL's words where it has them).
pub fn open(data: &[u8]) -> Result<ImageFile, String> {
    if super::jpeg::is_jpeg(data) {
        let d = super::jpeg::decode(data)?;
        return Ok(ImageFile {
            format: "JPEG",
            mode: if d.channels == 1 { "L" } else { "RGB" },
            width: d.width,
            height: d.height,
            pixels: d.pixels,
            palette: None,
            palette_alpha: None,
        });
    }
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        return open_png(data);
    }
    Err("cannot identify image file".into())
}

fn open_png(data: &[u8]) -> Result<ImageFile, String> {
    // The pixel limit is Pillow's (below); the crate's own 64 MiB is not.
    let limits = png::Limits { bytes: 1 << 33 };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(data), limits);
    decoder.set_transformations(Transformations::IDENTITY);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let (w, h) = (reader.info().width as usize, reader.info().height as usize);
    super::check_pixels(w, h)?;
    let size = reader.output_buffer_size().ok_or("the PNG is too large")?;
    let mut buf = vec![0u8; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| match e {
        png::DecodingError::IoError(_) => "image file is truncated".to_string(),
        e => e.to_string(),
    })?;
    let (width, height) = (frame.width as usize, frame.height as usize);
    let info = reader.info();
    let depth = frame.bit_depth;
    let (mode, channels) = match frame.color_type {
        ColorType::Grayscale if depth == BitDepth::One => ("1", 1),
        ColorType::Grayscale if depth == BitDepth::Sixteen => {
            return Err("cudash opens 8-bit gray PNGs; this one is 16-bit (PIL's mode I;16)".into())
        }
        ColorType::Grayscale => ("L", 1),
        ColorType::GrayscaleAlpha => ("LA", 2),
        ColorType::Rgb => ("RGB", 3),
        ColorType::Rgba => ("RGBA", 4),
        ColorType::Indexed => ("P", 1),
    };
    let bits = depth as usize;
    let mut pixels = vec![0u8; width * height * channels];
    for y in 0..height {
        let line = &buf[y * frame.line_size..(y + 1) * frame.line_size];
        let out = &mut pixels[y * width * channels..(y + 1) * width * channels];
        match bits {
            8 => out.copy_from_slice(&line[..out.len()]),
            // PIL keeps the high byte of 16-bit samples.
            16 => out
                .iter_mut()
                .enumerate()
                .for_each(|(i, o)| *o = line[2 * i]),
            _ => {
                let per_byte = 8 / bits;
                let mask = (1u8 << bits) - 1;
                for (i, o) in out.iter_mut().enumerate() {
                    let shift = 8 - bits * (i % per_byte + 1);
                    let v = (line[i / per_byte] >> shift) & mask;
                    // Palette indices stay; gray levels stretch to 0..=255
                    // (PIL's "L;2", "L;4", and "1" as 0/255).
                    *o = if mode == "P" { v } else { v * (255 / mask) };
                }
            }
        }
    }
    let palette = info
        .palette
        .as_ref()
        .map(|p| p.to_vec())
        .filter(|_| mode == "P");
    let palette_alpha = info
        .trns
        .as_ref()
        .map(|t| t.to_vec())
        .filter(|_| mode == "P");
    Ok(ImageFile {
        format: "PNG",
        mode,
        width,
        height,
        pixels,
        palette,
        palette_alpha,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pillow's own files, each damaged many ways (bytes changed, markers
    /// dropped in, the file cut short): every one decodes or says why,
    /// none panics (the tests build checks arithmetic overflow).
    #[test]
    fn damaged_files_are_errors_never_panics() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pil");
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut errors = 0;
        for name in [
            "photo.jpg",
            "photo_progressive.jpg",
            "restart.jpg",
            "gray.jpg",
            "photo.png",
            "palette.png",
        ] {
            let good = std::fs::read(dir.join(name)).unwrap();
            assert!(open(&good).is_ok(), "{name}");
            for _ in 0..1000 {
                let mut bad = good.clone();
                match next() % 4 {
                    0 => bad.truncate(next() as usize % bad.len()),
                    1 => {
                        let at = next() as usize % bad.len();
                        bad.insert(at, 0xFF);
                        bad.insert(at + 1, (next() % 256) as u8);
                    }
                    _ => {
                        for _ in 0..1 + next() % 8 {
                            let at = next() as usize % bad.len();
                            bad[at] = (next() % 256) as u8;
                        }
                    }
                }
                if let Err(e) = open(&bad) {
                    assert!(!e.is_empty());
                    errors += 1;
                }
            }
        }
        // Most damage is seen (the rest decodes to other pixels, as in Pillow).
        assert!(errors > 1000, "{errors}");
    }
}
