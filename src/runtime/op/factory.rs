//! What the factories make: a fill value and the dtypes it fits, the random
//! distributions, and `linspace`'s plan (its step, and each value as
//! PyTorch's kernels compute it).

use crate::error::Error;
use crate::runtime::buffer::Stored;
use crate::runtime::element::Element;
use crate::runtime::host::check_alloc;
use crate::runtime::{DType, Device, Tensor};
use crate::with_dtype;

/// A number to fill with (`full`, `fill_`, `new_full`), as it was written:
/// an integer stays exact past 2^53.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fill {
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl From<f64> for Fill {
    fn from(v: f64) -> Fill {
        Fill::Float(v)
    }
}

impl std::fmt::Display for Fill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fill::Int(i) => write!(f, "{i}"),
            Fill::Float(x) => write!(f, "{x:?}"),
            Fill::Bool(b) => write!(f, "{b}"),
        }
    }
}

impl Fill {
    /// Refuses what PyTorch refuses (`value cannot be converted ... without
    /// overflow`): into an integer dtype, NaN, an infinity or a number out
    /// of its range (a float is truncated first); into f32, a finite number
    /// past its range. f16 and bf16 take an infinity instead, as PyTorch's.
    pub fn check(self, dtype: DType) -> Result<(), Error> {
        let (lo, hi) = match dtype {
            d if d.is_int() => d.int_bounds().expect("an integer dtype"),
            DType::F32 => {
                return match self {
                    Fill::Float(x) if x.is_finite() && x.abs() > f32::MAX as f64 => {
                        Err(overflow(self, dtype))
                    }
                    _ => Ok(()),
                }
            }
            _ => return Ok(()),
        };
        // A negative integer into uint8 wraps, down to -255, as c10's
        // `overflows` lets it (`full((2,), -1, dtype=uint8)` is 255s).
        let fits = match self {
            Fill::Int(i) if !dtype.is_signed() => (-hi..=hi).contains(&i),
            Fill::Int(i) => (lo..=hi).contains(&i),
            Fill::Float(x) => x.is_finite() && x >= lo as f64 && x.trunc() <= hi as f64,
            Fill::Bool(_) => true,
        };
        if fits {
            Ok(())
        } else {
            Err(overflow(self, dtype))
        }
    }

    /// The value as an element of `T` (checked first with `check`).
    pub fn element<T: Stored>(self) -> T {
        match self {
            Fill::Int(i) if T::DTYPE.is_int() => T::from_i64(i),
            Fill::Int(i) => T::from_f64(i as f64),
            Fill::Float(x) => from_value::<T>(x),
            Fill::Bool(b) => from_value::<T>(if b { 1.0 } else { 0.0 }),
        }
    }
}

fn overflow(v: Fill, dtype: DType) -> Error {
    Error::dtype(
        format!(
            "value cannot be converted to type {} without overflow",
            dtype.checked_name()
        ),
        Some(format!(
            "{v} does not fit {dtype}: use a wider dtype, e.g. i64 or f64"
        )),
    )
}

/// Converts a number to `T` the way a literal would be.
pub fn from_value<T: Stored>(v: f64) -> T {
    if T::DTYPE.is_int() {
        T::from_i64(v as i64)
    } else {
        T::from_f64(v)
    }
}

/// `linspace`'s numbers as PyTorch computes them: `start` and `end` as the
/// dtype, a step `(end - start) / (steps - 1)`, the first half counted up
/// from `start` and the second half down from `end` (so the last value is
/// `end` exactly), every operation rounded to the dtype's arithmetic.
/// Integers use an f32 step on CUDA devices (RangeFactories.cu) and an f64
/// one on the cpu (RangeFactoriesKernel.cpp).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linspace {
    pub n: usize,
    /// `start`, `end` and the step, each a value of the arithmetic.
    pub start: f64,
    pub end: f64,
    pub step: f64,
    arith: Arith,
}

