//! Indexing and slicing (views), and writing through them (`x[i] = v`).

use std::sync::Arc;

use super::super::buffer::{Buffer, FloatToInt, Stored};
use super::super::shape::{
    broadcast_shapes, broadcast_strides, fmt_shape, for_each_offset2, for_each_offsets,
};
use super::super::{DType, Tensor};
use crate::error::Error;
use crate::with_dtype;

use crate::runtime::op::index::expand_ellipsis;
pub use crate::runtime::op::index::{check_assign, check_fits, is_advanced, narrow, select, Index};

/// Advanced indexing with one tensor index, planned: the basic view the
/// other items select (the indexed dimensions still whole), where the
/// indexed dimensions start in it and how many there are, and the index.
pub struct Take {
    pub view: Tensor,
    pub dim: usize,
    pub dims: usize,
    pub index: Arc<Tensor>,
    /// The index holds offsets into the indexed dimensions (several tensor
    /// indices, combined by `plan_many`), not indices along one.
    pub offsets: bool,
}

impl Take {
    /// Plans `t[items]` with one tensor index (`plan_many` takes several).
    pub fn plan(t: &Tensor, items: &[Index]) -> Result<Take, Error> {
        let items = expand_ellipsis(items, t.ndim(), t.shape())?;
        let tensors: Vec<usize> = (0..items.len())
            .filter(|&k| matches!(items[k], Index::Tensor(_)))
            .collect();
        let [at] = tensors[..] else {
            return Err(Error::value(
                "internal error: Take::plan takes one tensor index (plan_many several)",
            ));
        };
        let Index::Tensor(index) = &items[at] else {
            unreachable!("`at` is a tensor item")
        };
        let dims = items[at].consumes();
        if index.dtype() != DType::Bool && !index.dtype().is_int() {
            return Err(index_dtype(index.dtype()));
        }
        // The view's dimension where the index applies: one per slice and
        // `none` before it.
        let dim = items[..at]
            .iter()
            .filter(|i| matches!(i, Index::Slice(..) | Index::NewAxis))
            .count();
        let mut basic = items.clone();
        basic.splice(at..=at, (0..dims).map(|_| Index::Slice(None, None, None)));
        let view = select(t, &basic)?;
        if index.dtype() != DType::Bool && view.shape()[dim] == 0 && index.numel() > 0 {
            return Err(Error::IndexIntoEmpty);
        }
        if index.dtype() == DType::Bool {
            let indexed = &view.shape()[dim..dim + dims];
            if index.shape() != indexed {
                return Err(Error::Shape {
                    message: format!(
                        "the shape of the mask {} does not match the shape of the indexed dimensions {}",
                        fmt_shape(index.shape()),
                        fmt_shape(indexed)
                    ),
                    help: Some("a mask has the shape of the dimensions it selects from".into()),
                });
            }
        }
        Ok(Take {
            view,
            dim,
            dims,
            index: Arc::clone(index),
            offsets: false,
        })
    }

    /// How many tensor items `items` hold (masks count once).
    pub fn tensors(items: &[Index]) -> usize {
        items
            .iter()
            .filter(|i| matches!(i, Index::Tensor(_)))
            .count()
    }

