//! How the host computes each planned op (`Compute` for the CPU and the
//! simulator's devices): the loops of `runtime/ops`. A simulated device's
//! tensors are host memory too; its results take a block of the device's
//! caching allocator (`Runtime::reserve`) as a kernel's output would.

use std::sync::Arc;

use super::device_compute::Compute;
use super::{Flops, Runtime};
use crate::error::Error;
use crate::runtime::buffer::Buffer;
use crate::runtime::op::along::Along;
use crate::runtime::op::attention::Attend;
use crate::runtime::op::binary::{BinaryOp, BinaryPlan, Operand};
use crate::runtime::op::factory::{Fill, Make, NewTensor};
use crate::runtime::op::reduce::Reduction;
use crate::runtime::op::ternary::{Plan, TernaryOp};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::op::window::Geometry;
use crate::runtime::ops::index::{self, Take};
use crate::runtime::ops::{
    along, elementwise, factory, join, matmul, reduce, sort, ternary, tri, window,
};
use crate::runtime::shape::numel;
use crate::runtime::{DType, Device, Tensor};

/// The host's loops.
pub(super) struct Host;

impl Compute for Host {
    fn unary(&self, _: &mut Runtime, op: UnaryOp, x: &Tensor) -> Result<Tensor, Error> {
        elementwise::unary(op, x)
    }

    fn unary_in_place(&self, _: &mut Runtime, op: UnaryOp, x: &Tensor) -> Result<(), Error> {
        if x.numel() > 0 {
            read_in_order(&[x]);
        }
        let r = elementwise::unary(op, x)?;
        index::assign(x, &r)
    }

    fn binary(
        &self,
        _: &mut Runtime,
        op: BinaryOp,
        a: Operand,
        b: Operand,
        plan: BinaryPlan,
    ) -> Result<Tensor, Error> {
        if numel(&plan.shape) > 0 {
            read_in_order(&[a.tensor, b.tensor]);
        }
        elementwise::binary_planned(op, a, b, plan)
    }

    fn binary_in_place(
        &self,
        _: &mut Runtime,
        op: BinaryOp,
        x: &Tensor,
        y: Operand,
        plan: BinaryPlan,
    ) -> Result<(), Error> {
        // The loops that write x as they read it read its live bytes: a read
        // of x that races a pending write (and sees the bytes from before
        // it) takes the general path, which reads what the race left.
        let racing = x.numel() > 0 && read_in_order(&[x, y.tensor]);
        if !racing && elementwise::in_place_same_dtype(op, x, y).is_some() {
            return Ok(());
        }
        let r = elementwise::binary_planned(op, Operand::strong(x), y, plan)?;
        index::assign(x, &r)
    }

    fn ternary(
        &self,
        _: &mut Runtime,
        op: TernaryOp,
        [a, b, c]: [Operand; 3],
        plan: &Plan,
    ) -> Result<Tensor, Error> {
        if numel(&plan.shape) > 0 {
            read_in_order(&[a.tensor, b.tensor, c.tensor]);
        }
        ternary::ternary(op, a, b, c)
    }

    fn ternary_in_place(
        &self,
        _: &mut Runtime,
        op: TernaryOp,
        x: &Tensor,
        [b, c]: [Operand; 2],
        _: &Plan,
    ) -> Result<(), Error> {
        let racing = x.numel() > 0 && read_in_order(&[x, b.tensor, c.tensor]);
        if !racing && op == TernaryOp::AddScaled && ternary::add_scaled_in_place(x, b, c).is_some()
        {
            return Ok(());
        }
        let r = ternary::ternary(op, Operand::strong(x), b, c)?;
        index::assign(x, &r)
    }

    fn matmul(&self, rt: &mut Runtime, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        matmul::matmul_tf32(a, b, rt.matmul_tf32(a.device()))
    }

    fn reduce(&self, _: &mut Runtime, x: &Tensor, plan: &Reduction) -> Result<Tensor, Error> {
        reduce::reduce_planned(x, plan)
    }

