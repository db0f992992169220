//! A tensor: a strided view of a shared buffer on a device.

use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::alloc::StreamId;
use super::buffer::Stored;
use super::buffer::{Buffer, FloatToInt};
use super::device_bytes::DeviceBytes;
use super::devices::Memory;
use super::driver::StreamHandle;
use super::driver::{Driver, DriverError};
use super::gpu::{lock, Access, Gpu, PendingWrite, Sees};
use super::page_locked::PageLocked;
use super::record_slot::{Record, RecordSlot};
use super::shape::{self, contiguous_strides, for_each_offset, numel};
use super::{DType, Device};
use crate::error::Error;

/// The version word's bit `mark_for_autograd` sets.
const MARK: u64 = 1 << 63;

/// A tensor's elements, shared by all its views and released when the last
/// one drops: where they live (`Place`), and their hazard bookkeeping
/// (`Watch`, checked in `gpu.rs`): device memory is watched always, host
/// memory while an asynchronous copy into it may still be running.
struct Storage {
    place: Place,
    watch: Watch,
    /// PyTorch's version counter (`x._version`), shared by every view of
    /// the storage: each in-place write adds one, so autograd can tell a
    /// tensor it saved was changed before backward used it. Its top bit
    /// is a mark the autograd layer sets (`mark_for_autograd`).
    version: AtomicU64,
    /// Moved to shared memory (`share_memory_()`, PyTorch's
    /// `is_shared()`): every thread here sees the same bytes anyway.
    shared: AtomicBool,
    /// Made under `torch.inference_mode()` (`super::inference`): every
    /// tensor viewing it is an inference tensor.
    inference: bool,
}

/// Host memory (pageable, or page-locked), a block of a simulated device's
/// caching allocator, or device memory of a driver (`cuda`, `emu`).
enum Place {
    Host {
        /// On a driver (`cuda`, `emu`), `buf`'s memory page-locked in place
        /// once the tensor is pinned. Declared before `buf`: it is unlocked
        /// before the memory is freed.
        locked: OnceLock<PageLocked>,
        buf: RwLock<Buffer>,
        /// The pinned allocator's block, or the registration of this memory
        /// (`pin x`), when it is page-locked.
        pinned: OnceLock<Memory>,
    },
    /// On a simulated device, `buf` stands in for the block's bytes: compute
    /// runs eagerly on the host, so it always holds the newest bytes, and the
    /// stream model decides which bytes a read sees.
    Device { block: Memory, buf: RwLock<Buffer> },
    /// Device memory the host reaches only through copies.
    Driver(DeviceBytes),
    /// A `meta` tensor's storage: its length, and no elements (`buf` is
    /// empty; the op layer never reads or writes it).
    Meta { buf: RwLock<Buffer>, len: usize },
}

/// The hazard bookkeeping of one storage. While an asynchronous write may
/// still be running, `stale` holds the bytes from before it (`None`: what a
/// fresh block holds, shown as zeros), and a read that races the write sees
/// those instead.
struct Watch {
    /// Set once reads and writes must consult `access` (device memory, or a
    /// pending asynchronous write into host memory).
    tracked: AtomicBool,
    access: Mutex<Access>,
    stale: RwLock<Option<Buffer>>,
}

impl Watch {
    fn new(tracked: bool) -> Watch {
        Watch {
            tracked: AtomicBool::new(tracked),
            access: Mutex::new(Access::default()),
            stale: RwLock::new(None),
        }
    }
}

impl Storage {
    #[inline(always)]
    fn new(place: Place, tracked: bool) -> Storage {
        Storage {
            place,
            watch: Watch::new(tracked),
            version: AtomicU64::new(0),
            shared: AtomicBool::new(false),
            inference: super::inference::enabled(),
        }
    }

    fn buf_mut(&mut self) -> Option<&mut Buffer> {
        match &mut self.place {
            Place::Host { buf, .. } | Place::Device { buf, .. } => {
                Some(buf.get_mut().unwrap_or_else(|e| e.into_inner()))
            }
            Place::Driver(_) | Place::Meta { .. } => None,
        }
    }

    fn memory(&self) -> Option<&Memory> {
        match &self.place {
            Place::Host { pinned, .. } => pinned.get(),
            Place::Device { block, .. } | Place::Driver(DeviceBytes { block, .. }) => Some(block),
            Place::Meta { .. } => None,
        }
    }

    /// The state of the device whose block this is.
    fn gpu(&self) -> Option<&Arc<Mutex<Gpu>>> {
        self.memory().and_then(Memory::gpu)
    }

    fn is_device(&self) -> bool {
        !matches!(self.place, Place::Host { .. } | Place::Meta { .. })
    }

    /// The elements, as the host sees them now: its own bytes, or a copy of
    /// the device's.
    fn live(&self) -> BufRef<'_> {
        match &self.place {
            Place::Driver(d) => BufRef::Copied(download(d)),
            Place::Host { buf, .. } | Place::Device { buf, .. } | Place::Meta { buf, .. } => {
                BufRef::Live(buf.read().unwrap_or_else(|e| e.into_inner()))
            }
        }
    }

    /// Elements the storage holds.
    fn len(&self) -> usize {
        match &self.place {
            Place::Driver(d) => d.len,
            Place::Meta { len, .. } => *len,
            Place::Host { buf, .. } | Place::Device { buf, .. } => {
                buf.read().unwrap_or_else(|e| e.into_inner()).len()
            }
        }
    }
}

/// A driver's bytes on the host. The host read is a synchronous copy on the
/// device's default stream; a driver failing it leaves zeros, and the
/// failure is reported by the next call that can return an error.
fn download(d: &DeviceBytes) -> Buffer {
    d.download(StreamHandle::default_of(d.device))
        .unwrap_or_else(|_| Buffer::zeros(d.dtype, d.len))
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage")
            .field("memory", &self.memory())
            .finish_non_exhaustive()
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        if let Place::Device { block, .. } | Place::Driver(DeviceBytes { block, .. }) = &self.place
        {
            if let (Some(gpu), Some(b)) = (block.gpu(), block.block()) {
                let access = self
                    .watch
                    .access
                    .get_mut()
                    .unwrap_or_else(|e| e.into_inner());
                lock(gpu).retire(b, access);
            }
        }
    }
}

