//! `DistributedSampler(dataset, num_replicas, rank, shuffle, seed,
//! drop_last)`: each rank's share of a dataset, as
//! `torch.utils.data.distributed.DistributedSampler` deals it.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Error;
use crate::runtime::cpu_random::CpuGenerator;

#[derive(Debug)]
pub struct DistributedSampler {
    pub samples: usize,
    pub num_replicas: usize,
    pub rank: usize,
    pub shuffle: bool,
    pub seed: u64,
    pub drop_last: bool,
    epoch: AtomicU64,
}

impl DistributedSampler {
    pub fn new(
        samples: usize,
        num_replicas: i64,
        rank: i64,
        shuffle: bool,
        seed: i64,
        drop_last: bool,
    ) -> Result<DistributedSampler, (Error, &'static str)> {
        if num_replicas < 1 {
            return Err((
                Error::value(format!(
                    "num_replicas should be a positive integer, not {num_replicas}"
                )),
                "num_replicas",
            ));
        }
        if !(0..num_replicas).contains(&rank) {
            return Err((
                Error::value(format!(
                    "Invalid rank {rank}, rank should be in the interval [0, {}]",
                    num_replicas - 1
                )),
                "rank",
            ));
        }
        Ok(DistributedSampler {
            samples,
            num_replicas: num_replicas as usize,
            rank: rank as usize,
            shuffle,
            seed: seed as u64,
            drop_last,
            epoch: AtomicU64::new(0),
        })
    }

    /// `sampler.set_epoch(e)`: the next pass shuffles with `seed + e`, the
    /// same on every rank, so the ranks' shares never overlap.
    pub fn set_epoch(&self, epoch: u64) {
        self.epoch.store(epoch, Ordering::Relaxed);
    }

