//! Hooks for saved tensors (PyTorch's `torch.autograd.graph.saved_tensors_hooks`):
//! while a pair of hooks is in force on this thread, every tensor a node
//! saves for backward is given to the program's `pack` hook, and the node
//! keeps only what `pack` returned (so `save_on_cpu` can move activations
//! off the GPU); backward gives that to `unpack` to get the tensor back.
//!
//! The hooks are the program's functions, and an op runs below the
//! interpreter, so a node made under hooks does not call `pack` itself:
//! each saved tensor waits here ([`pending`]) until the interpreter, right
//! after the op returns and before anything else runs, packs them in the
//! order they were saved (`eval/saved_tensors.rs`). Backward asks its host
//! to unpack a node's tensors just before the node runs (`engine.rs`).
//! The pairs form a stack per thread, innermost in force, as PyTorch's.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::hook_list::HookFn;
use crate::error::Error;
use crate::runtime::lock::lock;
use crate::runtime::Tensor;

/// A `pack` hook and its `unpack` hook, as the interpreter keeps them.
#[derive(Clone)]
pub struct Pair {
    pub pack: HookFn,
    pub unpack: HookFn,
}

thread_local! {
    /// The pairs pushed by `saved_tensors_hooks.__enter__`, innermost last.
    static STACK: RefCell<Vec<Pair>> = const { RefCell::new(Vec::new()) };
    /// `disable_saved_tensors_hooks(message)`: pushing a pair is refused
    /// with this message.
    static DISABLED: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Saved tensors made since the interpreter last packed.
    static PENDING: RefCell<Vec<Arc<PackCell>>> = const { RefCell::new(Vec::new()) };
    static ANY_PENDING: Cell<bool> = const { Cell::new(false) };
    /// An inference tensor was saved since the interpreter last packed:
    /// the op that saved it raises (PyTorch's refusal, made at the same
    /// point as a pack hook's error).
    static INFERENCE_SAVED: Cell<bool> = const { Cell::new(false) };
}

/// A node saved an inference tensor (`runtime::inference`): the
/// interpreter makes the op raise when it returns.
pub(super) fn inference_saved() {
    INFERENCE_SAVED.with(|c| c.set(true));
    ANY_PENDING.with(|a| a.set(true));
}

/// Whether an inference tensor was saved since last asked (asking clears it).
pub fn take_inference_saved() -> bool {
    INFERENCE_SAVED.with(|c| c.replace(false))
}

/// PyTorch's refusal to save an inference tensor for backward, in its words.
pub fn inference_saved_refused() -> Error {
    Error::Module {
        class: "RuntimeError",
        message: "Inference tensors cannot be saved for backward. Please do not use Tensors \
                  created in inference mode in computation tracked by autograd. To work around \
                  this, you can make a clone to get a normal tensor and use it in autograd, or \
                  use `torch.no_grad()` instead of `torch.inference_mode()`."
            .into(),
        help: Some(
            "a tensor made under `torch.inference_mode()` cannot join a graph later: make it \
             under `torch.no_grad()`, or use `x.clone()` of it"
                .into(),
        ),
    }
}

/// `saved_tensors_hooks(pack, unpack).__enter__()`; refused while
/// `disable_saved_tensors_hooks` is in force (PyTorch's RuntimeError with
/// the disabling message).
pub fn push(pair: Pair) -> Result<(), Error> {
    if let Some(message) = DISABLED.with(|d| d.borrow().clone()) {
        return Err(Error::Module {
            class: "RuntimeError",
            message,
            help: None,
        });
    }
    STACK.with(|s| s.borrow_mut().push(pair));
    Ok(())
}

/// `__exit__`: the pair pushed last goes.
pub fn pop() {
    STACK.with(|s| s.borrow_mut().pop());
}

/// `disable_saved_tensors_hooks(message)` (None: enabled again); gives
/// the message it replaces, to restore on exit.
pub fn set_disabled(message: Option<String>) -> Option<String> {
    DISABLED.with(|d| std::mem::replace(&mut *d.borrow_mut(), message))
}

/// The pair in force, if any.
fn current() -> Option<Pair> {
    STACK.with(|s| s.borrow().last().cloned())
}

