//! The interpreter's side of data loading (`src/data/`): the
//! `TensorDataset` and `DataLoader` builtins, and `for` over a loader.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::args::{ArgVal, Bound};
use super::value::{Function, Key, Value};
use super::Interp;
use crate::data::dataset::{
    Collated, Collation, Dataset, FieldKey, FunctionDataset, Layout, Opaque, Sample, TensorDataset,
};
use crate::data::epoch::{Epoch, Fetch, Host, Printed, WorkerSeat, WorkerStart};
use crate::data::loader::{DataLoader, Options, Sampler};
use crate::data::random::RandomSampler;
use crate::data::sampler::DistributedSampler;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::dispatch::Runtime;
use crate::runtime::Tensor;

pub(super) fn tensor_dataset(
    _: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let mut tensors = Vec::new();
    for (v, span) in &b.rest {
        match v {
            Value::Tensor(t) => tensors.push(Arc::clone(t)),
            other => {
                return Err(Error::wrong_type(
                    "an argument of TensorDataset()",
                    "a tensor",
                    other.type_name(),
                )
                .at(*span))
            }
        }
    }
    let ds = TensorDataset::new(tensors).map_err(|e| e.at(b.span))?;
    Ok(Value::Dataset(Arc::new(Dataset::Tensors(ds))))
}

/// `Dataset(get, n)`: `n` samples, sample `i` made by calling `get(i)`
/// (PyTorch's `Dataset` subclass, its `__getitem__` and `__len__`).
pub(super) fn dataset(_: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let get = match b.get("get") {
        Some((Value::Function(f), span)) => {
            let required = f.defaults.iter().filter(|d| d.is_none()).count();
            if f.defaults.is_empty() || required > 1 {
                return Err(Error::value_help(
                    format!("`{}` cannot be called with one index", f.signature()),
                    "a dataset's function takes the sample's index: `fn get(i) { return ... }`",
                )
                .at(*span));
            }
            Arc::clone(f)
        }
        Some((other, span)) => {
            return Err(Error::wrong_type(
                "the `get` of Dataset()",
                "a function of the sample's index (`fn get(i) { ... }`)",
                other.type_name(),
            )
            .at(*span))
        }
        None => return Err(Error::value("Dataset() needs `get`").at(b.span)),
    };
    let n = b.int("n")?.unwrap_or(-1);
    if n < 0 {
        return Err(Error::value_help(
            format!("Dataset() needs its length `n`, a count of samples (0 or more), not {n}"),
            "as PyTorch's `__len__`: `Dataset(get, 1000)`",
        )
        .at(b.span_of("n")));
    }
    Ok(Value::Dataset(Arc::new(Dataset::Function(
        FunctionDataset {
            name: get.name().to_string(),
            get: Arc::new(Getter::Function(get)),
            len: n as usize,
        },
    ))))
}

/// `multiprocessing_context=`: a start method's name or a context
/// (`mp.get_context("spawn")`), checked as PyTorch checks it. cudash's
/// workers are threads of the program, so every method starts them alike.
fn multiprocessing_context(b: &Bound) -> Result<(), Diagnostic> {
    let Some((v, span)) = b.given("multiprocessing_context") else {
        return Ok(());
    };
    if matches!(v, Value::None) {
        return Ok(());
    }
    if b.int("num_workers")?.unwrap_or(0) == 0 {
        return Err(Error::value(format!(
            "multiprocessing_context can only be used with multi-process loading \
             (num_workers > 0), but got num_workers={}",
            b.int("num_workers")?.unwrap_or(0)
        ))
        .at(*span));
    }
    match v {
        Value::Str(s) if matches!(s.as_str(), "fork" | "spawn" | "forkserver") => Ok(()),
        Value::Str(s) => Err(Error::value(format!(
            "multiprocessing_context option should specify a valid start method in \
             ['fork', 'spawn', 'forkserver'], but got multiprocessing_context='{s}'"
        ))
        .at(*span)),
        _ => Ok(()),
    }
}

pub(super) fn data_loader(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    // An iterable dataset (`class Stream(IterableDataset)`): its loader
    // is `stdlib/torch_utils_data_iterable.py`'s, given every argument.
    if let Some((Value::Object(o), _)) = b.get("dataset") {
        if o.class.find("_cudash_iterable").is_some() {
            return me.iterable_loader(b);
        }
    }
    let dataset = me.dataset_of(b, "dataset", "DataLoader()")?;
    multiprocessing_context(b)?;
    let sampler = super::samplers::sampler_arg(b, "sampler", false)?;
    let batch_sampler = super::samplers::sampler_arg(b, "batch_sampler", true)?;
    let options = Options {
        batch_size: b.int("batch_size")?.unwrap_or(1),
        shuffle: b.bool("shuffle", false)?,
        num_workers: b.int("num_workers")?.unwrap_or(0),
        pin_memory: b.bool("pin_memory", false)?,
        drop_last: b.bool("drop_last", false)?,
        prefetch_factor: b.int("prefetch_factor")?,
        sampler,
        batch_sampler,
        generator: super::builtins::torch_generator::generator_arg(b)?,
        persistent_workers: b.bool("persistent_workers", false)?,
        collate_fn: match b.get("collate_fn") {
            None | Some((Value::None, _)) => None,
            Some((f, _)) => Some(Opaque(Arc::new(f.clone()))),
        },
        worker_init_fn: match b.get("worker_init_fn") {
            None | Some((Value::None, _)) => None,
            Some((f, _)) => Some(Opaque(Arc::new(f.clone()))),
        },
    };
    let mut loader = DataLoader::new(dataset, options).map_err(|(e, arg)| e.at(b.span_of(arg)))?;
    // A `collate_fn` is handed each sample as the dataset gives it: a
    // TensorDataset's rows too go through the session (a tuple of rows).
    if loader.collate_fn.is_some() && matches!(*loader.source, Dataset::Tensors(_)) {
        let source = Arc::clone(&loader.source);
        let n = source.len();
        loader = loader.with_source(Arc::new(Dataset::Function(FunctionDataset {
            name: "TensorDataset.__getitem__".into(),
            get: Arc::new(Getter::Rows(source, b.span)),
            len: n,
        })));
    }
    Ok(Value::DataLoader(Arc::new(loader)))
}

