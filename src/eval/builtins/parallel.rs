//! `DataParallel(module, device_ids, output_device, dim)` and the steps a
//! lesson takes it apart into, under `torch.nn.parallel`'s names:
//! `replicate(module, devices)` and `parallel_apply(modules, inputs)`
//! (`scatter` and `gather` are in `devices.rs`). The work is in
//! `eval/parallel.rs`.

use crate::eval::value::PyDict;
use std::sync::Arc;

use super::super::args::{ArgVal, Bound};
use super::super::methods::module::module_to;
use super::super::parallel::{device_ids, device_index};
use super::super::{Interp, Value};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::layer::Layer;
use crate::nn::{Module, ModuleRef};
use crate::runtime::{Device, Tensor};

type Out = Result<Value, Diagnostic>;

/// The items of a sequence argument (a list, a tuple, a tensor's rows).
fn items(b: &Bound, name: &str) -> Result<Vec<(Value, Span)>, Diagnostic> {
    match b.get(name) {
        Some((v, span)) => match v.items() {
            Some(items) => Ok(items.iter().map(|v| (v.clone(), *span)).collect()),
            None => b.list(name),
        },
        None => b.list(name),
    }
}

fn module_arg(b: &Bound, name: &str, func: &str) -> Result<ModuleRef, Diagnostic> {
    match b.get(name) {
        Some((Value::Module(m), _)) => Ok(Arc::clone(m)),
        Some((v, span)) => Err(Error::wrong_type(
            format!("argument `{name}` of {func}"),
            "a module",
            v.type_name(),
        )
        .at(*span)),
        None => Err(Error::value(format!("{func} needs a module")).at(b.span)),
    }
}

/// `DataParallel(module, device_ids=none, output_device=none, dim=0)`:
/// every CUDA device by default; the output on `device_ids[0]` unless
/// `output_device` says otherwise. With one device, the module moves
/// there (PyTorch's `module.cuda(device_ids[0])`); with none, the wrapper
/// calls the module as it is.
pub(super) fn data_parallel(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let module = module_arg(b, "module", "DataParallel")?;
    let dim = b.int("dim")?.unwrap_or(0);
    let count = me.rt.devices.count();
    let (ids, output) = match count {
        0 => (Vec::new(), 0),
        _ => {
            let ids = match b.given("device_ids") {
                Some(_) => device_ids(&items(b, "device_ids")?, count)?,
                None => (0..count).collect(),
            };
            let Some(&first) = ids.first() else {
                return Err(Error::value_help(
                    "device_ids is empty",
                    "list at least one CUDA device (`device_ids=[0, 1]`), or leave it out for all of them",
                )
                .at(b.span_of("device_ids")));
            };
            let output = match b.given("output_device") {
                Some((v, s)) => device_index(v, count).map_err(|e| e.at(*s))?,
                None => first,
            };
            (ids, output)
        }
    };
    if let [only] = ids.as_slice() {
        module_to(
            me,
            "cuda",
            &module,
            (Some(Device::Cuda(*only)), None, None),
            b.span,
        )?;
    }
    let layer = Layer::DataParallel {
        device_ids: ids,
        output_device: output,
        dim,
    };
    let mut dp = Module::new("DataParallel", layer);
    dp.set_module("module", Some(module))
        .map_err(|e| e.at(b.span))?;
    Ok(Value::Module(dp.into_ref()))
}

/// `replicate(module, devices)` (`torch.nn.parallel.replicate`): one
/// replica per device, whose parameters come from the module's through
/// one `BroadcastBackward`; `replicate(tensor, devices)` copies a tensor.
pub(super) fn replicate_module(me: &mut Interp, m: &ModuleRef, b: &Bound) -> Out {
    let devices = device_ids(&items(b, "devices")?, me.rt.devices.count())?;
    if devices.is_empty() {
        return Ok(Value::list(Vec::new()));
    }
    let replicas = me.replicate_module(m, &devices, b.span)?;
    Ok(Value::list(
        replicas.into_iter().map(Value::Module).collect(),
    ))
}

