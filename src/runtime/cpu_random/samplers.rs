//! The rejection samplers of PyTorch's CPU kernels, drawing from its CPU
//! generator one element after another (`cpu_serial_kernel`), so a seeded
//! program's `torch._standard_gamma`, `torch._sample_dirichlet`,
//! `torch.poisson` and `torch.binomial` are PyTorch's numbers:
//!
//! - gamma: Marsaglia and Tsang's method (2000), a shape below 1 boosted by
//!   one and scaled by `u^(1/shape)`; uniforms and normals in double
//!   (`uniform_real_distribution<double>`, `normal_distribution<double>`);
//! - Poisson: a product of uniforms below rate 10, Hörmann's transformed
//!   rejection (PTRS, 1993) from 10 on;
//! - binomial: inversion by geometric waiting times where `count * p < 10`,
//!   Hörmann's BTRS otherwise, the smaller of `p` and `1 - p` drawn.
//!
//! Where PyTorch computes in the tensor's element type (`scalar_t`: float
//! for a float32 tensor) and where in double, these do too: `Elem::F32`
//! rounds those steps to f32.

use super::CpuGenerator;

/// The element type the kernel computes its `scalar_t` steps in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    F32,
    F64,
}

impl Elem {
    /// `x` as a value of this type.
    fn of(self, x: f64) -> f64 {
        match self {
            Elem::F32 => f64::from(x as f32),
            Elem::F64 => x,
        }
    }
}

/// One draw of Gamma(alpha, 1), before the kernel's clamp to the type's
/// smallest normal number.
pub fn gamma(g: &mut CpuGenerator, alpha: f64, elem: Elem) -> f64 {
    let mut scale = 1.0f64;
    let mut alpha = elem.of(alpha);
    if alpha < 1.0 {
        if alpha == 0.0 {
            return 0.0;
        }
        let power = elem.of(1.0 / alpha);
        scale *= (1.0 - g.uniform_f64(0.0, 1.0)).powf(power);
        alpha = elem.of(alpha + 1.0);
    }
    // `alpha - 1.0f / 3.0f`: the third is a float constant in both types.
    let third = f64::from(1.0f32 / 3.0f32);
    let d = elem.of(alpha - third);
    let c = 1.0 / (9.0 * d).sqrt();
    // `0.0331f`, read as a double.
    let squeeze = f64::from(0.0331f32);
    loop {
        // Until `y > 0` — or a NaN shape's NaN, which the kernel's `while
        // (y <= 0)` lets through too (its draw then clamps to the least
        // normal number).
        let (x, y) = loop {
            let x = g.normal_f64(0.0, 1.0);
            let y = 1.0 + c * x;
            if y > 0.0 || y.is_nan() {
                break (x, y);
            }
        };
        let v = y * y * y;
        let u = 1.0 - g.uniform_f64(0.0, 1.0);
        let xx = x * x;
        if u < 1.0 - squeeze * xx * xx || u.ln() < 0.5 * xx + d * (1.0 - v + v.ln()) {
            return scale * d * v;
        }
    }
}

/// One draw of Poisson(rate) (`sample_poisson`); the rate is never
/// negative here (the caller checks).
pub fn poisson(g: &mut CpuGenerator, rate: f64) -> f64 {
    if rate == 0.0 {
        return 0.0;
    }
    if rate < 10.0 {
        let floor = (-rate).exp();
        let mut count = 0.0;
        let mut product = 1.0;
        loop {
            product *= g.uniform_f64(0.0, 1.0);
            if product <= floor {
                return count;
            }
            count += 1.0;
        }
    }
    let root = rate.sqrt();
    let log_rate = rate.ln();
    let b = 0.931 + 2.53 * root;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let v_r = 0.9277 - 3.6224 / (b - 2.0);
    loop {
        let u = g.uniform_f64(0.0, 1.0) - 0.5;
        let v = g.uniform_f64(0.0, 1.0);
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + rate + 0.43).floor();
        if us >= 0.07 && v <= v_r {
            return k;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        let lhs = v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln();
        if lhs <= -rate + k * log_rate - crate::runtime::libm::lgamma(k + 1.0) {
            return k;
        }
    }
}

