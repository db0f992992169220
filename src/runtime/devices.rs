//! The CUDA devices of a session: their properties, one caching allocator
//! each, and the pinned host allocator. Device memory is handed to tensors as
//! a `Memory` guard that returns it to its allocator when the last view drops.

use std::sync::{Arc, Mutex, MutexGuard};

use super::alloc::{Block, CachingAllocator, OutOfMemory, SegmentSource, StreamId};
use super::backend::{Backend, DeviceInfo};
use super::host_alloc::HostAllocator;

pub type DeviceAllocator = CachingAllocator<Box<dyn SegmentSource + Send>>;

pub struct Devices {
    backend: &'static str,
    /// Why this backend is live (shown in the banner), e.g. "no CUDA driver found".
    pub reason: String,
    infos: Vec<DeviceInfo>,
    allocators: Vec<Arc<Mutex<DeviceAllocator>>>,
    host: Arc<Mutex<HostAllocator>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave the bookkeeping worse than the
    // bug that caused it; keep going rather than poison every later statement.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Devices {
    pub fn new(backend: &dyn Backend, reason: impl Into<String>) -> Devices {
        let infos = backend.devices();
        let allocators = infos
            .iter()
            .map(|d| {
                Arc::new(Mutex::new(CachingAllocator::new(
                    backend.segment_source(d.index),
                )))
            })
            .collect();
        Devices {
            backend: backend.name(),
            reason: reason.into(),
            infos,
            allocators,
            host: Arc::new(Mutex::new(HostAllocator::default())),
        }
    }

    pub fn backend(&self) -> &'static str {
        if self.infos.is_empty() {
            "cpu"
        } else {
            self.backend
        }
    }

    pub fn count(&self) -> u32 {
        self.infos.len() as u32
    }

    pub fn info(&self, index: u32) -> Option<&DeviceInfo> {
        self.infos.get(index as usize)
    }

    pub fn infos(&self) -> &[DeviceInfo] {
        &self.infos
    }

    /// Locks device `index`'s allocator (for stats, `mem`, `empty_cache`).
    pub fn allocator(&self, index: u32) -> Option<MutexGuard<'_, DeviceAllocator>> {
        self.allocators.get(index as usize).map(|a| lock(a))
    }

    pub fn host(&self) -> MutexGuard<'_, HostAllocator> {
        lock(&self.host)
    }

    /// Device memory for `bytes` on `device`, used from `stream`.
    pub fn alloc(
        &self,
        device: u32,
        bytes: usize,
        stream: StreamId,
    ) -> Result<Memory, OutOfMemory> {
        let a = &self.allocators[device as usize];
        let block = lock(a).malloc(bytes, stream)?;
        Ok(Memory::Device {
            allocator: Arc::clone(a),
            block,
            device,
        })
    }

    /// A block from the pinned host allocator.
    pub fn pinned(&self, bytes: usize) -> Memory {
        let size = lock(&self.host).malloc(bytes);
        Memory::Pinned {
            host: Arc::clone(&self.host),
            size,
        }
    }

    /// Page-locks existing host memory in place (`pin x`).
    pub fn register(&self, bytes: usize) -> Memory {
        lock(&self.host).register(bytes);
        Memory::Registered {
            host: Arc::clone(&self.host),
            bytes,
        }
    }
}

/// Memory a tensor's storage holds beyond its host buffer.
pub enum Memory {
    /// A block of a CUDA device's caching allocator.
    Device {
        allocator: Arc<Mutex<DeviceAllocator>>,
        block: Block,
        device: u32,
    },
    /// A block from the pinned host allocator.
    Pinned {
        host: Arc<Mutex<HostAllocator>>,
        size: usize,
    },
    /// Ordinary host memory registered as page-locked in place.
    Registered {
        host: Arc<Mutex<HostAllocator>>,
        bytes: usize,
    },
}

impl Memory {
    pub fn block(&self) -> Option<Block> {
        match self {
            Memory::Device { block, .. } => Some(*block),
            _ => None,
        }
    }

    pub fn is_pinned(&self) -> bool {
        !matches!(self, Memory::Device { .. })
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Memory::Device { block, device, .. } => write!(f, "Device(cuda:{device}, {block:?})"),
            Memory::Pinned { size, .. } => write!(f, "Pinned({size})"),
            Memory::Registered { bytes, .. } => write!(f, "Registered({bytes})"),
        }
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        match self {
            Memory::Device {
                allocator, block, ..
            } => lock(allocator).free(*block),
            Memory::Pinned { host, size } => lock(host).free(*size),
            Memory::Registered { host, bytes } => lock(host).unregister(*bytes),
        }
    }
}
