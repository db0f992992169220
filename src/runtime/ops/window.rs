//! The window ops on the host (the CPU and the simulator's devices): an
//! image's windows laid out as columns (`im2col`, PyTorch's `unfold`), the
//! columns added back into their places (`col2im`, `fold`), and the max
//! pooling with the places of its maxima and its gradient. Each (image,
//! channel) plane is one piece of work for the threads; `kernels/window.cu`
//! computes the same, element for element, on a CUDA device.

use super::super::buffer::Stored;
use super::super::element::Element;
use super::super::op::window::Geometry;
use super::super::parallel;
use super::super::{DType, Tensor};
use crate::error::Error;
use crate::with_dtype;
use std::cmp::Ordering::Greater;
use std::mem::MaybeUninit;

/// `x` [N, C, H, W]'s windows as columns [N, C * kh * kw, Ho * Wo]: row
/// `(c, i, j)` of an image holds kernel offset `(i, j)` of channel `c` at
/// every output place, zero where the window lies over padding.
pub fn im2col(x: &Tensor, g: &Geometry) -> Tensor {
    let (n, c, h, w) = image(x.shape());
    let (kh, kw) = g.kernel;
    let (oh, ow) = g.out;
    let l = oh * ow;
    let buf = with_dtype!(x.dtype(), T => x.with_slice::<T, _>(|s: &[T]| {
        let total = n * c * kh * kw * l;
        let mut out: Vec<T> = Vec::with_capacity(total);
        let zero = T::default();
        parallel::for_each_part(&mut out.spare_capacity_mut()[..total], kh * kw * l, |plane, part| {
            let src = &s[plane * h * w..][..h * w];
            for (row, cols) in part.chunks_mut(l).enumerate() {
                let (i, j) = (row / kw, row % kw);
                let (x0, x1, iw0) = run(g, j, w);
                for (y, line) in cols.chunks_mut(ow).enumerate() {
                    let Some(ih) = in_height(g, y, i, h) else {
                        line.iter_mut().for_each(|v| { v.write(zero); });
                        continue;
                    };
                    let from = src[ih * w..][..w][iw0..].iter().step_by(g.stride.1);
                    line[..x0].iter_mut().for_each(|v| { v.write(zero); });
                    for (v, &e) in line[x0..x1].iter_mut().zip(from) {
                        v.write(e);
                    }
                    line[x1..].iter_mut().for_each(|v| { v.write(zero); });
                }
            }
        });
        // SAFETY: every element was written above: each line of each row
        // of each plane, its padding with zeros and the rest from `src`.
        unsafe { out.set_len(total) };
        T::into_buffer(out)
    }));
    Tensor::new(buf, vec![n, c * kh * kw, l], x.device())
}

/// Columns [N, C * kh * kw, Ho * Wo] (as `im2col` lays them out) added
/// into the places of an image of `shape` [N, C, H, W] their windows came
/// from, each place summing its columns in the order of the kernel offsets
/// (f16, bf16 and f32 in f32, as PyTorch's CUDA kernel; floats only: a
/// gradient).
pub fn col2im(cols: &Tensor, g: &Geometry, shape: &[usize]) -> Result<Tensor, Error> {
    let (n, c, h, w) = image(shape);
    let (kh, kw) = g.kernel;
    let (oh, ow) = g.out;
    let l = oh * ow;
    let dt = floats_only(cols.dtype(), "col2im")?;
    let buf = with_dtype!(dt, T => cols.with_slice::<T, _>(|s: &[T]| {
        let total = n * c * h * w;
        let mut out: Vec<T> = Vec::with_capacity(total);
        parallel::for_each_part(&mut out.spare_capacity_mut()[..total], h * w, |plane, part| {
            let src = &s[plane * kh * kw * l..][..kh * kw * l];
            let mut acc = Sums::<T>::new(h * w);
            for (row, col) in src.chunks(l).enumerate() {
                let (i, j) = (row / kw, row % kw);
                let (x0, x1, iw0) = run(g, j, w);
                for (y, line) in col.chunks(ow).enumerate() {
                    let Some(ih) = in_height(g, y, i, h) else { continue };
                    let places = (ih * w + iw0..).step_by(g.stride.1);
                    acc.add(places, &line[x0..x1]);
                }
            }
            acc.write(part);
        });
        // SAFETY: each plane's sums were written into all of its part.
        unsafe { out.set_len(total) };
        T::into_buffer(out)
    }));
    Ok(Tensor::new(buf, shape.to_vec(), cols.device()))
}

