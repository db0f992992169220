//! The interpreter's side of autograd (`crate::autograd`): the tensor
//! members PyTorch users know (`.backward()`, `.grad`, `.requires_grad`,
//! `.requires_grad_()`, `.detach()`, `.retain_grad()`, `.is_leaf`,
//! `.grad_fn`), `requires_grad=` of the factories, `no_grad { }`, the
//! optimizers (`SGD`, `Adam`), and the check that no op on a tensor that
//! requires grad gives a result autograd did not record (a gradient that
//! would be silently wrong is refused instead).

use std::sync::{Arc, Mutex};

use super::args::{to_tensor, ArgVal, Bound};
use super::flow::Flow;
use super::value::{Key, PyDict};
use super::{Interp, Value};
use crate::autograd::losses;
use crate::autograd::meta::{
    is_leaf, leaf_meta, meta, meta_or_leaf, requires_grad, set_requires_grad,
};
use crate::autograd::node::{Backward, GraphFn};
use crate::autograd::optim::{Kind, Optimizer};
use crate::autograd::{engine, functional, record};
use crate::error::{Diagnostic, Error};
use crate::lang::ast::{Block, Name};
use crate::lang::Span;
use crate::runtime::lock::lock;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// Makes `t` (a new leaf) require grad: floating point tensors only, as PyTorch.
pub(crate) fn make_requires_grad(t: &Tensor, flag: bool) -> Result<(), Error> {
    if flag && !t.dtype().is_float() {
        return Err(Error::Autograd {
            message: format!(
                "only Tensors of floating point dtype can require gradients (this one is {})",
                t.dtype()
            ),
            help: "make it a float tensor first: `x.to(f32)`, or `dtype=f32` where it is made"
                .into(),
        });
    }
    if flag && t.is_inference() && !crate::runtime::inference::enabled() {
        return Err(Error::Module {
            class: "RuntimeError",
            message: "Setting requires_grad=True on inference tensor outside InferenceMode is not \
                      allowed."
                .into(),
            help: Some(
                "a tensor made under `torch.inference_mode()` cannot join a graph: use \
                 `x.clone()` of it, or make it under `torch.no_grad()`"
                    .into(),
            ),
        });
    }
    match leaf_meta(t) {
        Some(m) => {
            set_requires_grad(m, flag);
            Ok(())
        }
        None if flag => Ok(()),
        None => Err(Error::Autograd {
            message: "you can only change requires_grad flags of leaf variables".into(),
            help: "use `y.detach()` for a tensor that does not require grad".into(),
        }),
    }
}

impl Interp {
    /// `x.grad = g` (none, or a tensor of `x`'s shape, dtype and device, as
    /// PyTorch checks it) and `x.requires_grad = flag` (as
    /// `requires_grad_`): the properties a program can set.
    pub(super) fn set_property(
        &mut self,
        target: &Value,
        attr: &Name,
        v: Value,
        value_span: Span,
    ) -> Result<(), Diagnostic> {
        let at = |e: Error| e.at(attr.span);
        let Value::Tensor(t) = target else {
            return Err(at(Error::ReadOnly {
                message: format!("cannot set `.{}` of {}", attr.name, target.type_name()),
            }));
        };
        match attr.name.as_str() {
            "grad" => {
                let g = match v {
                    Value::None => None,
                    Value::Tensor(g) => {
                        check_assigned_grad(t, &g).map_err(|e| e.at(value_span))?;
                        Some(g)
                    }
                    other => {
                        return Err(Error::wrong_type(
                            "an assigned grad",
                            "a tensor or none",
                            other.type_name(),
                        )
                        .at(value_span))
                    }
                };
                meta_or_leaf(t).set_grad(g);
                Ok(())
            }
            "requires_grad" => {
                let Value::Bool(flag) = v else {
                    return Err(
                        Error::wrong_type("requires_grad", "true or false", v.type_name())
                            .at(value_span),
                    );
                };
                make_requires_grad(t, flag.get()).map_err(at)
            }
            "data" => {
                let Value::Tensor(y) = v else {
                    return Err(Error::Module {
                        class: "TypeError",
                        message: format!(
                            "Variable data has to be a tensor, but got {}",
                            super::format::python_type(&v)
                        ),
                        help: Some("`x.data = torch.tensor(...)`".into()),
                    }
                    .at(value_span));
                };
                if requires_grad(t) && !y.dtype().is_float() {
                    return Err(Error::Module {
                        class: "RuntimeError",
                        message: "data set to a tensor that requires gradients must be \
                                  floating point or complex dtype"
                            .into(),
                        help: Some(format!(
                            "this tensor requires grad and the new data is {}: `.float()` it, \
                             or `requires_grad_(False)` first",
                            y.dtype()
                        )),
                    }
                    .at(value_span));
                }
                self.rt.set_data(t, y).map_err(|e| e.at(value_span))
            }
            other => Err(at(Error::ReadOnly {
                message: format!("`.{other}` of a tensor cannot be set"),
            })),
        }
    }
}

/// PyTorch's checks of `x.grad = g`.
fn check_assigned_grad(t: &Tensor, g: &Tensor) -> Result<(), Error> {
    let what = if g.shape() != t.shape() {
        "of a different size"
    } else if g.dtype() != t.dtype() {
        "of a different type"
    } else if g.device() != t.device() {
        "located on a different device"
    } else {
        return Ok(());
    };
    Err(Error::Autograd {
        message: format!("assigned grad has data {what}"),
        help: format!(
            "a grad has its tensor's shape, dtype and device: here {} {} @{}",
            t.dtype(),
            crate::runtime::shape::fmt_shape(t.shape()),
            t.device()
        ),
    })
}

/// `requires_grad=true` of a factory, applied to what it made.
pub(crate) fn factory_requires_grad(v: Value, b: &Bound) -> Out {
    if b.bool("requires_grad", false)? {
        if let Value::Tensor(t) = &v {
            let span = b.span_of("requires_grad");
            make_requires_grad(t, true).map_err(|e| e.at(span))?;
        }
    }
    Ok(v)
}

/// `x.requires_grad`.
pub(super) fn requires_grad_property(t: &Tensor) -> Result<Value, Error> {
    Ok(Value::bool(requires_grad(t)))
}

/// `x.is_leaf`.
pub(super) fn is_leaf_property(t: &Tensor) -> Result<Value, Error> {
    Ok(Value::bool(is_leaf(t)))
}

/// `x.retains_grad`: whether `x` is a non-leaf whose `retain_grad()` was
/// called (false for every leaf, as PyTorch's).
pub(super) fn retains_grad_property(t: &Tensor) -> Result<Value, Error> {
    Ok(Value::bool(
        !is_leaf(t) && meta(t).is_some_and(|m| m.retains_grad()),
    ))
}

