//! Views: new shapes and strides over the same memory, as PyTorch's
//! `unsqueeze`, `squeeze`, `permute`, `expand`, `view`, `.mT`, `narrow`-based
//! `chunk`/`split`, and the strided layouts `flip` and `repeat` copy from.
//! Nothing here reads or writes an element.

use super::super::shape::{fmt_shape, norm_dim, numel};
use super::super::Tensor;
use crate::error::Error;

/// `x.unsqueeze(dim)`: a new dimension of size 1 at `dim` (`-1`: last).
pub fn unsqueeze(t: &Tensor, dim: i64) -> Result<Tensor, Error> {
    let d = norm_dim(dim, t.ndim() + 1)?;
    let (mut shape, mut strides) = (t.shape().to_vec(), t.strides().to_vec());
    // The stride a size-1 dimension has in a contiguous layout.
    let stride = match d < t.ndim() {
        true => strides[d] * shape[d] as isize,
        false => 1,
    };
    shape.insert(d, 1);
    strides.insert(d, stride);
    Ok(t.view(shape, strides, t.offset()))
}

/// `x.squeeze()`: every dimension of size 1 dropped; `x.squeeze(dim)`:
/// that one, if its size is 1 (else `x` unchanged, as PyTorch).
pub fn squeeze(t: &Tensor, dim: Option<i64>) -> Result<Tensor, Error> {
    let only = match dim {
        Some(d) if t.ndim() == 0 => {
            norm_dim(d, 1)?;
            return Ok(t.view(vec![], vec![], t.offset()));
        }
        Some(d) => Some(norm_dim(d, t.ndim())?),
        None => None,
    };
    let keep = |i: usize| t.shape()[i] != 1 || only.is_some_and(|d| d != i);
    let (shape, strides) = (0..t.ndim())
        .filter(|&i| keep(i))
        .map(|i| (t.shape()[i], t.strides()[i]))
        .unzip();
    Ok(t.view(shape, strides, t.offset()))
}

/// `x.permute(dims)`: the dimensions in the order `dims` gives.
pub fn permute(t: &Tensor, dims: &[i64]) -> Result<Tensor, Error> {
    if dims.len() != t.ndim() {
        return Err(Error::shape(format!(
            "permute(): {} dimensions given for a tensor with {}",
            dims.len(),
            t.ndim()
        )));
    }
    let mut seen = vec![false; t.ndim()];
    let mut order = Vec::with_capacity(dims.len());
    for &d in dims {
        let d = norm_dim(d, t.ndim())?;
        if std::mem::replace(&mut seen[d], true) {
            return Err(Error::shape(format!(
                "permute(): dimension {d} appears twice"
            )));
        }
        order.push(d);
    }
    let shape = order.iter().map(|&d| t.shape()[d]).collect();
    let strides = order.iter().map(|&d| t.strides()[d]).collect();
    Ok(t.view(shape, strides, t.offset()))
}

/// `x.diagonal(offset, dim1, dim2)`: the elements `[i, i + offset]` of
/// the planes of `dim1` and `dim2` (below the main diagonal for a negative
/// offset), as a last dimension after the others (PyTorch's view).
pub fn diagonal(t: &Tensor, offset: i64, dim1: i64, dim2: i64) -> Result<Tensor, Error> {
    let (d1, d2) = (norm_dim(dim1, t.ndim())?, norm_dim(dim2, t.ndim())?);
    if d1 == d2 {
        return Err(Error::shape(format!(
            "diagonal dimensions cannot be identical {dim1}, {dim2}"
        )));
    }
    let (n1, n2) = (t.shape()[d1] as i64, t.shape()[d2] as i64);
    let (s1, s2) = (t.strides()[d1], t.strides()[d2]);
    let len = match offset >= 0 {
        true => n1.min(n2 - offset),
        false => (n1 + offset).min(n2),
    }
    .max(0) as usize;
    let start = match (len, offset >= 0) {
        (0, _) => 0,
        (_, true) => offset as isize * s2,
        (_, false) => -offset as isize * s1,
    };
    let (mut shape, mut strides): (Vec<usize>, Vec<isize>) = (0..t.ndim())
        .filter(|&d| d != d1 && d != d2)
        .map(|d| (t.shape()[d], t.strides()[d]))
        .unzip();
    shape.push(len);
    strides.push(s1 + s2);
    let offset = (t.offset() as isize + start) as usize;
    Ok(t.view(shape, strides, offset))
}

