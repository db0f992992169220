//! `nn.MultiheadAttention`, as PyTorch makes and runs it: an input
//! projection of the query, key and value (one packed weight
//! `in_proj_weight` [3E, E] when all three have `embed_dim` features, else
//! `q_proj_weight`, `k_proj_weight`, `v_proj_weight`), the heads attending
//! each on its slice, and `out_proj` (a `NonDynamicallyQuantizableLinear`).
//!
//! The forward is `F.multi_head_attention_forward`'s general path, op by op
//! as PyTorch records it: with `need_weights` (the default) the weights are
//! `softmax(baddbmm(mask, q * scale, k.mT))`, given back averaged over the
//! heads; without, the heads go through `scaled_dot_product_attention`
//! (what the Transformer layers ask for). PyTorch's fused fast path (eval
//! mode, no grad, `batch_first`) computes the same numbers in one kernel;
//! cudash always takes the general path.

use std::sync::Arc;

pub use super::layer::Heads;
use super::layer::Layer;
use super::layers::{linear, uniform, within, Place};
use super::module::Module;
use crate::autograd::attention::{scaled_dot_product_attention, Attention};
use crate::autograd::{functional, meta, record, views, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::NewTensor;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

fn assertion(message: String) -> Error {
    Error::Module {
        class: "AssertionError",
        message,
        help: None,
    }
}

fn runtime_error(message: String) -> Error {
    Error::Module {
        class: "RuntimeError",
        message,
        help: None,
    }
}

/// A shape as PyTorch prints a `torch.Size`.
fn torch_size(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("torch.Size([{}])", dims.join(", "))
}

/// `MultiheadAttention(...)`: PyTorch's `__init__` and `_reset_parameters`.
/// The draws come in PyTorch's order: `out_proj`'s weight and bias (a
/// Linear's own init; its bias then zeroed), then `xavier_uniform_` of the
/// projection weights.
pub fn multihead_attention(rt: &mut Runtime, h: Heads, at: Place) -> R<Module> {
    let (e, n) = (h.embed_dim, h.num_heads);
    if e == 0 || n == 0 {
        return Err(Error::value(format!(
            "embed_dim and num_heads must be greater than 0, got embed_dim={e} and num_heads={n} instead"
        )));
    }
    if h.head_dim() * n != e {
        return Err(Error::Module {
            class: "AssertionError",
            message: "embed_dim must be divisible by num_heads".into(),
            help: Some(format!(
                "each of the {n} heads takes embed_dim / num_heads features: pick num_heads \
                 that divides {e}"
            )),
        });
    }
    let mut out_proj = linear(rt, e, e, h.bias, at)?;
    out_proj.type_name = "NonDynamicallyQuantizableLinear".into();
    let mut m = Module::new("MultiheadAttention", Layer::MultiheadAttention(h.clone()));
    let weights: Vec<(&str, [usize; 2])> = match h.packed() {
        true => vec![("in_proj_weight", [3 * e, e])],
        false => vec![
            ("q_proj_weight", [e, e]),
            ("k_proj_weight", [e, h.kdim]),
            ("v_proj_weight", [e, h.vdim]),
        ],
    };
    for (name, shape) in &weights {
        let bound = xavier_bound(shape[1], shape[0]);
        m.set_parameter(name, Some(uniform(rt, shape, bound, at)?))?;
    }
    let none: &[&str] = match h.packed() {
        true => &["q_proj_weight", "k_proj_weight", "v_proj_weight"],
        false => &["in_proj_weight"],
    };
    for name in none {
        m.set_parameter(name, None)?;
    }
    let bias = match h.bias {
        true => {
            let new = NewTensor {
                shape: &[3 * e],
                dtype: at.dtype,
                device: at.device,
                like: None,
            };
            let zeros =
                super::layers::filled(rt.full(new, crate::runtime::op::factory::Fill::Int(0))?);
            if let Some((_, Some(b))) = out_proj.parameters.iter().find(|(n, _)| n == "bias") {
                rt.fill(b, crate::runtime::op::factory::Fill::Int(0))?;
            }
            Some(Arc::new(meta::parameter(&zeros, true)))
        }
        false => None,
    };
    m.set_parameter("in_proj_bias", bias)?;
    // `xavier_normal_` of [1, 1, E]: fans E and E, std sqrt(1 / E).
    for name in ["bias_k", "bias_v"] {
        let p = match h.add_bias_kv {
            true => {
                let new = NewTensor {
                    shape: &[1, 1, e],
                    dtype: at.dtype,
                    device: at.device,
                    like: None,
                };
                let t = rt.full(new, crate::runtime::op::factory::Fill::Int(0))?;
                rt.normal_(&t, 0.0, (1.0 / e as f64).sqrt())?;
                Some(Arc::new(meta::parameter(&t, true)))
            }
            false => None,
        };
        m.set_parameter(name, p)?;
    }
    m.set_module("out_proj", Some(out_proj.into_ref()))?;
    Ok(m)
}

/// `xavier_uniform_`'s bound for a weight [fan_out, fan_in].
fn xavier_bound(fan_in: usize, fan_out: usize) -> f64 {
    (6.0 / (fan_in + fan_out).max(1) as f64).sqrt()
}

/// `xavier_uniform_(t)` in place (`Transformer._reset_parameters` on
/// every parameter of two or more dimensions): PyTorch's fans of a weight
/// [out, in, *receptive].
pub fn xavier_uniform_(rt: &mut Runtime, t: &Tensor) -> R<()> {
    let shape = t.shape();
    let receptive: usize = shape.iter().skip(2).product();
    let (fan_in, fan_out) = (shape[1] * receptive, shape[0] * receptive);
    let bound = xavier_bound(fan_in, fan_out);
    let new = NewTensor {
        shape,
        dtype: t.dtype(),
        device: t.device(),
        like: Some(t),
    };
    let u = within(rt, new, bound)?;
    rt.assign(t, &u)
}

/// One call's arguments: `attn(query, key, value, key_padding_mask=None,
/// need_weights=True, attn_mask=None, average_attn_weights=True,
/// is_causal=False)`.
pub struct Call<'a> {
    pub query: &'a Arc<Tensor>,
    pub key: &'a Arc<Tensor>,
    pub value: &'a Arc<Tensor>,
    pub key_padding_mask: Option<&'a Arc<Tensor>>,
    pub need_weights: bool,
    pub attn_mask: Option<&'a Arc<Tensor>>,
    pub average_attn_weights: bool,
    pub is_causal: bool,
}

