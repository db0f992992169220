//! Ops along one dimension (scans, softmax, var, std, norm, sort, topk)
//! and tril/triu: checked by the host ops (`ops::along`, `ops::sort`,
//! `ops::tri`), computed by them on the simulator and by `cuda::exec_along`'s
//! kernels on a driver's device, finished as the current stream's work.

use std::sync::Arc;

use super::device::{DevMem, OnDevice, Operand};
use super::kernels::no_driver;
use super::{Flops, Runtime};
use crate::error::Error;
use crate::runtime::cuda::exec::View;
use crate::runtime::cuda::exec_along::{self, Sorted};
use crate::runtime::op::along::{AlongOp, Param};
use crate::runtime::ops::along;
use crate::runtime::ops::{sort, tri};
use crate::runtime::shape::{norm_dim, reduced_shape, Lines};
use crate::runtime::{Device, Tensor};

impl Runtime {
    /// `op` along `dim` (every element when None: var, std, norm), the
    /// reduced dimension kept as 1 with `keepdim`.
    pub fn along(
        &mut self,
        op: AlongOp,
        p: Param,
        x: &Tensor,
        dim: Option<i64>,
        keepdim: bool,
    ) -> Result<Arc<Tensor>, Error> {
        let out = self
            .compute(x.device())
            .along(self, (op, p), x, dim, keepdim)?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// `op` over several dims at once (var, std, norm): the dims moved
    /// together into one, but for a CPU tensor's norm, which PyTorch's
    /// kernel walks in the order of the dims' strides (`ops::pytorch::norm`).
    pub fn along_dims(
        &mut self,
        op: AlongOp,
        p: Param,
        x: &Arc<Tensor>,
        dims: &[i64],
        keepdim: bool,
    ) -> Result<Arc<Tensor>, Error> {
        if op == AlongOp::Norm && x.device() == Device::Cpu {
            let out = along::norm_over_cpu(p, x, dims, keepdim)?;
            return self.finish(out, None, &[x], Flops::default());
        }
        self.over_dims(x, dims, keepdim, |rt, flat| {
            rt.along(op, p, flat, Some(-1), false)
        })
    }

    /// `tril` (or `triu` with `upper`) of x's matrices.
    pub fn tri(&mut self, x: &Tensor, diagonal: i64, upper: bool) -> Result<Arc<Tensor>, Error> {
        let out = self.compute(x.device()).tri(self, x, diagonal, upper)?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// `x` sorted along `dim`: (values, indices).
    pub fn sort(
        &mut self,
        x: &Tensor,
        dim: i64,
        descending: bool,
    ) -> Result<(Arc<Tensor>, Arc<Tensor>), Error> {
        let (v, i) = self.compute(x.device()).sort(self, x, dim, descending)?;
        Ok((
            self.finish(v, None, &[x], Flops::default())?,
            self.finish(i, None, &[x], Flops::default())?,
        ))
    }

    /// The `k` largest (or smallest) along `dim`, in order: (values, indices).
    pub fn topk(
        &mut self,
        x: &Tensor,
        k: i64,
        dim: i64,
        largest: bool,
    ) -> Result<(Arc<Tensor>, Arc<Tensor>), Error> {
        let (v, i) = self.compute(x.device()).topk(self, x, (k, dim), largest)?;
        Ok((
            self.finish(v, None, &[x], Flops::default())?,
            self.finish(i, None, &[x], Flops::default())?,
        ))
    }

    /// `Kernels`' `along`: checked as the host op checks it, then
    /// `exec_along`'s kernels.
    pub(super) fn along_on(
        &mut self,
        d: u32,
        (op, p): (AlongOp, Param),
        x: &Tensor,
        dim: Option<i64>,
        keepdim: bool,
    ) -> Result<Tensor, Error> {
        let k = dim.map(|k| norm_dim(k, x.ndim())).transpose()?;
        along::check(op, x.dtype(), p, Lines::of(x.shape(), k).len)?;
        let shape = if op.reduces() {
            reduced_shape(x.shape(), k, keepdim)
        } else {
            x.shape().to_vec()
        };
        self.kernels(d, &[x], |l, v| exec_along::along(l, op, p, v[0], k, shape))
    }

    pub(super) fn tri_on(
        &mut self,
        d: u32,
        x: &Tensor,
        diagonal: i64,
        upper: bool,
    ) -> Result<Tensor, Error> {
        tri::matrices(if upper { "triu" } else { "tril" }, x)?;
        self.kernels(d, &[x], |l, v| exec_along::tri(l, v[0], diagonal, upper))
    }

    pub(super) fn sort_on(
        &mut self,
        d: u32,
        x: &Tensor,
        dim: i64,
        descending: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        let k = norm_dim(dim, x.ndim())?;
        self.kernels2(d, x, |l, v| exec_along::sort(l, v, k, descending))
    }

    pub(super) fn topk_on(
        &mut self,
        d: u32,
        x: &Tensor,
        (k, dim): (i64, i64),
        largest: bool,
    ) -> Result<(Tensor, Tensor), Error> {
        sort::check_topk(x.dtype())?;
        let at = norm_dim(dim, x.ndim())?;
        let k = sort::check_k(k, x.shape().get(at).copied().unwrap_or(1))?;
        self.kernels2(d, x, |l, v| exec_along::topk(l, v, k, at, largest))
    }

    /// As `kernels`, for ops of one input and two outputs.
    fn kernels2(
        &mut self,
        d: u32,
        x: &Tensor,
        f: impl FnOnce(&OnDevice, View<DevMem>) -> Result<Sorted<DevMem>, Error>,
    ) -> Result<(Tensor, Tensor), Error> {
        let (a, b) = {
            let l = self.on_device(d).ok_or_else(no_driver)?;
            let operand: Operand = self.operand(&l, x)?;
            f(&l, operand.view(x))?
        };
        Ok((self.launched(d, a)?, self.launched(d, b)?))
    }
}
