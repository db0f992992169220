//! `loss.backward()`: the graph behind a tensor walked from it to the
//! leaves, each node run once every gradient of its output has arrived
//! (newest node first among the ready ones, as PyTorch's engine orders
//! them), each input's gradient given the input's shape, dtype and
//! device, and added to the `.grad` of the leaves. Without `retain_graph`
//! a node frees what it saved as soon as it has run, before its gradients
//! are handed on (PyTorch's `release_variables`), so memory falls during
//! backward; a backward that fails half-way leaves the nodes that ran
//! freed, and a second one through them is PyTorch's error.

use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use super::meta::{meta, requires_grad};
use super::node::{Edge, GradCell, InputMeta, Node};
use super::ops::full_like;
use super::ops::sum_to;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::lock::lock;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::shape::fmt_shape;
use crate::runtime::stream::StreamKey;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

fn key(n: &Arc<Node>) -> usize {
    Arc::as_ptr(n) as usize
}

/// The tensors the graphs behind `roots` keep for backward, each with the
/// node that saved it and the first root whose graph reaches that node:
/// one walk over all the graphs (a node shared by many roots is visited
/// once, so `mem` costs the graphs' size, not names × size).
pub fn saved_by(roots: &[&Tensor]) -> Vec<(usize, &'static str, Arc<Tensor>)> {
    let mut seen = std::collections::HashSet::new();
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

/// Runs backward from `root` with `gradient` (ones for a one-element root
/// when none is given).
pub fn backward(
    rt: &mut Runtime,
    root: &Arc<Tensor>,
    gradient: Option<Arc<Tensor>>,
    retain_graph: bool,
) -> R<()> {
    if !requires_grad(root) {
        return Err(Error::Autograd {
            message: "element 0 of tensors does not require grad and does not have a grad_fn"
                .into(),
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
                        "Mismatch in shape: grad_output[0] has a shape of {} and output[0] has a shape of {}",
                        fmt_shape(g.shape()),
                        fmt_shape(root.shape())
                    ),
                    help: "give `backward(gradient)` a tensor of the output's shape".into(),
                });
            }
            g
        }
        None if root.numel() == 1 => full_like(rt, root, 1)?,
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
    let root_meta = meta(root).expect("a tensor that requires grad has a record");
    let Some((node, k)) = root_meta.grad_fn() else {
        let input = InputMeta::of(root);
        let g = validate(rt, gradient, &input)?;
        return accumulate(rt, root_meta.grad_cell(), g);
    };
    // Nodes have one output for now: `k` is 0.
    debug_assert_eq!(k, 0);
    run(rt, node, gradient, retain_graph)
}

fn run(rt: &mut Runtime, root: Arc<Node>, gradient: Arc<Tensor>, retain: bool) -> R<()> {
    // Every node behind the root, and how many edges lead into each.
    let mut deps: HashMap<usize, usize> = HashMap::new();
    let mut stack = vec![Arc::clone(&root)];
    deps.insert(key(&root), 0);
    while let Some(n) = stack.pop() {
        for e in &n.next {
            if let Edge::Node(next, _) = e {
                let first = !deps.contains_key(&key(next));
                *deps.entry(key(next)).or_insert(0) += 1;
                if first {
                    stack.push(Arc::clone(next));
                }
            }
        }
    }
    // The streams current when backward was called (the "ambient" ones):
    // the root's gradient is theirs, and they wait for the streams that
    // wrote `.grad`s at the end, so the call is ordered on them as any op.
    let ambient = Streams::now(rt);
    let mut grads: HashMap<usize, Arrived> = HashMap::new();
    let first = ambient.of(&gradient);
    grads.insert(key(&root), (Some(gradient), first));
    let mut ready = BinaryHeap::new();
    ready.push(Ready(root.sequence, Arc::clone(&root)));
    let mut leaf_streams: Vec<StreamKey> = Vec::new();
    while let Some(Ready(_, node)) = ready.pop() {
        if rt.interrupted() {
            return Err(Error::Interrupted);
        }
        let (g, from) = grads.remove(&key(&node)).unwrap_or((None, None));
        let Some(g) = g else { continue };
        // The node runs on its forward op's stream, after the work that made its gradient.
        let entered = match node.stream {
            Some(s) => {
                cross(rt, &g, from, s)?;
                Some(rt.enter_stream(s))
            }
            None => None,
        };
        // Its kernels are named after it on the timeline and in `profile`.
        rt.begin_op(node.name);
        let r = run_node(
            rt,
            (&node, retain),
            g,
            &mut grads,
            &mut ready,
            &mut deps,
            &mut leaf_streams,
        );
        if let Some(saved) = entered {
            rt.restore(saved);
        }
        r?;
    }
    for s in leaf_streams {
        rt.wait_stream(ambient.on(s.device), s)?;
    }
    Ok(())
}