    fn cast(&self, _: &mut Runtime, x: &Tensor, dtype: DType) -> Result<Tensor, Error> {
        Ok(x.cast(dtype))
    }

    fn join(
        &self,
        _: &mut Runtime,
        xs: &[&Tensor],
        dim: i64,
        stack: bool,
    ) -> Result<Tensor, Error> {
        match stack {
            true => join::stack(xs, dim),
            false => join::cat(xs, dim),
        }
    }

    fn fill(&self, _: &mut Runtime, x: &Tensor, value: Fill) -> Result<(), Error> {
        index::fill(x, value);
        Ok(())
    }

    fn normal_(&self, rt: &mut Runtime, x: &Tensor, mean: f64, std: f64) -> Result<(), Error> {
        let vals = match x.device() {
            Device::Cpu => {
                // In the tensor's dtype: its assignment is one copy; a
                // strided tensor's elements drawn in memory order.
                let contiguous = x.is_contiguous();
                let g = rt.generators.cpu();
                let src = factory::in_memory_order(x, |shape| {
                    factory::normal(g, shape, x.dtype(), (mean, std), contiguous)
                })?;
                return index::assign(x, &src);
            }
            // (The meta device has its own `Compute`.)
            Device::Meta => return Ok(()),
            Device::Cuda(d) => {
                let z = rt.generators.cuda(d).normal(x.numel());
                z.into_iter().map(|v| mean + std * v).collect()
            }
        };
        let src = factory::from_f64s(vals, x.shape(), DType::F64, x.device());
        index::assign(x, &src)
    }

    fn assign(&self, _: &mut Runtime, dst: &Tensor, src: &Tensor) -> Result<(), Error> {
        index::assign(dst, src)
    }

    fn make(&self, rt: &mut Runtime, what: Make, new: NewTensor) -> Result<Arc<Tensor>, Error> {
        let NewTensor {
            shape,
            dtype,
            device,
            like,
        } = new;
        let mem = rt.reserve(device, shape, dtype)?;
        // A CPU generator draws its numbers on one thread, about 2.5 ns each
        // for normal ones (PyTorch's `randn`, measured on one core).
        let cost = match what {
            Make::Random(_) => Flops {
                host_serial: RANDOM_DRAW,
                ..Flops::default()
            },
            _ => Flops::default(),
        };
        let out = match what {
            Make::Full(value) => factory::full(shape, value, dtype, device)?,
            Make::Empty => {
                // No kernel: the memory is all there is.
                let out = factory::full(shape, Fill::Int(0), dtype, device)?;
                return rt.finish_unwritten(out, mem, cost);
            }
            Make::Random(dist) => factory::random(&mut rt.generators, dist, shape, dtype, device)?,
            Make::Arange { values, .. } => values,
            Make::Linspace(plan) => plan.tensor(dtype, device),
            Make::Eye => factory::eye(shape[0], shape[1], dtype, device)?,
        };
        rt.finish(out, mem, like.as_slice(), cost)
    }

    fn along(&self, _: &mut Runtime, x: &Tensor, plan: &Along) -> Result<Tensor, Error> {
        along::along(x, plan)
    }

    fn tri(
        &self,
        _: &mut Runtime,
        x: &Tensor,
        diagonal: i64,
        upper: bool,
    ) -> Result<Tensor, Error> {
        tri::tri(x, diagonal, upper)
    }

    fn sort(
        &self,
        _: &mut Runtime,
        x: &Tensor,
        dim: i64,
        descending: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        sort::sort(x, dim, descending)
    }

    fn topk(
        &self,
        _: &mut Runtime,
        x: &Tensor,
        (k, dim): (i64, i64),
        largest: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        sort::topk(x, k, dim, largest)
    }

    fn attention(
        &self,
        _: &mut Runtime,
        (q, k, v): (&Tensor, &Tensor, &Tensor),
        bias: Option<&Tensor>,
        how: &Attend,
    ) -> Result<(Tensor, Tensor), Error> {
        Ok(crate::runtime::ops::attention::forward(q, k, v, bias, how))
    }

