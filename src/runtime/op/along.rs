//! The ops along one dimension that are not plain folds (scans, softmax,
//! var, std, norm): their names, parameters, dtypes and checks.

use crate::error::Error;
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
