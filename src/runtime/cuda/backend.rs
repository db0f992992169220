//! A backend whose devices a driver provides (`cuda`, `emu`): their
//! properties come from the driver, and the caching allocator's segments
//! from its `mem_alloc` (segment handles are device addresses).

use std::sync::Arc;

use crate::runtime::alloc::{SegmentError, SegmentSource};
use crate::runtime::backend::{Backend, DeviceInfo, GpuSpec};
use crate::runtime::driver::{Driver, DriverError};

pub struct DriverBackend {
    pub driver: Arc<dyn Driver>,
    infos: Vec<DeviceInfo>,
}

impl DriverBackend {
    /// The driver's devices; `spec` is the reference GPU the time model uses.
    pub fn new(driver: Arc<dyn Driver>, spec: &'static GpuSpec) -> Result<DriverBackend, String> {
        let infos = (0..driver.device_count())
            .map(|index| {
                let p = driver.properties(index).map_err(|e| e.to_string())?;
                Ok(DeviceInfo {
                    index,
                    name: p.name,
                    total_memory: p.total_memory,
                    compute_capability: p.compute_capability,
                    spec,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(DriverBackend { driver, infos })
    }
}

impl Backend for DriverBackend {
    fn name(&self) -> &'static str {
        self.driver.name()
    }

    fn devices(&self) -> Vec<DeviceInfo> {
        self.infos.clone()
    }

    fn segment_source(&self, index: u32) -> Box<dyn SegmentSource + Send> {
        Box::new(Segments {
            driver: Arc::clone(&self.driver),
            device: index,
            total: self.infos[index as usize].total_memory,
        })
    }

    fn driver(&self) -> Option<Arc<dyn Driver>> {
        Some(Arc::clone(&self.driver))
    }
}

/// One device's segments, straight from the driver.
struct Segments {
    driver: Arc<dyn Driver>,
    device: u32,
    total: usize,
}

impl SegmentSource for Segments {
    fn reserve(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        match self.driver.mem_alloc(self.device, bytes) {
            Ok(address) => Ok(address),
            Err(DriverError::OutOfMemory { .. }) => Err(SegmentError::OutOfMemory),
            Err(DriverError::Assert { .. }) => Err(SegmentError::Assert),
            Err(e) => Err(SegmentError::Failed(e.to_string())),
        }
    }
    fn release(&mut self, handle: u64, _bytes: usize) {
        // A failed free leaves the memory to the process's end; nothing better can be done here.
        let _ = self.driver.mem_free(self.device, handle);
    }
    fn capacity(&self) -> usize {
        self.total
    }
    fn free(&self) -> Option<usize> {
        self.driver.mem_info(self.device).map(|(free, _)| free).ok()
    }
}
