//! The reductions (sum, mean, max, min, argmax, argmin, prod): their
//! result dtypes and the dtypes and lengths each takes.

use crate::error::Error;
use crate::runtime::shape::{norm_dim, reduced_shape, Lines};
use crate::runtime::DType;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Mean,
    Max,
    Min,
    Argmax,
    Argmin,
    Prod,
}

impl ReduceOp {
    pub const ALL: [ReduceOp; 7] = [
        ReduceOp::Sum,
        ReduceOp::Mean,
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::Argmax,
        ReduceOp::Argmin,
        ReduceOp::Prod,
    ];

    /// The reduction a builtin or method name means; None for any other name.
    pub fn from_name(name: &str) -> Option<ReduceOp> {
        ReduceOp::ALL.into_iter().find(|op| op.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Argmax => "argmax",
            ReduceOp::Argmin => "argmin",
            ReduceOp::Prod => "prod",
        }
    }
}

/// The dtype `op` gives on a tensor of `dt`: argmax and argmin give indices
/// (i64), and integer and bool sums and products are i64, as in PyTorch.
pub fn reduce_dtype(op: ReduceOp, dt: DType) -> DType {
    match op {
        ReduceOp::Argmax | ReduceOp::Argmin => DType::I64,
        ReduceOp::Sum | ReduceOp::Prod if !dt.is_float() => DType::I64,
        _ => dt,
    }
}

/// The dtypes `op` refuses: argmax and argmin of bool, mean of integers.
pub fn check_dtype(op: ReduceOp, dt: DType) -> Result<(), Error> {
    if matches!(op, ReduceOp::Argmax | ReduceOp::Argmin) && dt == DType::Bool {
        return Err(Error::dtype(
            format!("{}() is not implemented for bool", op.name()),
            Some(format!("convert first: `x.to(i64).{}()`", op.name())),
        ));
    }
    if op == ReduceOp::Mean && !dt.is_float() {
        return Err(Error::dtype(
            format!("mean() needs a floating point tensor, but this one is {dt}"),
            Some("convert first: `x.to(f32).mean()`".into()),
        ));
    }
    Ok(())
}

/// The extremes of nothing do not exist.
pub fn check_len(op: ReduceOp, len: usize) -> Result<(), Error> {
    if len == 0
        && matches!(
            op,
            ReduceOp::Max | ReduceOp::Min | ReduceOp::Argmax | ReduceOp::Argmin
        )
    {
        return Err(Error::shape(format!(
            "{}() cannot reduce over a dimension of size 0: there is no largest or smallest element",
            op.name()
        )));
    }
    Ok(())
}

/// A reduction checked and shaped once (`Reduction::plan`): what every
/// backend computes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduction {
    pub op: ReduceOp,
    /// The reduced dimension, normalised; None: every element.
    pub dim: Option<usize>,
    /// The input's lines along `dim`.
    pub lines: Lines,
    /// The result's shape.
    pub shape: Vec<usize>,
}

impl Reduction {
    /// `op` over `dim` of a tensor of `shape` and `dt`, checked as PyTorch
    /// checks it (the dtype, then the dim, then an empty extreme).
    pub fn plan(
        op: ReduceOp,
        (shape, dt): (&[usize], DType),
        dim: Option<i64>,
        keepdim: bool,
    ) -> Result<Reduction, Error> {
        check_dtype(op, dt)?;
        let dim = dim.map(|d| norm_dim(d, shape.len())).transpose()?;
        let lines = Lines::of(shape, dim);
        check_len(op, lines.len)?;
        Ok(Reduction {
            op,
            dim,
            lines,
            shape: reduced_shape(shape, dim, keepdim),
        })
    }
}
