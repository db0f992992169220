//! PyTorch's lazy modules (`nn.LazyLinear`, `nn.LazyConv1d`/`2d`,
//! `nn.LazyBatchNorm1d`/`2d`/`3d`): a layer whose input size is left out,
//! made at its first forward from the input's shape, as
//! `torch/nn/modules/lazy.py` does it.
//!
//! Made (`lazy_module`, for `builtins/lazy.rs`): the layer with a size of
//! 0, so it prints as
//! PyTorch's (`LazyLinear(in_features=0, out_features=10, bias=True)`),
//! its parameters and running statistics replaced by uninitialized ones
//! (`<UninitializedParameter>`, no elements) of its dtype and device. No
//! random number is drawn, as PyTorch's lazy constructors draw none.
//!
//! At the first call, before any forward pre-hook (PyTorch's
//! `_infer_parameters` is the first one a lazy module registers), the
//! layer is made with the input's size (its `reset_parameters` draws, so
//! the same numbers as PyTorch's), and each uninitialized tensor is given
//! its elements by `set_data`: the same objects, so an optimizer made
//! before the first forward steps them. The module is then the layer
//! (`Linear(in_features=784, ...)`), as PyTorch's `cls_to_become`.

use std::sync::Arc;

use super::args::ArgVal;
use super::docs::{Doc, Kind, DOCS};
use super::{Interp, Value};
use crate::autograd::meta;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Name;
use crate::lang::Span;
use crate::nn::ModuleRef;
use crate::runtime::buffer::Buffer;
use crate::runtime::lock::lock;
use crate::runtime::{DType, Device, Tensor};

/// How a lazy module makes its layer: the layer's constructor, the name
/// of the size the input gives, and the other settings, as given.
struct LazyInit {
    class: &'static Doc,
    size_name: String,
    settings: Vec<ArgVal>,
}

/// The constructor of layer `class`.
fn constructor(class: &str) -> Option<&'static Doc> {
    DOCS.iter()
        .find(|d| d.name == class && d.kind == Kind::Function)
}

fn keyword(name: &str, value: Value, span: Span) -> ArgVal {
    ArgVal {
        keyword: Some(Name::new(name.to_string(), span)),
        value,
        span,
    }
}

impl Interp {
    /// A lazy `class` (`Linear`, `Conv2d`, `BatchNorm2d`) of `settings`
    /// (keywords of its constructor), `size_name` left for the first input.
    pub(crate) fn lazy_module(
        &mut self,
        class: &str,
        size_name: &str,
        settings: Vec<ArgVal>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let size_name = size_name.to_string();
        let doc =
            constructor(class).ok_or_else(|| Error::value(format!("no layer {class}")).at(span))?;
        // The layer with a size of 0, drawing nothing (its draws undone).
        let mut made = settings.clone();
        made.push(keyword(&size_name, Value::Int(0), span));
        let saved = self.rt.generators.clone();
        let layer = self.call_builtin(doc, made, span);
        self.rt.generators = saved;
        let Value::Module(m) = layer? else {
            return Err(Error::value(format!("{class} made no module")).at(span));
        };
        {
            let mut module = lock(&m);
            for (_, p) in module.parameters.iter_mut() {
                if let Some(t) = p {
                    let empty = self.empty_of(t).map_err(|e| e.at(span))?;
                    *t = Arc::new(meta::uninitialized(&empty, true, meta::requires_grad(t)));
                }
            }
            for b in module.buffers.iter_mut() {
                let Some(t) = &b.tensor else { continue };
                // `num_batches_tracked` is a number from the start.
                if b.name != "num_batches_tracked" {
                    let empty = self.empty_of(t).map_err(|e| e.at(span))?;
                    b.tensor = Some(Arc::new(meta::uninitialized(&empty, false, false)));
                }
            }
            module.type_name = format!("Lazy{class}").into();
            module.lazy = Some(Arc::new(LazyInit {
                class: doc,
                size_name,
                settings,
            }));
        }
        Ok(Value::Module(m))
    }

