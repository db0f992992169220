//! The map-style datasets a `DataLoader` reads: `TensorDataset(*tensors)`,
//! whose sample `i` is row `i` of each tensor, and `Dataset(get, n)`, whose
//! sample `i` the session's function `get(i)` makes (PyTorch's `Dataset`
//! subclass with `__getitem__` and `__len__`); and PyTorch's
//! `default_collate`, which stacks samples into a batch; `Subset(ds,
//! indices)`, whose sample `i` is `ds`'s sample `indices[i]`
//! (`random_split`'s parts).

use std::any::Any;
use std::sync::Arc;

use crate::error::Error;
use crate::runtime::dispatch::stack_host as stack;
use crate::runtime::op::index::{select, Index};
use crate::runtime::{Device, Tensor};

/// A dataset a `DataLoader` reads.
#[derive(Debug)]
pub enum Dataset {
    Tensors(TensorDataset),
    Function(FunctionDataset),
    Subset(Subset),
}

/// `Subset(dataset, indices)`: sample `i` is `dataset`'s `indices[i]`.
#[derive(Debug)]
pub struct Subset {
    pub dataset: Arc<Dataset>,
    pub indices: Arc<Vec<usize>>,
}

impl Subset {
    /// As PyTorch's `Subset`, which checks nothing until a sample is
    /// read; cudash checks the indices once, here, so a loader's worker
    /// never meets one out of range.
    pub fn new(dataset: Arc<Dataset>, indices: Vec<usize>) -> Result<Subset, Error> {
        let n = dataset.len();
        if let Some(&i) = indices.iter().find(|&&i| i >= n) {
            return Err(Error::IndexOutOfRange {
                index: i as i64,
                dim: 0,
                size: n,
            });
        }
        Ok(Subset {
            dataset,
            indices: Arc::new(indices),
        })
    }
}

impl Dataset {
    pub fn len(&self) -> usize {
        match self {
            Dataset::Tensors(ds) => ds.len(),
            Dataset::Function(ds) => ds.len,
            Dataset::Subset(s) => s.indices.len(),
        }
    }

    /// The dataset that makes the samples (a `TensorDataset` or a
    /// `Dataset(get, n)`), and, for a subset (of a subset ...), which of
    /// its samples sample `i` is.
    pub fn source(self: &Arc<Dataset>) -> (Arc<Dataset>, Option<Arc<Vec<usize>>>) {
        match &**self {
            Dataset::Subset(s) => match s.dataset.source() {
                (base, None) => (base, Some(Arc::clone(&s.indices))),
                (base, Some(map)) => (
                    base,
                    Some(Arc::new(s.indices.iter().map(|&i| map[i]).collect())),
                ),
            },
            _ => (Arc::clone(self), None),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What `DataLoader`'s description calls it.
    pub fn describe(&self) -> String {
        match self {
            Dataset::Tensors(ds) => format!(
                "a TensorDataset of {} samples ({} tensors)",
                ds.len(),
                ds.tensors.len()
            ),
            Dataset::Function(ds) => format!("Dataset({}, {})", ds.name, ds.len),
            Dataset::Subset(s) => format!(
                "a Subset of {} samples of {}",
                s.indices.len(),
                s.dataset.describe()
            ),
        }
    }
}

/// `Dataset(get, n)`: `n` samples, sample `i` made by `get(i)`.
pub struct FunctionDataset {
    /// The session's function, opaque to this layer: the interpreter runs
    /// it (`epoch::Host`).
    pub get: Arc<dyn Any + Send + Sync>,
    /// Its name, for what the session shows.
    pub name: String,
    pub len: usize,
}

impl std::fmt::Debug for FunctionDataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Dataset({}, {})", self.name, self.len)
    }
}

/// One sample `get(i)` made, numbers already made 0-d tensors: its
/// tensors in order, and where they sit (`layout`).
#[derive(Debug)]
pub struct Sample {
    /// The tensors `get(i)` returned, themselves (with their history).
    pub fields: Vec<Arc<Tensor>>,
    pub layout: Layout,
}

/// How a sample is built, as PyTorch's `default_collate` walks it: each
/// `Field` is the next of the sample's tensors (a tensor or a number);
/// a string is kept as it is; a list or tuple, a dict.
#[derive(Debug, Clone, PartialEq)]
pub enum Layout {
    Field,
    Text(String),
    Seq(Vec<Layout>),
    Dict(Vec<(FieldKey, Layout)>),
}