/// Which of query, key and value are one tensor (PyTorch tests `is`): a
/// self-attention projects them in one product.
#[derive(Clone, Copy)]
struct Same {
    qk: bool,
    kv: bool,
}

/// PyTorch's `_canonical_mask`: a bool mask as the number added to the
/// logits (-inf where it is true: that position is hidden), a float mask
/// as it is; `other` is the dtype of the mask given beside it, which
/// should be the same (a warning otherwise).
pub fn canonical_mask(
    rt: &mut Runtime,
    mask: Option<&Arc<Tensor>>,
    (name, other, other_name): (&str, Option<DType>, &str),
    target: DType,
) -> R<Option<Arc<Tensor>>> {
    let Some(mask) = mask else { return Ok(None) };
    if mask.dtype() != DType::Bool && !mask.dtype().is_float() {
        return Err(assertion(format!(
            "only bool and floating types of {name} are supported"
        )));
    }
    if other.is_some_and(|o| o != mask.dtype()) {
        rt.note(format!(
            "UserWarning: Support for mismatched {name} and {other_name} is deprecated. Use \
             same type for both instead."
        ));
    }
    if mask.dtype().is_float() {
        return Ok(Some(Arc::clone(mask)));
    }
    let zero = rt.cast(&Tensor::scalar(0.0f32), target)?;
    let minus_inf = rt.cast(&Tensor::scalar(f32::NEG_INFINITY), target)?;
    let out = rt.ternary(
        TernaryOp::Where,
        Operand::strong(mask),
        Operand::weak(&minus_inf),
        Operand::weak(&zero),
    )?;
    Ok(Some(out))
}

