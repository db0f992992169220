//! Backward hooks, as PyTorch's: `t.register_hook(f)` runs `f(grad)` when
//! `t`'s gradient has been computed, before it is used (a non-leaf's before
//! its node runs, a leaf's before `AccumulateGrad` adds it to `.grad`), and
//! `f` may give a gradient to use instead; `p.register_post_accumulate_grad_hook(f)`
//! runs `f(p)` once `p.grad` is final. Each registration gives a handle
//! whose `remove()` takes the hook off. The engine calls hooks through
//! [`Host`], which the interpreter implements (hooks are its functions).

use std::sync::{Arc, Weak};

pub use super::hook_list::{Hook, HookFn, Hooks};
use super::node::{GradCell, Node};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::Tensor;

/// Where a hook was registered: the weak link its handle removes it through.
enum Place {
    /// A non-leaf tensor's: the node that made it.
    Node(Weak<Node>),
    /// A leaf's `register_hook`.
    Leaf(Weak<GradCell>),
    /// A leaf's `register_post_accumulate_grad_hook`.
    LeafPost(Weak<GradCell>),
    /// A list of its own (a module's forward hooks).
    List(Weak<Hooks>),
    /// A node's own: `grad_fn.register_prehook` (true) or `register_hook`.
    NodeOwn(Weak<Node>, bool),
}

/// What `register_hook` returns (PyTorch's `RemovableHandle`).
pub struct Handle {
    place: Place,
    id: u64,
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<RemovableHandle {}>", self.id)
    }
}

impl Handle {
    /// Takes the hook off; nothing when it is off already or its graph is gone.
    pub fn remove(&self) {
        match &self.place {
            Place::Node(n) => {
                if let Some(n) = n.upgrade() {
                    n.hooks.remove(self.id);
                }
            }
            Place::Leaf(c) => {
                if let Some(c) = c.upgrade() {
                    c.pre.remove(self.id);
                }
            }
            Place::LeafPost(c) => {
                if let Some(c) = c.upgrade() {
                    c.post.remove(self.id);
                }
            }
            Place::List(l) => {
                if let Some(l) = l.upgrade() {
                    l.remove(self.id);
                }
            }
            Place::NodeOwn(n, pre) => {
                if let Some(n) = n.upgrade() {
                    match pre {
                        true => n.pre_hooks.remove(self.id),
                        false => n.post_hooks.remove(self.id),
                    }
                }
            }
        }
    }
}

/// `f` added to a list of hooks of its own (a module's forward hooks),
/// with the handle that takes it off.
pub fn register_in(hooks: &Arc<Hooks>, f: HookFn) -> Handle {
    Handle {
        id: hooks.add(f, None, 0),
        place: Place::List(Arc::downgrade(hooks)),
    }
}

/// `grad_fn.register_prehook(f)` (`pre`) or `grad_fn.register_hook(f)`:
/// a hook of the node itself, PyTorch's `Node` pre- and post-hooks.
pub fn register_on_node(node: &Arc<Node>, f: HookFn, pre: bool) -> Handle {
    let hooks = match pre {
        true => &node.pre_hooks,
        false => &node.post_hooks,
    };
    Handle {
        id: hooks.add(f, None, 0),
        place: Place::NodeOwn(Arc::downgrade(node), pre),
    }
}

/// Gradients, one per output or input of a node (none: undefined).
pub type Grads = Vec<Option<Arc<Tensor>>>;

/// A node's pre-hooks on its outputs' gradients, each on what the one
/// before gave.
pub fn run_node_prehooks(
    h: &mut dyn Host,
    node: &Node,
    mut grads: Grads,
    mode: super::Mode,
) -> Result<Grads, Error> {
    for hook in node.pre_hooks.list() {
        if let Some(new) = h.node_hook(&hook.f, None, &grads, mode)? {
            grads = new;
        }
    }
    Ok(grads)
}

/// A node's post-hooks on the gradients it computed for its inputs (and
/// the gradients of its outputs it computed them from).
pub fn run_node_posthooks(
    h: &mut dyn Host,
    node: &Node,
    mut computed: Grads,
    grad_outputs: &[Option<Arc<Tensor>>],
    mode: super::Mode,
) -> Result<Grads, Error> {
    for hook in node.post_hooks.list() {
        if let Some(new) = h.node_hook(&hook.f, Some(&computed), grad_outputs, mode)? {
            computed = new;
        }
    }
    Ok(computed)
}

