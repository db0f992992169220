//! Each tensor op as the kernels the CUDA backend launches for it: which
//! kernel (or cuBLAS call), its arguments, the launch shape, and the
//! temporaries (operands cast to the compute dtype or laid out for cuBLAS, a
//! reduction's partial results).
//!
//! The decisions of what an op computes (result dtype, refusals) are the
//! op layer's (`op::binary::compute_dtype`, `op::unary::unary_dtype`,
//! `op::reduce::reduce_dtype`, `op::matmul::matmul_dtypes`); these functions only carry them out on
//! device memory. Where the kernels run is a `Launcher`: a CUDA device, or in
//! the CPU tests the same kernels compiled for the host
//! (`tests/kernels_host.rs`), so this code is checked against the simulator
//! without a GPU.

use super::args::{self, *};
use super::launch::{self, ReducePlan};
use super::source::{self, Pass};
use crate::error::Error;
use crate::runtime::driver::{Gemm, Geometry, Kernel, Launch, ReduceTargets};
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::factory::{Distribution, Linspace};
use crate::runtime::op::matmul::not_lined_up;
use crate::runtime::op::pow_shortcut::PowShortcut;
use crate::runtime::op::reduce::{reduce_dtype, ReduceOp};
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::rng::Generator;
use crate::runtime::shape::{
    broadcast_shapes, broadcast_strides, contiguous_strides, fmt_shape, is_contiguous, numel,
};
use crate::runtime::DType;

impl Geometry {
    /// A GPU with `sms` multiprocessors.
    pub fn for_device(sms: u32) -> Geometry {
        Geometry {
            block: launch::BLOCK,
            max_blocks: 32 * sms.max(1),
            reduce_block: launch::BLOCK,
            reduce: ReduceTargets::for_device(sms),
        }
    }

    /// Blocks for `n` elements; none for no element (`Launcher::run`
    /// launches nothing then, as PyTorch's kernels return early).
    pub(super) fn grid(&self, n: u64) -> u32 {
        match n {
            0 => 0,
            n => launch::grid(n, self.block, self.max_blocks),
        }
    }

    /// A grid-stride launch over `n` elements (`grid(n)` blocks of `block`).
    pub(super) fn over(&self, n: u64) -> Launch {
        Launch::independent(self.grid(n), self.block)
    }
}

/// A kernel's one argument struct (`args.rs`), passed by value.
pub trait KernelArgs: Copy + Send + Sync {}
impl<T: Copy + Send + Sync> KernelArgs for T {}

/// Where kernels run: device memory and launches.
pub trait Launcher {
    /// Memory holding elements of one dtype. The functions here drop their
    /// temporaries right after launching the kernels that use them, so a
    /// dropped `Mem` must stay usable by work already launched (as blocks of
    /// the caching allocator freed on their own stream do).
    type Mem;
    /// `n` elements of `dt`, uninitialised (as `cudaMalloc` and the caching
    /// allocator give them): every op writes each element of its output.
    fn alloc(&self, dt: DType, n: usize) -> Result<Self::Mem, Error>;
    /// Memory for a temporary the op drops before it returns (an operand
    /// cast to the compute dtype, a reduction's partial results): by default
    /// what `alloc` gives. A session's devices take it outside the tensors'
    /// caching allocator, so its statistics count tensors only.
    fn scratch(&self, dt: DType, n: usize) -> Result<Self::Mem, Error> {
        self.alloc(dt, n)
    }
    /// The address kernels use.
    fn addr(&self, m: &Self::Mem) -> u64;
    /// Runs `kernel` with its argument struct as `at` says, after
    /// everything launched before it.
    fn launch<A: KernelArgs>(&self, kernel: &Kernel, at: Launch, args: A) -> Result<(), Error>;
    /// `launch`, unless the grid is empty: work on no element reaches no
    /// driver (no launch, so no launch error, and no sticky fault reported).
    fn run<A: KernelArgs>(&self, kernel: &Kernel, at: Launch, args: A) -> Result<(), Error> {
        match at.grid {
            0 => Ok(()),
            _ => self.launch(kernel, at, args),
        }
    }
    /// A matrix product in `dt` (f16, bf16, f32, f64) as cuBLAS defines it
    /// (`blas::Blas::gemm`): `first` is the row-major B, `second` the row-major A.
    fn gemm(&self, dt: DType, g: &Gemm, first: u64, second: u64, out: u64) -> Result<(), Error>;
    fn geometry(&self) -> Geometry;
}

/// One operand in device memory: a strided view of `mem`'s elements.
#[derive(Debug)]
pub struct View<'a, M> {
    pub mem: &'a M,
    pub dtype: DType,
    pub shape: &'a [usize],
    pub strides: &'a [isize],
    pub offset: usize,
}

// By hand: a derive would ask for `M: Copy`, and memory is not.
impl<M> Clone for View<'_, M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M> Copy for View<'_, M> {}