impl Interp {
    fn iterable_loader(&mut self, b: &Bound) -> Result<Value, Diagnostic> {
        let path = super::stdlib::path_of("torch.utils.data._iterable")
            .expect("torch.utils.data._iterable is one of stdlib/");
        let module = self.import_own("torch.utils.data._iterable", path, b.span)?;
        let f = self.own_module_attr(&module, "loader", b.span)?;
        let args = b
            .given_all()
            .into_iter()
            .map(|(name, (v, span))| ArgVal {
                keyword: Some(crate::lang::ast::Name::new(name.to_string(), *span)),
                value: v.clone(),
                span: *span,
            })
            .collect();
        self.call_value(f, args, b.span)
    }
}

pub(super) fn distributed_sampler(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    // A class's instance (`class MyTrainDataset(Dataset)`): its `__len__`.
    let samples = me.dataset_of(b, "dataset", "DistributedSampler()")?.len();
    // As PyTorch's: what is not given comes from the process group.
    let group = me.rt.process_group();
    let needed = |name: &str| -> Result<i64, Diagnostic> {
        if let Some(v) = b.int(name)? {
            return Ok(v);
        }
        match &group {
            Ok((rank, size)) => Ok(match name {
                "rank" => *rank as i64,
                _ => *size as i64,
            }),
            Err(e) => Err(Error::value_help(
                e.to_string(),
                format!(
                    "DistributedSampler() takes `{name}` from the process group: call \
                     init_process_group first (in each rank of spawn), or give \
                     `num_replicas=` and `rank=`"
                ),
            )
            .at(b.span)),
        }
    };
    let sampler = DistributedSampler::new(
        samples,
        needed("num_replicas")?,
        needed("rank")?,
        b.bool("shuffle", true)?,
        b.int("seed")?.unwrap_or(0),
        b.bool("drop_last", false)?,
    )
    .map_err(|(e, arg)| e.at(b.span_of(arg)))?;
    Ok(Value::Sampler(Arc::new(Sampler::Distributed(sampler))))
}

/// The samples of a sampler's `data_source`: a dataset, a class's
/// instance (its `__len__`), or anything with a length (`range(n)`, a list).
fn data_source(me: &mut Interp, b: &Bound, func: &str) -> Result<usize, Diagnostic> {
    match b.get("data_source") {
        Some((obj @ Value::Object(_), span)) => Ok(me.object_dataset(obj, *span)?.len()),
        Some((Value::Dataset(ds), _)) => Ok(ds.len()),
        Some((v, span)) => v.count().ok_or_else(|| {
            Error::wrong_type(
                format!("the data_source of {func}"),
                "a dataset, or anything with a length",
                v.type_name(),
            )
            .at(*span)
        }),
        None => Err(Error::value(format!("{func} needs a data_source")).at(b.span)),
    }
}

/// `RandomSampler(data_source, replacement=False, num_samples=None)`.
pub(super) fn random_sampler(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let samples = data_source(me, b, "RandomSampler()")?;
    let replacement = match b.given("replacement") {
        None => false,
        Some((Value::Bool(r), _)) => r.get(),
        Some((v, span)) => {
            return Err(Error::Module {
                class: "TypeError",
                message: format!(
                    "replacement should be a boolean value, but got replacement={}",
                    super::format::str_of(v)
                ),
                help: None,
            }
            .at(*span))
        }
    };
    let generator = super::builtins::torch_generator::generator_arg(b)?;
    let sampler = RandomSampler::new(samples, replacement, b.int("num_samples")?)
        .map_err(|(e, arg)| e.at(b.span_of(arg)))?
        .with_generator(generator);
    Ok(Value::Sampler(Arc::new(Sampler::Random(sampler))))
}

/// `SequentialSampler(data_source)`.
pub(super) fn sequential_sampler(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let samples = data_source(me, b, "SequentialSampler()")?;
    Ok(Value::Sampler(Arc::new(Sampler::Sequential(samples))))
}

/// `SubsetRandomSampler(indices)`: the indices as given, each a sample's.
pub(super) fn subset_random_sampler(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let (v, span) = b
        .get("indices")
        .cloned()
        .ok_or_else(|| Error::value("SubsetRandomSampler() needs its indices").at(b.span))?;
    let indices = super::subset::sample_indices(me, v, span, "SubsetRandomSampler")?;
    let generator = super::builtins::torch_generator::generator_arg(b)?;
    Ok(Value::Sampler(Arc::new(Sampler::SubsetRandom(
        indices, generator,
    ))))
}

