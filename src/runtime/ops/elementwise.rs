//! Elementwise unary and binary ops with broadcasting and dtype promotion.

use super::super::buffer::Stored;
use super::super::buffer::{map_slice, map_slice_with, zip_slices, Buffer, PAR_MIN};
use super::super::element::{Bit, Num};
use super::super::parallel;
use super::super::shape::{broadcast_strides, for_each_offset2, numel};
use super::super::{DType, Tensor};
use super::pow_shortcut::PowShortcut;
use crate::error::Error;
use crate::runtime::libm as c_erf;
use crate::{with_dtype, with_num_dtype};

use crate::runtime::op::binary::cast_to;
pub use crate::runtime::op::binary::{
    bool_power, check_binary, check_divisor, check_exponent, check_in_place, compute_dtype,
    opmath_scalar, plan_binary, pow_number_on_cuda, reciprocal_divisor, result_device,
    result_device_of, result_dtype, result_dtype_of, BinaryOp, BinaryPlan, Operand,
};
pub use crate::runtime::op::unary::{check_unary, unary_dtype, UnaryOp};

pub fn binary(op: BinaryOp, a: Operand, b: Operand) -> Result<Tensor, Error> {
    let plan = plan_binary(op, a, b)?;
    binary_planned(op, a, b, plan)
}

/// `a op b` as `plan_binary` planned it.
pub fn binary_planned(
    op: BinaryOp,
    a: Operand,
    b: Operand,
    plan: BinaryPlan,
) -> Result<Tensor, Error> {
    let (ta, tb) = (a.tensor, b.tensor);
    let BinaryPlan {
        device,
        shape,
        compute,
    } = plan;
    if numel(&shape) == 0 {
        // No element: no operand is read (a kernel would not launch).
        let dt = if op.gives_bool() {
            DType::Bool
        } else {
            compute
        };
        return Ok(Tensor::new(Buffer::zeros(dt, 0), shape, device));
    }
    if device == crate::runtime::Device::Cpu {
        check_divisor(op, compute, b.tensor)?;
        if op == BinaryOp::Pow && compute.is_float() {
            // PyTorch's CPU kernels: SLEEF's pow in registers, shortcuts.
            let number = b.weak && !a.weak;
            return Ok(super::pytorch::pow::on_cpu(ta, tb, number, compute, &shape));
        }
    }
    let shortcut = pow_number_on_cuda(op, a, b).and_then(|e| PowShortcut::on_cuda(compute, e));
    if let Some(s) = shortcut {
        let x = cast_to(ta, compute);
        return Ok(Tensor::new(s.host(x.as_ref().unwrap_or(ta)), shape, device));
    }
    if let Some(side) = opmath_scalar(op, compute, a, b) {
        // f32 math on the widened tensor and the scalar as f32, rounded once;
        // the tensor in the compute dtype first, as PyTorch's inputs are.
        let wide = |t: &Tensor, scalar: bool| match scalar {
            true => t.cast(DType::F32),
            false => t.cast(compute).cast(DType::F32),
        };
        let (a32, b32) = (wide(ta, side == 0), wide(tb, side == 1));
        let out = arith::<f32>(op, &a32, &b32, &shape);
        return Ok(Tensor::new(out.cast(compute), shape, device));
    }
    let ca = cast_to(ta, compute);
    let cb = cast_to(tb, compute);
    let (ta, tb) = (ca.as_ref().unwrap_or(ta), cb.as_ref().unwrap_or(tb));
    let buf = if op.gives_bool() {
        with_dtype!(compute, T => compare::<T>(op, ta, tb, &shape))
    } else {
        with_num_dtype!(compute, T => arith::<T>(op, ta, tb, &shape), bool => bool_arith(op, ta, tb, &shape))
    };
    Ok(Tensor::new(buf, shape, device))
}

