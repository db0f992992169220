//! `x.unsqueeze_(0)`, `squeeze_`, `t_`, `transpose_`, `swapdims_`: a
//! tensor's shape changed in place, as PyTorch's in-place view ops change
//! the tensor object itself (`y = x.unsqueeze_(0)` makes `y is x`, and
//! every name for `x` sees the new shape; the version counter goes up by
//! one).
//!
//! A cudash tensor's shape is fixed when it is made, so the op makes the
//! view (the same memory) and gives it every name that held the tensor:
//! the module's variables, each running function's locals and the cells
//! its closures share. That is PyTorch's result only when nothing else
//! holds the tensor (a list, an object's attribute, a graph that saved it),
//! and so the reference count must show exactly the names found; else the
//! op is refused with an error that says who still would see the old
//! shape, never done for some holders and not others.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::Tensor;

/// References to the receiver the call itself holds while the method runs
/// (the receiver's value, evaluated). Were a call to hold more, the count
/// would show a holder that is not there and the op be refused: never a
/// holder missed.
const HELD_BY_THE_CALL: usize = 1;

type Out = Result<Value, Diagnostic>;

pub(super) fn view_in_place(
    me: &mut Interp,
    name: &'static str,
    t: &Arc<Tensor>,
    b: &Bound,
) -> Out {
    if crate::autograd::meta::requires_grad(t) {
        let message = match crate::autograd::meta::is_leaf(t) {
            true => "a leaf Variable that requires grad is being used in an in-place operation.",
            false => {
                "cudash changes a tensor's shape in place only outside autograd's graph \
                      (this tensor has a grad_fn)"
            }
        };
        return Err(Error::Spelling {
            message: message.into(),
            label: "an in-place change of shape".into(),
            help: format!(
                "take the view under the same name: `x = x.{}(...)`",
                name.trim_end_matches('_')
            ),
            class: "RuntimeError",
        }
        .at(b.span));
    }
    let viewed = match name {
        "unsqueeze_" => super::shape::unsqueeze(me, name, t, b)?,
        "squeeze_" => super::shape::squeeze(me, name, t, b)?,
        "t_" => super::tensor::t(me, name, t, b)?,
        "transpose_" | "swapdims_" => super::tensor::transpose(me, name, t, b)?,
        _ => return Err(Error::value(format!("internal error: no `{name}`")).at(b.span)),
    };
    let Value::Tensor(new) = viewed else {
        return Ok(viewed);
    };
    let view = name.trim_end_matches('_');
    if let Err(others) = me.rebind_tensor(t, &new) {
        return Err(Error::Spelling {
            message: format!(
                "this tensor is held by {others} more than its names (a list, a dict, an \
                 object's attribute, a saved tensor): cudash changes a tensor's shape in place \
                 by giving each of its names the new view, and could not reach {}",
                if others == 1 { "that one" } else { "those" }
            ),
            label: "an in-place change of shape".into(),
            help: format!("take the view under a name where it is needed: `x = x.{view}(...)`"),
            class: "RuntimeError",
        }
        .at(b.span));
    }
    // An inference tensor's shape changed, then refused, as PyTorch's.
    crate::runtime::inference::check_bump(t).map_err(|e| e.at(b.span))?;
    t.bump_version();
    Ok(Value::Tensor(new))
}

impl Interp {
    /// Every name that holds `old` made to hold `new`, when names are all
    /// that hold it; else, changing nothing, how many other holders it has.
    fn rebind_tensor(&mut self, old: &Arc<Tensor>, new: &Arc<Tensor>) -> Result<(), usize> {
        let holds = |v: &Value| matches!(v, Value::Tensor(t) if Arc::ptr_eq(t, old));
        let mut names = self.vars.values().filter(|v| holds(v)).count();
        let mut cells: Vec<crate::eval::value::Cell> = Vec::new();
        for frame in &self.frames {
            names += frame.slots.iter().flatten().filter(|v| holds(v)).count();
            for c in &frame.cells {
                if !cells.iter().any(|k| Arc::ptr_eq(k, c)) {
                    cells.push(Arc::clone(c));
                }
            }
        }
        names += cells
            .iter()
            .filter(|c| crate::runtime::lock::lock(c).as_ref().is_some_and(holds))
            .count();
        let others = Arc::strong_count(old).saturating_sub(names + HELD_BY_THE_CALL);
        if others > 0 {
            return Err(others);
        }
        let swap = |v: &mut Value| {
            if matches!(v, Value::Tensor(t) if Arc::ptr_eq(t, old)) {
                *v = Value::Tensor(Arc::clone(new));
            }
        };
        let global: Vec<String> = self
            .vars
            .iter()
            .filter(|(_, v)| holds(v))
            .map(|(k, _)| k.clone())
            .collect();
        for k in global {
            self.vars.insert(k, Value::Tensor(Arc::clone(new)));
        }
        for frame in &mut self.frames {
            frame.slots.iter_mut().flatten().for_each(swap);
        }
        for c in &cells {
            if let Some(v) = crate::runtime::lock::lock(c).as_mut() {
                swap(v);
            }
        }
        Ok(())
    }
}
