//! Ops along one dimension that are not plain folds: the scans (cumsum,
//! cumprod), softmax and log_softmax, and the reductions that need more
//! than one pass or a parameter (var, std, norm). Each walks the tensor's
//! lines (`shape::Lines`); `kernels/along.cu` does the same on a device.
//!
//! Arithmetic, as PyTorch's CPU kernels where they say it:
//! - scans accumulate as `at::acc_type<T, false>`: f16 and bf16 in f32,
//!   f32 and f64 in f64, integers and bool in wrapping i64 (giving i64);
//! - softmax of CPU tensors is PyTorch's CPU kernels' (`softmax.rs`); on a
//!   device (simulated too) it computes in f64 and rounds once, as the
//!   kernels do;
//! - var and std compute in f64 and round once, in two passes for one
//!   result and Welford's single pass for several, as PyTorch's CPU
//!   kernels choose;
//! - norm of CPU tensors is PyTorch's CPU kernels' (`norm.rs`); on a
//!   device it accumulates in f32 but for f64 (PyTorch's opmath type, on
//!   CUDA too), so squares that overflow f32 give inf, as there.

use super::super::buffer::{Buffer, Stored};
use super::super::shape::{norm_dims, Lines};
use super::super::{DType, Device, Tensor};
use super::pytorch::{norm, softmax};
use crate::error::Error;
use crate::with_dtype;

pub use crate::runtime::op::along::{check, Along, AlongOp, Param};

/// The op `plan` says (`Along::plan`: checked, shaped) on `t`'s elements.
pub fn along(t: &Tensor, plan: &Along) -> Result<Tensor, Error> {
    let Along {
        op, p, dim, lines, ..
    } = *plan;
    let dt = t.dtype();
    if let (AlongOp::Softmax | AlongOp::LogSoftmax, Some(k), Device::Cpu) = (op, dim, t.device()) {
        return Ok(softmax::on_cpu(t, k, op == AlongOp::LogSoftmax));
    }
    let shape = plan.shape.clone();
    if let (AlongOp::Norm, Device::Cpu) = (op, t.device()) {
        let reduced: Vec<bool> = (0..t.ndim()).map(|d| dim.is_none_or(|k| k == d)).collect();
        return Ok(Tensor::new(
            norm::on_cpu(t, &reduced, p),
            shape,
            Device::Cpu,
        ));
    }
    let buf = with_dtype!(dt, T => t.with_slice::<T, _>(|s| run::<T>(op, p, s, lines)));
    debug_assert_eq!(buf.dtype(), op.out_dtype(dt));
    Ok(Tensor::new(buf, shape, t.device()))
}

