//! `torch.diag`, `torch.diagonal`, `torch.diag_embed` and `torch.trace`,
//! each also a tensor method (`autograd::diagonals` computes and records
//! them).

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::diagonals;
use crate::error::Diagnostic;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// `torch.diag(input, ...)` and the others as functions.
pub(super) fn function(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let t = b.tensor("input")?;
    of(me, name, &t, b)
}

/// `x.diag(...)` and the others as methods of `t`.
pub(crate) fn of(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let int = |k: &str, default: i64| b.int(k).map(|v| v.unwrap_or(default));
    let r = match name {
        "diag" => diagonals::diag(&mut me.rt, me.grad, t, int("diagonal", 0)?),
        "diagonal" => {
            let dims = (int("offset", 0)?, int("dim1", 0)?, int("dim2", 1)?);
            diagonals::diagonal(&me.rt, me.grad, t, dims)
        }
        "diag_embed" => {
            let dims = (int("offset", 0)?, int("dim1", -2)?, int("dim2", -1)?);
            diagonals::diag_embed(&mut me.rt, me.grad, t, dims)
        }
        _ => diagonals::trace(&mut me.rt, me.grad, t),
    };
    b.result(r)
}