/// `WeightedRandomSampler(weights, num_samples, replacement=True,
/// generator=None)`: the weights a sequence of numbers or a 1-d tensor,
/// read as doubles (PyTorch's `torch.as_tensor(weights, dtype=torch.double)`).
pub(super) fn weighted_random_sampler(
    me: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let (v, span) = b
        .get("weights")
        .cloned()
        .ok_or_else(|| Error::value("WeightedRandomSampler() needs its weights").at(b.span))?;
    let weights = match &v {
        Value::Tensor(t) if t.ndim() == 1 => me
            .rt
            .read_item(t, || t.to_vec::<f64>())
            .map_err(|e| e.at(span))?,
        Value::Tensor(t) => {
            return Err(Error::value(format!(
                "weights should be a 1d sequence but given weights have shape {}",
                crate::runtime::shape::python_tuple(t.shape())
            ))
            .at(span))
        }
        other => match other.elements() {
            Some(Ok(items)) => items
                .iter()
                .map(|w| match w {
                    Value::Int(i) => Ok(*i as f64),
                    Value::Float(x) => Ok(x.get()),
                    Value::Bool(x) => Ok(f64::from(u8::from(x.get()))),
                    other => {
                        Err(Error::wrong_type("a weight", "a number", other.type_name()).at(span))
                    }
                })
                .collect::<Result<_, _>>()?,
            _ => {
                return Err(Error::wrong_type(
                    "weights",
                    "a sequence of numbers or a 1-d tensor",
                    v.type_name(),
                )
                .at(span))
            }
        },
    };
    let num_samples = match b.given("num_samples") {
        Some((Value::Int(n), _)) if *n > 0 => *n as usize,
        Some((other, at)) => {
            return Err(Error::value(format!(
                "num_samples should be a positive integer value, but got num_samples={}",
                super::format::str_of(other)
            ))
            .at(*at))
        }
        None => return Err(Error::value("WeightedRandomSampler() needs num_samples").at(b.span)),
    };
    let replacement = match b.given("replacement") {
        None => true,
        Some((Value::Bool(r), _)) => r.get(),
        Some((other, at)) => {
            return Err(Error::value(format!(
                "replacement should be a boolean value, but got replacement={}",
                super::format::str_of(other)
            ))
            .at(*at))
        }
    };
    let generator = super::builtins::torch_generator::generator_arg(b)?;
    let sampler =
        crate::data::weighted::WeightedSampler::new(weights, num_samples, replacement, generator)
            .map_err(|e| e.at(span))?;
    Ok(Value::Sampler(Arc::new(Sampler::Weighted(sampler))))
}

/// `sampler.set_epoch(e)`.
pub(super) fn set_epoch(
    _: &mut Interp,
    _: &'static str,
    s: &Arc<Sampler>,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let Sampler::Distributed(s) = &**s else {
        return Err(Error::Module {
            class: "AttributeError",
            message: format!("'{}' object has no attribute 'set_epoch'", s.name()),
            help: Some("a DistributedSampler's order changes by epoch; this one's does not".into()),
        }
        .at(b.span));
    };
    let epoch = b.int("epoch")?.unwrap_or(0);
    if epoch < 0 {
        let span = b.span_of("epoch");
        return Err(Error::value(format!("the epoch is a count from 0, not {epoch}")).at(span));
    }
    s.set_epoch(epoch as u64);
    Ok(Value::None)
}

impl Interp {
    /// `for ... in loader { }`: one epoch, a batch (a list of tensors) per
    /// pass, made as the loop asks for it; the workers stop when the loop
    /// ends, however it ends.
    pub(super) fn for_each_batch(
        &mut self,
        loader: &Arc<DataLoader>,
        span: Span,
        mut each: impl FnMut(&mut Interp, Value) -> Result<Option<super::flow::Flow>, Diagnostic>,
    ) -> Result<Option<super::flow::Flow>, Diagnostic> {
        let mut epoch = self.start_epoch(loader, span)?;
        let total = epoch.len() as u64;
        let mut k = 0;
        while let Some(batch) = self.next_batch(&mut epoch) {
            if let Some(out) = each(self, batch?)? {
                return Ok(Some(out));
            }
            k += 1;
            self.progress(k, total);
        }
        Ok(None)
    }

    /// A pass over `loader` begins (a loop's, or `iter(loader)`'s): its
    /// order drawn, its workers started with their first batches.
    pub(super) fn start_epoch(
        &mut self,
        loader: &Arc<DataLoader>,
        span: Span,
    ) -> Result<Epoch, Diagnostic> {
        if loader.num_workers > 0 && self.rt.is_worker() {
            return Err(Error::value_help(
                "a DataLoader worker cannot start workers of its own",
                "as PyTorch's, whose workers are daemonic processes, which may not have children: \
                 load with `num_workers=0` inside a dataset's function",
            )
            .at(span));
        }
        // As PyTorch's: without a CUDA device it warns and does not pin.
        let pin = loader.pin_memory && self.rt.need_cuda("pinned memory").is_ok();
        if loader.pin_memory && !pin {
            self.warn_once(
                "UserWarning: 'pin_memory' argument is set as true but no accelerator is found, \
                 then device pinned memory won't be used."
                    .into(),
            );
        }
        self.begin_op("DataLoader");
        Epoch::start(self, loader, span, pin)
    }

    /// `iter(loader)`: an iterator holding a new pass, its batches made as
    /// `next` (or a loop, a comprehension, `list`) asks.
    pub(super) fn loader_iter(
        &mut self,
        loader: &Arc<DataLoader>,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let epoch = self.start_epoch(loader, span)?;
        Ok(Value::Iterator(Arc::new(std::sync::Mutex::new(
            super::value::PyIterator::Loader(Some(Box::new(epoch))),
        ))))
    }

