//! The hooks registered at one place of a graph (a node's output, a
//! leaf), in registration order: the data `node.rs` holds; `hooks.rs`
//! registers, removes and runs them.

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::runtime::lock::lock;
use crate::runtime::Tensor;

/// A hook's function, as the interpreter keeps it.
pub type HookFn = Arc<dyn Any + Send + Sync>;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// One registered hook.
#[derive(Clone)]
pub struct Hook {
    id: u64,
    pub f: HookFn,
    /// The parameter a post-accumulate hook is called with (weak: the
    /// parameter's record holds its hooks).
    pub param: Option<Weak<Tensor>>,
    /// The node's output whose gradient it sees (0 at a leaf).
    pub output: usize,
}

/// The hooks of one place, in the order they were registered.
#[derive(Default)]
pub struct Hooks(Mutex<Vec<Hook>>);

impl Hook {
    /// The number its handle removes it by.
    pub fn id(&self) -> u64 {
        self.id
    }
}

impl Hooks {
    pub fn add(&self, f: HookFn, param: Option<Weak<Tensor>>, output: usize) -> u64 {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        lock(&self.0).push(Hook {
            id,
            f,
            param,
            output,
        });
        id
    }

    pub fn remove(&self, id: u64) {
        lock(&self.0).retain(|h| h.id != id);
    }

    /// The hooks now (a hook may register or remove hooks while it runs).
    pub fn list(&self) -> Vec<Hook> {
        lock(&self.0).clone()
    }

    /// The hooks on output `k` now.
    pub fn on(&self, k: usize) -> Vec<Hook> {
        lock(&self.0)
            .iter()
            .filter(|h| h.output == k)
            .cloned()
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        lock(&self.0).is_empty()
    }
}
