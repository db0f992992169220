//! `loss.backward()`: the graph behind a tensor walked from it to the
//! leaves, each node run once every gradient of its output has arrived
//! (newest node first among the ready ones, as PyTorch's engine orders
//! them), each input's gradient given the input's shape, dtype and
//! device, and added to the `.grad` of the leaves. Without `retain_graph`
//! a node frees what it saved as soon as it has run, before its gradients
//! are handed on (PyTorch's `release_variables`), so memory falls during
//! backward; a backward that fails half-way leaves the nodes that ran
//! freed, and a second one through them is PyTorch's error. With
//! `create_graph` the formulas, the sums of arriving gradients and
//! `.grad`'s accumulation are recorded (`create_graph.rs`), so the
//! gradients can be differentiated again.

use std::collections::BinaryHeap;
use std::sync::Arc;

use smallvec::SmallVec;

use super::callbacks::Open;
use super::create_graph;
use super::hooks::{self, Host};
use super::meta::{meta, requires_grad};
use super::node::{Edge, GradCell, InputMeta, Node};
use super::ops::full_like;
use super::saved_hooks::PackCell;
use super::Mode;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::lock::lock;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::shape::fmt_shape;
use crate::runtime::stream::StreamKey;
use crate::runtime::{Device, Tensor};

type R<T> = Result<T, Error>;

/// The engine's tables, keyed by pointers: foldhash, as the interpreter's.
type Map<K, V> = foldhash::HashMap<K, V>;
type Set<K> = foldhash::HashSet<K>;

fn key(n: &Arc<Node>) -> usize {
    Arc::as_ptr(n) as usize
}

/// The key of a node's output `k` (for `grad`'s inputs): a node is far
/// larger than its outputs are many, so keys never collide.
fn output_key(n: &Arc<Node>, k: usize) -> usize {
    key(n) + k
}

/// The tensors the graphs behind `roots` keep for backward, each with the
/// node that saved it and the first root whose graph reaches that node:
/// one walk over all the graphs (a node shared by many roots is visited
/// once, so `mem` costs the graphs' size, not names × size).
pub fn saved_by(roots: &[&Tensor]) -> Vec<(usize, &'static str, Arc<Tensor>)> {
    let mut seen = Set::default();
    let mut out = Vec::new();
    for (k, root) in roots.iter().enumerate() {
        let Some((node, _)) = meta(root).and_then(|m| m.grad_fn()) else {
            continue;
        };
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if !seen.insert(key(&n)) {
                continue;
            }
            out.extend(n.saved_tensors().into_iter().map(|t| (k, n.name, t)));
            for e in &n.next {
                if let Edge::Node(next, _) = e {
                    stack.push(Arc::clone(next));
                }
            }
        }
    }
    out
}

/// What a backward keeps: the graph (`retain_graph`), and whether it
/// records its own ops (`create_graph`: the gradients have a `grad_fn`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Keep {
    pub retain_graph: bool,
    pub create_graph: bool,
}

impl Keep {
    /// The graph kept when asked, or (PyTorch's default) when a graph is created.
    pub fn new(retain_graph: Option<bool>, create_graph: bool) -> Keep {
        Keep {
            retain_graph: retain_graph.unwrap_or(create_graph),
            create_graph,
        }
    }

    /// The mode a node's formula runs in: recording only when a graph is
    /// created, and never under autocast (PyTorch's engine threads have none).
    fn mode(self) -> Mode {
        Mode {
            enabled: self.create_graph,
            ..Mode::off()
        }
    }
}

thread_local! {
    /// The backwards running on this thread, innermost last (a custom
    /// Function's backward may run another), and the last id given.
    static TASKS: std::cell::RefCell<(Vec<(i64, bool)>, i64)> =
        const { std::cell::RefCell::new((Vec::new(), 0)) };
}

/// The id of the backward running on this thread, -1 outside one
/// (PyTorch's `torch._C._current_graph_task_id()`): each `backward` or
/// `grad` call is a new graph task, so a hook can tell two backwards
/// through one graph apart (activation checkpointing recomputes once per
/// backward).
pub fn current_graph_task_id() -> i64 {
    TASKS.with(|t| t.borrow().0.last().map_or(-1, |&(id, _)| id))
}

/// Whether the running backward computes every leaf's gradient
/// (`torch.autograd._is_checkpoint_valid()`): false inside `grad(...)`,
/// which runs only the nodes on a path to its inputs, so a reentrant
/// checkpoint's inner backward would fill `.grad`s it must not.
pub fn is_checkpoint_valid() -> bool {
    TASKS.with(|t| t.borrow().0.last().is_none_or(|&(_, all)| all))
}

/// Marks the graph task of one `run` for its length.
struct GraphTask;

impl GraphTask {
    fn begin(every_leaf: bool) -> GraphTask {
        TASKS.with(|t| {
            let mut t = t.borrow_mut();
            t.1 += 1;
            let id = t.1;
            t.0.push((id, every_leaf));
        });
        GraphTask
    }
}

