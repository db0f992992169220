//! Ops that compute: elementwise, reductions, matmul, casts, joins, in-place
//! writes and factories. Each plans (`runtime/op`), hands the plan to its
//! device's `Compute` (the host's loops, `host.rs`, or a driver's kernels,
//! `kernels.rs`: chosen once per device, `Runtime::compute`), and finishes
//! the result as one item of the current stream.

use std::sync::Arc;

use super::device_compute::Compute;
use super::host::Host;
use super::kernels::Kernels;
use super::{Flops, Runtime};
use crate::error::Error;
use crate::runtime::buffer::FloatToInt;
use crate::runtime::cpu_random::fill;
use crate::runtime::memory_format::{self, elementwise_order, MemoryFormat, Order};
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::factory::{Distribution, Fill, Make, NewTensor};
use crate::runtime::op::reduce::{ReduceOp, Reduction};
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::op::{overlap, view};
use crate::runtime::ops::elementwise;
use crate::runtime::ops::factory;
use crate::runtime::ops::index;
use crate::runtime::ops::matmul;
use crate::runtime::ops::reduce;
use crate::runtime::ops::ternary;
use crate::runtime::shape::norm_dims;
use crate::runtime::timing::Math;
use crate::runtime::{DType, Device, Tensor};

/// Host tensors stacked along a new dimension `dim`, with nothing queued,
/// allocated from a device or timed: a DataLoader's collation (PyTorch's
/// `default_collate`), on the thread that collates, whose time its pass
/// models (a worker's clock, or the main thread's).
pub fn stack_host(xs: &[&Tensor], dim: i64) -> Result<Tensor, Error> {
    crate::runtime::ops::join::stack(xs, dim)
}

