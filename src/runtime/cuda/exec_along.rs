//! The ops along one dimension on a `Launcher` (part of `exec`): scans,
//! softmax, var, std and norm (`kernels/along.cu`), sort and topk
//! (`kernels/sort.cu`), and tril/triu (`tri_*` of `kernels/copy.cu`).
//! What they compute and refuse is the simulator's (`ops::along`,
//! `ops::sort`, `ops::tri`); these only carry it out on device memory.

use super::args::{AlongArgs, SortArgs, TriArgs};
use super::exec::{as_view, converted, copy_into, no_kernel, Launcher, Out, View};
use super::source;
use crate::error::Error;
use crate::runtime::driver::Launch;
use crate::runtime::op::along::{AlongOp, Param};
use crate::runtime::shape::{contiguous_strides, numel, Lines};
use crate::runtime::DType;

/// A sort's outputs: the values, and the i64 indices they came from.
pub type Sorted<M> = (Out<M>, Out<M>);

/// `op` along `dim` of `x` (every element when None), giving `out_shape`
/// (x's shape, or the reduced one for var, std and norm).
pub fn along<L: Launcher>(
    l: &L,
    op: AlongOp,
    param: Param,
    x: View<L::Mem>,
    dim: Option<usize>,
    out_shape: Vec<usize>,
) -> Result<Out<L::Mem>, Error> {
    let dt = x.dtype;
    let kernel =
        source::along(op, dt).ok_or_else(|| no_kernel(format!("{}() in {dt}", op.name())))?;
    let cx = (!x.is_contiguous())
        .then(|| converted(l, x, dt, true))
        .transpose()?;
    let sc = contiguous_strides(x.shape);
    let x = as_view(cx.as_ref(), x, &sc);
    let lines = Lines::of(x.shape, dim);
    let dtype = op.out_dtype(dt);
    let mem = l.alloc(dtype, numel(&out_shape))?;
    let out = Out {
        mem,
        dtype,
        shape: out_shape,
    };
    if numel(&out.shape) == 0 {
        return Ok(out);
    }
    let p = AlongArgs {
        out: l.addr(&out.mem),
        input: x.first(l),
        outer: lines.outer as i64,
        len: lines.len as i64,
        inner: lines.inner as i64,
        param,
    };
    let g = l.geometry();
    let count = lines.count() as u64;
    if op.scans() {
        // One thread per line.
        l.run(&kernel, g.over(count), p)?;
    } else {
        // One block per line, no wider than the line needs (a power of two).
        let block = (lines.len.max(32).next_power_of_two() as u32).min(g.reduce_block);
        let grid = count.clamp(1, g.max_blocks as u64) as u32;
        l.run(&kernel, Launch::syncing(grid, block), p)?;
    }
    Ok(out)
}

/// `tril` (or `triu` with `upper`) of the last two dimensions of `x`.
pub fn tri<L: Launcher>(
    l: &L,
    x: View<L::Mem>,
    diagonal: i64,
    upper: bool,
) -> Result<Out<L::Mem>, Error> {
    let dt = x.dtype;
    let [.., rows, cols] = *x.shape else {
        return Err(Error::shape(
            "internal error: tril/triu of fewer than 2 dimensions (checked first)",
        ));
    };
    let cx = (!x.is_contiguous())
        .then(|| converted(l, x, dt, true))
        .transpose()?;
    let sc = contiguous_strides(x.shape);
    let x = as_view(cx.as_ref(), x, &sc);
    let n = numel(x.shape);
    let mem = l.alloc(dt, n)?;
    if n > 0 {
        let p = TriArgs {
            out: l.addr(&mem),
            input: x.first(l),
            numel: n as i64,
            rows: rows as i64,
            cols: cols as i64,
            diagonal,
            upper: upper as i32,
            _pad: 0,
        };
        let g = l.geometry();
        l.run(&source::tri(dt), g.over(n as u64), p)?;
    }
    Ok(Out {
        mem,
        dtype: dt,
        shape: x.shape.to_vec(),
    })
}

/// `x` sorted along `dim`: (values, i64 indices), both of x's shape.
pub fn sort<L: Launcher>(
    l: &L,
    x: View<L::Mem>,
    dim: usize,
    descending: bool,
) -> Result<Sorted<L::Mem>, Error> {
    sorted(l, x, dim, descending, false)
}

