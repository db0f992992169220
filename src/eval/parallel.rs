//! `DataParallel` and its steps, as `torch.nn.parallel` has them: each
//! call of the wrapper replicates the module onto its devices, scatters
//! the inputs along `dim`, runs each replica's forward in a thread of its
//! own (`parallel_apply`), and gathers the outputs on `output_device`.
//!
//! The replicas' threads share one host, as PyTorch's share one Python
//! interpreter: a thread runs only while it holds the GIL (`Gil`), which
//! goes round the replicas in turn at each op (a PyTorch op lets go of the
//! GIL while its C++ part runs, and the next thread waiting takes it). The
//! session's runtime goes with the GIL, so the replicas' work is issued
//! from the one host lane, shows in the session's `profile`, and comes in
//! the same order on every run.

use crate::eval::value::PyDict;
use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex};

use super::args::ArgVal;
use super::value::{Key, Object};
use super::{Interp, Output, Value};
use crate::autograd::coalesced;
use crate::autograd::node::Backward;
use crate::autograd::record;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::nn::layer::Layer;
use crate::nn::parallel::{parameters_and_buffers, replicate};
use crate::nn::ModuleRef;
use crate::runtime::dispatch::Runtime;
use crate::runtime::lock::lock;
use crate::runtime::op::index;
use crate::runtime::shape::norm_dim;
use crate::runtime::{Device, Tensor};

type Out<T> = Result<T, Diagnostic>;

/// The host's one interpreter lock, passed round the replicas' threads.
pub(crate) struct Gil {
    state: Mutex<Turns>,
    /// One per replica: the replica whose turn comes is the one woken.
    your_turn: Vec<Condvar>,
}

struct Turns {
    /// The session's runtime while no replica holds the GIL; while one
    /// does, that replica's own (an idle one, swapped back when it lets go).
    rt: Runtime,
    /// The replica whose turn it is (none once every one has ended).
    turn: Option<usize>,
    running: Vec<bool>,
    /// What the replicas printed, in the order they printed it.
    out: Vec<Output>,
}

/// A replica's place in the turns: its number, and its current device
/// (its thread's own, as PyTorch's is thread-local: the replica's device,
/// or what a `with device(n)` in its forward made current).
pub(crate) struct Turn {
    gil: Arc<Gil>,
    replica: usize,
    device: u32,
}

impl Gil {
    fn new(rt: Runtime, replicas: usize) -> Gil {
        Gil {
            state: Mutex::new(Turns {
                rt,
                turn: Some(0),
                running: vec![true; replicas],
                out: Vec::new(),
            }),
            your_turn: (0..replicas).map(|_| Condvar::new()).collect(),
        }
    }
}

impl Turns {
    /// The next running replica after `me`, round the ring (`me` itself
    /// when it is the only one left).
    fn next_after(&self, me: usize) -> Option<usize> {
        let n = self.running.len();
        (1..=n).map(|k| (me + k) % n).find(|&r| self.running[r])
    }
}

impl Interp {
    /// Before each op: `profile` labels its work with `op`; a replica's
    /// thread first hands the GIL on and waits for its next turn.
    pub(crate) fn begin_op(&mut self, op: &'static str) {
        if self.turn.is_some() {
            self.pass_turn();
        }
        self.rt.begin_op(op);
    }

    /// Before the builtin or method `doc`: `begin_op`, told apart when it
    /// is one of Python's own (`print`, `len`, a list's `append`), which
    /// `torch.profiler` does not list.
    pub(crate) fn begin_doc_op(&mut self, doc: &crate::eval::docs::Doc) {
        let python = doc.group == crate::eval::docs::Group::Teaching
            && !matches!(doc.name, "save" | "load" | "sleep");
        match python {
            true => self.begin_python_op(doc.name),
            false => self.begin_op(doc.name),
        }
    }

    /// `begin_op` for an op of Python's own (`==` of two enums).
    pub(crate) fn begin_python_op(&mut self, op: &'static str) {
        if self.turn.is_some() {
            self.pass_turn();
        }
        self.rt.begin_python_op(op);
    }

    /// Waits for this replica's turn and takes the session's runtime.
    fn take_turn(&mut self) {
        let Some(t) = &self.turn else { return };
        let mut s = lock(&t.gil.state);
        while s.turn != Some(t.replica) {
            s = t.gil.your_turn[t.replica]
                .wait(s)
                .unwrap_or_else(|e| e.into_inner());
        }
        std::mem::swap(&mut self.rt, &mut s.rt);
        self.rt.current_device = t.device;
    }

