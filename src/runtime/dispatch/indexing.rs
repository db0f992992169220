//! `x[...]`: basic indexing is a view; tensor indices (integers, or bool
//! masks; several broadcast together) give a copy made by one gather kernel. A mask
//! is read by the host first to count its true elements, as PyTorch's
//! `nonzero` does: on a device that is a host sync.
//!
//! An integer index out of range is an `IndexError` for a cpu tensor; into
//! a CUDA tensor it is a device-side assert in the kernel (`fault.rs`), as
//! PyTorch's index kernels check: the host never reads the index to check it.

use std::sync::Arc;

use super::fault::INDEX_ASSERTION;
use super::{Flops, Runtime};
use crate::error::Error;
use crate::runtime::cuda::source;
use crate::runtime::op::index::Index;
use crate::runtime::op::overlap;
use crate::runtime::ops::index::{self, Take};
use crate::runtime::shape::{broadcast_shapes, fmt_shape, numel};
use crate::runtime::{DType, Device, Tensor};

impl Runtime {
    pub fn index(&mut self, t: &Arc<Tensor>, items: &[Index]) -> Result<Arc<Tensor>, Error> {
        if !index::is_advanced(items) {
            return Ok(Arc::new(index::select(t, items)?));
        }
        let take = self.plan(t, items)?;
        let device = take.view.device();
        let ix = &take.index;
        // As PyTorch: the index lives on the cpu or beside the tensor.
        if ix.device() != device && ix.device() != Device::Cpu {
            return Err(Error::DeviceMismatch {
                a: device,
                b: ix.device(),
            });
        }
        let (index, wrap, index_shape, asserts) = self.resolve(&take)?;
        let shape = take.shape(&index_shape);
        // An empty result launches no kernel, so nothing asserts.
        let asserts = asserts && numel(&shape) > 0;
        let capturing = self.capturing_on(device);
        let out = match capturing {
            false => self
                .compute(device)
                .take(self, &take, (&index, wrap), shape, asserts)?,
            true => {
                // Kept for a CUDA graph's replays, which check the index as
                // it is then (`replayed_take`); capture runs no kernel, so
                // nothing asserts now.
                let plan = (take.dim, take.dims, take.offsets);
                let inputs = [&take.view, &*take.index, &*index];
                self.made(device, &inputs, move |rt, t| {
                    let take = replanned(plan, t[0], t[1]);
                    rt.replayed_take(&take, (t[2], wrap), shape.clone())
                })?
            }
        };
        let out = self.finish(out, None, &[t, ix], Flops::default())?;
        if let (true, false, Device::Cuda(d)) = (asserts, capturing, device) {
            let kernel = source::take(t.dtype());
            self.assert_failed(d, &kernel.name, INDEX_ASSERTION)?;
        }
        Ok(out)
    }

    /// A gather of a CUDA graph, at capture and at each replay: on a
    /// simulated device the index is checked as it is now, and at a replay
    /// an index out of range is the kernel's assertion, as on a GPU.
    fn replayed_take(
        &mut self,
        take: &Take,
        (index, wrap): (&Tensor, Option<(usize, isize)>),
        shape: Vec<usize>,
    ) -> Result<Tensor, Error> {
        let device = take.view.device();
        let asserts = self.index_asserts(take, index, &shape);
        let out = self
            .compute(device)
            .take(self, take, (index, wrap), shape, asserts)?;
        if let (true, true, Device::Cuda(d)) = (asserts, self.replaying, device) {
            let kernel = source::take(take.view.dtype());
            self.assert_failed(d, &kernel.name, INDEX_ASSERTION)?;
        }
        Ok(out)
    }

    /// Whether a simulated device's kernel asserts on `index` (a driver's
    /// kernel checks on the device itself).
    fn index_asserts(&self, take: &Take, index: &Tensor, shape: &[usize]) -> bool {
        if self.launches_on(take.view.device()).is_some() || take.offsets || numel(shape) == 0 {
            return false;
        }
        take.check_bounds(&index.cast(DType::I64).to_vec::<i64>())
            .is_err()
    }

