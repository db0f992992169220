//! The six numbers PyTorch raises a tensor to without `pow`
//! (`aten/src/ATen/native/cpu/PowKernel.cpp` and
//! `aten/src/ATen/native/cuda/PowKernel.cu`): `sqrt` for 0.5, `1 / sqrt`
//! for -0.5, `1 / x` for -1, `x * x` for 2, `x * x * x` for 3 and
//! `1.0 / (x * x)` for -2.
//!
//! Which numbers take them differs by device. PyTorch's CPU kernels take
//! them for f32 and f64 by the number as written (`written`; `pow.rs` has
//! bf16's and f16's own rules). Its CUDA kernel (`on_cuda`: the kernels'
//! `pow_*`, and the host's here for a simulated device) takes 0.5, -0.5
//! and -1 by the number as written, in the opmath type (f16 and bf16 in
//! f32, rounded once), and 2, 3 and -2 by the number in the tensor's dtype,
//! in the dtype's own arithmetic (f16 and bf16 round each product; the
//! division is in f64, a double literal's).
//!
//! A GPU's `rsqrtf` is not correctly rounded (up to 2 ulp); the host takes
//! `1 / sqrt`, as emu's kernels and PyTorch's CPU kernels do.

use crate::runtime::{DType, Tensor};

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

    /// PyTorch's CPU kernels' shortcut for an f32 or f64 tensor to the
    /// power of the number `e` written in the program.
    pub fn written(e: f64) -> Option<PowShortcut> {
        Some(match e {
            0.5 => PowShortcut::Sqrt,
            -0.5 => PowShortcut::Rsqrt,
            -1.0 => PowShortcut::Reciprocal,
            2.0 => PowShortcut::Square,
            3.0 => PowShortcut::Cube,
            -2.0 => PowShortcut::InvSquare,
            _ => return None,
        })
    }

    /// PyTorch's CUDA kernel's shortcut for a tensor to the power of the
    /// number `e` written in the program (`elementwise::pow_number_on_cuda`),
    /// computed in `compute`.
    pub fn on_cuda(compute: DType, e: f64) -> Option<PowShortcut> {
        if !compute.is_float() {
            return None;
        }
        use PowShortcut::*;
        // `exp_scalar.to<scalar_t>()`: 2, 3 and -2 as the number in the dtype.
        let held = Tensor::scalar(e).cast(compute).to_vec::<f64>()[0];
        match (PowShortcut::written(e), PowShortcut::written(held)) {
            (Some(s @ (Sqrt | Rsqrt | Reciprocal)), _) => Some(s),
            (_, Some(s @ (Square | Cube | InvSquare))) => Some(s),
            _ => None,
        }
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
}
