//! What `a @ b` is: the dtypes it takes and computes in, how 1-D operands
//! become matrices, and the error when they do not line up.

use crate::error::Error;
use crate::runtime::shape::fmt_shape;
use crate::runtime::{DType, Tensor};

/// The dtype a product of `a` and `b` tensors gives, and the one it is
/// computed in: f16 and bf16 accumulate in f32, integers in i64 (wrapping),
/// and the result is rounded to the dtype once.
pub fn matmul_dtypes(a: DType, b: DType) -> Result<(DType, DType), Error> {
    if a != b {
        // As PyTorch: a product does not promote its operands.
        return Err(Error::dtype(
            format!("matmul needs operands of one dtype, but these are {a} and {b}"),
            Some(format!("convert one first, e.g. `a.to({b}) @ b`")),
        ));
    }
    let dt = a;
    let compute = match dt {
        DType::Bool => {
            return Err(Error::dtype(
                "matmul is not defined for bool tensors",
                Some("convert first: `.to(f32)`".into()),
            ))
        }
        DType::F16 | DType::BF16 => DType::F32,
        DType::U8 | DType::I8 | DType::I16 | DType::I32 => DType::I64,
        d => d,
    };
    Ok((dt, compute))
}

/// Operands of shapes `a` and `b` whose inner dimensions (`k` columns of
/// `a`'s matrices, `k2` rows of `b`'s) differ.
pub fn not_lined_up(a: &[usize], b: &[usize], k: usize, k2: usize) -> Error {
    Error::Shape {
        message: format!(
            "matmul: shapes {} and {} do not line up ({k} columns on the left, {k2} rows on the right)",
            fmt_shape(a),
            fmt_shape(b)
        ),
        help: Some("for `a @ b` the last dimension of `a` must equal the second-to-last of `b`; `.T` transposes".into()),
    }
}

/// `a` and `b` as matrices (views): a 1-D `a` is one row, a 1-D `b` one
/// column; the product drops those dimensions again.
pub fn as_matrices(a: &Tensor, b: &Tensor) -> (Tensor, Tensor) {
    let matrix = |t: &Tensor, row: bool| match t.shape() {
        &[k] => {
            let s = t.strides()[0];
            let (shape, strides) = if row {
                (vec![1, k], vec![s * k as isize, s])
            } else {
                (vec![k, 1], vec![s, 1])
            };
            t.view(shape, strides, t.offset())
        }
        _ => t.view(t.shape().to_vec(), t.strides().to_vec(), t.offset()),
    };
    (matrix(a, true), matrix(b, false))
}
