//! JPEG files decoded as PIL decodes them (PIL calls libjpeg-turbo with its
//! defaults): baseline and progressive Huffman-coded frames, any sampling
//! factors, restart intervals; the "islow" inverse DCT, fancy upsampling
//! and `jdcolor.c`'s YCbCr tables, so the pixels equal PIL's bit for bit.
//! Gray frames give one channel, three-component frames RGB (YCbCr unless
//! an Adobe marker says RGB). Arithmetic-coded, lossless, 12-bit and CMYK
//! files are refused with what they are.

mod color;
mod entropy;
mod idct;

use entropy::{Bits, Huffman};

/// A decoded image: `height` rows of `width` pixels of `channels` bytes.
pub struct Decoded {
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    pub pixels: Vec<u8>,
}

struct Component {
    id: u8,
    h: usize,
    v: usize,
    table: usize,
    /// The quantisation table, latched when the component is first scanned
    /// (as libjpeg does).
    quant: Option<[i32; 64]>,
    /// Blocks allocated per row and per column (whole MCUs).
    blocks_w: usize,
    blocks_h: usize,
    coefs: Vec<[i32; 64]>,
    pred: i32,
}

struct Frame {
    width: usize,
    height: usize,
    progressive: bool,
    hmax: usize,
    vmax: usize,
    mcus_x: usize,
    mcus_y: usize,
    comps: Vec<Component>,
}

impl Frame {
    /// A component's meaningful samples across and down.
    fn samples(&self, c: &Component) -> (usize, usize) {
        (
            (self.width * c.h).div_ceil(self.hmax),
            (self.height * c.v).div_ceil(self.vmax),
        )
    }
}

/// What a scan is: its components (indices into the frame's) with their
/// DC and AC tables, the spectral band and the successive-approximation bits.
struct Scan {
    comps: Vec<(usize, usize, usize)>,
    ss: usize,
    se: usize,
    ah: u32,
    al: u32,
}

fn u16_at(data: &[u8], pos: usize) -> Result<usize, String> {
    match data.get(pos..pos + 2) {
        Some(b) => Ok(u16::from_be_bytes([b[0], b[1]]) as usize),
        None => Err(truncated()),
    }
}

fn truncated() -> String {
    "image file is truncated".into()
}

pub fn is_jpeg(data: &[u8]) -> bool {
    data.starts_with(&[0xFF, 0xD8, 0xFF])
}

pub fn decode(data: &[u8]) -> Result<Decoded, String> {
    if !is_jpeg(data) {
        return Err("not a JPEG file".into());
    }
    let mut pos = 2;
    let mut quant: [Option<[i32; 64]>; 4] = [None; 4];
    let mut dc_tables: [Option<Huffman>; 4] = Default::default();
    let mut ac_tables: [Option<Huffman>; 4] = Default::default();
    let mut restart = 0usize;
    let mut frame: Option<Frame> = None;
    let mut color = ColorMarkers::default();
    loop {
        // A marker: 0xFF, any fill 0xFFs, then its code.
        if data.get(pos) != Some(&0xFF) {
            // libjpeg skips garbage to the next marker (with a warning).
            match data[pos.min(data.len())..].iter().position(|&b| b == 0xFF) {
                Some(skip) => pos += skip,
                None => return finish(frame, color, true),
            }
        }
        while data.get(pos) == Some(&0xFF) {
            pos += 1;
        }
        let Some(&marker) = data.get(pos) else {
            return finish(frame, color, true);
        };
        pos += 1;
        match marker {
            0xD9 => return finish(frame, color, false),
            0xD0..=0xD7 | 0x01 => continue,
            _ => {}
        }
        let len = u16_at(data, pos)?;
        let body = data.get(pos + 2..pos + len).ok_or_else(truncated)?;
        pos += len;
        match marker {
            0xC0..=0xC2 => frame = Some(read_frame(body, marker == 0xC2)?),
            0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => {
                let kind = if marker >= 0xC9 {
                    "arithmetic-coded"
                } else if marker == 0xC3 {
                    "lossless"
                } else {
                    "hierarchical"
                };
                return Err(format!(
                    "cudash decodes baseline and progressive JPEGs, not {kind} ones"
                ));
            }
            0xC4 => read_huffman(body, &mut dc_tables, &mut ac_tables)?,
            0xDB => read_quant(body, &mut quant)?,
            0xDD => restart = u16_at(body, 0)?,
            0xE0 if body.starts_with(b"JFIF\0") => color.jfif = true,
            0xEE if body.starts_with(b"Adobe") && body.len() >= 12 => {
                color.adobe_transform = Some(body[11])
            }
            0xDA => {
                let f = frame
                    .as_mut()
                    .ok_or("broken JPEG: a scan before its frame")?;
                let scan = read_scan(body, f)?;
                for &(c, _, _) in &scan.comps {
                    let comp = &mut f.comps[c];
                    if comp.quant.is_none() {
                        comp.quant = Some(
                            quant[comp.table]
                                .ok_or("broken JPEG: a quantisation table is missing")?,
                        );
                    }
                }
                let tables = Tables {
                    dc: &dc_tables,
                    ac: &ac_tables,
                };
                pos = decode_scan(data, pos, f, &scan, &tables, restart)?;
            }
            _ => {}
        }
    }
}