/// `parallel_apply(modules, inputs, kwargs_tup=none, devices=none)`:
/// module i called on inputs i (a tuple of arguments, or one), with
/// device i current, each in a thread of its own; their outputs.
pub(super) fn parallel_apply(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let modules = items(b, "modules")?;
    let inputs = items(b, "inputs")?;
    one_per_module(modules.len(), inputs.len(), "inputs", b)?;
    let kwargs = match b.given("kwargs_tup") {
        Some(_) => items(b, "kwargs_tup")?,
        None => vec![(Value::Dict(PyDict::default()), b.span); modules.len()],
    };
    one_per_module(modules.len(), kwargs.len(), "keyword dicts", b)?;
    let count = me.rt.devices.count();
    let given = match b.given("devices") {
        Some(_) => Some(device_ids(&items(b, "devices")?, count)?),
        None => None,
    };
    if let Some(d) = &given {
        one_per_module(modules.len(), d.len(), "devices", b)?;
    }
    let mut replicas = Vec::with_capacity(modules.len());
    let mut args = Vec::with_capacity(modules.len());
    let mut devices = Vec::with_capacity(modules.len());
    for (i, ((m, ms), ((input, is), (kw, ks)))) in modules
        .into_iter()
        .zip(inputs.into_iter().zip(kwargs))
        .enumerate()
    {
        let Value::Module(m) = m else {
            return Err(Error::wrong_type("a replica", "a module", m.type_name()).at(ms));
        };
        let mut call: Vec<ArgVal> = match input.items() {
            Some(items) if !matches!(input, Value::Tensor(_)) => items
                .iter()
                .map(|v| ArgVal {
                    keyword: None,
                    value: v.clone(),
                    span: is,
                })
                .collect(),
            _ => vec![ArgVal {
                keyword: None,
                value: input.clone(),
                span: is,
            }],
        };
        match kw {
            Value::Dict(entries) => {
                for (k, v) in entries.items().iter() {
                    call.push(ArgVal {
                        keyword: Some(crate::lang::ast::Name::new(k.to_string(), ks)),
                        value: v.clone(),
                        span: ks,
                    });
                }
            }
            other => {
                return Err(
                    Error::wrong_type("a replica's keywords", "a dict", other.type_name()).at(ks),
                )
            }
        }
        let device = match &given {
            Some(d) => d[i],
            None => match first_cuda(&call) {
                Some(d) => d,
                None => {
                    return Err(assertion(format!(
                        "in replica {i}, no device was provided and no tensor input was found; \
                         device cannot be resolved"
                    ))
                    .at(is))
                }
            },
        };
        replicas.push(m);
        args.push(call);
        devices.push(device);
    }
    let outputs = me.parallel_apply(replicas, args, devices, b.span)?;
    Ok(Value::list(outputs))
}

/// The CUDA device of the first tensor among the arguments (PyTorch's
/// `get_a_var`).
fn first_cuda(args: &[ArgVal]) -> Option<u32> {
    let mut found = None;
    for a in args {
        a.value.each_tensor(&mut |t: &Tensor| {
            if found.is_none() {
                if let Device::Cuda(d) = t.device() {
                    found = Some(d);
                }
            }
        });
    }
    found
}

/// PyTorch's assertion that `parallel_apply` has one of `what` per module.
fn one_per_module(modules: usize, n: usize, what: &str, b: &Bound) -> Result<(), Diagnostic> {
    match modules == n {
        true => Ok(()),
        false => Err(assertion(format!(
            "The number of modules {modules} is not equal to the number of {what} {n}"
        ))
        .at(b.span)),
    }
}

fn assertion(message: String) -> Error {
    Error::Module {
        class: "AssertionError",
        message,
        help: None,
    }
}

/// Whether `v` is a module (`replicate`'s module form).
pub(super) fn as_module(b: &Bound) -> Option<ModuleRef> {
    match b.get("input") {
        Some((Value::Module(m), _)) => Some(Arc::clone(m)),
        _ => None,
    }
}
