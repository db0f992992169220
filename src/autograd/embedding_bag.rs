//! `F.embedding_bag` / `nn.EmbeddingBag` in modes `sum` and `mean`: the
//! rows `input` picks from `weight`, summed (or averaged) per bag, bags
//! starting at `offsets` (or a 2-d input's rows), as PyTorch's CPU kernel
//! computes them (a bag's rows added in order; a mean the sum times the
//! reciprocal of the bag's size; an empty bag zeros), one node
//! `EmbeddingBagBackward0` whose gradient gives each picked row its bag's
//! gradient (times the reciprocal for a mean), added into zeros of the
//! weight's shape. Everything stays on the weight's device.

use std::sync::Arc;

use super::node::{Backward, Saved};
use super::ops::{add_into_zeros, bin, full};
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::along::AlongOp;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::shape::fmt_shape;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// The rows each bag takes: the flat indices, each one's bag, how many
/// bags, and each bag's size (f64).
struct Bags {
    indices: Arc<Tensor>,
    bag_of: Arc<Tensor>,
    count: usize,
    sizes: Arc<Tensor>,
}

/// `embedding_bag(input, weight, offsets, mode, include_last_offset)`.
pub fn embedding_bag(
    rt: &mut Runtime,
    mode: Mode,
    (input, offsets): (&Arc<Tensor>, Option<&Arc<Tensor>>),
    weight: &Arc<Tensor>,
    (mean, include_last_offset): (bool, bool),
) -> R<Arc<Tensor>> {
    if weight.ndim() != 2 {
        return Err(Error::shape(format!(
            "embedding_bag(): weight has to be a 2D Tensor, but got Tensor of dimension {}",
            weight.ndim()
        )));
    }
    let bags = bags(rt, input, offsets, include_last_offset)?;
    let dim = weight.shape()[1];
    let rows = rt.index(weight, &[Index::Tensor(Arc::clone(&bags.indices))])?;
    let rows = match rows.dtype() {
        DType::F16 | DType::BF16 => rt.cast(&rows, DType::F32)?,
        _ => rows,
    };
    let sums = full(rt, &[bags.count, dim], rows.dtype(), weight.device(), 0)?;
    rt.index_put_add(&sums, &[Index::Tensor(Arc::clone(&bags.bag_of))], &rows)?;
    drop(rows);
    let scale = match mean {
        true => Some(reciprocals(rt, &bags.sizes, sums.dtype())?),
        false => None,
    };
    let out = match &scale {
        Some(s) => {
            let s = crate::runtime::op::view::unsqueeze(s, 1)?;
            bin(rt, BinaryOp::Mul, &sums, &s)?
        }
        None => sums,
    };
    let out = match out.dtype() == weight.dtype() {
        true => out,
        false => rt.cast(&out, weight.dtype())?,
    };
    let backward = Backward::EmbeddingBag {
        indices: Saved::new(&bags.indices),
        bag_of: Saved::new(&bags.bag_of),
        scale: scale.as_ref().map(|s| Saved::new(s)),
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "EmbeddingBagBackward0",
        backward,
        &[weight],
    ))
}

/// `1 / size` for each bag (0 for an empty bag), in `dtype`.
fn reciprocals(rt: &mut Runtime, sizes: &Tensor, dtype: DType) -> R<Arc<Tensor>> {
    let sizes = rt.cast(sizes, dtype)?;
    let r = rt.unary(UnaryOp::Reciprocal, &sizes)?;
    let zero = Tensor::scalar(0.0f64);
    let empty = rt.binary(BinaryOp::Eq, Operand::strong(&sizes), Operand::weak(&zero))?;
    rt.ternary(
        TernaryOp::Where,
        Operand::strong(&empty),
        Operand::weak(&zero),
        Operand::strong(&r),
    )
}

