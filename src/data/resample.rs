//! PIL's `Image.resize` of 8-bit images (`libImaging/Resample.c`, written
//! from its algorithm): each axis in turn, every output sample a weighted
//! sum of the input samples under the filter stretched by the scale (so
//! shrinking averages, as PIL's "antialias" does), the weights computed in
//! double, normalised, then rounded to 22-bit fixed point; `NEAREST` picks
//! the sample under each output pixel's centre as PIL's affine scaling
//! does. Images are `height` rows of `width` pixels of `channels` bytes.

/// PIL's resampling filters, numbered as `Image.Resampling`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Filter {
    Nearest = 0,
    Lanczos = 1,
    Bilinear = 2,
    Bicubic = 3,
    Box = 4,
    Hamming = 5,
}

impl Filter {
    pub fn from_pil(n: i64) -> Option<Filter> {
        Some(match n {
            0 => Filter::Nearest,
            1 => Filter::Lanczos,
            2 => Filter::Bilinear,
            3 => Filter::Bicubic,
            4 => Filter::Box,
            5 => Filter::Hamming,
            _ => return None,
        })
    }

    fn support(self) -> f64 {
        match self {
            Filter::Nearest | Filter::Box => 0.5,
            Filter::Bilinear | Filter::Hamming => 1.0,
            Filter::Bicubic => 2.0,
            Filter::Lanczos => 3.0,
        }
    }

    fn weight(self, x: f64) -> f64 {
        fn sinc(x: f64) -> f64 {
            if x == 0.0 {
                return 1.0;
            }
            let x = x * std::f64::consts::PI;
            x.sin() / x
        }
        match self {
            Filter::Nearest | Filter::Box => {
                if x > -0.5 && x <= 0.5 {
                    1.0
                } else {
                    0.0
                }
            }
            Filter::Bilinear => {
                let x = x.abs();
                if x < 1.0 {
                    1.0 - x
                } else {
                    0.0
                }
            }
            Filter::Hamming => {
                let x = x.abs();
                if x == 0.0 {
                    1.0
                } else if x >= 1.0 {
                    0.0
                } else {
                    let px = x * std::f64::consts::PI;
                    px.sin() / px * (0.54 + 0.46 * px.cos())
                }
            }
            Filter::Bicubic => {
                const A: f64 = -0.5;
                let x = x.abs();
                if x < 1.0 {
                    ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0
                } else if x < 2.0 {
                    (((x - 5.0) * x + 8.0) * x - 4.0) * A
                } else {
                    0.0
                }
            }
            Filter::Lanczos => {
                if (-3.0..3.0).contains(&x) {
                    sinc(x) * sinc(x / 3.0)
                } else {
                    0.0
                }
            }
        }
    }
}

const PRECISION_BITS: u32 = 32 - 8 - 2;

/// For each output sample along one axis: the first input sample it reads
/// and its fixed-point weights.
struct Taps {
    first: Vec<usize>,
    weights: Vec<Vec<i32>>,
}

/// The weights of `out` samples over the input span `from..to` of an axis
/// of `size` samples (PIL's `precompute_coeffs` and `normalize_coeffs_8bpc`).
fn taps(size: usize, from: f64, to: f64, out: usize, filter: Filter) -> Taps {
    let scale = (to - from) / out as f64;
    let filterscale = scale.max(1.0);
    let support = filter.support() * filterscale;
    let mut taps = Taps {
        first: Vec::with_capacity(out),
        weights: Vec::with_capacity(out),
    };
    for i in 0..out {
        let center = from + (i as f64 + 0.5) * scale;
        let ss = 1.0 / filterscale;
        let lo = ((center - support + 0.5) as i64).max(0) as usize;
        let hi = ((center + support + 0.5) as i64)
            .min(size as i64)
            .max(lo as i64) as usize;
        let w: Vec<f64> = (lo..hi)
            .map(|x| filter.weight((x as f64 - center + 0.5) * ss))
            .collect();
        let total: f64 = w.iter().sum();
        let fixed = w
            .iter()
            .map(|&k| {
                let k = if total != 0.0 { k / total } else { k };
                let v = k * (1u32 << PRECISION_BITS) as f64;
                (if v < 0.0 { v - 0.5 } else { v + 0.5 }) as i32
            })
            .collect();
        taps.first.push(lo);
        taps.weights.push(fixed);
    }
    taps
}

