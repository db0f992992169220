//! `emu`: the driver interface on the CPU, to test the CUDA backend's own
//! code (storage in device memory, `exec`'s launch plans, copies, events)
//! on a machine without a GPU. It is not a simulator of GPU timing.
//!
//! - Device memory is host memory each emulated device owns (`memory.rs`),
//!   with the device's capacity, so out of memory happens where it would.
//! - Launches run the CUDA C kernels compiled for the host (`kernels.rs`).
//! - Work runs when it is queued, in queue order: every stream's work is
//!   done by the time its call returns. What a racing read may see is the
//!   runtime's business, as on the simulator (its stream model keeps the
//!   bytes from before a pending write), so racy programs show the same worst
//!   case deterministically on both.
//! - Copies check their direction and that each device address lies inside
//!   one allocation of the device it names. Events are real markers.
//! - For tests of the runtime's GPU-only paths, `like_a_gpu` makes it say
//!   that work does not run when queued, and answer stream and event
//!   queries as the test says (`set_busy`).

mod kernels;
mod memory;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use super::launch::{MIN_CHUNK, MIN_COL_CHUNK};
use crate::runtime::driver::fma_gemm::{self, FmaElement};
use crate::runtime::driver::*;
use crate::runtime::driver::{Gemm, Geometry, Kernel, ReduceTargets};
use crate::runtime::element::Element;
use crate::runtime::lock::lock;
use crate::runtime::DType;
use kernels::Kernels;
use memory::{Allocations, Region};

/// Launch shapes on an emulated device: small grids keep a launch's host
/// cost low, and reduction blocks of 8 threads (fibers while the block
/// synchronises) still exercise the combining passes.
const GEOMETRY: Geometry = Geometry {
    block: 32,
    max_blocks: 32,
    reduce_block: 8,
    reduce: ReduceTargets {
        blocks: 4,
        min_chunk: MIN_CHUNK,
        threads: 256,
        min_col_chunk: MIN_COL_CHUNK,
    },
};

/// Emulated devices.
pub struct Emu {
    props: Vec<Properties>,
    state: Mutex<State>,
    /// Kernel launches and products run so far (what tests count).
    launches: AtomicU64,
    /// `like_a_gpu`: the runtime treats this driver as it treats a GPU.
    gpu_like: bool,
    /// What stream and event queries answer when `gpu_like`: still running.
    busy: AtomicBool,
}

#[derive(Default)]
struct State {
    devices: Vec<Allocations>,
    host: Allocations,
    streams: HashSet<StreamHandle>,
    events: HashMap<EventHandle, EventState>,
    next: u64,
    /// Items queued on each stream (launches, products, copies, memsets).
    work: HashMap<StreamHandle, u64>,
    /// Waits queued (`cuStreamWaitEvent`).
    waits: u64,
    /// Host memory page-locked in place: address to bytes.
    registered: HashMap<usize, usize>,
    /// Devices whose kernel failed a device-side assertion, with its text:
    /// as on a GPU, every later call on the device fails (a sticky error).
    faulted: HashMap<u32, String>,
}

struct EventState {
    timing: bool,
    /// When its record was reached (all work runs when queued, so at once).
    reached: Option<Instant>,
}

fn refused(call: &'static str, why: impl Into<String>) -> DriverError {
    DriverError::Call {
        call,
        error: why.into(),
    }
}

/// The kernels, compiled and loaded once per process; launches hold the lock
/// (the host-compiled kernels keep the grid's dimensions in globals).
fn kernels() -> Result<&'static Mutex<Kernels>, DriverError> {
    static KERNELS: OnceLock<Result<Mutex<Kernels>, String>> = OnceLock::new();
    KERNELS
        .get_or_init(|| Kernels::load().map(Mutex::new))
        .as_ref()
        .map_err(|e| DriverError::Compile(e.clone()))
}

impl Emu {
    /// `count` devices of `memory` bytes each, named `name`.
    pub fn new(count: u32, memory: usize, name: &str, cc: (u32, u32)) -> Emu {
        let props = (0..count)
            .map(|_| Properties {
                name: name.to_string(),
                total_memory: memory,
                compute_capability: cc,
                multiprocessors: 4,
            })
            .collect();
        Emu {
            props,
            launches: AtomicU64::new(0),
            gpu_like: false,
            busy: AtomicBool::new(false),
            state: Mutex::new(State {
                devices: (0..count).map(|_| Allocations::default()).collect(),
                ..State::default()
            }),
        }
    }