impl<'a, M> View<'a, M> {
    /// All of `mem` as a contiguous `shape` (`strides`: its contiguous strides).
    pub(super) fn whole(
        mem: &'a M,
        dtype: DType,
        shape: &'a [usize],
        strides: &'a [isize],
    ) -> Self {
        debug_assert_eq!(strides, contiguous_strides(shape).as_slice());
        View {
            mem,
            dtype,
            shape,
            strides,
            offset: 0,
        }
    }

    pub(super) fn is_contiguous(&self) -> bool {
        is_contiguous(self.shape, self.strides)
    }

    /// The address of the view's first element (for the passes that take a
    /// contiguous input by pointer rather than by strides).
    pub(super) fn first<L: Launcher<Mem = M>>(&self, l: &L) -> u64 {
        l.addr(self.mem) + (self.offset * self.dtype.size()) as u64
    }
}

/// A new contiguous tensor's memory.
#[derive(Debug)]
pub struct Out<M> {
    pub mem: M,
    pub dtype: DType,
    pub shape: Vec<usize>,
}

fn layout(shape: &[usize], operands: &[args::Operand]) -> Result<(Shape, Vec<Strided>), Error> {
    args::plan(shape, operands).map_err(|e| Error::shape(e.to_string()))
}

pub(super) fn no_kernel(what: String) -> Error {
    Error::dtype(format!("the CUDA backend has no kernel for {what}"), None)
}

/// Copies `src` into `dst` element by element, converting to `dst`'s dtype:
/// strided to strided, `src` broadcast to `dst`'s shape.
pub fn copy_into<L: Launcher>(l: &L, src: View<L::Mem>, dst: View<L::Mem>) -> Result<(), Error> {
    let from = broadcast_strides(src.shape, src.strides, dst.shape);
    let (sh, lay) = layout(
        dst.shape,
        &[
            args::Operand {
                strides: &from,
                offset: src.offset,
            },
            args::Operand {
                strides: dst.strides,
                offset: dst.offset,
            },
        ],
    )?;
    let a = CastArgs {
        out: l.addr(dst.mem),
        input: l.addr(src.mem),
        shape: sh,
        sin: lay[0],
        sout: lay[1],
    };
    let g = l.geometry();
    let n = numel(dst.shape) as u64;
    l.run(&source::cast(src.dtype, dst.dtype), g.over(n), a)
}

/// `src` as a new contiguous tensor of dtype `to` (`.to(dtype)`, `.contiguous()`).
pub fn cast<L: Launcher>(l: &L, src: View<L::Mem>, to: DType) -> Result<Out<L::Mem>, Error> {
    converted(l, src, to, false)
}

/// `src` converted to `to`, in scratch memory (`scratch`) or an output's.
pub fn converted<L: Launcher>(
    l: &L,
    src: View<L::Mem>,
    to: DType,
    scratch: bool,
) -> Result<Out<L::Mem>, Error> {
    let n = numel(src.shape);
    let mem = if scratch {
        l.scratch(to, n)?
    } else {
        l.alloc(to, n)?
    };
    let strides = contiguous_strides(src.shape);
    let dst = View::whole(&mem, to, src.shape, &strides);
    copy_into(l, src, dst)?;
    Ok(Out {
        mem,
        dtype: to,
        shape: src.shape.to_vec(),
    })
}

/// `a op b` computed in `compute` (operands of another dtype are cast first),
/// broadcast; comparisons and logical ops give bool.
pub fn binary<L: Launcher>(
    l: &L,
    op: BinaryOp,
    a: View<L::Mem>,
    b: View<L::Mem>,
    compute: DType,
) -> Result<Out<L::Mem>, Error> {
    let shape = binary_shape(op, a, b)?;
    let dtype = binary_dtype(op, compute);
    let mem = l.alloc(dtype, numel(&shape))?;
    binary_at(l, op, a, b, compute, &shape, l.addr(&mem))?;
    Ok(Out { mem, dtype, shape })
}

/// `a op s` (or `s op a`, `scalar_first`) for an f16/bf16 `a` and a
/// scalar `s` held as one f32 element: PyTorch's opmath for a CPU scalar
/// (`elementwise::opmath_scalar`), one `scalar_*` kernel.
pub fn binary_opmath<L: Launcher>(
    l: &L,
    (op, scalar_first): (BinaryOp, bool),
    a: View<L::Mem>,
    s: View<L::Mem>,
    compute: DType,
) -> Result<Out<L::Mem>, Error> {
    let mem = l.alloc(compute, numel(a.shape))?;
    opmath_at(l, (op, scalar_first), a, s, compute, l.addr(&mem))?;
    Ok(Out {
        mem,
        dtype: compute,
        shape: a.shape.to_vec(),
    })
}

