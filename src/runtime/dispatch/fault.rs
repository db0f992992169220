//! Device-side asserts on simulated devices. A CUDA kernel that fails an
//! assertion (PyTorch's index kernels check every index that way) does not
//! fail its launch: the device's context is lost, and the first driver call
//! on that device after the kernel ran reports `CUDA_ERROR_ASSERT`, as does
//! every call after it. On `cuda` and `emu` the driver does this itself; a
//! simulated device keeps the same state here, so the same statements fail
//! on every backend.
//!
//! A simulated device's fault is reported where a driver call would report
//! it: by the next work queued on the device (`issue`), an allocation, a
//! stream or event call, or a host sync. Queries of bookkeeping the host
//! keeps (`mem`, `devices`) still answer, as PyTorch's do.

use super::Runtime;
use crate::error::Error;
use crate::runtime::Device;

/// The condition of the index kernels' assertion (`index_step` in
/// kernels/copy.cu), as the device prints it.
pub(super) const INDEX_ASSERTION: &str =
    "-size <= index && index < size && \"index out of bounds\"";

impl Runtime {
    /// A kernel of simulated device `d` just failed `assertion`: `kernel`
    /// is its name (`take_i64`). With `--launch-blocking` the host waits for
    /// the kernel, so the error is this statement's; otherwise it is the
    /// next call's on the device.
    pub(super) fn assert_failed(
        &mut self,
        d: u32,
        kernel: &str,
        assertion: &str,
    ) -> Result<(), Error> {
        // A GPU prints the failed assertion on the process's standard output.
        println!("{kernel}: Assertion `{assertion}` failed.");
        self.faults.insert(d);
        let blocking = self.devices.gpu(d).is_some_and(|g| g.launch_blocking);
        if blocking {
            return self.check_fault(d);
        }
        Ok(())
    }

    /// The error every call on simulated device `d` gives once one of its
    /// kernels failed an assertion.
    pub(super) fn check_fault(&self, d: u32) -> Result<(), Error> {
        if self.faults.contains(&d) {
            if self.worker.is_some() {
                return Err(super::worker::refused());
            }
            return Err(Error::DeviceAssert {
                device: Device::Cuda(d),
            });
        }
        Ok(())
    }

    /// `check_fault` for each CUDA device among `devices`.
    pub(super) fn check_faults(&self, devices: &[Device]) -> Result<(), Error> {
        if self.faults.is_empty() {
            return Ok(());
        }
        for d in devices {
            if let Device::Cuda(i) = d {
                self.check_fault(*i)?;
            }
        }
        Ok(())
    }
}
