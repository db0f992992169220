//! CUDA graphs (`torch.cuda.graph`, `CUDAGraph`): the work a side stream
//! queues between `capture_begin` and `capture_end` is recorded, not run,
//! and `replay` runs all of it again on the same memory.
//!
//! As in CUDA, a captured op is kept with the tensors it reads and the
//! memory it writes. Capture computes an op's result once (its shape, its
//! block) and leaves the block as fresh memory reads (zeros): the work runs
//! at each replay, not at capture. An in-place op (`add_`, `copy_`, an
//! optimizer's update) is not run at capture at all. A replay reruns each
//! op's computation in order, reading what its inputs hold then, and writes
//! each result into the block the capture gave it: on a driver's device
//! the kernels write there directly (`OnDevice::alloc` hands out the
//! captured blocks), on a simulated one the host's result is copied in.
//! Nothing is allocated by a replay, and its kernels cost the host one
//! launch, the graph's.
//!
//! What the capture cannot record (a host read, a synchronization, an op
//! cudash cannot replay yet) is an error while capturing; a sync also
//! invalidates the capture, as CUDA's `cudaErrorStreamCaptureUnsupported`
//! does.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::device::ReplayOutputs;
use super::Runtime;
use crate::error::Error;
use crate::runtime::alloc::MempoolId;
use crate::runtime::gpu::Gpu;
use crate::runtime::lock::lock;
use crate::runtime::stream::StreamKey;
use crate::runtime::timeline::HostCall;
use crate::runtime::timing::Work;
use crate::runtime::{Device, Tensor, WeakTensor};

/// An op's computation, as a replay runs it again: the op's inputs in,
/// its new results out (none for an op that writes in place).
pub(super) type Redo =
    Box<dyn Fn(&mut Runtime, &[&Tensor]) -> Result<Vec<Tensor>, Error> + Send + Sync>;

/// Memory a captured op reads or writes: a tensor the graph keeps (one
/// made before the capture: a static input, a parameter), or a view of the
/// result of an earlier op of the graph, which the graph does not keep: the
/// program's tensor while it holds one, else a temporary of the replay.
enum Src {
    Kept(Tensor),
    Made {
        slot: usize,
        shape: Vec<usize>,
        strides: Vec<isize>,
        offset: usize,
    },
}

/// One captured op.
struct Step {
    redo: Redo,
    /// The tensors it reads.
    inputs: Vec<Src>,
    /// The memory it writes: its results, in order (each a new slot), or
    /// the tensor it updates.
    dests: Vec<Src>,
    in_place: bool,
    /// Its items on the stream (an op of two results queues two).
    work: Vec<Work>,
    /// The op, as `profile` and `torch.profiler` label its kernels.
    op: &'static str,
}

/// An op the current capture has computed and not yet queued: `issue`
/// turns it into a step.
struct Pending {
    redo: Redo,
    inputs: Vec<Tensor>,
    /// An in-place op's tensor.
    target: Option<Tensor>,
    /// How many results the op finishes (each one an `issue`).
    results: usize,
}

/// A capture under way: the graph, the stream it records, its steps.
pub(super) struct Capture {
    graph: Arc<CudaGraph>,
    stream: StreamKey,
    /// The private memory pool its allocations come from.
    pool: MempoolId,
    steps: Vec<Step>,
    pending: Option<Pending>,
    /// The results of the ops captured so far, not kept (`Src::Made`).
    slots: Slots,
    /// Results the last step still has to finish (an op of several).
    open: usize,
    /// What made the capture invalid (a sync was attempted): `capture_end` fails.
    invalid: Option<Refused>,
}

/// `torch.cuda.CUDAGraph`: empty until a capture ends, then its steps.
#[derive(Default)]
pub struct CudaGraph {
    state: Mutex<GraphState>,
}

#[derive(Default)]
struct GraphState {
    capturing: bool,
    captured: Option<Captured>,
    /// The private memory pool its capture allocated from, kept reserved
    /// while the graph holds its capture.
    pool: Option<PoolUse>,
}

