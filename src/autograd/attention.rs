//! `torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask,
//! dropout_p, is_causal, scale)`: `softmax(q @ k.mT * scale + mask) @ v`,
//! by the kernel PyTorch would choose (`sdp.rs`): a fused one (flash on the
//! CPU or a GPU, memory-efficient on a GPU: the op layer's
//! `Runtime::attention`, one node saving the output and each row's
//! log-sum-exp, no [L, S] weights stored), or PyTorch's math path
//! (`_scaled_dot_product_attention_math`): `q` and `k.mT` each scaled by
//! `sqrt(scale)` before the product, a boolean mask made 0 where it holds
//! and -inf elsewhere, `is_causal` a lower-triangular such mask, dropout on
//! the weights, each step its own node (`MulBackward1`,
//! `TransposeBackward0`, the products, `AddBackward0`, `SoftmaxBackward0`,
//! with a mask `SafeSoftmaxBackward0`).

use std::sync::Arc;

use super::node::{Backward, Saved};
use super::sdp::{self, Backend};
use super::{functional, record, views, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::along::AlongOp;
use crate::runtime::op::attention::{blhe, Attend};
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::view;
use crate::runtime::shape::fmt_shape;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// What `scaled_dot_product_attention` takes besides `q`, `k` and `v`.
pub struct Attention<'a> {
    pub mask: Option<&'a Arc<Tensor>>,
    pub dropout_p: f64,
    pub is_causal: bool,
    pub scale: Option<f64>,
}

pub fn scaled_dot_product_attention(
    rt: &mut Runtime,
    mode: Mode,
    q: &Arc<Tensor>,
    k: &Arc<Tensor>,
    v: &Arc<Tensor>,
    how: Attention,
) -> R<Arc<Tensor>> {
    let cast = super::autocast::inputs(rt, mode, "scaled_dot_product_attention", &[q, k, v])?;
    let (q, k, v) = (&cast.arc(0, q), &cast.arc(1, k), &cast.arc(2, v));
    check(q, k, v, &how)?;
    // PyTorch's CPU runs a 3-D batch through its fused kernel as one of
    // four dims: each input unsqueezed at 0 (`UnsqueezeBackward0`), the
    // result squeezed back (`SqueezeBackward1`).
    if !q.device().is_cuda() && [q, k, v].iter().all(|t| t.ndim() == 3) {
        let (q4, k4, v4) = (
            views::unsqueeze(rt, mode, q, 0)?,
            views::unsqueeze(rt, mode, k, 0)?,
            views::unsqueeze(rt, mode, v, 0)?,
        );
        if sdp::choose(rt, &params((&q4, &k4, &v4), &how))? == Backend::Flash {
            let out = fused(rt, mode, Backend::Flash, (&q4, &k4, &v4), &how)?;
            return views::squeeze(rt, mode, &out, 0);
        }
    }
    match sdp::choose(rt, &params((q, k, v), &how))? {
        Backend::Math => math(rt, mode, (q, k, v), &how),
        fused_kind => fused(rt, mode, fused_kind, (q, k, v), &how),
    }
}

/// What the choice of a kernel looks at.
fn params<'a>(
    (q, k, v): (&'a Tensor, &'a Tensor, &'a Tensor),
    how: &'a Attention,
) -> sdp::Params<'a> {
    sdp::Params {
        q,
        k,
        v,
        mask: how.mask.map(|m| &**m),
        dropout_p: how.dropout_p,
        is_causal: how.is_causal,
    }
}