/// `dst op= s` in place by an f32 scalar (`x *= 0.1` for f16 x): straight
/// into a contiguous `dst`, else through scratch.
pub fn binary_opmath_into<L: Launcher>(
    l: &L,
    op: BinaryOp,
    (a, s): (View<L::Mem>, View<L::Mem>),
    compute: DType,
    dst: View<L::Mem>,
) -> Result<(), Error> {
    if dst.is_contiguous() && dst.dtype == compute && a.shape == dst.shape {
        return opmath_at(l, (op, false), a, s, compute, dst.first(l));
    }
    let tmp = l.scratch(compute, numel(a.shape))?;
    opmath_at(l, (op, false), a, s, compute, l.addr(&tmp))?;
    let strides = contiguous_strides(a.shape);
    copy_into(l, View::whole(&tmp, compute, a.shape, &strides), dst)
}

fn opmath_at<L: Launcher>(
    l: &L,
    (op, scalar_first): (BinaryOp, bool),
    a: View<L::Mem>,
    s: View<L::Mem>,
    compute: DType,
    out: u64,
) -> Result<(), Error> {
    let kernel = source::opmath(op, compute, scalar_first)
        .ok_or_else(|| no_kernel(format!("`{}` of {compute} by an f32 scalar", op.symbol())))?;
    if s.dtype != DType::F32 || numel(s.shape) != 1 {
        return Err(Error::dtype(
            "internal error: opmath takes its scalar as one f32 element",
            None,
        ));
    }
    // A tensor of another dtype (`arange(3) * tensor(0.5, dtype=f16)`)
    // is converted to the compute dtype first, as PyTorch's inputs are.
    let ca = (a.dtype != compute)
        .then(|| converted(l, a, compute, true))
        .transpose()?;
    let sa_c = contiguous_strides(a.shape);
    let a = as_view(ca.as_ref(), a, &sa_c);
    let (sh, lay) = layout(
        a.shape,
        &[args::Operand {
            strides: a.strides,
            offset: a.offset,
        }],
    )?;
    let p = BinaryArgs {
        out,
        a: l.addr(a.mem),
        b: l.addr(s.mem),
        shape: sh,
        sa: lay[0],
        sb: Strided {
            offset: s.offset as i64,
            strides: [0; args::MAX_DIMS],
        },
    };
    let g = l.geometry();
    l.run(&kernel, g.over(numel(a.shape) as u64), p)
}

/// `dst op= b` in place, `a` being what `dst` held (`x += y`): written
/// straight into `dst` when it is contiguous, of the result's dtype and
/// not read elsewhere by `b` (`b_aliases`); otherwise computed into
/// scratch and copied in, converted to dst's dtype.
pub fn binary_into<L: Launcher>(
    l: &L,
    op: BinaryOp,
    (a, b): (View<L::Mem>, View<L::Mem>),
    compute: DType,
    dst: View<L::Mem>,
    b_aliases: bool,
) -> Result<(), Error> {
    let shape = binary_shape(op, a, b)?;
    let dtype = binary_dtype(op, compute);
    if dst.is_contiguous() && dst.dtype == dtype && !b_aliases && shape == dst.shape {
        return binary_at(l, op, a, b, compute, &shape, dst.first(l));
    }
    let tmp = l.scratch(dtype, numel(&shape))?;
    binary_at(l, op, a, b, compute, &shape, l.addr(&tmp))?;
    let strides = contiguous_strides(&shape);
    copy_into(l, View::whole(&tmp, dtype, &shape, &strides), dst)
}

fn binary_shape<M>(op: BinaryOp, a: View<M>, b: View<M>) -> Result<Vec<usize>, Error> {
    broadcast_shapes(a.shape, b.shape).ok_or_else(|| Error::Broadcast {
        op: op.symbol().into(),
        lhs: fmt_shape(a.shape),
        rhs: fmt_shape(b.shape),
    })
}

fn binary_dtype(op: BinaryOp, compute: DType) -> DType {
    if op.gives_bool() {
        DType::Bool
    } else {
        compute
    }
}

/// Launches `a op b` over `shape` into contiguous memory at `out`.
fn binary_at<L: Launcher>(
    l: &L,
    op: BinaryOp,
    a: View<L::Mem>,
    b: View<L::Mem>,
    compute: DType,
    shape: &[usize],
    out: u64,
) -> Result<(), Error> {
    let kernel = source::binary(op, compute)
        .ok_or_else(|| no_kernel(format!("`{}` in {compute}", op.symbol())))?;
    // Operands in another dtype become contiguous temporaries in `compute`.
    let ca = (a.dtype != compute)
        .then(|| converted(l, a, compute, true))
        .transpose()?;
    let cb = (b.dtype != compute)
        .then(|| converted(l, b, compute, true))
        .transpose()?;
    let (sa_c, sb_c) = (contiguous_strides(a.shape), contiguous_strides(b.shape));
    let (a, b) = (
        as_view(ca.as_ref(), a, &sa_c),
        as_view(cb.as_ref(), b, &sb_c),
    );
    let sa = broadcast_strides(a.shape, a.strides, shape);
    let sb = broadcast_strides(b.shape, b.strides, shape);
    let (sh, lay) = layout(
        shape,
        &[
            args::Operand {
                strides: &sa,
                offset: a.offset,
            },
            args::Operand {
                strides: &sb,
                offset: b.offset,
            },
        ],
    )?;
    let p = BinaryArgs {
        out,
        a: l.addr(a.mem),
        b: l.addr(b.mem),
        shape: sh,
        sa: lay[0],
        sb: lay[1],
    };
    let g = l.geometry();
    l.run(&kernel, g.over(numel(shape) as u64), p)
}

