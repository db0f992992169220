//! The kernels' argument structs, laid out exactly as in `kernels/common.cuh`
//! (each kernel takes one of them by value), and the layout planning that
//! turns a tensor's shape and strides into them.
//!
//! Pointers are `u64`: device addresses on a GPU, host addresses in the CPU tests.

pub const MAX_DIMS: usize = 8;

/// An argument struct's bytes, as a launch passes them (`Driver::launch`).
pub fn bytes_of<A: Copy>(a: &A) -> &[u8] {
    // SAFETY: any initialised `Copy` value may be read as bytes; the argument
    // structs (args.rs) are `repr(C)` with explicit padding.
    unsafe { std::slice::from_raw_parts((a as *const A).cast::<u8>(), std::mem::size_of::<A>()) }
}

/// The iteration space: `numel` elements of an `ndim`-dimensional shape, row-major.
/// `flat` (0 or 1) says every operand is contiguous over it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub numel: i64,
    pub ndim: i32,
    pub flat: i32,
    pub sizes: [i64; MAX_DIMS],
}

/// Where one operand's elements are: `offset + Σ index[d] * strides[d]`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strided {
    pub offset: i64,
    pub strides: [i64; MAX_DIMS],
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct BinaryArgs {
    pub out: u64,
    pub a: u64,
    pub b: u64,
    pub shape: Shape,
    pub sa: Strided,
    pub sb: Strided,
}

/// `where(a, b, c)` and `clamp(a, b, c)`: three broadcast operands.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TernaryArgs {
    pub out: u64,
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub shape: Shape,
    pub sa: Strided,
    pub sb: Strided,
    pub sc: Strided,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct UnaryArgs {
    pub out: u64,
    pub input: u64,
    pub shape: Shape,
    pub s: Strided,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CastArgs {
    pub out: u64,
    pub input: u64,
    pub shape: Shape,
    pub sin: Strided,
    pub sout: Strided,
}

/// Advanced indexing: `src` read at the offsets an i64 `index` gives.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TakeArgs {
    pub out: u64,
    pub src: u64,
    pub index: u64,
    pub shape: Shape,
    pub s: Strided,
    pub si: Strided,
    pub size: i64,
    pub stride: i64,
    pub wrap: i32,
    pub _pad: i32,
}

/// Advanced indexing's write: `value` stored at the offsets `index` gives.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PutArgs {
    pub dst: u64,
    pub value: u64,
    pub index: u64,
    pub shape: Shape,
    pub sd: Strided,
    pub sv: Strided,
    pub si: Strided,
    pub size: i64,
    pub stride: i64,
    pub wrap: i32,
    pub _pad: i32,
}

/// Ops along the middle axis of a contiguous `[outer, len, inner]` input
/// (`kernels/along.cu`): `param` is var's correction or norm's order.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct AlongArgs {
    pub out: u64,
    pub input: u64,
    pub outer: i64,
    pub len: i64,
    pub inner: i64,
    pub param: f64,
}

/// One merge pass of a sort (`kernels/sort.cu`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SortArgs {
    pub out_v: u64,
    pub out_i: u64,
    pub in_v: u64,
    pub in_i: u64,
    pub lines: i64,
    pub len: i64,
    pub width: i64,
    pub descending: i32,
    pub first: i32,
}

/// `tril` / `triu` of contiguous matrices.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TriArgs {
    pub out: u64,
    pub input: u64,
    pub numel: i64,
    pub rows: i64,
    pub cols: i64,
    pub diagonal: i64,
    pub upper: i32,
    pub _pad: i32,
}

/// The window ops (`kernels/window.cu`): images of `planes` planes of h x
/// w, their windows' oh x ow places; kernel, stride, padding, dilation.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct WindowArgs {
    pub out: u64,
    pub input: u64,
    pub places: u64,
    pub planes: i64,
    pub h: i64,
    pub w: i64,
    pub oh: i64,
    pub ow: i64,
    pub kh: i64,
    pub kw: i64,
    pub sh: i64,
    pub sw: i64,
    pub ph: i64,
    pub pw: i64,
    pub dh: i64,
    pub dw: i64,
}

