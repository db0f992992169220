//! The exp and log that PyTorch's CPU kernels call through `Vectorized`
//! (`x.exp()`, `x.log()`): SLEEF's `Sleef_expf8_u10`, `Sleef_logf8_u10`,
//! `Sleef_expd4_u10` and `Sleef_logd4_u10` in their FMA builds (AVX2,
//! AVX-512's exp, NEON), one lane at a time. They are accurate to 1 ulp but
//! not correctly rounded, so a kernel that matches PyTorch's bits must use
//! these and not libm's.
//!
//! The algorithms are SLEEF 3.8/3.9's (Boost licence), read from
//! `src/libm/sleefsimd{sp,dp}.c`, `src/common/{df,dd}.h` and
//! `src/arch/helperavx2.h`: range reduction by a rounded multiple of ln 2 in
//! two parts, a polynomial in Horner's (f32) or Estrin's (f64) order, every
//! `mla` a fused multiply-add, and logs in double-float arithmetic. SLEEF is
//! built with `-ffp-contract=off`, so every other multiply and add rounds on
//! its own, as here. Integer steps use the same bit patterns; where an
//! input is out of range the result is replaced (by 0, inf or NaN) as in
//! SLEEF, so the integer computed on the way does not matter.
//!
//! The lane functions are `#[inline(always)]`, so a caller compiled with
//! `fma` (`softmax`'s kernels) turns each `mul_add` into one instruction.

// The constants are written with SLEEF's digits, so that they can be
// checked against its source; each rounds to the same f32 or f64.
#![allow(clippy::excessive_precision)]