/// A graph's use of a private memory pool of a device's allocator: while
/// it lasts, `empty_cache()` leaves the pool's memory reserved (the graph's
/// kernels write there at each replay). PyTorch's `releasePool` when it goes.
struct PoolUse {
    gpu: Arc<Mutex<Gpu>>,
    id: MempoolId,
}

impl Drop for PoolUse {
    fn drop(&mut self) {
        lock(&self.gpu).allocator.release_pool(self.id);
    }
}

struct Captured {
    device: u32,
    steps: Vec<Step>,
    slots: Vec<WeakTensor>,
}

/// The results of a capture's ops, not kept, found by their memory.
#[derive(Default)]
struct Slots {
    results: Vec<WeakTensor>,
    by_storage: HashMap<usize, usize>,
}

impl Slots {
    /// `t` as a step sees it: a view of an earlier step's result, or kept.
    fn source(&self, t: Tensor) -> Src {
        match self.by_storage.get(&t.storage_id()) {
            Some(&slot) => Src::Made {
                slot,
                shape: t.shape().to_vec(),
                strides: t.strides().to_vec(),
                offset: t.offset(),
            },
            None => Src::Kept(t),
        }
    }

    /// A new result of a step: a slot of its own. (While the slot lives,
    /// no other memory can have the result's storage id.)
    fn add(&mut self, t: &Tensor) -> Src {
        self.by_storage.insert(t.storage_id(), self.results.len());
        self.results.push(t.downgrade());
        self.source(t.alias())
    }
}

/// The tensor `src` names in a replay whose slots hold `live`.
fn resolve(src: &Src, live: &[Option<Tensor>]) -> Result<Tensor, Error> {
    match src {
        Src::Kept(t) => Ok(t.alias()),
        Src::Made {
            slot,
            shape,
            strides,
            offset,
        } => live[*slot]
            .as_ref()
            .map(|t| t.view(shape.clone(), strides.clone(), *offset))
            .ok_or_else(|| Error::value("internal error: a graph's step read a result not made")),
    }
}

impl std::fmt::Debug for CudaGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = lock(&self.state);
        let steps = s.captured.as_ref().map_or(0, |c| c.steps.len());
        write!(f, "CUDAGraph({steps} captured ops)")
    }
}

impl CudaGraph {
    pub fn new() -> Arc<CudaGraph> {
        Arc::new(CudaGraph::default())
    }
}

/// What a capture was refused: a host read, or the host waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    HostRead,
    Sync,
}

impl Refused {
    fn what(self) -> &'static str {
        match self {
            Refused::HostRead => {
                "a host read of a device tensor (`print(x)`, `.item()`, `.tolist()`, `.cpu()`)"
            }
            Refused::Sync => {
                "the host waiting for the device (`torch.cuda.synchronize()`, \
                 `s.synchronize()`, an event's `.synchronize()`)"
            }
        }
    }
}

/// PyTorch's message for a sync or host read while a stream captures.
fn not_permitted(why: Refused) -> Error {
    Error::Module {
        class: "RuntimeError",
        message: "CUDA error: operation not permitted when stream is capturing\n\
                  CUDA kernel errors might be asynchronously reported at some other API call, \
                  so the stacktrace below might be incorrect.\n\
                  For debugging consider passing CUDA_LAUNCH_BLOCKING=1"
            .into(),
        help: Some(format!(
            "{} waits for work a capture only records: read the graph's outputs after the \
             capture ends and the graph is replayed",
            why.what()
        )),
    }
}

impl Runtime {
    /// Whether new work on `device` goes into a graph being captured.
    #[inline]
    pub(super) fn capturing_on(&self, device: Device) -> bool {
        match (&self.capture, device) {
            (None, _) => false,
            (Some(c), Device::Cuda(d)) => c.stream.device == d && self.stream_on(d) == c.stream,
            _ => false,
        }
    }

    /// Whether the current stream of the current device is capturing
    /// (`torch.cuda.is_current_stream_capturing()`).
    pub fn is_current_stream_capturing(&self) -> bool {
        self.capture
            .as_ref()
            .is_some_and(|c| self.stream_on(self.current_device) == c.stream)
    }

