//! One CUDA device on the driver API: its primary context, kernels loaded
//! from the cache's CUBINs, memory, copies and launches. Every call checks
//! its result; nothing here is reached unless `probe` found a working driver.
//!
//! This layer compiles everywhere but runs only on a GPU: `tests/kernels_gpu.rs`
//! (ignored unless asked for) exercises it there.

use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex};

use cudarc::driver::{result, sys};

use super::nvrtc::{Arch, Cache};
use super::probe::{self, DriverDevice, Probe};
use crate::runtime::alloc::{SegmentError, SegmentSource};
use crate::runtime::driver::DriverError;
use crate::runtime::driver::{Kernel, Launch, Unit};
use crate::runtime::lock::lock;

fn call<T>(name: &'static str, r: Result<T, result::DriverError>) -> Result<T, DriverError> {
    r.map_err(|e| {
        if e.0 == sys::CUresult::CUDA_ERROR_ASSERT {
            return DriverError::Assert {
                call: name,
                device: None,
            };
        }
        // The error's name, then the driver's description of it:
        // "CUDA_ERROR_ASSERT: device-side assert triggered".
        let mut error = e
            .error_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|_| format!("{:?}", e.0));
        if let Ok(what) = e.error_string() {
            error = format!("{error}: {}", what.to_string_lossy());
        }
        DriverError::Call { call: name, error }
    })
}

/// A device address.
pub type DevicePtr = sys::CUdeviceptr;

/// The raw handle of `stream`, or null for the legacy default stream.
fn raw(stream: Option<&Stream>) -> sys::CUstream {
    stream.map_or(std::ptr::null_mut(), |s| s.raw)
}

pub struct CudaDevice {
    pub info: DriverDevice,
    /// The CUDA version the driver supports (`cuDriverGetVersion`: 13000 is 13.0).
    pub driver_version: i32,
    dev: sys::CUdevice,
    ctx: sys::CUcontext,
    modules: Mutex<HashMap<Unit, sys::CUmodule>>,
    functions: Mutex<HashMap<String, sys::CUfunction>>,
    /// Expandable segments' pages: address → the physical memory mapped there.
    pages: Mutex<HashMap<DevicePtr, sys::CUmemGenericAllocationHandle>>,
}

// SAFETY: the handles are plain driver handles, valid in any thread once the
// context is made current there (`bind`, at the start of every method).
unsafe impl Send for CudaDevice {}
unsafe impl Sync for CudaDevice {}

impl CudaDevice {
    /// Opens device `index` (its primary context, as the runtime API would).
    pub fn open(index: u32) -> Result<CudaDevice, DriverError> {
        let (count, driver_version) = match probe::probe() {
            Probe::Driver { devices, version } => (devices, version),
            Probe::NoDriver => return Err(DriverError::Unavailable("no CUDA driver found".into())),
            Probe::InitFailed { code } => {
                return Err(DriverError::Unavailable(format!(
                    "the driver did not start ({code})"
                )))
            }
        };
        if index >= count {
            return Err(DriverError::Unavailable(format!(
                "cuda:{index} does not exist ({count} device(s))"
            )));
        }
        let info = probe::describe(index).map_err(DriverError::Unavailable)?;
        let dev = call("cuDeviceGet", result::device::get(index as i32))?;
        // SAFETY: a device handle from the driver.
        let ctx = call("cuDevicePrimaryCtxRetain", unsafe {
            result::primary_ctx::retain(dev)
        })?;
        let d = CudaDevice {
            info,
            driver_version,
            dev,
            ctx,
            modules: Mutex::new(HashMap::new()),
            functions: Mutex::new(HashMap::new()),
            pages: Mutex::new(HashMap::new()),
        };
        d.bind()?;
        Ok(d)
    }

    pub fn arch(&self) -> Arch {
        self.info.compute_capability
    }

    /// Makes this device's context current on the calling thread.
    pub fn bind(&self) -> Result<(), DriverError> {
        // SAFETY: a context retained in `open` and released only in `drop`.
        call("cuCtxSetCurrent", unsafe {
            result::ctx::set_current(self.ctx)
        })
    }

