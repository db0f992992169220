//! `TensorDataset(*tensors)`: sample `i` is row `i` of each tensor.

use std::sync::Arc;

use crate::error::Error;
use crate::runtime::op::index::{select, Index};
use crate::runtime::ops::join::stack;
use crate::runtime::{Device, Tensor};

#[derive(Debug)]
pub struct TensorDataset {
    pub tensors: Vec<Arc<Tensor>>,
}

impl TensorDataset {
    /// As PyTorch's: every tensor has the same first dimension. Host
    /// tensors only: a loader's workers read them on the host.
    pub fn new(tensors: Vec<Arc<Tensor>>) -> Result<TensorDataset, Error> {
        let Some(first) = tensors.first() else {
            return Err(Error::value("TensorDataset() needs at least one tensor"));
        };
        if let Some(t) = tensors.iter().find(|t| t.ndim() == 0) {
            return Err(Error::shape(format!(
                "TensorDataset() needs tensors with a first dimension; one is 0-d ({} element)",
                t.numel()
            )));
        }
        let n = first.shape()[0];
        if let Some(t) = tensors.iter().find(|t| t.shape()[0] != n) {
            return Err(Error::shape(format!(
                "Size mismatch between tensors: {} and {} samples (every tensor's first dimension \
                 is the number of samples)",
                n,
                t.shape()[0]
            )));
        }
        if let Some(t) = tensors.iter().find(|t| t.device() != Device::Cpu) {
            return Err(Error::value_help(
                format!(
                    "cudash's TensorDataset holds host tensors; this one is on {}",
                    t.device()
                ),
                "keep the dataset on the host (`.cpu()`) and move each batch: \
                 `xb.to(cuda, non_blocking=true)`, with `pin_memory=true` on the DataLoader",
            ));
        }
        Ok(TensorDataset { tensors })
    }

    pub fn len(&self) -> usize {
        self.tensors[0].shape()[0]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `ds[i]`: row `i` of each tensor (views, as PyTorch's `tensor[i]`).
    pub fn sample(&self, i: usize) -> Result<Vec<Tensor>, Error> {
        let i = i as i64;
        self.tensors
            .iter()
            .map(|t| select(t, &[Index::At(i)]))
            .collect()
    }

    /// The samples at `indices`, collated: each tensor's rows stacked into
    /// a new tensor (PyTorch's `default_collate`, `torch.stack`).
    pub fn batch(&self, indices: &[usize]) -> Result<Vec<Tensor>, Error> {
        let rows: Vec<Vec<Tensor>> = indices
            .iter()
            .map(|&i| self.sample(i))
            .collect::<Result<_, _>>()?;
        (0..self.tensors.len())
            .map(|k| {
                let column: Vec<&Tensor> = rows.iter().map(|r| &r[k]).collect();
                stack(&column, 0)
            })
            .collect()
    }

    /// The bytes one sample takes, over all tensors.
    pub fn sample_bytes(&self) -> usize {
        self.tensors
            .iter()
            .map(|t| t.nbytes() / t.shape()[0].max(1))
            .sum()
    }
}
