//! The attention layers' constructors, as PyTorch's `__init__`s make
//! them: `MultiheadAttention`, `TransformerEncoderLayer`,
//! `TransformerDecoderLayer`, `TransformerEncoder` and `TransformerDecoder`
//! (copies of the layer given, `copy.deepcopy` as `_get_clones`), and
//! `Transformer` (its parameters of two or more dimensions then drawn
//! again by `xavier_uniform_`). Their forwards are `eval/transformer.rs`.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::nn::attention::{self, Heads};
use crate::nn::layer::FeedForward;
use crate::nn::layers::{self, Layer, Place};
use crate::nn::{Module, ModuleRef};
use crate::runtime::lock::lock;
use crate::runtime::DType;

type Out = Result<Value, Diagnostic>;

fn count(b: &Bound, name: &str, default: Option<usize>) -> Result<usize, Diagnostic> {
    match (b.int(name)?, default) {
        (Some(n), _) => usize::try_from(n).map_err(|_| {
            Error::value(format!("{name} must be at least 0, not {n}")).at(b.span_of(name))
        }),
        (None, Some(d)) => Ok(d),
        (None, None) => Err(Error::value(format!("missing `{name}`")).at(b.span)),
    }
}

fn place(me: &mut Interp, b: &Bound) -> Result<Place, Diagnostic> {
    let at = Place {
        device: me.device_arg(b)?,
        dtype: b.dtype("dtype")?.unwrap_or_else(DType::default_float),
    };
    if !at.dtype.is_float() {
        return Err(Error::dtype(
            format!(
                "attention layers need a floating point dtype, not {}",
                at.dtype
            ),
            None,
        )
        .at(b.span_of("dtype")));
    }
    Ok(at)
}

fn dropout_p(b: &Bound, default: f64) -> Result<f64, Diagnostic> {
    let p = b.float("dropout")?.unwrap_or(default);
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::value(format!(
            "dropout probability has to be between 0 and 1, but got {p}"
        ))
        .at(b.span_of("dropout")));
    }
    Ok(p)
}

/// Every constructor here, by the class's name.
pub(super) fn layer(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let m = match name {
        "MultiheadAttention" => multihead_attention(me, b)?.into_ref(),
        "TransformerEncoderLayer" | "TransformerDecoderLayer" => {
            let spec = LayerSpec::read(me, b)?;
            transformer_layer(me, &spec, name == "TransformerDecoderLayer", b)?.into_ref()
        }
        "TransformerEncoder" | "TransformerDecoder" => {
            let (layer, span) = match b.get(if name == "TransformerEncoder" {
                "encoder_layer"
            } else {
                "decoder_layer"
            }) {
                Some((Value::Module(m), s)) => (Arc::clone(m), *s),
                Some((v, s)) => {
                    return Err(Error::wrong_type(
                        format!("the layer of {name}"),
                        "a module",
                        v.type_name(),
                    )
                    .at(*s))
                }
                None => return Err(Error::value(format!("{name} needs its layer")).at(b.span)),
            };
            let norm = match b.given("norm") {
                None => None,
                Some((Value::Module(m), _)) => Some(Arc::clone(m)),
                Some((v, s)) => {
                    return Err(Error::wrong_type("norm", "a module or None", v.type_name()).at(*s))
                }
            };
            let num_layers = count(b, "num_layers", None)?;
            let decoder = name == "TransformerDecoder";
            let nested = !decoder && b.bool("enable_nested_tensor", true)?;
            stack(me, (&layer, span), num_layers, norm, (decoder, nested))?.into_ref()
        }
        _ => transformer(me, b)?,
    };
    Ok(Value::Module(m))
}

/// `MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True,
/// add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None,
/// batch_first=False, device=None, dtype=None)`.
fn multihead_attention(me: &mut Interp, b: &Bound) -> Result<Module, Diagnostic> {
    let embed_dim = count(b, "embed_dim", None)?;
    let heads = Heads {
        embed_dim,
        num_heads: count(b, "num_heads", None)?,
        kdim: count(b, "kdim", Some(embed_dim))?,
        vdim: count(b, "vdim", Some(embed_dim))?,
        dropout: dropout_p(b, 0.0)?,
        bias: b.bool("bias", true)?,
        batch_first: b.bool("batch_first", false)?,
        add_bias_kv: b.bool("add_bias_kv", false)?,
        add_zero_attn: b.bool("add_zero_attn", false)?,
    };
    let at = place(me, b)?;
    attention::multihead_attention(&mut me.rt, heads, at).map_err(|e| e.at(b.span))
}