/// `MultiheadAttention.forward`: the output, and the weights when asked
/// for (averaged over the heads unless `average_attn_weights` is false).
pub fn forward(
    rt: &mut Runtime,
    mode: Mode,
    m: &Module,
    call: Call,
) -> R<(Arc<Tensor>, Option<Arc<Tensor>>)> {
    let Layer::MultiheadAttention(h) = &m.layer else {
        return Err(Error::value("internal error: not a MultiheadAttention"));
    };
    let (mut q, mut k, mut v) = (
        Arc::clone(call.query),
        Arc::clone(call.key),
        Arc::clone(call.value),
    );
    let same = Same {
        qk: Arc::ptr_eq(&q, &k),
        kv: Arc::ptr_eq(&k, &v),
    };
    let is_batched = q.ndim() == 3;
    let attn_dtype = call.attn_mask.map(|t| t.dtype());
    let kpm = canonical_mask(
        rt,
        call.key_padding_mask,
        ("key_padding_mask", attn_dtype, "attn_mask"),
        q.dtype(),
    )?;
    let attn_mask = canonical_mask(rt, call.attn_mask, ("attn_mask", None, ""), q.dtype())?;
    if h.batch_first && is_batched {
        // Transposed as PyTorch does, keeping which of them are one tensor.
        q = views::transpose(rt, mode, &q, 1, 0);
        k = match same.qk {
            true => Arc::clone(&q),
            false => views::transpose(rt, mode, &k, 1, 0),
        };
        v = match same.kv {
            true => Arc::clone(&k),
            false => views::transpose(rt, mode, &v, 1, 0),
        };
    }
    let param = |name: &str| -> Option<Arc<Tensor>> {
        m.parameters
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, p)| p.clone())
    };
    let out_proj = m
        .modules
        .iter()
        .find(|(n, _)| n == "out_proj")
        .and_then(|(_, c)| c.clone())
        .ok_or_else(|| Error::value("MultiheadAttention has no out_proj"))?;
    let (out_w, out_b) = {
        let o = crate::runtime::lock::lock(&out_proj);
        let p = |name: &str| {
            o.parameters
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, p)| p.clone())
        };
        (p("weight"), p("bias"))
    };
    let out_w = out_w.ok_or_else(|| Error::value("out_proj has no weight"))?;
    let weights = Projection {
        bias_kv: match (param("bias_k"), param("bias_v")) {
            (Some(k), Some(v)) => Some((k, v)),
            _ => None,
        },
        add_zero_attn: h.add_zero_attn,
        packed: param("in_proj_weight"),
        q: param("q_proj_weight"),
        k: param("k_proj_weight"),
        v: param("v_proj_weight"),
        bias: param("in_proj_bias"),
        out_w,
        out_b,
    };
    let how = How {
        num_heads: h.num_heads,
        embed_dim: h.embed_dim,
        dropout_p: if m.training { h.dropout } else { 0.0 },
        need_weights: call.need_weights,
        average: call.average_attn_weights,
        is_causal: call.is_causal,
    };
    let (out, w) = attend(rt, mode, [q, k, v], same, (kpm, attn_mask), &weights, &how)?;
    match h.batch_first && is_batched {
        true => Ok((views::transpose(rt, mode, &out, 1, 0), w)),
        false => Ok((out, w)),
    }
}

/// The projections' parameters.
struct Projection {
    /// `bias_k`, `bias_v` (`add_bias_kv`).
    bias_kv: Option<(Arc<Tensor>, Arc<Tensor>)>,
    add_zero_attn: bool,
    packed: Option<Arc<Tensor>>,
    q: Option<Arc<Tensor>>,
    k: Option<Arc<Tensor>>,
    v: Option<Arc<Tensor>>,
    bias: Option<Arc<Tensor>>,
    out_w: Arc<Tensor>,
    out_b: Option<Arc<Tensor>>,
}

struct How {
    num_heads: usize,
    embed_dim: usize,
    dropout_p: f64,
    need_weights: bool,
    average: bool,
    is_causal: bool,
}