/// `where(a, b, c)` (`a` bool) or `clamp(a, b, c)`, the values in
/// `compute` (operands of another dtype are cast first), broadcast.
pub fn ternary<L: Launcher>(
    l: &L,
    op: TernaryOp,
    views: [View<L::Mem>; 3],
    compute: DType,
) -> Result<Out<L::Mem>, Error> {
    let shape = ternary_shape(op, &views)?;
    let mem = l.alloc(compute, numel(&shape))?;
    ternary_at(l, op, views, compute, &shape, l.addr(&mem))?;
    Ok(Out {
        mem,
        dtype: compute,
        shape,
    })
}

/// `op` written into `dst` in place (`x[mask] = v` as `where(mask, v,
/// x)`): through scratch memory, then copied in, converted to dst's dtype.
pub fn ternary_into<L: Launcher>(
    l: &L,
    op: TernaryOp,
    views: [View<L::Mem>; 3],
    compute: DType,
    dst: View<L::Mem>,
) -> Result<(), Error> {
    let shape = ternary_shape(op, &views)?;
    let tmp = l.scratch(compute, numel(&shape))?;
    ternary_at(l, op, views, compute, &shape, l.addr(&tmp))?;
    let strides = contiguous_strides(&shape);
    copy_into(l, View::whole(&tmp, compute, &shape, &strides), dst)
}

fn ternary_shape<M>(op: TernaryOp, [a, b, c]: &[View<M>; 3]) -> Result<Vec<usize>, Error> {
    broadcast_shapes(a.shape, b.shape)
        .and_then(|s| broadcast_shapes(&s, c.shape))
        .ok_or_else(|| Error::Broadcast {
            op: op.name().into(),
            lhs: fmt_shape(a.shape),
            rhs: format!("{} and {}", fmt_shape(b.shape), fmt_shape(c.shape)),
        })
}

/// `op` written straight into `dst`'s own memory (`p.add_(g, alpha=-lr)`):
/// one kernel, nothing allocated. `dst` is contiguous, of `compute` and of
/// the result's shape; each element is read before it is written, so `dst`
/// may be one of the operands.
pub fn ternary_in_place<L: Launcher>(
    l: &L,
    op: TernaryOp,
    views: [View<L::Mem>; 3],
    compute: DType,
    dst: View<L::Mem>,
) -> Result<(), Error> {
    let shape = ternary_shape(op, &views)?;
    let addr = l.addr(dst.mem) + (dst.offset * compute.size()) as u64;
    ternary_at(l, op, views, compute, &shape, addr)
}

fn ternary_at<L: Launcher>(
    l: &L,
    op: TernaryOp,
    [a, b, c]: [View<L::Mem>; 3],
    compute: DType,
    shape: &[usize],
    out: u64,
) -> Result<(), Error> {
    let kernel = source::ternary(op, compute)
        .ok_or_else(|| no_kernel(format!("`{}` in {compute}", op.name())))?;
    let [da, db, dc] = op.operand_dtypes(compute);
    let cast = |v: View<L::Mem>, to: DType| {
        (v.dtype != to)
            .then(|| converted(l, v, to, true))
            .transpose()
    };
    let (ca, cb, cc) = (cast(a, da)?, cast(b, db)?, cast(c, dc)?);
    let contiguous = [a, b, c].map(|v| contiguous_strides(v.shape));
    let views = [
        as_view(ca.as_ref(), a, &contiguous[0]),
        as_view(cb.as_ref(), b, &contiguous[1]),
        as_view(cc.as_ref(), c, &contiguous[2]),
    ];
    let strides = views.map(|v| broadcast_strides(v.shape, v.strides, shape));
    let operands: Vec<args::Operand> = views
        .iter()
        .zip(&strides)
        .map(|(v, s)| args::Operand {
            strides: s,
            offset: v.offset,
        })
        .collect();
    let (sh, lay) = layout(shape, &operands)?;
    let p = TernaryArgs {
        out,
        a: l.addr(views[0].mem),
        b: l.addr(views[1].mem),
        c: l.addr(views[2].mem),
        shape: sh,
        sa: lay[0],
        sb: lay[1],
        sc: lay[2],
    };
    let g = l.geometry();
    l.run(&kernel, g.over(numel(shape) as u64), p)
}

