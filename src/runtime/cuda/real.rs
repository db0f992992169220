//! The driver interface on real GPUs: each method one driver (or cuBLAS)
//! call through `driver.rs`, which binds the device's context first.
//! Streams, events and page-locked memory are kept in tables by handle;
//! each holds its device, so the context outlives it and is bound when it
//! is destroyed. One cuBLAS handle per device, made on first use.
//!
//! `--backend cuda` runs on it; it ran on an H100 and an H200
//! (`benches/gpu/results.md`, docs/cuda-backend.md).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys;

use super::blas::Blas;
use super::driver::{CudaDevice, DevicePtr as RawPtr, Event, Pinned, Stream};
use super::nccl::Nccl;
use crate::runtime::driver::*;
use crate::runtime::driver::{Gemm, Geometry, Kernel};
use crate::runtime::lock::lock;
use crate::runtime::DType;

pub struct Cuda {
    devices: Vec<Arc<CudaDevice>>,
    blas: Vec<Mutex<Option<Blas>>>,
    streams: Mutex<HashMap<StreamHandle, Arc<Stream>>>,
    events: Mutex<HashMap<EventHandle, Arc<Event>>>,
    pinned: Mutex<HashMap<usize, Pinned>>,
    next: AtomicU64,
    /// The collectives' library, where the loader finds it.
    nccl: Option<Nccl>,
}

fn failed(call: &'static str, error: impl Into<String>) -> DriverError {
    DriverError::Call {
        call,
        error: error.into(),
    }
}

impl Cuda {
    /// Every device the driver offers, with their primary contexts.
    pub fn open() -> Result<Cuda, DriverError> {
        let count = match super::probe::probe() {
            super::probe::Probe::Driver { devices, .. } => devices,
            _ => return Err(DriverError::Unavailable(super::probe::cuda_backend_error())),
        };
        let devices = (0..count)
            .map(|i| CudaDevice::open(i).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Cuda {
            blas: devices.iter().map(|_| Mutex::new(None)).collect(),
            devices,
            streams: Mutex::new(HashMap::new()),
            events: Mutex::new(HashMap::new()),
            pinned: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            nccl: Nccl::load(),
        })
    }

    fn device(&self, d: u32, call: &'static str) -> Result<&Arc<CudaDevice>, DriverError> {
        self.devices
            .get(d as usize)
            .ok_or_else(|| failed(call, format!("CUDA_ERROR_INVALID_DEVICE: no device {d}")))
    }

    /// The stream behind a handle: None for a device's default stream.
    fn stream(
        &self,
        s: StreamHandle,
        call: &'static str,
    ) -> Result<Option<Arc<Stream>>, DriverError> {
        self.device(s.device, call)?;
        if s.id == 0 {
            return Ok(None);
        }
        lock(&self.streams)
            .get(&s)
            .cloned()
            .map(Some)
            .ok_or_else(|| failed(call, "CUDA_ERROR_INVALID_HANDLE: no such stream"))
    }

    fn event(&self, e: EventHandle, call: &'static str) -> Result<Arc<Event>, DriverError> {
        lock(&self.events)
            .get(&e)
            .cloned()
            .ok_or_else(|| failed(call, "CUDA_ERROR_INVALID_HANDLE: no such event"))
    }

    fn handle(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }
}

/// Runs a boxed callback from `cuLaunchHostFunc`.
unsafe extern "C" fn run_callback(data: *mut std::ffi::c_void) {
    // SAFETY: `data` is the box `host_callback` leaked, called once.
    let f = unsafe { Box::from_raw(data.cast::<Callback>()) };
    f();
}

impl Driver for Cuda {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn device_count(&self) -> u32 {
        self.devices.len() as u32
    }

    fn properties(&self, device: u32) -> Result<Properties, DriverError> {
        let info = &self.device(device, "cuDeviceGetAttribute")?.info;
        Ok(Properties {
            name: info.name.clone(),
            total_memory: info.total_memory,
            compute_capability: info.compute_capability,
            multiprocessors: info.multiprocessors,
        })
    }

    fn geometry(&self, device: u32) -> Geometry {
        let sms = self
            .devices
            .get(device as usize)
            .map_or(1, |d| d.info.multiprocessors);
        Geometry::for_device(sms)
    }

