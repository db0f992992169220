//! `torch.nn.init`'s functions: a tensor filled in place from the device's
//! generator (or with a constant), with the bounds PyTorch computes from
//! its fans and gain; the tensor back. As PyTorch's, they run without
//! recording (a parameter is changed in place under `no_grad`).

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::runtime::op::factory::{Distribution, Fill, NewTensor};
use crate::runtime::{DType, Tensor};

type Out = Result<Value, Diagnostic>;

/// PyTorch's `calculate_gain(nonlinearity, param)`.
fn gain(nonlinearity: &str, param: Option<f64>) -> Result<f64, Error> {
    Ok(match nonlinearity {
        "linear" | "conv1d" | "conv2d" | "conv3d" | "sigmoid" | "conv_transpose1d"
        | "conv_transpose2d" | "conv_transpose3d" => 1.0,
        "tanh" => 5.0 / 3.0,
        "relu" => 2f64.sqrt(),
        "leaky_relu" => {
            let slope = param.unwrap_or(0.01);
            (2.0 / (1.0 + slope * slope)).sqrt()
        }
        "selu" => 3.0 / 4.0,
        other => return Err(Error::value(format!("Unsupported nonlinearity {other}"))),
    })
}

/// `(fan_in, fan_out)` of a weight: PyTorch's `_calculate_fan_in_and_fan_out`.
fn fans(t: &Tensor) -> Result<(f64, f64), Error> {
    let s = t.shape();
    if s.len() < 2 {
        return Err(Error::value(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
        ));
    }
    let receptive: usize = s[2..].iter().product();
    Ok(((s[1] * receptive) as f64, (s[0] * receptive) as f64))
}

fn string<'a>(b: &'a Bound, name: &str, default: &'a str) -> Result<&'a str, Diagnostic> {
    match b.given(name) {
        None => Ok(default),
        Some((Value::Str(s), _)) => Ok(s.as_str()),
        Some((v, span)) => Err(Error::wrong_type(name, "a string", v.type_name()).at(*span)),
    }
}

impl Interp {
    /// `t` filled with numbers from its device's generator: uniform in
    /// `[lo, hi)` or normal with `mean` and `std`.
    pub(crate) fn fill_random(
        &mut self,
        t: &Tensor,
        dist: Distribution,
        a: f64,
        b: f64,
    ) -> Result<(), Error> {
        match dist {
            Distribution::Normal => self.rt.normal_(t, a, b),
            _ => self.rt.uniform_(t, a, b),
        }
    }
}

/// Every `nn.init` function, by name.
pub(super) fn init(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let t = b.tensor("tensor")?;
    let at = |e: Error| e.at(b.span);
    if !t.dtype().is_float() && !matches!(name, "zeros_" | "ones_" | "constant_") {
        return Err(Error::dtype(
            format!("{name} needs a floating point tensor, not {}", t.dtype()),
            None,
        )
        .at(b.span_of("tensor")));
    }
    match name {
        "uniform_" => {
            let (lo, hi) = (b.float("a")?.unwrap_or(0.0), b.float("b")?.unwrap_or(1.0));
            me.fill_random(&t, Distribution::Uniform, lo, hi)
                .map_err(at)?
        }
        "normal_" => {
            let (mean, std) = (
                b.float("mean")?.unwrap_or(0.0),
                b.float("std")?.unwrap_or(1.0),
            );
            me.fill_random(&t, Distribution::Normal, mean, std)
                .map_err(at)?
        }
        "zeros_" | "ones_" | "constant_" => {
            let v = match name {
                "zeros_" => Fill::Int(0),
                "ones_" => Fill::Int(1),
                _ => b
                    .fill("val")?
                    .ok_or_else(|| Error::value("constant_ needs `val`").at(b.span))?,
            };
            me.rt.fill(&t, v).map_err(at)?
        }
        "trunc_normal_" => {
            let float =
                |name: &str, default: f64| Ok::<_, Diagnostic>(b.float(name)?.unwrap_or(default));
            let settings = (
                float("mean", 0.0)?,
                float("std", 1.0)?,
                float("a", -2.0)?,
                float("b", 2.0)?,
            );
            super::trunc_normal::trunc_normal_(me, &t, settings).map_err(at)?
        }
        "orthogonal_" => {
            let g = b.float("gain")?.unwrap_or(1.0);
            orthogonal_(me, &t, g).map_err(at)?
        }
        "xavier_uniform_" | "xavier_normal_" => {
            let g = b.float("gain")?.unwrap_or(1.0);
            let (fan_in, fan_out) = fans(&t).map_err(at)?;
            let std = g * (2.0 / (fan_in + fan_out)).sqrt();
            match name {
                "xavier_uniform_" => {
                    let bound = 3f64.sqrt() * std;
                    me.fill_random(&t, Distribution::Uniform, -bound, bound)
                }
                _ => me.fill_random(&t, Distribution::Normal, 0.0, std),
            }
            .map_err(at)?
        }
        _ => {
            // kaiming_uniform_, kaiming_normal_
            let a = b.float("a")?.unwrap_or(0.0);
            let mode = string(b, "mode", "fan_in")?;
            let nonlinearity = string(b, "nonlinearity", "leaky_relu")?;
            let (fan_in, fan_out) = fans(&t).map_err(at)?;
            let fan = match mode {
                "fan_in" => fan_in,
                "fan_out" => fan_out,
                other => {
                    return Err(Error::value(format!(
                        "Mode {other} not supported, please use one of fan_in, fan_out"
                    ))
                    .at(b.span_of("mode")))
                }
            };
            let std = gain(nonlinearity, Some(a)).map_err(at)? / fan.sqrt();
            match name {
                "kaiming_uniform_" => {
                    let bound = 3f64.sqrt() * std;
                    me.fill_random(&t, Distribution::Uniform, -bound, bound)
                }
                _ => me.fill_random(&t, Distribution::Normal, 0.0, std),
            }
            .map_err(at)?
        }
    }
    Ok(Value::Tensor(Arc::clone(&t)))
}

