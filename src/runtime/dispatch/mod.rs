//! The op layer: every operation a session runs goes through one `Runtime`
//! function. Each checks its inputs, computes the result on the device's
//! backend, takes the output's block from the device's caching allocator,
//! and queues the work on the current stream with its cost for the time
//! model (the bytes it moves, its floating point work). The interpreter
//! resolves names and binds arguments, then calls one of these.
//!
//! - `compute.rs`: elementwise ops, reductions, matmul, casts, joins, fills
//!   and factories;
//! - `transfer.rs`: copies between the host and devices, pinned memory;
//! - `collective.rs`: all_reduce and its kin across devices, as NCCL's ring;
//!   `ring.rs`: all_reduce's ring on a driver's devices;
//! - `sync.rs`: streams, events, waits and host syncs;
//! - `record.rs`: `profile`'s timeline of what was queued and waited for;
//!   `measured.rs`: its times on a GPU, from events;
//! - `timer.rs`: device time for `time` and `elapsed` (measured on a GPU,
//!   modelled elsewhere);
//! - `kernels.rs`: the ops of `compute.rs` on a driver's devices, as
//!   `cuda::exec` launches on `device.rs`'s `Launcher`;
//! - `first_check.rs`: what `--backend auto` runs on a driver's devices
//!   before it picks them.
//!
//! Simulated devices compute with the host ops (`runtime/ops`) and keep the
//! bytes beside the device block; the stream model decides when the host may
//! see them. On a driver's devices (`cuda`, `emu`) the bytes
//! are device memory and the same stream model decides what a racing read sees.

mod along;
mod attention;
pub mod collective;
mod compute;
pub use compute::stack_host;
pub use sync::SyncDebugMode;
mod device;
mod device_compute;
mod fault;
pub mod first_check;
pub mod graph;
pub mod group;
mod host;
mod host_work;
mod indexing;
mod kernels;
mod measured;
mod memory_history;
mod meta;
mod nccl;
mod peer;
pub mod pick;
mod record;
mod ring;
mod sync;
pub mod timer;
mod transfer;
mod window;
mod worker;
pub mod world;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::alloc::StreamId;
use super::counters::Counters;
use super::devices::{Devices, Memory};
use super::inference;
use super::rng::Generators;
use super::shape::checked_numel;
use super::stream::StreamKey;
use super::timeline::{HostCall, Timeline};
use super::timing::{Math, Work};
use super::{DType, Device, Tensor};
use crate::error::Error;

/// The runtime state of one session: its devices, the current CUDA device,
/// the random generators, and what `profile` counts.
pub struct Runtime {
    pub devices: Arc<Devices>,
    /// One random generator per device.
    pub generators: Generators,
    pub counters: Counters,
    /// The current CUDA device: what `cuda` means (`with device(n)` changes it).
    pub current_device: u32,
    /// Notes about what the runtime did instead of what was asked (a
    /// non-blocking copy that had to block), for the interpreter to show.
    notes: Vec<String>,
    /// The `note_once` warnings given already (PyTorch's `TORCH_WARN_ONCE`).
    noted_once: std::collections::HashSet<String>,
    /// Set from another thread (Ctrl-C, a Jupyter interrupt) to stop the
    /// running statement: the interpreter checks it before each statement,
    /// and a driver's device before each launch.
    pub interrupt: Arc<AtomicBool>,
    /// The op running now (`matmul`, `item`), set by the interpreter before
    /// it calls one: `profile`'s timeline labels the work it queues with it.
    pub op: &'static str,
    /// While `profile` runs: what was queued and waited for, in time.
    timeline: Option<Timeline>,
    /// A timeline's events and clocks until its times are read (a GPU).
    measured: Option<measured::Measured>,
    /// Simulated devices whose kernel failed a device-side assertion
    /// (`fault.rs`).
    faults: HashSet<u32>,
    /// The running script or cell, by its number in the allocators' history.
    source: u32,
    /// Op names' numbers in the history, cached by the name's address.
    op_numbers: Box<[(usize, u16); memory_history::OP_SLOTS]>,
    /// Set in a DataLoader worker's runtime (`worker.rs`).
    worker: Option<worker::Worker>,
    /// Its place among a `spawn`'s ranks, and the process group it joined
    /// (`group.rs`).
    dist: Option<group::Member>,
    /// Set while `torch.func.vmap(..., randomness="error")` runs: a random
    /// op is PyTorch's error there (`check_random`).
    pub random_refused: bool,
    /// `torch.cuda.set_sync_debug_mode`: what a synchronizing op does
    /// (`sync::SyncDebugMode`).
    pub sync_debug: sync::SyncDebugMode,
    /// `torch.backends.cuda.matmul.allow_tf32` (and `set_float32_matmul_precision`
    /// other than "highest"): f32 products on a device of compute capability
    /// 8.0 or later round their operands to TF32 (`matmul_tf32`).
    pub allow_tf32: bool,
    /// A CUDA graph capture under way (`graph.rs`).
    capture: Option<graph::Capture>,
    /// The last memory pool ids handed out: a graph's own (n, 0), and
    /// `graph_pool_handle()`'s (0, n).
    pool_ids: (u64, u64),
    /// Set while a graph replays an op: its result goes into the captured
    /// block, and nothing is allocated or queued by the op itself.
    replaying: bool,
    /// The captured blocks a replayed op's kernels write (`graph.rs`).
    replay_outputs: std::sync::Mutex<device::ReplayOutputs>,
}

