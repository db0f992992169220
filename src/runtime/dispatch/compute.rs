//! Ops that compute: elementwise, reductions, matmul, casts, joins, in-place
//! writes and factories. Each checks its inputs, computes with the host ops
//! (`runtime/ops`), and finishes as one kernel on the current stream.

use std::sync::Arc;

use super::{Flops, Runtime};
use crate::error::Error;
use crate::runtime::buffer::FloatToInt;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Distribution, Fill};
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::op::{overlap, view};
use crate::runtime::ops::elementwise;
use crate::runtime::ops::factory;
use crate::runtime::ops::reduce;
use crate::runtime::ops::ternary;
use crate::runtime::ops::{index, join, matmul};
use crate::runtime::shape::{norm_dims, numel};
use crate::runtime::{DType, Device, Tensor};

impl Runtime {
    pub fn unary(&mut self, op: UnaryOp, x: &Tensor) -> Result<Arc<Tensor>, Error> {
        let out = match self.launches_on(x.device()) {
            Some(d) => self.unary_on(d, op, x)?,
            None => elementwise::unary(op, x)?,
        };
        self.finish(out, None, &[x], Flops::default())
    }

    /// `a op b`, broadcasting; a weak operand (a Python number) does not
    /// promote the other's dtype.
    pub fn binary(&mut self, op: BinaryOp, a: Operand, b: Operand) -> Result<Arc<Tensor>, Error> {
        if let Some((op, e)) = elementwise::bool_power(op, a, b) {
            return self.binary(op, a, Operand::weak(&e));
        }
        if let Some((op, inv)) = elementwise::reciprocal_divisor(op, a, b) {
            return self.binary(op, a, Operand::weak(&inv));
        }
        // Planned once (devices, shapes, dtypes), then computed where it runs.
        let plan = elementwise::plan_binary(op, a, b)?;
        let out = match self.launches_on(plan.device) {
            Some(d) => self.binary_on(d, op, a, b, plan)?,
            None => {
                if numel(&plan.shape) > 0 {
                    read_in_order(&[a.tensor, b.tensor]);
                }
                elementwise::binary_planned(op, a, b, plan)?
            }
        };
        self.finish(out, None, &[a.tensor, b.tensor], Flops::default())
    }

    /// `x op= y` (`x += y`, `x.add_(y)`): `x` updated in place, as PyTorch's
    /// in-place ops: `y` broadcasts to x's shape, the result casts to x's
    /// dtype, and no element is written through two names.
    pub fn binary_(&mut self, op: BinaryOp, x: &Tensor, y: Operand) -> Result<(), Error> {
        let xo = Operand::strong(x);
        if let Some((op, e)) = elementwise::bool_power(op, xo, y) {
            return self.binary_(op, x, Operand::weak(&e));
        }
        let device = elementwise::result_device(xo, y)?;
        if device != x.device() {
            return Err(Error::DeviceMismatch {
                a: x.device(),
                b: y.tensor.device(),
            });
        }
        elementwise::check_in_place(op, x, y)?;
        if let Some((op, inv)) = elementwise::reciprocal_divisor(op, xo, y) {
            return self.binary_(op, x, Operand::weak(&inv));
        }
        overlap::check_write(x)?;
        overlap::check_partial(x, y.tensor)?;
        match self.launches_on(device) {
            Some(d) => self.binary_in_place_on(d, op, x, y)?,
            None => {
                elementwise::plan_binary(op, xo, y)?;
                if x.numel() > 0 {
                    read_in_order(&[x, y.tensor]);
                }
                let r = elementwise::binary(op, xo, y)?;
                index::assign(x, &r)?;
            }
        }
        self.wrote_in_place(x, &[x, y.tensor])?;
        Ok(())
    }

    /// `where(cond, x, y)` or `clamp(x, min, max)`: three operands
    /// broadcast together, one kernel.
    pub fn ternary(
        &mut self,
        op: TernaryOp,
        a: Operand,
        b: Operand,
        c: Operand,
    ) -> Result<Arc<Tensor>, Error> {
        let plan = ternary::plan(op, a, b, c)?;
        let out = match self.launches_on(plan.device) {
            Some(d) => self.ternary_on(d, op, [a, b, c], plan.compute, &plan.shape)?,
            None => {
                if numel(&plan.shape) > 0 {
                    read_in_order(&[a.tensor, b.tensor, c.tensor]);
                }
                ternary::ternary(op, a, b, c)?
            }
        };
        self.finish(out, None, &[a.tensor, b.tensor, c.tensor], Flops::default())
    }

