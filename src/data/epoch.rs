//! One pass over a `DataLoader` (what `for xb, tb in loader` runs).
//!
//! With `num_workers=N` there are N real worker threads. As PyTorch's
//! `_MultiProcessingDataLoaderIter`: batch `k` goes to worker `k mod N`,
//! `prefetch_factor` batches per worker are in flight from the start, each
//! batch handed out sends the next one's indices, and batches are handed
//! out in order whichever worker finishes first. `num_workers=0` makes each
//! batch on the main thread when it is asked for. With `pin_memory=true`
//! each batch is copied into pinned memory, as PyTorch's pin thread does,
//! so `.to(cuda, non_blocking=true)` is asynchronous.
//!
//! Time: where the host's time is modelled (`sim`, `emu`) each worker has
//! its own clock on the reference CPU (one thread each, as PyTorch sets its
//! workers; slower in proportion when the threads outnumber its cores), so
//! does the pin thread, and the main thread waits, on its clock, for the
//! batch it asks for; `profile` draws a lane per worker and one for the pin
//! thread. Where it is measured (a GPU) the lanes are the threads' own wall
//! clock times. The bytes and the order are the same either way.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::crew::{collate_cost, Crew, Done, Failed, Made};
pub use super::crew::{Fetch, Printed, WorkerStart};
use super::dataset::{
    collate, Collated, Collation, Dataset, FunctionDataset, Opaque, Sample, TensorDataset,
};
use super::loader::{Batches, DataLoader, Given, Listed};
use crate::autograd::meta::requires_grad;
use crate::autograd::{record, Mode};
use crate::error::{Diagnostic, Error};
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::index::{self, Index};
use crate::runtime::spec::HOST;
use crate::runtime::timeline::Lane;
use crate::runtime::timing;
use crate::runtime::Tensor;
use crate::vocab::Span;

/// Which worker of a pass a worker is, and the pass's base seed
/// (`torch.utils.data.get_worker_info()`'s `id`, `num_workers`, `seed`).
#[derive(Debug, Clone, Copy)]
pub struct WorkerSeat {
    pub id: usize,
    pub num_workers: usize,
    pub base_seed: u64,
}

impl WorkerSeat {
    /// The worker's seed: its torch generator's and Python `random`'s
    /// (`base_seed + id`, as PyTorch's `_worker_loop`).
    pub fn seed(&self) -> u64 {
        self.base_seed.wrapping_add(self.id as u64)
    }
}

/// What the timeline calls the loader's work.
const OP: &str = "DataLoader";

/// What a pass needs of the session: the main thread's runtime, and for a
/// `Dataset(get, n)`, its function run on the main thread or on a worker's.
pub trait Host {
    fn runtime(&mut self) -> &mut Runtime;

    /// Whether autograd records now (grad mode): a batch made on the main
    /// thread from tensors that require grad keeps their history.
    fn grad_mode(&self) -> Mode;

    /// Sample `i` of `ds`, made on the main thread (`num_workers=0`).
    fn sample(&mut self, ds: &FunctionDataset, i: usize) -> Result<Sample, Diagnostic>;

    /// Batch `indices` of `ds` made by the program's `collate_fn` from the
    /// samples, on the main thread (`num_workers=0`): its tensors and where
    /// they sit.
    fn batch(
        &mut self,
        ds: &FunctionDataset,
        collate_fn: &Opaque,
        indices: &[usize],
    ) -> Result<Collation, Diagnostic>;

    /// What a worker runs on its own thread to make samples of `ds` (and,
    /// with a `collate_fn`, batches): a fetcher made there from the session
    /// as it is now (PyTorch's workers start as copies of the process at
    /// `iter(loader)`), its generators seeded as `seat` says, stopped early
    /// when `stop` is set.
    fn worker(
        &mut self,
        ds: &FunctionDataset,
        collate_fn: Option<&Opaque>,
        worker_init_fn: Option<&Opaque>,
        seat: WorkerSeat,
        stop: Arc<AtomicBool>,
    ) -> WorkerStart;

