//! `RandomSampler(dataset, replacement, num_samples)`: the indices it
//! deals, drawn as PyTorch 2.15's `torch.utils.data.RandomSampler` draws
//! them: a seed from the session's cpu generator for each pass, a CPU
//! generator (`mt19937.rs`) seeded with it, then `randint(n, (32,))` at a
//! time with replacement, or one `randperm(n)` after another without. The
//! draws are made as the loader asks for them, so `num_samples=10**10`
//! (makemore's endless loader) starts at once and holds 32 indices.

use std::collections::VecDeque;

use super::generator::TorchGenerator;
use crate::error::Error;
use crate::runtime::cpu_random::CpuGenerator;

#[derive(Debug)]
pub struct RandomSampler {
    /// The dataset's samples.
    pub samples: usize,
    pub replacement: bool,
    /// How many indices a pass deals (the dataset's size when not given).
    pub num_samples: usize,
    /// `generator=`: every pass draws on from it (none: each pass a new
    /// generator seeded from the cpu's).
    pub generator: Option<TorchGenerator>,
}

/// PyTorch draws with replacement this many at a time.
const CHUNK: usize = 32;

impl RandomSampler {
    /// Checked as PyTorch checks it; an error names its argument.
    pub fn new(
        samples: usize,
        replacement: bool,
        num_samples: Option<i64>,
    ) -> Result<RandomSampler, (Error, &'static str)> {
        let count = num_samples.unwrap_or(samples as i64);
        if count <= 0 {
            return Err((
                Error::value(format!(
                    "num_samples should be a positive integer value, but got num_samples={count}"
                )),
                match num_samples {
                    Some(_) => "num_samples",
                    None => "data_source",
                },
            ));
        }
        Ok(RandomSampler {
            samples,
            replacement,
            num_samples: count as usize,
            generator: None,
        })
    }

    /// Drawn from `generator` (`RandomSampler(ds, generator=g)`).
    pub fn with_generator(mut self, generator: Option<TorchGenerator>) -> RandomSampler {
        self.generator = generator;
        self
    }

    /// One pass's indices: drawn from its `generator=`, else from a
    /// generator seeded with `seed` (the draw PyTorch makes with
    /// `torch.empty((), dtype=torch.int64).random_()`).
    pub fn draws(&self, seed: u64) -> Result<Draws, Error> {
        let n = self.samples;
        if n == 0 {
            return Err(match self.replacement {
                true => Error::Module {
                    class: "RuntimeError",
                    message: "random_ expects 'from' to be less than 'to', but got from=0 >= to=0"
                        .into(),
                    help: Some("the sampler's dataset is empty: there is nothing to draw".into()),
                },
                false => Error::Module {
                    class: "ZeroDivisionError",
                    message: "integer division or modulo by zero".into(),
                    help: Some("the sampler's dataset is empty: there is nothing to draw".into()),
                },
            });
        }
        if !self.replacement {
            super::sampler::permutation_fits(n)?;
        }
        Ok(Draws {
            n,
            left: self.num_samples,
            whole: self.num_samples.is_multiple_of(n),
            replacement: self.replacement,
            engine: match &self.generator {
                Some(g) => Engine::Shared(g.clone()),
                None => Engine::Own(Box::new(CpuGenerator::new(seed))),
            },
            ready: VecDeque::new(),
        })
    }

    pub fn describe(&self) -> String {
        format!(
            "RandomSampler(replacement={}, num_samples={}) over {} samples",
            self.replacement, self.num_samples, self.samples
        )
    }
}

/// A pass's indices not dealt yet: those drawn and waiting, and the
/// generator the next are drawn from.
#[derive(Debug, Clone, PartialEq)]
pub struct Draws {
    n: usize,
    /// Indices of the pass not dealt yet.
    left: usize,
    /// Whether the pass is whole permutations (no last one cut short).
    whole: bool,
    replacement: bool,
    engine: Engine,
    ready: VecDeque<usize>,
}