/// `x.grad`: the gradient backward accumulated (none before, and for a
/// non-leaf that does not `retain_grad()`).
pub(super) fn grad_property(t: &Tensor) -> Result<Value, Error> {
    Ok(match meta(t).and_then(|m| m.grad()) {
        Some(g) => Value::Tensor(g),
        None => Value::None,
    })
}

/// PyTorch's warning for `y.grad` of a non-leaf (its text, as PyTorch words it).
pub(super) const NON_LEAF_GRAD: &str = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. \
Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field \
to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.";

/// A non-leaf whose `.grad` backward never fills (no `retain_grad()`).
pub(super) fn non_leaf_without_grad(t: &Tensor) -> bool {
    meta(t).is_some_and(|m| m.has_grad_fn() && !m.retains_grad() && m.grad().is_none())
}

/// `x.grad_fn`: the node that made `x`, as PyTorch prints it (`<MulBackward0>`).
pub(super) fn grad_fn_property(t: &Tensor) -> Result<Value, Error> {
    Ok(match meta(t).and_then(|m| m.grad_fn()) {
        Some((node, _)) => Value::GradFn(Arc::new(GraphFn::Node(node))),
        None => Value::None,
    })
}

/// `f.next_functions`: one `[function, output]` pair per input of the
/// forward op (`AccumulateGrad` for a leaf, none for an input that needs
/// no gradient), as PyTorch's tuple of pairs.
pub(super) fn next_functions(f: &Arc<GraphFn>) -> Value {
    let pairs = f.next_functions().into_iter().map(|(f, k)| {
        let f = f.map_or(Value::None, |f| Value::GradFn(Arc::new(f)));
        Value::List(Arc::new(vec![f, Value::Int(k as i64)]))
    });
    Value::List(Arc::new(pairs.collect()))
}

/// `f.metadata`: a dict of the program's, the same one each time (as
/// PyTorch's node keeps it); a node made under anomaly detection starts
/// with its forward traceback under `traceback_`, one entry per frame.
pub(super) fn metadata(f: &Arc<GraphFn>) -> Value {
    let (slot, trace) = f.metadata();
    let held = slot.get_or_init(|| {
        let mut items = Vec::new();
        if let Some(frames) = trace {
            let frames = frames
                .into_iter()
                .map(|f| Value::Str(Arc::new(f)))
                .collect();
            items.push((Key::Str("traceback_".into()), Value::list(frames)));
        }
        Arc::new(Value::Dict(PyDict::new(items)))
    });
    held.downcast_ref::<Value>()
        .cloned()
        .unwrap_or_else(|| unreachable!("a node's metadata is the session's dict"))
}

/// `f.name()`: `MulBackward0`, `torch::autograd::AccumulateGrad`.
pub(super) fn grad_fn_name(_: &mut Interp, _: &'static str, f: &Arc<GraphFn>, _: &Bound) -> Out {
    Ok(Value::Str(Arc::new(f.qualified_name().to_string())))
}

pub(super) fn requires_grad_(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let flag = b.bool("requires_grad", true)?;
    make_requires_grad(t, flag).map_err(|e| e.at(b.span))?;
    Ok(Value::Tensor(Arc::clone(t)))
}

/// `torch.autograd.Variable(data, requires_grad=False, volatile=False)`:
/// the wrapper of PyTorch before 0.4, which since then gives a tensor:
/// `data` detached (its memory shared), requiring grad as asked
/// (`python_legacy_variable.cpp`). `isinstance(x, Variable)` holds for
/// every tensor, as PyTorch's `VariableMeta` makes it.
pub(super) fn variable(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let data = match b.get("data") {
        None | Some((Value::None, _)) => Arc::new(Tensor::from_vec(Vec::<f32>::new(), vec![0])),
        Some((Value::Tensor(t), _)) => Arc::clone(t),
        Some((other, span)) => {
            return Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "Variable data has to be a tensor, but got {}",
                    super::format::python_type(other)
                ),
                help: Some("`torch.tensor(data)` makes a tensor of a list".into()),
            }
            .at(*span))
        }
    };
    if b.bool("volatile", false)? {
        me.warn_once(
            "UserWarning: volatile was removed and now has no effect. Use `with torch.no_grad():` \
             instead."
                .into(),
        );
    }
    let t = crate::autograd::meta::detached(&data);
    make_requires_grad(&t, b.bool("requires_grad", false)?).map_err(|e| e.at(b.span))?;
    Ok(Value::tensor(t))
}

/// `x.detach()`: the same elements, no autograd history.
pub(super) fn detach(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, _: &Bound) -> Out {
    Ok(Value::tensor(crate::autograd::meta::detached(t)))
}

/// `y.retain_grad()`: a non-leaf keeps its gradient in `.grad`.
pub(super) fn retain_grad(_: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let Some(m) = meta(t).filter(|m| m.requires_grad()) else {
        return Err(Error::Autograd {
            message: "can't retain_grad on Tensor that has requires_grad=False".into(),
            help: "only tensors computed from ones that require grad have a gradient".into(),
        }
        .at(b.span));
    };
    crate::autograd::meta::retain_grad(m);
    Ok(Value::None)
}

/// `loss.backward(gradient=none, retain_graph=false, create_graph=false,
/// inputs=none)`.
pub(super) fn backward(me: &mut Interp, _: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let gradient = match b.given("gradient") {
        Some((v, span)) => Some(to_tensor(v).ok_or_else(|| {
            Error::wrong_type("the gradient of backward()", "a tensor", v.type_name()).at(*span)
        })?),
        None => None,
    };
    let keep = keep(me, b)?;
    if keep.create_graph {
        me.warn_once(CYCLE.into());
    }
    let inputs = backward_inputs(me, b)?;
    engine::backward_many(
        me,
        std::slice::from_ref(t),
        vec![gradient],
        keep,
        inputs.as_deref(),
    )
    .map_err(|e| e.at_or_where_raised(b.span))?;
    me.name_grads();
    Ok(Value::None)
}

/// `SGD(params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=false)`.
pub(super) fn sgd(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let lr = b.float("lr")?.unwrap_or(0.001);
    let momentum = b.float("momentum")?.unwrap_or(0.0);
    let dampening = b.float("dampening")?.unwrap_or(0.0);
    let weight_decay = b.float("weight_decay")?.unwrap_or(0.0);
    let nesterov = b.bool("nesterov", false)?;
    check_hyper(
        b,
        &[
            ("lr", lr),
            ("momentum", momentum),
            ("weight_decay", weight_decay),
        ],
    )?;
    if nesterov && (momentum <= 0.0 || dampening != 0.0) {
        return Err(
            Error::value("Nesterov momentum requires a momentum and zero dampening").at(b.span),
        );
    }
    let kind = Kind::Sgd {
        lr,
        momentum,
        dampening,
        weight_decay,
        nesterov,
        flags: flags(b, false)?,
    };
    optimizer(me, kind, b)
}

