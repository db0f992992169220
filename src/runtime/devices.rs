//! The CUDA devices of a session: their properties, the state of each (its
//! caching allocator and streams, `gpu.rs`), the pinned host allocator, and
//! the host's modelled clock. Device memory is handed to tensors as a `Memory`
//! guard that returns it to its allocator when the last view drops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::alloc::history::Context;
use super::alloc::{AllocError, Block, StreamId};
use super::backend::{Backend, DeviceInfo};
use super::driver::{Driver, DriverError, StreamHandle};
use super::gpu::{lock, Gpu, Queued};
use super::host_alloc::HostAllocator;
use super::host_clock::HostClock;
use super::scratch::Scratch;
use super::stream::{Mark, StreamKey};
use super::timing::{page_lock, Work};

pub use super::gpu::DeviceAllocator;

pub struct Devices {
    backend: &'static str,
    /// Why this backend is live (shown in the banner), e.g. "no CUDA driver found".
    pub reason: String,
    infos: Vec<DeviceInfo>,
    gpus: Vec<Arc<Mutex<Gpu>>>,
    host: Arc<Mutex<HostAllocator>>,
    /// The host's modelled clock, in seconds since the session started.
    host_time: Arc<HostClock>,
    /// What every device's allocator records its history with.
    history: Arc<Context>,
    /// The part of it spent page-locking memory: modelled on every
    /// backend, and not spent by the simulator's own CPU.
    page_locking: Mutex<f64>,
    /// Raised when any device finds a hazard.
    hazard_flag: Arc<AtomicBool>,
    /// The driver holding the devices' memory (`cuda`, `emu`); None on the simulator.
    driver: Option<Arc<dyn Driver>>,
    /// Each device's temporaries (with a driver).
    scratch: Vec<Arc<Mutex<Scratch>>>,
}

impl Devices {
    pub fn new(backend: &dyn Backend, reason: impl Into<String>) -> Devices {
        let infos = backend.devices();
        let hazard_flag = Arc::new(AtomicBool::new(false));
        let driver = backend.driver();
        let host_time = Arc::new(HostClock::default());
        let history = Arc::new(Context::new(Arc::clone(&host_time)));
        let gpus: Vec<Arc<Mutex<Gpu>>> = infos
            .iter()
            .map(|d| {
                Arc::new(Mutex::new(Gpu::new(
                    d.index,
                    d.spec,
                    backend.segment_source(d.index),
                    Arc::clone(&hazard_flag),
                    driver.clone(),
                    Arc::clone(&history),
                )))
            })
            .collect();
        let scratch = match &driver {
            Some(driver) => infos
                .iter()
                .map(|d| Arc::new(Mutex::new(Scratch::new(Arc::clone(driver), d.index))))
                .collect(),
            None => Vec::new(),
        };
        for (g, pool) in gpus.iter().zip(&scratch) {
            let kept = lock(pool).kept_bytes();
            lock(g).allocator.count_as_free(kept);
        }
        Devices {
            scratch,
            backend: backend.name(),
            reason: reason.into(),
            infos,
            gpus,
            host: Arc::new(Mutex::new(HostAllocator::default())),
            host_time,
            history,
            page_locking: Mutex::new(0.0),
            hazard_flag,
            driver,
        }
    }

    /// The statement and op running now, for the allocators' history.
    pub fn history(&self) -> &Arc<Context> {
        &self.history
    }

    /// Frees device `index`'s kept temporaries (a driver's); whether there
    /// were any.
    pub fn release_scratch_of(&self, index: u32) -> bool {
        let Some(pool) = self.scratch(index) else {
            return false;
        };
        let mut pool = lock(pool);
        let any = pool.kept() > 0;
        pool.release();
        any
    }

    /// Device `index`'s temporaries, on a driver's device.
    pub fn scratch(&self, index: u32) -> Option<&Arc<Mutex<Scratch>>> {
        self.scratch.get(index as usize)
    }

    /// Every device's kept temporaries go back to the driver (`empty_cache()`).
    pub fn release_scratch(&self) {
        for s in &self.scratch {
            lock(s).release();
        }
    }

    /// The driver holding the devices' memory, when tensors live in it.
    pub fn driver(&self) -> Option<&Arc<dyn Driver>> {
        self.driver.as_ref()
    }

