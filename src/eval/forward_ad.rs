//! The natives behind `stdlib/torch_autograd_forward_ad.py`
//! (`torch.autograd.forward_ad`): entering and leaving the dual level,
//! `make_dual` and `unpack_dual` (`autograd/dual.rs`).

use super::args::ArgVal;
use super::{Interp, Value};
use crate::autograd::{dual, forward_ad};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

/// The natives this module answers.
pub const NAMES: [&str; 4] = [
    "_cudash.enter_dual_level",
    "_cudash.exit_dual_level",
    "_cudash.make_dual",
    "_cudash.unpack_dual",
];

/// Whether `v` is, or holds at its top level, a tensor carrying a tangent.
pub(super) fn is_dual(v: &Value) -> bool {
    let dual = |v: &Value| matches!(v, Value::Tensor(t) if forward_ad::tangent(t).is_some());
    dual(v) || v.items().is_some_and(|items| items.iter().any(dual))
}

/// The namespaces of PyTorch's ops, whose functions [`check_carried`]
/// checks (not `torch.func`'s or `torch.autograd`'s transforms).
pub(super) fn ops_namespace(path: &str) -> bool {
    matches!(
        path,
        "torch" | "torch.nn.functional" | "torch.linalg" | "torch.special"
    )
}

/// The natives that give a float tensor without a tangent on purpose: the
/// ones that detach, the factories `*_like` and `new_*`, unpacking, and
/// reverse-mode gradients.
const DROP_TANGENTS: &[&str] = &[
    "detach",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "rand_like",
    "randn_like",
    "randint_like",
    "new_zeros",
    "new_ones",
    "new_empty",
    "new_full",
    "new_tensor",
    "_cudash.unpack_dual",
    "grad",
    "torch.autograd.grad",
];

/// `r`, the result of the native op `name` given a dual tensor; refused
/// when a float tensor in it has no tangent (an op cudash has no forward
/// formula for, that did not say so itself), rather than lose the tangent.
pub(super) fn check_carried(
    name: &str,
    r: Result<Value, Diagnostic>,
    span: Span,
) -> Result<Value, Diagnostic> {
    let v = r?;
    let last = name.rsplit('.').next().unwrap_or(name);
    if DROP_TANGENTS.contains(&name) || DROP_TANGENTS.contains(&last) {
        return Ok(v);
    }
    let lost = |x: &Value| matches!(x, Value::Tensor(t) if t.dtype().is_float() && forward_ad::tangent(t).is_none());
    let dropped = lost(&v) || v.items().is_some_and(|items| items.iter().any(lost));
    match dropped {
        true => Err(forward_ad::unsupported_op(Some(name)).at(span)),
        false => Ok(v),
    }
}

impl Interp {
    pub(super) fn call_forward_ad(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        self.forward_ad(name, &args).map_err(|e| e.at(span))
    }

    fn forward_ad(&mut self, name: &str, args: &[ArgVal]) -> Result<Value, Error> {
        let tensor = |i: usize| match args.get(i).map(|a| &a.value) {
            Some(Value::Tensor(t)) => Ok(t),
            other => Err(Error::wrong_type(
                format!(
                    "{}() argument {}",
                    name.trim_start_matches("_cudash."),
                    i + 1
                ),
                "a tensor",
                other.map_or("nothing", Value::type_name),
            )),
        };
        match name {
            "_cudash.enter_dual_level" => Ok(Value::Int(forward_ad::enter_level()? as i64)),
            "_cudash.exit_dual_level" => {
                let level = match args.first().map(|a| &a.value) {
                    Some(Value::Int(l)) => Some(*l as u64),
                    _ => None,
                };
                forward_ad::exit_level(level)?;
                Ok(Value::None)
            }
            "_cudash.make_dual" => {
                let (primal, tangent) = (tensor(0)?, tensor(1)?);
                let t = dual::make_dual(&mut self.rt, self.grad, primal, tangent)?;
                Ok(Value::Tensor(t))
            }
            _ => {
                let (primal, tangent) = dual::unpack_dual(&self.rt, self.grad, tensor(0)?);
                let tangent = tangent.map_or(Value::None, Value::Tensor);
                Ok(Value::List(std::sync::Arc::new(vec![
                    Value::Tensor(primal),
                    tangent,
                ])))
            }
        }
    }
}
