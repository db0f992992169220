//! The ops along one dimension that are not plain folds (scans, softmax,
//! var, std, norm): their names, parameters, dtypes and checks.

use crate::error::Error;
use crate::runtime::shape::{norm_dim, reduced_shape, Lines};
use crate::runtime::DType;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlongOp {
    Cumsum,
    Cumprod,
    Softmax,
    LogSoftmax,
    Var,
    Std,
    Norm,
}

impl AlongOp {
    pub const ALL: [AlongOp; 7] = [
        AlongOp::Cumsum,
        AlongOp::Cumprod,
        AlongOp::Softmax,
        AlongOp::LogSoftmax,
        AlongOp::Var,
        AlongOp::Std,
        AlongOp::Norm,
    ];

    /// PyTorch's name, also the kernel's.
    pub fn name(self) -> &'static str {
        match self {
            AlongOp::Cumsum => "cumsum",
            AlongOp::Cumprod => "cumprod",
            AlongOp::Softmax => "softmax",
            AlongOp::LogSoftmax => "log_softmax",
            AlongOp::Var => "var",
            AlongOp::Std => "std",
            AlongOp::Norm => "norm",
        }
    }

    /// var, std and norm: one value per line. The rest keep the shape.
    pub fn reduces(self) -> bool {
        matches!(self, AlongOp::Var | AlongOp::Std | AlongOp::Norm)
    }

    /// A scan: an output per element, each from the ones before it.
    pub fn scans(self) -> bool {
        matches!(self, AlongOp::Cumsum | AlongOp::Cumprod)
    }

    /// The dtypes it takes: scans take any, the rest floats only.
    pub fn takes(self, dt: DType) -> bool {
        self.scans() || dt.is_float()
    }

    /// The dtype it gives on `dt`: integer and bool scans give i64, as in PyTorch.
    pub fn out_dtype(self, dt: DType) -> DType {
        if self.scans() && !dt.is_float() {
            DType::I64
        } else {
            dt
        }
    }
}

/// The op's one number: var and std's `correction` (1 by default: Bessel's),
/// norm's order `p` (2 by default). Unused by the rest.
pub type Param = f64;

/// PyTorch's refusals: a dtype the op does not take; an inf norm of nothing.
pub fn check(op: AlongOp, dt: DType, p: Param, len: usize) -> Result<(), Error> {
    if !op.takes(dt) {
        let what = match op {
            AlongOp::Var | AlongOp::Std => "var() and std() need",
            _ => &format!("{}() needs", op.name()),
        };
        return Err(Error::dtype(
            format!("{what} a floating point tensor, but this one is {dt}"),
            Some(format!("convert first: `x.to(f32).{}(...)`", op.name())),
        ));
    }
    if op == AlongOp::Norm && len == 0 && p.is_infinite() {
        return Err(Error::shape(format!(
            "norm(p={}) of no elements has no value: there is no largest or smallest element",
            if p > 0.0 { "inf" } else { "-inf" }
        )));
    }
    Ok(())
}

/// An op along one dimension, checked and shaped once (`Along::plan`).
#[derive(Debug, Clone, PartialEq)]
pub struct Along {
    pub op: AlongOp,
    pub p: Param,
    /// The dimension, normalised; None: every element (var, std, norm).
    pub dim: Option<usize>,
    pub lines: Lines,
    /// The result's shape: the input's, or reduced (var, std, norm).
    pub shape: Vec<usize>,
}

impl Along {
    pub fn plan(
        (op, p): (AlongOp, Param),
        (shape, dt): (&[usize], DType),
        dim: Option<i64>,
        keepdim: bool,
    ) -> Result<Along, Error> {
        let dim = dim.map(|d| norm_dim(d, shape.len())).transpose()?;
        let lines = Lines::of(shape, dim);
        check(op, dt, p, lines.len)?;
        let shape = match op.reduces() {
            true => reduced_shape(shape, dim, keepdim),
            false => shape.to_vec(),
        };
        Ok(Along {
            op,
            p,
            dim,
            lines,
            shape,
        })
    }
}
