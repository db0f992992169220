//! `tril` and `triu`: the lower or upper triangle of the last two
//! dimensions (each matrix of a batch), the rest zero. `diagonal` shifts the
//! edge: 0 is the main diagonal, 1 the one above it, -1 the one below.

use super::super::buffer::Stored;
use super::super::Tensor;
use crate::error::Error;
use crate::with_dtype;

/// The shape of the matrices, checked as PyTorch does: at least 2-D.
pub fn matrices(op: &str, t: &Tensor) -> Result<(usize, usize), Error> {
    match t.shape() {
        [.., rows, cols] => Ok((*rows, *cols)),
        _ => Err(Error::shape(format!(
            "{op}() needs a tensor of at least 2 dimensions (a matrix, or a batch of them), but this one has {}",
            t.ndim()
        ))),
    }
}

/// Whether element (r, c) is kept: on or below the edge (`tril`), or on or above it (`triu`).
pub fn keeps(upper: bool, diagonal: i64, r: usize, c: usize) -> bool {
    let d = c as i64 - r as i64;
    if upper {
        d >= diagonal
    } else {
        d <= diagonal
    }
}

/// A contiguous copy of `t` with the elements off the triangle zero.
pub fn tri(t: &Tensor, diagonal: i64, upper: bool) -> Result<Tensor, Error> {
    let op = if upper { "triu" } else { "tril" };
    let (rows, cols) = matrices(op, t)?;
    let buf = with_dtype!(t.dtype(), T => t.with_slice::<T, _>(|s: &[T]| {
        let out: Vec<T> = s
            .iter()
            .enumerate()
            .map(|(e, &x)| {
                let (r, c) = ((e / cols.max(1)) % rows.max(1), e % cols.max(1));
                if keeps(upper, diagonal, r, c) { x } else { T::default() }
            })
            .collect();
        T::into_buffer(out)
    }));
    Ok(Tensor::new(buf, t.shape().to_vec(), t.device()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::ops::factory::from_f64s;
    use crate::runtime::{DType, Device};

    #[test]
    fn triangles_of_a_batch_with_a_shifted_edge() {
        let v: Vec<f64> = (1..=12).map(f64::from).collect();
        let x = from_f64s(v, &[2, 2, 3], DType::I64, Device::Cpu);
        let l = tri(&x, 0, false).unwrap().to_vec::<i64>();
        assert_eq!(l, vec![1, 0, 0, 4, 5, 0, 7, 0, 0, 10, 11, 0]);
        let u = tri(&x, 1, true).unwrap().to_vec::<i64>();
        assert_eq!(u, vec![0, 2, 3, 0, 0, 6, 0, 8, 9, 0, 0, 12]);
        let below = tri(&x, -1, false).unwrap().to_vec::<i64>();
        assert_eq!(below, vec![0, 0, 0, 4, 0, 0, 0, 0, 0, 10, 0, 0]);
        let v = from_f64s(vec![1.0; 3], &[3], DType::F32, Device::Cpu);
        assert!(tri(&v, 0, false)
            .unwrap_err()
            .to_string()
            .contains("at least 2"));
    }
}