    /// Plans `t[items]` with several tensor indices, all on the host (the
    /// caller reads device ones first): as PyTorch, a mask stands for the
    /// coordinates of its true elements, the index tensors broadcast
    /// together, and the result's dimensions take the first index's place
    /// when the indices are side by side, else go first. The indices
    /// become one tensor of offsets into the indexed dimensions.
    pub fn plan_many(t: &Tensor, items: &[Index]) -> Result<Take, Error> {
        let items = expand_ellipsis(items, t.ndim(), t.shape())?;
        let mut flat = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Index::Tensor(m) if m.dtype() == DType::Bool => {
                    flat.extend(nonzero(&m).into_iter().map(|c| Index::Tensor(Arc::new(c))));
                }
                Index::Tensor(i) if !i.dtype().is_int() => return Err(index_dtype(i.dtype())),
                other => flat.push(other),
            }
        }
        // The basic view, each tensor item a whole dimension of it.
        let mut basic = Vec::with_capacity(flat.len());
        let mut indexed: Vec<(usize, Arc<Tensor>)> = Vec::new();
        let mut d = 0;
        for item in flat {
            match item {
                Index::Tensor(i) => {
                    indexed.push((d, i));
                    basic.push(Index::Slice(None, None, None));
                    d += 1;
                }
                Index::At(_) => basic.push(item),
                other => {
                    basic.push(other);
                    d += 1;
                }
            }
        }
        let view = select(t, &basic)?;
        let mut shape: Vec<usize> = Vec::new();
        for (_, i) in &indexed {
            shape = broadcast_shapes(&shape, i.shape()).ok_or_else(|| Error::Shape {
                message: format!(
                    "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                    indexed.iter().map(|(_, i)| fmt_shape(i.shape())).collect::<Vec<_>>().join(", ")
                ),
                help: Some("index tensors broadcast together, as in `x[rows[:, none], cols]`".into()),
            })?;
        }
        let n: usize = shape.iter().product();
        if n > 0 && indexed.iter().any(|(dim, _)| view.shape()[*dim] == 0) {
            return Err(Error::IndexIntoEmpty);
        }
        let mut offsets = vec![0i64; n];
        for (dim, i) in &indexed {
            let (size, stride) = (view.shape()[*dim], view.strides()[*dim]);
            let vals = i.cast(DType::I64);
            let strides = broadcast_strides(vals.shape(), vals.strides(), &shape);
            let vs = vals.to_vec::<i64>();
            let mut k = 0;
            let mut bad = None;
            for_each_offsets(&shape, [(&strides, 0)], |[o]| {
                let v = vs[o];
                if v < -(size as i64) || v >= size as i64 {
                    bad.get_or_insert(v);
                } else {
                    offsets[k] += step(v, Some((size, stride))) as i64;
                }
                k += 1;
            });
            if let Some(index) = bad {
                return Err(Error::IndexOutOfRange {
                    index,
                    dim: *dim,
                    size,
                });
            }
        }
        let dims = indexed.len();
        let first = indexed[0].0;
        let side_by_side = indexed
            .iter()
            .enumerate()
            .all(|(k, (d, _))| *d == first + k);
        let (view, dim) = if side_by_side {
            (view, first)
        } else {
            // Apart: the indexed dimensions first, the rest after, in order.
            let at: Vec<usize> = indexed.iter().map(|(d, _)| *d).collect();
            let rest = (0..view.ndim()).filter(|d| !at.contains(d));
            let order: Vec<usize> = at.iter().copied().chain(rest).collect();
            let shape = order.iter().map(|&d| view.shape()[d]).collect();
            let strides = order.iter().map(|&d| view.strides()[d]).collect();
            (view.view(shape, strides, view.offset()), 0)
        };
        Ok(Take {
            view,
            dim,
            dims,
            index: Arc::new(Tensor::from_vec(offsets, shape)),
            offsets: true,
        })
    }

    /// The output's shape, given the index's shape (a mask's: its count of
    /// true elements).
    pub fn shape(&self, index_shape: &[usize]) -> Vec<usize> {
        let s = self.view.shape();
        let mut out = s[..self.dim].to_vec();
        out.extend_from_slice(index_shape);
        out.extend_from_slice(&s[self.dim + self.dims..]);
        out
    }

    /// The indexed dimension's size and stride (integer indices wrap by the
    /// size and step by the stride).
    pub fn size_and_stride(&self) -> (usize, isize) {
        (self.view.shape()[self.dim], self.view.strides()[self.dim])
    }

    /// A mask's true elements as offsets into the view, row-major.
    pub fn mask_offsets(&self, mask: &[bool]) -> Vec<i64> {
        let shape = &self.view.shape()[self.dim..self.dim + self.dims];
        let strides = &self.view.strides()[self.dim..self.dim + self.dims];
        let mut out = Vec::new();
        let mut k = 0;
        for_each_offsets(shape, [(strides, 0)], |[o]| {
            if mask[k] {
                out.push(o as i64);
            }
            k += 1;
        });
        out
    }

    /// Checks integer indices against the dimension's size, as PyTorch's
    /// CPU kernels do (its CUDA kernels assert on the device instead).
    pub fn check_bounds(&self, index: &[i64]) -> Result<(), Error> {
        let (size, _) = self.size_and_stride();
        match index
            .iter()
            .find(|&&i| i < -(size as i64) || i >= size as i64)
        {
            Some(&i) => Err(Error::IndexOutOfRange {
                index: i,
                dim: self.dim,
                size,
            }),
            None => Ok(()),
        }
    }

    /// The view's layout over the output with the indexed dimensions
    /// collapsed into one of `n` (stride 0: the index supplies the step),
    /// and the index's position in that layout (stride 1 along it).
    pub fn layout(&self, n: usize) -> (Vec<usize>, Vec<isize>, Vec<isize>) {
        let (s, st) = (self.view.shape(), self.view.strides());
        let mut shape = s[..self.dim].to_vec();
        shape.push(n);
        shape.extend_from_slice(&s[self.dim + self.dims..]);
        let mut src = st[..self.dim].to_vec();
        src.push(0);
        src.extend_from_slice(&st[self.dim + self.dims..]);
        let at: Vec<isize> = (0..shape.len()).map(|d| (d == self.dim) as isize).collect();
        (shape, src, at)
    }

    /// The elements on the host: `index` holds offsets (`wrap` none, for a
    /// mask) or integer indices into the dimension (`wrap`: size and stride).
    pub fn host(&self, index: &[i64], wrap: Option<(usize, isize)>) -> Buffer {
        let (shape, src, at) = self.layout(index.len());
        with_dtype!(self.view.dtype(), T => take::<T>(&self.view, &shape, &src, &at, index, wrap))
    }
}