    /// `len(sampler)`: the samples this rank gets (every rank the same).
    pub fn len(&self) -> usize {
        let (n, r) = (self.samples, self.num_replicas);
        match self.drop_last && n % r != 0 {
            true => n.saturating_sub(r).div_ceil(r),
            false => n.div_ceil(r),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// This rank's sample indices for the current epoch: all of them in
    /// order or permuted by `seed + epoch` (PyTorch's own `randperm` on a
    /// CPU generator seeded so: the same indices as PyTorch's sampler),
    /// padded by repeating the first ones to a multiple of the replicas (or
    /// cut, with `drop_last`), then every `num_replicas`-th from `rank` on.
    pub fn indices(&self) -> Result<Vec<usize>, Error> {
        let mut all: Vec<usize> = match self.shuffle {
            true => {
                let epoch = self.epoch.load(Ordering::Relaxed);
                // The permutation is built in host memory: checked first.
                permutation_fits(self.samples)?;
                crate::runtime::cpu_random::mt19937::randperm(
                    self.samples,
                    self.seed.wrapping_add(epoch),
                )
            }
            false => {
                let mut all = Vec::new();
                all.try_reserve_exact(self.samples).map_err(|_| {
                    Error::value(format!(
                        "DistributedSampler: the indices of {} samples do not fit on the host",
                        self.samples
                    ))
                })?;
                all.extend(0..self.samples);
                all
            }
        };
        let total = self.len() * self.num_replicas;
        if all.is_empty() {
            return Ok(all);
        }
        while all.len() < total {
            let more = (total - all.len()).min(all.len());
            all.extend_from_within(..more);
        }
        all.truncate(total);
        Ok(all
            .into_iter()
            .skip(self.rank)
            .step_by(self.num_replicas)
            .collect())
    }

    pub fn describe(&self) -> String {
        format!(
            "DistributedSampler(num_replicas={}, rank={}, shuffle={}, seed={}, drop_last={}, epoch={}): {} of {} samples",
            self.num_replicas,
            self.rank,
            self.shuffle,
            self.seed,
            self.drop_last,
            self.epoch.load(Ordering::Relaxed),
            self.len(),
            self.samples
        )
    }
}

/// `torch.randperm(n)` on the CPU generator, checked to fit first.
pub fn permutation(n: usize, generator: &mut CpuGenerator) -> Result<Vec<usize>, Error> {
    permutation_fits(n)?;
    Ok(generator.randperm(n))
}

/// An error unless a permutation of `n` samples (the order and its
/// draws: what PyTorch's `randperm(n)` holds too) fits on the host.
pub(super) fn permutation_fits(n: usize) -> Result<(), Error> {
    let too_big = || {
        Error::value_help(
            format!(
                "shuffling {n} samples needs a permutation of them on the host ({}), more than it can hold",
                crate::vocab::human_bytes((n as u128) * 16)
            ),
            "PyTorch's RandomSampler holds the same (`randperm(n)`): iterate in order \
             (`shuffle=false`), or shuffle a smaller dataset or a sampler's share",
        )
    };
    let mut order: Vec<usize> = Vec::new();
    order.try_reserve_exact(n).map_err(|_| too_big())?;
    let mut probe: Vec<f64> = Vec::new();
    probe.try_reserve_exact(n).map_err(|_| too_big())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every rank's indices as PyTorch 2.15's
    /// `torch.utils.data.distributed.DistributedSampler(range(n),
    /// num_replicas, rank, shuffle, seed, drop_last)` after
    /// `set_epoch(epoch)` gave them (printed with `list(sampler)`).
    #[test]
    fn every_ranks_indices_are_pytorchs() {
        /// (samples, replicas, seed, epoch, drop_last, shuffle), and each
        /// rank's indices.
        type Case = (
            (usize, i64, i64, u64, bool, bool),
            &'static [&'static [usize]],
        );
        #[rustfmt::skip]
        let cases: &[Case] = &[
            ((10, 3, 7, 2, false, true), &[&[0, 7, 9, 3], &[5, 6, 1, 0], &[8, 2, 4, 5]]),
            ((10, 3, 7, 2, true, true), &[&[0, 7, 9], &[5, 6, 1], &[8, 2, 4]]),
            ((17, 4, 0, 0, false, true), &[&[7, 1, 9, 11, 0], &[16, 8, 12, 4, 7], &[10, 2, 3, 15, 16], &[5, 6, 13, 14, 10]]),
            ((17, 4, 0, 1, true, true), &[&[2, 10, 16, 3], &[12, 6, 9, 7], &[11, 0, 14, 15], &[13, 8, 4, 5]]),
            ((100, 8, 42, 5, false, true), &[
                &[55, 51, 46, 97, 70, 92, 8, 56, 60, 11, 85, 6, 68],
                &[27, 74, 15, 28, 58, 17, 79, 40, 94, 99, 39, 7, 22],
                &[75, 71, 89, 35, 64, 19, 18, 73, 81, 83, 57, 36, 66],
                &[34, 3, 49, 91, 80, 9, 20, 72, 21, 38, 98, 54, 59],
                &[44, 25, 1, 65, 29, 82, 63, 47, 87, 78, 13, 12, 55],
                &[41, 16, 90, 67, 53, 10, 42, 23, 88, 2, 50, 31, 27],
                &[32, 33, 76, 0, 4, 61, 48, 52, 30, 24, 62, 14, 75],
                &[37, 93, 26, 45, 5, 96, 86, 69, 77, 84, 95, 43, 34],
            ]),
            ((5, 8, 3, 0, false, true), &[&[1], &[0], &[3], &[4], &[2], &[1], &[0], &[3]]),
            ((9, 2, 1, 0, false, false), &[&[0, 2, 4, 6, 8], &[1, 3, 5, 7, 0]]),
        ];
        for &((n, r, seed, epoch, drop_last, shuffle), want) in cases {
            for (rank, want) in want.iter().enumerate() {
                let s =
                    DistributedSampler::new(n, r, rank as i64, shuffle, seed, drop_last).unwrap();
                s.set_epoch(epoch);
                assert_eq!(
                    s.indices().unwrap(),
                    *want,
                    "n={n} replicas={r} rank={rank} seed={seed} epoch={epoch}"
                );
            }
        }
    }

    proptest! {
        /// The ranks' shares are the same size, and together they are every
        /// sample once (padded by repeats to a multiple of the replicas, or
        /// cut with `drop_last`), for any epoch.
        #[test]
        fn the_ranks_share_the_dataset(n in 1usize..200, r in 1i64..9, shuffle: bool, drop_last: bool, epoch in 0u64..5) {
            let shares: Vec<Vec<usize>> = (0..r).map(|rank| {
                let s = DistributedSampler::new(n, r, rank, shuffle, 3, drop_last).unwrap();
                s.set_epoch(epoch);
                let ix = s.indices().unwrap();
                assert_eq!(ix.len(), s.len());
                ix
            }).collect();
            let len = shares[0].len();
            prop_assert!(shares.iter().all(|s| s.len() == len));
            let mut all: Vec<usize> = shares.concat();
            all.sort_unstable();
            let distinct = { let mut d = all.clone(); d.dedup(); d.len() };
            if drop_last {
                prop_assert_eq!(distinct, all.len());
                prop_assert_eq!(all.len(), n / r as usize * r as usize);
            } else {
                prop_assert_eq!(distinct, n);
                prop_assert_eq!(all.len(), n.div_ceil(r as usize) * r as usize);
            }
        }
    }

    #[test]
    fn pytorch_deals_in_order_without_shuffle() {
        // PyTorch: 10 samples, 3 replicas: padded to 12 with 0 and 1, rank 1
        // gets indices 1, 4, 7, 0.
        let s = DistributedSampler::new(10, 3, 1, false, 0, false).unwrap();
        assert_eq!(s.indices().unwrap(), vec![1, 4, 7, 0]);
        let s = DistributedSampler::new(10, 3, 2, false, 0, true).unwrap();
        assert_eq!(s.indices().unwrap(), vec![2, 5, 8]);
    }

    #[test]
    fn set_epoch_reshuffles() {
        let s = DistributedSampler::new(50, 2, 0, true, 0, false).unwrap();
        let a = s.indices().unwrap();
        s.set_epoch(1);
        assert_ne!(a, s.indices().unwrap());
        s.set_epoch(0);
        assert_eq!(a, s.indices().unwrap());
    }
}