/// `x op= y` written straight into `x`, a row at a time, where that gives
/// the same bits as computing `x op y` and copying it back: `+ - * /` of
/// two f32 or f64 tensors of one dtype (one IEEE operation per element), `y`
/// a tensor (not a number) broadcast to `x`'s shape in memory of its own,
/// or a float number (in x's dtype, as the general path casts it).
/// `None` for anything else (the caller computes, then assigns). col2im's
/// adds into a strided view were two passes and a temporary each.
pub fn in_place_same_dtype(op: BinaryOp, x: &Tensor, y: Operand) -> Option<()> {
    let yt = y.tensor;
    let simple = matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
    );
    if simple
        && y.weak
        && yt.numel() == 1
        && yt.dtype().is_float()
        && matches!(x.dtype(), DType::F32 | DType::F64)
        && x.is_contiguous()
        && x.numel() > 0
    {
        // `x op= number` (an optimizer's `mul_(beta)`): the number in x's
        // dtype, as the general path casts it, one flat pass.
        let s = yt.to_vec::<f64>()[0];
        match x.dtype() {
            DType::F32 => scalar::<f32>(op, x, s as f32),
            _ => scalar::<f64>(op, x, s),
        }
        return Some(());
    }
    if !simple
        || y.weak
        || !matches!(x.dtype(), DType::F32 | DType::F64)
        || yt.dtype() != x.dtype()
        || x.ndim() == 0
        || yt.ndim() > x.ndim()
        || yt.shares_storage(x)
        || x.numel() == 0
    {
        return None;
    }
    let lead = x.ndim() - yt.ndim();
    let fits = yt
        .shape()
        .iter()
        .zip(&x.shape()[lead..])
        .all(|(&a, &b)| a == b || a == 1);
    if !fits {
        return None;
    }
    fn rows<T: Num + Stored>(op: BinaryOp, x: &Tensor, y: &Tensor) {
        let n = x.ndim();
        let ys = broadcast_strides(y.shape(), y.strides(), x.shape());
        let inner = x.shape()[n - 1];
        let (xs, yst) = (x.strides()[n - 1], ys[n - 1]);
        let yb = y.read();
        let yv = yb.as_slice::<T>();
        let mut xb = x.write();
        let xv = xb.as_mut_slice::<T>();
        let f = |a: T, b: T| match op {
            BinaryOp::Add => a.add(b),
            BinaryOp::Sub => a.sub(b),
            BinaryOp::Mul => a.mul(b),
            _ => a.div(b),
        };
        for_each_offset2(
            &x.shape()[..n - 1],
            (&x.strides()[..n - 1], x.offset()),
            (&ys[..n - 1], y.offset()),
            |i, j| {
                if xs == 1 && yst == 1 {
                    for (a, &b) in xv[i..i + inner].iter_mut().zip(&yv[j..j + inner]) {
                        *a = f(*a, b);
                    }
                } else {
                    for k in 0..inner as isize {
                        let (p, q) = (
                            (i as isize + k * xs) as usize,
                            (j as isize + k * yst) as usize,
                        );
                        xv[p] = f(xv[p], yv[q]);
                    }
                }
            },
        );
    }
    /// Both contiguous and alike (an optimizer's `exp_avg.mul_(grad)`):
    /// one flat pass split across the threads, the op chosen outside the
    /// loop so it vectorizes.
    fn flat<T: Num + Stored>(op: BinaryOp, x: &Tensor, y: &Tensor) {
        fn run<T: Num + Stored>(x: &mut [T], y: &[T], f: impl Fn(T, T) -> T + Sync) {
            parallel::for_each_part(x, PAR_MIN, |piece, part| {
                let ys = &y[piece * PAR_MIN..][..part.len()];
                for (a, &b) in part.iter_mut().zip(ys) {
                    *a = f(*a, b);
                }
            });
        }
        let yb = y.read();
        let ys = &yb.as_slice::<T>()[y.offset()..][..y.numel()];
        let mut xb = x.write();
        let xs = &mut xb.as_mut_slice::<T>()[x.offset()..][..x.numel()];
        match op {
            BinaryOp::Add => run(xs, ys, |a, b| a.add(b)),
            BinaryOp::Sub => run(xs, ys, |a, b| a.sub(b)),
            BinaryOp::Mul => run(xs, ys, |a, b| a.mul(b)),
            _ => run(xs, ys, |a, b| a.div(b)),
        }
    }
    let alike = x.is_contiguous() && yt.is_contiguous() && x.shape() == yt.shape();
    match (x.dtype(), alike) {
        (DType::F32, true) => flat::<f32>(op, x, yt),
        (DType::F32, false) => rows::<f32>(op, x, yt),
        (_, true) => flat::<f64>(op, x, yt),
        _ => rows::<f64>(op, x, yt),
    }
    Some(())
}