/// A write into a tensor's storage: its own bytes, or a host copy of device
/// memory that goes back to the device when the guard drops.
pub enum WriteRef<'a> {
    Live(RwLockWriteGuard<'a, Buffer>),
    Staged { buf: Buffer, to: &'a DeviceBytes },
}

impl Deref for WriteRef<'_> {
    type Target = Buffer;
    fn deref(&self) -> &Buffer {
        match self {
            WriteRef::Live(b) => b,
            WriteRef::Staged { buf, .. } => buf,
        }
    }
}

impl std::ops::DerefMut for WriteRef<'_> {
    fn deref_mut(&mut self) -> &mut Buffer {
        match self {
            WriteRef::Live(b) => b,
            WriteRef::Staged { buf, .. } => buf,
        }
    }
}

impl Drop for WriteRef<'_> {
    fn drop(&mut self) {
        if let WriteRef::Staged { buf, to } = self {
            // A failed upload leaves the device's bytes as they were; the
            // driver reports its error on the next call that returns one.
            let _ = to.upload(buf, StreamHandle::default_of(to.device));
        }
    }
}

/// The bytes a read sees: the storage's own, or those from before a write
/// that may still be running.
pub enum BufRef<'a> {
    Live(RwLockReadGuard<'a, Buffer>),
    Stale(RwLockReadGuard<'a, Option<Buffer>>),
    /// A copy of device memory.
    Copied(Buffer),
}

impl Deref for BufRef<'_> {
    type Target = Buffer;
    fn deref(&self) -> &Buffer {
        match self {
            BufRef::Live(b) => b,
            BufRef::Stale(b) => b.as_ref().expect("a stale read always has its bytes"),
            BufRef::Copied(b) => b,
        }
    }
}

/// A tensor's memory, named but not kept (`Tensor::storage_handle`).
pub struct StorageHandle(std::sync::Weak<Storage>);

impl StorageHandle {
    /// Whether `t` views the memory this handle names.
    pub fn is(&self, t: &Tensor) -> bool {
        std::sync::Weak::as_ptr(&self.0) == Arc::as_ptr(&t.v().storage)
    }
}

/// A tensor not kept: its view of memory some other tensor may keep (a
/// CUDA graph's results, which the program may drop: `dispatch/graph.rs`).
pub struct WeakTensor {
    storage: std::sync::Weak<Storage>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
    dtype: DType,
    device: Device,
}

impl WeakTensor {
    /// The tensor again, while something keeps its memory.
    pub fn upgrade(&self) -> Option<Tensor> {
        Some(Tensor::of(View {
            storage: self.storage.upgrade()?,
            shape: self.shape.clone(),
            strides: self.strides.clone(),
            offset: self.offset,
            dtype: self.dtype,
            device: self.device,
            own_version: None,
        }))
    }
}

pub struct Tensor {
    /// The view it was made with.
    first: View,
    /// The views `set_data` gave it since (`x.data = y`), the newest in use.
    replaced: Replaced,
    /// What autograd keeps about this tensor (whether it requires grad,
    /// its `.grad`, the node that made it), set by the autograd layer above
    /// the op layer; the core only holds it, as PyTorch's TensorImpl holds
    /// its autograd meta. Every new tensor, views included, starts without.
    /// `set_data` keeps it: a tensor's identity for autograd is not its data.
    autograd: RecordSlot,
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("view", self.v())
            .field("autograd", &self.autograd)
            .finish()
    }
}

/// What a tensor views: its storage, and where in it its elements lie.
#[derive(Debug)]
struct View {
    storage: Arc<Storage>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
    dtype: DType,
    device: Device,
    /// The version counter of a tensor made by `x.data` and of its views:
    /// PyTorch gives `.data` a counter of its own, so autograd does not see
    /// an in-place change made through it. None: the storage's counter.
    own_version: Option<Arc<AtomicU64>>,
}

impl View {
    #[inline(always)]
    fn new(storage: Storage, shape: Vec<usize>, dtype: DType, device: Device) -> View {
        View {
            storage: Arc::new(storage),
            strides: contiguous_strides(&shape),
            shape,
            offset: 0,
            dtype,
            device,
            own_version: None,
        }
    }
}

/// The views `set_data` gave a tensor: the newest, which links to the one
/// before it, and so on. A view once in use is never changed or freed while
/// the tensor lives (a reader may still hold a borrow of its shape or its
/// storage), so the chain only grows, and is freed with the tensor. One
/// pointer, null for a tensor never given another view: the `Tensor` that
/// every op makes and moves stays as small as it was.
#[derive(Default)]
struct Replaced(AtomicPtr<Newer>);

/// A view `set_data` gave, and the one it replaced (null: the first).
struct Newer {
    view: View,
    older: *mut Newer,
}

impl Drop for Replaced {
    fn drop(&mut self) {
        let mut at = *self.0.get_mut();
        while !at.is_null() {
            // SAFETY: each link was made by `Box::into_raw` in `set_data`
            // and is owned by this chain alone; the tensor is being dropped,
            // so no reader is left.
            let node = unsafe { Box::from_raw(at) };
            at = node.older;
        }
    }
}

impl Tensor {
    #[inline(always)]
    fn of(first: View) -> Tensor {
        Tensor {
            first,
            replaced: Replaced::default(),
            autograd: RecordSlot::default(),
        }
    }

    /// The view in use: the first, or the newest `set_data` gave it.
    #[inline]
    fn v(&self) -> &View {
        // The first view needs no ordering (it was made with the tensor);
        // a replaced one is read again with Acquire, pairing with
        // `set_data`'s Release, so its contents are seen whole.
        if self.replaced.0.load(Ordering::Relaxed).is_null() {
            return &self.first;
        }
        let p = self.replaced.0.load(Ordering::Acquire);
        // SAFETY: the newest link of the chain, published (Release) whole
        // by `set_data`; links are never changed, moved or freed before the
        // tensor is.
        unsafe { &(*p).view }
    }