    pub fn backend(&self) -> &'static str {
        if self.infos.is_empty() {
            "cpu"
        } else {
            self.backend
        }
    }

    pub fn count(&self) -> u32 {
        self.infos.len() as u32
    }

    pub fn info(&self, index: u32) -> Option<&DeviceInfo> {
        self.infos.get(index as usize)
    }

    pub fn infos(&self) -> &[DeviceInfo] {
        &self.infos
    }

    /// Locks device `index`'s state (allocator, streams).
    pub fn gpu(&self, index: u32) -> Option<MutexGuard<'_, Gpu>> {
        self.gpus.get(index as usize).map(|g| lock(g))
    }

    /// The shared handle of device `index`'s state (for pending writes and stream values).
    pub fn gpu_handle(&self, index: u32) -> Option<&Arc<Mutex<Gpu>>> {
        self.gpus.get(index as usize)
    }

    pub fn host(&self) -> MutexGuard<'_, HostAllocator> {
        lock(&self.host)
    }

    /// `--launch-blocking`: every queued item completes before the host goes on.
    pub fn set_launch_blocking(&self, on: bool) {
        for g in &self.gpus {
            lock(g).launch_blocking = on;
        }
    }

    /// The host's modelled clock.
    pub fn host_time(&self) -> f64 {
        self.clock(HostClock::now)
    }

    /// `f` on the calling thread's host clock: the session's, or a rank's
    /// own (`host_clock::OwnClock`).
    #[inline]
    fn clock<R>(&self, f: impl FnOnce(&HostClock) -> R) -> R {
        super::host_clock::on(&self.host_time, f)
    }

    /// The host works for `seconds` (a CPU-tensor op, a copy into pinned
    /// memory, `sleep`): when it starts and ends on the modelled clock.
    pub fn host_work(&self, seconds: f64) -> (f64, f64) {
        let start = self.clock(|c| c.advance(seconds));
        (start, start + seconds)
    }

    /// The host waits until `t` on its modelled clock (for another host
    /// thread: a DataLoader's next batch).
    pub fn host_wait_until(&self, t: f64) {
        self.clock(|c| c.raise_to(t));
    }

    /// Sets the calling thread's host clock to `t`.
    pub fn set_host_time(&self, t: f64) {
        self.clock(|c| c.set(t));
    }

    /// The modelled host time spent page-locking memory so far.
    pub fn page_locking_time(&self) -> f64 {
        *lock(&self.page_locking)
    }

    /// Counts `seconds` of the host's time as page-locking (the caller
    /// charges them to the host's clock, drawn as host work).
    pub fn note_page_locking(&self, seconds: f64) {
        *lock(&self.page_locking) += seconds;
    }

    /// Device memory for `bytes` on `device`, for its current stream. When the
    /// device is full and blocks are held back for streams, their work is
    /// waited for (the blocks return to the cache) and the request tried again.
    pub fn alloc(&self, device: u32, bytes: usize) -> Result<Memory, AllocError> {
        let g = &self.gpus[device as usize];
        if bytes == 0 {
            // As PyTorch's allocator: an empty tensor takes no block (its
            // data pointer is null).
            return Ok(Memory::Device {
                gpu: Arc::clone(g),
                block: None,
                device,
            });
        }
        let (first, freed) = {
            let mut gpu = lock(g);
            let s = gpu.streams.current();
            let before = gpu.allocator.stats().num_device_free;
            let r = gpu.allocator.malloc(bytes, s);
            (r, gpu.allocator.stats().num_device_free > before)
        };
        // A request that released cached segments to fit called `cudaFree`,
        // which waits for the device's work: so does the host.
        if freed {
            if let Err(e) = self.sync_device(device) {
                return Err(AllocError::Failed(e.to_string()));
            }
        }
        // The driver's temporaries kept for reuse are cache too: released,
        // and the request tried again, before anything is waited for.
        let first = match first {
            Err(AllocError::OutOfMemory(_)) if self.release_scratch_of(device) => {
                let mut gpu = lock(g);
                let s = gpu.streams.current();
                gpu.allocator.malloc(bytes, s)
            }
            r => r,
        };
        let block = match first {
            Ok(b) => b,
            Err(AllocError::OutOfMemory(_)) if lock(g).has_waiting() => {
                // As PyTorch does before giving up: wait for the streams those
                // blocks wait for. A driver failing the wait fails the retry.
                if let Err(e) = self.sync_device(device) {
                    return Err(AllocError::Failed(e.to_string()));
                }
                let mut gpu = lock(g);
                let s = gpu.streams.current();
                let block = gpu.allocator.malloc(bytes, s)?;
                gpu.allocator.oom_recovered();
                block
            }
            Err(e) => return Err(e),
        };
        Ok(Memory::Device {
            gpu: Arc::clone(g),
            block: Some(block),
            device,
        })
    }

    /// Queues `work` on `device`'s current stream.
    pub fn launch(&self, device: u32, work: Work, launch: bool) -> Queued {
        let mut gpu = lock(&self.gpus[device as usize]);
        let mut host = self.host_time();
        let queued = gpu.launch(work, &mut host, launch);
        self.clock(|c| c.raise_to(host));
        queued
    }

    /// The tail of a stream, recorded now.
    pub fn mark(&self, key: StreamKey) -> Mark {
        let host = self.host_time();
        lock(&self.gpus[key.device as usize]).mark(key.stream, host)
    }

    /// Queues on `waiter` a wait for `mark`.
    pub fn wait(&self, waiter: StreamKey, mark: &Mark) {
        let host = self.host_time();
        let mut gpu = lock(&self.gpus[waiter.device as usize]);
        gpu.streams.wait(waiter.stream, mark, host);
        if gpu.launch_blocking {
            let issued = gpu.streams.get(waiter.stream).issued;
            gpu.complete(waiter.stream, issued);
        }
    }

    /// The host waits until item `seq` of stream `key` is done (and so is
    /// everything that item was ordered after, on any device).
    pub fn complete(&self, key: StreamKey, seq: u64, finish_time: f64) {
        let mut work = vec![(key, seq)];
        while let Some((k, seq)) = work.pop() {
            work.extend(lock(&self.gpus[k.device as usize]).complete(k.stream, seq));
        }
        self.clock(|c| c.raise_to(finish_time));
    }

    /// A new stream named `name` on `device`: on `cuda` and `emu` also one of
    /// the driver's, which the stream's work is queued on.
    pub fn create_stream(&self, device: u32, name: &str) -> Result<StreamId, DriverError> {
        let handle = match &self.driver {
            Some(driver) => Some(driver.stream_create(device)?),
            None => None,
        };
        Ok(lock(&self.gpus[device as usize])
            .streams
            .create(name, handle))
    }

    /// The driver's stream behind `key`.
    pub fn stream_handle(&self, key: StreamKey) -> StreamHandle {
        lock(&self.gpus[key.device as usize])
            .streams
            .handle(key.stream)
    }

    /// The driver's stream behind device `device`'s current stream.
    pub fn current_handle(&self, device: u32) -> StreamHandle {
        let gpu = lock(&self.gpus[device as usize]);
        gpu.streams.handle(gpu.streams.current())
    }

    /// `waiter` waits for all the work queued on `target` so far: in the
    /// stream model, and on a driver through an event recorded at `target`'s
    /// tail (destroying it right after is allowed: the wait keeps the record).
    pub fn wait_for_stream(&self, waiter: StreamKey, target: StreamKey) -> Result<(), DriverError> {
        let mark = self.mark(target);
        self.wait(waiter, &mark);
        let Some(driver) = &self.driver else {
            return Ok(());
        };
        let (w, t) = (self.stream_handle(waiter), self.stream_handle(target));
        if w == t {
            return Ok(());
        }
        let e = driver.event_create(target.device, false)?;
        let queued = driver
            .event_record(e, t)
            .and_then(|()| driver.stream_wait_event(w, e));
        let destroyed = driver.event_destroy(e);
        queued.and(destroyed)
    }

    /// The host waits for everything queued on one stream (`sync s`).
    pub fn sync_stream(&self, key: StreamKey) -> Result<(), DriverError> {
        if let Some(driver) = &self.driver {
            driver.stream_synchronize(self.stream_handle(key))?;
        }
        let (seq, clock) = {
            let gpu = lock(&self.gpus[key.device as usize]);
            let s = gpu.streams.get(key.stream);
            (s.issued, s.clock)
        };
        self.complete(key, seq, clock);
        Ok(())
    }

    /// The host waits for every stream of a device (`sync cuda:1`).
    pub fn sync_device(&self, device: u32) -> Result<(), DriverError> {
        if let Some(driver) = &self.driver {
            driver.device_synchronize(device)?;
        }
        let streams: Vec<(StreamKey, u64, f64)> = {
            let gpu = lock(&self.gpus[device as usize]);
            gpu.streams
                .iter()
                .map(|(i, s)| (gpu.streams.key(i), s.issued, s.clock))
                .collect()
        };
        for (key, seq, clock) in streams {
            self.complete(key, seq, clock);
        }
        Ok(())
    }

    pub fn sync_all(&self) -> Result<(), DriverError> {
        (0..self.count()).try_for_each(|d| self.sync_device(d))
    }

    /// Hazards every device found since the last call.
    /// Whether a device found a hazard since the last `take_hazards` (one
    /// load: what every statement asks).
    #[inline]
    pub fn hazards_pending(&self) -> bool {
        self.hazard_flag.load(Ordering::Relaxed)
    }

    pub fn take_hazards(&self) -> Vec<String> {
        // Read before it is cleared: most statements find none, and a
        // plain load costs less than the swap.
        if !self.hazard_flag.load(Ordering::Acquire)
            || !self.hazard_flag.swap(false, Ordering::AcqRel)
        {
            return Vec::new();
        }
        self.gpus
            .iter()
            .flat_map(|g| lock(g).take_hazards())
            .collect()
    }

    /// A block from the pinned host allocator. A block the cache had costs
    /// nothing; a new one is page-locked, which takes the host's time
    /// (`timing::page_lock`): those seconds are given back for the caller
    /// to charge to the thread that pins (the main thread, or a
    /// DataLoader's pin thread).
    pub fn pinned(&self, bytes: usize) -> (Memory, Option<f64>) {
        let (size, fresh) = {
            let mut host = lock(&self.host);
            let hits = host.stats().cache_hits;
            let size = host.malloc(bytes);
            (size, host.stats().cache_hits == hits)
        };
        let memory = Memory::Pinned {
            host: Arc::clone(&self.host),
            size,
        };
        (memory, fresh.then(|| page_lock(size as u64)))
    }

    /// Page-locks existing host memory in place (`pin x`), and the host's
    /// seconds that takes.
    pub fn register(&self, bytes: usize) -> (Memory, f64) {
        lock(&self.host).register(bytes);
        let memory = Memory::Registered {
            host: Arc::clone(&self.host),
            bytes,
        };
        (memory, page_lock(bytes as u64))
    }
}