/// An accumulated sample as a byte (Pillow's `clip8`; its sums are C
/// `int`s, which these wrap as).
fn clip8(v: i32) -> u8 {
    if v >= (1i32 << PRECISION_BITS) << 8 {
        255
    } else if v <= 0 {
        0
    } else {
        (v >> PRECISION_BITS) as u8
    }
}

/// An image resized to `out_w`×`out_h` from the region `area` (left, top,
/// right, bottom, in pixels, fractional allowed) of the input, as PIL's
/// `Image.resize(size, filter, box)`.
pub fn resize(
    pixels: &[u8],
    (width, height, channels): (usize, usize, usize),
    (out_w, out_h): (usize, usize),
    filter: Filter,
    area: [f64; 4],
) -> Vec<u8> {
    if filter == Filter::Nearest {
        return nearest(pixels, (width, height, channels), (out_w, out_h), area);
    }
    let need_h = out_w != width || area[0] != 0.0 || area[2] != out_w as f64;
    let need_v = out_h != height || area[1] != 0.0 || area[3] != out_h as f64;
    let horiz = taps(width, area[0], area[2], out_w, filter);
    let vert = taps(height, area[1], area[3], out_h, filter);
    let mut rows = pixels.to_vec();
    let (mut cur_w, mut first_row) = (width, 0usize);
    if need_h {
        // Only the rows the vertical pass will read.
        let top = vert.first.first().copied().unwrap_or(0);
        let bottom = vert
            .first
            .iter()
            .zip(&vert.weights)
            .map(|(f, w)| f + w.len())
            .max()
            .unwrap_or(0)
            .max(top);
        let mut out = vec![0u8; (bottom - top) * out_w * channels];
        for y in top..bottom {
            let src = &pixels[y * width * channels..(y + 1) * width * channels];
            let dst = &mut out[(y - top) * out_w * channels..(y - top + 1) * out_w * channels];
            for (x, (lo, w)) in horiz.first.iter().zip(&horiz.weights).enumerate() {
                let taps = &src[lo * channels..(lo + w.len()) * channels];
                for c in 0..channels {
                    let mut acc = 1i32 << (PRECISION_BITS - 1);
                    for (px, &wk) in taps[c..].iter().step_by(channels).zip(w) {
                        acc = acc.wrapping_add((*px as i32).wrapping_mul(wk));
                    }
                    dst[x * channels + c] = clip8(acc);
                }
            }
        }
        rows = out;
        cur_w = out_w;
        first_row = top;
    }
    if !need_v {
        return rows;
    }
    let stride = cur_w * channels;
    let mut out = vec![0u8; out_h * stride];
    let mut acc = vec![0i32; stride];
    for (y, (lo, w)) in vert.first.iter().zip(&vert.weights).enumerate() {
        let lo = lo - first_row;
        acc.fill(1 << (PRECISION_BITS - 1));
        // Row by row: each input row's weight over the whole output row.
        for (k, &wk) in w.iter().enumerate() {
            let src = &rows[(lo + k) * stride..(lo + k + 1) * stride];
            for (a, &px) in acc.iter_mut().zip(src) {
                *a = a.wrapping_add((px as i32).wrapping_mul(wk));
            }
        }
        for (o, &a) in out[y * stride..(y + 1) * stride].iter_mut().zip(&acc) {
            *o = clip8(a);
        }
    }
    out
}

/// PIL's affine nearest-neighbour scaling: the input sample under each
/// output centre, positions stepped by the scale in double.
fn nearest(
    pixels: &[u8],
    (width, height, channels): (usize, usize, usize),
    (out_w, out_h): (usize, usize),
    area: [f64; 4],
) -> Vec<u8> {
    let (ax, ay) = (
        (area[2] - area[0]) / out_w as f64,
        (area[3] - area[1]) / out_h as f64,
    );
    let coord = |v: f64| if v < 0.0 { -1 } else { v as i64 };
    let mut xs = Vec::with_capacity(out_w);
    let mut xo = area[0] + ax * 0.5;
    for _ in 0..out_w {
        xs.push(coord(xo));
        xo += ax;
    }
    let mut out = vec![0u8; out_w * out_h * channels];
    let mut yo = area[1] + ay * 0.5;
    for y in 0..out_h {
        let yi = coord(yo);
        yo += ay;
        if yi < 0 || yi >= height as i64 {
            continue;
        }
        for (x, &xi) in xs.iter().enumerate() {
            if xi >= 0 && xi < width as i64 {
                let src = (yi as usize * width + xi as usize) * channels;
                let dst = (y * out_w + x) * channels;
                out[dst..dst + channels].copy_from_slice(&pixels[src..src + channels]);
            }
        }
    }
    out
}