impl Drop for GraphTask {
    fn drop(&mut self) {
        TASKS.with(|t| t.borrow_mut().0.pop());
    }
}

/// Runs backward from `root` with `gradient` (ones for a one-element root
/// when none is given), adding into the `.grad` of the leaves.
pub fn backward(
    h: &mut dyn Host,
    root: &Arc<Tensor>,
    gradient: Option<Arc<Tensor>>,
    keep: Keep,
) -> R<()> {
    backward_many(h, std::slice::from_ref(root), vec![gradient], keep, None)
}

/// `autograd.backward(tensors, grad_tensors, inputs=...)`: one backward
/// from several roots at once (PyTorch's `GraphRoot`), each with its
/// gradient. Without `inputs` every leaf behind the roots gets its
/// gradient added to `.grad`; with them only those do (a non-leaf input
/// is made to `retain_grad()`, as PyTorch's does), and only the nodes on a
/// path to one of them run.
pub fn backward_many(
    h: &mut dyn Host,
    roots: &[Arc<Tensor>],
    gradients: Vec<Option<Arc<Tensor>>>,
    keep: Keep,
    inputs: Option<&[Arc<Tensor>]>,
) -> R<()> {
    let goal = match inputs {
        None => Goal::Every,
        Some(inputs) => Goal::Into(into_targets(inputs)?),
    };
    let starts = starts(h, roots, gradients, keep.mode())?;
    // The backward's formulas carry no forward-mode tangents (cudash has
    // no forward-over-reverse).
    super::forward_ad::suspended(|| run(h, starts, keep, goal)).map(|_| ())
}

/// The keys of `backward(inputs=...)`: each leaf's, each non-leaf's
/// output's, and each non-leaf's node (which must run so that its
/// output's gradient is retained).
fn into_targets(inputs: &[Arc<Tensor>]) -> R<Into> {
    let mut leaves = Set::default();
    let mut outputs = Set::default();
    let mut nodes = Set::default();
    for x in inputs {
        // PyTorch makes each input `retain_grad()` first, which refuses one
        // that does not require grad.
        let m = meta(x)
            .filter(|m| m.requires_grad())
            .ok_or_else(|| Error::Autograd {
                message: "can't retain_grad on Tensor that has requires_grad=False".into(),
                help: "every tensor of `inputs` must require grad".into(),
            })?;
        match m.grad_fn() {
            Some((node, k)) => {
                super::meta::retain_grad(m);
                outputs.insert(output_key(&node, k));
                nodes.insert(key(&node));
            }
            None => {
                leaves.insert(leaf_key(m.grad_cell()));
            }
        }
    }
    Ok(Into {
        leaves,
        outputs,
        nodes,
    })
}

fn not_differentiable() -> Error {
    Error::Autograd {
        message: "One of the differentiated Tensors does not require grad".into(),
        help: "every input must require grad (a leaf made with `requires_grad=true`, or a \
               tensor computed from one)"
            .into(),
    }
}

/// `autograd.grad(outputs, inputs, grad_outputs)`: the gradients of the
/// outputs with respect to `inputs`, leaving every `.grad` as it is. Only
/// the nodes on a path to an input run, as PyTorch's engine does; an input
/// the outputs do not depend on gets none with `allow_unused`, else
/// PyTorch's error.
pub fn grad(
    h: &mut dyn Host,
    (outputs, gradients): (&[Arc<Tensor>], Vec<Option<Arc<Tensor>>>),
    inputs: &[Arc<Tensor>],
    keep: Keep,
    allow_unused: bool,
) -> R<Vec<Option<Arc<Tensor>>>> {
    let mut targets = Map::default();
    for (i, x) in inputs.iter().enumerate() {
        let m = meta(x)
            .filter(|m| m.requires_grad())
            .ok_or_else(not_differentiable)?;
        let k = match m.grad_fn() {
            Some((node, out)) => output_key(&node, out),
            None => leaf_key(m.grad_cell()),
        };
        targets.entry(k).or_insert_with(Vec::new).push(i);
    }
    let starts = starts(h, outputs, gradients, keep.mode())?;
    let goal = Goal::Grad((targets, inputs.len()));
    let found = super::forward_ad::suspended(|| run(h, starts, keep, goal))?;
    if !allow_unused && found.iter().any(Option::is_none) {
        return Err(Error::Autograd {
            message: "One of the differentiated Tensors appears to not have been used in the \
                      graph. Set allow_unused=True if this is the desired behavior."
                .into(),
            help: "pass `allow_unused=true` to get none for an input the outputs do not depend on"
                .into(),
        });
    }
    Ok(found)
}

