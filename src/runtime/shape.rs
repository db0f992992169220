//! Shapes, strides, broadcasting and strided iteration.

use crate::error::Error;

pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Row-major strides for a contiguous tensor of `shape`.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc *= d.max(1) as isize;
    }
    strides
}

/// Whether `strides` lay `shape` out row-major with no gaps (dimensions of
/// size 1 may have any stride).
pub fn is_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    let mut expect = 1isize;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if d != 1 && s != expect {
            return false;
        }
        expect *= d as isize;
    }
    true
}

/// `[2,3]` for shapes in messages and tags.
pub fn fmt_shape(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(","))
}

/// The element count of `shape`, or an error if it overflows.
pub fn checked_numel(shape: &[usize]) -> Result<usize, Error> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            Error::value_help(
                format!(
                    "a tensor of shape {} has more elements than any machine can hold",
                    fmt_shape(shape)
                ),
                "check the sizes you passed",
            )
        })
}

/// NumPy broadcasting: dimensions are aligned from the right; each pair must be equal or 1.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let db = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// Strides that read a tensor of `shape`/`strides` as if it had `target` shape (0 on broadcast dims).
pub fn broadcast_strides(shape: &[usize], strides: &[isize], target: &[usize]) -> Vec<isize> {
    let lead = target.len() - shape.len();
    (0..target.len())
        .map(|i| {
            if i < lead || shape[i - lead] == 1 && target[i] != 1 {
                0
            } else {
                strides[i - lead]
            }
        })
        .collect()
}

/// Normalises a possibly negative dimension index.
pub fn norm_dim(dim: i64, ndim: usize) -> Result<usize, Error> {
    let n = ndim.max(1) as i64;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(Error::value_help(
            format!("dimension {dim} is out of range for a tensor with {ndim} dimension(s)"),
            format!("use a dimension in -{n}..{}", n - 1),
        ));
    }
    Ok(d as usize)
}

/// Calls `f` with the storage offset of every element, in row-major logical order.
pub fn for_each_offset(
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    mut f: impl FnMut(usize),
) {
    if shape.contains(&0) {
        return;
    }
    let Some((&inner, outer)) = shape.split_last() else {
        f(offset);
        return;
    };
    let inner_stride = strides[strides.len() - 1];
    let mut idx = vec![0usize; outer.len()];
    let mut base = offset as isize;
    loop {
        let mut o = base;
        for _ in 0..inner {
            f(o as usize);
            o += inner_stride;
        }
        let mut d = outer.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            base += strides[d];
            if idx[d] < outer[d] {
                break;
            }
            base -= strides[d] * outer[d] as isize;
            idx[d] = 0;
        }
    }
}

/// Like `for_each_offset` for two tensors read in lockstep over one shape.
pub fn for_each_offset2(
    shape: &[usize],
    (sa, oa): (&[isize], usize),
    (sb, ob): (&[isize], usize),
    mut f: impl FnMut(usize, usize),
) {
    if shape.contains(&0) {
        return;
    }
    let Some((&inner, outer)) = shape.split_last() else {
        f(oa, ob);
        return;
    };
    let (ia, ib) = (sa[sa.len() - 1], sb[sb.len() - 1]);
    let mut idx = vec![0usize; outer.len()];
    let (mut base_a, mut base_b) = (oa as isize, ob as isize);
    loop {
        let (mut a, mut b) = (base_a, base_b);
        for _ in 0..inner {
            f(a as usize, b as usize);
            a += ia;
            b += ib;
        }
        let mut d = outer.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            base_a += sa[d];
            base_b += sb[d];
            if idx[d] < outer[d] {
                break;
            }
            base_a -= sa[d] * outer[d] as isize;
            base_b -= sb[d] * outer[d] as isize;
            idx[d] = 0;
        }
    }
}
