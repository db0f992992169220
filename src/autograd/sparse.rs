//! Sparse COO tensors (PyTorch's `layout=torch.sparse_coo`): an int64
//! `indices` tensor of `[ndim, nnz]` and a `values` tensor of `[nnz]`, both
//! held on the tensor's device by its allocator, as PyTorch holds a
//! `SparseTensorImpl`'s two tensors. Every op is composed of the op layer's
//! (gathers and `index_put_` with accumulate), so it runs alike on sim, emu
//! and cuda; what needs the count of distinct indices (`coalesce`, a dense
//! tensor's `to_sparse`) reads the indices on the host, a sync as PyTorch's
//! CUDA kernels make one there.
//!
//! A product with a dense operand that requires grad records one node
//! (`MmBackward0`, or `SparseAddmmBackward0` for `torch.sparse.mm`) whose
//! gradient for the dense operand is the sparse operand's transpose times
//! the output's gradient (`derivatives.yaml`'s `mm`), saving the sparse
//! operand's indices and values (aliases, no copy). The values themselves
//! never require grad here.

use std::sync::Arc;

use super::node::{Backward, Saved};
use super::ops::full;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::view;
use crate::runtime::{DType, Device, Tensor};

type R<T> = Result<T, Error>;

/// A sparse COO tensor: the coordinates of its specified elements
/// (`indices`, int64 `[ndim, nnz]`), their values (`[nnz]`), its shape, and
/// whether the indices are sorted and distinct (PyTorch's `is_coalesced()`).
#[derive(Debug)]
pub struct SparseTensor {
    pub indices: Arc<Tensor>,
    pub values: Arc<Tensor>,
    pub shape: Vec<usize>,
    pub coalesced: bool,
}

impl SparseTensor {
    /// How many elements are specified (`_nnz()`).
    pub fn nnz(&self) -> usize {
        self.values.shape().first().copied().unwrap_or(0)
    }

    pub fn dtype(&self) -> DType {
        self.values.dtype()
    }