    /// A contiguous tensor owning `buf`. `buf.len()` must equal the shape's element count.
    pub fn new(buf: Buffer, shape: Vec<usize>, device: Device) -> Tensor {
        debug_assert_eq!(buf.len(), numel(&shape));
        let dtype = buf.dtype();
        let storage = Storage::new(
            Place::Host {
                locked: OnceLock::new(),
                buf: RwLock::new(buf),
                pinned: OnceLock::new(),
            },
            false,
        );
        Tensor::of(View::new(storage, shape, dtype, device))
    }

    /// A contiguous tensor of the `meta` device: a shape and a dtype, and
    /// no elements.
    pub fn meta(shape: Vec<usize>, dtype: DType) -> Tensor {
        Tensor::meta_strided(shape.clone(), contiguous_strides(&shape), dtype)
    }

    /// A `meta` tensor laid out with `strides` (dense: its storage holds
    /// exactly its elements).
    pub fn meta_strided(shape: Vec<usize>, strides: Vec<isize>, dtype: DType) -> Tensor {
        let place = Place::Meta {
            buf: RwLock::new(Buffer::zeros(dtype, 0)),
            len: numel(&shape),
        };
        Tensor::of(View {
            strides,
            ..View::new(Storage::new(place, false), shape, dtype, Device::Meta)
        })
    }

    pub fn from_vec<T: Stored>(v: Vec<T>, shape: Vec<usize>) -> Tensor {
        Tensor::new(T::into_buffer(v), shape, Device::Cpu)
    }

