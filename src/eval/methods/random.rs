//! A tensor's elements drawn again in place from the session's generator,
//! as PyTorch's `x.uniform_(a, b)`, `x.bernoulli_(p)`, `x.exponential_(l)`
//! and `x.random_(from, to)` (`x.normal_` lives with the other methods):
//! each recorded, when x is in a graph, as PyTorch's node for it, whose
//! gradient is zeros (the old elements are gone).

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::inplace;
use crate::error::{Diagnostic, Error};
use crate::runtime::cpu_random::fill::Serial;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Distribution, NewTensor};
use crate::runtime::{DType, Tensor};

type Out = Result<Value, Diagnostic>;

/// PyTorch's refusal of a draw of floats into an integer tensor.
pub(crate) fn floats_only(t: &Tensor, kernel: &str) -> Result<(), Error> {
    match t.dtype().is_float() {
        true => Ok(()),
        false => Err(Error::Module {
            class: "NotImplementedError",
            message: format!(
                "\"{kernel}\" not implemented for '{}'",
                t.dtype().scalar_name()
            ),
            help: Some("draw into a floating point tensor, then convert".into()),
        }),
    }
}

/// Uniform numbers in [0, 1) of x's shape and device, to compare with
/// the probabilities `p` of a Bernoulli draw (None: a number, which
/// PyTorch's CPU kernel compares with a double; else a tensor's dtype:
/// double for double, float for the others). On a CUDA device in x's
/// dtype (float for integers).
pub(crate) fn uniform(me: &mut Interp, t: &Tensor, p: Option<DType>) -> Result<Arc<Tensor>, Error> {
    let dtype = match (t.device().is_cuda(), p) {
        (false, None | Some(DType::F64)) => DType::F64,
        (false, Some(_)) => DType::F32,
        (true, _) if t.dtype().is_float() => t.dtype(),
        (true, _) => DType::F32,
    };
    let new = NewTensor {
        shape: t.shape(),
        dtype,
        device: t.device(),
        like: Some(t),
    };
    me.rt.random(new, Distribution::Uniform)
}

/// `x.uniform_(from=0, to=1)` (`UniformBackward0`).
pub(super) fn uniform_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let (lo, hi) = (
        b.float("from")?.unwrap_or(0.0),
        b.float("to")?.unwrap_or(1.0),
    );
    floats_only(t, "check_uniform_bounds").map_err(at)?;
    if lo > hi {
        return Err(at(Error::runtime(format!(
            "uniform_ expects to return a [from, to) range, but found from={lo} > to={hi}"
        ))));
    }
    inplace::overwrite(&mut me.rt, me.grad, t, "UniformBackward0", |rt| {
        rt.uniform_(t, lo, hi)
    })
    .map_err(at)?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.bernoulli_(p=0.5)`: 1 with probability `p` (a number, or a tensor of
/// them broadcast to x), else 0, in x's dtype (`BernoulliBackward2`, or
/// `BernoulliBackward1` for a tensor `p`).
pub(super) fn bernoulli_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let (p, weak, node) = match b.given("p") {
        Some((Value::Tensor(p), _)) => (Arc::clone(p), false, "BernoulliBackward1"),
        _ => {
            let p = b.float("p")?.unwrap_or(0.5);
            if !(0.0..=1.0).contains(&p) {
                return Err(at(Error::runtime(format!(
                    "bernoulli_ expects p to be in [0, 1], but got p={p}"
                ))));
            }
            (Arc::new(Tensor::scalar(p)), true, "BernoulliBackward2")
        }
    };
    let u = uniform(me, t, (!weak).then(|| p.dtype())).map_err(at)?;
    let p = Operand { tensor: &p, weak };
    inplace::overwrite(&mut me.rt, me.grad, t, node, |rt| {
        let hit = rt.binary(BinaryOp::Lt, Operand::strong(&u), p)?;
        rt.assign(t, &hit)
    })
    .map_err(at)?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.exponential_(lambd=1)`: `-log(1 - u) / lambd` (`ExponentialBackward0`).