    /// An op's new result, `f` of its `inputs` (a `Compute` call). While
    /// its device's stream captures, `f` is kept for the replays; the
    /// result's block then reads as fresh memory until the first replay
    /// (`issue` clears it).
    pub(super) fn made<F>(
        &mut self,
        device: Device,
        inputs: &[&Tensor],
        f: F,
    ) -> Result<Tensor, Error>
    where
        F: Fn(&mut Runtime, &[&Tensor]) -> Result<Tensor, Error> + Send + Sync + 'static,
    {
        if !self.capturing_on(device) {
            return f(self, inputs);
        }
        let out = f(self, inputs)?;
        self.pend(
            Box::new(move |rt, t| f(rt, t).map(|o| vec![o])),
            inputs,
            None,
            1,
        );
        Ok(out)
    }

    /// As `made`, for an op of two results (sort, topk, max_pool2d).
    pub(super) fn made2<F>(
        &mut self,
        device: Device,
        inputs: &[&Tensor],
        f: F,
    ) -> Result<(Tensor, Tensor), Error>
    where
        F: Fn(&mut Runtime, &[&Tensor]) -> Result<(Tensor, Tensor), Error> + Send + Sync + 'static,
    {
        if !self.capturing_on(device) {
            return f(self, inputs);
        }
        let out = f(self, inputs)?;
        let redo: Redo = Box::new(move |rt, t| f(rt, t).map(|(a, b)| vec![a, b]));
        self.pend(redo, inputs, None, 2);
        Ok(out)
    }

    /// As `made`, for fused attention's forward (its output, then the
    /// log-sum-exp the same kernel writes) and backward (three gradients).
    pub(super) fn made_n<F>(
        &mut self,
        device: Device,
        inputs: &[&Tensor],
        f: F,
    ) -> Result<Vec<Tensor>, Error>
    where
        F: Fn(&mut Runtime, &[&Tensor]) -> Result<Vec<Tensor>, Error> + Send + Sync + 'static,
    {
        if !self.capturing_on(device) {
            return f(self, inputs);
        }
        let out = f(self, inputs)?;
        let n = out.len();
        self.pend(Box::new(f), inputs, None, n);
        Ok(out)
    }

    /// A factory's new tensor, finished by `f` itself (`Compute::make`):
    /// kept for the replays as `made` keeps an op.
    pub(super) fn made_finished<F>(&mut self, device: Device, f: F) -> Result<Arc<Tensor>, Error>
    where
        F: Fn(&mut Runtime) -> Result<Arc<Tensor>, Error> + Send + Sync + 'static,
    {
        if !self.capturing_on(device) {
            return f(self);
        }
        // `f` queues its kernel itself: the step is pending before it runs.
        let f = Arc::new(f);
        let again = Arc::clone(&f);
        self.pend(
            Box::new(move |rt, _| again(rt).map(|t| vec![t.alias()])),
            &[],
            None,
            1,
        );
        let out = f(self);
        // A factory that failed, or queued nothing (`empty`), leaves no step.
        self.drop_pending();
        out
    }

    /// An op that writes `target` in place, `f` of its `inputs`. While its
    /// device's stream captures, `f` is kept for the replays and not run:
    /// captured work runs when the graph is replayed.
    pub(super) fn in_place<F>(
        &mut self,
        target: &Tensor,
        inputs: &[&Tensor],
        f: F,
    ) -> Result<(), Error>
    where
        F: Fn(&mut Runtime, &[&Tensor]) -> Result<(), Error> + Send + Sync + 'static,
    {
        if !self.capturing_on(target.device()) {
            return f(self, inputs);
        }
        self.pend(
            Box::new(move |rt, t| f(rt, t).map(|()| Vec::new())),
            inputs,
            Some(target),
            1,
        );
        Ok(())
    }

    fn pend(&mut self, redo: Redo, inputs: &[&Tensor], target: Option<&Tensor>, results: usize) {
        if let Some(c) = self.capture.as_mut() {
            c.open = 0;
            c.pending = Some(Pending {
                redo,
                inputs: inputs.iter().map(|t| t.alias()).collect(),
                target: target.map(Tensor::alias),
                results,
            });
        }
    }