    /// Gives the runtime and what was printed back, and the turn to the
    /// next replica (for good when `finished`).
    fn end_turn(&mut self, finished: bool) {
        let current = self.rt.current_device;
        let Some(t) = &mut self.turn else { return };
        t.device = current;
        let mut s = lock(&t.gil.state);
        std::mem::swap(&mut self.rt, &mut s.rt);
        s.out.append(&mut self.out);
        if finished {
            s.running[t.replica] = false;
        }
        s.turn = s.next_after(t.replica);
        if let Some(next) = s.turn {
            t.gil.your_turn[next].notify_one();
        }
    }

    /// Lets the next replica run one op, when another is waiting.
    fn pass_turn(&mut self) {
        let alone = match &self.turn {
            Some(t) => lock(&t.gil.state).next_after(t.replica) == Some(t.replica),
            None => true,
        };
        if !alone {
            self.end_turn(false);
            self.take_turn();
        }
    }

    /// PyTorch's `parallel_apply(modules, inputs, kwargs, devices)`: each
    /// replica called on its inputs with its device current, in a thread
    /// of its own (one replica: in this one); the outputs in order. An
    /// error of a replica is raised once all have ended, as PyTorch's
    /// `ExceptionWrapper` re-raises it.
    pub(crate) fn parallel_apply(
        &mut self,
        replicas: Vec<ModuleRef>,
        inputs: Vec<Vec<ArgVal>>,
        devices: Vec<u32>,
        span: Span,
    ) -> Out<Vec<Value>> {
        let results = match replicas.len() {
            1 => {
                let saved = self.rt.current_device;
                self.rt.current_device = devices[0];
                let args = inputs.into_iter().next().unwrap_or_default();
                let r = self.call_module(&replicas[0], args, span);
                self.rt.current_device = saved;
                vec![r]
            }
            _ => self.in_threads(replicas, inputs, &devices, span),
        };
        let mut outputs = Vec::with_capacity(results.len());
        for (i, r) in results.into_iter().enumerate() {
            match r {
                Ok(v) => outputs.push(v),
                Err(d) if matches!(d.error, Error::Interrupted) => return Err(d),
                Err(d) => {
                    return Err(Error::Replica {
                        replica: i,
                        device: devices[i],
                        error: Box::new(d),
                    }
                    .at_or_where_raised(span))
                }
            }
        }
        Ok(outputs)
    }