/// `Adam(params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0)`.
pub(super) fn adam(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let default_lr = match name {
        "Adamax" | "NAdam" => 0.002,
        _ => 0.001,
    };
    let lr = b.float("lr")?.unwrap_or(default_lr);
    let eps = b.float("eps")?.unwrap_or(1e-8);
    // AdamW decays by default (PyTorch's 1e-2), Adam does not.
    let default_decay = if name == "AdamW" { 0.01 } else { 0.0 };
    let weight_decay = b.float("weight_decay")?.unwrap_or(default_decay);
    let betas = match b.given("betas") {
        None => (0.9, 0.999),
        Some((v, span)) => {
            let items = super::args::flatten(v, *span)?;
            let numbers: Vec<f64> = items.iter().filter_map(|(x, _)| x.as_number()).collect();
            match numbers.as_slice() {
                [b1, b2] if items.len() == 2 => (*b1, *b2),
                _ => {
                    let what = "two numbers: (0.9, 0.999)";
                    return Err(Error::wrong_type("betas", what, v.type_name()).at(*span));
                }
            }
        }
    };
    check_hyper(
        b,
        &[("lr", lr), ("eps", eps), ("weight_decay", weight_decay)],
    )?;
    for (k, beta) in [betas.0, betas.1].into_iter().enumerate() {
        if !(0.0..1.0).contains(&beta) {
            return Err(
                Error::value(format!("Invalid beta parameter at index {k}: {beta}")).at(b.span),
            );
        }
    }
    let variant = match name {
        "Adamax" => Some(crate::autograd::optim::AdamVariant::Adamax),
        "RAdam" => Some(crate::autograd::optim::AdamVariant::RAdam),
        "NAdam" => Some(crate::autograd::optim::AdamVariant::NAdam),
        _ => None,
    };
    if let Some(variant) = variant {
        let momentum_decay = b.float("momentum_decay")?.unwrap_or(0.004);
        if momentum_decay < 0.0 {
            return Err(
                Error::value(format!("Invalid momentum_decay value: {momentum_decay}"))
                    .at(b.span_of("momentum_decay")),
            );
        }
        let kind = Kind::AdamLike {
            variant,
            lr,
            betas,
            eps,
            weight_decay,
            momentum_decay,
            decoupled: b.bool("decoupled_weight_decay", false)?,
            flags: flags(b, variant == crate::autograd::optim::AdamVariant::Adamax)?,
        };
        return optimizer(me, kind, b);
    }
    let kind = match name {
        "AdamW" => Kind::AdamW {
            lr,
            betas,
            eps,
            weight_decay,
            flags: flags(b, true)?,
        },
        _ => Kind::Adam {
            lr,
            betas,
            eps,
            weight_decay,
            decoupled: b.bool("decoupled_weight_decay", false)?,
            flags: flags(b, true)?,
        },
    };
    optimizer(me, kind, b)
}

/// `RMSprop(params, lr=0.01, alpha=0.99, eps=1e-8, weight_decay=0,
/// momentum=0, centered=false)`.
pub(super) fn rmsprop(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let kind = Kind::RmsProp {
        lr: b.float("lr")?.unwrap_or(0.01),
        alpha: b.float("alpha")?.unwrap_or(0.99),
        eps: b.float("eps")?.unwrap_or(1e-8),
        weight_decay: b.float("weight_decay")?.unwrap_or(0.0),
        momentum: b.float("momentum")?.unwrap_or(0.0),
        centered: b.bool("centered", false)?,
        flags: flags(b, true)?,
    };
    check_hyper(b, &named(&kind))?;
    optimizer(me, kind, b)
}

/// `Adagrad(params, lr=0.01, lr_decay=0, weight_decay=0,
/// initial_accumulator_value=0, eps=1e-10)`.
pub(super) fn adagrad(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let kind = Kind::Adagrad {
        lr: b.float("lr")?.unwrap_or(0.01),
        lr_decay: b.float("lr_decay")?.unwrap_or(0.0),
        weight_decay: b.float("weight_decay")?.unwrap_or(0.0),
        initial_accumulator_value: b.float("initial_accumulator_value")?.unwrap_or(0.0),
        eps: b.float("eps")?.unwrap_or(1e-10),
        flags: flags(b, false)?,
    };
    check_hyper(b, &named(&kind))?;
    optimizer(me, kind, b)
}

/// `Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0)`.
pub(super) fn adadelta(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let kind = Kind::Adadelta {
        lr: b.float("lr")?.unwrap_or(1.0),
        rho: b.float("rho")?.unwrap_or(0.9),
        eps: b.float("eps")?.unwrap_or(1e-6),
        weight_decay: b.float("weight_decay")?.unwrap_or(0.0),
        flags: flags(b, true)?,
    };
    check_hyper(b, &named(&kind))?;
    if let Kind::Adadelta { rho, .. } = kind {
        if !(0.0..=1.0).contains(&rho) {
            return Err(Error::value(format!("Invalid rho value: {rho}")).at(b.span_of("rho")));
        }
    }
    optimizer(me, kind, b)
}

/// The switches PyTorch's optimizers share (`amsgrad`, `maximize`,
/// `foreach`, `fused`, `capturable`, `differentiable`), where the
/// optimizer's signature has them; `differentiable=True` is refused, and
/// `capturable=True` where the optimizer is not Adam or AdamW (`captures`);
/// `fused` with `foreach` both true is PyTorch's RuntimeError.
fn flags(b: &Bound, captures: bool) -> Result<crate::autograd::optim::Flags, Diagnostic> {
    let maybe = |name: &str| -> Result<Option<bool>, Diagnostic> {
        match b.given(name) {
            None | Some((Value::None, _)) => Ok(None),
            Some(_) => Ok(Some(b.bool(name, false)?)),
        }
    };
    for name in ["capturable", "differentiable"] {
        if b.bool(name, false)? && !(captures && name == "capturable") {
            return Err(Error::value(crate::autograd::optim::unsupported(name)).at(b.span_of(name)));
        }
    }
    let flags = crate::autograd::optim::Flags {
        amsgrad: b.bool("amsgrad", false)?,
        maximize: b.bool("maximize", false)?,
        foreach: maybe("foreach")?,
        fused: maybe("fused")?,
        capturable: b.bool("capturable", false)?,
        differentiable: false,
        whole: 0,
    };
    if flags.fused == Some(true) && flags.foreach == Some(true) {
        return Err(Error::Module {
            class: "RuntimeError",
            message: "`fused` and `foreach` cannot be `True` together.".into(),
            help: None,
        }
        .at(b.span_of("fused")));
    }
    Ok(flags)
}

/// The numeric settings of `kind`, for `check_hyper`.
fn named(kind: &Kind) -> Vec<(&'static str, f64)> {
    kind.settings()
        .into_iter()
        .filter_map(|(k, v)| match v {
            crate::autograd::optim::Setting::Number(x) => Some((k, x)),
            crate::autograd::optim::Setting::Whole(n) => Some((k, n as f64)),
            _ => None,
        })
        .collect()
}

