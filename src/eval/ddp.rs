//! `DistributedDataParallel` as `torch.nn.parallel.distributed` has it,
//! the interpreter's side: construction (rank 0's parameters and buffers
//! broadcast to every rank, the reducer made: `nn/ddp/`), the forward
//! (the last reduction checked, the buckets rebuilt after the first
//! backward, buffers broadcast, inputs moved to `device_ids[0]`, the
//! reducer readied for the backward), and `no_sync`.

use crate::eval::value::PyDict;
use std::sync::Arc;

use super::args::{ArgVal, Bound};
use super::value::Value;
use super::Interp;
use crate::error::{Diagnostic, Error};
use crate::lang::ast::Block;
use crate::lang::Span;
use crate::nn::ddp::buckets::{DEFAULT_CAP_BYTES, FIRST_BUCKET_BYTES};
use crate::nn::ddp::reducer::{Reducer, ReducerRef, Shared};
use crate::nn::layer::Layer;
use crate::nn::module::{named_buffers, named_parameters};
use crate::nn::{Module, ModuleRef};
use crate::runtime::dispatch::world::Collective;
use crate::runtime::lock::lock;
use crate::runtime::op::view;
use crate::runtime::{Device, Tensor};

type Out<T = Value> = Result<T, Diagnostic>;

/// PyTorch's `_DEFAULT_BUCKET_CAP_MB`... for the broadcast of the module's
/// states at construction: 250 MiB buckets (`broadcast_bucket_size`).
const BROADCAST_BUCKET_BYTES: usize = 250 * 1024 * 1024;