impl Take {
    /// Writes `value` (converted to the view's dtype, broadcast over the
    /// collapsed layout) at the elements `index` picks (as `host`).
    pub fn put_host(&self, index: &[i64], wrap: Option<(usize, isize)>, value: &Tensor) {
        let (shape, dst, at) = self.layout(index.len());
        let value = value.cast(self.view.dtype());
        let sv = broadcast_strides(value.shape(), value.strides(), &shape);
        with_dtype!(self.view.dtype(), T => {
            let v = value.read();
            let vs = v.as_slice::<T>();
            let mut d = self.view.write();
            let ds = d.as_mut_slice::<T>();
            for_each_offsets(&shape, [(&dst, self.view.offset()), (&at, 0), (&sv, value.offset())], |[o, b, j]| {
                ds[(o as isize + step(index[b], wrap)) as usize] = vs[j];
            });
        });
    }
}

impl Take {
    /// As `put_host`, adding `value` where `index` picks (each repeated
    /// index adds again), in index order: f32 and f64 views.
    pub fn put_add_host(&self, index: &[i64], wrap: Option<(usize, isize)>, value: &Tensor) {
        match self.view.dtype() {
            DType::F32 => self.add_at::<f32>(index, wrap, value),
            DType::F64 => self.add_at::<f64>(index, wrap, value),
            other => unreachable!("index_put_add checked its dtype, not {other}"),
        }
    }

    fn add_at<T: Stored + Copy + std::ops::Add<Output = T>>(
        &self,
        index: &[i64],
        wrap: Option<(usize, isize)>,
        value: &Tensor,
    ) {
        let (shape, dst, at) = self.layout(index.len());
        let value = value.cast(self.view.dtype());
        let sv = broadcast_strides(value.shape(), value.strides(), &shape);
        let v = value.read();
        let vs = v.as_slice::<T>();
        let mut d = self.view.write();
        let ds = d.as_mut_slice::<T>();
        for_each_offsets(
            &shape,
            [(&dst, self.view.offset()), (&at, 0), (&sv, value.offset())],
            |[o, b, j]| {
                let k = (o as isize + step(index[b], wrap)) as usize;
                ds[k] = ds[k] + vs[j];
            },
        );
    }
}

fn index_dtype(dt: DType) -> Error {
    Error::dtype(
        format!("tensors used as indices must be integer or bool tensors, not {dt}"),
        Some("convert first, e.g. `i.to(i64)`".into()),
    )
}

/// The coordinates of a host tensor's non-zero elements (NaN counts), as
/// PyTorch's `nonzero`: an i64 tensor of [count, ndim], row-major order.
pub fn nonzero_rows(t: &Tensor) -> Tensor {
    let mask = t.to_vec::<bool>();
    let count = mask.iter().filter(|&&b| b).count();
    let coords = nonzero(&Tensor::from_vec(mask, t.shape().to_vec()));
    let nd = t.ndim();
    let mut rows = vec![0i64; count * nd];
    for (d, c) in coords.iter().enumerate() {
        for (k, v) in c.to_vec::<i64>().into_iter().enumerate() {
            rows[k * nd + d] = v;
        }
    }
    Tensor::from_vec(rows, vec![count, nd])
}

/// The coordinates of a host mask's true elements, one i64 tensor per
/// dimension (PyTorch's `nonzero(as_tuple=True)`).
fn nonzero(mask: &Tensor) -> Vec<Tensor> {
    let m = mask.to_vec::<bool>();
    let shape = mask.shape();
    let mut coords: Vec<Vec<i64>> = vec![Vec::new(); shape.len()];
    for (k, _) in m.iter().enumerate().filter(|(_, &b)| b) {
        let mut rest = k;
        for d in (0..shape.len()).rev() {
            coords[d].push((rest % shape[d]) as i64);
            rest /= shape[d];
        }
    }
    coords
        .into_iter()
        .map(|c| {
            let n = c.len();
            Tensor::from_vec(c, vec![n])
        })
        .collect()
}

