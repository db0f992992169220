//! `roll(input, shifts, dims)` and `x.roll(...)`: elements moved along
//! dimensions, wrapping around (makemore's `torch.roll(idx, 1, 1)`),
//! recorded as PyTorch's `RollBackward0`.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::Tensor;

/// `torch.roll(input, shifts, dims=None)`.
pub(super) fn roll(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    me.roll_of(&t, b)
}

impl Interp {
    /// `t.roll(shifts, dims)`, recorded as PyTorch's `RollBackward0`.
    pub(crate) fn roll_of(&mut self, t: &Arc<Tensor>, b: &Bound) -> Result<Value, Diagnostic> {
        let ints = |name: &str| -> Result<Vec<i64>, Diagnostic> {
            match b.given(name) {
                None | Some((Value::None, _)) => Ok(Vec::new()),
                Some((Value::Int(k), _)) => Ok(vec![*k]),
                Some(_) => b
                    .list(name)?
                    .into_iter()
                    .map(|(v, span)| match v {
                        Value::Int(k) => Ok(k),
                        other => Err(Error::wrong_type(
                            format!("an item of `{name}` of roll()"),
                            "an int",
                            other.type_name(),
                        )
                        .at(span)),
                    })
                    .collect(),
            }
        };
        let (shifts, dims) = (ints("shifts")?, ints("dims")?);
        let out = self.rt.roll(t, &shifts, &dims).map_err(|e| e.at(b.span))?;
        let backward = crate::autograd::node::Backward::Roll { shifts, dims };
        Ok(Value::Tensor(self.recorded(
            t,
            out,
            "RollBackward0",
            backward,
        )))
    }
}
