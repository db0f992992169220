//! `DataLoader(dataset, batch_size, shuffle, num_workers, pin_memory,
//! drop_last, prefetch_factor)`: its settings, how many batches it gives,
//! and which samples each batch holds.

use std::sync::Arc;

use super::dataset::TensorDataset;
use crate::error::Error;
use crate::runtime::rng::Generator;

#[derive(Debug)]
pub struct DataLoader {
    pub dataset: Arc<TensorDataset>,
    pub batch_size: usize,
    pub shuffle: bool,
    pub num_workers: usize,
    pub pin_memory: bool,
    pub drop_last: bool,
    /// Batches each worker has in flight (PyTorch's default 2).
    pub prefetch_factor: usize,
}

/// More workers than this is a typo, not a pipeline (each is a thread).
pub const MAX_WORKERS: usize = 256;

impl DataLoader {
    /// The settings, checked as PyTorch checks them.
    pub fn new(
        dataset: Arc<TensorDataset>,
        batch_size: i64,
        shuffle: bool,
        num_workers: i64,
        pin_memory: bool,
        drop_last: bool,
        prefetch_factor: Option<i64>,
    ) -> Result<DataLoader, (Error, &'static str)> {
        if batch_size < 1 {
            return Err((
                Error::value(format!(
                    "batch_size should be a positive integer value, but got batch_size={batch_size}"
                )),
                "batch_size",
            ));
        }
        if !(0..=MAX_WORKERS as i64).contains(&num_workers) {
            return Err((
                Error::value_help(
                    format!("num_workers option should be non-negative; got {num_workers}"),
                    format!("from 0 (load in the main thread) to {MAX_WORKERS}"),
                ),
                "num_workers",
            ));
        }
        let prefetch_factor =
            match (prefetch_factor, num_workers) {
                (Some(_), 0) => return Err((
                    Error::value(
                        "prefetch_factor option could only be specified in multiprocessing. let \
                         num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor \
                         to None.",
                    ),
                    "prefetch_factor",
                )),
                (Some(p), _) if p < 1 => {
                    return Err((
                        Error::value(format!(
                            "prefetch_factor should be a positive integer, not {p}"
                        )),
                        "prefetch_factor",
                    ))
                }
                (Some(p), _) => p as usize,
                (None, _) => 2,
            };
        Ok(DataLoader {
            dataset,
            batch_size: batch_size as usize,
            shuffle,
            num_workers: num_workers as usize,
            pin_memory,
            drop_last,
            prefetch_factor,
        })
    }

    /// `len(loader)`: batches per epoch.
    pub fn len(&self) -> usize {
        let n = self.dataset.len();
        match self.drop_last {
            true => n / self.batch_size,
            false => n.div_ceil(self.batch_size),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One epoch's batches of sample indices: in order, or (with
    /// `shuffle`) in a permutation drawn from `generator` (the cpu's, so
    /// `seed` reproduces it; PyTorch's `RandomSampler` draws its own from
    /// the global generator too, with other bits).
    pub fn batches(&self, generator: &mut Generator) -> Vec<Vec<usize>> {
        let order = match self.shuffle {
            true => permutation(self.dataset.len(), generator),
            false => (0..self.dataset.len()).collect(),
        };
        let mut batches: Vec<Vec<usize>> = order
            .chunks(self.batch_size)
            .map(<[usize]>::to_vec)
            .collect();
        if self.drop_last && batches.last().is_some_and(|b| b.len() < self.batch_size) {
            batches.pop();
        }
        batches
    }

    pub fn describe(&self) -> String {
        format!(
            "DataLoader(batch_size={}, shuffle={}, num_workers={}, pin_memory={}, drop_last={}{}) \
             over a TensorDataset of {} samples ({} tensors): {} batches",
            self.batch_size,
            self.shuffle,
            self.num_workers,
            self.pin_memory,
            self.drop_last,
            match self.num_workers {
                0 => String::new(),
                _ => format!(", prefetch_factor={}", self.prefetch_factor),
            },
            self.dataset.len(),
            self.dataset.tensors.len(),
            self.len()
        )
    }
}

/// A uniformly random permutation of `0..n` (Fisher–Yates).
fn permutation(n: usize, generator: &mut Generator) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let draws = generator.uniform(n);
    for i in (1..n).rev() {
        let j = ((draws[i] * (i + 1) as f64) as usize).min(i);
        order.swap(i, j);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Tensor;
    use proptest::prelude::*;

    fn loader(n: usize, batch: i64, shuffle: bool, drop_last: bool) -> DataLoader {
        let x = Arc::new(Tensor::from_vec(
            (0..n as i64).collect::<Vec<i64>>(),
            vec![n],
        ));
        let ds = Arc::new(TensorDataset::new(vec![x]).unwrap());
        DataLoader::new(ds, batch, shuffle, 0, false, drop_last, None).unwrap_or_else(|_| panic!())
    }

    proptest! {
        /// Every sample once per epoch (all but the short last batch with
        /// `drop_last`), in order without `shuffle`; `len` counts the batches.
        #[test]
        fn an_epoch_gives_every_sample_once(n in 0usize..300, batch in 1i64..40, shuffle: bool, drop_last: bool, seed in 0u64..1000) {
            let l = loader(n, batch, shuffle, drop_last);
            let mut g = Generator::new(seed);
            let batches = l.batches(&mut g);
            prop_assert_eq!(batches.len(), l.len());
            let mut seen: Vec<usize> = batches.concat();
            if !shuffle {
                prop_assert!(seen.windows(2).all(|w| w[0] + 1 == w[1]));
            }
            let kept = if drop_last { n / batch as usize * batch as usize } else { n };
            prop_assert_eq!(seen.len(), kept);
            prop_assert!(batches.iter().all(|b| b.len() == batch as usize || (!drop_last && b.len() < batch as usize)));
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen.len(), kept);
            if !drop_last {
                prop_assert_eq!(seen, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_order() {
        let l = loader(100, 10, true, false);
        let a = l.batches(&mut Generator::new(7));
        let b = l.batches(&mut Generator::new(7));
        let c = l.batches(&mut Generator::new(8));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