/// What `TransformerEncoderLayer` and `TransformerDecoderLayer` (and
/// `Transformer`, for its layers) take.
struct LayerSpec {
    d_model: usize,
    nhead: usize,
    dim_feedforward: usize,
    dropout: f64,
    activation: (FeedForward, Option<ModuleRef>),
    layer_norm_eps: f64,
    batch_first: bool,
    norm_first: bool,
    bias: bool,
    at: Place,
}

impl LayerSpec {
    fn read(me: &mut Interp, b: &Bound) -> Result<LayerSpec, Diagnostic> {
        Ok(LayerSpec {
            d_model: count(b, "d_model", Some(512))?,
            nhead: count(b, "nhead", Some(8))?,
            dim_feedforward: count(b, "dim_feedforward", Some(2048))?,
            dropout: dropout_p(b, 0.1)?,
            activation: activation(b)?,
            layer_norm_eps: b.float("layer_norm_eps")?.unwrap_or(1e-5),
            batch_first: b.bool("batch_first", false)?,
            norm_first: b.bool("norm_first", false)?,
            bias: b.bool("bias", true)?,
            at: place(me, b)?,
        })
    }
}

/// `activation=`: "relu" or "gelu", `F.relu` or `F.gelu`, or a module.
fn activation(b: &Bound) -> Result<(FeedForward, Option<ModuleRef>), Diagnostic> {
    let Some((v, span)) = b.given("activation") else {
        return Ok((FeedForward::Relu, None));
    };
    match v {
        Value::Str(s) => match &***s {
            "relu" => Ok((FeedForward::Relu, None)),
            "gelu" => Ok((FeedForward::Gelu, None)),
            other => Err(Error::Module {
                class: "RuntimeError",
                message: format!("activation should be relu/gelu, not {other}"),
                help: None,
            }
            .at(*span)),
        },
        Value::Builtin(doc) if doc.name == "relu" => Ok((FeedForward::Relu, None)),
        Value::Builtin(doc) if doc.name == "gelu" => Ok((FeedForward::Gelu, None)),
        Value::Module(m) => Ok((FeedForward::Module, Some(Arc::clone(m)))),
        other => Err(Error::value_help(
            format!(
                "cudash takes a Transformer layer's activation as \"relu\", \"gelu\", F.relu, \
                 F.gelu or a module, not {}",
                other.type_name()
            ),
            "a function of your own goes in a module: `class Act(nn.Module)` with it as forward",
        )
        .at(*span)),
    }
}

fn dropout(p: f64) -> ModuleRef {
    let layer = Layer::Dropout {
        p,
        channels: false,
        inplace: false,
    };
    Module::new("Dropout", layer).into_ref()
}

fn norm(me: &mut Interp, spec: &LayerSpec) -> Result<ModuleRef, Error> {
    let layer = Layer::LayerNorm {
        normalized_shape: vec![spec.d_model],
        eps: spec.layer_norm_eps,
        elementwise_affine: true,
        bias: spec.bias,
    };
    Ok(layers::layer_norm(&mut me.rt, layer, spec.at)?.into_ref())
}