/// What a pass draws from: its own generator, or the program's.
#[derive(Debug, Clone, PartialEq)]
enum Engine {
    Own(Box<CpuGenerator>),
    Shared(TorchGenerator),
}

impl Engine {
    fn below(&mut self, n: u64) -> u64 {
        match self {
            Engine::Own(g) => g.integer(n, 0) as u64,
            Engine::Shared(g) => g.below(n),
        }
    }

    fn randperm(&mut self, n: usize) -> Vec<usize> {
        match self {
            Engine::Own(g) => g.randperm(n),
            Engine::Shared(g) => g.randperm(n),
        }
    }
}

/// The pass's indices, in order.
impl Iterator for Draws {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        if self.ready.is_empty() {
            match self.replacement {
                // `randint(high=n, size=(32,))`, the last call the rest.
                true => {
                    let n = self.n as u64;
                    for _ in 0..self.left.min(CHUNK) {
                        self.ready.push_back(self.engine.below(n) as usize);
                    }
                }
                // `randperm(n)`, the last one cut to what is left.
                false => {
                    let mut perm = self.engine.randperm(self.n);
                    perm.truncate(self.left);
                    self.ready.extend(perm);
                }
            }
        }
        self.left -= 1;
        // PyTorch's pass ends with `randperm(n)[: num_samples % n]`, drawn
        // also when that cuts it to nothing: a generator the program holds
        // has moved on by one more permutation when the next pass starts.
        if self.left == 0 && !self.replacement && self.whole {
            if let Engine::Shared(g) = &self.engine {
                g.randperm(self.n);
            }
        }
        self.ready.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dealt(n: usize, replacement: bool, count: Option<i64>, seed: u64) -> Vec<usize> {
        let s = RandomSampler::new(n, replacement, count).unwrap();
        s.draws(seed).unwrap().collect()
    }

    /// Printed by PyTorch 2.15: `g = torch.Generator(); g.manual_seed(s);
    /// list(RandomSampler(range(n), replacement, num_samples, generator=g))`.
    #[test]
    fn the_indices_are_pytorchs() {
        assert_eq!(dealt(10, false, None, 5), [1, 4, 9, 6, 3, 5, 0, 2, 8, 7]);
        assert_eq!(
            dealt(5, false, Some(12), 3),
            PYTORCH_NO_REPLACEMENT_5_12_SEED_3
        );
        assert_eq!(
            dealt(7, true, Some(40), 11),
            PYTORCH_REPLACEMENT_7_40_SEED_11
        );
    }

    const PYTORCH_NO_REPLACEMENT_5_12_SEED_3: [usize; 12] = [1, 0, 3, 4, 2, 0, 1, 2, 4, 3, 1, 4];
    #[rustfmt::skip]
    const PYTORCH_REPLACEMENT_7_40_SEED_11: [usize; 40] = [
        4, 2, 0, 4, 3, 3, 2, 3, 3, 1, 5, 6, 5, 2, 6, 1, 4, 6, 1, 5,
        5, 4, 2, 2, 2, 4, 4, 4, 0, 6, 5, 0, 6, 1, 2, 4, 2, 2, 2, 4,
    ];

    #[test]
    fn a_huge_pass_is_drawn_as_dealt() {
        let s = RandomSampler::new(3, true, Some(10_000_000_000)).unwrap();
        let mut d = s.draws(0).unwrap();
        for _ in 0..100 {
            assert!(d.next().unwrap() < 3);
        }
        assert!(d.ready.len() < CHUNK);
    }

    #[test]
    fn pytorchs_errors() {
        let e = RandomSampler::new(0, false, None).unwrap_err();
        assert_eq!(
            e.0.to_string(),
            "num_samples should be a positive integer value, but got num_samples=0"
        );
        let s = RandomSampler::new(0, true, Some(4)).unwrap();
        assert!(s
            .draws(0)
            .unwrap_err()
            .to_string()
            .contains("from=0 >= to=0"));
    }
}
