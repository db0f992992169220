//! `DataLoader(dataset, batch_size, shuffle, sampler, num_workers,
//! pin_memory, drop_last, prefetch_factor)`: its settings, how many
//! batches it gives, and which samples each batch holds (its sampler's
//! order).

use std::any::Any;
use std::sync::{Arc, Mutex};

use super::crew::Crew;
use super::dataset::{Dataset, Opaque};
use super::generator::TorchGenerator;
use super::random::{Draws, RandomSampler};
use super::sampler::{permutation, DistributedSampler};
use super::weighted::WeightedSampler;
use crate::error::Error;
use crate::runtime::cpu_random::CpuGenerator;

/// The order a DataLoader takes samples in (`sampler=`, or PyTorch's
/// default: a `SequentialSampler`, a `RandomSampler` with `shuffle`).
#[derive(Debug)]
pub enum Sampler {
    /// `SequentialSampler(dataset)`: `0..n`.
    Sequential(usize),
    Random(RandomSampler),
    /// `SubsetRandomSampler(indices)`: the indices, permuted each pass.
    /// The indices, permuted each pass (by its `generator=` when given).
    SubsetRandom(Vec<usize>, Option<TorchGenerator>),
    Distributed(DistributedSampler),
    /// `WeightedRandomSampler(weights, num_samples, replacement)`.
    Weighted(WeightedSampler),
    /// `BatchSampler(sampler, batch_size, drop_last)`: its sampler's
    /// indices in lists of `batch_size` (a DataLoader's `batch_sampler=`).
    Batch(BatchSampler),
    /// A sampler of the program's own (an instance of a class derived from
    /// `Sampler`, or any iterable of indices), or a `batch_sampler=` of
    /// its own (an iterable of lists of indices): the interpreter lists a
    /// pass's indices when the pass begins (`epoch::Host::given`).
    Given(Given),
}

#[derive(Debug)]
pub struct BatchSampler {
    pub sampler: Arc<Sampler>,
    pub batch_size: usize,
    pub drop_last: bool,
}

impl BatchSampler {
    /// `BatchSampler(batch_size=4, drop_last=false) of a RandomSampler`.
    fn describe_short(&self) -> String {
        let of = match &*self.sampler {
            Sampler::Given(g) => format!("{}, the program's own sampler", g.class),
            other => format!("a {}", other.name()),
        };
        format!(
            "BatchSampler(batch_size={}, drop_last={}) of {of}",
            self.batch_size, self.drop_last
        )
    }

    /// `BatchSampler(sampler, batch_size, drop_last)`, checked as PyTorch's.
    pub fn new(
        sampler: Arc<Sampler>,
        batch_size: i64,
        drop_last: bool,
    ) -> Result<BatchSampler, (Error, &'static str)> {
        Ok(BatchSampler {
            sampler,
            batch_size: positive_batch_size(batch_size)?,
            drop_last,
        })
    }

    /// The batches of `samples` indices.
    pub fn batches_of(&self, samples: usize) -> usize {
        chunks(samples, self.batch_size, self.drop_last)
    }

    /// A pass's indices cut into its batches.
    pub fn cut(&self, indices: &[usize]) -> Vec<Vec<usize>> {
        let n = self.batches_of(indices.len());
        indices
            .chunks(self.batch_size)
            .take(n)
            .map(<[usize]>::to_vec)
            .collect()
    }
}

/// `batch_size` as PyTorch checks it (DataLoader's and BatchSampler's).
fn positive_batch_size(batch_size: i64) -> Result<usize, (Error, &'static str)> {
    match usize::try_from(batch_size) {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err((
            Error::value(format!(
                "batch_size should be a positive integer value, but got batch_size={batch_size}"
            )),
            "batch_size",
        )),
    }
}

/// How many batches of `size` `samples` indices make (the short last one
/// dropped with `drop_last`).
fn chunks(samples: usize, size: usize, drop_last: bool) -> usize {
    match drop_last {
        true => samples / size,
        false => samples.div_ceil(size),
    }
}