    /// The kernel's function handle: compiled (or read from the cache) and
    /// loaded on first use.
    pub fn function(&self, kernel: &Kernel) -> Result<sys::CUfunction, DriverError> {
        if let Some(&f) = lock(&self.functions).get(&kernel.name) {
            return Ok(f);
        }
        self.bind()?;
        let module = {
            let mut modules = lock(&self.modules);
            match modules.get(&kernel.unit) {
                Some(&m) => m,
                None => {
                    let nvrtc =
                        super::nvrtc::version().map_err(|e| DriverError::Compile(e.to_string()))?;
                    probe::driver_runs_cubins_of(self.driver_version, nvrtc)
                        .map_err(DriverError::Unavailable)?;
                    let cubin = Cache::global()
                        .cubin(&kernel.unit, self.arch())
                        .map_err(|e| DriverError::Compile(e.to_string()))?;
                    // SAFETY: a complete CUBIN image, alive for the call.
                    let m = call("cuModuleLoadData", unsafe {
                        result::module::load_data(cubin.as_ptr() as *const c_void)
                    })?;
                    modules.insert(kernel.unit, m);
                    m
                }
            }
        };
        let name = CString::new(kernel.name.as_str()).expect("kernel names have no NUL");
        // SAFETY: a loaded module.
        let f = call("cuModuleGetFunction", unsafe {
            result::module::get_function(module, name)
        })?;
        lock(&self.functions).insert(kernel.name.clone(), f);
        Ok(f)
    }

    /// Launches `kernel` with its one argument struct on `stream`.
    ///
    /// # Safety
    /// Every address in `args` is memory of this device that stays allocated
    /// until the kernel has run. (`stream`: None is the legacy default stream.)
    pub unsafe fn launch<A: Copy>(
        &self,
        kernel: &Kernel,
        at: Launch,
        stream: Option<&Stream>,
        args: &A,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller's contract; `A`'s bytes are the argument struct.
        unsafe { self.launch_bytes(kernel, at, stream, super::args::bytes_of(args)) }
    }

    /// `launch` with the argument struct as bytes.
    ///
    /// # Safety
    /// As `launch`; `args` is the bytes of the kernel's argument struct.
    pub unsafe fn launch_bytes(
        &self,
        kernel: &Kernel,
        at: Launch,
        stream: Option<&Stream>,
        args: &[u8],
    ) -> Result<(), DriverError> {
        let Launch { grid, block, .. } = at;
        let f = self.function(kernel)?;
        self.bind()?;
        let mut params = [args.as_ptr() as *mut c_void];
        // SAFETY: every kernel takes exactly one parameter laid out as the
        // struct whose bytes `args` are (args.rs mirrors common.cuh); the
        // driver copies it at launch.
        call("cuLaunchKernel", unsafe {
            result::launch_kernel(
                f,
                (grid.max(1), 1, 1),
                (block, 1, 1),
                0,
                raw(stream),
                &mut params,
            )
        })
    }

