//! Forward-mode AD (`torch.autograd.forward_ad`): inside a dual level a
//! tensor may carry a tangent (`make_dual(primal, tangent)`), and each op
//! on such tensors computes its result's tangent at once, from its inputs'
//! tangents (PyTorch's forward formulas: `result:` in `derivatives.yaml`).
//! The tangent lives in the tensor's autograd record (`Meta`), as
//! PyTorch's `fw_grad` does; closing the level drops every tangent made in
//! it. Grad mode does not matter: `no_grad` stops recording for backward,
//! not tangents.
//!
//! The ops that compute tangents call [`carry`]; an op that could record a
//! node but has no forward formula here is counted by [`mark`] (from
//! `record::recording`) and the evaluator refuses it right after the call
//! ([`take_unhandled`]), rather than let a result lose its tangent silently.
//! One level at a time, as PyTorch allows.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::sync::{Arc, Weak};

use super::meta::{meta, meta_or_leaf};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

thread_local! {
    /// The open dual level, if any (PyTorch numbers levels by depth: 0).
    static LEVEL: Cell<Option<u64>> = const { Cell::new(None) };
    /// Tangents are being computed (their own ops carry none).
    static SUSPENDED: Cell<u32> = const { Cell::new(0) };
    /// The records given a tangent in the open level.
    static DUALS: RefCell<Vec<Weak<dyn Any + Send + Sync>>> = const { RefCell::new(Vec::new()) };
    /// Ops on dual tensors that computed no tangent since last asked.
    static UNHANDLED: Cell<usize> = const { Cell::new(0) };
}

fn error(message: impl Into<String>, help: &str) -> Error {
    Error::Autograd {
        message: message.into(),
        help: help.into(),
    }
}

/// `fwAD.enter_dual_level()`: the new level's number.
pub fn enter_level() -> R<u64> {
    if LEVEL.get().is_some() {
        return Err(error(
            "Nested forward mode AD is not supported at the moment",
            "close the open `with fwAD.dual_level():` before entering another",
        ));
    }
    let level = 0;
    LEVEL.set(Some(level));
    UNHANDLED.set(0);
    Ok(level)
}

/// `fwAD.exit_dual_level(level=...)`: every tangent made in the level is
/// dropped (their memory freed).
pub fn exit_level(level: Option<u64>) -> R<()> {
    let open = LEVEL.get();
    if open.is_none() || level.is_some_and(|l| Some(l) != open) {
        return Err(error(
            "Trying to exit a forward AD level that was not the last one that was created. \
             This is not supported.",
            "exit the level `enter_dual_level()` gave, once",
        ));
    }
    LEVEL.set(None);
    UNHANDLED.set(0);
    let duals = DUALS.with(|d| std::mem::take(&mut *d.borrow_mut()));
    for record in duals.iter().filter_map(Weak::upgrade) {
        if let Some(m) = record.downcast_ref::<super::meta::Meta>() {
            m.set_tangent(None);
        }
    }
    Ok(())
}

/// The open level.
pub fn level() -> Option<u64> {
    LEVEL.get()
}

/// Whether ops compute tangents now: a level is open, and no tangent is
/// being computed.
pub fn active() -> bool {
    LEVEL.get().is_some() && SUSPENDED.get() == 0
}

/// `t`'s tangent in the open level.
pub fn tangent(t: &Tensor) -> Option<Arc<Tensor>> {
    match LEVEL.get() {
        Some(_) => meta(t).and_then(|m| m.tangent()),
        None => None,
    }
}

/// Whether an op on `inputs` has tangents to carry.
pub fn any_dual(inputs: &[&Tensor]) -> bool {
    active() && inputs.iter().any(|t| tangent(t).is_some())
}

/// `out` carrying `tangent` (its record made when it has none).
pub fn give(out: Arc<Tensor>, tangent: Arc<Tensor>) -> Arc<Tensor> {
    set(&out, tangent);
    out
}

/// `x` given `tangent` (every holder of the variable sees it).
fn set(x: &Tensor, tangent: Arc<Tensor>) {
    meta_or_leaf(x).set_tangent(Some(tangent));
    if let Some(record) = x.autograd() {
        remember(Arc::downgrade(record));
    }
}

