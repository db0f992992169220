//! The ops over three operands broadcast together, `where` and `clamp`:
//! where they run, their shape and the dtype they compute in.

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
}

impl TernaryOp {
    pub fn name(self) -> &'static str {
        match self {
            TernaryOp::Where => "where",
            TernaryOp::Clamp => "clamp",
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
    };
    Ok(Plan {
        compute,
        shape,
        device,
    })
}