    /// A 0-dimensional tensor holding one value.
    pub fn scalar<T: Stored>(v: T) -> Tensor {
        Tensor::from_vec(vec![v], vec![])
    }

    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.v().shape
    }
    #[inline]
    pub fn strides(&self) -> &[isize] {
        &self.v().strides
    }
    #[inline]
    pub fn offset(&self) -> usize {
        self.v().offset
    }
    #[inline]
    pub fn dtype(&self) -> DType {
        self.v().dtype
    }
    #[inline]
    pub fn device(&self) -> Device {
        self.v().device
    }
    #[inline]
    pub fn ndim(&self) -> usize {
        self.v().shape.len()
    }
    /// A 0-d cpu tensor (a number, or `tensor(2.5)`): PyTorch lets it join
    /// a tensor on any device, as a CPU scalar.
    #[inline]
    pub fn is_cpu_scalar(&self) -> bool {
        self.ndim() == 0 && self.v().device == Device::Cpu
    }
    #[inline]
    pub fn numel(&self) -> usize {
        numel(&self.v().shape)
    }
    #[inline]
    pub fn nbytes(&self) -> usize {
        let v = self.v();
        numel(&v.shape) * v.dtype.size()
    }

    pub fn is_contiguous(&self) -> bool {
        let v = self.v();
        shape::is_contiguous(&v.shape, &v.strides)
    }

    /// Whether two tensors share memory (views of one another).
    #[inline]
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.v().storage, &other.v().storage)
    }

    /// Reads the storage. Poisoning cannot leave a buffer half-written in a way
    /// that matters more than the error already reported, so it is ignored.
    ///
    /// Device memory is read by the current stream of its device; a read that
    /// races a pending write is reported and sees the bytes from before it.
    #[inline]
    pub fn read(&self) -> BufRef<'_> {
        let v = self.v();
        let watch = &v.storage.watch;
        // No element, no access: an empty view reads nothing (and queues nothing).
        let tracked = watch.tracked.load(Ordering::Acquire) && numel(&v.shape) > 0;
        if tracked && self.before_read() == Sees::Stale {
            return self.stale();
        }
        v.storage.live()
    }

    /// The bytes a racing reader sees: those from before the pending write.
    fn stale(&self) -> BufRef<'_> {
        let v = self.v();
        let watch = &v.storage.watch;
        // A reader already holding the old bytes (`A + A`) means they exist.
        if let Ok(mut stale) = watch.stale.try_write() {
            if stale.is_none() {
                *stale = Some(Buffer::zeros(v.dtype, v.storage.len()));
            }
        }
        BufRef::Stale(watch.stale.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Host memory read by a copy queued on `gpu`'s current stream (a
    /// host-to-device copy from pinned memory). When a non-blocking
    /// download from that device still fills it, the copy is ordered after
    /// the download on the same stream (it sees the downloaded bytes), and
    /// races it from another stream (reported; it sees the bytes before).
    pub fn read_by_copy_on(&self, gpu: &Arc<Mutex<crate::runtime::gpu::Gpu>>) -> BufRef<'_> {
        let watch = &self.v().storage.watch;
        let mut access = lock(&watch.access);
        let filled_by = access.write.as_ref().map(|w| Arc::ptr_eq(&w.gpu, gpu));
        if self.v().storage.gpu().is_some() || filled_by != Some(true) {
            drop(access);
            return self.read();
        }
        let sees = lock(gpu).on_copy_from_host(&mut access);
        drop(access);
        match sees {
            Sees::Stale => self.stale(),
            Sees::Live => self.v().storage.live(),
        }
    }

    #[inline(never)]
    fn before_read(&self) -> Sees {
        let v = self.v();
        let watch = &v.storage.watch;
        let mut access = lock(&watch.access);
        let sees = match (v.storage.gpu(), &access.write) {
            (Some(gpu), _) => lock(gpu).on_read(&mut access),
            (None, Some(w)) => {
                let gpu = Arc::clone(&w.gpu);
                let sees = lock(&gpu).on_host_read(&mut access);
                sees
            }
            (None, None) => Sees::Live,
        };
        // A host source of a non-blocking copy stays watched (for writes)
        // until the copy is known complete.
        let reading = access.read.as_ref().is_some_and(|r| {
            let g = lock(&r.gpu);
            g.streams.get(r.stream).synced < r.seq
        });
        if !reading {
            access.read = None;
        }
        if access.write.is_none() {
            watch
                .tracked
                .store(v.storage.is_device() || reading, Ordering::Release);
            if let Ok(mut stale) = watch.stale.try_write() {
                *stale = None;
            }
        }
        sees
    }

    /// Writes the storage in place. On device memory the write is an item of
    /// the current stream (`before_write`). A driver's device memory is
    /// written through a host copy uploaded when the guard drops (kernels
    /// write it directly; this serves the host ops).
    pub fn write(&self) -> WriteRef<'_> {
        self.before_write();
        match &self.v().storage.place {
            Place::Host { buf, .. } | Place::Device { buf, .. } | Place::Meta { buf, .. } => {
                WriteRef::Live(buf.write().unwrap_or_else(|e| e.into_inner()))
            }
            Place::Driver(d) => WriteRef::Staged {
                buf: download(d),
                to: d,
            },
        }
    }

    /// The whole storage set to zeros with no stream's write registered:
    /// what a block a CUDA graph's capture took holds until the first
    /// replay writes it (the captured kernel did not run).
    pub fn clear_unwritten(&self) {
        let zeros = Buffer::zeros(self.v().dtype, self.v().storage.len());
        match &self.v().storage.place {
            Place::Host { buf, .. } | Place::Device { buf, .. } | Place::Meta { buf, .. } => {
                *buf.write().unwrap_or_else(|e| e.into_inner()) = zeros;
            }
            Place::Driver(d) => {
                // A failed upload leaves the bytes as they were; the driver
                // reports its error on the next call that returns one.
                let _ = d.upload(&zeros, StreamHandle::default_of(d.device));
            }
        }
    }

    /// Registers a host read of device memory through a copy on the current
    /// stream (`Runtime::host_read`): a race with a pending write on another
    /// stream is reported once, and reads after it see the bytes from before
    /// that write.
    pub fn before_host_copy(&self) {
        let Some(gpu) = self.v().storage.gpu().filter(|_| self.numel() > 0) else {
            return;
        };
        let mut access = lock(&self.v().storage.watch.access);
        lock(gpu).on_copy_to_host(&mut access);
    }

    /// Registers an in-place write of device memory by the current stream's
    /// next item: checked against pending work, and the bytes before it kept
    /// for readers that race it.
    pub fn before_write(&self) {
        let v = self.v();
        if numel(&v.shape) == 0 {
            return; // writes nothing, and queues nothing (`Runtime::issue`)
        }
        let Some(gpu) = v.storage.gpu() else {
            self.before_host_write();
            return;
        };
        let watch = &v.storage.watch;
        let keep_old = {
            let mut access = lock(&watch.access);
            let keep = lock(gpu).on_write(&mut access, gpu);
            keep
        };
        if keep_old {
            let old = v.storage.live().clone();
            if let Ok(mut stale) = watch.stale.try_write() {
                *stale = Some(old);
            }
        }
    }

    /// A host write to host memory a non-blocking copy may still be reading:
    /// reported as a race, then forgotten.
    fn before_host_write(&self) {
        let watch = &self.v().storage.watch;
        if !watch.tracked.load(Ordering::Acquire) {
            return;
        }
        let mut access = lock(&watch.access);
        if let Some(r) = access.read.clone() {
            lock(&r.gpu).on_host_write(&mut access);
        }
    }

    /// Registers a read by the current stream's next item (a kernel reading
    /// this tensor), as `read` does: whether it sees the live bytes or,
    /// racing a pending write, the ones from before it.
    pub fn before_device_read(&self) -> Sees {
        let watch = &self.v().storage.watch;
        if watch.tracked.load(Ordering::Acquire) && self.numel() > 0 {
            self.before_read()
        } else {
            Sees::Live
        }
    }

    /// The bytes a racing read sees (after `before_device_read` said
    /// `Stale`): those from before the pending write, or a fresh block's zeros.
    pub fn stale_bytes(&self) -> Buffer {
        let stale = self
            .v()
            .storage
            .watch
            .stale
            .read()
            .unwrap_or_else(|e| e.into_inner());
        match &*stale {
            Some(b) => b.clone(),
            None => Buffer::zeros(self.v().dtype, self.v().storage.len()),
        }
    }

    /// The device memory behind this tensor's storage, when a driver holds it.
    pub fn device_bytes(&self) -> Option<&DeviceBytes> {
        match &self.v().storage.place {
            Place::Driver(d) => Some(d),
            _ => None,
        }
    }

    /// A new contiguous tensor of `shape` in the driver memory `bytes`.
    pub fn in_device_memory(bytes: DeviceBytes, shape: Vec<usize>, device: Device) -> Tensor {
        debug_assert_eq!(bytes.len, numel(&shape));
        let dtype = bytes.dtype;
        let storage = Storage::new(Place::Driver(bytes), true);
        Tensor::of(View::new(storage, shape, dtype, device))
    }

    /// Records that item `seq` of `stream` on `gpu` writes this (new) storage:
    /// until it is known complete, racing reads see a fresh block's bytes.
    pub fn mark_written(&self, gpu: &Arc<Mutex<Gpu>>, stream: StreamId, seq: u64) {
        let watch = &self.v().storage.watch;
        let mut access = lock(&watch.access);
        access.write = Some(PendingWrite {
            gpu: Arc::clone(gpu),
            stream,
            seq,
            after_pending: None,
        });
        watch.tracked.store(true, Ordering::Release);
    }

    /// Host memory about to receive a non-blocking copy from a device
    /// (`copy_`, then `mark_written` with the copy's item): until the copy is
    /// known complete, a host read sees what the memory holds now. An
    /// earlier copy still pending keeps the older bytes.
    pub fn keep_bytes_for_racing_reads(&self) {
        let watch = &self.v().storage.watch;
        if lock(&watch.access).write.is_some() {
            return;
        }
        let old = self.v().storage.live().clone();
        if let Ok(mut stale) = watch.stale.try_write() {
            *stale = Some(old);
        }
    }

    /// Records that item `seq` of `stream` on `gpu` (a non-blocking copy
    /// from this host memory) reads this storage: until it is known
    /// complete, a host write to it races the copy.
    pub fn mark_read(&self, gpu: &Arc<Mutex<Gpu>>, stream: StreamId, seq: u64) {
        let watch = &self.v().storage.watch;
        lock(&watch.access).read = Some(PendingWrite {
            gpu: Arc::clone(gpu),
            stream,
            seq,
            after_pending: None,
        });
        watch.tracked.store(true, Ordering::Release);
    }

    /// Names the storage after the variable it is bound to, for warnings.
    pub fn set_label(&self, name: &str) {
        let watch = &self.v().storage.watch;
        // Pinned host memory: a non-blocking copy from it may race a write.
        if watch.tracked.load(Ordering::Acquire) || self.is_pinned() {
            lock(&watch.access).label = Some(name.into());
        }
    }

    /// `set_label` unless the storage has a name already: a function's
    /// parameters and locals name only what the session has not named, so
    /// the caller's tensor keeps the caller's name after the call.
    pub fn label_if_unnamed(&self, name: &str) {
        let watch = &self.v().storage.watch;
        if watch.tracked.load(Ordering::Acquire) || self.is_pinned() {
            lock(&watch.access).label.get_or_insert_with(|| name.into());
        }
    }

    /// `x.record_stream(s)`: freeing the memory waits for `stream`'s work queued by then.
    pub fn record_stream(&self, stream: StreamId) {
        lock(&self.v().storage.watch.access).record_stream(stream);
    }

    /// The device block or pinned memory behind this tensor's storage, if any.
    pub fn memory(&self) -> Option<&Memory> {
        self.v().storage.memory()
    }

    /// Page-locks this host tensor's memory with `memory` (a pinned block, or
    /// the registration of this memory); fails, returning it, on device
    /// memory or memory already pinned.
    pub fn pin_with(&self, memory: Memory) -> Result<(), Memory> {
        match (&self.v().storage.place, &memory) {
            (Place::Host { pinned, .. }, Memory::Pinned { .. } | Memory::Registered { .. }) => {
                pinned.set(memory)
            }
            _ => Err(memory),
        }
    }

    /// This new tensor's elements in the device block `block` (an op's
    /// output, or a copy's destination): its storage becomes device storage,
    /// watched for stream hazards from now on.
    pub fn placed(mut self, block: Memory) -> Tensor {
        debug_assert!(block.gpu().is_some(), "placed() takes device memory");
        let whole = self.v().offset == 0 && self.is_contiguous();
        let n = self.numel();
        let fresh = self.replaced.0.get_mut().is_null();
        if let Some(storage) = Arc::get_mut(&mut self.first.storage).filter(|_| fresh) {
            // A new tensor: its storage moves into the block in place.
            let own = storage.buf_mut().filter(|b| b.len() == n);
            if let (Some(buf), true) = (own, whole) {
                let buf = std::mem::replace(buf, Buffer::zeros(self.first.dtype, 0));
                storage.place = Place::Device {
                    block,
                    buf: RwLock::new(buf),
                };
                storage.watch.tracked.store(true, Ordering::Release);
                return self;
            }
        }
        // A view of part of its storage, or a shared one (never, for a new
        // tensor): the elements in logical order.
        let place = Place::Device {
            block,
            buf: RwLock::new(self.contiguous_buffer()),
        };
        let storage = Storage::new(place, true);
        storage.version.store(self.version(), Ordering::Relaxed);
        let v = self.v();
        let first = View {
            own_version: v.own_version.clone(),
            ..View::new(storage, v.shape.clone(), v.dtype, v.device)
        };
        Tensor {
            first,
            replaced: Replaced::default(),
            autograd: self.autograd,
        }
    }

    pub fn is_pinned(&self) -> bool {
        self.memory().is_some_and(Memory::is_pinned)
    }

    /// PyTorch's `is_shared()`: CUDA memory always is (other processes
    /// reach it through IPC handles), host memory once `share_memory_()`
    /// moved it.
    pub fn is_shared(&self) -> bool {
        self.v().device.is_cuda() || self.v().storage.shared.load(Ordering::Relaxed)
    }

    /// `share_memory_()`: this host tensor's memory is shared memory from
    /// now on (a no-op for CUDA memory, as PyTorch's).
    pub fn share_memory(&self) {
        if !self.v().device.is_cuda() {
            self.v().storage.shared.store(true, Ordering::Relaxed);
        }
    }

    /// Page-locks this pinned host tensor's memory in place with `driver`
    /// (once; device memory and pageable tensors are left alone).
    pub fn page_lock(&self, driver: &Arc<dyn Driver>) -> Result<(), DriverError> {
        let Place::Host {
            locked,
            buf,
            pinned,
        } = &self.v().storage.place
        else {
            return Ok(());
        };
        if locked.get().is_some() || pinned.get().is_none() {
            return Ok(());
        }
        let mut buf = buf.write().unwrap_or_else(|e| e.into_inner());
        let bytes = buf.nbytes();
        if bytes == 0 {
            return Ok(());
        }
        let ptr =
            crate::with_dtype!(buf.dtype(), T => buf.as_mut_slice::<T>().as_mut_ptr().cast::<u8>());
        // SAFETY: a host storage's buffer never grows or moves while the
        // storage holds it, and `locked` is dropped before `buf` (a move into
        // a device block, `placed`, drops this place, unlocking it first).
        let page = unsafe { PageLocked::lock(driver, ptr, bytes)? };
        let _ = locked.set(page);
        Ok(())
    }

    /// PyTorch's `x.data_ptr()`: the address of the first element. A device
    /// tensor's is its block's device address (made up on the simulator, as
    /// the allocator's segments are) plus its offset; a host tensor's, its
    /// buffer's; an empty tensor's, 0 (null), as PyTorch's.
    pub fn data_ptr(&self) -> u64 {
        let v = self.v();
        let at = (v.offset * self.dtype().size()) as u64;
        if let Some(addr) = self.memory().and_then(Memory::address) {
            return match addr {
                0 => 0,
                a => a + at,
            };
        }
        match &v.storage.place {
            Place::Host { buf, .. } | Place::Device { buf, .. } => {
                let buf = buf.read().unwrap_or_else(|e| e.into_inner());
                if buf.is_empty() {
                    return 0;
                }
                let base =
                    crate::with_dtype!(buf.dtype(), T => buf.as_slice::<T>().as_ptr() as u64);
                base + at
            }
            Place::Driver(d) => d.addr + at,
            // A meta tensor has no memory: PyTorch's `data_ptr()` is 0.
            Place::Meta { .. } => 0,
        }
    }

    /// Whether a driver has page-locked this tensor's memory.
    pub fn is_page_locked(&self) -> bool {
        matches!(&self.v().storage.place, Place::Host { locked, .. } if locked.get().is_some())
    }

    /// Identifies the storage (for naming blocks in `mem map`).
    /// This tensor, not kept (`WeakTensor`).
    pub fn downgrade(&self) -> WeakTensor {
        WeakTensor {
            storage: Arc::downgrade(&self.v().storage),
            shape: self.v().shape.clone(),
            strides: self.v().strides.clone(),
            offset: self.v().offset,
            dtype: self.v().dtype,
            device: self.v().device,
        }
    }

    #[inline]
    pub fn storage_id(&self) -> usize {
        Arc::as_ptr(&self.v().storage) as usize
    }

    /// A handle naming this tensor's memory without keeping it: while the
    /// handle lives, no other memory can have its `storage_id`.
    pub fn storage_handle(&self) -> StorageHandle {
        StorageHandle(Arc::downgrade(&self.v().storage))
    }

    /// Calls `f` with the elements in logical order: borrowed when contiguous, gathered otherwise.
    /// A `meta` tensor has no elements to give: `f` sees none.
    pub fn with_slice<T: Stored, R>(&self, f: impl FnOnce(&[T]) -> R) -> R {
        let v = self.v();
        if v.device.is_meta() {
            return f(&[]);
        }
        let buf = self.read();
        let all = buf.as_slice::<T>();
        if self.is_contiguous() {
            f(&all[v.offset..v.offset + numel(&v.shape)])
        } else {
            let gathered = gather(all, &v.shape, &v.strides, v.offset);
            drop(buf);
            f(&gathered)
        }
    }

    /// The elements in logical order, converted to `T`.
    pub fn to_vec<T: Stored>(&self) -> Vec<T> {
        let own = crate::with_dtype!(self.v().dtype, S => self.with_slice::<S, _>(|s| {
            S::into_buffer(s.to_vec())
        }));
        let cast = own.cast(T::DTYPE);
        cast.as_slice::<T>().to_vec()
    }

    /// A new tensor sharing this one's storage.
    /// An empty view starts at 0: it has no element, and its offset (which
    /// PyTorch lets run past the storage) is never read.
    pub fn view(&self, shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Tensor {
        let offset = if numel(&shape) == 0 { 0 } else { offset };
        let v = self.v();
        Tensor::of(View {
            storage: Arc::clone(&v.storage),
            shape,
            strides,
            offset,
            dtype: v.dtype,
            device: v.device,
            own_version: v.own_version.clone(),
        })
    }

    /// Whether no other tensor (no view, no alias) shares these elements,
    /// and this one covers all of them from the start.
    pub fn owns_storage(&self) -> bool {
        let v = self.v();
        Arc::strong_count(&v.storage) == 1 && v.offset == 0 && v.storage.len() == numel(&v.shape)
    }

    /// Whether this tensor is its storage, laid out plainly from the start
    /// (not a slice, a transpose or an expansion of it; aliases may share it).
    pub fn covers_storage(&self) -> bool {
        let v = self.v();
        v.offset == 0 && v.storage.len() == numel(&v.shape) && self.is_contiguous()
    }

    /// PyTorch's `x._version`: how many in-place writes its storage has had.
    pub fn version(&self) -> u64 {
        let v = self.v();
        match &v.own_version {
            Some(v) => v.load(Ordering::Acquire),
            None => v.storage.version.load(Ordering::Acquire) & !MARK,
        }
    }

    /// Whether this is an inference tensor (`x.is_inference()`): its
    /// storage was made under `torch.inference_mode()`.
    pub fn is_inference(&self) -> bool {
        self.v().storage.inference
    }

    /// An in-place write changed the storage (the op layer calls this).
    pub fn bump_version(&self) {
        match &self.v().own_version {
            Some(v) => v.fetch_add(1, Ordering::AcqRel),
            None => self.v().storage.version.fetch_add(1, Ordering::AcqRel),
        };
    }

    /// PyTorch's `set_data` (`x.data = y`): from now on this tensor views
    /// `y`'s elements, with `y`'s shape, strides, dtype and device, as
    /// PyTorch's shallow copy of `y` into `x` does. Its autograd record
    /// (`requires_grad`, `.grad`, `grad_fn`) stays, and so does its version
    /// count (PyTorch keeps `x`'s counter; its views made before keep the
    /// storage's). The view it had is kept until the tensor drops: a reader
    /// may still hold a borrow of it (`Runtime::set_data` copies instead where
    /// it can, so a loop of `p.data = ...` keeps nothing).
    pub fn set_data(&self, y: &Tensor) {
        let counter = match &self.v().own_version {
            Some(c) => Arc::clone(c),
            None => Arc::new(AtomicU64::new(self.version())),
        };
        let v = y.v();
        let view = View {
            storage: Arc::clone(&v.storage),
            shape: v.shape.clone(),
            strides: v.strides.clone(),
            offset: v.offset,
            dtype: v.dtype,
            device: v.device,
            own_version: Some(counter),
        };
        let node = Box::into_raw(Box::new(Newer {
            view,
            older: std::ptr::null_mut(),
        }));
        let mut older = self.replaced.0.load(Ordering::Acquire);
        loop {
            // SAFETY: `node` is this call's own until the exchange below
            // publishes it.
            unsafe { (*node).older = older };
            match self.replaced.0.compare_exchange_weak(
                older,
                node,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(now) => older = now,
            }
        }
    }

    /// Whether `x.data = y` can be done by copying `y`'s elements into this
    /// tensor's memory with nothing else seeing the difference but the
    /// address: both own their storage (no view, no alias of either), and
    /// they are laid out alike on one device.
    pub fn can_take_elements_of(&self, y: &Tensor) -> bool {
        let (a, b) = (self.v(), y.v());
        self.owns_storage()
            && y.owns_storage()
            && a.shape == b.shape
            && a.strides == b.strides
            && a.dtype == b.dtype
            && a.device == b.device
            && self.is_contiguous()
    }

    /// Sets the version count back to `v` (after `Runtime::set_data`'s copy,
    /// which is not an in-place change for PyTorch).
    pub fn restore_version(&self, v: u64) {
        match &self.v().own_version {
            Some(c) => c.store(v, Ordering::Release),
            None => {
                let mark = self.v().storage.version.load(Ordering::Acquire) & MARK;
                self.v().storage.version.store(v | mark, Ordering::Release);
            }
        }
    }

    /// `x.data`: the same elements, with a version counter of its own (at
    /// 0), which this tensor's views share.
    pub fn with_own_version(&self) -> Tensor {
        let mut t = self.alias();
        t.first.own_version = Some(Arc::new(AtomicU64::new(0)));
        t
    }

    /// The same elements, with a version counter of its own starting where
    /// this one's is: a child process's copy of a tensor (its in-place
    /// changes are counted apart from the parent's, as in PyTorch, where
    /// each process's tensor has its own counter over shared memory).
    pub fn with_version_copy(&self) -> Tensor {
        let mut t = self.alias();
        t.first.own_version = Some(Arc::new(AtomicU64::new(self.version())));
        t
    }

    /// The autograd layer's record of this tensor, when it has one.
    #[inline]
    pub fn autograd(&self) -> Option<&Record> {
        self.autograd.get()
    }

    /// Gives this tensor its autograd record, once: the one it has already
    /// (the new one if there was none).
    pub fn autograd_or_init(&self, make: impl FnOnce() -> Record) -> &Record {
        self.autograd.get_or_init(make)
    }

    /// Gives a tensor nobody else holds yet its autograd record (a fresh
    /// op output: no `Once` to go through). `false`, and nothing set, when
    /// it has one already.
    pub fn set_autograd(&mut self, record: Record) -> bool {
        self.autograd.set_mut(record)
    }

    /// Marks the storage for the autograd layer (a base whose history an
    /// in-place op changed: its views look it up): one bit of the version
    /// word, so a storage costs nothing more. True when it was not marked.
    pub fn mark_for_autograd(&self) -> bool {
        self.v().storage.version.fetch_or(MARK, Ordering::AcqRel) & MARK == 0
    }

    /// Whether `mark_for_autograd` marked this storage.
    pub fn marked_for_autograd(&self) -> bool {
        self.v().storage.version.load(Ordering::Acquire) & MARK != 0
    }

    /// How many elements its storage holds (the whole allocation a view
    /// keeps alive, `x.untyped_storage().nbytes()` over the element size).
    pub fn storage_len(&self) -> usize {
        self.v().storage.len()
    }

    /// The address of its storage's first element (`data_ptr()` less the
    /// view's offset; 0 for a tensor with no memory).
    pub fn storage_ptr(&self) -> u64 {
        match self.data_ptr() {
            0 => 0,
            p => p - (self.v().offset * self.dtype().size()) as u64,
        }
    }

    /// A new tensor for the same elements with no autograd record (what
    /// `detach()` and a saved tensor are).
    pub fn alias(&self) -> Tensor {
        let v = self.v();
        self.view(v.shape.clone(), v.strides.clone(), v.offset)
    }

    /// The same elements in a fresh contiguous buffer.
    pub fn contiguous_buffer(&self) -> Buffer {
        self.contiguous_of(self.read())
    }

    /// The elements of `buf` (this tensor's storage, as read) in a fresh
    /// contiguous buffer.
    /// (None for a `meta` tensor: it has no elements.)
    pub fn contiguous_of(&self, buf: BufRef<'_>) -> Buffer {
        let v = self.v();
        if v.device.is_meta() {
            return Buffer::zeros(v.dtype, 0);
        }
        crate::with_dtype!(v.dtype, T => {
            let all = buf.as_slice::<T>();
            // A strided view is gathered once, straight into the new buffer.
            T::into_buffer(match self.is_contiguous() {
                true => all[v.offset..v.offset + numel(&v.shape)].to_vec(),
                false => gather(all, &v.shape, &v.strides, v.offset),
            })
        })
    }

    /// A contiguous copy (always a new buffer).
    pub fn copy(&self) -> Tensor {
        let v = self.v();
        if v.device.is_meta() {
            return Tensor::meta(v.shape.clone(), v.dtype);
        }
        Tensor::new(self.contiguous_buffer(), v.shape.clone(), v.device)
    }

    /// Converts to `dtype` (a copy, even when the dtype is unchanged), floats
    /// that do not fit an integer as the tensor's device does (`FloatToInt`).
    pub fn cast(&self, dtype: DType) -> Tensor {
        let v = self.v();
        if v.device.is_meta() {
            return Tensor::meta(v.shape.clone(), dtype);
        }
        let buf = self.contiguous_buffer();
        // A copy in its own dtype needs no second pass.
        let buf = match dtype == v.dtype {
            true => buf,
            false => buf.cast_by(dtype, FloatToInt::on(v.device)),
        };
        Tensor::new(buf, v.shape.clone(), v.device)
    }

    /// Reverses the dimensions (PyTorch's `.T` / `.mT` for 2-D).
    pub fn t(&self) -> Tensor {
        let v = self.v();
        let shape = v.shape.iter().rev().copied().collect();
        let strides = v.strides.iter().rev().copied().collect();
        self.view(shape, strides, v.offset)
    }

    pub fn transpose(&self, a: usize, b: usize) -> Tensor {
        let v = self.v();
        let (mut shape, mut strides) = (v.shape.clone(), v.strides.clone());
        shape.swap(a, b);
        strides.swap(a, b);
        self.view(shape, strides, v.offset)
    }

    /// A view with broadcast dimensions (stride 0) expanded to `target`.
    pub fn expand(&self, target: &[usize]) -> Tensor {
        let v = self.v();
        let strides = shape::broadcast_strides(&v.shape, &v.strides, target);
        self.view(target.to_vec(), strides, v.offset)
    }

    /// Reshapes, as a view when the memory is contiguous and as a copy otherwise.
    /// One dimension may be -1 (inferred).
    pub fn reshape(&self, dims: &[i64]) -> Result<Tensor, Error> {
        let n = self.numel();
        let mut infer = None;
        let mut known = 1usize;
        let mut shape = Vec::with_capacity(dims.len());
        for (i, &d) in dims.iter().enumerate() {
            if d == -1 {
                if infer.replace(i).is_some() {
                    return Err(Error::shape("reshape: only one dimension can be -1"));
                }
                shape.push(0);
            } else if d < 0 {
                return Err(Error::shape(format!("reshape: invalid dimension {d}")));
            } else {
                known = known
                    .checked_mul(d as usize)
                    .ok_or_else(|| Error::shape("reshape: shape too large"))?;
                shape.push(d as usize);
            }
        }
        if let Some(i) = infer {
            if known == 0 || !n.is_multiple_of(known) {
                return Err(reshape_error(&self.v().shape, dims, n));
            }
            shape[i] = n / known;
        } else if known != n {
            return Err(reshape_error(&self.v().shape, dims, n));
        }
        if self.is_contiguous() {
            let strides = contiguous_strides(&shape);
            Ok(self.view(shape, strides, self.v().offset))
        } else if self.v().device.is_meta() {
            Ok(Tensor::meta(shape, self.v().dtype))
        } else {
            Ok(Tensor::new(
                self.contiguous_buffer(),
                shape,
                self.v().device,
            ))
        }
    }

    /// A copy of this tensor's elements with a different device tag.
    pub fn with_device(&self, device: Device) -> Tensor {
        let v = self.v();
        if device.is_meta() {
            return Tensor::meta(v.shape.clone(), v.dtype);
        }
        Tensor::new(self.contiguous_buffer(), v.shape.clone(), device)
    }
}