    /// A lazy module's layer made from its first input (`args`), before
    /// its first forward; nothing for any other module.
    pub(crate) fn materialize_lazy(
        &mut self,
        m: &ModuleRef,
        args: &[ArgVal],
        span: Span,
    ) -> Result<(), Diagnostic> {
        let Some(init) = lock(m).lazy.clone() else {
            return Ok(());
        };
        let Some(init) = init.downcast_ref::<LazyInit>() else {
            return Ok(());
        };
        let x = match args.iter().find(|a| a.keyword.is_none()).map(|a| &a.value) {
            Some(Value::Tensor(x)) => Arc::clone(x),
            _ => {
                return Err(Error::type_error(format!(
                    "a lazy {}'s first call takes the input tensor, whose shape gives its size",
                    init.class.name
                ))
                .at(span))
            }
        };
        let size = input_size(init.class.name, &x).map_err(|e| e.at(span))?;
        // Made where its tensors are now (`.to()` may have moved them).
        let (device, dtype) = {
            let module = lock(m);
            let first = module.parameters.iter().find_map(|(_, p)| p.clone());
            match first {
                Some(t) => (t.device(), t.dtype()),
                None => (x.device(), x.dtype()),
            }
        };
        let mut made: Vec<ArgVal> = init
            .settings
            .iter()
            .filter(|a| {
                !matches!(
                    a.keyword.as_ref().map(|n| n.name.as_str()),
                    Some("device" | "dtype")
                )
            })
            .cloned()
            .collect();
        made.push(keyword(&init.size_name, Value::Int(size as i64), span));
        made.push(keyword(
            "device",
            Value::Device(super::value::Word::new(device)),
            span,
        ));
        made.push(keyword(
            "dtype",
            Value::DType(super::value::Word::new(dtype)),
            span,
        ));
        let Value::Module(real) = self.call_builtin(init.class, made, span)? else {
            return Err(Error::value("the lazy module's layer was not made").at(span));
        };
        let real = lock(&real);
        let mut module = lock(m);
        for (name, p) in module.parameters.iter() {
            if let (Some(t), Some(new)) = (p, real.tensor_named(name)) {
                self.rt.set_data(t, new).map_err(|e| e.at(span))?;
                meta::set_initialized(t);
            }
        }
        for b in module.buffers.iter() {
            let new = real.buffers.iter().find(|r| r.name == b.name);
            if let (Some(t), Some(new)) = (&b.tensor, new.and_then(|r| r.tensor.clone())) {
                if meta::is_uninitialized(t) {
                    self.rt.set_data(t, new).map_err(|e| e.at(span))?;
                    meta::set_initialized(t);
                }
            }
        }
        module.layer = real.layer.clone();
        module.type_name = Arc::clone(&real.type_name);
        module.lazy = None;
        Ok(())
    }
}

impl Interp {
    /// A new tensor of no elements (no memory) of `t`'s dtype and device:
    /// not a view of `t`, which would keep `t`'s memory.
    fn empty_of(&mut self, t: &Tensor) -> Result<Tensor, Error> {
        self.empty_on(t.dtype(), t.device())
    }

    /// A new tensor of no elements (it takes no memory) on `device`.
    pub(crate) fn empty_on(&mut self, dtype: DType, device: Device) -> Result<Tensor, Error> {
        let empty = Tensor::new(Buffer::zeros(dtype, 0), vec![0], Device::Cpu);
        let placed = self.rt.move_to(&Arc::new(empty), device)?;
        Ok(placed.alias())
    }
}

/// The size the input gives a lazy `class`: the last dimension for
/// `Linear`, the channels for a convolution (dimension 1 of a batch, 0 of
/// one unbatched input) and a batch norm, as PyTorch's
/// `initialize_parameters`.
fn input_size(class: &str, x: &Tensor) -> Result<usize, Error> {
    let dims = x.shape();
    let at = match class {
        "Linear" => dims.len().checked_sub(1),
        "Conv1d" => Some(usize::from(dims.len() == 3)),
        "Conv2d" => Some(usize::from(dims.len() == 4)),
        _ => Some(1),
    };
    at.and_then(|k| dims.get(k).copied()).ok_or_else(|| {
        Error::shape(format!(
            "a lazy {class} cannot take its size from an input of shape {}",
            crate::runtime::shape::fmt_shape(dims)
        ))
    })
}

/// `model.has_uninitialized_params()`: a lazy module's, before its first
/// call (PyTorch's `LazyModuleMixin` method; a module made already is its
/// layer, which has none).
pub(crate) fn has_uninitialized_params(
    _: &mut Interp,
    _: &'static str,
    m: &ModuleRef,
    b: &super::args::Bound,
) -> Result<Value, Diagnostic> {
    let module = lock(m);
    if module.lazy.is_none() {
        return Err(Error::Module {
            class: "AttributeError",
            message: format!(
                "'{}' object has no attribute 'has_uninitialized_params'",
                module.type_name
            ),
            help: Some("a lazy module's own method: its first call made it its layer".into()),
        }
        .at(b.span));
    }
    let params = module.parameters.iter().filter_map(|(_, p)| p.as_deref());
    let buffers = module.buffers.iter().filter_map(|b| b.tensor.as_deref());
    Ok(Value::bool(
        params.chain(buffers).any(meta::is_uninitialized),
    ))
}