/// Where a backward starts: each root's node (or leaf) and its gradient,
/// checked as PyTorch checks them.
fn starts(
    h: &mut dyn Host,
    roots: &[Arc<Tensor>],
    gradients: Vec<Option<Arc<Tensor>>>,
    mode: Mode,
) -> R<Vec<(Edge, Arc<Tensor>)>> {
    if gradients.len() != roots.len() {
        return Err(Error::Autograd {
            message: format!(
                "grad can be implicitly created only for scalar outputs; got {} gradients for {} \
                 tensors",
                gradients.len(),
                roots.len()
            ),
            help: "give one gradient per tensor (none for a one-element tensor)".into(),
        });
    }
    let mut out = Vec::with_capacity(roots.len());
    for (i, (root, gradient)) in roots.iter().zip(gradients).enumerate() {
        if !requires_grad(root) {
            return Err(Error::Autograd {
                message: format!(
                    "element {i} of tensors does not require grad and does not have a grad_fn"
                ),
                help: "make a leaf require grad (`requires_grad=true` where it is made, or \
                       `x.requires_grad_()`), and compute outside `no_grad { }`"
                    .into(),
            });
        }
        let gradient = match gradient {
            Some(g) => {
                if g.shape() != root.shape() {
                    return Err(Error::Autograd {
                        message: format!(
                            "Mismatch in shape: grad_output[{i}] has a shape of {} and output[{i}] has a shape of {}",
                            fmt_shape(g.shape()),
                            fmt_shape(root.shape())
                        ),
                        help: "give `backward(gradient)` a tensor of the output's shape".into(),
                    });
                }
                g
            }
            None if root.numel() == 1 => full_like(h.runtime(), root, 1)?,
            None => {
                return Err(Error::Autograd {
                    message: format!(
                        "grad can be implicitly created only for scalar outputs (this one has shape {})",
                        fmt_shape(root.shape())
                    ),
                    help: "reduce it first (`y.sum().backward()`), or pass the gradient: \
                           `y.backward(ones_like(y))`"
                        .into(),
                })
            }
        };
        let m = meta(root).expect("a tensor that requires grad has a record");
        let edge = match m.grad_fn() {
            Some((node, k)) => Edge::Node(node, k),
            None => {
                let g = validate(h.runtime(), mode, gradient, &InputMeta::of(root))?;
                out.push((Edge::Leaf(Arc::clone(m.grad_cell())), g));
                continue;
            }
        };
        out.push((edge, gradient));
    }
    Ok(out)
}

/// `unpack` of each tensor a node saved under the program's hooks, in
/// the order they were saved (PyTorch's `SavedVariable::unpack`).
fn unpack_all(h: &mut dyn Host, cells: &[Arc<PackCell>], mode: Mode) -> R<()> {
    for cell in cells {
        let t = h.unpack_saved(cell, mode)?;
        cell.set_unpacked(Some(t));
    }
    Ok(())
}

/// What `grad` asks for: the inputs' keys (a node's or a leaf's), each
/// with the positions of the inputs it is, and how many inputs there are.
type Targets = (Map<usize, Vec<usize>>, usize);

/// For `grad`: each input key's positions, and the gradients found so far.
type Found = (Map<usize, Vec<usize>>, Vec<Option<Arc<Tensor>>>);

/// The inputs of `backward(inputs=...)`: the leaves' keys, and the
/// non-leaves' output keys and node keys.
struct Into {
    leaves: Set<usize>,
    outputs: Set<usize>,
    nodes: Set<usize>,
}

/// What a backward computes.
enum Goal {
    /// `backward()`: every leaf's `.grad`.
    Every,
    /// `backward(inputs=...)`: the `.grad` of these inputs only.
    Into(Into),
    /// `grad(outputs, inputs)`: the inputs' gradients, no `.grad` touched.
    Grad(Targets),
}