/// A sampler the program wrote: the session's value, opaque to this
/// layer, and its class's name.
pub struct Given {
    pub source: Arc<dyn Any + Send + Sync>,
    pub class: String,
    /// Whether it gives lists of indices (a `batch_sampler=`).
    pub batches: bool,
}

impl std::fmt::Debug for Given {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.class)
    }
}

/// A pass's indices as a sampler of the program's own gave them.
pub enum Listed {
    Indices(Vec<usize>),
    Batches(Vec<Vec<usize>>),
}

impl Sampler {
    /// Its class's name, as PyTorch's.
    pub fn name(&self) -> &'static str {
        match self {
            Sampler::Sequential(_) => "SequentialSampler",
            Sampler::Random(_) => "RandomSampler",
            Sampler::SubsetRandom(..) => "SubsetRandomSampler",
            Sampler::Distributed(_) => "DistributedSampler",
            Sampler::Weighted(_) => "WeightedRandomSampler",
            Sampler::Batch(_) => "BatchSampler",
            Sampler::Given(_) => "Sampler",
        }
    }

    /// `len(sampler)`: the indices a pass deals (a `BatchSampler`'s
    /// batches); None for a sampler of the program's own, whose
    /// `__len__` says.
    pub fn known_len(&self) -> Option<usize> {
        Some(match self {
            Sampler::Sequential(n) => *n,
            Sampler::Random(r) => r.num_samples,
            Sampler::SubsetRandom(ix, _) => ix.len(),
            Sampler::Distributed(d) => d.len(),
            Sampler::Weighted(w) => w.num_samples,
            Sampler::Batch(b) => b.batches_of(b.sampler.known_len()?),
            Sampler::Given(_) => return None,
        })
    }

    /// The sampler of the program's own that this one draws from, if any.
    pub fn given(&self) -> Option<&Given> {
        match self {
            Sampler::Given(g) => Some(g),
            Sampler::Batch(b) => b.sampler.given(),
            _ => None,
        }
    }

    /// The samples of the dataset it was made for (None for a subset's,
    /// which names its indices).
    fn samples(&self) -> Option<usize> {
        match self {
            Sampler::Sequential(n) => Some(*n),
            Sampler::Random(r) => Some(r.samples),
            Sampler::SubsetRandom(..) | Sampler::Weighted(_) => None,
            Sampler::Distributed(d) => Some(d.samples),
            Sampler::Batch(b) => b.sampler.samples(),
            Sampler::Given(_) => None,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Sampler::Sequential(n) => format!("SequentialSampler over {n} samples"),
            Sampler::Random(r) => r.describe(),
            Sampler::SubsetRandom(ix, _) => format!("SubsetRandomSampler of {} indices", ix.len()),
            Sampler::Distributed(d) => d.describe(),
            Sampler::Weighted(w) => w.describe(),
            Sampler::Batch(b) => format!(
                "BatchSampler(batch_size={}, drop_last={}) of a {}",
                b.batch_size,
                b.drop_last,
                b.sampler.describe()
            ),
            Sampler::Given(g) => format!("{} (the program's own sampler)", g.class),
        }
    }
}