/// PyTorch's `_mha_shape_check`: whether the query is batched.
fn shape_check(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    kpm: Option<&Arc<Tensor>>,
    mask: Option<&Arc<Tensor>>,
    num_heads: usize,
) -> R<bool> {
    let batched = match q.ndim() {
        3 => true,
        2 => false,
        d => {
            return Err(assertion(format!(
                "query should be unbatched 2D or batched 3D tensor but received {d}-D query tensor"
            )))
        }
    };
    let (word, n) = match batched {
        true => ("batched (3-D)", 3),
        false => ("unbatched (2-D)", 2),
    };
    if k.ndim() != n || v.ndim() != n {
        return Err(assertion(format!(
            "For {word} `query`, expected `key` and `value` to be {n}-D but found {}-D and {}-D \
             tensors respectively",
            k.ndim(),
            v.ndim()
        )));
    }
    if let Some(p) = kpm {
        let want = n - 1;
        if p.ndim() != want {
            return Err(assertion(format!(
                "For {word} `query`, expected `key_padding_mask` to be `None` or {want}-D but \
                 found {}-D tensor instead",
                p.ndim()
            )));
        }
    }
    if let Some(m) = mask {
        if !matches!(m.ndim(), 2 | 3) {
            return Err(assertion(format!(
                "For {word} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found \
                 {}-D tensor instead",
                m.ndim()
            )));
        }
        let expected = [num_heads, q.shape()[0], k.shape()[0]];
        if !batched && m.ndim() == 3 && m.shape() != expected {
            return Err(assertion(format!(
                "Expected `attn_mask` shape to be ({}, {}, {}) but got {}",
                expected[0],
                expected[1],
                expected[2],
                torch_size(m.shape())
            )));
        }
    }
    Ok(batched)
}