    /// `t[items] = value` with a tensor index. A mask and a single value
    /// is PyTorch's `masked_fill_`: `where` written in place, with no host
    /// read. Otherwise the index is resolved as for reading (a mask read by
    /// the host) and one kernel stores the value's elements.
    pub fn index_put(
        &mut self,
        t: &Arc<Tensor>,
        items: &[Index],
        value: &Tensor,
    ) -> Result<(), Error> {
        self.put(t, items, value, false)
    }

    /// `t[items] += value` with every repeated index counted (PyTorch's
    /// `index_put_(..., accumulate=True)`, the backward of `t[items]`):
    /// atomic adds on a GPU, so the order repeated indices land in is the
    /// device's. f32 and f64 only (autograd accumulates halves in f32).
    pub fn index_put_add(
        &mut self,
        t: &Arc<Tensor>,
        items: &[Index],
        value: &Tensor,
    ) -> Result<(), Error> {
        if !matches!(t.dtype(), DType::F32 | DType::F64) {
            return Err(Error::dtype(
                format!(
                    "index_put_ with accumulate takes f32 or f64, not {}",
                    t.dtype()
                ),
                None,
            ));
        }
        self.put(t, items, value, true)
    }

    fn put(
        &mut self,
        t: &Arc<Tensor>,
        items: &[Index],
        value: &Tensor,
        accumulate: bool,
    ) -> Result<(), Error> {
        self.check_write(t)?;
        let take = self.plan(t, items)?;
        let device = take.view.device();
        let ix = Arc::clone(&take.index);
        // As PyTorch's index_put_: indices may be on the cpu, and the value
        // too when it is one number (a 0-d tensor); any other value must be
        // on the tensor's device.
        let index_elsewhere = ix.device() != device && ix.device() != Device::Cpu;
        let value_elsewhere = value.device() != device && !value.is_cpu_scalar();
        if index_elsewhere || value_elsewhere {
            return Err(Error::DeviceMismatch {
                a: device,
                b: if index_elsewhere {
                    ix.device()
                } else {
                    value.device()
                },
            });
        }
        overlap::check_write(&take.view)?;
        overlap::check_partial(&take.view, value)?;
        if !accumulate && ix.dtype() == DType::Bool && value.numel() == 1 && value.ndim() == 0 {
            return self.masked_fill(&take, value);
        }
        let (index, wrap, index_shape, asserts) = self.resolve(&take)?;
        let shape = take.shape(&index_shape);
        let asserts = asserts && numel(&shape) > 0;
        let fits = broadcast_shapes(&shape, value.shape()).is_some_and(|s| s == shape);
        if !fits {
            return Err(Error::Shape {
                message: format!(
                    "shape mismatch: a value of shape {} cannot be broadcast to the indexing result of shape {}",
                    fmt_shape(value.shape()),
                    fmt_shape(&shape)
                ),
                help: None,
            });
        }
        // The value over the collapsed layout: a multi-dimensional index's
        // dimensions are one there, so the value is laid out in order first.
        let (collapsed, dst, at) = take.layout(index.numel());
        let expanded = value.expand(&shape);
        let value = if shape == collapsed {
            expanded
        } else if value.numel() == 1 {
            // One value for every element, over the collapsed layout.
            value.reshape(&[])?.expand(&collapsed)
        } else {
            self.copy(&expanded)?
                .reshape(&collapsed.iter().map(|&s| s as i64).collect::<Vec<_>>())?
        };
        if numel(&shape) > 0 {
            // The kernel runs over the index's elements, even into an empty
            // view: it reaches the device (and a fault there).
            self.check_faults(&[device])?;
        }
        let capturing = self.capturing_on(device);
        match capturing {
            false => self.compute(device).put(
                self,
                &take,
                &value,
                (&index, wrap),
                (&collapsed, &dst, &at),
                asserts,
                accumulate,
            )?,
            true => {
                // Kept for a CUDA graph's replays, which check the index as
                // it is then.
                let plan = (take.dim, take.dims, take.offsets);
                let inputs = [&take.view, &*take.index, &*index, &value];
                self.in_place(&take.view, &inputs, move |rt, t| {
                    let take = replanned(plan, t[0], t[1]);
                    let asserts = rt.index_asserts(&take, t[2], &shape);
                    let layout = (&collapsed[..], &dst[..], &at[..]);
                    rt.compute(device).put(
                        rt,
                        &take,
                        t[3],
                        (t[2], wrap),
                        layout,
                        asserts,
                        accumulate,
                    )?;
                    if let (true, Device::Cuda(d)) = (asserts, device) {
                        rt.assert_failed(d, &put_kernel(&take, accumulate), INDEX_ASSERTION)?;
                    }
                    Ok(())
                })?;
            }
        }
        self.wrote_in_place(&take.view, &[&take.view, &value, &ix])?;
        if let (true, false, Device::Cuda(d)) = (asserts, capturing, device) {
            self.assert_failed(d, &put_kernel(&take, accumulate), INDEX_ASSERTION)?;
        }
        Ok(())
    }