fn run(
    h: &mut dyn Host,
    starts: Vec<(Edge, Arc<Tensor>)>,
    keep: Keep,
    goal: Goal,
) -> R<Vec<Option<Arc<Tensor>>>> {
    let _task = GraphTask::begin(matches!(goal, Goal::Every));
    // Every node and leaf behind the roots, and how many edges lead into
    // each (a root's own gradient is one): a leaf's `AccumulateGrad` counts
    // its edges as any node does, so its gradient is final when the last
    // one has arrived.
    let mut deps: Map<usize, usize> = Map::default();
    let mut nodes: Vec<Arc<Node>> = Vec::new();
    let count = |e: &Edge, deps: &mut Map<usize, usize>, nodes: &mut Vec<Arc<Node>>| match e {
        Edge::Node(next, _) => {
            let first = !deps.contains_key(&key(next));
            *deps.entry(key(next)).or_insert(0) += 1;
            if first {
                nodes.push(Arc::clone(next));
            }
        }
        Edge::Leaf(cell) => *deps.entry(leaf_key(cell)).or_insert(0) += 1,
        Edge::None => {}
    };
    for (e, _) in &starts {
        count(e, &mut deps, &mut nodes);
    }
    let mut k = 0;
    while k < nodes.len() {
        let n = Arc::clone(&nodes[k]);
        for e in &n.next {
            count(e, &mut deps, &mut nodes);
        }
        k += 1;
    }
    // What hooks and the runtime queue for the end of this backward.
    let callbacks = Open::begin();
    // The streams current when backward was called (the "ambient" ones):
    // the roots' gradients are theirs, and they wait for the streams that
    // wrote `.grad`s at the end, so the call is ordered on them as any op.
    let ambient = Streams::now(h.runtime());
    let (needed, targets, only) = match goal {
        Goal::Every => (None, None, None),
        Goal::Grad(t) => (
            Some(needed(&nodes, &t.0.keys().copied().collect())),
            Some(t),
            None,
        ),
        // A non-leaf input's node runs (its output's gradient is retained
        // there), and so does every node on a path to an input.
        Goal::Into(i) => {
            let mut n = needed(
                &nodes,
                &i.leaves.iter().chain(&i.outputs).copied().collect(),
            );
            n.extend(i.nodes);
            (Some(n), None, Some(i.leaves))
        }
    };
    let mut w = Walk {
        grads: Map::default(),
        ready: BinaryHeap::new(),
        deps,
        leaf_streams: Vec::new(),
        pushed: 0,
        found: targets.map(|(t, n)| (t, vec![None; n])),
        needed,
        only,
        mode: keep.mode(),
    };
    for (edge, g) in starts {
        let from = ambient.of(&g);
        w.arrive(h.runtime(), &edge, Some(g), from)?;
    }
    while let Some(Ready(_, _, task)) = w.ready.pop() {
        if h.runtime().interrupted() {
            return Err(Error::Interrupted);
        }
        match task {
            Task::Leaf(cell) => w.accumulate_leaf(h, &cell)?,
            Task::Node(node) => w.run_ready(h, &node, keep.retain_graph)?,
        }
    }
    for s in std::mem::take(&mut w.leaf_streams) {
        h.runtime().wait_stream(ambient.on(s.device), s)?;
    }
    callbacks.finish(h)?;
    Ok(w.found.map(|(_, f)| f).unwrap_or_default())
}

/// The nodes (by key) a backward for `targets` must run: those with a path
/// to a target (a target node itself only when it leads to another).
/// Each node is decided once all it leads to is (a post-order walk of the
/// graph, which has no cycles): linear in the graph's size.
fn needed(nodes: &[Arc<Node>], targets: &Set<usize>) -> Set<usize> {
    let mut decided: Map<usize, bool> = Map::default();
    for root in nodes {
        let mut stack = vec![(Arc::clone(root), false)];
        while let Some((n, expanded)) = stack.pop() {
            if decided.contains_key(&key(&n)) {
                continue;
            }
            if !expanded {
                stack.push((Arc::clone(&n), true));
                for e in &n.next {
                    if let Edge::Node(next, _) = e {
                        if !decided.contains_key(&key(next)) {
                            stack.push((Arc::clone(next), false));
                        }
                    }
                }
                continue;
            }
            let leads = n.next.iter().any(|e| match e {
                Edge::Node(next, k) => {
                    targets.contains(&output_key(next, *k))
                        || decided.get(&key(next)) == Some(&true)
                }
                Edge::Leaf(cell) => targets.contains(&leaf_key(cell)),
                Edge::None => false,
            });
            decided.insert(key(&n), leads);
        }
    }
    decided
        .into_iter()
        .filter(|&(_, n)| n)
        .map(|(k, _)| k)
        .collect()
}

/// Whether a saved tensor carries a forward-mode tangent in the open dual
/// level (read from its record, or from the output while it lives).
fn saved_has_tangent(s: &super::node::Saved) -> bool {
    let input = s.input_record().and_then(|r| {
        r.downcast_ref::<super::meta::Meta>()
            .and_then(super::meta::Meta::tangent)
    });
    let output = s
        .output_tensor()
        .and_then(|t| super::forward_ad::tangent(&t));
    input.is_some() || output.is_some()
}

fn leaf_key(cell: &Arc<GradCell>) -> usize {
    Arc::as_ptr(cell) as usize
}

/// What has arrived for a node's outputs (one slot at a leaf): each
/// output's gradient so far, and the stream that made it (None on the cpu).
type Arrived = SmallVec<[(Option<Arc<Tensor>>, Option<StreamKey>); 1]>;

/// What runs when ready: a node's backward, or a leaf's `AccumulateGrad`.
enum Task {
    Node(Arc<Node>),
    Leaf(Arc<GradCell>),
}

