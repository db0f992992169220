//! `**` of CPU tensors of floats, as PyTorch's CPU kernels compute it
//! (`aten/src/ATen/native/Pow.cpp` and `cpu/PowKernel.cpp`).
//!
//! A number written as the exponent (`x ** 2.5`, `pow(Tensor, Scalar)`):
//! - 0 fills ones and 1 copies, before any kernel;
//! - f32, f64 and bf16 take `sqrt` for 0.5, `1 / sqrt` for -0.5 and
//!   `1 / x` for -1 (the number as written), then `x * x` for 2, `x * x *
//!   x` for 3 and `1 / (x * x)` for -2 (the number in the tensor's dtype
//!   for bf16);
//! - anything else is SLEEF's `pow` in registers and libm's one by one
//!   (`vector_split`): for f32 the scalar path raises to the number as an
//!   f64, in f64 (`std::pow(float, double)`), the registers to it as an
//!   f32;
//! - f16 has none of these shortcuts: every exponent (as an f16) goes to
//!   `pow`.
//!
//! Any other exponent (a tensor, or `2 ** x`) is `pow(Tensor, Tensor)`:
//! SLEEF's `pow` in registers and libm's one by one, both in the common
//! dtype (f16 and bf16 in f32, rounded once).
//!
//! On an AVX-512 CPU the registers' f32 `pow` (either kind of exponent)
//! runs as `powf_avx512`: SLEEF's bits, over twice as fast.

#[cfg(target_arch = "x86_64")]
use std::mem::MaybeUninit;

use half::{bf16, f16};

use super::super::pow_shortcut::PowShortcut;
#[cfg(target_arch = "x86_64")]
use super::powf_avx512;
use super::pytorch_cpu::Kernel;
use super::sleef;
#[cfg(target_arch = "x86_64")]
use super::vector_split::Operand;
use super::vector_split::{map, zip, Paths, Reduced, Split};
use crate::runtime::buffer::{map_slice, Buffer, Stored};
use crate::runtime::{DType, Device, Tensor};

/// `base ** exp` computed in `compute` (a float dtype), broadcast to
/// `shape`; `number` when the exponent is a number written in the program
/// (PyTorch's `pow(Tensor, Scalar)`).
pub fn on_cpu(
    base: &Tensor,
    exp: &Tensor,
    number: bool,
    compute: DType,
    shape: &[usize],
) -> Tensor {
    let cast = |t: &Tensor| (t.dtype() != compute).then(|| t.cast(compute));
    let cb = cast(base);
    let b = cb.as_ref().unwrap_or(base);
    let buf = if number && exp.numel() == 1 {
        let e = exp.to_vec::<f64>()[0];
        by_number(base, b, e, compute)
    } else {
        let ce = cast(exp);
        let e = ce.as_ref().unwrap_or(exp);
        by_tensor(base, exp, (b, e), compute, shape)
    };
    Tensor::new(buf, shape.to_vec(), Device::Cpu)
}

/// `pow(Tensor, Scalar)`: `t` as stored (its strides fix PyTorch's split
/// of the elements), `x` its values in `compute`.
fn by_number(t: &Tensor, x: &Tensor, e: f64, compute: DType) -> Buffer {
    if e == 0.0 {
        return Buffer::filled(x.numel(), true).cast(compute);
    }
    if e == 1.0 {
        return x.contiguous_buffer();
    }
    match compute {
        DType::F32 => Buffer::F32(x.with_slice::<f32, _>(|x| match PowShortcut::written(e) {
            Some(s) => s.apply(x),
            None => map(
                &Split::of::<f32>(Kernel::AlsoAvx512, t.shape(), &[t]),
                x,
                &PowBy(e),
            ),
        })),
        DType::F64 => Buffer::F64(x.with_slice::<f64, _>(|x| match PowShortcut::written(e) {
            Some(s) => s.apply(x),
            None => map(
                &Split::of::<f64>(Kernel::AlsoAvx512, t.shape(), &[t]),
                x,
                &PowBy(e),
            ),
        })),
        DType::BF16 => {
            // Built only for the two exponents whose kernels split (an O(n)
            // mask for a strided tensor).
            let split = || Split::of::<bf16>(Kernel::AlsoAvx512, t.shape(), &[t]);
            // The kernel's checks after sqrt's see the number as a bf16.
            let eb = bf16::from_f32(e as f32).to_f32();
            let f = |g: fn(f32) -> f32| move |v: bf16| bf16::from_f32(g(v.to_f32()));
            let round = |v: f32| bf16::from_f32(v).to_f32();
            Buffer::BF16(x.with_slice::<bf16, _>(|x| match e {
                0.5 => map_slice(x, f(|v| v.sqrt())),
                -0.5 => map(&split(), x, &RsqrtBf16),
                -1.0 => map_slice(x, f(|v| 1.0 / v)),
                _ if eb == 2.0 => map_slice(x, f(|v| v * v)),
                _ if eb == 3.0 => map_slice(x, move |v: bf16| {
                    let v = v.to_f32();
                    bf16::from_f32(round(v * v) * v)
                }),
                _ if eb == -2.0 => map_slice(x, move |v: bf16| {
                    let v = v.to_f32();
                    bf16::from_f32(1.0 / round(v * v))
                }),
                _ => map(&split(), x, &PowBy(eb as f64)),
            }))
        }
        DType::F16 => {
            let split = Split::of::<f16>(Kernel::AlsoAvx512, t.shape(), &[t]);
            let eh = f16::from_f32(e as f32).to_f64();
            Buffer::F16(x.with_slice::<f16, _>(|x| map(&split, x, &PowBy(eh))))
        }
        dt => unreachable!("pow computes in a float dtype, not {dt}"),
    }
}