    /// `x[mask] = v` with one value: `where(mask, v, x)` into x's elements.
    fn masked_fill(&mut self, take: &Take, value: &Tensor) -> Result<(), Error> {
        let view = &take.view;
        // The mask over the view: its dimensions, then 1s for the rest.
        let post = view.ndim() - take.dim - take.dims;
        let mut shape = take.index.shape().to_vec();
        let mut strides = take.index.strides().to_vec();
        shape.extend(std::iter::repeat_n(1, post));
        strides.extend(std::iter::repeat_n(0, post));
        let mask = take.index.view(shape, strides, take.index.offset());
        // Into no element, as PyTorch's kernel: nothing launches, and the
        // value is not read.
        if view.numel() > 0 {
            self.in_place(view, &[view, &mask, value], |rt, t| {
                rt.compute(t[0].device()).masked_fill(rt, t[0], t[1], t[2])
            })?;
        }
        self.wrote_in_place(view, &[view, &take.index, value])?;
        Ok(())
    }

    /// `nonzero(x)`: the coordinates of x's non-zero elements, [count,
    /// ndim] i64 on x's device. The count decides the shape, so the host
    /// reads x first: on a GPU a host sync, as PyTorch's `nonzero`.
    pub fn nonzero(&mut self, t: &Tensor) -> Result<Arc<Tensor>, Error> {
        let rows = index::nonzero_rows(&self.on_host(t)?);
        self.tensor(&rows, DType::I64, t.device())
    }

    /// `t`'s elements in a cpu tensor: a device tensor is read by the host
    /// (`host_read`, a sync of its stream).
    pub fn on_host(&mut self, t: &Tensor) -> Result<Tensor, Error> {
        if t.device().is_meta() {
            return Err(values_decide_shape(self.op));
        }
        if !t.device().is_cuda() {
            return Ok(t.copy());
        }
        let buf = self.host_read(&[t], |t| t.nbytes() as u64, || t.contiguous_buffer())?;
        Ok(Tensor::new(buf, t.shape().to_vec(), Device::Cpu))
    }

    /// Plans `t[items]`: one tensor index as it is; several combined into
    /// offsets on the host (`Take::plan_many`), so index tensors on a device
    /// are read first (a host sync, where PyTorch's kernel would not wait).
    fn plan(&mut self, t: &Tensor, items: &[Index]) -> Result<Take, Error> {
        if Take::tensors(items) < 2 {
            return Take::plan(t, items);
        }
        let mut host = Vec::with_capacity(items.len());
        for item in items {
            host.push(match item {
                Index::Tensor(i) if i.device() != t.device() && i.device() != Device::Cpu => {
                    return Err(Error::DeviceMismatch {
                        a: t.device(),
                        b: i.device(),
                    })
                }
                Index::Tensor(i) if i.device().is_cuda() => {
                    Index::Tensor(Arc::new(self.on_host(i)?))
                }
                // A meta index has no values; its shape is all the result's
                // needs (the meta device computes no element).
                Index::Tensor(i) if i.device().is_meta() && i.dtype().is_int() => {
                    let zeros = crate::runtime::Buffer::zeros(DType::I64, i.numel());
                    Index::Tensor(Arc::new(Tensor::new(
                        zeros,
                        i.shape().to_vec(),
                        Device::Cpu,
                    )))
                }
                Index::Tensor(i) if i.device().is_meta() => {
                    return Err(values_decide_shape(self.op))
                }
                other => other.clone(),
            });
        }
        Take::plan_many(t, &host)
    }