/// One backward's state: the gradients arrived so far for each node and
/// leaf (PyTorch's input buffers), the edges each still waits for, and
/// what is ready to run.
struct Walk {
    grads: Map<usize, Arrived>,
    ready: BinaryHeap<Ready>,
    deps: Map<usize, usize>,
    /// The streams that wrote `.grad`s, which the ambient ones wait for.
    leaf_streams: Vec<StreamKey>,
    /// Tasks made ready so far (ties run in the order they became ready).
    pushed: u64,
    /// For `grad`: where each input's gradient goes, and what was found.
    found: Option<Found>,
    /// For `grad` and `backward(inputs=...)`: the nodes that lead to an
    /// input (no other runs).
    needed: Option<Set<usize>>,
    /// For `backward(inputs=...)`: the leaves whose `.grad` is filled.
    only: Option<Set<usize>>,
    /// Whether the formulas record (`create_graph=True`).
    mode: Mode,
}

impl Walk {
    fn push(&mut self, task: Task) {
        // A leaf's AccumulateGrad runs as soon as it is ready (PyTorch
        // gives it the highest sequence number); nodes newest first.
        let order = match &task {
            Task::Leaf(_) => u64::MAX,
            Task::Node(n) => n.sequence,
        };
        self.pushed += 1;
        self.ready
            .push(Ready(order, std::cmp::Reverse(self.pushed), task));
    }

    /// A ready node: its backward on its forward op's stream, after the
    /// work that made its outputs' gradients; with no gradient at all
    /// (every one undefined), what it feeds is counted down all the same.
    fn run_ready(&mut self, h: &mut dyn Host, node: &Arc<Node>, retain: bool) -> R<()> {
        let arrived = self.grads.remove(&key(node)).unwrap_or_default();
        // A node that neither leads to an input nor is one is not run at
        // all, its hooks neither (PyTorch's engine does not queue it).
        if arrived.iter().all(|(g, _)| g.is_none()) || !self.executes(node) {
            for edge in &node.next {
                self.arrive(h.runtime(), edge, None, None)?;
            }
            return Ok(());
        }
        // The node's stream is entered first: its hooks run there too, as
        // PyTorch's do.
        let rt = h.runtime();
        if let Some(s) = node.stream {
            for (g, from) in &arrived {
                if let Some(g) = g {
                    cross(rt, g, *from, s)?;
                }
            }
        }
        // One slot per output (`arrive` made them).
        let grads: Vec<Option<Arc<Tensor>>> = arrived.into_iter().map(|(g, _)| g).collect();
        let ran = on_stream(h, node.stream, |h| {
            self.hooks_then_node(h, (node, retain), grads)
        });
        if ran.is_err() && super::anomaly::enabled() {
            h.warn(super::anomaly::failed_warning(
                node.name,
                node.trace.as_ref(),
            ));
        }
        ran
    }

    /// The outputs' hooks, each on what the one before gave (for `grad`,
    /// what an input's gradient is then), then the node, if it is needed.
    fn hooks_then_node(
        &mut self,
        h: &mut dyn Host,
        (node, retain): (&Arc<Node>, bool),
        mut grads: Vec<Option<Arc<Tensor>>>,
    ) -> R<()> {
        for (k, slot) in grads.iter_mut().enumerate() {
            let Some(g) = slot.take() else { continue };
            let g = match node.hooks.is_empty() {
                true => g,
                false => hooks::run_tensor_hooks(h, (&node.hooks, k), g, self.mode)?,
            };
            self.capture(output_key(node, k), &g);
            *slot = Some(g);
        }
        if self
            .needed
            .as_ref()
            .is_some_and(|n| !n.contains(&key(node)))
        {
            return Ok(());
        }
        self.run_node(h, (node, retain), grads)
    }