/// `orthogonal_(tensor, gain)` as PyTorch's: normal numbers [rows, cols]
/// (rows the first dim, cols the rest), transposed when wider than tall,
/// their QR decomposition's `q` with each column's sign made that of `r`'s
/// diagonal (a unique, uniformly drawn orthogonal matrix), times `gain`.
/// The decomposition runs on the host (Householder, in f64), as the fill
/// of a parameter at construction.
fn orthogonal_(me: &mut Interp, t: &Tensor, gain: f64) -> Result<(), Error> {
    if t.ndim() < 2 {
        return Err(Error::value(
            "Only tensors with 2 or more dimensions are supported",
        ));
    }
    if t.numel() == 0 {
        return Ok(());
    }
    let rows = t.shape()[0];
    let cols = t.numel() / rows;
    let (m, n) = if rows < cols {
        (cols, rows)
    } else {
        (rows, cols)
    };
    // PyTorch draws [rows, cols] in the tensor's own dtype and on its own
    // device (`tensor.new_empty((rows, cols)).normal_()`), so a seeded
    // program gets its numbers; the decomposition then runs in f64.
    let new = NewTensor {
        shape: &[rows, cols],
        dtype: t.dtype(),
        device: t.device(),
        like: None,
    };
    let drawn = me.rt.random(new, Distribution::Normal)?;
    let drawn = me.rt.copy_to(&drawn, crate::runtime::Device::Cpu)?;
    let drawn = me
        .rt
        .tensor(&drawn, DType::F64, crate::runtime::Device::Cpu)?;
    let drawn = drawn.to_vec::<f64>();
    let a = match rows < cols {
        true => (0..m * n).map(|k| drawn[(k % n) * cols + k / n]).collect(),
        false => drawn,
    };
    let q = householder_q(a, m, n);
    // q [m, n] back as [rows, cols]: transposed when it was.
    let mut out = vec![0.0; rows * cols];
    for i in 0..m {
        for j in 0..n {
            let v = q[i * n + j] * gain;
            match rows < cols {
                true => out[j * cols + i] = v,
                false => out[i * cols + j] = v,
            }
        }
    }
    let host = Tensor::from_vec(out, t.shape().to_vec());
    let cast = me.rt.tensor(&host, t.dtype(), t.device())?;
    me.rt.assign(t, &cast)
}

/// The `q` [m, n] (m >= n) of `a`'s QR decomposition (row-major), each
/// column times the sign of `r`'s diagonal element (so `r`'s diagonal is
/// positive, as PyTorch's `q *= d.sign()` makes it).
fn householder_q(mut a: Vec<f64>, m: usize, n: usize) -> Vec<f64> {
    let mut vs: Vec<Vec<f64>> = Vec::with_capacity(n);
    let mut diag = vec![0.0; n];
    for k in 0..n {
        let norm: f64 = (k..m)
            .map(|i| a[i * n + k] * a[i * n + k])
            .sum::<f64>()
            .sqrt();
        let alpha = if a[k * n + k] > 0.0 { -norm } else { norm };
        let mut v: Vec<f64> = (k..m).map(|i| a[i * n + k]).collect();
        v[0] -= alpha;
        let vn: f64 = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if vn > 0.0 {
            v.iter_mut().for_each(|x| *x /= vn);
            for j in k..n {
                let dot: f64 = (k..m).map(|i| v[i - k] * a[i * n + j]).sum();
                for i in k..m {
                    a[i * n + j] -= 2.0 * v[i - k] * dot;
                }
            }
        }
        diag[k] = a[k * n + k];
        vs.push(v);
    }
    // q = H_0 H_1 ... H_{n-1} applied to the first n columns of I.
    let mut q = vec![0.0; m * n];
    for j in 0..n {
        q[j * n + j] = 1.0;
    }
    for k in (0..n).rev() {
        let v = &vs[k];
        for j in 0..n {
            let dot: f64 = (k..m).map(|i| v[i - k] * q[i * n + j]).sum();
            for i in k..m {
                q[i * n + j] -= 2.0 * v[i - k] * dot;
            }
        }
    }
    for (j, d) in diag.iter().enumerate() {
        if *d < 0.0 {
            for i in 0..m {
                q[i * n + j] = -q[i * n + j];
            }
        }
    }
    q
}

/// `calculate_gain(nonlinearity, param=none)`.
pub(super) fn calculate_gain(_: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let n = string(b, "nonlinearity", "linear")?;
    let g = gain(n, b.float("param")?).map_err(|e| e.at(b.span))?;
    Ok(Value::float(g))
}