/// A `TransformerEncoderLayer` or `TransformerDecoderLayer`: its children
/// made and registered in PyTorch's order (which is also the order of the
/// draws: the attentions, `linear1`, `linear2`).
fn transformer_layer(
    me: &mut Interp,
    spec: &LayerSpec,
    decoder: bool,
    b: &Bound,
) -> Result<Module, Diagnostic> {
    let at = |e: Error| e.at(b.span);
    let heads = Heads {
        embed_dim: spec.d_model,
        num_heads: spec.nhead,
        kdim: spec.d_model,
        vdim: spec.d_model,
        dropout: spec.dropout,
        bias: spec.bias,
        batch_first: spec.batch_first,
        add_bias_kv: false,
        add_zero_attn: false,
    };
    let (kind, module) = spec.activation.clone();
    let type_name = match decoder {
        true => "TransformerDecoderLayer",
        false => "TransformerEncoderLayer",
    };
    let mut m = Module::new(
        type_name,
        Layer::TransformerLayer {
            decoder,
            norm_first: spec.norm_first,
            activation: kind,
        },
    );
    let rt = &mut me.rt;
    let self_attn = attention::multihead_attention(rt, heads.clone(), spec.at).map_err(at)?;
    m.set_module("self_attn", Some(self_attn.into_ref()))
        .map_err(at)?;
    if decoder {
        let cross = attention::multihead_attention(rt, heads, spec.at).map_err(at)?;
        m.set_module("multihead_attn", Some(cross.into_ref()))
            .map_err(at)?;
    }
    let (d, ff) = (spec.d_model, spec.dim_feedforward);
    let linear1 = layers::linear(rt, d, ff, spec.bias, spec.at).map_err(at)?;
    m.set_module("linear1", Some(linear1.into_ref()))
        .map_err(at)?;
    m.set_module("dropout", Some(dropout(spec.dropout)))
        .map_err(at)?;
    let linear2 = layers::linear(rt, ff, d, spec.bias, spec.at).map_err(at)?;
    m.set_module("linear2", Some(linear2.into_ref()))
        .map_err(at)?;
    let norms = if decoder { 3 } else { 2 };
    for k in 1..=norms {
        let n = norm(me, spec).map_err(at)?;
        m.set_module(&format!("norm{k}"), Some(n)).map_err(at)?;
    }
    for k in 1..=norms {
        m.set_module(&format!("dropout{k}"), Some(dropout(spec.dropout)))
            .map_err(at)?;
    }
    if let Some(act) = module {
        m.set_module("activation", Some(act)).map_err(at)?;
    }
    Ok(m)
}

/// A `TransformerEncoder`/`TransformerDecoder`: `layers`, a ModuleList of
/// `num_layers` deep copies of `layer`, and `norm`. An encoder asked to
/// use nested tensors warns, as PyTorch's, when its layer does not allow it.
fn stack(
    me: &mut Interp,
    (layer, span): (&ModuleRef, crate::lang::Span),
    num_layers: usize,
    norm: Option<ModuleRef>,
    (decoder, enable_nested_tensor): (bool, bool),
) -> Result<Module, Diagnostic> {
    let at = |e: Error| e.at(span);
    let mut list = Module::new("ModuleList", Layer::ModuleList);
    for k in 0..num_layers {
        let Value::Module(copy) = me
            .deep_copy_value(&Value::Module(Arc::clone(layer)))
            .map_err(at)?
        else {
            return Err(at(Error::value(
                "internal error: a module's copy is a module",
            )));
        };
        list.set_module(&k.to_string(), Some(copy)).map_err(at)?;
    }
    let type_name = match decoder {
        true => "TransformerDecoder",
        false => "TransformerEncoder",
    };
    let mut use_nested_tensor = enable_nested_tensor;
    if enable_nested_tensor {
        if let Some(why) = no_nested_tensor(layer) {
            me.warn_once(format!(
                "UserWarning: enable_nested_tensor is True, but self.use_nested_tensor is False \
                 because {why}"
            ));
            use_nested_tensor = false;
        }
    }
    let mut m = Module::new(
        type_name,
        Layer::TransformerStack {
            decoder,
            num_layers,
            enable_nested_tensor,
            use_nested_tensor,
        },
    );
    m.set_module("layers", Some(list.into_ref())).map_err(at)?;
    m.set_module("norm", norm).map_err(at)?;
    Ok(m)
}

