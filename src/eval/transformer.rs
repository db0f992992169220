//! Calling the attention layers: `out, weights = attn(query, key, value,
//! ...)` of a `MultiheadAttention`, and the forwards of
//! `TransformerEncoderLayer`, `TransformerDecoderLayer`, their stacks and
//! `Transformer`, which call their children as PyTorch's do (through the
//! module call, so a child's hooks run and a child the program replaced
//! is the one called), in PyTorch's order.

use std::sync::Arc;

use super::args::{bind, to_tensor, ArgVal, Bound};
use super::docs::{Doc, Group, Kind};
use super::{Interp, Value};
use crate::autograd::record;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::lang::Span;
use crate::nn::attention::{self, canonical_mask, Call};
use crate::nn::layer::FeedForward;
use crate::nn::layers::Layer;
use crate::nn::ModuleRef;
use crate::runtime::dispatch::Runtime;
use crate::runtime::lock::lock;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{DType, Tensor};

type Out = Result<Value, Diagnostic>;

const fn forward(name: &'static str, signature: &'static str) -> Doc {
    Doc {
        name,
        kind: Kind::Method,
        group: Group::Training,
        signature,
        summary: "",
        example: "",
    }
}

static MHA: Doc = forward(
    "MultiheadAttention.forward",
    "forward(query, key, value, key_padding_mask=none, need_weights=true, attn_mask=none, \
     average_attn_weights=true, is_causal=false)",
);
static ENCODER_LAYER: Doc = forward(
    "TransformerEncoderLayer.forward",
    "forward(src, src_mask=none, src_key_padding_mask=none, is_causal=false)",
);
static DECODER_LAYER: Doc = forward(
    "TransformerDecoderLayer.forward",
    "forward(tgt, memory, tgt_mask=none, memory_mask=none, tgt_key_padding_mask=none, \
     memory_key_padding_mask=none, tgt_is_causal=false, memory_is_causal=false)",
);
static ENCODER: Doc = forward(
    "TransformerEncoder.forward",
    "forward(src, mask=none, src_key_padding_mask=none, is_causal=none)",
);
static DECODER: Doc = forward(
    "TransformerDecoder.forward",
    "forward(tgt, memory, tgt_mask=none, memory_mask=none, tgt_key_padding_mask=none, \
     memory_key_padding_mask=none, tgt_is_causal=none, memory_is_causal=false)",
);
static TRANSFORMER: Doc = forward(
    "Transformer.forward",
    "forward(src, tgt, src_mask=none, tgt_mask=none, memory_mask=none, \
     src_key_padding_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none, \
     src_is_causal=none, tgt_is_causal=none, memory_is_causal=false)",
);

/// A tensor argument that may be left out or none.
fn maybe_tensor(b: &Bound, name: &str) -> Result<Option<Arc<Tensor>>, Diagnostic> {
    match b.given(name) {
        None => Ok(None),
        Some((v, span)) => to_tensor(v).map(Some).ok_or_else(|| {
            Error::wrong_type(
                format!("argument `{name}` of {}", b.func),
                "a tensor or None",
                v.type_name(),
            )
            .at(*span)
        }),
    }
}

/// A flag that may be none (then PyTorch works it out).
fn maybe_bool(b: &Bound, name: &str) -> Result<Option<bool>, Diagnostic> {
    match b.given(name) {
        None => Ok(None),
        Some(_) => b.bool(name, false).map(Some),
    }
}

fn positional(v: Value, span: Span) -> ArgVal {
    ArgVal::positional(v, span)
}

fn keyword(name: &str, v: Value, span: Span) -> ArgVal {
    ArgVal {
        keyword: Some(Name::new(name.into(), span)),
        value: v,
        span,
    }
}

fn tensor_or_none(t: &Option<Arc<Tensor>>) -> Value {
    t.clone().map_or(Value::None, Value::Tensor)
}

/// The child `name` of `m` (an error naming it when it is gone).
fn child(m: &ModuleRef, name: &str) -> Result<ModuleRef, Error> {
    let module = lock(m);
    module
        .modules
        .iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, c)| c.clone())
        .ok_or_else(|| {
            Error::value(format!(
                "{} has no module `{name}` to call",
                module.type_name
            ))
        })
}

