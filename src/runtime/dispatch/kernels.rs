//! How a driver's device (`cuda`, `emu`) computes each planned op
//! (`Compute` for `Kernels`): `cuda::exec`'s kernels on the device's
//! memory. Each returns the new tensor; the op (`compute.rs`) finishes it as
//! one item of the current stream, as the host's result.

use std::sync::Arc;

use super::device::{driver_error, DevMem, OnDevice, Operand};
use super::device_compute::Compute;
use super::{tensor_bytes, Flops, Runtime};
use crate::error::Error;
use crate::runtime::buffer::Stored;
use crate::runtime::cuda::exec::{self, Out, View};
use crate::runtime::devices::Memory;
use crate::runtime::driver::{Addr, DevicePtr};
use crate::runtime::op::along::{AlongOp, Param};
use crate::runtime::op::binary::BinaryOp;
use crate::runtime::op::factory::{Distribution, Fill, Linspace, Make, NewTensor};
use crate::runtime::op::matmul::{as_matrices, matmul_dtypes, not_lined_up};
use crate::runtime::op::pow_shortcut::PowShortcut;
use crate::runtime::op::reduce::ReduceOp;
use crate::runtime::op::ternary::{Plan, TernaryOp};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::ops::elementwise;
use crate::runtime::ops::index::Take;
use crate::runtime::ops::join;
use crate::runtime::ops::reduce;
use crate::runtime::shape::{
    broadcast_shapes, checked_numel, contiguous_strides, fmt_shape, norm_dim, numel,
};
use crate::runtime::{DType, Device, Tensor};
use crate::with_dtype;

