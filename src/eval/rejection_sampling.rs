//! `_cudash.cpu_sample(kind, a, b=None)`: a CPU tensor's draws by PyTorch's
//! CPU rejection samplers (`runtime::cpu_random::samplers`), for
//! `stdlib/torch_random_samplers.py`, which gives `torch._standard_gamma`,
//! `torch._sample_dirichlet`, `torch.poisson` and `torch.binomial` (and
//! draws a GPU tensor's with device ops). `a` and `b` come contiguous,
//! checked and of one shape; kinds: `gamma`, `dirichlet`, `poisson`,
//! `binomial`, and `rrelu` (`_cudash.cpu_sample("rrelu", x, lower, upper)`:
//! `nn.RReLU`'s random slopes, 1 where x is above zero).

use std::sync::Arc;

use super::args::ArgVal;
use super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::cpu_random::samplers::{self, Elem};
use crate::runtime::{DType, Device, Tensor};

/// The names this module answers.
pub const NAMES: [&str; 1] = ["_cudash.cpu_sample"];

impl Interp {
    pub(super) fn call_cpu_sample(
        &mut self,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let at = |e: Error| e.at(span);
        let kind = match args.first().map(|a| &a.value) {
            Some(Value::Str(s)) => s.to_string(),
            _ => return Err(at(Error::type_error("cpu_sample needs a kind"))),
        };
        let tensor = |k: usize| match args.get(k).map(|a| &a.value) {
            Some(Value::Tensor(t)) => Ok(Arc::clone(t)),
            _ => Err(Error::type_error("cpu_sample needs tensors").at(span)),
        };
        let a = tensor(1)?;
        if a.device() != Device::Cpu {
            return Err(at(Error::value("cpu_sample draws CPU tensors")));
        }
        self.rt.check_random().map_err(at)?;
        let dtype = a.dtype();
        let elem = match dtype {
            DType::F32 | DType::F16 | DType::BF16 => Elem::F32,
            _ => Elem::F64,
        };
        let shape = a.shape().to_vec();
        let values = a.to_vec::<f64>();
        let g = self.rt.generators.cpu();
        let drawn: Vec<f64> = match kind.as_str() {
            "gamma" => {
                let tiny = smallest_normal(dtype);
                values
                    .iter()
                    .map(|&alpha| samplers::gamma(g, alpha, elem).max(tiny))
                    .collect()
            }
            "dirichlet" => {
                // Gamma draws in double, each row normalised, then kept
                // inside (0, 1) in the tensor's type.
                let gammas: Vec<f64> = values
                    .iter()
                    .map(|&alpha| samplers::gamma(g, alpha, Elem::F64).max(f64::MIN_POSITIVE))
                    .collect();
                let row = shape.last().copied().unwrap_or(1).max(1);
                let (tiny, below_one) = (smallest_normal(dtype), below_one(dtype));
                gammas
                    .chunks(row)
                    .flat_map(|r| {
                        let sum: f64 = r.iter().sum();
                        r.iter()
                            .map(move |x| rounded(x / sum, dtype).clamp(tiny, below_one))
                    })
                    .collect()
            }
            "poisson" => values
                .iter()
                .map(|&rate| samplers::poisson(g, rate))
                .collect(),
            "binomial" => {
                let p = tensor(2)?.to_vec::<f64>();
                values
                    .iter()
                    .zip(p)
                    .map(|(&count, p)| samplers::binomial(g, count, p, elem))
                    .collect()
            }
            "rrelu" => {
                // `_rrelu_with_noise_train`: a slope drawn in double from
                // the float bounds for each element at or below zero, 1
                // above.
                let bound = |k: usize| match args.get(k).map(|a| &a.value) {
                    Some(Value::Float(f)) => Ok(f64::from(f.get() as f32)),
                    Some(Value::Int(i)) => Ok(f64::from(*i as f32)),
                    _ => Err(Error::type_error("rrelu needs its bounds").at(span)),
                };
                let (lower, upper) = (bound(2)?, bound(3)?);
                values
                    .iter()
                    .map(|&x| match x <= 0.0 {
                        true => rounded(g.uniform_f64(lower, upper), dtype),
                        false => 1.0,
                    })
                    .collect()
            }
            _ => return Err(at(Error::value(format!("no sampler `{kind}`")))),
        };
        let t = Tensor::from_vec(drawn, shape);
        let out = self.rt.tensor(&t, dtype, Device::Cpu).map_err(at)?;
        Ok(Value::Tensor(out))
    }
}

/// `numeric_limits<T>::min()`: the smallest positive normal number.
fn smallest_normal(dtype: DType) -> f64 {
    match dtype {
        DType::F64 => f64::MIN_POSITIVE,
        DType::F16 => half::f16::MIN_POSITIVE.to_f64(),
        DType::BF16 => half::bf16::MIN_POSITIVE.to_f64(),
        _ => f64::from(f32::MIN_POSITIVE),
    }
}

/// The number just below 1 in `dtype` (`nexttoward(1, 0)`).
fn below_one(dtype: DType) -> f64 {
    match dtype {
        DType::F64 => 1.0 - f64::EPSILON / 2.0,
        _ => f64::from(1.0f32 - f32::EPSILON / 2.0),
    }
}

/// `x` as a value of `dtype`.
fn rounded(x: f64, dtype: DType) -> f64 {
    match dtype {
        DType::F64 => x,
        _ => f64::from(x as f32),
    }
}