#[derive(Debug)]
pub struct DataLoader {
    /// What it was given (`loader.dataset`).
    pub dataset: Arc<Dataset>,
    /// What makes its samples: `dataset`, or a subset's dataset below it.
    pub source: Arc<Dataset>,
    /// For a subset: which of `source`'s samples each of its own is.
    map: Option<Arc<Vec<usize>>>,
    pub batch_size: usize,
    pub shuffle: bool,
    pub num_workers: usize,
    pub pin_memory: bool,
    pub drop_last: bool,
    /// Batches each worker has in flight (PyTorch's default 2).
    pub prefetch_factor: usize,
    /// Which samples, in which order: `sampler=`, or the default one.
    pub sampler: Arc<Sampler>,
    /// `batch_sampler=`: which samples each batch holds (a `BatchSampler`,
    /// or the program's own), in place of `sampler` and `batch_size`.
    pub batch_sampler: Option<Arc<Sampler>>,
    /// `generator=`: what each pass's worker seed is drawn from (and a
    /// `shuffle`'s order), as PyTorch's.
    pub generator: Option<TorchGenerator>,
    /// `persistent_workers=True`: the workers of the first pass serve every
    /// pass, kept here between passes.
    pub persistent_workers: bool,
    crew: Mutex<Option<Crew>>,
    /// `collate_fn=`: the program's function making each batch of its
    /// samples, in place of `default_collate`.
    pub collate_fn: Option<Opaque>,
    /// `worker_init_fn=`: the program's function each worker calls with
    /// its id as it starts (after its generators are seeded).
    pub worker_init_fn: Option<Opaque>,
}

/// `DataLoader(...)`'s arguments as given, before they are checked.
pub struct Options {
    pub batch_size: i64,
    pub shuffle: bool,
    pub num_workers: i64,
    pub pin_memory: bool,
    pub drop_last: bool,
    pub prefetch_factor: Option<i64>,
    pub sampler: Option<Arc<Sampler>>,
    pub batch_sampler: Option<Arc<Sampler>>,
    pub generator: Option<TorchGenerator>,
    pub persistent_workers: bool,
    pub collate_fn: Option<Opaque>,
    pub worker_init_fn: Option<Opaque>,
}

/// More workers than this is a typo, not a pipeline (each is a thread).
pub const MAX_WORKERS: usize = 256;

/// The sample indices of an epoch, in the order they are taken.
#[derive(Debug, Clone, PartialEq)]
enum Order {
    /// `0..n`, made as asked.
    Sequential(usize),
    /// A subset's permutation or a rank's share.
    Listed(Vec<usize>),
    /// A `RandomSampler`'s, `count` of them drawn as asked.
    Drawn(Box<Draws>, usize),
    /// A `batch_sampler=` of the program's own: the batches it gave.
    Batched(Vec<Vec<usize>>),
}

/// An epoch's batches of sample indices, each made when asked for, in
/// order.
#[derive(Debug, Clone, PartialEq)]
pub struct Batches {
    order: Order,
    /// A subset's indices into the dataset that makes the samples.
    map: Option<Arc<Vec<usize>>>,
    size: usize,
    drop_last: bool,
    /// Samples dealt so far.
    dealt: usize,
}

impl Batches {
    fn samples(&self) -> usize {
        match &self.order {
            Order::Sequential(n) => *n,
            Order::Listed(v) => v.len(),
            Order::Drawn(_, count) => *count,
            Order::Batched(b) => b.len(),
        }
    }

