//! `fwAD.make_dual(primal, tangent)` and `fwAD.unpack_dual(t)`: a dual
//! tensor is a view of its primal carrying a tangent (`forward_ad.rs`);
//! unpacking gives a view of it without the tangent, and the tangent.

use std::sync::Arc;

use super::forward_ad;
use super::meta::requires_grad;
use super::node::Backward;
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `make_dual(primal, tangent)`: a view of `primal` (`ViewBackward0` when
/// it requires grad) carrying `tangent`, itself when it is laid out as the
/// primal is, else a copy laid out so (PyTorch's `set_fw_grad`).
pub fn make_dual(
    rt: &mut Runtime,
    mode: Mode,
    primal: &Arc<Tensor>,
    tangent: &Arc<Tensor>,
) -> R<Arc<Tensor>> {
    if forward_ad::level().is_none() {
        return Err(Error::runtime(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to \
             enter_dual_level() first.",
        ));
    }
    if tangent.shape() != primal.shape() {
        return Err(Error::runtime(format!(
            "Trying to set a forward gradient that has a different size than that of the \
             original Tensor, this is not supported. Tensor is of size {} while the given \
             forward gradient is of size {}.",
            fmt_shape(primal.shape()),
            fmt_shape(tangent.shape())
        )));
    }
    if tangent.device() != primal.device() {
        return Err(Error::runtime(format!(
            "Expected tangent to be on the same device as the primal ({}), but got {}",
            primal.device(),
            tangent.device()
        )));
    }
    let tangent = match tangent.strides() == primal.strides() && tangent.dtype() == primal.dtype() {
        true => Arc::clone(tangent),
        false => {
            let cast = rt.cast(tangent, primal.dtype())?;
            rt.copy_strided(&cast, primal.strides().to_vec())?
        }
    };
    let view = aliased(rt, mode, primal, "ViewBackward0");
    Ok(forward_ad::give(view, tangent))
}

/// `unpack_dual(t)`: its primal (a view of `t` without the tangent, that
/// autograd follows back to `t`) and its tangent; `t` itself and None for
/// a tensor without one.
pub fn unpack_dual(
    rt: &Runtime,
    mode: Mode,
    t: &Arc<Tensor>,
) -> (Arc<Tensor>, Option<Arc<Tensor>>) {
    match forward_ad::tangent(t) {
        Some(tangent) => (aliased(rt, mode, t, "AliasBackward0"), Some(tangent)),
        None => (Arc::clone(t), None),
    }
}

/// A view of all of `x`, recorded as `name` when `x` requires grad, with
/// no tangent.
fn aliased(rt: &Runtime, mode: Mode, x: &Arc<Tensor>, name: &'static str) -> Arc<Tensor> {
    let view = Arc::new(x.alias());
    forward_ad::suspended(|| match mode.enabled && requires_grad(x) {
        true => record::attach_node(rt, mode, view, name, Backward::Identity, &[x]),
        false => record::plain_view(mode, x, view),
    })
}
