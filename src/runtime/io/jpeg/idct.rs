//! The inverse DCT of one 8×8 block, libjpeg's "islow" (`jidctint.c`, the
//! Loeffler–Ligtenberg–Moschytz integer transform PIL decodes with): 13-bit
//! constants, 2 extra bits between the passes, the output clamped through
//! libjpeg's 1024-entry range-limit window. Written from the algorithm's
//! description; decoding PIL's JPEGs gives PIL's pixels bit for bit.

const CONST_BITS: i32 = 13;
const PASS1_BITS: i32 = 2;

// round(x * 2^13), as libjpeg tabulates them.
const FIX_0_298631336: i32 = 2446;
const FIX_0_390180644: i32 = 3196;
const FIX_0_541196100: i32 = 4433;
const FIX_0_765366865: i32 = 6270;
const FIX_0_899976223: i32 = 7373;
const FIX_1_175875602: i32 = 9633;
const FIX_1_501321110: i32 = 12299;
const FIX_1_847759065: i32 = 15137;
const FIX_1_961570560: i32 = 16069;
const FIX_2_053119869: i32 = 16819;
const FIX_2_562915447: i32 = 20995;
const FIX_3_072711026: i32 = 25172;

fn descale(x: i32, n: i32) -> i32 {
    (x + (1 << (n - 1))) >> n
}

/// A sample of the transform's output (centred on 0) as a pixel: libjpeg
/// indexes a table with the value masked to 10 bits, which clamps every
/// value in -512..=511 and wraps the rest.
fn range_limit(x: i32) -> u8 {
    let wrapped = ((x + 512) & 1023) - 512;
    (wrapped + 128).clamp(0, 255) as u8
}

/// One 1-D pass over eight values (`v[k]` the k-th frequency), giving the
/// eight outputs scaled by 2^CONST_BITS (before the pass's descale).
fn pass(v: [i32; 8]) -> [i32; 8] {
    // Even part.
    let z1 = (v[2] + v[6]) * FIX_0_541196100;
    let tmp2 = z1 - v[6] * FIX_1_847759065;
    let tmp3 = z1 + v[2] * FIX_0_765366865;
    let tmp0 = (v[0] + v[4]) << CONST_BITS;
    let tmp1 = (v[0] - v[4]) << CONST_BITS;
    let (tmp10, tmp13) = (tmp0 + tmp3, tmp0 - tmp3);
    let (tmp11, tmp12) = (tmp1 + tmp2, tmp1 - tmp2);
    // Odd part.
    let (t0, t1, t2, t3) = (v[7], v[5], v[3], v[1]);
    let (z1, z2, z3, z4) = (t0 + t3, t1 + t2, t0 + t2, t1 + t3);
    let z5 = (z3 + z4) * FIX_1_175875602;
    let t0 = t0 * FIX_0_298631336;
    let t1 = t1 * FIX_2_053119869;
    let t2 = t2 * FIX_3_072711026;
    let t3 = t3 * FIX_1_501321110;
    let z1 = -z1 * FIX_0_899976223;
    let z2 = -z2 * FIX_2_562915447;
    let z3 = -z3 * FIX_1_961570560 + z5;
    let z4 = -z4 * FIX_0_390180644 + z5;
    let t0 = t0 + z1 + z3;
    let t1 = t1 + z2 + z4;
    let t2 = t2 + z2 + z3;
    let t3 = t3 + z1 + z4;
    [
        tmp10 + t3,
        tmp11 + t2,
        tmp12 + t1,
        tmp13 + t0,
        tmp13 - t0,
        tmp12 - t1,
        tmp11 - t2,
        tmp10 - t3,
    ]
}

/// The pixels of one block of dequantised coefficients (natural order),
/// written to `out` rows `stride` apart.
pub fn idct_islow(coef: &[i32; 64], out: &mut [u8], stride: usize) {
    let mut ws = [0i32; 64];
    for col in 0..8 {
        let v: [i32; 8] = std::array::from_fn(|k| coef[k * 8 + col]);
        if v[1..].iter().all(|&c| c == 0) {
            for row in 0..8 {
                ws[row * 8 + col] = v[0] << PASS1_BITS;
            }
            continue;
        }
        let r = pass(v);
        for row in 0..8 {
            ws[row * 8 + col] = descale(r[row], CONST_BITS - PASS1_BITS);
        }
    }
    for row in 0..8 {
        let v: [i32; 8] = std::array::from_fn(|k| ws[row * 8 + k]);
        let line = &mut out[row * stride..row * stride + 8];
        if v[1..].iter().all(|&c| c == 0) {
            line.fill(range_limit(descale(v[0], PASS1_BITS + 3)));
            continue;
        }
        let r = pass(v);
        for (o, x) in line.iter_mut().zip(r) {
            *o = range_limit(descale(x, CONST_BITS + PASS1_BITS + 3));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dc_only_block_is_flat_and_centred() {
        let mut coef = [0i32; 64];
        coef[0] = 80; // 80 / 8 = +10 over mid-grey
        let mut out = [0u8; 64];
        idct_islow(&coef, &mut out, 8);
        assert!(out.iter().all(|&p| p == 138), "{out:?}");
    }

    #[test]
    fn the_range_limit_clamps_then_wraps_as_libjpegs_table() {
        assert_eq!(range_limit(-129), 0);
        assert_eq!(range_limit(-128), 0);
        assert_eq!(range_limit(0), 128);
        assert_eq!(range_limit(127), 255);
        assert_eq!(range_limit(511), 255);
        assert_eq!(range_limit(512), 0); // wraps to -512
    }
}
