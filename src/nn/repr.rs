//! A module's printed form: PyTorch's `repr(model)` line for line (each
//! child as `(name): ...`, indented two spaces a level, a layer's settings
//! as its `extra_repr`), then cudash's line of what the parameters are:
//! how many, their bytes, their dtypes and devices.

use super::layer::Layer;
use super::module::{named_parameters, ModuleRef};
use crate::runtime::lock::lock;
use crate::runtime::op::unary::UnaryOp;
use crate::vocab::human_bytes;

/// `repr(model)` as PyTorch prints it.
pub fn repr(m: &ModuleRef) -> String {
    repr_at(m, &mut Vec::new())
}

thread_local! {
    /// What the `extra_repr` of a program's module classes returned, by
    /// the module's address, while a value is written (`with_extra_reprs`).
    static OWN_EXTRA: std::cell::RefCell<Vec<(usize, String)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` with the texts the `extra_repr` methods of a program's module
/// classes returned (by module address), so `repr` shows them as
/// PyTorch's `Module.__repr__` does.
pub fn with_extra_reprs<R>(texts: Vec<(usize, String)>, f: impl FnOnce() -> R) -> R {
    if texts.is_empty() {
        return f();
    }
    let before = OWN_EXTRA.with(|t| std::mem::replace(&mut *t.borrow_mut(), texts));
    let r = f();
    OWN_EXTRA.with(|t| *t.borrow_mut() = before);
    r
}

/// The module's own `extra_repr` text, if its class wrote one.
fn own_extra(m: &ModuleRef) -> Option<String> {
    let k = std::sync::Arc::as_ptr(m) as *const () as usize;
    OWN_EXTRA.with(|t| {
        t.borrow()
            .iter()
            .find(|(p, _)| *p == k)
            .map(|(_, s)| s.clone())
    })
}

fn repr_at(m: &ModuleRef, open: &mut Vec<ModuleRef>) -> String {
    // A module inside itself would print forever (Python recurses until
    // its limit): shown once, then named.
    if open.iter().any(|o| std::sync::Arc::ptr_eq(o, m)) {
        return format!("{}(...)", lock(m).type_name);
    }
    open.push(std::sync::Arc::clone(m));
    let (name, extra, children) = {
        let module = lock(m);
        // A parametrized module prints as PyTorch's class for it
        // (`ParametrizedLinear`).
        let name = match module.parametrized().is_empty() {
            true => module.type_name.to_string(),
            false => format!("Parametrized{}", module.type_name),
        };
        let extra = own_extra(m).unwrap_or_else(|| extra_repr(&module));
        (name, extra, module.modules.clone())
    };
    let extra_lines: Vec<String> = match extra.is_empty() {
        true => Vec::new(),
        false => extra.lines().map(str::to_string).collect(),
    };
    let shown: Vec<(String, String)> = children
        .iter()
        .map(|(key, child)| {
            let text = match child {
                Some(c) => repr_at(c, open),
                None => "None".to_string(),
            };
            (key.clone(), text)
        })
        .collect();
    let child_lines: Vec<String> = match layer_is_list(m) {
        // ModuleList's own repr: a run of equal children once, `(0-1): 2 x ...`.
        true => runs(&shown)
            .into_iter()
            .map(|(first, last, n, text)| match n {
                1 => format!("({first}): {}", indent(text, 2)),
                n => format!("({first}-{last}): {n} x {}", indent(text, 2)),
            })
            .collect(),
        false => shown
            .iter()
            .map(|(key, text)| format!("({key}): {}", indent(text, 2)))
            .collect(),
    };
    open.pop();
    let mut out = format!("{name}(");
    if extra_lines.len() == 1 && child_lines.is_empty() {
        out.push_str(&extra_lines[0]);
    } else if !extra_lines.is_empty() || !child_lines.is_empty() {
        let lines: Vec<String> = extra_lines.into_iter().chain(child_lines).collect();
        out.push_str("\n  ");
        out.push_str(&lines.join("\n  "));
        out.push('\n');
    }
    out.push(')');
    out
}

/// PyTorch's `self.bias is not None`: a bias parameter, a plain tensor
/// (pruned) or a parametrized one.
fn has_bias(m: &super::Module) -> bool {
    m.tensor_named("bias").is_some() || m.is_parametrized("bias")
}

/// `ParameterList`'s and `ParameterDict`'s `extra_repr`: a line a
/// parameter, `(0): Parameter containing: [torch.float32 of size 2x3]`
/// (a dict names the legacy type, `torch.FloatTensor`), the device after
/// the size when it is a GPU's.
fn parameter_lines(m: &super::Module) -> String {
    let dict = m.layer == Layer::ParameterDict;
    let lines: Vec<String> = m
        .parameters
        .iter()
        .map(|(key, p)| match p {
            Some(p) => {
                let size: Vec<String> = p.shape().iter().map(usize::to_string).collect();
                let device = match p.device().is_cuda() {
                    true => format!(" ({})", p.device()),
                    false => String::new(),
                };
                let kind = match crate::autograd::meta::is_parameter(p) {
                    true => "Parameter",
                    false => "Tensor",
                };
                let dtype = match dict {
                    true => p.dtype().torch_type(p.device().is_cuda()),
                    false => p.dtype().pytorch_name().to_string(),
                };
                format!(
                    "  ({key}): {kind} containing: [{dtype} of size {}{device}]",
                    size.join("x")
                )
            }
            None => format!("  ({key}): Object of type: NoneType"),
        })
        .collect();
    lines.join("\n")
}

fn layer_is_list(m: &ModuleRef) -> bool {
    matches!(lock(m).layer, Layer::ModuleList)
}

/// Runs of equal consecutive texts: (first key, last key, count, text).
fn runs(shown: &[(String, String)]) -> Vec<(&str, &str, usize, &str)> {
    let mut out: Vec<(&str, &str, usize, &str)> = Vec::new();
    for (key, text) in shown {
        match out.last_mut() {
            Some(run) if run.3 == text => {
                run.1 = key;
                run.2 += 1;
            }
            _ => out.push((key, key, 1, text)),
        }
    }
    out
}

/// Python's `_addindent`: every line after the first moved right.
fn indent(text: &str, spaces: usize) -> String {
    let pad = " ".repeat(spaces);
    let mut lines = text.split('\n');
    let mut out = lines.next().unwrap_or("").to_string();
    for line in lines {
        out.push('\n');
        out.push_str(&pad);
        out.push_str(line);
    }
    out
}

/// A layer's settings, as its `extra_repr`.
fn extra_repr(m: &super::Module) -> String {
    match &m.layer {
        Layer::ParameterList | Layer::ParameterDict => parameter_lines(m),
        Layer::Linear {
            in_features,
            out_features,
        } => {
            let bias = has_bias(m);
            format!(
                "in_features={in_features}, out_features={out_features}, bias={}",
                py_bool(bias)
            )
        }
        Layer::Bilinear {
            in1_features,
            in2_features,
            out_features,
        } => {
            let bias = has_bias(m);
            format!(
                "in1_features={in1_features}, in2_features={in2_features}, out_features={out_features}, bias={}",
                py_bool(bias)
            )
        }
        Layer::EmbeddingBag {
            num_embeddings,
            embedding_dim,
            mean,
            ..
        } => format!(
            "{num_embeddings}, {embedding_dim}, mode='{}'",
            if *mean { "mean" } else { "sum" }
        ),
        Layer::Flatten { start_dim, end_dim } => {
            format!("start_dim={start_dim}, end_dim={end_dim}")
        }
        Layer::Dropout { p, inplace, .. } => {
            let inplace = if *inplace { "True" } else { "False" };
            format!("p={}, inplace={inplace}", py_float(*p))
        }
        Layer::GroupNorm {
            groups,
            num_channels,
            eps,
            affine,
        } => format!(
            "{groups}, {num_channels}, eps={}, affine={}, bias={}",
            py_float(*eps),
            py_bool(*affine),
            py_bool(*affine)
        ),
        Layer::Softmax { dim, .. } => {
            format!("dim={}", dim.map_or("None".to_string(), |d| d.to_string()))
        }
        Layer::BatchNorm {
            num_features,
            eps,
            momentum,
            affine,
            bias,
            track_running_stats,
            ..
        } => format!(
            "{num_features}, eps={}, momentum={}, affine={}, bias={}, track_running_stats={}",
            py_float(*eps),
            momentum.map_or("None".to_string(), py_float),
            py_bool(*affine),
            py_bool(*affine && *bias),
            py_bool(*track_running_stats)
        ),
        Layer::RmsNorm {
            normalized_shape,
            eps,
            elementwise_affine,
        } => {
            let shape = crate::runtime::shape::python_tuple(normalized_shape);
            format!(
                "{shape}, eps={}, elementwise_affine={}",
                eps.map_or("None".to_string(), py_float),
                py_bool(*elementwise_affine),
            )
        }
        Layer::LayerNorm {
            normalized_shape,
            eps,
            elementwise_affine,
            bias,
        } => {
            let shape = crate::runtime::shape::python_tuple(normalized_shape);
            format!(
                "{shape}, eps={}, elementwise_affine={}, bias={}",
                py_float(*eps),
                py_bool(*elementwise_affine),
                py_bool(*elementwise_affine && *bias)
            )
        }
        // `bias=False` as the layer is now (`fuse_conv_bn_eval` gives a
        // bias to a convolution made without one), before `padding_mode`.
        Layer::Conv { shown, .. } => {
            let plain = shown.replace(", bias=False", "");
            match has_bias(m) {
                true => plain,
                false => match plain.find(", padding_mode=") {
                    Some(k) => format!("{}, bias=False{}", &plain[..k], &plain[k..]),
                    None => plain + ", bias=False",
                },
            }
        }
        Layer::Pool { shown, .. }
        | Layer::MaxUnpool { shown, .. }
        | Layer::AdaptivePool { shown, .. } => shown.clone(),
        Layer::Embedding {
            num_embeddings,
            embedding_dim,
            padding_idx,
            max_norm,
        } => {
            let mut s = format!("{num_embeddings}, {embedding_dim}");
            if let Some(p) = padding_idx {
                s.push_str(&format!(", padding_idx={p}"));
            }
            if let Some(m) = max_norm {
                s.push_str(&m.shown);
            }
            s
        }
        Layer::Activation {
            op: UnaryOp::Gelu, ..
        } => "approximate='none'".into(),
        Layer::Activation {
            op: UnaryOp::GeluTanh,
            ..
        } => "approximate='tanh'".into(),
        Layer::Activation { inplace: true, .. } => "inplace=True".into(),
        Layer::Pointwise { shown, .. }
        | Layer::Upsample { shown, .. }
        | Layer::Unflatten { shown, .. }
        | Layer::Unfold { shown, .. }
        | Layer::Fold { shown, .. }
        | Layer::Pad { shown, .. } => shown.clone(),
        Layer::PixelShuffle {
            factor,
            inverse: false,
        } => format!("upscale_factor={factor}"),
        Layer::PixelShuffle {
            factor,
            inverse: true,
        } => format!("downscale_factor={factor}"),
        Layer::Softmin { dim } => {
            format!("dim={}", dim.map_or("None".to_string(), |d| d.to_string()))
        }
        Layer::Glu { dim } => format!("dim={dim}"),
        Layer::Prelu { num_parameters } => format!("num_parameters={num_parameters}"),
        Layer::Recurrent(r) => {
            let mut s = format!("{}, {}", r.input_size, r.hidden_size);
            if r.num_layers != 1 {
                s += &format!(", num_layers={}", r.num_layers);
            }
            if !r.bias {
                s += ", bias=False";
            }
            if r.batch_first {
                s += ", batch_first=True";
            }
            if r.dropout != 0.0 {
                s += &format!(", dropout={}", py_float(r.dropout));
            }
            if r.bidirectional {
                s += ", bidirectional=True";
            }
            s
        }
        Layer::RecurrentCell(c) => {
            let mut s = format!("{}, {}", c.input_size, c.hidden_size);
            if !c.bias {
                s += ", bias=False";
            }
            if c.kind == crate::nn::layer::Recurrence::RnnRelu {
                s += ", nonlinearity=relu";
            }
            s
        }
        Layer::Activation { .. }
        | Layer::Softsign
        | Layer::Tanhshrink
        | Layer::Identity
        | Layer::Softmax2d
        | Layer::Custom
        | Layer::Sequential
        | Layer::ModuleList
        | Layer::ModuleDict
        | Layer::DataParallel { .. }
        | Layer::DistributedDataParallel { .. }
        | Layer::MseLoss(_)
        | Layer::ComposedLoss(_)
        | Layer::PointwiseLoss { .. }
        | Layer::L1Loss(_)
        | Layer::CrossEntropyLoss { .. }
        | Layer::NllLoss { .. }
        | Layer::MultiheadAttention(_)
        | Layer::TransformerLayer { .. }
        | Layer::TransformerStack { .. }
        | Layer::Transformer { .. } => String::new(),
    }
}

/// PyTorch's class name of an activation layer.
pub fn activation_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Relu => "ReLU",
        UnaryOp::Tanh => "Tanh",
        UnaryOp::Sigmoid => "Sigmoid",
        UnaryOp::Gelu | UnaryOp::GeluTanh => "GELU",
        UnaryOp::Silu => "SiLU",
        UnaryOp::Mish => "Mish",
        _ => "Activation",
    }
}

fn py_bool(b: bool) -> &'static str {
    match b {
        true => "True",
        false => "False",
    }
}

/// A float as Python's `repr` writes it (`0.5`, `1.0`, `1e-05`): the
/// shortest digits, in exponent form below 1e-4 and from 1e16.
pub fn py_float(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == 0.0 || (1e-4..1e16).contains(&x.abs()) {
        return format!("{x:?}");
    }
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

/// cudash's line under the repr: `# 407,050 parameters (1.6 MiB), f32
/// @cuda:0, training`.
pub fn summary(m: &ModuleRef) -> String {
    let params = named_parameters(m, true);
    let count: usize = params.iter().map(|(_, p)| p.numel()).sum();
    let bytes: usize = params.iter().map(|(_, p)| p.nbytes()).sum();
    let mut places: Vec<String> = Vec::new();
    for (_, p) in &params {
        let place = format!("{} @{}", p.dtype(), p.device());
        if !places.contains(&place) {
            places.push(place);
        }
    }
    let mode = match lock(m).training {
        true => "training",
        false => "eval",
    };
    let mut out = format!(
        "# {} parameter{} ({})",
        thousands(count),
        if count == 1 { "" } else { "s" },
        human_bytes(bytes as u128)
    );
    if !places.is_empty() {
        out.push_str(", ");
        out.push_str(&places.join(", "));
    }
    out.push_str(", ");
    out.push_str(mode);
    out
}

/// 407050 as `407,050`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
