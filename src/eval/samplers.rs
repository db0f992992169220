//! Samplers the program writes (PyTorch's `torch.utils.data.Sampler`): a
//! class derived from `Sampler` with `__iter__` and `__len__`, or any
//! iterable of indices, given to a DataLoader as `sampler=`; an iterable
//! of lists of indices as `batch_sampler=`; and `BatchSampler(sampler,
//! batch_size, drop_last)`, which cuts any sampler's indices into lists.
//! A pass lists the program's sampler when it begins (its `__iter__` run
//! to its end on the main thread), so the workers get the same batches as
//! PyTorch's.

use std::sync::Arc;

use super::args::Bound;
use super::value::Value;
use super::Interp;
use crate::data::loader::{BatchSampler, DataLoader, Given, Listed, Sampler};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;

/// More indices than this in one pass of a sampler of the program's own
/// is refused (it is listed whole when the pass begins: one that never
/// ends, `while True: yield ...`, would not).
const MOST: usize = 10_000_000;

/// `sampler=` or `batch_sampler=` of `DataLoader()` (and the sampler of
/// `BatchSampler()`): a sampler builtin, or the program's own.
pub(super) fn sampler_arg(
    b: &Bound,
    name: &str,
    batches: bool,
) -> Result<Option<Arc<Sampler>>, Diagnostic> {
    let Some((v, span)) = b.given(name) else {
        return Ok(None);
    };
    match v {
        Value::None => Ok(None),
        Value::Sampler(s) if batches && !matches!(**s, Sampler::Batch(_)) => Err(Error::value_help(
            format!("a {} gives indices, not batches of them", s.name()),
            format!(
                "`batch_sampler=BatchSampler({}, batch_size, drop_last)` cuts them into batches, \
                 or give it as `sampler=`",
                s.name()
            ),
        )
        .at(*span)),
        Value::Sampler(s) => Ok(Some(Arc::clone(s))),
        v if iterable(v) => Ok(Some(Arc::new(Sampler::Given(Given {
            source: Arc::new(v.clone()),
            class: match v {
                Value::Object(o) => o.class.name.clone(),
                other => super::format::python_type(other).to_string(),
            },
            batches,
        })))),
        other => Err(Error::wrong_type(
            "a sampler",
            "a sampler (RandomSampler, SequentialSampler, SubsetRandomSampler, DistributedSampler, \
             BatchSampler), an instance of a class derived from `Sampler` with `__iter__`, or a \
             list of indices",
            other.type_name(),
        )
        .at(*span)),
    }
}

/// Whether a loop could go over `v`: what a sampler of the program's own is.
fn iterable(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.class.find("__iter__").is_some(),
        Value::Iterator(_) | Value::Range(_) => true,
        // `sampler=torch.randperm(n)`: its elements, as PyTorch iterates it.
        Value::Tensor(t) => t.ndim() >= 1,
        other => other.count().is_some() && !matches!(other, Value::Module(_) | Value::Dict(_)),
    }
}

/// `BatchSampler(sampler, batch_size, drop_last)`.
pub(super) fn batch_sampler(
    _: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    let sampler = sampler_arg(b, "sampler", false)?
        .ok_or_else(|| Error::value("BatchSampler() needs a sampler").at(b.span))?;
    let batch_size = b
        .int("batch_size")?
        .ok_or_else(|| Error::value("BatchSampler() needs its batch_size").at(b.span))?;
    let drop_last = b.bool("drop_last", false)?;
    let s = BatchSampler::new(sampler, batch_size, drop_last)
        .map_err(|(e, arg)| e.at(b.span_of(arg)))?;
    Ok(Value::Sampler(Arc::new(Sampler::Batch(s))))
}