    /// Drops a step an op computed and did not queue (it failed first).
    pub(super) fn drop_pending(&mut self) {
        if let Some(c) = self.capture.as_mut() {
            c.pending = None;
            c.open = 0;
        }
    }

    /// For `issue`: while device `d`'s current stream captures, `work` is
    /// the pending op's kernel and becomes a step of the graph (an error
    /// for work cudash cannot replay). True when captured: the work is
    /// not queued.
    pub(super) fn capture_work(
        &mut self,
        d: u32,
        work: Work,
        out: Option<&Tensor>,
    ) -> Result<bool, Error> {
        if !self.capturing_on(Device::Cuda(d)) {
            return Ok(false);
        }
        let op = self.op;
        let Some(c) = self.capture.as_mut() else {
            return Ok(false);
        };
        if c.open > 0 {
            // The next result of the last step's op.
            c.open -= 1;
            let step = c.steps.last_mut().expect("an open step exists");
            if let Some(t) = out {
                t.clear_unwritten();
                step.dests.push(c.slots.add(t));
            }
            step.work.push(work);
            return Ok(true);
        }
        let Some(p) = c.pending.take() else {
            return Err(Error::NotAvailable {
                message: format!("cudash cannot capture `{op}` into a CUDA graph"),
                help: "capture elementwise ops, reductions, products, copies on the device, \
                       factories and in-place updates; run this op outside the graph"
                    .into(),
            });
        };
        if work.is_empty() && p.results == 1 {
            return Ok(true);
        }
        let in_place = p.target.is_some();
        let dests = match (p.target, out) {
            (Some(t), _) => vec![c.slots.source(t)],
            (None, Some(t)) => {
                // Captured work does not run: the result's block holds what
                // fresh memory holds until a replay writes it.
                t.clear_unwritten();
                vec![c.slots.add(t)]
            }
            (None, None) => Vec::new(),
        };
        let inputs = p.inputs.into_iter().map(|t| c.slots.source(t)).collect();
        c.open = p.results - 1;
        c.steps.push(Step {
            redo: p.redo,
            inputs,
            dests,
            in_place,
            work: vec![work],
            op,
        });
        Ok(true)
    }

    /// For `finish_unwritten`: a result the last step's kernel writes
    /// without an item of its own (attention's log-sum-exp).
    pub(super) fn capture_unwritten(&mut self, out: &Tensor) {
        if !self.capturing_on(out.device()) {
            return;
        }
        if let Some(c) = self.capture.as_mut().filter(|c| c.open > 0) {
            c.open -= 1;
            if let Some(step) = c.steps.last_mut() {
                out.clear_unwritten();
                step.dests.push(c.slots.add(out));
            }
        }
    }

    /// A sync or a host read while a capture is under way: CUDA's error,
    /// and the capture is invalid from now on.
    pub(super) fn refuse_sync_while_capturing(&mut self, why: Refused) -> Result<(), Error> {
        match self.capture.as_mut() {
            Some(c) => {
                c.invalid = Some(why);
                Err(not_permitted(why))
            }
            None => Ok(()),
        }
    }

    /// Waits and event records that touch a capturing stream: CUDA
    /// captures them (a capture forking into other streams and joining
    /// back); cudash captures one stream, and says so.
    pub(super) fn check_capture_crossing(&self, streams: &[StreamKey]) -> Result<(), Error> {
        match &self.capture {
            Some(c) if streams.contains(&c.stream) => Err(Error::NotAvailable {
                message: "cudash captures the work of one stream into a CUDA graph: waits and \
                          events on the capturing stream are not captured"
                    .into(),
                help: "queue the graph's work on the capture stream alone".into(),
            }),
            _ => Ok(()),
        }
    }

    /// `torch.cuda.graph_pool_handle()`: a new pool id, (0, n), for
    /// captures to share.
    pub fn graph_pool_handle(&mut self) -> MempoolId {
        self.pool_ids.1 += 1;
        (0, self.pool_ids.1)
    }

