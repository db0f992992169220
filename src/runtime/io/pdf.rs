//! A one-page PDF holding a raster image: what `savefig("x.pdf")` writes
//! for a figure cudash draws in pixels (matplotlib's PDF backend writes
//! vector paths; the page size is the figure's, the picture its pixels).

use std::io::Write;

/// A PDF 1.4 file of one `width_pt`×`height_pt` page (1/72 inch each)
/// filled by an image of `w`×`h` pixels of `c` interleaved 8-bit channels:
/// gray (1), RGB (3), or RGBA (4, the alpha a soft mask).
pub fn raster_pdf(
    pixels: &[u8],
    w: usize,
    h: usize,
    c: usize,
    width_pt: f64,
    height_pt: f64,
) -> std::io::Result<Vec<u8>> {
    let plane = |pick: &dyn Fn(&[u8], &mut Vec<u8>)| {
        let mut out = Vec::with_capacity(w * h * c);
        for px in pixels.chunks(c).take(w * h) {
            pick(px, &mut out);
        }
        deflate(&out)
    };
    let (space, color) = match c {
        1 => ("/DeviceGray", deflate(&pixels[..w * h])?),
        3 => ("/DeviceRGB", deflate(&pixels[..w * h * 3])?),
        _ => (
            "/DeviceRGB",
            plane(&|px, out| out.extend_from_slice(&px[..3]))?,
        ),
    };
    let alpha = match c {
        4 => Some(plane(&|px, out| out.push(px[3]))?),
        _ => None,
    };
    let content = format!("q {width_pt:.2} 0 0 {height_pt:.2} 0 0 cm /Im0 Do Q\n");
    let mask = if alpha.is_some() { " /SMask 6 0 R" } else { "" };

    let mut file = PdfFile::default();
    file.object(b"<< /Type /Catalog /Pages 2 0 R >>");
    file.object(b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    file.object(
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width_pt:.2} {height_pt:.2}] \
             /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>"
        )
        .as_bytes(),
    );
    file.stream("", content.as_bytes());
    file.stream(
        &format!(
            "/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace {space} \
             /BitsPerComponent 8 /Filter /FlateDecode{mask}"
        ),
        &color,
    );
    if let Some(alpha) = alpha {
        file.stream(
            &format!(
                "/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray \
                 /BitsPerComponent 8 /Filter /FlateDecode"
            ),
            &alpha,
        );
    }
    Ok(file.finish())
}

fn deflate(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(bytes)?;
    z.finish()
}

/// The file as it is written: numbered objects, each one's byte offset
/// kept for the cross-reference table at the end.
struct PdfFile {
    out: Vec<u8>,
    offsets: Vec<usize>,
}

impl Default for PdfFile {
    fn default() -> Self {
        // The comment of four bytes over 127 marks the file as binary.
        let mut out = b"%PDF-1.4\n%".to_vec();
        out.extend_from_slice(&[0xE2, 0xE3, 0xCF, 0xD3]);
        out.push(b'\n');
        PdfFile {
            out,
            offsets: Vec::new(),
        }
    }
}

impl PdfFile {
    fn object(&mut self, body: &[u8]) {
        self.offsets.push(self.out.len());
        let n = self.offsets.len();
        self.out
            .extend_from_slice(format!("{n} 0 obj\n").as_bytes());
        self.out.extend_from_slice(body);
        self.out.extend_from_slice(b"\nendobj\n");
    }

    fn stream(&mut self, dict: &str, data: &[u8]) {
        let mut body = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
        body.extend_from_slice(data);
        body.extend_from_slice(b"\nendstream");
        self.object(&body);
    }

    fn finish(mut self) -> Vec<u8> {
        let xref = self.out.len();
        let n = self.offsets.len() + 1;
        let mut table = format!("xref\n0 {n}\n0000000000 65535 f \n");
        for at in &self.offsets {
            table.push_str(&format!("{at:010} 00000 n \n"));
        }
        table.push_str(&format!(
            "trailer\n<< /Size {n} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
        ));
        self.out.extend_from_slice(table.as_bytes());
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where `needle` first is in `pdf` from `from` on.
    fn find(pdf: &[u8], needle: &str, from: usize) -> usize {
        let n = needle.as_bytes();
        from + pdf[from..].windows(n.len()).position(|w| w == n).unwrap()
    }

    fn number(pdf: &[u8], at: usize, len: usize) -> usize {
        std::str::from_utf8(&pdf[at..at + len])
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    /// Every offset in the table points at its object's header, and the
    /// image stream's bytes inflate back to the pixels.
    #[test]
    fn cross_references_and_image_agree() {
        let pixels: Vec<u8> = (0..4 * 3 * 3).map(|v| (v * 7) as u8).collect();
        let pdf = raster_pdf(&pixels, 4, 3, 3, 72.0, 54.0).unwrap();
        let tail = find(&pdf, "startxref\n", 0) + 10;
        let start = number(&pdf, tail, find(&pdf, "\n", tail) - tail);
        assert!(pdf[start..].starts_with(b"xref\n0 6\n0000000000 65535 f \n"));
        for k in 0..5 {
            let row = start + 29 + 20 * k;
            let at = number(&pdf, row, 10);
            assert!(pdf[at..].starts_with(format!("{} 0 obj", k + 1).as_bytes()));
        }
        find(&pdf, "/MediaBox [0 0 72.00 54.00]", 0);
        let image = find(&pdf, "/Subtype /Image", 0);
        let len_at = find(&pdf, "/Length ", image) + 8;
        let len = number(&pdf, len_at, find(&pdf, " >>", len_at) - len_at);
        let begin = find(&pdf, "stream\n", image) + 7;
        assert_eq!(&pdf[begin + len..begin + len + 10], b"\nendstream");
        let mut back = Vec::new();
        let mut z = flate2::read::ZlibDecoder::new(&pdf[begin..begin + len]);
        std::io::Read::read_to_end(&mut z, &mut back).unwrap();
        assert_eq!(back, pixels);
    }

    #[test]
    fn alpha_becomes_a_soft_mask() {
        let pixels = [10u8, 20, 30, 128, 40, 50, 60, 255];
        let pdf = raster_pdf(&pixels, 2, 1, 4, 10.0, 5.0).unwrap();
        find(&pdf, "/SMask 6 0 R", 0);
        find(&pdf, "trailer\n<< /Size 7 /Root 1 0 R >>", 0);
    }
}