/// The offset an index entry gives: a mask's offset as it is, or an
/// integer index (checked before) wrapped and times the stride.
fn step(i: i64, wrap: Option<(usize, isize)>) -> isize {
    match wrap {
        Some((size, stride)) => (if i < 0 { i + size as i64 } else { i }) as isize * stride,
        None => i as isize,
    }
}

fn take<T: Stored>(
    view: &Tensor,
    shape: &[usize],
    src: &[isize],
    at: &[isize],
    index: &[i64],
    wrap: Option<(usize, isize)>,
) -> Buffer {
    let g = view.read();
    let s = g.as_slice::<T>();
    let mut out = Vec::with_capacity(shape.iter().product());
    for_each_offsets(shape, [(src, view.offset()), (at, 0)], |[o, b]| {
        out.push(s[(o as isize + step(index[b], wrap)) as usize]);
    });
    T::into_buffer(out)
}

pub fn assign(dst: &Tensor, value: &Tensor) -> Result<(), Error> {
    check_assign(dst, value)?;
    let plain = dst.dtype() == value.dtype()
        && dst.shape() == value.shape()
        && dst.is_contiguous()
        && value.is_contiguous()
        && !value.shares_storage(dst);
    if plain {
        // Two separate, plainly laid out tensors of one dtype: one memcpy.
        let n = dst.numel();
        with_dtype!(dst.dtype(), T => {
            let s = value.read();
            let sv = &s.as_slice::<T>()[value.offset()..][..n];
            let mut d = dst.write();
            d.as_mut_slice::<T>()[dst.offset()..][..n].copy_from_slice(sv);
        });
        return Ok(());
    }
    // Separate memory, one dtype, one shape: a single pass, a row at a time
    // (a slice copy where both rows are contiguous: im2col's copies).
    if dst.dtype() == value.dtype()
        && dst.shape() == value.shape()
        && !value.shares_storage(dst)
        && dst.ndim() > 0
    {
        if dst.numel() == 0 {
            return Ok(());
        }
        let n = dst.ndim();
        let inner = dst.shape()[n - 1];
        let (ds, vs) = (dst.strides()[n - 1], value.strides()[n - 1]);
        with_dtype!(dst.dtype(), T => {
            let s = value.read();
            let sv = s.as_slice::<T>();
            let mut d = dst.write();
            let dv = d.as_mut_slice::<T>();
            for_each_offset2(
                &dst.shape()[..n - 1],
                (&dst.strides()[..n - 1], dst.offset()),
                (&value.strides()[..n - 1], value.offset()),
                |i, j| {
                    if ds == 1 && vs == 1 {
                        dv[i..i + inner].copy_from_slice(&sv[j..j + inner]);
                    } else {
                        for k in 0..inner as isize {
                            dv[(i as isize + k * ds) as usize] = sv[(j as isize + k * vs) as usize];
                        }
                    }
                },
            );
        });
        return Ok(());
    }
    // Gather the source first: it may share memory with the destination.
    // It converts where the copy runs: on dst's device (a CPU number
    // written into a device tensor converts as a GPU does).
    let src = Tensor::new(
        value
            .contiguous_buffer()
            .cast_by(dst.dtype(), FloatToInt::on(dst.device())),
        value.shape().to_vec(),
        value.device(),
    );
    let src_strides = broadcast_strides(src.shape(), src.strides(), dst.shape());
    with_dtype!(dst.dtype(), T => {
        let s = src.read();
        let sv = s.as_slice::<T>();
        let mut d = dst.write();
        let dv = d.as_mut_slice::<T>();
        for_each_offset2(dst.shape(), (dst.strides(), dst.offset()), (&src_strides, src.offset()), |i, j| {
            dv[i] = sv[j];
        });
    });
    Ok(())
}

/// Fills every element of the view `dst` with `v` (converted to its dtype).
pub fn fill(dst: &Tensor, v: super::factory::Fill) {
    with_dtype!(dst.dtype(), T => {
        let x: T = v.element::<T>();
        let mut d = dst.write();
        let dv = d.as_mut_slice::<T>();
        super::super::shape::for_each_offset(dst.shape(), dst.strides(), dst.offset(), |i| dv[i] = x);
    });
}