/// `x ** e` for a number `e`, as the kernel holds it (rounded to f16 or
/// bf16 for those).
struct PowBy(f64);

impl Paths<f32> for PowBy {
    type Out = f32;
    #[inline(always)]
    fn vector(&self, x: f32) -> f32 {
        sleef::powf(x, self.0 as f32)
    }
    /// `std::pow(float, double)`: in f64.
    #[inline(always)]
    fn scalar(&self, x: f32) -> f32 {
        (x as f64).powf(self.0) as f32
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn map_avx512(&self, out: &mut [MaybeUninit<f32>], x: &[f32]) -> bool {
        let y = Operand::One(self.0 as f32);
        // SAFETY: the CPU has AVX-512 (this function's contract).
        unsafe { powf_avx512::powf(out, Operand::Each(x), y) };
        true
    }
}

impl Paths<f64> for PowBy {
    type Out = f64;
    #[inline(always)]
    fn vector(&self, x: f64) -> f64 {
        sleef::pow(x, self.0)
    }
    #[inline(always)]
    fn scalar(&self, x: f64) -> f64 {
        x.powf(self.0)
    }
}

impl<H: Reduced> Paths<H> for PowBy {
    type Out = H;
    #[inline(always)]
    fn vector(&self, x: H) -> H {
        H::narrow(sleef::powf(x.widen(), self.0 as f32))
    }
    #[inline(always)]
    fn scalar(&self, x: H) -> H {
        H::narrow(x.widen().powf(self.0 as f32))
    }
}

/// bf16's `x ** -0.5`: `rsqrt` in f32 in registers, but `1 / std::sqrt(a)`
/// in bf16 one by one, the root rounded to bf16 first.
struct RsqrtBf16;

impl Paths<bf16> for RsqrtBf16 {
    type Out = bf16;
    #[inline(always)]
    fn vector(&self, x: bf16) -> bf16 {
        bf16::from_f32(1.0 / x.to_f32().sqrt())
    }
    #[inline(always)]
    fn scalar(&self, x: bf16) -> bf16 {
        bf16::from_f32(1.0 / bf16::from_f32(x.to_f32().sqrt()).to_f32())
    }
}

/// `pow(Tensor, Tensor)`: the operands as stored, and their values in
/// `compute`.
fn by_tensor(
    a: &Tensor,
    b: &Tensor,
    (x, y): (&Tensor, &Tensor),
    compute: DType,
    shape: &[usize],
) -> Buffer {
    fn run<T: Stored>(a: &Tensor, b: &Tensor, x: &Tensor, y: &Tensor, shape: &[usize]) -> Vec<T>
    where
        PowOf: Paths<(T, T), Out = T>,
    {
        let split = Split::of::<T>(Kernel::AlsoAvx512, shape, &[a, b]);
        x.with_slice::<T, _>(|xs| {
            y.with_slice::<T, _>(|ys| zip(&split, (xs, x.shape()), (ys, y.shape()), shape, &PowOf))
        })
    }
    match compute {
        DType::F32 => Buffer::F32(run(a, b, x, y, shape)),
        DType::F64 => Buffer::F64(run(a, b, x, y, shape)),
        DType::BF16 => Buffer::BF16(run(a, b, x, y, shape)),
        DType::F16 => Buffer::F16(run(a, b, x, y, shape)),
        dt => unreachable!("pow computes in a float dtype, not {dt}"),
    }
}

/// `x ** y` of two tensors' elements.
struct PowOf;

impl Paths<(f32, f32)> for PowOf {
    type Out = f32;
    #[inline(always)]
    fn vector(&self, (x, y): (f32, f32)) -> f32 {
        sleef::powf(x, y)
    }
    #[inline(always)]
    fn scalar(&self, (x, y): (f32, f32)) -> f32 {
        x.powf(y)
    }
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn zip_avx512(
        &self,
        out: &mut [MaybeUninit<f32>],
        a: Operand<'_, f32>,
        b: Operand<'_, f32>,
    ) -> bool {
        // SAFETY: the CPU has AVX-512 (this function's contract).
        unsafe { powf_avx512::powf(out, a, b) };
        true
    }
}

impl Paths<(f64, f64)> for PowOf {
    type Out = f64;
    #[inline(always)]
    fn vector(&self, (x, y): (f64, f64)) -> f64 {
        sleef::pow(x, y)
    }
    #[inline(always)]
    fn scalar(&self, (x, y): (f64, f64)) -> f64 {
        x.powf(y)
    }
}

impl<H: Reduced> Paths<(H, H)> for PowOf {
    type Out = H;
    #[inline(always)]
    fn vector(&self, (x, y): (H, H)) -> H {
        H::narrow(sleef::powf(x.widen(), y.widen()))
    }
    #[inline(always)]
    fn scalar(&self, (x, y): (H, H)) -> H {
        H::narrow(x.widen().powf(y.widen()))
    }
}
