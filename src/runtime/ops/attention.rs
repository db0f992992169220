//! Fused attention on the host (the CPU and the simulator's devices): for
//! each (batch, head) and each query row, the row's scores against every
//! key, their log-sum-exp, and the output as the softmax-weighted sum of
//! the values; the gradient recomputes each row's weights from the saved
//! log-sum-exp. Only a row of scores exists at a time, as in the fused
//! kernels (`kernels/attention.cu` computes the same on a CUDA device).
//! Sums are in f64, rounded once to the inputs' dtype.

use super::super::buffer::Stored;
use super::super::op::attention::{blhe, broadcast4, strides, Attend, Dims};
use super::super::parallel;
use super::super::shape::contiguous_strides;
use super::super::Tensor;

/// Inputs read once as f64 in row-major order, and the bias in its own
/// shape with [B, H, L, S] strides over it.
struct Rows {
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    bias: Option<(Vec<f64>, [usize; 4])>,
}

impl Rows {
    fn read(q: &Tensor, k: &Tensor, v: &Tensor, bias: Option<&Tensor>) -> Rows {
        let bias = bias.map(|t| {
            let own = contiguous_strides(t.shape());
            let strides = broadcast4(t.shape(), &own).map(|x| x as usize);
            (t.to_vec::<f64>(), strides)
        });
        Rows {
            q: q.to_vec::<f64>(),
            k: k.to_vec::<f64>(),
            v: v.to_vec::<f64>(),
            bias,
        }
    }

    /// Query row `i`'s scores against every key of (batch `b`, head `h`).
    fn scores(&self, d: &Dims, how: &Attend, (b, h, i): (usize, usize, usize), row: &mut [f64]) {
        let bh = b * d.h + h;
        let q = &self.q[(bh * d.l + i) * d.e..][..d.e];
        for (j, out) in row.iter_mut().enumerate() {
            if how.causal && j > i {
                *out = f64::NEG_INFINITY;
                continue;
            }
            let k = &self.k[(bh * d.s + j) * d.e..][..d.e];
            let mut dot = q.iter().zip(k).map(|(a, b)| a * b).sum::<f64>() * how.scale;
            if let Some((bias, st)) = &self.bias {
                dot += bias[b * st[0] + h * st[1] + i * st[2] + j * st[3]];
            }
            *out = dot;
        }
    }
}

/// `(out [B, H, L, Ev] (as [B, L, H, Ev] when `how.out_blhe`), logsumexp
/// [B, H, L])` of `q`, `k`, `v` and an
/// additive `bias`: a row no key may be seen from gives zeros and -inf.
pub fn forward(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    bias: Option<&Tensor>,
    how: &Attend,
) -> (Tensor, Tensor) {
    let d = Dims::of(q, k, v, bias).expect("checked by the op layer");
    let rows = Rows::read(q, k, v, bias);
    let parts = parallel::map(d.b * d.h, |bh| {
        let (b, h) = (bh / d.h, bh % d.h);
        let mut out = vec![0.0; d.l * d.ev];
        let mut lse = vec![f64::NEG_INFINITY; d.l];
        let mut row = vec![0.0; d.s];
        for i in 0..d.l {
            rows.scores(&d, how, (b, h, i), &mut row);
            let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if m == f64::NEG_INFINITY {
                continue;
            }
            let sum: f64 = row.iter().map(|s| (s - m).exp()).sum();
            lse[i] = m + sum.ln();
            let o = &mut out[i * d.ev..][..d.ev];
            for (j, s) in row.iter().enumerate() {
                let p = (s - lse[i]).exp();
                let v = &rows.v[(bh * d.s + j) * d.ev..][..d.ev];
                o.iter_mut().zip(v).for_each(|(o, v)| *o += p * v);
            }
        }
        (out, lse)
    });
    let (mut out, mut lse) = (Vec::new(), Vec::new());
    for (o, l) in parts {
        out.extend(o);
        lse.extend(l);
    }
    let dt = q.dtype();
    let out = laid_out(out, (d.b, d.h, d.l, d.ev), how.out_blhe, q);
    let lse = Tensor::new(f64::into_buffer(lse), vec![d.b, d.h, d.l], q.device());
    (out, lse.cast(Dims::lse_dtype(dt)))
}