    /// `bytes` of device memory (uninitialised).
    pub fn alloc(&self, bytes: usize) -> Result<DevicePtr, DriverError> {
        self.bind()?;
        // SAFETY: an allocation of the asked size; the caller frees it with `free`.
        match unsafe { result::malloc_sync(bytes.max(1)) } {
            Ok(p) => Ok(p),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                Err(DriverError::OutOfMemory { bytes })
            }
            Err(e) => call("cuMemAlloc", Err(e)),
        }
    }

    /// Frees memory from `alloc`.
    pub fn free(&self, ptr: DevicePtr) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: `ptr` came from `alloc` and is freed once.
        call("cuMemFree", unsafe { result::free_sync(ptr) })
    }

    /// `bytes` of address space with no memory behind it, for an
    /// expandable segment (`bytes` a multiple of 2 MiB, the granularity).
    pub fn address_reserve(&self, bytes: usize) -> Result<DevicePtr, DriverError> {
        self.bind()?;
        let mut ptr: DevicePtr = 0;
        // SAFETY: a valid out-pointer; no fixed address asked for.
        let r = unsafe { sys::cuMemAddressReserve(&mut ptr, bytes, 0, 0, 0) };
        call("cuMemAddressReserve", r.result()).map(|_| ptr)
    }

    /// Gives back address space from `address_reserve`, nothing mapped in it.
    pub fn address_free(&self, ptr: DevicePtr, bytes: usize) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: the range `address_reserve` gave, with every page unmapped.
        let r = unsafe { sys::cuMemAddressFree(ptr, bytes) };
        call("cuMemAddressFree", r.result())
    }

    /// New memory of this device behind `ptr..ptr+bytes` of reserved
    /// address space, readable and writable here and on `peers` (as
    /// PyTorch's `ExpandableSegment::map`: `cuMemCreate`, `cuMemMap`,
    /// `cuMemSetAccess`).
    pub fn map(
        &self,
        ptr: DevicePtr,
        bytes: usize,
        peers: &[&CudaDevice],
    ) -> Result<(), DriverError> {
        self.bind()?;
        let location = |dev: sys::CUdevice| sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: dev,
        };
        // SAFETY: all-zero is a valid CUmemAllocationProp (no handle types, no flags).
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location = location(self.dev);
        let mut handle: sys::CUmemGenericAllocationHandle = 0;
        // SAFETY: a valid out-pointer and property struct.
        match unsafe { sys::cuMemCreate(&mut handle, bytes, &prop, 0) } {
            sys::CUresult::CUDA_SUCCESS => {}
            sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                return Err(DriverError::OutOfMemory { bytes })
            }
            r => return call("cuMemCreate", r.result()),
        }
        let access: Vec<sys::CUmemAccessDesc> = std::iter::once(self.dev)
            .chain(peers.iter().map(|p| p.dev))
            .map(|dev| sys::CUmemAccessDesc {
                location: location(dev),
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            })
            .collect();
        // SAFETY: `ptr..ptr+bytes` is reserved address space with nothing
        // mapped (the allocator's bookkeeping), `handle` memory of that size.
        let mapped = unsafe {
            call("cuMemMap", sys::cuMemMap(ptr, bytes, 0, handle, 0).result()).and_then(|_| {
                let r = sys::cuMemSetAccess(ptr, bytes, access.as_ptr(), access.len());
                call("cuMemSetAccess", r.result()).inspect_err(|_| {
                    sys::cuMemUnmap(ptr, bytes);
                })
            })
        };
        match mapped {
            Ok(()) => {
                lock(&self.pages).insert(ptr, handle);
                Ok(())
            }
            Err(e) => {
                // SAFETY: the handle just created, mapped nowhere.
                unsafe { sys::cuMemRelease(handle) };
                Err(e)
            }
        }
    }

    /// Gives back the memory `map` put at `ptr`, after the device's work
    /// is done: unmapping does not wait for it, and PyTorch waits first too.
    pub fn unmap(&self, ptr: DevicePtr, bytes: usize) -> Result<(), DriverError> {
        self.synchronize()?;
        let handle = lock(&self.pages)
            .remove(&ptr)
            .ok_or_else(|| DriverError::Call {
                call: "cuMemUnmap",
                error: "CUDA_ERROR_INVALID_VALUE: no page mapped there".into(),
            })?;
        // SAFETY: a page `map` mapped, unused now the device is idle.
        unsafe {
            call("cuMemUnmap", sys::cuMemUnmap(ptr, bytes).result())?;
            call("cuMemRelease", sys::cuMemRelease(handle).result())
        }
    }

    /// Copies host bytes to the device (synchronously).
    pub fn upload(&self, dst: DevicePtr, src: &[u8]) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: `dst` holds at least `src.len()` bytes.
        call("cuMemcpyHtoD", unsafe {
            result::memcpy_htod_sync(dst, src)
        })
    }

    /// Copies device bytes to the host (synchronously).
    pub fn download(&self, dst: &mut [u8], src: DevicePtr) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: `src` holds at least `dst.len()` bytes.
        call("cuMemcpyDtoH", unsafe {
            result::memcpy_dtoh_sync(dst, src)
        })
    }

    /// Waits for all work on the device; a kernel fault surfaces here.
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.bind()?;
        call("cuCtxSynchronize", result::ctx::synchronize())
    }

    /// (free, total) device memory, as the driver reports it.
    pub fn memory(&self) -> Result<(usize, usize), DriverError> {
        self.bind()?;
        call("cuMemGetInfo", result::mem_get_info())
    }
}

/// A CUDA stream of one device, destroyed when dropped. Side streams do not
/// synchronise with the legacy default stream (as PyTorch creates them).
/// Streams, events and pinned memory hold their device, so its context
/// outlives them, and bind it before they are destroyed (a drop may run on
/// a thread where another device's context is current).
pub struct Stream {
    pub raw: sys::CUstream,
    device: Arc<CudaDevice>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        let _ = self.device.bind();
        // SAFETY: a stream created in `CudaDevice::stream`, destroyed once.
        let _ = unsafe { result::stream::destroy(self.raw) };
    }
}

