//! Copies between the host and devices (`.to`, `.copy_to`, scatter, gather,
//! load), reads of device memory by the host, and pinned memory.

use std::sync::Arc;

use super::device::driver_error;
use super::{Runtime, SyncDebugMode};
use crate::error::Error;
use crate::runtime::alloc::StreamId;
use crate::runtime::buffer::Buffer;
use crate::runtime::device_bytes::{download_into, upload};
use crate::runtime::devices::Memory;
use crate::runtime::gpu::Sees;
use crate::runtime::op::overlap;
use crate::runtime::ops::{index, join};
use crate::runtime::spec::HOST;
use crate::runtime::timeline::STAGING;
use crate::runtime::timing::{self, CopyPath, Work, COPY_OVERHEAD};
use crate::runtime::{Device, Tensor};

impl Runtime {
    /// `.to(d)`: the tensor itself when it is already on `d`, else a copy.
    pub fn move_to(&mut self, t: &Arc<Tensor>, d: Device) -> Result<Arc<Tensor>, Error> {
        if t.device() == d {
            return Ok(Arc::clone(t));
        }
        self.copy_to(t, d)
    }

    /// Always a new tensor on `d` (`.copy_to`, scatter, replicate): a
    /// blocking copy, queued on the current stream of the device that runs
    /// it. To the host it is a host read (`host_read`: the current stream's
    /// copy, which the host waits for); from pageable
    /// host memory it waits for the copy (PyTorch's `non_blocking=false`);
    /// between two devices the destination's stream first waits for the source's.
    pub fn copy_to(&mut self, t: &Tensor, d: Device) -> Result<Arc<Tensor>, Error> {
        self.copy_to_waiting(t, d, true)
    }

    /// `copy_to`, where an upload from pageable memory waits for the whole
    /// copy when `blocking` (PyTorch's stream sync after it), else only for
    /// the driver's staging (`staged`: `non_blocking=True`).
    fn copy_to_waiting(
        &mut self,
        t: &Tensor,
        d: Device,
        blocking: bool,
    ) -> Result<Arc<Tensor>, Error> {
        let d = self.check_device(d)?;
        let from = t.device();
        if d.is_meta() || from.is_meta() {
            return self.meta_copy(t, d);
        }
        if d.is_cuda() {
            // (To the host, `host_read` reaches the device, and a fault
            // there, after checking the read as a driver's copy would.)
            self.check_faults(&[from, d])?;
        }
        // A copy within a driver's device is a kernel, which takes its own output.
        let kernel_copy = from == d && self.launches_on(d).is_some();
        let mem = match kernel_copy {
            true => None,
            false => self.reserve(d, t.shape(), t.dtype())?,
        };
        if !(from.is_cuda() && d == Device::Cpu) {
            // (`host_read` counts its own copies.)
            self.count_copy(from, d, t.nbytes());
        }
        self.counters.ops += 1;
        let bytes = t.nbytes() as u64;
        let copy = match (from, d) {
            (Device::Meta, _) | (_, Device::Meta) => return self.meta_copy(t, d),
            (Device::Cpu, Device::Cpu) => t.with_device(d),
            (Device::Cuda(_), Device::Cpu) => {
                self.host_read(&[t], |t| t.nbytes() as u64, || t.with_device(d))?
            }
            (Device::Cpu, Device::Cuda(to)) => {
                let copy = self.attached(self.uploaded(t, to), mem)?;
                let path = if t.is_pinned() {
                    CopyPath::Pinned
                } else {
                    CopyPath::Pageable
                };
                self.issue(to, Work::Copy { bytes, path }, Some(&copy))?;
                match blocking || t.is_pinned() {
                    true => self.sync_stream(self.stream_on(to))?,
                    false => self.staged(to),
                }
                copy
            }
            (Device::Cuda(s), Device::Cuda(to)) if s == to => {
                let copy = match kernel_copy {
                    true => self.compute(t.device()).cast(self, t, t.dtype())?,
                    false => self.attached(t.with_device(d), mem)?,
                };
                let work = Work::Kernel {
                    bytes: 2 * bytes,
                    flops: 0,
                    math: timing::Math::Fp32,
                };
                self.issue(to, work, Some(&copy))?;
                copy
            }
            (Device::Cuda(s), Device::Cuda(to)) => {
                self.wait_stream(self.stream_on(to), self.stream_on(s))?;
                let copy = match (self.launches_on(d), mem) {
                    (Some(_), Some(block)) => self.peer_copy(s, t, to, block)?,
                    (_, mem) => self.attached(t.with_device(d), mem)?,
                };
                let path = CopyPath::Peer;
                self.issue(to, Work::Copy { bytes, path }, Some(&copy))?;
                copy
            }
        };
        Ok(Arc::new(copy))
    }

