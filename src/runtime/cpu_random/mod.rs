//! PyTorch's CPU generator (`CPUGeneratorImpl`): the Mersenne Twister
//! (`mt19937.rs`) and the distributions its kernels draw with
//! (`DistributionsHelper.h`, `TransformationHelper.h`), so a CPU tensor's
//! random numbers after `torch.manual_seed(s)` (or from
//! `torch.Generator().manual_seed(s)`) are the ones PyTorch draws: `rand`,
//! `randn`, `randint`, `randperm`, `bernoulli`, dropout's mask, `multinomial`
//! and every `nn.init` fill. `fill.rs` fills a tensor as the kernels do,
//! `multinomial.rs` draws categories.
//! CUDA devices draw from Philox (`rng.rs`).

pub mod cephes;
pub mod fill;
pub mod mt19937;
pub mod multinomial;
pub mod samplers;
pub mod state;

use mt19937::Mt19937;

/// PyTorch's seed of a generator no one seeded (`default_rng_seed_val`).
pub const DEFAULT_SEED: u64 = 67_280_421_310_721;

/// One CPU generator: its engine, the seed it started from, and the second
/// normal number of the last Box–Muller pair, kept for the next draw.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuGenerator {
    engine: Mt19937,
    seed: u64,
    /// `next_double_normal_sample`.
    next_normal: Option<f64>,
}

impl Default for CpuGenerator {
    fn default() -> Self {
        CpuGenerator::new(DEFAULT_SEED)
    }
}

impl CpuGenerator {
    /// `manual_seed(seed)`: the engine from the seed's low 32 bits, no
    /// normal number kept.
    pub fn new(seed: u64) -> CpuGenerator {
        CpuGenerator {
            engine: Mt19937::new(seed),
            seed,
            next_normal: None,
        }
    }

    /// `torch.get_rng_state()`: PyTorch's bytes for this generator's place.
    pub fn state_bytes(&self) -> Vec<u8> {
        state::to_bytes(self.seed, &self.engine, self.next_normal)
    }