/// A CUDA event, destroyed when dropped. Host waits on it block rather than
/// spin; only events made for timing can give elapsed time.
pub struct Event {
    pub raw: sys::CUevent,
    device: Arc<CudaDevice>,
}

impl Drop for Event {
    fn drop(&mut self) {
        let _ = self.device.bind();
        // SAFETY: an event created in `CudaDevice::event`, destroyed once.
        let _ = unsafe { result::event::destroy(self.raw) };
    }
}

// SAFETY: driver handles are valid from any thread once their context is
// bound, which every use and the drop do.
unsafe impl Send for Stream {}
unsafe impl Sync for Stream {}
unsafe impl Send for Event {}
unsafe impl Sync for Event {}
// SAFETY: page-locked memory is ordinary host memory owned by this value;
// freeing it binds its device's context, as above.
unsafe impl Send for Pinned {}
unsafe impl Sync for Pinned {}

impl Event {
    /// Records the event at the tail of `stream` (None: the default stream).
    pub fn record(&self, stream: Option<&Stream>) -> Result<(), DriverError> {
        // SAFETY: a live event; the stream is live or null.
        call("cuEventRecord", unsafe {
            result::event::record(self.raw, raw(stream))
        })
    }

    /// Whether all work before the record has completed.
    pub fn query(&self) -> Result<bool, DriverError> {
        // SAFETY: a live event.
        match unsafe { result::event::query(self.raw) } {
            Ok(()) => Ok(true),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            Err(e) => call("cuEventQuery", Err(e)),
        }
    }

    pub fn synchronize(&self) -> Result<(), DriverError> {
        // SAFETY: a live event.
        call("cuEventSynchronize", unsafe {
            result::event::synchronize(self.raw)
        })
    }

    /// Milliseconds from `self` to `end`, both recorded and complete.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32, DriverError> {
        // SAFETY: two live events.
        call("cuEventElapsedTime", unsafe {
            result::event::elapsed(self.raw, end.raw)
        })
    }
}

/// Page-locked host memory from the driver, freed when dropped. Not
/// write-combined, so the host can read it at full speed.
pub struct Pinned {
    pub ptr: *mut u8,
    pub bytes: usize,
    device: Arc<CudaDevice>,
}

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = self.device.bind();
        // SAFETY: memory from `cuMemHostAlloc`, freed once.
        let _ = unsafe { result::free_host(self.ptr.cast()) };
    }
}

impl CudaDevice {
    /// A side stream (non-blocking, as PyTorch's).
    pub fn stream(self: &Arc<Self>) -> Result<Stream, DriverError> {
        self.bind()?;
        let raw = call(
            "cuStreamCreate",
            result::stream::create(result::stream::StreamKind::NonBlocking),
        )?;
        Ok(Stream {
            raw,
            device: Arc::clone(self),
        })
    }

    /// An event: with `timing` for `elapsed_ms` (`time`, `e1.elapsed(e2)`),
    /// without for events that only order work, which cost less to record
    /// and wait for. Host waits on either block rather than spin.
    pub fn event(self: &Arc<Self>, timing: bool) -> Result<Event, DriverError> {
        use sys::CUevent_flags as F;
        self.bind()?;
        let mut flags = F::CU_EVENT_BLOCKING_SYNC as u32;
        if !timing {
            flags |= F::CU_EVENT_DISABLE_TIMING as u32;
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: a valid out-pointer; the flags are the driver's.
        let r = unsafe { sys::cuEventCreate(&mut raw, flags) };
        call("cuEventCreate", r.result())?;
        Ok(Event {
            raw,
            device: Arc::clone(self),
        })
    }

    /// Makes `stream`'s later work wait for `event` (`wait e`, and `wait s`
    /// through an event recorded at s's tail).
    pub fn wait(&self, stream: Option<&Stream>, event: &Event) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: a live stream (or null) and a live event.
        call("cuStreamWaitEvent", unsafe {
            result::stream::wait_event(
                raw(stream),
                event.raw,
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        })
    }

    /// `bytes` of page-locked host memory (flags 0: portable to this
    /// context only, not write-combined).
    pub fn pinned(self: &Arc<Self>, bytes: usize) -> Result<Pinned, DriverError> {
        self.bind()?;
        // SAFETY: an allocation of the asked size, freed by `Pinned`'s drop.
        match unsafe { result::malloc_host(bytes.max(1), 0) } {
            Ok(p) => Ok(Pinned {
                ptr: p.cast(),
                bytes,
                device: Arc::clone(self),
            }),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                Err(DriverError::OutOfMemory { bytes })
            }
            Err(e) => call("cuMemHostAlloc", Err(e)),
        }
    }