/// Advanced indexing's gather: `src` (a view whose indexed dimensions are
/// collapsed into one of stride 0 in `collapsed`) read at `index`'s offsets
/// into a new contiguous tensor of `collapsed.0`'s shape. `wrap` (size,
/// stride): integer indices into the dimension; none: a mask's offsets.
pub fn take<L: Launcher>(
    l: &L,
    src: View<L::Mem>,
    index: View<L::Mem>,
    collapsed: (&[usize], &[isize], &[isize]),
    wrap: Option<(usize, isize)>,
) -> Result<Out<L::Mem>, Error> {
    let (shape, src_strides, at) = collapsed;
    // The index as contiguous i64, row-major.
    let ci = (index.dtype != DType::I64 || !index.is_contiguous())
        .then(|| converted(l, index, DType::I64, true))
        .transpose()?;
    let ci_strides = contiguous_strides(index.shape);
    let index = as_view(ci.as_ref(), index, &ci_strides);
    let (sh, lay) = layout(
        shape,
        &[
            args::Operand {
                strides: src_strides,
                offset: src.offset,
            },
            args::Operand {
                strides: at,
                offset: index.offset,
            },
        ],
    )?;
    let n = numel(shape);
    let mem = l.alloc(src.dtype, n)?;
    let (size, stride) = wrap.unwrap_or((0, 0));
    let p = TakeArgs {
        out: l.addr(&mem),
        src: l.addr(src.mem),
        index: l.addr(index.mem),
        shape: sh,
        s: lay[0],
        si: lay[1],
        size: size as i64,
        stride: stride as i64,
        wrap: wrap.is_some() as i32,
        _pad: 0,
    };
    let g = l.geometry();
    l.run(&source::take(src.dtype), g.over(n as u64), p)?;
    Ok(Out {
        mem,
        dtype: src.dtype,
        shape: shape.to_vec(),
    })
}

/// Advanced indexing's write: `value` (already of dst's dtype, broadcast
/// over `collapsed.0`) stored into `dst` at `index`'s offsets (`take`'s
/// layout and `wrap`), or added there (`accumulate`).
pub fn put<L: Launcher>(
    l: &L,
    dst: View<L::Mem>,
    value: View<L::Mem>,
    index: View<L::Mem>,
    collapsed: (&[usize], &[isize], &[isize]),
    wrap: Option<(usize, isize)>,
    accumulate: bool,
) -> Result<(), Error> {
    let (shape, dst_strides, at) = collapsed;
    let ci = (index.dtype != DType::I64 || !index.is_contiguous())
        .then(|| converted(l, index, DType::I64, true))
        .transpose()?;
    let ci_strides = contiguous_strides(index.shape);
    let index = as_view(ci.as_ref(), index, &ci_strides);
    let cv = (value.dtype != dst.dtype)
        .then(|| converted(l, value, dst.dtype, true))
        .transpose()?;
    let cv_strides = contiguous_strides(value.shape);
    let value = as_view(cv.as_ref(), value, &cv_strides);
    let sv = broadcast_strides(value.shape, value.strides, shape);
    let (sh, lay) = layout(
        shape,
        &[
            args::Operand {
                strides: dst_strides,
                offset: dst.offset,
            },
            args::Operand {
                strides: &sv,
                offset: value.offset,
            },
            args::Operand {
                strides: at,
                offset: index.offset,
            },
        ],
    )?;
    let (size, stride) = wrap.unwrap_or((0, 0));
    let p = PutArgs {
        dst: l.addr(dst.mem),
        value: l.addr(value.mem),
        index: l.addr(index.mem),
        shape: sh,
        sd: lay[0],
        sv: lay[1],
        si: lay[2],
        size: size as i64,
        stride: stride as i64,
        wrap: wrap.is_some() as i32,
        _pad: 0,
    };
    let g = l.geometry();
    let n = numel(shape) as u64;
    let kernel = match accumulate {
        true => source::put_add(dst.dtype).ok_or_else(|| {
            Error::dtype(
                format!("no accumulating index kernel for {}", dst.dtype),
                None,
            )
        })?,
        false => source::put(dst.dtype),
    };
    l.run(&kernel, g.over(n), p)
}

/// The cast temporary's view when there is one, else the operand itself.
pub(super) fn as_view<'a, M>(
    cast: Option<&'a Out<M>>,
    orig: View<'a, M>,
    strides: &'a [isize],
) -> View<'a, M> {
    match cast {
        Some(c) => View::whole(&c.mem, c.dtype, orig.shape, strides),
        None => orig,
    }
}

/// `op(x)` in dtype `out` (x is cast first when it differs).
pub fn unary<L: Launcher>(
    l: &L,
    op: UnaryOp,
    x: View<L::Mem>,
    out: DType,
) -> Result<Out<L::Mem>, Error> {
    let kernel =
        source::unary(op, out).ok_or_else(|| no_kernel(format!("`{}` in {out}", op.name())))?;
    one_operand(l, &kernel, x, out)
}

/// `op(x)` written into `dst` (`x.exp_()`: x's own elements): straight
/// into contiguous memory of the result's dtype, through scratch otherwise.
pub fn unary_into<L: Launcher>(
    l: &L,
    op: UnaryOp,
    x: View<L::Mem>,
    out: DType,
    dst: View<L::Mem>,
) -> Result<(), Error> {
    let kernel =
        source::unary(op, out).ok_or_else(|| no_kernel(format!("`{}` in {out}", op.name())))?;
    if dst.is_contiguous() && dst.dtype == out && dst.shape == x.shape {
        return one_operand_at(l, &kernel, x, out, dst.first(l));
    }
    let tmp = l.scratch(out, numel(x.shape))?;
    one_operand_at(l, &kernel, x, out, l.addr(&tmp))?;
    let strides = contiguous_strides(x.shape);
    copy_into(l, View::whole(&tmp, out, x.shape, &strides), dst)
}

