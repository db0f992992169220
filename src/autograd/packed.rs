//! `torch._pack_padded_sequence`: a padded batch of sequences [T, B, *]
//! (or [B, T, *]) packed step after step into [sum(lengths), *], the
//! sequences still running at each step side by side (`batch_sizes`), as
//! PyTorch's `PackedSequence.cpp` packs it: a block copied out for each
//! run of steps where the batch keeps its size, the blocks joined, the one
//! node `PackPaddedSequenceBackward0`, whose backward copies each step's
//! rows of the gradient back into zeros of the padded shape.

use std::sync::Arc;

use super::node::Backward;
use super::record::attach_node;
use super::Mode;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::op::index::{self, Index};
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

fn runtime_error(message: String) -> Error {
    Error::Module {
        class: "RuntimeError",
        message,
        help: None,
    }
}

/// `lengths` checked as PyTorch checks them: one per sequence, sorted
/// longest first, none empty; and none longer than the padded steps (where
/// PyTorch reads past the input).
fn check(lengths: &[i64], steps: usize, batch: usize) -> R<()> {
    if lengths.len() != batch {
        return Err(runtime_error(format!(
            "Expected `len(lengths)` to be equal to batch_size, but got {} (batch_size={batch})",
            lengths.len()
        )));
    }
    if lengths.last().is_some_and(|&l| l <= 0) {
        return Err(runtime_error(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' \
             that is <= 0"
                .into(),
        ));
    }
    if lengths.windows(2).any(|w| w[1] > w[0]) {
        return Err(runtime_error(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. \
             You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to \
             sidestep this requirement if you do not need ONNX exportability."
                .into(),
        ));
    }
    if let Some(&longest) = lengths.first().filter(|&&l| l as usize > steps) {
        return Err(Error::Module {
            class: "RuntimeError",
            message: format!(
                "a length of {longest} is longer than the input's {steps} steps: each length \
                 counts the steps of one sequence in the padded input"
            ),
            help: Some(
                "with batch_first=True the input is [batch, steps, *]; else [steps, batch, *]"
                    .into(),
            ),
        });
    }
    Ok(())
}

/// How many sequences still run at each step: `batch_sizes[t]` is the
/// number of lengths above `t` (lengths sorted longest first).
pub fn batch_sizes(lengths: &[i64]) -> Vec<usize> {
    let longest = lengths.first().copied().unwrap_or(0).max(0) as usize;
    (0..longest)
        .map(|t| lengths.iter().filter(|&&l| l as usize > t).count())
        .collect()
}

/// `_pack_padded_sequence(input, lengths, batch_first)`: the packed data
/// and its batch sizes.
pub fn pack_padded(
    rt: &mut Runtime,
    mode: Mode,
    input: &Arc<Tensor>,
    lengths: &[i64],
    batch_first: bool,
) -> R<(Arc<Tensor>, Vec<usize>)> {
    if input.ndim() < 2 {
        return Err(runtime_error(format!(
            "pack_padded_sequence: the input must be [T, B, *] (or [B, T, *] with \
             batch_first=True), not {}-D",
            input.ndim()
        )));
    }
    if input.numel() == 0 {
        return Err(runtime_error("Cannot pack empty tensors.".into()));
    }
    let steps_first = match batch_first {
        true => Arc::new(input.transpose(0, 1)),
        false => Arc::clone(input),
    };
    let (steps, batch) = (steps_first.shape()[0], steps_first.shape()[1]);
    check(lengths, steps, batch)?;
    let sizes = batch_sizes(lengths);
    let mut step_shape = vec![-1i64];
    step_shape.extend(steps_first.shape()[2..].iter().map(|&d| d as i64));
    // From the shortest sequence up: a block for each rise in length.
    let mut blocks = Vec::new();
    let mut done = 0usize;
    for (i, &l) in lengths.iter().rev().enumerate() {
        let l = l as usize;
        if l > done {
            let running = (batch - i) as i64;
            let items = [
                Index::Slice(Some(done as i64), Some(l as i64), None),
                Index::Slice(Some(0), Some(running), None),
            ];
            let block = Arc::new(index::select(&steps_first, &items)?);
            blocks.push(rt.reshape(&block, &step_shape)?);
            done = l;
        }
    }
    let refs: Vec<&Tensor> = blocks.iter().map(|b| &**b).collect();
    let data = rt.join(&refs, 0, false)?;
    drop(blocks);
    let backward = Backward::PackPadded {
        input_shape: input.shape().to_vec(),
        batch_sizes: sizes.clone(),
        batch_first,
    };
    let data = attach_node(
        rt,
        mode,
        data,
        "PackPaddedSequenceBackward0",
        backward,
        &[input],
    );
    Ok((data, sizes))
}

/// `_pack_padded_sequence_backward`: zeros of the padded shape, each
/// step's rows of `g` copied into that step's running sequences.
pub fn pack_padded_backward(
    rt: &mut Runtime,
    g: &Tensor,
    input_shape: &[usize],
    sizes: &[usize],
    batch_first: bool,
) -> R<Arc<Tensor>> {
    let mut shape = input_shape.to_vec();
    if batch_first {
        shape.swap(0, 1);
    }
    let new = NewTensor {
        shape: &shape,
        dtype: g.dtype(),
        device: g.device(),
        like: None,
    };
    let grad = rt.full(new, Fill::Int(0))?;
    let mut offset = 0i64;
    for (t, &n) in sizes.iter().enumerate() {
        let n = n as i64;
        let rows = [Index::At(t as i64), Index::Slice(Some(0), Some(n), None)];
        let into = index::select(&grad, &rows)?;
        let from = index::select(g, &[Index::Slice(Some(offset), Some(offset + n), None)])?;
        rt.assign(&into, &from)?;
        offset += n;
    }
    Ok(match batch_first {
        true => Arc::new(grad.transpose(0, 1)),
        false => grad,
    })
}

#[cfg(test)]
mod tests {
    use super::{batch_sizes, check};

    #[test]
    fn batch_sizes_count_the_sequences_running_at_each_step() {
        assert_eq!(batch_sizes(&[5, 3, 3, 1, 1]), vec![5, 3, 3, 1, 1]);
        assert_eq!(batch_sizes(&[3, 1]), vec![2, 1, 1]);
        assert_eq!(batch_sizes(&[2, 2]), vec![2, 2]);
    }

    #[test]
    fn lengths_are_checked_as_pytorch_checks_them() {
        assert!(check(&[3, 1], 3, 2).is_ok());
        let message = |r: Result<(), crate::error::Error>| r.unwrap_err().to_string();
        assert!(message(check(&[3], 3, 2)).contains("but got 1 (batch_size=2)"));
        assert!(message(check(&[2, 0], 3, 2)).contains("greater than 0"));
        assert!(message(check(&[1, 2], 3, 2)).contains("sorted in decreasing order"));
        assert!(message(check(&[4, 2], 3, 2)).contains("longer than the input's 3 steps"));
    }
}