    fn mem_alloc(&self, device: u32, bytes: usize) -> Result<DevicePtr, DriverError> {
        self.device(device, "cuMemAlloc")?.alloc(bytes)
    }

    fn mem_free(&self, device: u32, ptr: DevicePtr) -> Result<(), DriverError> {
        self.device(device, "cuMemFree")?.free(ptr as RawPtr)
    }

    fn mem_address_reserve(&self, device: u32, bytes: usize) -> Result<DevicePtr, DriverError> {
        self.device(device, "cuMemAddressReserve")?
            .address_reserve(bytes)
    }

    fn mem_address_free(
        &self,
        device: u32,
        ptr: DevicePtr,
        bytes: usize,
    ) -> Result<(), DriverError> {
        self.device(device, "cuMemAddressFree")?
            .address_free(ptr, bytes)
    }

    fn mem_map(&self, device: u32, ptr: DevicePtr, bytes: usize) -> Result<(), DriverError> {
        let d = self.device(device, "cuMemCreate")?;
        // Devices that may reach this memory get access too, as PyTorch's
        // expandable segments give their peers (cuCtxEnablePeerAccess does
        // not reach memory mapped this way).
        let peers: Vec<&CudaDevice> = self
            .devices
            .iter()
            .filter(|p| !Arc::ptr_eq(p, d) && p.can_access_peer(d).unwrap_or(false))
            .map(|p| p.as_ref())
            .collect();
        d.map(ptr, bytes, &peers)
    }

    fn mem_unmap(&self, device: u32, ptr: DevicePtr, bytes: usize) -> Result<(), DriverError> {
        self.device(device, "cuMemUnmap")?.unmap(ptr, bytes)
    }

    fn mem_info(&self, device: u32) -> Result<(usize, usize), DriverError> {
        self.device(device, "cuMemGetInfo")?.memory()
    }

    fn host_alloc(&self, bytes: usize) -> Result<*mut u8, DriverError> {
        let p = self.device(0, "cuMemHostAlloc")?.pinned(bytes)?;
        // SAFETY: fresh page-locked memory of `bytes` bytes.
        unsafe { std::ptr::write_bytes(p.ptr, 0, bytes) };
        let ptr = p.ptr;
        lock(&self.pinned).insert(ptr as usize, p);
        Ok(ptr)
    }

    unsafe fn host_free(&self, ptr: *mut u8) -> Result<(), DriverError> {
        lock(&self.pinned)
            .remove(&(ptr as usize))
            .map(drop)
            .ok_or_else(|| failed("cuMemFreeHost", "CUDA_ERROR_INVALID_VALUE"))
    }

    fn host_register(&self, ptr: *mut u8, bytes: usize) -> Result<(), DriverError> {
        self.device(0, "cuMemHostRegister")?.register(ptr, bytes)
    }

    unsafe fn host_unregister(&self, ptr: *mut u8) -> Result<(), DriverError> {
        self.device(0, "cuMemHostUnregister")?.unregister(ptr)
    }

    fn stream_create(&self, device: u32) -> Result<StreamHandle, DriverError> {
        let s = self.device(device, "cuStreamCreate")?.stream()?;
        let h = StreamHandle {
            device,
            id: self.handle(),
        };
        lock(&self.streams).insert(h, Arc::new(s));
        Ok(h)
    }

    fn stream_destroy(&self, stream: StreamHandle) -> Result<(), DriverError> {
        lock(&self.streams)
            .remove(&stream)
            .map(drop)
            .ok_or_else(|| failed("cuStreamDestroy", "CUDA_ERROR_INVALID_HANDLE"))
    }

