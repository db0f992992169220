//! How a driver's device (`cuda`, `emu`) computes each planned op
//! (`Compute` for `Kernels`): `cuda::exec`'s kernels on the device's
//! memory. Each returns the new tensor; the op (`compute.rs`) finishes it as
//! one item of the current stream, as the host's result.

use std::sync::Arc;

use super::device::{no_driver, DevMem, OnDevice, Operand};
use super::device_compute::Compute;
use super::{tensor_bytes, Flops, Runtime};
use crate::error::Error;
use crate::runtime::buffer::Stored;
use crate::runtime::cuda::exec::{self, Out, View};
use crate::runtime::cuda::exec_along::{self, Sorted};
use crate::runtime::cuda::exec_attention;
use crate::runtime::cuda::exec_window;
use crate::runtime::op::along::Along;
use crate::runtime::op::attention::{Attend, Dims};
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::factory::{Distribution, Fill, Make, NewTensor};
use crate::runtime::op::matmul::{as_matrices, matmul_dtypes, not_lined_up};
use crate::runtime::op::pow_shortcut::PowShortcut;
use crate::runtime::op::reduce::Reduction;
use crate::runtime::op::ternary::{Plan, TernaryOp};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::op::window::Geometry;
use crate::runtime::ops::elementwise::{self, BinaryPlan, Operand as Arg};
use crate::runtime::ops::index::Take;
use crate::runtime::ops::{join, sort, tri, window};
use crate::runtime::rng::Generator;
use crate::runtime::shape::{
    broadcast_shapes, checked_numel, contiguous_strides, fmt_shape, norm_dim, numel,
};
use crate::runtime::{DType, Device, Tensor};
use crate::with_dtype;

/// A driver's kernels.
pub(super) struct Kernels;

impl Runtime {
    /// Runs `f` on device `d` with `inputs` as kernel operands; its output
    /// becomes a tensor in device memory.
    fn kernels(
        &mut self,
        d: u32,
        inputs: &[&Tensor],
        f: impl FnOnce(&OnDevice, &[View<DevMem>]) -> Result<Out<DevMem>, Error>,
    ) -> Result<Tensor, Error> {
        let mut outs = self.kernels_n(d, inputs, |l, v| Ok(vec![f(l, v)?]))?;
        Ok(outs.pop().expect("one output"))
    }

    /// As `kernels`, for ops of one input and two outputs (sort, topk).
    fn kernels2(
        &mut self,
        d: u32,
        x: &Tensor,
        f: impl FnOnce(&OnDevice, View<DevMem>) -> Result<Sorted<DevMem>, Error>,
    ) -> Result<(Tensor, Tensor), Error> {
        self.check_fault(d)?;
        let (a, b) = {
            let l = self.on_device(d).ok_or_else(no_driver)?;
            let operand = self.operand(&l, x)?;
            f(&l, operand.view(x))?
        };
        Ok((self.launched(d, a)?, self.launched(d, b)?))
    }

    /// As `kernels`, for ops of several outputs (fused attention).
    fn kernels_n(
        &mut self,
        d: u32,
        inputs: &[&Tensor],
        f: impl FnOnce(&OnDevice, &[View<DevMem>]) -> Result<Vec<Out<DevMem>>, Error>,
    ) -> Result<Vec<Tensor>, Error> {
        // A fault (or a DataLoader worker's refusal) before the launcher
        // allocates the output: nothing reaches the device.
        self.check_fault(d)?;
        let outs = {
            let l = self.on_device(d).ok_or_else(no_driver)?;
            let operands = inputs
                .iter()
                .map(|t| self.operand(&l, t))
                .collect::<Result<Vec<Operand>, Error>>()?;
            let views: Vec<View<DevMem>> = operands
                .iter()
                .zip(inputs)
                .map(|(o, t)| o.view(t))
                .collect();
            f(&l, &views)?
        };
        outs.into_iter().map(|o| self.launched(d, o)).collect()
    }

    /// A result nothing writes on device `d`: an op's with no element (as
    /// PyTorch's kernels return early on empty tensors) or `empty`'s. No
    /// kernel runs and no operand goes over.
    fn empty_on(&mut self, d: u32, shape: Vec<usize>, dtype: DType) -> Result<Tensor, Error> {
        let n = device_numel(&shape, dtype)?;
        self.kernels(d, &[], |l, _| {
            Ok(Out {
                mem: exec::Launcher::alloc(l, dtype, n)?,
                dtype,
                shape,
            })
        })
    }