    /// The pass's next batch (a tensor, or a list of them), what a
    /// worker's function printed making it shown first; None at the end.
    pub(super) fn next_batch(&mut self, epoch: &mut Epoch) -> Option<Result<Value, Diagnostic>> {
        self.begin_op("DataLoader");
        let mut batch = match epoch.next(self)? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        for p in batch.printed.drain(..) {
            self.emit(match p {
                Printed::Text(t) => super::Output::Text(t),
                Printed::Warning(w) => super::Output::Warning(w),
                Printed::Stderr(e) => super::Output::Stderr(e),
                Printed::Partial { stderr, text } => super::Output::Partial { stderr, text },
            });
        }
        let mut tensors = batch.tensors.into_iter();
        Some(Ok(batch_value(&batch.layout, &mut tensors, false)))
    }
}

/// What makes a sample: the function of `Dataset(get, n)`, or an
/// instance of a class derived from `Dataset` (its `__getitem__`).
#[derive(Clone)]
enum Getter {
    Function(Arc<Function>),
    Object(Value, Span),
    /// A list, tuple or range the program gave as a dataset (Python's
    /// sequences have `__len__` and `__getitem__`): the value and its items.
    Items(Value, Arc<Vec<Value>>, Span),
    /// A TensorDataset's rows, as `ds[i]` gives them (for a `collate_fn`).
    Rows(Arc<Dataset>, Span),
}

/// The session's getter of a dataset.
/// A value of the session the data layer carried (`Opaque`).
pub(super) fn session_value(o: &Opaque) -> Value {
    o.0.downcast_ref::<Value>()
        .cloned()
        .unwrap_or_else(|| unreachable!("the loader carries the session's values"))
}

fn getter(ds: &FunctionDataset) -> Getter {
    Arc::clone(&ds.get)
        .downcast::<Getter>()
        .map(|g| (*g).clone())
        .unwrap_or_else(|_| unreachable!("a dataset keeps a getter of the session"))
}

impl Interp {
    /// `get(i)` or `ds[i]`: sample `i`, as `default_collate` takes it.
    fn call_sample(&mut self, get: &Getter, i: usize) -> Result<Sample, Diagnostic> {
        let v = self.call_getter(get, i)?;
        let (what, span) = match get {
            Getter::Function(f) => (f.name().to_string(), f.def.name.span),
            Getter::Object(obj, span) => (format!("{}.__getitem__", class_name(obj)), *span),
            Getter::Rows(_, span) => ("TensorDataset.__getitem__".to_string(), *span),
            Getter::Items(v, _, span) => (
                format!("{}.__getitem__", super::format::python_type(v)),
                *span,
            ),
        };
        sample_of(v, &what, i).map_err(|e| e.at(span))
    }

    /// What `get(i)` or `ds.__getitem__(i)` returns, as it is.
    fn call_getter(&mut self, get: &Getter, i: usize) -> Result<Value, Diagnostic> {
        match get {
            Getter::Function(f) => {
                let span = f.def.name.span;
                let arg = ArgVal::positional(Value::Int(i as i64), span);
                self.call_function(Arc::clone(f), vec![arg], span)
            }
            Getter::Object(obj, span) => {
                let arg = ArgVal::positional(Value::Int(i as i64), *span);
                let name = crate::lang::ast::Name::new("__getitem__".into(), *span);
                self.call_method(obj.clone(), &name, vec![arg], *span)
            }
            Getter::Items(_, items, _) => Ok(items[i].clone()),
            Getter::Rows(ds, span) => {
                let (ds, span) = (Arc::clone(ds), *span);
                self.dataset_item(&ds, i, span)
            }
        }
    }

    /// A batch of `get`'s samples at `indices` made by the program's
    /// `collate_fn` (called with the list of them), taken apart into its
    /// tensors and where they sit.
    fn collate_with(
        &mut self,
        get: &Getter,
        collate_fn: &Value,
        indices: &[usize],
    ) -> Result<Collation, Diagnostic> {
        let samples = indices
            .iter()
            .map(|&i| self.call_getter(get, i))
            .collect::<Result<Vec<_>, _>>()?;
        let span = match get {
            Getter::Function(f) => f.def.name.span,
            Getter::Object(_, span) | Getter::Items(_, _, span) | Getter::Rows(_, span) => *span,
        };
        let arg = ArgVal::positional(Value::list(samples), span);
        let batch = self.call_value(collate_fn.clone(), vec![arg], span)?;
        let mut tensors = Vec::new();
        let layout = taken_apart(&batch, &mut tensors);
        Ok((tensors, layout))
    }

    /// `ds[i]` of a dataset cudash makes: a TensorDataset's row `i` of
    /// each tensor (a tuple, as PyTorch's), what `get(i)` (or the
    /// instance's `__getitem__`) returns, a subset's `indices[i]` of its
    /// dataset.
    pub(super) fn dataset_item(
        &mut self,
        ds: &Arc<Dataset>,
        i: usize,
        span: Span,
    ) -> Result<Value, Diagnostic> {
        match &**ds {
            Dataset::Tensors(t) => {
                let idx = [crate::runtime::op::index::Index::At(i as i64)];
                let rows = t
                    .tensors
                    .iter()
                    .map(|x| {
                        let row = Arc::new(crate::runtime::op::index::select(x, &idx)?);
                        crate::autograd::record::index(&mut self.rt, self.grad, x, row, &idx)
                    })
                    .collect::<Result<Vec<_>, Error>>()
                    .map_err(|e| e.at(span))?;
                Ok(Value::List(Arc::new(
                    rows.into_iter().map(Value::Tensor).collect(),
                )))
            }
            Dataset::Function(f) => self.call_getter(&getter(f), i),
            Dataset::Subset(s) => {
                let base = Arc::clone(&s.dataset);
                self.dataset_item(&base, s.indices[i], span)
            }
        }
    }

