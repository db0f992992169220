//! Products and distances of model code, each a function and a tensor
//! method: `addmm`, `addmv`, `baddbmm`, `addbmm` (`beta * input + alpha *
//! (a @ b)`, `autograd::add_products`), `kron` (PyTorch's composite of
//! views and a product), `dist` and `cdist` (`autograd::distances`), with
//! autocast's casts where PyTorch lists them.

use std::sync::Arc;

use super::super::args::Bound;
use super::super::{Interp, Value};
use crate::autograd::add_products::{add_product, Product, Scale};
use crate::autograd::{autocast, distances, record, Mode};
use crate::error::{Diagnostic, Error};
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::view;
use crate::runtime::Tensor;

type Out = Result<Value, Diagnostic>;

/// `torch.addmm(input, ...)` and the others as functions.
pub(super) fn function(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let t = b.tensor(if name == "cdist" { "x1" } else { "input" })?;
    of(me, name, &t, b)
}

/// `x.addmm(...)` and the others as methods of `t`.
pub(crate) fn of(me: &mut Interp, name: &'static str, t: &Arc<Tensor>, b: &Bound) -> Out {
    let (rt, mode) = (&mut me.rt, me.grad);
    let r = match name {
        "addmm" | "addmv" | "baddbmm" | "addbmm" => {
            let (first, second, product) = match name {
                "addmm" => ("mat1", "mat2", Product::Mm),
                "addmv" => ("mat", "vec", Product::Mv),
                "baddbmm" => ("batch1", "batch2", Product::Bmm),
                _ => ("batch1", "batch2", Product::SummedBmm),
            };
            let (x, y) = (b.tensor(first)?, b.tensor(second)?);
            let scale = Scale {
                beta: b.float("beta")?.unwrap_or(1.0),
                alpha: b.float("alpha")?.unwrap_or(1.0),
            };
            let cast = autocast::inputs(rt, mode, name, &[t, &x, &y]).map_err(|e| e.at(b.span))?;
            let (c, x, y) = (cast.get(0, t), cast.get(1, &x), cast.get(2, &y));
            add_product(rt, mode, product, c, x, y, scale)
        }
        "kron" => {
            let other = b.tensor("other")?;
            kron(rt, mode, t, &other)
        }
        _ => {
            let other = b.tensor(if name == "dist" { "other" } else { "x2" })?;
            let p = b.float("p")?.unwrap_or(2.0);
            if name == "cdist" && b.given("compute_mode").is_some() {
                return Err(Error::value_help(
                    "cdist's compute_mode is not in cudash",
                    "leave it out: PyTorch's default (a matrix product for p=2 past 25 rows)",
                )
                .at(b.span_of("compute_mode")));
            }
            let cast = autocast::inputs(rt, mode, name, &[t, &other]).map_err(|e| e.at(b.span))?;
            let (x, y) = (cast.get(0, t), cast.get(1, &other));
            match name {
                "dist" => distances::dist(rt, mode, x, y, p),
                _ => distances::cdist(rt, mode, x, y, p),
            }
        }
    };
    b.result(r)
}

/// `torch.kron(a, b)` as PyTorch's `KronImpl` computes it: each operand
/// viewed with a size-1 dimension beside each of its own (`_unsafe_view`,
/// which, as PyTorch's, needs a layout a view can take), their product,
/// viewed as the result (`UnsafeViewBackward0` over `MulBackward0`).
fn kron(rt: &mut Runtime, mode: Mode, a: &Tensor, b: &Tensor) -> Result<Arc<Tensor>, Error> {
    let n = a.ndim().max(b.ndim());
    let size = |t: &Tensor, i: usize| match i + t.ndim() >= n {
        true => t.shape()[i + t.ndim() - n] as i64,
        false => 1,
    };
    let (mut a_dims, mut b_dims, mut out_dims) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let (sa, sb) = (size(a, i), size(b, i));
        a_dims.extend([sa, 1]);
        b_dims.extend([1, sb]);
        out_dims.push(sa * sb);
    }
    let unsafe_view = |rt: &Runtime, t: &Tensor, dims: &[i64]| -> Result<Arc<Tensor>, Error> {
        let out = Arc::new(view::view(t, dims)?);
        Ok(record::unsafe_view(rt, mode, t, out))
    };
    let (av, bv) = (unsafe_view(rt, a, &a_dims)?, unsafe_view(rt, b, &b_dims)?);
    let product = record::binary(
        rt,
        mode,
        BinaryOp::Mul,
        Operand::strong(&av),
        Operand::strong(&bv),
    )?;
    unsafe_view(rt, &product, &out_dims)
}
