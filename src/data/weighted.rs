//! `WeightedRandomSampler(weights, num_samples, replacement=True,
//! generator=None)`: each pass deals `num_samples` indices drawn with the
//! weights' odds (a class-balanced loader's sampler), as PyTorch's: one
//! `torch.multinomial` of the weights in double precision per pass, from
//! its generator or the session's CPU generator.

use crate::data::generator::TorchGenerator;
use crate::error::Error;
use crate::runtime::cpu_random::{multinomial, CpuGenerator};
use crate::runtime::lock::lock;
use crate::vocab::DType;

#[derive(Debug)]
pub struct WeightedSampler {
    pub weights: Vec<f64>,
    pub num_samples: usize,
    pub replacement: bool,
    pub generator: Option<TorchGenerator>,
}

impl WeightedSampler {
    /// Checked as `torch.multinomial` checks its weights when a pass
    /// draws (PyTorch's sampler takes anything and fails at the draw):
    /// here, when it is made, with multinomial's messages.
    pub fn new(
        weights: Vec<f64>,
        num_samples: usize,
        replacement: bool,
        generator: Option<TorchGenerator>,
    ) -> Result<WeightedSampler, Error> {
        if weights.iter().any(|w| !w.is_finite()) {
            return Err(Error::value(
                "probability tensor contains either `inf`, `nan` or element < 0",
            ));
        }
        if weights.iter().any(|&w| w < 0.0) {
            return Err(Error::value(
                "probability tensor contains either `inf`, `nan` or element < 0",
            ));
        }
        if !weights.iter().any(|&w| w > 0.0) {
            return Err(Error::value(
                "invalid multinomial distribution (sum of probabilities <= 0)",
            ));
        }
        let nonzero = weights.iter().filter(|&&w| w > 0.0).count();
        if !replacement && num_samples > nonzero {
            return Err(Error::value(
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
            ));
        }
        Ok(WeightedSampler {
            weights,
            num_samples,
            replacement,
            generator,
        })
    }

    /// One pass's indices: PyTorch's `torch.multinomial(weights,
    /// num_samples, replacement, generator=...)`.
    pub fn indices(&self, session: &mut CpuGenerator) -> Vec<usize> {
        let draw = |g: &mut CpuGenerator| {
            let n = self.weights.len();
            multinomial::draw(
                g,
                &self.weights,
                n,
                self.num_samples,
                self.replacement,
                DType::F64,
            )
        };
        let picked = match &self.generator {
            Some(own) => draw(&mut lock(&own.0)),
            None => draw(session),
        };
        picked.into_iter().map(|i| i as usize).collect()
    }

    pub fn describe(&self) -> String {
        format!(
            "WeightedRandomSampler of {} weights, {} samples a pass {} replacement",
            self.weights.len(),
            self.num_samples,
            match self.replacement {
                true => "with",
                false => "without",
            }
        )
    }
}