    /// A pass's indices from a sampler of the program's own (its
    /// `__iter__` run to its end, on the main thread, as the pass begins).
    fn given(&mut self, sampler: &Given, span: Span) -> Result<Listed, Diagnostic>;
}

/// A batch as the loop gets it: one tensor per field of the samples, and
/// where each sits (a lone tensor when each sample was one: `for xb in
/// loader`; a list, a dict; each string field the list of the samples').
pub struct Batch {
    pub tensors: Vec<Arc<Tensor>>,
    pub layout: Collated,
    /// What a worker's function printed making it.
    pub printed: Vec<Printed>,
}

pub struct Epoch {
    loader: Arc<DataLoader>,
    /// The loop's, for the errors of the pass.
    span: Span,
    batches: Batches,
    /// The next batch to hand out.
    next: usize,
    /// Batches sent to the workers so far.
    sent: usize,
    /// The worker threads; none with `num_workers=0`.
    crew: Option<Crew>,
    /// Batches that came back from the workers so far.
    received: usize,
    arrived: HashMap<usize, Done>,
    /// The modelled clocks: when each worker is free, when each sent
    /// batch is made, when the pin thread is free.
    free: Vec<f64>,
    made: HashMap<usize, f64>,
    /// When each batch of a `Dataset(get, n)` was sent (its cost is known
    /// once it is made).
    sent_at: HashMap<usize, f64>,
    pin_free: f64,
    /// Whether batches are pinned: `pin_memory=true` where there is a CUDA
    /// device (without one PyTorch warns and does not pin).
    pin: bool,
}

impl Epoch {
    /// Whether workers make its batches (PyTorch's
    /// `_MultiProcessingDataLoaderIter`; else `_SingleProcessDataLoaderIter`).
    pub fn has_workers(&self) -> bool {
        self.crew.is_some()
    }

    /// Starts a pass: the order drawn, the workers started and given
    /// their first batches.
    pub fn start(
        host: &mut dyn Host,
        loader: &Arc<DataLoader>,
        span: Span,
        pin: bool,
    ) -> Result<Epoch, Diagnostic> {
        // A loader with persistent workers keeps them from its first pass:
        // PyTorch draws the worker seed only when it starts them.
        let kept = match loader.kept_crew() {
            Some(mut crew) => {
                crew.drain(host.runtime(), span)?;
                Some(crew)
            }
            None => None,
        };
        // PyTorch draws the pass's worker seed first (from the loader's
        // `generator=`, else the cpu's), then the sampler's order (its
        // iterator starts lazily), whether or not there are workers.
        let base_seed = match (&kept, &loader.generator) {
            (Some(_), _) => 0,
            (None, Some(g)) => g.random_int64(),
            (None, None) => host.runtime().generators.cpu().random64() & i64::MAX as u64,
        };
        let batches = match loader.drawn().given() {
            Some(given) => {
                let listed = host.given(given, span)?;
                loader.given_batches(listed)
            }
            None => loader
                .batches(host.runtime().generators.cpu())
                .map_err(|e| e.at(span))?,
        };
        let crew = match (kept, loader.num_workers) {
            (Some(crew), _) => Some(crew),
            (None, 0) => None,
            (None, n) => Some(Crew::start(
                &loader.source,
                n,
                |ds, w, stop| {
                    let seat = WorkerSeat {
                        id: w,
                        num_workers: n,
                        base_seed,
                    };
                    host.worker(
                        ds,
                        loader.collate_fn.as_ref(),
                        loader.worker_init_fn.as_ref(),
                        seat,
                        stop,
                    )
                },
                span,
            )?),
        };
        let rt = host.runtime();
        let now = rt.host_now();
        let mut epoch = Epoch {
            loader: Arc::clone(loader),
            span,
            batches,
            next: 0,
            sent: 0,
            free: vec![now; loader.num_workers],
            crew,
            received: 0,
            arrived: HashMap::new(),
            made: HashMap::new(),
            sent_at: HashMap::new(),
            pin_free: now,
            pin,
        };
        let first = (loader.num_workers * loader.prefetch_factor).min(epoch.batches.len());
        while epoch.sent < first {
            epoch.send(rt);
        }
        Ok(epoch)
    }