/// One draw of Binomial(count, p) (`sample_binomial`); NaN for a NaN `p`,
/// and for a NaN count (where PyTorch's kernel never ends its loop).
pub fn binomial(g: &mut CpuGenerator, count: f64, p: f64, elem: Elem) -> f64 {
    if count.is_nan() {
        return f64::NAN;
    }
    if count <= 0.0 || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return count;
    }
    if p.is_nan() {
        return f64::NAN;
    }
    if p <= 0.5 {
        return match elem.of(count * p) >= 10.0 {
            true => btrs(g, count, p, elem),
            false => inversion(g, count, p, elem),
        };
    }
    let q = elem.of(1.0 - p);
    let k = match elem.of(count * q) >= 10.0 {
        true => btrs(g, count, q, elem),
        false => inversion(g, count, q, elem),
    };
    elem.of(count - k)
}

/// The number of geometric waiting times that fit in `count` trials.
fn inversion(g: &mut CpuGenerator, count: f64, p: f64, elem: Elem) -> f64 {
    // `log1p(-prob)` in the element type (log1pf for a float).
    let log_q = match elem {
        Elem::F32 => f64::from((-(p as f32)).ln_1p()),
        Elem::F64 => (-p).ln_1p(),
    };
    let mut sum = 0.0;
    let mut n = 0.0;
    loop {
        let u = g.uniform_f64(0.0, 1.0);
        sum += (u.ln() / log_q).ceil();
        if sum > count {
            return n;
        }
        n += 1.0;
    }
}

/// Stirling's tail `log k! - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi)/2`,
/// from a table for k below 10.
fn stirling_tail(k: f64) -> f64 {
    const TAIL: [f64; 10] = [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ];
    if k < 10.0 {
        return TAIL[k as usize];
    }
    let k1 = k + 1.0;
    let sq = k1 * k1;
    (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / sq) / sq) / k1
}

/// Hörmann's transformed rejection with squeeze (BTRS).
fn btrs(g: &mut CpuGenerator, count: f64, p: f64, elem: Elem) -> f64 {
    let f = |x: f64| elem.of(x);
    let spq = f(f(f(count * p) * f(1.0 - p)).sqrt());
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = f(count * p) + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let r = f(p / f(1.0 - p));
    let alpha = (2.83 + 5.1 / b) * spq;
    let m = f(f(count + 1.0) * p).floor();
    loop {
        let u = g.uniform_f64(0.0, 1.0) - 0.5;
        let v = g.uniform_f64(0.0, 1.0);
        let us = 0.5 - u.abs();
        let k = f(((2.0 * a / us + b) * u + c).floor());
        if k < 0.0 || k > count {
            continue;
        }
        if us >= 0.07 && v <= v_r {
            return k;
        }
        let v = (v * alpha / (a / (us * us) + b)).ln();
        let bound = (m + 0.5) * ((m + 1.0) / (r * (count - m + 1.0))).ln()
            + (count + 1.0) * ((count - m + 1.0) / f(count - k + 1.0)).ln()
            + (k + 0.5) * (r * f(count - k + 1.0) / f(k + 1.0)).ln()
            + stirling_tail(m)
            + stirling_tail(count - m)
            - stirling_tail(k)
            - stirling_tail(f(count - k));
        if v <= bound {
            return k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NaN shape, rate or count ends as PyTorch's kernel ends (or, where
    /// it would loop forever, with NaN) instead of hanging.
    #[test]
    fn nan_parameters_end() {
        let mut g = CpuGenerator::new(0);
        assert!(gamma(&mut g, f64::NAN, Elem::F32).is_nan());
        assert!(binomial(&mut g, f64::NAN, 0.5, Elem::F32).is_nan());
        assert!(binomial(&mut g, 5.0, f64::NAN, Elem::F64).is_nan());
        assert_eq!(gamma(&mut g, f64::INFINITY, Elem::F64), f64::INFINITY);
    }
}