/// A dict sample's key.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKey {
    Str(String),
    Int(i64),
}

/// A batch's structure: the samples' layout, each string the list of
/// every sample's; or what the program's `collate_fn` returned, its
/// tensors taken out (`Field`), a tuple kept a tuple, and any other value
/// carried as it is (`Given`).
#[derive(Debug, Clone, PartialEq)]
pub enum Collated {
    Field,
    Texts(Vec<String>),
    Seq(Vec<Collated>),
    Tuple(Vec<Collated>),
    Dict(Vec<(FieldKey, Collated)>),
    Given(Opaque),
}

/// A batch's tensors, and where each sits.
pub type Collation = (Vec<Arc<Tensor>>, Collated);

/// A value of the session this layer carries without reading it (a
/// `collate_fn`, what it returned).
#[derive(Clone)]
pub struct Opaque(pub Arc<dyn Any + Send + Sync>);

impl std::fmt::Debug for Opaque {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Opaque")
    }
}

impl PartialEq for Opaque {
    fn eq(&self, other: &Opaque) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Layout {
    /// What a sample of this layout is, for messages.
    fn describe(&self) -> String {
        match self {
            Layout::Field => "a tensor".into(),
            Layout::Text(_) => "a string".into(),
            Layout::Seq(items) => format!("a list of {}", items.len()),
            Layout::Dict(items) => format!("a dict of {} keys", items.len()),
        }
    }

    /// A key of a dict here that the same dict of `other` lacks.
    fn key_missing_in(&self, other: &Layout) -> Option<FieldKey> {
        match (self, other) {
            (Layout::Seq(a), Layout::Seq(b)) => {
                a.iter().zip(b).find_map(|(x, y)| x.key_missing_in(y))
            }
            (Layout::Dict(a), Layout::Dict(b)) => {
                a.iter()
                    .find_map(|(k, x)| match b.iter().find(|(kb, _)| kb == k) {
                        None => Some(k.clone()),
                        Some((_, y)) => x.key_missing_in(y),
                    })
            }
            _ => None,
        }
    }

    /// Whether `other` has this layout (strings may differ; a dict's keys
    /// in the same order).
    fn fits(&self, other: &Layout) -> bool {
        match (self, other) {
            (Layout::Field, Layout::Field) | (Layout::Text(_), Layout::Text(_)) => true,
            (Layout::Seq(a), Layout::Seq(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.fits(y))
            }
            (Layout::Dict(a), Layout::Dict(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((ka, x), (kb, y))| ka == kb && x.fits(y))
            }
            _ => false,
        }
    }
}

/// The batch structure of `layouts` (which all fit the first).
fn collated(layouts: &[&Layout]) -> Collated {
    match layouts[0] {
        Layout::Field => Collated::Field,
        Layout::Text(_) => Collated::Texts(
            layouts
                .iter()
                .map(|l| match l {
                    Layout::Text(t) => t.clone(),
                    _ => String::new(),
                })
                .collect(),
        ),
        Layout::Seq(items) => Collated::Seq(
            (0..items.len())
                .map(|k| {
                    let column: Vec<&Layout> = layouts
                        .iter()
                        .filter_map(|l| match l {
                            Layout::Seq(v) => v.get(k),
                            _ => None,
                        })
                        .collect();
                    collated(&column)
                })
                .collect(),
        ),
        Layout::Dict(items) => Collated::Dict(
            items
                .iter()
                .enumerate()
                .map(|(k, (key, _))| {
                    let column: Vec<&Layout> = layouts
                        .iter()
                        .filter_map(|l| match l {
                            Layout::Dict(v) => v.get(k).map(|(_, x)| x),
                            _ => None,
                        })
                        .collect();
                    (key.clone(), collated(&column))
                })
                .collect(),
        ),
    }
}

/// PyTorch's `default_collate` of `samples` (sample `indices[k]` is
/// `samples[k]`): field `j` of every sample stacked into tensor `j` of the
/// batch, and the samples' structure with every string gathered. Every
/// sample has the structure of the first, on the host, each field of the
/// shape of the first's.
pub fn collate(samples: &[Sample], indices: &[usize]) -> Result<(Vec<Tensor>, Collated), Error> {
    let Some(first) = samples.first() else {
        return Ok((Vec::new(), Collated::Seq(Vec::new())));
    };
    for (s, &i) in samples.iter().zip(indices) {
        // `default_collate` reads each of the first dict's keys from every
        // sample: one a sample lacks is its `KeyError`.
        if let Some(key) = first.layout.key_missing_in(&s.layout) {
            return Err(Error::Module {
                class: "KeyError",
                message: match key {
                    FieldKey::Str(k) => format!("'{k}'"),
                    FieldKey::Int(k) => k.to_string(),
                },
                help: Some(format!(
                    "sample {i} has no key the first sample (sample {}) has",
                    indices[0]
                )),
            });
        }
        if !first.layout.fits(&s.layout) {
            return Err(Error::value_help(
                format!(
                    "each element in list of batch should be of equal size: sample {i} is {}, \
                     sample {} is {}",
                    s.layout.describe(),
                    indices[0],
                    first.layout.describe()
                ),
                "make every sample the same: a tensor, or a list (or dict) of as many tensors, \
                 numbers or strings",
            ));
        }
        if let Some(t) = s.fields.iter().find(|t| t.device() != Device::Cpu) {
            return Err(Error::value_help(
                format!(
                    "cudash's DataLoader collates host tensors; sample {i} has one on {}",
                    t.device()
                ),
                "make samples on the host and move each batch in the loop: \
                 `xb.to(cuda, non_blocking=true)`, with `pin_memory=true` on the DataLoader",
            ));
        }
    }
    let layouts: Vec<&Layout> = samples.iter().map(|s| &s.layout).collect();
    let tensors = (0..first.fields.len())
        .map(|j| {
            let column: Vec<&Tensor> = samples.iter().map(|s| &*s.fields[j]).collect();
            stack(&column, 0)
        })
        .collect::<Result<_, _>>()?;
    Ok((tensors, collated(&layouts)))
}

#[derive(Debug)]
pub struct TensorDataset {
    pub tensors: Vec<Arc<Tensor>>,
}

impl TensorDataset {
    /// As PyTorch's: every tensor has the same first dimension. Host
    /// tensors only: a loader's workers read them on the host.
    pub fn new(tensors: Vec<Arc<Tensor>>) -> Result<TensorDataset, Error> {
        let Some(first) = tensors.first() else {
            return Err(Error::value("TensorDataset() needs at least one tensor"));
        };
        if let Some(t) = tensors.iter().find(|t| t.ndim() == 0) {
            return Err(Error::shape(format!(
                "TensorDataset() needs tensors with a first dimension; one is 0-d ({} element)",
                t.numel()
            )));
        }
        let n = first.shape()[0];
        if let Some(t) = tensors.iter().find(|t| t.shape()[0] != n) {
            return Err(Error::shape(format!(
                "Size mismatch between tensors: {} and {} samples (every tensor's first dimension \
                 is the number of samples)",
                n,
                t.shape()[0]
            )));
        }
        if let Some(t) = tensors.iter().find(|t| t.device() != Device::Cpu) {
            return Err(Error::value_help(
                format!(
                    "cudash's TensorDataset holds host tensors; this one is on {}",
                    t.device()
                ),
                "keep the dataset on the host (`.cpu()`) and move each batch: \
                 `xb.to(cuda, non_blocking=true)`, with `pin_memory=true` on the DataLoader",
            ));
        }
        Ok(TensorDataset { tensors })
    }

    pub fn len(&self) -> usize {
        self.tensors[0].shape()[0]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `ds[i]`: row `i` of each tensor (views, as PyTorch's `tensor[i]`).
    pub fn sample(&self, i: usize) -> Result<Vec<Tensor>, Error> {
        let i = i as i64;
        self.tensors
            .iter()
            .map(|t| select(t, &[Index::At(i)]))
            .collect()
    }

    /// The samples at `indices`, collated: each tensor's rows stacked into
    /// a new tensor (PyTorch's `default_collate`, `torch.stack`).
    pub fn batch(&self, indices: &[usize]) -> Result<Vec<Tensor>, Error> {
        let rows: Vec<Vec<Tensor>> = indices
            .iter()
            .map(|&i| self.sample(i))
            .collect::<Result<_, _>>()?;
        (0..self.tensors.len())
            .map(|k| {
                let column: Vec<&Tensor> = rows.iter().map(|r| &r[k]).collect();
                stack(&column, 0)
            })
            .collect()
    }

    /// The bytes one sample takes, over all tensors.
    pub fn sample_bytes(&self) -> usize {
        self.tensors
            .iter()
            .map(|t| t.nbytes() / t.shape()[0].max(1))
            .sum()
    }
}