/// `tensor` saved under the pair in force, queued for the interpreter to
/// pack (a custom Function's `ctx.save_for_backward`, which PyTorch packs
/// as any node's saved variable); None without hooks.
pub fn queue_saved(tensor: Arc<Tensor>) -> Option<Arc<PackCell>> {
    current().map(|pair| PackCell::queue(tensor, None, pair))
}

/// Whether saved tensors wait to be packed (cheap: the interpreter asks
/// after every call).
pub fn has_pending() -> bool {
    ANY_PENDING.with(Cell::get)
}

/// The saved tensors waiting to be packed, in the order they were saved.
pub fn take_pending() -> Vec<Arc<PackCell>> {
    ANY_PENDING.with(|a| a.set(false));
    PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// One saved tensor under hooks, shared by its node and the pending list.
pub struct PackCell {
    /// The order tensors were saved in (PyTorch unpacks in that order too).
    pub sequence: u64,
    state: Mutex<State>,
    /// What `unpack` gave, while the node's backward runs.
    unpacked: Mutex<Option<Arc<Tensor>>>,
}

enum State {
    /// Saved, not yet packed: the tensor as the program knows it (an
    /// input's record shared; a node's own output found through `output`
    /// once the op has given it its `grad_fn`).
    ToPack {
        tensor: Arc<Tensor>,
        output: Option<Weak<Tensor>>,
        pair: Pair,
    },
    /// What `pack` returned, and the `unpack` that reads it.
    Packed { value: HookFn, unpack: HookFn },
    /// The pack hook failed: the op that saved it raised.
    Failed,
}

impl PackCell {
    /// A tensor saved under `pair`, queued for the interpreter to pack.
    pub(super) fn queue(
        tensor: Arc<Tensor>,
        output: Option<Weak<Tensor>>,
        pair: Pair,
    ) -> Arc<Self> {
        let cell = Arc::new(PackCell {
            sequence: SEQUENCE.fetch_add(1, Ordering::Relaxed),
            state: Mutex::new(State::ToPack {
                tensor,
                output,
                pair,
            }),
            unpacked: Mutex::new(None),
        });
        PENDING.with(|p| p.borrow_mut().push(Arc::clone(&cell)));
        ANY_PENDING.with(|a| a.set(true));
        cell
    }

    /// The pair in force for a tensor about to be saved, if any.
    pub(super) fn hooks_now() -> Option<Pair> {
        current()
    }

    /// What to give `pack`, and `pack` itself (None once packed).
    pub fn to_pack(&self) -> Option<(Arc<Tensor>, HookFn)> {
        match &*lock(&self.state) {
            State::ToPack {
                tensor,
                output,
                pair,
            } => {
                let t = output
                    .as_ref()
                    .and_then(Weak::upgrade)
                    .unwrap_or_else(|| Arc::clone(tensor));
                Some((t, Arc::clone(&pair.pack)))
            }
            _ => None,
        }
    }

    /// `pack` returned `value`: the tensor itself is no longer held here.
    pub fn packed(&self, value: HookFn) {
        let mut state = lock(&self.state);
        if let State::ToPack { pair, .. } = &*state {
            let unpack = Arc::clone(&pair.unpack);
            *state = State::Packed { value, unpack };
        }
    }

    /// `pack` raised.
    pub fn failed(&self) {
        *lock(&self.state) = State::Failed;
    }

    /// What `unpack` is called with, and `unpack`.
    pub fn to_unpack(&self) -> Result<(HookFn, HookFn), Error> {
        match &*lock(&self.state) {
            State::Packed { value, unpack } => Ok((Arc::clone(value), Arc::clone(unpack))),
            State::ToPack { .. } => Err(Error::Autograd {
                message: "a saved tensor has not been packed yet".into(),
                help: "internal: the interpreter packs saved tensors right after each op".into(),
            }),
            State::Failed => Err(Error::Autograd {
                message: "a saved tensor's pack hook raised an error, so it holds nothing".into(),
                help: "compute the result again once the pack hook works".into(),
            }),
        }
    }

    /// The tensor `unpack` gave, for the node's backward.
    pub fn set_unpacked(&self, t: Option<Arc<Tensor>>) {
        *lock(&self.unpacked) = t;
    }

    pub fn unpacked(&self) -> Option<Arc<Tensor>> {
        lock(&self.unpacked).clone()
    }
}