/// `x op= s` over a contiguous `x`, split across the threads, the op
/// chosen outside the loop.
fn scalar<T: Num + Stored>(op: BinaryOp, x: &Tensor, s: T) {
    fn run<T: Num + Stored>(x: &mut [T], s: T, f: impl Fn(T, T) -> T + Sync) {
        parallel::for_each_part(x, PAR_MIN, |_, part| {
            for a in part.iter_mut() {
                *a = f(*a, s);
            }
        });
    }
    let mut xb = x.write();
    let xs = &mut xb.as_mut_slice::<T>()[x.offset()..][..x.numel()];
    match op {
        BinaryOp::Add => run(xs, s, |a, b| a.add(b)),
        BinaryOp::Sub => run(xs, s, |a, b| a.sub(b)),
        BinaryOp::Mul => run(xs, s, |a, b| a.mul(b)),
        _ => run(xs, s, |a, b| a.div(b)),
    }
}

fn arith<T: Num + Stored>(op: BinaryOp, a: &Tensor, b: &Tensor, shape: &[usize]) -> Buffer {
    match op {
        BinaryOp::Add => zip::<T, T>(a, b, shape, |x, y| x.add(y)),
        BinaryOp::Sub => zip::<T, T>(a, b, shape, |x, y| x.sub(y)),
        BinaryOp::Mul => zip::<T, T>(a, b, shape, |x, y| x.mul(y)),
        BinaryOp::Div => zip::<T, T>(a, b, shape, |x, y| x.div(y)),
        BinaryOp::FloorDiv => zip::<T, T>(a, b, shape, |x, y| x.floor_div(y)),
        BinaryOp::Rem => zip::<T, T>(a, b, shape, |x, y| x.rem(y)),
        BinaryOp::Fmod => zip::<T, T>(a, b, shape, |x, y| x.fmod(y)),
        BinaryOp::BitAnd => zip::<T, T>(a, b, shape, |x, y| x.bit(Bit::And, y)),
        BinaryOp::BitOr => zip::<T, T>(a, b, shape, |x, y| x.bit(Bit::Or, y)),
        BinaryOp::BitXor => zip::<T, T>(a, b, shape, |x, y| x.bit(Bit::Xor, y)),
        BinaryOp::Shl => zip::<T, T>(a, b, shape, |x, y| x.bit(Bit::Shl, y)),
        BinaryOp::Shr => zip::<T, T>(a, b, shape, |x, y| x.bit(Bit::Shr, y)),
        BinaryOp::Maximum => zip::<T, T>(a, b, shape, |x, y| x.maximum(y)),
        BinaryOp::Minimum => zip::<T, T>(a, b, shape, |x, y| x.minimum(y)),
        _ => zip::<T, T>(a, b, shape, |x, y| x.pow(y)),
    }
}

/// The ops that reach bool: `*`, `&`, minimum (and); `+`, `|`, maximum (or); `^`.
fn bool_arith(op: BinaryOp, a: &Tensor, b: &Tensor, shape: &[usize]) -> Buffer {
    match op {
        BinaryOp::Mul | BinaryOp::BitAnd | BinaryOp::Minimum => {
            zip::<bool, bool>(a, b, shape, |x, y| x && y)
        }
        BinaryOp::BitXor => zip::<bool, bool>(a, b, shape, |x, y| x != y),
        _ => zip::<bool, bool>(a, b, shape, |x, y| x || y),
    }
}

fn compare<T: Stored>(op: BinaryOp, a: &Tensor, b: &Tensor, shape: &[usize]) -> Buffer {
    match op {
        BinaryOp::LogicalAnd => zip::<T, bool>(a, b, shape, |x, y| x.to_bool() && y.to_bool()),
        BinaryOp::LogicalOr => zip::<T, bool>(a, b, shape, |x, y| x.to_bool() || y.to_bool()),
        BinaryOp::LogicalXor => zip::<T, bool>(a, b, shape, |x, y| x.to_bool() != y.to_bool()),
        BinaryOp::Eq => zip::<T, bool>(a, b, shape, |x, y| x == y),
        BinaryOp::Ne => zip::<T, bool>(a, b, shape, |x, y| x != y),
        BinaryOp::Lt => zip::<T, bool>(a, b, shape, |x, y| x < y),
        BinaryOp::Le => zip::<T, bool>(a, b, shape, |x, y| x <= y),
        BinaryOp::Gt => zip::<T, bool>(a, b, shape, |x, y| x > y),
        _ => zip::<T, bool>(a, b, shape, |x, y| x >= y),
    }
}