    pub fn matmul(&mut self, a: &Tensor, b: &Tensor) -> Result<Arc<Tensor>, Error> {
        let dt = a.dtype();
        if dt.is_int() && dt == b.dtype() && (a.device().is_cuda() || b.device().is_cuda()) {
            // PyTorch's CUDA products are cuBLAS's, for floats only
            // ("addmm_cuda" not implemented for 'Int'); its cpu has them.
            let device = if a.device().is_cuda() {
                a.device()
            } else {
                b.device()
            };
            return Err(Error::dtype(
                format!("matmul of {dt} tensors is not implemented on a CUDA device ({device})"),
                Some(format!(
                    "a GPU's products take floats: `a.to(f32) @ b.to(f32)`, or multiply {dt} on the cpu"
                )),
            ));
        }
        let out = match self
            .launches_on(a.device())
            .filter(|_| a.device() == b.device())
        {
            Some(d) if a.ndim() > 0 && b.ndim() > 0 => self.matmul_on(d, a, b)?,
            _ => matmul::matmul(a, b)?,
        };
        let k = a.shape().last().copied().unwrap_or(1) as u64;
        let cost = Flops {
            flops: 2 * out.numel() as u64 * k,
            half: matches!(out.dtype(), DType::F16 | DType::BF16),
        };
        self.finish(out, None, &[a, b], cost)
    }

    pub fn reduce(
        &mut self,
        op: ReduceOp,
        x: &Tensor,
        dim: Option<i64>,
        keepdim: bool,
    ) -> Result<Arc<Tensor>, Error> {
        let out = match self.launches_on(x.device()) {
            Some(d) => self.reduce_on(d, op, x, dim, keepdim)?,
            None => reduce::reduce(op, x, dim, keepdim)?,
        };
        self.finish(out, None, &[x], Flops::default())
    }

