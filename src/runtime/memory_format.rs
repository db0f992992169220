//! Memory formats: the order a dense tensor's dimensions lie in memory, as
//! PyTorch decides it. `torch.channels_last` lays an NCHW tensor out
//! pixel by pixel (strides `(HWC, 1, WC, C)`); `contiguous_format` is
//! row-major. An op that makes a new tensor from others keeps their order,
//! as PyTorch's TensorIterator does (`compute_fast_setup_type`,
//! `reorder_dimensions`): `clone`, `empty_like`, `.to(...)` and every
//! elementwise op of a channels-last tensor give a channels-last tensor.
//! Every such layout is a row-major buffer seen through a permutation
//! (`Order`), which is how the ops make it: they compute in the permuted
//! order, then give back the view with PyTorch's strides.

use crate::error::Error;
use crate::runtime::shape::{contiguous_strides, is_contiguous};
use crate::runtime::Tensor;

/// `torch.contiguous_format`, `torch.channels_last`,
/// `torch.channels_last_3d` and `torch.preserve_format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryFormat {
    Contiguous,
    ChannelsLast,
    ChannelsLast3d,
    Preserve,
}

impl MemoryFormat {
    /// Its name after `torch.`.
    pub fn name(self) -> &'static str {
        match self {
            MemoryFormat::Contiguous => "contiguous_format",
            MemoryFormat::ChannelsLast => "channels_last",
            MemoryFormat::ChannelsLast3d => "channels_last_3d",
            MemoryFormat::Preserve => "preserve_format",
        }
    }

    pub fn from_name(name: &str) -> Option<MemoryFormat> {
        [
            MemoryFormat::Contiguous,
            MemoryFormat::ChannelsLast,
            MemoryFormat::ChannelsLast3d,
            MemoryFormat::Preserve,
        ]
        .into_iter()
        .find(|f| f.name() == name)
    }

    /// The dimensions in memory order, outermost first, for a format with
    /// a fixed order (None for `Preserve`, or a rank it does not fit).
    fn order(self, ndim: usize) -> Option<Vec<usize>> {
        match (self, ndim) {
            (MemoryFormat::Contiguous, n) => Some((0..n).collect()),
            (MemoryFormat::ChannelsLast, 4) => Some(vec![0, 2, 3, 1]),
            (MemoryFormat::ChannelsLast3d, 5) => Some(vec![0, 2, 3, 4, 1]),
            _ => None,
        }
    }
}

/// The strides `format` gives `shape` (`torch.empty(..., memory_format=)`,
/// `x.to(memory_format=)`): PyTorch's error for a rank it does not fit.
pub fn strides_for(format: MemoryFormat, shape: &[usize]) -> Result<Vec<isize>, Error> {
    let order = format.order(shape.len()).ok_or_else(|| match format {
        MemoryFormat::ChannelsLast => {
            Error::runtime("required rank 4 tensor to use channels_last format")
        }
        MemoryFormat::ChannelsLast3d => {
            Error::runtime("required rank 5 tensor to use channels_last_3d format")
        }
        _ => Error::runtime("unsupported memory format option Preserve"),
    })?;
    Ok(strides_in_order(shape, &order))
}

/// Row-major strides over `order` (outermost first): a size-1 dimension
/// counts as PyTorch counts it (`get_channels_last_strides_2d` multiplies
/// by the size itself, so a later stride may repeat).
fn strides_in_order(shape: &[usize], order: &[usize]) -> Vec<isize> {
    if order.iter().copied().eq(0..shape.len()) {
        return contiguous_strides(shape);
    }
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for &d in order.iter().rev() {
        strides[d] = acc;
        acc *= shape[d] as isize;
    }
    strides
}

/// The strides a copy of a tensor laid out as `shape`/`strides` gets in
/// `format`: its own order for `preserve_format` (`preserved_strides`),
/// else the format's (`strides_for`).
pub fn copy_strides(
    format: MemoryFormat,
    shape: &[usize],
    strides: &[isize],
) -> Result<Vec<isize>, Error> {
    match format {
        MemoryFormat::Preserve => Ok(preserved_strides(shape, strides)),
        f => strides_for(f, shape),
    }
}

