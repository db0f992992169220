//! The six pow shortcuts (`op::pow_shortcut`) computed on the host: the
//! CUDA kernel's arithmetic for a simulated device, and PyTorch's CPU
//! kernels' for f32 and f64.

use half::{bf16, f16};

use super::super::buffer::{map_slice, Buffer, Stored};
use super::super::{DType, Tensor};
use super::pytorch::vectorized::Opmath;
pub use crate::runtime::op::pow_shortcut::PowShortcut;

impl PowShortcut {
    /// `x` (already in `compute`, a float dtype) raised as the CUDA kernel
    /// does; for f32 and f64 also as PyTorch's CPU kernels do.
    pub fn host(self, x: &Tensor) -> Buffer {
        match x.dtype() {
            DType::F32 => Buffer::F32(x.with_slice::<f32, _>(|x| self.apply(x))),
            DType::F64 => Buffer::F64(x.with_slice::<f64, _>(|x| self.apply(x))),
            DType::F16 => {
                Buffer::F16(x.with_slice::<f16, _>(|x| self.half(x, f16::to_f32, f16::from_f32)))
            }
            DType::BF16 => Buffer::BF16(
                x.with_slice::<bf16, _>(|x| self.half(x, bf16::to_f32, bf16::from_f32)),
            ),
            dt => unreachable!("pow shortcuts take floats, not {dt}"),
        }
    }

    /// f32 or f64, each operation in the dtype (f32's `1.0 / (x * x)`
    /// divides in f64 on a GPU, which rounds to f32 as f32's division
    /// does). Chosen once, each arm its own loop (a function pointer called
    /// per element kept the loops from being vectorised).
    pub(super) fn apply<T: Opmath + Root>(self, x: &[T]) -> Vec<T> {
        match self {
            PowShortcut::Sqrt => map_slice(x, |v: T| v.sqrt()),
            PowShortcut::Rsqrt => map_slice(x, |v: T| T::ONE / v.sqrt()),
            PowShortcut::Reciprocal => map_slice(x, |v: T| T::ONE / v),
            PowShortcut::Square => map_slice(x, |v: T| v * v),
            PowShortcut::Cube => map_slice(x, |v: T| v * v * v),
            PowShortcut::InvSquare => map_slice(x, |v: T| T::ONE / (v * v)),
        }
    }

    /// f16 and bf16 on a CUDA device: in f32, rounded once, but for the
    /// cube and the inverse square, whose products round to the dtype.
    fn half<H: Stored>(self, x: &[H], wide: fn(H) -> f32, to: fn(f32) -> H) -> Vec<H> {
        let round = |v: f32| wide(to(v));
        match self {
            PowShortcut::Cube => map_slice(x, |h: H| to(round(wide(h) * wide(h)) * wide(h))),
            PowShortcut::InvSquare => {
                map_slice(x, |h: H| to((1.0 / round(wide(h) * wide(h)) as f64) as f32))
            }
            s => {
                let w: Vec<f32> = x.iter().map(|&h| wide(h)).collect();
                s.apply(&w).into_iter().map(to).collect()
            }
        }
    }
}

/// The square root, correctly rounded.
pub(super) trait Root: Stored {
    fn sqrt(self) -> Self;
}

impl Root for f32 {
    #[inline(always)]
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
}

impl Root for f64 {
    #[inline(always)]
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
}
