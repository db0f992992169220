//! A `DataLoader`'s worker threads (`num_workers=N`): each makes the
//! batches it is sent, in its own fetcher (a copy of the session, for a
//! `Dataset(get, n)`), and sends them back on the crew's channel. A crew
//! serves one pass (`epoch.rs`), or, with `persistent_workers=True`, every
//! pass of its loader.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::dataset::{
    collate, Collated, Collation, Dataset, FunctionDataset, Sample, TensorDataset,
};
use crate::error::{Diagnostic, Error};
use crate::runtime::dispatch::Runtime;
use crate::runtime::spec::HOST;
use crate::runtime::timing;
use crate::runtime::Tensor;
use crate::vocab::Span;

/// Makes samples of a `Dataset(get, n)` on a worker's thread.
pub trait Fetch {
    fn sample(&mut self, i: usize) -> Result<Sample, Diagnostic>;

    /// Batch `indices` made by the program's `collate_fn` from the samples
    /// (its tensors and where they sit); None without one.
    fn batch(&mut self, indices: &[usize]) -> Option<Result<Collation, Diagnostic>>;

    /// The host's modelled seconds the worker has worked so far.
    fn seconds(&self) -> f64;

    /// What the function printed since the last call (`print`, warnings).
    fn printed(&mut self) -> Vec<Printed>;
}

/// A line a worker's function printed, shown in the loop when its batch
/// is handed out.
pub enum Printed {
    Text(String),
    Warning(String),
    /// What it wrote on `sys.stderr` (a `logging` handler's lines).
    Stderr(String),
    /// A line's start it flushed (a progress bar's redraw).
    Partial {
        stderr: bool,
        text: String,
    },
}

/// Makes a worker's fetcher, on the worker's thread.
pub type WorkerStart = Box<dyn FnOnce() -> Box<dyn Fetch> + Send>;

pub(super) struct Worker {
    tasks: Option<Sender<(usize, Vec<usize>)>>,
    thread: Option<JoinHandle<()>>,
}

/// A loader's worker threads and the channel their batches come back on:
/// started for each pass, or, with `persistent_workers=True`, by the first
/// pass and kept by the loader until it is dropped (as PyTorch keeps its
/// worker processes: their generators, and what the samples' function
/// changed in them, go on from one pass to the next).
pub struct Crew {
    workers: Vec<Worker>,
    pub(super) results: Receiver<Done>,
    /// Set when the crew ends: a worker stops its sample function.
    stop: Arc<AtomicBool>,
    /// Batches of a pass left early still to come back: the next pass
    /// drains them first, as PyTorch's `_reset` does.
    pub(super) owed: usize,
}

/// No worker outlives its crew: their inboxes close, and each is joined.
impl Drop for Crew {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for w in &mut self.workers {
            w.tasks.take();
        }
        for w in &mut self.workers {
            if let Some(t) = w.thread.take() {
                let _ = t.join();
            }
        }
    }
}

impl Crew {
    /// `n` threads making batches of `source`; for a `Dataset(get, n)`,
    /// worker w's fetcher is `fetcher(ds, w, stop)`.
    pub fn start(
        source: &Arc<Dataset>,
        n: usize,
        mut fetcher: impl FnMut(&FunctionDataset, usize, Arc<AtomicBool>) -> WorkerStart,
        span: Span,
    ) -> Result<Crew, Diagnostic> {
        let stop = Arc::new(AtomicBool::new(false));
        let (done, results) = channel();
        let mut workers = Vec::new();
        for w in 0..n {
            let (tasks, inbox) = channel::<(usize, Vec<usize>)>();
            let done = done.clone();
            let job: Box<dyn FnOnce() + Send> = match &**source {
                Dataset::Tensors(_) => {
                    let dataset = Arc::clone(source);
                    Box::new(move || {
                        if let Dataset::Tensors(ds) = &*dataset {
                            work(ds, &inbox, &done, w);
                        }
                    })
                }
                Dataset::Function(ds) => {
                    let start = fetcher(ds, w, Arc::clone(&stop));
                    let stop = Arc::clone(&stop);
                    Box::new(move || fetch_work(start, &inbox, &done, w, &stop))
                }
                Dataset::Subset(_) => unreachable!("a loader's source is below its subsets"),
            };
            let thread = std::thread::Builder::new()
                .name(format!("DataLoader worker {w}"))
                .stack_size(crate::INTERPRETER_STACK)
                .spawn(job)
                .map_err(|e| {
                    Error::value(format!("could not start DataLoader worker {w}: {e}")).at(span)
                })?;
            workers.push(Worker {
                tasks: Some(tasks),
                thread: Some(thread),
            });
        }
        Ok(Crew {
            workers,
            results,
            stop,
            owed: 0,
        })
    }

    /// Sends batch `k`'s indices to worker `w`. A worker that is gone (it
    /// cannot be: it lives until dropped) would leave the batch missing,
    /// which the pass reports when it waits for it.
    pub fn send(&self, w: usize, k: usize, indices: Vec<usize>) {
        if let Some(tasks) = &self.workers[w].tasks {
            let _ = tasks.send((k, indices));
        }
    }

