//! A tensor's elements in a driver's device memory (`cuda`, `emu`): a block
//! of the device's caching allocator, its address, and the driver that owns
//! it. The host sees these bytes only through a copy.

use std::sync::Arc;

use super::buffer::Buffer;
use super::devices::Memory;
use super::driver::{Addr, DevicePtr, Driver, DriverError, StreamHandle};
use super::DType;
use crate::with_dtype;

pub struct DeviceBytes {
    /// The caching allocator's block (returned to it when dropped).
    pub block: Memory,
    pub addr: DevicePtr,
    pub device: u32,
    /// Elements of `dtype` the block holds for the tensor.
    pub len: usize,
    pub dtype: DType,
    pub driver: Arc<dyn Driver>,
}

impl DeviceBytes {
    /// A copy of all the elements to the host, on `stream`, waited for.
    pub fn download(&self, stream: StreamHandle) -> Result<Buffer, DriverError> {
        download(
            &*self.driver,
            self.device,
            self.addr,
            self.dtype,
            self.len,
            stream,
        )
    }

    /// Copies `buf` (of this dtype, at most `len` elements) into the block.
    pub fn upload(&self, buf: &Buffer, stream: StreamHandle) -> Result<(), DriverError> {
        debug_assert!(buf.dtype() == self.dtype && buf.len() <= self.len);
        upload(&*self.driver, self.device, self.addr, buf, stream)
    }
}

/// `len` elements of `dtype` at `ptr` on `device`, copied to the host on
/// `stream` and waited for. The device finishes all its queued work first:
/// a host read sees what the device's streams wrote (the stream model has
/// already warned about any read racing a write).
pub fn download(
    driver: &dyn Driver,
    device: u32,
    ptr: DevicePtr,
    dtype: DType,
    len: usize,
    stream: StreamHandle,
) -> Result<Buffer, DriverError> {
    let mut buf = Buffer::zeros(dtype, len);
    download_into(driver, device, ptr, &mut buf, stream)?;
    Ok(buf)
}

/// As `download`, into `buf` (all of it; the device memory at `ptr` holds
/// at least as many elements of its dtype): a pinned tensor's own
/// page-locked memory, for one.
pub fn download_into(
    driver: &dyn Driver,
    device: u32,
    ptr: DevicePtr,
    buf: &mut Buffer,
    stream: StreamHandle,
) -> Result<(), DriverError> {
    driver.device_synchronize(device)?;
    let dst = with_dtype!(buf.dtype(), T => buf.as_mut_slice::<T>().as_mut_ptr() as *const u8);
    // SAFETY: `buf` holds its `nbytes`; the caller's device memory at least as many.
    unsafe {
        driver.copy(
            Addr::Host(dst),
            Addr::Device { device, ptr },
            buf.nbytes(),
            stream,
        )?
    };
    driver.stream_synchronize(stream)
}

/// Copies `buf` to `ptr` on `device` on `stream`, waited for (the host
/// buffer is pageable and may be dropped right after).
pub fn upload(
    driver: &dyn Driver,
    device: u32,
    ptr: DevicePtr,
    buf: &Buffer,
    stream: StreamHandle,
) -> Result<(), DriverError> {
    let src = with_dtype!(buf.dtype(), T => buf.as_slice::<T>().as_ptr().cast::<u8>());
    // SAFETY: as in `download`, the other way.
    unsafe {
        driver.copy(
            Addr::Device { device, ptr },
            Addr::Host(src),
            buf.nbytes(),
            stream,
        )?
    };
    driver.stream_synchronize(stream)
}