    /// `empty`'s block zeroed on the host where the driver shows memory
    /// as the simulator does (`Driver::empty_reads_zero`): no kernel, no
    /// work on a stream.
    fn zero_if_simulated(&mut self, d: u32, t: &Tensor) -> Result<(), Error> {
        let (Some(driver), Some(bytes)) = (self.devices.driver(), t.device_bytes()) else {
            return Ok(());
        };
        if !driver.empty_reads_zero() || t.nbytes() == 0 {
            return Ok(());
        }
        let stream = self.devices.current_handle(d);
        // SAFETY: the tensor's block is live memory of `d`, `nbytes` long.
        unsafe { driver.memset(d, bytes.addr, 0, t.nbytes(), stream) }
            .map_err(|e| super::device::driver_error(d, e))
    }

    /// `full` and friends: a new tensor with every element `value`.
    fn full_on(&mut self, d: u32, new: &NewTensor, value: Fill) -> Result<Tensor, Error> {
        let (shape, dtype) = (new.shape, new.dtype);
        let n = device_numel(shape, dtype)?;
        let element = element_bytes(dtype, value);
        self.kernels(d, &[], |l, _| {
            let mem = exec::Launcher::alloc(l, dtype, n)?;
            let strides = contiguous_strides(shape);
            let view = View {
                mem: &mem,
                dtype,
                shape,
                strides: &strides,
                offset: 0,
            };
            exec::fill(l, view, &element)?;
            Ok(Out {
                mem,
                dtype,
                shape: shape.to_vec(),
            })
        })
    }

    /// `cat` (and `stack`, of views with the new dimension): each input
    /// copied into its slice of the output by a kernel.
    fn cat_on(&mut self, d: u32, xs: &[&Tensor], dim: i64) -> Result<Tensor, Error> {
        let plan = join::cat_plan(xs, dim)?;
        self.kernels(d, &join::skipping_empty(xs), |l, views| {
            let mem = exec::Launcher::alloc(l, plan.dtype, numel(&plan.shape))?;
            let strides = contiguous_strides(&plan.shape);
            let mut start = 0;
            for v in views {
                let part = View {
                    mem: &mem,
                    dtype: plan.dtype,
                    shape: v.shape,
                    strides: &strides,
                    offset: start * strides[plan.dim] as usize,
                };
                exec::copy_into(l, *v, part)?;
                start += v.shape[plan.dim];
            }
            Ok(Out {
                mem,
                dtype: plan.dtype,
                shape: plan.shape.clone(),
            })
        })
    }

    /// Draws from device `d`'s generator on the device (`draw` gets a
    /// copy, kept only if the draw succeeds).
    fn drawing<T>(
        &mut self,
        d: u32,
        draw: impl FnOnce(&mut Runtime, &mut Generator) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut gen = self.generators.cuda(d).clone();
        let out = draw(self, &mut gen)?;
        *self.generators.cuda(d) = gen;
        Ok(out)
    }
}

/// Elements of a new device tensor; its memory is the device allocator's
/// to refuse (an out-of-memory error), not the host's.
fn device_numel(shape: &[usize], dtype: DType) -> Result<usize, Error> {
    tensor_bytes(shape, dtype)?;
    checked_numel(shape)
}

/// `value` as one element of `dtype`, in the bytes a fill kernel writes.
fn element_bytes(dtype: DType, value: Fill) -> Vec<u8> {
    with_dtype!(dtype, T => T::into_buffer(vec![value.element::<T>()])).to_le_bytes()
}

/// A host operand (a number, a 0-d or cpu tensor) converted to the dtype
/// the kernel reads, so it goes over as such and no kernel converts it;
/// None for a device operand or one already in `dt`.
fn in_dtype(t: &Tensor, dt: DType) -> Option<Tensor> {
    (!t.device().is_cuda() && t.dtype() != dt).then(|| t.cast(dt))
}

/// The index of a driver's device (the ops pick `Kernels` for those only).
fn on(device: Device) -> Result<u32, Error> {
    match device {
        Device::Cuda(d) => Ok(d),
        Device::Cpu | Device::Meta => Err(Error::value(format!(
            "internal error: kernels for a {device} tensor"
        ))),
    }
}