/// `x.is_contiguous(memory_format=...)`: whether the elements lie in that
/// format's order with no gaps (a size-1 dimension's stride does not
/// count); false for a rank the format does not fit.
pub fn is_contiguous_as(format: MemoryFormat, shape: &[usize], strides: &[isize]) -> bool {
    let Some(order) = format.order(shape.len()) else {
        return false;
    };
    let mut expect = 1isize;
    for &d in order.iter().rev() {
        if shape[d] != 1 {
            if strides[d] != expect {
                return false;
            }
            expect *= shape[d] as isize;
        }
    }
    true
}

/// PyTorch's `is_non_overlapping_and_dense`: the elements fill a block of
/// memory exactly, in some order of the dimensions.
pub fn is_non_overlapping_and_dense(shape: &[usize], strides: &[isize]) -> bool {
    let mut dims: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] > 1).collect();
    dims.sort_by_key(|&d| strides[d]);
    let mut expect = 1isize;
    for d in dims {
        if strides[d] != expect {
            return false;
        }
        expect *= shape[d] as isize;
    }
    true
}

/// PyTorch's `suggest_memory_format`: channels-last when the strides look
/// like it (`is_channels_last_strides_2d`), else contiguous.
pub fn suggest(shape: &[usize], strides: &[isize]) -> MemoryFormat {
    let format = match shape.len() {
        4 => MemoryFormat::ChannelsLast,
        5 => MemoryFormat::ChannelsLast3d,
        _ => return MemoryFormat::Contiguous,
    };
    let order = format.order(shape.len()).expect("the rank fits the format");
    if strides[1] == 0 {
        return MemoryFormat::Contiguous;
    }
    // Innermost first, as PyTorch walks it.
    let mut min = 0isize;
    for &d in order.iter().rev() {
        if strides[d] == 0 || strides[d] < min || (d == 0 && min == strides[1]) {
            return MemoryFormat::Contiguous;
        }
        min = strides[d];
        if shape[d] > 1 {
            min *= shape[d] as isize;
        }
    }
    format
}

