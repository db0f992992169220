//! `torch.nn.utils.rnn.pad_sequence`: sequences of different lengths
//! stacked into one tensor, padded at the end (or the start), as PyTorch's
//! C++ makes it: a tensor full of the padding value, each sequence copied
//! into its slice (`CopySlices` in a graph, one per sequence).

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use super::factories::tensor_list;
use crate::autograd::inplace;
use crate::autograd::meta::requires_grad;
use crate::error::{Diagnostic, Error};
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::op::index::{self, Index};
use crate::runtime::shape::fmt_shape;

/// `pad_sequence(sequences, batch_first=False, padding_value=0.0,
/// padding_side="right")`: [L, B, *] (or [B, L, *]), L the longest length.
pub(super) fn pad_sequence(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let seqs = tensor_list(b, "sequences", "pad_sequence")?;
    let batch_first = b.bool("batch_first", false)?;
    let value = b.fill("padding_value")?.unwrap_or(Fill::Float(0.0));
    let left = match b.str("padding_side")?.as_deref() {
        None | Some("right") => false,
        Some("left") => true,
        Some(other) => {
            return Err(Error::value(format!(
                "Expected padding_side to be one of left or right, but got {other}."
            ))
            .at(b.span_of("padding_side")))
        }
    };
    let Some(first) = seqs.first() else {
        return Err(Error::value("received an empty list of sequences").at(b.span));
    };
    let trailing = first.shape().get(1..).unwrap_or(&[]).to_vec();
    for s in &seqs {
        if s.ndim() == 0 || s.shape()[1..] != trailing[..] {
            return Err(Error::shape(format!(
                "pad_sequence: every sequence must be [L, *] with the same trailing dims as the first ({}), not {}",
                fmt_shape(first.shape()),
                fmt_shape(s.shape())
            ))
            .at(b.span_of("sequences")));
        }
    }
    let longest = seqs.iter().map(|s| s.shape()[0]).max().unwrap_or(0);
    let mut shape = match batch_first {
        true => vec![seqs.len(), longest],
        false => vec![longest, seqs.len()],
    };
    shape.extend(&trailing);
    let at = |e: Error| e.at(b.span);
    let new = NewTensor {
        shape: &shape,
        dtype: first.dtype(),
        device: first.device(),
        like: None,
    };
    let out = me.rt.full(new, value).map_err(at)?;
    for (i, s) in seqs.iter().enumerate() {
        let n = s.shape()[0] as i64;
        let start = match left {
            true => longest as i64 - n,
            false => 0,
        };
        let rows = Index::Slice(Some(start), Some(start + n), None);
        let items = match batch_first {
            true => vec![Index::At(i as i64), rows],
            false => vec![rows, Index::At(i as i64)],
        };
        let view = Arc::new(index::select(&out, &items).map_err(at)?);
        let view = match requires_grad(&out) || requires_grad(s) {
            true => inplace::writable(&mut me.rt, me.grad, &out, &items, view).map_err(at)?,
            false => view,
        };
        let write = |rt: &mut crate::runtime::dispatch::Runtime| rt.assign(&view, s);
        inplace::copy_(&mut me.rt, me.grad, &view, s, write).map_err(at)?;
    }
    Ok(Value::Tensor(out))
}