/// `mse_loss(input, target, reduction="mean")`.
pub(super) fn mse_loss(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (x, y) = (b.tensor("input")?, b.tensor("target")?);
    let r = super::builtins::losses::loss_reduction(me, b)?;
    b.result(losses::mse_loss(&mut me.rt, me.grad, &x, &y, r))
}

/// `nll_loss(input, target, ignore_index=-100, reduction="mean")`.
pub(super) fn nll_loss(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (x, t) = (b.tensor("input")?, b.tensor("target")?);
    let ignore = b.int("ignore_index")?.unwrap_or(-100);
    let r = super::builtins::losses::reduction(b)?;
    let w = b.optional_tensor("weight")?;
    b.result(losses::nll_loss(
        &mut me.rt,
        me.grad,
        &x,
        &t,
        ignore,
        r,
        w.as_deref(),
    ))
}

/// `cross_entropy(input, target, ignore_index=-100, reduction="mean")`:
/// `nll_loss(log_softmax(input, dim=1), target)`, as PyTorch computes it.
pub(super) fn cross_entropy(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (x, t) = (b.tensor("input")?, b.tensor("target")?);
    let ignore = b.int("ignore_index")?.unwrap_or(-100);
    let r = super::builtins::losses::reduction(b)?;
    let smoothing = b.float("label_smoothing")?.unwrap_or(0.0);
    let w = b.optional_tensor("weight")?;
    let how = losses::CrossEntropy {
        ignore_index: ignore,
        reduction: r,
        label_smoothing: smoothing,
        weight: w.as_deref(),
    };
    b.result(losses::cross_entropy_smoothed(
        &mut me.rt, me.grad, &x, &t, how,
    ))
}

/// `linear(input, weight, bias=none)`: `input @ weight.T + bias`.
pub(super) fn linear(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (x, w) = (b.tensor("input")?, b.tensor("weight")?);
    let bias = match b.given("bias") {
        None | Some((Value::None, _)) => None,
        Some(_) => Some(b.tensor("bias")?),
    };
    b.result(functional::linear(
        &mut me.rt,
        me.grad,
        &x,
        &w,
        bias.as_ref(),
    ))
}

/// `embedding_bag(input, weight, offsets=none, ..., mode="mean", ...,
/// include_last_offset=false)`: modes `sum` and `mean`.
pub(super) fn embedding_bag(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (input, weight) = (b.tensor("input")?, b.tensor("weight")?);
    let offsets = match b.given("offsets") {
        None | Some((Value::None, _)) => None,
        Some(_) => Some(b.tensor("offsets")?),
    };
    let mean = match b.str("mode")?.as_deref().unwrap_or("mean") {
        "mean" => true,
        "sum" => false,
        other => {
            return Err(Error::value_help(
                format!("embedding_bag's mode={other:?} is not in cudash"),
                "`mode=\"sum\"` or `mode=\"mean\"`",
            )
            .at(b.span_of("mode")))
        }
    };
    if !matches!(b.given("per_sample_weights"), None | Some((Value::None, _))) {
        return Err(
            Error::value("embedding_bag's per_sample_weights are not in cudash yet")
                .at(b.span_of("per_sample_weights")),
        );
    }
    let how = (mean, b.bool("include_last_offset", false)?);
    b.result(crate::autograd::embedding_bag::embedding_bag(
        &mut me.rt,
        me.grad,
        (&input, offsets.as_ref()),
        &weight,
        how,
    ))
}

/// `bilinear(input1, input2, weight, bias=none)`.
pub(super) fn bilinear(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (x1, x2) = (b.tensor("input1")?, b.tensor("input2")?);
    let w = b.tensor("weight")?;
    let bias = match b.given("bias") {
        None | Some((Value::None, _)) => None,
        Some(_) => Some(b.tensor("bias")?),
    };
    b.result(crate::autograd::bilinear::bilinear(
        &mut me.rt,
        me.grad,
        (&x1, &x2),
        &w,
        bias.as_ref(),
    ))
}

/// `scaled_dot_product_attention(query, key, value, attn_mask=none,
/// dropout_p=0.0, is_causal=false, scale=none, enable_gqa=false)`.
pub(super) fn scaled_dot_product_attention(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let (q, k, v) = (b.tensor("query")?, b.tensor("key")?, b.tensor("value")?);
    let mask = match b.given("attn_mask") {
        None | Some((Value::None, _)) => None,
        Some(_) => Some(b.tensor("attn_mask")?),
    };
    if b.bool("enable_gqa", false)? && q.ndim() >= 3 && k.ndim() >= 3 {
        let heads = |t: &crate::runtime::Tensor| t.shape()[t.ndim() - 3];
        if heads(&q) != heads(&k) {
            return Err(Error::value_help(
                "cudash's scaled_dot_product_attention has no grouped-query attention",
                "repeat the key and value heads first: `k.repeat_interleave(q.shape[-3] // \
                 k.shape[-3], dim=-3)`",
            )
            .at(b.span_of("enable_gqa")));
        }
    }
    let how = crate::autograd::attention::Attention {
        mask: mask.as_ref(),
        dropout_p: b.float("dropout_p")?.unwrap_or(0.0),
        is_causal: b.bool("is_causal", false)?,
        scale: b.float("scale")?,
    };
    b.result(crate::autograd::attention::scaled_dot_product_attention(
        &mut me.rt, me.grad, &q, &k, &v, how,
    ))
}

/// `dropout(input, p=0.5, training=true, inplace=false)`.
pub(super) fn dropout(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let p = b.float("p")?.unwrap_or(0.5);
    let training = b.bool("training", true)?;
    if b.bool("inplace", false)? {
        functional::dropout_(&mut me.rt, me.grad, &x, p, training).map_err(|e| e.at(b.span))?;
        return Ok(Value::Tensor(x));
    }
    b.result(functional::dropout(&mut me.rt, me.grad, &x, p, training))
}

/// `dropout2d(input, p=0.5, training=true, inplace=false)`: whole channels zeroed.
pub(super) fn dropout2d(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let p = b.float("p")?.unwrap_or(0.5);
    let training = b.bool("training", true)?;
    if b.bool("inplace", false)? {
        functional::dropout2d_(&mut me.rt, me.grad, &x, p, training).map_err(|e| e.at(b.span))?;
        return Ok(Value::Tensor(x));
    }
    b.result(functional::dropout2d(&mut me.rt, me.grad, &x, p, training))
}

/// `gelu(input, approximate="none")`: `x * Φ(x)`, or its tanh approximation.
pub(super) fn gelu(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let x = b.tensor("input")?;
    let op = match b.str("approximate")?.as_deref().unwrap_or("none") {
        "none" => UnaryOp::Gelu,
        "tanh" => UnaryOp::GeluTanh,
        other => {
            return Err(Error::value(format!(
                "approximate argument must be either none or tanh, not '{other}'"
            ))
            .at(b.span_of("approximate")))
        }
    };
    b.result(crate::autograd::autocast::unary(
        &mut me.rt, me.grad, op, &x,
    ))
}

