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

/// `shape` as Python writes a tuple of ints: `(4,)`, `(3, 4)`, `()`
/// (PyTorch's reprs and NumPy's headers).
pub fn python_tuple(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    }
}

/// `shape` as PyTorch's messages write it: `[2, 3, 4]`.
pub fn spaced_shape(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(", "))
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
        // PyTorch's IndexError, word for word.
        return Err(Error::Module {
            class: "IndexError",
            message: format!(
                "Dimension out of range (expected to be in range of [-{n}, {}], but got {dim})",
                n - 1
            ),
            help: Some(format!(
                "the tensor has {ndim} dimension(s): use a dimension in -{n}..{}",
                n - 1
            )),
        });
    }
    Ok(d as usize)
}

/// A list of dims (`sum((0, -1))`), each in range and named once.
pub fn norm_dims(dims: &[i64], ndim: usize) -> Result<Vec<usize>, Error> {
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let k = norm_dim(d, ndim)?;
        if out.contains(&k) {
            return Err(Error::value(format!(
                "dim {k} appears multiple times in the list of dims"
            )));
        }
        out.push(k);
    }
    Ok(out)
}

/// Calls `f` with the storage offsets of every element of `N` operands read
/// in lockstep over one shape, in row-major logical order. Each operand is
/// (strides, offset) for the shape; the innermost dimension runs as a plain
/// loop.
pub fn for_each_offsets<const N: usize>(
    shape: &[usize],
    operands: [(&[isize], usize); N],
    mut f: impl FnMut([usize; N]),
) {
    if shape.contains(&0) {
        return;
    }
    let mut base: [isize; N] = std::array::from_fn(|k| operands[k].1 as isize);
    let Some((&inner, outer)) = shape.split_last() else {
        f(base.map(|o| o as usize));
        return;
    };
    let step: [isize; N] = std::array::from_fn(|k| operands[k].0[outer.len()]);
    let mut idx = vec![0usize; outer.len()];
    loop {
        let mut at = base;
        for _ in 0..inner {
            f(at.map(|o| o as usize));
            for k in 0..N {
                at[k] += step[k];
            }
        }
        let mut d = outer.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            for (b, (strides, _)) in base.iter_mut().zip(&operands) {
                *b += strides[d];
            }
            if idx[d] < outer[d] {
                break;
            }
            for (b, (strides, _)) in base.iter_mut().zip(&operands) {
                *b -= strides[d] * outer[d] as isize;
            }
            idx[d] = 0;
        }
    }
}

/// The storage offset of every element of one tensor (`for_each_offsets`).
pub fn for_each_offset(
    shape: &[usize],
    strides: &[isize],
    offset: usize,
    mut f: impl FnMut(usize),
) {
    for_each_offsets(shape, [(strides, offset)], |[o]| f(o));
}

/// Two tensors read in lockstep over one shape (`for_each_offsets`).
pub fn for_each_offset2(
    shape: &[usize],
    a: (&[isize], usize),
    b: (&[isize], usize),
    mut f: impl FnMut(usize, usize),
) {
    for_each_offsets(shape, [a, b], |[i, j]| f(i, j));
}

/// A tensor seen as `[outer, len, inner]` around one dimension: the lines
/// an op along that dimension (a reduction, a scan, softmax, sort) walks.
/// Element `k` of line `(o, i)` is at `(o * len + k) * inner + i` of the
/// contiguous tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lines {
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
}

impl Lines {
    /// The lines along `dim` of `shape` (already normalised), or one line
    /// of every element when `dim` is None. A 0-d tensor is one line of one
    /// element, whatever the dim.
    pub fn of(shape: &[usize], dim: Option<usize>) -> Lines {
        match dim {
            Some(d) if d < shape.len() => Lines {
                outer: shape[..d].iter().product(),
                len: shape[d],
                inner: shape[d + 1..].iter().product(),
            },
            _ => Lines {
                outer: 1,
                len: numel(shape),
                inner: 1,
            },
        }
    }

    /// How many lines there are.
    pub fn count(&self) -> usize {
        self.outer * self.inner
    }

    /// The index of element `k` of line `line` (counted `o * inner + i`).
    pub fn at(&self, line: usize, k: usize) -> usize {
        let (o, i) = (line / self.inner.max(1), line % self.inner.max(1));
        (o * self.len + k) * self.inner + i
    }
}

/// The shape left after reducing `dim` (every dimension when None) of
/// `shape`: removed, or kept as 1 with `keepdim`. A 0-d tensor stays 0-d.
pub fn reduced_shape(shape: &[usize], dim: Option<usize>, keepdim: bool) -> Vec<usize> {
    match dim {
        None if keepdim => vec![1; shape.len()],
        None => vec![],
        Some(_) if shape.is_empty() => vec![],
        Some(d) => {
            let mut out = shape.to_vec();
            if keepdim {
                out[d] = 1;
            } else {
                out.remove(d);
            }
            out
        }
    }
}