impl Compute for Kernels {
    fn unary(&self, rt: &mut Runtime, op: UnaryOp, x: &Tensor) -> Result<Tensor, Error> {
        let (d, dt) = (on(x.device())?, x.dtype());
        elementwise::check_unary(op, dt)?;
        if dt == DType::Bool && op.keeps_int() && op != UnaryOp::BitNot {
            return rt.kernels(d, &[x], |l, v| exec::cast(l, v[0], DType::Bool));
        }
        let out = elementwise::unary_dtype(op, dt);
        rt.kernels(d, &[x], |l, v| exec::unary(l, op, v[0], out))
    }

    fn unary_in_place(&self, rt: &mut Runtime, op: UnaryOp, x: &Tensor) -> Result<(), Error> {
        let d = on(x.device())?;
        if x.numel() == 0 || (x.dtype() == DType::Bool && op != UnaryOp::BitNot) {
            // Nothing to write; `sign_` of a bool tensor leaves it as it is.
            return Ok(());
        }
        let l = rt.on_device(d).ok_or_else(no_driver)?;
        let xin = rt.operand(&l, x)?;
        x.before_write();
        let own = Operand::own(x)?;
        exec::unary_into(&l, op, xin.view(x), x.dtype(), own.view(x))
    }

    fn binary(
        &self,
        rt: &mut Runtime,
        op: BinaryOp,
        a: Arg,
        b: Arg,
        plan: BinaryPlan,
    ) -> Result<Tensor, Error> {
        let (d, compute) = (on(plan.device)?, plan.compute);
        if numel(&plan.shape) == 0 {
            let dt = if op.gives_bool() {
                DType::Bool
            } else {
                compute
            };
            return rt.empty_on(d, plan.shape, dt);
        }
        // PyTorch copies the base for a number 1 (`pow(Tensor, Scalar)`),
        // where a GPU's `pow(x, 1.0)` may differ from x in the last place.
        let number = elementwise::pow_number_on_cuda(op, a, b);
        if number == Some(1.0) {
            return rt.kernels(d, &[a.tensor], |l, v| exec::cast(l, v[0], compute));
        }
        if let Some(s) = number.and_then(|e| PowShortcut::on_cuda(compute, e)) {
            return rt.kernels(d, &[a.tensor], |l, v| {
                exec::pow_shortcut(l, s, v[0], compute)
            });
        }
        if let Some(side) = elementwise::opmath_scalar(op, compute, a, b) {
            // The CPU scalar goes over as f32 (PyTorch's opmath), the tensor as it is.
            let (t, s) = if side == 1 { (a, b) } else { (b, a) };
            let s32 = s.tensor.cast(DType::F32);
            return rt.kernels(d, &[t.tensor, &s32], |l, v| {
                exec::binary_opmath(l, (op, side == 0), v[0], v[1], compute)
            });
        }
        // A host operand is tiny (a number, a 0-d tensor): it goes over in the
        // compute dtype, so no kernel converts it.
        let (ca, cb) = (in_dtype(a.tensor, compute), in_dtype(b.tensor, compute));
        let (ta, tb) = (
            ca.as_ref().unwrap_or(a.tensor),
            cb.as_ref().unwrap_or(b.tensor),
        );
        rt.kernels(d, &[ta, tb], |l, v| {
            exec::binary(l, op, v[0], v[1], compute)
        })
    }