    /// Kernels launched and products run so far.
    pub fn launches(&self) -> u64 {
        self.launches.load(Ordering::Relaxed)
    }

    /// The same devices, presented to the runtime as a GPU's: work is not
    /// said to run when queued, so the runtime asks the driver what has
    /// completed and measures time with events. For tests of those paths.
    pub fn like_a_gpu(mut self) -> Emu {
        self.gpu_like = true;
        self
    }

    /// `like_a_gpu`: whether stream and event queries say work is still running.
    pub fn set_busy(&self, busy: bool) {
        self.busy.store(busy, Ordering::Relaxed);
    }

    /// Items (launches, products, copies, memsets) queued on `stream` so far.
    pub fn work_on(&self, stream: StreamHandle) -> u64 {
        lock(&self.state).work.get(&stream).copied().unwrap_or(0)
    }

    /// Bytes of host memory page-locked in place now (`host_register`).
    pub fn registered_bytes(&self) -> usize {
        lock(&self.state).registered.values().sum()
    }

    /// Waits of one stream for an event queued so far.
    pub fn waits(&self) -> u64 {
        lock(&self.state).waits
    }

    /// Checks `s` and counts one item queued on it.
    fn queue_on(&self, s: StreamHandle, call: &'static str) -> Result<(), DriverError> {
        self.check_stream(s, call)?;
        *lock(&self.state).work.entry(s).or_insert(0) += 1;
        Ok(())
    }

    /// What a query answers: done, unless a test says a GPU-like device is busy.
    fn done(&self) -> bool {
        !(self.gpu_like && self.busy.load(Ordering::Relaxed))
    }

    /// Compiles and loads the kernels now (they are otherwise loaded by the
    /// first launch), so a missing compiler is reported when the session starts.
    pub fn prepare(&self) -> Result<(), DriverError> {
        kernels().map(|_| ())
    }

    /// Whether `device` exists (what calls that need no context check).
    fn exists(&self, device: u32, call: &'static str) -> Result<(), DriverError> {
        match (device as usize) < self.props.len() {
            true => Ok(()),
            false => Err(refused(call, format!("no device {device}"))),
        }
    }

    /// `exists`, and the device's context still works.
    fn check_device(&self, device: u32, call: &'static str) -> Result<(), DriverError> {
        self.exists(device, call)?;
        match lock(&self.state).faulted.get(&device) {
            Some(_) => Err(DriverError::Assert {
                call,
                device: Some(device),
            }),
            None => Ok(()),
        }
    }

    /// The device-side assertion a kernel of `device` failed, as its device
    /// printf showed it; none while the device works.
    pub fn fault(&self, device: u32) -> Option<String> {
        lock(&self.state).faulted.get(&device).cloned()
    }

    fn check_stream(&self, s: StreamHandle, call: &'static str) -> Result<(), DriverError> {
        self.check_device(s.device, call)?;
        if s.id == 0 || lock(&self.state).streams.contains(&s) {
            Ok(())
        } else {
            Err(refused(call, "CUDA_ERROR_INVALID_HANDLE: no such stream"))
        }
    }

    /// Checks one end of a copy: device memory lies inside one allocation of its device.
    fn check_end(&self, a: Addr, bytes: usize, call: &'static str) -> Result<(), DriverError> {
        if let Addr::Device { device, ptr } = a {
            self.check_device(device, call)?;
            // A copy of nothing touches nothing: an empty tensor's null address is fine.
            if bytes > 0 && !lock(&self.state).devices[device as usize].contains(ptr, bytes) {
                return Err(refused(
                    call,
                    format!(
                        "CUDA_ERROR_INVALID_VALUE: {bytes} bytes at {ptr:#x} are not memory of device {device}"
                    ),
                ));
            }
        }
        Ok(())
    }