/// PyTorch's checks of the hyper-parameters: none may be negative.
fn check_hyper(b: &Bound, values: &[(&str, f64)]) -> Result<(), Diagnostic> {
    for &(name, v) in values {
        if v < 0.0 || v.is_nan() {
            let span = b.span_of(name);
            return Err(Error::value(format!("Invalid {name} value: {v}")).at(span));
        }
    }
    Ok(())
}

fn optimizer(me: &mut Interp, kind: Kind, b: &Bound) -> Out {
    // Which numbers are Python ints, as PyTorch's group keeps them.
    let mut kind = kind;
    kind.mark_whole(|key| b.given(key).map(|(v, _)| matches!(v, Value::Int(_))));
    let (v, span) = b
        .get("params")
        .ok_or_else(|| Error::value("missing params").at(b.span))?;
    let span = *span;
    let items = match v.elements() {
        Some(Ok(items)) => items,
        _ => {
            return Err(
                Error::wrong_type("params", "a list of tensors: `[W, b]`", v.type_name()).at(span),
            )
        }
    };
    let tensors = |items: &[Value]| parameters(items, span);
    // A list of dicts: parameter groups, each with its own settings over
    // the call's, and any key of the program's.
    let mut extras = Vec::new();
    let groups = match items.first() {
        Some(Value::Dict(_)) => {
            let mut groups = Vec::with_capacity(items.len());
            for item in &items {
                let (group_kind, params, own) = parameter_group(me, &kind, item, span)?;
                groups.push((group_kind, params));
                extras.push(own);
            }
            groups
        }
        _ => vec![(kind, tensors(&items)?)],
    };
    let mut opt = Optimizer::with_groups(groups).map_err(|e| e.at(span))?;
    opt.extras = extras;
    opt.init_state(&mut me.rt).map_err(|e| e.at(b.span))?;
    if let Some(warning) = opt.duplicates() {
        me.rt.note(warning);
    }
    let opt = Arc::new(Mutex::new(opt));
    crate::autograd::optim::register(&opt);
    Ok(Value::Optimizer(opt))
}

/// Settings of PyTorch's optimizers: in a group of an optimizer that has
/// none of that name, a likely mix-up.
const OTHER_OPTIMIZERS_SETTINGS: &[&str] = &[
    "momentum",
    "dampening",
    "nesterov",
    "betas",
    "eps",
    "amsgrad",
    "alpha",
    "centered",
    "lr_decay",
    "initial_accumulator_value",
    "rho",
    "capturable",
    "decoupled_weight_decay",
    "weight_decay",
];

/// `opt.step()`, or `opt.step(closure)`: the closure (which zeroes the
/// gradients, computes the loss and calls `backward`) called first with
/// grad mode on, as PyTorch's optimizers do; its loss is the value.
pub(super) fn step(me: &mut Interp, _: &'static str, o: &Arc<Mutex<Optimizer>>, b: &Bound) -> Out {
    let closure = match b.given("closure") {
        None | Some((Value::None, _)) => None,
        Some((f, _)) => Some(f.clone()),
    };
    optimizer_step(me, o, closure, b.span)
}

/// PyTorch's wrapped `optimizer.step(closure)`: the pre-hooks, the closure
/// (with grad mode on), the capture check and warning, the update, the
/// post-hooks; the closure's loss is the value. `opt.step()` and
/// `scaler.step(opt)` both step this way.
pub(super) fn optimizer_step(
    me: &mut Interp,
    o: &Arc<Mutex<Optimizer>>,
    closure: Option<Value>,
    span: Span,
) -> Out {
    let mut closure = closure;
    // The step hooks' `(optimizer, args, kwargs)`: `args` is the step's,
    // the optimizer first (PyTorch's wrapper passes `self` in them).
    let call_args = |closure: &Option<Value>| {
        let me = Value::Optimizer(Arc::clone(o));
        let args = std::iter::once(me).chain(closure.iter().cloned());
        let args = args.collect::<Vec<_>>();
        vec![
            ArgVal::positional(Value::Optimizer(Arc::clone(o)), span),
            ArgVal::positional(Value::List(Arc::new(args)), span),
            ArgVal::positional(Value::Dict(PyDict::new(Vec::new())), span),
        ]
    };
    let pre = lock(o).step_pre_hooks.list();
    for hook in pre {
        let f = super::param_group::held(&hook.f);
        let r = me.call_value(f.clone(), call_args(&closure), span)?;
        closure = match r {
            Value::None => closure,
            Value::List(pair) if pair.len() == 2 => {
                let new_args = pair[0].elements().and_then(Result::ok);
                let from_args = new_args.and_then(|a| a.get(1).cloned());
                let from_kwargs = match &pair[1] {
                    Value::Dict(d) => d.get(&Key::from("closure")),
                    _ => None,
                };
                from_args
                    .or(from_kwargs)
                    .filter(|v| !matches!(v, Value::None))
            }
            other => {
                return Err(Error::runtime(format!(
                    "{} must return None or a tuple of (new_args, new_kwargs), but got {}.",
                    super::show::repr(&f),
                    super::show::repr(&other)
                ))
                .at(span))
            }
        };
    }
    let loss = match &closure {
        None => Value::None,
        Some(f) => {
            let saved = std::mem::replace(&mut me.grad.enabled, true);
            let r = me.call_value(f.clone(), Vec::new(), span);
            me.grad.enabled = saved;
            r?
        }
    };
    let capturing = me.rt.is_current_stream_capturing();
    if let Some(warning) = lock(o).uncaptured_warning(capturing) {
        me.warn_once(warning.into());
    }
    lock(o).step(&mut me.rt).map_err(|e| e.at(span))?;
    let post = lock(o).step_post_hooks.list();
    for hook in post {
        let f = super::param_group::held(&hook.f);
        me.call_value(f, call_args(&closure), span)?;
    }
    Ok(loss)
}

/// `opt.register_step_pre_hook(hook)` and `opt.register_step_post_hook(hook)`:
/// `hook(optimizer, args, kwargs)` called before (which may return new
/// `(args, kwargs)`) or after each `step()`; the handle's `remove()` takes
/// it off.
pub(super) fn register_step_hook(
    _: &mut Interp,
    name: &'static str,
    o: &Arc<Mutex<Optimizer>>,
    b: &Bound,
) -> Out {
    let (f, _) = b
        .get("hook")
        .cloned()
        .ok_or_else(|| Error::value(format!("{name}() takes a function")).at(b.span))?;
    let o = lock(o);
    let hooks = match name {
        "register_step_pre_hook" => &o.step_pre_hooks,
        _ => &o.step_post_hooks,
    };
    let handle = crate::autograd::hooks::register_in(hooks, super::param_group::hold(&f));
    Ok(Value::HookHandle(Arc::new(handle)))
}

