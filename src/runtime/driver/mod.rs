//! The driver interface: every operation the CUDA backend asks of a device,
//! as one object-safe trait. Two implementations: `emu` (the CPU stand-in
//! that runs the same kernels compiled for the host, so CI tests the
//! backend's code path without a GPU) and the CUDA driver through cudarc.
//! Everything above this trait (tensor storage, `exec`'s launch plans, the
//! op layer) is shared by both.
//!
//! Handles are plain numbers the implementation hands out; `StreamHandle`
//! 0 is each device's default (legacy) stream.
//!
//! This is the vocabulary the core (tensor storage, devices, streams,
//! events, pinned memory) speaks to a device, so it sits below the backends
//! that implement it (`cuda/`): the errors, the gemm descriptor, the kernel
//! names and the launch geometry are here too.

mod error;
pub mod fma_gemm;
mod gemm;
mod geometry;
mod kernel;

pub use error::DriverError;
pub use gemm::Gemm;
pub use geometry::{Geometry, Launch, ReduceTargets};
pub use kernel::{Kernel, Unit};

use crate::runtime::DType;

/// A device address. On `emu` it is a host address of memory the emulated
/// device owns, so the host-compiled kernels use it as it is.
pub type DevicePtr = u64;

/// A stream of one device; 0 is the default stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StreamHandle {
    pub device: u32,
    pub id: u64,
}

impl StreamHandle {
    pub fn default_of(device: u32) -> StreamHandle {
        StreamHandle { device, id: 0 }
    }
}

/// An event of one device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EventHandle {
    pub device: u32,
    pub id: u64,
}

/// One end of a copy: host memory (pageable or page-locked) or device memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addr {
    Host(*const u8),
    Device { device: u32, ptr: DevicePtr },
}

impl Addr {
    pub fn direction(src: Addr, dst: Addr) -> Direction {
        match (src, dst) {
            (Addr::Host(_), Addr::Host(_)) => Direction::HostToHost,
            (Addr::Host(_), Addr::Device { .. }) => Direction::HostToDevice,
            (Addr::Device { .. }, Addr::Host(_)) => Direction::DeviceToHost,
            (Addr::Device { device: a, .. }, Addr::Device { device: b, .. }) if a == b => {
                Direction::DeviceToDevice
            }
            (Addr::Device { .. }, Addr::Device { .. }) => Direction::Peer,
        }
    }
}

/// Which way a copy goes (`cuMemcpy*Async`'s kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    Peer,
}

/// What the backend needs to know of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Properties {
    pub name: String,
    pub total_memory: usize,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
}

/// The reduction of a collective (NCCL's `ncclRedOp_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    Sum,
    Avg,
    Max,
    Min,
    Prod,
}

/// Which collective, as NCCL names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CollectiveOp {
    AllReduce(Reduce),
    /// `count` is each rank's share of the input.
    ReduceScatter(Reduce),
    /// `count` is each rank's part.
    AllGather,
    /// `root`: the rank whose buffer everyone receives.
    Broadcast {
        root: usize,
    },
    /// `root`: the rank whose `recv` gets the reduction of every `send`
    /// (the others' `recv` is not written).
    Reduce {
        op: Reduce,
        root: usize,
    },
}

/// One device's side of a collective: its stream and buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rank {
    pub stream: StreamHandle,
    pub send: DevicePtr,
    pub recv: DevicePtr,
}

/// A collective over `ranks` (one per device, in ring order) of `count`
/// elements of `dtype` (see `CollectiveOp` for what `count` counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collective {
    pub op: CollectiveOp,
    pub dtype: DType,
    pub count: usize,
    pub ranks: Vec<Rank>,
    /// A process group's collective (`ranks` in group rank order): each
    /// rank's own communicator, made by `nccl_init_rank`. None: the
    /// session's communicators over the ranks' devices.
    pub group: Option<u64>,
}

/// NCCL's `ncclUniqueId`: what rank 0 makes and every rank of a group
/// passes to `ncclCommInitRank`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct NcclId(pub [u8; 128]);

impl std::fmt::Debug for NcclId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NcclId({:02x?}…)", &self.0[..8])
    }
}

/// Work the host is told about when a stream reaches it (`cuLaunchHostFunc`).
pub type Callback = Box<dyn FnOnce() + Send>;