    fn event(&self, e: EventHandle, call: &'static str) -> Result<(), DriverError> {
        if lock(&self.state).events.contains_key(&e) {
            Ok(())
        } else {
            Err(refused(call, "CUDA_ERROR_INVALID_HANDLE: no such event"))
        }
    }
}

impl Drop for Emu {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        for d in &mut state.devices {
            let reserved: Vec<u64> = d.reserved.keys().copied().collect();
            for (addr, bytes) in d.drain() {
                // SAFETY: the device is gone; nothing uses its memory.
                match reserved.contains(&addr) {
                    true => unsafe { Region::release(addr, bytes) },
                    false => unsafe { Region::unmap(addr, bytes) },
                }
            }
        }
        for (addr, bytes) in state.host.drain() {
            // SAFETY: as above, for page-locked host memory.
            unsafe { Region::unmap(addr, bytes) };
        }
    }
}

impl Driver for Emu {
    fn name(&self) -> &'static str {
        "emu"
    }

    fn device_count(&self) -> u32 {
        self.props.len() as u32
    }

    fn properties(&self, device: u32) -> Result<Properties, DriverError> {
        // Attributes need no context: they answer after a sticky error too.
        self.exists(device, "cuDeviceGetAttribute")?;
        Ok(self.props[device as usize].clone())
    }

    fn geometry(&self, _device: u32) -> Geometry {
        GEOMETRY
    }

    fn runs_when_queued(&self) -> bool {
        !self.gpu_like
    }

    fn empty_reads_zero(&self) -> bool {
        !self.gpu_like
    }

    fn mem_alloc(&self, device: u32, bytes: usize) -> Result<DevicePtr, DriverError> {
        self.check_device(device, "cuMemAlloc")?;
        let mut state = lock(&self.state);
        let d = &mut state.devices[device as usize];
        if d.used + bytes > self.props[device as usize].total_memory {
            return Err(DriverError::OutOfMemory { bytes });
        }
        let addr = Region::map(bytes).ok_or(DriverError::OutOfMemory { bytes })?;
        d.insert(addr, bytes);
        Ok(addr)
    }

    fn mem_free(&self, device: u32, ptr: DevicePtr) -> Result<(), DriverError> {
        self.check_device(device, "cuMemFree")?;
        let bytes = lock(&self.state).devices[device as usize]
            .remove(ptr)
            .ok_or_else(|| refused("cuMemFree", "CUDA_ERROR_INVALID_VALUE: not an allocation"))?;
        // SAFETY: the allocation was mapped by mem_alloc and is no longer listed.
        unsafe { Region::unmap(ptr, bytes) };
        Ok(())
    }

    fn mem_address_reserve(&self, device: u32, bytes: usize) -> Result<DevicePtr, DriverError> {
        self.check_device(device, "cuMemAddressReserve")?;
        let addr = Region::reserve(bytes).ok_or(DriverError::OutOfMemory { bytes })?;
        lock(&self.state).devices[device as usize]
            .reserved
            .insert(addr, bytes);
        Ok(addr)
    }

    fn mem_address_free(
        &self,
        device: u32,
        ptr: DevicePtr,
        bytes: usize,
    ) -> Result<(), DriverError> {
        self.exists(device, "cuMemAddressFree")?;
        let mut state = lock(&self.state);
        let d = &mut state.devices[device as usize];
        let end = ptr + bytes as u64;
        if d.reserved.get(&ptr) != Some(&bytes) || d.mapped.range(ptr..end).next().is_some() {
            return Err(refused(
                "cuMemAddressFree",
                "CUDA_ERROR_INVALID_VALUE: not a reserved range with nothing mapped",
            ));
        }
        d.reserved.remove(&ptr);
        // SAFETY: the range was reserved by mem_address_reserve, nothing is mapped in it.
        unsafe { Region::release(ptr, bytes) };
        Ok(())
    }

    fn mem_map(&self, device: u32, ptr: DevicePtr, bytes: usize) -> Result<(), DriverError> {
        self.check_device(device, "cuMemCreate")?;
        let mut state = lock(&self.state);
        let d = &mut state.devices[device as usize];
        if d.used + bytes > self.props[device as usize].total_memory {
            return Err(DriverError::OutOfMemory { bytes });
        }
        if !d.can_map(ptr, bytes) {
            return Err(refused(
                "cuMemMap",
                "CUDA_ERROR_INVALID_VALUE: not free reserved address space",
            ));
        }
        // SAFETY: inside a reserved range, over no mapped page.
        if !unsafe { Region::commit(ptr, bytes) } {
            return Err(DriverError::OutOfMemory { bytes });
        }
        d.mapped.insert(ptr, bytes);
        d.used += bytes;
        Ok(())
    }

    fn mem_unmap(&self, device: u32, ptr: DevicePtr, bytes: usize) -> Result<(), DriverError> {
        self.exists(device, "cuMemUnmap")?;
        let mut state = lock(&self.state);
        let d = &mut state.devices[device as usize];
        if d.mapped.get(&ptr) != Some(&bytes) {
            return Err(refused(
                "cuMemUnmap",
                "CUDA_ERROR_INVALID_VALUE: not a mapped page",
            ));
        }
        d.mapped.remove(&ptr);
        d.used -= bytes;
        // SAFETY: the page was opened by mem_map; work runs when queued, so none uses it.
        unsafe { Region::decommit(ptr, bytes) };
        Ok(())
    }

    fn mem_info(&self, device: u32) -> Result<(usize, usize), DriverError> {
        self.check_device(device, "cuMemGetInfo")?;
        let total = self.props[device as usize].total_memory;
        let used = lock(&self.state).devices[device as usize].used;
        Ok((total.saturating_sub(used), total))
    }

    fn process_memory(&self, device: u32) -> Option<usize> {
        // The emulated device has one process: this one.
        let state = lock(&self.state);
        state.devices.get(device as usize).map(|d| d.used)
    }

    fn host_alloc(&self, bytes: usize) -> Result<*mut u8, DriverError> {
        let addr = Region::map(bytes).ok_or(DriverError::OutOfMemory { bytes })?;
        lock(&self.state).host.insert(addr, bytes);
        Ok(addr as *mut u8)
    }

    unsafe fn host_free(&self, ptr: *mut u8) -> Result<(), DriverError> {
        let bytes = lock(&self.state)
            .host
            .remove(ptr as u64)
            .ok_or_else(|| refused("cuMemFreeHost", "CUDA_ERROR_INVALID_VALUE"))?;
        Region::unmap(ptr as u64, bytes);
        Ok(())
    }

    fn host_register(&self, ptr: *mut u8, bytes: usize) -> Result<(), DriverError> {
        let mut state = lock(&self.state);
        let (start, end) = (ptr as usize, ptr as usize + bytes);
        let overlaps = state
            .registered
            .iter()
            .any(|(&a, &n)| a < end && start < a + n);
        if bytes == 0 || overlaps {
            return Err(refused(
                "cuMemHostRegister",
                "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED or an empty range",
            ));
        }
        state.registered.insert(start, bytes);
        Ok(())
    }

    unsafe fn host_unregister(&self, ptr: *mut u8) -> Result<(), DriverError> {
        lock(&self.state)
            .registered
            .remove(&(ptr as usize))
            .map(|_| ())
            .ok_or_else(|| {
                refused(
                    "cuMemHostUnregister",
                    "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
                )
            })
    }

    fn stream_create(&self, device: u32) -> Result<StreamHandle, DriverError> {
        self.check_device(device, "cuStreamCreate")?;
        let mut state = lock(&self.state);
        state.next += 1;
        let s = StreamHandle {
            device,
            id: state.next,
        };
        state.streams.insert(s);
        Ok(s)
    }

    fn stream_destroy(&self, stream: StreamHandle) -> Result<(), DriverError> {
        if lock(&self.state).streams.remove(&stream) {
            Ok(())
        } else {
            Err(refused("cuStreamDestroy", "CUDA_ERROR_INVALID_HANDLE"))
        }
    }

    unsafe fn copy(
        &self,
        dst: Addr,
        src: Addr,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<(), DriverError> {
        let call = match Addr::direction(src, dst) {
            Direction::HostToHost => "cuMemcpyAsync",
            Direction::HostToDevice => "cuMemcpyHtoDAsync",
            Direction::DeviceToHost => "cuMemcpyDtoHAsync",
            Direction::DeviceToDevice => "cuMemcpyDtoDAsync",
            Direction::Peer => "cuMemcpyPeerAsync",
        };
        self.queue_on(stream, call)?;
        self.check_end(src, bytes, call)?;
        self.check_end(dst, bytes, call)?;
        let at = |a: Addr| match a {
            Addr::Host(p) => p,
            Addr::Device { ptr, .. } => ptr as *const u8,
        };
        if bytes > 0 {
            // `copy`, not `copy_nonoverlapping`: a device-to-device copy may overlap.
            std::ptr::copy(at(src), at(dst) as *mut u8, bytes);
        }
        Ok(())
    }

    unsafe fn memset(
        &self,
        device: u32,
        ptr: DevicePtr,
        value: u8,
        bytes: usize,
        stream: StreamHandle,
    ) -> Result<(), DriverError> {
        self.queue_on(stream, "cuMemsetD8Async")?;
        self.check_end(Addr::Device { device, ptr }, bytes, "cuMemsetD8Async")?;
        std::ptr::write_bytes(ptr as *mut u8, value, bytes);
        Ok(())
    }

    unsafe fn launch(
        &self,
        stream: StreamHandle,
        kernel: &Kernel,
        at: Launch,
        args: &[u8],
    ) -> Result<(), DriverError> {
        self.queue_on(stream, "cuLaunchKernel")?;
        let Launch { grid, block, syncs } = at;
        if grid == 0 || block == 0 {
            return Err(refused(
                "cuLaunchKernel",
                "CUDA_ERROR_INVALID_VALUE: an empty grid",
            ));
        }
        let kernels = lock(kernels()?);
        let run = kernels.entry(kernel).map_err(DriverError::Compile)?;
        run(args.as_ptr().cast(), grid, block, syncs as i32);
        self.launches.fetch_add(1, Ordering::Relaxed);
        // As on a GPU, the launch itself succeeds: the fault is what the
        // device's next call reports.
        if let Some(assertion) = kernels.take_assert() {
            // A GPU prints the failed assertion on the process's standard
            // output (`file:line: function: block, thread Assertion … failed.`).
            let printed = format!("{}: Assertion `{assertion}` failed.", kernel.name);
            println!("{printed}");
            lock(&self.state).faulted.insert(stream.device, printed);
        }
        Ok(())
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
        self.queue_on(stream, "cublasGemmStridedBatchedEx")?;
        self.launches.fetch_add(1, Ordering::Relaxed);
        let (na, nb, nc) = g.extents();
        let wide = |p: DevicePtr, n: usize| -> Vec<f32> {
            crate::with_dtype!(dt, T => std::slice::from_raw_parts(p as *const T, n)
                .iter()
                .map(|x| x.to_f64() as f32)
                .collect())
        };
        match dt {
            DType::F32 if g.tf32 => fma_gemm::run_tf32(
                g,
                first as *const f32,
                second as *const f32,
                out as *mut f32,
            ),
            DType::F32 => column_major::<f32>(g, first, second, out),
            DType::F64 => column_major::<f64>(g, first, second, out),
            // cuBLAS's half-precision products accumulate in f32.
            _ => {
                let (a, b) = (wide(first, na), wide(second, nb));
                let mut c = vec![0f32; nc];
                column_major::<f32>(
                    g,
                    a.as_ptr() as u64,
                    b.as_ptr() as u64,
                    c.as_mut_ptr() as u64,
                );
                crate::with_dtype!(dt, T => {
                    let o = std::slice::from_raw_parts_mut(out as *mut T, nc);
                    for (o, v) in o.iter_mut().zip(c) {
                        *o = T::from_f64(v as f64);
                    }
                });
            }
        }
        Ok(())
    }

    fn event_create(&self, device: u32, timing: bool) -> Result<EventHandle, DriverError> {
        self.check_device(device, "cuEventCreate")?;
        let mut state = lock(&self.state);
        state.next += 1;
        let e = EventHandle {
            device,
            id: state.next,
        };
        state.events.insert(
            e,
            EventState {
                timing,
                reached: None,
            },
        );
        Ok(e)
    }

    fn event_destroy(&self, event: EventHandle) -> Result<(), DriverError> {
        lock(&self.state)
            .events
            .remove(&event)
            .map(|_| ())
            .ok_or_else(|| refused("cuEventDestroy", "CUDA_ERROR_INVALID_HANDLE"))
    }

    fn event_record(&self, event: EventHandle, stream: StreamHandle) -> Result<(), DriverError> {
        self.check_stream(stream, "cuEventRecord")?;
        if event.device != stream.device {
            return Err(refused(
                "cuEventRecord",
                "CUDA_ERROR_INVALID_HANDLE: the event and the stream are on different devices",
            ));
        }
        let mut state = lock(&self.state);
        let e = state
            .events
            .get_mut(&event)
            .ok_or_else(|| refused("cuEventRecord", "CUDA_ERROR_INVALID_HANDLE"))?;
        e.reached = Some(Instant::now());
        Ok(())
    }

    fn event_query(&self, event: EventHandle) -> Result<bool, DriverError> {
        self.event(event, "cuEventQuery")?;
        Ok(self.done())
    }

    fn event_synchronize(&self, event: EventHandle) -> Result<(), DriverError> {
        self.event(event, "cuEventSynchronize")
    }

    fn event_elapsed(&self, start: EventHandle, end: EventHandle) -> Result<f32, DriverError> {
        let state = lock(&self.state);
        let get = |e| {
            state
                .events
                .get(&e)
                .ok_or_else(|| refused("cuEventElapsedTime", "CUDA_ERROR_INVALID_HANDLE"))
        };
        let (a, b) = (get(start)?, get(end)?);
        if !a.timing || !b.timing {
            return Err(refused(
                "cuEventElapsedTime",
                "CUDA_ERROR_INVALID_HANDLE: an event created with timing disabled",
            ));
        }
        match (a.reached, b.reached) {
            (Some(a), Some(b)) if b >= a => Ok(b.duration_since(a).as_secs_f32() * 1e3),
            (Some(a), Some(b)) => Ok(-a.duration_since(b).as_secs_f32() * 1e3),
            _ => Err(refused(
                "cuEventElapsedTime",
                "CUDA_ERROR_INVALID_HANDLE: an event never recorded",
            )),
        }
    }

    fn stream_wait_event(
        &self,
        stream: StreamHandle,
        event: EventHandle,
    ) -> Result<(), DriverError> {
        self.check_stream(stream, "cuStreamWaitEvent")?;
        self.event(event, "cuStreamWaitEvent")?;
        lock(&self.state).waits += 1;
        Ok(())
    }

    fn stream_synchronize(&self, stream: StreamHandle) -> Result<(), DriverError> {
        self.check_stream(stream, "cuStreamSynchronize")
    }

    fn stream_query(&self, stream: StreamHandle) -> Result<bool, DriverError> {
        self.check_stream(stream, "cuStreamQuery")?;
        Ok(self.done())
    }

    fn device_synchronize(&self, device: u32) -> Result<(), DriverError> {
        self.check_device(device, "cuCtxSynchronize")
    }

    fn host_callback(&self, stream: StreamHandle, f: Callback) -> Result<(), DriverError> {
        self.check_stream(stream, "cuLaunchHostFunc")?;
        f();
        Ok(())
    }
}