/// `opt.zero_grad()`.
pub(super) fn zero_grad(
    me: &mut Interp,
    _: &'static str,
    o: &Arc<Mutex<Optimizer>>,
    b: &Bound,
) -> Out {
    if b.bool("set_to_none", true)? {
        lock(o).zero_grad();
        return Ok(Value::None);
    }
    // `set_to_none=False`: each gradient zeroed in place (its memory kept).
    let grads: Vec<Arc<Tensor>> = lock(o)
        .params
        .iter()
        .filter_map(|p| crate::autograd::meta::meta(p).and_then(|m| m.grad()))
        .collect();
    for g in grads {
        me.rt
            .fill(&g, crate::runtime::op::factory::Fill::Int(0))
            .map_err(|e| e.at(b.span))?;
    }
    Ok(Value::None)
}

impl Interp {
    /// Names each variable's `.grad` after it (`W.grad`), for the stream
    /// warnings about reading it: a gradient is written on its forward
    /// op's stream.
    fn name_grads(&self) {
        for (name, v) in self.named_values() {
            if let Value::Tensor(t) = v {
                if let Some(g) = meta(t).and_then(|m| m.grad()) {
                    g.label_if_unnamed(&format!("{name}.grad"));
                }
            }
        }
    }

    /// `no_grad { }`: nothing in the block is recorded (restored after, also
    /// after an error or a `break` out of it).
    pub(crate) fn exec_no_grad(&mut self, body: &Block) -> Result<Flow, Diagnostic> {
        let saved = std::mem::replace(&mut self.grad.enabled, false);
        let r = self.exec_block(body);
        self.grad.enabled = saved;
        r
    }

    /// A view or copy of `x` that autograd follows with `backward`.
    pub(crate) fn recorded(
        &self,
        x: &Tensor,
        out: Arc<Tensor>,
        name: &'static str,
        backward: Backward,
    ) -> Arc<Tensor> {
        record::attach_node(&self.rt, self.grad, out, name, backward, &[x])
    }

    /// A copy `out` of `x` (`to`, `clone`, a cast), recorded as `name`
    /// (`Backward::Identity`), its tangent the copy of `x`'s in forward-mode AD.
    pub(crate) fn copied(
        &mut self,
        x: &Tensor,
        out: Arc<Tensor>,
        name: &'static str,
    ) -> Result<Arc<Tensor>, Error> {
        record::copied(&mut self.rt, self.grad, x, out, name)
    }

    /// `parts` of `x` (`chunk`, `split`, `unbind`), recorded as the
    /// outputs of one node, as a tuple.
    pub(crate) fn parts(
        &self,
        x: &Tensor,
        parts: Vec<Arc<Tensor>>,
        node: (&'static str, Backward),
    ) -> Value {
        let parts = record::attach_parts(&self.rt, self.grad, x, parts, node);
        Value::List(Arc::new(parts.into_iter().map(Value::Tensor).collect()))
    }

    /// `x.unbind(dim)`: the slices along `dim`, each without it, the
    /// outputs of one `UnbindBackward0` where `x` requires grad.
    pub(crate) fn unbind(&self, x: &Arc<Tensor>, dim: i64) -> Result<Vec<Value>, Error> {
        let parts = crate::runtime::op::view::unbind(x, dim)?;
        let d = crate::runtime::shape::norm_dim(dim, x.ndim().max(1))?;
        let backward = Backward::Split {
            dim: d,
            sizes: vec![1; parts.len()],
            stacked: true,
        };
        let parts = parts.into_iter().map(Arc::new).collect();
        let parts =
            record::attach_parts(&self.rt, self.grad, x, parts, ("UnbindBackward0", backward));
        Ok(parts.into_iter().map(Value::Tensor).collect())
    }

    /// A tensor's rows as Python iterates them (`for r in x`, `a, b = x`,
    /// `list(x)`, `zip(x, y)`): PyTorch's `Tensor.__iter__` is
    /// `iter(self.unbind(0))`.
    pub(crate) fn rows_of(&self, x: &Arc<Tensor>) -> Result<Vec<Value>, Error> {
        self.unbind(x, 0)
    }

    /// [`Value::elements`] with a tensor's rows as [`Interp::rows_of`]
    /// gives them: what every loop, unpacking and builtin that reads an
    /// iterable's items takes.
    pub(crate) fn elements_of(&self, v: &Value) -> Option<Result<Vec<Value>, Error>> {
        match v {
            Value::Tensor(t) if t.ndim() > 0 => Some(self.rows_of(t)),
            // `enumerate(x)` of a tensor: its rows, numbered.
            Value::Enumerate(e) if matches!(&e.0, Value::Tensor(t) if t.ndim() > 0) => {
                Some(self.elements_of(&e.0)?.map(|rows| {
                    (e.1..)
                        .zip(rows)
                        .map(|(i, r)| Value::List(Arc::new(vec![Value::Int(i), r])))
                        .collect()
                }))
            }
            other => other.elements(),
        }
    }

    /// A reshape of `t`: `ViewBackward0` when it is a view, else
    /// `UnsafeViewBackward0` (PyTorch's names for the two).
    pub(crate) fn reshaped(
        &mut self,
        t: &Arc<Tensor>,
        x: Arc<Tensor>,
    ) -> Result<Arc<Tensor>, Error> {
        crate::autograd::views::reshaped(&mut self.rt, self.grad, t, x)
    }

    /// Whether any of `args` is a tensor that requires grad while ops are recorded.
    pub(crate) fn grad_inputs<'a>(&self, mut args: impl Iterator<Item = &'a Value>) -> bool {
        self.grad.enabled && args.any(any_requires_grad)
    }

    /// After `name` ran on inputs that require grad: each float tensor it
    /// gave that autograd did not record (and that is not an input given
    /// back) is refused, naming the op.
    pub(crate) fn check_recorded<'a>(
        &self,
        name: &str,
        inputs: impl Iterator<Item = &'a Value>,
        out: &Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        if UNTRACKED.contains(&name) {
            return Ok(());
        }
        let ins: Vec<Arc<Tensor>> = inputs.flat_map(tensors).collect();
        for t in tensors(out) {
            let given_back = ins.iter().any(|i| Arc::ptr_eq(i, &t));
            // A view of an input that needs no gradient (`zip(log_probs,
            // returns)` gives rows of `returns`) needs none either.
            let of_plain_input = ins
                .iter()
                .any(|i| t.shares_storage(i) && !crate::autograd::meta::requires_grad(i))
                && !ins
                    .iter()
                    .any(|i| t.shares_storage(i) && crate::autograd::meta::requires_grad(i));
            if t.dtype().is_float() && meta(&t).is_none() && !given_back && !of_plain_input {
                return Err(Error::Autograd {
                    message: format!("cudash cannot differentiate `{name}` yet"),
                    help: "compute it under `no_grad { }`, or on a `.detach()`ed tensor, if no gradient \
                           is needed through it"
                        .into(),
                }
                .at(span));
            }
        }
        Ok(())
    }
}