/// A record given a tangent in the open level, to drop it at the level's
/// end; the records gone since are forgotten now and then (a loop of
/// dual ops inside one level keeps the list short).
fn remember(record: Weak<dyn Any + Send + Sync>) {
    DUALS.with(|d| {
        let mut d = d.borrow_mut();
        d.push(record);
        if d.len() >= 1024 && d.len().is_power_of_two() {
            d.retain(|w| w.strong_count() > 0);
        }
    });
}

/// The tangent of an in-place op's operands, computed by `f` from them
/// (with tangents off) before the op changes `x`; None when no operand
/// carries one.
pub fn before_in_place(
    rt: &mut Runtime,
    operands: &[&Tensor],
    f: impl FnOnce(&mut Runtime, &[Option<Arc<Tensor>>]) -> R<Arc<Tensor>>,
) -> R<Option<Arc<Tensor>>> {
    if !any_dual(operands) {
        return Ok(None);
    }
    let tangents: Vec<Option<Arc<Tensor>>> = operands.iter().map(|t| tangent(t)).collect();
    suspended(|| f(rt, &tangents)).map(Some)
}

/// `x`'s tangent after an in-place op (counted by `inplace::records`):
/// `t` written into the tangent `x` has, so that its views and its base
/// see the change, as PyTorch updates a tangent in place. A view of a
/// base gets its part of the base's tangent (zeros made for a base
/// without one); another tensor gets `t`, laid out as it is.
pub fn in_place(rt: &mut Runtime, x: &Tensor, t: &Tensor) -> R<()> {
    handled();
    let target = match tangent(x) {
        Some(old) => Some(old),
        None => suspended(|| base_part(rt, x))?,
    };
    match target {
        Some(old) if old.shape() == x.shape() => suspended(|| rt.assign(&old, t)),
        _ => {
            let fresh = suspended(|| rt.copy_strided(t, x.strides().to_vec()))?;
            set(x, fresh);
            Ok(())
        }
    }
}

/// For a view `x` autograd tracks: its part of its base's tangent (made
/// zeros when the base has none), now `x`'s tangent too.
fn base_part(rt: &mut Runtime, x: &Tensor) -> R<Option<Arc<Tensor>>> {
    let Some(view) = meta(x).and_then(|m| m.view.as_ref()) else {
        return Ok(None);
    };
    let base = view.base();
    let base_tangent = match base.tangent() {
        Some(t) => t,
        None => {
            let b = &view.base_input;
            let zeros = super::ops::full(rt, &b.shape, b.dtype, b.device, 0)?;
            base.set_tangent(Some(Arc::clone(&zeros)));
            remember(Arc::downgrade(view.base_record()));
            zeros
        }
    };
    let part = Arc::new(view.geometry.of(&base_tangent));
    set(x, Arc::clone(&part));
    Ok(Some(part))
}

/// Runs `f` with tangents off (the ops computing a tangent carry none).
pub fn suspended<T>(f: impl FnOnce() -> T) -> T {
    SUSPENDED.set(SUSPENDED.get() + 1);
    let out = f();
    SUSPENDED.set(SUSPENDED.get() - 1);
    out
}

/// An op on dual tensors that may compute no tangent (`record::recording`
/// counts it; [`carry`] with `marked` takes it back).
pub fn mark() {
    UNHANDLED.set(UNHANDLED.get() + 1);
}

fn handled() {
    UNHANDLED.set(UNHANDLED.get().saturating_sub(1));
}

/// Whether an op since last asked met dual tensors and computed no
/// tangent (the evaluator's refusal, right after the call).
pub fn take_unhandled() -> bool {
    UNHANDLED.replace(0) > 0
}

/// The refusal of an op with no forward formula in cudash (`op` when the
/// caller knows its name), PyTorch's words for an op it has none for.
pub fn unsupported_op(op: Option<&str>) -> Error {
    let op = op.map_or("an op".to_string(), |name| format!("`{name}`"));
    error(
        format!(
            "Trying to use forward AD with {op} that does not support it: cudash has no \
             forward formula for it yet"
        ),
        "most ops have tangents (docs/python-programs.md lists them; not yet `cdist`, \
         `bilinear`, attention's fused kernels); compute this one outside \
         `fwAD.dual_level()`, or use `torch.func.jvp`",
    )
}