/// The nearest integer to `x`, ties to even, as x86's `cvtps2dq` gives it
/// for |x| < 2^22 (the only values whose result the callers keep): the
/// add of 1.5 * 2^23 rounds away the fraction, and the low bits are the
/// integer. Unlike a cast it stays in vector registers. The integer's
/// value as an f32 comes with it, by subtracting the constant again: the
/// same value as converting the integer, one instruction sooner on the
/// exp's chain of dependent instructions.
#[inline(always)]
fn rint_small_f32(x: f32) -> (i32, f32) {
    const MAGIC: f32 = 12_582_912.0;
    let t = x + MAGIC;
    let q = (t.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
    (q, t - MAGIC)
}

/// The same for an f64 already rounded to an integer with |x| < 2^31
/// (`cvtpd2dq`), with 1.5 * 2^52.
#[inline(always)]
fn rint_small_f64(x: f64) -> i32 {
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    (x + MAGIC).to_bits() as u32 as i32
}

/// 2^q as an f32 built from its bits (`vpow2i`): q + 127 in the exponent.
#[inline(always)]
fn pow2i_f32(q: i32) -> f32 {
    f32::from_bits((q.wrapping_add(0x7f) as u32).wrapping_shl(23))
}

/// `d * 2^q` in two steps, so that q may reach 2 * 127 (`vldexp2`).
#[inline(always)]
fn ldexp2_f32(d: f32, q: i32) -> f32 {
    d * pow2i_f32(q >> 1) * pow2i_f32(q.wrapping_sub(q >> 1))
}

/// `Sleef_expf8_u10`'s lane (`xexpf`).
#[inline(always)]
pub fn expf(d: f32) -> f32 {
    const R_LN2: f32 = std::f32::consts::LOG2_E;
    const L2U: f32 = 0.693_145_751_953_125;
    const L2L: f32 = 1.428_606_765_330_187_045e-6;
    // |d| <= 104 wherever u is kept, so |q| <= 151.
    let (q, qf) = rint_small_f32(d * R_LN2);
    let s = qf.mul_add(-L2U, d);
    let s = qf.mul_add(-L2L, s);
    let mut u: f32 = 0.000_198_527_617_612_853_646_278_381;
    u = u.mul_add(s, 0.001_393_043_552_525_341_510_772_71);
    u = u.mul_add(s, 0.008_333_360_776_305_198_669_433_59);
    u = u.mul_add(s, 0.041_666_485_369_205_474_853_515_6);
    u = u.mul_add(s, 0.166_666_671_633_720_397_949_219);
    u = u.mul_add(s, 0.5);
    let u = 1.0 + (s * s).mul_add(u, s);
    let u = ldexp2_f32(u, q);
    if d < -104.0 {
        0.0
    } else if 100.0 < d {
        f32::INFINITY
    } else {
        u
    }
}

/// A double-float: an f32 and the error below it.
#[derive(Clone, Copy)]
struct F2(f32, f32);

#[inline(always)]
fn f2_add2(x: f32, y: f32) -> F2 {
    let s = x + y;
    let v = s - x;
    F2(s, (x - (s - v)) + (y - v))
}

/// x + y for |x| >= |y| (`dfadd_vf2_vf2_vf2`).
#[inline(always)]
fn f2_add(x: F2, y: F2) -> F2 {
    let s = x.0 + y.0;
    F2(s, (((x.0 - s) + y.0) + x.1) + y.1)
}

#[inline(always)]
fn f2_add_f(x: F2, y: f32) -> F2 {
    let s = x.0 + y;
    F2(s, ((x.0 - s) + y) + x.1)
}

#[inline(always)]
fn f2_mul_f(x: F2, y: f32) -> F2 {
    let s = x.0 * y;
    F2(s, x.1.mul_add(y, x.0.mul_add(y, -s)))
}

#[inline(always)]
fn f2_div(n: F2, d: F2) -> F2 {
    let t = 1.0 / d.0;
    let s = n.0 * t;
    let u = t.mul_add(n.0, -s);
    let v = (-d.1).mul_add(t, (-d.0).mul_add(t, 1.0));
    F2(s, s.mul_add(v, n.1.mul_add(t, u)))
}

/// `Sleef_logf8_u10`'s lane (`xlogf_u1`, the branch for all but AVX-512,
/// whose `vgetexp`/`vgetmant` find the same exponent and mantissa for
/// every normal input; the one log PyTorch's kernels take here is of a
/// softmax sum, which is at least 1, or NaN).
#[inline(always)]
pub fn logf(d: f32) -> f32 {
    let tiny = d < f32::MIN_POSITIVE;
    let x = if tiny {
        d * (4294967296.0 * 4294967296.0)
    } else {
        d
    };
    let e = (((x * (1.0 / 0.75)).to_bits() >> 23) & 0xff) as i32 - 0x7f;
    let m =
        f32::from_bits((x.to_bits() as i32).wrapping_add(e.wrapping_neg().wrapping_shl(23)) as u32);
    let e = if tiny { e - 64 } else { e };
    let s = f2_mul_f(
        F2(0.693_147_182_464_599_609_38, -1.904_654_323_148_236_017e-9),
        e as f32,
    );
    let q = f2_div(f2_add2(-1.0, m), f2_add2(1.0, m));
    let x2 = q.0 * q.0;
    let mut t: f32 = 0.302_729_487_4;
    t = t.mul_add(x2, 0.399_610_817_4);
    t = t.mul_add(x2, 0.666_669_488_0);
    let s = f2_add(s, F2(q.0 * 2.0, q.1 * 2.0));
    let s = f2_add_f(s, x2 * q.0 * t);
    let r = s.0 + s.1;
    if x == f32::INFINITY {
        f32::INFINITY
    } else if x < 0.0 || x.is_nan() {
        f32::NAN
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else {
        r
    }
}

/// `x` truncated to an integer, for |x| < 2^31 (anything else gives some
/// integer). Unlike a cast, which saturates, it stays in vector registers
/// (`cvttps2dq`).
#[inline(always)]
fn trunc_i32(x: f32) -> i32 {
    // NaN becomes the lower bound (`clamp` would keep it); the largest f32
    // below 2^31 is 2^31 - 128.
    #[allow(clippy::manual_clamp)]
    let clamped = x.max(-2_147_483_648.0).min(2_147_483_520.0);
    // SAFETY: `clamped` is a number in i32's range.
    unsafe { clamped.to_int_unchecked() }
}

/// `d * 2^q` for any q, in five steps (`vldexp_vf_vf_vi2`).
#[inline(always)]
fn ldexp_f32(x: f32, q: i32) -> f32 {
    let m = q >> 31;
    let m = ((m.wrapping_add(q) >> 6).wrapping_sub(m)) << 4;
    let q = q.wrapping_sub(m << 2);
    let m = m.wrapping_add(0x7f);
    let m = if m > 0 { m } else { 0 };
    let m = if m > 0xff { 0xff } else { m };
    let u = f32::from_bits((m as u32) << 23);
    let x = x * u * u * u * u;
    x * f32::from_bits((q.wrapping_add(0x7f) as u32) << 23)
}

/// x + y, both double-floats, without |x| >= |y| (`dfadd2_vf2_vf2_vf2`).
#[inline(always)]
fn f2_add2_f2(x: F2, y: F2) -> F2 {
    let s = x.0 + y.0;
    let v = s - x.0;
    let t = (x.0 - (s - v)) + (y.0 - v);
    F2(s, t + (x.1 + y.1))
}

/// x + y without |x| >= |y| (`dfadd2_vf2_vf2_vf`).
#[inline(always)]
fn f2_add2_f(x: F2, y: f32) -> F2 {
    let s = x.0 + y;
    let v = s - x.0;
    let w = (x.0 - (s - v)) + (y - v);
    F2(s, w + x.1)
}

/// x + y for |x| >= |y| (`dfadd_vf2_vf_vf2`).
#[inline(always)]
fn f_add_f2(x: f32, y: F2) -> F2 {
    let s = x + y.0;
    F2(s, ((x - s) + y.0) + y.1)
}

#[inline(always)]
fn f2_normalize(t: F2) -> F2 {
    let s = t.0 + t.1;
    F2(s, (t.0 - s) + t.1)
}

#[inline(always)]
fn f2_mul(x: F2, y: F2) -> F2 {
    let s = x.0 * y.0;
    F2(s, x.0.mul_add(y.1, x.1.mul_add(y.0, x.0.mul_add(y.0, -s))))
}

#[inline(always)]
fn f2_squ(x: F2) -> F2 {
    let s = x.0 * x.0;
    F2(s, (x.0 + x.0).mul_add(x.1, x.0.mul_add(x.0, -s)))
}

/// `logkf`'s polynomial in x² (highest power first), its 2/3 and its ln 2
/// (each a double-float), and `expkf`'s ln 2 in two parts and polynomial
/// in s: also `powf_avx512`'s, which must round as these do.
pub(super) const LOGKF_T: [f32; 3] = [
    0.240_320_354_700_088_500_976_562,
    0.285_112_679_004_669_189_453_125,
    0.400_007_992_982_864_379_882_812,
];
pub(super) const LOGKF_C: (f32, f32) = (
    0.666_666_626_930_236_816_406_25,
    3.691_838_612_596_143_320_843_11e-9,
);
pub(super) const LOGKF_LN2: (f32, f32) =
    (0.693_147_182_464_599_609_38, -1.904_654_323_148_236_017e-9);
pub(super) const EXPKF_LN2: (f32, f32) = (0.693_145_751_953_125, 1.428_606_765_330_187_045e-6);
pub(super) const EXPKF_U: [f32; 5] = [
    0.001_363_246_468_827_128_410_339_36,
    0.008_365_969_173_610_210_418_701_17,
    0.041_671_082_377_433_776_855_468_8,
    0.166_665_524_244_308_471_679_688,
    0.499_999_850_988_388_061_523_438,
];

/// `logkf`: log d as a double-float, for `powf`.
#[inline(always)]
fn logkf(d: f32) -> F2 {
    let tiny = d < f32::MIN_POSITIVE;
    let d = if tiny {
        d * (4294967296.0 * 4294967296.0)
    } else {
        d
    };
    // The exponent field of d / 0.75, in place: m = d * 2^-e is d with it
    // taken away and 127's put back (the same bits as `vldexp3`'s, in two
    // dependent steps rather than four: this chain is most of powf's time).
    let field = (d * (1.0 / 0.75)).to_bits() & 0x7f80_0000;
    let m = f32::from_bits(d.to_bits().wrapping_add(0x3f80_0000).wrapping_sub(field));
    let e = (field >> 23) as i32 - 0x7f;
    let e = if tiny { e - 64 } else { e };
    let x = f2_div(f2_add2(-1.0, m), f2_add2(1.0, m));
    let x2 = f2_squ(x);
    let [t0, t1, t2] = LOGKF_T;
    let t = t0.mul_add(x2.0, t1).mul_add(x2.0, t2);
    let c = F2(LOGKF_C.0, LOGKF_C.1);
    let s = f2_mul_f(F2(LOGKF_LN2.0, LOGKF_LN2.1), e as f32);
    let s = f2_add(s, F2(x.0 * 2.0, x.1 * 2.0));
    f2_add(s, f2_mul(f2_mul(x2, x), f2_add2_f2(f2_mul_f(x2, t), c)))
}

/// `expkf`: e to a double-float, for `powf`.
#[inline(always)]
fn expkf(d: F2) -> f32 {
    const R_LN2: f32 = std::f32::consts::LOG2_E;
    let (l2u, l2l) = EXPKF_LN2;
    // SLEEF rounds with `cvtps2dq`. The magic-number rounding gives the
    // same q for |u| < 2^22, in fewer dependent steps (8% of powf's time
    // here: its chain of dependent steps, not its count of steps, sets the
    // pace). Past that the result is fixed below.
    let u = (d.0 + d.1) * R_LN2;
    let (q, qf) = rint_small_f32(u);
    let s = f2_add2_f(d, qf * -l2u);
    let s = f2_add2_f(s, qf * -l2l);
    let s = f2_normalize(s);
    let mut u = EXPKF_U[0];
    for &c in &EXPKF_U[1..] {
        u = u.mul_add(s.0, c);
    }
    let t = f2_add(s, f2_mul_f(f2_squ(s), u));
    let t = f_add_f2(1.0, t);
    let r = ldexp_f32(t.0 + t.1, q);
    if d.0 < -104.0 {
        0.0
    } else if u >= 4_194_304.0 {
        // In SLEEF's steps, q >= 2^22 scales a finite positive t by at
        // least 2^(2^22): inf. Where `cvtps2dq` does not fit (u >= 2^31,
        // q = i32::MIN), t overflows and `vldexp` multiplies it by inf: inf
        // or NaN, which `powf` makes inf. (A NaN u comes from a NaN or
        // infinite x or y, whose results `powf` replaces.)
        f32::INFINITY
    } else {
        r
    }
}

/// x with the sign of y flipped into it (`vmulsign`): x * sign(y) by bits.
#[inline(always)]
fn mulsign_f32(x: f32, y: f32) -> f32 {
    f32::from_bits(x.to_bits() ^ (y.to_bits() & 0x8000_0000))
}

/// `Sleef_powf8_u10`'s lane (`xpowf`).
#[inline(always)]
pub fn powf(x: f32, y: f32) -> f32 {
    const TWO_24: f32 = 16_777_216.0;
    let yisint = y.trunc() == y || y.abs() > TWO_24;
    // `cvttps2dq`; only read where |y| < 2^24.
    let yisodd = trunc_i32(y) & 1 == 1 && yisint && y.abs() < TWO_24;
    let r = expkf(f2_mul_f(logkf(x.abs()), y));
    let r = if r.is_nan() { f32::INFINITY } else { r };
    let sign = if x > 0.0 {
        1.0
    } else if yisint {
        if yisodd {
            -1.0
        } else {
            1.0
        }
    } else {
        f32::NAN
    };
    let r = r * sign;
    let efx = mulsign_f32(x.abs() - 1.0, y);
    let r = if y.is_infinite() {
        if efx < 0.0 {
            0.0
        } else if efx == 0.0 {
            1.0
        } else {
            f32::INFINITY
        }
    } else {
        r
    };
    let r = if x.is_infinite() || x == 0.0 {
        let a = if y.is_sign_negative() ^ (x == 0.0) {
            0.0
        } else {
            f32::INFINITY
        };
        mulsign_f32(a, if yisodd { x } else { 1.0 })
    } else {
        r
    };
    // SLEEF sets every bit of a NaN input's result.
    let r = if x.is_nan() || y.is_nan() {
        f32::from_bits(u32::MAX)
    } else {
        r
    };
    if y == 0.0 || x == 1.0 {
        1.0
    } else {
        r
    }
}

/// 2^q as an f64 from its bits: q + 1023 in the exponent.
#[inline(always)]
fn pow2i_f64(q: i32) -> f64 {
    f64::from_bits(((q.wrapping_add(0x3ff) as u32).wrapping_shl(20) as u64) << 32)
}

#[inline(always)]
fn ldexp2_f64(d: f64, q: i32) -> f64 {
    d * pow2i_f64(q >> 1) * pow2i_f64(q.wrapping_sub(q >> 1))
}

/// `Sleef_expd4_u10`'s lane (`xexp`, FMA branch).
#[inline(always)]
pub fn exp(d: f64) -> f64 {
    const R_LN2: f64 = std::f64::consts::LOG2_E;
    const L2U: f64 = 0.693_147_180_559_662_956_511_601_805_686_950_683_593_75;
    const L2L: f64 = 0.282_352_905_630_315_771_225_884_481_750_134_360_255_254_120_68e-12;
    const LOG_DBL_MAX: f64 = 709.782_712_893_384;
    let u = (d * R_LN2).round_ties_even();
    // d in [-1000, 710] wherever u is kept, so |q| <= 1443.
    let q = rint_small_f64(u);
    let s = u.mul_add(-L2U, d);
    let s = u.mul_add(-L2L, s);
    let s2 = s * s;
    let s4 = s2 * s2;
    let s8 = s4 * s4;
    // Estrin's scheme, as SLEEF's POLY10 groups it.
    let p = |c1: f64, c0: f64| s.mul_add(c1, c0);
    let p4 = |c3, c2, c1, c0| s2.mul_add(p(c3, c2), p(c1, c0));
    let u = s8.mul_add(
        p(
            0.208_127_637_823_716_445_7e-8,
            0.251_121_070_304_228_802_2e-7,
        ),
        s4.mul_add(
            p4(
                0.275_576_262_816_949_119_2e-6,
                0.275_572_340_202_538_823_9e-5,
                0.248_015_868_747_968_626_4e-4,
                0.198_412_698_985_586_585_0e-3,
            ),
            p4(
                0.138_888_888_891_449_779_7e-2,
                0.833_333_333_331_493_821_0e-2,
                0.416_666_666_666_660_259_8e-1,
                0.166_666_666_666_666_907_2e0,
            ),
        ),
    );
    let u = u.mul_add(s, 0.5);
    let u = u.mul_add(s, 1.0);
    let u = u.mul_add(s, 1.0);
    let u = ldexp2_f64(u, q);
    if d > LOG_DBL_MAX {
        f64::INFINITY
    } else if d < -1000.0 {
        0.0
    } else {
        u
    }
}

/// A double-double: an f64 and the error below it.
#[derive(Clone, Copy)]
struct D2(f64, f64);

#[inline(always)]
fn d2_add2(x: f64, y: f64) -> D2 {
    let s = x + y;
    let v = s - x;
    D2(s, (x - (s - v)) + (y - v))
}

#[inline(always)]
fn d2_add(x: D2, y: D2) -> D2 {
    let s = x.0 + y.0;
    D2(s, (((x.0 - s) + y.0) + x.1) + y.1)
}

#[inline(always)]
fn d2_add_f(x: D2, y: f64) -> D2 {
    let s = x.0 + y;
    D2(s, ((x.0 - s) + y) + x.1)
}

#[inline(always)]
fn d2_mul_f(x: D2, y: f64) -> D2 {
    let s = x.0 * y;
    D2(s, x.1.mul_add(y, x.0.mul_add(y, -s)))
}

#[inline(always)]
fn d2_div(n: D2, d: D2) -> D2 {
    let t = 1.0 / d.0;
    let s = n.0 * t;
    let u = t.mul_add(n.0, -s);
    let v = (-d.1).mul_add(t, (-d.0).mul_add(t, 1.0));
    D2(s, s.mul_add(v, n.1.mul_add(t, u)))
}

/// `Sleef_logd4_u10`'s lane (`xlog_u1`, the branch for all but AVX-512,
/// the same for normal inputs: see `logf`).
#[inline(always)]
pub fn log(d: f64) -> f64 {
    let tiny = d < f64::MIN_POSITIVE;
    let x = if tiny {
        d * (4294967296.0 * 4294967296.0)
    } else {
        d
    };
    let e = ((((x * (1.0 / 0.75)).to_bits() >> 32) as u32 >> 20) & 0x7ff) as i32 - 0x3ff;
    let shift = ((e.wrapping_neg() as u32).wrapping_shl(20) as u64) << 32;
    let m = f64::from_bits(x.to_bits().wrapping_add(shift));
    let e = if tiny { e - 64 } else { e };
    let q = d2_div(d2_add2(-1.0, m), d2_add2(1.0, m));
    let x2 = q.0 * q.0;
    let x4 = x2 * x2;
    let x8 = x4 * x4;
    // POLY7(x2, x4, x8, c6..c0) of SLEEF's estrin.h.
    let p = |c1: f64, c0: f64| x2.mul_add(c1, c0);
    let t = x8.mul_add(
        x4.mul_add(
            0.153_207_698_850_270_135_3,
            p(0.152_562_905_100_342_871_6, 0.181_860_593_293_778_599_6),
        ),
        x4.mul_add(
            p(0.222_221_451_983_938_000_9, 0.285_714_293_279_429_931_7),
            p(0.399_999_999_963_525_199_0, 0.666_666_666_666_733_354_1),
        ),
    );
    let s = d2_mul_f(
        D2(
            std::f64::consts::LN_2, // SLEEF's 0.693147180559945286226764
            2.319_046_813_846_299_558_417_771e-17,
        ),
        e as f64,
    );
    let s = d2_add(s, D2(q.0 * 2.0, q.1 * 2.0));
    let s = d2_add_f(s, x2 * q.0 * t);
    let r = s.0 + s.1;
    if x == f64::INFINITY {
        f64::INFINITY
    } else if x < 0.0 || x.is_nan() {
        f64::NAN
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else {
        r
    }
}

#[inline(always)]
fn d2_add2_f(x: D2, y: f64) -> D2 {
    let s = x.0 + y;
    let v = s - x.0;
    let w = (x.0 - (s - v)) + (y - v);
    D2(s, w + x.1)
}

#[inline(always)]
fn f_add_d2(x: f64, y: D2) -> D2 {
    let s = x + y.0;
    D2(s, ((x - s) + y.0) + y.1)
}

#[inline(always)]
fn d2_normalize(t: D2) -> D2 {
    let s = t.0 + t.1;
    D2(s, (t.0 - s) + t.1)
}

#[inline(always)]
fn d2_mul(x: D2, y: D2) -> D2 {
    let s = x.0 * y.0;
    D2(s, x.0.mul_add(y.1, x.1.mul_add(y.0, x.0.mul_add(y.0, -s))))
}

#[inline(always)]
fn d2_squ(x: D2) -> D2 {
    let s = x.0 * x.0;
    D2(s, (x.0 + x.0).mul_add(x.1, x.0.mul_add(x.0, -s)))
}

/// `logk`: log d as a double-double, for `pow`.
#[inline(always)]
fn logk(d: f64) -> D2 {
    let tiny = d < f64::MIN_POSITIVE;
    let d = if tiny {
        d * (4294967296.0 * 4294967296.0)
    } else {
        d
    };
    // As in `logkf`: the exponent field of d / 0.75 taken away, 1023's put back.
    let field = (d * (1.0 / 0.75)).to_bits() & 0x7ff0_0000_0000_0000;
    let m = f64::from_bits(
        d.to_bits()
            .wrapping_add(0x3ff0_0000_0000_0000)
            .wrapping_sub(field),
    );
    let e = (field >> 52) as i32 - 0x3ff;
    let e = if tiny { e - 64 } else { e };
    let x = d2_div(d2_add2(-1.0, m), d2_add2(1.0, m));
    let x2 = d2_squ(x);
    let (y, y2) = (x2.0, x2.0 * x2.0);
    let y4 = y2 * y2;
    let y8 = y4 * y4;
    // POLY9(x2, x4, x8, x16, c8..c0) of SLEEF's estrin.h.
    let p = |c1: f64, c0: f64| y.mul_add(c1, c0);
    let p4 = |c3, c2, c1, c0| y2.mul_add(p(c3, c2), p(c1, c0));
    let t = y8.mul_add(
        0.116_255_524_079_935_043_668_677,
        y4.mul_add(
            p4(
                0.103_239_680_901_072_952_701_192,
                0.117_754_809_412_463_995_466_069,
                0.133_329_810_868_462_739_215_09,
                0.153_846_227_114_512_262_845_736,
            ),
            p4(
                0.181_818_180_850_050_775_676_507,
                0.222_222_222_230_083_560_345_903,
                0.285_714_285_714_249_172_087_875,
                0.400_000_000_000_000_077_715_612,
            ),
        ),
    );
    let c = D2(
        0.666_666_666_666_666_629_659_233,
        3.805_549_625_424_120_563_366_16e-17,
    );
    let s = d2_mul_f(
        D2(
            std::f64::consts::LN_2,
            2.319_046_813_846_299_558_417_771e-17,
        ),
        e as f64,
    );
    let s = d2_add(s, D2(x.0 * 2.0, x.1 * 2.0));
    let x = d2_mul(x2, x);
    let s = d2_add(s, d2_mul(x, c));
    let x = d2_mul(x2, x);
    d2_add(s, d2_mul_f(x, t))
}

/// `expk`: e to a double-double, for `pow`.
#[inline(always)]
fn expk(d: D2) -> f64 {
    const R_LN2: f64 = std::f64::consts::LOG2_E;
    const L2U: f64 = 0.693_147_180_559_662_956_511_601_805_686_950_683_593_75;
    const L2L: f64 = 0.282_352_905_630_315_771_225_884_481_750_134_360_255_254_120_68e-12;
    let dq = ((d.0 + d.1) * R_LN2).round_ties_even();
    // Only kept where d.0 is in [-1000, 710], so |dq| <= 1443.
    let q = rint_small_f64(dq);
    let s = d2_add2_f(d, dq * -L2U);
    let s = d2_add2_f(s, dq * -L2L);
    let s = d2_normalize(s);
    let (x, x2) = (s.0, s.0 * s.0);
    let x4 = x2 * x2;
    let x8 = x4 * x4;
    // POLY10(s, s2, s4, s8, c9..c0).
    let p = |c1: f64, c0: f64| x.mul_add(c1, c0);
    let p4 = |c3, c2, c1, c0| x2.mul_add(p(c3, c2), p(c1, c0));
    let u = x8.mul_add(
        p(
            2.510_696_834_209_504_195_271_39e-8,
            2.762_861_667_702_706_491_168_55e-7,
        ),
        x4.mul_add(
            p4(
                2.755_724_967_250_235_741_438_64e-6,
                2.480_149_739_898_197_941_141_53e-5,
                0.000_198_412_698_809_069_797_676_111,
                0.001_388_888_893_997_712_896_052_9,
            ),
            p4(
                0.008_333_333_333_323_714_176_010_81,
                0.041_666_666_666_540_952_412_844_9,
                0.166_666_666_666_666_740_681_535,
                0.500_000_000_000_000_999_200_722,
            ),
        ),
    );
    let t = f_add_d2(1.0, s);
    let t = d2_add(t, d2_mul_f(d2_squ(s), u));
    let u = ldexp2_f64(t.0 + t.1, q);
    if d.0 < -1000.0 {
        0.0
    } else {
        u
    }
}

#[inline(always)]
fn mulsign_f64(x: f64, y: f64) -> f64 {
    f64::from_bits(x.to_bits() ^ (y.to_bits() & 0x8000_0000_0000_0000))
}

/// `Sleef_powd4_u10`'s lane (`xpow`).
#[inline(always)]
pub fn pow(x: f64, y: f64) -> f64 {
    const LOG_DBL_MAX: f64 = 709.782_712_893_384;
    let yisint = y.round_ties_even() == y;
    let half = y * 0.5;
    let yisodd = half.round_ties_even() != half && yisint;
    let d = d2_mul_f(logk(x.abs()), y);
    let r = if d.0 > LOG_DBL_MAX {
        f64::INFINITY
    } else {
        expk(d)
    };
    let sign = if x > 0.0 {
        1.0
    } else if yisint {
        if yisodd {
            -1.0
        } else {
            1.0
        }
    } else {
        f64::NAN
    };
    let r = r * sign;
    let efx = mulsign_f64(x.abs() - 1.0, y);
    let r = if y.is_infinite() {
        if efx < 0.0 {
            0.0
        } else if efx == 0.0 {
            1.0
        } else {
            f64::INFINITY
        }
    } else {
        r
    };
    let r = if x.is_infinite() || x == 0.0 {
        let a = if y.is_sign_negative() ^ (x == 0.0) {
            0.0
        } else {
            f64::INFINITY
        };
        mulsign_f64(a, if yisodd { x } else { 1.0 })
    } else {
        r
    };
    let r = if x.is_nan() || y.is_nan() {
        f64::from_bits(u64::MAX)
    } else {
        r
    };
    if y == 0.0 || x == 1.0 {
        1.0
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance in ulps between two finite floats of one sign.
    fn ulps32(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    fn ulps64(a: f64, b: f64) -> u64 {
        (a.to_bits() as i128 - b.to_bits() as i128).unsigned_abs() as u64
    }

    /// SLEEF's u10 functions are within 1 ulp of the exact result
    /// everywhere, subnormal inputs and results included (softmax reaches
    /// only some of these branches, and checks those bit for bit against
    /// PyTorch); the special values are IEEE's.
    #[test]
    fn within_one_ulp_and_ieee_at_the_edges() {
        for k in 0..200_000 {
            let d = -103.0 + 202.0 * k as f64 / 200_000.0;
            let want = (d as f32 as f64).exp() as f32;
            assert!(ulps32(expf(d as f32), want) <= 1, "expf({d})");
            assert!(
                ulps64(exp(d * 7.0), (d * 7.0).exp()) <= 1,
                "exp({})",
                d * 7.0
            );
        }
        for bits in (1u32..0x7f80_0000).step_by(4099) {
            let x = f32::from_bits(bits);
            let want = (x as f64).ln() as f32;
            assert!(ulps32(logf(x), want) <= 1, "logf({x:e})");
            let y = f64::from_bits((bits as u64) << 32 | 0x1234_5678);
            assert!(ulps64(log(y), y.ln()) <= 1, "log({y:e})");
        }
        assert_eq!(expf(f32::NEG_INFINITY), 0.0);
        assert_eq!(expf(f32::INFINITY), f32::INFINITY);
        assert!(expf(f32::NAN).is_nan() && exp(f64::NAN).is_nan());
        assert_eq!(exp(-1e300), 0.0);
        assert_eq!(exp(1e300), f64::INFINITY);
        assert_eq!(logf(0.0), f32::NEG_INFINITY);
        assert_eq!(log(0.0), f64::NEG_INFINITY);
        assert_eq!(logf(f32::INFINITY), f32::INFINITY);
        assert!(logf(-1.0).is_nan() && log(-1.0).is_nan() && logf(f32::NAN).is_nan());
    }

    /// `powf` and `pow` are within 1 ulp of the exact result (f32's against
    /// f64's libm; f64's against libm, itself within 1 ulp, so 2) over
    /// bases and exponents of every size, negative bases to integer
    /// powers included; the special cases are C99's (Annex F), as libm's.
    #[test]
    fn pow_within_one_ulp_and_c99_at_the_edges() {
        let bases = (0..4000).map(|k| f64::exp(-80.0 + 160.0 * k as f64 / 4000.0));
        for (k, b) in bases.enumerate() {
            for (j, &e) in [2.5f64, -1.7, 0.1, 3.0, -7.0, 0.5, 13.3, -0.01]
                .iter()
                .enumerate()
            {
                let b = if (k + j) % 3 == 0 && e.fract() == 0.0 {
                    -b
                } else {
                    b
                };
                let (bf, ef) = (b as f32, e as f32);
                let want = (bf as f64).powf(ef as f64) as f32;
                if want.is_finite() && want != 0.0 && want.abs() >= f32::MIN_POSITIVE {
                    assert!(
                        ulps32(powf(bf, ef).abs(), want.abs()) <= 1,
                        "powf({bf}, {ef})"
                    );
                    assert_eq!(powf(bf, ef).signum(), want.signum(), "powf({bf}, {ef})");
                }
                let want = b.powf(e * 5.0);
                if want.is_finite() && want.abs() >= f64::MIN_POSITIVE {
                    assert!(
                        ulps64(pow(b, e * 5.0).abs(), want.abs()) <= 2,
                        "pow({b}, {})",
                        e * 5.0
                    );
                }
            }
        }
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.0,
            -3.0,
            1e30,
            -1e30,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        // Exact where C99 fixes the result (zeros, infinities, NaN, 1);
        // elsewhere (0.5 ** 0.5) within 1 ulp as above.
        let fixed = |w: f64| w.is_nan() || w.is_infinite() || w == 0.0 || w.abs() == 1.0;
        for &x in &specials {
            for &y in &specials {
                let (want, got) = (x.powf(y), pow(x, y));
                if fixed(want) {
                    assert!(
                        want.to_bits() == got.to_bits() || want.is_nan() && got.is_nan(),
                        "pow({x}, {y}) = {got}, not {want}"
                    );
                } else {
                    assert!(ulps64(got, want) <= 2, "pow({x}, {y})");
                }
                let (want, got) = ((x as f32).powf(y as f32), powf(x as f32, y as f32));
                if fixed(want as f64) {
                    assert!(
                        want.to_bits() == got.to_bits() || want.is_nan() && got.is_nan(),
                        "powf({x}, {y}) = {got}, not {want}"
                    );
                } else {
                    assert!(ulps32(got, want) <= 1, "powf({x}, {y})");
                }
            }
        }
        assert!(pow(f64::NAN, 2.0).is_nan() && powf(2.0, f32::NAN).is_nan());
        assert_eq!((pow(f64::NAN, 0.0), powf(1.0, f32::NAN)), (1.0, 1.0));
        assert_eq!(powf(-2.0, 3.0), -8.0);
        assert!(powf(-2.0, 0.5).is_nan() && pow(-2.0, 0.5).is_nan());
    }
}