impl Runtime {
    /// Runs `f` on device `d` with `inputs` as kernel operands; its output
    /// becomes a tensor in device memory.
    pub(super) fn kernels(
        &mut self,
        d: u32,
        inputs: &[&Tensor],
        f: impl FnOnce(&OnDevice, &[View<DevMem>]) -> Result<Out<DevMem>, Error>,
    ) -> Result<Tensor, Error> {
        let out = {
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
        self.launched(d, out)
    }

    pub(super) fn unary_on(&mut self, d: u32, op: UnaryOp, x: &Tensor) -> Result<Tensor, Error> {
        let dt = x.dtype();
        elementwise::check_unary(op, dt)?;
        if dt == DType::Bool && op.keeps_int() && op != UnaryOp::BitNot {
            return self.kernels(d, &[x], |l, v| exec::cast(l, v[0], DType::Bool));
        }
        let out = elementwise::unary_dtype(op, dt);
        self.kernels(d, &[x], |l, v| exec::unary(l, op, v[0], out))
    }

    pub(super) fn binary_on(
        &mut self,
        d: u32,
        op: BinaryOp,
        a: elementwise::Operand,
        b: elementwise::Operand,
        plan: elementwise::BinaryPlan,
    ) -> Result<Tensor, Error> {
        let compute = plan.compute;
        if numel(&plan.shape) == 0 {
            let dt = if op.gives_bool() {
                DType::Bool
            } else {
                compute
            };
            return self.empty_on(d, plan.shape, dt);
        }
        // PyTorch copies the base for a number 1 (`pow(Tensor, Scalar)`),
        // where a GPU's `pow(x, 1.0)` may differ from x in the last place.
        let number = elementwise::pow_number_on_cuda(op, a, b);
        if number == Some(1.0) {
            return self.kernels(d, &[a.tensor], |l, v| exec::cast(l, v[0], compute));
        }
        if let Some(s) = number.and_then(|e| PowShortcut::on_cuda(compute, e)) {
            return self.kernels(d, &[a.tensor], |l, v| {
                exec::pow_shortcut(l, s, v[0], compute)
            });
        }
        if let Some(side) = elementwise::opmath_scalar(op, compute, a, b) {
            // The CPU scalar goes over as f32 (PyTorch's opmath), the tensor as it is.
            let (t, s) = if side == 1 { (a, b) } else { (b, a) };
            let s32 = s.tensor.cast(DType::F32);
            return self.kernels(d, &[t.tensor, &s32], |l, v| {
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
        self.kernels(d, &[ta, tb], |l, v| {
            exec::binary(l, op, v[0], v[1], compute)
        })
    }

    /// An op's result with no element on device `d`: no kernel runs and
    /// no operand goes over, so no driver is called (as PyTorch's kernels
    /// return early on empty tensors).
    fn empty_on(&mut self, d: u32, shape: Vec<usize>, dtype: DType) -> Result<Tensor, Error> {
        self.kernels(d, &[], |l, _| {
            Ok(Out {
                mem: exec::Launcher::alloc(l, dtype, 0)?,
                dtype,
                shape,
            })
        })
    }

    /// `where` or `clamp` on the device (`compute` from `ternary::plan`);
    /// host operands go over in the dtype the kernel reads them in.
    pub(super) fn ternary_on(
        &mut self,
        d: u32,
        op: TernaryOp,
        operands: [elementwise::Operand; 3],
        compute: DType,
        shape: &[usize],
    ) -> Result<Tensor, Error> {
        if numel(shape) == 0 {
            return self.empty_on(d, shape.to_vec(), compute);
        }
        let wants = |k: usize| match (op, k) {
            (TernaryOp::Where, 0) => DType::Bool,
            _ => compute,
        };
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
        self.kernels(d, &ts, |l, v| {
            exec::ternary(l, op, [v[0], v[1], v[2]], compute)
        })
    }

    /// Advanced indexing's gather on the device (`exec::take`).
    pub(super) fn take_on(
        &mut self,
        d: u32,
        view: &Tensor,
        index: &Tensor,
        layout: (&[usize], &[isize], &[isize]),
        wrap: Option<(usize, isize)>,
    ) -> Result<Tensor, Error> {
        self.kernels(d, &[view, index], |l, v| {
            exec::take(l, v[0], v[1], layout, wrap)
        })
    }

    /// `x[mask] = v`: `where(mask, v, x)` written into x (`exec::ternary_into`).
    pub(super) fn masked_fill_on(
        &mut self,
        d: u32,
        view: &Tensor,
        mask: &Tensor,
        value: &Tensor,
    ) -> Result<(), Error> {
        let l = self.on_device(d).ok_or_else(no_driver)?;
        let m = self.operand(&l, mask)?;
        let host = in_dtype(value, view.dtype());
        let value = host.as_ref().unwrap_or(value);
        let v = self.operand(&l, value)?;
        view.before_write();
        let own = Operand::own(view)?;
        let views = [m.view(mask), v.view(value), own.view(view)];
        exec::ternary_into(&l, TernaryOp::Where, views, view.dtype(), own.view(view))
    }

    /// Advanced indexing's write on the device (`exec::put`).
    pub(super) fn put_on(
        &mut self,
        d: u32,
        view: &Tensor,
        value: &Tensor,
        index: &Tensor,
        collapsed: (&[usize], &[isize], &[isize]),
        wrap: Option<(usize, isize)>,
    ) -> Result<(), Error> {
        let l = self.on_device(d).ok_or_else(no_driver)?;
        let from = self.operand(&l, value)?;
        let ix = self.operand(&l, index)?;
        view.before_write();
        let to = Operand::own(view)?;
        exec::put(
            &l,
            to.view(view),
            from.view(value),
            ix.view(index),
            collapsed,
            wrap,
        )
    }

    /// `x op= y` on the device, as `plan_binary` planned it: written into
    /// x's own memory (`exec::binary_into`).
    pub(super) fn binary_in_place_on(
        &mut self,
        d: u32,
        op: BinaryOp,
        x: &Tensor,
        y: elementwise::Operand,
        plan: elementwise::BinaryPlan,
    ) -> Result<(), Error> {
        let xo = elementwise::Operand::strong(x);
        let compute = plan.compute;
        let number = elementwise::pow_number_on_cuda(op, xo, y);
        if number == Some(1.0) || x.numel() == 0 {
            // `x **= 1` leaves x as it is (PyTorch's copy of x onto itself);
            // an empty x launches nothing.
            return Ok(());
        }
        if let Some(s) = number.and_then(|e| PowShortcut::on_cuda(compute, e)) {
            let l = self.on_device(d).ok_or_else(no_driver)?;
            let xin = self.operand(&l, x)?;
            x.before_write();
            let own = Operand::own(x)?;
            return exec::pow_shortcut_into(&l, s, xin.view(x), compute, own.view(x));
        }
        if elementwise::opmath_scalar(op, compute, xo, y) == Some(1) {
            // `h *= 0.1`: the CPU scalar as f32 (PyTorch's opmath).
            let s32 = y.tensor.cast(DType::F32);
            let l = self.on_device(d).ok_or_else(no_driver)?;
            let xin = self.operand(&l, x)?;
            let from = self.operand(&l, &s32)?;
            x.before_write();
            let own = Operand::own(x)?;
            return exec::binary_opmath_into(
                &l,
                op,
                (xin.view(x), from.view(&s32)),
                compute,
                own.view(x),
            );
        }
        let host = in_dtype(y.tensor, compute);
        let yt = host.as_ref().unwrap_or(y.tensor);
        let l = self.on_device(d).ok_or_else(no_driver)?;
        // x and y are read first (racing a pending write, the bytes from
        // before it), then x is written: as the host op does.
        let xin = self.operand(&l, x)?;
        let from = self.operand(&l, yt)?;
        // `y` reading memory that `x` is written to, other than x's own
        // elements in place: computed aside first.
        let aliases = yt.shares_storage(x)
            && !(yt.offset() == x.offset()
                && yt.strides() == x.strides()
                && yt.shape() == x.shape());
        x.before_write();
        let own = Operand::own(x)?;
        exec::binary_into(
            &l,
            op,
            (xin.view(x), from.view(yt)),
            compute,
            own.view(x),
            aliases,
        )
    }

    pub(super) fn matmul_on(&mut self, d: u32, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
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
        let out = self.kernels(d, &[&a2, &b2], |l, v| exec::matmul(l, v[0], v[1], dt))?;
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

    pub(super) fn reduce_on(
        &mut self,
        d: u32,
        op: ReduceOp,
        x: &Tensor,
        dim: Option<i64>,
        keepdim: bool,
    ) -> Result<Tensor, Error> {
        let shape = x.shape();
        let (dim, out_shape, len) = match dim {
            None => {
                let out = if keepdim {
                    vec![1; shape.len()]
                } else {
                    vec![]
                };
                (None, out, x.numel())
            }
            Some(k) => {
                let k = norm_dim(k, shape.len())?;
                let mut out = shape.to_vec();
                if !out.is_empty() {
                    if keepdim {
                        out[k] = 1;
                    } else {
                        out.remove(k);
                    }
                }
                (Some(k), out, shape.get(k).copied().unwrap_or(1))
            }
        };
        reduce::check_dtype(op, x.dtype())?;
        reduce::check_len(op, len)?;
        self.kernels(d, &[x], |l, v| exec::reduce(l, op, v[0], dim, out_shape))
    }

    /// `.to(dtype)` and `.contiguous()`: a converted copy.
    pub(super) fn cast_on(&mut self, d: u32, x: &Tensor, to: DType) -> Result<Tensor, Error> {
        self.kernels(d, &[x], |l, v| exec::cast(l, v[0], to))
    }

    /// `full` and friends: a new tensor with every element `value`.
    pub(super) fn full_on(
        &mut self,
        d: u32,
        shape: &[usize],
        value: Fill,
        dtype: DType,
    ) -> Result<Tensor, Error> {
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

    /// `rand`, `randn`: the session's generator's numbers, drawn on the device.
    pub(super) fn random_on(
        &mut self,
        d: u32,
        dist: Distribution,
        shape: &[usize],
        dtype: DType,
        (mean, std): (f64, f64),
    ) -> Result<Tensor, Error> {
        device_numel(shape, dtype)?;
        let mut gen = self.generators.of(Device::Cuda(d)).clone();
        let out = self.kernels(d, &[], |l, _| {
            exec::random(l, &mut gen, dist, shape, dtype, (mean, std))
        })?;
        *self.generators.of(Device::Cuda(d)) = gen;
        Ok(out)
    }

    /// `arange`: `n` values from `start` by `step`.
    pub(super) fn arange_on(
        &mut self,
        d: u32,
        n: usize,
        start: f64,
        step: f64,
        dtype: DType,
    ) -> Result<Tensor, Error> {
        self.kernels(d, &[], |l, _| exec::arange(l, n, start, step, dtype))
    }

    /// `linspace`: the values `plan` says.
    pub(super) fn linspace_on(
        &mut self,
        d: u32,
        plan: &Linspace,
        dtype: DType,
    ) -> Result<Tensor, Error> {
        self.kernels(d, &[], |l, _| exec::linspace(l, plan, dtype))
    }

    /// `dst[...] = src`: `src` (a device tensor, or a host one copied over
    /// first) converted and broadcast into the view `dst`.
    pub(super) fn assign_on(&mut self, d: u32, dst: &Tensor, src: &Tensor) -> Result<(), Error> {
        let l = self.on_device(d).ok_or_else(no_driver)?;
        let from = self.operand(&l, src)?;
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

    /// `x.fill_(v)`.
    pub(super) fn fill_on(&mut self, d: u32, x: &Tensor, value: Fill) -> Result<(), Error> {
        let l = self.on_device(d).ok_or_else(no_driver)?;
        let element = element_bytes(x.dtype(), value);
        x.before_write();
        let to = Operand::own(x)?;
        exec::fill(&l, to.view(x), &element)
    }
}

impl Runtime {
    /// `cat` (and `stack`, of views with the new dimension): each input
    /// copied into its slice of the output by a kernel.
    pub(super) fn cat_on(&mut self, d: u32, xs: &[&Tensor], dim: i64) -> Result<Tensor, Error> {
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

    /// `eye(n, m)`: zeros, then ones along the diagonal (a strided view).
    pub(super) fn eye_on(
        &mut self,
        d: u32,
        n: usize,
        m: usize,
        dtype: DType,
    ) -> Result<Tensor, Error> {
        let out = self.full_on(d, &[n, m], Fill::Int(0), dtype)?;
        let diagonal = out.view(vec![n.min(m)], vec![m as isize + 1], 0);
        self.fill_on(d, &diagonal, Fill::Int(1))?;
        Ok(out)
    }

    /// `x.normal_(mean, std)`: the session's generator's numbers drawn on
    /// the device, then written into `x` (which may be a strided view).
    pub(super) fn normal_on(
        &mut self,
        d: u32,
        x: &Tensor,
        mean: f64,
        std: f64,
    ) -> Result<(), Error> {
        let mut gen = self.generators.of(Device::Cuda(d)).clone();
        {
            let l = self.on_device(d).ok_or_else(no_driver)?;
            let params = (mean, std);
            let drawn = exec::random_scratch(
                &l,
                &mut gen,
                Distribution::Normal,
                x.shape(),
                x.dtype(),
                params,
            )?;
            let strides = contiguous_strides(x.shape());
            let from = View {
                mem: &drawn.mem,
                dtype: x.dtype(),
                shape: x.shape(),
                strides: &strides,
                offset: 0,
            };
            x.before_write();
            let to = Operand::own(x)?;
            exec::copy_into(&l, from, to.view(x))?;
        }
        *self.generators.of(Device::Cuda(d)) = gen;
        Ok(())
    }

    /// `t` (on device `s`) copied into `block` on device `to` by the
    /// driver's peer copy (`peer_copy_into`).
    pub(super) fn peer_copy(
        &mut self,
        s: u32,
        t: &Tensor,
        to: u32,
        block: Memory,
    ) -> Result<Tensor, Error> {
        let driver = Arc::clone(self.devices.driver().ok_or_else(no_driver)?);
        let dst = self.device_bytes(to, block, t.dtype(), t.numel(), &driver)?;
        self.peer_copy_into(s, t, to, dst.addr)?;
        Ok(Tensor::in_device_memory(
            dst,
            t.shape().to_vec(),
            Device::Cuda(to),
        ))
    }

    /// `t` (on device `s`) copied to the device address `dst` on device
    /// `to`, `t.nbytes()` of contiguous memory there, by the driver's peer
    /// copy on `to`'s current stream. A contiguous view is copied from where
    /// it lies; any other is made contiguous on its own device first.
    pub(super) fn peer_copy_into(
        &mut self,
        s: u32,
        t: &Tensor,
        to: u32,
        dst: DevicePtr,
    ) -> Result<(), Error> {
        let driver = Arc::clone(self.devices.driver().ok_or_else(no_driver)?);
        let l = self.on_device(s).ok_or_else(no_driver)?;
        let operand = self.operand(&l, t)?;
        // A view that is not contiguous: made so in scratch.
        let staged = (!t.is_contiguous())
            .then(|| exec::converted(&l, operand.view(t), t.dtype(), true))
            .transpose()?;
        let from = match &staged {
            Some(o) => o.mem.addr,
            None => operand.addr() + (t.offset() * t.dtype().size()) as u64,
        };
        // SAFETY: both ranges hold `t.nbytes()` bytes of live device memory.
        unsafe {
            driver.copy(
                Addr::Device {
                    device: to,
                    ptr: dst,
                },
                Addr::Device {
                    device: s,
                    ptr: from,
                },
                t.nbytes(),
                self.devices.current_handle(to),
            )
        }
        .map_err(|e| driver_error(to, e))
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

pub(super) fn no_driver() -> Error {
    Error::value("internal error: a device op on a device without a driver")
}

/// A driver's kernels.
pub(super) struct Kernels;

/// The index of a driver's device (the ops pick `Kernels` for those only).
fn on(device: Device) -> Result<u32, Error> {
    match device {
        Device::Cuda(d) => Ok(d),
        Device::Cpu => Err(Error::value("internal error: kernels for a cpu tensor")),
    }
}

impl Compute for Kernels {
    fn unary(&self, rt: &mut Runtime, op: UnaryOp, x: &Tensor) -> Result<Tensor, Error> {
        rt.unary_on(on(x.device())?, op, x)
    }

    fn binary(
        &self,
        rt: &mut Runtime,
        op: BinaryOp,
        a: elementwise::Operand,
        b: elementwise::Operand,
        plan: elementwise::BinaryPlan,
    ) -> Result<Tensor, Error> {
        rt.binary_on(on(plan.device)?, op, a, b, plan)
    }

    fn binary_in_place(
        &self,
        rt: &mut Runtime,
        op: BinaryOp,
        x: &Tensor,
        y: elementwise::Operand,
        plan: elementwise::BinaryPlan,
    ) -> Result<(), Error> {
        rt.binary_in_place_on(on(x.device())?, op, x, y, plan)
    }

    fn ternary(
        &self,
        rt: &mut Runtime,
        op: TernaryOp,
        operands: [elementwise::Operand; 3],
        plan: &Plan,
    ) -> Result<Tensor, Error> {
        rt.ternary_on(on(plan.device)?, op, operands, plan.compute, &plan.shape)
    }

    fn matmul(&self, rt: &mut Runtime, a: &Tensor, b: &Tensor) -> Result<Tensor, Error> {
        rt.matmul_on(on(a.device())?, a, b)
    }

    fn reduce(
        &self,
        rt: &mut Runtime,
        op: ReduceOp,
        x: &Tensor,
        dim: Option<i64>,
        keepdim: bool,
    ) -> Result<Tensor, Error> {
        rt.reduce_on(on(x.device())?, op, x, dim, keepdim)
    }

    fn cast(&self, rt: &mut Runtime, x: &Tensor, dtype: DType) -> Result<Tensor, Error> {
        rt.cast_on(on(x.device())?, x, dtype)
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
        rt.fill_on(on(x.device())?, x, value)
    }

    fn normal_(&self, rt: &mut Runtime, x: &Tensor, mean: f64, std: f64) -> Result<(), Error> {
        rt.normal_on(on(x.device())?, x, mean, std)
    }

    fn assign(&self, rt: &mut Runtime, dst: &Tensor, src: &Tensor) -> Result<(), Error> {
        rt.assign_on(on(dst.device())?, dst, src)
    }

    fn make(&self, rt: &mut Runtime, what: Make, new: NewTensor) -> Result<Arc<Tensor>, Error> {
        let NewTensor {
            shape,
            dtype,
            device,
            like,
        } = new;
        let d = on(rt.check_device(device)?)?;
        let out = match what {
            Make::Full(value) => rt.full_on(d, shape, value, dtype)?,
            Make::Random(dist) => rt.random_on(d, dist, shape, dtype, (0.0, 1.0))?,
            Make::Arange {
                values,
                start,
                step,
            } => rt.arange_on(d, values.numel(), start, step, dtype)?,
            Make::Linspace(plan) => rt.linspace_on(d, plan, dtype)?,
            Make::Eye => rt.eye_on(d, shape[0], shape[1], dtype)?,
        };
        rt.finish(out, None, like.as_slice(), Flops::default())
    }

    fn along(
        &self,
        rt: &mut Runtime,
        op: (AlongOp, Param),
        x: &Tensor,
        dim: Option<i64>,
        keepdim: bool,
    ) -> Result<Tensor, Error> {
        rt.along_on(on(x.device())?, op, x, dim, keepdim)
    }

    fn tri(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        diagonal: i64,
        upper: bool,
    ) -> Result<Tensor, Error> {
        rt.tri_on(on(x.device())?, x, diagonal, upper)
    }

    fn sort(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        dim: i64,
        descending: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        rt.sort_on(on(x.device())?, x, dim, descending)
    }

    fn topk(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        k_dim: (i64, i64),
        largest: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        rt.topk_on(on(x.device())?, x, k_dim, largest)
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
        rt.take_on(
            on(take.view.device())?,
            &take.view,
            index,
            (&sh, &src, &at),
            wrap,
        )?
        .reshape(&dims)
    }

    fn put(
        &self,
        rt: &mut Runtime,
        take: &Take,
        value: &Tensor,
        (index, wrap): (&Tensor, Option<(usize, isize)>),
        layout: (&[usize], &[isize], &[isize]),
        _: bool,
    ) -> Result<(), Error> {
        rt.put_on(
            on(take.view.device())?,
            &take.view,
            value,
            index,
            layout,
            wrap,
        )
    }

    fn masked_fill(
        &self,
        rt: &mut Runtime,
        view: &Tensor,
        mask: &Tensor,
        value: &Tensor,
    ) -> Result<(), Error> {
        rt.masked_fill_on(on(view.device())?, view, mask, value)
    }
}
