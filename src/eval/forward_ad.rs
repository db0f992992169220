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

/// An op linear in some of its arguments, whose forward formula is
/// PyTorch's `auto_linear`: the same op of those arguments' tangents
/// (zeros for one without), the other arguments as given, but the numbers
/// it writes (`pad`'s `value`), which become 0. Arguments are named by
/// their place in the function's form (`torch.flip(input, dims)`: the
/// receiver of `x.flip(dims)` is place 0) and their keyword.
pub(super) struct Linear {
    name: &'static str,
    inputs: &'static [(usize, &'static str)],
    zeroed: &'static [(usize, &'static str)],
}

const fn linear(
    name: &'static str,
    inputs: &'static [(usize, &'static str)],
    zeroed: &'static [(usize, &'static str)],
) -> Linear {
    Linear {
        name,
        inputs,
        zeroed,
    }
}

const INPUT: &[(usize, &str)] = &[(0, "input")];

/// The ops of the evaluator computed as [`Linear`] (the record layer's ops,
/// `pad`, `interpolate` and `pixel_shuffle` among them, carry their own
/// tangents).
const LINEAR: &[Linear] = &[
    linear("flip", INPUT, &[]),
    linear("fliplr", INPUT, &[]),
    linear("flipud", INPUT, &[]),
    linear("roll", INPUT, &[]),
    linear("rot90", INPUT, &[]),
    linear("tril", INPUT, &[]),
    linear("triu", INPUT, &[]),
    linear("diag", INPUT, &[]),
    linear("diag_embed", INPUT, &[]),
    linear("trace", INPUT, &[]),
    linear("repeat_interleave", INPUT, &[]),
    linear("tile", INPUT, &[]),
    linear("index_copy", &[(0, "input"), (3, "source")], &[]),
    linear("index_fill", INPUT, &[(3, "value")]),
    linear("masked_scatter", &[(0, "input"), (2, "source")], &[]),
    linear("diff", &[(0, "input"), (3, "prepend"), (4, "append")], &[]),
];

impl Linear {
    /// Whether place 0 (a method's receiver) is one of its inputs.
    pub(super) fn receiver_is_input(&self) -> bool {
        self.inputs.iter().any(|&(k, _)| k == 0)
    }
}

/// The [`Linear`] op named `name` (`torch.flip`, a tensor's `flip`).
pub(super) fn linear_op(name: &str) -> Option<&'static Linear> {
    let last = name.rsplit('.').next().unwrap_or(name);
    LINEAR.iter().find(|l| l.name == last)
}

impl Interp {
    /// The arguments of a [`Linear`] op for its tangent: each input a
    /// tensor's tangent (zeros without one), each number it writes 0.
    /// `shift`: 1 when the receiver is place 0.
    pub(super) fn tangent_args(
        &mut self,
        op: &Linear,
        args: &[ArgVal],
        shift: usize,
    ) -> Result<Vec<ArgVal>, Error> {
        let mut out = Vec::with_capacity(args.len());
        let mut place = shift;
        for a in args {
            let at = |table: &[(usize, &str)]| {
                table.iter().any(|&(k, key)| match &a.keyword {
                    Some(n) => n.name == key,
                    None => k == place,
                })
            };
            let mut a2 = a.clone();
            if at(op.inputs) {
                if let Value::Tensor(t) = &a.value {
                    a2.value = Value::Tensor(self.tangent_or_zeros(t)?);
                }
            }
            if at(op.zeroed) {
                a2.value = match &a.value {
                    Value::Int(_) => Value::Int(0),
                    Value::Float(_) => Value::float(0.0),
                    Value::Tensor(t) if t.numel() == 1 => Value::float(0.0),
                    other => other.clone(),
                };
            }
            if a.keyword.is_none() {
                place += 1;
            }
            out.push(a2);
        }
        Ok(out)
    }

    /// `t`'s tangent, or zeros like it (a float tensor without one).
    pub(super) fn tangent_or_zeros(
        &mut self,
        t: &std::sync::Arc<crate::runtime::Tensor>,
    ) -> Result<std::sync::Arc<crate::runtime::Tensor>, Error> {
        match forward_ad::tangent(t) {
            Some(tan) => Ok(tan),
            None if t.dtype().is_float() => crate::autograd::ops::full_like(&mut self.rt, t, 0),
            None => Ok(std::sync::Arc::clone(t)),
        }
    }

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