/// `F.multi_head_attention_forward` (its general path).
fn attend(
    rt: &mut Runtime,
    mode: Mode,
    [query, key, value]: [Arc<Tensor>; 3],
    mut same: Same,
    (kpm, attn_mask): (Option<Arc<Tensor>>, Option<Arc<Tensor>>),
    p: &Projection,
    how: &How,
) -> R<(Arc<Tensor>, Option<Arc<Tensor>>)> {
    let heads = how.num_heads;
    let is_batched = shape_check(
        &query,
        &key,
        &value,
        kpm.as_ref(),
        attn_mask.as_ref(),
        heads,
    )?;
    let (mut query, mut key, mut value, mut kpm) = (query, key, value, kpm);
    if !is_batched {
        // New tensors each: the projections are then made apart.
        query = views::unsqueeze(rt, mode, &query, 1)?;
        key = views::unsqueeze(rt, mode, &key, 1)?;
        value = views::unsqueeze(rt, mode, &value, 1)?;
        same = Same {
            qk: false,
            kv: false,
        };
        if let Some(m) = &kpm {
            kpm = Some(views::unsqueeze(rt, mode, m, 0)?);
        }
    }
    let (tgt_len, bsz, embed_dim) = (query.shape()[0], query.shape()[1], query.shape()[2]);
    if how.is_causal && attn_mask.is_none() {
        return Err(Error::Module {
            class: "RuntimeError",
            message: "Need attn_mask if specifying the is_causal hint. You may use the \
                      Transformer module method `generate_square_subsequent_mask` to create \
                      this mask."
                .into(),
            help: None,
        });
    }
    let mut is_causal = how.is_causal;
    // With the causal hint alone, scaled_dot_product_attention makes the mask.
    let mut attn_mask = match is_causal && kpm.is_none() && !how.need_weights {
        true => None,
        false => {
            if kpm.is_some() {
                is_causal = false;
            }
            attn_mask
        }
    };
    if embed_dim != how.embed_dim {
        return Err(assertion(format!(
            "was expecting embedding dimension of {}, but got {embed_dim}",
            how.embed_dim
        )));
    }
    let head_dim = embed_dim / heads;
    match &p.packed {
        Some(_) if key.shape() != value.shape() => {
            return Err(assertion(format!(
                "key shape {} does not match value shape {}",
                torch_size(key.shape()),
                torch_size(value.shape())
            )))
        }
        None if key.shape()[..2] != value.shape()[..2] => {
            return Err(assertion(format!(
                "key's sequence and batch dims {} do not match value's {}",
                torch_size(&key.shape()[..2]),
                torch_size(&value.shape()[..2])
            )))
        }
        _ => {}
    }
    let [q, k, v] = project(rt, mode, [&query, &key, &value], same, p)?;
    drop((query, key, value));
    let src_len = k.shape()[0];
    if let Some(m) = &attn_mask {
        let want: Vec<usize> = match m.ndim() {
            2 => vec![tgt_len, src_len],
            3 => vec![bsz * heads, tgt_len, src_len],
            d => {
                return Err(runtime_error(format!(
                    "attn_mask's dimension {d} is not supported"
                )))
            }
        };
        if m.shape() != want {
            let want: Vec<String> = want.iter().map(usize::to_string).collect();
            return Err(runtime_error(format!(
                "The shape of the {}D attn_mask is {}, but should be ({}).",
                m.ndim(),
                torch_size(m.shape()),
                want.join(", ")
            )));
        }
        if m.ndim() == 2 {
            attn_mask = Some(views::unsqueeze(rt, mode, m, 0)?);
        }
    }
    // `add_bias_kv`: one more key and value, the masks one column wider.
    let (mut k, mut v) = (k, v);
    if let Some((bk, bv)) = &p.bias_kv {
        let (rk, rv) = (
            repeat_batch(rt, mode, bk, bsz)?,
            repeat_batch(rt, mode, bv, bsz)?,
        );
        k = append(rt, mode, &k, &rk, 0)?;
        v = append(rt, mode, &v, &rv, 0)?;
        attn_mask = attn_mask.map(|m| pad_column(rt, mode, &m)).transpose()?;
        kpm = kpm.map(|m| pad_column(rt, mode, &m)).transpose()?;
    }
    let split = |rt: &mut Runtime, t: &Arc<Tensor>| -> R<Arc<Tensor>> {
        let x = views::view(
            rt,
            mode,
            t,
            &[t.shape()[0] as i64, (bsz * heads) as i64, head_dim as i64],
        )?;
        Ok(views::transpose(rt, mode, &x, 0, 1))
    };
    let (q, mut k, mut v) = (split(rt, &q)?, split(rt, &k)?, split(rt, &v)?);
    // `add_zero_attn`: a key and a value of zeros for every head.
    if p.add_zero_attn {
        let zeros = |rt: &mut Runtime, like: &Tensor| {
            let shape = [like.shape()[0], 1, like.shape()[2]];
            crate::autograd::ops::full(rt, &shape, like.dtype(), like.device(), 0)
        };
        let (zk, zv) = (zeros(rt, &k)?, zeros(rt, &v)?);
        k = append(rt, mode, &k, &zk, 1)?;
        v = append(rt, mode, &v, &zv, 1)?;
        attn_mask = attn_mask.map(|m| pad_column(rt, mode, &m)).transpose()?;
        kpm = kpm.map(|m| pad_column(rt, mode, &m)).transpose()?;
    }
    let src_len = k.shape()[1];
    if let Some(pad) = &kpm {
        let s = pad.shape();
        if s[0] != bsz {
            return Err(assertion(format!(
                "Expected key_padded_mask.shape[0] to be {bsz}, but got {}",
                s[0]
            )));
        }
        if s[1] != src_len {
            return Err(assertion(format!(
                "Expected key_padded_mask.shape[1] to be {src_len}, but got {}",
                s[1]
            )));
        }
        let x = views::view(rt, mode, pad, &[bsz as i64, 1, 1, src_len as i64])?;
        let x = Arc::new(crate::runtime::op::view::expand(
            &x,
            &[-1, heads as i64, -1, -1],
        )?);
        let x = views::reshape(rt, mode, &x, &[(bsz * heads) as i64, 1, src_len as i64])?;
        attn_mask = Some(match attn_mask {
            None => x,
            Some(m) => record::binary(
                rt,
                mode,
                BinaryOp::Add,
                Operand::strong(&m),
                Operand::strong(&x),
            )?,
        });
    }
    let e = embed_dim as i64;
    if how.need_weights {
        let scale = (1.0 / head_dim as f64).sqrt();
        let q_scaled = record::binary_scalar(rt, mode, BinaryOp::Mul, &q, scale)?;
        let kt = views::transpose(rt, mode, &k, 1, 2);
        let logits = match &attn_mask {
            Some(m) => {
                use crate::autograd::add_products::{add_product, Product, Scale};
                add_product(rt, mode, Product::Bmm, m, &q_scaled, &kt, Scale::ONE)?
            }
            None => record::bmm(rt, mode, &q_scaled, &kt)?,
        };
        drop((q_scaled, kt, k));
        let out = rt.along(
            crate::runtime::op::along::AlongOp::Softmax,
            0.0,
            &logits,
            Some(-1),
            false,
        )?;
        let mut w = record::softmax(rt, mode, &logits, out, -1, false)?;
        drop(logits);
        if how.dropout_p > 0.0 {
            w = functional::dropout(rt, mode, &w, how.dropout_p, true)?;
        }
        let out = record::bmm(rt, mode, &w, &v)?;
        drop(v);
        let out = views::transpose(rt, mode, &out, 0, 1);
        let out = views::reshape(rt, mode, &out, &[(tgt_len * bsz) as i64, e])?;
        let out = functional::linear(rt, mode, &out, &p.out_w, p.out_b.as_ref())?;
        let mut out = views::view(rt, mode, &out, &[tgt_len as i64, bsz as i64, e])?;
        let shape = [bsz, heads, tgt_len, src_len].map(|d| d as i64);
        let mut w = views::view(rt, mode, &w, &shape)?;
        if how.average {
            w = record::reduce(rt, mode, ReduceOp::Mean, &w, Some(1), false)?;
        }
        if !is_batched {
            out = views::squeeze(rt, mode, &out, 1)?;
            w = views::squeeze(rt, mode, &w, 0)?;
        }
        return Ok((out, Some(w)));
    }
    if let Some(m) = &attn_mask {
        attn_mask = Some(match m.shape()[0] == 1 && m.ndim() == 3 {
            true => views::unsqueeze(rt, mode, m, 0)?,
            false => {
                let shape = [bsz as i64, heads as i64, -1, src_len as i64];
                views::view(rt, mode, m, &shape)?
            }
        });
    }
    let four = |rt: &mut Runtime, t: &Arc<Tensor>, len: usize| {
        let shape = [bsz, heads, len, head_dim].map(|d| d as i64);
        views::view(rt, mode, t, &shape)
    };
    let (q, k, v) = (
        four(rt, &q, tgt_len)?,
        four(rt, &k, src_len)?,
        four(rt, &v, src_len)?,
    );
    let attention = Attention {
        mask: attn_mask.as_ref(),
        dropout_p: how.dropout_p,
        is_causal,
        scale: None,
    };
    let out = scaled_dot_product_attention(rt, mode, &q, &k, &v, attention)?;
    drop((q, k, v));
    let out = views::permute(rt, mode, &out, &[2, 0, 1, 3])?;
    let out = views::reshape(rt, mode, &out, &[(bsz * tgt_len) as i64, e])?;
    let out = functional::linear(rt, mode, &out, &p.out_w, p.out_b.as_ref())?;
    let mut out = views::view(rt, mode, &out, &[tgt_len as i64, bsz as i64, e])?;
    if !is_batched {
        out = views::squeeze(rt, mode, &out, 1)?;
    }
    Ok((out, None))
}