/// The input row output row `y` reads at kernel row `i`, if inside the image.
fn in_height(g: &Geometry, y: usize, i: usize, h: usize) -> Option<usize> {
    let ih = (y * g.stride.0 + i * g.dilation.0).checked_sub(g.padding.0)?;
    (ih < h).then_some(ih)
}

/// The input column output column `x` reads at kernel column `j`, if
/// inside the image.
fn in_width(g: &Geometry, x: usize, j: usize, w: usize) -> Option<usize> {
    let iw = (x * g.stride.1 + j * g.dilation.1).checked_sub(g.padding.1)?;
    (iw < w).then_some(iw)
}

/// At kernel column `j`, the output places `x0..x1` of a row whose input
/// columns lie inside the image, and the first one's input column `iw0`
/// (the next ones a stride apart).
fn run(g: &Geometry, j: usize, w: usize) -> (usize, usize, usize) {
    let (sw, pw, off) = (g.stride.1, g.padding.1, j * g.dilation.1);
    let x0 = pw.saturating_sub(off).div_ceil(sw);
    let x1 = match w + pw > off {
        true => (w + pw - off).div_ceil(sw).min(g.out.1),
        false => 0,
    };
    match x1 > x0 {
        true => (x0, x1, x0 * sw + off - pw),
        false => (0, 0, 0),
    }
}

/// A plane's running sums: f64 for f64, else f32 (as the kernels sum).
enum Sums<T> {
    F64(Vec<f64>),
    F32(Vec<f32>, std::marker::PhantomData<T>),
}

impl<T: Element> Sums<T> {
    fn new(n: usize) -> Self {
        match T::DTYPE {
            DType::F64 => Sums::F64(vec![0.0; n]),
            _ => Sums::F32(vec![0.0; n], std::marker::PhantomData),
        }
    }

