//! In-place ops in a graph, as PyTorch records them: the op's node becomes
//! the changed tensor's history (`x += y` makes `x.grad_fn`
//! `<AddBackward0>`), for every holder of the tensor. On a view, the node
//! is wrapped in a `CopySlices` that becomes the base's history, and the
//! view's own history is made again from the base's when next used
//! (`AsStridedBackward0`). What a node needs of the old elements is copied
//! first (PyTorch's `original_self`).

use std::sync::Arc;

use super::meta::{meta, meta_or_leaf, requires_grad};
use super::node::{Backward, Edge, Edges, InputMeta, Inputs, Node, Saved};
use super::record::UnarySaves;
use super::record::{edge, forward_stream, unsupported};
use super::Mode;
use super::{forward_ad, jvp};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::lock::lock;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::index::Index;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{DType, Tensor};

type R<T> = Result<T, Error>;

/// PyTorch's refusals of an in-place op on one of several views one op
/// made (checked first, as PyTorch's `handle_view_on_rebase`), and on a
/// leaf that requires grad or a view of one.
pub fn check_leaf(mode: Mode, x: &Tensor) -> R<()> {
    if !mode.enabled {
        return Ok(());
    }
    if meta(x).is_some_and(|m| m.made_without_grad_of_one_that_requires()) {
        return Err(Error::Autograd {
            message: "A view was created in no_grad mode and is being modified inplace with grad \
                      mode enabled. Given that this use case is ambiguous and error-prone, it is \
                      forbidden. You can clarify your code by moving both the view and the \
                      inplace either both inside the no_grad block (if you don't want the \
                      inplace to be tracked) or both outside (if you want the inplace to be \
                      tracked)."
                .into(),
            help: "make the view and change it in place both inside `no_grad`, or both outside"
                .into(),
        });
    }
    // PyTorch forbids changing one of several views one op made, or a
    // view of one (named by its own op: `Select` for `p[0]`).
    let of_parts = meta(x)
        .and_then(|m| m.view.as_ref())
        .is_some_and(|v| v.of_parts);
    if let Some((node, k)) = meta(x).and_then(|m| m.grad_fn()) {
        if (node.outputs > 1 && node.view) || of_parts {
            return Err(Error::Autograd {
                message: format!(
                    "Output {k} of {} is a view and is being modified inplace. This view is the \
                     output of a function that returns multiple views. Such functions do not \
                     allow the output views to be modified inplace. You should replace the \
                     inplace operation by an out-of-place one.",
                    super::meta::op_name(node.name)
                ),
                help: "change a `.clone()` of the part, or compute the part out of place \
                       (`p = p * 2`, not `p *= 2`)"
                    .into(),
            });
        }
    }
    if let Some(m) = meta(x) {
        // A view made a leaf itself (`v = x[1:]; v.requires_grad_()`) is
        // refused as PyTorch refuses it: as a view of a leaf.
        let viewed_leaf = m
            .view
            .as_ref()
            .map(|v| v.base())
            .filter(|base| !base.has_grad_fn() && base.requires_grad());
        let leaf = !m.has_grad_fn() && m.requires_grad();
        if leaf && m.view.is_none() {
            return Err(Error::Autograd {
                message:
                    "a leaf Variable that requires grad is being used in an in-place operation."
                        .into(),
                help:
                    "change parameters in place under `no_grad { }` (as an optimizer's step does), \
                       or work on `x.detach()`"
                        .into(),
            });
        }
        if viewed_leaf.is_some() || leaf {
            return Err(Error::Autograd {
                message: "a view of a leaf Variable that requires grad is being used in an \
                          in-place operation"
                    .into(),
                help: "change parameters in place under `no_grad { }`, or work on a `.clone()`"
                    .into(),
            });
        }
    }
    Ok(())
}

/// Whether an in-place op on `x` with `others` read is recorded: grad
/// mode is on, a float `x` with elements (writing none changes no
/// gradient), and `x` or an operand requires grad.
fn records(mode: Mode, x: &Tensor, others: &[&Tensor]) -> bool {
    if forward_ad::any_dual(&[x]) || forward_ad::any_dual(others) {
        forward_ad::mark();
    }
    mode.enabled
        && x.dtype().is_float()
        && x.numel() > 0
        && (requires_grad(x) || others.iter().any(|t| requires_grad(t)))
}

