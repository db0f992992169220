//! What cudash's NumPy (`stdlib/numpy.py`) needs below Python: its legacy
//! random numbers, drawn as NumPy's `RandomState` draws them (MT19937
//! seeded by `mt19937_seed`, doubles of two 32-bit words, Gaussians by the
//! polar method with one kept, bounded integers by masked rejection,
//! `shuffle` by Fisher–Yates from the end), and `memmap`'s read of a file
//! of numbers.
//!
//! - `_cudash.np_seed(seed)` (None: from the clock);
//! - `_cudash.np_uniform(n)`, `np_gauss(n)`: float64 tensors of `n`;
//! - `_cudash.np_randint(low, high, n)`: int64 in `[low, high)`;
//! - `_cudash.np_permutation(n)`: `permutation(n)`;
//! - `_cudash.np_read(path, dtype, offset)`: the file's numbers;
//! - `_cudash.np_f32_text(t)`: each float32 (or float16) of `t` in its
//!   shortest decimal (NumPy prints one so, not as the float64 it widens to).

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::cpu_random::mt19937::Mt19937;
use crate::runtime::Tensor;

/// The names this module answers.
pub const NAMES: [&str; 7] = [
    "_cudash.np_f32_text",
    "_cudash.np_seed",
    "_cudash.np_uniform",
    "_cudash.np_gauss",
    "_cudash.np_randint",
    "_cudash.np_permutation",
    "_cudash.np_read",
];

/// NumPy's legacy state: the engine and the Gaussian kept for next time.
struct Legacy {
    mt: Mt19937,
    gauss: Option<f64>,
}

impl Legacy {
    fn seeded(seed: u32) -> Legacy {
        Legacy {
            mt: Mt19937::new(u64::from(seed)),
            gauss: None,
        }
    }

    fn next_u64(&mut self) -> u64 {
        let hi = u64::from(self.mt.next_u32());
        (hi << 32) | u64::from(self.mt.next_u32())
    }

    /// `mt19937_next_double`: 53 bits from two words.
    fn double(&mut self) -> f64 {
        let a = f64::from(self.mt.next_u32() >> 5);
        let b = f64::from(self.mt.next_u32() >> 6);
        (a * 67108864.0 + b) / 9007199254740992.0
    }

    /// `legacy_gauss`.
    fn gauss(&mut self) -> f64 {
        if let Some(g) = self.gauss.take() {
            return g;
        }
        loop {
            let x1 = 2.0 * self.double() - 1.0;
            let x2 = 2.0 * self.double() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.gauss = Some(f * x1);
                return f * x2;
            }
        }
    }

    /// A value in `0..=max` by masked rejection (`random_interval`, and
    /// `bounded_masked` for `randint`): 32-bit words while `max` fits.
    fn interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mut mask = max;
        for shift in [1, 2, 4, 8, 16, 32] {
            mask |= mask >> shift;
        }
        loop {
            let v = match max <= u64::from(u32::MAX) {
                true => u64::from(self.mt.next_u32()) & mask,
                false => self.next_u64() & mask,
            };
            if v <= max {
                return v;
            }
        }
    }
}

thread_local! {
    /// Each interpreter's thread its own state, as each Python process has
    /// its own (a DataLoader worker's, a rank's).
    static STATE: std::cell::RefCell<Option<Legacy>> = const { std::cell::RefCell::new(None) };
}

