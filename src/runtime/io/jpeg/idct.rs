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

type Lanes = [i32; 8];

fn map(f: impl Fn(usize) -> i32) -> Lanes {
    std::array::from_fn(f)
}

/// A sample of the transform's output (centred on 0) as a pixel: libjpeg
/// indexes a table with the value masked to 10 bits, which clamps every
/// value in -512..=511 and wraps the rest.
fn range_limit(x: i32) -> u8 {
    let wrapped = (x.wrapping_add(512) & 1023) - 512;
    (wrapped + 128).clamp(0, 255) as u8
}

/// One 1-D pass, eight transforms side by side: `v[k]` holds the k-th
/// frequency of each, the result the eight outputs of each scaled by
/// 2^CONST_BITS (before the pass's descale). libjpeg computes in C `int`;
/// the wrapping arithmetic is what a corrupt file's overflow does there.
fn pass(v: &[Lanes; 8]) -> [Lanes; 8] {
    let mul = |a: &Lanes, c: i32| map(|i| a[i].wrapping_mul(c));
    let add = |a: &Lanes, b: &Lanes| map(|i| a[i].wrapping_add(b[i]));
    let sub = |a: &Lanes, b: &Lanes| map(|i| a[i].wrapping_sub(b[i]));
    // Even part.
    let z1 = mul(&add(&v[2], &v[6]), FIX_0_541196100);
    let tmp2 = sub(&z1, &mul(&v[6], FIX_1_847759065));
    let tmp3 = add(&z1, &mul(&v[2], FIX_0_765366865));
    let tmp0 = map(|i| {
        v[0][i]
            .wrapping_add(v[4][i])
            .wrapping_shl(CONST_BITS as u32)
    });
    let tmp1 = map(|i| {
        v[0][i]
            .wrapping_sub(v[4][i])
            .wrapping_shl(CONST_BITS as u32)
    });
    let (tmp10, tmp13) = (add(&tmp0, &tmp3), sub(&tmp0, &tmp3));
    let (tmp11, tmp12) = (add(&tmp1, &tmp2), sub(&tmp1, &tmp2));
    // Odd part.
    let (t0, t1, t2, t3) = (&v[7], &v[5], &v[3], &v[1]);
    let (z1, z2, z3, z4) = (add(t0, t3), add(t1, t2), add(t0, t2), add(t1, t3));
    let z5 = mul(&add(&z3, &z4), FIX_1_175875602);
    let t0 = mul(t0, FIX_0_298631336);
    let t1 = mul(t1, FIX_2_053119869);
    let t2 = mul(t2, FIX_3_072711026);
    let t3 = mul(t3, FIX_1_501321110);
    let z1 = mul(&z1, -FIX_0_899976223);
    let z2 = mul(&z2, -FIX_2_562915447);
    let z3 = add(&mul(&z3, -FIX_1_961570560), &z5);
    let z4 = add(&mul(&z4, -FIX_0_390180644), &z5);
    let t0 = add(&t0, &add(&z1, &z3));
    let t1 = add(&t1, &add(&z2, &z4));
    let t2 = add(&t2, &add(&z2, &z3));
    let t3 = add(&t3, &add(&z1, &z4));
    [
        add(&tmp10, &t3),
        add(&tmp11, &t2),
        add(&tmp12, &t1),
        add(&tmp13, &t0),
        sub(&tmp13, &t0),
        sub(&tmp12, &t1),
        sub(&tmp11, &t2),
        sub(&tmp10, &t3),
    ]
}

fn descale(x: i32, n: i32) -> i32 {
    x.wrapping_add(1 << (n - 1)) >> n
}

/// The pixels of one block of dequantised coefficients (natural order),
/// written to `out` rows `stride` apart. libjpeg skips the arithmetic of
/// a column or row whose AC terms are all zero; the full transform gives
/// the same numbers there, so it runs on every one.
pub fn idct_islow(coef: &[i32; 64], out: &mut [u8], stride: usize) {
    // Pass 1, the columns side by side: lane c of row k is column c's
    // k-th coefficient.
    let rows: [Lanes; 8] = std::array::from_fn(|k| map(|c| coef[k * 8 + c]));
    let cols = pass(&rows);
    // The workspace transposed, so pass 2 runs the rows side by side.
    let ws: [Lanes; 8] =
        std::array::from_fn(|k| map(|r| descale(cols[k][r], CONST_BITS - PASS1_BITS)));
    let ws_t: [Lanes; 8] = std::array::from_fn(|k| map(|r| ws[r][k]));
    let res = pass(&ws_t);
    for row in 0..8 {
        let line = &mut out[row * stride..row * stride + 8];
        for (col, o) in line.iter_mut().enumerate() {
            *o = range_limit(descale(res[col][row], CONST_BITS + PASS1_BITS + 3));
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