    /// One thread per replica, taking turns with the GIL; the session's
    /// runtime back in this interpreter once all have ended.
    fn in_threads(
        &mut self,
        replicas: Vec<ModuleRef>,
        inputs: Vec<Vec<ArgVal>>,
        devices: &[u32],
        span: Span,
    ) -> Vec<Out<Value>> {
        let saved_device = self.rt.current_device;
        let shared = Arc::clone(&self.rt.devices);
        let session_rt = std::mem::replace(&mut self.rt, Runtime::new(0, Arc::clone(&shared)));
        let gil = Arc::new(Gil::new(session_rt, replicas.len()));
        let vars: Vec<(String, Value)> = self
            .vars()
            .iter()
            .map(|(n, v)| (n.clone(), v.clone()))
            .collect();
        let (grad, source) = (self.grad, self.source.clone());
        let interrupt = Arc::clone(&self.hooks.interrupt);
        let results: Vec<Out<Value>> = std::thread::scope(|s| {
            let handles: Vec<_> = replicas
                .into_iter()
                .zip(inputs)
                .enumerate()
                .map(|(i, (m, args))| {
                    let turn = Turn {
                        gil: Arc::clone(&gil),
                        replica: i,
                        device: devices[i],
                    };
                    let (vars, source) = (vars.clone(), source.clone());
                    let (shared, interrupt) = (Arc::clone(&shared), Arc::clone(&interrupt));
                    let gil = Arc::clone(&gil);
                    let started = std::thread::Builder::new()
                        .name(format!("replica {i}"))
                        .stack_size(crate::INTERPRETER_STACK)
                        .spawn_scoped(s, move || {
                            let hooks = super::Hooks {
                                interrupt,
                                ..super::Hooks::default()
                            };
                            let mut it = Interp::with_globals(Runtime::new(0, shared), hooks, vars);
                            it.grad = grad;
                            it.echo = false;
                            it.source = source;
                            it.turn = Some(turn);
                            it.take_turn();
                            let r =
                                catch_unwind(AssertUnwindSafe(|| it.call_module(&m, args, span)));
                            it.end_turn(true);
                            r.unwrap_or_else(|_| Err(thread_panicked(span)))
                        });
                    if started.is_err() {
                        // No thread: the replica is done before its turn,
                        // and the turn goes on to the next.
                        let mut t = lock(&gil.state);
                        t.running[i] = false;
                        if t.turn == Some(i) {
                            t.turn = t.next_after(i);
                            if let Some(next) = t.turn {
                                gil.your_turn[next].notify_one();
                            }
                        }
                    }
                    started
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h {
                    Ok(h) => h.join().unwrap_or_else(|_| Err(thread_panicked(span))),
                    Err(_) => Err(thread_panicked(span)),
                })
                .collect()
        });
        let turns = match Arc::try_unwrap(gil) {
            Ok(gil) => gil.state.into_inner().unwrap_or_else(|e| e.into_inner()),
            Err(_) => unreachable!("every replica's thread has ended"),
        };
        self.rt = turns.rt;
        self.rt.current_device = saved_device;
        for o in turns.out {
            self.emit(o);
        }
        results
    }

    /// `replicate(module, devices)`: one replica of `m` per device, the
    /// first sharing `m`'s own tensors; the parameters copied by one
    /// `BroadcastBackward` (so their gradients reduce-add onto `m`'s),
    /// the buffers that need no gradient copied detached.
    pub(crate) fn replicate_module(
        &mut self,
        m: &ModuleRef,
        devices: &[u32],
        span: Span,
    ) -> Out<Vec<ModuleRef>> {
        let at = |e: Error| e.at(span);
        let targets: Vec<Device> = devices.iter().map(|&d| Device::Cuda(d)).collect();
        // `broadcast_coalesced` refuses a tensor off `devices[0]`, as
        // PyTorch's does.
        let (params, buffers) = parameters_and_buffers(m);
        let param_copies =
            coalesced::broadcast(&mut self.rt, self.grad, &params, &targets).map_err(at)?;
        let (with_grad, without): (Vec<usize>, Vec<usize>) =
            (0..buffers.len()).partition(|&i| crate::autograd::meta::requires_grad(&buffers[i]));
        let pick = |is: &[usize]| {
            is.iter()
                .map(|&i| Arc::clone(&buffers[i]))
                .collect::<Vec<_>>()
        };
        let grad_copies =
            coalesced::broadcast(&mut self.rt, self.grad, &pick(&with_grad), &targets)
                .map_err(at)?;
        let plain_copies =
            coalesced::broadcast_coalesced(&mut self.rt, &pick(&without), &targets).map_err(at)?;
        let copies: Vec<_> = (0..targets.len())
            .map(|j| {
                let mut bufs: Vec<Option<Arc<Tensor>>> = vec![None; buffers.len()];
                for (k, &i) in with_grad.iter().enumerate() {
                    bufs[i] = grad_copies.get(j).map(|row| Arc::clone(&row[k]));
                }
                for (k, &i) in without.iter().enumerate() {
                    bufs[i] = plain_copies.get(j).map(|row| Arc::clone(&row[k]));
                }
                let params = param_copies.get(j).cloned().unwrap_or_default();
                (params, bufs.into_iter().flatten().collect())
            })
            .collect::<Vec<_>>();
        let copy_object = |o: &Arc<dyn std::any::Any + Send + Sync>| {
            let copy: Arc<dyn std::any::Any + Send + Sync> = match o.clone().downcast::<Object>() {
                Ok(o) => {
                    let c = o.sibling();
                    *lock(&c.attrs) = lock(&o.attrs).clone();
                    Arc::new(c)
                }
                Err(other) => other,
            };
            copy
        };
        Ok(replicate(m, (&params, &buffers), &copies, &copy_object))
    }

    /// `scatter(x, devices, dim)` of one tensor: its chunks along `dim`
    /// (`x.chunk(len(devices))`: fewer when the dim is short), each on its
    /// device (the chunk for `x`'s own device a view of it), as one
    /// `ScatterBackward` node's outputs.
    pub(crate) fn scatter_tensor(
        &mut self,
        x: &Arc<Tensor>,
        targets: &[Device],
        dim: i64,
    ) -> Result<Vec<Arc<Tensor>>, Error> {
        if x.ndim() == 0 {
            return Err(Error::shape(
                "chunk expects at least a 1-dimensional tensor",
            ));
        }
        let dim = norm_dim(dim, x.ndim())?;
        let n = x.shape()[dim];
        let chunk = n.div_ceil(targets.len()).max(1);
        let mut parts = Vec::new();
        for (k, &d) in targets.iter().enumerate() {
            let lo = k * chunk;
            if lo >= n {
                break;
            }
            let part = index::narrow(x, dim, lo, chunk.min(n - lo))?;
            // As torch.cuda.comm.scatter: the chunk for x's own device stays a view of x.
            parts.push(match d == x.device() {
                true => Arc::new(part),
                false => self.rt.copy_to(&part, d)?,
            });
        }
        // One node with an output per part, whose backward gathers their
        // gradients onto x's device (PyTorch's `Scatter` Function).
        let layout = parts.iter().map(|p| (p.shape()[dim], p.device())).collect();
        let backward = Backward::Scatter { dim, parts: layout };
        Ok(record::attach_parts(
            &self.rt,
            self.grad,
            x,
            parts,
            ("ScatterBackward", backward),
        ))
    }

    /// `scatter_kwargs(inputs, kwargs, devices, dim)`: each argument cut
    /// for the devices (tensors chunked, lists, tuples and dicts of them
    /// item by item, anything else the same on every device), as many
    /// argument lists as the shortest scatter gives.
    pub(crate) fn scatter_args(
        &mut self,
        args: &[ArgVal],
        targets: &[Device],
        dim: i64,
    ) -> Out<Vec<Vec<ArgVal>>> {
        let mut per_arg = Vec::with_capacity(args.len());
        for a in args {
            per_arg.push(
                self.scatter_value(&a.value, targets, dim)
                    .map_err(|e| e.at(a.span))?,
            );
        }
        let n = per_arg.iter().map(|p| p.len()).min().unwrap_or(1);
        Ok((0..n)
            .map(|j| {
                args.iter()
                    .zip(&per_arg)
                    .map(|(a, parts)| ArgVal {
                        keyword: a.keyword.clone(),
                        value: parts[j].clone(),
                        span: a.span,
                    })
                    .collect()
            })
            .collect())
    }

    /// PyTorch's `scatter_map`: one value per device (fewer when a tensor
    /// has fewer chunks than devices).
    fn scatter_value(
        &mut self,
        v: &Value,
        targets: &[Device],
        dim: i64,
    ) -> Result<Vec<Value>, Error> {
        Ok(match v {
            Value::Tensor(x) => self
                .scatter_tensor(x, targets, dim)?
                .into_iter()
                .map(Value::Tensor)
                .collect(),
            Value::List(items) => {
                let parts = items
                    .iter()
                    .map(|x| self.scatter_value(x, targets, dim))
                    .collect::<Result<Vec<_>, _>>()?;
                transpose(&parts, |row| Value::List(Arc::new(row)))
            }
            Value::MutList(items) => {
                let items = Arc::clone(&lock(items));
                let parts = items
                    .iter()
                    .map(|x| self.scatter_value(x, targets, dim))
                    .collect::<Result<Vec<_>, _>>()?;
                transpose(&parts, |row| {
                    Value::MutList(Arc::new(Mutex::new(Arc::new(row))))
                })
            }
            Value::Dict(entries) => {
                let parts = entries
                    .items()
                    .iter()
                    .map(|(_, x)| self.scatter_value(x, targets, dim))
                    .collect::<Result<Vec<_>, _>>()?;
                let keys: Vec<Key> = entries.items().iter().map(|(k, _)| k.clone()).collect();
                transpose(&parts, |row| {
                    Value::Dict(PyDict::new(keys.iter().cloned().zip(row).collect()))
                })
            }
            other => vec![other.clone(); targets.len()],
        })
    }

    /// PyTorch's `gather(outputs, target_device, dim)`: the replicas'
    /// outputs joined on `target` (tensors), item by item (lists, tuples,
    /// dicts), or none.
    pub(crate) fn gather_values(
        &mut self,
        outputs: &[Value],
        target: Device,
        dim: i64,
        span: Span,
    ) -> Out<Value> {
        let at = |e: Error| e.at(span);
        let first = &outputs[0];
        Ok(match first {
            Value::Tensor(_) => {
                let ts: Vec<Arc<Tensor>> = outputs
                    .iter()
                    .map(|o| match o {
                        Value::Tensor(t) => Ok(Arc::clone(t)),
                        other => Err(at(mismatch(other))),
                    })
                    .collect::<Out<_>>()?;
                Value::Tensor(self.gather_tensors(ts, target, dim, span)?)
            }
            Value::None => Value::None,
            Value::List(_) | Value::MutList(_) => {
                let rows = outputs
                    .iter()
                    .map(|o| o.items().ok_or_else(|| at(mismatch(o))))
                    .collect::<Out<Vec<_>>>()?;
                let len = rows[0].len();
                let mut joined = Vec::with_capacity(len);
                for i in 0..len {
                    let column: Vec<Value> = rows
                        .iter()
                        .map(|r| r.get(i).cloned().ok_or_else(|| at(mismatch(first))))
                        .collect::<Out<_>>()?;
                    joined.push(self.gather_values(&column, target, dim, span)?);
                }
                match first {
                    Value::MutList(_) => Value::MutList(Arc::new(Mutex::new(Arc::new(joined)))),
                    _ => Value::List(Arc::new(joined)),
                }
            }
            Value::Dict(entries) => {
                let mut joined = Vec::with_capacity(entries.len());
                for (k, _) in entries.items().iter() {
                    let column: Vec<Value> = outputs
                        .iter()
                        .map(|o| match o {
                            Value::Dict(e) => e.get(k).ok_or_else(|| at(mismatch(o))),
                            other => Err(at(mismatch(other))),
                        })
                        .collect::<Out<_>>()?;
                    joined.push((k.clone(), self.gather_values(&column, target, dim, span)?));
                }
                Value::Dict(PyDict::new(joined))
            }
            other => {
                return Err(at(Error::Module {
                    class: "TypeError",
                    message: format!(
                        "DataParallel gathers tensors, and lists, tuples and dicts of them: \
                         the replicas gave {}",
                        other.type_name()
                    ),
                    help: Some("return tensors from `forward`".into()),
                }))
            }
        })
    }

    /// `Gather.apply(target, dim, *ts)`: every part copied into its slice
    /// of one output on `target` (0-d parts along dim 0: as vectors, with
    /// PyTorch's warning).
    fn gather_tensors(
        &mut self,
        ts: Vec<Arc<Tensor>>,
        target: Device,
        dim: i64,
        span: Span,
    ) -> Out<Arc<Tensor>> {
        let at = |e: Error| e.at(span);
        if ts.iter().any(|t| !t.device().is_cuda()) {
            return Err(at(Error::value(
                "Gather function not implemented for CPU tensors",
            )));
        }
        let ts = match ts.iter().all(|t| t.ndim() == 0) && dim == 0 {
            true => {
                self.warn_once(
                    "Was asked to gather along dimension 0, but all input tensors were scalars; \
                     will instead unsqueeze and return a vector."
                        .into(),
                );
                let mut vs = Vec::with_capacity(ts.len());
                for t in &ts {
                    let v = crate::runtime::op::view::view(t, &[1]).map_err(at)?;
                    vs.push(self.reshaped(t, Arc::new(v)).map_err(at)?);
                }
                vs
            }
            false => ts,
        };
        let refs: Vec<&Tensor> = ts.iter().map(|t| t.as_ref()).collect();
        let out = self.rt.gather(&refs, dim, target).map_err(at)?;
        record::gather(&self.rt, self.grad, &refs, out, dim).map_err(at)
    }

    /// `model(x)` of a `DataParallel`: as PyTorch's `DataParallel.forward`.
    pub(crate) fn data_parallel_forward(
        &mut self,
        m: &ModuleRef,
        args: Vec<ArgVal>,
        span: Span,
    ) -> Out<Value> {
        let (layer, module) = {
            let dp = lock(m);
            let module = dp.children().into_iter().find(|(n, _)| n == "module");
            (dp.layer.clone(), module.map(|(_, c)| c))
        };
        let Layer::DataParallel {
            device_ids,
            output_device,
            dim,
        } = layer
        else {
            unreachable!("called for a DataParallel");
        };
        let Some(module) = module else {
            return Err(Error::value("this DataParallel has no `module`").at(span));
        };
        if device_ids.is_empty() {
            return self.call_module(&module, args, span);
        }
        let source = Device::Cuda(device_ids[0]);
        let (params, buffers) = parameters_and_buffers(&module);
        if let Some(t) = params.iter().chain(&buffers).find(|t| t.device() != source) {
            return Err(on_wrong_device(source, t.device()).at(span));
        }
        let targets: Vec<Device> = device_ids.iter().map(|&d| Device::Cuda(d)).collect();
        self.begin_op("scatter");
        let mut inputs = self.scatter_args(&args, &targets, dim)?;
        if inputs.is_empty() {
            inputs.push(Vec::new());
        }
        if device_ids.len() == 1 {
            let args = inputs.swap_remove(0);
            return self.call_module(&module, args, span);
        }
        let used = &device_ids[..inputs.len()];
        self.begin_op("replicate");
        let replicas = self.replicate_module(&module, used, span)?;
        let outputs = self.parallel_apply(replicas, inputs, used.to_vec(), span)?;
        self.begin_op("gather");
        self.gather_values(&outputs, Device::Cuda(output_device), dim, span)
    }
}

/// `parts[i][j]` (argument item i's value for device j) as one value per
/// device (as many as the shortest item gives), each made by `make`.
fn transpose(parts: &[Vec<Value>], make: impl Fn(Vec<Value>) -> Value) -> Vec<Value> {
    let n = parts.iter().map(|p| p.len()).min().unwrap_or(0);
    (0..n)
        .map(|j| make(parts.iter().map(|p| p[j].clone()).collect()))
        .collect()
}

fn mismatch(v: &Value) -> Error {
    Error::value(format!(
        "the replicas' outputs differ in kind: one is {}",
        v.type_name()
    ))
}

/// PyTorch's check before DataParallel's forward.
pub(crate) fn on_wrong_device(source: Device, found: Device) -> Error {
    Error::Module {
        class: "RuntimeError",
        message: format!(
            "module must have its parameters and buffers on device {source} (device_ids[0]) \
             but found one of them on device: {found}"
        ),
        help: Some(format!(
            "move the module first: `model.to({source})` (DataParallel copies it from there to \
             the other devices at each call)"
        )),
    }
}

fn thread_panicked(span: Span) -> Diagnostic {
    Error::Value {
        message: "a replica's thread stopped on an internal error (a bug in cudash)".into(),
        help: Some("please report it with the program that shows it".into()),
    }
    .at(span)
}

/// The CUDA devices of `device_ids` (ints or devices), each once.
pub(crate) fn device_ids(values: &[(Value, Span)], count: u32) -> Out<Vec<u32>> {
    let mut ids = Vec::with_capacity(values.len());
    let mut seen = HashSet::new();
    for (v, s) in values {
        let id = device_index(v, count).map_err(|e| e.at(*s))?;
        if !seen.insert(id) {
            return Err(Error::value(format!("device {id} is listed twice in device_ids")).at(*s));
        }
        ids.push(id);
    }
    Ok(ids)
}

/// PyTorch's `_get_device_index(x, optional=True)` for DataParallel: an
/// int or a CUDA device, which must exist.
pub(crate) fn device_index(v: &Value, count: u32) -> Result<u32, Error> {
    let id = match v {
        Value::Int(i) => *i,
        // An item of a list of numbers (`[0, 1]` is a tensor here).
        Value::Tensor(t) if t.numel() == 1 && t.dtype().is_int() && t.device() == Device::Cpu => {
            t.to_vec::<i64>()[0]
        }
        Value::Device(d) => match d.get() {
            Device::Cuda(i) => i as i64,
            other @ (Device::Cpu | Device::Meta) => {
                return Err(Error::value_help(
                    format!("Expected a cuda device, but got: {other}"),
                    "DataParallel runs on CUDA devices: list them as 0, 1 or cuda:0, cuda:1",
                ))
            }
        },
        other => {
            return Err(Error::wrong_type(
                "a device id",
                "an int or a CUDA device",
                other.type_name(),
            ))
        }
    };
    match u32::try_from(id) {
        Ok(i) if i < count => Ok(i),
        _ => Err(Error::NoDevice {
            device: format!("cuda:{id}"),
            reason: match count {
                1 => "this session has one CUDA device, cuda:0".into(),
                _ => format!(
                    "this session has {count} CUDA devices, cuda:0 to cuda:{}",
                    count - 1
                ),
            },
        }),
    }
}
