//! `torch.einsum(equation, *operands)` as PyTorch computes it: labels
//! only one operand has and the output lacks are summed first; then the
//! operands are joined left to right, each pair as one batched product
//! (`permute`, `reshape`, `bmm`, `reshape`: PyTorch's `sumproduct_pair`),
//! and the result permuted to the output's order. Every step is a
//! recorded op, so the gradients are PyTorch's nodes (`BmmBackward0`,
//! `ViewBackward0`, `PermuteBackward0`, `SumBackward1`).

use std::sync::Arc;

use super::record;
use super::views;
use super::Mode;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

fn err(message: impl Into<String>) -> Error {
    Error::Module {
        class: "RuntimeError",
        message: message.into(),
        help: Some("e.g. `torch.einsum(\"bij,bjk->bik\", a, b)`: one letter per dimension".into()),
    }
}

/// The labels of each operand and of the output (`None`: implicit, the
/// labels seen once, in alphabetical order).
fn parse(equation: &str, n: usize) -> R<(Vec<Vec<char>>, Vec<char>)> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    if eq.contains("...") {
        return Err(err(
            "einsum(): cudash does not take `...` in an equation yet",
        ));
    }
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let inputs: Vec<Vec<char>> = lhs.split(',').map(|s| s.chars().collect()).collect();
    if inputs.len() != n {
        let which = if inputs.len() < n { "more" } else { "fewer" };
        return Err(err(format!(
            "einsum(): {which} operands were provided than specified in the equation"
        )));
    }
    for labels in &inputs {
        if let Some(c) = labels.iter().find(|c| !c.is_ascii_alphabetic()) {
            return Err(err(format!(
                "einsum(): invalid subscript given at index {}",
                lhs.find(*c).unwrap_or(0)
            )));
        }
    }
    let output = match rhs {
        Some(r) => {
            let out: Vec<char> = r.chars().collect();
            for (k, c) in out.iter().enumerate() {
                if !inputs.iter().any(|l| l.contains(c)) {
                    return Err(err(format!(
                        "einsum(): output subscript {c} does not appear in the equation for any input operand"
                    )));
                }
                if out[..k].contains(c) {
                    return Err(err(format!(
                        "einsum(): output subscript {c} appears more than once in the output"
                    )));
                }
            }
            out
        }
        None => {
            let mut once: Vec<char> = inputs
                .iter()
                .flatten()
                .copied()
                .filter(|c| inputs.iter().flatten().filter(|d| *d == c).count() == 1)
                .collect();
            once.sort_unstable();
            once
        }
    };
    Ok((inputs, output))
}

/// An operand with its labels, one per dimension.
struct Term {
    t: Arc<Tensor>,
    labels: Vec<char>,
}

/// `labels` in the order of `order`'s letters that are among them.
fn dims_of(labels: &[char], order: &[char]) -> Vec<usize> {
    order
        .iter()
        .filter_map(|c| labels.iter().position(|l| l == c))
        .collect()
}

fn size_of(term: &Term, c: char) -> usize {
    let k = term
        .labels
        .iter()
        .position(|&l| l == c)
        .expect("a label of the term");
    term.t.shape()[k]
}

/// `term` summed over the labels no other term and not the output use.
fn sum_lonely(
    rt: &mut Runtime,
    mode: Mode,
    term: Term,
    others: &[&[char]],
    output: &[char],
) -> R<Term> {
    let lonely: Vec<usize> = (0..term.labels.len())
        .filter(|&k| {
            let c = term.labels[k];
            !output.contains(&c) && !others.iter().any(|o| o.contains(&c))
        })
        .collect();
    if lonely.is_empty() {
        return Ok(term);
    }
    let dims: Vec<i64> = lonely.iter().map(|&d| d as i64).collect();
    let t = record::reduce_dims(rt, mode, ReduceOp::Sum, &term.t, &dims, false)?;
    let labels = (0..term.labels.len())
        .filter(|k| !lonely.contains(k))
        .map(|k| term.labels[k])
        .collect();
    Ok(Term { t, labels })
}