/// The first `k` of `x` sorted along `dim` (descending for the largest).
pub fn topk<L: Launcher>(
    l: &L,
    x: View<L::Mem>,
    k: usize,
    dim: usize,
    largest: bool,
) -> Result<Sorted<L::Mem>, Error> {
    let (v, i) = sorted(l, x, dim, largest, true)?;
    let strides = contiguous_strides(x.shape);
    let mut shape = x.shape.to_vec();
    if let Some(s) = shape.get_mut(dim) {
        *s = k;
    }
    let first = |whole: &Out<L::Mem>| -> Result<Out<L::Mem>, Error> {
        let view = View {
            mem: &whole.mem,
            dtype: whole.dtype,
            shape: &shape,
            strides: &strides,
            offset: 0,
        };
        converted(l, view, whole.dtype, false)
    };
    Ok((first(&v)?, first(&i)?))
}

/// The merge passes (`sort_pass_*`), over lines laid out last: a dimension
/// that is not last is moved there by a copy, and the result copied back.
/// `scratch`: the results are temporaries (topk's), not new tensors.
fn sorted<L: Launcher>(
    l: &L,
    x: View<L::Mem>,
    dim: usize,
    descending: bool,
    scratch: bool,
) -> Result<Sorted<L::Mem>, Error> {
    let dt = x.dtype;
    let n = numel(x.shape);
    let new = |dt: DType| {
        if scratch {
            l.scratch(dt, n)
        } else {
            l.alloc(dt, n)
        }
    };
    let out = |mem, dtype| Out {
        mem,
        dtype,
        shape: x.shape.to_vec(),
    };
    let lines = Lines::of(x.shape, Some(dim));
    if n == 0 {
        return Ok((out(new(dt)?, dt), out(new(DType::I64)?, DType::I64)));
    }
    // The dimension moved last: `order` lists x's dims in the new layout.
    let mut order: Vec<usize> = (0..x.shape.len()).filter(|&d| d != dim).collect();
    if dim < x.shape.len() {
        order.push(dim);
    }
    let moved_shape: Vec<usize> = order.iter().map(|&d| x.shape[d]).collect();
    let moved_strides: Vec<isize> = order.iter().map(|&d| x.strides[d]).collect();
    let moved = View {
        shape: &moved_shape,
        strides: &moved_strides,
        ..x
    };
    let cx = (!moved.is_contiguous())
        .then(|| converted(l, moved, dt, true))
        .transpose()?;
    let sc = contiguous_strides(&moved_shape);
    let src = as_view(cx.as_ref(), moved, &sc);
    // The last pass writes the outputs when no copy back is needed.
    let back = lines.inner > 1;
    let last = |dt| if back { l.scratch(dt, n) } else { new(dt) };
    let (fin_v, fin_i) = (last(dt)?, last(DType::I64)?);
    let mut passes = 1;
    while (1usize << passes) < lines.len {
        passes += 1;
    }
    let tmp = if passes > 1 {
        Some((l.scratch(dt, n)?, l.scratch(DType::I64, n)?))
    } else {
        None
    };
    let g = l.geometry();
    let kernel = source::sort_pass(dt);
    let (mut in_v, mut in_i) = (src.first(l), 0u64);
    for pass in 0..passes {
        // Pass `pass` writes the final buffers when an even number of passes follows it.
        let (ov, oi) = match (&tmp, (passes - 1 - pass) % 2) {
            (Some((tv, ti)), 1) => (l.addr(tv), l.addr(ti)),
            _ => (l.addr(&fin_v), l.addr(&fin_i)),
        };
        let p = SortArgs {
            out_v: ov,
            out_i: oi,
            in_v,
            in_i,
            lines: lines.count() as i64,
            len: lines.len as i64,
            width: 1i64 << pass,
            descending: descending as i32,
            first: (pass == 0) as i32,
        };
        l.run(&kernel, g.over(n as u64), p)?;
        (in_v, in_i) = (ov, oi);
    }
    if !back {
        return Ok((out(fin_v, dt), out(fin_i, DType::I64)));
    }
    // Back to x's layout: the sorted buffers seen with x's dims in order.
    let mut strides = vec![0isize; x.shape.len()];
    for (k, &d) in order.iter().enumerate() {
        strides[d] = sc[k];
    }
    let copy_back = |from: &L::Mem, dt: DType| -> Result<Out<L::Mem>, Error> {
        let mem = new(dt)?;
        let whole = contiguous_strides(x.shape);
        let src = View {
            mem: from,
            dtype: dt,
            shape: x.shape,
            strides: &strides,
            offset: 0,
        };
        copy_into(l, src, View::whole(&mem, dt, x.shape, &whole))?;
        Ok(out(mem, dt))
    };
    Ok((copy_back(&fin_v, dt)?, copy_back(&fin_i, DType::I64)?))
}
