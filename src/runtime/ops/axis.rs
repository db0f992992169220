//! A reduction's layout: the input as [outer, len, inner], reduced along
//! the middle axis (one dim, or every element when outer and inner are 1).

use super::super::buffer::Stored;

/// A tensor read as [outer, len, inner], reduced along the middle axis.
#[derive(Clone, Copy)]
pub struct Layout {
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
}

impl Layout {
    pub fn at(&self, o: usize, k: usize, i: usize) -> usize {
        (o * self.len + k) * self.inner + i
    }
}

/// Folds the middle axis with `add`, starting from `zero` (the identity).
pub fn sum_axis<T: Stored, A: Copy>(
    s: &[T],
    lay: Layout,
    conv: impl Fn(T) -> A,
    zero: A,
    add: impl Fn(A, A) -> A,
) -> Vec<A> {
    let mut out = vec![zero; lay.outer * lay.inner];
    for o in 0..lay.outer {
        let acc = &mut out[o * lay.inner..(o + 1) * lay.inner];
        for k in 0..lay.len {
            let row = &s[lay.at(o, k, 0)..lay.at(o, k, 0) + lay.inner];
            for (a, &x) in acc.iter_mut().zip(row) {
                *a = add(*a, conv(x));
            }
        }
    }
    out
}