/// `x ** number` for the numbers PyTorch's CUDA kernel takes a shortcut
/// for (`ops::pow_shortcut`), in `out` (a float dtype).
pub fn pow_shortcut<L: Launcher>(
    l: &L,
    s: PowShortcut,
    x: View<L::Mem>,
    out: DType,
) -> Result<Out<L::Mem>, Error> {
    one_operand(l, &pow_kernel(s, out)?, x, out)
}

fn pow_kernel(s: PowShortcut, out: DType) -> Result<Kernel, Error> {
    source::pow_shortcut(s, out).ok_or_else(|| no_kernel(format!("`** {}` in {out}", s.name())))
}

/// `x ** number` in place (`x **= 2`, `x.pow_(2)`), through scratch and
/// converted to dst's dtype.
pub fn pow_shortcut_into<L: Launcher>(
    l: &L,
    s: PowShortcut,
    x: View<L::Mem>,
    out: DType,
    dst: View<L::Mem>,
) -> Result<(), Error> {
    let tmp = l.scratch(out, numel(x.shape))?;
    one_operand_at(l, &pow_kernel(s, out)?, x, out, l.addr(&tmp))?;
    let strides = contiguous_strides(x.shape);
    copy_into(l, View::whole(&tmp, out, x.shape, &strides), dst)
}

/// A kernel of `UnaryArgs`: `x` (converted to `out` first) to a new tensor of `out`.
fn one_operand<L: Launcher>(
    l: &L,
    kernel: &Kernel,
    x: View<L::Mem>,
    out: DType,
) -> Result<Out<L::Mem>, Error> {
    let mem = l.alloc(out, numel(x.shape))?;
    one_operand_at(l, kernel, x, out, l.addr(&mem))?;
    Ok(Out {
        mem,
        dtype: out,
        shape: x.shape.to_vec(),
    })
}

/// `one_operand` into contiguous memory at `at`.
fn one_operand_at<L: Launcher>(
    l: &L,
    kernel: &Kernel,
    x: View<L::Mem>,
    out: DType,
    at: u64,
) -> Result<(), Error> {
    let cx = (x.dtype != out)
        .then(|| converted(l, x, out, true))
        .transpose()?;
    let sc = contiguous_strides(x.shape);
    let x = as_view(cx.as_ref(), x, &sc);
    let (sh, lay) = layout(
        x.shape,
        &[args::Operand {
            strides: x.strides,
            offset: x.offset,
        }],
    )?;
    let n = numel(x.shape);
    let p = UnaryArgs {
        out: at,
        input: l.addr(x.mem),
        shape: sh,
        s: lay[0],
    };
    let g = l.geometry();
    l.run(kernel, g.over(n as u64), p)
}

/// Writes one element's bit pattern (`element`, little-endian, the dtype's
/// size) into every element of `dst`.
pub fn fill<L: Launcher>(l: &L, dst: View<L::Mem>, element: &[u8]) -> Result<(), Error> {
    let size = dst.dtype.size();
    let mut bits = [0u8; 8];
    bits[..size].copy_from_slice(&element[..size]);
    let (sh, lay) = layout(
        dst.shape,
        &[args::Operand {
            strides: dst.strides,
            offset: dst.offset,
        }],
    )?;
    let p = FillArgs {
        out: l.addr(dst.mem),
        shape: sh,
        s: lay[0],
        bits: u64::from_le_bytes(bits),
    };
    let g = l.geometry();
    let n = numel(dst.shape) as u64;
    l.run(&source::fill(size), g.over(n), p)
}

/// `n` elements `start, start + step, …` (the caller has checked the range).
pub fn arange<L: Launcher>(
    l: &L,
    n: usize,
    start: f64,
    step: f64,
    dt: DType,
) -> Result<Out<L::Mem>, Error> {
    let kernel = source::arange(dt).ok_or_else(|| no_kernel(format!("arange in {dt}")))?;
    let mem = l.alloc(dt, n)?;
    let p = ArangeArgs {
        out: l.addr(&mem),
        n: n as i64,
        start,
        step,
    };
    let g = l.geometry();
    l.run(&kernel, g.over(n as u64), p)?;
    Ok(Out {
        mem,
        dtype: dt,
        shape: vec![n],
    })
}

