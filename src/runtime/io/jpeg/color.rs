//! From decoded planes to pixels, as libjpeg-turbo does it by default (PIL's
//! settings): chroma planes brought to full size by "fancy" upsampling (the
//! triangle filter of `jdsample.c`: 3/4 of the nearer sample, 1/4 of the
//! farther, with libjpeg's alternating rounding; edges repeat their last
//! sample), other ratios by repeating samples, then YCbCr to RGB through
//! `jdcolor.c`'s 16-bit fixed-point tables.

/// One component's decoded samples: `width`×`height` meaningful samples in
/// rows `stride` apart (the blocks' padding beyond them ignored).
pub struct Plane<'a> {
    pub samples: &'a [u8],
    pub stride: usize,
    pub width: usize,
    pub height: usize,
}

impl Plane<'_> {
    fn at(&self, x: usize, y: usize) -> u8 {
        self.samples[y * self.stride + x]
    }
}

/// A plane of `out_w`×`out_h` samples from one subsampled by `h`×`v`
/// (the frame's largest factors over the component's).
pub fn upsample(p: &Plane, h: usize, v: usize, out_w: usize, out_h: usize) -> Vec<u8> {
    let mut out = vec![0u8; out_w * out_h];
    match (h, v) {
        (1, 1) => {
            for y in 0..out_h {
                out[y * out_w..(y + 1) * out_w]
                    .copy_from_slice(&p.samples[y * p.stride..][..out_w]);
            }
        }
        (2, 1) if p.width > 2 => {
            let mut row = vec![0u8; p.width * 2];
            for y in 0..out_h {
                h2_fancy(&p.samples[y * p.stride..][..p.width], &mut row);
                out[y * out_w..(y + 1) * out_w].copy_from_slice(&row[..out_w]);
            }
        }
        (1, 2) => {
            for y in 0..out_h {
                let (near, far, bias) = v2_rows(p, y);
                for x in 0..out_w {
                    let s = 3 * p.at(x, near) as u32 + p.at(x, far) as u32 + bias;
                    out[y * out_w + x] = (s >> 2) as u8;
                }
            }
        }
        (2, 2) if p.width > 2 => {
            let mut row = vec![0u8; p.width * 2];
            for y in 0..out_h {
                let (near, far, _) = v2_rows(p, y);
                h2v2_fancy(p, near, far, &mut row);
                out[y * out_w..(y + 1) * out_w].copy_from_slice(&row[..out_w]);
            }
        }
        _ => {
            // libjpeg's plain (and `int_upsample`) path: each sample repeated.
            for y in 0..out_h {
                for x in 0..out_w {
                    out[y * out_w + x] = p.at(x / h, y / v);
                }
            }
        }
    }
    out
}

/// For output row `y` of a vertically doubled plane: the input row it lies
/// in, its neighbour on that side (the edge row repeated), and libjpeg's
/// rounding bias (1 above, 2 below).
fn v2_rows(p: &Plane, y: usize) -> (usize, usize, u32) {
    let near = y / 2;
    if y.is_multiple_of(2) {
        (near, near.saturating_sub(1), 1)
    } else {
        (near, (near + 1).min(p.height - 1), 2)
    }
}

/// `jdsample.c`'s h2v1 fancy upsampling of one row.
fn h2_fancy(input: &[u8], out: &mut [u8]) {
    let n = input.len();
    let s = |i: usize| input[i] as u32;
    out[0] = input[0];
    out[1] = ((s(0) * 3 + s(1) + 2) >> 2) as u8;
    for i in 1..n - 1 {
        let v = s(i) * 3;
        out[2 * i] = ((v + s(i - 1) + 1) >> 2) as u8;
        out[2 * i + 1] = ((v + s(i + 1) + 2) >> 2) as u8;
    }
    out[2 * n - 2] = ((s(n - 1) * 3 + s(n - 2) + 1) >> 2) as u8;
    out[2 * n - 1] = input[n - 1];
}

/// `jdsample.c`'s h2v2 fancy upsampling of one output row: columns summed
/// 3:1 between the near and far input rows, then 3:1 across.
fn h2v2_fancy(p: &Plane, near: usize, far: usize, out: &mut [u8]) {
    let n = p.width;
    let col = |x: usize| 3 * p.at(x, near) as u32 + p.at(x, far) as u32;
    let mut this = col(0);
    let mut next = col(1);
    out[0] = ((this * 4 + 8) >> 4) as u8;
    out[1] = ((this * 3 + next + 7) >> 4) as u8;
    let mut last = this;
    this = next;
    for x in 1..n - 1 {
        next = col(x + 1);
        out[2 * x] = ((this * 3 + last + 8) >> 4) as u8;
        out[2 * x + 1] = ((this * 3 + next + 7) >> 4) as u8;
        last = this;
        this = next;
    }
    out[2 * n - 2] = ((this * 3 + last + 8) >> 4) as u8;
    out[2 * n - 1] = ((this * 4 + 7) >> 4) as u8;
}

const SCALEBITS: i32 = 16;
const ONE_HALF: i32 = 1 << (SCALEBITS - 1);

fn fix(x: f64) -> i32 {
    (x * (1 << SCALEBITS) as f64 + 0.5) as i32
}

/// `jdcolor.c`'s tables for YCbCr → RGB, indexed by the Cb or Cr sample.
pub struct YccTables {
    cr_r: [i32; 256],
    cb_b: [i32; 256],
    cr_g: [i32; 256],
    cb_g: [i32; 256],
}

impl YccTables {
    pub fn new() -> YccTables {
        let mut t = YccTables {
            cr_r: [0; 256],
            cb_b: [0; 256],
            cr_g: [0; 256],
            cb_g: [0; 256],
        };
        for i in 0..256 {
            let x = i as i32 - 128;
            t.cr_r[i] = (fix(1.40200) * x + ONE_HALF) >> SCALEBITS;
            t.cb_b[i] = (fix(1.77200) * x + ONE_HALF) >> SCALEBITS;
            t.cr_g[i] = -fix(0.71414) * x;
            t.cb_g[i] = -fix(0.34414) * x + ONE_HALF;
        }
        t
    }

    #[inline]
    pub fn rgb(&self, y: u8, cb: u8, cr: u8) -> [u8; 3] {
        let (y, cb, cr) = (y as i32, cb as usize, cr as usize);
        let clamp = |v: i32| v.clamp(0, 255) as u8;
        [
            clamp(y + self.cr_r[cr]),
            clamp(y + ((self.cb_g[cb] + self.cr_g[cr]) >> SCALEBITS)),
            clamp(y + self.cb_b[cb]),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grey_stays_grey_and_the_tables_round_as_libjpeg() {
        let t = YccTables::new();
        assert_eq!(t.rgb(100, 128, 128), [100, 100, 100]);
        assert_eq!(t.rgb(128, 128, 255), [255, 37, 128]);
    }

    #[test]
    fn fancy_doubling_weighs_the_nearer_sample_three_to_one() {
        let mut out = [0u8; 6];
        h2_fancy(&[0, 100, 200], &mut out);
        assert_eq!(out, [0, 25, 75, 125, 175, 200]);
    }
}
