//! The runtime of a DataLoader worker (`Dataset(get, n)` with
//! `num_workers > 0`): a thread of its own that runs the session's sample
//! function on the host. As PyTorch's workers, it has its own random
//! generator (seeded by the loader) and computes on one thread
//! (`torch.set_num_threads(1)` in each worker); as theirs, which are
//! processes CUDA cannot be used in, it refuses device work. Its host time
//! is its own: it adds up on the worker's clock, which the loader draws on
//! the worker's lane, and never moves the session's.

use std::collections::HashSet;
use std::sync::Arc;

use super::Runtime;
use crate::error::Error;
use crate::runtime::devices::Devices;
use crate::runtime::Tensor;

/// What a worker's runtime keeps apart from the session's.
pub(super) struct Worker {
    /// The host's modelled seconds the worker has worked so far.
    pub seconds: f64,
    /// The memory of the session's tensors (`Tensor::storage_id`), which
    /// the worker reads but may not change.
    shared: HashSet<usize>,
}

impl Runtime {
    /// A worker's runtime over the session's devices, its generator seeded
    /// with `seed`; `shared` is the memory of the session's tensors.
    pub fn for_worker(seed: u64, devices: Arc<Devices>, shared: HashSet<usize>) -> Runtime {
        let mut rt = Runtime::new(seed, devices);
        // Every device reports the refusal where it would report a fault:
        // before any work, allocation, copy or sync reaches it.
        rt.faults = (0..rt.devices.count()).collect();
        rt.worker = Some(Worker {
            seconds: 0.0,
            shared,
        });
        rt
    }

    /// An in-place write into `t`: refused in a worker when `t`'s memory is
    /// the session's. A PyTorch worker (a forked process) would change its
    /// own copy, which the loop never sees; here the memory is one, so the
    /// write would reach the session, racing the loop.
    pub(super) fn check_write(&self, t: &Tensor) -> Result<(), Error> {
        if let Some(m) = &self.dist {
            if m.shared.contains(&t.storage_id()) {
                return Err(Error::value_help(
                    "a rank cannot change the session's tensors in place",
                    "a rank is a process of its own, as PyTorch's spawned ones are: a change to what it sees of the session's variables would be to its own copy. Make the tensor (or the model) inside the rank's function, or pass it in `args`",
                ));
            }
        }
        match &self.worker {
            Some(w) if w.shared.contains(&t.storage_id()) => Err(Error::value_help(
                "a DataLoader worker cannot change the session's tensors in place",
                "a PyTorch worker would change a copy of its own that the loop never sees: \
                 change a copy made in the dataset's function (`x = x.clone()`), or change the \
                 tensor outside the loop",
            )),
            _ => Ok(()),
        }
    }

    /// Whether this runtime is a DataLoader worker's.
    pub fn is_worker(&self) -> bool {
        self.worker.is_some()
    }

    /// A worker's modelled host seconds so far (0 for the session's).
    pub fn worker_seconds(&self) -> f64 {
        self.worker.as_ref().map_or(0.0, |w| w.seconds)
    }
}

/// Device work asked of a worker.
pub(super) fn refused() -> Error {
    Error::NotAvailable {
        message: "a DataLoader worker cannot use CUDA devices: it makes samples on the host".into(),
        help: "as in PyTorch, whose workers are processes CUDA cannot be used in: return host \
               tensors from the dataset's function and move each batch in the loop \
               (`xb.to(cuda, non_blocking=true)`, with `pin_memory=true`); or load in the main \
               thread (`num_workers=0`)"
            .into(),
    }
}
