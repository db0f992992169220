//! Tensor factories: zeros, ones, full, arange, linspace, eye, rand, randn.

use super::super::buffer::Buffer;
use super::super::buffer::Stored;
use super::super::element::Element;
use super::super::host::check_alloc;
use super::super::rng::Generator;
use super::super::{DType, Device, Tensor};
use super::pytorch_cpu::{range_fill, vector_bytes, Kernel};
use crate::error::Error;
use crate::with_dtype;

pub fn full(shape: &[usize], value: Fill, dtype: DType, device: Device) -> Result<Tensor, Error> {
    value.check(dtype)?;
    let n = check_alloc(shape, dtype)?;
    let buf = with_dtype!(dtype, T => Buffer::filled::<T>(n, value.element::<T>()));
    Ok(Tensor::new(buf, shape.to_vec(), device))
}

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
            DType::I32 => (i32::MIN as i64, i32::MAX as i64),
            DType::I64 => (i64::MIN, i64::MAX),
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
        let fits = match self {
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
        format!("the value {v} cannot be converted to {dtype} without overflow"),
        Some("use a wider dtype, e.g. i64 or f64".into()),
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

pub fn from_f64s(values: Vec<f64>, shape: &[usize], dtype: DType, device: Device) -> Tensor {
    let buf =
        with_dtype!(dtype, T => T::into_buffer(values.into_iter().map(from_value::<T>).collect()));
    Tensor::new(buf, shape.to_vec(), device)
}

pub fn arange(
    start: f64,
    end: f64,
    step: f64,
    dtype: DType,
    device: Device,
) -> Result<Tensor, Error> {
    if dtype == DType::Bool {
        // PyTorch: "arange_cpu" (and "arange_cuda") not implemented for 'Bool'.
        return Err(Error::dtype(
            "arange() is not implemented for bool",
            Some("count in a number dtype and compare: `arange(5) > 2`".into()),
        ));
    }
    if step == 0.0 || !step.is_finite() {
        return Err(Error::value(
            "arange(): step must be a non-zero finite number",
        ));
    }
    if !start.is_finite() || !end.is_finite() {
        return Err(Error::value("arange(): start and end must be finite"));
    }
    if (step > 0.0 && end < start) || (step < 0.0 && end > start) {
        return Err(Error::value_help(
            format!("arange(): the range {start} to {end} goes against the step {step}"),
            "count down with a negative step, e.g. `arange(0, -5, -1)`",
        ));
    }
    let n = ((end - start) / step).ceil().max(0.0);
    if n > 1e15 {
        return Err(Error::value(format!(
            "arange(): {n:e} elements is more than any machine can hold"
        )));
    }
    let n = n as usize;
    check_alloc(&[n], dtype)?;
    if dtype.is_int() {
        // Integers count in i64 (PyTorch's accumulate type), which must hold
        // start, end and step.
        let fits = |v: f64| (-(2f64.powi(63))..2f64.powi(63)).contains(&v);
        if let Some(v) = [start, end, step].into_iter().find(|v| !fits(*v)) {
            return Err(Error::value(format!(
                "arange(): {v} cannot be converted to i64 without overflow"
            )));
        }
    }
    let values = if device == Device::Cpu {
        arange_cpu(start, step, n, dtype)
    } else {
        arange_cuda(start, step, n, dtype)
    };
    Ok(from_f64s(values, &[n], dtype, device))
}

/// `arange`'s values as PyTorch's CUDA kernel computes them (before the
/// conversion to `dtype`), which the kernels compute on a device
/// (kernels/fill.cu): `start + i * step` in the dtype's accumulate type, the
/// multiply-add fused into one rounding (nvcc contracts it): f32 for f32, f16
/// and bf16, f64 for f64, i64 for integers (start and step truncated,
/// wrapping).
fn arange_cuda(start: f64, step: f64, n: usize, dtype: DType) -> Vec<f64> {
    match dtype {
        DType::F64 => (0..n).map(|i| (i as f64).mul_add(step, start)).collect(),
        DType::F32 | DType::F16 | DType::BF16 => {
            let (start, step) = (start as f32, step as f32);
            (0..n)
                .map(|i| (i as f32).mul_add(step, start) as f64)
                .collect()
        }
        _ => {
            let (start, step) = (start as i64, step as i64);
            (0..n)
                .map(|i| start.wrapping_add((i as i64).wrapping_mul(step)) as f64)
                .collect()
        }
    }
}

/// `arange`'s values as PyTorch's CPU kernel computes them (before the
/// conversion to `dtype`): `start + step * i` in f64 for f32 and f64, in f32
/// for f16 and bf16, each multiply-add fused into one rounding (its AVX2
/// build contracts them into FMAs); a vector's elements counted from its
/// first, rounded to the dtype (`range_fill`); integers in i64, the step
/// truncated.
fn arange_cpu(start: f64, step: f64, n: usize, dtype: DType) -> Vec<f64> {
    // `arange_stub` is registered for AVX2 only.
    let lanes = vector_bytes(Kernel::Avx2Only) / dtype.size();
    let as_dtype = |v: f64| with_dtype!(dtype, T => from_value::<T>(v).to_f64());
    match dtype {
        DType::F64 | DType::F32 => range_fill(
            n,
            lanes,
            |i| step.mul_add(i as f64, start),
            |b, j| (j as f64).mul_add(step, as_dtype(step.mul_add(b as f64, start))),
        ),
        DType::F16 | DType::BF16 => {
            let (start, step) = (start as f32, step as f32);
            let at = |i: usize| step.mul_add(i as f32, start) as f64;
            range_fill(n, lanes, at, |b, j| {
                (j as f32).mul_add(step, as_dtype(at(b)) as f32) as f64
            })
        }
        _ => {
            let (start, step) = (start.trunc(), step.trunc());
            (0..n).map(|i| start + step * i as f64).collect()
        }
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
            DType::I32 | DType::I64 if device == Device::Cpu => Arith::F64,
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

    /// The values as a host tensor of `dtype` on `device` (the simulator's
    /// `linspace`; a driver's device runs `exec::linspace` instead).
    /// On the CPU as PyTorch's CPU kernel computes it (`value_cpu`).
    pub fn tensor(&self, dtype: DType, device: Device) -> Tensor {
        let values: Vec<f64> = if device == Device::Cpu {
            (0..self.n).map(|i| self.value_cpu(i)).collect()
        } else {
            (0..self.n).map(|i| self.value(i)).collect()
        };
        from_f64s(values, &[self.n], dtype, device)
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

pub fn linspace(
    start: f64,
    end: f64,
    steps: usize,
    dtype: DType,
    device: Device,
) -> Result<Tensor, Error> {
    Ok(Linspace::plan(start, end, steps, dtype, device)?.tensor(dtype, device))
}

pub fn eye(n: usize, m: usize, dtype: DType, device: Device) -> Result<Tensor, Error> {
    let t = full(&[n, m], Fill::Int(0), dtype, device)?;
    with_dtype!(dtype, T => {
        let mut b = t.write();
        let s = b.as_mut_slice::<T>();
        for i in 0..n.min(m) {
            s[i * m + i] = T::from_f64(1.0);
        }
    });
    Ok(t)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    Uniform,
    Normal,
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

pub fn random(
    gen: &mut Generator,
    dist: Distribution,
    shape: &[usize],
    dtype: DType,
    device: Device,
) -> Result<Tensor, Error> {
    check_random(dtype)?;
    let n = check_alloc(shape, dtype)?;
    let values = match dist {
        Distribution::Uniform => gen.uniform(n),
        Distribution::Normal => gen.normal(n),
    };
    Ok(from_f64s(values, shape, dtype, device))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values<T: Stored>(start: f64, end: f64, steps: usize, dt: DType, dev: Device) -> Vec<T> {
        linspace(start, end, steps, dt, dev).unwrap().to_vec::<T>()
    }

    /// What PyTorch 2.15's CPU build gave (its AVX2 kernel, which AVX-512
    /// CPUs run too): fused multiply-adds, and `arange`'s vectors counted
    /// from their first element (329 and 330 lie in one vector of four; 333
    /// is past the last pair, on its own).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn cpu_ranges_round_as_pytorchs_cpu_kernels() {
        let a = arange(0.0, 100.0, 0.3, DType::F64, Device::Cpu).unwrap();
        let a = a.to_vec::<f64>();
        assert_eq!(a.len(), 334);
        assert_eq!(a[329].to_bits(), 0x4058_accc_cccc_cccd);
        assert_eq!(a[330].to_bits(), 0x4058_c000_0000_0000);
        assert_eq!(a[333].to_bits(), 0x4058_f999_9999_9999);
        let f = arange(-3.7, 11.1, 0.013, DType::F32, Device::Cpu).unwrap();
        assert_eq!(f.to_vec::<f32>()[1137].to_bits(), 1093749703);
        let l = values::<f32>(0.1, 2.3, 3001, DType::F32, Device::Cpu);
        let bits: Vec<u32> = [25, 31, 2952].iter().map(|&i| l[i].to_bits()).collect();
        assert_eq!(bits, [1039292607, 1039883165, 1074852475]);
        let h = values::<half::f16>(0.1, 2.3, 40001, DType::F16, Device::Cpu);
        assert_eq!(h[34622].to_bits(), 16386);
    }

    #[test]
    fn linspace_counts_up_from_start_and_down_from_end_as_pytorch() {
        let v = values::<f32>(0.0, 1.0, 10, DType::F32, Device::Cpu);
        let step = 1.0f32 / 9.0;
        assert_eq!(v[9], 1.0, "the last value is end exactly");
        assert_eq!(v[4], step * 4.0);
        assert_eq!(v[5], 1.0 - step * 4.0, "the second half counts from end");
        assert_eq!(
            values::<f32>(0.0, 1.0, 5, DType::F32, Device::Cpu),
            [0.0, 0.25, 0.5, 0.75, 1.0]
        );
        assert_eq!(values::<f32>(2.5, 9.0, 1, DType::F32, Device::Cpu), [2.5]);
        assert!(values::<f32>(0.0, 1.0, 0, DType::F32, Device::Cpu).is_empty());
    }

    #[test]
    fn linspace_rounds_each_step_to_half_precision_as_c10_half() {
        // Past 2048 the index itself rounds to f16 (2049 -> 2048), so
        // neighbours can repeat, as they do in PyTorch's f16 linspace.
        let v = values::<half::f16>(0.0, 4100.0, 4101, DType::F16, Device::Cuda(0));
        assert_eq!(v[2049], v[2048]);
        assert_eq!(v[4100].to_f32(), 4100.0);
    }

    #[test]
    fn integer_linspace_truncates_with_the_step_of_each_device() {
        assert_eq!(
            values::<i64>(0.0, 10.0, 4, DType::I64, Device::Cpu),
            [0, 3, 6, 10]
        );
        assert_eq!(
            values::<i32>(0.0, 10.0, 4, DType::I32, Device::Cuda(0)),
            [0, 3, 6, 10]
        );
        assert_eq!(
            values::<i32>(-7.9, 7.9, 3, DType::I32, Device::Cuda(0)),
            [-7, 0, 7]
        );
        let e = linspace(0.0, 1.0, 3, DType::Bool, Device::Cpu).unwrap_err();
        assert!(e.to_string().contains("bool"), "{e}");
    }
}