    pub fn len(&self) -> usize {
        match &self.order {
            Order::Batched(b) => b.len(),
            _ => chunks(self.samples(), self.size, self.drop_last),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The next batch's sample indices (called at most `len()` times).
    pub fn next_batch(&mut self) -> Vec<usize> {
        let from = self.dealt;
        let to = match &self.order {
            Order::Batched(_) => from + 1,
            _ => (from + self.size).min(self.samples()),
        };
        self.dealt = to;
        let batch: Vec<usize> = match &mut self.order {
            Order::Sequential(_) => (from..to).collect(),
            Order::Listed(v) => v[from..to].to_vec(),
            Order::Drawn(draws, _) => (from..to).filter_map(|_| draws.next()).collect(),
            Order::Batched(b) => std::mem::take(&mut b[from]),
        };
        match &self.map {
            Some(map) => batch.into_iter().map(|i| map[i]).collect(),
            None => batch,
        }
    }
}

impl Sampler {
    /// One pass's order, drawn as `DataLoader::batches` says.
    fn order(&self, generator: &mut CpuGenerator) -> Result<Order, Error> {
        Ok(match self {
            Sampler::Sequential(n) => Order::Sequential(*n),
            Sampler::Distributed(s) => Order::Listed(s.indices()?),
            Sampler::SubsetRandom(ix, own) => Order::Listed(
                match own {
                    Some(g) => g.randperm(ix.len()),
                    None => permutation(ix.len(), generator)?,
                }
                .into_iter()
                .map(|k| ix[k])
                .collect(),
            ),
            // `torch.empty((), dtype=torch.int64).random_()`: 63 bits.
            Sampler::Random(r) => Order::Drawn(
                Box::new(r.draws(generator.random64() & i64::MAX as u64)?),
                r.num_samples,
            ),
            Sampler::Weighted(w) => Order::Listed(w.indices(generator)),
            Sampler::Batch(b) => b.sampler.order(generator)?,
            Sampler::Given(g) => {
                return Err(Error::value(format!(
                    "internal error: {}'s indices are the interpreter's to list",
                    g.class
                )))
            }
        })
    }

    /// `list(sampler)`, `for i in sampler`: one pass's indices. A pass
    /// larger than the host can list is refused (PyTorch's would run
    /// until memory ends).
    pub fn indices(&self, generator: &mut CpuGenerator) -> Result<Vec<usize>, Error> {
        const MOST: usize = 100_000_000;
        let len = self.known_len().unwrap_or(0);
        if len > MOST {
            return Err(Error::value_help(
                format!(
                    "a pass of this sampler deals {len} indices, more than cudash lists at once"
                ),
                "hand it to a DataLoader (`sampler=s`), which draws its indices as each batch asks",
            ));
        }
        Ok(match self.order(generator)? {
            Order::Sequential(n) => (0..n).collect(),
            Order::Listed(v) => v,
            Order::Drawn(draws, _) => draws.collect(),
            Order::Batched(b) => b.concat(),
        })
    }
}

impl DataLoader {
    /// The settings, checked as PyTorch checks them; an error names the
    /// argument it is about.
    pub fn new(
        dataset: Arc<Dataset>,
        options: Options,
    ) -> Result<DataLoader, (Error, &'static str)> {
        let Options {
            batch_size,
            shuffle,
            num_workers,
            pin_memory,
            drop_last,
            prefetch_factor,
            sampler,
            batch_sampler,
            generator,
            persistent_workers,
            collate_fn,
            worker_init_fn,
        } = options;
        if persistent_workers && num_workers == 0 {
            return Err((
                Error::value_help(
                    "persistent_workers option needs num_workers > 0",
                    "persistent workers are worker threads kept from one pass to the next: give `num_workers`",
                ),
                "persistent_workers",
            ));
        }
        if shuffle && sampler.is_some() {
            return Err((
                Error::value_help(
                    "sampler option is mutually exclusive with shuffle",
                    "the sampler decides the order (a RandomSampler, or DistributedSampler's \
                     `shuffle=true`, the default, shuffles): drop `shuffle=true`",
                ),
                "shuffle",
            ));
        }
        if batch_sampler.is_some() && (batch_size != 1 || shuffle || sampler.is_some() || drop_last)
        {
            return Err((
                Error::value_help(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, \
                     and drop_last",
                    "the batch sampler decides each batch: `BatchSampler(sampler, batch_size, \
                     drop_last)` takes them",
                ),
                "batch_sampler",
            ));
        }
        let n = dataset.len();
        for s in sampler.iter().chain(&batch_sampler) {
            if let Some(m) = s.samples().filter(|&m| m != n) {
                return Err((
                    Error::value(format!(
                        "the {} was made for {m} samples and the dataset has {n}",
                        s.name()
                    )),
                    "sampler",
                ));
            }
            // A weight past the dataset's samples could be drawn.
            if let Sampler::Weighted(w) = &**s {
                if w.weights.len() > n {
                    return Err((
                        Error::Module {
                            class: "IndexError",
                            message: format!(
                                "the WeightedRandomSampler has {} weights and the dataset {n} samples: index {} could be drawn",
                                w.weights.len(),
                                w.weights.len() - 1
                            ),
                            help: Some("give one weight per sample of the dataset".into()),
                        },
                        "sampler",
                    ));
                }
            }
            if let Sampler::SubsetRandom(ix, _) = &**s {
                if let Some(i) = ix.iter().find(|&&i| i >= n) {
                    return Err((
                        Error::Module {
                            class: "IndexError",
                            message: format!(
                                "index {i} is out of bounds for dimension 0 with size {n}"
                            ),
                            help: Some("the subset's indices are rows of the dataset".into()),
                        },
                        "sampler",
                    ));
                }
            }
        }
        let batch_size = positive_batch_size(batch_size)?;
        if !(0..=MAX_WORKERS as i64).contains(&num_workers) {
            return Err((
                Error::value_help(
                    format!("num_workers option should be non-negative; got {num_workers}"),
                    format!("from 0 (load in the main thread) to {MAX_WORKERS}"),
                ),
                "num_workers",
            ));
        }
        let prefetch_factor =
            match (prefetch_factor, num_workers) {
                (Some(_), 0) => return Err((
                    Error::value(
                        "prefetch_factor option could only be specified in multiprocessing. let \
                         num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor \
                         to None.",
                    ),
                    "prefetch_factor",
                )),
                (Some(p), _) if p < 1 => {
                    return Err((
                        Error::value(format!(
                            "prefetch_factor should be a positive integer, not {p}"
                        )),
                        "prefetch_factor",
                    ))
                }
                (Some(p), _) => p as usize,
                (None, _) => 2,
            };
        let (source, map) = dataset.source();
        Ok(DataLoader {
            persistent_workers,
            crew: Mutex::new(None),
            collate_fn,
            worker_init_fn,
            dataset,
            source,
            map,
            batch_size,
            shuffle,
            num_workers: num_workers as usize,
            pin_memory,
            drop_last,
            prefetch_factor,
            batch_sampler,
            sampler: match (sampler, shuffle) {
                (Some(s), _) => s,
                // PyTorch's `RandomSampler(dataset)`, which refuses an
                // empty dataset when the loader is made.
                (None, true) => Arc::new(Sampler::Random(
                    RandomSampler::new(n, false, None)
                        .map_err(|(e, _)| (e, "shuffle"))?
                        .with_generator(generator.clone()),
                )),
                (None, false) => Arc::new(Sampler::Sequential(n)),
            },
            generator,
        })
    }

    /// `len(loader)`: batches per epoch; None where a sampler of the
    /// program's own says (`len_of`).
    pub fn known_len(&self) -> Option<usize> {
        Some(self.len_of(self.drawn().known_len()?))
    }

    /// The batches of a pass whose sampler (`drawn`) deals `n` indices
    /// (a batch sampler's: `n` batches).
    pub fn len_of(&self, n: usize) -> usize {
        match self.batch_sampler.is_some() {
            true => n,
            false => chunks(n, self.batch_size, self.drop_last),
        }
    }

    /// The loader with its samples made by `source` (a `TensorDataset`'s
    /// rows handed to a `collate_fn` through the session).
    pub fn with_source(mut self, source: Arc<Dataset>) -> DataLoader {
        self.source = source;
        self
    }

    /// The persistent workers its last pass left (none before the first
    /// pass, or without `persistent_workers`).
    pub fn kept_crew(&self) -> Option<Crew> {
        crate::runtime::lock::lock(&self.crew).take()
    }

    /// Keeps a pass's persistent workers for the next.
    pub fn keep_crew(&self, crew: Crew) {
        *crate::runtime::lock::lock(&self.crew) = Some(crew);
    }

    /// The sampler a pass draws from: `batch_sampler=`, else `sampler`.
    pub fn drawn(&self) -> &Arc<Sampler> {
        self.batch_sampler.as_ref().unwrap_or(&self.sampler)
    }

    /// How a pass's indices are cut into batches: by the batch sampler's
    /// size, else the loader's.
    fn cut(&self) -> (usize, bool) {
        match self.batch_sampler.as_deref() {
            Some(Sampler::Batch(b)) => (b.batch_size, b.drop_last),
            _ => (self.batch_size, self.drop_last),
        }
    }

    /// One pass's batches from the indices a sampler of the program's own
    /// listed (`Host::given`).
    pub fn given_batches(&self, listed: Listed) -> Batches {
        let (size, drop_last) = self.cut();
        Batches {
            order: match listed {
                Listed::Indices(v) => Order::Listed(v),
                Listed::Batches(b) => Order::Batched(b),
            },
            map: self.map.clone(),
            size,
            drop_last,
            dealt: 0,
        }
    }

    /// One epoch's batches of sample indices, in its sampler's order: in
    /// order (made as asked, as PyTorch's `SequentialSampler` yields them,
    /// so a loader over 10**12 samples starts at once); a `RandomSampler`'s
    /// (`shuffle`), drawn as PyTorch draws them from a seed taken from
    /// `generator` (the cpu's, so `seed` reproduces it), a permutation at
    /// a time; a subset permuted by `generator`; a rank's share. A
    /// permutation held whole, as PyTorch's `randperm(n)` is, is refused
    /// when the host cannot hold it.
    pub fn batches(&self, generator: &mut CpuGenerator) -> Result<Batches, Error> {
        let order = self.drawn().order(generator)?;
        let (size, drop_last) = self.cut();
        Ok(Batches {
            order,
            map: self.map.clone(),
            size,
            drop_last,
            dealt: 0,
        })
    }

    pub fn describe(&self) -> String {
        // With `batch_sampler=` PyTorch's `batch_size` is None and the batch
        // sampler decides the rest.
        let batching = match &self.batch_sampler {
            Some(_) => "batch_sampler=...".to_string(),
            None => format!("batch_size={}", self.batch_size),
        };
        format!(
            "DataLoader({batching}, shuffle={}, num_workers={}, pin_memory={}, drop_last={}{}) \
             over {}: {} batches",
            self.shuffle,
            self.num_workers,
            self.pin_memory,
            self.drop_last,
            match self.num_workers {
                0 => String::new(),
                _ => format!(", prefetch_factor={}", self.prefetch_factor),
            },
            self.dataset.describe(),
            self.known_len()
                .map_or("its sampler's".into(), |n| n.to_string())
        ) + &match &**self.drawn() {
            Sampler::Distributed(s) => format!(" (rank {} of {})", s.rank, s.num_replicas),
            Sampler::Sequential(_) => String::new(),
            Sampler::Random(_) if self.shuffle => String::new(),
            Sampler::Given(g) => format!(" ({}, the program's own sampler)", g.class),
            Sampler::Batch(b) => format!(" (a {})", b.describe_short()),
            other => format!(" (a {})", other.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::dataset::TensorDataset;
    use crate::runtime::Tensor;
    use proptest::prelude::*;

    fn loader(n: usize, batch: i64, shuffle: bool, drop_last: bool) -> DataLoader {
        let x = Arc::new(Tensor::from_vec(
            (0..n as i64).collect::<Vec<i64>>(),
            vec![n],
        ));
        let ds = Arc::new(Dataset::Tensors(TensorDataset::new(vec![x]).unwrap()));
        let options = Options {
            batch_size: batch,
            shuffle,
            num_workers: 0,
            pin_memory: false,
            drop_last,
            prefetch_factor: None,
            sampler: None,
            batch_sampler: None,
            generator: None,
            persistent_workers: false,
            collate_fn: None,
            worker_init_fn: None,
        };
        DataLoader::new(ds, options).unwrap_or_else(|_| panic!())
    }

    proptest! {
        /// Every sample once per epoch (all but the short last batch with
        /// `drop_last`), in order without `shuffle`; `len` counts the batches.
        #[test]
        fn an_epoch_gives_every_sample_once(n in 0usize..300, batch in 1i64..40, shuffle: bool, drop_last: bool, seed in 0u64..1000) {
            // Shuffling nothing is refused (`shuffling_nothing_is_refused`).
            let n = if shuffle { n.max(1) } else { n };
            let l = loader(n, batch, shuffle, drop_last);
            let mut g = CpuGenerator::new(seed);
            let mut made = l.batches(&mut g).unwrap();
            prop_assert_eq!(Some(made.len()), l.known_len());
            let batches: Vec<Vec<usize>> = (0..made.len()).map(|_| made.next_batch()).collect();
            let mut seen: Vec<usize> = batches.concat();
            if !shuffle {
                prop_assert!(seen.windows(2).all(|w| w[0] + 1 == w[1]));
            }
            let kept = if drop_last { n / batch as usize * batch as usize } else { n };
            prop_assert_eq!(seen.len(), kept);
            prop_assert!(batches.iter().all(|b| b.len() == batch as usize || (!drop_last && b.len() < batch as usize)));
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen.len(), kept);
            if !drop_last {
                prop_assert_eq!(seen, (0..n).collect::<Vec<_>>());
            }
        }
    }

    /// PyTorch 2.15: `DataLoader(TensorDataset(torch.zeros(0)),
    /// shuffle=True)` raises, as its `RandomSampler` is made.
    #[test]
    fn shuffling_nothing_is_refused() {
        let x = Arc::new(Tensor::from_vec(Vec::<i64>::new(), vec![0]));
        let ds = Arc::new(Dataset::Tensors(TensorDataset::new(vec![x]).unwrap()));
        let options = Options {
            batch_size: 1,
            shuffle: true,
            num_workers: 0,
            pin_memory: false,
            drop_last: false,
            prefetch_factor: None,
            sampler: None,
            batch_sampler: None,
            generator: None,
            persistent_workers: false,
            collate_fn: None,
            worker_init_fn: None,
        };
        let Err((e, arg)) = DataLoader::new(ds, options) else {
            panic!("an empty dataset was shuffled")
        };
        assert_eq!(
            e.to_string(),
            "num_samples should be a positive integer value, but got num_samples=0"
        );
        assert_eq!(arg, "shuffle");
    }

    #[test]
    fn the_same_seed_gives_the_same_order() {
        let l = loader(100, 10, true, false);
        let a = l.batches(&mut CpuGenerator::new(7)).unwrap();
        let b = l.batches(&mut CpuGenerator::new(7)).unwrap();
        let c = l.batches(&mut CpuGenerator::new(8)).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    /// A dataset of `n` samples held in one element (a stride-0 view).
    fn huge(n: usize, shuffle: bool) -> DataLoader {
        let x = Tensor::from_vec(vec![0i64], vec![1]).view(vec![n], vec![0], 0);
        let ds = Arc::new(Dataset::Tensors(
            TensorDataset::new(vec![Arc::new(x)]).unwrap(),
        ));
        let options = Options {
            batch_size: 1,
            shuffle,
            num_workers: 0,
            pin_memory: false,
            drop_last: false,
            prefetch_factor: None,
            sampler: None,
            batch_sampler: None,
            generator: None,
            persistent_workers: false,
            collate_fn: None,
            worker_init_fn: None,
        };
        DataLoader::new(ds, options).unwrap_or_else(|_| panic!())
    }

    #[test]
    fn a_huge_dataset_in_order_is_batched_lazily() {
        let l = huge(1 << 62, false);
        let mut b = l.batches(&mut CpuGenerator::new(0)).unwrap();
        assert_eq!(b.len(), 1 << 62);
        assert_eq!(b.next_batch(), vec![0]);
        assert_eq!(b.next_batch(), vec![1]);
    }

    #[test]
    fn shuffling_more_than_the_host_holds_is_refused() {
        let l = huge(1 << 62, true);
        let e = l.batches(&mut CpuGenerator::new(0)).unwrap_err();
        assert!(e.to_string().contains("needs a permutation"), "{e}");
        assert!(e.help().unwrap_or_default().contains("randperm"), "{e}");
    }
}
