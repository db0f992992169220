//! `addmm`, `addmv`, `baddbmm` and `addbmm`: `beta * c + alpha * (a @ b)`
//! as one node each (`AddmmBackward0`, `AddmvBackward0`,
//! `BaddbmmBackward0`, `AddbmmBackward0`), as `derivatives.yaml` gives
//! them: `c` gets the gradient times `beta`, each product operand the
//! other's product with it, times `alpha`.

use std::sync::Arc;

use super::meta::requires_grad;
use super::node::{Backward, Saved};
pub use super::node::{Product, Scale};
use super::ops::{bin, bin_s};
use super::pointwise_grad::Arith;
use super::{forward_ad, jvp, record, Mode};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::view;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

impl Product {
    fn name(self) -> &'static str {
        match self {
            Product::Mm => "addmm",
            Product::Mv => "addmv",
            Product::Bmm => "baddbmm",
            Product::SummedBmm => "addbmm",
        }
    }

    fn node(self) -> &'static str {
        match self {
            Product::Mm => "AddmmBackward0",
            Product::Mv => "AddmvBackward0",
            Product::Bmm => "BaddbmmBackward0",
            Product::SummedBmm => "AddbmmBackward0",
        }
    }

    /// The dimensions the operands must have.
    fn dims(self) -> (usize, usize) {
        match self {
            Product::Mm => (2, 2),
            Product::Mv => (2, 1),
            Product::Bmm | Product::SummedBmm => (3, 3),
        }
    }
}

impl Scale {
    pub const ONE: Scale = Scale {
        beta: 1.0,
        alpha: 1.0,
    };
}

/// `beta * c + alpha * (a @ b)` of `product`'s kind, recorded as one node.
pub fn add_product(
    rt: &mut Runtime,
    mode: Mode,
    product: Product,
    c: &Tensor,
    a: &Tensor,
    b: &Tensor,
    scale: Scale,
) -> R<Arc<Tensor>> {
    let (da, db) = product.dims();
    if a.ndim() != da || b.ndim() != db {
        return Err(Error::shape(format!(
            "{}() takes operands of {da} and {db} dimensions, not of shapes {} and {}",
            product.name(),
            fmt_shape(a.shape()),
            fmt_shape(b.shape())
        )));
    }
    let shape = p_shape(product, a, b);
    if crate::runtime::shape::broadcast_shapes(c.shape(), &shape).as_deref() != Some(&shape[..]) {
        return Err(Error::shape(format!(
            "{}(): the input of shape {} does not broadcast to the product's shape {}",
            product.name(),
            fmt_shape(c.shape()),
            fmt_shape(&shape)
        )));
    }
    let mut p = rt.matmul(a, b)?;
    if product == Product::SummedBmm {
        // PyTorch's loop: each batch's product added in turn.
        let parts = view::unbind(&p, 0)?;
        let mut sum = match parts.first() {
            Some(first) => rt.copy(first)?,
            None => super::ops::full(rt, &[a.shape()[1], b.shape()[2]], p.dtype(), p.device(), 0)?,
        };
        for part in parts.iter().skip(1) {
            sum = bin(rt, BinaryOp::Add, &sum, part)?;
        }
        p = sum;
    }
    if scale.alpha != 1.0 {
        p = bin_s(rt, BinaryOp::Mul, &p, scale.alpha)?;
    }
    let out = match scale.beta {
        // `c` is not read: a NaN in it stays out.
        0.0 => p,
        1.0 => bin(rt, BinaryOp::Add, c, &p)?,
        beta => {
            let c = bin_s(rt, BinaryOp::Mul, c, beta)?;
            bin(rt, BinaryOp::Add, &c, &p)?
        }
    };
    let backward = Backward::AddProduct {
        a: requires_grad(b).then(|| Saved::new(a)),
        b: requires_grad(a).then(|| Saved::new(b)),
        product,
        scale,
    };
    let out = record::attach_node(rt, mode, out, product.node(), backward, &[c, a, b]);
    // Forward-mode AD: `beta * tc + alpha * (ta @ b + a @ tb)`, each
    // product the same op with `beta = 0`.
    forward_ad::carry(rt, Arc::clone(&out), &[c, a, b], true, |rt, ts| {
        let only_product = Scale {
            beta: 0.0,
            alpha: scale.alpha,
        };
        let first = match &ts[1] {
            Some(ta) => Some(add_product(rt, mode, product, c, ta, b, only_product)?),
            None => None,
        };
        let second = match &ts[2] {
            Some(tb) => Some(add_product(rt, mode, product, c, a, tb, only_product)?),
            None => None,
        };
        let mut o = record::Recording { rt, mode };
        let third = match &ts[0] {
            Some(tc) if scale.beta == 1.0 => Some(Arc::clone(tc)),
            Some(tc) => Some(o.bin_s(BinaryOp::Mul, tc, scale.beta)?),
            None => None,
        };
        jvp::total(&mut o, vec![first, second, third], &out)
    })
}

/// The shape of `a @ b` (summed over the batch for `addbmm`).
fn p_shape(product: Product, a: &Tensor, b: &Tensor) -> Vec<usize> {
    match product {
        Product::Mm => vec![a.shape()[0], b.shape()[1]],
        Product::Mv => vec![a.shape()[0]],
        Product::Bmm => vec![a.shape()[0], a.shape()[1], b.shape()[2]],
        Product::SummedBmm => vec![a.shape()[1], b.shape()[2]],
    }
}

/// The gradients of `c`, `a` and `b` from `g` (`c`'s summed to its
/// shape by the engine): `beta * g`, `alpha * g @ b^T`, `alpha * a^T @ g`
/// (a vector's as an outer product; `addbmm`'s `g` given to each batch).
pub fn backward(
    rt: &mut Runtime,
    g: &Arc<Tensor>,
    (a, b): (Option<&Tensor>, Option<&Tensor>),
    (product, scale): (Product, Scale),
    wants: (bool, bool),
) -> R<Vec<Option<Arc<Tensor>>>> {
    let gc = match scale.beta {
        1.0 => Arc::clone(g),
        beta => bin_s(rt, BinaryOp::Mul, g, beta)?,
    };
    let g = match product {
        Product::SummedBmm => Arc::new(view::unsqueeze(g, 0)?),
        Product::Mv => Arc::new(view::unsqueeze(g, -1)?),
        _ => Arc::clone(g),
    };
    let scaled = |rt: &mut Runtime, t: Arc<Tensor>| match scale.alpha {
        1.0 => Ok(t),
        alpha => bin_s(rt, BinaryOp::Mul, &t, alpha),
    };
    let ga = match b {
        Some(b) if wants.0 => {
            let bt = match product {
                Product::Mv => view::unsqueeze(b, 0)?,
                _ => view::matrix_transpose(b)?,
            };
            let ga = rt.matmul(&g, &bt)?;
            Some(scaled(rt, ga)?)
        }
        _ => None,
    };
    let gb = match a {
        Some(a) if wants.1 => {
            let gb = rt.matmul(&view::matrix_transpose(a)?, &g)?;
            let gb = match product {
                Product::Mv => Arc::new(view::squeeze(&gb, Some(-1))?),
                _ => gb,
            };
            Some(scaled(rt, gb)?)
        }
        _ => None,
    };
    Ok(vec![Some(gc), ga, gb])
}
