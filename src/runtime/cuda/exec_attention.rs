//! Fused attention on a `Launcher` (part of `exec`): the forward's output
//! and log-sum-exp, and the gradients (`kernels/attention.cu`). What they
//! compute is the host's (`ops::attention`); these read the operands in
//! place through their strides, one thread per query or key row.

use super::args::AttentionArgs;
use super::exec::{no_kernel, Launcher, Out, View};
use super::source;
use crate::error::Error;
use crate::runtime::op::attention::{blhe, broadcast4, strides, Attend, Dims};
use crate::runtime::DType;

/// Query, key and value in device memory.
type Qkv<'a, M> = (View<'a, M>, View<'a, M>, View<'a, M>);

fn kernel(op: &str, dt: DType) -> Result<crate::runtime::driver::Kernel, Error> {
    source::attention(op, dt).ok_or_else(|| no_kernel(format!("{op} in {dt}")))
}

fn strides4(v: &View<impl Sized>) -> [i64; 4] {
    broadcast4(v.shape, v.strides).map(|x| x as i64)
}

fn new_out<L: Launcher>(l: &L, dtype: DType, shape: Vec<usize>) -> Result<Out<L::Mem>, Error> {
    let n = shape.iter().product();
    Ok(Out {
        mem: l.alloc(dtype, n)?,
        dtype,
        shape,
    })
}

/// A [B, H, rows, width] result, allocated as [B, rows, H, width] when
/// `blhe` (the caller sees it through `transpose(1, 2)`), and its strides.
fn new_result<L: Launcher>(
    l: &L,
    dtype: DType,
    (b, h, rows, w): (usize, usize, usize, usize),
    blhe: bool,
) -> Result<(Out<L::Mem>, [i64; 4]), Error> {
    let shape = match blhe {
        true => vec![b, rows, h, w],
        false => vec![b, h, rows, w],
    };
    let st = strides((b, h, rows, w), blhe).map(|x| x as i64);
    Ok((new_out(l, dtype, shape)?, st))
}

/// The arguments every attention kernel reads: `q`, `k`, `v`, the bias.
fn operands<L: Launcher>(
    l: &L,
    d: &Dims,
    (q, k, v): Qkv<L::Mem>,
    bias: Option<View<L::Mem>>,
    how: &Attend,
) -> AttentionArgs {
    AttentionArgs {
        q: q.first(l),
        k: k.first(l),
        v: v.first(l),
        bias: bias.map_or(0, |b| b.first(l)),
        b: d.b as i64,
        h: d.h as i64,
        l: d.l as i64,
        s: d.s as i64,
        e: d.e as i64,
        ev: d.ev as i64,
        qs: strides4(&q),
        ks: strides4(&k),
        vs: strides4(&v),
        bs: bias.as_ref().map_or([0; 4], strides4),
        scale: how.scale,
        causal: how.causal as i64,
        has_bias: bias.is_some() as i64,
        ..AttentionArgs::default()
    }
}

/// `(out [B, H, L, Ev], logsumexp [B, H, L])`.
pub fn forward<L: Launcher>(
    l: &L,
    d: &Dims,
    qkv: Qkv<L::Mem>,
    bias: Option<View<L::Mem>>,
    how: &Attend,
) -> Result<Vec<Out<L::Mem>>, Error> {
    let dt = qkv.0.dtype;
    let k = kernel("attention", dt)?;
    let (out, os) = new_result(l, dt, (d.b, d.h, d.l, d.ev), how.out_blhe)?;
    let lse = new_out(l, Dims::lse_dtype(dt), vec![d.b, d.h, d.l])?;
    let p = AttentionArgs {
        out: l.addr(&out.mem),
        os,
        lse: l.addr(&lse.mem),
        ..operands(l, d, qkv, bias, how)
    };
    l.run(&k, l.geometry().over((d.b * d.h * d.l) as u64), p)?;
    Ok(vec![out, lse])
}

/// `(dq, dk, dv)` for the output's gradient `dout`, from the forward's
/// `out` and `lse`; each gradient laid out as its input when that is
/// [B, L, H, E] (`blhe`), else row-major.
pub fn backward<L: Launcher>(
    l: &L,
    d: &Dims,
    dout: View<L::Mem>,
    qkv: Qkv<L::Mem>,
    (out, lse): (View<L::Mem>, View<L::Mem>),
    bias: Option<View<L::Mem>>,
    how: &Attend,
) -> Result<Vec<Out<L::Mem>>, Error> {
    let dt = qkv.0.dtype;
    let (kq, kkv) = (
        kernel("attention_backward_q", dt)?,
        kernel("attention_backward_kv", dt)?,
    );
    let (q, k, v) = qkv;
    let (dq, dqs) = new_result(l, dt, (d.b, d.h, d.l, d.e), blhe(q.shape, q.strides))?;
    let (dk, dks) = new_result(l, dt, (d.b, d.h, d.s, d.e), blhe(k.shape, k.strides))?;
    let (dv, dvs) = new_result(l, dt, (d.b, d.h, d.s, d.ev), blhe(v.shape, v.strides))?;
    // Each query row's dot(dout, out), written by the first kernel.
    let delta = l.alloc(DType::F64, d.b * d.h * d.l)?;
    let p = AttentionArgs {
        out: out.first(l),
        os: strides4(&out),
        lse: lse.first(l),
        dout: dout.first(l),
        gs: strides4(&dout),
        dq: l.addr(&dq.mem),
        dk: l.addr(&dk.mem),
        dv: l.addr(&dv.mem),
        dqs,
        dks,
        dvs,
        delta: l.addr(&delta),
        ..operands(l, d, qkv, bias, how)
    };
    l.run(&kq, l.geometry().over((d.b * d.h * d.l) as u64), p)?;
    l.run(&kkv, l.geometry().over((d.b * d.h * d.s) as u64), p)?;
    Ok(vec![dq, dk, dv])
}
