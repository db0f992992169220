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

/// The allocator's reading of a driver's refusal.
fn segment_error(e: DriverError) -> SegmentError {
    match e {
        DriverError::OutOfMemory { .. } => SegmentError::OutOfMemory,
        DriverError::Assert { .. } => SegmentError::Assert,
        e => SegmentError::Failed(e.to_string()),
    }
}

impl SegmentSource for Segments {
    fn reserve(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        self.driver
            .mem_alloc(self.device, bytes)
            .map_err(segment_error)
    }
    fn release(&mut self, handle: u64, _bytes: usize) {
        // A failed free leaves the memory to the process's end; nothing better can be done here.
        let _ = self.driver.mem_free(self.device, handle);
    }
    fn reserve_address(&mut self, bytes: usize) -> Result<u64, SegmentError> {
        self.driver
            .mem_address_reserve(self.device, bytes)
            .map_err(segment_error)
    }
    fn map(&mut self, addr: u64, bytes: usize) -> Result<(), SegmentError> {
        self.driver
            .mem_map(self.device, addr, bytes)
            .map_err(segment_error)
    }
    fn unmap(&mut self, addr: u64, bytes: usize) {
        // As for a failed free: the page stays until the process ends.
        let _ = self.driver.mem_unmap(self.device, addr, bytes);
    }
    fn release_address(&mut self, addr: u64, bytes: usize) {
        let _ = self.driver.mem_address_free(self.device, addr, bytes);
    }
    fn capacity(&self) -> usize {
        self.total
    }
    fn free(&self) -> Option<usize> {
        self.driver.mem_info(self.device).map(|(free, _)| free).ok()
    }
    fn process_memory(&self) -> Option<usize> {
        self.driver.process_memory(self.device)
    }
}