impl Drop for Devices {
    fn drop(&mut self) {
        let Some(driver) = &self.driver else {
            return;
        };
        for g in &self.gpus {
            let gpu = lock(g);
            for (_, s) in gpu.streams.iter() {
                if let Some(h) = s.handle {
                    // The session is ending; a stream the driver refuses to
                    // destroy goes with the process.
                    let _ = driver.stream_destroy(h);
                }
            }
        }
    }
}

/// Memory a tensor's storage holds beyond its host buffer.
pub enum Memory {
    /// A block of a CUDA device's caching allocator (None: an empty
    /// tensor's, which takes no block).
    Device {
        gpu: Arc<Mutex<Gpu>>,
        block: Option<Block>,
        device: u32,
    },
    /// A block from the pinned host allocator.
    Pinned {
        host: Arc<Mutex<HostAllocator>>,
        size: usize,
    },
    /// Ordinary host memory registered as page-locked in place.
    Registered {
        host: Arc<Mutex<HostAllocator>>,
        bytes: usize,
    },
}

impl Memory {
    /// The device address of a device block (on the simulator, a made-up
    /// one; 0, the null pointer, for an empty tensor's).
    pub fn address(&self) -> Option<u64> {
        match self {
            Memory::Device {
                gpu,
                block: Some(block),
                ..
            } => lock(gpu).allocator.address(block),
            Memory::Device { block: None, .. } => Some(0),
            _ => None,
        }
    }

    pub fn block(&self) -> Option<Block> {
        match self {
            Memory::Device { block, .. } => *block,
            _ => None,
        }
    }

    /// The state of the device this memory belongs to.
    pub fn gpu(&self) -> Option<&Arc<Mutex<Gpu>>> {
        match self {
            Memory::Device { gpu, .. } => Some(gpu),
            _ => None,
        }
    }

    pub fn is_pinned(&self) -> bool {
        !matches!(self, Memory::Device { .. })
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Memory::Device { block, device, .. } => write!(f, "Device(cuda:{device}, {block:?})"),
            Memory::Pinned { size, .. } => write!(f, "Pinned({size})"),
            Memory::Registered { bytes, .. } => write!(f, "Registered({bytes})"),
        }
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        match self {
            Memory::Device {
                gpu,
                block: Some(block),
                ..
            } => lock(gpu).free(*block),
            Memory::Device { block: None, .. } => {}
            Memory::Pinned { host, size } => lock(host).free(*size),
            Memory::Registered { host, bytes } => lock(host).unregister(*bytes),
        }
    }
}