    /// `gather(parts, dim, device)`, as `torch.cuda.comm.gather`: the output
    /// is allocated once on `target` (uninitialised, no kernel), and each
    /// part is copied into its slice along `dim`, as `narrow(dim).copy_(part)`
    /// does. A part on the target is one copy kernel; a part on another
    /// device is one peer copy straight into the slice when both are
    /// contiguous (memcpy-eligible), else it goes through a temporary on
    /// the target first, as PyTorch's cross-device `copy_` does.
    pub fn gather(
        &mut self,
        parts: &[&Tensor],
        dim: i64,
        target: Device,
    ) -> Result<Arc<Tensor>, Error> {
        let target = self.check_device(target)?;
        let plan = join::join_plan(parts, dim, "gather()")?;
        let mem = self.reserve(target, &plan.shape, plan.dtype)?;
        let out = self.uninitialised(target, &plan, mem)?;
        self.counters.ops += 1;
        let mut at = 0;
        for part in join::skipping_empty(parts) {
            let n = part.shape()[plan.dim];
            let slice = index::narrow(&out, plan.dim, at, n)?;
            at += n;
            match (part.device(), target) {
                (from, to) if from == to => self.assign(&slice, part)?,
                (Device::Cuda(s), Device::Cuda(to))
                    if slice.is_contiguous()
                        && part.is_contiguous()
                        && part.dtype() == slice.dtype() =>
                {
                    self.peer_copy_to_slice(s, part, to, &slice)?
                }
                _ => {
                    let moved = self.copy_to(part, target)?;
                    self.assign(&slice, &moved)?;
                }
            }
        }
        Ok(Arc::new(out))
    }

    /// A tensor for `plan` on `target` in `mem`, whose elements are all
    /// about to be written: no kernel fills it (zeros on the simulator,
    /// whatever the block held on a driver's device).
    fn uninitialised(
        &mut self,
        target: Device,
        plan: &join::CatPlan,
        mem: Option<Memory>,
    ) -> Result<Tensor, Error> {
        let n = crate::runtime::shape::numel(&plan.shape);
        let (Device::Cuda(d), Some(block)) = (target, mem) else {
            return Ok(Tensor::new(
                Buffer::zeros(plan.dtype, n),
                plan.shape.clone(),
                target,
            ));
        };
        match self.devices.driver().map(Arc::clone) {
            Some(driver) => {
                let bytes = self.device_bytes(d, block, plan.dtype, n, &driver)?;
                Ok(Tensor::in_device_memory(bytes, plan.shape.clone(), target))
            }
            None => Ok(
                Tensor::new(Buffer::zeros(plan.dtype, n), plan.shape.clone(), target).placed(block),
            ),
        }
    }

    /// The peer copy of the contiguous `part` (on device `s`) into the
    /// contiguous `slice` of a tensor on device `to`, after the work queued
    /// on `s`'s current stream: one D2D copy on `to`'s current stream.
    fn peer_copy_to_slice(
        &mut self,
        s: u32,
        part: &Tensor,
        to: u32,
        slice: &Tensor,
    ) -> Result<(), Error> {
        self.wait_stream(self.stream_on(to), self.stream_on(s))?;
        match slice.device_bytes().map(|b| b.addr) {
            Some(base) => {
                slice.before_write();
                let addr = base + (slice.offset() * slice.dtype().size()) as u64;
                self.peer_copy_into(s, part, to, addr)?;
            }
            None => index::assign(slice, &part.with_device(slice.device()))?,
        }
        let copy = (part.device(), slice.device(), part.nbytes());
        self.issue_copy(to, copy, CopyPath::Peer, Some(slice))?;
        Ok(())
    }