/// Calls whose results are rightly outside the graph: new tensors that do
/// not depend on the input's values, host reads, and autograd's own.
const UNTRACKED: &[&str] = &[
    "detach",
    // Gradient clipping runs on gradients, under no_grad in PyTorch.
    "clip_grad_norm_",
    "new_full",
    "new_zeros",
    "new_ones",
    "new_empty",
    "new_tensor",
    "item",
    "tolist",
    "save",
    "print",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "rand_like",
    "randn_like",
    "backward",
    "grad",
    "register_hook",
    "register_post_accumulate_grad_hook",
    "requires_grad_",
    "retain_grad",
    "len",
    "list",
];

/// Whether a value is, or holds, a tensor that requires grad (collecting
/// nothing: every builtin and method call asks).
fn any_requires_grad(v: &Value) -> bool {
    match v {
        Value::Tensor(t) => requires_grad(t),
        Value::List(_) | Value::MutList(_) | Value::Dict(_) => {
            v.any_inside(&mut |x| matches!(x, Value::Tensor(t) if requires_grad(t)))
        }
        _ => false,
    }
}

/// Whether a value is a tensor or holds one (in a list, a tuple or a dict).
pub(crate) fn holds_tensor(v: &Value) -> bool {
    matches!(v, Value::Tensor(_)) || v.any_inside(&mut |x| matches!(x, Value::Tensor(_)))
}

/// The tensors in a value (itself, or the items of a list, tuple or dict).
fn tensors(v: &Value) -> Vec<Arc<Tensor>> {
    let mut out = Vec::new();
    v.any_inside(&mut |x| {
        if let Value::Tensor(t) = x {
            out.push(Arc::clone(t));
        }
        false
    });
    out
}

/// Tensors given as one tensor or a list of them (`outputs`, `inputs` of
/// `grad`, `tensors` of `backward`), as PyTorch takes either.
fn tensors_of(
    me: &mut Interp,
    b: &Bound,
    name: &str,
    func: &str,
) -> Result<Vec<Arc<Tensor>>, Diagnostic> {
    match b.given(name) {
        Some((Value::Tensor(t), _)) => Ok(vec![Arc::clone(t)]),
        // A dict's values (`dict(model.named_parameters())`), as PyTorch's.
        Some((Value::Dict(d), span)) => d
            .items()
            .values()
            .map(|v| to_tensor(v).ok_or_else(|| not_a_tensor(func, v).at(*span)))
            .collect(),
        // A tuple or a list (`Value::items`: a list's items as they are now).
        Some((v, span)) if v.items().is_some() => v
            .items()
            .unwrap_or_default()
            .iter()
            .map(|v| to_tensor(v).ok_or_else(|| not_a_tensor(func, v).at(*span)))
            .collect(),
        // An iterator (`model.parameters()`), run to its end.
        Some((v @ Value::Iterator(_), span)) => me
            .items_of(v.clone(), *span)?
            .iter()
            .map(|v| to_tensor(v).ok_or_else(|| not_a_tensor(func, v).at(*span)))
            .collect(),
        Some((v, span)) => Err(Error::wrong_type(
            format!("`{name}` of {func}()"),
            "a tensor or a list of tensors",
            v.type_name(),
        )
        .at(*span)),
        None => Ok(vec![]),
    }
}

fn not_a_tensor(func: &str, v: &Value) -> Error {
    Error::wrong_type(
        format!("an element of the list given to {func}()"),
        "a tensor",
        v.type_name(),
    )
}

/// The gradients given for `n` tensors (`grad_outputs`, `grad_tensors`):
/// none for all, one tensor, or a list with a tensor or none each.
fn gradients_of(b: &Bound, name: &str, n: usize) -> Result<Vec<Option<Arc<Tensor>>>, Diagnostic> {
    let item = |v: &Value, span| match v {
        Value::None => Ok(None),
        v => to_tensor(v).map(Some).ok_or_else(|| {
            Error::wrong_type(
                format!("an element of `{name}`"),
                "a tensor or none",
                v.type_name(),
            )
            .at(span)
        }),
    };
    match b.given(name) {
        None | Some((Value::None, _)) => Ok(vec![None; n]),
        Some((Value::Tensor(t), _)) => Ok(vec![Some(Arc::clone(t))]),
        Some((v, span)) if v.items().is_some() => v
            .items()
            .unwrap_or_default()
            .iter()
            .map(|v| item(v, *span))
            .collect(),
        Some((v, span)) => Err(Error::wrong_type(
            format!("`{name}`"),
            "a tensor, a list of tensors, or none",
            v.type_name(),
        )
        .at(*span)),
    }
}

/// PyTorch's warning for `backward(create_graph=True)` (its engine's, as
/// PyTorch 2.15 prints it): `.grad` then holds a graph that leads back to
/// `.grad`'s own leaf, in cudash as in PyTorch.
const CYCLE: &str = "UserWarning: Using backward() with create_graph=True will create a reference \
                     cycle between the parameter and its gradient which can cause a memory leak. We \
                     recommend using autograd.grad when creating the graph to avoid this. If you \
                     have to use this function, make sure to reset the .grad fields of your \
                     parameters to None after use to break the cycle and avoid the leak.";

/// `retain_graph=none, create_graph=false`: the graph is kept when asked,
/// or by default when a graph is created (PyTorch's default), and while
/// `vmap` runs an element other than its last (its loop calls backward
/// once per element where PyTorch's batched call runs it once).
fn keep(me: &Interp, b: &Bound) -> Result<engine::Keep, Diagnostic> {
    let create = b.bool("create_graph", false)?;
    let retain = match b.given("retain_graph") {
        None | Some((Value::None, _)) => None,
        Some(_) => Some(b.bool("retain_graph", false)?),
    };
    let retain = match me.vmap_retain {
        true => Some(true),
        false => retain,
    };
    Ok(engine::Keep::new(retain, create))
}

/// `backward(tensors, grad_tensors=none, retain_graph=false)`: PyTorch's
/// `torch.autograd.backward`, one backward from several roots.
pub(super) fn backward_of_many(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let roots = tensors_of(me, b, "tensors", "backward")?;
    let gradients = gradients_of(b, "grad_tensors", roots.len())?;
    let keep = keep(me, b)?;
    if keep.create_graph {
        me.warn_once(CYCLE.into());
    }
    let inputs = backward_inputs(me, b)?;
    engine::backward_many(me, &roots, gradients, keep, inputs.as_deref())
        .map_err(|e| e.at_or_where_raised(b.span))?;
    me.name_grads();
    Ok(Value::None)
}