    /// One node's backward, on the stream the caller entered: its inputs'
    /// gradients handed on (added to what already arrived, on the
    /// consumer's stream). Without `retain`, what the node saved is freed
    /// once its backward has run, before the gradients go on.
    fn run_node(
        &mut self,
        h: &mut dyn Host,
        (node, retain): (&Arc<Node>, bool),
        grads: Vec<Option<Arc<Tensor>>>,
    ) -> R<()> {
        let here = node.stream;
        // `retain_grad()` keeps the gradient after the hooks (PyTorch runs it last).
        if let Some(s) = here.filter(|_| !lock(&node.retained).is_empty()) {
            note(&mut self.leaf_streams, s);
        }
        let mode = self.mode;
        // Its own pre-hooks (`grad_fn.register_prehook`), after its
        // outputs' tensor hooks, as PyTorch's.
        let grads = match node.pre_hooks.is_empty() {
            true => grads,
            false => hooks::run_node_prehooks(h, node, grads, mode)?,
        };
        // Its post-hooks see the gradients it ran on.
        let grad_outputs = (!node.post_hooks.is_empty()).then(|| grads.clone());
        // `grad` inside a dual level through tensors with tangents: PyTorch's
        // gradients would carry tangents, which this backward computes none of.
        if self.found.is_some() && super::forward_ad::level().is_some() {
            let dual_grad = grads
                .iter()
                .flatten()
                .any(|g| super::forward_ad::tangent(g).is_some());
            let dual_saved = node
                .with_saved(|b| Ok(b.saved().iter().any(|s| saved_has_tangent(s))))
                .unwrap_or(false);
            if dual_grad || dual_saved {
                return Err(super::forward_ad::over_reverse(node.name));
            }
        }
        let rt = h.runtime();
        // Its kernels are named after it on the timeline and in `profile`.
        rt.begin_op(node.name);
        keep_retained(rt, mode, node, &grads)?;
        let computed = match node.custom_call() {
            // A program's `torch.autograd.Function`: its own `backward`.
            Some(f) => h.custom_backward(&f, &grads, (node, mode))?,
            None => {
                // What it saved under the program's hooks, unpacked for
                // this run only (a retained graph unpacks again next time).
                let hooked = node.hooked();
                let computed = unpack_all(h, &hooked, mode).and_then(|()| {
                    let rt = h.runtime();
                    node.with_saved(|backward| match mode.enabled && !backward.creates_graph() {
                        true => Err(create_graph::refused(node.name)),
                        false => backward.apply_outputs(rt, (node, mode), &grads),
                    })
                });
                for cell in &hooked {
                    cell.set_unpacked(None);
                }
                computed?
            }
        };
        drop(grads);
        let rt = h.runtime();
        if !retain {
            node.release();
        }
        // Each gradient checked against its input (summed to its shape,
        // cast to its dtype), then the node's post-hooks see them, as
        // PyTorch's `validate_outputs` runs before `call_post_hooks`.
        let mut computed = computed.into_iter();
        let mut validated = Vec::with_capacity(node.next.len());
        for (edge, input) in node.next.iter().zip(&node.inputs) {
            // A gradient for an input that needs none is left as the node
            // gave it (its post-hooks see it; it goes nowhere).
            validated.push(match computed.next().flatten() {
                Some(grad) if edge.is_some() => Some(validate(rt, mode, grad, input)?),
                other => other,
            });
        }
        let validated = match &grad_outputs {
            Some(outs) => hooks::run_node_posthooks(h, node, validated, outs, mode)?,
            None => validated,
        };
        let rt = h.runtime();
        super::anomaly::check_nan(rt, node.name, &validated)?;
        for (edge, grad) in node.next.iter().zip(validated) {
            let grad = grad.filter(|_| edge.is_some());
            // A gradient copied to another device is ready on that
            // device's current stream, where the copy was queued (PyTorch's
            // `InputBuffer::add`: a gradient not on its producer's device
            // is taken to be ready on its own device's stream).
            let made_on = match (&grad, here) {
                (Some(g), Some(s)) if g.device() != Device::Cuda(s.device) => current_stream(rt, g),
                _ => here,
            };
            self.arrive(rt, edge, grad, made_on)?;
        }
        Ok(())
    }

    /// A gradient (or none: undefined) arriving along `edge`, made on
    /// stream `here`: added to what arrived before on the consumer's
    /// stream, and the target counted down; ready once nothing more can
    /// arrive.
    fn arrive(
        &mut self,
        rt: &mut Runtime,
        edge: &Edge,
        grad: Option<Arc<Tensor>>,
        here: Option<StreamKey>,
    ) -> R<()> {
        let (k, out, outputs, to) = match edge {
            Edge::None => return Ok(()),
            Edge::Leaf(cell) => (leaf_key(cell), 0, 1, None),
            Edge::Node(next, out) => (key(next), *out, next.outputs, next.stream),
        };
        if let Some(grad) = grad {
            let slots = self
                .grads
                .entry(k)
                .or_insert_with(|| SmallVec::from_elem((None, None), outputs));
            let slot = &mut slots[out];
            *slot = match slot.0.take() {
                None => (Some(grad), here),
                Some(old) => {
                    let on = to.or(here);
                    let sum = add_on(rt, (on, self.mode), (old, slot.1), (grad, here))?;
                    (Some(sum), on)
                }
            };
        }
        let d = self
            .deps
            .get_mut(&k)
            .expect("every node and leaf was counted");
        *d -= 1;
        if *d == 0 {
            let task = match edge {
                Edge::Leaf(cell) => Task::Leaf(Arc::clone(cell)),
                Edge::Node(next, _) => Task::Node(Arc::clone(next)),
                Edge::None => unreachable!("returned above"),
            };
            self.push(task);
        }
        Ok(())
    }