    /// `x.data = y` (PyTorch's `set_data`): `x` views `y`'s elements from
    /// now on. When nothing else holds `y` or `x`'s memory and the two are
    /// laid out alike (`p.data = p.data - lr * p.grad`), `y`'s elements
    /// are copied into `x`'s memory instead, so `x` keeps no memory it no
    /// longer uses (`Tensor::set_data` keeps the old view): the same
    /// values and the same memory in use as PyTorch's, at `x`'s address
    /// rather than `y`'s, and with no change to `x._version`.
    pub fn set_data(&mut self, x: &Tensor, y: Arc<Tensor>) -> Result<(), Error> {
        if Arc::strong_count(&y) == 1 && x.can_take_elements_of(&y) {
            let version = x.version();
            if self.assign(x, &y).is_ok() {
                x.restore_version(version);
                return Ok(());
            }
        }
        x.set_data(&y);
        Ok(())
    }

    /// `dst.copy_(src, non_blocking)`: `src` (broadcast, converted to
    /// `dst`'s dtype) written into `dst`, from any device, as PyTorch's
    /// `copy_`. Between the host and a device the copy is queued on the
    /// device's current stream straight into `dst` when both are laid out
    /// alike (`direct_to_device`), or into a pinned `dst` (`direct_to_host`,
    /// at pinned speed); with `non_blocking` and pinned host memory the host
    /// goes on at once, else it waits for it.
    pub fn copy_(
        &mut self,
        dst: &Tensor,
        src: &Arc<Tensor>,
        non_blocking: bool,
    ) -> Result<(), Error> {
        self.check_write(dst)?;
        // One write, one version (PyTorch's `copy_` adds one): `assign`
        // counts its own; the direct copies are counted here.
        let direct = |src: &Tensor| {
            src.dtype() == dst.dtype()
                && src.shape() == dst.shape()
                && src.is_contiguous()
                && dst.is_contiguous()
        };
        match (src.device(), dst.device()) {
            (Device::Cpu, Device::Cuda(to)) if direct(src) => {
                overlap::check_write(dst)?;
                crate::runtime::inference::check_bump(dst)?;
                dst.bump_version();
                self.direct_to_device(dst, src, to, non_blocking)
            }
            // Into pinned memory the copy is DMA straight into `dst`, at
            // pinned speed, blocking (the host then waits for it) or not.
            (Device::Cuda(from), Device::Cpu)
                if non_blocking || (dst.is_pinned() && dst.is_contiguous()) =>
            {
                index::check_fits(dst, src)?;
                overlap::check_write(dst)?;
                if !(dst.is_pinned() && dst.is_contiguous()) {
                    self.notes.push(host_waits_note(dst));
                    // PyTorch's non-blocking copy is `cudaMemcpyAsync`, which
                    // the driver makes the host wait for into pageable
                    // memory, but not a sync `set_sync_debug_mode` reports.
                    let mode = std::mem::replace(&mut self.sync_debug, SyncDebugMode::Default);
                    let moved = self.copy_to(src, Device::Cpu);
                    self.sync_debug = mode;
                    let moved = moved?;
                    return self.assign(dst, &moved);
                }
                crate::runtime::inference::check_bump(dst)?;
                dst.bump_version();
                // Converted and laid out like `dst` on the device first, as
                // PyTorch's non-blocking copy does.
                let mut src = Arc::clone(src);
                if src.dtype() != dst.dtype() {
                    src = self.cast(&src, dst.dtype())?;
                }
                if !direct(&src) {
                    src = self.copy(&src.expand(dst.shape()))?;
                }
                self.direct_to_host(dst, &src, from)?;
                match non_blocking {
                    true => Ok(()),
                    false => self.sync_stream(self.stream_on(from)),
                }
            }
            _ => {
                let moved = match src.device() == dst.device() || src.is_cpu_scalar() {
                    true => Arc::clone(src),
                    false => self.transfer(src, dst.device(), non_blocking)?,
                };
                self.assign(dst, &moved)
            }
        }
    }