/// Why PyTorch's encoder will not run a batch as a nested tensor (its
/// `why_not_sparsity_fast_path` at construction), if it will not.
fn no_nested_tensor(layer: &ModuleRef) -> Option<String> {
    let l = lock(layer);
    let Layer::TransformerLayer {
        decoder: false,
        norm_first,
        activation,
    } = l.layer
    else {
        return Some("encoder_layer was not TransformerEncoderLayer".into());
    };
    if norm_first {
        return Some("encoder_layer.norm_first was True".into());
    }
    let attn = l
        .modules
        .iter()
        .find(|(n, _)| n == "self_attn")
        .and_then(|(_, m)| m.clone())?;
    let attn = lock(&attn);
    let Layer::MultiheadAttention(h) = &attn.layer else {
        return None;
    };
    if !h.batch_first {
        return Some(
            "encoder_layer.self_attn.batch_first was not True(use batch_first for better \
             inference performance)"
                .into(),
        );
    }
    if !h.bias {
        return Some("encoder_layer.self_attn was passed bias=False".into());
    }
    let relu_or_gelu = match activation {
        FeedForward::Module => l
            .modules
            .iter()
            .find(|(n, _)| n == "activation")
            .and_then(|(_, m)| m.clone())
            .is_some_and(|m| matches!(&*lock(&m).type_name, "ReLU" | "GELU")),
        _ => true,
    };
    if !relu_or_gelu {
        return Some("encoder_layer.activation_relu_or_gelu was not True".into());
    }
    if h.num_heads % 2 == 1 {
        return Some("encoder_layer.self_attn.num_heads is odd".into());
    }
    None
}

/// `Transformer(d_model=512, nhead=8, num_encoder_layers=6,
/// num_decoder_layers=6, dim_feedforward=2048, dropout=0.1,
/// activation=relu, custom_encoder=None, custom_decoder=None,
/// layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
/// device=None, dtype=None)`.
fn transformer(me: &mut Interp, b: &Bound) -> Result<ModuleRef, Diagnostic> {
    let spec = LayerSpec::read(me, b)?;
    let at = |e: Error| e.at(b.span);
    let custom = |name: &str| match b.given(name) {
        None => Ok(None),
        Some((Value::Module(m), _)) => Ok(Some(Arc::clone(m))),
        Some((v, s)) => Err(Error::wrong_type(name, "a module", v.type_name()).at(*s)),
    };
    let (custom_encoder, custom_decoder) = (custom("custom_encoder")?, custom("custom_decoder")?);
    let mut m = Module::new(
        "Transformer",
        Layer::Transformer {
            d_model: spec.d_model,
            nhead: spec.nhead,
            batch_first: spec.batch_first,
        },
    );
    // The encoder, then the decoder (in that order: their draws), each a
    // stack of copies of one layer with a final LayerNorm, or the given one.
    for (name, decoder, custom, layers) in [
        ("encoder", false, custom_encoder, "num_encoder_layers"),
        ("decoder", true, custom_decoder, "num_decoder_layers"),
    ] {
        let part = match custom {
            Some(given) => given,
            None => {
                let layer = transformer_layer(me, &spec, decoder, b)?.into_ref();
                let n = norm(me, &spec).map_err(at)?;
                let count = count(b, layers, Some(6))?;
                stack(me, (&layer, b.span), count, Some(n), (decoder, !decoder))?.into_ref()
            }
        };
        m.set_module(name, Some(part)).map_err(at)?;
    }
    // `_reset_parameters`: every parameter of two or more dimensions drawn
    // again, in `parameters()` order.
    let m = m.into_ref();
    for (_, p) in crate::nn::module::named_parameters(&m, true) {
        if p.ndim() > 1 {
            attention::xavier_uniform_(&mut me.rt, &p).map_err(at)?;
        }
    }
    Ok(m)
}

/// `Transformer.generate_square_subsequent_mask(sz, device=None,
/// dtype=None)`: -inf above the diagonal, 0 on and below it.
pub(super) fn square_subsequent_mask(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let n = count(b, "sz", None)?;
    let dtype = b.dtype("dtype")?.unwrap_or_else(DType::default_float);
    if !dtype.is_float() {
        return Err(Error::dtype(
            format!("the causal mask holds -inf: a floating point dtype, not {dtype}"),
            None,
        )
        .at(b.span_of("dtype")));
    }
    let device = me.device_arg(b)?;
    let values: Vec<f32> = (0..n * n)
        .map(|k| match k % n > k / n {
            true => f32::NEG_INFINITY,
            false => 0.0,
        })
        .collect();
    let host = crate::runtime::Tensor::from_vec(values, vec![n, n]);
    b.result(me.rt.tensor(&host, dtype, device))
}