/// `Sampler(...)` called itself: PyTorch's is a base class, whose
/// `__iter__` its subclasses write.
pub(super) fn sampler_base(
    _: &mut Interp,
    _: &'static str,
    b: &Bound,
) -> Result<Value, Diagnostic> {
    Err(Error::Module {
        class: "NotImplementedError",
        message: "Sampler is a base class: its subclasses give the indices".into(),
        help: Some(
            "derive from it: `class EvenFirst(Sampler):` with `def __iter__(self):` (the \
             indices of a pass) and `def __len__(self):`, then `DataLoader(ds, sampler=EvenFirst())`"
                .into(),
        ),
    }
    .at(b.span))
}

impl Interp {
    /// A pass's indices from a sampler of the program's own: its items,
    /// each an index (a `batch_sampler=`'s: each a list of them).
    pub(super) fn list_given(&mut self, g: &Given, span: Span) -> Result<Listed, Diagnostic> {
        let v = source(g).map_err(|e| e.at(span))?;
        let items = self.items_of_sampler(v, &g.class, span)?;
        let index = |v: &Value| to_index(v, &g.class).map_err(|e| e.at(span));
        Ok(match g.batches {
            false => Listed::Indices(items.iter().map(index).collect::<Result<_, _>>()?),
            true => {
                let mut out = Vec::with_capacity(items.len());
                for batch in items {
                    let ix = match &batch {
                        Value::Int(_) | Value::Bool(_) => {
                            return Err(Error::value_help(
                                format!("the batch sampler {} gave an index, not a batch", g.class),
                                "a batch sampler gives a list of indices per batch (`yield [0, 1, 2]`); \
                                 one that gives single indices is a `sampler=`",
                            )
                            .at(span))
                        }
                        _ => self.iterated(batch, span)?,
                    };
                    out.push(ix.iter().map(index).collect::<Result<_, _>>()?);
                }
                Listed::Batches(out)
            }
        })
    }

    /// The items a pass of `v` gives, at most `MOST` of them.
    fn items_of_sampler(
        &mut self,
        v: Value,
        class: &str,
        span: Span,
    ) -> Result<Vec<Value>, Diagnostic> {
        let it = self.iter_method(v, span)?;
        let lazy = match &it {
            Value::Iterator(i) if super::generator::is_lazy(i) => Some(Arc::clone(i)),
            _ => None,
        };
        let Some(i) = lazy else {
            return self.iterated(it, span);
        };
        let mut out = Vec::new();
        while let Some(x) = self.next_item(&i, span)? {
            if out.len() == MOST {
                return Err(Error::value_help(
                    format!("a pass of the sampler {class} gives more than {MOST} indices"),
                    "cudash lists a sampler of the program's own whole when a pass begins: \
                     one that never ends (`while True: yield ...`) cannot be listed; give it \
                     `num_samples` of them, as RandomSampler's",
                )
                .at(span));
            }
            out.push(x);
        }
        Ok(out)
    }

    /// `len(sampler)` of any sampler: a sampler of the program's own
    /// answers by its `__len__` (a list by its length).
    pub(super) fn sampler_len(&mut self, s: &Sampler, span: Span) -> Result<usize, Diagnostic> {
        if let Some(n) = s.known_len() {
            return Ok(n);
        }
        match s {
            Sampler::Batch(b) => Ok(b.batches_of(self.sampler_len(&b.sampler, span)?)),
            Sampler::Given(g) => {
                let v = source(g).map_err(|e| e.at(span))?;
                let no_len = || Error::Module {
                    class: "TypeError",
                    message: format!("object of type '{}' has no len()", g.class),
                    help: Some(
                        "a sampler's length is what `len(loader)` counts from: give its class \
                         `def __len__(self):`"
                            .into(),
                    ),
                };
                let n = match &v {
                    Value::Object(o) if o.class.find("__len__").is_some() => {
                        let name = crate::lang::ast::Name::new("__len__".into(), span);
                        self.call_method(v.clone(), &name, Vec::new(), span)?
                    }
                    Value::Object(_) | Value::Iterator(_) => return Err(no_len().at(span)),
                    Value::Tensor(t) => Value::Int(t.shape()[0] as i64),
                    other => Value::Int(other.count().ok_or_else(|| no_len().at(span))? as i64),
                };
                match n {
                    Value::Int(n) if n >= 0 => Ok(n as usize),
                    Value::Int(_) => Err(Error::value("__len__() should return >= 0").at(span)),
                    other => Err(Error::Module {
                        class: "TypeError",
                        message: format!(
                            "'{}' object cannot be interpreted as an integer",
                            super::format::python_type(&other)
                        ),
                        help: None,
                    }
                    .at(span)),
                }
            }
            _ => Ok(0),
        }
    }