    /// `x op= y` as `plan_binary` planned it: written into x's own memory
    /// (`exec::binary_into`).
    fn binary_in_place(
        &self,
        rt: &mut Runtime,
        op: BinaryOp,
        x: &Tensor,
        y: Arg,
        plan: BinaryPlan,
    ) -> Result<(), Error> {
        let d = on(x.device())?;
        let xo = Arg::strong(x);
        let compute = plan.compute;
        let number = elementwise::pow_number_on_cuda(op, xo, y);
        if number == Some(1.0) || x.numel() == 0 {
            // `x **= 1` leaves x as it is (PyTorch's copy of x onto itself);
            // an empty x launches nothing.
            return Ok(());
        }
        if let Some(s) = number.and_then(|e| PowShortcut::on_cuda(compute, e)) {
            let l = rt.on_device(d).ok_or_else(no_driver)?;
            let xin = rt.operand(&l, x)?;
            x.before_write();
            let own = Operand::own(x)?;
            return exec::pow_shortcut_into(&l, s, xin.view(x), compute, own.view(x));
        }
        if elementwise::opmath_scalar(op, compute, xo, y) == Some(1) {
            // `h *= 0.1`: the CPU scalar as f32 (PyTorch's opmath).
            let s32 = y.tensor.cast(DType::F32);
            let l = rt.on_device(d).ok_or_else(no_driver)?;
            let xin = rt.operand(&l, x)?;
            let from = rt.operand(&l, &s32)?;
            x.before_write();
            let own = Operand::own(x)?;
            let ins = (xin.view(x), from.view(&s32));
            return exec::binary_opmath_into(&l, op, ins, compute, own.view(x));
        }
        let host = in_dtype(y.tensor, compute);
        let yt = host.as_ref().unwrap_or(y.tensor);
        let l = rt.on_device(d).ok_or_else(no_driver)?;
        // x and y are read first (racing a pending write, the bytes from
        // before it), then x is written: as the host op does.
        let xin = rt.operand(&l, x)?;
        let from = rt.operand(&l, yt)?;
        // `y` reading memory that `x` is written to, other than x's own
        // elements in place: computed aside first.
        let aliases = yt.shares_storage(x)
            && !(yt.offset() == x.offset()
                && yt.strides() == x.strides()
                && yt.shape() == x.shape());
        x.before_write();
        let own = Operand::own(x)?;
        let ins = (xin.view(x), from.view(yt));
        exec::binary_into(&l, op, ins, compute, own.view(x), aliases)
    }

    /// `where` or `clamp` (`compute` from `ternary::plan`); host operands go
    /// over in the dtype the kernel reads them in.
    fn ternary(
        &self,
        rt: &mut Runtime,
        op: TernaryOp,
        operands: [Arg; 3],
        plan: &Plan,
    ) -> Result<Tensor, Error> {
        let (d, compute) = (on(plan.device)?, plan.compute);
        if numel(&plan.shape) == 0 {
            return rt.empty_on(d, plan.shape.clone(), compute);
        }
        let wants = |k: usize| op.operand_dtypes(compute)[k];
        let host: Vec<Option<Tensor>> = operands
            .iter()
            .enumerate()
            .map(|(k, o)| in_dtype(o.tensor, wants(k)))
            .collect();
        let ts: Vec<&Tensor> = operands
            .iter()
            .zip(&host)
            .map(|(o, h)| h.as_ref().unwrap_or(o.tensor))
            .collect();
        rt.kernels(d, &ts, |l, v| {
            exec::ternary(l, op, [v[0], v[1], v[2]], compute)
        })
    }

    /// Straight into `x`'s memory when it is contiguous, of the result's
    /// dtype and shape (the optimizers' `p.add_(g, alpha=-lr)`): one
    /// kernel, nothing allocated; otherwise through scratch memory.
    fn ternary_in_place(
        &self,
        rt: &mut Runtime,
        op: TernaryOp,
        x: &Tensor,
        [b, c]: [Arg; 2],
        plan: &Plan,
    ) -> Result<(), Error> {
        let (d, compute) = (on(x.device())?, plan.compute);
        if x.numel() == 0 {
            return Ok(());
        }
        let wants = op.operand_dtypes(compute);
        let hb = in_dtype(b.tensor, wants[1]);
        let hc = in_dtype(c.tensor, wants[2]);
        let (tb, tc) = (
            hb.as_ref().unwrap_or(b.tensor),
            hc.as_ref().unwrap_or(c.tensor),
        );
        let l = rt.on_device(d).ok_or_else(no_driver)?;
        // x and the operands are read first (racing a pending write, the
        // bytes from before it), then x is written: as the host op does.
        let xin = rt.operand(&l, x)?;
        let bin = rt.operand(&l, tb)?;
        let cin = rt.operand(&l, tc)?;
        let aliases = tb.shares_storage(x)
            && !(tb.offset() == x.offset()
                && tb.strides() == x.strides()
                && tb.shape() == x.shape());
        x.before_write();
        let own = Operand::own(x)?;
        let views = [xin.view(x), bin.view(tb), cin.view(tc)];
        let direct =
            x.is_contiguous() && x.dtype() == compute && x.shape() == plan.shape.as_slice();
        match direct && !aliases {
            true => exec::ternary_in_place(&l, op, views, compute, own.view(x)),
            false => exec::ternary_into(&l, op, views, compute, own.view(x)),
        }
    }

