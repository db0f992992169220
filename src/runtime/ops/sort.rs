//! `sort`, `argsort` and `topk` along one dimension: values and the i64
//! indices they came from. NaN sorts above every number, as in PyTorch.
//! Sorts are stable (equal elements keep their order), which PyTorch
//! promises with `stable=True` and which its CPU sort gives in any case;
//! the kernels (`kernels/sort.cu`) merge runs to the same, unique, order.

use std::cmp::Ordering;

use super::super::buffer::{Buffer, Stored};
use super::super::element::Element;
use super::super::shape::{norm_dim, Lines};
use super::super::{DType, Tensor};
use crate::error::Error;
use crate::with_dtype;

/// The order of two elements, NaN above everything (all NaNs equal).
pub fn order<T: Element>(a: T, b: T) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Checks `k` for `topk` over a dimension of `len` elements.
pub fn check_k(k: i64, len: usize) -> Result<usize, Error> {
    if k < 0 || k as usize > len {
        return Err(Error::value_help(
            format!("topk(k={k}) asks for more elements than the dimension's {len}"),
            format!("k must be in 0..={len}"),
        ));
    }
    Ok(k as usize)
}

/// `topk` takes numbers; `sort` takes bool as well, as PyTorch's.
pub fn check_topk(dt: DType) -> Result<(), Error> {
    if dt == DType::Bool {
        return Err(Error::dtype(
            "topk() is not implemented for bool".to_string(),
            Some("convert first: `x.to(i64).topk(k)`".into()),
        ));
    }
    Ok(())
}

/// `t` sorted along `dim`: (values, indices), both of t's shape.
pub fn sort(t: &Tensor, dim: i64, descending: bool) -> Result<(Tensor, Tensor), Error> {
    let d = norm_dim(dim, t.ndim())?;
    let lines = Lines::of(t.shape(), Some(d));
    let (values, indices) = with_dtype!(t.dtype(), T => t.with_slice::<T, _>(|s| {
        let (v, i) = sort_lines(s, lines, descending);
        (T::into_buffer(v), Buffer::I64(i))
    }));
    Ok((
        Tensor::new(values, t.shape().to_vec(), t.device()),
        Tensor::new(indices, t.shape().to_vec(), t.device()),
    ))
}

/// The `k` largest (or smallest) along `dim`, in order: the first `k` of
/// a sort.
pub fn topk(t: &Tensor, k: i64, dim: i64, largest: bool) -> Result<(Tensor, Tensor), Error> {
    check_topk(t.dtype())?;
    let d = norm_dim(dim, t.ndim())?;
    let len = t.shape().get(d).copied().unwrap_or(1);
    let k = check_k(k, len)?;
    let (v, i) = sort(t, dim, largest)?;
    let first = |x: Tensor| {
        if x.ndim() == 0 {
            return x;
        }
        let mut shape = x.shape().to_vec();
        shape[d] = k;
        x.view(shape, x.strides().to_vec(), x.offset()).copy()
    };
    Ok((first(v), first(i)))
}

fn sort_lines<T: Stored>(s: &[T], lines: Lines, descending: bool) -> (Vec<T>, Vec<i64>) {
    let mut values = vec![T::default(); s.len()];
    let mut indices = vec![0i64; s.len()];
    let mut idx: Vec<usize> = Vec::with_capacity(lines.len);
    for line in 0..lines.count() {
        idx.clear();
        idx.extend(0..lines.len);
        let x = |k: usize| s[lines.at(line, k)];
        if descending {
            idx.sort_by(|&a, &b| order(x(b), x(a)));
        } else {
            idx.sort_by(|&a, &b| order(x(a), x(b)));
        }
        for (k, &from) in idx.iter().enumerate() {
            values[lines.at(line, k)] = x(from);
            indices[lines.at(line, k)] = from as i64;
        }
    }
    (values, indices)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::ops::factory::from_f64s;
    use crate::runtime::Device;

    #[test]
    fn sorts_are_stable_and_nan_is_largest() {
        let x = from_f64s(
            vec![2., f64::NAN, -1., 2., 0., -0.],
            &[6],
            DType::F32,
            Device::Cpu,
        );
        let (v, i) = sort(&x, 0, false).unwrap();
        assert_eq!(i.to_vec::<i64>(), vec![2, 4, 5, 0, 3, 1]);
        assert!(v.to_vec::<f64>()[5].is_nan());
        let (_, i) = sort(&x, -1, true).unwrap();
        assert_eq!(i.to_vec::<i64>(), vec![1, 0, 3, 4, 5, 2]);
    }

    #[test]
    fn along_a_leading_dim_and_topk() {
        let x = from_f64s(
            vec![3., 1., 2., 5., 4., 0.],
            &[3, 2],
            DType::I32,
            Device::Cpu,
        );
        let (v, i) = sort(&x, 0, false).unwrap();
        assert_eq!(v.to_vec::<i64>(), vec![2, 0, 3, 1, 4, 5]);
        assert_eq!(i.to_vec::<i64>(), vec![1, 2, 0, 0, 2, 1]);
        let (v, i) = topk(&x, 2, 0, true).unwrap();
        assert_eq!(v.shape(), &[2, 2]);
        assert_eq!(v.to_vec::<i64>(), vec![4, 5, 3, 1]);
        assert_eq!(i.to_vec::<i64>(), vec![2, 1, 0, 0]);
        let (v, _) = topk(&x, 1, 1, false).unwrap();
        assert_eq!(v.to_vec::<i64>(), vec![1, 2, 0]);
        assert!(topk(&x, 4, 0, true).is_err());
    }

    use proptest::prelude::*;

    proptest! {
        /// Along every line: the values are in order (NaN last), each is
        /// the input's element at its index, the indices are a permutation,
        /// and equal values keep their indices' order (stable).
        #[test]
        fn a_sort_is_an_ordered_stable_permutation(
            dims in proptest::collection::vec(1usize..5, 1..4),
            picks in proptest::collection::vec(0usize..6, 64),
            dim_pick in 0usize..3,
            descending in any::<bool>(),
        ) {
            let pool = [1.0, -2.0, 0.0, -0.0, f64::NAN, 3.5];
            let n: usize = dims.iter().product();
            let vals: Vec<f64> = (0..n).map(|k| pool[picks[k % picks.len()]]).collect();
            let x = from_f64s(vals, &dims, DType::F32, Device::Cpu);
            let dim = dim_pick % dims.len();
            let (v, i) = sort(&x, dim as i64, descending).unwrap();
            let lines = Lines::of(&dims, Some(dim));
            let (xs, vs, is) = (x.to_vec::<f32>(), v.to_vec::<f32>(), i.to_vec::<i64>());
            for line in 0..lines.count() {
                let mut seen = vec![false; lines.len];
                for k in 0..lines.len {
                    let (val, from) = (vs[lines.at(line, k)], is[lines.at(line, k)] as usize);
                    let orig = xs[lines.at(line, from)];
                    prop_assert!(val.to_bits() == orig.to_bits());
                    prop_assert!(!seen[from]);
                    seen[from] = true;
                    if k > 0 {
                        let prev = vs[lines.at(line, k - 1)];
                        let ord = if descending { order(val, prev) } else { order(prev, val) };
                        prop_assert!(ord != Ordering::Greater, "out of order");
                        if ord == Ordering::Equal {
                            prop_assert!(is[lines.at(line, k - 1)] < from as i64, "not stable");
                        }
                    }
                }
            }
        }
    }
}