    /// The value a program gave for `ds` (a class's instance stays itself:
    /// `subset.dataset` is the program's object).
    pub(super) fn dataset_value(ds: &Arc<Dataset>) -> Value {
        match &**ds {
            Dataset::Function(f) => match getter(f) {
                Getter::Object(obj, _) | Getter::Items(obj, _, _) => obj,
                Getter::Function(_) => Value::Dataset(Arc::clone(ds)),
                Getter::Rows(rows, _) => Value::Dataset(rows),
            },
            _ => Value::Dataset(Arc::clone(ds)),
        }
    }

    /// A dataset argument: cudash's, or a class's instance with
    /// `__getitem__` and `__len__`.
    pub(super) fn dataset_of(
        &mut self,
        b: &Bound,
        name: &str,
        func: &str,
    ) -> Result<Arc<Dataset>, Diagnostic> {
        match b.get(name) {
            Some((obj @ Value::Object(_), span)) => Ok(Arc::new(self.object_dataset(obj, *span)?)),
            Some((Value::Dataset(ds), _)) => Ok(Arc::clone(ds)),
            // A list, tuple or range: a sequence is a map-style dataset.
            Some((v @ (Value::List(_) | Value::MutList(_) | Value::Range(_)), span)) => {
                let items = match v.elements() {
                    Some(items) => items.map_err(|e| e.at(*span))?,
                    None => Vec::new(),
                };
                Ok(Arc::new(Dataset::Function(FunctionDataset {
                    name: format!("{}.__getitem__", super::format::python_type(v)),
                    len: items.len(),
                    get: Arc::new(Getter::Items(v.clone(), Arc::new(items), *span)),
                })))
            }
            Some((other, span)) => Err(Error::wrong_type(
                format!("the {name} of {func}"),
                "a dataset (`TensorDataset(x, t)`, `Dataset(get, n)`, a class with `__len__` and `__getitem__`)",
                other.type_name(),
            )
            .at(*span)),
            None => Err(Error::value(format!("{func} needs a {name}")).at(b.span)),
        }
    }

    /// A map-style dataset of a class's instance: `len` from its
    /// `__len__`, samples from its `__getitem__` (PyTorch's protocol).
    fn object_dataset(&mut self, obj: &Value, span: Span) -> Result<Dataset, Diagnostic> {
        let class = super::value::class_of(obj);
        let has = |name: &str| class.as_ref().is_some_and(|c| c.find(name).is_some());
        if !has("__getitem__") || !has("__len__") {
            return Err(Error::value_help(
                format!("a {} is not a dataset: it has no `__getitem__` and `__len__`", class_name(obj)),
                "a map-style dataset defines both: `def __len__(self):` and `def __getitem__(self, idx):`",
            )
            .at(span));
        }
        let name = crate::lang::ast::Name::new("__len__".into(), span);
        let n = self.call_method(obj.clone(), &name, Vec::new(), span)?;
        let n = match n {
            Value::Int(n) if n >= 0 => n as usize,
            other => {
                return Err(Error::wrong_type(
                    "what `__len__` returned",
                    "a count of samples (an int, 0 or more)",
                    other.type_name(),
                )
                .at(span))
            }
        };
        Ok(Dataset::Function(FunctionDataset {
            name: format!("{}.__getitem__", class_name(obj)),
            get: Arc::new(Getter::Object(obj.clone(), span)),
            len: n,
        }))
    }
}

fn class_name(obj: &Value) -> String {
    super::value::class_of(obj).map_or_else(|| obj.type_name().to_string(), |c| c.name.clone())
}

/// A sample's dict key as the loader carries it: a string or an int.
fn field_key(k: &Key) -> Option<FieldKey> {
    match k {
        Key::Str(s) => Some(FieldKey::Str(s.clone())),
        Key::Int(i) => Some(FieldKey::Int(*i)),
        _ => None,
    }
}

/// What a `collate_fn` returned, as the loader carries it: its tensors
/// (which the pin thread pins) taken out of lists, tuples and dicts, any
/// other value kept as it is.
fn taken_apart(v: &Value, tensors: &mut Vec<Arc<Tensor>>) -> Collated {
    match v {
        Value::Tensor(t) => {
            tensors.push(Arc::clone(t));
            Collated::Field
        }
        Value::MutList(_) => Collated::Seq(
            v.items()
                .unwrap_or_default()
                .iter()
                .map(|x| taken_apart(x, tensors))
                .collect(),
        ),
        Value::List(items) => {
            Collated::Tuple(items.iter().map(|x| taken_apart(x, tensors)).collect())
        }
        // A dict keyed by strings and ints; one keyed otherwise goes as it is.
        Value::Dict(d) if d.items().keys().all(|k| field_key(k).is_some()) => Collated::Dict(
            d.items()
                .iter()
                .filter_map(|(k, x)| Some((field_key(k)?, taken_apart(x, tensors))))
                .collect(),
        ),
        other => Collated::Given(Opaque(Arc::new(other.clone()))),
    }
}

