//! `masked_fill(input, mask, value)` and `x.masked_fill_(mask, value)`:
//! a value where a bool mask holds (attention's causal mask), recorded as
//! PyTorch's `MaskedFillBackward0` / `MaskedFillBackward1`; in place as
//! `x[mask] = value` is (`index_put` through the mask).

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::{inplace, record};
use crate::error::{Diagnostic, Error};
use crate::runtime::op::binary::Operand;
use crate::runtime::op::index::Index;
use crate::runtime::shape::broadcast_shapes;
use crate::runtime::{DType, Tensor};

/// `torch.masked_fill(input, mask, value)`.
pub(super) fn masked_fill(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let t = b.tensor("input")?;
    me.masked_fill_of(&t, b)
}

impl Interp {
    /// `t.masked_fill(mask, value)`: mask and t broadcast together (as
    /// PyTorch's `expand_outplace`).
    pub(crate) fn masked_fill_of(
        &mut self,
        t: &Arc<Tensor>,
        b: &Bound,
    ) -> Result<Value, Diagnostic> {
        let (mask, value, weak) = masked_fill_args(t, b)?;
        let value = Operand {
            tensor: &value,
            weak,
        };
        b.result(record::masked_fill(
            &mut self.rt,
            self.grad,
            t,
            &mask,
            value,
        ))
    }

    /// `t.masked_fill_(mask, value)`: in place, the mask broadcast to t's
    /// own shape.
    pub(crate) fn masked_fill_in_place(
        &mut self,
        t: &Arc<Tensor>,
        b: &Bound,
    ) -> Result<Value, Diagnostic> {
        let (mask, value, weak) = masked_fill_args(t, b)?;
        let shape = broadcast_shapes(mask.shape(), t.shape());
        if shape.as_deref() != Some(t.shape()) {
            return Err(Error::Shape {
                message: format!(
                    "output with shape {} doesn't match the broadcast shape {}",
                    py_shape(t.shape()),
                    shape.map_or_else(|| "?".into(), |s| py_shape(&s)),
                ),
                help: Some("in place, the mask must broadcast to the tensor's own shape".into()),
            }
            .at(b.span_of("mask")));
        }
        let idx = [Index::Tensor(Arc::new(mask.expand(t.shape())))];
        let from = (!weak).then_some(&*value);
        let write = |rt: &mut crate::runtime::dispatch::Runtime| rt.index_put(t, &idx, &value);
        inplace::index_put(&mut self.rt, self.grad, t, &idx, from, write)
            .map_err(|e| e.at(b.span))?;
        Ok(Value::Tensor(Arc::clone(t)))
    }
}

/// `masked_fill`'s mask (bool) and value (a number, or a 0-dim tensor),
/// the value in x's dtype and whether it is a number, checked as
/// PyTorch checks them.
fn masked_fill_args(t: &Tensor, b: &Bound) -> Result<(Arc<Tensor>, Arc<Tensor>, bool), Diagnostic> {
    let mask = b.tensor("mask")?;
    if mask.dtype() != DType::Bool {
        return Err(Error::dtype(
            format!(
                "masked_fill_ only supports boolean masks, but got mask with dtype {}",
                mask.dtype().cpp_name()
            ),
            Some("compare to make one: `x.masked_fill(m == 0, value)`, or `m.bool()`".into()),
        )
        .at(b.span_of("mask")));
    }
    let (v, span) = b
        .get("value")
        .ok_or_else(|| Error::value("masked_fill() needs `value`").at(b.span))?;
    let (value, weak) = super::super::args::operand_value(v).ok_or_else(|| {
        Error::wrong_type(
            "the value of masked_fill()",
            "a number or a 0-dim tensor",
            v.type_name(),
        )
        .at(*span)
    })?;
    if value.ndim() != 0 {
        return Err(Error::Shape {
            message: format!(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                value.ndim()
            ),
            help: Some("give a number, or one element: `v.item()`, `v[0]`".into()),
        }
        .at(*span));
    }
    if value.dtype() == t.dtype() {
        return Ok((mask, value, weak));
    }
    // The value in x's dtype, as PyTorch converts it (a float into an int
    // tensor truncated; one it cannot hold refused).
    if t.dtype().is_int() && value.dtype() != DType::Bool {
        let x = value.cast(DType::F64).to_vec::<f64>()[0];
        number_fits(t.dtype(), x, value.dtype().is_int(), false).map_err(|e| e.at(*span))?;
    }
    // A value of another dtype is a number to the op (it needs no grad of
    // its own then: PyTorch converts it).
    let converted = Arc::new(value.cast(t.dtype()));
    Ok((
        mask,
        converted,
        weak || !crate::autograd::meta::requires_grad(&value),
    ))
}

/// A number written into an integer tensor (`x[i] = v`, `masked_fill`),
/// truncated as PyTorch converts it; one the dtype cannot hold is
/// PyTorch's overflow error, not a wrapped value. Its message names the
/// dtype as C++ does (`uint8_t`) for a fill and as Python does (`uint8`)
/// for `torch.tensor`'s data (`as_data`). An `integer` into uint8 may be
/// as low as -255, wrapping (`fill_(-1)` gives 255), as c10's `overflows`
/// lets negative integers into unsigned types.
pub(crate) fn number_fits(dtype: DType, x: f64, integer: bool, as_data: bool) -> Result<(), Error> {
    let Some((lo, hi)) = dtype.int_bounds() else {
        return Ok(());
    };
    let lo = match (integer, dtype.is_signed()) {
        (true, false) => -hi,
        _ => lo,
    };
    if (lo as f64..=hi as f64).contains(&x.trunc()) {
        return Ok(());
    }
    Err(Error::Module {
        class: "RuntimeError",
        message: format!(
            "value cannot be converted to type {} without overflow",
            match as_data {
                false => dtype.checked_name(),
                true => dtype.pytorch_name().trim_start_matches("torch."),
            }
        ),
        help: Some(format!(
            "a {dtype} tensor holds {lo}..={hi}: write a number in that range, or convert the tensor first"
        )),
    })
}

/// A shape as PyTorch's errors write it: `[2, 3]`.
fn py_shape(shape: &[usize]) -> String {
    format!("{shape:?}")
}
