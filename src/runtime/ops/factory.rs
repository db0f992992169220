//! Tensor factories: zeros, ones, full, arange, linspace, eye, rand, randn.

use super::super::buffer::Buffer;
use super::super::buffer::Stored;
use super::super::element::Element;
use super::super::host::check_alloc;
use super::super::rng::Generator;
use super::super::{DType, Device, Tensor};
use crate::error::Error;
use crate::with_dtype;

pub fn full(shape: &[usize], value: f64, dtype: DType, device: Device) -> Result<Tensor, Error> {
    let n = check_alloc(shape, dtype)?;
    let buf = with_dtype!(dtype, T => Buffer::filled::<T>(n, from_value::<T>(value)));
    Ok(Tensor::new(buf, shape.to_vec(), device))
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
    if step == 0.0 || !step.is_finite() {
        return Err(Error::value(
            "arange(): step must be a non-zero finite number",
        ));
    }
    if !start.is_finite() || !end.is_finite() {
        return Err(Error::value("arange(): start and end must be finite"));
    }
    let n = ((end - start) / step).ceil().max(0.0);
    if n > 1e15 {
        return Err(Error::value(format!(
            "arange(): {n:e} elements is more than any machine can hold"
        )));
    }
    let n = n as usize;
    check_alloc(&[n], dtype)?;
    let values = (0..n).map(|i| start + i as f64 * step).collect();
    Ok(from_f64s(values, &[n], dtype, device))
}

pub fn linspace(
    start: f64,
    end: f64,
    steps: usize,
    dtype: DType,
    device: Device,
) -> Result<Tensor, Error> {
    check_alloc(&[steps], dtype)?;
    let values = (0..steps)
        .map(|i| {
            if steps == 1 {
                start
            } else {
                start + (end - start) * i as f64 / (steps - 1) as f64
            }
        })
        .collect();
    Ok(from_f64s(values, &[steps], dtype, device))
}

pub fn eye(n: usize, m: usize, dtype: DType, device: Device) -> Result<Tensor, Error> {
    let t = full(&[n, m], 0.0, dtype, device)?;
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