    fn matmul(&self, rt: &mut Runtime, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        // Checked in the host op's order (PyTorch's: shapes, then dtypes),
        // on the shapes as written, before 1-D operands become matrices.
        let (k, k2) = (
            a.shape()[a.ndim() - 1],
            b.shape()[b.ndim().saturating_sub(2)],
        );
        if k != k2 {
            return Err(not_lined_up(a.shape(), b.shape(), k, k2));
        }
        let batch = |t: &Tensor| t.shape()[..t.ndim().saturating_sub(2)].to_vec();
        if broadcast_shapes(&batch(a), &batch(b)).is_none() {
            return Err(Error::Broadcast {
                op: "@".into(),
                lhs: fmt_shape(a.shape()),
                rhs: fmt_shape(b.shape()),
            });
        }
        let (dt, _) = matmul_dtypes(a.dtype(), b.dtype())?;
        // 1-D operands are matrices of one row (a) or one column (b), dropped after.
        let (a2, b2) = as_matrices(a, b);
        let d = on(a.device())?;
        let tf32 = rt.matmul_tf32(a.device());
        let out = rt.kernels(d, &[&a2, &b2], |l, v| exec::matmul(l, v[0], v[1], dt, tf32))?;
        let mut shape = out.shape().to_vec();
        if b.ndim() == 1 {
            shape.pop();
        }
        if a.ndim() == 1 {
            shape.remove(shape.len() - 1 - (b.ndim() != 1) as usize);
        }
        let dims: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        out.reshape(&dims)
    }

    fn reduce(&self, rt: &mut Runtime, x: &Tensor, plan: &Reduction) -> Result<Tensor, Error> {
        let (op, dim, shape) = (plan.op, plan.dim, plan.shape.clone());
        rt.kernels(on(x.device())?, &[x], |l, v| {
            exec::reduce(l, op, v[0], dim, shape)
        })
    }

    fn cast(&self, rt: &mut Runtime, x: &Tensor, dtype: DType) -> Result<Tensor, Error> {
        rt.kernels(on(x.device())?, &[x], |l, v| exec::cast(l, v[0], dtype))
    }

    fn join(
        &self,
        rt: &mut Runtime,
        xs: &[&Tensor],
        dim: i64,
        stack: bool,
    ) -> Result<Tensor, Error> {
        let d = on(xs.first().map_or(Device::Cpu, |t| t.device()))?;
        if !stack {
            return rt.cat_on(d, xs, dim);
        }
        let views = join::stacked(xs, dim)?;
        let refs: Vec<&Tensor> = views.iter().collect();
        let at = norm_dim(dim, xs[0].ndim() + 1)? as i64;
        rt.cat_on(d, &refs, at)
    }

    fn fill(&self, rt: &mut Runtime, x: &Tensor, value: Fill) -> Result<(), Error> {
        let l = rt.on_device(on(x.device())?).ok_or_else(no_driver)?;
        let element = element_bytes(x.dtype(), value);
        x.before_write();
        let to = Operand::own(x)?;
        exec::fill(&l, to.view(x), &element)
    }

    /// The session's generator's numbers drawn on the device, then written
    /// into `x` (which may be a strided view).
    fn normal_(&self, rt: &mut Runtime, x: &Tensor, mean: f64, std: f64) -> Result<(), Error> {
        let d = on(x.device())?;
        rt.drawing(d, |rt, gen| {
            let l = rt.on_device(d).ok_or_else(no_driver)?;
            let (shape, dt) = (x.shape(), x.dtype());
            let normal = Distribution::Normal;
            let drawn = exec::random_scratch(&l, gen, normal, shape, dt, (mean, std))?;
            let strides = contiguous_strides(shape);
            let from = View {
                mem: &drawn.mem,
                dtype: dt,
                shape,
                strides: &strides,
                offset: 0,
            };
            x.before_write();
            let to = Operand::own(x)?;
            exec::copy_into(&l, from, to.view(x))
        })
    }

    /// `src` (a device tensor, or a host one copied over first) converted
    /// and broadcast into the view `dst`.
    fn assign(&self, rt: &mut Runtime, dst: &Tensor, src: &Tensor) -> Result<(), Error> {
        let l = rt.on_device(on(dst.device())?).ok_or_else(no_driver)?;
        let from = rt.operand(&l, src)?;
        // A source sharing memory with the destination is read whole first.
        let staged = dst
            .shares_storage(src)
            .then(|| exec::converted(&l, from.view(src), src.dtype(), true))
            .transpose()?;
        let strides = contiguous_strides(src.shape());
        let from_view = match &staged {
            Some(out) => View {
                mem: &out.mem,
                dtype: out.dtype,
                shape: src.shape(),
                strides: &strides,
                offset: 0,
            },
            None => from.view(src),
        };
        dst.before_write();
        let to = Operand::own(dst)?;
        exec::copy_into(&l, from_view, to.view(dst))
    }