    /// A leaf's `AccumulateGrad`, once every gradient for it has arrived:
    /// their sum added to its `.grad`, on the stream that made the sum.
    fn accumulate_leaf(&mut self, h: &mut dyn Host, cell: &Arc<GradCell>) -> R<()> {
        let arrived = self.grads.remove(&leaf_key(cell)).unwrap_or_default();
        let Some((Some(g), from)) = arrived.into_iter().next() else {
            return Ok(());
        };
        if self.found.is_some() {
            // `grad` leaves every `.grad` alone: an input's gradient is
            // taken after its hooks, other leaves' are dropped.
            if self
                .found
                .as_ref()
                .is_some_and(|(t, _)| t.contains_key(&leaf_key(cell)))
            {
                let g = hooks::run_tensor_hooks(h, (&cell.pre, 0), g, self.mode)?;
                self.capture(leaf_key(cell), &g);
            }
            return Ok(());
        }
        if self
            .only
            .as_ref()
            .is_some_and(|o| !o.contains(&leaf_key(cell)))
        {
            return Ok(());
        }
        let mode = self.mode;
        let r = on_stream(h, from, |h| leaf_step(h, mode, cell, g));
        if let Some(s) = from {
            note(&mut self.leaf_streams, s);
        }
        r
    }
}

impl Walk {
    /// Whether a node runs (PyTorch's `should_execute`): every node does
    /// in a plain backward; else one that leads to an input, or whose
    /// output is an input of `grad` (its hooks run, then it captures).
    fn executes(&self, node: &Arc<Node>) -> bool {
        let Some(needed) = &self.needed else {
            return true;
        };
        needed.contains(&key(node))
            || self.found.as_ref().is_some_and(|(t, _)| {
                (0..node.outputs).any(|k| t.contains_key(&output_key(node, k)))
            })
    }

    /// For `grad`: `g` is the gradient of the inputs keyed `k`, if any are.
    fn capture(&mut self, k: usize, g: &Arc<Tensor>) {
        if let Some((targets, found)) = &mut self.found {
            for &i in targets.get(&k).into_iter().flatten() {
                found[i] = Some(Arc::clone(g));
            }
        }
    }
}

/// A leaf's `AccumulateGrad` with its final gradient `g`: the leaf's hooks
/// on `g`, `g` added to `.grad`, then the post-accumulate hooks.
fn leaf_step(h: &mut dyn Host, mode: Mode, cell: &GradCell, g: Arc<Tensor>) -> R<()> {
    let g = match cell.pre.is_empty() {
        true => g,
        false => hooks::run_tensor_hooks(h, (&cell.pre, 0), g, mode)?,
    };
    let rt = h.runtime();
    rt.begin_op("AccumulateGrad");
    accumulate(rt, mode, cell, g)?;
    if !cell.post.is_empty() {
        hooks::run_post_hooks(h, cell)?;
    }
    Ok(())
}

/// `f` with `stream` (if any) entered as its device's current stream,
/// which is restored after, also after an error.
fn on_stream<T>(
    h: &mut dyn Host,
    stream: Option<StreamKey>,
    f: impl FnOnce(&mut dyn Host) -> R<T>,
) -> R<T> {
    let entered = stream.map(|s| h.runtime().enter_stream(s));
    let r = f(h);
    if let Some(saved) = entered {
        h.runtime().restore(saved);
    }
    r
}

/// `a + b`, two gradients of one input made on streams `sa` and `sb`,
/// added on the consumer's stream (`to`) once both are made there, as
/// PyTorch's engine adds what arrives for a node (`InputBuffer::add`):
/// into one of them in place when nothing else holds it and it is laid
/// out plainly in the sum's dtype and shape, else into a new tensor.
fn add_on(
    rt: &mut Runtime,
    (to, mode): (Option<StreamKey>, Mode),
    (a, sa): (Arc<Tensor>, Option<StreamKey>),
    (b, sb): (Arc<Tensor>, Option<StreamKey>),
) -> R<Arc<Tensor>> {
    let entered = match to {
        Some(s) => {
            cross(rt, &a, sa, s)?;
            cross(rt, &b, sb, s)?;
            Some(rt.enter_stream(s))
        }
        None => None,
    };
    let reusable = |x: &Arc<Tensor>, y: &Tensor| {
        Arc::strong_count(x) == 1
            && x.owns_storage()
            && x.is_contiguous()
            && x.shape() == y.shape()
            && x.dtype() == y.dtype()
    };
    let r = if mode.enabled {
        // Recorded (`AddBackward0`), out of place, as PyTorch's in grad mode.
        create_graph::bin(rt, mode, BinaryOp::Add, &a, &b)
    } else if reusable(&a, &b) {
        rt.binary_(BinaryOp::Add, &a, Operand::strong(&b))
            .map(|_| a)
    } else if reusable(&b, &a) {
        rt.binary_(BinaryOp::Add, &b, Operand::strong(&a))
            .map(|_| b)
    } else {
        rt.binary(BinaryOp::Add, Operand::strong(&a), Operand::strong(&b))
    };
    if let Some(saved) = entered {
        rt.restore(saved);
    }
    r
}