/// Two terms as one: batch labels (in both, kept), contracted labels (in
/// both, summed), and each side's own, through one `bmm`.
fn pair(rt: &mut Runtime, mode: Mode, a: Term, b: Term, keep: &[char]) -> R<Term> {
    let in_both = |c: &char| a.labels.contains(c) && b.labels.contains(c);
    let pick = |from: &Term, keep_it: &dyn Fn(&char) -> bool| -> Vec<char> {
        from.labels.iter().copied().filter(|c| keep_it(c)).collect()
    };
    let batch = pick(&a, &|c| in_both(c) && keep.contains(c));
    let summed = pick(&a, &|c| in_both(c) && !keep.contains(c));
    let left = pick(&a, &|c| !b.labels.contains(c));
    let right = pick(&b, &|c| !a.labels.contains(c));
    for &c in batch.iter().chain(&summed) {
        let (x, y) = (size_of(&a, c), size_of(&b, c));
        if x != y {
            return Err(err(format!(
                "einsum(): operands do not broadcast with remapped shapes (original->remapped): subscript {c} has size {x} for one operand and {y} for another"
            )));
        }
    }
    let sizes = |labels: &[char], term: &Term| -> Vec<i64> {
        labels.iter().map(|&c| size_of(term, c) as i64).collect()
    };
    let product = |labels: &[char], term: &Term| -> i64 { sizes(labels, term).iter().product() };
    let (nb, nl, nc, nr) = (
        product(&batch, &a),
        product(&left, &a),
        product(&summed, &a),
        product(&right, &b),
    );
    if summed.is_empty() {
        // Nothing to sum: PyTorch multiplies the two, broadcast (`MulBackward0`).
        let a_order: Vec<char> = batch.iter().chain(&left).copied().collect();
        let b_order: Vec<char> = batch.iter().chain(&right).copied().collect();
        let pa = arranged(rt, mode, &a, &a_order)?;
        let pb = arranged(rt, mode, &b, &b_order)?;
        let mut sa = sizes(&batch, &a);
        sa.extend(sizes(&left, &a));
        sa.extend(std::iter::repeat_n(1, right.len()));
        let mut sb = sizes(&batch, &a);
        sb.extend(std::iter::repeat_n(1, left.len()));
        sb.extend(sizes(&right, &b));
        let ma = views::reshape(rt, mode, &pa, &sa)?;
        let mb = views::reshape(rt, mode, &pb, &sb)?;
        let t = record::binary(
            rt,
            mode,
            crate::runtime::op::binary::BinaryOp::Mul,
            crate::runtime::op::binary::Operand::strong(&ma),
            crate::runtime::op::binary::Operand::strong(&mb),
        )?;
        let labels = batch.iter().chain(&left).chain(&right).copied().collect();
        return Ok(Term { t, labels });
    }
    let a_order: Vec<char> = batch.iter().chain(&left).chain(&summed).copied().collect();
    let b_order: Vec<char> = batch.iter().chain(&summed).chain(&right).copied().collect();
    let pa = arranged(rt, mode, &a, &a_order)?;
    let pb = arranged(rt, mode, &b, &b_order)?;
    let ma = views::reshape(rt, mode, &pa, &[nb, nl, nc])?;
    let mb = views::reshape(rt, mode, &pb, &[nb, nc, nr])?;
    let prod = record::bmm(rt, mode, &ma, &mb)?;
    let mut shape: Vec<i64> = Vec::new();
    shape.extend(batch.iter().map(|&c| size_of(&a, c) as i64));
    shape.extend(left.iter().map(|&c| size_of(&a, c) as i64));
    shape.extend(right.iter().map(|&c| size_of(&b, c) as i64));
    let t = views::reshape(rt, mode, &prod, &shape)?;
    let labels = batch.iter().chain(&left).chain(&right).copied().collect();
    Ok(Term { t, labels })
}

/// `term` permuted to `order` (a view; none when already in order).
fn arranged(rt: &mut Runtime, mode: Mode, term: &Term, order: &[char]) -> R<Arc<Tensor>> {
    let dims = dims_of(&term.labels, order);
    if dims.iter().enumerate().all(|(k, &d)| k == d) {
        return Ok(Arc::clone(&term.t));
    }
    views::permute(rt, mode, &term.t, &dims)
}