/// The refusal of `torch.autograd.grad` through a node (`node`) whose
/// saved tensors or incoming gradients carry tangents: PyTorch's
/// gradients would carry tangents then (forward-over-reverse), and
/// cudash's backward computes none.
pub fn over_reverse(node: &str) -> Error {
    error(
        format!(
            "cudash computes no forward-mode tangents through a backward yet (forward-over-reverse): \
             {node} reads tensors with tangents, so PyTorch's gradients here would carry tangents"
        ),
        "compute the gradient outside `fwAD.dual_level()`, or take the Hessian-vector product \
         with `torch.func.jvp(torch.func.grad(f), (x,), (v,))`",
    )
}

/// [`unsupported_op`] of an op the formulas name no further.
pub fn unsupported() -> Error {
    unsupported_op(None)
}

/// The op's result `out` with its tangent, which `f` computes from the
/// inputs' tangents (None for an input without one), with tangents off;
/// `out` as it is when no input carries one, or it has its tangent
/// already (a view of its input, given one by [`viewed`]). `marked`: the op's
/// `recording` counted it as unhandled.
pub fn carry(
    rt: &mut Runtime,
    out: Arc<Tensor>,
    inputs: &[&Tensor],
    marked: bool,
    f: impl FnOnce(&mut Runtime, &[Option<Arc<Tensor>>]) -> R<Arc<Tensor>>,
) -> R<Arc<Tensor>> {
    if !active() {
        return Ok(out);
    }
    let tangents: Vec<Option<Arc<Tensor>>> = inputs.iter().map(|t| tangent(t)).collect();
    // (A result that has its tangent already: a view of its input, or the
    // input itself.)
    if tangents.iter().all(Option::is_none) || tangent(&out).is_some() {
        return Ok(out);
    }
    let mut t = suspended(|| f(rt, &tangents))?;
    // Laid out as the result is, so that a view of the result can carry
    // the same view of its tangent.
    if t.shape() == out.shape() && t.strides() != out.strides() && dense(&out) {
        t = suspended(|| rt.copy_strided(&t, out.strides().to_vec()))?;
    }
    if marked {
        handled();
    }
    Ok(give(out, t))
}

/// [`carry`] for an op of one input `x` that `record::recording`
/// counted: `f` computes the result's tangent from `x`'s (it runs only
/// when `x` has one).
pub fn carry_one(
    rt: &mut Runtime,
    out: Arc<Tensor>,
    x: &Tensor,
    f: impl FnOnce(&mut Runtime, &Arc<Tensor>) -> R<Arc<Tensor>>,
) -> R<Arc<Tensor>> {
    let like = Arc::clone(&out);
    carry(rt, out, &[x], true, |rt, ts| match &ts[0] {
        Some(t) => f(rt, t),
        None => super::ops::full_like(rt, &like, 0),
    })
}

/// `out`, made by an op of `x` alone that `record::recording` counted:
/// a view of `x` carries the same view of `x`'s tangent; a result given
/// its tangent already (by `plain_view`) is counted back. Another result
/// stays counted, for its op's [`carry`] to take back or for the
/// evaluator to refuse.
pub fn viewed(x: &Tensor, out: Arc<Tensor>) -> Arc<Tensor> {
    if !active() {
        return out;
    }
    if tangent(&out).is_some() {
        handled();
        return out;
    }
    match view_tangent(x, &out) {
        Some(t) if out.shares_storage(x) => {
            handled();
            give(out, t)
        }
        _ => out,
    }
}

/// Whether `t`'s elements lie each in a place of their own (no stride 0).
fn dense(t: &Tensor) -> bool {
    t.shape()
        .iter()
        .zip(t.strides())
        .all(|(&n, &s)| n <= 1 || s != 0)
}

/// The tangent of a view `out` of `x`: the same view of `x`'s tangent (an
/// in-place change of either shows in both, as in PyTorch), when the
/// tangent is laid out as `x` is.
pub fn view_tangent(x: &Tensor, out: &Tensor) -> Option<Arc<Tensor>> {
    let t = tangent(x)?;
    if t.strides() != x.strides() || t.shape() != x.shape() {
        return None;
    }
    let offset = (t.offset() + out.offset()).checked_sub(x.offset())?;
    Some(Arc::new(t.view(
        out.shape().to_vec(),
        out.strides().to_vec(),
        offset,
    )))
}
