//! The derivatives of the pointwise ops (`exp`, `tanh`, `gelu`, ...) as
//! `derivatives.yaml` writes them: `g` times the op's derivative at `s`
//! (its input or its result, as `record::unary_saves` says). Written once
//! over [`Arith`], the ops they compute with (`record::Recording`): for a
//! backward (`formulas.rs`) and for a forward-mode tangent (`jvp.rs`), the
//! same diagonal Jacobian.

use std::sync::Arc;

use crate::error::Error;
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// The ops a derivative is computed with.
pub trait Arith {
    fn bin(&mut self, op: BinaryOp, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>>;
    fn bin_s(&mut self, op: BinaryOp, a: &Tensor, s: f64) -> R<Arc<Tensor>>;
    fn s_bin(&mut self, op: BinaryOp, s: f64, a: &Tensor) -> R<Arc<Tensor>>;
    fn unary(&mut self, op: UnaryOp, x: &Tensor) -> R<Arc<Tensor>>;
    /// `where(cond, a, 0)`.
    fn masked(&mut self, cond: &Tensor, a: &Tensor) -> R<Arc<Tensor>>;
    fn sign(&mut self, x: &Tensor) -> R<Arc<Tensor>>;
    /// `x`, computed from `of` by an op that is not differentiated
    /// (`sign`), recorded as the node `name` where that is recorded.
    fn flat(&mut self, x: Arc<Tensor>, of: &Tensor, name: &'static str) -> Arc<Tensor>;
}

/// `g` times the derivative of the pointwise `op` at `s`.
pub fn times_derivative<A: Arith>(
    a: &mut A,
    op: UnaryOp,
    g: &Tensor,
    s: &Tensor,
) -> R<Arc<Tensor>> {
    use BinaryOp::*;
    match op {
        // exp: g * result
        UnaryOp::Exp => a.bin(Mul, g, s),
        // log: g / x
        UnaryOp::Log => a.bin(Div, g, s),
        // log1p: g / (x + 1)
        UnaryOp::Log1p => {
            let x1 = a.bin_s(Add, s, 1.0)?;
            a.bin(Div, g, &x1)
        }
        // sqrt: g / (2 * result)
        UnaryOp::Sqrt => {
            let two = a.s_bin(Mul, 2.0, s)?;
            a.bin(Div, g, &two)
        }
        // abs: g * sgn(x)
        UnaryOp::Abs => {
            let sign = a.sign(s)?;
            let sign = a.flat(sign, s, "SgnBackward0");
            a.bin(Mul, g, &sign)
        }
        // relu: g where result > 0, else 0 (threshold_backward)
        UnaryOp::Relu => {
            let on = a.bin_s(Gt, s, 0.0)?;
            let gx = a.masked(&on, g)?;
            Ok(a.flat(gx, s, "ThresholdBackwardBackward0"))
        }
        // sigmoid: g * (1 - y) * y
        UnaryOp::Sigmoid => {
            let one_minus = a.s_bin(Sub, 1.0, s)?;
            let ga = a.bin(Mul, g, &one_minus)?;
            a.bin(Mul, &ga, s)
        }
        // tanh: g * (1 - y * y)
        UnaryOp::Tanh => {
            let yy = a.bin(Mul, s, s)?;
            let d = a.s_bin(Sub, 1.0, &yy)?;
            a.bin(Mul, g, &d)
        }
        // erf: g * 2/sqrt(pi) * exp(-x^2)
        UnaryOp::Erf => {
            let xx = a.bin(Mul, s, s)?;
            let minus = a.unary(UnaryOp::Neg, &xx)?;
            let e = a.unary(UnaryOp::Exp, &minus)?;
            let d = a.bin_s(Mul, &e, std::f64::consts::FRAC_2_SQRT_PI)?;
            a.bin(Mul, g, &d)
        }
        // gelu (PyTorch's GeluBackward0): g * (cdf + x * pdf), with
        // cdf = 0.5 (1 + erf(x / sqrt 2)), pdf = exp(-x^2 / 2) / sqrt(2 pi).
        UnaryOp::Gelu => {
            let scaled = a.bin_s(Mul, s, std::f64::consts::FRAC_1_SQRT_2)?;
            let erf = a.unary(UnaryOp::Erf, &scaled)?;
            let one_plus = a.bin_s(Add, &erf, 1.0)?;
            let cdf = a.bin_s(Mul, &one_plus, 0.5)?;
            let xx = a.bin(Mul, s, s)?;
            let half = a.bin_s(Mul, &xx, -0.5)?;
            let e = a.unary(UnaryOp::Exp, &half)?;
            let beta = std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2 * 0.5;
            let pdf = a.bin_s(Mul, &e, beta)?;
            let x_pdf = a.bin(Mul, s, &pdf)?;
            let d = a.bin(Add, &cdf, &x_pdf)?;
            a.bin(Mul, g, &d)
        }
        // gelu, tanh approximation: g * (0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa x^2)),
        // t = tanh(beta (x + kappa x^3)).
        UnaryOp::GeluTanh => {
            let (beta, kappa) = (
                std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5,
                0.044715,
            );
            let xx = a.bin(Mul, s, s)?;
            let cube = a.bin(Mul, &xx, s)?;
            let k_cube = a.bin_s(Mul, &cube, kappa)?;
            let sum = a.bin(Add, s, &k_cube)?;
            let inner = a.bin_s(Mul, &sum, beta)?;
            let t = a.unary(UnaryOp::Tanh, &inner)?;
            let one_plus = a.bin_s(Add, &t, 1.0)?;
            let left = a.bin_s(Mul, &one_plus, 0.5)?;
            let tt = a.bin(Mul, &t, &t)?;
            let one_minus = a.s_bin(Sub, 1.0, &tt)?;
            let k_xx = a.bin_s(Mul, &xx, 3.0 * kappa)?;
            let k_one = a.bin_s(Add, &k_xx, 1.0)?;
            let slope = a.bin_s(Mul, &k_one, beta)?;
            let half_x = a.bin_s(Mul, s, 0.5)?;
            let r1 = a.bin(Mul, &half_x, &one_minus)?;
            let right = a.bin(Mul, &r1, &slope)?;
            let d = a.bin(Add, &left, &right)?;
            a.bin(Mul, g, &d)
        }
        // sin: g * cos(x)
        UnaryOp::Sin => {
            let c = a.unary(UnaryOp::Cos, s)?;
            a.bin(Mul, g, &c)
        }
        // cos: g * -sin(x)
        UnaryOp::Cos => {
            let sn = a.unary(UnaryOp::Sin, s)?;
            let n = a.unary(UnaryOp::Neg, &sn)?;
            a.bin(Mul, g, &n)
        }
        // The rest as derivatives.yaml writes them.
        // rsqrt: -0.5 * g * result^3
        UnaryOp::Rsqrt => {
            let half = a.s_bin(Mul, -0.5, g)?;
            let cube = a.bin_s(Pow, s, 3.0)?;
            a.bin(Mul, &half, &cube)
        }
        // tan: g * (1 + result^2)
        UnaryOp::Tan => {
            let sq = a.bin_s(Pow, s, 2.0)?;
            let d = a.s_bin(Add, 1.0, &sq)?;
            a.bin(Mul, g, &d)
        }
        // atan: g / (x * x + 1)
        UnaryOp::Atan => {
            let xx = a.bin(Mul, s, s)?;
            let d = a.bin_s(Add, &xx, 1.0)?;
            a.bin(Div, g, &d)
        }
        // asin: g * rsqrt(-x * x + 1); acos: g * -rsqrt(-x * x + 1)
        UnaryOp::Asin | UnaryOp::Acos => {
            let minus = a.unary(UnaryOp::Neg, s)?;
            let xx = a.bin(Mul, &minus, s)?;
            let d = a.bin_s(Add, &xx, 1.0)?;
            let r = a.unary(UnaryOp::Rsqrt, &d)?;
            let r = match op {
                UnaryOp::Acos => a.unary(UnaryOp::Neg, &r)?,
                _ => r,
            };
            a.bin(Mul, g, &r)
        }
        // sinh: g * cosh(x); cosh: g * sinh(x)
        UnaryOp::Sinh | UnaryOp::Cosh => {
            let other = match op {
                UnaryOp::Sinh => UnaryOp::Cosh,
                _ => UnaryOp::Sinh,
            };
            let d = a.unary(other, s)?;
            a.bin(Mul, g, &d)
        }
        // reciprocal: -g * result * result
        UnaryOp::Reciprocal => {
            let minus = a.unary(UnaryOp::Neg, g)?;
            let rr = a.bin(Mul, s, s)?;
            a.bin(Mul, &minus, &rr)
        }
        // log2 and log10: g / (x * ln(base))
        UnaryOp::Log2 | UnaryOp::Log10 => {
            let ln = match op {
                UnaryOp::Log2 => std::f64::consts::LN_2,
                _ => std::f64::consts::LN_10,
            };
            let d = a.bin_s(Mul, s, ln)?;
            a.bin(Div, g, &d)
        }
        // expm1: g * (result + 1)
        UnaryOp::Expm1 => {
            let d = a.bin_s(Add, s, 1.0)?;
            a.bin(Mul, g, &d)
        }
        // exp2: g * result * ln 2
        UnaryOp::Exp2 => {
            let gr = a.bin(Mul, g, s)?;
            a.bin_s(Mul, &gr, std::f64::consts::LN_2)
        }
        // silu: g * s * (1 + x * (1 - s)), s = sigmoid(x) (silu_backward)
        UnaryOp::Silu => {
            let sg = a.unary(UnaryOp::Sigmoid, s)?;
            let rest = a.s_bin(Sub, 1.0, &sg)?;
            let xr = a.bin(Mul, s, &rest)?;
            let inner = a.s_bin(Add, 1.0, &xr)?;
            let ga = a.bin(Mul, g, &sg)?;
            a.bin(Mul, &ga, &inner)
        }
        // mish: g * (t + x * sigmoid(x) * (1 - t^2)), t = tanh(softplus(x))
        UnaryOp::Mish => {
            let sg = a.unary(UnaryOp::Sigmoid, s)?;
            let e = a.unary(UnaryOp::Exp, s)?;
            let sp = a.unary(UnaryOp::Log1p, &e)?;
            let t = a.unary(UnaryOp::Tanh, &sp)?;
            let tt = a.bin(Mul, &t, &t)?;
            let rest = a.s_bin(Sub, 1.0, &tt)?;
            let xs = a.bin(Mul, s, &sg)?;
            let r = a.bin(Mul, &xs, &rest)?;
            let d = a.bin(Add, &t, &r)?;
            a.bin(Mul, g, &d)
        }
        // erfinv (ErfinvBackward0): 0.5 * sqrt(pi) * exp(erfinv(x)^2) * g,
        // the inverse computed again from the saved input, as PyTorch's.
        UnaryOp::Erfinv => {
            let y = a.unary(UnaryOp::Erfinv, s)?;
            let yy = a.bin(Mul, &y, &y)?;
            let e = a.unary(UnaryOp::Exp, &yy)?;
            let d = a.bin_s(Mul, &e, 0.5 * std::f64::consts::PI.sqrt())?;
            a.bin(Mul, &d, g)
        }
        _ => Err(Error::value(format!(
            "internal error: no gradient for `{}`",
            op.name()
        ))),
    }
}