    /// `torch.set_rng_state(bytes)`: the generator at the place they hold.
    pub fn set_state_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        let (seed, engine, next_normal) = state::from_bytes(bytes)?;
        *self = CpuGenerator {
            engine,
            seed,
            next_normal,
        };
        Ok(())
    }

    /// What `manual_seed` was given (`initial_seed()`).
    pub fn initial_seed(&self) -> u64 {
        self.seed
    }

    /// 32 random bits (`random()`).
    pub fn random(&mut self) -> u32 {
        self.engine.next_u32()
    }

    /// 64 random bits, the first draw high (`random64()`).
    pub fn random64(&mut self) -> u64 {
        let hi = u64::from(self.random());
        (hi << 32) | u64::from(self.random())
    }

    /// `uniform_real_distribution<float>(from, to)`: 24 random bits as a
    /// float in [0, 1), then `x * (to - from) + from` in float, the
    /// multiply and add fused as PyTorch's x86 build compiles them.
    pub fn uniform_f32(&mut self, from: f32, to: f32) -> f32 {
        let x = (self.random() & 0x00ff_ffff) as f32 * (1.0 / 16_777_216.0);
        x.mul_add(to - from, from)
    }

    /// `uniform_real_distribution<double>(from, to)`: 53 random bits.
    pub fn uniform_f64(&mut self, from: f64, to: f64) -> f64 {
        let x = (self.random64() & ((1 << 53) - 1)) as f64 * (1.0 / 9_007_199_254_740_992.0);
        x.mul_add(to - from, from)
    }

    /// `normal_distribution<double>(mean, std)`: Box–Muller on two uniform
    /// doubles, the sine's number kept for the next call.
    pub fn normal_f64(&mut self, mean: f64, std: f64) -> f64 {
        if let Some(z) = self.next_normal.take() {
            return z * std + mean;
        }
        let u1 = self.uniform_f64(0.0, 1.0);
        let u2 = self.uniform_f64(0.0, 1.0);
        let r = (-2.0 * (-u2).ln_1p()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u1;
        self.next_normal = Some(r * theta.sin());
        r * theta.cos() * std + mean
    }

    /// `uniform_int_from_to_distribution(range, base)` (`randint`,
    /// `random_(from, to)`): 32 random bits modulo the range, 64 when the
    /// range is 2^28 or more.
    pub fn integer(&mut self, range: u64, base: i64) -> i64 {
        let draw = match range >= 1 << 28 {
            true => self.random64(),
            false => u64::from(self.random()),
        };
        (draw % range).wrapping_add(base as u64) as i64
    }

    /// `bernoulli_distribution<double>(p)`: a uniform double below `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform_f64(0.0, 1.0) < p
    }

    /// `bernoulli_distribution<float>(p)` (a float tensor of probabilities).
    pub fn bernoulli_f32(&mut self, p: f32) -> bool {
        self.uniform_f32(0.0, 1.0) < p
    }

    /// `exponential_distribution<double>(lambda)`: `-1 / lambda * log1p(-u)`.
    pub fn exponential(&mut self, lambda: f64) -> f64 {
        -1.0 / lambda * (-self.uniform_f64(0.0, 1.0)).ln_1p()
    }

    /// `geometric_distribution<double>(p)`: `ceil(log(u) / log1p(-p))`.
    pub fn geometric(&mut self, p: f64) -> f64 {
        (self.uniform_f64(0.0, 1.0).ln() / (-p).ln_1p()).ceil()
    }

    /// `lognormal_distribution<double>(mean, std)`: `exp` of a normal draw.
    pub fn log_normal(&mut self, mean: f64, std: f64) -> f64 {
        self.normal_f64(mean, std).exp()
    }

    /// `cauchy_distribution<double>(median, sigma)`:
    /// `median + sigma * tan(pi * (u - 0.5))`.
    pub fn cauchy(&mut self, median: f64, sigma: f64) -> f64 {
        let u = self.uniform_f64(0.0, 1.0);
        median + sigma * (std::f64::consts::PI * (u - 0.5)).tan()
    }

    /// `randperm(n)` as `randperm_cpu` draws it.
    pub fn randperm(&mut self, n: usize) -> Vec<usize> {
        mt19937::randperm_with(&mut self.engine, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printed by PyTorch 2.15 after `torch.manual_seed(0)`:
    /// `torch.rand(3, dtype=torch.float64)`, `torch.randint(0, 10, (5,))`
    /// then `torch.randint(0, 2**30, (3,))`.
    #[test]
    fn draws_are_pytorchs() {
        let mut g = CpuGenerator::new(0);
        assert_eq!(g.uniform_f64(0.0, 1.0), 0.970_053_001_806_553_1);
        assert_eq!(g.uniform_f64(0.0, 1.0), 0.707_819_864_399_788);
        let mut g = CpuGenerator::new(0);
        let small: Vec<i64> = (0..5).map(|_| g.integer(10, 0)).collect();
        assert_eq!(small, [4, 9, 3, 0, 3]);
        let wide: Vec<i64> = (0..3).map(|_| g.integer(1 << 30, 0)).collect();
        assert_eq!(wide, [192_771_779, 745_841_673, 626_610_453]);
    }

    /// `torch.manual_seed(0); torch.randn(3, dtype=torch.float64)` then
    /// `torch.randn(2)`: the fourth number of the first call's pairs is the
    /// second call's first.
    #[test]
    fn a_kept_normal_number_is_drawn_next() {
        let mut g = CpuGenerator::new(0);
        let first: Vec<f64> = (0..3).map(|_| g.normal_f64(0.0, 1.0)).collect();
        assert_eq!(
            first,
            [
                1.540_996_108_244_043_3,
                -0.293_428_905_760_946_4,
                -2.178_789_382_074_557_4
            ]
        );
        let next: Vec<f32> = (0..2).map(|_| g.normal_f64(0.0, 1.0) as f32).collect();
        assert_eq!(next, [0.568_431_26, -1.084_522_4]);
    }
}