/// Applies `f` over two tensors of type `T` broadcast to `shape`.
fn zip<T: Stored, U: Stored>(
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    f: impl Fn(T, T) -> U + Sync,
) -> Buffer {
    let n = numel(shape);
    let (ga, gb) = (a.read(), b.read());
    let (sa, sb) = (ga.as_slice::<T>(), gb.as_slice::<T>());
    let a_flat = a.is_contiguous() && a.shape() == shape;
    let b_flat = b.is_contiguous() && b.shape() == shape;
    let out = if a_flat && b_flat {
        zip_slices(
            &sa[a.offset()..a.offset() + n],
            &sb[b.offset()..b.offset() + n],
            f,
        )
    } else if a_flat && b.numel() == 1 {
        let y = sb[b.offset()];
        map_slice_with(&sa[a.offset()..a.offset() + n], y, f)
    } else if b_flat && a.numel() == 1 {
        let x = sa[a.offset()];
        map_slice_with(&sb[b.offset()..b.offset() + n], x, |y, x| f(x, y))
    } else {
        let st_a = broadcast_strides(a.shape(), a.strides(), shape);
        let st_b = broadcast_strides(b.shape(), b.strides(), shape);
        let mut out = Vec::with_capacity(n);
        for_each_offset2(shape, (&st_a, a.offset()), (&st_b, b.offset()), |i, j| {
            out.push(f(sa[i], sb[j]))
        });
        out
    };
    U::into_buffer(out)
}

pub fn unary(op: UnaryOp, t: &Tensor) -> Result<Tensor, Error> {
    let dt = t.dtype();
    check_unary(op, dt)?;
    if dt == DType::Bool && op == UnaryOp::BitNot {
        let buf = t.with_slice::<bool, _>(|s| Buffer::Bool(map_slice(s, |x| !x)));
        return Ok(Tensor::new(buf, t.shape().to_vec(), t.device()));
    }
    if dt == DType::Bool && op.keeps_int() {
        return Ok(t.copy());
    }
    let out_dt = unary_dtype(op, dt);
    let src = cast_to(t, out_dt);
    let src = src.as_ref().unwrap_or(t);
    if op == UnaryOp::Sigmoid && t.device() == crate::runtime::Device::Cpu {
        // PyTorch's CPU kernel: SLEEF's exp in registers.
        let buf = super::pytorch::sigmoid::on_cpu(t, src);
        return Ok(Tensor::new(buf, t.shape().to_vec(), t.device()));
    }
    let buf = match out_dt {
        // The op chosen outside the loop, so the simple ones vectorize.
        DType::F32 => src.with_slice::<f32, _>(|s| {
            Buffer::F32(match op {
                UnaryOp::Neg => map_slice(s, |x| f32_op(UnaryOp::Neg, x)),
                UnaryOp::Abs => map_slice(s, |x| f32_op(UnaryOp::Abs, x)),
                UnaryOp::Relu => map_slice(s, |x| f32_op(UnaryOp::Relu, x)),
                UnaryOp::Sqrt => map_slice(s, f32::sqrt),
                _ => map_slice_with(s, op, |x, op| f32_op(op, x)),
            })
        }),
        _ => with_num_dtype!(out_dt, T => src.with_slice::<T, _>(|s| {
            T::into_buffer(map_slice_with(s, op, |x, op| generic_op(op, x)))
        }), bool => unreachable!("bool handled above")),
    };
    Ok(Tensor::new(buf, t.shape().to_vec(), t.device()))
}

fn f32_op(op: UnaryOp, x: f32) -> f32 {
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        // As PyTorch's relu: NaN and -0. pass through.
        UnaryOp::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        _ => math_f32(op, x),
    }
}

fn generic_op<T: Num + Stored>(op: UnaryOp, x: T) -> T {
    match op {
        UnaryOp::Neg => x.neg(),
        UnaryOp::BitNot => x.bit_not(),
        // Integers are integral already.
        op if op.rounds() && !T::DTYPE.is_float() => x,
        // Floats drop the sign (-0. too), as PyTorch's abs.
        UnaryOp::Abs if T::DTYPE.is_float() => T::from_f64(x.to_f64().abs()),
        UnaryOp::Abs => {
            if x < T::zero() {
                x.neg()
            } else {
                x
            }
        }
        // As PyTorch's relu: NaN and -0. pass through.
        UnaryOp::Relu => {
            if x < T::zero() {
                T::zero()
            } else {
                x
            }
        }
        _ => T::from_f64(math_f64(op, x.to_f64())),
    }
}

