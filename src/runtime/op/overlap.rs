//! Writes that would read or write one element through two names: PyTorch's
//! memory-overlap checks (`at::assert_no_internal_overlap`,
//! `assert_no_partial_overlap`), which its in-place ops, `copy_` and
//! indexed assignment run before writing.

use super::super::Tensor;
use crate::error::Error;

/// Refuses writing into `t` when two of its elements are one memory
/// location: an expanded view (a stride of 0 over a size above 1).
pub fn check_write(t: &Tensor) -> Result<(), Error> {
    let repeated = t
        .shape()
        .iter()
        .zip(t.strides())
        .any(|(&size, &stride)| size > 1 && stride == 0);
    if repeated {
        return Err(Error::value_help(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location",
            "clone() the tensor before writing into it (an expanded view repeats its elements)",
        ));
    }
    Ok(())
}

/// Refuses writing into `dst` while reading `src` when the two share some
/// memory but are not the same elements in the same layout (`x[1:] =
/// x[:-1]`, `x += x.T`). PyTorch checks views that cover their memory
/// densely; others it cannot judge cheaply and lets through.
pub fn check_partial(dst: &Tensor, src: &Tensor) -> Result<(), Error> {
    if dst.numel() == 0 || src.numel() == 0 || !dst.shares_storage(src) {
        return Ok(());
    }
    if !dense(dst) || !dense(src) {
        return Ok(());
    }
    let range = |t: &Tensor| (t.offset(), t.offset() + t.numel());
    let ((a0, a1), (b0, b1)) = (range(dst), range(src));
    let partial = if (a0, a1) == (b0, b1) {
        dst.strides() != src.strides()
    } else {
        a0 < b1 && b0 < a1
    };
    if partial {
        return Err(Error::value_help(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location",
            "clone() the input first, e.g. `x[1:] = x[:-1].clone()`",
        ));
    }
    Ok(())
}

/// Whether `t`'s elements fill a range of memory without gaps or repeats,
/// in some order of its dimensions (`is_non_overlapping_and_dense`).
fn dense(t: &Tensor) -> bool {
    let mut dims: Vec<(usize, isize)> = t
        .shape()
        .iter()
        .zip(t.strides())
        .filter(|(&size, _)| size != 1)
        .map(|(&size, &stride)| (size, stride))
        .collect();
    dims.sort_by_key(|&(_, stride)| stride);
    let mut expected = 1isize;
    for (size, stride) in dims {
        if stride != expected {
            return false;
        }
        expected *= size as isize;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::op::index::{select, Index};

    fn arange(n: i64) -> Tensor {
        Tensor::from_vec((0..n).collect::<Vec<i64>>(), vec![n as usize])
    }

    #[test]
    fn shifted_slices_of_one_tensor_overlap_partly_and_the_same_view_does_not() {
        let x = arange(5);
        let tail = select(&x, &[Index::Slice(Some(1), None, None)]).unwrap();
        let head = select(&x, &[Index::Slice(None, Some(-1), None)]).unwrap();
        assert!(check_partial(&tail, &head).is_err());
        assert!(check_partial(&x, &x).is_ok());
        let other = arange(5);
        assert!(check_partial(&x, &other).is_ok());
        // Disjoint halves of one tensor do not overlap.
        let a = select(&x, &[Index::Slice(None, Some(2), None)]).unwrap();
        let b = select(&x, &[Index::Slice(Some(3), None, None)]).unwrap();
        assert!(check_partial(&a, &b).is_ok());
    }

    #[test]
    fn a_transpose_overlaps_its_matrix_and_an_expanded_view_cannot_be_written() {
        let m = arange(4).reshape(&[2, 2]).unwrap();
        let t = m.view(vec![2, 2], vec![1, 2], 0);
        assert!(check_partial(&m, &t).is_err());
        let e = arange(1).view(vec![3], vec![0], 0);
        assert!(check_write(&e).is_err());
        assert!(check_write(&m).is_ok());
    }
}
