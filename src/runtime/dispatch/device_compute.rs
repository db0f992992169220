//! The seam between the op layer and the backends: how a device computes
//! the ops `compute.rs` plans (`Compute`), implemented once for the host
//! (`host.rs`) and once for a driver's kernels (`kernels.rs`).

use std::sync::Arc;

use super::Runtime;
use crate::error::Error;
use crate::runtime::op::along::Along;
use crate::runtime::op::attention::Attend;
use crate::runtime::op::binary::{BinaryOp, BinaryPlan, Operand};
use crate::runtime::op::factory::{Fill, Make, NewTensor};
use crate::runtime::op::reduce::Reduction;
use crate::runtime::op::ternary::{Plan, TernaryOp};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::op::window::Geometry;
use crate::runtime::ops::index::Take;
use crate::runtime::{DType, Tensor};

/// How a device computes the ops the op layer planned: the host's loops
/// (the CPU and simulated devices: `host::Host`) or a driver's kernels
/// (`cuda` and `emu`: `kernels::Kernels`). A new backend is one more
/// implementation; the ops (`Runtime::unary` and the rest) plan, pick the
/// device's and finish, whichever it is.
pub(super) trait Compute: Sync {
    fn unary(&self, rt: &mut Runtime, op: UnaryOp, x: &Tensor) -> Result<Tensor, Error>;
    /// `x = op(x)` in place, checked by `Runtime::unary_`.
    fn unary_in_place(&self, rt: &mut Runtime, op: UnaryOp, x: &Tensor) -> Result<(), Error>;
    fn binary(
        &self,
        rt: &mut Runtime,
        op: BinaryOp,
        a: Operand,
        b: Operand,
        plan: BinaryPlan,
    ) -> Result<Tensor, Error>;
    /// `x op= y`, checked and planned by `Runtime::binary_`.
    fn binary_in_place(
        &self,
        rt: &mut Runtime,
        op: BinaryOp,
        x: &Tensor,
        y: Operand,
        plan: BinaryPlan,
    ) -> Result<(), Error>;
    fn ternary(
        &self,
        rt: &mut Runtime,
        op: TernaryOp,
        operands: [Operand; 3],
        plan: &Plan,
    ) -> Result<Tensor, Error>;
    /// `x = op(x, b, c)` in place, checked and planned by `Runtime::ternary_`.
    fn ternary_in_place(
        &self,
        rt: &mut Runtime,
        op: TernaryOp,
        x: &Tensor,
        operands: [Operand; 2],
        plan: &Plan,
    ) -> Result<(), Error>;
    fn matmul(&self, rt: &mut Runtime, a: &Tensor, b: &Tensor) -> Result<Tensor, Error>;
    fn reduce(&self, rt: &mut Runtime, x: &Tensor, plan: &Reduction) -> Result<Tensor, Error>;
    /// A contiguous copy converted to `dtype` (the same dtype: a copy).
    fn cast(&self, rt: &mut Runtime, x: &Tensor, dtype: DType) -> Result<Tensor, Error>;
    fn join(
        &self,
        rt: &mut Runtime,
        xs: &[&Tensor],
        dim: i64,
        stack: bool,
    ) -> Result<Tensor, Error>;
    fn fill(&self, rt: &mut Runtime, x: &Tensor, value: Fill) -> Result<(), Error>;
    fn normal_(&self, rt: &mut Runtime, x: &Tensor, mean: f64, std: f64) -> Result<(), Error>;
    /// `src` (on dst's device, or a cpu scalar) written into `dst`.
    fn assign(&self, rt: &mut Runtime, dst: &Tensor, src: &Tensor) -> Result<(), Error>;
    /// A factory's new tensor, finished: the host's takes its block first
    /// (a too big tensor fails before any work), a kernel its own.
    fn make(&self, rt: &mut Runtime, what: Make, new: NewTensor) -> Result<Arc<Tensor>, Error>;
    fn along(&self, rt: &mut Runtime, x: &Tensor, plan: &Along) -> Result<Tensor, Error>;
    fn tri(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        diagonal: i64,
        upper: bool,
    ) -> Result<Tensor, Error>;
    fn sort(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        dim: i64,
        descending: bool,
    ) -> Result<(Tensor, Tensor), Error>;
    fn topk(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        k_dim: (i64, i64),
        largest: bool,
    ) -> Result<(Tensor, Tensor), Error>;
    /// Advanced indexing's gather (`Runtime::index`): `shape` the result's,
    /// `asserts` whether an index is out of range (the simulator's check).
    fn take(
        &self,
        rt: &mut Runtime,
        take: &Take,
        index: (&Tensor, Option<(usize, isize)>),
        shape: Vec<usize>,
        asserts: bool,
    ) -> Result<Tensor, Error>;
    /// Advanced indexing's scatter (`Runtime::index_put`) of `value`, laid
    /// out over `layout` (collapsed shape, destination and index strides);
    /// `accumulate` adds instead of storing (`index_put_add`).
    #[allow(clippy::too_many_arguments)]
    fn put(
        &self,
        rt: &mut Runtime,
        take: &Take,
        value: &Tensor,
        index: (&Tensor, Option<(usize, isize)>),
        layout: (&[usize], &[isize], &[isize]),
        asserts: bool,
        accumulate: bool,
    ) -> Result<(), Error>;
    /// Fused attention of `q`, `k`, `v` [B, H, *, *] and an additive
    /// `bias`: (out [B, H, L, Ev], logsumexp [B, H, L]).
    fn attention(
        &self,
        rt: &mut Runtime,
        qkv: (&Tensor, &Tensor, &Tensor),
        bias: Option<&Tensor>,
        how: &Attend,
    ) -> Result<(Tensor, Tensor), Error>;
    /// Its gradients (dq, dk, dv) for the output's gradient `dout`, from
    /// the forward's `out` and `lse`.
    fn attention_backward(
        &self,
        rt: &mut Runtime,
        dout: &Tensor,
        qkv: (&Tensor, &Tensor, &Tensor),
        saved: (&Tensor, &Tensor),
        bias: Option<&Tensor>,
        how: &Attend,
    ) -> Result<(Tensor, Tensor, Tensor), Error>;
    /// `x` [N, C, H, W]'s windows as columns [N, C * kh * kw, Ho * Wo].
    fn im2col(&self, rt: &mut Runtime, x: &Tensor, g: &Geometry) -> Result<Tensor, Error>;
    /// Columns added back into their places of an image of `shape`.
    fn col2im(
        &self,
        rt: &mut Runtime,
        cols: &Tensor,
        g: &Geometry,
        shape: &[usize],
    ) -> Result<Tensor, Error>;
    /// Each window's maximum and its place in its plane (i64).
    fn max_pool2d(
        &self,
        rt: &mut Runtime,
        x: &Tensor,
        g: &Geometry,
    ) -> Result<(Tensor, Tensor), Error>;
    /// `grad` added at `places` of an image of `shape`.
    fn max_pool2d_backward(
        &self,
        rt: &mut Runtime,
        grad: &Tensor,
        places: &Tensor,
        g: &Geometry,
        shape: &[usize],
    ) -> Result<Tensor, Error>;
    /// `view[mask] = value` with one value.
    fn masked_fill(
        &self,
        rt: &mut Runtime,
        view: &Tensor,
        mask: &Tensor,
        value: &Tensor,
    ) -> Result<(), Error>;
}