    /// `g.pool()`: the private memory pool of the graph's capture.
    pub fn graph_pool(&self, graph: &Arc<CudaGraph>) -> Result<MempoolId, Error> {
        let s = lock(&graph.state);
        match (&s.pool, &s.captured) {
            (Some(p), Some(_)) => Ok(p.id),
            _ => Err(Error::runtime(
                "Called CUDAGraph::pool() without a preceding successful capture.",
            )),
        }
    }

    /// `g.capture_begin(pool)`: the current stream of the current device
    /// starts recording into `graph`; what it allocates comes from the
    /// private memory pool `pool` (shared with the graphs that use it), or
    /// from a new one of the graph's own.
    pub fn capture_begin(
        &mut self,
        graph: &Arc<CudaGraph>,
        pool: Option<MempoolId>,
    ) -> Result<(), Error> {
        self.need_cuda("a CUDA graph")?;
        let stream = self.stream_on(self.current_device);
        {
            let s = lock(&graph.state);
            if s.captured.is_some() || s.capturing {
                return Err(Error::runtime(
                    "This CUDAGraph instance already owns a captured graph. To capture a new \
                     graph, create a new instance.",
                ));
            }
        }
        if self.capture.is_some() {
            return Err(Error::runtime(
                "Only one capture at a time is allowed in a process.",
            ));
        }
        if stream.stream == 0 {
            return Err(Error::runtime(
                "CUDA graphs must be captured on a non-default stream. (However, after \
                 capture, it's ok to replay them on the default stream.)",
            ));
        }
        let pool = match pool {
            Some(id) if id != (0, 0) => id,
            _ => {
                self.pool_ids.0 += 1;
                (self.pool_ids.0, 0)
            }
        };
        let gpu = self.devices.gpu_handle(stream.device).map(Arc::clone);
        let Some(gpu) = gpu else {
            return Err(Error::runtime("CUDA graphs capture on a CUDA device"));
        };
        lock(&gpu)
            .allocator
            .begin_allocate_to_pool(pool, Some(stream.stream))
            .map_err(Error::runtime)?;
        let mut s = lock(&graph.state);
        s.capturing = true;
        s.pool = Some(PoolUse { gpu, id: pool });
        drop(s);
        self.capture = Some(Capture {
            graph: Arc::clone(graph),
            stream,
            pool,
            steps: Vec::new(),
            pending: None,
            slots: Slots::default(),
            open: 0,
            invalid: None,
        });
        Ok(())
    }

    /// `g.capture_end()`: the capture stops; the graph holds its steps.
    pub fn capture_end(&mut self, graph: &Arc<CudaGraph>) -> Result<(), Error> {
        let Some(c) = self.capture.take_if(|c| Arc::ptr_eq(&c.graph, graph)) else {
            return Err(Error::runtime(
                "capture_end() called before capture_begin().",
            ));
        };
        if self.stream_on(c.stream.device) != c.stream {
            self.capture = Some(c);
            return Err(Error::runtime(
                "Capture must end on the same stream it began on.",
            ));
        }
        let mut s = lock(&graph.state);
        s.capturing = false;
        if let Some(gpu) = self.devices.gpu_handle(c.stream.device) {
            lock(gpu).allocator.end_allocate_to_pool(c.pool);
        }
        if let Some(why) = c.invalid {
            // The graph holds no capture: its pool is released (after the
            // state's lock, as the pool's user drops).
            let pool = s.pool.take();
            drop(s);
            drop(pool);
            return Err(Error::Module {
                class: "RuntimeError",
                message: "CUDA error: operation failed due to a previous error during capture"
                    .into(),
                help: Some(format!(
                    "the capture was invalidated by {} inside it: capture again, into a new \
                     CUDAGraph, without it",
                    why.what()
                )),
            });
        }
        s.captured = Some(Captured {
            device: c.stream.device,
            steps: c.steps,
            slots: c.slots.results,
        });
        Ok(())
    }