/// `x.mT`: the last two dimensions swapped (batches of matrices transposed).
pub fn matrix_transpose(t: &Tensor) -> Result<Tensor, Error> {
    if t.ndim() < 2 {
        return Err(Error::shape(format!(
            "`.mT` needs at least 2 dimensions, and this tensor has {}",
            t.ndim()
        )));
    }
    Ok(t.transpose(t.ndim() - 2, t.ndim() - 1))
}

/// `x.expand(*sizes)`: a view with size-1 dimensions repeated (stride 0)
/// and new leading dimensions; `-1` keeps a size.
pub fn expand(t: &Tensor, sizes: &[i64]) -> Result<Tensor, Error> {
    if sizes.len() < t.ndim() {
        return Err(Error::shape(format!(
            "expand(): {} sizes given for a tensor with {} dimensions",
            sizes.len(),
            t.ndim()
        )));
    }
    let lead = sizes.len() - t.ndim();
    let mut shape = Vec::with_capacity(sizes.len());
    let mut strides = Vec::with_capacity(sizes.len());
    for (i, &s) in sizes.iter().enumerate() {
        if i < lead {
            if s < 0 {
                return Err(Error::shape(format!(
                    "expand(): a new leading dimension needs a size, not {s}"
                )));
            }
            shape.push(s as usize);
            strides.push(0);
            continue;
        }
        let (have, stride) = (t.shape()[i - lead], t.strides()[i - lead]);
        let want = if s == -1 { have } else { s.max(-1) as usize };
        if s < -1 {
            return Err(Error::shape(format!("expand(): invalid size {s}")));
        }
        if want == have {
            shape.push(have);
            strides.push(stride);
        } else if have == 1 {
            shape.push(want);
            strides.push(0);
        } else {
            return Err(Error::Shape {
                message: format!(
                    "expand(): dimension {} has size {have}, which can only stay {have} (or be -1), not {want}",
                    i - lead
                ),
                help: Some("only dimensions of size 1 expand; `repeat` copies".into()),
            });
        }
    }
    Ok(t.view(shape, strides, t.offset()))
}

/// `x.view(*shape)`: the same memory in `shape` (one size may be -1), when
/// its strides allow that without a copy (PyTorch's rule: dimensions may
/// merge only where they are laid out one inside the other).
pub fn view(t: &Tensor, dims: &[i64]) -> Result<Tensor, Error> {
    let shape = infer_shape(t, dims)?;
    let strides = view_strides(t.shape(), t.strides(), &shape).ok_or_else(|| Error::Shape {
        message: format!(
            "view(): a {} tensor with strides {:?} cannot be seen as {} without copying",
            fmt_shape(t.shape()),
            t.strides(),
            fmt_shape(&shape)
        ),
        help: Some("use `.reshape(...)`, which copies when it must".into()),
    })?;
    Ok(t.view(shape, strides, t.offset()))
}

/// `dims` with its -1 worked out, checked against `t`'s element count.
pub fn infer_shape(t: &Tensor, dims: &[i64]) -> Result<Vec<usize>, Error> {
    let stand_in = t.view(t.shape().to_vec(), contiguous(t.shape()), 0);
    Ok(stand_in.reshape(dims)?.shape().to_vec())
}

fn contiguous(shape: &[usize]) -> Vec<isize> {
    super::super::shape::contiguous_strides(shape)
}