    fn make(&self, rt: &mut Runtime, what: Make, new: NewTensor) -> Result<Arc<Tensor>, Error> {
        let d = on(rt.check_device(new.device)?)?;
        let (shape, dtype) = (new.shape, new.dtype);
        let out = match what {
            Make::Full(value) => rt.full_on(d, &new, value)?,
            Make::Empty => {
                let out = rt.empty_on(d, shape.to_vec(), dtype)?;
                rt.zero_if_simulated(d, &out)?;
                return rt.finish_unwritten(out, None, Flops::default());
            }
            Make::Random(dist) => {
                device_numel(shape, dtype)?;
                rt.drawing(d, |rt, gen| {
                    rt.kernels(d, &[], |l, _| {
                        exec::random(l, gen, dist, shape, dtype, (0.0, 1.0))
                    })
                })?
            }
            Make::Arange {
                values,
                start,
                step,
            } => rt.kernels(d, &[], |l, _| {
                exec::arange(l, values.numel(), start, step, dtype)
            })?,
            Make::Linspace(plan) => rt.kernels(d, &[], |l, _| exec::linspace(l, plan, dtype))?,
            Make::Eye => {
                // Zeros, then ones along the diagonal (a strided view).
                let (n, m) = (shape[0], shape[1]);
                let out = rt.full_on(d, &new, Fill::Int(0))?;
                let diagonal = out.view(vec![n.min(m)], vec![m as isize + 1], 0);
                self.fill(rt, &diagonal, Fill::Int(1))?;
                out
            }
        };
        rt.finish(out, None, new.like.as_slice(), Flops::default())
    }

    fn along(&self, rt: &mut Runtime, x: &Tensor, plan: &Along) -> Result<Tensor, Error> {
        let Along { op, p, dim, .. } = *plan;
        let shape = plan.shape.clone();
        rt.kernels(on(x.device())?, &[x], |l, v| {
            exec_along::along(l, op, p, v[0], dim, shape)
        })
    }

    fn tri(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        diagonal: i64,
        upper: bool,
    ) -> Result<Tensor, Error> {
        tri::matrices(if upper { "triu" } else { "tril" }, x)?;
        rt.kernels(on(x.device())?, &[x], |l, v| {
            exec_along::tri(l, v[0], diagonal, upper)
        })
    }

    fn sort(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        dim: i64,
        descending: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        let k = norm_dim(dim, x.ndim())?;
        rt.kernels2(on(x.device())?, x, |l, v| {
            exec_along::sort(l, v, k, descending)
        })
    }

    fn topk(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        (k, dim): (i64, i64),
        largest: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        sort::check_topk(x.dtype())?;
        let at = norm_dim(dim, x.ndim())?;
        let k = sort::check_k(k, x.shape().get(at).copied().unwrap_or(1))?;
        rt.kernels2(on(x.device())?, x, |l, v| {
            exec_along::topk(l, v, k, at, largest)
        })
    }

    fn attention(
        &self,
        rt: &mut Runtime,
        (q, k, v): (&Tensor, &Tensor, &Tensor),
        bias: Option<&Tensor>,
        how: &Attend,
    ) -> Result<(Tensor, Tensor), Error> {
        let d = Dims::of(q, k, v, bias)?;
        let inputs: Vec<&Tensor> = [q, k, v].into_iter().chain(bias).collect();
        let mut outs = rt.kernels_n(on(q.device())?, &inputs, |l, v| {
            exec_attention::forward(l, &d, (v[0], v[1], v[2]), v.get(3).copied(), how)
        })?;
        let lse = outs.pop().expect("two outputs");
        let out = outs.pop().expect("two outputs");
        Ok((out, lse))
    }