/// The operations the CUDA backend uses, one driver call each.
///
/// # Safety
/// Copies, memsets, launches and products take raw addresses: the caller
/// guarantees they lie in live memory of the right size on the right device
/// (host memory: live for as long as the stream may use it).
pub trait Driver: Send + Sync {
    /// `cuda` or `emu`: shown in the banner and `devices`.
    fn name(&self) -> &'static str;
    fn device_count(&self) -> u32;
    fn properties(&self, device: u32) -> Result<Properties, DriverError>;
    /// How big `exec`'s launches are on `device`.
    fn geometry(&self, device: u32) -> Geometry;
    /// Whether queued work has run by the time its call returns (`emu`):
    /// then the runtime gives a kernel racing a pending write the bytes
    /// from before it, as the simulator shows; a GPU's kernels read what is there.
    fn runs_when_queued(&self) -> bool {
        false
    }
    /// Whether an `empty` tensor reads as zeros, as the simulator shows
    /// it (`emu`, zeroing the block on the host); on a GPU a reused block
    /// shows what it held last, as `torch.empty`'s does.
    fn empty_reads_zero(&self) -> bool {
        false
    }

    // Memory.
    fn mem_alloc(&self, device: u32, bytes: usize) -> Result<DevicePtr, DriverError>;
    fn mem_free(&self, device: u32, ptr: DevicePtr) -> Result<(), DriverError>;
    /// (free, total) bytes, as `cuMemGetInfo`.
    fn mem_info(&self, device: u32) -> Result<(usize, usize), DriverError>;
    /// The memory this process holds on `device`, as NVML reports it for
    /// PyTorch's out-of-memory message; None where it cannot be asked (a
    /// real GPU: cudash does not load NVML, and PyTorch without NVML leaves
    /// the sentence out too).
    fn process_memory(&self, device: u32) -> Option<usize> {
        let _ = device;
        None
    }
    /// Address space of `bytes` on `device` with no memory behind it
    /// (`cuMemAddressReserve`), for an expandable segment.
    fn mem_address_reserve(&self, device: u32, bytes: usize) -> Result<DevicePtr, DriverError> {
        let _ = (device, bytes);
        Err(DriverError::Unavailable(
            "this driver has no virtual memory management".into(),
        ))
    }
    /// Gives back address space `mem_address_reserve` gave, nothing mapped
    /// in it any more (`cuMemAddressFree`).
    fn mem_address_free(
        &self,
        device: u32,
        ptr: DevicePtr,
        bytes: usize,
    ) -> Result<(), DriverError> {
        let _ = (device, ptr, bytes);
        Ok(())
    }
    /// New memory of `device` behind `ptr..ptr+bytes` of reserved address
    /// space, readable and writable by the device and its peers
    /// (`cuMemCreate`, `cuMemMap`, `cuMemSetAccess`).
    fn mem_map(&self, device: u32, ptr: DevicePtr, bytes: usize) -> Result<(), DriverError> {
        let _ = (device, ptr, bytes);
        Err(DriverError::Unavailable(
            "this driver has no virtual memory management".into(),
        ))
    }
    /// Gives back the memory `mem_map` put at `ptr`, once the device's work
    /// is done (`cuMemUnmap`, `cuMemRelease`: unlike `cuMemFree` they do not
    /// wait for it themselves).
    fn mem_unmap(&self, device: u32, ptr: DevicePtr, bytes: usize) -> Result<(), DriverError> {
        let _ = (device, ptr, bytes);
        Ok(())
    }
    /// Page-locked host memory (`cuMemHostAlloc`), zeroed.
    fn host_alloc(&self, bytes: usize) -> Result<*mut u8, DriverError>;
    /// # Safety
    /// `ptr` came from `host_alloc` of this driver and no stream still uses it.
    unsafe fn host_free(&self, ptr: *mut u8) -> Result<(), DriverError>;

    /// Page-locks existing host memory in place (`cuMemHostRegister`,
    /// portable to every device).
    fn host_register(&self, ptr: *mut u8, bytes: usize) -> Result<(), DriverError>;
    /// # Safety
    /// `ptr` was registered with `host_register` of this driver and no
    /// stream still uses it.
    unsafe fn host_unregister(&self, ptr: *mut u8) -> Result<(), DriverError>;