/// `linspace`'s values as `plan` says (PyTorch's symmetric formula).
pub fn linspace<L: Launcher>(l: &L, plan: &Linspace, dt: DType) -> Result<Out<L::Mem>, Error> {
    let kernel = source::linspace(dt).ok_or_else(|| no_kernel(format!("linspace in {dt}")))?;
    let mem = l.alloc(dt, plan.n)?;
    let p = LinspaceArgs {
        out: l.addr(&mem),
        n: plan.n as i64,
        start: plan.start,
        end: plan.end,
        step: plan.step,
    };
    let g = l.geometry();
    if plan.n > 0 {
        l.run(&kernel, g.over(plan.n as u64), p)?;
    }
    Ok(Out {
        mem,
        dtype: dt,
        shape: vec![plan.n],
    })
}

/// Random numbers from `gen`, the simulator's numbers for the same seed and
/// offset; advances the offset as the simulator does (one Philox counter per
/// four elements). Normal draws are `mean + std * z`.
pub fn random<L: Launcher>(
    l: &L,
    gen: &mut Generator,
    dist: Distribution,
    shape: &[usize],
    dt: DType,
    params: (f64, f64),
) -> Result<Out<L::Mem>, Error> {
    draw(l, gen, dist, shape, dt, params, false)
}

/// `random`'s numbers in scratch memory (what `normal_` writes into a view).
pub fn random_scratch<L: Launcher>(
    l: &L,
    gen: &mut Generator,
    dist: Distribution,
    shape: &[usize],
    dt: DType,
    params: (f64, f64),
) -> Result<Out<L::Mem>, Error> {
    draw(l, gen, dist, shape, dt, params, true)
}

fn draw<L: Launcher>(
    l: &L,
    gen: &mut Generator,
    dist: Distribution,
    shape: &[usize],
    dt: DType,
    (mean, std): (f64, f64),
    scratch: bool,
) -> Result<Out<L::Mem>, Error> {
    let kernel =
        source::random(dist, dt).ok_or_else(|| no_kernel(format!("random numbers in {dt}")))?;
    let n = numel(shape);
    let mem = if scratch {
        l.scratch(dt, n)?
    } else {
        l.alloc(dt, n)?
    };
    let p = RandomArgs {
        out: l.addr(&mem),
        n: n as i64,
        seed: gen.seed,
        first: gen.offset,
        mean,
        std,
        low: match dist {
            Distribution::Integers { low, .. } => low,
            _ => 0,
        },
        range: match dist {
            Distribution::Integers { range, .. } => range,
            Distribution::Full => Distribution::full_range(dt),
            _ => 1,
        },
    };
    let g = l.geometry();
    l.run(&kernel, g.over(n.div_ceil(4) as u64), p)?;
    gen.offset += n.div_ceil(4) as u64;
    Ok(Out {
        mem,
        dtype: dt,
        shape: shape.to_vec(),
    })
}

/// Reduces `x` over `dim` (all elements when None) into `out_shape` (the
/// caller's, with or without kept dimensions). A strided input is made
/// contiguous first.
pub fn reduce<L: Launcher>(
    l: &L,
    op: ReduceOp,
    x: View<L::Mem>,
    dim: Option<usize>,
    out_shape: Vec<usize>,
) -> Result<Out<L::Mem>, Error> {
    let dt = x.dtype;
    let missing = || no_kernel(format!("{}() in {dt}", op.name()));
    let cx = (!x.is_contiguous())
        .then(|| converted(l, x, dt, true))
        .transpose()?;
    let sc = contiguous_strides(x.shape);
    let x = as_view(cx.as_ref(), x, &sc);
    let shape = x.shape;
    let (outer, len, inner) = match dim {
        // A 0-d tensor reduces over its one element, whatever the dim.
        None => (1, numel(shape), 1),
        Some(_) if shape.is_empty() => (1, 1, 1),
        Some(d) if d >= shape.len() => {
            return Err(Error::shape(format!(
                "internal error: reduce over dim {d} of a {}-d tensor (dims are normalised first)",
                shape.len()
            )))
        }
        Some(d) => (
            shape[..d].iter().product(),
            shape[d],
            shape[d + 1..].iter().product(),
        ),
    };
    let dtype = reduce_dtype(op, dt);
    let mem = l.alloc(dtype, outer * inner)?;
    if outer * inner == 0 {
        // No outputs: nothing to launch (the passes assume at least one).
        return Ok(Out {
            mem,
            dtype,
            shape: out_shape,
        });
    }
    let g = l.geometry();
    let (o, n, i) = (outer as u64, len as u64, inner as u64);
    let plan = launch::reduce_plan(o, n, i, g.reduce);
    // The workspace: one `Acc` (four 8-byte fields) per partial result.
    let partial = l.scratch(DType::F64, 4 * plan.partials(o, i).max(1) as usize)?;
    let p = ReduceArgs {
        input: x.first(l),
        out: l.addr(&mem),
        partial: l.addr(&partial),
        outer: outer as i64,
        len: len as i64,
        inner: inner as i64,
        chunks: plan.chunks() as i64,
    };
    let cap = |blocks: u64| blocks.clamp(1, g.max_blocks as u64) as u32;
    // The first pass, then each output's chunks combined when there are
    // several (one row of partial results per output; rows have i == 1).
    let (first, at) = match plan {
        ReducePlan::Rows { chunks } => {
            (Pass::Rows, Launch::syncing(cap(o * chunks), g.reduce_block))
        }
        ReducePlan::Cols { chunks } => (Pass::Cols, g.over(o * i * chunks)),
    };
    let outputs = o * i;
    let kernel = source::reduce(first, op, dt).ok_or_else(missing)?;
    l.run(&kernel, at, p)?;
    if p.chunks > 1 {
        let finish = source::reduce(Pass::Finish, op, dt).ok_or_else(missing)?;
        let p = ReduceArgs {
            outer: outputs as i64,
            ..p
        };
        l.run(&finish, Launch::syncing(cap(outputs), g.reduce_block), p)?;
    }
    Ok(Out {
        mem,
        dtype,
        shape: out_shape,
    })
}