    fn attention_backward(
        &self,
        rt: &mut Runtime,
        dout: &Tensor,
        (q, k, v): (&Tensor, &Tensor, &Tensor),
        (out, lse): (&Tensor, &Tensor),
        bias: Option<&Tensor>,
        how: &Attend,
    ) -> Result<(Tensor, Tensor, Tensor), Error> {
        let d = Dims::of(q, k, v, bias)?;
        let inputs: Vec<&Tensor> = [dout, q, k, v, out, lse].into_iter().chain(bias).collect();
        let outs = rt.kernels_n(on(q.device())?, &inputs, |l, v| {
            let saved = (v[4], v[5]);
            exec_attention::backward(
                l,
                &d,
                v[0],
                (v[1], v[2], v[3]),
                saved,
                v.get(6).copied(),
                how,
            )
        })?;
        let [dq, dk, dv]: [Tensor; 3] = outs
            .try_into()
            .map_err(|_| Error::runtime("three gradients"))?;
        Ok((dq, dk, dv))
    }

    /// Advanced indexing's gather (`exec::take`).
    fn im2col(&self, rt: &mut Runtime, x: &Tensor, g: &Geometry) -> Result<Tensor, Error> {
        rt.kernels(on(x.device())?, &[x], |l, v| {
            exec_window::im2col(l, v[0], g)
        })
    }

    fn col2im(
        &self,
        rt: &mut Runtime,
        cols: &Tensor,
        g: &Geometry,
        shape: &[usize],
    ) -> Result<Tensor, Error> {
        window::floats_only(cols.dtype(), "col2im")?;
        rt.kernels(on(cols.device())?, &[cols], |l, v| {
            exec_window::col2im(l, v[0], g, shape)
        })
    }

    fn max_pool2d(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        g: &Geometry,
    ) -> Result<(Tensor, Tensor), Error> {
        window::pool_dtype(x.dtype())?;
        rt.kernels2(on(x.device())?, x, |l, v| exec_window::max_pool(l, v, g))
    }

    fn max_pool2d_backward(
        &self,
        rt: &mut Runtime,
        grad: &Tensor,
        places: &Tensor,
        g: &Geometry,
        shape: &[usize],
    ) -> Result<Tensor, Error> {
        window::floats_only(grad.dtype(), "max_pool2d_backward")?;
        rt.kernels(on(grad.device())?, &[grad, places], |l, v| {
            exec_window::max_pool_backward(l, v[0], v[1], g, shape)
        })
    }

    fn take(
        &self,
        rt: &mut Runtime,
        take: &Take,
        (index, wrap): (&Tensor, Option<(usize, isize)>),
        shape: Vec<usize>,
        _: bool,
    ) -> Result<Tensor, Error> {
        let (sh, src, at) = take.layout(index.numel());
        let dims: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        let view = &take.view;
        rt.kernels(on(view.device())?, &[view, index], |l, v| {
            exec::take(l, v[0], v[1], (&sh, &src, &at), wrap)
        })?
        .reshape(&dims)
    }

    /// Advanced indexing's write (`exec::put`).
    fn put(
        &self,
        rt: &mut Runtime,
        take: &Take,
        value: &Tensor,
        (index, wrap): (&Tensor, Option<(usize, isize)>),
        layout: (&[usize], &[isize], &[isize]),
        _: bool,
        accumulate: bool,
    ) -> Result<(), Error> {
        let view = &take.view;
        let l = rt.on_device(on(view.device())?).ok_or_else(no_driver)?;
        let from = rt.operand(&l, value)?;
        let ix = rt.operand(&l, index)?;
        view.before_write();
        let to = Operand::own(view)?;
        let (to, from, ix) = (to.view(view), from.view(value), ix.view(index));
        exec::put(&l, to, from, ix, layout, wrap, accumulate)
    }

    /// `x[mask] = v`: `where(mask, v, x)` written into x (`exec::ternary_into`).
    fn masked_fill(
        &self,
        rt: &mut Runtime,
        view: &Tensor,
        mask: &Tensor,
        value: &Tensor,
    ) -> Result<(), Error> {
        let l = rt.on_device(on(view.device())?).ok_or_else(no_driver)?;
        let m = rt.operand(&l, mask)?;
        let host = in_dtype(value, view.dtype());
        let value = host.as_ref().unwrap_or(value);
        let v = rt.operand(&l, value)?;
        view.before_write();
        let own = Operand::own(view)?;
        let views = [m.view(mask), v.view(value), own.view(view)];
        exec::ternary_into(&l, TernaryOp::Where, views, view.dtype(), own.view(view))
    }
}
