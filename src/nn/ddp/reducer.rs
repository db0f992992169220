//! DDP's reducer, as PyTorch's (`torch/csrc/distributed/c10d/reducer.cpp`,
//! default options: `gradient_as_bucket_view=false`, no comm hook):
//!
//! - each bucket is one flat buffer on the parameters' device, allocated
//!   when the buckets are laid out (memory `mem` shows beside the
//!   gradients);
//! - a parameter's hook runs once its `.grad` is final (autograd's
//!   post-accumulate hook): the gradient is copied into its place in the
//!   bucket and divided by the world size there; when a bucket's last
//!   gradient is in, it is all-reduced (a sum, on the rank's `nccl` stream,
//!   while backward goes on), buckets strictly in order;
//! - once every bucket is launched, a callback at the end of backward
//!   makes the current stream wait for each all-reduce and copies the
//!   averages back into `.grad`, so `backward()` returns with them reduced;
//! - a backward that leaves a parameter without a gradient (with
//!   `find_unused_parameters=false`) never finishes its reduction: the next
//!   forward raises PyTorch's error, naming the parameters;
//! - after the first backward the buckets are laid out again in the order
//!   the gradients became ready (`buckets.rs`).

use std::sync::{Arc, Mutex, Weak};

use super::buckets::{self, Slot};
use crate::autograd::callbacks::{self, Callback};
use crate::autograd::hooks::Host;
use crate::autograd::meta;
use crate::autograd::node::GraphFn;
use crate::error::Error;
use crate::runtime::dispatch::world::Collective;
use crate::runtime::dispatch::Runtime;
use crate::runtime::event::Event;
use crate::runtime::lock::lock;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Fill, NewTensor};
use crate::runtime::op::{index, view};
use crate::runtime::Tensor;

/// One bucket: which parameters, where each lies in the flat buffer.
pub struct Bucket {
    pub params: Vec<usize>,
    offsets: Vec<usize>,
    flat: Arc<Tensor>,
    pending: usize,
    /// The all-reduce launched for it this iteration.
    work: Option<Arc<Event>>,
}

impl Bucket {
    pub fn bytes(&self) -> usize {
        self.flat.nbytes()
    }
}

/// The reducer of one `DistributedDataParallel`.
pub struct Reducer {
    pub params: Vec<Arc<Tensor>>,
    /// Each parameter's name in the wrapped module (`fc1.weight`).
    pub names: Vec<String>,
    pub world_size: usize,
    pub rank: usize,
    pub buckets: Vec<Bucket>,
    /// Each parameter's bucket and place in it.
    locate: Vec<(usize, usize)>,
    next_bucket: usize,
    ready: Vec<bool>,
    /// Hooks do their work (a backward after a forward with grad sync).
    expect_hooks: bool,
    /// A reduction started and has not finished.
    pub require_finalize: bool,
    /// Off inside `no_sync`: gradients accumulate locally.
    pub sync: bool,
    pub find_unused: bool,
    /// Parameters the last forward's graph does not reach.
    unused: Vec<usize>,
    marked_unused: bool,
    caps: (usize, usize),
    /// The order gradients became ready in the first backward.
    rebuilt: Vec<usize>,
    pub has_rebuilt: bool,
    /// Buckets all-reduced so far.
    pub buckets_reduced: u64,
}

/// The reducer shared by the module and its hooks.
pub type ReducerRef = Arc<Mutex<Reducer>>;

/// The reducer as the module's layer holds it (the same one is equal).
#[derive(Clone)]
pub struct Shared(pub ReducerRef);

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Reducer")
    }
}

impl Reducer {
    /// A reducer over `params` (named `names`) with its buckets laid out
    /// and allocated, and its hooks on the parameters.
    pub fn new(
        rt: &mut Runtime,
        (params, names): (Vec<Arc<Tensor>>, Vec<String>),
        (rank, world_size): (usize, usize),
        find_unused: bool,
        caps: (usize, usize),
    ) -> Result<ReducerRef, Error> {
        let slots = slots(&params);
        let layout = buckets::initial(&slots, find_unused, caps);
        let n = params.len();
        let mut r = Reducer {
            params,
            names,
            world_size,
            rank,
            buckets: Vec::new(),
            locate: vec![(0, 0); n],
            next_bucket: 0,
            ready: vec![false; n],
            expect_hooks: false,
            require_finalize: false,
            sync: true,
            find_unused,
            unused: Vec::new(),
            marked_unused: false,
            caps,
            rebuilt: Vec::new(),
            has_rebuilt: false,
            buckets_reduced: 0,
        };
        r.lay_out(rt, &layout)?;
        let reducer = Arc::new(Mutex::new(r));
        let params = lock(&reducer).params.clone();
        for (i, p) in params.iter().enumerate() {
            let weak = Arc::downgrade(&reducer);
            let hook =
                crate::autograd::hooks::NativePostHook::new(move |h, _| match weak.upgrade() {
                    Some(r) => autograd_hook(&r, h.runtime(), i),
                    None => Ok(()),
                });
            crate::autograd::hooks::register_native_post_accumulate(p, hook)?;
        }
        Ok(reducer)
    }