/// A batch as `default_collate` gives it: a tensor for each field (the
/// next of `tensors`), a list for a list or tuple sample, a dict for a
/// dict; a string field is the list of the samples' strings (a tuple
/// inside a list or tuple, as `zip` makes it there).
fn batch_value(
    layout: &Collated,
    tensors: &mut impl Iterator<Item = Arc<Tensor>>,
    in_seq: bool,
) -> Value {
    match layout {
        Collated::Field => tensors.next().map_or(Value::None, Value::Tensor),
        Collated::Texts(texts) => {
            let items = texts
                .iter()
                .map(|t| Value::Str(Arc::new(t.clone())))
                .collect();
            match in_seq {
                true => Value::List(Arc::new(items)),
                false => Value::list(items),
            }
        }
        Collated::Seq(items) => Value::list(
            items
                .iter()
                .map(|l| batch_value(l, tensors, true))
                .collect(),
        ),
        Collated::Tuple(items) => Value::List(Arc::new(
            items
                .iter()
                .map(|l| batch_value(l, tensors, true))
                .collect(),
        )),
        Collated::Given(v) => session_value(v),
        Collated::Dict(items) => Value::Dict(super::value::PyDict::new(
            items
                .iter()
                .map(|(k, l)| {
                    let key = match k {
                        FieldKey::Str(s) => Key::Str(s.clone()),
                        FieldKey::Int(i) => Key::Int(*i),
                    };
                    (key, batch_value(l, tensors, false))
                })
                .collect(),
        )),
    }
}

/// PyTorch's `default_collate` of a list of samples (an iterable
/// dataset's batch, `torch.utils.data.default_collate(samples)`).
pub(super) fn default_collate(samples: &[Value]) -> Result<Value, Error> {
    let parsed = samples
        .iter()
        .enumerate()
        .map(|(i, v)| sample_of(v.clone(), "the dataset's sample", i))
        .collect::<Result<Vec<_>, _>>()?;
    if parsed.is_empty() {
        return Err(Error::value("default_collate: the batch has no samples"));
    }
    let indices: Vec<usize> = (0..parsed.len()).collect();
    let (tensors, layout) = crate::data::dataset::collate(&parsed, &indices)?;
    Ok(batch_value(
        &layout,
        &mut tensors.into_iter().map(Arc::new),
        false,
    ))
}

/// What `get(i)` returned, as a sample: tensors, numbers (0-d tensors:
/// int64, float64 or bool, as `default_collate` makes them) and strings,
/// alone or in lists, tuples and dicts, as deep as they go.
fn sample_of(v: Value, name: &str, i: usize) -> Result<Sample, Error> {
    fn walk(
        v: &Value,
        fields: &mut Vec<Arc<Tensor>>,
        at: &dyn Fn(&str) -> Error,
    ) -> Result<Layout, Error> {
        let mut field = |t: Tensor| {
            fields.push(Arc::new(t));
            Ok(Layout::Field)
        };
        match v {
            Value::Tensor(t) => {
                fields.push(Arc::clone(t));
                Ok(Layout::Field)
            }
            Value::Int(n) => field(Tensor::scalar(*n)),
            Value::Float(x) => field(Tensor::scalar(x.get())),
            Value::Bool(b) => field(Tensor::scalar(b.get())),
            Value::Str(s) => Ok(Layout::Text(s.to_string())),
            Value::List(_) | Value::MutList(_) => {
                let items = v.items().unwrap_or_default();
                let parts = items
                    .iter()
                    .map(|x| walk(x, fields, at))
                    .collect::<Result<_, _>>()?;
                Ok(Layout::Seq(parts))
            }
            Value::Dict(d) => {
                let mut parts = Vec::new();
                for (k, x) in d.items().iter() {
                    let key = field_key(k)
                        .ok_or_else(|| at("a dict keyed by other than strings and ints"))?;
                    parts.push((key, walk(x, fields, at)?));
                }
                Ok(Layout::Dict(parts))
            }
            other => Err(at(other.type_name())),
        }
    }
    let at = |what: &str| {
        Error::value_help(
            format!(
                "default_collate: batch must contain tensors, numbers, strings, dicts or lists; \
                 {name}({i}) gave {what}"
            ),
            "a sample is a tensor, a number or a string, or a list, tuple or dict of them: \
             `return [x[i], t[i]]`",
        )
    };
    let mut fields = Vec::new();
    let layout = walk(&v, &mut fields, &at)?;
    Ok(Sample { fields, layout })
}

impl Host for Interp {
    fn runtime(&mut self) -> &mut Runtime {
        &mut self.rt
    }

    fn grad_mode(&self) -> crate::autograd::Mode {
        self.grad
    }

    fn sample(&mut self, ds: &FunctionDataset, i: usize) -> Result<Sample, Diagnostic> {
        self.call_sample(&getter(ds), i)
    }

    fn given(
        &mut self,
        sampler: &crate::data::loader::Given,
        span: Span,
    ) -> Result<crate::data::loader::Listed, Diagnostic> {
        self.list_given(sampler, span)
    }

    fn batch(
        &mut self,
        ds: &FunctionDataset,
        collate_fn: &Opaque,
        indices: &[usize],
    ) -> Result<Collation, Diagnostic> {
        let f = session_value(collate_fn);
        self.collate_with(&getter(ds), &f, indices)
    }

