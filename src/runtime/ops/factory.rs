//! Tensor factories: zeros, ones, full, arange, linspace, eye, rand, randn.

use super::super::buffer::Buffer;
use super::super::buffer::Stored;
use super::super::cpu_random::fill;
use super::super::element::Element;
use super::super::host::check_alloc;
use super::super::rng::{Generator, Generators};
use super::super::{DType, Device, Tensor};
use super::pytorch::pytorch_cpu::{range_fill, vector_bytes, Kernel};
use crate::error::Error;
use crate::with_dtype;

pub use crate::runtime::op::factory::{
    check_random, check_random_of, from_value, Distribution, Fill, Linspace,
};

pub fn full(shape: &[usize], value: Fill, dtype: DType, device: Device) -> Result<Tensor, Error> {
    value.check(dtype)?;
    let n = check_alloc(shape, dtype)?;
    let buf = with_dtype!(dtype, T => Buffer::filled::<T>(n, value.element::<T>()));
    Ok(Tensor::new(buf, shape.to_vec(), device))
}

pub fn from_f64s(values: Vec<f64>, shape: &[usize], dtype: DType, device: Device) -> Tensor {
    let buf =
        with_dtype!(dtype, T => T::into_buffer(values.into_iter().map(from_value::<T>).collect()));
    Tensor::new(buf, shape.to_vec(), device)
}

/// Host f32 values as a tensor of `shape`.
pub fn from_f32s(values: Vec<f32>, shape: &[usize]) -> Tensor {
    Tensor::new(f32::into_buffer(values), shape.to_vec(), Device::Cpu)
}

/// Values drawn one at a time for the elements of `x` in the order its
/// memory holds them, as PyTorch's CPU kernels draw them (TensorIterator
/// walks a transposed or sliced tensor in memory order): `draw` gets the
/// shape with `x`'s dims largest stride first and fills it in order; the
/// result is that tensor viewed in `x`'s own order.
pub fn in_memory_order(x: &Tensor, draw: impl FnOnce(&[usize]) -> Tensor) -> Result<Tensor, Error> {
    let (shape, strides) = (x.shape(), x.strides());
    let mut order: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] > 1).collect();
    order.sort_by(|&a, &b| strides[b].cmp(&strides[a]));
    order.extend((0..shape.len()).filter(|&d| shape[d] <= 1));
    let drawn = draw(&order.iter().map(|&d| shape[d]).collect::<Vec<_>>());
    let mut back = vec![0i64; order.len()];
    for (k, &d) in order.iter().enumerate() {
        back[d] = k as i64;
    }
    super::super::op::view::permute(&drawn, &back)
}

/// `n` normal draws (PyTorch's `normal_kernel`) as a host tensor of
/// `shape` and `dtype`, f32 kept in f32.
pub fn normal(
    g: &mut super::super::cpu_random::CpuGenerator,
    shape: &[usize],
    dtype: DType,
    mean_std: (f64, f64),
    contiguous: bool,
) -> Tensor {
    let n = shape.iter().product();
    match fill::normal_f32(g, n, dtype, mean_std, contiguous) {
        Some(v) => from_f32s(v, shape),
        None => from_f64s(
            fill::normal(g, n, dtype, mean_std, contiguous),
            shape,
            dtype,
            Device::Cpu,
        ),
    }
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

/// `rand`, `randn`, `randint` on the host: a CPU tensor's numbers as
/// PyTorch's CPU kernels draw them, a simulated device's from its Philox
/// generator (as its kernels draw them).
pub fn random(
    gens: &mut Generators,
    dist: Distribution,
    shape: &[usize],
    dtype: DType,
    device: Device,
) -> Result<Tensor, Error> {
    if let Device::Cuda(d) = device {
        return philox(gens.cuda(d), dist, shape, dtype, device);
    }
    check_random_of(dtype, dist)?;
    let n = check_alloc(shape, dtype)?;
    let g = gens.cpu();
    if let (Distribution::Normal, Device::Cpu) = (dist, device) {
        return Ok(normal(g, shape, dtype, (0.0, 1.0), true));
    }
    let values = match dist {
        Distribution::Uniform => fill::uniform(g, n, dtype, 0.0, 1.0),
        Distribution::Normal => fill::normal(g, n, dtype, (0.0, 1.0), true),
        Distribution::Integers { low, range } => {
            return Ok(integers(
                fill::integers(g, n, low, range),
                shape,
                dtype,
                device,
            ))
        }
        Distribution::Full => {
            let range = Distribution::full_range(dtype);
            return Ok(integers(
                fill::full_range(g, n, range),
                shape,
                dtype,
                device,
            ));
        }
    };
    Ok(from_f64s(values, shape, dtype, device))
}

/// The simulator's numbers from a Philox generator (what a CUDA device's
/// kernels draw for the same seed and offset), as a tensor on `device`.
pub fn philox(
    gen: &mut Generator,
    dist: Distribution,
    shape: &[usize],
    dtype: DType,
    device: Device,
) -> Result<Tensor, Error> {
    check_random_of(dtype, dist)?;
    let n = check_alloc(shape, dtype)?;
    let values = match dist {
        Distribution::Uniform => gen.uniform(n),
        Distribution::Normal => gen.normal(n),
        Distribution::Integers { low, range } => {
            return Ok(integers(gen.integers(n, low, range), shape, dtype, device))
        }
        Distribution::Full => {
            let range = Distribution::full_range(dtype);
            return Ok(integers(gen.integers(n, 0, range), shape, dtype, device));
        }
    };
    Ok(from_f64s(values, shape, dtype, device))
}

/// Drawn integers as a tensor of `dtype`.
fn integers(ints: Vec<i64>, shape: &[usize], dtype: DType, device: Device) -> Tensor {
    let buf = match dtype {
        DType::I64 => Buffer::I64(ints),
        DType::I32 => Buffer::I32(ints.into_iter().map(|i| i as i32).collect()),
        _ => {
            let values = ints.into_iter().map(|i| i as f64).collect();
            return from_f64s(values, shape, dtype, device);
        }
    };
    Tensor::new(buf, shape.to_vec(), device)
}

impl Linspace {
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