    unsafe fn copy(
        &self,
        dst: Addr,
        src: Addr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<(), DriverError> {
        let s = self.stream(stream, "cuMemcpyAsync")?;
        let on = self.device(stream.device, "cuMemcpyAsync")?;
        if bytes == 0 {
            // An empty tensor's address is null: nothing to copy.
            return Ok(());
        }
        let s = s.as_deref();
        // SAFETY (all arms): the caller's contract on both ranges.
        match (src, dst) {
            (Addr::Host(from), Addr::Host(to)) => {
                on.synchronize_stream(s)?;
                unsafe { std::ptr::copy(from, to as *mut u8, bytes) };
                Ok(())
            }
            (Addr::Host(from), Addr::Device { device, ptr }) => unsafe {
                self.device(device, "cuMemcpyHtoDAsync")?
                    .copy_to_device(ptr, from, bytes, s)
            },
            (Addr::Device { device, ptr }, Addr::Host(to)) => unsafe {
                self.device(device, "cuMemcpyDtoHAsync")?
                    .copy_to_host(to as *mut u8, ptr, bytes, s)
            },
            (
                Addr::Device {
                    device: a,
                    ptr: from,
                },
                Addr::Device { device: b, ptr: to },
            ) if a == b => unsafe {
                self.device(a, "cuMemcpyDtoDAsync")?
                    .copy_on_device(to, from, bytes, s)
            },
            (
                Addr::Device {
                    device: a,
                    ptr: from,
                },
                Addr::Device { device: b, ptr: to },
            ) => {
                let (src_dev, dst_dev) = (
                    self.device(a, "cuMemcpyPeerAsync")?,
                    self.device(b, "cuMemcpyPeerAsync")?,
                );
                dst_dev.copy_from_peer(to, src_dev, from, bytes, s)
            }
        }
    }

    unsafe fn memset(
        &self,
        device: u32,
        ptr: DevicePtr,
        value: u8,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<(), DriverError> {
        let s = self.stream(stream, "cuMemsetD8Async")?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the caller's contract.
        unsafe {
            self.device(device, "cuMemsetD8Async")?
                .memset(ptr, value, bytes, s.as_deref())
        }
    }

    unsafe fn launch(
        &self,
        stream: StreamHandle,
        kernel: &Kernel,
        at: Launch,
        args: &[u8],
    ) -> Result<(), DriverError> {
        let s = self.stream(stream, "cuLaunchKernel")?;
        let device = self.device(stream.device, "cuLaunchKernel")?;
        // SAFETY: the caller's contract: `args` is the kernel's argument struct.
        unsafe { device.launch_bytes(kernel, at, s.as_deref(), args) }
    }

    unsafe fn gemm(
        &self,
        stream: StreamHandle,
        dt: DType,
        g: &Gemm,
        first: DevicePtr,
        second: DevicePtr,
        out: DevicePtr,
    ) -> Result<(), DriverError> {
        let s = self.stream(stream, "cublasGemmStridedBatchedEx")?;
        let device = self.device(stream.device, "cublasCreate")?;
        let mut slot = lock(&self.blas[stream.device as usize]);
        if slot.is_none() {
            *slot = Some(Blas::new(device).map_err(|e| failed("cublasCreate", e))?);
        }
        let blas = slot.as_mut().expect("made just above");
        // SAFETY: the caller's contract.
        unsafe { blas.gemm(dt, g, first, second, out, s.as_deref()) }
            .map_err(|e| failed("cublasGemmStridedBatchedEx", e))
    }

    fn event_create(&self, device: u32, timing: bool) -> Result<EventHandle, DriverError> {
        let e = self.device(device, "cuEventCreate")?.event(timing)?;
        let h = EventHandle {
            device,
            id: self.handle(),
        };
        lock(&self.events).insert(h, Arc::new(e));
        Ok(h)
    }

    fn event_destroy(&self, event: EventHandle) -> Result<(), DriverError> {
        lock(&self.events)
            .remove(&event)
            .map(drop)
            .ok_or_else(|| failed("cuEventDestroy", "CUDA_ERROR_INVALID_HANDLE"))
    }

    fn event_record(&self, event: EventHandle, stream: StreamHandle) -> Result<(), DriverError> {
        if event.device != stream.device {
            return Err(failed(
                "cuEventRecord",
                "CUDA_ERROR_INVALID_HANDLE: the event and the stream are on different devices",
            ));
        }
        let s = self.stream(stream, "cuEventRecord")?;
        self.device(stream.device, "cuEventRecord")?.bind()?;
        self.event(event, "cuEventRecord")?.record(s.as_deref())
    }

    fn event_query(&self, event: EventHandle) -> Result<bool, DriverError> {
        self.event(event, "cuEventQuery")?.query()
    }

    fn event_synchronize(&self, event: EventHandle) -> Result<(), DriverError> {
        self.event(event, "cuEventSynchronize")?.synchronize()
    }

    fn event_elapsed(&self, start: EventHandle, end: EventHandle) -> Result<f32, DriverError> {
        let (a, b) = (
            self.event(start, "cuEventElapsedTime")?,
            self.event(end, "cuEventElapsedTime")?,
        );
        a.elapsed_ms(&b)
    }

    fn stream_wait_event(
        &self,
        stream: StreamHandle,
        event: EventHandle,
    ) -> Result<(), DriverError> {
        let s = self.stream(stream, "cuStreamWaitEvent")?;
        let e = self.event(event, "cuStreamWaitEvent")?;
        self.device(stream.device, "cuStreamWaitEvent")?
            .wait(s.as_deref(), &e)
    }

    fn stream_synchronize(&self, stream: StreamHandle) -> Result<(), DriverError> {
        let s = self.stream(stream, "cuStreamSynchronize")?;
        self.device(stream.device, "cuStreamSynchronize")?
            .synchronize_stream(s.as_deref())
    }

    fn stream_query(&self, stream: StreamHandle) -> Result<bool, DriverError> {
        let s = self.stream(stream, "cuStreamQuery")?;
        self.device(stream.device, "cuStreamQuery")?
            .query_stream(s.as_deref())
    }

    fn device_synchronize(&self, device: u32) -> Result<(), DriverError> {
        self.device(device, "cuCtxSynchronize")?.synchronize()
    }

    fn host_callback(&self, stream: StreamHandle, f: Callback) -> Result<(), DriverError> {
        let s = self.stream(stream, "cuLaunchHostFunc")?;
        self.device(stream.device, "cuLaunchHostFunc")?.bind()?;
        let raw = s.as_ref().map_or(std::ptr::null_mut(), |s| s.raw);
        let data = Box::into_raw(Box::new(f)).cast::<std::ffi::c_void>();
        // SAFETY: a live stream (or null); the driver calls `run_callback`
        // once with `data`, which owns the callback from then on.
        let r = unsafe { sys::cuLaunchHostFunc(raw, Some(run_callback), data) };
        if r != sys::CUresult::CUDA_SUCCESS {
            // Not queued: the callback is ours to drop.
            // SAFETY: the box leaked just above, not handed to the driver.
            drop(unsafe { Box::from_raw(data.cast::<Callback>()) });
            return Err(failed("cuLaunchHostFunc", format!("{r:?}")));
        }
        Ok(())
    }

    fn nccl(&self) -> Option<String> {
        self.nccl.as_ref().map(Nccl::describe)
    }

    unsafe fn collective(&self, c: &Collective) -> Result<(), DriverError> {
        let nccl = self
            .nccl
            .as_ref()
            .ok_or_else(|| DriverError::Unavailable("NCCL was not found".into()))?;
        // Keep the streams alive until the group is queued.
        let streams: Vec<Option<Arc<Stream>>> = c
            .ranks
            .iter()
            .map(|r| self.stream(r.stream, "ncclGroupStart"))
            .collect::<Result<_, _>>()?;
        let raw: Vec<*mut std::ffi::c_void> = streams
            .iter()
            .map(|s| s.as_ref().map_or(std::ptr::null_mut(), |s| s.raw.cast()))
            .collect();
        nccl.run(c, &raw)
    }

    fn nccl_unique_id(&self) -> Result<NcclId, DriverError> {
        self.nccl
            .as_ref()
            .ok_or_else(|| DriverError::Unavailable("NCCL was not found".into()))?
            .unique_id()
    }

    fn nccl_init_rank(
        &self,
        rank: (u64, usize, usize),
        id: &NcclId,
        device: u32,
    ) -> Result<(), DriverError> {
        let nccl = self
            .nccl
            .as_ref()
            .ok_or_else(|| DriverError::Unavailable("NCCL was not found".into()))?;
        // NCCL takes the thread's current device: the rank's.
        self.device(device, "ncclCommInitRank")?.bind()?;
        nccl.init_rank(rank, id)
    }

    fn nccl_destroy_rank(&self, group: u64, rank: usize) {
        if let Some(nccl) = &self.nccl {
            nccl.destroy_rank(group, rank);
        }
    }
}