/// PyTorch's fused kernels: one node (`ScaledDotProductFlashAttentionBackward0`
/// and its kin) saving the inputs, the output and each row's log-sum-exp;
/// no [L, S] weights are ever stored.
fn fused(
    rt: &mut Runtime,
    mode: Mode,
    backend: Backend,
    (q, k, v): (&Arc<Tensor>, &Arc<Tensor>, &Arc<Tensor>),
    how: &Attention,
) -> R<Arc<Tensor>> {
    let e = q.shape()[q.ndim() - 1];
    // PyTorch's GPU kernels make the output as [B, L, H, Ev] always, its
    // CPU kernel when the query lies so (`y.transpose(1, 2).view(...)`
    // after attention then needs no copy).
    let attend = Attend {
        scale: how.scale.unwrap_or(1.0 / (e as f64).sqrt()),
        causal: how.is_causal,
        out_blhe: q.device().is_cuda() || blhe(q.shape(), q.strides()),
    };
    let bias = match how.mask {
        Some(m) if m.dtype() == DType::Bool => Some(additive(rt, m, q)?),
        Some(m) => Some(Arc::clone(m)),
        None => None,
    };
    let (op, node) = match (backend, q.device().is_cuda()) {
        (Backend::Flash, false) => (
            "_scaled_dot_product_flash_attention_for_cpu",
            "ScaledDotProductFlashAttentionForCpuBackward0",
        ),
        (Backend::Flash, true) => (
            "_scaled_dot_product_flash_attention",
            "ScaledDotProductFlashAttentionBackward0",
        ),
        _ => (
            "_scaled_dot_product_efficient_attention",
            "ScaledDotProductEfficientAttentionBackward0",
        ),
    };
    rt.begin_op(op);
    let (out, lse) = rt.attention(q, k, v, bias.as_deref(), &attend)?;
    let backward = Backward::FusedAttention {
        q: Saved::new(q),
        k: Saved::new(k),
        v: Saved::new(v),
        out: Saved::output(&out),
        lse: Saved::new(&lse),
        bias: bias.as_deref().map(Saved::new),
        how: attend,
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        node,
        backward,
        &[q, k, v],
    ))
}

/// PyTorch's math path (`_scaled_dot_product_attention_math`), each step
/// its own node.
fn math(
    rt: &mut Runtime,
    mode: Mode,
    (q, k, v): (&Arc<Tensor>, &Arc<Tensor>, &Arc<Tensor>),
    how: &Attention,
) -> R<Arc<Tensor>> {
    let (l, s, e) = (
        q.shape()[q.ndim() - 2],
        k.shape()[k.ndim() - 2],
        q.shape()[q.ndim() - 1],
    );
    // PyTorch's `calculate_scale`: 1/sqrt(E) unless given; its square
    // root scales each side (a negative scale's sign goes on `q`).
    let scale = how.scale.unwrap_or(1.0 / (e as f64).sqrt());
    let root = scale.abs().sqrt();
    let q_scale = if scale < 0.0 { -root } else { root };
    let qs = record::binary_scalar(rt, mode, BinaryOp::Mul, q, q_scale)?;
    let kt = record::attach_node(
        rt,
        mode,
        Arc::new(view::matrix_transpose(k)?),
        "TransposeBackward0",
        Backward::Transpose {
            d0: k.ndim() - 2,
            d1: k.ndim() - 1,
        },
        &[k],
    );
    let kts = record::binary_scalar(rt, mode, BinaryOp::Mul, &kt, root)?;
    drop(kt);
    let mut attn = record::matmul(rt, mode, &qs, &kts)?;
    drop((qs, kts));
    let mask = match (how.mask, how.is_causal) {
        (Some(m), _) if m.dtype() == DType::Bool => Some(additive(rt, m, q)?),
        (Some(m), _) => Some(Arc::clone(m)),
        (None, true) => {
            let causal: Vec<bool> = (0..l).flat_map(|i| (0..s).map(move |j| j <= i)).collect();
            let on_host = Tensor::from_vec(causal, vec![l, s]);
            let m = rt.tensor(&on_host, DType::Bool, q.device())?;
            Some(additive(rt, &m, q)?)
        }
        (None, false) => None,
    };
    let masked = mask.is_some();
    if let Some(m) = mask {
        attn = record::binary(
            rt,
            mode,
            BinaryOp::Add,
            Operand::strong(&attn),
            Operand::strong(&m),
        )?;
    }
    let mut weights = safe_softmax(rt, mode, &attn, masked)?;
    drop(attn);
    if how.dropout_p > 0.0 {
        weights = functional::dropout(rt, mode, &weights, how.dropout_p, true)?;
    }
    record::matmul(rt, mode, &weights, v)
}