/// The floating point ops, in one precision: f32 runs its own math (as
/// PyTorch's float kernels), f64, f16 and bf16 go through f64 and round once.
macro_rules! float_math {
    ($name:ident, $t:ty, $erf:path) => {
        fn $name(op: UnaryOp, x: $t) -> $t {
            let erf = $erf;
            match op {
                UnaryOp::Exp => x.exp(),
                UnaryOp::Log => x.ln(),
                // C's log1pf / log1p, as the kernels call.
                UnaryOp::Log1p => x.ln_1p(),
                UnaryOp::Sqrt => x.sqrt(),
                UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
                UnaryOp::Tanh => x.tanh(),
                UnaryOp::Sin => x.sin(),
                UnaryOp::Cos => x.cos(),
                UnaryOp::Floor => x.floor(),
                UnaryOp::Ceil => x.ceil(),
                // Halves to even, as PyTorch's (nearbyint).
                UnaryOp::Round => x.round_ties_even(),
                UnaryOp::Trunc => x.trunc(),
                UnaryOp::Erf => erf(x),
                // PyTorch's: x * 0.5 * (1 + erf(x / sqrt(2))).
                UnaryOp::Gelu => x * 0.5 * (1.0 + erf(x * std::f64::consts::FRAC_1_SQRT_2 as $t)),
                // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
                UnaryOp::GeluTanh => {
                    let beta =
                        (std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5) as $t;
                    let inner = beta * (x + 0.044715 * x * x * x);
                    0.5 * x * (1.0 + inner.tanh())
                }
                // PyTorch's `1 / sqrt(x)` on the CPU (CUDA's rsqrtf, which
                // may differ in the last places, on a GPU).
                UnaryOp::Rsqrt => 1.0 / x.sqrt(),
                // (0 < x) - (x < 0): 0 for NaN and for -0., as PyTorch's.
                UnaryOp::Sign => <$t>::from(u8::from(0.0 < x)) - <$t>::from(u8::from(x < 0.0)),
                UnaryOp::Tan => x.tan(),
                UnaryOp::Atan => x.atan(),
                UnaryOp::Asin => x.asin(),
                UnaryOp::Acos => x.acos(),
                UnaryOp::Sinh => x.sinh(),
                UnaryOp::Cosh => x.cosh(),
                UnaryOp::Reciprocal => 1.0 / x,
                UnaryOp::Log2 => x.log2(),
                UnaryOp::Log10 => x.log10(),
                UnaryOp::Expm1 => x.exp_m1(),
                UnaryOp::Exp2 => x.exp2(),
                // PyTorch's kernels: x / (1 + exp(-x)); x * tanh(log1p(exp(x))).
                UnaryOp::Silu => x / (1.0 + (-x).exp()),
                UnaryOp::Mish => x * x.exp().ln_1p().tanh(),
                // In double for every dtype, as PyTorch's CPU kernel.
                UnaryOp::Erfinv => erfinv(x as f64) as $t,
                UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Relu | UnaryOp::BitNot => x,
            }
        }
    };
}
float_math!(math_f32, f32, c_erf::erff);
float_math!(math_f64, f64, c_erf::erf);

