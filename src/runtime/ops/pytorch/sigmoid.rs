//! sigmoid of CPU tensors, as PyTorch's CPU kernel computes it
//! (`sigmoid_kernel` in `aten/src/ATen/native/cpu/UnaryOpsKernel.cpp`):
//! `1 / (1 + exp(-x))` with SLEEF's exp in registers and libm's one by one
//! (`vector_split`); f16 and bf16 in f32, rounded once.

use super::pytorch_cpu::Kernel;
use super::sleef;
use super::vector_split::{map, Paths, Reduced, Split};
use crate::runtime::buffer::{Buffer, Stored};
use crate::runtime::{DType, Tensor};

/// sigmoid of `t` (as stored: its strides fix PyTorch's split of the
/// elements), whose values in the float dtype it computes in are `x`.
pub fn on_cpu(t: &Tensor, x: &Tensor) -> Buffer {
    fn run<T: Stored>(t: &Tensor, x: &Tensor) -> Vec<T>
    where
        Sigmoid: Paths<T, Out = T>,
    {
        x.with_slice::<T, _>(|x| {
            map(
                &Split::of::<T>(Kernel::AlsoAvx512, t.shape(), &[t]),
                x,
                &Sigmoid,
            )
        })
    }
    match x.dtype() {
        DType::F32 => Buffer::F32(run(t, x)),
        DType::F64 => Buffer::F64(run(t, x)),
        DType::F16 => Buffer::F16(run(t, x)),
        DType::BF16 => Buffer::BF16(run(t, x)),
        dt => unreachable!("sigmoid computes in a float dtype, not {dt}"),
    }
}

struct Sigmoid;

/// f32 and f64: in registers `1 / (exp(0 - x) + 1)`, one by one
/// `1 / (1 + exp(-x))` (the same but for the exp).
impl Paths<f32> for Sigmoid {
    type Out = f32;
    #[inline(always)]
    fn vector(&self, x: f32) -> f32 {
        1.0 / (sleef::expf(0.0 - x) + 1.0)
    }
    #[inline(always)]
    fn scalar(&self, x: f32) -> f32 {
        1.0 / (1.0 + (-x).exp())
    }
}

impl Paths<f64> for Sigmoid {
    type Out = f64;
    #[inline(always)]
    fn vector(&self, x: f64) -> f64 {
        1.0 / (sleef::exp(0.0 - x) + 1.0)
    }
    #[inline(always)]
    fn scalar(&self, x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }
}

/// f16 and bf16, in f32: `(1 + (-a).exp()).reciprocal()` in registers,
/// `1.0f / (1.0f + std::exp(-a))` one by one.
impl<H: Reduced> Paths<H> for Sigmoid {
    type Out = H;
    #[inline(always)]
    fn vector(&self, x: H) -> H {
        H::narrow(1.0 / (1.0 + sleef::expf(-x.widen())))
    }
    #[inline(always)]
    fn scalar(&self, x: H) -> H {
        H::narrow(1.0 / (1.0 + (-x.widen()).exp()))
    }
}