    pub fn len(&self) -> usize {
        self.batches.len()
    }

    pub fn is_empty(&self) -> bool {
        self.batches.is_empty()
    }

    /// The next batch, None at the end.
    pub fn next(&mut self, host: &mut dyn Host) -> Option<Result<Batch, Diagnostic>> {
        if self.next >= self.batches.len() {
            return None;
        }
        let k = self.next;
        self.next += 1;
        let made = match self.crew.is_none() {
            true => self.make_here(host),
            false => self.receive(host.runtime(), k),
        };
        let Made {
            tensors,
            layout,
            printed,
        } = match made {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        let rt = host.runtime();
        let tensors = match self.pin {
            true => self.pin(rt, k, tensors).map_err(|e| e.at(self.span)),
            false => Ok(tensors),
        };
        if self.crew.is_some() && self.sent < self.batches.len() {
            self.send(rt);
        }
        Some(tensors.map(|tensors| Batch {
            tensors,
            layout,
            printed,
        }))
    }

    /// Sends the next batch's indices to its worker (`sent mod N`).
    fn send(&mut self, rt: &mut Runtime) {
        let k = self.sent;
        self.sent += 1;
        let w = k % self.loader.num_workers;
        let indices = self.batches.next_batch();
        let rows = indices.len();
        if let Some(crew) = &self.crew {
            crew.send(w, k, indices);
        }
        if !rt.host_modelled() {
            return;
        }
        match &*self.loader.source {
            Dataset::Tensors(ds) => {
                let bytes = (rows * ds.sample_bytes()) as u64;
                self.schedule(rt, k, rt.host_now(), cost(ds, rows, 1), bytes);
            }
            // Its cost is known once the worker has made it (`receive`).
            Dataset::Function(_) | Dataset::Subset(_) => {
                self.sent_at.insert(k, rt.host_now());
            }
        }
    }

    /// Batch `k`, sent at `sent`, made by its worker in `seconds` of one
    /// thread (modelled): on the worker's clock after its earlier batches,
    /// slower when the loader's threads outnumber the cores.
    fn schedule(&mut self, rt: &mut Runtime, k: usize, sent: f64, seconds: f64, bytes: u64) {
        let w = k % self.loader.num_workers;
        let start = self.free[w].max(sent);
        let end = start + seconds * self.contention();
        self.free[w] = end;
        self.made.insert(k, end);
        draw(
            rt,
            Lane::Worker(w as u32),
            (start, end),
            bytes,
            format!("batch {k}"),
        );
    }

    /// `num_workers=0`: the main thread makes batch `k` when asked (a
    /// `Dataset(get, n)`'s function runs in the session, its ops taking the
    /// host's time as any; then the samples are stacked).
    fn make_here(&mut self, host: &mut dyn Host) -> Result<Made, Diagnostic> {
        let indices = &self.batches.next_batch();
        let rows = indices.len();
        let mode = host.grad_mode();
        let at = |e: Error| e.at(self.span);
        match &*self.loader.source {
            Dataset::Tensors(ds) => {
                let batch = ds.batch(indices).map_err(at)?;
                let bytes = (rows * ds.sample_bytes()) as u64;
                host.runtime()
                    .host_time(OP, cost(ds, rows, HOST.cores), bytes);
                let mut made = Made::stacked(batch);
                // PyTorch's TensorDataset gives `t[i]` (SelectBackward0) and
                // `default_collate` stacks them (StackBackward0).
                for (t, out) in ds.tensors.iter().zip(&mut made.tensors) {
                    if mode.enabled && requires_grad(t) {
                        let rt = host.runtime();
                        let rows = indices
                            .iter()
                            .map(|&i| {
                                let idx = [Index::At(i as i64)];
                                let row = Arc::new(index::select(t, &idx)?);
                                record::index(rt, mode, t, row, &idx)
                            })
                            .collect::<Result<Vec<_>, _>>()
                            .map_err(at)?;
                        let refs: Vec<&Tensor> = rows.iter().map(|r| r.as_ref()).collect();
                        *out =
                            record::join(rt, mode, &refs, Arc::clone(out), 0, true).map_err(at)?;
                    }
                }
                Ok(made)
            }
            Dataset::Function(ds) if self.loader.collate_fn.is_some() => {
                let collate_fn = self
                    .loader
                    .collate_fn
                    .as_ref()
                    .unwrap_or_else(|| unreachable!());
                let (tensors, layout) = host.batch(ds, collate_fn, indices)?;
                let (seconds, bytes) = collate_cost(&tensors, HOST.cores);
                host.runtime().host_time(OP, seconds, bytes);
                Ok(Made {
                    tensors,
                    layout,
                    printed: Vec::new(),
                })
            }
            Dataset::Function(ds) => {
                let samples = indices
                    .iter()
                    .map(|&i| host.sample(ds, i))
                    .collect::<Result<Vec<_>, _>>()?;
                let (batch, layout) = collate(&samples, indices).map_err(at)?;
                let (seconds, bytes) = collate_cost(&batch, HOST.cores);
                let rt = host.runtime();
                rt.host_time(OP, seconds, bytes);
                // The samples' history goes on through the stack, as
                // `default_collate`'s `torch.stack` records it.
                let tensors = batch
                    .into_iter()
                    .enumerate()
                    .map(|(j, out)| {
                        let column: Vec<&Tensor> = samples.iter().map(|s| &*s.fields[j]).collect();
                        record::join(rt, mode, &column, Arc::new(out), 0, true)
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(at)?;
                Ok(Made {
                    tensors,
                    layout,
                    printed: Vec::new(),
                })
            }
            Dataset::Subset(_) => unreachable!("a loader's source is below its subsets"),
        }
    }

    /// Batch `k` from its worker: the main thread waits for it if it is not
    /// made yet (on the modelled clock too).
    fn receive(&mut self, rt: &mut Runtime, k: usize) -> Result<Made, Diagnostic> {
        let began = Instant::now();
        while !self.arrived.contains_key(&k) {
            let Some(crew) = &self.crew else {
                break;
            };
            match crew.results.recv_timeout(Duration::from_millis(50)) {
                Ok(done) => {
                    self.received += 1;
                    self.arrived.insert(done.k, done);
                }
                Err(RecvTimeoutError::Timeout) if rt.interrupted() => {
                    return Err(Error::Interrupted.at(self.span));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let w = k % self.loader.num_workers;
        let done = self.arrived.remove(&k).ok_or_else(|| {
            Error::value(format!("DataLoader worker {w} exited unexpectedly")).at(self.span)
        })?;
        if let (true, Some(sent)) = (rt.host_modelled(), self.sent_at.remove(&k)) {
            let bytes = done
                .batch
                .as_ref()
                .map_or(0, |b| b.tensors.iter().map(|t| t.nbytes() as u64).sum());
            self.schedule(rt, k, sent, done.seconds, bytes);
        }
        match rt.host_modelled() {
            true if !self.pin => {
                let made = self.made.remove(&k).unwrap_or_default();
                rt.host_wait_until(OP, made, &format!("batch {k} (worker {w})"));
            }
            true => {}
            false => {
                rt.host_waited(OP, began, &format!("batch {k} (worker {w})"));
                if let (Some(a), Some(z)) = (
                    rt.measured_seconds(done.began),
                    rt.measured_seconds(done.ended),
                ) {
                    draw(rt, Lane::Worker(w as u32), (a, z), 0, format!("batch {k}"));
                }
            }
        }
        done.batch.map_err(|failed| match failed {
            Failed::In(d) => d,
            Failed::Loop(e) => e.at(self.span),
        })
    }

    /// Batch `k` copied into pinned memory, as the pin thread does: on its
    /// own clock, after the batch is made and the previous one pinned.
    fn pin(
        &mut self,
        rt: &mut Runtime,
        k: usize,
        batch: Vec<Arc<Tensor>>,
    ) -> Result<Vec<Arc<Tensor>>, Error> {
        let began = Instant::now();
        let mut seconds = 0.0;
        let mut bytes = 0;
        let mut pinned = Vec::with_capacity(batch.len());
        // PyTorch's pin thread copies on one core (`torch.set_num_threads(1)`
        // in `_pin_memory_loop`); with `num_workers=0` the main thread pins,
        // its copy spread over all its cores as any large CPU copy.
        let threads = match self.crew.is_none() {
            true => HOST.cores,
            false => 1,
        };
        for t in &batch {
            let (p, s) = rt.pin_elsewhere(t, threads)?;
            seconds += s;
            bytes += t.nbytes() as u64;
            pinned.push(Arc::new(p));
        }
        let what = format!("batch {k} (pinned)");
        if self.crew.is_none() {
            // `num_workers=0`: the main thread pins, as PyTorch's does.
            rt.host_time(OP, seconds, bytes);
            return Ok(pinned);
        }
        match rt.host_modelled() {
            true => {
                let made = self.made.remove(&k).unwrap_or_default();
                let start = self.pin_free.max(made);
                let end = start + seconds;
                self.pin_free = end;
                draw(rt, Lane::PinThread, (start, end), bytes, what.clone());
                rt.host_wait_until(OP, end, &what);
            }
            false => {
                if let (Some(a), Some(z)) = (
                    rt.measured_seconds(began),
                    rt.measured_seconds(Instant::now()),
                ) {
                    draw(rt, Lane::PinThread, (a, z), bytes, what);
                }
            }
        }
        Ok(pinned)
    }

    /// How much slower each worker runs when the loader's threads (its
    /// workers, the main thread, a pin thread) outnumber the cores.
    fn contention(&self) -> f64 {
        let threads = self.loader.num_workers + 1 + usize::from(self.pin);
        (threads as f64 / f64::from(HOST.cores)).max(1.0)
    }
}

/// Modelled host seconds to make a batch of `rows` samples of `ds` on
/// `threads` threads: each sample indexed out of each tensor (an eager
/// op's cost, as `tensor[i]` in PyTorch's `TensorDataset`), then each
/// tensor's rows stacked into the batch (read and written).
fn cost(ds: &TensorDataset, rows: usize, threads: u32) -> f64 {
    ds.tensors
        .iter()
        .map(|t| {
            let row = t.nbytes() / t.shape()[0].max(1);
            let elements = rows * (t.numel() / t.shape()[0].max(1));
            rows as f64 * HOST.op_overhead
                + timing::host_op(&HOST, (2 * rows * row) as u64, 0, elements, threads)
        })
        .sum()
}

/// One piece of a worker's or the pin thread's work on the timeline.
fn draw(rt: &mut Runtime, lane: Lane, span: (f64, f64), bytes: u64, what: String) {
    let name = move || match lane {
        Lane::Worker(w) => format!("worker {w}"),
        _ => "pin_memory".into(),
    };
    rt.draw_thread_work(lane, name, OP, span, bytes, Some(what.into()));
}

impl std::fmt::Debug for Epoch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Epoch")
            .field("batches", &self.batches.len())
            .field("next", &self.next)
            .field("workers", &self.loader.num_workers)
            .finish()
    }
}

/// A pass's workers end with it (their crew's drop), or, persistent, go
/// back to the loader.
impl Drop for Epoch {
    fn drop(&mut self) {
        let Some(crew) = self.crew.take() else {
            return;
        };
        if !self.loader.persistent_workers {
            return; // the crew's own drop ends its workers
        }
        // Persistent workers wait for the loader's next pass, which first
        // takes what this one left in flight.
        let mut crew = crew;
        crew.owed = self.sent - self.received;
        self.loader.keep_crew(crew);
    }
}