/// The strides of a new tensor of `shape` made elementwise from
/// `operands` (each broadcast to `shape`): PyTorch's TensorIterator. When
/// every operand has the shape: row-major if all are, channels-last if
/// all are, their strides if all share them and are dense. Otherwise the
/// dimensions are ordered by the operands' strides, the first operand
/// that tells two dimensions apart deciding (a broadcast dimension tells
/// nothing), and the new tensor is dense in that order.
pub fn elementwise_strides(shape: &[usize], operands: &[(&[usize], &[isize])]) -> Vec<isize> {
    let n = shape.len();
    let same_shape = operands.iter().all(|(s, _)| *s == shape);
    if same_shape && !operands.is_empty() {
        if operands.iter().all(|(s, st)| is_contiguous(s, st)) {
            return contiguous_strides(shape);
        }
        let cl = MemoryFormat::ChannelsLast;
        if let Some(order) = cl.order(n) {
            if operands.iter().all(|(s, st)| is_contiguous_as(cl, s, st)) {
                return strides_in_order(shape, &order);
            }
        }
        let first = operands[0].1;
        if operands
            .iter()
            .all(|(s, st)| is_non_overlapping_and_dense(s, st) && *st == first)
        {
            return first.to_vec();
        }
    }
    // Each operand's strides over `shape`: 0 where it broadcasts.
    let strides: Vec<Vec<isize>> = operands
        .iter()
        .map(|(s, st)| {
            let offset = n - s.len();
            let mut out = vec![0isize; n];
            for i in 0..s.len() {
                if !(s[i] == 1 && shape[offset + i] != 1) {
                    out[offset + i] = st[i];
                }
            }
            out
        })
        .collect();
    // 1: dim1 lies inside dim0 (swap), -1: keep, 0: undecided.
    let should_swap = |d0: usize, d1: usize| -> i32 {
        for st in &strides {
            let (s0, s1) = (st[d0], st[d1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 < s1 {
                return -1;
            }
            if s0 > s1 {
                return 1;
            }
            if shape[d0] > shape[d1] {
                return 1;
            }
        }
        0
    };
    // Innermost first, as PyTorch's insertion sort runs it.
    let mut perm: Vec<usize> = (0..n).rev().collect();
    if n > 1 {
        for i in 1..n {
            let mut d1 = i;
            for d0 in (0..i).rev() {
                match should_swap(perm[d0], perm[d1]) {
                    c if c > 0 => {
                        perm.swap(d0, d1);
                        d1 = d0;
                    }
                    c if c < 0 => break,
                    _ => {}
                }
            }
        }
    }
    if perm.iter().copied().eq((0..n).rev()) {
        return contiguous_strides(shape);
    }
    let mut out = vec![0isize; n];
    let mut acc = 1isize;
    for &d in &perm {
        out[d] = acc;
        acc *= shape[d] as isize;
    }
    out
}

/// The strides `.clone()` and `empty_like` give a copy of a tensor laid
/// out as `shape`/`strides` (`preserve_format`): the same when dense
/// (also a size-1 dimension's), else dense in the same order.
pub fn preserved_strides(shape: &[usize], strides: &[isize]) -> Vec<isize> {
    match is_non_overlapping_and_dense(shape, strides) {
        true => strides.to_vec(),
        false => elementwise_strides(shape, &[(shape, strides)]),
    }
}

/// The layout `preserve_format` gives a copy of `x` (`clone`, `.to(...)`),
/// or None when it is row-major.
pub fn preserved_order(x: &Tensor) -> Option<Order> {
    if exactly_row_major(x.shape(), x.strides()) {
        return None;
    }
    Order::of(x.shape(), preserved_strides(x.shape(), x.strides()))
}

/// Whether every tensor is laid out exactly row-major: then so is what
/// is made from them elementwise (asked before anything else, as most
/// tensors are).
pub fn all_row_major(inputs: &[&Tensor]) -> bool {
    inputs
        .iter()
        .all(|t| exactly_row_major(t.shape(), t.strides()))
}

/// Whether `strides` are exactly `contiguous_strides(shape)` (a size-1
/// dimension's too), without making them.
fn exactly_row_major(shape: &[usize], strides: &[isize]) -> bool {
    let mut acc = 1isize;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if s != acc {
            return false;
        }
        acc *= d.max(1) as isize;
    }
    true
}

/// The layout of a new tensor of `shape` made elementwise from `inputs`,
/// or None when it is row-major (every input row-major: nothing to ask).
pub fn elementwise_order(shape: &[usize], inputs: &[&Tensor]) -> Option<Order> {
    if shape.len() < 2 || all_row_major(inputs) {
        return None;
    }
    let operands: Vec<(&[usize], &[isize])> =
        inputs.iter().map(|t| (t.shape(), t.strides())).collect();
    Order::of(shape, elementwise_strides(shape, &operands))
}

/// A layout to make a tensor in: row-major over a permutation of its
/// dimensions, seen back with PyTorch's strides.
pub struct Order {
    shape: Vec<usize>,
    strides: Vec<isize>,
    /// The dimensions, outermost first in memory.
    perm: Vec<usize>,
}

impl Order {
    /// The layout of `strides` over `shape`, or None when it is row-major
    /// (nothing to permute). `strides` must be dense.
    pub fn of(shape: &[usize], strides: Vec<isize>) -> Option<Order> {
        if strides == contiguous_strides(shape) {
            return None;
        }
        let mut perm: Vec<usize> = (0..shape.len()).collect();
        perm.sort_by_key(|&d| std::cmp::Reverse(strides[d]));
        Some(Order {
            shape: shape.to_vec(),
            strides,
            perm,
        })
    }

    /// The shape a row-major tensor is made in.
    pub fn permuted_shape(&self) -> Vec<usize> {
        self.perm.iter().map(|&d| self.shape[d]).collect()
    }

    /// `t` (broadcastable to the shape) seen in the permuted order: a view,
    /// nothing copied; a 0-d tensor as it is.
    pub fn permuted(&self, t: &Tensor) -> Tensor {
        if t.ndim() == 0 {
            return t.alias();
        }
        let lead = self.shape.len() - t.ndim();
        let full = |d: usize| match d.checked_sub(lead) {
            Some(i) => (t.shape()[i], t.strides()[i]),
            None => (1, 0),
        };
        let shape = self.perm.iter().map(|&d| full(d).0).collect();
        let strides = self.perm.iter().map(|&d| full(d).1).collect();
        t.view(shape, strides, t.offset())
    }

    /// `made`, row-major in the permuted order, seen with the layout's own
    /// shape and strides.
    pub fn restore(&self, made: &Tensor) -> Tensor {
        made.view(self.shape.clone(), self.strides.clone(), made.offset())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CL: MemoryFormat = MemoryFormat::ChannelsLast;

    // Every expected value below is what PyTorch 2.15 printed.
    #[test]
    fn channels_last_strides_are_pytorchs() {
        assert_eq!(strides_for(CL, &[10, 3, 32, 32]).unwrap(), [3072, 1, 96, 3]);
        assert_eq!(strides_for(CL, &[2, 1, 4, 4]).unwrap(), [16, 1, 4, 1]);
        assert_eq!(strides_for(CL, &[2, 3, 1, 1]).unwrap(), [3, 1, 3, 3]);
        assert_eq!(strides_for(CL, &[1, 3, 4, 4]).unwrap(), [48, 1, 12, 3]);
        let five = strides_for(MemoryFormat::ChannelsLast3d, &[2, 3, 4, 5, 6]).unwrap();
        assert_eq!(five, [360, 1, 90, 18, 3]);
        assert!(strides_for(CL, &[2, 3, 4]).is_err());
    }

    #[test]
    fn ambiguous_shapes_are_both_formats() {
        let s = contiguous_strides(&[4, 1, 4, 4]);
        assert!(is_contiguous_as(CL, &[4, 1, 4, 4], &s));
        let s = contiguous_strides(&[4, 3, 1, 1]);
        assert!(is_contiguous_as(CL, &[4, 3, 1, 1], &s));
        assert!(!is_contiguous_as(CL, &[2, 3, 4], &[12, 4, 1]));
    }

    #[test]
    fn elementwise_outputs_follow_the_first_operand_that_decides() {
        let shape = [2, 3, 4, 5];
        let cl = strides_for(CL, &shape).unwrap();
        let c = contiguous_strides(&shape);
        let got = |ops: &[(&[usize], &[isize])]| elementwise_strides(&shape, ops);
        assert_eq!(got(&[(&shape, &cl)]), [60, 1, 15, 3]);
        assert_eq!(got(&[(&shape, &cl), (&shape, &c)]), [60, 1, 15, 3]);
        assert_eq!(got(&[(&shape, &c), (&shape, &cl)]), [60, 20, 5, 1]);
        assert_eq!(got(&[(&shape, &cl), (&[5], &[1])]), [60, 1, 15, 3]);
        assert_eq!(
            got(&[(&shape, &cl), (&[3, 1, 1], &[1, 1, 1])]),
            [60, 1, 15, 3]
        );
        // A transposed matrix and a plain one, either way round.
        let t: (&[usize], &[isize]) = (&[4, 3], &[1, 4]);
        let plain: (&[usize], &[isize]) = (&[4, 3], &[3, 1]);
        assert_eq!(elementwise_strides(&[4, 3], &[t, plain]), [1, 4]);
        assert_eq!(elementwise_strides(&[4, 3], &[plain, t]), [3, 1]);
    }

    #[test]
    fn a_strided_view_is_copied_dense_in_its_order() {
        // x[:, ::2] of a channels-last tensor: not dense, same order.
        let got = preserved_strides(&[2, 3, 4, 5], &[120, 1, 30, 6]);
        assert_eq!(got, [60, 1, 15, 3]);
        assert!(!is_non_overlapping_and_dense(
            &[2, 3, 4, 5],
            &[120, 1, 30, 6]
        ));
        assert!(is_non_overlapping_and_dense(&[2, 3, 4, 5], &[60, 1, 15, 3]));
    }

    #[test]
    fn suggested_formats_are_pytorchs() {
        assert_eq!(suggest(&[2, 3, 4, 5], &[60, 1, 15, 3]), CL);
        assert_eq!(
            suggest(&[2, 3, 4, 5], &[60, 20, 5, 1]),
            MemoryFormat::Contiguous
        );
        // N111: contiguous by PyTorch's tie rule.
        assert_eq!(
            suggest(&[4, 1, 1, 1], &[1, 1, 1, 1]),
            MemoryFormat::Contiguous
        );
    }
}