/// The p-norm of a CPU tensor over several dims at once, as PyTorch walks
/// them (its order depends on the dims' strides, which moving the dims
/// together into one would lose).
pub fn norm_over_cpu(p: Param, t: &Tensor, dims: &[i64], keepdim: bool) -> Result<Tensor, Error> {
    let dims = norm_dims(dims, t.ndim())?;
    let reduced: Vec<bool> = (0..t.ndim()).map(|d| dims.contains(&d)).collect();
    let len = dims.iter().map(|&d| t.shape()[d]).product();
    check(AlongOp::Norm, t.dtype(), p, len)?;
    let shape: Vec<usize> = (0..t.ndim())
        .filter_map(|d| match (reduced[d], keepdim) {
            (false, _) => Some(t.shape()[d]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    Ok(Tensor::new(
        norm::on_cpu(t, &reduced, p),
        shape,
        Device::Cpu,
    ))
}

fn run<T: Stored>(op: AlongOp, p: Param, s: &[T], lines: Lines) -> Buffer {
    match op {
        AlongOp::Cumsum | AlongOp::Cumprod => scan(op == AlongOp::Cumprod, s, lines),
        AlongOp::Softmax | AlongOp::LogSoftmax => {
            let mut out = vec![T::default(); s.len()];
            for line in 0..lines.count() {
                let at = |k| lines.at(line, k);
                let xs: Vec<f64> = (0..lines.len).map(|k| s[at(k)].to_f64()).collect();
                for (k, y) in softmax(&xs, op == AlongOp::LogSoftmax).enumerate() {
                    out[at(k)] = T::from_f64(y);
                }
            }
            T::into_buffer(out)
        }
        AlongOp::Var | AlongOp::Std | AlongOp::Norm => {
            // PyTorch's CPU var and std: one result (everything reduced)
            // in two passes, several in Welford's single pass.
            let welford = lines.count() != 1;
            let out = (0..lines.count())
                .map(|line| {
                    let xs: Vec<f64> = (0..lines.len)
                        .map(|k| s[lines.at(line, k)].to_f64())
                        .collect();
                    T::from_f64(match op {
                        AlongOp::Norm if T::DTYPE == DType::F64 => norm(&xs, p),
                        AlongOp::Norm => norm_f32(&xs, p),
                        _ if welford => var_welford(&xs, p, op == AlongOp::Std),
                        _ => var(&xs, p, op == AlongOp::Std),
                    })
                })
                .collect();
            T::into_buffer(out)
        }
    }
}

/// Running sums or products, accumulated as PyTorch's CPU kernel does
/// (`at::acc_type<T, false>`), each output rounded from the accumulator.
fn scan<T: Stored>(prod: bool, s: &[T], lines: Lines) -> Buffer {
    let n = s.len();
    match T::DTYPE {
        DType::F16 | DType::BF16 => {
            let mut out = vec![T::default(); n];
            for line in 0..lines.count() {
                let mut acc: f32 = if prod { 1.0 } else { 0.0 };
                for k in 0..lines.len {
                    let x = s[lines.at(line, k)].to_f64() as f32;
                    acc = if prod { acc * x } else { acc + x };
                    out[lines.at(line, k)] = T::from_f64(acc as f64);
                }
            }
            T::into_buffer(out)
        }
        DType::F32 | DType::F64 => {
            let mut out = vec![T::default(); n];
            for line in 0..lines.count() {
                let mut acc: f64 = if prod { 1.0 } else { 0.0 };
                for k in 0..lines.len {
                    let x = s[lines.at(line, k)].to_f64();
                    acc = if prod { acc * x } else { acc + x };
                    out[lines.at(line, k)] = T::from_f64(acc);
                }
            }
            T::into_buffer(out)
        }
        _ => {
            let mut out = vec![0i64; n];
            for line in 0..lines.count() {
                let mut acc: i64 = if prod { 1 } else { 0 };
                for k in 0..lines.len {
                    let x = s[lines.at(line, k)].to_i64();
                    acc = if prod {
                        acc.wrapping_mul(x)
                    } else {
                        acc.wrapping_add(x)
                    };
                    out[lines.at(line, k)] = acc;
                }
            }
            Buffer::I64(out)
        }
    }
}

/// The sum in order from +0 (the kernels' start; Rust's `sum` starts
/// from -0, which an empty line would keep).
fn total(xs: impl Iterator<Item = f64>) -> f64 {
    xs.fold(0.0, |a, x| a + x)
}

/// The largest of `xs`, NaN if any is; -inf for none.
pub fn max_nan(xs: &[f64]) -> f64 {
    xs.iter().fold(f64::NEG_INFINITY, |m, &x| {
        if m.is_nan() || x.is_nan() {
            f64::NAN
        } else {
            m.max(x)
        }
    })
}

/// softmax (or log_softmax) of one line: `exp(x - max) / Σ exp(x - max)`,
/// or `(x - max) - ln Σ exp(x - max)`.
fn softmax(xs: &[f64], log: bool) -> impl Iterator<Item = f64> + '_ {
    let m = max_nan(xs);
    let sum = total(xs.iter().map(|&x| (x - m).exp()));
    let ln = sum.ln();
    xs.iter().map(move |&x| {
        if log {
            (x - m) - ln
        } else {
            (x - m).exp() / sum
        }
    })
}

/// The variance with `correction` (two passes: the mean, then the squared
/// deviations), or its square root. The divisor is `max(0, n - correction)`,
/// as PyTorch's: a line too short for it gives inf, or NaN for 0 / 0.
fn var(xs: &[f64], correction: f64, sqrt: bool) -> f64 {
    let n = xs.len() as f64;
    let mean = total(xs.iter().copied()) / n;
    let ss = total(xs.iter().map(|&x| (x - mean) * (x - mean)));
    let v = ss / (n - correction).max(0.0);
    if sqrt {
        v.sqrt()
    } else {
        v
    }
}

/// The variance as [`var`] gives it, in Welford's single pass: a running
/// mean and sum of squared deviations, updated element by element in order,
/// as PyTorch's CPU `WelfordOps` does (in f64 for every float dtype), so
/// the bits agree with it.
fn var_welford(xs: &[f64], correction: f64, sqrt: bool) -> f64 {
    let (mut mean, mut m2) = (0.0f64, 0.0f64);
    for (i, &x) in xs.iter().enumerate() {
        let delta = x - mean;
        mean += delta / (i + 1) as f64;
        m2 += delta * (x - mean);
    }
    let v = m2 / (xs.len() as f64 - correction).max(0.0);
    if sqrt {
        v.sqrt()
    } else {
        v
    }
}

/// The vector p-norm: the count of non-zeros for p = 0, the largest
/// (smallest) magnitude for inf (-inf), `(Σ |x|^p)^(1/p)` otherwise.
fn norm(xs: &[f64], p: f64) -> f64 {
    let abs = xs.iter().map(|x| x.abs());
    match p {
        0.0 => xs.iter().filter(|&&x| x != 0.0).count() as f64,
        1.0 => total(abs),
        2.0 => total(abs.map(|a| a * a)).sqrt(),
        f64::INFINITY => max_nan(&abs.collect::<Vec<_>>()),
        f64::NEG_INFINITY => -max_nan(&abs.map(|a| -a).collect::<Vec<_>>()),
        _ => total(abs.map(|a| a.powf(p))).powf(1.0 / p),
    }
}

/// `norm` accumulated in f32, as PyTorch's (CPU and CUDA) for f32, f16 and
/// bf16: a norm whose squares overflow f32 is inf there too.
fn norm_f32(xs: &[f64], p: f64) -> f64 {
    let abs = xs.iter().map(|&x| (x as f32).abs());
    let sum = |it: &mut dyn Iterator<Item = f32>| it.fold(0f32, |a, x| a + x);
    let pf = p as f32;
    f64::from(match p {
        0.0 => xs.iter().filter(|&&x| x != 0.0).count() as f32,
        1.0 => sum(&mut abs.into_iter()),
        2.0 => sum(&mut abs.map(|a| a * a)).sqrt(),
        f64::INFINITY | f64::NEG_INFINITY => return norm(xs, p),
        _ => sum(&mut abs.map(|a| a.powf(pf))).powf(1.0 / pf),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::ops::factory::from_f64s;
    use crate::runtime::Device;

    fn t(v: &[f64], shape: &[usize], dt: DType) -> Tensor {
        from_f64s(v.to_vec(), shape, dt, Device::Cpu)
    }

    /// Planned, then computed, as the runtime's `along` does.
    fn along(
        op: AlongOp,
        p: Param,
        x: &Tensor,
        dim: Option<i64>,
        keepdim: bool,
    ) -> Result<Tensor, Error> {
        let plan = Along::plan((op, p), (x.shape(), x.dtype()), dim, keepdim)?;
        super::along(x, &plan)
    }

    #[test]
    fn cumsum_runs_along_the_dim_and_integers_give_i64() {
        let x = t(&[1., 2., 3., 4., 5., 6.], &[2, 3], DType::I32);
        let r = along(AlongOp::Cumsum, 0.0, &x, Some(1), false).unwrap();
        assert_eq!(r.dtype(), DType::I64);
        assert_eq!(r.to_vec::<i64>(), vec![1, 3, 6, 4, 9, 15]);
        let r = along(AlongOp::Cumprod, 0.0, &x, Some(0), false).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![1, 2, 3, 4, 10, 18]);
    }

    #[test]
    fn f16_scans_accumulate_in_f32() {
        // 2048 + 1 + 1 in f16 steps would stay 2048; the f32 accumulator
        // reaches 2050, which f16 holds.
        let x = t(&[2048., 1., 1.], &[3], DType::F16);
        let r = along(AlongOp::Cumsum, 0.0, &x, Some(0), false).unwrap();
        assert_eq!(r.to_vec::<f64>(), vec![2048., 2048., 2050.]);
    }

    #[test]
    fn softmax_sums_to_one_and_nan_spreads_over_its_line() {
        let x = t(&[1., 2., 3., f64::NAN, 0., 0.], &[2, 3], DType::F64);
        let r = along(AlongOp::Softmax, 0.0, &x, Some(-1), false).unwrap();
        let v = r.to_vec::<f64>();
        assert!((v[..3].iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert!(v[3..].iter().all(|y| y.is_nan()));
        let r = along(AlongOp::LogSoftmax, 0.0, &x, Some(1), false).unwrap();
        assert!((r.to_vec::<f64>()[2] - (-0.40760596444438)).abs() < 1e-12);
        let neg = t(&[f64::NEG_INFINITY; 2], &[2], DType::F32);
        let r = along(AlongOp::Softmax, 0.0, &neg, Some(0), false).unwrap();
        assert!(r.to_vec::<f64>().iter().all(|y| y.is_nan()));
    }

    #[test]
    fn var_along_a_dim_is_welfords_and_of_everything_two_passes_as_in_pytorch() {
        // PyTorch 2.15 (CPU) gives 19.54566666666667 for this row's var(1)
        // in a [2, 6] f64 tensor (Welford); two passes give 1 ulp less, as
        // PyTorch does when the row is the whole tensor.
        let row = [-0.6, -5.1, 0.9, 1.5, -9.7, -5.7];
        let two = row
            .iter()
            .chain(&[1., 2., 3., 4., 5., 6.])
            .copied()
            .collect::<Vec<_>>();
        let x = t(&two, &[2, 6], DType::F64);
        let v = along(AlongOp::Var, 1.0, &x, Some(1), false).unwrap();
        assert_eq!(v.to_vec::<f64>()[0], 19.54566666666667);
        let one = t(&row, &[6], DType::F64);
        let v = along(AlongOp::Var, 1.0, &one, Some(0), false).unwrap();
        assert_eq!(v.to_vec::<f64>()[0], 19.545666666666666);
    }

    #[test]
    fn var_and_std_use_the_correction() {
        let x = t(&[1., 2., 3., 4.], &[2, 2], DType::F32);
        let all = |op, c| along(op, c, &x, None, false).unwrap().to_vec::<f64>()[0];
        assert_eq!(all(AlongOp::Var, 1.0), (5.0f64 / 3.0) as f32 as f64);
        assert_eq!(all(AlongOp::Var, 0.0), 1.25);
        assert_eq!(all(AlongOp::Std, 0.0), 1.25f64.sqrt() as f32 as f64);
        let rows = along(AlongOp::Var, 1.0, &x, Some(1), true).unwrap();
        assert_eq!(rows.shape(), &[2, 1]);
        assert_eq!(rows.to_vec::<f64>(), vec![0.5, 0.5]);
        // One element, corrected by one: 0 / 0.
        let one = t(&[3.], &[1], DType::F32);
        assert!(along(AlongOp::Var, 1.0, &one, None, false)
            .unwrap()
            .to_vec::<f64>()[0]
            .is_nan());
    }

    #[test]
    fn norms_of_every_order() {
        let x = t(&[3., -4., 0.], &[3], DType::F64);
        let n = |p| {
            along(AlongOp::Norm, p, &x, None, false)
                .unwrap()
                .to_vec::<f64>()[0]
        };
        assert_eq!(n(2.0), 5.0);
        assert_eq!(n(1.0), 7.0);
        assert_eq!(n(0.0), 2.0);
        assert_eq!(n(f64::INFINITY), 4.0);
        assert_eq!(n(f64::NEG_INFINITY), 0.0);
        assert!((n(3.0) - 91f64.powf(1.0 / 3.0)).abs() < 1e-12);
        let empty = t(&[], &[0], DType::F32);
        assert!(along(AlongOp::Norm, f64::INFINITY, &empty, None, false).is_err());
        assert_eq!(
            along(AlongOp::Norm, 2.0, &empty, None, false)
                .unwrap()
                .to_vec::<f64>(),
            vec![0.0]
        );
    }

    #[test]
    fn integers_are_refused_where_pytorch_refuses_them() {
        let x = t(&[1., 2.], &[2], DType::I64);
        for op in [AlongOp::Softmax, AlongOp::Var, AlongOp::Std, AlongOp::Norm] {
            let e = along(op, 1.0, &x, Some(0), false).unwrap_err();
            assert!(e.to_string().contains("floating point"), "{e}");
        }
    }
}