/// PyTorch's `_in_projection_packed` / `_in_projection`: one product for
/// a self-attention (query, key and value one tensor), one for the query
/// and one for key and value when those two are one tensor, else three.
fn project(
    rt: &mut Runtime,
    mode: Mode,
    [q, k, v]: [&Arc<Tensor>; 3],
    same: Same,
    p: &Projection,
) -> R<[Arc<Tensor>; 3]> {
    let Some(w) = &p.packed else {
        let (wq, wk, wv) = match (&p.q, &p.k, &p.v) {
            (Some(a), Some(b), Some(c)) => (a, b, c),
            _ => {
                return Err(assertion(
                    "use_separate_proj_weight is True but q_proj_weight is None".into(),
                ))
            }
        };
        // PyTorch's `_in_projection` checks.
        let (eq, ek, ev) = (last(q), last(k), last(v));
        for (what, w, cols) in [("query", wq, eq), ("key", wk, ek), ("value", wv, ev)] {
            if w.shape() != [eq, cols] {
                return Err(assertion(format!(
                    "expecting {what} weights shape of ({eq}, {cols}), but got {}",
                    torch_size(w.shape())
                )));
            }
        }
        let biases = match &p.bias {
            Some(b) => {
                let n = (b.shape()[0] / 3) as i64;
                views::split(rt, mode, b, &[n, n, n], 0, "SplitBackward0")?
                    .into_iter()
                    .map(Some)
                    .collect()
            }
            None => vec![None, None, None],
        };
        return Ok([
            functional::linear(rt, mode, q, wq, biases[0].as_ref())?,
            functional::linear(rt, mode, k, wk, biases[1].as_ref())?,
            functional::linear(rt, mode, v, wv, biases[2].as_ref())?,
        ]);
    };
    let e = q.shape()[q.ndim() - 1] as i64;
    if same.kv && same.qk {
        let proj = functional::linear(rt, mode, q, w, p.bias.as_ref())?;
        return three(unpack(rt, mode, &proj, 3, e)?);
    }
    if same.kv {
        let ws = views::split(rt, mode, w, &[e, 2 * e], 0, "SplitWithSizesBackward0")?;
        let bs = match &p.bias {
            Some(b) => views::split(rt, mode, b, &[e, 2 * e], 0, "SplitWithSizesBackward0")?
                .into_iter()
                .map(Some)
                .collect(),
            None => vec![None, None],
        };
        let qp = functional::linear(rt, mode, q, &ws[0], bs[0].as_ref())?;
        let kv = functional::linear(rt, mode, k, &ws[1], bs[1].as_ref())?;
        let mut kv = unpack(rt, mode, &kv, 2, e)?.into_iter();
        let (Some(a), Some(b)) = (kv.next(), kv.next()) else {
            return Err(Error::value(
                "internal error: a key-value projection in two parts",
            ));
        };
        return Ok([qp, a, b]);
    }
    let ws = views::split(rt, mode, w, &[e, e, e], 0, "SplitBackward0")?;
    let bs: Vec<Option<Arc<Tensor>>> = match &p.bias {
        Some(b) => views::split(rt, mode, b, &[e, e, e], 0, "SplitBackward0")?
            .into_iter()
            .map(Some)
            .collect(),
        None => vec![None, None, None],
    };
    Ok([
        functional::linear(rt, mode, q, &ws[0], bs[0].as_ref())?,
        functional::linear(rt, mode, k, &ws[1], bs[1].as_ref())?,
        functional::linear(rt, mode, v, &ws[2], bs[2].as_ref())?,
    ])
}

