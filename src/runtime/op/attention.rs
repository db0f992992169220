//! Fused attention (the kernels behind PyTorch's flash and memory-efficient
//! `scaled_dot_product_attention`): `softmax(q @ k.mT * scale + bias) @ v`
//! computed one query row at a time, so no [L, S] matrix of scores is ever
//! stored; what is kept for the gradient is each row's log-sum-exp. The
//! host computes it in `ops/attention.rs`, a CUDA device in
//! `kernels/attention.cu`.

use crate::error::Error;
use crate::runtime::shape::fmt_shape;
use crate::runtime::{DType, Tensor};

/// What a fused attention takes besides `q`, `k`, `v` and an additive bias.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attend {
    /// What `q @ k.mT` is multiplied by.
    pub scale: f64,
    /// Query row `i` sees keys `0..=i` only (the upper-left causal mask).
    pub causal: bool,
    /// The output laid out as [B, L, H, Ev] (seen as [B, H, L, Ev]), as
    /// PyTorch's GPU kernels always and its CPU kernel for such a query
    /// make it; else row-major [B, H, L, Ev].
    pub out_blhe: bool,
}

/// Whether a [B, H, L, E] `shape` with `strides` lies as [B, L, H, E] (a
/// `transpose(1, 2)` of a row-major tensor, as a model's heads are split).
pub fn blhe(shape: &[usize], strides: &[isize]) -> bool {
    match (shape, strides) {
        ([_, h, l, e], [s0, s1, s2, s3]) => {
            let (h, l, e) = (*h as isize, *l as isize, *e as isize);
            *s3 == 1 && *s1 == e && *s2 == h * e && *s0 == l * h * e && h > 1
        }
        _ => false,
    }
}

/// The strides of a tensor of at most 4 dims as a [B, H, L, S] operand
/// broadcast to it: right-aligned, 0 where a size is 1.
pub fn broadcast4(shape: &[usize], strides: &[isize]) -> [isize; 4] {
    let mut out = [0isize; 4];
    let n = shape.len();
    for (i, (&size, &stride)) in shape.iter().zip(strides).enumerate() {
        if size != 1 {
            out[4 - n + i] = stride;
        }
    }
    out
}

/// Element strides of a [B, H, L, W] result, laid out as [B, L, H, W]
/// when `blhe`.
pub fn strides(d: (usize, usize, usize, usize), blhe: bool) -> [usize; 4] {
    let (_, h, l, w) = d;
    match blhe {
        true => [l * h * w, w, h * w, 1],
        false => [h * l * w, l * w, w, 1],
    }
}

/// The sizes of a fused attention: batch, heads, query rows `l`, key rows
/// `s`, the query and key width `e` and the value width `ev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub b: usize,
    pub h: usize,
    pub l: usize,
    pub s: usize,
    pub e: usize,
    pub ev: usize,
}

impl Dims {
    /// The sizes of `q` [B, H, L, E], `k` [B, H, S, E], `v` [B, H, S, Ev]
    /// (floats of one dtype), and `bias` when given (the query's dtype,
    /// broadcasting to [B, H, L, S]).
    pub fn of(q: &Tensor, k: &Tensor, v: &Tensor, bias: Option<&Tensor>) -> Result<Dims, Error> {
        let bad = || {
            Error::shape(format!(
                "fused attention takes query [B, H, L, E], key [B, H, S, E] and value [B, H, S, Ev], \
                 not {}, {} and {}",
                fmt_shape(q.shape()),
                fmt_shape(k.shape()),
                fmt_shape(v.shape())
            ))
        };
        let four = |t: &Tensor| <[usize; 4]>::try_from(t.shape()).map_err(|_| bad());
        let ([b, h, l, e], [kb, kh, s, ke], [vb, vh, vs, ev]) = (four(q)?, four(k)?, four(v)?);
        if (kb, kh, ke) != (b, h, e) || (vb, vh, vs) != (b, h, s) {
            return Err(bad());
        }
        let dt = q.dtype();
        if !dt.is_float() || k.dtype() != dt || v.dtype() != dt {
            return Err(Error::dtype(
                format!(
                "fused attention takes query, key and value of one float dtype, not {}, {} and {}",
                q.dtype(),
                k.dtype(),
                v.dtype()
            ),
                None,
            ));
        }
        if let Some(bias) = bias {
            let fits = bias.ndim() <= 4
                && bias.dtype() == dt
                && bias
                    .shape()
                    .iter()
                    .rev()
                    .zip([s, l, h, b])
                    .all(|(&n, want)| n == 1 || n == want);
            if !fits {
                return Err(Error::shape(format!(
                    "an attention bias of {} {} does not broadcast to [{b}, {h}, {l}, {s}] of {dt}",
                    bias.dtype(),
                    fmt_shape(bias.shape())
                )));
            }
        }
        Ok(Dims { b, h, l, s, e, ev })
    }

    /// The dtype of the log-sum-exp kept per query row: f64 for f64
    /// inputs, else f32 (PyTorch's accumulate type).
    pub fn lse_dtype(dt: DType) -> DType {
        match dt {
            DType::F64 => DType::F64,
            _ => DType::F32,
        }
    }

    /// The multiply-adds of the forward: two products of [L, S] by the width.
    pub fn flops(&self) -> u64 {
        (2 * self.b * self.h * self.l * self.s * (self.e + self.ev)) as u64
    }
}