/// Fused attention's operands (`kernels/attention.cu`): strides in
/// elements, [B, H, rows, width] (a bias's 0 where it broadcasts).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct AttentionArgs {
    pub q: u64,
    pub k: u64,
    pub v: u64,
    pub bias: u64,
    pub out: u64,
    pub lse: u64,
    pub dout: u64,
    pub dq: u64,
    pub dk: u64,
    pub dv: u64,
    pub delta: u64,
    pub b: i64,
    pub h: i64,
    pub l: i64,
    pub s: i64,
    pub e: i64,
    pub ev: i64,
    pub qs: [i64; 4],
    pub ks: [i64; 4],
    pub vs: [i64; 4],
    pub bs: [i64; 4],
    pub gs: [i64; 4],
    pub os: [i64; 4],
    pub dqs: [i64; 4],
    pub dks: [i64; 4],
    pub dvs: [i64; 4],
    pub scale: f64,
    pub causal: i64,
    pub has_bias: i64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct FillArgs {
    pub out: u64,
    pub shape: Shape,
    pub s: Strided,
    /// The element's bits, in the low bytes.
    pub bits: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ArangeArgs {
    pub out: u64,
    pub n: i64,
    pub start: f64,
    pub step: f64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LinspaceArgs {
    pub out: u64,
    pub n: i64,
    pub start: f64,
    pub end: f64,
    pub step: f64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RandomArgs {
    pub out: u64,
    pub n: i64,
    pub seed: u64,
    /// The generator's offset: the first Philox block of this draw.
    pub first: u64,
    pub mean: f64,
    pub std: f64,
    /// `randint`'s numbers: `low + draw % range`.
    pub low: i64,
    pub range: u64,
}

/// One partial result of a reduction (the kernels' workspace).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Acc {
    pub f: f64,
    pub i: i64,
    pub idx: i64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ReduceArgs {
    pub input: u64,
    pub out: u64,
    pub partial: u64,
    pub outer: i64,
    pub len: i64,
    pub inner: i64,
    /// How many parts the reduced axis is cut into (`launch::ReducePlan`).
    pub chunks: i64,
}

/// A shape and strides the kernels cannot walk: more than `MAX_DIMS`
/// dimensions remain after merging the ones that can be merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooManyDims(pub usize);

impl std::fmt::Display for TooManyDims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "this layout has {} dimensions that cannot be merged; CUDA kernels handle at most {MAX_DIMS} \
             (call `.contiguous()` first)",
            self.0
        )
    }
}

/// One operand of a kernel: its strides over the iteration shape (0 where it
/// is broadcast) and its storage offset, in elements.
#[derive(Debug, Clone, Copy)]
pub struct Operand<'a> {
    pub strides: &'a [isize],
    pub offset: usize,
}

/// The iteration shape and each operand's layout, with dimensions of size 1
/// dropped and neighbours merged wherever every operand allows it, so most
/// tensors reach the kernels with one or two dimensions (or `flat`).
pub fn plan(shape: &[usize], operands: &[Operand]) -> Result<(Shape, Vec<Strided>), TooManyDims> {
    // Dimensions kept, outermost first: (size, stride per operand).
    let mut dims: Vec<(usize, Vec<isize>)> = Vec::with_capacity(shape.len());
    for (d, &size) in shape.iter().enumerate() {
        if size == 1 {
            continue;
        }
        let strides: Vec<isize> = operands.iter().map(|o| o.strides[d]).collect();
        if let Some((psize, pstrides)) = dims.last_mut() {
            let mergeable = pstrides
                .iter()
                .zip(&strides)
                .all(|(&outer, &inner)| outer == inner * size as isize);
            if mergeable {
                *psize *= size;
                *pstrides = strides;
                continue;
            }
        }
        dims.push((size, strides));
    }
    if dims.len() > MAX_DIMS {
        return Err(TooManyDims(dims.len()));
    }
    let numel: usize = shape.iter().product();
    let flat = dims.is_empty() || (dims.len() == 1 && dims[0].1.iter().all(|&s| s == 1));
    let mut sh = Shape {
        numel: numel as i64,
        ndim: dims.len() as i32,
        flat: flat as i32,
        sizes: [0; MAX_DIMS],
    };
    let mut layouts: Vec<Strided> = operands
        .iter()
        .map(|o| Strided {
            offset: o.offset as i64,
            strides: [0; MAX_DIMS],
        })
        .collect();
    for (d, (size, strides)) in dims.iter().enumerate() {
        sh.sizes[d] = *size as i64;
        for (l, &s) in layouts.iter_mut().zip(strides) {
            l.strides[d] = s as i64;
        }
    }
    Ok((sh, layouts))
}

