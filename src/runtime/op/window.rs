//! Where a convolution's or a pooling's windows lie over an image [N, C, H,
//! W]: the vocabulary of the window ops (`im2col`, `col2im`, `max_pool2d`
//! and its gradient), which the host computes in `ops/window.rs` and a
//! CUDA device in `kernels/window.cu`.

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

impl Geometry {
    /// PyTorch's `ceil_mode=True` for a pooling over `(h, w)`: the output's
    /// size rounded up, a last window kept when it starts inside the image
    /// or its left padding (its places past the edge never count).
    pub fn ceil(mut self, (h, w): (usize, usize)) -> Geometry {
        let size = |n: usize, k: usize, s: usize, p: usize, d: usize| {
            let span = d * (k - 1) + 1;
            let out = (n + 2 * p).saturating_sub(span).div_ceil(s) + 1;
            match (out - 1) * s >= n + p {
                true => out - 1,
                false => out,
            }
        };
        let (k, s, p, d) = (self.kernel, self.stride, self.padding, self.dilation);
        self.out = (size(h, k.0, s.0, p.0, d.0), size(w, k.1, s.1, p.1, d.1));
        self
    }

    /// Output place `(oh, ow)`'s window offset `(i, j)` in the input
    /// (unpadded coordinates; outside the image when it falls in padding).
    pub fn at(&self, (oh, ow): (usize, usize), (i, j): (usize, usize)) -> (isize, isize) {
        (
            (oh * self.stride.0 + i * self.dilation.0) as isize - self.padding.0 as isize,
            (ow * self.stride.1 + j * self.dilation.1) as isize - self.padding.1 as isize,
        )
    }
}

/// `F.unfold`'s and `F.fold`'s windows, each setting (height, width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Windows {
    pub kernel: (usize, usize),
    pub dilation: (usize, usize),
    pub padding: (usize, usize),
    pub stride: (usize, usize),
}

impl Windows {
    /// How many windows fit along each side of an image `(h, w)`, as
    /// PyTorch computes it (negative when none fit).
    pub fn blocks(&self, (h, w): (usize, usize)) -> (i64, i64) {
        let one = |n: usize, k: usize, d: usize, p: usize, s: usize| {
            (n as i64 + 2 * p as i64 - (d as i64 * (k as i64 - 1) + 1)) / s as i64 + 1
        };
        (
            one(
                h,
                self.kernel.0,
                self.dilation.0,
                self.padding.0,
                self.stride.0,
            ),
            one(
                w,
                self.kernel.1,
                self.dilation.1,
                self.padding.1,
                self.stride.1,
            ),
        )
    }

    pub fn geometry(&self, (oh, ow): (i64, i64)) -> Geometry {
        Geometry {
            kernel: self.kernel,
            stride: self.stride,
            padding: self.padding,
            dilation: self.dilation,
            groups: 1,
            out: (oh as usize, ow as usize),
        }
    }

    pub fn check(&self) -> Result<(), Error> {
        let pairs = [
            (self.kernel, "kernel size"),
            (self.dilation, "dilation"),
            (self.stride, "stride"),
        ];
        for ((a, b), what) in pairs {
            if a == 0 || b == 0 {
                return Err(Error::runtime(format!(
                    "{what} should be greater than zero, but got {what}_height: {a} {what}_width: {b}"
                )
                .replace("kernel size_", "kernel_")));
            }
        }
        Ok(())
    }
}

/// One dimension of an adaptive pool's windows (`adaptive_avg_pool2d` to
/// a size that does not divide the input): where each output's window
/// starts and how long it is, PyTorch's `start_index` and `end_index`.
#[derive(Debug, Clone, PartialEq)]
pub struct Spans {
    pub starts: Vec<usize>,
    pub lengths: Vec<usize>,
}

impl Spans {
    /// `out` windows over `input` places.
    pub fn new(input: usize, out: usize) -> Spans {
        let starts: Vec<usize> = (0..out).map(|i| (i * input) / out).collect();
        let lengths = (0..out)
            .map(|i| ((i + 1) * input).div_ceil(out) - starts[i])
            .collect();
        Spans { starts, lengths }
    }

    fn longest(&self) -> usize {
        self.lengths.iter().copied().max().unwrap_or(0)
    }
}

/// An adaptive pool's windows over an image of `input` (height, width).
#[derive(Debug, Clone, PartialEq)]
pub struct AdaptiveWindows {
    pub rows: Spans,
    pub cols: Spans,
    pub input: (usize, usize),
}

impl AdaptiveWindows {
    pub fn new((h, w): (usize, usize), (oh, ow): (usize, usize)) -> AdaptiveWindows {
        AdaptiveWindows {
            rows: Spans::new(h, oh),
            cols: Spans::new(w, ow),
            input: (h, w),
        }
    }

    /// The output's (height, width).
    pub fn out(&self) -> (usize, usize) {
        (self.rows.starts.len(), self.cols.starts.len())
    }

    /// Every offset `(a, b)` inside the largest window, row by row.
    pub fn offsets(&self) -> impl Iterator<Item = (usize, usize)> {
        let kw = self.cols.longest();
        (0..self.rows.longest()).flat_map(move |a| (0..kw).map(move |b| (a, b)))
    }
}
