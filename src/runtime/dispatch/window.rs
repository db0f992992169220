//! The window ops of convolution and pooling: an image's windows as
//! columns (`im2col`) and back (`col2im`), the max pooling with its
//! maxima's places and its gradient. Computed by the device's `Compute`
//! (the host's `ops::window`, or `cuda::exec_window`'s kernels), finished
//! as the current stream's work.

use std::sync::Arc;

use super::{Flops, Runtime};
use crate::error::Error;
use crate::runtime::op::window::Geometry;
use crate::runtime::shape::fmt_shape;
use crate::runtime::Tensor;

fn image(x: &Tensor, op: &str) -> Result<(), Error> {
    match x.ndim() {
        4 => Ok(()),
        _ => Err(Error::shape(format!(
            "{op} takes an image batch [N, C, H, W], not {}",
            fmt_shape(x.shape())
        ))),
    }
}

impl Runtime {
    /// `x` [N, C, H, W]'s windows under `g` as columns [N, C * kh * kw,
    /// Ho * Wo] (PyTorch's `unfold` layout), zero over padding.
    pub fn im2col(&mut self, x: &Tensor, g: &Geometry) -> Result<Arc<Tensor>, Error> {
        image(x, "im2col")?;
        let g = g.clone();
        let out = self.made(x.device(), &[x], move |rt, t| {
            rt.compute(t[0].device()).im2col(rt, t[0], &g)
        })?;
        self.finish(out, None, &[x], Flops::default())
    }

    /// Columns [N, C * kh * kw, Ho * Wo] added back into the places of an
    /// image of `shape` [N, C, H, W] their windows came from (`fold`).
    pub fn col2im(
        &mut self,
        cols: &Tensor,
        g: &Geometry,
        shape: &[usize],
    ) -> Result<Arc<Tensor>, Error> {
        let (kh, kw) = g.kernel;
        let fits = match *shape {
            [n, c, ..] => cols.shape() == [n, c * kh * kw, g.out.0 * g.out.1],
            _ => false,
        };
        if shape.len() != 4 || !fits {
            return Err(Error::shape(format!(
                "col2im: columns {} do not fit an image {} under a {kh}x{kw} kernel",
                fmt_shape(cols.shape()),
                fmt_shape(shape)
            )));
        }
        let (g, shape) = (g.clone(), shape.to_vec());
        let out = self.made(cols.device(), &[cols], move |rt, t| {
            rt.compute(t[0].device()).col2im(rt, t[0], &g, &shape)
        })?;
        self.finish(out, None, &[cols], Flops::default())
    }

    /// Each window's maximum of `x` [N, C, H, W] and its place in its
    /// plane (`h * W + w`, PyTorch's `return_indices`).
    pub fn max_pool2d(
        &mut self,
        x: &Tensor,
        g: &Geometry,
    ) -> Result<(Arc<Tensor>, Arc<Tensor>), Error> {
        image(x, "max_pool2d")?;
        let g = g.clone();
        let (v, i) = self.made2(x.device(), &[x], move |rt, t| {
            rt.compute(t[0].device()).max_pool2d(rt, t[0], &g)
        })?;
        Ok((
            self.finish(v, None, &[x], Flops::default())?,
            self.finish(i, None, &[x], Flops::default())?,
        ))
    }

    /// The gradient of `max_pool2d`'s input of `shape`: each window's
    /// `grad` added at its maximum's place.
    pub fn max_pool2d_backward(
        &mut self,
        grad: &Tensor,
        places: &Tensor,
        g: &Geometry,
        shape: &[usize],
    ) -> Result<Arc<Tensor>, Error> {
        let (g, shape) = (g.clone(), shape.to_vec());
        let out = self.made(grad.device(), &[grad, places], move |rt, t| {
            rt.compute(t[0].device())
                .max_pool2d_backward(rt, t[0], t[1], &g, &shape)
        })?;
        self.finish(out, None, &[grad, places], Flops::default())
    }
}