impl Runtime {
    /// How `device` computes: a driver's kernels on its devices, the host's
    /// loops on the cpu and on simulated devices.
    pub(super) fn compute(&self, device: Device) -> &'static dyn Compute {
        if device.is_meta() {
            return &super::meta::Meta;
        }
        match self.launches_on(device) {
            Some(_) => &Kernels,
            None => &Host,
        }
    }

    /// A factory's new tensor, made by `make` as `new` says (and kept for
    /// a CUDA graph's replays while its stream captures: `graph.rs`).
    fn make_new<F>(&mut self, new: NewTensor, make: F) -> Result<Arc<Tensor>, Error>
    where
        F: Fn(&mut Runtime, NewTensor) -> Result<Arc<Tensor>, Error> + Send + Sync + 'static,
    {
        if !self.capturing_on(new.device) {
            return make(self, new);
        }
        let (shape, dtype, device) = (new.shape.to_vec(), new.dtype, new.device);
        let like = new.like.map(Tensor::alias);
        self.made_finished(device, move |rt| {
            let new = NewTensor {
                shape: &shape,
                dtype,
                device,
                like: like.as_ref(),
            };
            make(rt, new)
        })
    }

    /// `op(x)`, laid out as PyTorch lays it out (`memory_format`): a
    /// channels-last or transposed x gives a result in x's order.
    pub fn unary(&mut self, op: UnaryOp, x: &Tensor) -> Result<Arc<Tensor>, Error> {
        if let Some(order) = elementwise_order(x.shape(), &[x]) {
            let out = self.unary_made(op, &order.permuted(x))?;
            return Ok(Arc::new(order.restore(&out)));
        }
        self.unary_made(op, x)
    }

    fn unary_made(&mut self, op: UnaryOp, x: &Tensor) -> Result<Arc<Tensor>, Error> {
        let out = self.made(x.device(), &[x], move |rt, t| {
            rt.compute(t[0].device()).unary(rt, op, t[0])
        })?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// `x.op_()` (`x.exp_()`, `x.relu_()`): `x` updated in place by one
    /// kernel, as PyTorch's; the result must keep x's dtype.
    pub fn unary_(&mut self, op: UnaryOp, x: &Tensor) -> Result<(), Error> {
        self.check_write(x)?;
        crate::runtime::op::unary::check_unary_in_place(op, x.dtype())?;
        overlap::check_write(x)?;
        self.in_place(x, &[x], move |rt, t| {
            rt.compute(t[0].device()).unary_in_place(rt, op, t[0])
        })?;
        self.wrote_in_place(x, &[x])?;
        Ok(())
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
        let inputs = [a.tensor, b.tensor];
        if memory_format::all_row_major(&inputs) {
            return self.binary_made(op, a, b);
        }
        let shape = crate::runtime::shape::broadcast_shapes(a.tensor.shape(), b.tensor.shape());
        if let Some(order) = shape.and_then(|s| elementwise_order(&s, &inputs)) {
            let (pa, pb) = (order.permuted(a.tensor), order.permuted(b.tensor));
            let out = self.binary_made(op, a.with(&pa), b.with(&pb))?;
            return Ok(Arc::new(order.restore(&out)));
        }
        self.binary_made(op, a, b)
    }

    fn binary_made(&mut self, op: BinaryOp, a: Operand, b: Operand) -> Result<Arc<Tensor>, Error> {
        // Planned once (devices, shapes, dtypes), then computed where it runs.
        let plan = elementwise::plan_binary(op, a, b)?;
        let out = match self.capturing_on(plan.device) {
            false => self.compute(plan.device).binary(self, op, a, b, plan)?,
            true => {
                let (wa, wb) = (a.weak, b.weak);
                self.made(plan.device, &[a.tensor, b.tensor], move |rt, t| {
                    let a = Operand {
                        tensor: t[0],
                        weak: wa,
                    };
                    let b = Operand {
                        tensor: t[1],
                        weak: wb,
                    };
                    rt.compute(plan.device).binary(rt, op, a, b, plan.clone())
                })?
            }
        };
        self.finish(out, None, &[a.tensor, b.tensor], Flops::default())
    }

    /// `x op= y` (`x += y`, `x.add_(y)`): `x` updated in place, as PyTorch's
    /// in-place ops: `y` broadcasts to x's shape, the result casts to x's
    /// dtype, and no element is written through two names.
    pub fn binary_(&mut self, op: BinaryOp, x: &Tensor, y: Operand) -> Result<(), Error> {
        self.check_write(x)?;
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
        let plan = elementwise::plan_binary(op, xo, y)?;
        match self.capturing_on(device) {
            false => self.compute(device).binary_in_place(self, op, x, y, plan)?,
            true => {
                let weak = y.weak;
                self.in_place(x, &[x, y.tensor], move |rt, t| {
                    let y = Operand { tensor: t[1], weak };
                    rt.compute(device)
                        .binary_in_place(rt, op, t[0], y, plan.clone())
                })?
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
        let inputs = [a.tensor, b.tensor, c.tensor];
        if let Some(order) = elementwise_order(&plan.shape, &inputs) {
            let [pa, pb, pc] = inputs.map(|t| order.permuted(t));
            let (a, b, c) = (a.with(&pa), b.with(&pb), c.with(&pc));
            let plan = ternary::plan(op, a, b, c)?;
            let out = self.ternary_made(op, [a, b, c], &plan)?;
            return Ok(Arc::new(order.restore(&out)));
        }
        self.ternary_made(op, [a, b, c], &plan)
    }

    fn ternary_made(
        &mut self,
        op: TernaryOp,
        operands: [Operand; 3],
        plan: &crate::runtime::op::ternary::Plan,
    ) -> Result<Arc<Tensor>, Error> {
        let out = match self.capturing_on(plan.device) {
            false => self
                .compute(plan.device)
                .ternary(self, op, operands, plan)?,
            true => {
                let weak = operands.map(|o| o.weak);
                let plan = plan.clone();
                self.made(plan.device, &operands.map(|o| o.tensor), move |rt, t| {
                    let operands = [0, 1, 2].map(|i| Operand {
                        tensor: t[i],
                        weak: weak[i],
                    });
                    rt.compute(plan.device).ternary(rt, op, operands, &plan)
                })?
            }
        };
        let inputs = operands.map(|o| o.tensor);
        self.finish(out, None, &inputs, Flops::default())
    }

    /// `x = op(x, b, c)` in place (`x.add_(b, alpha=c)`): one kernel into
    /// x's own memory, as PyTorch's in-place ops; `b` and `c` broadcast to
    /// x's shape, and the result is x's dtype.
    pub fn ternary_(
        &mut self,
        op: TernaryOp,
        x: &Tensor,
        b: Operand,
        c: Operand,
    ) -> Result<(), Error> {
        self.check_write(x)?;
        let xo = Operand::strong(x);
        let plan = ternary::plan(op, xo, b, c)?;
        if plan.device != x.device() {
            return Err(Error::DeviceMismatch {
                a: x.device(),
                b: b.tensor.device(),
            });
        }
        if plan.shape != x.shape() || plan.compute != x.dtype() {
            return Err(Error::value(format!(
                "`{}` in place: the result ({} {}) must have x's shape and dtype ({} {})",
                op.name(),
                plan.compute,
                crate::runtime::shape::fmt_shape(&plan.shape),
                x.dtype(),
                crate::runtime::shape::fmt_shape(x.shape())
            )));
        }
        overlap::check_write(x)?;
        overlap::check_partial(x, b.tensor)?;
        let weak = [b.weak, c.weak];
        self.in_place(x, &[x, b.tensor, c.tensor], move |rt, t| {
            let operands = [1, 2].map(|i| Operand {
                tensor: t[i],
                weak: weak[i - 1],
            });
            rt.compute(plan.device)
                .ternary_in_place(rt, op, t[0], operands, &plan)
        })?;
        self.wrote_in_place(x, &[x, b.tensor])?;
        Ok(())
    }

    /// Whether an f32 product on `device` rounds its operands to TF32:
    /// `allow_tf32` on, and a CUDA device of compute capability 8.0 or
    /// later (Ampere; older GPUs have no TF32, a CPU's products ignore it).
    pub fn matmul_tf32(&self, device: Device) -> bool {
        let Device::Cuda(d) = device else {
            return false;
        };
        self.allow_tf32
            && self
                .devices
                .info(d)
                .is_some_and(|i| i.compute_capability.0 >= 8)
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
        // Operands on two devices, or a 0-d one, are the host's error to give.
        let out = match a.device() == b.device() && a.ndim() > 0 && b.ndim() > 0 {
            true => self.made(a.device(), &[a, b], |rt, t| {
                rt.compute(t[0].device()).matmul(rt, t[0], t[1])
            })?,
            false => matmul::matmul(a, b)?,
        };
        let k = a.shape().last().copied().unwrap_or(1) as u64;
        let math = match out.dtype() {
            DType::F16 | DType::BF16 => Math::Half,
            DType::F32 if self.matmul_tf32(out.device()) => Math::Tf32,
            _ => Math::Fp32,
        };
        let cost = Flops {
            flops: 2 * out.numel() as u64 * k,
            math,
            ..Flops::default()
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
        let plan = Reduction::plan(op, (x.shape(), x.dtype()), dim, keepdim)?;
        let out = self.made(x.device(), &[x], move |rt, t| {
            rt.compute(t[0].device()).reduce(rt, t[0], &plan)
        })?;
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
            let runs = adjacent_runs(&norm_dims(dims, x.ndim())?);
            // A half's partial sums would be rounded to half between runs
            // (one pass keeps them in float): those still merge by a copy.
            let exact_steps = !matches!(x.dtype(), DType::F16 | DType::BF16)
                || matches!(op, ReduceOp::Max | ReduceOp::Min);
            if runs.len() > 1
                && exact_steps
                && matches!(op, ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min)
            {
                return self.reduce_by_runs(op, x, &runs, keepdim);
            }
            return self.over_dims(x, dims, keepdim, |rt, flat| {
                rt.reduce(op, flat, Some(-1), false)
            });
        }
        let out = reduce::reduce_dims(op, x, dims, keepdim)?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// `op` over dims that are not side by side (a channel's sum over N, H
    /// and W of `[N, C, H, W]`), one run of adjacent dims at a time from
    /// the innermost: each run merges into one dim as a view, so no copy
    /// of x is made (merged at once they would need one, which PyTorch's
    /// reduction kernel, reading strided, never makes); the steps between
    /// are x's size over the run's.
    fn reduce_by_runs(
        &mut self,
        op: ReduceOp,
        x: &Arc<Tensor>,
        runs: &[Vec<i64>],
        keepdim: bool,
    ) -> Result<Arc<Tensor>, Error> {
        let mut t = Arc::clone(x);
        for run in runs.iter().rev() {
            t = self.over_dims(&t, run, true, |rt, flat| {
                rt.reduce(op, flat, Some(-1), false)
            })?;
        }
        if keepdim {
            return Ok(t);
        }
        let reduced: Vec<i64> = runs.concat();
        let shape: Vec<i64> = (0..x.ndim() as i64)
            .filter(|k| !reduced.contains(k))
            .map(|k| x.shape()[k as usize] as i64)
            .collect();
        self.reshape(&t, &shape)
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
        let out = self.made(x.device(), &[x], move |rt, t| {
            rt.compute(t[0].device()).cast(rt, t[0], dtype)
        })?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// `x.to(dtype)`, `x.clone()`: a copy in x's own order, as PyTorch's
    /// `preserve_format` (a channels-last x gives a channels-last copy; a
    /// dense one keeps its strides).
    pub fn cast_keeping_layout(&mut self, x: &Tensor, dtype: DType) -> Result<Arc<Tensor>, Error> {
        self.cast_in(memory_format::preserved_order(x), x, dtype)
    }

    /// x converted to `dtype`, made in `order` (row-major when None).
    fn cast_in(
        &mut self,
        order: Option<Order>,
        x: &Tensor,
        dtype: DType,
    ) -> Result<Arc<Tensor>, Error> {
        match order {
            Some(order) => {
                let out = self.cast(&order.permuted(x), dtype)?;
                Ok(Arc::new(order.restore(&out)))
            }
            None => self.cast(x, dtype),
        }
    }

    /// `make`'s copy of x (`.to(device)`, `.cuda()`, `.cpu()`), made in
    /// x's order and given back with the strides PyTorch's
    /// `preserve_format` gives it; x itself when `make` gives x back.
    pub fn keeping_layout(
        &mut self,
        x: &Arc<Tensor>,
        make: impl FnOnce(&mut Runtime, &Arc<Tensor>) -> Result<Arc<Tensor>, Error>,
    ) -> Result<Arc<Tensor>, Error> {
        let Some(order) = memory_format::preserved_order(x) else {
            return make(self, x);
        };
        let out = make(self, &Arc::new(order.permuted(x)))?;
        if out.shares_storage(x) {
            return Ok(Arc::clone(x));
        }
        Ok(Arc::new(order.restore(&out)))
    }

    /// A copy of x with dense `strides` (PyTorch's `new_empty_strided(...)
    /// .copy_(x)`: a `.grad` laid out as its channels-last parameter).
    pub fn copy_strided(&mut self, x: &Tensor, strides: Vec<isize>) -> Result<Arc<Tensor>, Error> {
        self.cast_in(Order::of(x.shape(), strides), x, x.dtype())
    }

    /// x laid out in `format`: x itself when it is so already (or for
    /// `preserve_format`), else a copy (`x.to(memory_format=)`,
    /// `model.to(memory_format=)`).
    pub fn in_format(
        &mut self,
        x: &Arc<Tensor>,
        format: MemoryFormat,
    ) -> Result<Arc<Tensor>, Error> {
        let kept = format == MemoryFormat::Preserve
            || memory_format::is_contiguous_as(format, x.shape(), x.strides());
        match kept {
            true => Ok(Arc::clone(x)),
            false => self.copy_as(x, format),
        }
    }

    /// A copy of x laid out in `format` (`x.contiguous(memory_format=)`,
    /// `x.to(memory_format=)`): PyTorch's error for a rank it does not fit.
    pub fn copy_as(&mut self, x: &Tensor, format: MemoryFormat) -> Result<Arc<Tensor>, Error> {
        let strides = memory_format::copy_strides(format, x.shape(), x.strides())?;
        self.copy_strided(x, strides)
    }

    /// A contiguous copy (`.contiguous()` of a strided view).
    pub fn copy(&mut self, x: &Tensor) -> Result<Arc<Tensor>, Error> {
        let out = self.made(x.device(), &[x], |rt, t| {
            rt.compute(t[0].device()).cast(rt, t[0], t[0].dtype())
        })?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// `.reshape`: a view when the strides allow (PyTorch's `view`, also of
    /// a strided tensor: `x.T.reshape(3, 2, 1)`), else a copy (one kernel).
    pub fn reshape(&mut self, x: &Arc<Tensor>, dims: &[i64]) -> Result<Arc<Tensor>, Error> {
        // The dims are checked on a contiguous stand-in (no bytes read).
        view::infer_shape(x, dims)?;
        if let Ok(v) = view::view(x, dims) {
            return Ok(Arc::new(v));
        }
        // Not a view: one copy lays the elements out in order.
        let out = self
            .made(x.device(), &[x], |rt, t| {
                rt.compute(t[0].device()).cast(rt, t[0], t[0].dtype())
            })?
            .reshape(dims)?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// `cat` (along an existing dimension) or `stack` (along a new one).
    pub fn join(&mut self, xs: &[&Tensor], dim: i64, stack: bool) -> Result<Arc<Tensor>, Error> {
        let device = xs.first().map(|t| t.device()).unwrap_or(Device::Cpu);
        let out = self.made(device, xs, move |rt, t| {
            rt.compute(device).join(rt, t, dim, stack)
        })?;
        self.finish(out, None, xs, Flops::default())
    }

    /// `x.roll(shifts, dims)`: a copy of `x` with its elements moved
    /// `shifts[i]` places along `dims[i]`, those past the end coming in
    /// at the start; with no dims, along `x` flattened (PyTorch's
    /// `roll_common`: one dimension at a time, each the join of its two
    /// parts).
    pub fn roll(
        &mut self,
        x: &Arc<Tensor>,
        shifts: &[i64],
        dims: &[i64],
    ) -> Result<Arc<Tensor>, Error> {
        if dims.is_empty() {
            if shifts.len() != 1 {
                return Err(Error::shape(format!(
                    "shifts and dimensions must align. shifts: {}, dims:0",
                    shifts.len()
                )));
            }
            let shape: Vec<i64> = x.shape().iter().map(|&n| n as i64).collect();
            let flat = self.reshape(x, &[-1])?;
            let rolled = self.roll(&flat, shifts, &[0])?;
            return self.reshape(&rolled, &shape);
        }
        if shifts.len() != dims.len() {
            return Err(Error::shape(format!(
                "shifts and dimensions must align. shifts: {}, dims:{}",
                shifts.len(),
                dims.len()
            )));
        }
        let mut out: Option<Arc<Tensor>> = None;
        for (&shift, &dim) in shifts.iter().zip(dims) {
            let t: &Tensor = out.as_deref().unwrap_or(x);
            let d = crate::runtime::shape::norm_dim(dim, t.ndim().max(1))?;
            let n = t.shape().get(d).copied().unwrap_or(1) as i64;
            let s = if n == 0 { 0 } else { shift.rem_euclid(n) };
            // The last `s` along `d`, then the first `n - s`.
            let part = |from: i64, len: i64| {
                let mut shape = t.shape().to_vec();
                shape[d] = len as usize;
                let offset = t.offset() as isize + from as isize * t.strides()[d];
                t.view(shape, t.strides().to_vec(), offset as usize)
            };
            let rolled = match s {
                0 => self.copy(t)?,
                _ => {
                    let (tail, head) = (part(n - s, s), part(0, n - s));
                    self.join(&[&tail, &head], d as i64, false)?
                }
            };
            out = Some(rolled);
        }
        out.ok_or_else(|| Error::shape("roll(): no dimension given"))
    }

    /// `x.fill_(v)`.
    pub fn fill(&mut self, x: &Tensor, value: Fill) -> Result<(), Error> {
        self.check_write(x)?;
        value.check(x.dtype())?;
        overlap::check_write(x)?;
        self.in_place(x, &[x], move |rt, t| {
            rt.compute(t[0].device()).fill(rt, t[0], value)
        })?;
        self.wrote_in_place(x, &[x])?;
        Ok(())
    }

    /// `x.normal_(mean, std)`: x's elements drawn again from the session's generator.
    pub fn normal_(&mut self, x: &Tensor, mean: f64, std: f64) -> Result<(), Error> {
        self.check_random()?;
        self.check_write(x)?;
        if !x.dtype().is_float() {
            return Err(Error::dtype(
                format!("normal_() needs a floating point tensor, not {}", x.dtype()),
                Some("create it with dtype=f32".into()),
            ));
        }
        self.in_place(x, &[x], move |rt, t| {
            rt.compute(t[0].device()).normal_(rt, t[0], mean, std)
        })?;
        self.wrote_in_place(x, &[x])?;
        Ok(())
    }

    /// `x.uniform_(from, to)`: x's elements drawn again, uniform in
    /// `[from, to)`. On the CPU as PyTorch's `uniform_kernel` draws them
    /// (one fused `u * (to - from) + from` in float); on a CUDA device
    /// `[0, 1)` drawn, then scaled and shifted.
    pub fn uniform_(&mut self, x: &Tensor, from: f64, to: f64) -> Result<(), Error> {
        self.check_random()?;
        self.check_write(x)?;
        factory::check_random_of(x.dtype(), Distribution::Uniform)?;
        if x.device() == Device::Cpu {
            let g = self.generators.cpu();
            let src = factory::in_memory_order(x, |shape| {
                let n = shape.iter().product();
                match x.dtype() {
                    DType::F32 => factory::from_f32s(fill::uniform_f32(g, n, from, to), shape),
                    dtype => factory::from_f64s(
                        fill::uniform(g, n, dtype, from, to),
                        shape,
                        dtype,
                        Device::Cpu,
                    ),
                }
            })?;
            return self.assign(x, &src);
        }
        let new = NewTensor {
            shape: x.shape(),
            dtype: x.dtype(),
            device: x.device(),
            like: Some(x),
        };
        let u = self.random(new, Distribution::Uniform)?;
        self.binary_(BinaryOp::Mul, &u, Operand::weak(&Tensor::scalar(to - from)))?;
        self.binary_(BinaryOp::Add, &u, Operand::weak(&Tensor::scalar(from)))?;
        self.assign(x, &u)
    }

    /// `x.exponential_(lambd)`, `x.geometric_(p)`, `x.log_normal_(mean,
    /// std)`, `x.cauchy_(median, sigma)`: x's elements drawn again. On the CPU one at a time as
    /// PyTorch's CPU kernels draw them; on a CUDA device composed of a
    /// uniform (or normal) draw and the distribution's formula.
    pub fn draw_(&mut self, x: &Tensor, what: fill::Serial) -> Result<(), Error> {
        self.check_random()?;
        self.check_write(x)?;
        if x.device() == Device::Cpu {
            let g = self.generators.cpu();
            let src = factory::in_memory_order(x, |shape| {
                let values = fill::serial(g, shape.iter().product(), x.dtype(), what);
                factory::from_f64s(values, shape, x.dtype(), Device::Cpu)
            })?;
            return self.assign(x, &src);
        }
        let dtype = match x.dtype().is_float() {
            true => x.dtype(),
            false => DType::F32,
        };
        let new = NewTensor {
            shape: x.shape(),
            dtype,
            device: x.device(),
            like: Some(x),
        };
        let num = |v: f64| Tensor::scalar(v);
        let out = match what {
            // `-log(1 - u) / lambd`.
            fill::Serial::Exponential { lambda } => {
                let u = self.random(new, Distribution::Uniform)?;
                let one = num(1.0);
                let rest = self.binary(BinaryOp::Sub, Operand::weak(&one), Operand::strong(&u))?;
                let l = self.unary(UnaryOp::Log, &rest)?;
                let by = num(-lambda);
                self.binary(BinaryOp::Div, Operand::strong(&l), Operand::weak(&by))?
            }
            fill::Serial::Geometric { p } => {
                let u = self.random(new, Distribution::Uniform)?;
                let l = self.unary(UnaryOp::Log, &u)?;
                let q = num((-p).ln_1p());
                let d = self.binary(BinaryOp::Div, Operand::strong(&l), Operand::weak(&q))?;
                self.unary(UnaryOp::Ceil, &d)?
            }
            fill::Serial::Cauchy { median, sigma } => {
                let u = self.random(new, Distribution::Uniform)?;
                let (half, pi) = (num(0.5), num(std::f64::consts::PI));
                let c = self.binary(BinaryOp::Sub, Operand::strong(&u), Operand::weak(&half))?;
                let a = self.binary(BinaryOp::Mul, Operand::strong(&c), Operand::weak(&pi))?;
                let t = self.unary(UnaryOp::Tan, &a)?;
                let s = self.binary(
                    BinaryOp::Mul,
                    Operand::strong(&t),
                    Operand::weak(&num(sigma)),
                )?;
                self.binary(
                    BinaryOp::Add,
                    Operand::strong(&s),
                    Operand::weak(&num(median)),
                )?
            }
            fill::Serial::LogNormal { mean, std } => {
                let z = self.random(new, Distribution::Normal)?;
                let s =
                    self.binary(BinaryOp::Mul, Operand::strong(&z), Operand::weak(&num(std)))?;
                let m = self.binary(
                    BinaryOp::Add,
                    Operand::strong(&s),
                    Operand::weak(&num(mean)),
                )?;
                self.unary(UnaryOp::Exp, &m)?
            }
        };
        self.assign(x, &out)
    }

    /// `x[i] = v`: writes `src` (broadcast) into the view `dst`. As
    /// PyTorch's `copy_`, `src` may be on another device: it is copied to
    /// `dst`'s first (a host scalar is read as it is).
    pub fn assign(&mut self, dst: &Tensor, src: &Tensor) -> Result<(), Error> {
        self.check_write(dst)?;
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
        index::check_assign(dst, src)?;
        self.in_place(dst, &[dst, src], |rt, t| {
            rt.compute(t[0].device()).assign(rt, t[0], t[1])
        })?;
        self.wrote_in_place(dst, &[src])?;
        Ok(())
    }

    /// `zeros`, `ones`, `full`, `empty` (zero-filled, as fresh memory shows)
    /// and `new_full`.
    pub fn full(&mut self, new: NewTensor, value: Fill) -> Result<Arc<Tensor>, Error> {
        value.check(new.dtype)?;
        self.make_new(new, move |rt, new| {
            rt.compute(new.device).make(rt, Make::Full(value), new)
        })
    }

    /// `empty` (and its `_like`, `new_` forms): memory, no kernel ([`Make::Empty`]).
    pub fn empty(&mut self, new: NewTensor) -> Result<Arc<Tensor>, Error> {
        self.make_new(new, |rt, new| {
            rt.compute(new.device).make(rt, Make::Empty, new)
        })
    }

    /// `rand`, `randn` and their `_like` forms, from the session's generator.
    pub fn random(&mut self, new: NewTensor, dist: Distribution) -> Result<Arc<Tensor>, Error> {
        self.check_random()?;
        // Checked before any memory is taken, as on every backend.
        factory::check_random_of(new.dtype, dist)?;
        self.make_new(new, move |rt, new| {
            rt.compute(new.device).make(rt, Make::Random(dist), new)
        })
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
        let values = factory::arange(start, end, step, dtype, device)?;
        let shape = values.shape().to_vec();
        let new = NewTensor {
            shape: &shape,
            dtype,
            device,
            like: None,
        };
        self.make_new(new, move |rt, new| {
            let what = Make::Arange {
                values: values.alias(),
                start,
                step,
            };
            rt.compute(device).make(rt, what, new)
        })
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
        let new = NewTensor {
            shape: &[plan.n],
            dtype,
            device,
            like: None,
        };
        self.make_new(new, move |rt, new| {
            rt.compute(device).make(rt, Make::Linspace(&plan), new)
        })
    }

    pub fn eye(
        &mut self,
        n: usize,
        m: usize,
        dtype: DType,
        device: Device,
    ) -> Result<Arc<Tensor>, Error> {
        let new = NewTensor {
            shape: &[n, m],
            dtype,
            device,
            like: None,
        };
        self.make_new(new, move |rt, new| {
            rt.compute(device).make(rt, Make::Eye, new)
        })
    }

    /// `tensor(data)`: a new tensor of `dtype` on `device` holding `data`'s
    /// elements (a host literal, or a tensor it copies).
    pub fn tensor(
        &mut self,
        data: &Tensor,
        dtype: DType,
        device: Device,
    ) -> Result<Arc<Tensor>, Error> {
        if data.device().is_meta() || device.is_meta() {
            // Nothing to copy: PyTorch's `torch.tensor(m)` of a meta m.
            self.counters.ops += 1;
            return Ok(Arc::new(Tensor::meta(data.shape().to_vec(), dtype)));
        }
        let mem = self.reserve(device, data.shape(), dtype)?;
        let mut buf = data.contiguous_buffer();
        if buf.dtype() != dtype {
            buf = buf.cast_by(dtype, FloatToInt::on(data.device()));
        }
        let out = Tensor::new(buf, data.shape().to_vec(), device);
        self.finish(out, mem, &[data], Flops::default())
    }
}

/// Sorted dims grouped into runs of adjacent ones: `[0, 2, 3]` is
/// `[[0], [2, 3]]`.
fn adjacent_runs(dims: &[usize]) -> Vec<Vec<i64>> {
    let mut sorted = dims.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<Vec<i64>> = Vec::new();
    for d in sorted {
        match runs.last_mut() {
            Some(run) if run.last() == Some(&(d as i64 - 1)) => run.push(d as i64),
            _ => runs.push(vec![d as i64]),
        }
    }
    runs
}