fn read_frame(body: &[u8], progressive: bool) -> Result<Frame, String> {
    if body.len() < 6 {
        return Err(truncated());
    }
    if body[0] != 8 {
        return Err(format!(
            "cudash decodes 8-bit JPEGs, not {}-bit ones",
            body[0]
        ));
    }
    let height = u16_at(body, 1)?;
    let width = u16_at(body, 3)?;
    let n = body[5] as usize;
    if width == 0 || height == 0 {
        return Err("broken JPEG: an image without size".into());
    }
    super::check_pixels(width, height)?;
    if n != 1 && n != 3 {
        return Err(format!(
            "cudash decodes gray and color JPEGs, not ones of {n} components (CMYK)"
        ));
    }
    let mut comps = Vec::with_capacity(n);
    for i in 0..n {
        let c = body.get(6 + 3 * i..9 + 3 * i).ok_or_else(truncated)?;
        let (h, v) = ((c[1] >> 4) as usize, (c[1] & 15) as usize);
        if !(1..=4).contains(&h) || !(1..=4).contains(&v) || c[2] > 3 {
            return Err("broken JPEG: bad sampling factors".into());
        }
        comps.push(Component {
            id: c[0],
            h,
            v,
            table: c[2] as usize,
            quant: None,
            blocks_w: 0,
            blocks_h: 0,
            coefs: Vec::new(),
            pred: 0,
        });
    }
    let hmax = comps.iter().map(|c| c.h).max().unwrap_or(1);
    let vmax = comps.iter().map(|c| c.v).max().unwrap_or(1);
    let mcus_x = width.div_ceil(8 * hmax);
    let mcus_y = height.div_ceil(8 * vmax);
    for c in &mut comps {
        if hmax % c.h != 0 || vmax % c.v != 0 {
            return Err("cudash decodes JPEGs whose sampling factors divide the largest".into());
        }
        c.blocks_w = mcus_x * c.h;
        c.blocks_h = mcus_y * c.v;
        c.coefs = vec![[0; 64]; c.blocks_w * c.blocks_h];
    }
    Ok(Frame {
        width,
        height,
        progressive,
        hmax,
        vmax,
        mcus_x,
        mcus_y,
        comps,
    })
}

fn read_huffman(
    mut body: &[u8],
    dc: &mut [Option<Huffman>; 4],
    ac: &mut [Option<Huffman>; 4],
) -> Result<(), String> {
    while !body.is_empty() {
        let head = body.get(..17).ok_or_else(truncated)?;
        let (class, id) = (head[0] >> 4, (head[0] & 15) as usize);
        let counts: [u8; 16] = head[1..17].try_into().unwrap_or([0; 16]);
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let values = body.get(17..17 + total).ok_or_else(truncated)?;
        if id > 3 || class > 1 {
            return Err("broken JPEG: a bad Huffman table".into());
        }
        let table = Some(Huffman::new(&counts, values)?);
        if class == 0 {
            dc[id] = table
        } else {
            ac[id] = table
        }
        body = &body[17 + total..];
    }
    Ok(())
}

