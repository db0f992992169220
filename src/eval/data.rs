//! The interpreter's side of data loading (`src/data/`): the
//! `TensorDataset` and `DataLoader` builtins, and `for` over a loader.

use std::sync::Arc;

use super::args::Bound;
use super::value::Value;
use super::Interp;
use crate::data::dataset::TensorDataset;
use crate::data::epoch::Epoch;
use crate::data::loader::{DataLoader, Options};
use crate::data::sampler::DistributedSampler;
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

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
    Ok(Value::Dataset(Arc::new(ds)))
}

pub(super) fn data_loader(_: &mut Interp, _: &'static str, b: &Bound) -> Result<Value, Diagnostic> {
    let dataset = dataset_arg(b, "DataLoader()")?;
    let sampler = match b.given("sampler") {
        None => None,
        Some((Value::Sampler(s), _)) => Some(Arc::clone(s)),
        Some((other, span)) => {
            return Err(Error::wrong_type(
                "the sampler of DataLoader()",
                "a DistributedSampler",
                other.type_name(),
            )
            .at(*span))
        }
    };
    let options = Options {
        batch_size: b.int("batch_size")?.unwrap_or(1),
        shuffle: b.bool("shuffle", false)?,
        num_workers: b.int("num_workers")?.unwrap_or(0),
        pin_memory: b.bool("pin_memory", false)?,
        drop_last: b.bool("drop_last", false)?,
        prefetch_factor: b.int("prefetch_factor")?,
        sampler,
    };
    let loader = DataLoader::new(dataset, options).map_err(|(e, arg)| e.at(b.span_of(arg)))?;
    Ok(Value::DataLoader(Arc::new(loader)))
}

pub(super) fn distributed_sampler(
    _: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let samples = dataset_arg(b, "DistributedSampler()")?.len();
    let needed = |name: &str| -> Result<i64, Diagnostic> {
        b.int(name)?.ok_or_else(|| {
            Error::value_help(
                format!("DistributedSampler() needs `{name}`"),
                "cudash has no process group to ask: give `num_replicas=` (one replica per \
                 device, say) and `rank=` (this replica's index)",
            )
            .at(b.span)
        })
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
    Ok(Value::Sampler(Arc::new(sampler)))
}

/// The `dataset` argument of `func`: a TensorDataset.
fn dataset_arg(b: &Bound, func: &str) -> Result<Arc<TensorDataset>, Diagnostic> {
    match b.get("dataset") {
        Some((Value::Dataset(ds), _)) => Ok(Arc::clone(ds)),
        Some((other, span)) => Err(Error::wrong_type(
            format!("the dataset of {func}"),
            "a TensorDataset (`TensorDataset(x, t)`)",
            other.type_name(),
        )
        .at(*span)),
        None => Err(Error::value(format!("{func} needs a dataset")).at(b.span)),
    }
}

/// `sampler.set_epoch(e)`.
pub(super) fn set_epoch(
    _: &mut Interp,
    _: &'static str,
    s: &Arc<DistributedSampler>,
    b: &Bound,
) -> Result<Value, Diagnostic> {
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
        if loader.pin_memory {
            self.rt.need_cuda("pinned memory").map_err(|e| e.at(span))?;
        }
        self.rt.begin_op("DataLoader");
        let mut epoch = Epoch::start(&mut self.rt, loader).map_err(|e| e.at(span))?;
        let total = epoch.len() as u64;
        let mut k = 0;
        loop {
            self.rt.begin_op("DataLoader");
            let Some(batch) = epoch.next(&mut self.rt) else {
                break;
            };
            let batch = batch.map_err(|e| e.at(span))?;
            let value = Value::List(Arc::new(batch.into_iter().map(Value::Tensor).collect()));
            if let Some(out) = each(self, value)? {
                return Ok(Some(out));
            }
            k += 1;
            self.progress(k, total);
        }
        Ok(None)
    }
}
