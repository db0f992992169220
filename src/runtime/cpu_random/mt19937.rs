//! PyTorch's CPU generator engine (`at::mt19937`, the 32-bit Mersenne
//! Twister), and `torch.randperm(n, generator=g)` on the CPU as
//! `randperm_cpu` draws it: what `DistributedSampler` shuffles with, so
//! its ranks' shares are PyTorch's own for the same seed and epoch.

/// The Mersenne Twister MT19937, seeded as `torch.Generator().manual_seed(s)`.
/// Its place is PyTorch's pair: `left`, the draws until the next twist
/// (1 after seeding: the first draw twists), and `next`, the word drawn
/// next (what `torch.get_rng_state()` holds).
#[derive(Debug, Clone, PartialEq)]
pub struct Mt19937 {
    state: [u32; 624],
    left: u32,
    next: usize,
}

/// An engine's state as PyTorch's `mt19937_data_pod` holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub state: [u32; 624],
    pub left: u32,
    pub next: u32,
}

impl Mt19937 {
    /// `manual_seed(seed)`: the state from the seed's low 32 bits.
    pub fn new(seed: u64) -> Mt19937 {
        let mut state = [0u32; 624];
        state[0] = seed as u32;
        for j in 1..624 {
            let prev = state[j - 1];
            state[j] = 1812433253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(j as u32);
        }
        Mt19937 {
            state,
            left: 1,
            next: 0,
        }
    }

    /// The state and place (`torch.get_rng_state()`'s words).
    pub fn place(&self) -> Place {
        Place {
            state: self.state,
            left: self.left,
            next: self.next as u32,
        }
    }

    /// The engine at `place`, if PyTorch's check (`is_valid`) accepts it:
    /// `left` in 1..=624 and `next` at most 624.
    pub fn at(place: &Place) -> Option<Mt19937> {
        ((1..=624).contains(&place.left) && place.next <= 624).then_some(Mt19937 {
            state: place.state,
            left: place.left,
            next: place.next as usize,
        })
    }

    /// CPython's index into the state (`random.getstate()`'s last item):
    /// 624 when the next draw twists.
    pub fn cpython_index(&self) -> u32 {
        match self.left {
            1 => 624,
            _ => self.next as u32,
        }
    }

    /// The engine at CPython's `(state, index)` (`random.setstate`).
    pub fn at_cpython_index(state: [u32; 624], index: u32) -> Option<Mt19937> {
        (index <= 624).then_some(Mt19937 {
            state,
            left: 625 - index,
            next: index as usize,
        })
    }

    /// CPython's `init_by_array` (`random.seed(n)` with the integer's
    /// 32-bit words as the key): the state from `init_genrand(19650218)`
    /// mixed with the key.
    pub fn from_key(key: &[u32]) -> Mt19937 {
        const N: usize = 624;
        let mut t = Mt19937::new(19_650_218);
        let mt = &mut t.state;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        t
    }

    /// The next 32 random bits (`generator->random()`).
    pub fn next_u32(&mut self) -> u32 {
        self.left -= 1;
        if self.left == 0 {
            self.twist();
        }
        let mut y = self.state[self.next];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    fn twist(&mut self) {
        for i in 0..624 {
            let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % 624] & 0x7fff_ffff);
            let mut v = self.state[(i + 397) % 624] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= 0x9908_b0df;
            }
            self.state[i] = v;
        }
        self.left = 624;
        self.next = 0;
    }
}

/// `torch.randperm(n, generator=Generator().manual_seed(seed))` on the
/// CPU: `randperm_cpu`'s swaps, each with `random() % (n - i)` (its path
/// for n below 2^32 / 20, every dataset a session can hold).
pub fn randperm(n: usize, seed: u64) -> Vec<usize> {
    randperm_with(&mut Mt19937::new(seed), n)
}

/// `torch.randperm(n, generator=g)` on the CPU, `g` drawn on from where
/// it is.
pub fn randperm_with(g: &mut Mt19937, n: usize) -> Vec<usize> {
    let mut r: Vec<usize> = (0..n).collect();
    for i in 0..n.saturating_sub(1) {
        let z = g.next_u32() as usize % (n - i);
        r.swap(i, z + i);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printed by PyTorch 2.15: `g = torch.Generator(); g.manual_seed(5);
    /// torch.randperm(10, generator=g).tolist()`, and with seed 0 and 7.
    #[test]
    fn randperm_is_pytorchs() {
        assert_eq!(randperm(10, 5), [1, 4, 9, 6, 3, 5, 0, 2, 8, 7]);
        assert_eq!(randperm(7, 0), [4, 0, 5, 3, 2, 6, 1]);
    }

    /// The reference sequence of MT19937 seeded with 5489 (its default).
    #[test]
    fn the_engine_is_the_reference_mersenne_twister() {
        let mut g = Mt19937::new(5489);
        assert_eq!(g.next_u32(), 3499211612);
        assert_eq!(g.next_u32(), 581869302);
    }
}