    /// `g.replay()`: every captured op runs again, in order, on the current
    /// stream of the graph's device, writing the memory it wrote at capture.
    pub fn replay(&mut self, graph: &Arc<CudaGraph>) -> Result<(), Error> {
        let state = lock(&graph.state);
        let Some(c) = state.captured.as_ref() else {
            return Err(Error::runtime(
                "Called CUDAGraph::replay without a preceding successful capture.",
            ));
        };
        if self.capture.is_some() {
            drop(state);
            return Err(Error::NotAvailable {
                message: "cudash cannot replay a CUDA graph into another capture".into(),
                help: "replay it before or after the capture".into(),
            });
        }
        let d = c.device;
        self.check_fault(d)?;
        let before = self.op;
        let replayed = self.replay_steps(d, c);
        self.op = before;
        // The replay's temporaries are done with (their scratch memory goes
        // back for later work on the stream).
        *lock(&self.replay_outputs) = ReplayOutputs::default();
        replayed
    }

    /// Each captured op run again, in order (`replay`).
    fn replay_steps(&mut self, d: u32, c: &Captured) -> Result<(), Error> {
        // The program's tensors the results are, where it still holds them.
        let mut live: Vec<Option<Tensor>> = c.slots.iter().map(WeakTensor::upgrade).collect();
        // Which are the replay's own temporaries (the stream model does not
        // track them: nothing outside the replay reads them).
        let temporary: Vec<bool> = live.iter().map(Option::is_none).collect();
        let mut first = true;
        for step in &c.steps {
            self.op = step.op;
            if self.faults.contains(&d) {
                // A kernel of this replay failed an assertion: as on a GPU,
                // the device runs nothing more, and the next call that
                // waits for it reports the error.
                break;
            }
            let inputs = step
                .inputs
                .iter()
                .map(|s| resolve(s, &live))
                .collect::<Result<Vec<Tensor>, Error>>()?;
            let inputs: Vec<&Tensor> = inputs.iter().collect();
            if !step.in_place {
                let mut outputs = lock(&self.replay_outputs);
                for dest in &step.dests {
                    let into = match dest {
                        Src::Made { slot, .. } => live[*slot].as_ref().map(Tensor::alias),
                        Src::Kept(t) => Some(t.alias()),
                    };
                    outputs.into.push_back(into);
                }
            }
            self.replaying = true;
            let out = (step.redo)(self, &inputs);
            self.replaying = false;
            {
                let mut outputs = lock(&self.replay_outputs);
                outputs.into.clear();
                outputs.lent.clear();
            }
            let out = match out {
                // A driver's kernel asserted (an earlier one of this
                // replay): reported by the next call that waits.
                Err(Error::DeviceAssert { .. }) => break,
                out => out?,
            };
            if self.faults.contains(&d) {
                break; // this step's kernel asserted (a simulated device)
            }
            for (fresh, dest) in out.into_iter().zip(&step.dests) {
                let Src::Made { slot, .. } = dest else {
                    continue;
                };
                match &live[*slot] {
                    // The host's result (a simulated device's) goes into
                    // the program's tensor; a kernel wrote there itself.
                    Some(t) if !fresh.shares_storage(t) => *t.write() = fresh.contiguous_buffer(),
                    Some(_) => {}
                    // A result the program dropped: the replay's own.
                    None => live[*slot] = Some(fresh),
                }
            }
            let mut dests = Vec::new();
            for dest in &step.dests {
                let t = resolve(dest, &live)?;
                if step.in_place {
                    t.bump_version();
                }
                let kept = !matches!(dest, Src::Made { slot, .. } if temporary[*slot]);
                dests.push(kept.then_some(t));
            }
            for (k, &work) in step.work.iter().enumerate() {
                let out = dests.get(k).and_then(Option::as_ref);
                // The host pays one launch, the graph's, for all of it.
                self.queue(d, work, out, first.then_some(HostCall::Graph))?;
                first = false;
            }
        }
        Ok(())
    }

    /// `g.reset()`: the graph lets go of its steps and of its private
    /// memory pool (which `empty_cache()` may then give back, block by
    /// block as the tensors allocated in it are freed).
    pub fn reset_graph(&mut self, graph: &Arc<CudaGraph>) {
        let old = {
            let mut s = lock(&graph.state);
            (s.captured.take(), s.pool.take())
        };
        drop(old);
    }
}