/// cuBLAS's column-major product (`blas::reference_gemm`'s contract), each
/// element one chain of fused multiply-adds as the simulator computes it
/// (`driver::fma_gemm`), so the two backends give the same bits.
///
/// # Safety
/// The addresses hold `g`'s operands and output as `T`.
unsafe fn column_major<T: FmaElement>(g: &Gemm, a: DevicePtr, b: DevicePtr, c: DevicePtr) {
    fma_gemm::run(g, a as *const T, b as *const T, c as *mut T);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emu() -> Emu {
        Emu::new(2, 1 << 20, "Test GPU", (9, 0))
    }

    #[test]
    fn memory_is_the_devices_own_and_has_its_capacity() {
        let e = emu();
        let a = e.mem_alloc(0, 4096).unwrap();
        assert_eq!(e.mem_info(0).unwrap(), ((1 << 20) - 4096, 1 << 20));
        assert_eq!(e.mem_info(1).unwrap(), (1 << 20, 1 << 20));
        assert_eq!(
            e.mem_alloc(0, 1 << 20),
            Err(DriverError::OutOfMemory { bytes: 1 << 20 })
        );
        e.mem_free(0, a).unwrap();
        assert!(e.mem_free(0, a).is_err(), "a second free is refused");
        assert!(e.mem_alloc(2, 16).is_err(), "no device 2");
    }

    #[test]
    fn copies_check_direction_and_device() {
        let e = emu();
        let s = StreamHandle::default_of(0);
        let d0 = e.mem_alloc(0, 64).unwrap();
        let d1 = e.mem_alloc(1, 64).unwrap();
        let host = [7u8; 64];
        let mut back = [0u8; 64];
        let dev = |device, ptr| Addr::Device { device, ptr };
        // SAFETY: live ranges of 64 bytes (and refused ones, which touch nothing).
        unsafe {
            e.copy(dev(0, d0), Addr::Host(host.as_ptr()), 64, s)
                .unwrap();
            e.copy(dev(1, d1), dev(0, d0), 64, s).unwrap();
            e.copy(Addr::Host(back.as_mut_ptr()), dev(1, d1), 64, s)
                .unwrap();
            let wrong = e
                .copy(dev(1, d0), Addr::Host(host.as_ptr()), 64, s)
                .unwrap_err();
            assert!(wrong.to_string().contains("cuMemcpyHtoDAsync"), "{wrong}");
            assert!(
                wrong.to_string().contains("not memory of device 1"),
                "{wrong}"
            );
            assert!(e
                .copy(dev(0, d0 + 32), Addr::Host(host.as_ptr()), 64, s)
                .is_err());
        }
        assert_eq!(back, host);
    }

    #[test]
    fn products_keep_cublas_s_column_major_contract() {
        use crate::runtime::cuda::blas::reference_gemm;
        let e = emu();
        let s = StreamHandle::default_of(0);
        // Two batches of [3, 4] @ [4, 2], the second operand broadcast.
        let g = Gemm::row_major(3, 4, 2, 2, 12, 0).unwrap();
        let a: Vec<f64> = (0..24).map(|i| (i as f64 * 0.37).sin()).collect();
        let b: Vec<f64> = (0..8).map(|i| (i as f64 * 0.91).cos()).collect();
        let mut want = vec![0.0; 12];
        reference_gemm(&g, &b, &a, &mut want);
        for dt in [DType::F64, DType::F32, DType::F16] {
            let put = |v: &[f64]| crate::runtime::Buffer::F64(v.to_vec()).cast(dt);
            let (ba, bb, mut bc) = (put(&a), put(&b), put(&[0.0; 12]));
            let addr = |buf: &crate::runtime::Buffer| crate::with_dtype!(dt, T => buf.as_slice::<T>().as_ptr() as u64);
            let out = addr(&bc);
            // SAFETY: the buffers hold what `g` says, in `dt`.
            unsafe { e.gemm(s, dt, &g, addr(&bb), addr(&ba), out).unwrap() };
            bc = bc.cast(DType::F64);
            for (got, want) in bc.as_slice::<f64>().iter().zip(&want) {
                assert!((got - want).abs() < 1e-2, "{dt}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn events_measure_only_with_timing_and_once_recorded() {
        let e = emu();
        let s = e.stream_create(0).unwrap();
        let (a, b) = (
            e.event_create(0, true).unwrap(),
            e.event_create(0, true).unwrap(),
        );
        assert!(e.event_elapsed(a, b).is_err());
        e.event_record(a, s).unwrap();
        e.event_record(b, s).unwrap();
        assert!(e.event_elapsed(a, b).unwrap() >= 0.0);
        assert!(e.event_query(b).unwrap());
        let untimed = e.event_create(0, false).unwrap();
        e.event_record(untimed, s).unwrap();
        assert!(e.event_elapsed(a, untimed).is_err());
        let other = e.stream_create(1).unwrap();
        assert!(e.event_record(a, other).is_err(), "different devices");
        e.stream_destroy(s).unwrap();
        assert!(e.event_record(a, s).is_err(), "a destroyed stream");
    }
}