fn read_quant(mut body: &[u8], quant: &mut [Option<[i32; 64]>; 4]) -> Result<(), String> {
    while !body.is_empty() {
        let (precision, id) = (body[0] >> 4, (body[0] & 15) as usize);
        let size = if precision == 0 { 64 } else { 128 };
        let values = body.get(1..1 + size).ok_or_else(truncated)?;
        if id > 3 {
            return Err("broken JPEG: a bad quantisation table".into());
        }
        let mut table = [0i32; 64];
        for k in 0..64 {
            let q = if precision == 0 {
                values[k] as i32
            } else {
                u16::from_be_bytes([values[2 * k], values[2 * k + 1]]) as i32
            };
            table[entropy::NATURAL[k]] = q;
        }
        quant[id] = Some(table);
        body = &body[1 + size..];
    }
    Ok(())
}

fn read_scan(body: &[u8], f: &Frame) -> Result<Scan, String> {
    let n = *body.first().ok_or_else(truncated)? as usize;
    let mut comps = Vec::with_capacity(n);
    for i in 0..n {
        let s = body.get(1 + 2 * i..3 + 2 * i).ok_or_else(truncated)?;
        let c = f
            .comps
            .iter()
            .position(|c| c.id == s[0])
            .ok_or("broken JPEG: a scan of an unknown component")?;
        comps.push((c, (s[1] >> 4) as usize & 3, (s[1] & 15) as usize & 3));
    }
    let tail = body.get(1 + 2 * n..4 + 2 * n).ok_or_else(truncated)?;
    let scan = Scan {
        comps,
        ss: tail[0] as usize,
        se: tail[1] as usize,
        ah: (tail[2] >> 4) as u32,
        al: (tail[2] & 15) as u32,
    };
    if n == 0 || scan.se > 63 || scan.ss > scan.se || (f.progressive && scan.ss > 0 && n != 1) {
        return Err("broken JPEG: a bad scan header".into());
    }
    Ok(scan)
}

/// The markers that say what three components are.
#[derive(Default, Clone, Copy)]
struct ColorMarkers {
    jfif: bool,
    adobe_transform: Option<u8>,
}

struct Tables<'a> {
    dc: &'a [Option<Huffman>; 4],
    ac: &'a [Option<Huffman>; 4],
}

/// The entropy-coded data of one scan, from `pos`; the position of the
/// marker after it.
fn decode_scan(
    data: &[u8],
    pos: usize,
    f: &mut Frame,
    scan: &Scan,
    t: &Tables,
    restart: usize,
) -> Result<usize, String> {
    let missing = || "broken JPEG: a Huffman table is missing".to_string();
    let need_dc = !f.progressive || (scan.ss == 0 && scan.ah == 0);
    let need_ac = !f.progressive || scan.ss > 0;
    let mut tables = Vec::new();
    for &(c, dc, ac) in &scan.comps {
        let dc = if need_dc {
            Some(t.dc[dc].as_ref().ok_or_else(missing)?)
        } else {
            None
        };
        let ac = if need_ac {
            Some(t.ac[ac].as_ref().ok_or_else(missing)?)
        } else {
            None
        };
        tables.push((c, dc, ac));
        f.comps[c].pred = 0;
    }
    let mut b = Bits::new(data, pos);
    let mut eobrun = 0u32;
    let band = (scan.ss, scan.se, scan.al);
    let progressive = f.progressive;
    let block = |b: &mut Bits,
                 comp: &mut Component,
                 dc: Option<&Huffman>,
                 ac: Option<&Huffman>,
                 at: usize,
                 eobrun: &mut u32|
     -> Result<(), String> {
        let coef = &mut comp.coefs[at];
        match (progressive, scan.ss, scan.ah) {
            (false, _, _) => entropy::block_sequential(
                b,
                dc.ok_or_else(missing)?,
                ac.ok_or_else(missing)?,
                &mut comp.pred,
                coef,
            ),
            (true, 0, 0) => {
                entropy::dc_first(b, dc.ok_or_else(missing)?, &mut comp.pred, coef, scan.al)
            }
            (true, 0, _) => {
                entropy::dc_refine(b, coef, scan.al);
                Ok(())
            }
            (true, _, 0) => entropy::ac_first(b, ac.ok_or_else(missing)?, eobrun, coef, band),
            (true, _, _) => entropy::ac_refine(b, ac.ok_or_else(missing)?, eobrun, coef, band),
        }
    };
    let mut mcu = 0usize;
    let mut begin_mcu = |b: &mut Bits,
                         comps: &mut [Component],
                         eobrun: &mut u32,
                         total: usize|
     -> Result<(), String> {
        if restart > 0 && mcu > 0 && mcu.is_multiple_of(restart) && mcu < total {
            b.restart()?;
            for c in comps.iter_mut() {
                c.pred = 0;
            }
            *eobrun = 0;
        }
        mcu += 1;
        Ok(())
    };
    if tables.len() == 1 {
        // One component: its blocks one by one, over its meaningful area.
        let (c, dc, ac) = tables[0];
        let (sw, sh) = f.samples(&f.comps[c]);
        let (bw, bh) = (sw.div_ceil(8), sh.div_ceil(8));
        for by in 0..bh {
            for bx in 0..bw {
                begin_mcu(&mut b, &mut f.comps, &mut eobrun, bw * bh)?;
                let comp = &mut f.comps[c];
                let at = by * comp.blocks_w + bx;
                block(&mut b, comp, dc, ac, at, &mut eobrun)?;
            }
        }
    } else {
        let total = f.mcus_x * f.mcus_y;
        for my in 0..f.mcus_y {
            for mx in 0..f.mcus_x {
                begin_mcu(&mut b, &mut f.comps, &mut eobrun, total)?;
                for &(c, dc, ac) in &tables {
                    let comp = &mut f.comps[c];
                    for y in 0..comp.v {
                        for x in 0..comp.h {
                            let at = (my * comp.v + y) * comp.blocks_w + mx * comp.h + x;
                            block(&mut b, comp, dc, ac, at, &mut eobrun)?;
                        }
                    }
                }
            }
        }
    }
    if b.truncated {
        return Err(truncated());
    }
    // The next marker: past any stray restart markers and padding.
    let mut p = b.pos;
    while p + 1 < data.len() {
        if data[p] == 0xFF
            && data[p + 1] != 0
            && !(0xD0..=0xD7).contains(&data[p + 1])
            && data[p + 1] != 0xFF
        {
            return Ok(p);
        }
        p += 1;
    }
    Ok(data.len())
}