/// The arithmetic `linspace` computes in: each result rounded to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arith {
    F64,
    F32,
    /// f32 operations, each result rounded to f16 (c10::Half's operators).
    F16,
    BF16,
}

impl Arith {
    fn round(self, x: f64) -> f64 {
        // An f64 operation on two values of a narrower format, rounded to
        // it, is that format's correctly rounded operation (53 >= 2p + 2).
        match self {
            Arith::F64 => x,
            Arith::F32 => x as f32 as f64,
            Arith::F16 => half::f16::from_f32(x as f32).to_f64(),
            Arith::BF16 => half::bf16::from_f32(x as f32).to_f64(),
        }
    }
}

impl Linspace {
    pub fn plan(
        start: f64,
        end: f64,
        steps: usize,
        dtype: DType,
        device: Device,
    ) -> Result<Linspace, Error> {
        if dtype == DType::Bool {
            return Err(Error::dtype(
                "linspace() is not implemented for bool",
                Some("use a number dtype (f32, the default, or i64, …)".into()),
            ));
        }
        if !start.is_finite() || !end.is_finite() {
            return Err(Error::value("linspace(): start and end must be finite"));
        }
        check_alloc(&[steps], dtype)?;
        let arith = match dtype {
            DType::F64 => Arith::F64,
            DType::F16 => Arith::F16,
            DType::BF16 => Arith::BF16,
            d if d.is_int() && device == Device::Cpu => Arith::F64,
            _ => Arith::F32,
        };
        // `start` and `end` as the dtype first (an integer dtype truncates).
        let as_dtype = |v: f64| with_dtype!(dtype, T => from_value::<T>(v).to_f64());
        if steps == 1 {
            // One value: `start` itself, as `fill_` writes it.
            let start = as_dtype(start);
            return Ok(Linspace {
                n: 1,
                start,
                end: start,
                step: 0.0,
                arith,
            });
        }
        let (start, end) = (arith.round(as_dtype(start)), arith.round(as_dtype(end)));
        let divisor = arith.round(steps.saturating_sub(1) as f64);
        let step = arith.round(arith.round(end - start) / divisor);
        Ok(Linspace {
            n: steps,
            start,
            end,
            step,
            arith,
        })
    }

    /// `value` as PyTorch's CPU kernel computes it: in f32 and f64 (and for
    /// integers, whose step is f64) `start + step * i` and `end - step * k`
    /// fused into one rounding, as its AVX2 build contracts them into FMAs;
    /// f16 and bf16 in f32, rounded last.
    pub fn value_cpu(&self, i: usize) -> f64 {
        if self.n == 1 {
            return self.start;
        }
        let (k, from) = if i < self.n / 2 {
            (i, self.start)
        } else {
            (self.n - i - 1, self.end)
        };
        match self.arith {
            // As on a GPU.
            Arith::F64 | Arith::F32 => self.value(i),
            // The step stays f32 (PyTorch's opmath), unrounded to 16 bits;
            // f16's second half is not fused (as measured: PyTorch 2.15's
            // AVX2 build, against 5 ranges of 100 to 40,001 values).
            Arith::F16 | Arith::BF16 => {
                let wide = (self.end as f32 - self.start as f32) / (self.n - 1) as f32;
                let (k, from) = (k as f32, from as f32);
                if i < self.n / 2 {
                    wide.mul_add(k, from) as f64
                } else if self.arith == Arith::F16 {
                    (from - wide * k) as f64
                } else {
                    (-wide).mul_add(k, from) as f64
                }
            }
        }
    }