/// A node's gradient so far, and the stream that made it (None on the cpu).
type Arrived = (Option<Arc<Tensor>>, Option<StreamKey>);

/// One node's backward, on the stream the caller entered: its inputs'
/// gradients handed on (added to what already arrived, on the consumer's
/// stream) or accumulated into `.grad` (`leaf_streams` records where).
fn run_node(
    rt: &mut Runtime,
    (node, retain): (&Arc<Node>, bool),
    g: Arc<Tensor>,
    grads: &mut HashMap<usize, Arrived>,
    ready: &mut BinaryHeap<Ready>,
    deps: &mut HashMap<usize, usize>,
    leaf_streams: &mut Vec<StreamKey>,
) -> R<()> {
    let here = node.stream;
    if let Some(s) = here.filter(|_| !lock(&node.retained).is_empty()) {
        note(leaf_streams, s);
    }
    keep_retained(rt, node, &g)?;
    let computed = node.with_saved(|backward| backward.apply(rt, node, &g))?;
    drop(g);
    if !retain {
        node.release();
    }
    for ((edge, input), grad) in node.next.iter().zip(&node.inputs).zip(computed) {
        let Some(grad) = grad else { continue };
        match edge {
            Edge::None => {}
            Edge::Leaf(m) => {
                rt.begin_op("AccumulateGrad");
                let grad = validate(rt, grad, input)?;
                accumulate(rt, m, grad)?;
                rt.begin_op(node.name);
                if let Some(s) = here {
                    note(leaf_streams, s);
                }
            }
            Edge::Node(next, _) => {
                let grad = validate(rt, grad, input)?;
                let slot = grads.entry(key(next)).or_insert((None, None));
                *slot = match slot.0.take() {
                    None => (Some(grad), here),
                    Some(old) => (
                        Some(add_on(rt, next.stream, (old, slot.1), (grad, here))?),
                        next.stream.or(here),
                    ),
                };
                let d = deps.get_mut(&key(next)).expect("every node was counted");
                *d -= 1;
                if *d == 0 {
                    ready.push(Ready(next.sequence, Arc::clone(next)));
                }
            }
        }
    }
    Ok(())
}

/// `a + b`, two gradients of one input made on streams `sa` and `sb`,
/// added on the consumer's stream (`to`) once both are made there, as
/// PyTorch's engine adds what arrives for a node.
fn add_on(
    rt: &mut Runtime,
    to: Option<StreamKey>,
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
    let r = rt.binary(BinaryOp::Add, Operand::strong(&a), Operand::strong(&b));
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
            if g.device() == crate::runtime::Device::Cuda(to.device) {
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

/// The current stream of each device when backward was called.
struct Streams(HashMap<u32, StreamKey>);

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
            crate::runtime::Device::Cuda(d) => Some(self.on(d)),
            _ => None,
        }
    }
}

/// A node ready to run, ordered by its sequence number (newest first).
struct Ready(u64, Arc<Node>);

impl PartialEq for Ready {
    fn eq(&self, other: &Ready) -> bool {
        self.0 == other.0
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
        self.0.cmp(&other.0)
    }
}

/// The gradient of the node's output, kept by the tensors that asked to
/// (`retain_grad()`).
fn keep_retained(rt: &mut Runtime, node: &Node, g: &Arc<Tensor>) -> R<()> {
    let retained: Vec<Arc<GradCell>> = crate::runtime::lock::lock(&node.retained)
        .iter()
        .filter_map(std::sync::Weak::upgrade)
        .collect();
    for m in retained {
        accumulate(rt, &m, Arc::clone(g))?;
    }
    Ok(())
}

/// `grad` in the shape, dtype and device of the input it is for.
fn validate(rt: &mut Runtime, grad: Arc<Tensor>, input: &InputMeta) -> R<Arc<Tensor>> {
    let mut grad = grad;
    if grad.shape() != input.shape.as_slice() {
        grad = sum_to(rt, &grad, &input.shape)?;
    }
    if grad.dtype() != input.dtype {
        grad = rt.cast(&grad, input.dtype)?;
    }
    if grad.device() != input.device {
        grad = rt.copy_to(&grad, input.device)?;
    }
    Ok(grad)
}

/// Adds `g` to a `.grad` (PyTorch's `AccumulateGrad`): the first gradient
/// is kept as it is when nothing else holds it and it is laid out plainly,
/// else copied; later ones are added in place.
fn accumulate(rt: &mut Runtime, m: &GradCell, g: Arc<Tensor>) -> R<()> {
    match m.get() {
        None => {
            // Nothing else may see its elements: a later backward adds in place.
            let plain = Arc::strong_count(&g) == 1 && g.owns_storage() && g.is_contiguous();
            let g = match plain {
                true => g,
                false => rt.copy(&g)?,
            };
            m.set(Some(g));
        }
        Some(old) => rt.binary_(BinaryOp::Add, &old, Operand::strong(&g))?,
    }
    Ok(())
}
