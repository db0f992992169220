//! Ops along one dimension (scans, softmax, var, std, norm, sort, topk)
//! and tril/triu: planned (`op::along`), computed by the device's
//! `Compute` (the host's `ops::along`, `ops::sort`, `ops::tri`, or
//! `cuda::exec_along`'s kernels), finished as the current stream's work.

use std::sync::Arc;

use super::{Flops, Runtime};
use crate::error::Error;
use crate::runtime::op::along::{Along, AlongOp, Param};
use crate::runtime::ops::along;
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
        let plan = Along::plan((op, p), (x.shape(), x.dtype()), dim, keepdim)?;
        let out = self.made(x.device(), &[x], move |rt, t| {
            rt.compute(t[0].device()).along(rt, t[0], &plan)
        })?;
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
        let out = self.made(x.device(), &[x], move |rt, t| {
            rt.compute(t[0].device()).tri(rt, t[0], diagonal, upper)
        })?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// `x` sorted along `dim`: (values, indices).
    pub fn sort(
        &mut self,
        x: &Tensor,
        dim: i64,
        descending: bool,
    ) -> Result<(Arc<Tensor>, Arc<Tensor>), Error> {
        let (v, i) = self.made2(x.device(), &[x], move |rt, t| {
            rt.compute(t[0].device()).sort(rt, t[0], dim, descending)
        })?;
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
        let (v, i) = self.made2(x.device(), &[x], move |rt, t| {
            rt.compute(t[0].device()).topk(rt, t[0], (k, dim), largest)
        })?;
        Ok((
            self.finish(v, None, &[x], Flops::default())?,
            self.finish(i, None, &[x], Flops::default())?,
        ))
    }
}
