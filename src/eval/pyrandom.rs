//! Python's `random` module: its Mersenne Twister (MT19937), seeded as
//! CPython seeds it (`random.seed(42)`: `init_by_array` of the integer's
//! 32-bit words), and the functions a training script calls, each drawing
//! as CPython's does so that a seeded program gives Python's numbers:
//! `random()`, `randint`, `randrange`, `choice`, `shuffle`, `uniform`,
//! `sample`, `getrandbits`. One generator per process, as the module's.
//! Unseeded, it starts from the clock (CPython: from the OS).

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::cpu_random::mt19937::Mt19937;
use crate::runtime::lock::lock;

/// CPython's generator: the Mersenne Twister (`runtime::cpu_random::mt19937`, the same
/// engine as PyTorch's CPU generator), seeded as `random.seed` seeds it.
pub struct Twister(Mt19937);

impl Twister {
    /// Where it is (`random.getstate()`).
    pub fn engine(&self) -> &Mt19937 {
        &self.0
    }

    /// `random.setstate(state)`.
    pub fn set_engine(&mut self, engine: Mt19937) {
        self.0 = engine;
    }

    /// `random.seed(n)` of an integer: its absolute value's 32-bit words,
    /// least significant first (`[0]` for 0).
    pub fn seeded(n: i64) -> Twister {
        let a = n.unsigned_abs();
        let key: Vec<u32> = match a >> 32 {
            0 => vec![a as u32],
            hi => vec![a as u32, hi as u32],
        };
        Twister(Mt19937::from_key(&key))
    }

    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// `random.random()`: 53 random bits in [0, 1).
    pub fn random(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `random.getrandbits(k)`, k ≤ 64: 32-bit words, least significant first.
    pub fn getrandbits(&mut self, k: u32) -> u64 {
        if k == 0 {
            return 0;
        }
        if k <= 32 {
            return u64::from(self.next_u32() >> (32 - k));
        }
        let low = u64::from(self.next_u32());
        let high = u64::from(self.next_u32() >> (64 - k));
        low | (high << 32)
    }

    /// CPython's `_randbelow`: `getrandbits` of `n`'s bit length, drawn
    /// again until below `n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        let k = 64 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `random.randrange(start, stop, step)`, or None for an empty range.
    pub fn randrange(&mut self, start: i64, stop: i64, step: i64) -> Option<i64> {
        let width = stop as i128 - start as i128;
        let n = match step {
            1 => width,
            s if s > 0 => (width + s as i128 - 1) / s as i128,
            s if s < 0 => (width + s as i128 + 1) / s as i128,
            _ => return None,
        };
        if n <= 0 {
            return None;
        }
        Some((start as i128 + step as i128 * self.below(n as u64) as i128) as i64)
    }

    /// The positions `random.sample(population, k)` picks of `n`, in
    /// order, by CPython's two ways (a pool for small populations, a set
    /// of picks for large ones).
    pub fn sample(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut setsize = 21usize;
        if k > 5 {
            let exp = ((k * 3) as f64).log(4.0).ceil() as u32;
            setsize += 4usize.pow(exp);
        }
        if n <= setsize {
            let mut pool: Vec<usize> = (0..n).collect();
            (0..k)
                .map(|i| {
                    let j = self.below((n - i) as u64) as usize;
                    let picked = pool[j];
                    pool[j] = pool[n - i - 1];
                    picked
                })
                .collect()
        } else {
            let mut selected = std::collections::HashSet::new();
            (0..k)
                .map(|_| loop {
                    let j = self.below(n as u64) as usize;
                    if selected.insert(j) {
                        break j;
                    }
                })
                .collect()
        }
    }
}

thread_local! {
    /// The module's generator: each interpreter's thread its own, as each
    /// Python process has its own (a DataLoader worker's, a rank's).
    static GENERATOR: std::cell::RefCell<Option<Twister>> = const { std::cell::RefCell::new(None) };
}

/// `random.seed(n)`; `random.seed()` (None) from the clock.
pub fn seed(n: Option<i64>) {
    let n = n.unwrap_or_else(clock_seed);
    GENERATOR.with(|g| *g.borrow_mut() = Some(Twister::seeded(n)));
}

/// A seed of the clock's (a generator no program seeded, `torch.seed()`).
pub(super) fn clock_seed() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// Runs `f` with the module's generator (seeded from the clock at first use).
pub fn with<R>(f: impl FnOnce(&mut Twister) -> R) -> R {
    GENERATOR.with(|g| {
        let mut g = g.borrow_mut();
        let t = g.get_or_insert_with(|| Twister::seeded(clock_seed()));
        f(t)
    })
}

/// The items of a sequence `name` picks from: a list's or a tuple's, a
/// range's numbers, a string's characters.
fn sequence(v: &Value, name: &str) -> Result<Vec<Value>, Error> {
    Ok(match v {
        Value::Range(r) => (0..r.len()).map(|k| Value::Int(r.at(k))).collect(),
        Value::Str(t) => t
            .chars()
            .map(|c| Value::Str(Arc::new(c.to_string())))
            .collect(),
        v => v.items().map(|xs| xs.to_vec()).ok_or_else(|| {
            Error::wrong_type(format!("what `{name}` takes"), "a list", v.type_name())
        })?,
    })
}

/// `random.choices(population, weights=None, *, cum_weights=None, k=1)`:
/// `k` picks with replacement, drawn as CPython's: one `random()` each,
/// scaled by the length (no weights) or by the total weight and found
/// among the running totals by bisection.
fn choices(args: &[ArgVal], span: Span) -> Result<Value, Diagnostic> {
    let keyword = |n: &str| {
        args.iter()
            .find(|a| a.keyword.as_ref().is_some_and(|k| k.name == n))
    };
    let positional: Vec<&ArgVal> = args.iter().filter(|a| a.keyword.is_none()).collect();
    let type_error = |message: &str, at: Span| Error::type_error(message).at(at);
    let (population, weights) = match positional.as_slice() {
        [p] => (p, keyword("weights")),
        [p, w] if keyword("weights").is_none() => (p, Some(*w)),
        _ => {
            return Err(type_error(
                "choices() takes the population and its weights by position; k, cum_weights by keyword (k=...)",
                span,
            ))
        }
    };
    let items = sequence(&population.value, "random.choices").map_err(|e| e.at(population.span))?;
    let k = match keyword("k").map(|a| (&a.value, a.span)) {
        None => 1,
        Some((Value::Int(k), _)) => (*k).max(0) as usize,
        Some((_, at)) => return Err(type_error("k must be an int", at)),
    };
    let numbers = |a: &ArgVal| -> Result<Vec<f64>, Diagnostic> {
        let xs = sequence(&a.value, "random.choices").map_err(|e| e.at(a.span))?;
        xs.iter()
            .map(|x| {
                x.as_number().ok_or_else(|| {
                    Error::wrong_type("a weight", "a number", x.type_name()).at(a.span)
                })
            })
            .collect()
    };
    let weights = weights.filter(|a| !matches!(a.value, Value::None));
    let cum = keyword("cum_weights").filter(|a| !matches!(a.value, Value::None));
    let cum: Vec<f64> = match (weights, cum) {
        (None, None) => {
            if items.is_empty() && k > 0 {
                return Err(Error::Module {
                    class: "IndexError",
                    message: "list index out of range".into(),
                    help: None,
                }
                .at(population.span));
            }
            let n = items.len() as f64;
            let picks = with(|t| {
                (0..k)
                    .map(|_| items[(t.random() * n).floor() as usize].clone())
                    .collect()
            });
            return Ok(Value::list(picks));
        }
        (Some(_), Some(c)) => {
            return Err(type_error(
                "Cannot specify both weights and cumulative weights",
                c.span,
            ))
        }
        (Some(w), None) => numbers(w)?
            .into_iter()
            .scan(0.0, |total, x| {
                *total += x;
                Some(*total)
            })
            .collect(),
        (None, Some(c)) => numbers(c)?,
    };
    if cum.len() != items.len() {
        return Err(Error::value("The number of weights does not match the population").at(span));
    }
    let total = cum.last().copied().unwrap_or(0.0);
    if total <= 0.0 {
        return Err(Error::value("Total of weights must be greater than zero").at(span));
    }
    if !total.is_finite() {
        return Err(Error::value("Total of weights must be finite").at(span));
    }
    // Python's `bisect(cum_weights, random() * total, 0, n - 1)`.
    let hi = items.len() - 1;
    let picks = with(|t| {
        (0..k)
            .map(|_| {
                let x = t.random() * total;
                items[cum[..hi].partition_point(|&c| c <= x)].clone()
            })
            .collect()
    });
    Ok(Value::list(picks))
}

impl Interp {
    /// `random.random()`, `random.randint(a, b)` and the rest of Python's
    /// `random` (`pyrandom.rs` draws as CPython does).
    pub(super) fn call_random(
        &mut self,
        name: &'static str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let int = |k: usize| -> Result<i64, Diagnostic> {
            match args.get(k).map(|a| &a.value) {
                Some(Value::Int(i)) => Ok(*i),
                Some(Value::Bool(b)) => Ok(b.get() as i64),
                Some(other) => Err(Error::Module {
                    class: "TypeError",
                    message: format!(
                        "'{}' object cannot be interpreted as an integer",
                        super::format::python_type(other)
                    ),
                    help: None,
                }
                .at(args[k].span)),
                None => Err(Error::value(format!("`{name}` needs {} argument(s)", k + 1)).at(span)),
            }
        };
        let float = |k: usize| -> Result<f64, Diagnostic> {
            let a = args.get(k).ok_or_else(|| {
                Error::value(format!("`{name}` needs {} argument(s)", k + 1)).at(span)
            })?;
            a.value.as_number().ok_or_else(|| {
                Error::wrong_type(
                    format!("the argument of `{name}`"),
                    "a number",
                    a.value.type_name(),
                )
                .at(a.span)
            })
        };
        let empty = || {
            Error::value(format!(
                "empty range in {}",
                name.trim_start_matches("random.")
            ))
            .at(span)
        };
        Ok(match name {
            "random.seed" => {
                match args.first().map(|a| &a.value) {
                    None | Some(Value::None) => seed(None),
                    Some(_) => seed(Some(int(0)?)),
                }
                Value::None
            }
            "random.random" => Value::float(with(|t| t.random())),
            "random.uniform" => {
                let (a, b) = (float(0)?, float(1)?);
                Value::float(a + (b - a) * with(|t| t.random()))
            }
            "random.randint" => {
                let (a, b) = (int(0)?, int(1)?);
                let r = with(|t| t.randrange(a, b.saturating_add(1), 1));
                Value::Int(r.ok_or_else(empty)?)
            }
            "random.randrange" => {
                let (start, stop) = match args.len() {
                    1 => (0, int(0)?),
                    _ => (int(0)?, int(1)?),
                };
                let step = if args.len() > 2 { int(2)? } else { 1 };
                Value::Int(with(|t| t.randrange(start, stop, step)).ok_or_else(empty)?)
            }
            "random.getrandbits" => {
                let k = int(0)?;
                if !(0..=63).contains(&k) {
                    return Err(Error::value("cudash's getrandbits takes 0 to 63 bits").at(span));
                }
                Value::Int(with(|t| t.getrandbits(k as u32)) as i64)
            }
            "random.choices" => return choices(&args, span),
            "random.choice" | "random.sample" | "random.shuffle" => {
                let a = args
                    .first()
                    .ok_or_else(|| Error::value(format!("`{name}` needs a sequence")).at(span))?;
                let items = match &a.value {
                    Value::Str(_) | Value::Range(_) if name == "random.shuffle" => Vec::new(),
                    v => sequence(v, name).map_err(|e| e.at(a.span))?,
                };
                match name {
                    "random.choice" => {
                        if items.is_empty() {
                            return Err(Error::Module {
                                class: "IndexError",
                                message: "Cannot choose from an empty sequence".into(),
                                help: None,
                            }
                            .at(span));
                        }
                        let k = with(|t| t.below(items.len() as u64)) as usize;
                        items[k].clone()
                    }
                    "random.sample" => {
                        let k = int(1)?;
                        if k < 0 || k as usize > items.len() {
                            return Err(Error::value(
                                "Sample larger than population or is negative",
                            )
                            .at(span));
                        }
                        let picks = with(|t| t.sample(items.len(), k as usize));
                        let picked = picks.into_iter().map(|j| items[j].clone()).collect();
                        Value::MutList(Arc::new(std::sync::Mutex::new(Arc::new(picked))))
                    }
                    _ => {
                        let Value::MutList(list) = &a.value else {
                            return Err(Error::Module {
                                class: "TypeError",
                                message: format!(
                                    "'{}' object does not support item assignment",
                                    super::format::python_type(&a.value)
                                ),
                                help: Some(
                                    "shuffle a list: `xs = list(...)`, then `random.shuffle(xs)`"
                                        .into(),
                                ),
                            }
                            .at(a.span));
                        };
                        let mut list = lock(list);
                        let xs = Arc::make_mut(&mut list);
                        with(|t| {
                            for i in (1..xs.len()).rev() {
                                let j = t.below(i as u64 + 1) as usize;
                                xs.swap(i, j);
                            }
                        });
                        Value::None
                    }
                }
            }
            other => {
                return Err(
                    Error::value(format!("internal error: `{other}` has no handler")).at(span),
                )
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What CPython 3.11 gives after `random.seed(42)` (and `seed(2**40+5)`).
    #[test]
    fn draws_as_cpython() {
        let mut t = Twister::seeded(42);
        assert_eq!(t.random(), 0.6394267984578837);
        assert_eq!(t.random(), 0.025010755222666936);
        let mut t = Twister::seeded(42);
        let ints: Vec<i64> = (0..5).map(|_| t.randrange(1, 11, 1).unwrap()).collect();
        assert_eq!(ints, [2, 1, 5, 4, 4]);
        let mut t = Twister::seeded(42);
        let mut xs: Vec<usize> = (0..10).collect();
        for i in (1..xs.len()).rev() {
            let j = t.below(i as u64 + 1) as usize;
            xs.swap(i, j);
        }
        assert_eq!(xs, [7, 3, 2, 8, 5, 6, 9, 4, 0, 1]);
        let mut t = Twister::seeded(42);
        assert_eq!(t.sample(100, 3), [81, 14, 3]);
        let mut t = Twister::seeded((1 << 40) + 5);
        assert_eq!(t.random(), 0.5043802970418443);
        let mut t = Twister::seeded(-7);
        assert_eq!(t.random(), 0.32383276483316237);
        assert_eq!(t.below(3), 0);
        assert_eq!(1.0 + t.random(), 1.3948234964231734);
        assert_eq!(t.getrandbits(40), 77516799952);
        let mut t = Twister::seeded(3);
        assert_eq!(t.randrange(0, 100, 7), Some(21));
        assert_eq!(t.randrange(10, 0, -3), Some(7));
        let picks: Vec<usize> = t.sample(1000, 8);
        assert_eq!(picks, [378, 937, 618, 485, 640, 594, 67, 620]);
    }
}
