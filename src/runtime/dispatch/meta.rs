//! How the `meta` device computes (`Compute` for `Meta`): each op checks
//! its operands as the other backends do and gives a result of the right
//! shape and dtype, with no elements, no memory and no kernel. This is
//! PyTorch's meta device: what a model's layers give, and what they would
//! take, without computing or allocating anything.

use std::sync::Arc;

use super::device_compute::Compute;
use super::Runtime;
use crate::error::Error;
use crate::runtime::op::along::Along;
use crate::runtime::op::attention::{blhe, Attend, Dims};
use crate::runtime::op::binary::{BinaryOp, BinaryPlan, Operand};
use crate::runtime::op::factory::{Fill, Make, NewTensor};
use crate::runtime::op::matmul::{matmul_dtypes, not_lined_up};
use crate::runtime::op::reduce::{reduce_dtype, Reduction};
use crate::runtime::op::ternary::{Plan, TernaryOp};
use crate::runtime::op::unary::{check_unary, unary_dtype, UnaryOp};
use crate::runtime::op::window::Geometry;
use crate::runtime::ops::index::Take;
use crate::runtime::ops::{join, sort, tri, window};
use crate::runtime::shape::{broadcast_shapes, fmt_shape, norm_dim};
use crate::runtime::{DType, Tensor};

/// The meta device's shape functions.
pub(super) struct Meta;

fn meta(shape: Vec<usize>, dtype: DType) -> Tensor {
    Tensor::meta(shape, dtype)
}

impl Compute for Meta {
    fn unary(&self, _: &mut Runtime, op: UnaryOp, x: &Tensor) -> Result<Tensor, Error> {
        let dt = x.dtype();
        check_unary(op, dt)?;
        let out = match dt == DType::Bool && op.keeps_int() && op != UnaryOp::BitNot {
            true => DType::Bool,
            false => unary_dtype(op, dt),
        };
        Ok(meta(x.shape().to_vec(), out))
    }

    fn unary_in_place(&self, _: &mut Runtime, _: UnaryOp, _: &Tensor) -> Result<(), Error> {
        Ok(())
    }

    fn binary(
        &self,
        _: &mut Runtime,
        op: BinaryOp,
        _: Operand,
        _: Operand,
        plan: BinaryPlan,
    ) -> Result<Tensor, Error> {
        let dt = match op.gives_bool() {
            true => DType::Bool,
            false => plan.compute,
        };
        Ok(meta(plan.shape, dt))
    }

    fn binary_in_place(
        &self,
        _: &mut Runtime,
        _: BinaryOp,
        _: &Tensor,
        _: Operand,
        _: BinaryPlan,
    ) -> Result<(), Error> {
        Ok(())
    }

    fn ternary(
        &self,
        _: &mut Runtime,
        _: TernaryOp,
        _: [Operand; 3],
        plan: &Plan,
    ) -> Result<Tensor, Error> {
        Ok(meta(plan.shape.clone(), plan.compute))
    }

    fn ternary_in_place(
        &self,
        _: &mut Runtime,
        _: TernaryOp,
        _: &Tensor,
        _: [Operand; 2],
        _: &Plan,
    ) -> Result<(), Error> {
        Ok(())
    }

    /// `a @ b` with PyTorch's rules: 1-D operands are a row (a) or a
    /// column (b), dropped after; batch dimensions broadcast.
    fn matmul(&self, _: &mut Runtime, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        let (k, k2) = (
            a.shape()[a.ndim() - 1],
            b.shape()[b.ndim().saturating_sub(2)],
        );
        if k != k2 {
            return Err(not_lined_up(a.shape(), b.shape(), k, k2));
        }
        let batch = |t: &Tensor| t.shape()[..t.ndim().saturating_sub(2)].to_vec();
        let mut shape = broadcast_shapes(&batch(a), &batch(b)).ok_or_else(|| Error::Broadcast {
            op: "@".into(),
            lhs: fmt_shape(a.shape()),
            rhs: fmt_shape(b.shape()),
        })?;
        let (dt, _) = matmul_dtypes(a.dtype(), b.dtype())?;
        if a.ndim() > 1 {
            shape.push(a.shape()[a.ndim() - 2]);
        }
        if b.ndim() > 1 {
            shape.push(b.shape()[b.ndim() - 1]);
        }
        Ok(meta(shape, dt))
    }

    fn reduce(&self, _: &mut Runtime, x: &Tensor, plan: &Reduction) -> Result<Tensor, Error> {
        Ok(meta(plan.shape.clone(), reduce_dtype(plan.op, x.dtype())))
    }

    fn cast(&self, _: &mut Runtime, x: &Tensor, dtype: DType) -> Result<Tensor, Error> {
        Ok(meta(x.shape().to_vec(), dtype))
    }

    fn join(
        &self,
        _: &mut Runtime,
        xs: &[&Tensor],
        dim: i64,
        stack: bool,
    ) -> Result<Tensor, Error> {
        let plan = match stack {
            true => {
                let views = join::stacked(xs, dim)?;
                let refs: Vec<&Tensor> = views.iter().collect();
                let at = norm_dim(dim, xs[0].ndim() + 1)? as i64;
                join::cat_plan(&refs, at)?
            }
            false => join::cat_plan(xs, dim)?,
        };
        Ok(meta(plan.shape, plan.dtype))
    }

    fn fill(&self, _: &mut Runtime, _: &Tensor, _: Fill) -> Result<(), Error> {
        Ok(())
    }

    fn normal_(&self, _: &mut Runtime, _: &Tensor, _: f64, _: f64) -> Result<(), Error> {
        Ok(())
    }