    // Streams and copies.
    fn stream_create(&self, device: u32) -> Result<StreamHandle, DriverError>;
    fn stream_destroy(&self, stream: StreamHandle) -> Result<(), DriverError>;
    /// Copies `bytes` from `src` to `dst` in `stream`'s order (peer copies
    /// included); asynchronous unless host memory is pageable.
    /// A copy of 0 bytes does nothing (an empty tensor's address is null).
    ///
    /// # Safety
    /// Both ranges are live memory of `bytes` bytes.
    unsafe fn copy(
        &self,
        dst: Addr,
        src: Addr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<(), DriverError>;
    /// # Safety
    /// `ptr..ptr+bytes` is live memory of `device`.
    unsafe fn memset(
        &self,
        device: u32,
        ptr: DevicePtr,
        value: u8,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<(), DriverError>;

    // Work.
    /// Queues `kernel` as `at` says; `args` are the bytes of its one
    /// argument struct.
    ///
    /// # Safety
    /// Every address in `args` is live memory of `stream`'s device.
    unsafe fn launch(
        &self,
        stream: StreamHandle,
        kernel: &Kernel,
        at: Launch,
        args: &[u8],
    ) -> Result<(), DriverError>;
    /// A cuBLAS matrix product (`blas::Gemm`) in `dt`, queued on `stream`.
    ///
    /// # Safety
    /// The operands and output hold what `g` says, on `stream`'s device.
    unsafe fn gemm(
        &self,
        stream: StreamHandle,
        dt: DType,
        g: &Gemm,
        first: DevicePtr,
        second: DevicePtr,
        out: DevicePtr,
    ) -> Result<(), DriverError>;

    // Events.
    /// `timing`: whether `elapsed` may measure with it (events that only
    /// order work have timing disabled).
    fn event_create(&self, device: u32, timing: bool) -> Result<EventHandle, DriverError>;
    fn event_destroy(&self, event: EventHandle) -> Result<(), DriverError>;
    fn event_record(&self, event: EventHandle, stream: StreamHandle) -> Result<(), DriverError>;
    /// Whether the work before the event's record is done.
    fn event_query(&self, event: EventHandle) -> Result<bool, DriverError>;
    fn event_synchronize(&self, event: EventHandle) -> Result<(), DriverError>;
    /// Milliseconds between two recorded timing events.
    fn event_elapsed(&self, start: EventHandle, end: EventHandle) -> Result<f32, DriverError>;
    fn stream_wait_event(
        &self,
        stream: StreamHandle,
        event: EventHandle,
    ) -> Result<(), DriverError>;

    // Synchronisation.
    /// Whether everything queued on `stream` so far is done; never blocks.
    fn stream_query(&self, stream: StreamHandle) -> Result<bool, DriverError>;
    fn stream_synchronize(&self, stream: StreamHandle) -> Result<(), DriverError>;
    fn device_synchronize(&self, device: u32) -> Result<(), DriverError>;
    /// Runs `f` on a host thread once the work queued on `stream` so far is done.
    fn host_callback(&self, stream: StreamHandle, f: Callback) -> Result<(), DriverError>;

    // Collectives.
    /// The NCCL the driver runs collectives with ("NCCL 2.21.5"); None
    /// where it has none (`emu`, or the library is missing), and the
    /// runtime runs its own ring of peer copies and kernels.
    fn nccl(&self) -> Option<String> {
        None
    }
    /// Queues `c` with NCCL, as one group on the ranks' streams.
    ///
    /// # Safety
    /// Each rank's buffers are live memory of its stream's device, of the
    /// sizes `c` implies.
    unsafe fn collective(&self, c: &Collective) -> Result<(), DriverError> {
        let _ = c;
        Err(DriverError::Unavailable("this driver has no NCCL".into()))
    }
    /// A new NCCL unique id (rank 0's part of a group's rendezvous).
    fn nccl_unique_id(&self) -> Result<NcclId, DriverError> {
        Err(DriverError::Unavailable("this driver has no NCCL".into()))
    }
    /// Rank `rank` of `size` in process group `group` makes its own
    /// communicator on `device`, on the calling thread (`ncclCommInitRank`):
    /// returns once every rank has.
    fn nccl_init_rank(
        &self,
        (group, rank, size): (u64, usize, usize),
        id: &NcclId,
        device: u32,
    ) -> Result<(), DriverError> {
        let _ = (group, rank, size, id, device);
        Err(DriverError::Unavailable("this driver has no NCCL".into()))
    }
    /// Rank `rank` of `group` destroys its communicator.
    fn nccl_destroy_rank(&self, group: u64, rank: usize) {
        let _ = (group, rank);
    }
}
