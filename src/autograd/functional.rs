//! `torch.nn.functional`'s `linear` and `dropout`, as PyTorch computes
//! and records them: `linear` of a matrix with a bias is one `addmm`
//! (`AddmmBackward0`); `dropout` on a GPU is the fused `native_dropout`
//! (its graph keeps a one-byte mask), on the cpu a multiply by a noise
//! tensor of the input's dtype (`MulBackward0` keeps the noise).

use std::sync::Arc;

use super::meta::requires_grad;
use super::node::{Backward, Saved};
use super::ops::{bin, bin_s};
use super::{record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Distribution, NewTensor};
use crate::runtime::op::view;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

/// `linear(x, w, b)`: `x @ w.T + b`, `w` of shape [out, in], `b` [out].
pub fn linear(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    w: &Arc<Tensor>,
    b: Option<&Arc<Tensor>>,
) -> R<Arc<Tensor>> {
    if w.ndim() != 2 && !(w.ndim() == 1 && b.is_none()) {
        return Err(Error::shape(format!(
            "linear() takes a weight of shape [out_features, in_features], not {}",
            fmt_shape(w.shape())
        )));
    }
    let addmm = x.ndim() == 2 && w.ndim() == 2 && b.is_some();
    if !addmm {
        // matmul, then the bias: recorded op by op (TBackward0, MmBackward0, AddBackward0).
        let wt = match w.ndim() {
            1 => Arc::clone(w),
            _ => record::attach_node(
                rt,
                mode,
                Arc::new(view::matrix_transpose(w)?),
                "TBackward0",
                Backward::Transpose { d0: 0, d1: 1 },
                &[w],
            ),
        };
        let y = record::matmul(rt, mode, x, &wt)?;
        return match b {
            Some(b) => record::binary(
                rt,
                mode,
                BinaryOp::Add,
                Operand::strong(&y),
                Operand::strong(b),
            ),
            None => Ok(y),
        };
    }
    let b = b.expect("addmm has a bias");
    let product = rt.matmul(x, &view::matrix_transpose(w)?)?;
    let out = bin(rt, BinaryOp::Add, &product, b)?;
    drop(product);
    let backward = Backward::Addmm {
        x: requires_grad(w).then(|| Saved::new(x)),
        w: requires_grad(x).then(|| Saved::new(w)),
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "AddmmBackward0",
        backward,
        &[b, x, w],
    ))
}

/// `dropout(x, p, training)`: each element zeroed with probability `p`,
/// the others scaled by `1 / (1 - p)`; `x` itself when not training or `p` is 0.
pub fn dropout(
    rt: &mut Runtime,
    mode: Mode,
    x: &Arc<Tensor>,
    p: f64,
    training: bool,
) -> R<Arc<Tensor>> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::value(format!(
            "dropout probability has to be between 0 and 1, but got {p}"
        )));
    }
    if !x.dtype().is_float() {
        return Err(Error::dtype(
            format!("dropout takes a float tensor, not {}", x.dtype()),
            Some("convert it first: `x.to(f32)`".into()),
        ));
    }
    if !training || p == 0.0 || x.numel() == 0 {
        return Ok(Arc::clone(x));
    }
    let zero = Tensor::scalar(0.0f64);
    if p == 1.0 {
        let zero = Operand::weak(&zero);
        return record::binary(rt, mode, BinaryOp::Mul, Operand::strong(x), zero);
    }
    let new = NewTensor {
        shape: x.shape(),
        dtype: x.dtype(),
        device: x.device(),
        like: None,
    };
    let u = rt.random(new, Distribution::Uniform)?;
    let keep = bin_s(rt, BinaryOp::Lt, &u, 1.0 - p)?;
    drop(u);
    let scale = 1.0 / (1.0 - p);
    if !x.device().is_cuda() {
        // PyTorch's cpu path: noise = bernoulli(1 - p) / (1 - p); x * noise.
        let noise = rt.cast(&keep, x.dtype())?;
        let noise = bin_s(rt, BinaryOp::Div, &noise, 1.0 - p)?;
        return record::binary(
            rt,
            mode,
            BinaryOp::Mul,
            Operand::strong(x),
            Operand::strong(&noise),
        );
    }
    // The fused kernel's result: x * mask * scale; the graph keeps the mask.
    let kept = bin(rt, BinaryOp::Mul, x, &keep)?;
    let out = bin_s(rt, BinaryOp::Mul, &kept, scale)?;
    drop(kept);
    let backward = Backward::NativeDropout {
        mask: Saved::new(&keep),
        scale,
    };
    Ok(record::attach_node(
        rt,
        mode,
        out,
        "NativeDropoutBackward0",
        backward,
        &[x],
    ))
}
