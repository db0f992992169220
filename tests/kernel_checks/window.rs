//! The window ops (`kernels/window.cu`): im2col, col2im, the max pooling
//! and its gradient, against `ops::window`, bit for bit.

use super::*;
use cudash::runtime::cuda::exec_window;
use cudash::runtime::op::window::Geometry;
use cudash::runtime::ops::window;

type Pair = (usize, usize);
/// Kernel, stride, padding, dilation.
type PoolSettings = (Pair, Pair, Pair, Pair);

/// Kernel, stride, padding, dilation: square and not, overlapping windows,
/// windows a stride apart, padding, dilation.
const GEOMETRIES: [PoolSettings; 5] = [
    ((2, 2), (2, 2), (0, 0), (1, 1)),
    ((3, 3), (1, 1), (1, 1), (1, 1)),
    ((3, 2), (2, 1), (1, 0), (1, 1)),
    ((2, 3), (1, 2), (0, 1), (2, 1)),
    ((3, 3), (3, 2), (1, 1), (1, 2)),
];

/// Images [2, 3, 7, 6] of edge values (NaN, infinities, signed zeros, ties),
/// contiguous and as a view with the height and width swapped.
fn images(dt: DType, seed: u64) -> [Tensor; 2] {
    let t = edge_values(dt, 252, seed).reshape(&[2, 3, 7, 6]).unwrap();
    [
        t.copy(),
        t.copy().reshape(&[2, 3, 6, 7]).unwrap().transpose(2, 3),
    ]
}

pub fn window_ops_match_the_simulator(r: &impl Runner) {
    for dt in DType::ALL {
        for (k, &(kernel, stride, padding, dilation)) in GEOMETRIES.iter().enumerate() {
            let g = Geometry::new((7, 6), kernel, stride, padding, dilation, 1).unwrap();
            for t in images(dt, 20 + k as u64) {
                let input = r.input(&t);
                let what = format!("{dt} {g:?} of {:?}", t.strides());
                let want = window::im2col(&t, &g);
                let got = ok(exec_window::im2col(r, view(&input, &t), &g), "im2col");
                assert_eq!(got.shape, want.shape());
                assert_same(
                    &r.download(&got.mem),
                    &want.read(),
                    0.0,
                    &format!("im2col {what}"),
                );
                if dt.is_float() {
                    let cols = want;
                    let mem = r.input(&cols);
                    let want = ok(window::col2im(&cols, &g, t.shape()), "col2im");
                    let got = ok(
                        exec_window::col2im(r, view(&mem, &cols), &g, t.shape()),
                        "col2im",
                    );
                    assert_same(
                        &r.download(&got.mem),
                        &want.read(),
                        0.0,
                        &format!("col2im {what}"),
                    );
                }
                if dt == DType::Bool {
                    continue;
                }
                let (wv, wi) = ok(window::max_pool2d(&t, &g), "max_pool2d");
                let (v, i) = ok(exec_window::max_pool(r, view(&input, &t), &g), "max_pool");
                assert_same(
                    &r.download(&v.mem),
                    &wv.read(),
                    0.0,
                    &format!("max_pool {what}"),
                );
                assert_same(
                    &r.download(&i.mem),
                    &wi.read(),
                    0.0,
                    &format!("places {what}"),
                );
                if dt.is_float() {
                    let grad = edge_values(dt, wv.numel(), 40 + k as u64)
                        .reshape(&wv.shape().iter().map(|&d| d as i64).collect::<Vec<_>>())
                        .unwrap();
                    let (gm, im) = (r.input(&grad), r.input(&wi));
                    let want = ok(
                        window::max_pool2d_backward(&grad, &wi, t.shape()),
                        "backward",
                    );
                    let got = ok(
                        exec_window::max_pool_backward(
                            r,
                            view(&gm, &grad),
                            view(&im, &wi),
                            &g,
                            t.shape(),
                        ),
                        "max_pool_backward",
                    );
                    let what = format!("max_pool_backward {what}");
                    assert_same(&r.download(&got.mem), &want.read(), 0.0, &what);
                }
            }
        }
    }
}
