//! `PYTORCH_CUDA_ALLOC_CONF`, the caching allocator's settings: from the
//! environment when the session starts (PyTorch reads it once, at its first
//! CUDA use), from `os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ...` in a
//! program before its first CUDA allocation, and from
//! `torch.cuda.memory._set_allocator_settings(...)` at any time.

use super::{Interp, Output};
use crate::error::Error;
use crate::runtime::alloc::AllocatorConfig;

impl Interp {
    /// Reads `text` into every device's allocator settings: over PyTorch's
    /// defaults (`fresh`, the environment variable) or over the settings in
    /// force (`_set_allocator_settings`). A setting cudash does not model
    /// is taken with a warning that says so.
    pub(crate) fn configure_allocators(&mut self, text: &str, fresh: bool) -> Result<(), Error> {
        let devices = self.rt.devices.count();
        let mut config = match fresh {
            true => AllocatorConfig::default(),
            false => (0..devices)
                .find_map(|d| self.rt.devices.gpu(d).map(|g| g.allocator.config().clone()))
                .unwrap_or_default(),
        };
        let ignored = config.parse(text).map_err(Error::runtime)?;
        for d in 0..devices {
            if let Some(mut g) = self.rt.devices.gpu(d) {
                g.allocator.set_config(config.clone());
            }
        }
        for what in ignored {
            self.emit(Output::Warning(format!(
                "UserWarning: PYTORCH_CUDA_ALLOC_CONF's `{what}` has no effect in cudash: its \
                 caching allocator models max_split_size_mb, max_non_split_rounding_mb, \
                 roundup_power2_divisions, garbage_collection_threshold and \
                 expandable_segments, not the cudaMallocAsync backend, pinned memory's \
                 registration or the address space an expandable segment reserves"
            )));
        }
        Ok(())
    }

    /// `os.environ["PYTORCH_CUDA_ALLOC_CONF"] = text`: read as PyTorch would
    /// read it at its first CUDA use, if no device has allocated yet; after
    /// that PyTorch has read it already, and the program is told so.
    pub(crate) fn alloc_conf_set_in_environ(&mut self, text: &str) -> Result<(), Error> {
        let used = (0..self.rt.devices.count())
            .any(|d| self.rt.devices.gpu(d).is_some_and(|g| g.allocator.used()));
        if !used {
            return self.configure_allocators(text, true);
        }
        self.emit(Output::Warning(
            "UserWarning: PYTORCH_CUDA_ALLOC_CONF set after the first CUDA allocation has no \
             effect: PyTorch reads it once, when CUDA starts. Set it before (or use \
             torch.cuda.memory._set_allocator_settings)"
                .into(),
        ));
        Ok(())
    }
}