/// The inverse error function as PyTorch's CPU kernel computes it, in
/// double precision for every floating dtype (a float's result rounded
/// once; checked against PyTorch 2.15's values): `calc_erfinv`, after
/// Pavlis' MATLAB `erfinv` — a rational approximation, |y| <= 0.7 in `y^2`,
/// else in `sqrt(-log((1 - |y|) / 2))`, then two Newton steps on
/// `erf(x) = y`; NaN past ±1, ±inf at ±1. `kernels/host_shim.h` computes
/// the same for the emulated GPU.
fn erfinv(y: f64) -> f64 {
    const A: [f64; 4] = [0.886226899, -1.645349621, 0.914624893, -0.140543331];
    const B: [f64; 4] = [-2.118377725, 1.442710462, -0.329097515, 0.012229801];
    const C: [f64; 4] = [-1.970840454, -1.624906493, 3.429567803, 1.641345311];
    const D: [f64; 2] = [3.543889200, 1.637067800];
    let y_abs = y.abs();
    if y_abs > 1.0 {
        return f64::NAN;
    }
    if y_abs == 1.0 {
        return f64::INFINITY.copysign(y);
    }
    let mut x = match y_abs <= 0.7 {
        true => {
            let z = y * y;
            let num = ((A[3] * z + A[2]) * z + A[1]) * z + A[0];
            let dem = (((B[3] * z + B[2]) * z + B[1]) * z + B[0]) * z + 1.0;
            y * num / dem
        }
        false => {
            let z = (-((1.0 - y_abs) / 2.0).ln()).sqrt();
            let num = ((C[3] * z + C[2]) * z + C[1]) * z + C[0];
            let dem = (D[1] * z + D[0]) * z + 1.0;
            num.copysign(y) / dem
        }
    };
    for _ in 0..2 {
        x -= (c_erf::erf(x) - y) / (std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp());
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unary_op_is_found_by_its_name_and_no_other_name_is() {
        for op in UnaryOp::ALL {
            assert_eq!(UnaryOp::from_name(op.name()), Some(op));
        }
        assert_eq!(UnaryOp::from_name("arctan"), None);
        assert_eq!(UnaryOp::from_name(""), None);
    }

    /// `x / 2.5` on a CUDA device is `x * (1 / 2.5)`, the reciprocal in f32
    /// (f64 for f64), as an H200 gave; on the cpu it stays a division.
    #[test]
    fn a_cuda_tensor_divides_by_a_number_through_its_reciprocal() {
        use crate::runtime::Device;
        let s = Tensor::scalar(2.5);
        let number = Operand {
            tensor: &s,
            weak: true,
        };
        let inv = |x: &Tensor| reciprocal_divisor(BinaryOp::Div, Operand::strong(x), number);
        let f32s = Tensor::from_vec(vec![1.0f32, 3.0], vec![2]).with_device(Device::Cuda(0));
        let (op, r) = inv(&f32s).unwrap();
        assert_eq!(op, BinaryOp::Mul);
        assert_eq!(r.to_vec::<f64>(), [(1.0f32 / 2.5) as f64]);
        let f64s = Tensor::from_vec(vec![1.0f64], vec![1]).with_device(Device::Cuda(0));
        assert_eq!(inv(&f64s).unwrap().1.to_vec::<f64>(), [1.0 / 2.5]);
        // An i32 tensor divides in f32, so by an f32 reciprocal.
        let i32s = Tensor::from_vec(vec![1i32], vec![1]).with_device(Device::Cuda(0));
        assert_eq!(
            inv(&i32s).unwrap().1.to_vec::<f64>(),
            [(1.0f32 / 2.5) as f64]
        );
        assert!(inv(&f64s.with_device(Device::Cpu)).is_none());
        let x = Operand::strong(&f32s);
        assert!(reciprocal_divisor(BinaryOp::Mul, x, number).is_none());
        // The number first (`2.5 / x`) is not a division by it.
        assert!(reciprocal_divisor(BinaryOp::Div, number, x).is_none());
    }

    /// f16/bf16 `+` and `-` by a number: opmath on a CUDA device, either
    /// side; on the cpu the number rounds to the dtype.
    #[test]
    fn a_cuda_tensor_adds_a_number_in_f32() {
        use crate::runtime::Device;
        let s = Tensor::scalar(0.1);
        let number = Operand {
            tensor: &s,
            weak: true,
        };
        let h = Tensor::from_vec(vec![half::bf16::from_f32(-0.125)], vec![1]);
        let gpu = h.with_device(Device::Cuda(0));
        let on = |t: &Tensor, op| {
            binary(op, Operand::strong(t), number)
                .unwrap()
                .to_vec::<f64>()
        };
        assert_eq!(
            on(&gpu, BinaryOp::Add),
            [half::bf16::from_f32(-0.125 + 0.1f32).to_f64()]
        );
        assert_ne!(on(&gpu, BinaryOp::Add), on(&h, BinaryOp::Add));
        let first = binary(BinaryOp::Sub, number, Operand::strong(&gpu)).unwrap();
        assert_eq!(
            first.to_vec::<f64>(),
            [half::bf16::from_f32(0.1f32 + 0.125).to_f64()]
        );
        assert_eq!(
            opmath_scalar(BinaryOp::Sub, DType::BF16, number, Operand::strong(&gpu)),
            Some(0)
        );
        assert_eq!(
            opmath_scalar(BinaryOp::Sub, DType::BF16, number, Operand::strong(&h)),
            None
        );
    }
}
