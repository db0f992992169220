//! Collectives across devices (`runtime/dispatch/collective.rs`):
//! `all_reduce`, `reduce_scatter`, `all_gather` over a list of tensors, one
//! per device, and `broadcast` of one tensor to a list of devices.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use super::devices::device_list;
use crate::error::{Diagnostic, Error};
use crate::eval::distributed;
use crate::runtime::dispatch::collective::Misfit;
use crate::runtime::dispatch::world::Collective;
use crate::runtime::Tensor;
use crate::vocab::Span;

/// `all_reduce(tensors, op="sum")`: in place; shows nothing. With one
/// tensor: the process group's (`torch.distributed.all_reduce`).
pub(super) fn all_reduce(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    if let Some((Value::Tensor(t), _)) = b.get("tensors") {
        let op = Collective::AllReduce(distributed::red_op(b)?);
        return distributed::collective(me, op, t, &[], b);
    }
    let (ts, spans) = tensors(b)?;
    let op = distributed::red_op(b)?;
    let refs: Vec<&Tensor> = ts.iter().map(|t| t.as_ref()).collect();
    me.rt
        .all_reduce(&refs, op)
        .map_err(|m| located(m, &spans, b.span))?;
    Ok(Value::None)
}

/// `reduce_scatter(tensors, op="sum")`: device i's share of the reduction.
pub(super) fn reduce_scatter(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    if let Some((Value::Tensor(out), _)) = b.get("tensors") {
        let op = Collective::ReduceScatter(distributed::red_op(b)?);
        let inputs = match b.given("input_list") {
            Some((v, span)) => v
                .items()
                .ok_or_else(|| {
                    Error::wrong_type(
                        "reduce_scatter's `input_list`",
                        "a list of tensors",
                        v.type_name(),
                    )
                    .at(*span)
                })?
                .iter()
                .map(|v| {
                    super::super::args::to_tensor(v).ok_or_else(|| {
                        Error::wrong_type("an element of `input_list`", "a tensor", v.type_name())
                            .at(*span)
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
            None => {
                return Err(Error::value(
                    "reduce_scatter(output, input_list) needs the list of this rank's inputs",
                )
                .at(b.span))
            }
        };
        return distributed::collective(me, op, out, &inputs, b);
    }
    let (ts, spans) = tensors(b)?;
    let op = distributed::red_op(b)?;
    let refs: Vec<&Tensor> = ts.iter().map(|t| t.as_ref()).collect();
    let outs = me
        .rt
        .reduce_scatter(&refs, op)
        .map_err(|m| located(m, &spans, b.span))?;
    Ok(list(outs))
}

/// `all_gather(tensors)`: every device gets all of them, joined. With
/// `tensor`: the process group's, into the list `tensors`
/// (`torch.distributed.all_gather(tensor_list, tensor)`).
pub(super) fn all_gather(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    if let Some((v, span)) = b.given("tensor") {
        let Value::Tensor(t) = v else {
            return Err(
                Error::wrong_type("all_gather's `tensor`", "a tensor", v.type_name()).at(*span),
            );
        };
        let (outs, _) = tensors(b)?;
        return distributed::collective(me, Collective::AllGather, t, &outs, b);
    }
    let (ts, spans) = tensors(b)?;
    let refs: Vec<&Tensor> = ts.iter().map(|t| t.as_ref()).collect();
    let outs = me
        .rt
        .all_gather(&refs)
        .map_err(|m| located(m, &spans, b.span))?;
    Ok(list(outs))
}

/// `broadcast(input, devices)`: `input` on each device of the list. With
/// `src` (or a rank for `devices`): the process group's, in place.
pub(super) fn broadcast(me: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let x = b.tensor("input")?;
    let src = match (b.given("src"), b.given("devices")) {
        (Some(_), _) => b.int("src")?,
        (None, Some((Value::Int(r), _))) => Some(*r),
        _ => None,
    };
    if let Some(src) = src {
        if src < 0 {
            let span = b.given("src").map_or(b.span, |(_, s)| *s);
            return Err(Error::value(format!("broadcast's src is a rank, not {src}")).at(span));
        }
        let op = Collective::Broadcast { src: src as usize };
        return distributed::collective(me, op, &x, &[], b);
    }
    let targets = device_list(me, b, "devices")?;
    let spans: Vec<Span> = b.list("devices")?.iter().map(|(_, s)| *s).collect();
    let outs = me
        .rt
        .broadcast(&x, &targets)
        .map_err(|m| located(m, &spans, b.span))?;
    Ok(list(outs))
}

/// The `tensors` list, with each element's span.
fn tensors(b: &Bound) -> Result<(Vec<Arc<Tensor>>, Vec<Span>), Diagnostic> {
    let mut ts = Vec::new();
    let mut spans = Vec::new();
    for (v, s) in b.list("tensors")? {
        let Some(t) = super::super::args::to_tensor(&v) else {
            return Err(Error::wrong_type(
                "an element of `tensors`",
                "a tensor (one per device)",
                v.type_name(),
            )
            .at(s));
        };
        ts.push(t);
        spans.push(s);
    }
    Ok((ts, spans))
}

/// A misfit at the element it names, else at the call.
fn located(m: Misfit, spans: &[Span], call: Span) -> Diagnostic {
    let span = m.index.and_then(|i| spans.get(i).copied()).unwrap_or(call);
    m.error.at(span)
}

fn list(ts: Vec<Arc<Tensor>>) -> Value {
    Value::List(Arc::new(ts.into_iter().map(Value::Tensor).collect()))
}