/// What an in-place op on `x` changes the history of: `x` itself, or the
/// base `x` is a view of. A view autograd does not track (made under
/// `no_grad { }`, which PyTorch forbids too, or of a base laid out
/// otherwise) is refused.
fn check_target(x: &Tensor) -> R<()> {
    let untracked = match meta(x) {
        Some(m) if m.view.is_some() => false,
        Some(m) => match m.grad_fn() {
            Some((node, _)) => node.view,
            None => !x.covers_storage(),
        },
        None => !x.covers_storage(),
    };
    match untracked {
        true => Err(Error::Autograd {
            message: "cudash cannot record an in-place op on this view: autograd does not know \
                      the tensor it views (a view made under `no_grad { }` is not tracked; \
                      PyTorch forbids this too)"
                .into(),
            help: "make the view outside `no_grad { }`, write through the tensor itself \
                   (`x[0] = v`, `x[1:] += v`), or work on a `.clone()` of the view"
                .into(),
        }),
        false => Ok(()),
    }
}

/// The node of an in-place op on `x`: its first edge is where `x`'s old
/// elements' gradient goes (the base's history for a view: `CopySlices`
/// writes it back into the base's gradient).
fn node(
    rt: &Runtime,
    x: &Tensor,
    name: &'static str,
    backward: Backward,
    others: &[Option<&Tensor>],
) -> Node {
    let first = match meta(x).and_then(|m| m.view.as_ref()) {
        Some(v) => v.base().edge(),
        None => edge(x),
    };
    let mut next = Edges::from_elem(first, 1);
    let mut inputs = Inputs::from_elem(InputMeta::of(x), 1);
    for t in others {
        next.push(t.map_or(Edge::None, edge));
        inputs.push(t.map_or(InputMeta::of(x), InputMeta::of));
    }
    Node::new(name, backward, next, inputs, forward_stream(rt, x))
}

/// `node` (made by `node()` for an op that has run) becomes `x`'s history.
fn rebase(x: &Tensor, node: Node) {
    let m = meta_or_leaf(x);
    super::meta::mark_base(x);
    let Some(v) = &m.view else {
        let node = Arc::new(node);
        if m.retains_grad() {
            lock(&node.retained).push((0, Arc::downgrade(m.grad_cell())));
        }
        m.rebase(node);
        return;
    };
    let base = v.base();
    let mut next = Edges::from_elem(base.edge(), 1);
    next.extend(node.next[1..].iter().cloned());
    let mut inputs = Inputs::from_elem(v.base_input.clone(), 1);
    inputs.extend(node.inputs[1..].iter().cloned());
    let stream = node.stream;
    let backward = Backward::CopySlices {
        view: v.geometry.clone(),
        inner: Arc::new(node),
    };
    base.rebase(Arc::new(Node::new(
        "CopySlices",
        backward,
        next,
        inputs,
        stream,
    )));
}

/// `x.add_(y, alpha=a)` (and `sub_`, with `-a`): one kernel into x when
/// nothing is recorded (the optimizers' and `p.data.add_(g, alpha=-lr)`'s
/// case); recorded as `x += y * a` otherwise, with the same gradients.
pub fn add_scaled_(rt: &mut Runtime, mode: Mode, x: &Tensor, y: Operand, alpha: &Tensor) -> R<()> {
    check_leaf(mode, x)?;
    let others: &[&Tensor] = if y.weak { &[] } else { &[y.tensor] };
    let a = Operand::weak(alpha);
    // Dual tensors (forward-mode AD): as its parts, each carrying its tangent.
    if !forward_ad::any_dual(&[x, y.tensor])
        && !records(mode, x, others)
        && (y.weak || y.tensor.dtype() == x.dtype())
    {
        return rt.ternary_(TernaryOp::AddScaled, x, y, a);
    }
    let scaled = super::record::binary(rt, mode, BinaryOp::Mul, y, a)?;
    binary_(rt, mode, BinaryOp::Add, x, Operand::strong(&scaled))
}

/// `x op= y` in place (`+ - * /`, and `clamp_`'s bounds as `maximum` /
/// `minimum` with a number), recorded when `x` or `y` requires grad.
pub fn binary_(rt: &mut Runtime, mode: Mode, op: BinaryOp, x: &Tensor, y: Operand) -> R<()> {
    check_leaf(mode, x)?;
    let tangent = forward_ad::before_in_place(rt, &[x, y.tensor], |rt, ts| {
        let out = rt.binary(op, Operand::strong(x), y)?;
        jvp::binary(
            &mut super::record::Recording { rt, mode },
            op,
            (Operand::strong(x), y),
            (&ts[0], &ts[1]),
            &out,
        )
    })?;
    binary_node_(rt, mode, op, x, y)?;
    match tangent {
        Some(t) => forward_ad::in_place(rt, x, &t),
        None => Ok(()),
    }
}