/// The bags of `input` (1-d with `offsets`, or 2-d: a bag a row).
fn bags(
    rt: &mut Runtime,
    input: &Arc<Tensor>,
    offsets: Option<&Arc<Tensor>>,
    include_last_offset: bool,
) -> R<Bags> {
    if !matches!(input.dtype(), DType::I64 | DType::I32) {
        return Err(Error::dtype(
            format!(
                "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got {} instead (while checking arguments for embedding_bag)",
                input.dtype().torch_type(input.device().is_cuda())
            ),
            Some("indices are integers: `tensor([1, 4])`, or `x.long()`".into()),
        ));
    }
    let device = input.device();
    let (indices, starts): (Arc<Tensor>, Arc<Tensor>) = match (input.ndim(), offsets) {
        (2, Some(_)) => {
            return Err(Error::value(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences.",
            ))
        }
        (2, None) => {
            let (b, n) = (input.shape()[0], input.shape()[1]);
            let starts = rt.arange(0.0, (b * n) as f64, n.max(1) as f64, DType::I64, device)?;
            let starts = match n {
                0 => full(rt, &[b], DType::I64, device, 0)?,
                _ => starts,
            };
            (rt.reshape(input, &[-1])?, starts)
        }
        (1, None) => return Err(Error::value("offsets has to be a 1D Tensor but got None")),
        (1, Some(o)) if o.ndim() != 1 => {
            return Err(Error::value(format!(
                "offsets has to be a 1D Tensor, but got Tensor of dimension {}",
                o.ndim()
            )))
        }
        (1, Some(o)) => (Arc::clone(input), Arc::clone(o)),
        (n, _) => {
            return Err(Error::value(format!(
                "input has to be 1D or 2D Tensor, but got Tensor of dimension {n}"
            )))
        }
    };
    // PyTorch's CPU kernel reads the first and last offsets (its CUDA
    // kernel does not look).
    if offsets.is_some() && starts.device() == crate::runtime::Device::Cpu && starts.numel() > 0 {
        let all = starts.to_vec::<f64>();
        let (first, last) = (all[0] as i64, all[all.len() - 1] as i64);
        if first != 0 {
            return Err(Error::runtime(format!(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got {first}"
            )));
        }
        if last > indices.numel() as i64 {
            return Err(Error::runtime(format!(
                "offsets[-1] can not be greater than input's length {} but got offsets[-1] of {last}",
                indices.numel()
            )));
        }
    }
    let starts = match include_last_offset {
        true if starts.numel() == 0 => {
            return Err(Error::value(
                "include_last_offset: number of offsets should be at least 1",
            ))
        }
        true => {
            let n = starts.numel() as i64 - 1;
            Arc::new(crate::runtime::op::index::select(
                &starts,
                &[Index::Slice(None, Some(n), None)],
            )?)
        }
        false => starts,
    };
    let count = starts.numel();
    let n = indices.numel();
    // Each element's bag: a mark at each bag's start (past the first), summed along.
    let marks = full(rt, &[n], DType::F64, device, 0)?;
    if count > 1 {
        let later =
            crate::runtime::op::index::select(&starts, &[Index::Slice(Some(1), None, None)])?;
        let later = rt.cast(&later, DType::I64)?;
        let inside = rt.binary(
            BinaryOp::Lt,
            Operand::strong(&later),
            Operand::weak(&Tensor::scalar(n as i64)),
        )?;
        let later = rt.index(&later, &[Index::Tensor(inside)])?;
        let ones = full(rt, later.shape(), DType::F64, device, 1)?;
        rt.index_put_add(&marks, &[Index::Tensor(later)], &ones)?;
    }
    let bag_of = rt.along(AlongOp::Cumsum, 0.0, &marks, Some(0), false)?;
    let bag_of = rt.cast(&bag_of, DType::I64)?;
    let sizes = full(rt, &[count], DType::F64, device, 0)?;
    if n > 0 && count > 0 {
        let ones = full(rt, &[n], DType::F64, device, 1)?;
        rt.index_put_add(&sizes, &[Index::Tensor(Arc::clone(&bag_of))], &ones)?;
    }
    if count == 0 && n > 0 {
        return Err(Error::shape(format!(
            "embedding_bag(): {} indices in no bag (offsets {})",
            n,
            fmt_shape(starts.shape())
        )));
    }
    Ok(Bags {
        indices: rt.cast(&indices, DType::I64)?,
        bag_of,
        count,
        sizes,
    })
}

/// `EmbeddingBagBackward0`: each picked row gets its bag's gradient (times
/// the bag's reciprocal size for a mean), added into zeros of the weight.
pub fn backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (indices, bag_of, scale): (&Tensor, &Tensor, Option<&Tensor>),
    weight_shape: &[usize],
) -> R<Arc<Tensor>> {
    let g = match scale {
        Some(s) => {
            let s = crate::runtime::op::view::unsqueeze(s, 1)?;
            let s = rt.cast(&s, g.dtype())?;
            bin(rt, BinaryOp::Mul, g, &s)?
        }
        None => Arc::clone(g),
    };
    let rows = rt.index(&g, &[Index::Tensor(Arc::new(bag_of.alias()))])?;
    let items = [Index::Tensor(Arc::new(indices.alias()))];
    add_into_zeros(rt, weight_shape, g.device(), &items, &rows)
}
