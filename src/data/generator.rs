//! `torch.Generator()` on the CPU: PyTorch's CPU generator
//! (`runtime::cpu_random`) a program makes and seeds itself
//! (`torch.Generator().manual_seed(42)`), shared by everything given it
//! (`random_split`, `RandomSampler`, a `DataLoader`, `randperm`, `randn`,
//! `multinomial`...), each drawing on from where the last left it.

use std::sync::{Arc, Mutex};

use crate::runtime::cpu_random::CpuGenerator;
use crate::runtime::lock::lock;

/// A generator as the program holds it: every holder draws from one state.
#[derive(Debug, Clone, Default)]
pub struct TorchGenerator(pub Arc<Mutex<CpuGenerator>>);

impl PartialEq for TorchGenerator {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl TorchGenerator {
    pub fn seeded(seed: u64) -> TorchGenerator {
        TorchGenerator(Arc::new(Mutex::new(CpuGenerator::new(seed))))
    }

    /// Another generator in this one's state (a forked worker's copy).
    pub fn copied(&self) -> TorchGenerator {
        TorchGenerator(Arc::new(Mutex::new(lock(&self.0).clone())))
    }

    /// `g.manual_seed(seed)`: its state starts again from `seed`.
    pub fn manual_seed(&self, seed: u64) {
        *lock(&self.0) = CpuGenerator::new(seed);
    }

    pub fn initial_seed(&self) -> u64 {
        lock(&self.0).initial_seed()
    }

    /// `torch.empty((), dtype=torch.int64).random_(generator=g)`: 64 bits
    /// (the first 32 high), kept to int64's positive range.
    pub fn random_int64(&self) -> u64 {
        lock(&self.0).random64() % (1u64 << 63)
    }

    /// `torch.randperm(n, generator=g)` on the CPU.
    pub fn randperm(&self, n: usize) -> Vec<usize> {
        lock(&self.0).randperm(n)
    }

    /// `randint(high=n)`'s draw.
    pub fn below(&self, n: u64) -> u64 {
        lock(&self.0).integer(n, 0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printed by PyTorch 2.15: `g = torch.Generator(); g.manual_seed(5);`
    /// then `torch.empty((), dtype=torch.int64).random_(generator=g)`
    /// and `torch.randperm(10, generator=g).tolist()`.
    #[test]
    fn draws_are_pytorchs() {
        let g = TorchGenerator::seeded(5);
        assert_eq!(g.random_int64(), PYTORCH_RANDOM_SEED_5);
        assert_eq!(g.randperm(10), PYTORCH_RANDPERM_AFTER);
        let fresh = TorchGenerator::default();
        assert_eq!(fresh.initial_seed(), 67_280_421_310_721);
    }

    const PYTORCH_RANDOM_SEED_5: u64 = 4_095_051_218_741_643_470;
    const PYTORCH_RANDPERM_AFTER: [usize; 10] = [7, 4, 8, 1, 2, 3, 6, 5, 9, 0];
}