/// The kernel cost of an op beyond the bytes it reads and writes.
#[derive(Debug, Clone, Copy, Default)]
struct Flops {
    flops: u64,
    math: Math,
    /// Host seconds per element computed on one thread whatever the
    /// cores (a CPU generator's draws), on top of the host's modelled cost.
    host_serial: f64,
}

impl Runtime {
    pub fn new(seed: u64, devices: Arc<Devices>) -> Runtime {
        Runtime {
            devices,
            generators: Generators::new(seed),
            counters: Counters::default(),
            current_device: 0,
            notes: Vec::new(),
            noted_once: Default::default(),
            interrupt: Arc::new(AtomicBool::new(false)),
            op: "op",
            timeline: None,
            measured: None,
            faults: HashSet::new(),
            source: 0,
            op_numbers: Box::new([(0, 0); memory_history::OP_SLOTS]),
            worker: None,
            dist: None,
            random_refused: false,
            sync_debug: sync::SyncDebugMode::Default,
            allow_tf32: false,
            capture: None,
            pool_ids: (0, 0),
            replaying: false,
            replay_outputs: Default::default(),
        }
    }

    /// Whether the running statement is asked to stop.
    pub fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed)
    }

    /// A warning for the statement running now (shown after it, as
    /// PyTorch's `UserWarning`s are).
    pub fn note(&mut self, text: String) {
        self.notes.push(text);
    }

    /// A warning PyTorch gives once a process (`TORCH_WARN_ONCE`): noted the
    /// first time only.
    pub fn note_once(&mut self, text: &str) {
        if self.noted_once.insert(text.to_string()) {
            self.notes.push(text.to_string());
        }
    }

    /// Whether `take_notes` has something to give.
    #[inline]
    pub fn notes_pending(&self) -> bool {
        !self.notes.is_empty()
    }

    /// Notes given since the last call, oldest first.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Resolves `cuda:N` (or `cuda`, the current device), checking that it exists.
    pub fn cuda(&self, index: Option<u32>) -> Result<Device, Error> {
        let n = self.devices.count();
        let name = index.map_or("the current CUDA device (`cuda`)".to_string(), |i| {
            format!("cuda:{i}")
        });
        match index {
            _ if self.worker.is_some() => Err(worker::refused()),
            _ if n == 0 => Err(Error::NoDevice {
                device: name,
                reason: format!("this session has no CUDA devices ({})", self.why_none()),
            }),
            Some(i) if i >= n => Err(Error::NoDevice {
                device: name,
                reason: format!(
                    "this session has {n} CUDA device(s), cuda:0 to cuda:{}",
                    n - 1
                ),
            }),
            Some(i) => Ok(Device::Cuda(i)),
            None => Ok(Device::Cuda(self.current_device)),
        }
    }

    /// Why a session has no CUDA device: `CUDA_VISIBLE_DEVICES` hid them
    /// all (the backend's reason says so), or `--sim-devices 0`.
    fn why_none(&self) -> String {
        match self.devices.reason.find("CUDA_VISIBLE_DEVICES") {
            Some(_) => "CUDA_VISIBLE_DEVICES hides every device".into(),
            None => "started with --sim-devices 0".into(),
        }
    }

    /// `d` itself when it exists in this session.
    pub fn check_device(&self, d: Device) -> Result<Device, Error> {
        match d {
            Device::Cpu | Device::Meta => Ok(d),
            Device::Cuda(i) => self.cuda(Some(i)),
        }
    }

    /// PyTorch's error for a random op inside `vmap(..., randomness="error")`.
    pub fn check_random(&self) -> Result<(), Error> {
        match self.random_refused {
            true => Err(Error::runtime(
                "vmap: called random operation while in randomness error mode. Please either \
                 use the 'same' or 'different' randomness flags on vmap or perform the \
                 randomness operation out of vmap",
            )),
            false => Ok(()),
        }
    }

    /// Fails with a clear message when the session has no CUDA device.
    pub fn need_cuda(&self, what: &str) -> Result<(), Error> {
        if self.worker.is_some() {
            return Err(worker::refused());
        }
        if self.devices.count() == 0 {
            return Err(not_available(what, &self.why_none()));
        }
        Ok(())
    }

    /// A block of `bytes` on CUDA device `d`, or the out-of-memory error.
    fn alloc(&mut self, d: u32, bytes: usize) -> Result<Memory, Error> {
        if bytes > 0 {
            // An empty tensor takes no block: no driver call, no fault.
            self.check_fault(d)?;
        }
        let mem = self
            .devices
            .alloc(d, bytes)
            .map_err(|e| e.to_error(Device::Cuda(d)))?;
        if bytes > 0 {
            // An empty tensor takes no block: nothing was allocated.
            self.counters.allocations += 1;
            self.counters.bytes += bytes as u64;
        }
        Ok(mem)
    }

    /// Reserves the memory of a tensor about to be built, so that a tensor too
    /// big for its device fails as a CUDA out-of-memory error before any work.
    fn reserve(
        &mut self,
        device: Device,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Option<Memory>, Error> {
        match device {
            Device::Cpu | Device::Meta => Ok(None),
            // A replayed factory writes the block its capture took.
            Device::Cuda(_) if self.replaying => Ok(None),
            Device::Cuda(d) => {
                self.cuda(Some(d))?;
                let bytes = tensor_bytes(shape, dtype)?;
                self.alloc(d, bytes).map(Some)
            }
        }
    }

    /// Finishes an op whose result is `out`: on a CUDA device the result gets
    /// its block (unless `mem` was reserved for it) and the op is one kernel on
    /// the current stream, reading `inputs` and writing `out`.
    fn finish(
        &mut self,
        out: Tensor,
        mem: Option<Memory>,
        inputs: &[&Tensor],
        cost: Flops,
    ) -> Result<Arc<Tensor>, Error> {
        if self.replaying {
            // A graph's replay: the result goes into the captured block
            // (`Runtime::replay`), which queues the kernel.
            return Ok(Arc::new(out));
        }
        self.counters.ops += 1;
        if out.device().is_meta() {
            // No kernel and no memory: the meta device only knows shapes.
            return Ok(Arc::new(out));
        }
        let Device::Cuda(d) = out.device() else {
            self.host_op(inputs, &out, cost);
            return Ok(Arc::new(out));
        };
        let out = match self.in_block(d, out, mem) {
            Ok(out) => out,
            Err(e) => {
                self.drop_pending();
                return Err(e);
            }
        };
        let work = kernel(inputs, out.nbytes(), cost);
        self.issue(d, work, Some(&out))?;
        Ok(Arc::new(out))
    }

    /// A new tensor nothing writes (`empty`): on a CUDA device it takes its
    /// block and no work is queued (`torch.empty` launches no kernel).
    fn finish_unwritten(
        &mut self,
        out: Tensor,
        mem: Option<Memory>,
        cost: Flops,
    ) -> Result<Arc<Tensor>, Error> {
        let Device::Cuda(d) = out.device() else {
            return self.finish(out, mem, &[], cost);
        };
        if self.replaying {
            return Ok(Arc::new(out));
        }
        self.counters.ops += 1;
        let out = self.in_block(d, out, mem)?;
        if self.capture.is_some() {
            self.capture_unwritten(&out);
        }
        Ok(Arc::new(out))
    }

    /// `out`, a new tensor of device `d`, in its block: `mem` when reserved
    /// for it, else a new one (an output of kernels is there already).
    fn in_block(&mut self, d: u32, out: Tensor, mem: Option<Memory>) -> Result<Tensor, Error> {
        match (out.device_bytes(), mem) {
            (Some(_), _) => Ok(out),
            (None, Some(block)) => self.place(out, block),
            (None, None) => {
                let block = self.alloc(d, out.nbytes())?;
                self.place(out, block)
            }
        }
    }

    /// An op that wrote `t` in place (`fill_`, `normal_`, `x[i] = v`): one
    /// kernel on a CUDA device, reading `inputs` (its write was registered by
    /// `Tensor::write`). An inference tensor outside inference mode has no
    /// version to bump: the op raises, its write done, as PyTorch's
    /// `increment_version` raises after the kernel ran.
    fn wrote_in_place(&mut self, t: &Tensor, inputs: &[&Tensor]) -> Result<(), Error> {
        self.counters.ops += 1;
        inference::check_bump(t)?;
        t.bump_version();
        match t.device() {
            Device::Cuda(d) => {
                let work = kernel(inputs, t.nbytes(), Flops::default());
                self.issue(d, work, None)?;
            }
            Device::Cpu => self.host_op(inputs, t, Flops::default()),
            Device::Meta => {}
        }
        Ok(())
    }

    /// Queues `work` on device `d`'s current stream; `out` is the new tensor it writes.
    /// Returns the stream and the item's number.
    fn issue(
        &mut self,
        d: u32,
        work: Work,
        out: Option<&Tensor>,
    ) -> Result<(StreamId, u64), Error> {
        if self.capture.is_some() && self.capture_work(d, work, out)? {
            // Recorded into a CUDA graph: it runs at the graph's replays.
            return Ok(self.tail(d));
        }
        let call = match work {
            Work::Copy { .. } => HostCall::Copy,
            Work::Kernel { .. } => HostCall::Kernel,
        };
        self.queue(d, work, out, Some(call))
    }

    /// The current stream of device `d` and its last item: where work
    /// that queues nothing leaves it.
    fn tail(&self, d: u32) -> (StreamId, u64) {
        let gpu = self.devices.gpu(d).expect("work goes to existing devices");
        let s = gpu.streams.current();
        (s, gpu.streams.get(s).issued)
    }

    /// Queues `work` as `issue` does; `call` the host's launch of it (a
    /// replayed graph's first kernel is `cudaGraphLaunch`, its others none).
    fn queue(
        &mut self,
        d: u32,
        work: Work,
        out: Option<&Tensor>,
        call: Option<HostCall>,
    ) -> Result<(StreamId, u64), Error> {
        if work.is_empty() {
            // As PyTorch: an op on empty tensors launches nothing (its
            // kernels and copies return early when there is no element).
            return Ok(self.tail(d));
        }
        // Only work that reaches the driver reports a fault (see `fault.rs`).
        self.check_fault(d)?;
        let began = self.launch_began(d);
        let queued = self.devices.launch(d, work, call.is_some());
        let (stream, seq) = (queued.stream, queued.seq);
        if let Some(began) = began {
            if let Some(call) = call {
                self.record_launch(began, queued, call);
            }
            self.record_item(d, work, queued, out);
            if began.blocking {
                self.record_blocking_launch(began.at, work, queued);
            }
        }
        if matches!(work, Work::Kernel { .. }) {
            self.counters.kernels += 1;
        }
        if let Some(info) = self.devices.info(d) {
            let ns = (work.duration(info.spec) * 1e9).round() as u64;
            self.counters.device_ns += ns;
            if matches!(work, Work::Copy { .. }) {
                self.counters.copy_ns += ns;
            }
        }
        if let (Some(t), Some(gpu)) = (out, self.devices.gpu_handle(d)) {
            t.mark_written(gpu, stream, seq);
        }
        Ok((stream, seq))
    }

    /// `empty_cache()`: every device's cached, unused segments go back to
    /// the device, and the pinned allocator's cached blocks to the host. As
    /// PyTorch's, it first waits for the streams that blocks freed while in
    /// use elsewhere wait for (`record_stream`), so those are released too
    /// (PyTorch waits for the event recorded at the free; cudash for the
    /// stream, the same unless more was queued there since). Before it
    /// unmaps an expandable segment's pages it waits for that segment's
    /// stream too, as PyTorch does (unmapping, unlike `cudaFree`, does not
    /// wait for the GPU). Giving a segment back is `cudaFree`, which waits
    /// for everything queued on the device: the host waits for the device.
    pub fn empty_cache(&mut self) -> Result<(), Error> {
        for d in 0..self.devices.count() {
            let waited = self.devices.gpu(d).map(|g| g.waited_streams());
            for s in waited.unwrap_or_default() {
                self.sync_stream_quietly(StreamKey::new(d, s))?;
            }
            let unmapping = self.devices.gpu(d).map(|g| g.allocator.streams_to_unmap());
            for s in unmapping.unwrap_or_default() {
                self.sync_stream_quietly(StreamKey::new(d, s))?;
            }
            let freeing = self
                .devices
                .gpu(d)
                .is_some_and(|g| g.allocator.idle_segments() > 0);
            if freeing {
                self.sync_device(d)?;
            }
            if let Some(mut g) = self.devices.gpu(d) {
                g.allocator.empty_cache();
            }
        }
        self.devices.host().empty_cache();
        self.devices.release_scratch();
        Ok(())
    }

    /// `set_per_process_memory_fraction(fraction, d)`: device `d`'s
    /// allocator may reserve at most `fraction` of its memory.
    pub fn set_memory_fraction(&mut self, d: u32, fraction: f64) {
        if let Some(mut g) = self.devices.gpu(d) {
            g.allocator.set_memory_fraction(fraction);
        }
    }

    /// `reset_peak()`: the peaks of one device's allocator (cpu: the pinned one).
    pub fn reset_peak(&mut self, d: Device) {
        match d {
            Device::Cpu => self.devices.host().reset_peak(),
            Device::Meta => {}
            Device::Cuda(i) => {
                if let Some(mut g) = self.devices.gpu(i) {
                    g.allocator.reset_peak();
                }
            }
        }
    }

    /// Segments every device's allocator has reserved so far.
    pub fn total_segments(&self) -> u64 {
        (0..self.devices.count())
            .filter_map(|d| self.devices.gpu(d))
            .map(|g| g.allocator.stats().segment.all.allocated)
            .sum()
    }

    /// The time model's reference GPU, for `profile`'s modelled device time.
    pub fn modelled_on(&self) -> Option<String> {
        let info = self.devices.info(self.current_device)?;
        Some(format!("modelled on {}", info.spec.name))
    }
}