    /// Allocates the buckets of `layout`.
    fn lay_out(&mut self, rt: &mut Runtime, layout: &[(Vec<usize>, usize)]) -> Result<(), Error> {
        // The old buffers go first, as PyTorch's `initialize_buckets`
        // replaces them.
        self.buckets.clear();
        for (b, (params, _)) in layout.iter().enumerate() {
            let mut offsets = Vec::with_capacity(params.len());
            let mut numel = 0;
            for (k, &i) in params.iter().enumerate() {
                offsets.push(numel);
                numel += self.params[i].numel();
                self.locate[i] = (b, k);
            }
            let first = &self.params[params[0]];
            let flat = rt.empty(NewTensor {
                shape: &[numel],
                dtype: first.dtype(),
                device: first.device(),
                like: None,
            })?;
            self.buckets.push(Bucket {
                params: params.clone(),
                offsets,
                flat,
                pending: params.len(),
                work: None,
            });
        }
        Ok(())
    }

    /// Parameter `i`'s place in its bucket, shaped as the parameter.
    fn view(&self, i: usize) -> Result<Tensor, Error> {
        let (b, k) = self.locate[i];
        let bucket = &self.buckets[b];
        let p = &self.params[i];
        let part = index::narrow(&bucket.flat, 0, bucket.offsets[k], p.numel())?;
        let dims: Vec<i64> = p.shape().iter().map(|&d| d as i64).collect();
        view::view(&part, &dims)
    }

    /// Before a forward with gradients: PyTorch's check that the last
    /// reduction finished, then the buckets laid out again in the order
    /// the first backward made the gradients ready.
    pub fn before_forward(&mut self, rt: &mut Runtime) -> Result<(), Error> {
        if self.require_finalize {
            return Err(self.unfinished());
        }
        let should_rebuild = !self.find_unused && !self.has_rebuilt;
        if should_rebuild && self.rebuilt.len() == self.params.len() {
            let order = std::mem::take(&mut self.rebuilt);
            let layout = buckets::rebuilt(&slots(&self.params), &order, self.caps);
            self.lay_out(rt, &layout)?;
            self.has_rebuilt = true;
        }
        Ok(())
    }

    /// After a forward with gradients: the hooks of the coming backward
    /// reduce; with `find_unused`, the parameters `outputs` do not reach
    /// are known now.
    pub fn prepare_for_backward(&mut self, outputs: &[Arc<Tensor>]) {
        if !self.sync {
            self.expect_hooks = false;
            return;
        }
        self.expect_hooks = true;
        self.require_finalize = true;
        self.next_bucket = 0;
        self.ready.iter_mut().for_each(|r| *r = false);
        for b in &mut self.buckets {
            b.pending = b.params.len();
            b.work = None;
        }
        self.marked_unused = false;
        self.unused.clear();
        if self.find_unused {
            let reached = reached_leaves(outputs);
            self.unused = (0..self.params.len())
                .filter(|&i| {
                    let cell = meta::meta(&self.params[i]).map(|m| Arc::as_ptr(m.grad_cell()));
                    !cell.is_some_and(|c| reached.contains(&(c as usize)))
                })
                .collect();
        }
    }

    /// PyTorch's error at a forward whose previous backward did not
    /// reduce every parameter (`TORCH_DISTRIBUTED_DEBUG=INFO`'s text).
    fn unfinished(&self) -> Error {
        let missing: Vec<usize> = (0..self.params.len()).filter(|&i| !self.ready[i]).collect();
        let mut names: Vec<&str> = missing.iter().map(|&i| self.names[i].as_str()).collect();
        names.sort_unstable();
        let indices: Vec<String> = missing.iter().map(|i| i.to_string()).collect();
        Error::Module {
            class: "RuntimeError",
            message: format!(
                "Expected to have finished reduction in the prior iteration before starting a new \
                 one. This error indicates that your module has parameters that were not used in \
                 producing loss. You can enable unused parameter detection by passing the keyword \
                 argument `find_unused_parameters=True` to \
                 `torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` \
                 function outputs participate in calculating loss. \nIf you already have done the \
                 above, then the distributed data parallel module wasn't able to locate the output \
                 tensors in the return value of your module's `forward` function. Please include \
                 the loss function and the structure of the return value of `forward` of your \
                 module when reporting this issue (e.g. list, dict, iterable).\nParameters which \
                 did not receive grad for rank {rank}: {names}\nParameter indices which did not \
                 receive grad for rank {rank}: {indices}",
                rank = self.rank,
                names = names.join(", "),
                indices = indices.join(" "),
            ),
            help: Some(
                "every parameter must take part in the loss, or DDP waits for its gradient: \
                 pass `find_unused_parameters=true` when some do not (it costs a walk of the \
                 graph each iteration)"
                    .into(),
            ),
        }
    }
}

