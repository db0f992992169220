//! A CPU tensor's random elements as PyTorch's CPU kernels make them
//! (`native/cpu/DistributionTemplates.h`): `uniform_kernel`, `normal_kernel`
//! (Box–Muller over blocks of 16 for 16 elements or more of a contiguous
//! tensor, one pair at a time otherwise) and `random_from_to_kernel`. The
//! values come back as f64 holding the dtype's value exactly.

use half::{bf16, f16};

use super::{cephes, CpuGenerator};
use crate::vocab::DType;

/// `uniform_(from, to)`, `rand`: in double for f64, in float for the others
/// (then rounded to the dtype; a value rounded up to `to` becomes `from`).
pub fn uniform(g: &mut CpuGenerator, n: usize, dtype: DType, from: f64, to: f64) -> Vec<f64> {
    if dtype == DType::F64 {
        return (0..n).map(|_| g.uniform_f64(from, to)).collect();
    }
    let (lo, hi) = (from as f32, to as f32);
    let (lo_d, hi_d) = (rounded(f64::from(lo), dtype), rounded(f64::from(hi), dtype));
    (0..n)
        .map(|_| {
            let v = rounded(f64::from(g.uniform_f32(lo, hi)), dtype);
            if v == hi_d {
                lo_d
            } else {
                v
            }
        })
        .collect()
}

/// `uniform` of f32: the floats themselves (no f64 in between; a layer's
/// initialisation draws millions).
pub fn uniform_f32(g: &mut CpuGenerator, n: usize, from: f64, to: f64) -> Vec<f32> {
    let (lo, hi) = (from as f32, to as f32);
    (0..n)
        .map(|_| {
            let v = g.uniform_f32(lo, hi);
            if v == hi {
                lo
            } else {
                v
            }
        })
        .collect()
}

/// `normal_(mean, std)`, `randn`.
pub fn normal(
    g: &mut CpuGenerator,
    n: usize,
    dtype: DType,
    (mean, std): (f64, f64),
    contiguous: bool,
) -> Vec<f64> {
    if n < 16 || !contiguous {
        return (0..n)
            .map(|_| rounded(g.normal_f64(mean, std), dtype))
            .collect();
    }
    match dtype {
        DType::F64 => fill_f64(g, n, mean, std),
        DType::F32 => fill_f32(g, n, mean as f32, std as f32)
            .into_iter()
            .map(f64::from)
            .collect(),
        _ => fill_half(g, n, dtype, mean as f32, std as f32),
    }
}

/// `normal` of f32 where PyTorch fills blocks of 16 (a contiguous tensor
/// of 16 elements or more): the floats themselves, with no f64 in between
/// (a model's initialisation draws hundreds of millions). None otherwise.
pub fn normal_f32(
    g: &mut CpuGenerator,
    n: usize,
    dtype: DType,
    (mean, std): (f64, f64),
    contiguous: bool,
) -> Option<Vec<f32>> {
    (dtype == DType::F32 && n >= 16 && contiguous).then(|| fill_f32(g, n, mean as f32, std as f32))
}

/// The distributions PyTorch's CPU kernels draw one element at a time in
/// double (`exponential_`, `geometric_`, `log_normal_`, `cauchy_`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Serial {
    Exponential { lambda: f64 },
    Geometric { p: f64 },
    LogNormal { mean: f64, std: f64 },
    Cauchy { median: f64, sigma: f64 },
}

/// `n` draws of `what`, each rounded to `dtype`.
pub fn serial(g: &mut CpuGenerator, n: usize, dtype: DType, what: Serial) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let v = match what {
                Serial::Exponential { lambda } => g.exponential(lambda),
                Serial::Geometric { p } => g.geometric(p),
                Serial::LogNormal { mean, std } => g.log_normal(mean, std),
                Serial::Cauchy { median, sigma } => g.cauchy(median, sigma),
            };
            rounded(v, dtype)
        })
        .collect()
}

/// `randint`, `random_(from, to)`: integers in `[low, low + range)`.
pub fn integers(g: &mut CpuGenerator, n: usize, low: i64, range: u64) -> Vec<i64> {
    (0..n).map(|_| g.integer(range, low)).collect()
}

/// `random_()` over a dtype's whole range `[0, range)`: a 64-bit draw for
/// int64's 2^63, a 32-bit draw otherwise (PyTorch's `uniform_int`).
pub fn full_range(g: &mut CpuGenerator, n: usize, range: u64) -> Vec<i64> {
    (0..n)
        .map(|_| match range {
            r if r == 1 << 63 => (g.random64() % r) as i64,
            r => (u64::from(g.random()) % r) as i64,
        })
        .collect()
}

/// `v` rounded to `dtype` (exactly representable in f64).
pub(super) fn rounded(v: f64, dtype: DType) -> f64 {
    match dtype {
        DType::F32 => f64::from(v as f32),
        DType::F16 => f16::from_f64(v).to_f64(),
        DType::BF16 => bf16::from_f64(v).to_f64(),
        _ => v,
    }
}