pub(super) fn exponential_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let lambd = b.float("lambd")?.unwrap_or(1.0);
    floats_only(t, "exponential_cpu").map_err(at)?;
    if lambd <= 0.0 {
        return Err(at(Error::runtime(format!(
            "exponential_ expects lambda > 0.0, but found lambda={lambd}"
        ))));
    }
    let what = Serial::Exponential { lambda: lambd };
    inplace::overwrite(&mut me.rt, me.grad, t, "ExponentialBackward0", |rt| {
        rt.draw_(t, what)
    })
    .map_err(at)?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.random_(from, to)`, `x.random_(to)` (from 0) and `x.random_()`
/// (integers from 0 to the largest x's dtype holds exactly): integers
/// uniform in [from, to), in x's dtype (`RandomBackward0/1/2`).
pub(super) fn random_(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let (first, second) = (b.int("from")?, b.int("to")?);
    // PyTorch's `uniform_int` without bounds: a float from 0 to 2^mantissa
    // inclusive; an integer or bool over its dtype's range (`Full`).
    let float_top = match t.dtype() {
        DType::F16 => Some((1 << 11) + 1),
        DType::BF16 => Some((1 << 8) + 1),
        DType::F32 => Some((1 << 24) + 1),
        DType::F64 => Some((1 << 53) + 1),
        _ => None,
    };
    let (low, high, node) = match (first, second) {
        (Some(f), Some(to)) => (f, to, "RandomBackward0"),
        (Some(to), None) => (0, to, "RandomBackward1"),
        _ => (0, float_top.unwrap_or(i64::MAX), "RandomBackward2"),
    };
    let dist = match (first, float_top) {
        (None, None) => Distribution::Full,
        _ => Distribution::Integers {
            low,
            range: high.abs_diff(low),
        },
    };
    if low >= high {
        return Err(at(Error::runtime(format!(
            "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        ))));
    }
    let new = NewTensor {
        shape: t.shape(),
        dtype: t.dtype(),
        device: t.device(),
        like: Some(t),
    };
    inplace::overwrite(&mut me.rt, me.grad, t, node, |rt| {
        let r = rt.random(new, dist)?;
        rt.assign(t, &r)
    })
    .map_err(at)?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `x.geometric_(p)`, `x.log_normal_(mean=1, std=2)`, `x.cauchy_(median=0,
/// sigma=1)`: PyTorch's checks and node (`GeometricBackward0`,
/// `LogNormalBackward0`, `CauchyBackward0`), the draws as its kernels make
/// them (`Runtime::draw_`).
pub(super) fn distribution_(
    me: &mut Interp,
    name: &'static str,
    t: &Arc<Tensor>,
    b: &Bound,
) -> Out {
    let at = |e: Error| e.at(b.span);
    let (what, node) = match name {
        "geometric_" => {
            let p = b
                .float("p")?
                .ok_or_else(|| Error::value("geometric_ needs `p`").at(b.span))?;
            if !(p > 0.0 && p < 1.0) {
                return Err(at(Error::runtime(format!(
                    "geometric_ expects p to be in (0, 1), but got p={p}"
                ))));
            }
            (Serial::Geometric { p }, "GeometricBackward0")
        }
        "log_normal_" => {
            let (mean, std) = (
                b.float("mean")?.unwrap_or(1.0),
                b.float("std")?.unwrap_or(2.0),
            );
            floats_only(t, "log_normal_cpu").map_err(at)?;
            if std <= 0.0 {
                return Err(at(Error::runtime(format!(
                    "log_normal_ expects std > 0.0, but found std={std}"
                ))));
            }
            (Serial::LogNormal { mean, std }, "LogNormalBackward0")
        }
        _ => {
            let (median, sigma) = (
                b.float("median")?.unwrap_or(0.0),
                b.float("sigma")?.unwrap_or(1.0),
            );
            if !t.dtype().is_float() {
                return Err(at(Error::runtime(format!(
                    "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you specified {}",
                    t.dtype().cpp_name()
                ))));
            }
            if sigma <= 0.0 {
                return Err(at(Error::runtime(format!(
                    "cauchy_ expects sigma > 0.0, but found sigma={sigma}"
                ))));
            }
            (Serial::Cauchy { median, sigma }, "CauchyBackward0")
        }
    };
    inplace::overwrite(&mut me.rt, me.grad, t, node, |rt| rt.draw_(t, what)).map_err(at)?;
    Ok(Value::Tensor(Arc::clone(t)))
}