/// `DistributedDataParallel(module, device_ids=none, output_device=none,
/// dim=0, broadcast_buffers=true, bucket_cap_mb=none,
/// find_unused_parameters=false, gradient_as_bucket_view=false,
/// static_graph=false)`.
pub(super) fn distributed_data_parallel(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let at = |e: Error| e.at(b.span);
    let module = match b.get("module") {
        Some((Value::Module(m), _)) => Arc::clone(m),
        Some((v, span)) => {
            return Err(Error::wrong_type(
                "the module of DistributedDataParallel",
                "a module",
                v.type_name(),
            )
            .at(*span))
        }
        None => return Err(Error::value("DistributedDataParallel needs a module").at(b.span)),
    };
    let (rank, size) = me.rt.process_group().map_err(at)?;
    for option in ["gradient_as_bucket_view", "static_graph"] {
        if b.bool(option, false)? {
            return Err(Error::NotAvailable {
                message: format!("cudash's DistributedDataParallel has no {option}=true yet"),
                help: "leave it at its default (false): the gradients are copied into the \
                       buckets and back, as PyTorch's default does"
                    .into(),
            }
            .at(b.span_of(option)));
        }
    }
    let device_ids = device_ids(me, b)?;
    let named: Vec<(String, Arc<Tensor>)> = named_parameters(&module, true)
        .into_iter()
        .filter(|(_, p)| crate::autograd::meta::requires_grad(p))
        .collect();
    if named.is_empty() {
        return Err(Error::value(
            "DistributedDataParallel is not needed when a module doesn't have any parameter that \
             requires a gradient.",
        )
        .at(b.span));
    }
    let mut devices: Vec<Device> = named.iter().map(|(_, p)| p.device()).collect();
    devices.sort_by_key(|d| format!("{d}"));
    devices.dedup();
    if devices.len() > 1 && !device_ids.is_empty() {
        return Err(Error::value(format!(
            "DistributedDataParallel device_ids and output_device arguments only work with \
             single-device/multiple-device GPU modules or CPU modules, but got device_ids {:?}, \
             and module parameters on {}.",
            device_ids,
            devices
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .at(b.span_of("device_ids")));
    }
    let cap = match b.float("bucket_cap_mb")? {
        Some(mb) if mb > 0.0 => Some((mb * 1024.0 * 1024.0) as usize),
        Some(mb) => {
            return Err(
                Error::value(format!("bucket_cap_mb is a size in MiB, not {mb}"))
                    .at(b.span_of("bucket_cap_mb")),
            )
        }
        None => None,
    };
    let caps = match cap {
        Some(c) => (c, c),
        None => (FIRST_BUCKET_BYTES, DEFAULT_CAP_BYTES),
    };
    let find_unused = b.bool("find_unused_parameters", false)?;
    let broadcast_buffers = b.bool("broadcast_buffers", true)?;
    // `_sync_module_states`: every rank starts from rank 0's values.
    me.begin_op("broadcast");
    let states: Vec<Arc<Tensor>> = module_states(&module);
    me.broadcast_coalesced(&states, BROADCAST_BUCKET_BYTES, b.span)?;
    me.begin_op("DistributedDataParallel");
    let (names, params): (Vec<String>, Vec<Arc<Tensor>>) = named.into_iter().unzip();
    let reducer =
        Reducer::new(&mut me.rt, (params, names), (rank, size), find_unused, caps).map_err(at)?;
    let layer = Layer::DistributedDataParallel {
        device_ids,
        reducer: Shared(reducer),
        broadcast_buffers,
    };
    let mut ddp = Module::new("DistributedDataParallel", layer);
    ddp.set_module("module", Some(module)).map_err(at)?;
    Ok(Value::Module(ddp.into_ref()))
}

/// `device_ids`: none, or one CUDA device (a number or a device).
fn device_ids(me: &Interp, b: &Bound) -> Out<Vec<u32>> {
    let Some((v, span)) = b.given("device_ids") else {
        return Ok(Vec::new());
    };
    let items: Vec<Value> = match v {
        Value::None => return Ok(Vec::new()),
        Value::Tensor(t) if t.ndim() == 1 && !t.device().is_cuda() => {
            t.to_vec::<i64>().into_iter().map(Value::Int).collect()
        }
        v => v.items().map(|xs| xs.to_vec()).ok_or_else(|| {
            Error::wrong_type("device_ids", "a list of one device", v.type_name()).at(*span)
        })?,
    };
    if items.len() > 1 {
        return Err(Error::value_help(
            "device_ids can only be None or contain a single element.",
            "DDP takes one device per process: `device_ids=[rank]`",
        )
        .at(*span));
    }
    let count = me.rt.devices.count();
    items
        .iter()
        .map(|v| super::parallel::device_index(v, count).map_err(|e| e.at(*span)))
        .collect()
}

/// The module's parameters and buffers, in PyTorch's order.
fn module_states(m: &ModuleRef) -> Vec<Arc<Tensor>> {
    let params = named_parameters(m, true).into_iter().map(|(_, t)| t);
    let buffers = named_buffers(m, true).into_iter().map(|(_, t)| t);
    params.chain(buffers).collect()
}

impl Interp {
    /// PyTorch's `_broadcast_coalesced(group, tensors, bucket_size, src=0)`:
    /// the tensors flattened into buckets (by dtype and device, closing
    /// at `bucket_bytes`), each bucket broadcast from rank 0, and copied
    /// back into the tensors on the other ranks.
    fn broadcast_coalesced(
        &mut self,
        tensors: &[Arc<Tensor>],
        bucket_bytes: usize,
        span: Span,
    ) -> Out<()> {
        let at = |e: Error| e.at(span);
        let (rank, _) = self.rt.process_group().map_err(at)?;
        let slots: Vec<crate::nn::ddp::buckets::Slot> = tensors
            .iter()
            .map(|t| crate::nn::ddp::buckets::Slot {
                bytes: t.nbytes(),
                dtype: t.dtype(),
                device: t.device(),
            })
            .collect();
        let order: Vec<usize> = (0..tensors.len()).collect();
        let buckets = crate::nn::ddp::buckets::assign(&slots, &order, &[bucket_bytes], true);
        let line = self.line_of(span);
        for (indices, _) in buckets {
            let flats: Vec<Tensor> = indices
                .iter()
                .map(|&i| flat_view(&tensors[i]))
                .collect::<Result<_, _>>()
                .map_err(at)?;
            let refs: Vec<&Tensor> = flats.iter().collect();
            let flat = self.rt.join(&refs, 0, false).map_err(at)?;
            self.rt
                .collective(
                    Collective::Broadcast { src: 0 },
                    Some(&flat),
                    &[],
                    false,
                    line,
                )
                .map_err(at)?;
            if rank == 0 {
                continue;
            }
            let mut offset = 0;
            for &i in &indices {
                let t = &tensors[i];
                let part =
                    crate::runtime::op::index::narrow(&flat, 0, offset, t.numel()).map_err(at)?;
                let dims: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
                let part = view::view(&part, &dims).map_err(at)?;
                self.rt.assign(t, &part).map_err(at)?;
                offset += t.numel();
            }
        }
        Ok(())
    }

    /// `model(x)` of a `DistributedDataParallel`.
    pub(crate) fn ddp_forward(&mut self, m: &ModuleRef, args: Vec<ArgVal>, span: Span) -> Out {
        let at = |e: Error| e.at(span);
        let (layer, module) = {
            let ddp = lock(m);
            let module = ddp.children().into_iter().find(|(n, _)| n == "module");
            (ddp.layer.clone(), module.map(|(_, c)| c))
        };
        let Layer::DistributedDataParallel {
            device_ids,
            reducer,
            broadcast_buffers,
        } = layer
        else {
            unreachable!("called for a DistributedDataParallel");
        };
        let Some(module) = module else {
            return Err(Error::value("this DistributedDataParallel has no `module`").at(span));
        };
        let reducer: ReducerRef = reducer.0;
        let sync = lock(&reducer).sync;
        if self.grad.enabled && sync {
            lock(&reducer).before_forward(&mut self.rt).map_err(at)?;
        }
        let (_, size) = self.rt.process_group().map_err(at)?;
        if broadcast_buffers && size > 1 {
            let buffers: Vec<Arc<Tensor>> = named_buffers(&module, true)
                .into_iter()
                .map(|(_, t)| t)
                .collect();
            if !buffers.is_empty() {
                self.begin_op("broadcast");
                self.broadcast_coalesced(&buffers, BROADCAST_BUCKET_BYTES, span)?;
            }
        }
        let args = match device_ids.first() {
            Some(&d) => self.moved_to(args, Device::Cuda(d), span)?,
            None => args,
        };
        let out = self.call_module(&module, args, span)?;
        if self.grad.enabled && sync {
            let mut r = lock(&reducer);
            let outputs = match r.find_unused {
                true => {
                    let mut ts = Vec::new();
                    out.any_inside(&mut |v| {
                        if let Value::Tensor(t) = v {
                            ts.push(Arc::clone(t));
                        }
                        false
                    });
                    ts
                }
                false => Vec::new(),
            };
            r.prepare_for_backward(&outputs);
        }
        Ok(out)
    }

    /// The tensors among `args` on `device` (`_to_kwargs`' move of the
    /// inputs to `device_ids[0]`).
    fn moved_to(&mut self, args: Vec<ArgVal>, device: Device, span: Span) -> Out<Vec<ArgVal>> {
        args.into_iter()
            .map(|mut a| {
                if let Value::Tensor(t) = &a.value {
                    if t.device() != device {
                        let moved = self.rt.copy_to(t, device).map_err(|e| e.at(span))?;
                        let backward = crate::autograd::node::Backward::Identity;
                        a.value =
                            Value::Tensor(self.recorded(t, moved, "ToCopyBackward0", backward));
                    }
                }
                Ok(a)
            })
            .collect()
    }

    /// `with model.no_sync() { }`: backward in the block accumulates each
    /// rank's gradients without reducing them.
    pub(super) fn with_no_sync(
        &mut self,
        m: &ModuleRef,
        body: &Block,
    ) -> Result<super::flow::Flow, Diagnostic> {
        let reducer = match &lock(m).layer {
            Layer::DistributedDataParallel { reducer, .. } => Arc::clone(&reducer.0),
            _ => unreachable!("no_sync is a DistributedDataParallel's"),
        };
        let saved = std::mem::replace(&mut lock(&reducer).sync, false);
        let r = self.exec_block(body);
        lock(&reducer).sync = saved;
        r
    }
}

/// `t` as one flat row (a copy only when it is not contiguous).
fn flat_view(t: &Tensor) -> Result<Tensor, Error> {
    match t.is_contiguous() {
        true => view::view(t, &[-1]),
        false => Ok(Tensor::new(
            t.contiguous_buffer(),
            vec![t.numel()],
            t.device(),
        )),
    }
}

/// `model.no_sync()`, `model._get_ddp_logging_data()`.
pub(super) fn method(_: &mut Interp, name: &'static str, m: &ModuleRef, b: &Bound) -> Out {
    if name == "_get_ddp_logging_data" {
        return logging_data(m, b.span);
    }
    match &lock(m).layer {
        Layer::DistributedDataParallel { .. } => Ok(Value::NoSync(Arc::clone(m))),
        _ => Err(Error::value("no_sync() is a method of DistributedDataParallel").at(b.span)),
    }
}

/// `model._get_ddp_logging_data()`: the reducer's figures under PyTorch's
/// keys (those cudash has).
fn logging_data(m: &ModuleRef, span: Span) -> Out {
    let reducer = match &lock(m).layer {
        Layer::DistributedDataParallel { reducer, .. } => Arc::clone(&reducer.0),
        _ => {
            return Err(Error::value(
                "_get_ddp_logging_data() is a method of DistributedDataParallel",
            )
            .at(span))
        }
    };
    let r = lock(&reducer);
    let sizes = |r: &Reducer| {
        r.buckets
            .iter()
            .map(|b| b.bytes().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let indices = r
        .buckets
        .iter()
        .map(|b| {
            b.params
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(", ");
    let s = |x: String| Value::Str(Arc::new(x));
    use super::value::Key;
    let mut d = vec![
        (
            Key::Str("world_size".into()),
            Value::Int(r.world_size as i64),
        ),
        (Key::Str("rank".into()), Value::Int(r.rank as i64)),
        (
            Key::Str("find_unused_parameters".into()),
            Value::Int(r.find_unused as i64),
        ),
        (
            Key::Str("num_parameter_tensors".into()),
            Value::Int(r.params.len() as i64),
        ),
        (
            Key::Str("has_rebuilt_buckets".into()),
            Value::Int(r.has_rebuilt as i64),
        ),
        (
            Key::Str("num_buckets_reduced".into()),
            Value::Int(r.buckets_reduced as i64),
        ),
    ];
    let key = match r.has_rebuilt {
        true => "rebuilt_bucket_sizes",
        false => "bucket_sizes",
    };
    d.push((Key::Str(key.into()), s(sizes(&r))));
    if r.has_rebuilt {
        d.push((
            Key::Str("rebuilt_per_bucket_param_indices".into()),
            s(indices),
        ));
    }
    Ok(Value::Dict(PyDict::new(d)))
}