    fn attention_backward(
        &self,
        _: &mut Runtime,
        dout: &Tensor,
        qkv: (&Tensor, &Tensor, &Tensor),
        saved: (&Tensor, &Tensor),
        bias: Option<&Tensor>,
        how: &Attend,
    ) -> Result<(Tensor, Tensor, Tensor), Error> {
        Ok(crate::runtime::ops::attention::backward(
            dout, qkv, saved, bias, how,
        ))
    }

    fn im2col(&self, _: &mut Runtime, x: &Tensor, g: &Geometry) -> Result<Tensor, Error> {
        Ok(window::im2col(x, g))
    }

    fn col2im(
        &self,
        _: &mut Runtime,
        cols: &Tensor,
        g: &Geometry,
        shape: &[usize],
    ) -> Result<Tensor, Error> {
        window::col2im(cols, g, shape)
    }

    fn max_pool2d(
        &self,
        _: &mut Runtime,
        x: &Tensor,
        g: &Geometry,
    ) -> Result<(Tensor, Tensor), Error> {
        window::max_pool2d(x, g)
    }

    fn max_pool2d_backward(
        &self,
        _: &mut Runtime,
        grad: &Tensor,
        places: &Tensor,
        _: &Geometry,
        shape: &[usize],
    ) -> Result<Tensor, Error> {
        window::max_pool2d_backward(grad, places, shape)
    }

    fn take(
        &self,
        _: &mut Runtime,
        take: &Take,
        (index, wrap): (&Tensor, Option<(usize, isize)>),
        shape: Vec<usize>,
        asserts: bool,
    ) -> Result<Tensor, Error> {
        let device = take.view.device();
        if asserts {
            // The kernel's threads stop at the assertion; what they wrote
            // is never read (the device runs nothing more).
            let n = shape.iter().product();
            return Ok(Tensor::new(
                Buffer::zeros(take.view.dtype(), n),
                shape,
                device,
            ));
        }
        let vals = index.cast(DType::I64).to_vec::<i64>();
        Ok(Tensor::new(take.host(&vals, wrap), shape, device))
    }

    fn put(
        &self,
        _: &mut Runtime,
        take: &Take,
        value: &Tensor,
        (index, wrap): (&Tensor, Option<(usize, isize)>),
        _: (&[usize], &[isize], &[isize]),
        asserts: bool,
        accumulate: bool,
    ) -> Result<(), Error> {
        // The kernel's threads stop at the assertion (see `take`).
        if !asserts {
            let index = index.cast(DType::I64).to_vec::<i64>();
            match accumulate {
                true => take.put_add_host(&index, wrap, value),
                false => take.put_host(&index, wrap, value),
            }
        }
        Ok(())
    }

    fn masked_fill(
        &self,
        _: &mut Runtime,
        view: &Tensor,
        mask: &Tensor,
        value: &Tensor,
    ) -> Result<(), Error> {
        // A cpu mask for a simulated device's tensor: its elements are host
        // memory either way.
        let here = Tensor::new(
            mask.contiguous_buffer(),
            mask.shape().to_vec(),
            view.device(),
        );
        let weak = Operand {
            tensor: value,
            weak: true,
        };
        let filled = ternary::ternary(
            TernaryOp::Where,
            Operand::strong(&here),
            weak,
            Operand::strong(view),
        )?;
        index::assign(view, &filled)
    }
}

/// A host op's operands, checked for races in the order a kernel takes
/// them (the first operand's warning first, as on a driver's device); the
/// op's own reads after this see the same bytes without a second warning.
/// Whether the first operand's read races a pending write (and so sees the
/// bytes from before that write).
fn read_in_order(operands: &[&Tensor]) -> bool {
    // (A host operand is read once, by the op itself, as on a driver.)
    let mut first_stale = false;
    for (i, t) in operands.iter().enumerate() {
        if t.device().is_cuda() {
            let stale = t.before_device_read() == crate::runtime::gpu::Sees::Stale;
            first_stale |= i == 0 && stale;
        }
    }
    first_stale
}

/// Host seconds a CPU generator takes per number it draws.
const RANDOM_DRAW: f64 = 2.5e-9;