    /// A host-to-device copy of `src` into `dst` (same dtype, shape and
    /// layout, both contiguous), queued on device `to`'s current stream.
    /// From pinned memory with `non_blocking` the host goes on at once, and
    /// `src` is read by the copy until it completes; otherwise the host
    /// waits for the copy (pageable memory is staged by the driver).
    fn direct_to_device(
        &mut self,
        dst: &Tensor,
        src: &Tensor,
        to: u32,
        non_blocking: bool,
    ) -> Result<(), Error> {
        self.check_faults(&[dst.device()])?;
        let asynchronous = non_blocking && src.is_pinned();
        if non_blocking && !asynchronous {
            self.notes.push(PAGEABLE_SOURCE.into());
        }
        dst.before_write();
        match dst.device_bytes() {
            Some(b) => {
                let addr = b.addr + (dst.offset() * dst.dtype().size()) as u64;
                let stream = self.devices.current_handle(to);
                let bytes = self.uploaded(src, to).contiguous_buffer();
                upload(&*b.driver, to, addr, &bytes, stream).map_err(|e| driver_error(to, e))?;
            }
            None => index::assign(dst, &self.uploaded(src, to))?,
        }
        let path = match src.is_pinned() {
            true => CopyPath::Pinned,
            false => CopyPath::Pageable,
        };
        let copy = (Device::Cpu, dst.device(), src.nbytes());
        let (stream, seq) = self.issue_copy(to, copy, path, None)?;
        match (asynchronous, self.devices.gpu_handle(to)) {
            (true, Some(gpu)) => src.mark_read(gpu, stream, seq),
            (true, None) => {}
            (false, _) if non_blocking => self.staged(to),
            (false, _) => self.sync_stream(self.stream_on(to))?,
        }
        Ok(())
    }

    /// After a non-blocking copy from pageable memory queued on device
    /// `to`'s current stream: the driver stages the source through pinned
    /// memory and returns once it has (CUDA's asynchronous copies "might be
    /// synchronous with respect to host" from pageable memory), with no
    /// stream synchronisation of PyTorch's, so the end of the DMA comes
    /// later without the host. Modelled: the host waits until the copy's
    /// end less the copy's completion latency (`COPY_OVERHEAD`), drawn as a
    /// wait inside the copy's call (`STAGING`). On a GPU the driver's call
    /// itself did it.
    fn staged(&mut self, to: u32) {
        if self.measures_time() {
            return;
        }
        let key = self.stream_on(to);
        let end = self
            .devices
            .gpu(to)
            .map_or(0.0, |g| g.streams.get(key.stream).clock);
        let op = self.op;
        self.host_wait_until(op, end - COPY_OVERHEAD, STAGING);
    }

    /// A non-blocking device-to-host copy of `src` (on device `from`) into
    /// the pinned, contiguous `dst` of the same dtype and shape, queued on
    /// `from`'s current stream: the host goes on at once, and until the
    /// copy is known complete (`sync`, an event) a host read of `dst` is a
    /// race that sees what `dst` held before.
    fn direct_to_host(&mut self, dst: &Tensor, src: &Tensor, from: u32) -> Result<(), Error> {
        self.check_faults(&[src.device()])?;
        let bytes = self.bytes_for_host(src, from)?;
        if dst.numel() > 0 {
            dst.keep_bytes_for_racing_reads();
        }
        index::assign(dst, &Tensor::new(bytes, dst.shape().to_vec(), Device::Cpu))?;
        let copy = (src.device(), Device::Cpu, src.nbytes());
        self.issue_copy(from, copy, CopyPath::Pinned, Some(dst))?;
        Ok(())
    }

