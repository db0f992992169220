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
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::dataset::TensorDataset;
use super::loader::DataLoader;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::spec::HOST;
use crate::runtime::timeline::Lane;
use crate::runtime::timing;
use crate::runtime::{Device, Tensor};

/// What the timeline calls the loader's work.
const OP: &str = "DataLoader";

pub struct Epoch {
    loader: Arc<DataLoader>,
    batches: Vec<Vec<usize>>,
    /// The next batch to hand out.
    next: usize,
    /// Batches sent to the workers so far.
    sent: usize,
    workers: Vec<Worker>,
    results: Option<Receiver<Done>>,
    arrived: HashMap<usize, Done>,
    /// The modelled clocks: when each worker is free, when each sent
    /// batch is made, when the pin thread is free.
    free: Vec<f64>,
    made: HashMap<usize, f64>,
    pin_free: f64,
}

struct Worker {
    tasks: Option<Sender<(usize, Vec<usize>)>>,
    thread: Option<JoinHandle<()>>,
}

/// A batch a worker made, and when (its wall clock).
struct Done {
    k: usize,
    batch: Result<Vec<Tensor>, Error>,
    began: Instant,
    ended: Instant,
}

impl Epoch {
    /// Starts a pass: the order drawn, the workers started and given
    /// their first batches.
    pub fn start(rt: &mut Runtime, loader: &Arc<DataLoader>) -> Result<Epoch, Error> {
        let batches = loader.batches(rt.generators.of(Device::Cpu));
        let (done, results) = channel();
        let mut workers = Vec::new();
        for w in 0..loader.num_workers {
            let (tasks, inbox) = channel::<(usize, Vec<usize>)>();
            let dataset = Arc::clone(&loader.dataset);
            let done = done.clone();
            let thread = std::thread::Builder::new()
                .name(format!("DataLoader worker {w}"))
                .spawn(move || work(&dataset, &inbox, &done))
                .map_err(|e| Error::value(format!("could not start DataLoader worker {w}: {e}")))?;
            workers.push(Worker {
                tasks: Some(tasks),
                thread: Some(thread),
            });
        }
        let now = rt.host_now();
        let mut epoch = Epoch {
            loader: Arc::clone(loader),
            batches,
            next: 0,
            sent: 0,
            free: vec![now; workers.len()],
            workers,
            results: (loader.num_workers > 0).then_some(results),
            arrived: HashMap::new(),
            made: HashMap::new(),
            pin_free: now,
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

    /// The next batch (one tensor per dataset tensor), None at the end.
    pub fn next(&mut self, rt: &mut Runtime) -> Option<Result<Vec<Arc<Tensor>>, Error>> {
        if self.next >= self.batches.len() {
            return None;
        }
        let k = self.next;
        self.next += 1;
        let made = match self.workers.is_empty() {
            true => self.make_here(rt, k),
            false => self.receive(rt, k),
        };
        let batch = match made {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        let batch = match self.loader.pin_memory {
            true => self.pin(rt, k, batch),
            false => Ok(batch.into_iter().map(Arc::new).collect()),
        };
        if !self.workers.is_empty() && self.sent < self.batches.len() {
            self.send(rt);
        }
        Some(batch)
    }

    /// Sends the next batch's indices to its worker (`sent mod N`).
    fn send(&mut self, rt: &mut Runtime) {
        let k = self.sent;
        self.sent += 1;
        let w = k % self.workers.len();
        let indices = self.batches[k].clone();
        let rows = indices.len();
        if let Some(tasks) = &self.workers[w].tasks {
            // A worker that is gone (it cannot be: it lives until dropped)
            // would leave the batch missing, which `receive` reports.
            let _ = tasks.send((k, indices));
        }
        if rt.host_modelled() {
            let start = self.free[w].max(rt.host_now());
            let end = start + self.cost(rows, 1) * self.contention();
            self.free[w] = end;
            self.made.insert(k, end);
            let bytes = (rows * self.loader.dataset.sample_bytes()) as u64;
            draw(
                rt,
                Lane::Worker(w as u32),
                (start, end),
                bytes,
                format!("batch {k}"),
            );
        }
    }

    /// `num_workers=0`: the main thread makes batch `k` when asked.
    fn make_here(&mut self, rt: &mut Runtime, k: usize) -> Result<Vec<Tensor>, Error> {
        let indices = &self.batches[k];
        let batch = self.loader.dataset.batch(indices)?;
        let rows = indices.len();
        let bytes = (rows * self.loader.dataset.sample_bytes()) as u64;
        rt.host_time(OP, self.cost(rows, HOST.cores), bytes);
        Ok(batch)
    }

    /// Batch `k` from its worker: the main thread waits for it if it is not
    /// made yet (on the modelled clock too).
    fn receive(&mut self, rt: &mut Runtime, k: usize) -> Result<Vec<Tensor>, Error> {
        let began = Instant::now();
        while !self.arrived.contains_key(&k) {
            let Some(results) = &self.results else {
                break;
            };
            match results.recv_timeout(Duration::from_millis(50)) {
                Ok(done) => {
                    self.arrived.insert(done.k, done);
                }
                Err(RecvTimeoutError::Timeout) if rt.interrupted() => {
                    return Err(Error::Interrupted);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let w = k % self.workers.len();
        let done = self
            .arrived
            .remove(&k)
            .ok_or_else(|| Error::value(format!("DataLoader worker {w} exited unexpectedly")))?;
        match rt.host_modelled() {
            true if !self.loader.pin_memory => {
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
        done.batch.map_err(|e| worker_error(e, w))
    }

    /// Batch `k` copied into pinned memory, as the pin thread does: on its
    /// own clock, after the batch is made and the previous one pinned.
    fn pin(
        &mut self,
        rt: &mut Runtime,
        k: usize,
        batch: Vec<Tensor>,
    ) -> Result<Vec<Arc<Tensor>>, Error> {
        let began = Instant::now();
        let mut seconds = 0.0;
        let mut bytes = 0;
        let mut pinned = Vec::with_capacity(batch.len());
        for t in &batch {
            let (p, s) = rt.pin_elsewhere(t)?;
            seconds += s;
            bytes += t.nbytes() as u64;
            pinned.push(Arc::new(p));
        }
        let what = format!("batch {k} (pinned)");
        if self.workers.is_empty() {
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

    /// Modelled host seconds to make a batch of `rows` samples on
    /// `threads` threads: each sample indexed out of each tensor (an eager
    /// op's cost, as `tensor[i]` in PyTorch's `TensorDataset`), then each
    /// tensor's rows stacked into the batch (read and written).
    fn cost(&self, rows: usize, threads: u32) -> f64 {
        let ds = &self.loader.dataset;
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

    /// How much slower each worker runs when the loader's threads (its
    /// workers, the main thread, a pin thread) outnumber the cores.
    fn contention(&self) -> f64 {
        let threads = self.workers.len() + 1 + usize::from(self.loader.pin_memory);
        (threads as f64 / f64::from(HOST.cores)).max(1.0)
    }
}

/// A worker: makes the batches it is sent until the loader is dropped.
fn work(dataset: &TensorDataset, inbox: &Receiver<(usize, Vec<usize>)>, done: &Sender<Done>) {
    while let Ok((k, indices)) = inbox.recv() {
        let began = Instant::now();
        let batch = dataset.batch(&indices);
        let ended = Instant::now();
        if done
            .send(Done {
                k,
                batch,
                began,
                ended,
            })
            .is_err()
        {
            return;
        }
    }
}

/// One piece of a worker's or the pin thread's work on the timeline.
fn draw(rt: &mut Runtime, lane: Lane, span: (f64, f64), bytes: u64, what: String) {
    let name = move || match lane {
        Lane::Worker(w) => format!("worker {w}"),
        _ => "pin_memory".into(),
    };
    rt.draw_thread_work(lane, name, OP, span, bytes, Some(what.into()));
}

/// A worker's error, re-raised in the loop as PyTorch's DataLoader does.
fn worker_error(e: Error, w: usize) -> Error {
    Error::value(format!("Caught an error in DataLoader worker {w}: {e}"))
}

/// No worker outlives its loader's pass: their inboxes close, and each is
/// joined.
impl Drop for Epoch {
    fn drop(&mut self) {
        for w in &mut self.workers {
            w.tasks.take();
        }
        self.results.take();
        for w in &mut self.workers {
            if let Some(t) = w.thread.take() {
                let _ = t.join();
            }
        }
    }
}