/// `t.register_hook(f)`: on the node that made `t`, or on the leaf's cell.
pub fn register(t: &Tensor, f: HookFn) -> Result<Handle, Error> {
    let m = super::meta::meta(t)
        .filter(|m| m.requires_grad())
        .ok_or_else(|| Error::Autograd {
            message: "cannot register a hook on a tensor that doesn't require gradient".into(),
            help: "hooks see gradients: make the tensor require grad (`requires_grad=true`), \
                   or register the hook on one computed from tensors that do"
                .into(),
        })?;
    Ok(match m.grad_fn() {
        Some((node, k)) => Handle {
            id: node.hooks.add(f, None, k),
            place: Place::Node(Arc::downgrade(&node)),
        },
        None => {
            let cell = m.grad_cell();
            Handle {
                id: cell.pre.add(f, None, 0),
                place: Place::Leaf(Arc::downgrade(cell)),
            }
        }
    })
}

/// `p.register_post_accumulate_grad_hook(f)`: leaves only, as PyTorch.
pub fn register_post_accumulate(p: &Arc<Tensor>, f: HookFn) -> Result<Handle, Error> {
    let m = super::meta::meta(p)
        .filter(|m| m.requires_grad())
        .ok_or_else(|| Error::Autograd {
            message: "cannot register a hook on a tensor that doesn't require gradient".into(),
            help: "the hook runs when the parameter's `.grad` is final: make it require grad"
                .into(),
        })?;
    if m.grad_fn().is_some() {
        return Err(Error::Autograd {
            message: "post accumulate grad hooks cannot be registered on non-leaf tensors".into(),
            help:
                "a non-leaf has no `.grad` to accumulate: use `register_hook` to see its gradient"
                    .into(),
        });
    }
    let cell = m.grad_cell();
    Ok(Handle {
        id: cell.post.add(f, Some(Arc::downgrade(p)), 0),
        place: Place::LeafPost(Arc::downgrade(cell)),
    })
}

/// What a native post-accumulate hook runs.
type NativeFn =
    dyn Fn(&mut dyn Host, &Arc<Tensor>) -> Result<(), crate::error::Error> + Send + Sync;

/// A post-accumulate hook of the runtime's own (DDP's reducer): called
/// with the backward's host, not through the interpreter.
pub struct NativePostHook(Box<NativeFn>);

impl NativePostHook {
    pub fn new(
        f: impl Fn(&mut dyn Host, &Arc<Tensor>) -> Result<(), crate::error::Error>
            + Send
            + Sync
            + 'static,
    ) -> NativePostHook {
        NativePostHook(Box::new(f))
    }

    pub fn call(&self, h: &mut dyn Host, p: &Arc<Tensor>) -> Result<(), crate::error::Error> {
        (self.0)(h, p)
    }
}

/// A hook of the runtime's own on `p`, run once `p.grad` is final (DDP's
/// reducer's, PyTorch's post hook on the gradient accumulator).
pub fn register_native_post_accumulate(
    p: &Arc<Tensor>,
    hook: NativePostHook,
) -> Result<Handle, Error> {
    register_post_accumulate(p, Arc::new(hook))
}

/// What the engine asks of whoever runs backward: the runtime, and calls
/// of the hooks' functions.
pub trait Host {
    fn runtime(&mut self) -> &mut Runtime;

    /// `f(grad)`: a gradient to use instead (checked by [`check_result`]),
    /// or None to keep `grad`; its ops recorded when `mode` is on (a
    /// backward that creates a graph). An error raised in the hook's body
    /// comes back as `Error::Located`, where it was raised.
    fn tensor_hook(
        &mut self,
        f: &HookFn,
        grad: &Arc<Tensor>,
        mode: super::Mode,
    ) -> Result<Option<Arc<Tensor>>, Error>;

    /// `f(param)`, once `param.grad` is final.
    fn post_accumulate_hook(&mut self, f: &HookFn, param: &Arc<Tensor>) -> Result<(), Error>;

    /// A node's own hook: `f(grad_outputs)` before it runs (`grad_inputs`
    /// none), or `f(grad_inputs, grad_outputs)` after; new gradients (as
    /// many as it was given) or None to keep them. Whoever runs backward
    /// without the program's functions calls none.
    fn node_hook(
        &mut self,
        _f: &HookFn,
        _grad_inputs: Option<&[Option<Arc<Tensor>>]>,
        _grad_outputs: &[Option<Arc<Tensor>>],
        _mode: super::Mode,
    ) -> Result<Option<Grads>, Error> {
        Ok(None)
    }

    /// `f()`, a final callback (`callbacks.rs`), once backward's last node ran.
    fn final_callback(&mut self, f: &HookFn) -> Result<(), Error>;