    /// `.to(d, non_blocking=true)`: asynchronous only from pinned memory; a
    /// device-to-host copy lands in pinned memory, as in PyTorch.
    pub fn transfer(
        &mut self,
        t: &Arc<Tensor>,
        d: Device,
        non_blocking: bool,
    ) -> Result<Arc<Tensor>, Error> {
        if !non_blocking || t.device() == d {
            return self.move_to(t, d);
        }
        match (t.device(), d) {
            (Device::Cpu, Device::Cuda(_)) if !t.is_pinned() => {
                self.notes.push(PAGEABLE_SOURCE.into());
                self.copy_to_waiting(t, d, false)
            }
            (Device::Cuda(s), Device::Cpu) => {
                // Lands in pinned memory; the host must sync before reading it.
                let copy = self.download_pinned(t, s)?;
                self.queue_copy(t, copy, s)
            }
            (Device::Cpu, Device::Cuda(to)) => {
                // From pinned memory: queued, and the host goes on at once.
                let mem = self.reserve(d, t.shape(), t.dtype())?;
                let copy = self.attached(self.uploaded(t, to), mem)?;
                self.queue_copy(t, copy, to)
            }
            _ => self.move_to(t, d),
        }
    }

    /// The host tensor `t` as a copy queued on device `to`'s current stream
    /// reads it: a non-blocking download into `t` from the same stream is
    /// done by then (stream order), one from another stream races it.
    fn uploaded(&self, t: &Tensor, to: u32) -> Tensor {
        let bytes = match self.devices.gpu_handle(to) {
            Some(gpu) => t.contiguous_of(t.read_by_copy_on(gpu)),
            None => t.contiguous_buffer(),
        };
        Tensor::new(bytes, t.shape().to_vec(), Device::Cuda(to))
    }

    /// Queues the asynchronous copy of `t` into `copy` on device `on`'s
    /// current stream. A host source is read by the copy until it is done:
    /// writing it before then is a race (`Tensor::mark_read`).
    fn queue_copy(&mut self, t: &Tensor, copy: Tensor, on: u32) -> Result<Arc<Tensor>, Error> {
        let what = (t.device(), copy.device(), t.nbytes());
        let (stream, seq) = self.issue_copy(on, what, CopyPath::Pinned, Some(&copy))?;
        if let (Device::Cpu, Some(gpu)) = (t.device(), self.devices.gpu_handle(on)) {
            t.mark_read(gpu, stream, seq);
        }
        Ok(Arc::new(copy))
    }

    /// A copy in freshly pinned host memory (`x.pin()`).
    pub fn pinned_copy(&mut self, t: &Tensor) -> Result<Arc<Tensor>, Error> {
        self.need_cuda("pinned memory")?;
        if t.device() != Device::Cpu {
            return Err(Error::value_help(
                format!("only host tensors can be pinned, and this one is on {}", t.device()),
                "pinned (page-locked) memory is host memory; `.cpu().pin()` copies it to the host first",
            ));
        }
        let copy = t.copy();
        let memory = self.pinned_block(t.nbytes());
        let _ = copy.pin_with(memory);
        self.page_lock(&copy)?;
        self.counters.ops += 1;
        // The host copies the elements into the pinned block, on all cores
        // (PyTorch's `copy_` in the main thread).
        let bytes = t.nbytes() as u64;
        self.host_works(timing::host_copy(&HOST, bytes, HOST.cores), 2 * bytes);
        Ok(Arc::new(copy))
    }

    /// A copy of host tensor `t` in pinned memory, as a DataLoader pins a
    /// batch, and the modelled seconds that takes the thread that pins: the
    /// copy on `threads` cores (PyTorch's pin thread runs on one,
    /// `torch.set_num_threads(1)`; with `num_workers=0` the main thread
    /// pins with all of its), and page-locking the block when the caching
    /// host allocator had none to give. Nothing is charged to the main
    /// thread's clock here: the caller charges the thread that pins.
    pub fn pin_elsewhere(&mut self, t: &Tensor, threads: u32) -> Result<(Tensor, f64), Error> {
        self.need_cuda("pinned memory")?;
        let copy = t.copy();
        let (memory, locking) = self.devices.pinned(t.nbytes());
        let _ = copy.pin_with(memory);
        self.page_lock(&copy)?;
        let copying = timing::host_copy(&HOST, t.nbytes() as u64, threads);
        Ok((copy, copying + locking.unwrap_or(0.0)))
    }