    fn assign(&self, _: &mut Runtime, _: &Tensor, _: &Tensor) -> Result<(), Error> {
        Ok(())
    }

    /// A factory's tensor: nothing drawn or filled, no memory taken (a
    /// `meta` tensor of any size is free).
    fn make(&self, rt: &mut Runtime, _: Make, new: NewTensor) -> Result<Arc<Tensor>, Error> {
        crate::runtime::shape::checked_numel(new.shape)?;
        rt.counters.ops += 1;
        Ok(Arc::new(meta(new.shape.to_vec(), new.dtype)))
    }

    fn along(&self, _: &mut Runtime, x: &Tensor, plan: &Along) -> Result<Tensor, Error> {
        Ok(meta(plan.shape.clone(), plan.op.out_dtype(x.dtype())))
    }

    fn tri(&self, _: &mut Runtime, x: &Tensor, _: i64, upper: bool) -> Result<Tensor, Error> {
        tri::matrices(if upper { "triu" } else { "tril" }, x)?;
        Ok(meta(x.shape().to_vec(), x.dtype()))
    }

    fn sort(
        &self,
        _: &mut Runtime,
        x: &Tensor,
        dim: i64,
        _: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        norm_dim(dim, x.ndim())?;
        let shape = x.shape().to_vec();
        Ok((meta(shape.clone(), x.dtype()), meta(shape, DType::I64)))
    }

    fn topk(
        &self,
        _: &mut Runtime,
        x: &Tensor,
        (k, dim): (i64, i64),
        _: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        sort::check_topk(x.dtype())?;
        let at = norm_dim(dim, x.ndim())?;
        let k = sort::check_k(k, x.shape().get(at).copied().unwrap_or(1))?;
        let mut shape = x.shape().to_vec();
        if let Some(n) = shape.get_mut(at) {
            *n = k;
        }
        Ok((meta(shape.clone(), x.dtype()), meta(shape, DType::I64)))
    }

    fn attention(
        &self,
        _: &mut Runtime,
        (q, k, v): (&Tensor, &Tensor, &Tensor),
        bias: Option<&Tensor>,
        how: &Attend,
    ) -> Result<(Tensor, Tensor), Error> {
        let d = Dims::of(q, k, v, bias)?;
        Ok((
            meta(made_as(vec![d.b, d.h, d.l, d.ev], how.out_blhe), q.dtype()),
            meta(vec![d.b, d.h, d.l], Dims::lse_dtype(q.dtype())),
        ))
    }

    fn attention_backward(
        &self,
        _: &mut Runtime,
        _: &Tensor,
        (q, k, v): (&Tensor, &Tensor, &Tensor),
        _: (&Tensor, &Tensor),
        _: Option<&Tensor>,
        _: &Attend,
    ) -> Result<(Tensor, Tensor, Tensor), Error> {
        let m = |t: &Tensor| {
            let shape = made_as(t.shape().to_vec(), blhe(t.shape(), t.strides()));
            meta(shape, t.dtype())
        };
        Ok((m(q), m(k), m(v)))
    }

    fn im2col(&self, _: &mut Runtime, x: &Tensor, g: &Geometry) -> Result<Tensor, Error> {
        let (n, c, _, _) = window::image(x.shape());
        let shape = vec![n, c * g.kernel.0 * g.kernel.1, g.out.0 * g.out.1];
        Ok(meta(shape, x.dtype()))
    }

    fn col2im(
        &self,
        _: &mut Runtime,
        cols: &Tensor,
        _: &Geometry,
        shape: &[usize],
    ) -> Result<Tensor, Error> {
        window::floats_only(cols.dtype(), "col2im")?;
        Ok(meta(shape.to_vec(), cols.dtype()))
    }

    fn max_pool2d(
        &self,
        _: &mut Runtime,
        x: &Tensor,
        g: &Geometry,
    ) -> Result<(Tensor, Tensor), Error> {
        window::pool_dtype(x.dtype())?;
        let (n, c, _, _) = window::image(x.shape());
        let shape = vec![n, c, g.out.0, g.out.1];
        Ok((meta(shape.clone(), x.dtype()), meta(shape, DType::I64)))
    }

    fn max_pool2d_backward(
        &self,
        _: &mut Runtime,
        grad: &Tensor,
        _: &Tensor,
        _: &Geometry,
        shape: &[usize],
    ) -> Result<Tensor, Error> {
        window::floats_only(grad.dtype(), "max_pool2d_backward")?;
        Ok(meta(shape.to_vec(), grad.dtype()))
    }

    fn take(
        &self,
        _: &mut Runtime,
        take: &Take,
        _: (&Tensor, Option<(usize, isize)>),
        shape: Vec<usize>,
        _: bool,
    ) -> Result<Tensor, Error> {
        Ok(meta(shape, take.view.dtype()))
    }

    fn put(
        &self,
        _: &mut Runtime,
        _: &Take,
        _: &Tensor,
        _: (&Tensor, Option<(usize, isize)>),
        _: (&[usize], &[isize], &[isize]),
        _: bool,
        _: bool,
    ) -> Result<(), Error> {
        Ok(())
    }

    fn masked_fill(
        &self,
        _: &mut Runtime,
        _: &Tensor,
        _: &Tensor,
        _: &Tensor,
    ) -> Result<(), Error> {
        Ok(())
    }
}

/// A fused attention's [B, H, rows, width] result as the device makes it:
/// [B, rows, H, width] when `blhe` (the op layer transposes it back).
fn made_as(mut shape: Vec<usize>, blhe: bool) -> Vec<usize> {
    if blhe {
        shape.swap(1, 2);
    }
    shape
}