/// `inputs=` of a backward: none (every leaf), or the tensors whose
/// `.grad` it fills (one tensor or a list; an empty list is PyTorch's error).
fn backward_inputs(me: &mut Interp, b: &Bound) -> Result<Option<Vec<Arc<Tensor>>>, Diagnostic> {
    match b.given("inputs") {
        None | Some((Value::None, _)) => Ok(None),
        Some((_, span)) => {
            let inputs = tensors_of(me, b, "inputs", "backward")?;
            if inputs.is_empty() {
                return Err(Error::Autograd {
                    message: "`inputs` argument to `backward()` cannot be empty.".into(),
                    help: "name the tensors whose `.grad` to fill, or leave `inputs` out for \
                           every leaf"
                        .into(),
                }
                .at(*span));
            }
            Ok(Some(inputs))
        }
    }
}

/// `grad(outputs, inputs, grad_outputs=none, retain_graph=false,
/// allow_unused=false)`: PyTorch's `torch.autograd.grad`, the gradients as
/// a list, no `.grad` touched.
pub(super) fn grad_of(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let outputs = tensors_of(me, b, "outputs", "grad")?;
    let inputs = tensors_of(me, b, "inputs", "grad")?;
    if inputs.is_empty() {
        return Err(Error::Autograd {
            message: "`inputs` argument to `grad()` cannot be empty.".into(),
            help: "name the tensors to differentiate with respect to".into(),
        }
        .at(b.span_of("inputs")));
    }
    let gradients = gradients_of(b, "grad_outputs", outputs.len())?;
    let allow_unused = b.bool("allow_unused", false)?;
    let kept = keep(me, b)?;
    let found = engine::grad(me, (&outputs, gradients), &inputs, kept, allow_unused)
        .map_err(|e| e.at_or_where_raised(b.span))?;
    Ok(Value::List(Arc::new(
        found
            .into_iter()
            .map(|g| g.map_or(Value::None, Value::Tensor))
            .collect(),
    )))
}

/// The tensors of a list of parameters (anything else is refused at `span`).
fn parameters(items: &[Value], span: Span) -> Result<Vec<Arc<Tensor>>, Diagnostic> {
    items
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => Ok(Arc::clone(t)),
            other => Err(Error::wrong_type("a parameter", "a tensor", other.type_name()).at(span)),
        })
        .collect()
}

/// A parameter group read from its dict: its settings, its parameters, and
/// the program's own keys.
type Group = (
    Kind,
    Vec<Arc<Tensor>>,
    Vec<(String, crate::autograd::hook_list::HookFn)>,
);

/// A parameter group as a dict (`{"params": [...], "lr": 0.01}`): its
/// settings over `kind`'s, its parameters, and the program's own keys, as
/// the constructor and `add_param_group` read one.
fn parameter_group(
    me: &mut Interp,
    kind: &Kind,
    item: &Value,
    span: Span,
) -> Result<Group, Diagnostic> {
    let tensors = |items: &[Value]| parameters(items, span);
    let Value::Dict(pairs) = item else {
        return Err(Error::wrong_type(
            "a parameter group",
            "a dict like {\"params\": [...], \"lr\": 0.01}",
            item.type_name(),
        )
        .at(span));
    };
    let mut group_kind = kind.clone();
    let mut params = None;
    let mut own = Vec::new();
    for (k, v) in pairs.items().iter() {
        if k == "params" {
            params = Some(match v {
                Value::Tensor(t) => vec![Arc::clone(t)],
                v => match v.elements() {
                    Some(Ok(items)) => tensors(&items)?,
                    _ => {
                        return Err(Error::wrong_type(
                            "a group's params",
                            "a list of tensors",
                            v.type_name(),
                        )
                        .at(span))
                    }
                },
            });
            continue;
        }
        // A key of the program's (`"name": "enc"`): kept as given,
        // as PyTorch keeps any key; another optimizer's setting
        // (`momentum` for Adam) is kept too, and said to do
        // nothing, which PyTorch leaves unsaid.
        let name = k.to_string();
        if !group_kind.keys().contains(&name.as_str()) {
            if OTHER_OPTIMIZERS_SETTINGS.contains(&name.as_str()) {
                me.warn_once(format!(
                    "a parameter group of {} sets {name:?}, which it does not \
                     use (another optimizer's setting); the group keeps the key, \
                     as PyTorch's does",
                    group_kind.name()
                ));
            }
            own.push((name, super::param_group::hold(v)));
            continue;
        }
        let setting = super::param_group::setting_of(v).ok_or_else(|| {
            Error::wrong_type(
                format!("the group's {}", k.repr()),
                "a number",
                v.type_name(),
            )
            .at(span)
        })?;
        group_kind
            .set(&k.to_string(), setting)
            .map_err(|m| Error::value(m).at(span))?;
    }
    let params = params.ok_or_else(|| {
        Error::value(
            "parameter group didn't specify a value of required optimization parameter params",
        )
        .at(span)
    })?;
    Ok((group_kind, params, own))
}

/// `opt.add_param_group({"params": [...], "lr": 0.01})`: a group of new
/// parameters, its unset settings the constructor's (`opt.defaults`), as
/// PyTorch's (fine-tuning adds the layers it unfreezes this way).
pub(super) fn add_param_group(
    me: &mut Interp,
    _: &'static str,
    o: &Arc<Mutex<Optimizer>>,
    b: &Bound,
) -> Out {
    let (group, span) = b
        .get("param_group")
        .cloned()
        .ok_or_else(|| Error::value("add_param_group() takes a dict").at(b.span))?;
    if !matches!(group, Value::Dict(_)) {
        return Err(Error::Module {
            class: "TypeError",
            // (The call's arguments hold a list as a sequence, which
            // reads as a tuple: a list is what programs pass.)
            message: format!(
                "param_group must be a dict, but got <class '{}'>",
                match &group {
                    Value::List(_) | Value::MutList(_) => "list".into(),
                    other => super::format::python_type(other),
                }
            ),
            help: None,
        }
        .at(span));
    }
    let defaults = lock(o).defaults.clone();
    let (mut kind, params, own) = parameter_group(me, &defaults, &group, span)?;
    // A group's ints stay ints, as the constructor's.
    kind.mark_whole(|key| match &group {
        Value::Dict(d) => d.get(&Key::from(key)).map(|v| matches!(v, Value::Int(_))),
        _ => None,
    });
    lock(o)
        .add_group(&mut me.rt, kind, params, own)
        .map_err(|e| e.at(span))?;
    Ok(Value::None)
}

/// `opt.defaults`: the constructor's settings, as PyTorch's dict.
pub(super) fn defaults(o: &Arc<Mutex<Optimizer>>) -> Value {
    let settings = lock(o).defaults.settings();
    let pairs = settings
        .into_iter()
        .map(|(k, v)| (Key::from(k), super::param_group::setting_value(v)));
    Value::Dict(super::value::PyDict::new(pairs.collect()))
}
