//! The window ops on a `Launcher` (part of `exec`): im2col, col2im, the max
//! pooling and its gradient (`kernels/window.cu`). What they compute and
//! refuse is the host's (`ops::window`); these carry it out on device
//! memory, one thread per output element.

use super::args::WindowArgs;
use super::exec::{as_view, converted, no_kernel, Launcher, Out, View};
use super::exec_along::Sorted;
use super::source;
use crate::error::Error;
use crate::runtime::op::window::Geometry;
use crate::runtime::shape::{contiguous_strides, numel};
use crate::runtime::DType;

/// The arguments for images of `shape` [N, C, H, W] under `g`.
fn args(shape: &[usize], g: &Geometry) -> WindowArgs {
    let (oh, ow) = g.out;
    WindowArgs {
        out: 0,
        input: 0,
        places: 0,
        planes: (shape[0] * shape[1]) as i64,
        h: shape[2] as i64,
        w: shape[3] as i64,
        oh: oh as i64,
        ow: ow as i64,
        kh: g.kernel.0 as i64,
        kw: g.kernel.1 as i64,
        sh: g.stride.0 as i64,
        sw: g.stride.1 as i64,
        ph: g.padding.0 as i64,
        pw: g.padding.1 as i64,
        dh: g.dilation.0 as i64,
        dw: g.dilation.1 as i64,
    }
}

fn kernel(op: &str, dt: DType) -> Result<crate::runtime::driver::Kernel, Error> {
    source::window(op, dt).ok_or_else(|| no_kernel(format!("{op} in {dt}")))
}

/// A contiguous copy of `x` when it is not: (the copy, to keep alive).
fn contiguous<'a, L: Launcher>(l: &L, x: View<'a, L::Mem>) -> Result<Option<Out<L::Mem>>, Error> {
    (!x.is_contiguous())
        .then(|| converted(l, x, x.dtype, true))
        .transpose()
}

/// `x` [N, C, H, W]'s windows as columns [N, C * kh * kw, Ho * Wo].
pub fn im2col<L: Launcher>(l: &L, x: View<L::Mem>, g: &Geometry) -> Result<Out<L::Mem>, Error> {
    let k = kernel("im2col", x.dtype)?;
    let cx = contiguous(l, x)?;
    let sc = contiguous_strides(x.shape);
    let x = as_view(cx.as_ref(), x, &sc);
    let (kh, kw) = g.kernel;
    let shape = vec![x.shape[0], x.shape[1] * kh * kw, g.out.0 * g.out.1];
    let n = numel(&shape);
    let mem = l.alloc(x.dtype, n)?;
    let p = WindowArgs {
        out: l.addr(&mem),
        input: x.first(l),
        ..args(x.shape, g)
    };
    l.run(&k, l.geometry().over(n as u64), p)?;
    Ok(Out {
        mem,
        dtype: x.dtype,
        shape,
    })
}

/// Columns [N, C * kh * kw, Ho * Wo] added into their places of an image
/// of `shape` [N, C, H, W].
pub fn col2im<L: Launcher>(
    l: &L,
    cols: View<L::Mem>,
    g: &Geometry,
    shape: &[usize],
) -> Result<Out<L::Mem>, Error> {
    let k = kernel("col2im", cols.dtype)?;
    let cc = contiguous(l, cols)?;
    let sc = contiguous_strides(cols.shape);
    let cols = as_view(cc.as_ref(), cols, &sc);
    let n = numel(shape);
    let mem = l.alloc(cols.dtype, n)?;
    let p = WindowArgs {
        out: l.addr(&mem),
        input: cols.first(l),
        ..args(shape, g)
    };
    l.run(&k, l.geometry().over(n as u64), p)?;
    Ok(Out {
        mem,
        dtype: cols.dtype,
        shape: shape.to_vec(),
    })
}

/// Each window's maximum of `x` [N, C, H, W] and its place in its plane:
/// (values, i64 places), both [N, C, Ho, Wo].
pub fn max_pool<L: Launcher>(
    l: &L,
    x: View<L::Mem>,
    g: &Geometry,
) -> Result<Sorted<L::Mem>, Error> {
    let k = kernel("max_pool", x.dtype)?;
    let cx = contiguous(l, x)?;
    let sc = contiguous_strides(x.shape);
    let x = as_view(cx.as_ref(), x, &sc);
    let shape = vec![x.shape[0], x.shape[1], g.out.0, g.out.1];
    let n = numel(&shape);
    let values = l.alloc(x.dtype, n)?;
    let places = l.alloc(DType::I64, n)?;
    let p = WindowArgs {
        out: l.addr(&values),
        input: x.first(l),
        places: l.addr(&places),
        ..args(x.shape, g)
    };
    l.run(&k, l.geometry().over(n as u64), p)?;
    let out = |mem, dtype| Out {
        mem,
        dtype,
        shape: shape.clone(),
    };
    Ok((out(values, x.dtype), out(places, DType::I64)))
}

/// The gradient of `max_pool`'s input of `shape`: `grad` [N, C, Ho, Wo]
/// added at `places`.
pub fn max_pool_backward<L: Launcher>(
    l: &L,
    grad: View<L::Mem>,
    places: View<L::Mem>,
    g: &Geometry,
    shape: &[usize],
) -> Result<Out<L::Mem>, Error> {
    let k = kernel("max_pool_backward", grad.dtype)?;
    let cg = contiguous(l, grad)?;
    let sg = contiguous_strides(grad.shape);
    let grad = as_view(cg.as_ref(), grad, &sg);
    let cp = contiguous(l, places)?;
    let sp = contiguous_strides(places.shape);
    let places = as_view(cp.as_ref(), places, &sp);
    let n = numel(shape);
    let mem = l.alloc(grad.dtype, n)?;
    let p = WindowArgs {
        out: l.addr(&mem),
        input: grad.first(l),
        places: places.first(l),
        ..args(shape, g)
    };
    l.run(&k, l.geometry().over(n as u64), p)?;
    Ok(Out {
        mem,
        dtype: grad.dtype,
        shape: shape.to_vec(),
    })
}