/// What PyTorch's DataLoader worker `worker_id` seeds NumPy with
/// (`_generate_state` of torch/utils/data/_utils/worker.py: the base
/// seed's and the worker's words hashed and mixed into four words), given
/// to NumPy's legacy `seed` as an array (`init_by_array`).
pub fn seed_worker(base_seed: u64, worker_id: u64) {
    const MASK32: u64 = 0xFFFF_FFFF;
    const INIT_A: u64 = 0x43b0_d7e5;
    const MULT_A: u64 = 0x931e_8875;
    const INIT_B: u64 = 0x8b51_f9dd;
    const MULT_B: u64 = 0x58f3_8ded;
    const MIX_MULT_L: u64 = 0xca01_f9dd;
    const MIX_MULT_R: u64 = 0x4973_f715;
    const XSHIFT: u32 = 16;
    let entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0];
    let mut hash_a = INIT_A;
    let mut hash = |v: u64| {
        let mut v = (v ^ hash_a) & MASK32;
        hash_a = (hash_a * MULT_A) & MASK32;
        v = (v * hash_a) & MASK32;
        (v ^ (v >> XSHIFT)) & MASK32
    };
    let mix = |x: u64, y: u64| {
        let r = ((MIX_MULT_L * x) & MASK32).wrapping_sub((MIX_MULT_R * y) & MASK32) & MASK32;
        (r ^ (r >> XSHIFT)) & MASK32
    };
    let mut pool = [0u64; 4];
    for (p, e) in pool.iter_mut().zip(entropy) {
        *p = hash(e);
    }
    for src in 0..4 {
        for dst in 0..4 {
            if src != dst {
                let h = hash(pool[src]);
                pool[dst] = mix(pool[dst], h);
            }
        }
    }
    let mut hash_b = INIT_B;
    let key: Vec<u32> = pool
        .iter()
        .map(|&p| {
            let mut v = (p ^ hash_b) & MASK32;
            hash_b = (hash_b * MULT_B) & MASK32;
            v = (v * hash_b) & MASK32;
            ((v ^ (v >> XSHIFT)) & MASK32) as u32
        })
        .collect();
    STATE.with(|s| {
        *s.borrow_mut() = Some(Legacy {
            mt: Mt19937::from_key(&key),
            gauss: None,
        })
    });
}

fn clock_seed() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u32)
}

fn with<R>(f: impl FnOnce(&mut Legacy) -> R) -> R {
    STATE.with(|s| {
        let mut g = s.borrow_mut();
        f(g.get_or_insert_with(|| Legacy::seeded(clock_seed())))
    })
}

impl Interp {
    pub(super) fn call_np_random(
        &mut self,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        let int = |k: usize| match args.get(k).map(|a| &a.value) {
            Some(Value::Int(i)) => Ok(*i),
            _ => Err(at(Error::value(format!("{name}: argument {k} is an int")))),
        };
        let count = |k: usize| {
            int(k).and_then(|n| {
                usize::try_from(n)
                    .map_err(|_| at(Error::value("negative dimensions are not allowed")))
            })
        };
        let f64s = |v: Vec<f64>| {
            let n = v.len();
            Value::tensor(Tensor::from_vec(v, vec![n]))
        };
        let i64s = |v: Vec<i64>| {
            let n = v.len();
            Value::tensor(Tensor::from_vec(v, vec![n]))
        };
        Ok(match name {
            "_cudash.np_seed" => {
                let seed = match args.first().map(|a| &a.value) {
                    None | Some(Value::None) => clock_seed(),
                    Some(Value::Int(i)) if (0..=i64::from(u32::MAX)).contains(i) => *i as u32,
                    Some(Value::Int(_)) => {
                        return Err(at(Error::value("Seed must be between 0 and 2**32 - 1")))
                    }
                    Some(other) => {
                        return Err(at(Error::wrong_type(
                            "np.random.seed's seed",
                            "an int",
                            other.type_name(),
                        )))
                    }
                };
                STATE.with(|s| *s.borrow_mut() = Some(Legacy::seeded(seed)));
                Value::None
            }
            "_cudash.np_uniform" => {
                let n = count(0)?;
                f64s(with(|s| (0..n).map(|_| s.double()).collect()))
            }
            "_cudash.np_gauss" => {
                let n = count(0)?;
                f64s(with(|s| (0..n).map(|_| s.gauss()).collect()))
            }
            "_cudash.np_randint" => {
                let (low, high, n) = (int(0)?, int(1)?, count(2)?);
                if high <= low {
                    return Err(at(Error::value("low >= high")));
                }
                let rng = (high as i128 - 1 - low as i128) as u64;
                i64s(with(|s| {
                    (0..n)
                        .map(|_| (low as i128 + s.interval(rng) as i128) as i64)
                        .collect()
                }))
            }
            "_cudash.np_f32_text" => {
                let Some(Value::Tensor(t)) = args.first().map(|a| &a.value) else {
                    return Err(at(Error::value("np_f32_text takes a tensor")));
                };
                let texts = match t.dtype() {
                    crate::runtime::DType::F16 => t
                        .to_vec::<f64>()
                        .into_iter()
                        .map(|x| Value::Str(Arc::new(shortest_f16(x))))
                        .collect(),
                    _ => t
                        .to_vec::<f32>()
                        .into_iter()
                        .map(|x| Value::Str(Arc::new(format!("{x}"))))
                        .collect(),
                };
                Value::list(texts)
            }
            "_cudash.np_permutation" => {
                let n = count(0)?;
                let mut v: Vec<i64> = (0..n as i64).collect();
                with(|s| {
                    for i in (1..n).rev() {
                        let j = s.interval(i as u64) as usize;
                        v.swap(i, j);
                    }
                });
                i64s(v)
            }
            _ => {
                let Some(Value::Str(path)) = args.first().map(|a| &a.value) else {
                    return Err(at(Error::value("memmap: the file's path is a string")));
                };
                let Some(Value::Str(dtype)) = args.get(1).map(|a| &a.value) else {
                    return Err(at(Error::value("memmap: a dtype's name")));
                };
                let offset = count(2)?;
                let bytes = std::fs::read(path.as_str()).map_err(|e| {
                    at(Error::Io {
                        action: "read".into(),
                        path: path.to_string(),
                        reason: e.to_string(),
                    })
                })?;
                let body = bytes.get(offset..).unwrap_or_default();
                read_numbers(body, dtype).map_err(|m| at(Error::value(m)))?
            }
        })
    }
}

