//! Where a convolution's or a pooling's windows lie over an image: the
//! vocabulary `conv.rs` computes with and the graph's nodes keep.

use crate::error::Error;

/// Where a kernel's windows lie: its size, stride, padding and dilation
/// (height, width), the groups, and the output's size.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    pub kernel: (usize, usize),
    pub stride: (usize, usize),
    pub padding: (usize, usize),
    pub dilation: (usize, usize),
    pub groups: usize,
    /// The output's height and width.
    pub out: (usize, usize),
}

impl Geometry {
    /// The output size of `(h, w)` (PyTorch's floor rule), or an error in
    /// PyTorch's words when the kernel does not fit.
    pub fn new(
        (h, w): (usize, usize),
        kernel: (usize, usize),
        stride: (usize, usize),
        padding: (usize, usize),
        dilation: (usize, usize),
        groups: usize,
    ) -> Result<Geometry, Error> {
        let size = |n: usize, k: usize, s: usize, p: usize, d: usize| -> Option<usize> {
            let span = d * (k - 1) + 1;
            (n + 2 * p).checked_sub(span).map(|r| r / s + 1)
        };
        if [
            kernel.0, kernel.1, stride.0, stride.1, dilation.0, dilation.1,
        ]
        .contains(&0)
        {
            return Err(Error::value(
                "kernel size, stride and dilation must be greater than zero",
            ));
        }
        match (
            size(h, kernel.0, stride.0, padding.0, dilation.0),
            size(w, kernel.1, stride.1, padding.1, dilation.1),
        ) {
            (Some(oh), Some(ow)) if oh > 0 && ow > 0 => Ok(Geometry {
                kernel,
                stride,
                padding,
                dilation,
                groups,
                out: (oh, ow),
            }),
            _ => Err(Error::shape(format!(
                "Calculated padded input size per channel: ({} x {}). Kernel size: ({} x {}). \
                 Kernel size can't be greater than actual input size",
                h + 2 * padding.0,
                w + 2 * padding.1,
                dilation.0 * (kernel.0 - 1) + 1,
                dilation.1 * (kernel.1 - 1) + 1
            ))),
        }
    }
}

/// A height and a width (a kernel's, a stride's, a padding's).
pub type Pair = (usize, usize);

/// A convolution's settings: stride, padding, dilation, groups.
pub type ConvSettings = (Pair, Pair, Pair, usize);

/// A pooling's settings: kernel, stride, padding, dilation.
pub type PoolSettings = (Pair, Pair, Pair, Pair);