    fn worker(
        &mut self,
        ds: &FunctionDataset,
        collate_fn: Option<&Opaque>,
        worker_init_fn: Option<&Opaque>,
        seat: WorkerSeat,
        stop: Arc<AtomicBool>,
    ) -> WorkerStart {
        // The worker's own copy of the function, as of the dataset.
        let collate = collate_fn.map(|f| own_copy(&session_value(f)));
        let init = worker_init_fn.map(|f| own_copy(&session_value(f)));
        // A dataset object is the worker's own copy, as a forked worker's.
        let get = match getter(ds) {
            Getter::Object(obj, span) => Getter::Object(own_copy(&obj), span),
            Getter::Items(v, items, span) => Getter::Items(own_copy(&v), items, span),
            Getter::Rows(ds, span) => Getter::Rows(ds, span),
            // A closure's cells too (`seen.append(i)` in one reaches the
            // worker's copy of `seen`).
            Getter::Function(f) => match own_copy(&Value::Function(Arc::clone(&f))) {
                Value::Function(copy) => Getter::Function(copy),
                _ => Getter::Function(f),
            },
        };
        // The session's variables as they are now (a list is the worker's
        // own copy, as a forked worker's is; tensors are shared, and the
        // worker's runtime refuses to change them in place).
        let vars: Vec<(String, Value)> = self
            .vars()
            .iter()
            .map(|(name, v)| (name.clone(), own_copy(v)))
            .collect();
        let home = self.vars.number();
        let modules = self.forked_modules();
        let devices = Arc::clone(&self.rt.devices);
        let grad = self.grad;
        let source = self.source.clone();
        // `torch.set_printoptions` as the session set it: a forked worker
        // has the parent's (cudash's are the thread's own).
        let printing = crate::display::tensor::print_options();
        Box::new(move || {
            crate::display::tensor::set_print_options(printing);
            // As PyTorch's `_worker_loop`: torch's and Python's generators
            // seeded with `base_seed + id`, NumPy's with `_generate_state`.
            super::pyrandom::seed(Some(seat.seed() as i64));
            super::np_random::seed_worker(seat.base_seed, seat.id as u64);
            let mut it = Interp::worker(seat.seed(), devices, stop, vars);
            // The session's functions name its table: the worker's copy.
            it.module_alias.push((home, it.vars.number()));
            it.adopt_modules(modules);
            it.grad = grad;
            it.source = source;
            // `get_worker_info()` in the worker: its seat and its copy of
            // the dataset.
            let dataset = match &get {
                Getter::Object(obj, _) | Getter::Items(obj, _, _) => obj.clone(),
                _ => Value::None,
            };
            it.worker_info = Some((seat, dataset));
            // `worker_init_fn(worker_id)`, before any sample; what it
            // raises is the worker's first failure.
            let failed = init.and_then(|f| {
                let span = crate::lang::Span::from(0..0);
                let arg = ArgVal::positional(Value::Int(seat.id as i64), span);
                it.call_value(f, vec![arg], span).err()
            });
            Box::new(WorkerFetch {
                it,
                get,
                collate,
                failed,
            })
        })
    }
}

/// `v` as a worker's own: a list or dict of the session copied (a worker changing
/// it changes its own copy), a tensor autograd knows given a record of its
/// own (`meta::worker_copy`: the worker's `backward()` or `requires_grad`
/// never reaches the session's), as a forked PyTorch worker's copies.
pub(super) fn own_copy(v: &Value) -> Value {
    own_in(v, &mut Vec::new())
}

/// `own_copy` with the modules and instances copied so far: one that a
/// list or a dict of its own holds again (a DataFrame's columns naming
/// their frame) comes back as its copy, not copied without end.
fn own_in(v: &Value, done: &mut Vec<(usize, Value)>) -> Value {
    match v {
        Value::MutList(items) => {
            let items = Arc::clone(&crate::runtime::lock::lock(items));
            let copied: Vec<Value> = items.iter().map(|x| own_tensor(x, done)).collect();
            Value::MutList(Arc::new(std::sync::Mutex::new(Arc::new(copied))))
        }
        Value::List(items) => Value::List(Arc::new(
            items.iter().map(|x| own_tensor(x, done)).collect(),
        )),
        Value::Dict(d) => Value::Dict(super::value::PyDict::new(
            d.items()
                .iter()
                .map(|(k, v)| (k.clone(), own_tensor(v, done)))
                .collect(),
        )),
        Value::Module(_) | Value::Object(_) => own_object(v, done),
        // A closure's cells are the worker's own, as a forked worker's.
        Value::Function(f) if !f.closure.is_empty() => own_object(v, done),
        v => own_tensor(v, done),
    }
}