/// A gradient made on stream `from` about to be used on stream `to`: `to`
/// waits for `from`, and the gradient's memory is recorded as used on `to`
/// (PyTorch's engine does both, so the caching allocator does not hand the
/// block out again while `to` may still read it).
fn cross(rt: &mut Runtime, g: &Tensor, from: Option<StreamKey>, to: StreamKey) -> R<()> {
    match from {
        Some(from) if from != to => {
            rt.wait_stream(to, from)?;
            if g.device() == Device::Cuda(to.device) {
                g.record_stream(to.stream);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn note(streams: &mut Vec<StreamKey>, s: StreamKey) {
    if !streams.contains(&s) {
        streams.push(s);
    }
}

/// The current stream of a CUDA tensor's device now; None on the cpu.
fn current_stream(rt: &Runtime, t: &Tensor) -> Option<StreamKey> {
    match t.device() {
        Device::Cuda(d) => Some(rt.stream_on(d)),
        _ => None,
    }
}

/// The current stream of each device when backward was called.
struct Streams(Map<u32, StreamKey>);

impl Streams {
    fn now(rt: &Runtime) -> Streams {
        let count = rt.devices.count();
        Streams((0..count).map(|d| (d, rt.stream_on(d))).collect())
    }

    fn on(&self, device: u32) -> StreamKey {
        self.0
            .get(&device)
            .copied()
            .unwrap_or(StreamKey::new(device, 0))
    }

    /// The ambient stream of a CUDA tensor's device; None on the cpu.
    fn of(&self, t: &Tensor) -> Option<StreamKey> {
        match t.device() {
            Device::Cuda(d) => Some(self.on(d)),
            _ => None,
        }
    }
}

/// A task ready to run, ordered by its sequence number (newest first),
/// then by when it became ready.
struct Ready(u64, std::cmp::Reverse<u64>, Task);

impl PartialEq for Ready {
    fn eq(&self, other: &Ready) -> bool {
        (self.0, self.1) == (other.0, other.1)
    }
}
impl Eq for Ready {}
impl PartialOrd for Ready {
    fn partial_cmp(&self, other: &Ready) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ready {
    fn cmp(&self, other: &Ready) -> std::cmp::Ordering {
        (self.0, self.1).cmp(&(other.0, other.1))
    }
}

/// The gradients of the node's outputs, kept by the tensors that asked
/// to (`retain_grad()`).
fn keep_retained(
    rt: &mut Runtime,
    mode: Mode,
    node: &Node,
    grads: &[Option<Arc<Tensor>>],
) -> R<()> {
    let retained: Vec<(usize, Arc<GradCell>)> = lock(&node.retained)
        .iter()
        .filter_map(|(k, m)| Some((*k, m.upgrade()?)))
        .collect();
    for (k, m) in retained {
        if let Some(g) = grads.get(k).and_then(Option::as_ref) {
            accumulate(rt, mode, &m, Arc::clone(g))?;
        }
    }
    Ok(())
}

/// `grad` in the shape, dtype and device of the input it is for (each
/// step recorded when the backward creates a graph).
fn validate(rt: &mut Runtime, mode: Mode, grad: Arc<Tensor>, input: &InputMeta) -> R<Arc<Tensor>> {
    let mut grad = grad;
    if grad.shape() != input.shape.as_slice() {
        grad = create_graph::sum_to(rt, mode, &grad, &input.shape)?;
    }
    if grad.dtype() != input.dtype {
        grad = create_graph::cast(rt, mode, &grad, input.dtype)?;
    }
    if grad.device() != input.device {
        grad = create_graph::copy_to(rt, mode, &grad, input.device)?;
    }
    Ok(grad)
}

/// Adds `g` to a `.grad` (PyTorch's `AccumulateGrad`): the first gradient
/// is kept as it is when nothing else holds it and it is laid out plainly,
/// else copied; later ones are added in place. When the backward creates
/// a graph, out of place and recorded: a copy of the first (`CopyBackwards`),
/// then `.grad + g` (`AddBackward0`), so `.grad` has a history.
fn accumulate(rt: &mut Runtime, mode: Mode, m: &GradCell, g: Arc<Tensor>) -> R<()> {
    if mode.enabled {
        let sum = match m.get() {
            None => create_graph::copy_of(rt, mode, &g)?,
            Some(old) => create_graph::bin(rt, mode, BinaryOp::Add, &old, &g)?,
        };
        m.set(Some(sum));
        return Ok(());
    }
    match m.get() {
        None => {
            // Taken as it is when nothing else holds this tensor and it is
            // laid out as the parameter (PyTorch's `AccumulateGrad` steals
            // it then, also a view of a larger buffer: DataParallel's
            // reduced gradients are views of one buffer per bucket).
            let strides = m.grad_strides(g.shape());
            let laid_out = g
                .shape()
                .iter()
                .zip(g.strides().iter().zip(&strides))
                .all(|(&n, (&s, &want))| if n == 1 { s != 0 } else { s == want });
            let g = match Arc::strong_count(&g) == 1 && laid_out {
                true => g,
                false => rt.copy_strided(&g, strides)?,
            };
            m.set(Some(g));
        }
        Some(old) => rt.binary_(BinaryOp::Add, &old, Operand::strong(&g))?,
    }
    Ok(())
}
