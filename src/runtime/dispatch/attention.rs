//! Fused attention (`op::attention`): its output and per-row log-sum-exp
//! from one kernel, and its gradients, computed by the device's `Compute`
//! (the host's `ops::attention`, or `cuda::exec_attention`'s kernels) as
//! work of the current stream. Only the results take device memory: the
//! scores live a row at a time, as in PyTorch's flash and memory-efficient
//! kernels.

use std::sync::Arc;

use super::{Flops, Runtime};
use crate::error::Error;
use crate::runtime::op::attention::{blhe, Attend, Dims};
use crate::runtime::timing::Math;
use crate::runtime::{DType, Tensor};

type Pair = (Arc<Tensor>, Arc<Tensor>);
type Triple = (Arc<Tensor>, Arc<Tensor>, Arc<Tensor>);

fn same_device(ts: &[&Tensor]) -> Result<(), Error> {
    let d = ts[0].device();
    match ts.iter().all(|t| t.device() == d) {
        true => Ok(()),
        false => Err(Error::runtime(format!(
            "fused attention takes tensors of one device, not {}",
            ts.iter()
                .map(|t| t.device().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn cost(d: &Dims, dt: DType, times: u64) -> Flops {
    Flops {
        flops: d.flops() * times,
        math: match dt {
            DType::F16 | DType::BF16 => Math::Half,
            _ => Math::Fp32,
        },
        host_serial: 0.0,
    }
}

impl Runtime {
    /// `(out [B, H, L, Ev], logsumexp [B, H, L])` of `softmax(q @ k.mT *
    /// scale + bias) @ v`, one kernel writing both.
    pub fn attention(
        &mut self,
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        bias: Option<&Tensor>,
        how: &Attend,
    ) -> Result<Pair, Error> {
        let d = Dims::of(q, k, v, bias)?;
        same_device(&[q, k, v].into_iter().chain(bias).collect::<Vec<_>>())?;
        let inputs: Vec<&Tensor> = [q, k, v].into_iter().chain(bias).collect();
        let how = *how;
        let outs = self.made_n(q.device(), &inputs, move |rt, t| {
            let (out, lse) = rt.compute(t[0].device()).attention(
                rt,
                (t[0], t[1], t[2]),
                t.get(3).copied(),
                &how,
            )?;
            Ok(vec![out, lse])
        })?;
        let [out, lse]: [Tensor; 2] = outs.try_into().map_err(|_| too_few_results())?;
        let out = self.finish(out, None, &inputs, cost(&d, q.dtype(), 1))?;
        let lse = self.finish_unwritten(lse, None, Flops::default())?;
        Ok((seen_as_bhlw(out, how.out_blhe), lse))
    }

    /// The gradients `(dq, dk, dv)` of `attention` for its output's
    /// gradient `dout`, from the saved `out` and `lse` (the weights
    /// recomputed row by row): one kernel's work, as PyTorch's.
    #[allow(clippy::too_many_arguments)]
    pub fn attention_backward(
        &mut self,
        dout: &Tensor,
        (q, k, v): (&Tensor, &Tensor, &Tensor),
        (out, lse): (&Tensor, &Tensor),
        bias: Option<&Tensor>,
        how: &Attend,
    ) -> Result<Triple, Error> {
        let d = Dims::of(q, k, v, bias)?;
        if dout.shape() != out.shape() {
            return Err(Error::shape(
                "fused attention's gradient has the output's shape",
            ));
        }
        let inputs: Vec<&Tensor> = [dout, q, k, v, out, lse].into_iter().chain(bias).collect();
        let how = *how;
        let grads = self.made_n(q.device(), &inputs, move |rt, t| {
            let (dq, dk, dv) = rt.compute(t[0].device()).attention_backward(
                rt,
                t[0],
                (t[1], t[2], t[3]),
                (t[4], t[5]),
                t.get(6).copied(),
                &how,
            )?;
            Ok(vec![dq, dk, dv])
        })?;
        let [dq, dk, dv]: [Tensor; 3] = grads.try_into().map_err(|_| too_few_results())?;
        // The backward recomputes the scores and makes four products.
        let dq = self.finish(dq, None, &inputs, cost(&d, q.dtype(), 2))?;
        let dk = self.finish_unwritten(dk, None, Flops::default())?;
        let dv = self.finish_unwritten(dv, None, Flops::default())?;
        let like = |g: Arc<Tensor>, x: &Tensor| seen_as_bhlw(g, blhe(x.shape(), x.strides()));
        Ok((like(dq, q), like(dk, k), like(dv, v)))
    }
}

/// The error for a fused attention kernel that gave too few results (never).
fn too_few_results() -> Error {
    Error::value("internal error: fused attention gave too few results")
}

/// A result the device made as [B, rows, H, width] when `blhe` (as
/// PyTorch's kernels make it), seen as [B, H, rows, width].
fn seen_as_bhlw(t: Arc<Tensor>, blhe: bool) -> Arc<Tensor> {
    match blhe {
        true => Arc::new(t.transpose(1, 2)),
        false => t,
    }
}