/// `a @ b` for operands of two or more dimensions (the caller makes 1-D
/// operands matrices, as `ops::matmul` does): `[..., m, k] @ [..., k, n]`,
/// batch dimensions broadcast, giving `dt` (`op::matmul::matmul_dtypes`).
/// Floats only, as on PyTorch's CUDA tensors: cuBLAS, accumulating in f32
/// (f64 for f64) and rounding once; an f32 product's operands rounded to
/// TF32 when `tf32` (`Runtime::matmul_tf32`).
pub fn matmul<L: Launcher>(
    l: &L,
    a: View<L::Mem>,
    b: View<L::Mem>,
    dt: DType,
    tf32: bool,
) -> Result<Out<L::Mem>, Error> {
    let (ra, rb) = (a.shape.len(), b.shape.len());
    if ra < 2 || rb < 2 || !dt.is_float() {
        return Err(Error::shape(
            "internal error: the CUDA matmul takes float matrices; 1-D operands are reshaped first",
        ));
    }
    let (m, k, k2, n) = (
        a.shape[ra - 2],
        a.shape[ra - 1],
        b.shape[rb - 2],
        b.shape[rb - 1],
    );
    if k != k2 {
        return Err(not_lined_up(a.shape, b.shape, k, k2));
    }
    let mut shape = broadcast_shapes(&a.shape[..ra - 2], &b.shape[..rb - 2]).ok_or_else(|| {
        Error::Broadcast {
            op: "@".into(),
            lhs: fmt_shape(a.shape),
            rhs: fmt_shape(b.shape),
        }
    })?;
    let nb = numel(&shape);
    shape.extend([m, n]);
    let ga = gemm_operand(l, a, &shape[..shape.len() - 2], dt)?;
    let gb = gemm_operand(l, b, &shape[..shape.len() - 2], dt)?;
    let mem = l.alloc(dt, numel(&shape))?;
    if k == 0 {
        // A sum over nothing: zeros, whatever the output's size.
        let strides = contiguous_strides(&shape);
        fill(l, View::whole(&mem, dt, &shape, &strides), &[0; 8])?;
    } else if nb * m * n > 0 {
        let mut g = Gemm::row_major(m, k, n, nb, ga.stride, gb.stride).ok_or_else(|| {
            Error::shape(format!(
                "matmul: {m}x{k} @ {k}x{n} in {nb} batches exceeds cuBLAS's 32-bit sizes"
            ))
        })?;
        g.tf32 = tf32 && dt == DType::F32;
        l.gemm(dt, &g, gb.addr, ga.addr, l.addr(&mem))?;
    }
    Ok(Out {
        mem,
        dtype: dt,
        shape,
    })
}

/// A matmul operand as the gemm takes it: in its dtype, each matrix
/// row-major contiguous, `stride` elements apart (0: one matrix for every
/// batch), the first at `addr`.
struct GemmOperand<M> {
    /// The copy made when the view was not already laid out so.
    _temp: Option<M>,
    addr: u64,
    stride: usize,
}

fn gemm_operand<L: Launcher>(
    l: &L,
    x: View<L::Mem>,
    batch: &[usize],
    dt: DType,
) -> Result<GemmOperand<L::Mem>, Error> {
    let r = x.shape.len();
    let (rows, cols) = (x.shape[r - 2], x.shape[r - 1]);
    let row_major = is_contiguous(&x.shape[r - 2..], &x.strides[r - 2..]);
    if x.dtype == dt && row_major {
        let addr = x.first(l);
        let own = |stride| GemmOperand {
            _temp: None,
            addr,
            stride,
        };
        if numel(&x.shape[..r - 2]) == 1 {
            return Ok(own(0));
        }
        if &x.shape[..r - 2] == batch && x.is_contiguous() {
            return Ok(own(rows * cols));
        }
    }
    // Every batch's matrix, contiguous, in `dt`.
    let mut shape = batch.to_vec();
    shape.extend([rows, cols]);
    let mem = l.scratch(dt, numel(&shape))?;
    let strides = contiguous_strides(&shape);
    let dst = View::whole(&mem, dt, &shape, &strides);
    copy_into(l, x, dst)?;
    Ok(GemmOperand {
        addr: l.addr(&mem),
        _temp: Some(mem),
        stride: rows * cols,
    })
}