    /// The flags `cuMemHostAlloc` gave `p` (to check it is not write-combined).
    pub fn pinned_flags(&self, p: &Pinned) -> Result<u32, DriverError> {
        let mut flags = 0;
        // SAFETY: a pointer from `cuMemHostAlloc` and a valid out-pointer.
        let r = unsafe { sys::cuMemHostGetFlags(&mut flags, p.ptr.cast()) };
        call("cuMemHostGetFlags", r.result()).map(|_| flags)
    }

    /// Whether this device can read and write `other`'s memory directly.
    pub fn can_access_peer(&self, other: &CudaDevice) -> Result<bool, DriverError> {
        let mut ok = 0;
        // SAFETY: two device handles and a valid out-pointer.
        let r = unsafe { sys::cuDeviceCanAccessPeer(&mut ok, self.dev, other.dev) };
        call("cuDeviceCanAccessPeer", r.result()).map(|_| ok != 0)
    }

    /// Lets this device's kernels and copies reach `other`'s memory (once; a
    /// second call is not an error).
    pub fn enable_peer_access(&self, other: &CudaDevice) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: the peer's live primary context.
        let r = unsafe { sys::cuCtxEnablePeerAccess(other.ctx, 0) };
        match r {
            sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
            r => call("cuCtxEnablePeerAccess", r.result()),
        }
    }

    /// Copies `bytes` from `src` on `from` to `dst` on this device, on `stream`.
    pub fn copy_from_peer(
        &self,
        dst: DevicePtr,
        from: &CudaDevice,
        src: DevicePtr,
        bytes: usize,
        stream: Option<&Stream>,
    ) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: both ranges are live allocations of at least `bytes` on their devices.
        let r = unsafe { sys::cuMemcpyPeerAsync(dst, self.ctx, src, from.ctx, bytes, raw(stream)) };
        call("cuMemcpyPeerAsync", r.result())
    }
}

/// Stream-ordered copies and fills: each is queued on `stream` (None: the
/// legacy default stream) after the work already there, as `cudaMemcpyAsync`
/// is. A copy to or from pageable host memory still returns only once the
/// host side has been read or written (the driver stages it); from pinned
/// memory it returns at once.
impl CudaDevice {
    /// # Safety
    /// `dst` holds `bytes` of this device's memory; `src` stays readable for
    /// `bytes` until the copy has run.
    pub unsafe fn copy_to_device(
        &self,
        dst: DevicePtr,
        src: *const u8,
        bytes: usize,
        stream: Option<&Stream>,
    ) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: the caller's contract.
        let r = unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.cast(), bytes, raw(stream)) };
        call("cuMemcpyHtoDAsync", r.result())
    }

    /// # Safety
    /// `src` holds `bytes` of this device's memory; `dst` stays writable for
    /// `bytes` until the copy has run.
    pub unsafe fn copy_to_host(
        &self,
        dst: *mut u8,
        src: DevicePtr,
        bytes: usize,
        stream: Option<&Stream>,
    ) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: the caller's contract.
        let r = unsafe { sys::cuMemcpyDtoHAsync_v2(dst.cast(), src, bytes, raw(stream)) };
        call("cuMemcpyDtoHAsync", r.result())
    }

    /// # Safety
    /// Both ranges are `bytes` of this device's memory.
    pub unsafe fn copy_on_device(
        &self,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
        stream: Option<&Stream>,
    ) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: the caller's contract.
        let r = unsafe { sys::cuMemcpyDtoDAsync_v2(dst, src, bytes, raw(stream)) };
        call("cuMemcpyDtoDAsync", r.result())
    }

    /// Sets `bytes` bytes at `dst` to `byte`.
    ///
    /// # Safety
    /// `dst` holds `bytes` of this device's memory.
    pub unsafe fn memset(
        &self,
        dst: DevicePtr,
        byte: u8,
        bytes: usize,
        stream: Option<&Stream>,
    ) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: the caller's contract.
        let r = unsafe { sys::cuMemsetD8Async(dst, byte, bytes, raw(stream)) };
        call("cuMemsetD8Async", r.result())
    }

    /// Waits for the work queued on `stream` (None: the legacy default stream).
    pub fn synchronize_stream(&self, stream: Option<&Stream>) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: a live stream or null.
        call("cuStreamSynchronize", unsafe {
            result::stream::synchronize(raw(stream))
        })
    }

    /// Page-locks `bytes` of existing host memory at `ptr` for every
    /// context (portable), as `cudaHostRegister` does for `pin x`.
    pub fn register(&self, ptr: *mut u8, bytes: usize) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: the caller keeps the memory allocated until `unregister`.
        let r = unsafe {
            sys::cuMemHostRegister_v2(ptr.cast(), bytes, sys::CU_MEMHOSTREGISTER_PORTABLE)
        };
        call("cuMemHostRegister", r.result())
    }

    /// Undoes `register`.
    pub fn unregister(&self, ptr: *mut u8) -> Result<(), DriverError> {
        self.bind()?;
        // SAFETY: memory registered by `register`.
        let r = unsafe { sys::cuMemHostUnregister(ptr.cast()) };
        call("cuMemHostUnregister", r.result())
    }

    /// Whether everything queued on `stream` (None: the default stream) is done.
    pub fn query_stream(&self, stream: Option<&Stream>) -> Result<bool, DriverError> {
        self.bind()?;
        // SAFETY: a live stream or null.
        match unsafe { sys::cuStreamQuery(raw(stream)) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => call("cuStreamQuery", Err(result::DriverError(e))),
        }
    }
}