/// A module or an instance as a worker's own: the whole tree copied (its
/// parameters and buffers by `own_tensor`, its plain attributes by
/// `own_copy`), each module or instance once, so a worker's `model.eval()`
/// or `self.count = 1` changes its copy, not the session's.
fn own_object(v: &Value, done: &mut Vec<(usize, Value)>) -> Value {
    use crate::runtime::lock::lock;
    let at = match v {
        Value::Module(m) => Arc::as_ptr(m) as *const () as usize,
        Value::Object(o) => Arc::as_ptr(o) as *const () as usize,
        Value::Function(f) if !f.closure.is_empty() => Arc::as_ptr(f) as *const () as usize,
        other => return own_in(other, done),
    };
    if let Some((_, copy)) = done.iter().find(|(p, _)| *p == at) {
        return copy.clone();
    }
    // A closure: new cells, the copy known before what they hold is copied
    // (a module's `self.f = lambda x: m.fc(x)` holds the module that holds it).
    if let Value::Function(f) = v {
        let cells: Vec<super::value::Cell> = f.closure.iter().map(|_| Default::default()).collect();
        let copy = Value::Function(Arc::new(f.with_closure(cells.clone())));
        done.push((at, copy.clone()));
        for (old, new) in f.closure.iter().zip(&cells) {
            let held = lock(old).clone();
            *lock(new) = held.map(|v| own_object(&v, done));
        }
        return copy;
    }
    let own = |t: &Option<Arc<crate::runtime::Tensor>>| {
        t.as_ref()
            .map(|t| match crate::autograd::meta::worker_copy(t) {
                Some(copy) => Arc::new(copy),
                None => Arc::clone(t),
            })
    };
    match v {
        // An Enum's member is one for every copy (`self.mode is Mode.TRAIN`).
        Value::Object(o) if o.is_enum_member() => v.clone(),
        Value::Object(o) => {
            let copy = Arc::new(o.sibling());
            done.push((at, Value::Object(Arc::clone(&copy))));
            let attrs = lock(&o.attrs).clone();
            *lock(&copy.attrs) = attrs
                .iter()
                .map(|(k, v)| (k.clone(), own_object(v, done)))
                .collect();
            Value::Object(copy)
        }
        Value::Module(m) => {
            let (mut copy, children, object) = {
                let m = lock(m);
                let mut copy = crate::nn::Module::new(&m.type_name, m.layer.clone());
                copy.training = m.training;
                copy.initialised = m.initialised;
                copy.lazy = m.lazy.clone();
                copy.parameters = m
                    .parameters
                    .iter()
                    .map(|(n, p)| (n.clone(), own(p)))
                    .collect();
                copy.buffers = m
                    .buffers
                    .iter()
                    .map(|b| crate::nn::module::Buffer {
                        tensor: own(&b.tensor),
                        ..b.clone()
                    })
                    .collect();
                (copy, m.modules.clone(), super::value::object_of_module(&m))
            };
            // The instance's own object first, so that its attributes can
            // name the module itself (a cycle comes back as the copy).
            let object_copy = object.map(|o| Arc::new(o.sibling()));
            copy.object = object_copy
                .clone()
                .map(|o| o as Arc<dyn std::any::Any + Send + Sync>);
            let copy = copy.into_ref();
            done.push((at, Value::Module(Arc::clone(&copy))));
            let modules = children
                .into_iter()
                .map(|(n, c)| {
                    let c = c.and_then(|c| match own_object(&Value::Module(c), done) {
                        Value::Module(c) => Some(c),
                        _ => None,
                    });
                    (n, c)
                })
                .collect();
            lock(&copy).modules = modules;
            if let (Some(o), Some(oc)) = (object_of(v), object_copy) {
                let attrs = lock(&o.attrs).clone();
                *lock(&oc.attrs) = attrs
                    .iter()
                    .map(|(k, v)| (k.clone(), own_object(v, done)))
                    .collect();
            }
            Value::Module(copy)
        }
        _ => unreachable!("matched above"),
    }
}

fn object_of(v: &Value) -> Option<Arc<super::value::Object>> {
    match v {
        Value::Module(m) => super::value::object_of(m),
        _ => None,
    }
}

fn own_tensor(v: &Value, done: &mut Vec<(usize, Value)>) -> Value {
    match v {
        Value::Module(_) | Value::Object(_) => own_object(v, done),
        Value::Tensor(t) => match crate::autograd::meta::worker_copy(t) {
            Some(copy) => Value::Tensor(Arc::new(copy)),
            None => v.clone(),
        },
        // A forked worker's generator is a copy, drawing on its own.
        Value::Generator(g) => Value::Generator(g.copied()),
        v => v.clone(),
    }
}

/// A worker's interpreter, running the dataset's function.
struct WorkerFetch {
    it: Interp,
    get: Getter,
    /// The worker's copy of the loader's `collate_fn`.
    collate: Option<Value>,
    /// What its `worker_init_fn` raised: every sample it is asked for fails
    /// with it.
    failed: Option<Diagnostic>,
}

impl Fetch for WorkerFetch {
    fn sample(&mut self, i: usize) -> Result<Sample, Diagnostic> {
        if let Some(d) = &self.failed {
            return Err(d.clone());
        }
        let get = self.get.clone();
        self.it.call_sample(&get, i)
    }

    fn batch(&mut self, indices: &[usize]) -> Option<Result<Collation, Diagnostic>> {
        let f = self.collate.clone()?;
        if let Some(d) = &self.failed {
            return Some(Err(d.clone()));
        }
        let get = self.get.clone();
        Some(self.it.collate_with(&get, &f, indices))
    }

    fn seconds(&self) -> f64 {
        self.it.rt.worker_seconds()
    }

    fn printed(&mut self) -> Vec<Printed> {
        self.it
            .out
            .drain(..)
            .filter_map(|o| match o {
                super::Output::Text(t) => Some(Printed::Text(t)),
                super::Output::Warning(w) => Some(Printed::Warning(w)),
                super::Output::Stderr(e) => Some(Printed::Stderr(e)),
                super::Output::Partial { stderr, text } => Some(Printed::Partial { stderr, text }),
                _ => None,
            })
            .collect()
    }
}