/// The strides `shape` has over memory laid out as `old_shape`/`old_strides`,
/// or None when it needs a copy. As PyTorch's `computeStride`: the old
/// dimensions split into chunks that are contiguous with each other, from
/// the innermost out; the new dimensions must cover each chunk exactly.
fn view_strides(old_shape: &[usize], old_strides: &[isize], shape: &[usize]) -> Option<Vec<isize>> {
    if numel(old_shape) == 0 {
        return Some(contiguous(shape));
    }
    let mut strides = vec![0isize; shape.len()];
    if old_shape.is_empty() {
        // A 0-d tensor: every new dimension has size 1.
        return Some(vec![1; shape.len()]);
    }
    let mut view_d = shape.len() as isize - 1;
    let mut chunk_base = *old_strides.last()?;
    let (mut tensor_numel, mut view_numel) = (1usize, 1usize);
    for d in (0..old_shape.len()).rev() {
        tensor_numel *= old_shape[d];
        let chunk_ends = d == 0
            || (old_shape[d - 1] != 1 && old_strides[d - 1] != tensor_numel as isize * chunk_base);
        if !chunk_ends {
            continue;
        }
        while view_d >= 0 && (view_numel < tensor_numel || shape[view_d as usize] == 1) {
            strides[view_d as usize] = view_numel as isize * chunk_base;
            view_numel *= shape[view_d as usize];
            view_d -= 1;
        }
        if view_numel != tensor_numel {
            return None;
        }
        if d > 0 {
            chunk_base = old_strides[d - 1];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    (view_d == -1).then_some(strides)
}

/// `x.flip(dims)`'s layout: the same memory read backwards along `dims`
/// (negative strides); `flip` copies it out, as PyTorch returns a new tensor.
pub fn flipped(t: &Tensor, dims: &[i64]) -> Result<Tensor, Error> {
    let mut strides = t.strides().to_vec();
    let mut offset = t.offset() as isize;
    let mut seen = vec![false; t.ndim()];
    for &d in dims {
        let d = norm_dim(d, t.ndim().max(1))?;
        if t.ndim() == 0 {
            continue;
        }
        if std::mem::replace(&mut seen[d], true) {
            return Err(Error::shape(format!("flip(): dimension {d} appears twice")));
        }
        if t.shape()[d] > 1 {
            offset += (t.shape()[d] as isize - 1) * strides[d];
            strides[d] = -strides[d];
        }
    }
    Ok(t.view(t.shape().to_vec(), strides, offset as usize))
}

/// `x.repeat(*sizes)`'s layout: `x` expanded so that a copy of it in order,
/// reshaped to the product sizes, is the repeated tensor. Returns the
/// expanded view and that final shape.
pub fn repeated(t: &Tensor, sizes: &[i64]) -> Result<(Tensor, Vec<usize>), Error> {
    if sizes.len() < t.ndim() {
        return Err(Error::shape(format!(
            "repeat(): {} sizes given for a tensor with {} dimensions; give at least one per dimension",
            sizes.len(),
            t.ndim()
        )));
    }
    if let Some(&s) = sizes.iter().find(|&&s| s < 0) {
        return Err(Error::shape(format!(
            "repeat(): a size cannot be negative, not {s}"
        )));
    }
    let lead = sizes.len() - t.ndim();
    // As if `t` had leading dimensions of size 1: each becomes (r, size).
    let mut shape = Vec::with_capacity(2 * sizes.len());
    let mut strides = Vec::with_capacity(2 * sizes.len());
    let mut out = Vec::with_capacity(sizes.len());
    for (i, &r) in sizes.iter().enumerate() {
        let (size, stride) = match i < lead {
            true => (1, 0),
            false => (t.shape()[i - lead], t.strides()[i - lead]),
        };
        shape.extend([r as usize, size]);
        strides.extend([0, stride]);
        out.push(r as usize * size);
    }
    Ok((t.view(shape, strides, t.offset()), out))
}

/// `x.chunk(n, dim)`: at most `n` views along `dim`, each of
/// `ceil(size / n)` elements but the last.
pub fn chunk(t: &Tensor, n: i64, dim: i64) -> Result<Vec<Tensor>, Error> {
    if n <= 0 {
        return Err(Error::value(format!(
            "chunk(): the number of chunks must be at least 1, not {n}"
        )));
    }
    let d = norm_dim(dim, at_least_1d(t, "chunk")?)?;
    let size = t.shape()[d];
    let step = size.div_ceil(n as usize).max(1);
    split_at(t, d, step)
}

/// `x.split(size, dim)`: views of `size` elements along `dim` (the last may
/// be smaller).
pub fn split(t: &Tensor, size: i64, dim: i64) -> Result<Vec<Tensor>, Error> {
    if size <= 0 {
        return Err(Error::value(format!(
            "split(): the size of a part must be at least 1, not {size}"
        )));
    }
    let d = norm_dim(dim, at_least_1d(t, "split")?)?;
    split_at(t, d, size as usize)
}

/// `x.unbind(dim)`: one view per index along `dim`, without `dim`.
pub fn unbind(t: &Tensor, dim: i64) -> Result<Vec<Tensor>, Error> {
    let d = norm_dim(dim, at_least_1d(t, "unbind")?)?;
    (0..t.shape()[d])
        .map(|i| super::index::narrow(t, d, i, 1).and_then(|p| squeeze(&p, Some(d as i64))))
        .collect()
}

/// `x.split([a, b, ...], dim)`: views of those sizes, which must add up to
/// the dimension's size.
pub fn split_sizes(t: &Tensor, sizes: &[i64], dim: i64) -> Result<Vec<Tensor>, Error> {
    let d = norm_dim(dim, at_least_1d(t, "split")?)?;
    let total: i64 = sizes.iter().sum();
    if sizes.iter().any(|&s| s < 0) || total != t.shape()[d] as i64 {
        return Err(Error::shape(format!(
            "split(): sizes {sizes:?} do not add up to {}, the size of dimension {d}",
            t.shape()[d]
        )));
    }
    let mut at = 0;
    let mut parts = Vec::with_capacity(sizes.len());
    for &s in sizes {
        parts.push(super::index::narrow(t, d, at, s as usize)?);
        at += s as usize;
    }
    Ok(parts)
}

/// `t`'s number of dimensions, which `op` needs to be at least 1 (as PyTorch's
/// "chunk expects at least a 1-dimensional tensor").
fn at_least_1d(t: &Tensor, op: &str) -> Result<usize, Error> {
    match t.ndim() {
        0 => Err(Error::Shape {
            message: format!("{op}() expects at least a 1-dimensional tensor, and this one is 0-d"),
            help: Some("a 0-d tensor holds one value: `x.reshape(1)` makes it 1-d".into()),
        }),
        n => Ok(n),
    }
}

fn split_at(t: &Tensor, d: usize, step: usize) -> Result<Vec<Tensor>, Error> {
    let size = t.shape()[d];
    if size == 0 {
        return Ok(vec![t.view(
            t.shape().to_vec(),
            t.strides().to_vec(),
            t.offset(),
        )]);
    }
    (0..size)
        .step_by(step)
        .map(|at| super::index::narrow(t, d, at, step.min(size - at)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Tensor {
        Tensor::from_vec((0..24).map(|i| i as f32).collect(), vec![2, 3, 4])
    }

    #[test]
    fn views_keep_the_elements_where_they_are() {
        let x = grid();
        let u = unsqueeze(&x, 1).unwrap();
        assert_eq!(u.shape(), [2, 1, 3, 4]);
        assert_eq!(u.to_vec::<f32>(), x.to_vec::<f32>());
        assert_eq!(squeeze(&u, None).unwrap().shape(), [2, 3, 4]);
        assert_eq!(squeeze(&u, Some(0)).unwrap().shape(), [2, 1, 3, 4]);
        let p = permute(&x, &[2, 0, 1]).unwrap();
        assert_eq!(p.shape(), [4, 2, 3]);
        assert_eq!(p.to_vec::<f32>()[..3], [0., 4., 8.]);
        assert!(permute(&x, &[0, 0, 1]).is_err());
        let e = expand(&Tensor::from_vec(vec![1f32, 2.], vec![2, 1]), &[3, -1, 4]).unwrap();
        assert_eq!(e.shape(), [3, 2, 4]);
        assert!(expand(&x, &[2, 5, 4]).is_err());
    }

    #[test]
    fn view_merges_only_dimensions_laid_out_together() {
        let x = grid();
        assert_eq!(view(&x, &[6, -1]).unwrap().shape(), [6, 4]);
        let t = x.transpose(1, 2); // [2, 4, 3]
        assert!(
            view(&t, &[2, 12]).is_err(),
            "4 and 3 are not one inside the other"
        );
        let v = view(&t, &[2, 4, 3, 1]).unwrap();
        assert_eq!(v.to_vec::<f32>(), t.to_vec::<f32>());
        let v = view(&t, &[1, 2, 4, 3]).unwrap();
        assert_eq!(v.to_vec::<f32>(), t.to_vec::<f32>());
        // The batch dimension splits: it is laid out outside the others.
        let v = view(&t, &[1, 2, 1, 4, 3]).unwrap();
        assert_eq!(v.to_vec::<f32>(), t.to_vec::<f32>());
    }

    #[test]
    fn flip_repeat_and_chunks() {
        let x = Tensor::from_vec(vec![1f32, 2., 3., 4., 5., 6.], vec![2, 3]);
        assert_eq!(
            flipped(&x, &[1]).unwrap().to_vec::<f32>(),
            [3., 2., 1., 6., 5., 4.]
        );
        assert_eq!(
            flipped(&x, &[0, 1]).unwrap().to_vec::<f32>(),
            [6., 5., 4., 3., 2., 1.]
        );
        let (r, shape) = repeated(&Tensor::from_vec(vec![1f32, 2.], vec![2]), &[2, 2]).unwrap();
        assert_eq!(shape, [2, 4]);
        assert_eq!(r.to_vec::<f32>(), [1., 2., 1., 2., 1., 2., 1., 2.]);
        let parts = chunk(&x, 2, 1).unwrap();
        assert_eq!(
            parts.iter().map(|p| p.shape()[1]).collect::<Vec<_>>(),
            [2, 1]
        );
        assert_eq!(split(&x, 1, 0).unwrap().len(), 2);
        assert!(split_sizes(&x, &[1, 1], 1).is_err());
    }
}