    /// `len(loader)`: its batches per pass.
    pub(super) fn loader_len(&mut self, l: &DataLoader, span: Span) -> Result<usize, Diagnostic> {
        let n = self.sampler_len(l.drawn(), span)?;
        Ok(l.len_of(n))
    }

    /// `list(sampler)`, `for i in sampler`: one pass's indices (a
    /// `BatchSampler`'s: its lists of them).
    pub(super) fn sampler_items(&mut self, s: &Sampler, span: Span) -> Result<Value, Diagnostic> {
        let ints =
            |ix: Vec<usize>| Value::list(ix.into_iter().map(|i| Value::Int(i as i64)).collect());
        let indices = match s.given() {
            Some(g) => match self.list_given(g, span)? {
                Listed::Indices(ix) => ix,
                Listed::Batches(b) => return Ok(Value::list(b.into_iter().map(ints).collect())),
            },
            None => {
                let cpu = self.rt.generators.cpu();
                s.indices(cpu).map_err(|e| e.at(span))?
            }
        };
        Ok(match s {
            Sampler::Batch(b) => Value::list(b.cut(&indices).into_iter().map(ints).collect()),
            _ => ints(indices),
        })
    }
}

/// A sampler as the program sees it: its own object, or the builtin.
pub(super) fn sampler_value(s: &Arc<Sampler>) -> Value {
    match &**s {
        Sampler::Given(g) => source(g).unwrap_or(Value::None),
        _ => Value::Sampler(Arc::clone(s)),
    }
}

/// `loader.batch_sampler`: the one given, else the `BatchSampler` PyTorch
/// makes of the loader's sampler, `batch_size` and `drop_last`.
pub(super) fn batch_sampler_of(l: &Arc<DataLoader>) -> Value {
    match &l.batch_sampler {
        Some(s) => sampler_value(s),
        None => Value::Sampler(Arc::new(Sampler::Batch(BatchSampler {
            sampler: Arc::clone(&l.sampler),
            batch_size: l.batch_size,
            drop_last: l.drop_last,
        }))),
    }
}

/// The session's value a sampler of the program's own holds.
fn source(g: &Given) -> Result<Value, Error> {
    g.source.downcast_ref::<Value>().cloned().ok_or_else(|| {
        Error::value(format!(
            "internal error: the sampler {} holds no value",
            g.class
        ))
    })
}

/// An index a sampler gave: an int (or a one-element integer tensor on
/// the CPU), 0 or more.
fn to_index(v: &Value, class: &str) -> Result<usize, Error> {
    let i = match v {
        Value::Int(i) => *i,
        Value::Bool(b) => b.get() as i64,
        Value::Tensor(t)
            if t.numel() == 1
                && t.dtype().is_int()
                && t.device() == crate::runtime::Device::Cpu =>
        {
            t.to_vec::<i64>()[0]
        }
        other => {
            return Err(Error::wrong_type(
                format!("an index the sampler {class} gave"),
                "an int",
                other.type_name(),
            ))
        }
    };
    usize::try_from(i).map_err(|_| {
        Error::value_help(
            format!("the sampler {class} gave the index {i}"),
            "cudash's DataLoader takes a dataset's samples by their indices from 0 to len - 1",
        )
    })
}