    pub fn device(&self) -> Device {
        self.values.device()
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The same specified elements with other values (same count).
    fn with_values(&self, values: Arc<Tensor>) -> SparseTensor {
        SparseTensor {
            indices: Arc::clone(&self.indices),
            values,
            shape: self.shape.clone(),
            coalesced: self.coalesced,
        }
    }
}

/// `torch.sparse_coo_tensor(indices, values, size)`: checked as PyTorch
/// checks it with `check_invariants=True` (cudash always checks: an index
/// out of bounds is an error here, not a later fault). Without `size`, each
/// dimension is one past its largest index.
pub fn new(
    rt: &mut Runtime,
    indices: Arc<Tensor>,
    values: Arc<Tensor>,
    size: Option<Vec<usize>>,
) -> R<SparseTensor> {
    if indices.dtype() != DType::I64 {
        return Err(Error::runtime(format!(
            "indices must be an int64 tensor, not {}",
            indices.dtype().scalar_name()
        )));
    }
    if indices.ndim() != 2 {
        return Err(Error::runtime(format!(
            "indices must be sparse_dim x nnz, but got: {:?}",
            indices.shape()
        )));
    }
    if values.ndim() != 1 {
        return Err(Error::value_help(
            format!(
                "cudash's sparse tensors hold one value per index: values of {} dims (a hybrid sparse tensor) are not there",
                values.ndim()
            ),
            "give one value per column of `indices`: `values` of shape [nnz]",
        ));
    }
    let (sparse_dim, nnz) = (indices.shape()[0], indices.shape()[1]);
    if nnz != values.shape()[0] {
        return Err(Error::runtime(format!(
            "indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from values: {}",
            values.shape()[0]
        )));
    }
    if indices.device() != values.device() {
        return Err(Error::runtime(format!(
            "device of indices ({}) must match device of values ({})",
            indices.device(),
            values.device()
        )));
    }
    let coords = rt.on_host(&indices)?.to_vec::<i64>();
    let shape = match size {
        Some(size) => {
            if size.len() != sparse_dim {
                return Err(Error::runtime(format!(
                    "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {}, sparse_dim = {sparse_dim}, dense_dim = 0",
                    size.len()
                )));
            }
            size
        }
        None => (0..sparse_dim)
            .map(|d| {
                let row = &coords[d * nnz..(d + 1) * nnz];
                row.iter().max().map_or(0, |m| (*m + 1).max(0) as usize)
            })
            .collect(),
    };
    for (d, &n) in shape.iter().enumerate() {
        let row = &coords[d * nnz..(d + 1) * nnz];
        if let Some(&i) = row.iter().find(|&&i| i < 0) {
            return Err(Error::runtime(format!(
                "found negative index {i} for dim {d}"
            )));
        }
        if let Some(&i) = row.iter().find(|&&i| i as usize >= n) {
            return Err(Error::runtime(format!(
                "size is inconsistent with indices: for dim {d}, size is {n} but found index {i}"
            )));
        }
    }
    Ok(SparseTensor {
        indices,
        values,
        shape,
        coalesced: nnz < 2,
    })
}

/// `x.to_sparse()`: the nonzero elements of a dense tensor, in order
/// (coalesced).
pub fn from_dense(rt: &mut Runtime, x: &Arc<Tensor>) -> R<SparseTensor> {
    let rows = rt.nonzero(x)?; // [nnz, ndim]
    let indices = rt.copy(&view::permute(&rows, &[1, 0])?)?;
    let items = per_dim(rt, &indices)?;
    let values = match x.ndim() {
        0 => {
            let copy = rt.copy(x)?;
            rt.reshape(&copy, &[-1])?
        }
        _ => rt.index(x, &items)?,
    };
    Ok(SparseTensor {
        indices,
        values,
        shape: x.shape().to_vec(),
        coalesced: true,
    })
}

/// One index tensor per dimension: the rows of `indices` (views).
fn per_dim(rt: &mut Runtime, indices: &Arc<Tensor>) -> R<Vec<Index>> {
    (0..indices.shape()[0])
        .map(|d| Ok(Index::Tensor(rt.index(indices, &[Index::At(d as i64)])?)))
        .collect()
}

/// The dtype values add up in with `index_put_` (f32 or f64), and back.
fn accumulating(dtype: DType) -> DType {
    match dtype {
        DType::F32 | DType::F16 | DType::BF16 => DType::F32,
        _ => DType::F64,
    }
}

/// `values` added into zeros of `shape` at `items` (repeated indices add
/// up), in the values' dtype.
fn spread(
    rt: &mut Runtime,
    shape: &[usize],
    items: &[Index],
    values: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    let dtype = values.dtype();
    let acc = accumulating(dtype);
    let out = full(rt, shape, acc, values.device(), 0)?;
    if values.numel() > 0 {
        let v = match dtype == acc {
            true => Arc::clone(values),
            false => rt.cast(values, acc)?,
        };
        rt.index_put_add(&out, items, &v)?;
    }
    match dtype == acc {
        true => Ok(out),
        false => rt.cast(&out, dtype),
    }
}

/// `s.to_dense()`: zeros with the values added in (repeated indices add
/// up, as PyTorch's).
pub fn to_dense(rt: &mut Runtime, s: &SparseTensor) -> R<Arc<Tensor>> {
    if s.ndim() == 0 {
        let sum = total(rt, s)?;
        return rt.reshape(&sum, &[]);
    }
    let items = per_dim(rt, &s.indices)?;
    spread(rt, &s.shape, &items, &s.values)
}

/// Every value added up, in a tensor of shape `[1]`.
fn total(rt: &mut Runtime, s: &SparseTensor) -> R<Arc<Tensor>> {
    let slot = full(rt, &[s.nnz()], DType::I64, s.device(), 0)?;
    spread(rt, &[1], &[Index::Tensor(slot)], &s.values)
}

/// `s.coalesce()`: the indices sorted (row-major order) and made distinct,
/// the values of a repeated index added up.
pub fn coalesce(rt: &mut Runtime, s: &SparseTensor) -> R<SparseTensor> {
    if s.coalesced {
        return Ok(s.with_values(Arc::clone(&s.values)));
    }
    let positions = linear(rt, s)?;
    let mut distinct = positions.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let slot: Vec<i64> = positions
        .iter()
        .map(|l| distinct.binary_search(l).unwrap_or(0) as i64)
        .collect();
    let device = s.device();
    let indices = unravel(rt, &distinct, &s.shape, device)?;
    let slot = upload(rt, slot, device)?;
    let values = spread(rt, &[distinct.len()], &[Index::Tensor(slot)], &s.values)?;
    Ok(SparseTensor {
        indices,
        values,
        shape: s.shape.clone(),
        coalesced: true,
    })
}

/// `s.t()` / `s.transpose(d0, d1)`: the index rows swapped (no longer in
/// sorted order, so not coalesced unless there is at most one).
pub fn transpose(rt: &mut Runtime, s: &SparseTensor, d0: usize, d1: usize) -> R<SparseTensor> {
    let mut order: Vec<usize> = (0..s.ndim()).collect();
    order.swap(d0, d1);
    let rows = order
        .iter()
        .map(|&d| rt.index(&s.indices, &[Index::At(d as i64)]))
        .collect::<R<Vec<_>>>()?;
    let rows: Vec<&Tensor> = rows.iter().map(|r| &**r).collect();
    let indices = rt.join(&rows, 0, true)?;
    let mut shape = s.shape.clone();
    shape.swap(d0, d1);
    Ok(SparseTensor {
        indices,
        values: Arc::clone(&s.values),
        shape,
        coalesced: s.coalesced && (d0 == d1 || s.nnz() < 2),
    })
}

/// The values changed elementwise (`s * 2`, `-s`, `s.to(f64)`): the same
/// indices.
pub fn map_values(s: &SparseTensor, values: Arc<Tensor>) -> SparseTensor {
    s.with_values(values)
}

/// `s.to(device)`: both tensors moved.
pub fn moved(rt: &mut Runtime, s: &SparseTensor, device: Device) -> R<SparseTensor> {
    Ok(SparseTensor {
        indices: rt.move_to(&s.indices, device)?,
        values: rt.move_to(&s.values, device)?,
        shape: s.shape.clone(),
        coalesced: s.coalesced,
    })
}

/// `s + t` of two sparse tensors, as PyTorch's CPU kernel adds them: the
/// two lists of indices merged in one pass (an index in both gives one
/// element, `s`'s value plus `alpha` times `t`'s), coalesced when both are.
pub fn add_sparse(
    rt: &mut Runtime,
    a: &SparseTensor,
    b: &SparseTensor,
    alpha: f64,
) -> R<SparseTensor> {
    if a.shape != b.shape {
        return Err(Error::runtime(format!(
            "add: expected 'self' and 'other' to have same size, but self has size {:?} while other has size {:?} (FYI: dense-sparse addition does not currently support broadcasting)",
            a.shape, b.shape
        )));
    }
    let dtype = DType::promote(a.dtype(), b.dtype());
    let av = cast_to(rt, &a.values, dtype)?;
    let bv = cast_to(rt, &b.values, dtype)?;
    let bv = match alpha == 1.0 {
        true => bv,
        false => rt.binary(
            BinaryOp::Mul,
            Operand::strong(&bv),
            Operand::weak(&Tensor::scalar(alpha)),
        )?,
    };
    let (la, lb) = (linear(rt, a)?, linear(rt, b)?);
    let (mut merged, mut slot_a, mut slot_b) = (Vec::new(), Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < la.len() || j < lb.len() {
        let order = match (la.get(i), lb.get(j)) {
            (Some(x), Some(y)) => x.cmp(y),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        let k = merged.len() as i64;
        if order != std::cmp::Ordering::Greater {
            merged.push(la[i]);
            slot_a.push(k);
            i += 1;
        }
        if order != std::cmp::Ordering::Less {
            if order == std::cmp::Ordering::Greater {
                merged.push(lb[j]);
            }
            slot_b.push(k);
            j += 1;
        }
    }
    let device = a.device();
    let count = merged.len();
    let indices = unravel(rt, &merged, &a.shape, device)?;
    let (slot_a, slot_b) = (upload(rt, slot_a, device)?, upload(rt, slot_b, device)?);
    let values = spread(rt, &[count], &[Index::Tensor(slot_a)], &av)?;
    let from_b = spread(rt, &[count], &[Index::Tensor(slot_b)], &bv)?;
    let values = rt.binary(
        BinaryOp::Add,
        Operand::strong(&values),
        Operand::strong(&from_b),
    )?;
    Ok(SparseTensor {
        indices,
        values,
        shape: a.shape.clone(),
        coalesced: a.coalesced && b.coalesced,
    })
}

/// Each specified element's row-major position in the dense tensor.
fn linear(rt: &mut Runtime, s: &SparseTensor) -> R<Vec<i64>> {
    let (nd, nnz) = (s.ndim(), s.nnz());
    let coords = rt.on_host(&s.indices)?.to_vec::<i64>();
    Ok((0..nnz)
        .map(|k| (0..nd).fold(0i64, |acc, d| acc * s.shape[d] as i64 + coords[d * nnz + k]))
        .collect())
}

/// Row-major positions back to `[ndim, n]` indices on `device`.
fn unravel(rt: &mut Runtime, positions: &[i64], shape: &[usize], device: Device) -> R<Arc<Tensor>> {
    let (nd, count) = (shape.len(), positions.len());
    let mut out = vec![0i64; nd * count];
    for (k, &l) in positions.iter().enumerate() {
        let mut rest = l;
        for d in (0..nd).rev() {
            let n = shape[d].max(1) as i64;
            out[d * count + k] = rest % n;
            rest /= n;
        }
    }
    rt.tensor(&Tensor::from_vec(out, vec![nd, count]), DType::I64, device)
}

fn upload(rt: &mut Runtime, v: Vec<i64>, device: Device) -> R<Arc<Tensor>> {
    let n = v.len();
    rt.tensor(&Tensor::from_vec(v, vec![n]), DType::I64, device)
}

fn cast_to(rt: &mut Runtime, t: &Arc<Tensor>, dtype: DType) -> R<Arc<Tensor>> {
    match t.dtype() == dtype {
        true => Ok(Arc::clone(t)),
        false => rt.cast(t, dtype),
    }
}

/// `s * dense` (same shape): each value times the dense element at its
/// index (a sparse result).
pub fn mul_dense(rt: &mut Runtime, s: &SparseTensor, d: &Arc<Tensor>) -> R<SparseTensor> {
    if d.shape() != s.shape.as_slice() {
        return Err(Error::runtime(format!(
            "mul(sparse, dense) needs the same sizes in cudash: the sparse tensor is {:?}, the dense {:?}",
            s.shape,
            d.shape()
        )));
    }
    let items = per_dim(rt, &s.indices)?;
    let picked = rt.index(d, &items)?;
    let values = rt.binary(
        BinaryOp::Mul,
        Operand::strong(&s.values),
        Operand::strong(&picked),
    )?;
    Ok(s.with_values(values))
}

/// `torch.sum(s, dim)`: the summed dimensions' index rows dropped and the
/// rest coalesced (a sparse result); every dimension summed is a dense
/// number.
pub fn sum_dims(rt: &mut Runtime, s: &SparseTensor, dims: &[usize]) -> R<SparseOrDense> {
    if dims.len() == s.ndim() || s.ndim() == 0 {
        let all = total(rt, s)?;
        let dtype = match s.dtype().is_float() {
            true => s.dtype(),
            false => DType::I64,
        };
        let all = cast_to(rt, &all, dtype)?;
        return Ok(SparseOrDense::Dense(rt.reshape(&all, &[])?));
    }
    let kept: Vec<usize> = (0..s.ndim()).filter(|d| !dims.contains(d)).collect();
    let rows = kept
        .iter()
        .map(|&d| rt.index(&s.indices, &[Index::At(d as i64)]))
        .collect::<R<Vec<_>>>()?;
    let rows: Vec<&Tensor> = rows.iter().map(|r| &**r).collect();
    let reduced = SparseTensor {
        indices: rt.join(&rows, 0, true)?,
        values: Arc::clone(&s.values),
        shape: kept.iter().map(|&d| s.shape[d]).collect(),
        coalesced: false,
    };
    Ok(SparseOrDense::Sparse(coalesce(rt, &reduced)?))
}

/// What a sparse op gives: sparse, or (every dimension reduced) dense.
pub enum SparseOrDense {
    Sparse(SparseTensor),
    Dense(Arc<Tensor>),
}

/// Which product: `mm`/`@` (`MmBackward0`) or `torch.sparse.mm`
/// (`SparseAddmmBackward0`).
#[derive(Clone, Copy)]
pub enum Product {
    Mm,
    SparseMm,
}

impl Product {
    fn node(self) -> &'static str {
        match self {
            Product::Mm => "MmBackward0",
            Product::SparseMm => "SparseAddmmBackward0",
        }
    }
}

fn check_product(s: &SparseTensor, d: &Tensor, sparse_left: bool) -> R<()> {
    if s.ndim() != 2 || d.ndim() != 2 {
        let (a, b) = match sparse_left {
            true => (s.ndim(), d.ndim()),
            false => (d.ndim(), s.ndim()),
        };
        return Err(Error::shape(format!(
            "cudash multiplies a sparse matrix and a dense matrix (2-D each), not {a}-D and {b}-D tensors"
        )));
    }
    let (inner_a, inner_b, (r, c)) = match sparse_left {
        true => (s.shape[1], d.shape()[0], (s.shape[0], s.shape[1])),
        false => (d.shape()[1], s.shape[0], (d.shape()[0], d.shape()[1])),
    };
    if inner_a != inner_b {
        let (r2, c2) = match sparse_left {
            true => (d.shape()[0], d.shape()[1]),
            false => (s.shape[0], s.shape[1]),
        };
        return Err(Error::shape(format!(
            "mat1 and mat2 shapes cannot be multiplied ({r}x{c} and {r2}x{c2})"
        )));
    }
    if s.dtype() != d.dtype() {
        let (a, b) = match sparse_left {
            true => (s.dtype(), d.dtype()),
            false => (d.dtype(), s.dtype()),
        };
        return Err(Error::runtime(format!(
            "expected scalar type {} but found {}",
            a.scalar_name(),
            b.scalar_name()
        )));
    }
    if s.device() != d.device() {
        return Err(Error::DeviceMismatch {
            a: s.device(),
            b: d.device(),
        });
    }
    Ok(())
}

/// `out[put[k]] += values[k] * x[pick[k]]` along `dim` of 2-D `x` (0:
/// rows, 1: columns), into zeros of `shape`: the one kernel of every
/// product here, forward and backward.
fn product_along(
    rt: &mut Runtime,
    x: &Arc<Tensor>,
    (pick, put): (&Arc<Tensor>, &Arc<Tensor>),
    values: &Arc<Tensor>,
    shape: &[usize],
    dim: usize,
) -> R<Arc<Tensor>> {
    let all = Index::Slice(None, None, None);
    let (take, place, scale) = match dim {
        0 => (
            vec![Index::Tensor(Arc::clone(pick))],
            vec![Index::Tensor(Arc::clone(put))],
            Arc::new(view::unsqueeze(values, 1)?),
        ),
        _ => (
            vec![all.clone(), Index::Tensor(Arc::clone(pick))],
            vec![all, Index::Tensor(Arc::clone(put))],
            Arc::new(view::unsqueeze(values, 0)?),
        ),
    };
    let picked = rt.index(x, &take)?;
    let terms = rt.binary(
        BinaryOp::Mul,
        Operand::strong(&picked),
        Operand::strong(&scale),
    )?;
    drop(picked);
    spread(rt, shape, &place, &terms)
}

fn rows_of(rt: &mut Runtime, s: &SparseTensor) -> R<(Arc<Tensor>, Arc<Tensor>)> {
    Ok((
        rt.index(&s.indices, &[Index::At(0)])?,
        rt.index(&s.indices, &[Index::At(1)])?,
    ))
}

/// `s @ d`: a sparse matrix times a dense one (dense result).
pub fn mm(
    rt: &mut Runtime,
    mode: Mode,
    product: Product,
    s: &SparseTensor,
    d: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    sparse_product(rt, mode, product, (s, d), true)
}

/// `d @ s`: a dense matrix times a sparse one (dense result).
pub fn dense_mm(rt: &mut Runtime, mode: Mode, d: &Arc<Tensor>, s: &SparseTensor) -> R<Arc<Tensor>> {
    sparse_product(rt, mode, Product::Mm, (s, d), false)
}

/// `s @ d` (`sparse_left`) or `d @ s`, one node for the dense operand.
fn sparse_product(
    rt: &mut Runtime,
    mode: Mode,
    product: Product,
    (s, d): (&SparseTensor, &Arc<Tensor>),
    sparse_left: bool,
) -> R<Arc<Tensor>> {
    check_product(s, d, sparse_left)?;
    let (rows, cols) = rows_of(rt, s)?;
    let out = match sparse_left {
        true => product_along(
            rt,
            d,
            (&cols, &rows),
            &s.values,
            &[s.shape[0], d.shape()[1]],
            0,
        )?,
        false => product_along(
            rt,
            d,
            (&rows, &cols),
            &s.values,
            &[d.shape()[0], s.shape[1]],
            1,
        )?,
    };
    let backward = Backward::SparseMm {
        indices: Saved::new(&s.indices),
        values: Saved::new(&s.values),
        sparse_left,
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        product.node(),
        backward,
        &[d],
    ))
}

/// The dense operand's gradient of `s @ d` (`s.t() @ g`) or of `d @ s`
/// (`g @ s.t()`), `shape` the dense operand's.
pub fn mm_backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (indices, values): (&Arc<Tensor>, &Arc<Tensor>),
    sparse_left: bool,
    shape: &[usize],
) -> R<Arc<Tensor>> {
    let rows = rt.index(indices, &[Index::At(0)])?;
    let cols = rt.index(indices, &[Index::At(1)])?;
    let values = cast_to(rt, values, g.dtype())?;
    match sparse_left {
        true => product_along(rt, g, (&rows, &cols), &values, shape, 0),
        false => product_along(rt, g, (&cols, &rows), &values, shape, 1),
    }
}