    /// A block of pinned host memory for the main thread: page-locking a
    /// new one is the host's work, on its clock and its timeline lane.
    fn pinned_block(&mut self, bytes: usize) -> Memory {
        let (memory, locking) = self.devices.pinned(bytes);
        if let Some(seconds) = locking {
            self.page_locked(seconds);
        }
        memory
    }

    /// The main thread spent `seconds` page-locking host memory.
    fn page_locked(&mut self, seconds: f64) {
        self.devices.note_page_locking(seconds);
        self.host_works(seconds, 0);
    }

    /// `pin x`: page-locks a host tensor's own memory in place.
    pub fn pin_in_place(&mut self, t: &Tensor) -> Result<(), Error> {
        let (memory, seconds) = self.devices.register(t.read().nbytes());
        t.pin_with(memory)
            .map_err(|_| Error::value("this tensor's memory cannot be pinned"))?;
        self.page_locked(seconds);
        self.page_lock(t)
    }

    /// A device tensor's elements in new pinned host memory (a
    /// non-blocking `.to(cpu)`).
    fn download_pinned(&mut self, t: &Tensor, s: u32) -> Result<Tensor, Error> {
        let bytes = self.bytes_for_host(t, s)?;
        let copy = Tensor::new(bytes, t.shape().to_vec(), Device::Cpu);
        let memory = self.pinned_block(t.nbytes());
        let _ = copy.pin_with(memory);
        self.page_lock(&copy)?;
        Ok(copy)
    }

    /// What a copy of the device tensor `t` to the host, queued on device
    /// `s`'s current stream, reads: racing a pending write on a driver that
    /// has run it already, the bytes from before it (the simulator's reads
    /// decide that themselves). A view is gathered on the host.
    fn bytes_for_host(&mut self, t: &Tensor, s: u32) -> Result<Buffer, Error> {
        let whole = t.device_bytes().filter(|b| {
            t.is_contiguous() && t.offset() == 0 && b.len == t.numel() && b.dtype == t.dtype()
        });
        let Some(src) = whole else {
            return Ok(t.contiguous_buffer());
        };
        if t.before_device_read() == Sees::Stale && src.driver.runs_when_queued() {
            return Ok(t.stale_bytes());
        }
        let mut bytes = Buffer::zeros(t.dtype(), t.numel());
        let stream = self.devices.current_handle(s);
        download_into(&*src.driver, s, src.addr, &mut bytes, stream)
            .map_err(|e| driver_error(s, e))?;
        Ok(bytes)
    }

    /// On a driver (`cuda`, `emu`), a pinned host tensor's memory becomes
    /// page-locked memory (`cuMemHostRegister`); the simulator keeps the
    /// pinned allocator's bookkeeping only.
    fn page_lock(&self, t: &Tensor) -> Result<(), Error> {
        let Some(driver) = self.devices.driver() else {
            return Ok(());
        };
        t.page_lock(driver).map_err(|e| Error::Cuda {
            device: Device::Cpu,
            sticky: e.is_sticky(),
            message: format!("could not page-lock host memory: {e}"),
        })
    }

    /// `.item()`: a copy of one element to the host on the current stream,
    /// which the host waits for (`host_read`); `read` takes the element.
    /// A meta tensor has no element to read: PyTorch's error.
    pub fn read_item<R>(&mut self, t: &Tensor, read: impl FnOnce() -> R) -> Result<R, Error> {
        if t.device().is_meta() {
            return Err(Error::runtime(
                "Tensor.item() cannot be called on meta tensors",
            ));
        }
        self.host_read(&[t], |t| t.dtype().size() as u64, read)
    }