    /// The `i`th value as PyTorch's CUDA kernel computes it, in the
    /// arithmetic (the caller converts it to the dtype): in f32 and f64 (and
    /// for integers, in f32) `start + step * i` and `end - step * k` fused
    /// into one rounding, as nvcc contracts them; f16 and bf16 round every
    /// operation (c10::Half's operators).
    pub fn value(&self, i: usize) -> f64 {
        let r = |x: f64| self.arith.round(x);
        if self.n == 1 {
            return self.start;
        }
        let (k, from, step) = if i < self.n / 2 {
            (i, self.start, self.step)
        } else {
            (self.n - i - 1, self.end, -self.step)
        };
        match self.arith {
            Arith::F64 => step.mul_add(k as f64, from),
            Arith::F32 => (step as f32).mul_add(k as f32, from as f32) as f64,
            Arith::F16 | Arith::BF16 => r(from + r(step * r(k as f64))),
        }
    }
}

/// The tensor a factory makes: PyTorch's `size`, `dtype` and `device`,
/// and `like`, the tensor a `*_like` or method call (`new_full`) reads.
#[derive(Clone, Copy)]
pub struct NewTensor<'a> {
    pub shape: &'a [usize],
    pub dtype: DType,
    pub device: Device,
    pub like: Option<&'a Tensor>,
}

/// What a factory fills its tensor with, checked by the op layer; each
/// backend makes it its own way (`Compute::make`).
pub enum Make<'a> {
    /// `zeros`, `ones`, `full` and `new_full`.
    Full(Fill),
    /// `empty` and its `_like`/`new_` forms: memory and no kernel, as
    /// PyTorch's `torch.empty`; the elements are what the memory held (a
    /// fresh block reads as zeros; on a GPU, and `emu`, a reused one shows
    /// what it held last; cpu tensors and the simulator read as zeros).
    Empty,
    /// `rand`, `randn` and their `_like` forms, from the device's generator.
    Random(Distribution),
    /// `arange`: the values the host computed (and checked) already, and
    /// the start and step a kernel counts from.
    Arange {
        values: Tensor,
        start: f64,
        step: f64,
    },
    Linspace(&'a Linspace),
    /// `eye`: ones on the diagonal of the `[n, m]` shape.
    Eye,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    Uniform,
    Normal,
    /// `randint`: integers uniform in `[low, low + range)`, as PyTorch's
    /// `random_from_to`: a 32-bit draw modulo the range (two words when the
    /// range is wider than 2^32).
    Integers {
        low: i64,
        range: u64,
    },
    /// `random_()` without bounds on an integer or bool tensor: PyTorch's
    /// `uniform_int` over the dtype's whole range, `[0, 2^63)` for int64
    /// (a 64-bit draw), `[0, max]` for the other integers and a bit for
    /// bool (a 32-bit draw each).
    Full,
}

impl Distribution {
    /// The range `Full` draws from for `dtype` (from 0).
    pub fn full_range(dtype: DType) -> u64 {
        match dtype {
            DType::Bool => 2,
            DType::U8 => 1 << 8,
            DType::I8 => 1 << 7,
            DType::I16 => 1 << 15,
            DType::I32 => 1 << 31,
            _ => 1 << 63,
        }
    }
}

impl Distribution {
    /// The kernel's name for it (`uniform_f32`, `integers_i64`).
    pub fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Normal => "normal",
            Distribution::Integers { .. } | Distribution::Full => "integers",
        }
    }
}

/// Random numbers are floats; `randint`'s are integers or floats.
pub fn check_random_of(dtype: DType, dist: Distribution) -> Result<(), Error> {
    match dist {
        Distribution::Integers { .. } if dtype == DType::Bool => Err(Error::dtype(
            "randint's numbers need an integer or floating point dtype, not bool",
            Some("use dtype=i64 (the default), i32 or a float dtype".into()),
        )),
        Distribution::Integers { .. } | Distribution::Full => Ok(()),
        _ => check_random(dtype),
    }
}

/// Random numbers are floats.
pub fn check_random(dtype: DType) -> Result<(), Error> {
    if !dtype.is_float() {
        return Err(Error::dtype(
            format!("random numbers need a floating point dtype, not {dtype}"),
            Some("use dtype=f32 (the default), f64, f16 or bf16".into()),
        ));
    }
    Ok(())
}