/// The hook of parameter `i`: its gradient into the bucket.
fn autograd_hook(reducer: &ReducerRef, rt: &mut Runtime, i: usize) -> Result<(), Error> {
    let mut r = lock(reducer);
    if !r.expect_hooks || r.ready[i] {
        return Ok(());
    }
    if !r.find_unused && !r.has_rebuilt {
        r.rebuilt.push(i);
    }
    if r.find_unused && !r.marked_unused {
        r.marked_unused = true;
        let unused = r.unused.clone();
        if unused.is_empty() && r.buckets_reduced == 0 {
            rt.note(
                "find_unused_parameters=True was specified in DDP constructor, but did not find \
                 any unused parameters in the forward pass. This flag results in an extra \
                 traversal of the autograd graph every iteration, which can adversely affect \
                 performance."
                    .into(),
            );
        }
        for u in unused {
            mark_ready(&mut r, reducer, rt, u)?;
        }
    }
    mark_ready(&mut r, reducer, rt, i)
}

/// Parameter `i`'s gradient (zeros when it has none) into its place,
/// divided by the world size; its bucket all-reduced once full.
fn mark_ready(
    r: &mut Reducer,
    reducer: &ReducerRef,
    rt: &mut Runtime,
    i: usize,
) -> Result<(), Error> {
    if r.ready[i] {
        return Ok(());
    }
    r.ready[i] = true;
    let place = r.view(i)?;
    match meta::meta(&r.params[i]).and_then(|m| m.grad()) {
        Some(g) => {
            rt.assign(&place, &g)?;
            let k = Tensor::scalar(1.0 / r.world_size as f64);
            rt.binary_(BinaryOp::Mul, &place, Operand::weak(&k))?;
        }
        None => rt.fill(&place, Fill::Float(0.0))?,
    }
    let (b, _) = r.locate[i];
    r.buckets[b].pending -= 1;
    while r.next_bucket < r.buckets.len() && r.buckets[r.next_bucket].pending == 0 {
        let n = r.next_bucket;
        let flat = Arc::clone(&r.buckets[n].flat);
        let op = Collective::AllReduce(crate::runtime::dispatch::collective::RedOp::Sum);
        r.buckets[n].work = rt.collective(op, Some(&flat), &[], true, None)?;
        r.next_bucket += 1;
    }
    if r.next_bucket == r.buckets.len() {
        let weak: Weak<Mutex<Reducer>> = Arc::downgrade(reducer);
        callbacks::queue(Callback::Native(Box::new(
            move |h: &mut dyn Host| match weak.upgrade() {
                Some(r) => finalize(&mut lock(&r), h.runtime()),
                None => Ok(()),
            },
        )))?;
    }
    Ok(())
}

/// The end of backward: every all-reduce waited for (by the current
/// stream) and its averages copied back into `.grad`.
fn finalize(r: &mut Reducer, rt: &mut Runtime) -> Result<(), Error> {
    for b in 0..r.buckets.len() {
        if let Some(e) = r.buckets[b].work.take() {
            if let crate::runtime::Device::Cuda(d) = r.buckets[b].flat.device() {
                rt.wait_event(rt.stream_on(d), &e)?;
            }
        }
        for k in 0..r.buckets[b].params.len() {
            let i = r.buckets[b].params[k];
            let place = r.view(i)?;
            let Some(m) = meta::meta(&r.params[i]) else {
                continue;
            };
            // A parameter without a gradient (unused, with
            // `find_unused_parameters`) keeps none.
            if let Some(g) = m.grad() {
                rt.assign(&g, &place)?;
            }
        }
    }
    r.buckets_reduced += r.buckets.len() as u64;
    r.expect_hooks = false;
    r.require_finalize = false;
    Ok(())
}

/// The size, dtype and device of each parameter.
fn slots(params: &[Arc<Tensor>]) -> Vec<Slot> {
    params
        .iter()
        .map(|p| Slot {
            bytes: p.nbytes(),
            dtype: p.dtype(),
            device: p.device(),
        })
        .collect()
}

/// The leaves (their gradient cells' addresses) the graphs of `outputs`
/// reach: the parameters a forward used.
fn reached_leaves(outputs: &[Arc<Tensor>]) -> std::collections::HashSet<usize> {
    let mut leaves = std::collections::HashSet::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<GraphFn> = Vec::new();
    for t in outputs {
        let Some(m) = meta::meta(t) else { continue };
        match m.grad_fn() {
            Some((node, _)) => stack.push(GraphFn::Node(node)),
            None if m.requires_grad() => {
                leaves.insert(Arc::as_ptr(m.grad_cell()) as usize);
            }
            None => {}
        }
    }
    while let Some(f) = stack.pop() {
        match &f {
            GraphFn::Accumulate(cell) => {
                leaves.insert(Arc::as_ptr(cell) as usize);
            }
            GraphFn::Node(n) => {
                if !seen.insert(Arc::as_ptr(n) as usize) {
                    continue;
                }
                for (next, _) in f.next_functions() {
                    if let Some(next) = next {
                        stack.push(next);
                    }
                }
            }
        }
    }
    leaves
}