    /// The index as the kernels take it: a mask's true elements as offsets
    /// (read by the host), or the integer indices, with the shape they give
    /// the result, and whether a simulated device's kernel asserts on an
    /// index out of range. A cpu tensor's indices are checked here (an
    /// `IndexError`, as PyTorch's cpu kernels raise); a driver's kernel
    /// checks its own.
    #[allow(clippy::type_complexity)]
    fn resolve(
        &mut self,
        take: &Take,
    ) -> Result<(Arc<Tensor>, Option<(usize, isize)>, Vec<usize>, bool), Error> {
        let ix = &take.index;
        if take.offsets {
            return Ok((Arc::clone(ix), None, ix.shape().to_vec(), false));
        }
        if ix.dtype() == DType::Bool {
            let mask = self.host_values::<bool>(ix)?;
            let offsets = take.mask_offsets(&mask);
            let n = offsets.len();
            let offsets = Arc::new(Tensor::from_vec(offsets, vec![n]));
            return Ok((offsets, None, vec![n], false));
        }
        let device = take.view.device();
        let asserts = match self.launches_on(device) {
            Some(_) => false,
            // A simulated device's index is host memory: what the kernel reads.
            None => match take.check_bounds(&ix.cast(DType::I64).to_vec::<i64>()) {
                Err(e) if device == Device::Cpu => return Err(e),
                checked => checked.is_err(),
            },
        };
        Ok((
            Arc::clone(ix),
            Some(take.size_and_stride()),
            ix.shape().to_vec(),
            asserts,
        ))
    }

    /// `t`'s elements as the host sees them: a device tensor is read
    /// (`host_read`, a sync of its stream) first.
    fn host_values<T: crate::runtime::buffer::Stored>(
        &mut self,
        t: &Tensor,
    ) -> Result<Vec<T>, Error> {
        if t.device().is_meta() {
            return Err(values_decide_shape(self.op));
        }
        if t.device().is_cuda() {
            self.host_read(&[t], |t| t.nbytes() as u64, || t.to_vec::<T>())
        } else {
            Ok(t.to_vec::<T>())
        }
    }
}

/// PyTorch's refusal of an op whose result's shape depends on the values
/// (`nonzero`, a boolean mask) on the meta device, which has none.
pub fn values_decide_shape(op: &str) -> Error {
    Error::not_implemented(
        format!(
            "{op}() has no meta implementation: what it gives depends on the values, and a \
             meta tensor has none"
        ),
        "a boolean mask, `nonzero`, `where(cond)` and `masked_select` need real values: make \
         the tensors on the cpu or a GPU",
    )
}

/// The name of the kernel `put` launches (its assertion names it).
fn put_kernel(take: &Take, accumulate: bool) -> String {
    let kernel = match accumulate {
        true => source::put_add(take.view.dtype()).expect("f32 or f64 was checked"),
        false => source::put(take.view.dtype()),
    };
    kernel.name.to_string()
}

/// A gather's or scatter's plan (its indexed dimensions, and whether the
/// index holds offsets) over the view and index a CUDA graph's replay holds.
fn replanned((dim, dims, offsets): (usize, usize, bool), view: &Tensor, index: &Tensor) -> Take {
    Take {
        view: view.alias(),
        dim,
        dims,
        index: Arc::new(index.alias()),
        offsets,
    }
}
