//! `x ** number` on a CUDA device, as PyTorch's CUDA kernel computes it
//! (`aten/src/ATen/native/cuda/PowKernel.cu`): a number written as the
//! exponent takes a shortcut for six values, the same on every backend
//! (the kernels' `pow_*`, and the host's here for a simulated device).
//!
//! - 0.5, -0.5 and -1 (the number as written): `sqrt`, `rsqrt` and
//!   `1 / x`, in the opmath type (f16 and bf16 in f32, rounded once);
//! - 2, 3 and -2 (the number in the tensor's dtype): `x * x`, `x * x * x`
//!   and `1.0 / (x * x)` in the dtype's own arithmetic (f16 and bf16 round
//!   each product; the division is in f64, a double literal's).
//!
//! A GPU's `rsqrtf` is not correctly rounded (up to 2 ulp); the host takes
//! `1 / sqrt`, as emu's kernels do.

use half::{bf16, f16};

use super::super::buffer::{map_slice, Buffer};
use super::super::{DType, Tensor};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PowShortcut {
    Sqrt,
    Rsqrt,
    Reciprocal,
    Square,
    Cube,
    InvSquare,
}

impl PowShortcut {
    pub const ALL: [PowShortcut; 6] = [
        PowShortcut::Sqrt,
        PowShortcut::Rsqrt,
        PowShortcut::Reciprocal,
        PowShortcut::Square,
        PowShortcut::Cube,
        PowShortcut::InvSquare,
    ];

    /// The shortcut for a CUDA tensor to the power of the number `e`
    /// written in the program (`elementwise::pow_number_on_cuda`), computed
    /// in `compute`.
    pub fn of(compute: DType, e: f64) -> Option<PowShortcut> {
        if !compute.is_float() {
            return None;
        }
        match e {
            0.5 => return Some(PowShortcut::Sqrt),
            -0.5 => return Some(PowShortcut::Rsqrt),
            -1.0 => return Some(PowShortcut::Reciprocal),
            _ => {}
        }
        // `exp_scalar.to<scalar_t>()`: the number in the dtype.
        let held = Tensor::scalar(e).cast(compute).to_vec::<f64>()[0];
        Some(match held {
            2.0 => PowShortcut::Square,
            3.0 => PowShortcut::Cube,
            -2.0 => PowShortcut::InvSquare,
            _ => return None,
        })
    }

    /// The kernel's name (`pow_<name>_<dtype>`).
    pub fn name(self) -> &'static str {
        match self {
            PowShortcut::Sqrt => "sqrt",
            PowShortcut::Rsqrt => "rsqrt",
            PowShortcut::Reciprocal => "reciprocal",
            PowShortcut::Square => "square",
            PowShortcut::Cube => "cube",
            PowShortcut::InvSquare => "inv_square",
        }
    }

    /// `x` (already in `compute`, a float dtype) raised as the kernel does.
    pub fn host(self, x: &Tensor) -> Buffer {
        let f = |v: f32| self.f32(v);
        match x.dtype() {
            DType::F32 => Buffer::F32(x.with_slice::<f32, _>(|x| map_slice(x, f))),
            DType::F64 => Buffer::F64(x.with_slice::<f64, _>(|x| map_slice(x, |v| self.f64(v)))),
            DType::F16 => Buffer::F16(x.with_slice::<f16, _>(|x| {
                map_slice(x, |v: f16| {
                    self.half(v.to_f32(), |w| f16::from_f32(w).to_f32(), f16::from_f32)
                })
            })),
            DType::BF16 => Buffer::BF16(x.with_slice::<bf16, _>(|x| {
                map_slice(x, |v: bf16| {
                    self.half(v.to_f32(), |w| bf16::from_f32(w).to_f32(), bf16::from_f32)
                })
            })),
            dt => unreachable!("pow shortcuts take floats, not {dt}"),
        }
    }

    fn f32(self, x: f32) -> f32 {
        match self {
            PowShortcut::Sqrt => x.sqrt(),
            PowShortcut::Rsqrt => 1.0 / x.sqrt(),
            PowShortcut::Reciprocal => 1.0 / x,
            PowShortcut::Square => x * x,
            PowShortcut::Cube => x * x * x,
            PowShortcut::InvSquare => (1.0 / (x * x) as f64) as f32,
        }
    }

    fn f64(self, x: f64) -> f64 {
        match self {
            PowShortcut::Sqrt => x.sqrt(),
            PowShortcut::Rsqrt => 1.0 / x.sqrt(),
            PowShortcut::Reciprocal => 1.0 / x,
            PowShortcut::Square => x * x,
            PowShortcut::Cube => x * x * x,
            PowShortcut::InvSquare => 1.0 / (x * x),
        }
    }

    /// f16 and bf16: `round` to the dtype (as f32), `to` the dtype.
    fn half<H>(self, x: f32, round: impl Fn(f32) -> f32, to: impl Fn(f32) -> H) -> H {
        match self {
            PowShortcut::Cube => to(round(x * x) * x),
            PowShortcut::InvSquare => to((1.0 / round(x * x) as f64) as f32),
            s => to(s.f32(x)),
        }
    }
}
