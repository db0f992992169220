//! The ops over three operands broadcast together, `where`, `clamp` and
//! `a + c * b` (PyTorch's `add` with `alpha`): where they run, their shape
//! and the dtype they compute in.

use crate::error::Error;
use crate::runtime::shape::{broadcast_shapes, fmt_shape};
use crate::runtime::{DType, Device};

use super::binary::{result_device_of, result_dtype_of, Operand};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TernaryOp {
    /// `where(cond, x, y)`: x where cond holds, else y.
    Where,
    /// `clamp(x, min, max)`: `min(max(x, min), max)`, NaN from any operand.
    Clamp,
    /// `a + c * b` for a number `c`: PyTorch's `a.add(b, alpha=c)` (and
    /// `add_`, the optimizers' updates), one kernel computing in the opmath
    /// type with one rounding (a fused multiply-add, as PyTorch's CPU
    /// vector code and its CUDA kernel compute it).
    AddScaled,
}

impl TernaryOp {
    pub fn name(self) -> &'static str {
        match self {
            TernaryOp::Where => "where",
            TernaryOp::Clamp => "clamp",
            TernaryOp::AddScaled => "add_scaled",
        }
    }

    /// The dtypes the kernel reads its three operands in, for `compute`:
    /// `where`'s condition is bool; `add`'s `alpha` is in the opmath type
    /// (f32 for f16 and bf16, as PyTorch keeps a half tensor's alpha).
    pub fn operand_dtypes(self, compute: DType) -> [DType; 3] {
        match self {
            TernaryOp::Where => [DType::Bool, compute, compute],
            TernaryOp::Clamp => [compute; 3],
            TernaryOp::AddScaled => {
                let alpha = match compute {
                    DType::F16 | DType::BF16 => DType::F32,
                    d => d,
                };
                [compute, compute, alpha]
            }
        }
    }
}

/// What a ternary op computes: the dtype its values are in, the output's
/// shape and device. `where`'s condition stays bool.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub compute: DType,
    pub shape: Vec<usize>,
    pub device: Device,
}

/// Checks the operands as PyTorch does and plans the op.
pub fn plan(op: TernaryOp, a: Operand, b: Operand, c: Operand) -> Result<Plan, Error> {
    let device = result_device_of(&[a, b, c])?;
    let shape = [b.tensor.shape(), c.tensor.shape()]
        .into_iter()
        .try_fold(a.tensor.shape().to_vec(), |acc, s| {
            broadcast_shapes(&acc, s)
        })
        .ok_or_else(|| Error::Broadcast {
            op: op.name().into(),
            lhs: fmt_shape(a.tensor.shape()),
            rhs: format!(
                "{} and {}",
                fmt_shape(b.tensor.shape()),
                fmt_shape(c.tensor.shape())
            ),
        })?;
    let compute = match op {
        TernaryOp::Where => {
            if a.tensor.dtype() != DType::Bool {
                return Err(Error::dtype(
                    format!(
                        "where expected condition to be a bool tensor, but got {}",
                        a.tensor.dtype()
                    ),
                    Some("compare first, e.g. `where(x > 0, x, 0)`".into()),
                ));
            }
            result_dtype_of(&[b, c])
        }
        TernaryOp::Clamp => {
            let dt = result_dtype_of(&[a, b, c]);
            if dt == DType::Bool {
                return Err(Error::dtype(
                    "`clamp` is not implemented for bool",
                    Some("convert first, e.g. `x.to(i64)`".into()),
                ));
            }
            dt
        }
        TernaryOp::AddScaled => {
            if c.tensor.numel() != 1 || !c.weak {
                return Err(Error::value("add's `alpha` must be a number"));
            }
            let dt = result_dtype_of(&[a, b]);
            if dt == DType::Bool {
                return Err(Error::dtype(
                    "`add` with `alpha` is not implemented for bool",
                    Some("convert first, e.g. `x.to(i64)`".into()),
                ));
            }
            if !dt.is_float() && c.tensor.dtype().is_float() {
                return Err(Error::dtype(
                    format!("for integral input tensors, argument alpha must not be a floating point number (the tensors are {dt})"),
                    Some("give an integer alpha, or convert the tensors to a float dtype".into()),
                ));
            }
            dt
        }
    };
    Ok(Plan {
        compute,
        shape,
        device,
    })
}