fn reshape_error(shape: &[usize], dims: &[i64], n: usize) -> Error {
    let want: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    Error::Shape {
        message: format!(
            "cannot reshape a tensor of shape {} ({n} elements) into [{}]",
            shape::fmt_shape(shape),
            want.join(",")
        ),
        help: Some("the product of the new dimensions must equal the number of elements".into()),
    }
}

/// Copies the elements a strided view reads, in logical order.
/// A row (the innermost dimension) at a time: a slice copy where the row
/// is contiguous.
pub fn gather<T: Stored>(src: &[T], shape: &[usize], strides: &[isize], offset: usize) -> Vec<T> {
    if let Some(out) = gather_transposed(src, shape, strides, offset) {
        return out;
    }
    let mut out = Vec::with_capacity(numel(shape));
    let Some((&inner, outer)) = shape.split_last() else {
        for_each_offset(shape, strides, offset, |o| out.push(src[o]));
        return out;
    };
    if inner == 0 {
        return out;
    }
    let step = strides[outer.len()];
    for_each_offset(outer, &strides[..outer.len()], offset, |o| {
        if step == 1 {
            out.extend_from_slice(&src[o..o + inner]);
        } else {
            let mut at = o as isize;
            for _ in 0..inner {
                out.push(src[at as usize]);
                at += step;
            }
        }
    });
    out
}