/// A label twice in one operand (`"ii->i"`, `"bii->b"`) is its diagonal:
/// as PyTorch does, the second dimension is taken into the first by
/// `diagonal(0, first, second)` (`DiagonalBackward0`) and the diagonal
/// moved to the first's place (`PermuteBackward0`).
fn diagonals(rt: &mut Runtime, mode: Mode, mut term: Term, operand: usize) -> R<Term> {
    loop {
        let repeat = (0..term.labels.len()).find_map(|j| {
            let first = term.labels[..j].iter().position(|&c| c == term.labels[j])?;
            Some((first, j))
        });
        let Some((first, second)) = repeat else {
            return Ok(term);
        };
        let (a, b) = (term.t.shape()[first], term.t.shape()[second]);
        if a != b {
            return Err(err(format!(
                "einsum(): subscript {} is repeated for operand {operand} but the sizes don't match, {b} != {a}",
                term.labels[first]
            )));
        }
        let d = super::diagonals::diagonal(rt, mode, &term.t, (0, first as i64, second as i64))?;
        term.labels.remove(second);
        // The diagonal is last; it goes where the first of the two was
        // (PyTorch's `movedim`, a permute also where nothing moves).
        let n = term.labels.len();
        let mut order: Vec<usize> = (0..n - 1).collect();
        order.insert(first, n - 1);
        term.t = views::permute(rt, mode, &d, &order)?;
    }
}

/// `torch.einsum(equation, *operands)`.
pub fn einsum(
    rt: &mut Runtime,
    mode: Mode,
    equation: &str,
    operands: &[Arc<Tensor>],
) -> R<Arc<Tensor>> {
    if operands.is_empty() {
        return Err(err("einsum(): must provide at least one operand"));
    }
    let (inputs, output) = parse(equation, operands.len())?;
    for (k, (labels, t)) in inputs.iter().zip(operands).enumerate() {
        if labels.len() != t.ndim() {
            return Err(err(format!(
                "einsum(): the number of subscripts in the equation ({}) does not match the number of dimensions ({}) for operand {k} and no ellipsis was given",
                labels.len(),
                t.ndim()
            )));
        }
    }
    let mut terms: Vec<Term> = Vec::new();
    for (k, (labels, t)) in inputs.into_iter().zip(operands).enumerate() {
        let term = Term {
            t: Arc::clone(t),
            labels,
        };
        terms.push(diagonals(rt, mode, term, k)?);
    }
    // Left to right: the first two joined, then the next, ...
    let mut acc = terms.remove(0);
    let single = terms.is_empty().then(|| Arc::clone(&acc.t));
    let rest_labels =
        |terms: &[Term]| -> Vec<Vec<char>> { terms.iter().map(|t| t.labels.clone()).collect() };
    {
        let others = rest_labels(&terms);
        let refs: Vec<&[char]> = others.iter().map(|v| v.as_slice()).collect();
        acc = sum_lonely(rt, mode, acc, &refs, &output)?;
    }
    while !terms.is_empty() {
        let next = terms.remove(0);
        let later = rest_labels(&terms);
        let mut refs: Vec<&[char]> = later.iter().map(|v| v.as_slice()).collect();
        refs.push(&acc.labels);
        let next = sum_lonely(rt, mode, next, &refs, &output)?;
        // What the rest of the equation still needs: the output's labels
        // and the later terms'.
        let mut keep: Vec<char> = output.clone();
        keep.extend(later.iter().flatten().copied());
        acc = pair(rt, mode, acc, next, &keep)?;
    }
    // PyTorch permutes each operand into its order of labels first: one
    // operand nothing was summed over comes out as that permute's view
    // (`PermuteBackward0`), also where nothing moves (`"ij->ij"`).
    if single.is_some_and(|t| Arc::ptr_eq(&t, &acc.t)) {
        return views::permute(rt, mode, &acc.t, &dims_of(&acc.labels, &output));
    }
    let out = arranged(rt, mode, &acc, &output)?;
    Ok(out)
}