    /// A warning for the program (anomaly detection's traceback of a node
    /// that failed); whoever runs backward without a program shows none.
    fn warn(&mut self, _message: String) {}

    /// A program's `torch.autograd.Function` backward: the gradient of
    /// each input of the node from the gradients of its outputs, its ops
    /// recorded when `mode` is on (a backward that creates a graph).
    fn custom_backward(
        &mut self,
        f: &HookFn,
        grads: &[Option<Arc<Tensor>>],
        node: (&Arc<super::node::Node>, super::Mode),
    ) -> Result<Vec<Option<Arc<Tensor>>>, Error>;

    /// The program's `unpack` hook on what its `pack` hook made of a
    /// saved tensor (`saved_hooks.rs`): the tensor for the node's formula.
    fn unpack_saved(
        &mut self,
        cell: &super::saved_hooks::PackCell,
        mode: super::Mode,
    ) -> Result<Arc<Tensor>, Error>;
}

/// Backward with no hooks to call: the runtime alone (a backward the
/// runtime's own features run).
impl Host for Runtime {
    fn runtime(&mut self) -> &mut Runtime {
        self
    }

    fn tensor_hook(
        &mut self,
        _: &HookFn,
        _: &Arc<Tensor>,
        _: super::Mode,
    ) -> Result<Option<Arc<Tensor>>, Error> {
        Ok(None)
    }

    fn post_accumulate_hook(&mut self, _: &HookFn, _: &Arc<Tensor>) -> Result<(), Error> {
        Ok(())
    }

    fn final_callback(&mut self, _: &HookFn) -> Result<(), Error> {
        Ok(())
    }

    fn custom_backward(
        &mut self,
        _: &HookFn,
        _: &[Option<Arc<Tensor>>],
        _: (&Arc<super::node::Node>, super::Mode),
    ) -> Result<Vec<Option<Arc<Tensor>>>, Error> {
        Err(Error::Autograd {
            message:
                "a torch.autograd.Function of the program's runs its backward in the interpreter"
                    .into(),
            help: "call backward() from the program".into(),
        })
    }

    fn unpack_saved(
        &mut self,
        _: &super::saved_hooks::PackCell,
        _: super::Mode,
    ) -> Result<Arc<Tensor>, Error> {
        Err(Error::Autograd {
            message: "a tensor saved under the program's saved_tensors_hooks is unpacked by the \
                      program's unpack hook"
                .into(),
            help: "call backward() from the program".into(),
        })
    }
}

/// Runs the hooks on output `k` (0 at a leaf) on `grad` in order, each
/// on what the one before gave.
pub fn run_tensor_hooks(
    h: &mut dyn Host,
    (hooks, k): (&Hooks, usize),
    grad: Arc<Tensor>,
    mode: super::Mode,
) -> Result<Arc<Tensor>, Error> {
    let mut grad = grad;
    for hook in hooks.on(k) {
        if let Some(g) = h.tensor_hook(&hook.f, &grad, mode)? {
            grad = g;
        }
    }
    Ok(grad)
}

/// Runs a leaf's post-accumulate hooks (their parameters still alive).
pub fn run_post_hooks(h: &mut dyn Host, cell: &GradCell) -> Result<(), Error> {
    for hook in cell.post.list() {
        if let Some(p) = hook.param.as_ref().and_then(Weak::upgrade) {
            match hook.f.downcast_ref::<NativePostHook>() {
                Some(native) => native.call(h, &p)?,
                None => h.post_accumulate_hook(&hook.f, &p)?,
            }
        }
    }
    Ok(())
}

/// PyTorch's check of what a hook named `name` gave for `original`
/// (`check_variable_result`): the same type, device kind and size, in
/// PyTorch 2.15's words (checked).
pub fn check_result(original: &Tensor, result: &Tensor, name: &str) -> Result<(), Error> {
    let message = if original.dtype() != result.dtype()
        || original.device().is_cuda() != result.device().is_cuda()
    {
        format!(
            "hook '{name}' has changed the type of value (was {} got {})",
            original.dtype().torch_type(original.device().is_cuda()),
            result.dtype().torch_type(result.device().is_cuda())
        )
    } else if original.shape() != result.shape() {
        format!("hook '{name}' has changed the size of value")
    } else if original.device() != result.device() {
        // The engine's own check of each gradient (`validate_outputs`).
        format!(
            "invalid gradient at index 0 - expected device {} but got {}",
            original.device(),
            result.device()
        )
    } else {
        return Ok(());
    };
    Err(Error::Autograd {
        message,
        help: "a hook returns none (keep the gradient) or a tensor of the gradient's shape, \
               dtype and device"
            .into(),
    })
}