    /// Waits for the batches a pass left early had in flight, and drops
    /// them.
    pub fn drain(&mut self, rt: &mut Runtime, span: Span) -> Result<(), Diagnostic> {
        while self.owed > 0 {
            match self.results.recv_timeout(Duration::from_millis(50)) {
                Ok(_) => self.owed -= 1,
                Err(RecvTimeoutError::Timeout) if rt.interrupted() => {
                    return Err(Error::Interrupted.at(span));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => self.owed = 0,
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for Crew {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Crew({} workers)", self.workers.len())
    }
}

/// A batch a worker made: its tensors and whether a sample was a lone
/// tensor, when (its wall clock), and its modelled host seconds (a
/// `Dataset(get, n)`'s; a `TensorDataset`'s are known when it is sent).
pub(super) struct Done {
    pub k: usize,
    pub batch: Result<Made, Failed>,
    pub began: Instant,
    pub ended: Instant,
    pub seconds: f64,
}

/// A batch made, before it is pinned: one tensor per field of the
/// samples, where they sit (the samples' structure, strings gathered),
/// and what a worker's function printed making it.
pub(super) struct Made {
    pub tensors: Vec<Arc<Tensor>>,
    pub layout: Collated,
    pub printed: Vec<Printed>,
}

impl Made {
    /// A `TensorDataset`'s batch: one tensor per dataset tensor.
    pub fn stacked(tensors: Vec<Tensor>) -> Made {
        Made {
            layout: Collated::Seq(vec![Collated::Field; tensors.len()]),
            tensors: tensors.into_iter().map(Arc::new).collect(),
            printed: Vec::new(),
        }
    }
}

/// A worker's error: raised in the session's function (its diagnostic,
/// the error made the worker's), or by the loader (shown at the loop).
pub(super) enum Failed {
    In(Diagnostic),
    Loop(Box<Error>),
}

/// Modelled host seconds (on `threads` threads) and bytes of stacking the
/// samples into `batch` (`default_collate`: one `stack` per field).
pub(super) fn collate_cost<T: std::borrow::Borrow<Tensor>>(
    batch: &[T],
    threads: u32,
) -> (f64, u64) {
    let bytes: u64 = batch.iter().map(|t| 2 * t.borrow().nbytes() as u64).sum();
    let seconds = batch
        .iter()
        .map(|t| {
            let t = t.borrow();
            HOST.op_overhead + timing::host_op(&HOST, 2 * t.nbytes() as u64, 0, t.numel(), threads)
        })
        .sum();
    (seconds, bytes)
}

/// A `TensorDataset`'s worker: makes the batches it is sent until the
/// loader is dropped.
fn work(
    dataset: &TensorDataset,
    inbox: &Receiver<(usize, Vec<usize>)>,
    done: &Sender<Done>,
    w: usize,
) {
    while let Ok((k, indices)) = inbox.recv() {
        let began = Instant::now();
        let batch = dataset
            .batch(&indices)
            .map(Made::stacked)
            .map_err(|e| Failed::Loop(Box::new(in_worker(e, w, None))));
        let ended = Instant::now();
        let sent = done.send(Done {
            k,
            batch,
            began,
            ended,
            seconds: 0.0,
        });
        if sent.is_err() {
            return;
        }
    }
}

/// A `Dataset(get, n)`'s worker: makes its fetcher, then the batches it
/// is sent (each sample by the session's function, then stacked on its one
/// thread), until the loader is dropped or the pass stops.
fn fetch_work(
    start: WorkerStart,
    inbox: &Receiver<(usize, Vec<usize>)>,
    done: &Sender<Done>,
    w: usize,
    stop: &AtomicBool,
) {
    let mut fetch = start();
    while let Ok((k, indices)) = inbox.recv() {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let began = Instant::now();
        let before = fetch.seconds();
        let batch = fetch_batch(&mut *fetch, &indices, w);
        let collating = batch
            .as_ref()
            .map_or(0.0, |b| collate_cost(&b.tensors, 1).0);
        let seconds = fetch.seconds() - before + collating;
        let ended = Instant::now();
        let sent = done.send(Done {
            k,
            batch,
            began,
            ended,
            seconds,
        });
        if sent.is_err() {
            return;
        }
    }
}

/// The samples at `indices`, made by worker `w`, collated; an error is
/// re-raised as the worker's (with the sample it was making). What the
/// function printed is taken either way.
fn fetch_batch(fetch: &mut dyn Fetch, indices: &[usize], w: usize) -> Result<Made, Failed> {
    if let Some(made) = fetch.batch(indices) {
        let printed = fetch.printed();
        return match made {
            Ok((tensors, layout)) => Ok(Made {
                tensors,
                layout,
                printed,
            }),
            Err(mut d) => {
                let e = std::mem::replace(&mut d.error, Error::Interrupted);
                d.error = in_worker(e, w, None);
                Err(Failed::In(d))
            }
        };
    }
    let mut samples = Vec::with_capacity(indices.len());
    for &i in indices {
        match fetch.sample(i) {
            Ok(s) => samples.push(s),
            Err(mut d) => {
                fetch.printed();
                let e = std::mem::replace(&mut d.error, Error::Interrupted);
                d.error = in_worker(e, w, Some(i));
                return Err(Failed::In(d));
            }
        }
    }
    let printed = fetch.printed();
    match collate(&samples, indices) {
        Ok((tensors, layout)) => Ok(Made {
            tensors: tensors.into_iter().map(Arc::new).collect(),
            layout,
            printed,
        }),
        Err(e) => Err(Failed::Loop(Box::new(in_worker(e, w, None)))),
    }
}

/// `e`, as the worker `w` caught it making `sample`.
fn in_worker(e: Error, w: usize, sample: Option<usize>) -> Error {
    match e {
        // Ctrl-C, or the pass ending, stops a worker as it stops the loop.
        Error::Interrupted => Error::Interrupted,
        e => Error::Worker {
            worker: w,
            sample,
            error: Box::new(e),
        },
    }
}