/// Tiles of a transposed copy: a square of this many rows and columns
/// (64 f32 rows of 64: 16 KiB read and 16 KiB written, within L1).
const TILE: usize = 64;

/// `gather` of a view whose last two dimensions are transposed (`x.T`,
/// `x.transpose(-1, -2)` of a contiguous tensor: the next-to-last has
/// stride 1, the last a larger one), in square tiles, so each tile's reads
/// and writes stay in cache: element by element it runs at memory's
/// latency, not its bandwidth (a 288 x 36864 f32 `.T.contiguous()` took
/// 53 ms). `None` for any other layout.
fn gather_transposed<T: Stored>(
    src: &[T],
    shape: &[usize],
    strides: &[isize],
    offset: usize,
) -> Option<Vec<T>> {
    let n = shape.len();
    if n < 2 || strides[n - 2] != 1 || strides[n - 1] <= 1 {
        return None;
    }
    let (rows, cols) = (shape[n - 2], shape[n - 1]);
    if rows < TILE || cols < TILE {
        return None;
    }
    let col_stride = strides[n - 1] as usize;
    let total = numel(shape);
    let mut out: Vec<T> = Vec::with_capacity(total);
    let mut base = 0usize;
    for_each_offset(&shape[..n - 2], &strides[..n - 2], offset, |o| {
        let spare = &mut out.spare_capacity_mut()[base..base + rows * cols];
        for r0 in (0..rows).step_by(TILE) {
            for c0 in (0..cols).step_by(TILE) {
                for c in c0..(c0 + TILE).min(cols) {
                    let from = o + c * col_stride;
                    for r in r0..(r0 + TILE).min(rows) {
                        spare[r * cols + c].write(src[from + r]);
                    }
                }
            }
        }
        base += rows * cols;
    });
    // SAFETY: every one of the `total` elements was written above (each
    // matrix's rows x cols, tile by tile, for every leading index).
    unsafe { out.set_len(total) };
    Some(out)
}