fn binary_node_(rt: &mut Runtime, mode: Mode, op: BinaryOp, x: &Tensor, y: Operand) -> R<()> {
    let others: &[&Tensor] = if y.weak { &[] } else { &[y.tensor] };
    if !records(mode, x, others) {
        return rt.binary_(op, x, y);
    }
    check_target(x)?;
    let clamp = matches!(op, BinaryOp::Maximum | BinaryOp::Minimum) && y.weak;
    if !(clamp
        || matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
        ))
    {
        let what = format!("{}_ on a tensor in a graph", op.name());
        return Err(unsupported(&what));
    }
    let ry = !y.weak && requires_grad(y.tensor);
    let rx = requires_grad(x);
    // Saved before the op: y at its version now, and what y's gradient
    // needs of x's old value (PyTorch's `original_self`).
    let y_saved = Saved::operand(y.tensor, y.weak);
    let original = match (op, ry) {
        (BinaryOp::Mul | BinaryOp::Div, true) => {
            let copy = rt.copy(x)?;
            Some(Saved::new(&copy))
        }
        _ => None,
    };
    let other = (!y.weak).then_some(y.tensor);
    rt.binary_(op, x, y)?;
    let (name, backward) = match op {
        BinaryOp::Add => ("AddBackward0", Backward::Add),
        BinaryOp::Sub => ("SubBackward0", Backward::Sub),
        BinaryOp::Mul => (
            "MulBackward0",
            Backward::Mul {
                a: original,
                b: rx.then_some(y_saved),
            },
        ),
        BinaryOp::Div => (
            "DivBackward0",
            Backward::Div {
                a: original,
                b: y_saved,
            },
        ),
        // `clamp_(min=m)`: the result is above the bound exactly where x was,
        // so the changed x (at its version after the op) is what is saved.
        _ => (
            "ClampBackward1",
            Backward::ClampOne {
                x: Saved::new(x),
                bound: y_saved,
                min: op == BinaryOp::Maximum,
            },
        ),
    };
    let node = node(rt, x, name, backward, &[other]);
    rebase(x, node);
    Ok(())
}

/// `x.op_()` (`x.relu_()`, `x.exp_()`...): one kernel into x, recorded
/// with the node of `op(x)` when x requires grad. What the formula needs
/// is saved as PyTorch saves it: the result (x after the op), or a copy
/// of x's old elements taken first (`original_self`).
pub fn unary_(rt: &mut Runtime, mode: Mode, op: UnaryOp, x: &Tensor) -> R<()> {
    check_leaf(mode, x)?;
    let tangent = forward_ad::before_in_place(rt, &[x], |rt, ts| {
        let out = rt.unary(op, x)?;
        let saves = super::record::unary_saves(op).map(|s| matches!(s, UnarySaves::Output));
        match &ts[0] {
            Some(t) => jvp::unary(
                &mut super::record::Recording { rt, mode },
                (op, saves),
                (x, &out),
                t,
            ),
            None => super::ops::full_like(rt, x, 0),
        }
    })?;
    unary_node_(rt, mode, op, x)?;
    match tangent {
        Some(t) => forward_ad::in_place(rt, x, &t),
        None => Ok(()),
    }
}

fn unary_node_(rt: &mut Runtime, mode: Mode, op: UnaryOp, x: &Tensor) -> R<()> {
    if !records(mode, x, &[]) {
        return rt.unary_(op, x);
    }
    check_target(x)?;
    let original = match super::record::unary_saves(op) {
        Some(UnarySaves::Input) => Some(rt.copy(x)?),
        _ => None,
    };
    rt.unary_(op, x)?;
    let backward = match super::record::unary_saves(op) {
        None if op == UnaryOp::Neg => Backward::Neg,
        None => Backward::Zero,
        Some(UnarySaves::Output) => Backward::Unary {
            op,
            saved: Saved::new(x),
        },
        Some(UnarySaves::Input) => Backward::Unary {
            op,
            saved: Saved::new(original.as_deref().unwrap_or(x)),
        },
    };
    let node = node(rt, x, super::node::unary_name(op), backward, &[]);
    rebase(x, node);
    Ok(())
}

/// x's elements replaced by `out` (an op of x alone computed aside, as
/// `F.elu(x, inplace=True)`), recorded when x requires grad with the node
/// `node_of` makes from what it saves: a copy of x's old elements
/// (`original`), else x itself after the op (the result).
pub fn replaced(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    name: &'static str,
    out: &Tensor,
    original: bool,
    node_of: impl FnOnce(Saved) -> Backward,
) -> R<()> {
    check_leaf(mode, x)?;
    if !records(mode, x, &[]) {
        return rt.assign(x, out);
    }
    check_target(x)?;
    let old = match original {
        true => Some(rt.copy(x)?),
        false => None,
    };
    rt.assign(x, out)?;
    let saved = Saved::new(old.as_deref().unwrap_or(x));
    let node = node(rt, x, name, node_of(saved), &[]);
    rebase(x, node);
    Ok(())
}