/// The little-endian numbers of `body` as a 1-d tensor of `dtype` (16-bit
/// words widened to int64: cudash has no uint16).
fn read_numbers(body: &[u8], dtype: &str) -> Result<Value, String> {
    fn words<const N: usize, T>(body: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
        body.chunks_exact(N)
            .map(|c| f(c.try_into().unwrap_or([0; N])))
            .collect()
    }
    let t = match dtype {
        "uint8" => Tensor::from_vec(body.to_vec(), vec![body.len()]),
        "uint16" => {
            let v = words::<2, i64>(body, |b| i64::from(u16::from_le_bytes(b)));
            let n = v.len();
            Tensor::from_vec(v, vec![n])
        }
        "int32" => {
            let v = words::<4, i32>(body, i32::from_le_bytes);
            let n = v.len();
            Tensor::from_vec(v, vec![n])
        }
        "int64" => {
            let v = words::<8, i64>(body, i64::from_le_bytes);
            let n = v.len();
            Tensor::from_vec(v, vec![n])
        }
        "float32" => {
            let v = words::<4, f32>(body, f32::from_le_bytes);
            let n = v.len();
            Tensor::from_vec(v, vec![n])
        }
        "float64" => {
            let v = words::<8, f64>(body, f64::from_le_bytes);
            let n = v.len();
            Tensor::from_vec(v, vec![n])
        }
        other => return Err(format!("cudash's memmap reads uint8, uint16, int32, int64, float32 and float64 files, not {other}")),
    };
    Ok(Value::Tensor(Arc::new(t)))
}

/// The shortest decimal that reads back as the same float16 (`x` is one,
/// widened), as NumPy prints a float16.
fn shortest_f16(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let h = half::f16::from_f64(x);
    (1..=5)
        .map(|digits| format!("{:.*e}", digits - 1, x))
        .filter_map(|s| s.parse::<f64>().ok())
        .find(|&v| half::f16::from_f64(v) == h)
        .map_or_else(|| format!("{x}"), |v| format!("{v}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_draws_are_numpys() {
        // np.random.seed(0); np.random.rand(2), np.random.randn(2) with
        // NumPy 2: 0.5488135039273248 0.7151893663724195, then
        // 0.9787379841057392 2.240893199201458 after a fresh seed(0).
        let mut s = Legacy::seeded(0);
        assert_eq!(s.double(), 0.5488135039273248);
        assert_eq!(s.double(), 0.7151893663724195);
        let mut s = Legacy::seeded(0);
        assert_eq!(s.gauss(), 1.764052345967664);
        assert_eq!(s.gauss(), 0.4001572083672233);
    }
}