/// The pixels of the decoded coefficients.
fn finish(frame: Option<Frame>, color: ColorMarkers, ended_early: bool) -> Result<Decoded, String> {
    let f = frame.ok_or_else(|| {
        if ended_early {
            truncated()
        } else {
            "broken JPEG: no frame".into()
        }
    })?;
    if f.comps.iter().any(|c| c.quant.is_none()) {
        return Err(truncated());
    }
    let planes: Vec<Vec<u8>> = f
        .comps
        .iter()
        .map(|c| {
            let stride = c.blocks_w * 8;
            let mut samples = vec![0u8; stride * c.blocks_h * 8];
            let quant = c.quant.unwrap_or([0; 64]);
            for by in 0..c.blocks_h {
                for bx in 0..c.blocks_w {
                    let raw = &c.coefs[by * c.blocks_w + bx];
                    let coef: [i32; 64] = std::array::from_fn(|k| raw[k].wrapping_mul(quant[k]));
                    idct::idct_islow(&coef, &mut samples[by * 8 * stride + bx * 8..], stride);
                }
            }
            let (width, height) = f.samples(c);
            let plane = color::Plane {
                samples: &samples,
                stride,
                width,
                height,
            };
            color::upsample(&plane, f.hmax / c.h, f.vmax / c.v, f.width, f.height)
        })
        .collect();
    let n = f.width * f.height;
    let pixels = if planes.len() == 1 {
        planes.into_iter().next().unwrap_or_default()
    } else {
        let mut out = vec![0u8; n * 3];
        // libjpeg's guess of the color space (`default_decompress_parms`).
        let ycc = match (color.jfif, color.adobe_transform) {
            (true, _) => true,
            (false, Some(t)) => t != 0,
            (false, None) => !f.comps.iter().map(|c| c.id).eq(*b"RGB"),
        };
        let tables = color::YccTables::new();
        let samples = planes[0].iter().zip(&planes[1]).zip(&planes[2]);
        for (o, ((&a, &b), &c)) in out.chunks_exact_mut(3).zip(samples) {
            o.copy_from_slice(&if ycc { tables.rgb(a, b, c) } else { [a, b, c] });
        }
        out
    };
    Ok(Decoded {
        width: f.width,
        height: f.height,
        channels: if f.comps.len() == 1 { 1 } else { 3 },
        pixels,
    })
}