/// The caching allocator's segments, straight from `cuMemAlloc`: handles are
/// device addresses.
pub struct DriverSegments {
    pub device: std::sync::Arc<CudaDevice>,
}

impl SegmentSource for DriverSegments {
    fn reserve(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        match self.device.alloc(bytes) {
            Ok(address) => Ok(address),
            Err(DriverError::OutOfMemory { .. }) => Err(SegmentError::OutOfMemory),
            Err(DriverError::Assert { .. }) => Err(SegmentError::Assert),
            Err(e) => Err(SegmentError::Failed(e.to_string())),
        }
    }
    fn release(&mut self, handle: u64, _bytes: usize) {
        // A failed free leaves the memory to the process's end; nothing better can be done here.
        let _ = self.device.free(handle);
    }
    fn capacity(&self) -> usize {
        self.device.info.total_memory
    }
    fn free(&self) -> Option<usize> {
        self.device.memory().map(|(free, _)| free).ok()
    }
    fn reserve_address(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        self.device
            .address_reserve(bytes)
            .map_err(|e| SegmentError::Failed(e.to_string()))
    }
    fn map(&mut self, addr: u64, bytes: usize) -> Result<(), SegmentError> {
        match self.device.map(addr, bytes, &[]) {
            Ok(()) => Ok(()),
            Err(DriverError::OutOfMemory { .. }) => Err(SegmentError::OutOfMemory),
            Err(DriverError::Assert { .. }) => Err(SegmentError::Assert),
            Err(e) => Err(SegmentError::Failed(e.to_string())),
        }
    }
    fn unmap(&mut self, addr: u64, bytes: usize) {
        let _ = self.device.unmap(addr, bytes);
    }
    fn release_address(&mut self, addr: u64, bytes: usize) {
        let _ = self.device.address_free(addr, bytes);
    }
}

impl Drop for CudaDevice {
    fn drop(&mut self) {
        if self.bind().is_ok() {
            for (_, m) in lock(&self.modules).drain() {
                // SAFETY: modules loaded here, unloaded once.
                let _ = unsafe { result::module::unload(m) };
            }
        }
        // SAFETY: the primary context retained in `open`.
        let _ = unsafe { result::primary_ctx::release(self.dev) };
    }
}

#[cfg(test)]
mod tests {
    use super::DriverError;

    #[test]
    fn kernel_faults_are_sticky_and_refusals_are_not() {
        let call = |error: &str| DriverError::Call {
            call: "cuStreamSynchronize",
            error: error.into(),
        };
        assert!(call("CUDA_ERROR_ILLEGAL_ADDRESS").is_sticky());
        assert!(call("CUDA_ERROR_LAUNCH_FAILED").is_sticky());
        assert!(!call("CUDA_ERROR_INVALID_VALUE").is_sticky());
        assert!(!DriverError::OutOfMemory { bytes: 1 }.is_sticky());
    }
}