/// A mask's elements as the host reads them (a device mask is copied and
/// its stream waited for: PyTorch's `bool(...)` of a device tensor syncs).
fn host_values(rt: &mut Runtime, t: &Tensor) -> Result<Vec<f64>, Error> {
    rt.host_read(&[t], |t| t.nbytes() as u64, || t.to_vec::<f64>())
}

/// PyTorch's `_generate_square_subsequent_mask` compared with `mask`
/// (`_detect_is_causal_mask`): whether a mask not said to be causal is
/// (a bool mask: true above the diagonal; a float one: -inf there, 0
/// elsewhere).
fn is_causal_mask(
    rt: &mut Runtime,
    mask: Option<&Arc<Tensor>>,
    is_causal: Option<bool>,
    size: Option<usize>,
) -> Result<bool, Error> {
    let (m, None) = (mask, is_causal) else {
        return Ok(is_causal == Some(true));
    };
    let Some(m) = m.filter(|m| m.ndim() >= 2) else {
        return Ok(false);
    };
    let n = size.unwrap_or(m.shape()[m.ndim() - 2]);
    if m.shape() != [n, n] {
        return Ok(false);
    }
    let (hidden, shown) = match m.dtype() {
        DType::Bool => (1.0, 0.0),
        _ => (f64::NEG_INFINITY, 0.0),
    };
    let values = host_values(rt, m)?;
    Ok(values
        .iter()
        .enumerate()
        .all(|(k, &x)| match k % n > k / n {
            true => x == hidden,
            false => x == shown,
        }))
}