fn three(parts: Vec<Arc<Tensor>>) -> R<[Arc<Tensor>; 3]> {
    parts
        .try_into()
        .map_err(|_| Error::value("internal error: a projection in three parts"))
}

/// `torch.cat([a, b], dim)`.
fn append(rt: &mut Runtime, mode: Mode, a: &Tensor, b: &Tensor, dim: i64) -> R<Arc<Tensor>> {
    let out = rt.join(&[a, b], dim, false)?;
    record::join(rt, mode, &[a, b], out, dim, false)
}

/// `bias.repeat(1, bsz, 1)` of a [1, 1, E] bias (`RepeatBackward0`).
fn repeat_batch(rt: &mut Runtime, mode: Mode, bias: &Arc<Tensor>, bsz: usize) -> R<Arc<Tensor>> {
    crate::autograd::views::repeat(rt, mode, bias, &[1, bsz, 1])
}

/// `pad(mask, (0, 1))`: a column of zeros after the last one.
fn pad_column(rt: &mut Runtime, mode: Mode, mask: &Arc<Tensor>) -> R<Arc<Tensor>> {
    let mut shape = mask.shape().to_vec();
    if let Some(last) = shape.last_mut() {
        *last = 1;
    }
    let zeros = crate::autograd::ops::full(rt, &shape, mask.dtype(), mask.device(), 0)?;
    append(rt, mode, mask, &zeros, -1)
}

fn last(t: &Tensor) -> usize {
    t.shape().last().copied().unwrap_or(0)
}

/// A packed projection [..., n * E] cut into its `n` parts, as PyTorch:
/// `unflatten(-1, (n, E)).unsqueeze(0).transpose(0, -2).squeeze(-2)
/// .contiguous()`, then `proj[i]`.
fn unpack(rt: &mut Runtime, mode: Mode, proj: &Arc<Tensor>, n: i64, e: i64) -> R<Vec<Arc<Tensor>>> {
    let mut dims: Vec<i64> = proj.shape()[..proj.ndim() - 1]
        .iter()
        .map(|&d| d as i64)
        .collect();
    dims.extend([n, e]);
    let x = views::view(rt, mode, proj, &dims)?;
    let x = views::unsqueeze(rt, mode, &x, 0)?;
    let last_but_one = x.ndim() - 2;
    let x = views::transpose(rt, mode, &x, 0, last_but_one);
    let x = views::squeeze(rt, mode, &x, -2)?;
    let x = views::contiguous(rt, mode, &x)?;
    (0..n).map(|i| views::select(rt, mode, &x, i)).collect()
}
