//! `torch.multinomial` of a CPU tensor as PyTorch draws it
//! (`native/Distributions.cpp`, `cpu/MultinomialKernel.cpp`): without
//! replacement, or one sample, `argmax`/`topk` of `p / q` with `q`
//! exponential (the Gumbel trick); with replacement, a binary search of a
//! uniform double in each row's normalized running sums.

use std::cmp::Ordering;

use super::fill::rounded;
use super::CpuGenerator;
use crate::vocab::DType;

/// Rows of weights (`weights.len() = rows * cols`, each already in
/// `dtype`'s values), `n` draws from each: the categories, row by row.
pub fn draw(
    g: &mut CpuGenerator,
    weights: &[f64],
    cols: usize,
    n: usize,
    replacement: bool,
    dtype: DType,
) -> Vec<i64> {
    let rows: Vec<&[f64]> = weights.chunks(cols.max(1)).collect();
    if !replacement || n == 1 {
        // The exponential numbers for every weight are drawn first.
        let q: Vec<f64> = (0..weights.len())
            .map(|_| rounded(g.exponential(1.0), dtype))
            .collect();
        return rows
            .iter()
            .zip(q.chunks(cols.max(1)))
            .flat_map(|(p, q)| largest(p, q, n, dtype))
            .collect();
    }
    let mut out = Vec::with_capacity(rows.len() * n);
    for row in rows {
        let cum = running_sums(row, dtype);
        for _ in 0..n {
            let u = g.uniform_f64(0.0, 1.0);
            out.push(cum.partition_point(|&c| c < u) as i64);
        }
    }
    out
}

/// The `n` categories of the largest `p / q` (in `dtype`), largest first
/// (`topk`; `argmax` for one, the first of equal ones).
fn largest(p: &[f64], q: &[f64], n: usize, dtype: DType) -> Vec<i64> {
    let ratio: Vec<f64> = p
        .iter()
        .zip(q)
        // Float and half precision divide in float, then round.
        .map(|(p, q)| match dtype {
            DType::F64 => p / q,
            _ => rounded(rounded(p / q, DType::F32), dtype),
        })
        .collect();
    let mut order: Vec<usize> = (0..ratio.len()).collect();
    order.sort_by(|&a, &b| {
        ratio[b]
            .partial_cmp(&ratio[a])
            .unwrap_or(Ordering::Equal)
            .then(a.cmp(&b))
    });
    order.into_iter().take(n).map(|i| i as i64).collect()
}

/// A row's running sums in `dtype` (float for half precision), each
/// divided by the total, the last set to 1.
fn running_sums(row: &[f64], dtype: DType) -> Vec<f64> {
    let acc = match dtype {
        DType::F64 => DType::F64,
        _ => DType::F32,
    };
    let mut sum = 0.0;
    let mut cum: Vec<f64> = row
        .iter()
        .map(|v| {
            sum = rounded(sum + v, acc);
            sum
        })
        .collect();
    for c in cum.iter_mut() {
        *c = rounded(*c / sum, acc);
    }
    if let Some(last) = cum.last_mut() {
        *last = 1.0;
    }
    cum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printed by PyTorch 2.15 after `torch.manual_seed(0)`, with
    /// `p = torch.tensor([0.1, 0.2, 0.7])`: `torch.multinomial(p, 5,
    /// replacement=True)` and `torch.multinomial(p, 2)`.
    #[test]
    fn draws_are_pytorchs() {
        let p: Vec<f64> = [0.1f32, 0.2, 0.7].iter().map(|&v| f64::from(v)).collect();
        let with = draw(&mut CpuGenerator::new(0), &p, 3, 5, true, DType::F32);
        assert_eq!(with, [2, 2, 2, 2, 2]);
        let without = draw(&mut CpuGenerator::new(0), &p, 3, 2, false, DType::F32);
        assert_eq!(without, [2, 1]);
    }
}