impl Interp {
    /// `attn(query, key, value, ...)` of a `MultiheadAttention`: the
    /// output and the weights (None without `need_weights`), as a tuple.
    pub(crate) fn attention_forward(
        &mut self,
        m: &ModuleRef,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Out {
        let b = bind(&MHA, args, span)?;
        let (query, key, value) = (b.tensor("query")?, b.tensor("key")?, b.tensor("value")?);
        let (kpm, mask) = (
            maybe_tensor(&b, "key_padding_mask")?,
            maybe_tensor(&b, "attn_mask")?,
        );
        let call = Call {
            query: &query,
            key: &key,
            value: &value,
            key_padding_mask: kpm.as_ref(),
            need_weights: b.bool("need_weights", true)?,
            attn_mask: mask.as_ref(),
            average_attn_weights: b.bool("average_attn_weights", true)?,
            is_causal: b.bool("is_causal", false)?,
        };
        self.begin_op("forward");
        let module = lock(m);
        let r = attention::forward(&mut self.rt, self.grad, &module, call);
        drop(module);
        self.flush_notes();
        let (out, weights) = r.map_err(|e| e.at(span))?;
        Ok(Value::List(Arc::new(vec![
            Value::Tensor(out),
            tensor_or_none(&weights),
        ])))
    }

    /// The forward of a Transformer layer, stack or whole model.
    pub(crate) fn transformer_forward(
        &mut self,
        m: &ModuleRef,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Out {
        let layer = lock(m).layer.clone();
        let r = match layer {
            Layer::TransformerLayer {
                decoder: false,
                norm_first,
                activation,
            } => {
                let b = bind(&ENCODER_LAYER, args, span)?;
                self.encoder_layer(m, &b, (norm_first, activation))
            }
            Layer::TransformerLayer {
                decoder: true,
                norm_first,
                activation,
            } => {
                let b = bind(&DECODER_LAYER, args, span)?;
                self.decoder_layer(m, &b, (norm_first, activation))
            }
            Layer::TransformerStack { decoder: false, .. } => {
                let b = bind(&ENCODER, args, span)?;
                self.encoder(m, &b)
            }
            Layer::TransformerStack { decoder: true, .. } => {
                let b = bind(&DECODER, args, span)?;
                self.decoder(m, &b)
            }
            Layer::Transformer {
                d_model,
                batch_first,
                ..
            } => {
                let b = bind(&TRANSFORMER, args, span)?;
                self.transformer(m, &b, (d_model, batch_first))
            }
            _ => Err(Error::value("internal error: not a Transformer module").at(span)),
        }?;
        Ok(Value::Tensor(r))
    }

    /// `self.name(args)`: the child called as a module, its tensor result.
    fn call_child(
        &mut self,
        m: &ModuleRef,
        name: &str,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Result<Arc<Tensor>, Diagnostic> {
        let c = child(m, name).map_err(|e| e.at(span))?;
        let v = self.call_module(&c, args, span)?;
        // An attention gives (output, weights): the output.
        let v = match v {
            Value::List(items) if !items.is_empty() => items[0].clone(),
            v => v,
        };
        to_tensor(&v).ok_or_else(|| {
            Error::wrong_type(format!("what `{name}` gave"), "a tensor", v.type_name()).at(span)
        })
    }

    fn add(
        &mut self,
        x: &Arc<Tensor>,
        y: &Arc<Tensor>,
        span: Span,
    ) -> Result<Arc<Tensor>, Diagnostic> {
        record::binary(
            &mut self.rt,
            self.grad,
            BinaryOp::Add,
            Operand::strong(x),
            Operand::strong(y),
        )
        .map_err(|e| e.at(span))
    }

    /// `_sa_block` / `_mha_block`: `attn(x, mem, mem, attn_mask, key_padding_mask,
    /// need_weights=False, is_causal)[0]`, then its dropout.
    #[allow(clippy::too_many_arguments)]
    fn attention_block(
        &mut self,
        m: &ModuleRef,
        (attn, dropout): (&str, &str),
        x: &Arc<Tensor>,
        memory: &Arc<Tensor>,
        (mask, kpm, is_causal): (&Option<Arc<Tensor>>, &Option<Arc<Tensor>>, bool),
        span: Span,
    ) -> Result<Arc<Tensor>, Diagnostic> {
        let args = vec![
            positional(Value::Tensor(Arc::clone(x)), span),
            positional(Value::Tensor(Arc::clone(memory)), span),
            positional(Value::Tensor(Arc::clone(memory)), span),
            keyword("attn_mask", tensor_or_none(mask), span),
            keyword("key_padding_mask", tensor_or_none(kpm), span),
            keyword("need_weights", Value::bool(false), span),
            keyword("is_causal", Value::bool(is_causal), span),
        ];
        let y = self.call_child(m, attn, args, span)?;
        self.call_child(m, dropout, vec![positional(Value::Tensor(y), span)], span)
    }

    /// `_ff_block`: `linear2(dropout(activation(linear1(x))))`, then its dropout.
    fn feed_forward(
        &mut self,
        m: &ModuleRef,
        x: &Arc<Tensor>,
        (activation, dropout): (FeedForward, &str),
        span: Span,
    ) -> Result<Arc<Tensor>, Diagnostic> {
        let one = |t: Arc<Tensor>| vec![positional(Value::Tensor(t), span)];
        let h = self.call_child(m, "linear1", one(Arc::clone(x)), span)?;
        let h = match activation {
            FeedForward::Relu | FeedForward::Gelu => {
                let op = match activation {
                    FeedForward::Relu => UnaryOp::Relu,
                    _ => UnaryOp::Gelu,
                };
                record::unary(&mut self.rt, self.grad, op, &h).map_err(|e| e.at(span))?
            }
            FeedForward::Module => self.call_child(m, "activation", one(h), span)?,
        };
        let h = self.call_child(m, "dropout", one(h), span)?;
        let h = self.call_child(m, "linear2", one(h), span)?;
        self.call_child(m, dropout, one(h), span)
    }

    fn norm(
        &mut self,
        m: &ModuleRef,
        name: &str,
        x: Arc<Tensor>,
        span: Span,
    ) -> Result<Arc<Tensor>, Diagnostic> {
        self.call_child(m, name, vec![positional(Value::Tensor(x), span)], span)
    }

    /// `TransformerEncoderLayer.forward` (PyTorch's general path).
    fn encoder_layer(
        &mut self,
        m: &ModuleRef,
        b: &Bound,
        (norm_first, activation): (bool, FeedForward),
    ) -> Result<Arc<Tensor>, Diagnostic> {
        let span = b.span;
        let src = b.tensor("src")?;
        let (mask, kpm) = (
            maybe_tensor(b, "src_mask")?,
            maybe_tensor(b, "src_key_padding_mask")?,
        );
        let is_causal = b.bool("is_causal", false)?;
        let at = |e: Error| e.at(span);
        let kpm = canonical_mask(
            &mut self.rt,
            kpm.as_ref(),
            (
                "src_key_padding_mask",
                mask.as_ref().map(|t| t.dtype()),
                "src_mask",
            ),
            src.dtype(),
        )
        .map_err(at)?;
        let mask = canonical_mask(
            &mut self.rt,
            mask.as_ref(),
            ("src_mask", None, ""),
            src.dtype(),
        )
        .map_err(at)?;
        self.flush_notes();
        let masks = (&mask, &kpm, is_causal);
        let blocks = ("self_attn", "dropout1");
        let x = self.residual(m, src, ("norm1", norm_first), span, |me, h| {
            me.attention_block(m, blocks, h, h, masks, span)
        })?;
        self.residual(m, x, ("norm2", norm_first), span, |me, h| {
            me.feed_forward(m, h, (activation, "dropout2"), span)
        })
    }

    /// One residual block of a Transformer layer: `x + block(norm(x))`
    /// with `norm_first`, else `norm(x + block(x))`.
    fn residual(
        &mut self,
        m: &ModuleRef,
        x: Arc<Tensor>,
        (norm, norm_first): (&str, bool),
        span: Span,
        block: impl FnOnce(&mut Interp, &Arc<Tensor>) -> Result<Arc<Tensor>, Diagnostic>,
    ) -> Result<Arc<Tensor>, Diagnostic> {
        if norm_first {
            let n = self.norm(m, norm, Arc::clone(&x), span)?;
            let y = block(self, &n)?;
            return self.add(&x, &y, span);
        }
        let y = block(self, &x)?;
        let sum = self.add(&x, &y, span)?;
        self.norm(m, norm, sum, span)
    }

    /// `TransformerDecoderLayer.forward`.
    fn decoder_layer(
        &mut self,
        m: &ModuleRef,
        b: &Bound,
        (norm_first, activation): (bool, FeedForward),
    ) -> Result<Arc<Tensor>, Diagnostic> {
        let span = b.span;
        let (tgt, memory) = (b.tensor("tgt")?, b.tensor("memory")?);
        let self_masks = (
            maybe_tensor(b, "tgt_mask")?,
            maybe_tensor(b, "tgt_key_padding_mask")?,
            b.bool("tgt_is_causal", false)?,
        );
        let memory_masks = (
            maybe_tensor(b, "memory_mask")?,
            maybe_tensor(b, "memory_key_padding_mask")?,
            b.bool("memory_is_causal", false)?,
        );
        let (sm, skpm, sc) = &self_masks;
        let (mm, mkpm, mc) = &memory_masks;
        let x = self.residual(m, tgt, ("norm1", norm_first), span, |me, h| {
            me.attention_block(m, ("self_attn", "dropout1"), h, h, (sm, skpm, *sc), span)
        })?;
        let blocks = ("multihead_attn", "dropout2");
        let x = self.residual(m, x, ("norm2", norm_first), span, |me, h| {
            me.attention_block(m, blocks, h, &memory, (mm, mkpm, *mc), span)
        })?;
        self.residual(m, x, ("norm3", norm_first), span, |me, h| {
            me.feed_forward(m, h, (activation, "dropout3"), span)
        })
    }

    /// The layers of a stack, and whether the first one's attention takes
    /// batches first (where the sequence length is read).
    fn stack_layers(
        &self,
        m: &ModuleRef,
        span: Span,
    ) -> Result<(Vec<ModuleRef>, bool), Diagnostic> {
        let layers = child(m, "layers").map_err(|e| e.at(span))?;
        let layers: Vec<ModuleRef> = lock(&layers)
            .children()
            .into_iter()
            .map(|(_, c)| c)
            .collect();
        if layers.is_empty() {
            // PyTorch reads `self.layers[0]` first.
            return Err(Error::Module {
                class: "IndexError",
                message: "index 0 is out of range".into(),
                help: Some("a stack of no layers: give num_layers of 1 or more".into()),
            }
            .at(span));
        }
        let batch_first = layers
            .first()
            .and_then(|l| child(l, "self_attn").ok())
            .is_some_and(
                |a| matches!(&lock(&a).layer, Layer::MultiheadAttention(h) if h.batch_first),
            );
        Ok((layers, batch_first))
    }

    fn final_norm(
        &mut self,
        m: &ModuleRef,
        x: Arc<Tensor>,
        span: Span,
    ) -> Result<Arc<Tensor>, Diagnostic> {
        match child(m, "norm") {
            Ok(_) => self.norm(m, "norm", x, span),
            Err(_) => Ok(x),
        }
    }

    /// `TransformerEncoder.forward`: the masks made canonical, a mask equal
    /// to the causal one taken as causal, each layer in turn, the norm.
    fn encoder(&mut self, m: &ModuleRef, b: &Bound) -> Result<Arc<Tensor>, Diagnostic> {
        let span = b.span;
        let src = b.tensor("src")?;
        let (mask, kpm) = (
            maybe_tensor(b, "mask")?,
            maybe_tensor(b, "src_key_padding_mask")?,
        );
        let at = |e: Error| e.at(span);
        let kpm = canonical_mask(
            &mut self.rt,
            kpm.as_ref(),
            (
                "src_key_padding_mask",
                mask.as_ref().map(|t| t.dtype()),
                "mask",
            ),
            src.dtype(),
        )
        .map_err(at)?;
        let mask = canonical_mask(&mut self.rt, mask.as_ref(), ("mask", None, ""), src.dtype())
            .map_err(at)?;
        self.flush_notes();
        let (layers, batch_first) = self.stack_layers(m, span)?;
        let is_causal = is_causal_mask(
            &mut self.rt,
            mask.as_ref(),
            maybe_bool(b, "is_causal")?,
            seq_len(&src, batch_first),
        )
        .map_err(at)?;
        let nested = match (&kpm, mask.is_none()) {
            (Some(pad), true) => self.nested_rows(m, &src, pad, &layers).map_err(at)?,
            _ => None,
        };
        let mut x = src;
        for layer in layers {
            let args = vec![
                positional(Value::Tensor(x), span),
                keyword("src_mask", tensor_or_none(&mask), span),
                keyword("is_causal", Value::bool(is_causal), span),
                keyword("src_key_padding_mask", tensor_or_none(&kpm), span),
            ];
            let v = self.call_module(&layer, args, span)?;
            x = to_tensor(&v).ok_or_else(|| {
                Error::wrong_type("what an encoder layer gave", "a tensor", v.type_name()).at(span)
            })?;
        }
        if let Some(real) = nested {
            // `to_padded_tensor(0.0)`: the padded positions come back as zeros.
            let real = self.rt.tensor(&real, DType::Bool, x.device()).map_err(at)?;
            let zero = Tensor::scalar(0.0f32);
            x = self
                .rt
                .ternary(
                    crate::runtime::op::ternary::TernaryOp::Where,
                    Operand::strong(&real),
                    Operand::strong(&x),
                    Operand::weak(&zero),
                )
                .map_err(at)?;
        }
        self.final_norm(m, x, span)
    }

    /// Whether PyTorch's encoder would run this padded batch as a nested
    /// tensor (its sparsity fast path: `use_nested_tensor`, the first layer
    /// in eval mode, a batch [N, S, E], no `mask`, left-aligned padding,
    /// no autocast, nothing to record), and if so which positions are real
    /// ([N, S, 1] on the host): the nested tensor's padded positions come
    /// back as zeros, not as the layers computed them.
    fn nested_rows(
        &mut self,
        m: &ModuleRef,
        src: &Tensor,
        pad: &Tensor,
        layers: &[ModuleRef],
    ) -> Result<Option<Tensor>, Error> {
        let allowed = matches!(
            lock(m).layer,
            Layer::TransformerStack {
                use_nested_tensor: true,
                ..
            }
        );
        let Some(first) = layers.first() else {
            return Ok(None);
        };
        let first_training = lock(first).training;
        if !allowed || first_training || src.ndim() != 3 || pad.ndim() != 2 {
            return Ok(None);
        }
        if self.grad.autocast.cuda.is_some() {
            return Ok(None);
        }
        let needs_grad = crate::autograd::meta::requires_grad(src)
            || crate::nn::module::named_parameters(first, true)
                .iter()
                .any(|(_, p)| crate::autograd::meta::requires_grad(p));
        if self.grad.enabled && needs_grad {
            return Ok(None);
        }
        let (n, s) = (pad.shape()[0], pad.shape()[1]);
        let real: Vec<bool> = host_values(&mut self.rt, pad)?
            .iter()
            .map(|&v| v == 0.0)
            .collect();
        // `mask_check`: each row's real positions come first.
        let left_aligned = real
            .chunks(s.max(1))
            .all(|row| row.windows(2).all(|w| w[0] || !w[1]));
        if !left_aligned || src.shape()[0] != n || src.shape()[1] != s {
            return Ok(None);
        }
        Ok(Some(Tensor::from_vec(real, vec![n, s, 1])))
    }

    /// `TransformerDecoder.forward`.
    fn decoder(&mut self, m: &ModuleRef, b: &Bound) -> Result<Arc<Tensor>, Diagnostic> {
        let span = b.span;
        let (tgt, memory) = (b.tensor("tgt")?, b.tensor("memory")?);
        let tgt_mask = maybe_tensor(b, "tgt_mask")?;
        let (layers, batch_first) = self.stack_layers(m, span)?;
        let tgt_is_causal = is_causal_mask(
            &mut self.rt,
            tgt_mask.as_ref(),
            maybe_bool(b, "tgt_is_causal")?,
            seq_len(&tgt, batch_first),
        )
        .map_err(|e| e.at(span))?;
        let rest = [
            (
                "memory_mask",
                tensor_or_none(&maybe_tensor(b, "memory_mask")?),
            ),
            (
                "tgt_key_padding_mask",
                tensor_or_none(&maybe_tensor(b, "tgt_key_padding_mask")?),
            ),
            (
                "memory_key_padding_mask",
                tensor_or_none(&maybe_tensor(b, "memory_key_padding_mask")?),
            ),
            ("tgt_is_causal", Value::bool(tgt_is_causal)),
            (
                "memory_is_causal",
                Value::bool(b.bool("memory_is_causal", false)?),
            ),
        ];
        let mut x = tgt;
        for layer in layers {
            let mut args = vec![
                positional(Value::Tensor(x), span),
                positional(Value::Tensor(Arc::clone(&memory)), span),
                keyword("tgt_mask", tensor_or_none(&tgt_mask), span),
            ];
            args.extend(rest.iter().map(|(k, v)| keyword(k, v.clone(), span)));
            let v = self.call_module(&layer, args, span)?;
            x = to_tensor(&v).ok_or_else(|| {
                Error::wrong_type("what a decoder layer gave", "a tensor", v.type_name()).at(span)
            })?;
        }
        self.final_norm(m, x, span)
    }

    /// `Transformer.forward`: the encoder on `src`, the decoder on `tgt`
    /// and the encoder's output.
    fn transformer(
        &mut self,
        m: &ModuleRef,
        b: &Bound,
        (d_model, batch_first): (usize, bool),
    ) -> Result<Arc<Tensor>, Diagnostic> {
        let span = b.span;
        let (src, tgt) = (b.tensor("src")?, b.tensor("tgt")?);
        let runtime = |message: &str| {
            Error::Module {
                class: "RuntimeError",
                message: message.into(),
                help: None,
            }
            .at(span)
        };
        let batch_dim = usize::from(!batch_first);
        if src.ndim() == 3 && src.shape().get(batch_dim) != tgt.shape().get(batch_dim) {
            return Err(runtime("the batch number of src and tgt must be equal"));
        }
        let last = |t: &Tensor| t.shape().last().copied();
        if last(&src) != Some(d_model) || last(&tgt) != Some(d_model) {
            return Err(runtime(
                "the feature number of src and tgt must be equal to d_model",
            ));
        }
        let given = |name: &str| -> Result<Value, Diagnostic> {
            Ok(match b.given(name) {
                Some((v, _)) => v.clone(),
                None => Value::None,
            })
        };
        let args = vec![
            positional(Value::Tensor(src), span),
            keyword("mask", given("src_mask")?, span),
            keyword("src_key_padding_mask", given("src_key_padding_mask")?, span),
            keyword("is_causal", given("src_is_causal")?, span),
        ];
        let memory = self.call_child(m, "encoder", args, span)?;
        let mut args = vec![
            positional(Value::Tensor(tgt), span),
            positional(Value::Tensor(memory), span),
        ];
        for name in [
            "tgt_mask",
            "memory_mask",
            "tgt_key_padding_mask",
            "memory_key_padding_mask",
            "tgt_is_causal",
        ] {
            args.push(keyword(name, given(name)?, span));
        }
        args.push(keyword(
            "memory_is_causal",
            Value::bool(b.bool("memory_is_causal", false)?),
            span,
        ));
        self.call_child(m, "decoder", args, span)
    }
}

/// PyTorch's `_get_seq_len`: the sequence's length in `src`.
fn seq_len(src: &Tensor, batch_first: bool) -> Option<usize> {
    match src.ndim() {
        2 => Some(src.shape()[0]),
        _ => src.shape().get(usize::from(batch_first)).copied(),
    }
}

/// A Transformer module's settings, as PyTorch keeps them on the module.
pub(crate) fn setting(name: &str, layer: &Layer) -> Option<Value> {
    let int = |n: usize| Some(Value::Int(n as i64));
    match (name, layer) {
        ("embed_dim", Layer::MultiheadAttention(h)) => int(h.embed_dim),
        ("num_heads", Layer::MultiheadAttention(h)) => int(h.num_heads),
        ("head_dim", Layer::MultiheadAttention(h)) => int(h.head_dim()),
        ("kdim", Layer::MultiheadAttention(h)) => int(h.kdim),
        ("vdim", Layer::MultiheadAttention(h)) => int(h.vdim),
        ("dropout", Layer::MultiheadAttention(h)) => Some(Value::float(h.dropout)),
        ("batch_first", Layer::MultiheadAttention(h)) => Some(Value::bool(h.batch_first)),
        ("_qkv_same_embed_dim", Layer::MultiheadAttention(h)) => Some(Value::bool(h.packed())),
        ("add_zero_attn", Layer::MultiheadAttention(h)) => Some(Value::bool(h.add_zero_attn)),
        ("bias_k" | "bias_v", Layer::MultiheadAttention(_)) => Some(Value::None),
        ("norm_first", Layer::TransformerLayer { norm_first, .. }) => {
            Some(Value::bool(*norm_first))
        }
        ("activation_relu_or_gelu", Layer::TransformerLayer { activation, .. }) => match activation
        {
            FeedForward::Relu => int(1),
            FeedForward::Gelu => int(2),
            FeedForward::Module => None,
        },
        ("activation", Layer::TransformerLayer { activation, .. }) => {
            let name = match activation {
                FeedForward::Relu => "relu",
                FeedForward::Gelu => "gelu",
                FeedForward::Module => return None,
            };
            super::docs::function(name).map(Value::Builtin)
        }
        ("num_layers", Layer::TransformerStack { num_layers, .. }) => int(*num_layers),
        (
            "enable_nested_tensor",
            Layer::TransformerStack {
                enable_nested_tensor,
                decoder: false,
                ..
            },
        ) => Some(Value::bool(*enable_nested_tensor)),
        (
            "use_nested_tensor",
            Layer::TransformerStack {
                use_nested_tensor,
                decoder: false,
                ..
            },
        ) => Some(Value::bool(*use_nested_tensor)),
        ("d_model", Layer::Transformer { d_model, .. }) => int(*d_model),
        ("nhead", Layer::Transformer { nhead, .. }) => int(*nhead),
        ("batch_first", Layer::Transformer { batch_first, .. }) => Some(Value::bool(*batch_first)),
        ("generate_square_subsequent_mask", Layer::Transformer { .. }) => {
            super::docs::function("generate_square_subsequent_mask").map(Value::Builtin)
        }
        _ => None,
    }
}