/// Box–Muller on 16 floats: pairs (j, j + 8), as `NormalFill16<float>`
/// with AVX2.
fn block_f32(d: &mut [f32], mean: f32, std: f32) {
    for j in 0..8 {
        let u1 = 1.0 - d[j];
        let u2 = d[j + 8];
        let radius = (-2.0 * cephes::log(u1)).sqrt();
        let theta = (2.0 * std::f64::consts::PI) as f32 * u2;
        let (s, c) = cephes::sin_cos(theta);
        d[j] = (radius * c).mul_add(std, mean);
        d[j + 8] = (radius * s).mul_add(std, mean);
    }
}

/// The same in double, with the C library's functions (`NormalFill16<double>`).
fn block_f64(d: &mut [f64], mean: f64, std: f64) {
    for j in 0..8 {
        let u1 = 1.0 - d[j];
        let u2 = d[j + 8];
        let radius = (-2.0 * u1.ln()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u2;
        d[j] = (radius * theta.cos()).mul_add(std, mean);
        d[j + 8] = (radius * theta.sin()).mul_add(std, mean);
    }
}

/// `normal_fill` of floats or doubles: every uniform drawn first, the
/// blocks transformed, then the last 16 drawn and transformed again when
/// the count is not a multiple of 16.
fn fill_blocks<T: Copy>(
    g: &mut CpuGenerator,
    n: usize,
    draw: impl Fn(&mut CpuGenerator) -> T,
    block: impl Fn(&mut [T]),
) -> Vec<T> {
    let mut d: Vec<T> = (0..n).map(|_| draw(g)).collect();
    for b in d.chunks_exact_mut(16) {
        block(b);
    }
    if !n.is_multiple_of(16) {
        let tail = &mut d[n - 16..];
        tail.iter_mut().for_each(|v| *v = draw(g));
        block(tail);
    }
    d
}

fn fill_f32(g: &mut CpuGenerator, n: usize, mean: f32, std: f32) -> Vec<f32> {
    fill_blocks(
        g,
        n,
        |g| g.uniform_f32(0.0, 1.0),
        |b| block_f32(b, mean, std),
    )
}

fn fill_f64(g: &mut CpuGenerator, n: usize, mean: f64, std: f64) -> Vec<f64> {
    fill_blocks(
        g,
        n,
        |g| g.uniform_f64(0.0, 1.0),
        |b| block_f64(b, mean, std),
    )
}

/// Half precision: each block's 16 uniforms drawn as it is transformed (in
/// float), so a partial last block draws none before the last 16.
fn fill_half(g: &mut CpuGenerator, n: usize, dtype: DType, mean: f32, std: f32) -> Vec<f64> {
    let mut out = vec![0.0; n];
    let mut block = |g: &mut CpuGenerator, at: usize| {
        let mut buf = [0f32; 16];
        buf.iter_mut().for_each(|v| *v = g.uniform_f32(0.0, 1.0));
        block_f32(&mut buf, mean, std);
        for (o, v) in out[at..at + 16].iter_mut().zip(buf) {
            *o = rounded(f64::from(v), dtype);
        }
    };
    for at in (0..n / 16).map(|b| b * 16) {
        block(g, at);
    }
    if !n.is_multiple_of(16) {
        block(g, n - 16);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printed by PyTorch 2.15 (x86, AVX2) after `torch.manual_seed(0)`:
    /// `torch.randn(20)`, its Box–Muller blocks and recomputed last 16.
    #[test]
    fn twenty_normal_floats_are_pytorchs() {
        let got = normal(&mut CpuGenerator::new(0), 20, DType::F32, (0.0, 1.0), true);
        let want: [f32; 20] = [
            -1.125_839_8,
            -1.152_360_2,
            -0.250_578_58,
            -0.433_878_8,
            0.598_839_46,
            -1.555_095_1,
            -0.341_360_4,
            1.853_006_1,
            0.468_096_4,
            -0.157_712_45,
            1.443_660_1,
            0.266_049_4,
            1.389_366_1,
            1.586_334_2,
            0.946_298_36,
            -0.843_676_76,
            0.931_826_6,
            1.259_009_2,
            2.004_980_6,
            0.053_736_903,
        ];
        let got: Vec<f32> = got.into_iter().map(|v| v as f32).collect();
        assert_eq!(got, want);
    }

    /// `torch.manual_seed(0); torch.rand(3)` and `torch.empty(5).uniform_(-0.3, 0.7)`.
    #[test]
    fn uniform_floats_are_pytorchs() {
        let got = uniform(&mut CpuGenerator::new(0), 3, DType::F32, 0.0, 1.0);
        assert_eq!(
            got,
            [
                0.496_256_589_889_526_37,
                0.768_221_795_558_929_4,
                0.088_477_432_727_813_72
            ]
        );
        let got = uniform(&mut CpuGenerator::new(0), 5, DType::F32, -0.3, 0.7);
        let want = [
            0.196_256_577_968_597_4,
            0.468_221_783_638_000_5,
            -0.211_522_579_193_115_23,
            -0.167_969_524_860_382_08,
            0.007_422_804_832_458_496,
        ];
        assert_eq!(got, want);
    }
}