/// `op`, an in-place op on `x` reading `others`, and its node (made by
/// `node_of`) as `x`'s history when it is recorded (the ops whose node
/// needs nothing saved before the op).
pub(crate) fn recorded(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    others: &[Option<&Tensor>],
    node_of: impl FnOnce() -> (&'static str, Backward),
    op: impl FnOnce(&mut Runtime) -> R<()>,
) -> R<()> {
    check_leaf(mode, x)?;
    let read: Vec<&Tensor> = others.iter().flatten().copied().collect();
    if !records(mode, x, &read) {
        return op(rt);
    }
    check_target(x)?;
    op(rt)?;
    let (name, backward) = node_of();
    let node = node(rt, x, name, backward, others);
    rebase(x, node);
    Ok(())
}

/// `x.fill_(v)`, `x.zero_()`, `x.normal_()` (`name`: the
/// node, `FillBackward2`…): `op` overwrites every element, so their
/// gradient is zeros.
pub fn overwrite(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    name: &'static str,
    op: impl FnOnce(&mut Runtime) -> R<()>,
) -> R<()> {
    // Forward-mode AD: the tangent of what overwrites x is zeros.
    let tangent = forward_ad::before_in_place(rt, &[x], |rt, _| super::ops::full_like(rt, x, 0))?;
    recorded(rt, mode, x, &[], || (name, Backward::Overwritten), op)?;
    match tangent {
        Some(t) => forward_ad::in_place(rt, x, &t),
        None => Ok(()),
    }
}

/// `x.copy_(src)`, and `x[i] = v` through the view `x[i]` (`op` writes):
/// `CopyBackwards`, the gradient to `src`.
pub fn copy_(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    src: &Tensor,
    op: impl FnOnce(&mut Runtime) -> R<()>,
) -> R<()> {
    // Forward-mode AD: x's tangent becomes src's (broadcast, in x's dtype).
    let tangent = forward_ad::before_in_place(rt, &[x, src], |rt, ts| match &ts[1] {
        Some(t) => {
            let wide = Arc::new(t.expand(x.shape()));
            match wide.dtype() == x.dtype() {
                true => Ok(wide),
                false => rt.cast(&wide, x.dtype()),
            }
        }
        None => super::ops::full_like(rt, x, 0),
    })?;
    recorded(
        rt,
        mode,
        x,
        &[Some(src)],
        || ("CopyBackwards", Backward::Copy),
        op,
    )?;
    match tangent {
        Some(t) => forward_ad::in_place(rt, x, &t),
        None => Ok(()),
    }
}

/// `x[indices] = src` with integer tensors or a mask (`op` writes):
/// `IndexPutBackward0`, or `MaskedFillBackward0` for a number (`src`
/// none) through a mask.
pub fn index_put(
    rt: &mut Runtime,
    mode: Mode,
    x: &Tensor,
    items: &[Index],
    src: Option<&Tensor>,
    op: impl FnOnce(&mut Runtime) -> R<()>,
) -> R<()> {
    let node_of = || {
        let mask = items
            .iter()
            .any(|i| matches!(i, Index::Tensor(m) if m.dtype() == DType::Bool));
        let name = match (src, mask) {
            (None, true) => "MaskedFillBackward0",
            _ => "IndexPutBackward0",
        };
        let backward = Backward::IndexPut {
            items: items.to_vec(),
        };
        (name, backward)
    };
    recorded(rt, mode, x, &[src], node_of, op)
}

/// `view` (= `base[items]`, basic indexing) made a view autograd tracks,
/// so that writing into it changes `base`'s history: recorded as
/// `x[items]` when `base` requires grad, else a view of a base that
/// does not (yet). Only when grad mode is on and `base` is a float tensor
/// laid out contiguously; `view` as it is otherwise.
pub fn writable(
    rt: &mut Runtime,
    mode: Mode,
    base: &Tensor,
    items: &[Index],
    view: Arc<Tensor>,
) -> R<Arc<Tensor>> {
    if !mode.enabled || !base.dtype().is_float() {
        return Ok(view);
    }
    if requires_grad(base) {
        return super::record::index(rt, mode, base, view, items);
    }
    let view = match view.autograd().is_some() {
        true => Arc::new(view.alias()),
        false => view,
    };
    Ok(super::record::plain_view(mode, base, view))
}