/// Row-major [B, H, L, W] values as a tensor of `like`'s dtype and device,
/// or as a row-major [B, L, H, W] when `blhe` (the op layer shows it
/// through `transpose(1, 2)`).
fn laid_out(x: Vec<f64>, dims: (usize, usize, usize, usize), blhe: bool, like: &Tensor) -> Tensor {
    let (b, h, l, w) = dims;
    if !blhe {
        return Tensor::new(f64::into_buffer(x), vec![b, h, l, w], like.device())
            .cast(like.dtype());
    }
    let st = strides(dims, true);
    let mut y = vec![0.0; x.len()];
    for (at, v) in x.into_iter().enumerate() {
        let (bi, hi, li, wi) = (at / (h * l * w), at / (l * w) % h, at / w % l, at % w);
        y[bi * st[0] + hi * st[1] + li * st[2] + wi] = v;
    }
    Tensor::new(f64::into_buffer(y), vec![b, l, h, w], like.device()).cast(like.dtype())
}

/// The gradients `(dq, dk, dv)` of a fused attention whose output `out`
/// and `lse` the forward gave, for the output's gradient `dout`.
#[allow(clippy::too_many_arguments)]
pub fn backward(
    dout: &Tensor,
    (q, k, v): (&Tensor, &Tensor, &Tensor),
    (out, lse): (&Tensor, &Tensor),
    bias: Option<&Tensor>,
    how: &Attend,
) -> (Tensor, Tensor, Tensor) {
    let d = Dims::of(q, k, v, bias).expect("checked by the op layer");
    let rows = Rows::read(q, k, v, bias);
    let (g, o, lse) = (
        dout.to_vec::<f64>(),
        out.to_vec::<f64>(),
        lse.to_vec::<f64>(),
    );
    let parts = parallel::map(d.b * d.h, |bh| {
        let (b, h) = (bh / d.h, bh % d.h);
        let mut dq = vec![0.0; d.l * d.e];
        let mut dk = vec![0.0; d.s * d.e];
        let mut dv = vec![0.0; d.s * d.ev];
        let mut row = vec![0.0; d.s];
        for i in 0..d.l {
            let at = bh * d.l + i;
            if lse[at] == f64::NEG_INFINITY {
                continue;
            }
            rows.scores(&d, how, (b, h, i), &mut row);
            let gi = &g[at * d.ev..][..d.ev];
            let delta: f64 = gi
                .iter()
                .zip(&o[at * d.ev..][..d.ev])
                .map(|(a, b)| a * b)
                .sum();
            let qi = &rows.q[at * d.e..][..d.e];
            for (j, s) in row.iter().enumerate() {
                let p = (s - lse[at]).exp();
                let vj = &rows.v[(bh * d.s + j) * d.ev..][..d.ev];
                let dp: f64 = gi.iter().zip(vj).map(|(a, b)| a * b).sum();
                let ds = p * (dp - delta) * how.scale;
                dv[j * d.ev..][..d.ev]
                    .iter_mut()
                    .zip(gi)
                    .for_each(|(x, g)| *x += p * g);
                let kj = &rows.k[(bh * d.s + j) * d.e..][..d.e];
                dq[i * d.e..][..d.e]
                    .iter_mut()
                    .zip(kj)
                    .for_each(|(x, k)| *x += ds * k);
                dk[j * d.e..][..d.e]
                    .iter_mut()
                    .zip(qi)
                    .for_each(|(x, q)| *x += ds * q);
            }
        }
        (dq, dk, dv)
    });
    let (mut dq, mut dk, mut dv) = (Vec::new(), Vec::new(), Vec::new());
    for (a, b, c) in parts {
        dq.extend(a);
        dk.extend(b);
        dv.extend(c);
    }
    (
        laid_out(dq, (d.b, d.h, d.l, d.e), blhe(q.shape(), q.strides()), q),
        laid_out(dk, (d.b, d.h, d.s, d.e), blhe(k.shape(), k.strides()), q),
        laid_out(dv, (d.b, d.h, d.s, d.ev), blhe(v.shape(), v.strides()), q),
    )
}