    /// `values` added at `places`, in order.
    fn add(&mut self, places: impl Iterator<Item = usize>, values: &[T]) {
        match self {
            Sums::F64(acc) => {
                for (p, v) in places.zip(values) {
                    acc[p] += v.to_f64();
                }
            }
            Sums::F32(acc, _) => {
                for (p, v) in places.zip(values) {
                    acc[p] += v.to_f64() as f32;
                }
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Sums::F64(acc) => acc.len(),
            Sums::F32(acc, _) => acc.len(),
        }
    }

    fn add_one(&mut self, place: usize, v: T) {
        self.add(std::iter::once(place), &[v]);
    }

    /// The sums, rounded to `T`, into all of `out`.
    fn write(self, out: &mut [MaybeUninit<T>]) {
        assert_eq!(out.len(), self.len(), "a plane's sums fill it");
        match self {
            Sums::F64(acc) => out.iter_mut().zip(acc).for_each(|(o, a)| {
                o.write(T::from_f64(a));
            }),
            Sums::F32(acc, _) => out.iter_mut().zip(acc).for_each(|(o, a)| {
                o.write(T::from_f64(a as f64));
            }),
        }
    }
}

/// Each window's largest element of `x` [N, C, H, W] and where it lies in
/// its plane (`h * W + w`, as PyTorch's `return_indices=True` gives it): as
/// PyTorch's kernel, a window's first element that is larger than all before
/// it, or NaN (so a later NaN moves the place on); padding never counts.
pub fn max_pool2d(x: &Tensor, g: &Geometry) -> Result<(Tensor, Tensor), Error> {
    let (n, c, h, w) = image(x.shape());
    pool_dtype(x.dtype())?;
    let (oh, ow) = g.out;
    let (kh, kw) = g.kernel;
    let mut at = vec![0i64; n * c * oh * ow];
    let values = with_dtype!(x.dtype(), T => x.with_slice::<T, _>(|s: &[T]| {
        parallel::for_each_part(&mut at, oh * ow, |plane, part| {
            let src = &s[plane * h * w..][..h * w];
            for (y, row) in part.chunks_mut(ow).enumerate() {
                // The kernel rows inside the image, then per place the columns.
                let rows: Vec<usize> = (0..kh).filter_map(|i| in_height(g, y, i, h)).collect();
                for (x, place) in row.iter_mut().enumerate() {
                    let mut best: Option<T> = None;
                    for &ih in &rows {
                        for iw in (0..kw).filter_map(|j| in_width(g, x, j, w)) {
                            let v = src[ih * w + iw];
                            let wins = match best {
                                None => true,
                                Some(b) => v.partial_cmp(&b) == Some(Greater) || v.is_nan(),
                            };
                            if wins {
                                best = Some(v);
                                *place = (ih * w + iw) as i64;
                            }
                        }
                    }
                }
            }
        });
        let values: Vec<T> = at
            .chunks(oh * ow)
            .enumerate()
            .flat_map(|(plane, places)| {
                let src = &s[plane * h * w..][..h * w];
                places.iter().map(move |&k| src[k as usize])
            })
            .collect();
        T::into_buffer(values)
    }));
    let shape = vec![n, c, oh, ow];
    Ok((
        Tensor::new(values, shape.clone(), x.device()),
        Tensor::new(T64::into_buffer(at), shape, x.device()),
    ))
}

type T64 = i64;

/// The gradient of `max_pool2d`'s input of `shape` [N, C, H, W]: each
/// window's `grad` added at its maximum's place, window by window in order
/// (f16 and bf16 summed in f32).
pub fn max_pool2d_backward(
    grad: &Tensor,
    places: &Tensor,
    shape: &[usize],
) -> Result<Tensor, Error> {
    let (n, c, h, w) = image(shape);
    let dt = floats_only(grad.dtype(), "max_pool2d_backward")?;
    let per = grad.numel() / (n * c).max(1);
    let buf = places.with_slice::<i64, _>(|at: &[i64]| {
        with_dtype!(dt, T => grad.with_slice::<T, _>(|s: &[T]| {
            let total = n * c * h * w;
            let mut out: Vec<T> = Vec::with_capacity(total);
            parallel::for_each_part(&mut out.spare_capacity_mut()[..total], h * w, |plane, part| {
                let mut acc = Sums::<T>::new(h * w);
                let (gs, ks) = (&s[plane * per..][..per], &at[plane * per..][..per]);
                for (&v, &k) in gs.iter().zip(ks) {
                    if (k as usize) < h * w {
                        acc.add_one(k as usize, v);
                    }
                }
                acc.write(part);
            });
            // SAFETY: each plane's sums were written into all of its part.
            unsafe { out.set_len(total) };
            T::into_buffer(out)
        }))
    });
    Ok(Tensor::new(buf, shape.to_vec(), grad.device()))
}

/// `[N, C, H, W]`.
/// A window op's image `[N, C, H, W]`.
pub fn image(shape: &[usize]) -> (usize, usize, usize, usize) {
    match *shape {
        [n, c, h, w] => (n, c, h, w),
        _ => panic!("internal error: a window op's image is [N, C, H, W], not {shape:?}"),
    }
}

/// What `max_pool2d` takes: every dtype but bool, as PyTorch's.
pub fn pool_dtype(dt: DType) -> Result<(), Error> {
    match dt {
        DType::Bool => Err(Error::dtype(
            "\"max_pool2d\" not implemented for 'Bool'".to_string(),
            None,
        )),
        _ => Ok(()),
    }
}

/// The sums (col2im, the pooling's gradient) take floats.
pub fn floats_only(dt: DType, op: &str) -> Result<DType, Error> {
    match dt.is_float() {
        true => Ok(dt),
        false => Err(Error::dtype(
            format!("\"{op}\" not implemented for '{}'", dt.scalar_name()),
            None,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::ops::factory::from_f64s;
    use crate::runtime::Device;

    fn geom(hw: (usize, usize), k: usize, s: usize, p: usize, d: usize) -> Geometry {
        Geometry::new(hw, (k, k), (s, s), (p, p), (d, d), 1).unwrap()
    }

    #[test]
    fn columns_hold_each_window_with_padding_zero() {
        // one 3x3 image, 2x2 kernel, padding 1, stride 2: output 2x2
        let x = from_f64s(
            (1..=9).map(f64::from).collect(),
            &[1, 1, 3, 3],
            DType::F32,
            Device::Cpu,
        );
        let g = geom((3, 3), 2, 2, 1, 1);
        let cols = im2col(&x, &g);
        assert_eq!(cols.shape(), &[1, 4, 4]);
        assert_eq!(
            cols.to_vec::<f32>(),
            vec![0., 0., 0., 5., 0., 0., 4., 6., 0., 2., 0., 8., 1., 3., 7., 9.]
        );
        // fold adds each column back: every element once here
        let back = col2im(&cols, &g, &[1, 1, 3, 3]).unwrap();
        assert_eq!(
            back.to_vec::<f32>(),
            (1..=9).map(|v| v as f32).collect::<Vec<_>>()
        );
    }

    #[test]
    fn overlapping_windows_add_up_and_maxima_keep_their_places() {
        let x = from_f64s(
            vec![1., 5., 2., 7., 3., 9., 4., 8., 6.],
            &[1, 1, 3, 3],
            DType::F64,
            Device::Cpu,
        );
        let g = geom((3, 3), 2, 1, 0, 1);
        let ones = from_f64s(vec![1.0; 16], &[1, 4, 4], DType::F64, Device::Cpu);
        let counts = col2im(&ones, &g, &[1, 1, 3, 3]).unwrap();
        assert_eq!(
            counts.to_vec::<f64>(),
            vec![1., 2., 1., 2., 4., 2., 1., 2., 1.]
        );
        let (v, at) = max_pool2d(&x, &g).unwrap();
        assert_eq!(v.to_vec::<f64>(), vec![7., 9., 8., 9.]);
        assert_eq!(at.to_vec::<i64>(), vec![3, 5, 7, 5]);
        let gy = from_f64s(
            vec![1., 10., 100., 1000.],
            &[1, 1, 2, 2],
            DType::F64,
            Device::Cpu,
        );
        let gx = max_pool2d_backward(&gy, &at, &[1, 1, 3, 3]).unwrap();
        assert_eq!(
            gx.to_vec::<f64>(),
            vec![0., 0., 0., 1., 0., 1010., 0., 100., 0.]
        );
    }

    #[test]
    fn a_later_nan_moves_the_place_and_padding_never_wins() {
        let nan = f64::NAN;
        let x = from_f64s(
            vec![nan, 1., nan, -5.],
            &[1, 1, 2, 2],
            DType::F32,
            Device::Cpu,
        );
        let (v, at) = max_pool2d(&x, &geom((2, 2), 2, 2, 0, 1)).unwrap();
        assert!(v.to_vec::<f32>()[0].is_nan());
        assert_eq!(at.to_vec::<i64>(), vec![2]);
        let neg = from_f64s(
            vec![-3., -4., -5., -6.],
            &[1, 1, 2, 2],
            DType::I64,
            Device::Cpu,
        );
        let (v, at) = max_pool2d(&neg, &geom((2, 2), 2, 2, 1, 1)).unwrap();
        assert_eq!(v.to_vec::<i64>(), vec![-3, -4, -5, -6]);
        assert_eq!(at.to_vec::<i64>(), vec![0, 1, 2, 3]);
    }
}