    /// A sum or mean over several dims (`sum((0, 2))`). A CPU tensor's in one
    /// pass, adding as PyTorch's CPU sum does; a device's kernels reduce one
    /// dim, so there the dims are merged first (`over_dims`), on a simulated
    /// device too, so that it shows the kernels' bits.
    pub fn reduce_dims(
        &mut self,
        op: ReduceOp,
        x: &Arc<Tensor>,
        dims: &[i64],
        keepdim: bool,
    ) -> Result<Arc<Tensor>, Error> {
        if x.device() != Device::Cpu {
            return self.over_dims(x, dims, keepdim, |rt, flat| {
                rt.reduce(op, flat, Some(-1), false)
            });
        }
        let out = reduce::reduce_dims(op, x, dims, keepdim)?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// A reduction over several dims at once: the reduced dims moved last
    /// and merged (a view when the memory allows, else one copy), then
    /// `reduce` over the last dim of that.
    pub fn over_dims(
        &mut self,
        t: &Arc<Tensor>,
        dims: &[i64],
        keepdim: bool,
        reduce: impl FnOnce(&mut Runtime, &Arc<Tensor>) -> Result<Arc<Tensor>, Error>,
    ) -> Result<Arc<Tensor>, Error> {
        let n = t.ndim();
        let reduced = norm_dims(dims, n)?;
        let kept: Vec<usize> = (0..n).filter(|k| !reduced.contains(k)).collect();
        let order: Vec<i64> = kept.iter().chain(&reduced).map(|&k| k as i64).collect();
        let moved = Arc::new(view::permute(t, &order)?);
        let mut merged: Vec<i64> = kept.iter().map(|&k| t.shape()[k] as i64).collect();
        merged.push(reduced.iter().map(|&k| t.shape()[k] as i64).product());
        let flat = self.reshape(&moved, &merged)?;
        let out = reduce(self, &flat)?;
        if !keepdim {
            return Ok(out);
        }
        let shape: Vec<i64> = (0..n)
            .map(|k| {
                if reduced.contains(&k) {
                    1
                } else {
                    t.shape()[k] as i64
                }
            })
            .collect();
        self.reshape(&out, &shape)
    }

    /// A converted copy (`.to(dtype)`).
    pub fn cast(&mut self, x: &Tensor, dtype: DType) -> Result<Arc<Tensor>, Error> {
        let out = match self.launches_on(x.device()) {
            Some(d) => self.cast_on(d, x, dtype)?,
            None => x.cast(dtype),
        };
        self.finish(out, None, &[x], Flops::default())
    }

    /// A contiguous copy (`.contiguous()` of a strided view).
    pub fn copy(&mut self, x: &Tensor) -> Result<Arc<Tensor>, Error> {
        let out = match self.launches_on(x.device()) {
            Some(d) => self.cast_on(d, x, x.dtype())?,
            None => x.copy(),
        };
        self.finish(out, None, &[x], Flops::default())
    }

    /// `.reshape`: a view when the memory allows, else a copy (one kernel).
    pub fn reshape(&mut self, x: &Arc<Tensor>, dims: &[i64]) -> Result<Arc<Tensor>, Error> {
        if let (Some(d), false) = (self.launches_on(x.device()), x.is_contiguous()) {
            // Not a view: the dims are checked on a contiguous stand-in (no
            // bytes read), then a kernel lays the elements out in order.
            let strides = crate::runtime::shape::contiguous_strides(x.shape());
            x.view(x.shape().to_vec(), strides, 0).reshape(dims)?;
            let out = self.cast_on(d, x, x.dtype())?.reshape(dims)?;
            return self.finish(out, None, &[x], Flops::default());
        }
        let out = x.reshape(dims)?;
        if out.shares_storage(x) {
            return Ok(Arc::new(out));
        }
        self.finish(out, None, &[x], Flops::default())
    }

    /// `cat` (along an existing dimension) or `stack` (along a new one).
    pub fn join(&mut self, xs: &[&Tensor], dim: i64, stack: bool) -> Result<Arc<Tensor>, Error> {
        let device = xs.first().map(|t| t.device()).unwrap_or(Device::Cpu);
        let out = match (self.launches_on(device), stack) {
            (Some(d), true) => {
                let views = join::stacked(xs, dim)?;
                let refs: Vec<&Tensor> = views.iter().collect();
                let at = crate::runtime::shape::norm_dim(dim, xs[0].ndim() + 1)? as i64;
                self.cat_on(d, &refs, at)?
            }
            (Some(d), false) => self.cat_on(d, xs, dim)?,
            (None, true) => join::stack(xs, dim)?,
            (None, false) => join::cat(xs, dim)?,
        };
        self.finish(out, None, xs, Flops::default())
    }

    /// `x.fill_(v)`.
    pub fn fill(&mut self, x: &Tensor, value: Fill) -> Result<(), Error> {
        value.check(x.dtype())?;
        overlap::check_write(x)?;
        match self.launches_on(x.device()) {
            Some(d) => self.fill_on(d, x, value)?,
            None => index::fill(x, value),
        }
        self.wrote_in_place(x, &[x])?;
        Ok(())
    }

    /// `x.normal_(mean, std)`: x's elements drawn again from the session's generator.
    pub fn normal_(&mut self, x: &Tensor, mean: f64, std: f64) -> Result<(), Error> {
        if !x.dtype().is_float() {
            return Err(Error::dtype(
                format!("normal_() needs a floating point tensor, not {}", x.dtype()),
                Some("create it with dtype=f32".into()),
            ));
        }
        if let Some(d) = self.launches_on(x.device()) {
            self.normal_on(d, x, mean, std)?;
            self.wrote_in_place(x, &[x])?;
            return Ok(());
        }
        let z = self.generators.of(x.device()).normal(x.numel());
        let vals = z.into_iter().map(|v| mean + std * v).collect();
        let src = factory::from_f64s(vals, x.shape(), DType::F64, x.device());
        index::assign(x, &src)?;
        self.wrote_in_place(x, &[x])?;
        Ok(())
    }

    /// `x[i] = v`: writes `src` (broadcast) into the view `dst`. As
    /// PyTorch's `copy_`, `src` may be on another device: it is copied to
    /// `dst`'s first (a host scalar is read as it is).
    pub fn assign(&mut self, dst: &Tensor, src: &Tensor) -> Result<(), Error> {
        overlap::check_write(dst)?;
        overlap::check_partial(dst, src)?;
        let moved;
        let src = if src.device() != dst.device() && !src.is_cpu_scalar() {
            index::check_fits(dst, src)?;
            moved = self.copy_to(src, dst.device())?;
            &*moved
        } else {
            src
        };
        match self.launches_on(dst.device()) {
            Some(d) if src.device() == dst.device() || src.device() == Device::Cpu => {
                index::check_assign(dst, src)?;
                self.assign_on(d, dst, src)?
            }
            _ => index::assign(dst, src)?,
        }
        self.wrote_in_place(dst, &[src])?;
        Ok(())
    }

    /// `zeros`, `ones`, `full`, `empty` (zero-filled, as fresh memory shows)
    /// and `new_full`; `like` is the tensor a `*_like` or method call reads.
    pub fn full(
        &mut self,
        shape: &[usize],
        value: Fill,
        dtype: DType,
        device: Device,
        like: Option<&Tensor>,
    ) -> Result<Arc<Tensor>, Error> {
        value.check(dtype)?;
        if let Some(d) = self.launches_on(device) {
            self.cuda(Some(d))?;
            let out = self.full_on(d, shape, value, dtype)?;
            return self.finish(out, None, like.as_slice(), Flops::default());
        }
        let mem = self.reserve(device, shape, dtype)?;
        let out = factory::full(shape, value, dtype, device)?;
        self.finish(out, mem, like.as_slice(), Flops::default())
    }

    /// `rand`, `randn` and their `_like` forms, from the session's generator.
    pub fn random(
        &mut self,
        dist: Distribution,
        shape: &[usize],
        dtype: DType,
        device: Device,
        like: Option<&Tensor>,
    ) -> Result<Arc<Tensor>, Error> {
        // Checked before any memory is taken, as on every backend.
        factory::check_random(dtype)?;
        if let Some(d) = self.launches_on(device) {
            self.cuda(Some(d))?;
            let out = self.random_on(d, dist, shape, dtype, (0.0, 1.0))?;
            return self.finish(out, None, like.as_slice(), Flops::default());
        }
        let mem = self.reserve(device, shape, dtype)?;
        let out = factory::random(self.generators.of(device), dist, shape, dtype, device)?;
        self.finish(out, mem, like.as_slice(), Flops::default())
    }

    pub fn arange(
        &mut self,
        start: f64,
        end: f64,
        step: f64,
        dtype: DType,
        device: Device,
    ) -> Result<Arc<Tensor>, Error> {
        // The length follows from the values; the host checks them first.
        let host = factory::arange(start, end, step, dtype, device)?;
        if let Some(d) = self.launches_on(device) {
            self.cuda(Some(d))?;
            let out = self.arange_on(d, host.numel(), start, step, dtype)?;
            return self.finish(out, None, &[], Flops::default());
        }
        self.tensor(&host, dtype, device)
    }

    pub fn linspace(
        &mut self,
        start: f64,
        end: f64,
        steps: usize,
        dtype: DType,
        device: Device,
    ) -> Result<Arc<Tensor>, Error> {
        let plan = factory::Linspace::plan(start, end, steps, dtype, device)?;
        if let Some(d) = self.launches_on(device) {
            self.cuda(Some(d))?;
            let out = self.linspace_on(d, &plan, dtype)?;
            return self.finish(out, None, &[], Flops::default());
        }
        let mem = self.reserve(device, &[steps], dtype)?;
        self.finish(plan.tensor(dtype, device), mem, &[], Flops::default())
    }

    pub fn eye(
        &mut self,
        n: usize,
        m: usize,
        dtype: DType,
        device: Device,
    ) -> Result<Arc<Tensor>, Error> {
        if let Some(d) = self.launches_on(device) {
            self.cuda(Some(d))?;
            let out = self.eye_on(d, n, m, dtype)?;
            return self.finish(out, None, &[], Flops::default());
        }
        let mem = self.reserve(device, &[n, m], dtype)?;
        let out = factory::eye(n, m, dtype, device)?;
        self.finish(out, mem, &[], Flops::default())
    }

    /// `tensor(data)`: a new tensor of `dtype` on `device` holding `data`'s
    /// elements (a host literal, or a tensor it copies).
    pub fn tensor(
        &mut self,
        data: &Tensor,
        dtype: DType,
        device: Device,
    ) -> Result<Arc<Tensor>, Error> {
        let mem = self.reserve(device, data.shape(), dtype)?;
        let mut buf = data.contiguous_buffer();
        if buf.dtype() != dtype {
            buf = buf.cast_by(dtype, FloatToInt::on(data.device()));
        }
        let out = Tensor::new(buf, data.shape().to_vec(), device);
        self.finish(out, mem, &[data], Flops::default())
    }
}

/// A host op's operands, checked for races in the order a kernel takes
/// them (the first operand's warning first, as on a driver's device); the
/// op's own reads after this see the same bytes without a second warning.
fn read_in_order(operands: &[&Tensor]) {
    // (A host operand is read once, by the op itself, as on a driver.)
    for t in operands.iter().filter(|t| t.device().is_cuda()) {
        t.before_device_read();
    }
}