/// Where element `i` of the iteration space is in the operand laid out as
/// `s`: what the kernels compute (`offset_of` in `common.cuh`).
pub fn offset_of(sh: &Shape, s: &Strided, mut i: i64) -> i64 {
    if sh.flat != 0 {
        return s.offset + i;
    }
    let mut off = s.offset;
    for d in (0..sh.ndim as usize).rev() {
        off += (i % sh.sizes[d]) * s.strides[d];
        i /= sh.sizes[d];
    }
    off
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::shape::{contiguous_strides, for_each_offset};
    use proptest::prelude::*;

    fn offsets(shape: &[usize], strides: &[isize], offset: usize) -> Vec<i64> {
        let mut v = Vec::new();
        for_each_offset(shape, strides, offset, |o| v.push(o as i64));
        v
    }

    #[test]
    fn contiguous_tensors_are_flat() {
        let shape = [4, 5, 6];
        let st = contiguous_strides(&shape);
        let ops = [
            Operand {
                strides: &st,
                offset: 3,
            },
            Operand {
                strides: &st,
                offset: 0,
            },
        ];
        let (sh, l) = plan(&shape, &ops).unwrap();
        assert_eq!((sh.ndim, sh.flat, sh.numel), (1, 1, 120));
        assert_eq!(l[0].offset, 3);
    }

    #[test]
    fn a_broadcast_row_keeps_two_dimensions() {
        // [4,6] + [6]: the row operand has stride 0 over the first dimension.
        let shape = [4, 6];
        let a = contiguous_strides(&shape);
        let b = [0isize, 1];
        let (sh, l) = plan(
            &shape,
            &[
                Operand {
                    strides: &a,
                    offset: 0,
                },
                Operand {
                    strides: &b,
                    offset: 0,
                },
            ],
        )
        .unwrap();
        assert_eq!((sh.ndim, sh.flat), (2, 0));
        assert_eq!(&sh.sizes[..2], &[4, 6]);
        assert_eq!(&l[1].strides[..2], &[0, 1]);
    }

    #[test]
    fn too_many_unmergeable_dimensions_are_refused() {
        // Strides 1, 2, ..., 10 over sizes of 2: no neighbours merge.
        let shape = vec![2usize; 10];
        let strides: Vec<isize> = (1..=10).collect();
        let err = plan(
            &shape,
            &[Operand {
                strides: &strides,
                offset: 0,
            }],
        )
        .unwrap_err();
        assert_eq!(err, TooManyDims(10));
        assert!(err.to_string().contains(".contiguous()"));
    }

    fn layout() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, Vec<isize>, usize)> {
        prop::collection::vec(1usize..4, 0..6).prop_flat_map(|shape| {
            let n = shape.len();
            (
                Just(shape),
                prop::collection::vec(prop_oneof![Just(0isize), 1isize..30], n),
                prop::collection::vec(prop_oneof![Just(0isize), 1isize..30], n),
                0usize..10,
            )
        })
    }

    proptest! {
        /// The planned layout reaches exactly the elements the original strides
        /// reach, in the same order, for every operand.
        #[test]
        fn planning_keeps_every_offset((shape, sa, sb, off) in layout()) {
            let contiguous = contiguous_strides(&shape);
            let ops = [
                Operand { strides: &sa, offset: off },
                Operand { strides: &sb, offset: 0 },
                Operand { strides: &contiguous, offset: 0 },
            ];
            let (sh, l) = plan(&shape, &ops).unwrap();
            for (op, lay) in ops.iter().zip(&l) {
                let want = offsets(&shape, op.strides, op.offset);
                let got: Vec<i64> = (0..sh.numel).map(|i| offset_of(&sh, lay, i)).collect();
                prop_assert_eq!(got, want);
            }
        }
    }
}