/// PyTorch's `_safe_softmax` over the last dimension: a row the mask
/// hid whole (all -inf) gets weights 0, not NaN (`SafeSoftmaxBackward0`,
/// whose gradient there is 0). Without a mask it is a plain softmax.
fn safe_softmax(rt: &mut Runtime, mode: Mode, x: &Arc<Tensor>, masked: bool) -> R<Arc<Tensor>> {
    let mut out = rt.along(AlongOp::Softmax, 0.0, x, Some(-1), false)?;
    if !masked {
        return record::softmax(rt, mode, x, out, -1, false);
    }
    let top = rt.reduce(ReduceOp::Max, x, Some(-1), true)?;
    let minus_inf = Tensor::scalar(f32::NEG_INFINITY);
    let hidden = rt.binary(
        BinaryOp::Eq,
        Operand::strong(&top),
        Operand::weak(&minus_inf),
    )?;
    let zero = Tensor::scalar(0.0f32);
    out = rt.ternary(
        TernaryOp::Where,
        Operand::strong(&hidden),
        Operand::weak(&zero),
        Operand::strong(&out),
    )?;
    let backward = Backward::Softmax {
        out: Saved::output(&out),
        dim: x.ndim() - 1,
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "SafeSoftmaxBackward0",
        backward,
        &[x],
    ))
}

/// A boolean mask as the number added to the weights' logits: 0 where it
/// holds, -inf where it does not (PyTorch's `convert_boolean_attn_mask`).
fn additive(rt: &mut Runtime, mask: &Tensor, like: &Tensor) -> R<Arc<Tensor>> {
    let zero = Tensor::scalar(0.0f32);
    let minus_inf = Tensor::scalar(f32::NEG_INFINITY);
    let out = rt.ternary(
        TernaryOp::Where,
        Operand::strong(mask),
        Operand::weak(&zero),
        Operand::weak(&minus_inf),
    )?;
    match out.dtype() == like.dtype() {
        true => Ok(out),
        false => rt.cast(&out, like.dtype()),
    }
}

/// PyTorch's checks, with its messages where it has them.
fn check(q: &Tensor, k: &Tensor, v: &Tensor, how: &Attention) -> R<()> {
    if how.is_causal && how.mask.is_some() {
        return Err(Error::Module {
            class: "RuntimeError",
            message: "_scaled_dot_product_attention: Explicit attn_mask should not be set when \
                      is_causal=True"
                .into(),
            help: Some(
                "`is_causal=True` is the lower-triangular mask: give one or the other".into(),
            ),
        });
    }
    if !(0.0..=1.0).contains(&how.dropout_p) {
        return Err(Error::value(format!(
            "dropout probability has to be between 0 and 1, but got {}",
            how.dropout_p
        )));
    }
    if q.ndim() < 2 || k.ndim() < 2 || v.ndim() < 2 {
        return Err(Error::shape(
            "scaled_dot_product_attention takes query, key and value of at least 2 dimensions \
             (..., L, E), (..., S, E) and (..., S, Ev)",
        ));
    }
    if q.dtype() != k.dtype() || q.dtype() != v.dtype() || !q.dtype().is_float() {
        return Err(Error::value(format!(
            "Expected query, key, and value to have the same dtype, but got query.dtype: {} \
             key.dtype: {} and value.dtype: {} instead.",
            q.dtype(),
            k.dtype(),
            v.dtype()
        )));
    }
    let last = |t: &Tensor, back: usize| t.shape()[t.ndim() - back];
    if last(q, 1) != last(k, 1) || last(k, 2) != last(v, 2) {
        return Err(Error::shape(format!(
            "scaled_dot_product_attention: query {}, key {} and value {} do not fit: the key's \
             last dimension must be the query's, and the value's length the key's",
            fmt_shape(q.shape()),
            fmt_shape(k.shape()),
            fmt_shape(v.shape())
        )));
    }
    Ok(())
}
