//! A counter-based generator (Philox4x32-10), the same family CUDA's curand uses,
//! so every backend can draw identical numbers from a seed and an offset.

use super::buffer::PAR_MIN;
use super::cpu_random::CpuGenerator;
use super::parallel;

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox4x32 with 10 rounds: four random words from a 128-bit counter and a 64-bit key.
pub fn philox(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    for _ in 0..10 {
        let p0 = (M0 as u64) * (c[0] as u64);
        let p1 = (M1 as u64) * (c[2] as u64);
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

/// One generator per device, as PyTorch has: the CPU's (PyTorch's own,
/// `cpu_random`) and each CUDA device's (Philox): a draw on cuda:0 does not
/// change what cuda:1 or the CPU draws next. `reseed(n)` seeds them all
/// with `n` (`torch.manual_seed`, which seeds every device).
#[derive(Debug, Clone, PartialEq)]
pub struct Generators {
    /// What a generator not made yet starts from.
    seed: u64,
    cpu: CpuGenerator,
    /// cuda:0's, cuda:1's, ... (made when first drawn from).
    cuda: Vec<Generator>,
}

impl Generators {
    pub fn new(seed: u64) -> Generators {
        Generators {
            seed,
            cpu: CpuGenerator::new(seed),
            cuda: Vec::new(),
        }
    }

    /// What the generators started from (`manual_seed`'s last seed).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Every device's generator starts again from `seed`.
    pub fn reseed(&mut self, seed: u64) {
        *self = Generators::new(seed);
    }

    /// PyTorch's `torch.cuda.manual_seed_all(seed)`: every CUDA device's
    /// generator starts again from `seed`; the host's keeps its place.
    pub fn reseed_cuda(&mut self, seed: u64) {
        self.seed = seed;
        self.cuda.clear();
    }

    /// The CPU's generator (`torch.default_generator`).
    pub fn cpu(&mut self) -> &mut CpuGenerator {
        &mut self.cpu
    }

    /// CUDA device `d`'s generator.
    pub fn cuda(&mut self, d: u32) -> &mut Generator {
        let i = d as usize;
        if self.cuda.len() <= i {
            let seed = self.seed;
            self.cuda.resize_with(i + 1, || Generator::new(seed));
        }
        &mut self.cuda[i]
    }
}

/// Integer `j` of a block for `randint` (the kernel's `integer_at`).
pub fn integer(w: &[u32; 4], j: usize, low: i64, range: u64) -> i64 {
    let draw = match range > 1 << 32 {
        true => (u64::from(w[j]) << 32) | u64::from(w[(j + 1) % 4]),
        false => u64::from(w[j]),
    };
    low.wrapping_add((draw % range) as i64)
}

/// A device's generator: a seed and how many 4-word blocks have been used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generator {
    pub seed: u64,
    pub offset: u64,
}

impl Generator {
    /// `torch.cuda.get_rng_state()`: PyTorch's 16 bytes, the seed then the
    /// offset (cudash's: the 4-word blocks drawn).
    pub fn state_bytes(&self) -> Vec<u8> {
        [self.seed.to_le_bytes(), self.offset.to_le_bytes()].concat()
    }

    /// `torch.cuda.set_rng_state(bytes)`.
    pub fn set_state_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        let [seed, offset] = [0, 8].map(|at| bytes.get(at..at + 8));
        match (bytes.len(), seed, offset) {
            (16, Some(seed), Some(offset)) => {
                self.seed = u64::from_le_bytes(seed.try_into().expect("8 bytes"));
                self.offset = u64::from_le_bytes(offset.try_into().expect("8 bytes"));
                Ok(())
            }
            _ => Err(format!(
                "RNG state is wrong size: a CUDA generator's state is 16 bytes, not {}",
                bytes.len()
            )),
        }
    }

    pub fn new(seed: u64) -> Self {
        Generator { seed, offset: 0 }
    }

    /// Reserves `blocks` counter blocks and returns the first.
    fn take(&mut self, blocks: u64) -> u64 {
        let first = self.offset;
        self.offset = self.offset.wrapping_add(blocks);
        first
    }

    fn block(&self, index: u64) -> [u32; 4] {
        let key = [self.seed as u32, (self.seed >> 32) as u32];
        philox([index as u32, (index >> 32) as u32, 0, 0], key)
    }

    /// One 64-bit draw (a seed for another generator, as PyTorch draws a
    /// DataLoader's base seed with `random_()`).
    pub fn next_u64(&mut self) -> u64 {
        let index = self.take(1);
        let w = self.block(index);
        (u64::from(w[0]) << 32) | u64::from(w[1])
    }

    /// `n` numbers uniform in [0, 1).
    pub fn uniform(&mut self, n: usize) -> Vec<f64> {
        let first = self.take(n.div_ceil(4) as u64);
        self.fill(n, |g, b, out: &mut [f64]| {
            let w = g.block(first + b);
            for (o, &x) in out.iter_mut().zip(&w) {
                *o = (x >> 8) as f64 * (1.0 / (1u32 << 24) as f64);
            }
        })
    }

    /// `n` numbers from the standard normal distribution (Box-Muller).
    pub fn normal(&mut self, n: usize) -> Vec<f64> {
        let first = self.take(n.div_ceil(4) as u64);
        self.fill(n, |g, b, out: &mut [f64]| {
            let w = g.block(first + b);
            let mut z = [0f64; 4];
            for pair in 0..2 {
                let u1 = (w[2 * pair] as f64 + 1.0) / 4_294_967_296.0;
                let u2 = w[2 * pair + 1] as f64 / 4_294_967_296.0;
                let r = (-2.0 * u1.ln()).sqrt();
                let t = std::f64::consts::TAU * u2;
                z[2 * pair] = r * t.cos();
                z[2 * pair + 1] = r * t.sin();
            }
            for (o, &x) in out.iter_mut().zip(&z) {
                *o = x;
            }
        })
    }

    /// `n` integers uniform in `[low, low + range)` (`randint`): each of a
    /// block's four words modulo the range, as PyTorch's `random_from_to`
    /// takes a 32-bit draw; a range wider than 2^32 takes the word and the
    /// next one of its block as 64 bits. `range` is at least 1.
    pub fn integers(&mut self, n: usize, low: i64, range: u64) -> Vec<i64> {
        let first = self.take(n.div_ceil(4) as u64);
        let mut out = Vec::with_capacity(n);
        for b in 0..n.div_ceil(4) as u64 {
            let w = self.block(first + b);
            for j in 0..4 {
                if out.len() == n {
                    break;
                }
                out.push(integer(&w, j, low, range));
            }
        }
        out
    }

    /// Fills `n` values four at a time, block `b` writing `out[4b..4b+4]`.
    fn fill(&self, n: usize, f: impl Fn(&Generator, u64, &mut [f64]) + Sync) -> Vec<f64> {
        let mut out = vec![0f64; n];
        if n >= PAR_MIN {
            let size = PAR_MIN.next_multiple_of(4);
            parallel::for_each_part(&mut out, size, |piece, part| {
                let first = piece * size / 4;
                for (b, c) in part.chunks_mut(4).enumerate() {
                    f(self, (first + b) as u64, c)
                }
            });
        } else {
            out.chunks_mut(4)
                .enumerate()
                .for_each(|(b, c)| f(self, b as u64, c));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_matches_the_published_known_answer() {
        // Random123's known-answer test for philox4x32_10 with all-ones inputs.
        let out = philox([u32::MAX; 4], [u32::MAX; 2]);
        assert_eq!(out, [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]);
        let zero = philox([0; 4], [0; 2]);
        assert_eq!(zero, [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]);
    }

    #[test]
    fn same_seed_same_numbers() {
        let (mut a, mut b) = (Generator::new(7), Generator::new(7));
        assert_eq!(a.normal(10), b.normal(10));
        assert_ne!(a.normal(10), Generator::new(8).normal(10));
    }
}
