//! The recurrent layers over a `PackedSequence` (`_VF.lstm(data,
//! batch_sizes, hx, ...)`), composed as PyTorch's `PackedLayer` and
//! `ReversedPackedLayer` compose them (`aten/src/ATen/native/RNN.cpp`):
//! the input projection of the whole packed data at once (`linear`); each
//! step its rows of it (`SliceBackward0`) and the state of the sequences
//! still running. Forward, where the batch shrinks, the state of the
//! sequences that ended is kept aside (their last state) and the rest
//! goes on; backward in time, the reversed direction starts with the
//! shortest batch and takes in each sequence's initial state as it starts.
//! The steps' outputs are joined (`CatBackward0`) into packed data of the
//! same batch sizes; the last states are each sequence's own last step.

use std::sync::Arc;

use super::layer::{Layer, Recurrence};
use super::module::Module;
use super::recurrent::{check_input, join, layer_stack, list, step, tuple, Hidden, Weights};
use crate::autograd::{functional, record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::index::{self, Index};
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `rnn(packed, hx)` on the packed data [N, input_size] of batch sizes
/// `sizes` (longest first): the packed output [N, directions *
/// hidden_size] and the last state of every layer and direction, in the
/// packed (sorted) order of the sequences.
pub fn forward(
    rt: &mut Runtime,
    mode: Mode,
    m: &Module,
    data: &Arc<Tensor>,
    sizes: &[usize],
    hx: Option<Hidden>,
) -> R<(Arc<Tensor>, Hidden)> {
    let Layer::Recurrent(spec) = &m.layer else {
        return Err(Error::value("internal error: not a recurrent layer"));
    };
    let lstm = spec.kind == Recurrence::Lstm;
    if data.ndim() != 2 {
        return Err(Error::value(format!(
            "input must have 2 dimensions, got {}",
            data.ndim()
        )));
    }
    let total: usize = sizes.iter().sum();
    if sizes.is_empty() || total != data.shape()[0] || sizes.windows(2).any(|w| w[1] > w[0]) {
        return Err(Error::value(format!(
            "a PackedSequence's batch_sizes ({}) must be the running batch at each step, \
             longest first, summing to its data's {} rows",
            list(sizes),
            data.shape()[0]
        )));
    }
    check_input(m, spec, mode, data)?;
    let batch = sizes[0];
    let expected = [spec.num_layers * spec.directions(), batch, spec.hidden_size];
    let hx = match hx {
        Some(hx) => hx,
        None => {
            let zeros = |rt: &mut Runtime| {
                crate::autograd::ops::full(rt, &expected, data.dtype(), data.device(), 0)
            };
            let h = zeros(rt)?;
            let c = match lstm {
                true => Some(zeros(rt)?),
                false => None,
            };
            Hidden { h, c }
        }
    };
    for (k, t) in std::iter::once(&hx.h).chain(hx.c.as_ref()).enumerate() {
        if t.shape() != expected {
            let which = match lstm {
                true => format!("hidden[{k}]"),
                false => "hidden".into(),
            };
            return Err(Error::shape(format!(
                "Expected {which} size {}, got {}",
                tuple(&expected),
                list(t.shape())
            )));
        }
    }
    let kind = spec.kind;
    layer_stack(
        rt,
        mode,
        m,
        spec,
        Arc::clone(data),
        &hx,
        &mut |rt, x, state, w, reverse| {
            let run = Run { kind, w, sizes };
            match reverse {
                false => run.forward(rt, mode, x, state),
                true => run.backward(rt, mode, x, state),
            }
        },
    )
}

/// One direction of one layer over packed data.
struct Run<'a> {
    kind: Recurrence,
    w: &'a Weights,
    sizes: &'a [usize],
}

impl Run<'_> {
    /// Forward in time (`PackedLayer`): where the batch shrinks, the
    /// sequences that ended leave their state aside.
    fn forward(
        &self,
        rt: &mut Runtime,
        mode: Mode,
        input: &Arc<Tensor>,
        state: Hidden,
    ) -> R<(Arc<Tensor>, Hidden)> {
        let projected = functional::linear(rt, mode, input, &self.w.w_ih, self.w.b_ih.as_ref())?;
        let mut state = state;
        let mut ended: Vec<Hidden> = Vec::new();
        let mut outputs = Vec::with_capacity(self.sizes.len());
        let (mut offset, mut last) = (0, self.sizes[0]);
        for &n in self.sizes {
            let x = rows(rt, mode, &projected, offset, offset + n)?;
            offset += n;
            if n < last {
                ended.push(slice(rt, mode, &state, n, last)?);
                state = slice(rt, mode, &state, 0, n)?;
            }
            last = n;
            state = step(rt, mode, self.kind, &x, &state, self.w)?;
            outputs.push(Arc::clone(&state.h));
        }
        drop(projected);
        ended.push(state);
        ended.reverse();
        let out = join(rt, mode, &outputs, 0, false)?;
        Ok((out, concat(rt, mode, &ended)?))
    }

    /// Backward in time (`ReversedPackedLayer`): from the last step, where
    /// only the longest sequences run, each sequence's initial state joins
    /// as the batch grows.
    fn backward(
        &self,
        rt: &mut Runtime,
        mode: Mode,
        input: &Arc<Tensor>,
        initial: Hidden,
    ) -> R<(Arc<Tensor>, Hidden)> {
        let projected = functional::linear(rt, mode, input, &self.w.w_ih, self.w.b_ih.as_ref())?;
        let mut last = self.sizes[self.sizes.len() - 1];
        let mut state = slice(rt, mode, &initial, 0, last)?;
        let mut outputs = Vec::with_capacity(self.sizes.len());
        let mut offset = input.shape()[0];
        for &n in self.sizes.iter().rev() {
            if n > last {
                let joining = slice(rt, mode, &initial, last, n)?;
                state = concat(rt, mode, &[state, joining])?;
            }
            let x = rows(rt, mode, &projected, offset - n, offset)?;
            offset -= n;
            last = n;
            state = step(rt, mode, self.kind, &x, &state, self.w)?;
            outputs.push(Arc::clone(&state.h));
        }
        drop(projected);
        outputs.reverse();
        let out = join(rt, mode, &outputs, 0, false)?;
        Ok((out, state))
    }
}

/// `x.narrow(0, start, end - start)`, recorded (`SliceBackward0`).
fn rows(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, start: usize, end: usize) -> R<Arc<Tensor>> {
    let items = [Index::Slice(Some(start as i64), Some(end as i64), None)];
    let out = Arc::new(index::select(x, &items)?);
    record::index(rt, mode, x, out, &items)
}

/// The state of sequences `start..end` (`hidden_slice`).
fn slice(rt: &mut Runtime, mode: Mode, s: &Hidden, start: usize, end: usize) -> R<Hidden> {
    let h = rows(rt, mode, &s.h, start, end)?;
    let c = match &s.c {
        Some(c) => Some(rows(rt, mode, c, start, end)?),
        None => None,
    };
    Ok(Hidden { h, c })
}

/// States of consecutive sequences joined (`hidden_concat`).
fn concat(rt: &mut Runtime, mode: Mode, parts: &[Hidden]) -> R<Hidden> {
    let hs: Vec<Arc<Tensor>> = parts.iter().map(|p| Arc::clone(&p.h)).collect();
    let cs: Vec<Arc<Tensor>> = parts.iter().filter_map(|p| p.c.clone()).collect();
    Ok(Hidden {
        h: join(rt, mode, &hs, 0, false)?,
        c: match cs.is_empty() {
            true => None,
            false => Some(join(rt, mode, &cs, 0, false)?),
        },
    })
}