/// The kernel of an op reading `inputs` and writing `out_bytes`: the bytes
/// of device memory it moves, and its floating point work.
fn kernel(inputs: &[&Tensor], out_bytes: usize, cost: Flops) -> Work {
    let read: u64 = inputs.iter().map(|t| device_bytes(t)).sum();
    Work::Kernel {
        bytes: read + out_bytes as u64,
        flops: cost.flops,
        math: cost.math,
    }
}

/// Bytes of device memory a tensor takes (what an op on it reads); host
/// tensors (a scalar operand) cost the device nothing.
fn device_bytes(t: &Tensor) -> u64 {
    if t.device().is_cuda() {
        t.nbytes() as u64
    } else {
        0
    }
}

/// The bytes of a tensor of `shape` and `dtype`, or the error for one too
/// large to count.
fn tensor_bytes(shape: &[usize], dtype: DType) -> Result<usize, Error> {
    checked_numel(shape)?
        .checked_mul(dtype.size())
        .ok_or_else(|| Error::value("this tensor is too large"))
}

/// The error for CUDA-only features in a session without CUDA devices.
pub fn not_available(what: &str, why: &str) -> Error {
    Error::NotAvailable {
        message: format!("{what} needs a CUDA device, and this session has none ({why})"),
        help: "streams, events, pinned memory and the caching allocator belong to CUDA devices; \
               on cpu every op runs synchronously"
            .into(),
    }
}