    /// Showing device tensors (display, `print`): each is a device-to-host
    /// copy of the whole tensor (`host_read`), as PyTorch's printing is;
    /// `show` renders them.
    pub fn show<R>(&mut self, tensors: &[&Tensor], show: impl FnOnce() -> R) -> Result<R, Error> {
        self.host_read(tensors, |t| t.nbytes() as u64, show)
    }

    /// `save`: the host reads all of `t` (`host_read`), and `write` writes it.
    pub fn read_all<R>(&mut self, t: &Tensor, write: impl FnOnce() -> R) -> Result<R, Error> {
        if t.device().is_meta() {
            return Err(no_data_on_meta("reading it whole"));
        }
        self.host_read(&[t], |t| t.nbytes() as u64, write)
    }

    /// `t` in the block reserved for it.
    pub(super) fn attached(&self, t: Tensor, mem: Option<Memory>) -> Result<Tensor, Error> {
        match mem {
            Some(block) => self.place(t, block),
            None => Ok(t),
        }
    }

    /// Queues one copy of `bytes` from `from` to `to` on device `on`'s
    /// current stream, counted as an op and in the copy counters.
    fn issue_copy(
        &mut self,
        on: u32,
        (from, to, bytes): (Device, Device, usize),
        path: CopyPath,
        out: Option<&Tensor>,
    ) -> Result<(StreamId, u64), Error> {
        self.count_copy(from, to, bytes);
        self.counters.ops += 1;
        let work = Work::Copy {
            bytes: bytes as u64,
            path,
        };
        self.issue(on, work, out)
    }

    /// A copy to the meta device: a meta tensor of t's shape and dtype
    /// (nothing copied); a copy out of it has no elements to copy, and is
    /// PyTorch's error.
    fn meta_copy(&mut self, t: &Tensor, to: Device) -> Result<Arc<Tensor>, Error> {
        if !to.is_meta() {
            return Err(no_data_on_meta(&format!("a copy to {to}")));
        }
        self.counters.ops += 1;
        Ok(Arc::new(Tensor::meta(t.shape().to_vec(), t.dtype())))
    }

    pub(super) fn count_copy(&mut self, from: Device, to: Device, bytes: usize) {
        let slot = match (from, to) {
            (Device::Cpu, Device::Cuda(_)) => &mut self.counters.h2d,
            (Device::Cuda(_), Device::Cpu) => &mut self.counters.d2h,
            (Device::Cuda(_), Device::Cuda(_)) => &mut self.counters.d2d,
            (Device::Cpu, Device::Cpu) | (Device::Meta, _) | (_, Device::Meta) => return,
        };
        if bytes == 0 {
            return; // an empty copy copies nothing (`Runtime::issue`)
        }
        slot.0 += 1;
        slot.1 += bytes as u64;
    }
}

/// The note for a non-blocking copy from pageable host memory.
const PAGEABLE_SOURCE: &str =
    "non_blocking=true: the source is in pageable memory, so the host waits \
     while the driver stages it through pinned memory; pin it first (`pin x`) \
     to let the copy overlap other work";

/// The note for a non-blocking copy into host memory the device cannot
/// write asynchronously: the host waits for it, as with PyTorch.
fn host_waits_note(dst: &Tensor) -> String {
    let why = match dst.is_pinned() {
        true => "the destination is a strided view, copied through a pageable temporary",
        false => "the destination is in pageable memory",
    };
    format!(
        "non_blocking=true: {why}, so the host waits for this copy; copy into a contiguous \
         pinned tensor (`h = empty(...).pin()`) to let it overlap other work"
    )
}

/// PyTorch's error for reading a meta tensor's elements (`what`: the read).
pub fn no_data_on_meta(what: &str) -> Error {
    Error::not_implemented(
        "Cannot copy out of meta tensor; no data!",
        format!(
            "a meta tensor has a shape and a dtype but no elements, so {what} has nothing to \
             read; make the tensor on a real device (`to_empty(device=...)` for a module, then \
             load or initialise its values)"
        ),
    )
}
