//! The ops along one dimension (`kernels/along.cu`, `kernels/sort.cu`) and
//! tril/triu, against `ops::along`, `ops::sort` and `ops::tri`.

use super::*;
use cudash::runtime::cuda::exec_along;
use cudash::runtime::op::along::{Along, AlongOp, Param};
use cudash::runtime::ops::along;
use cudash::runtime::ops::{sort, tri};
use cudash::runtime::shape::reduced_shape;

/// The host's op, planned and computed as the runtime does.
fn along(
    op: AlongOp,
    p: Param,
    t: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
) -> Result<Tensor, cudash::error::Error> {
    let plan = Along::plan((op, p), (t.shape(), t.dtype()), dim, keepdim)?;
    along::along(t, &plan)
}

/// Edge values as [3, 4, 5], and the same seen through a transposed view.
fn inputs(dt: DType, seed: u64) -> [Tensor; 2] {
    let t = edge_values(dt, 60, seed).reshape(&[3, 4, 5]).unwrap();
    [t.copy(), t.transpose(0, 2)]
}

/// As `inputs`, without the special values (no NaN, infinities or
/// overflow): lines whose results are ordinary numbers.
fn tame_inputs(dt: DType, seed: u64) -> [Tensor; 2] {
    let all = edge_values(dt, 84, seed);
    let t = all
        .view(vec![60], vec![1], 24)
        .copy()
        .reshape(&[3, 4, 5])
        .unwrap();
    [t.copy(), t.transpose(0, 2)]
}

/// A last-place difference of `dt`: sums in f64 taken in another order
/// (a block's tree, not a line) may round the other way.
fn one_ulp(dt: DType) -> f64 {
    match dt {
        DType::F16 => 1e-3,
        DType::BF16 => 8e-3,
        DType::F32 => 1.2e-7,
        _ => 1e-13,
    }
}

/// cumsum and cumprod in every dtype along every dim, bit for bit (both
/// accumulate in order, as `at::acc_type` says).
pub fn scans_match_the_simulator(r: &impl Runner) {
    for dt in DType::ALL {
        for t in inputs(dt, 11) {
            for op in [AlongOp::Cumsum, AlongOp::Cumprod] {
                for dim in 0..3 {
                    let want = along(op, 0.0, &t, Some(dim as i64), false).unwrap();
                    let input = r.input(&t);
                    let out = ok(
                        exec_along::along(
                            r,
                            op,
                            0.0,
                            view(&input, &t),
                            Some(dim),
                            t.shape().to_vec(),
                        ),
                        op.name(),
                    );
                    let got = r.download(&out.mem);
                    let what = format!("{dt} {}(dim={dim}) of {:?}", op.name(), t.strides());
                    assert_same(&got, &want.read(), 0.0, &what);
                }
            }
        }
    }
}

/// softmax, log_softmax, var, std (three corrections) and norm (seven
/// orders) in every float dtype, over every dim and all elements.
pub fn softmax_var_and_norm_match_the_simulator(r: &impl Runner) {
    let mut ops: Vec<(AlongOp, f64)> = vec![(AlongOp::Softmax, 0.0), (AlongOp::LogSoftmax, 0.0)];
    for c in [0.0, 1.0, 2.5] {
        ops.push((AlongOp::Var, c));
        ops.push((AlongOp::Std, c));
    }
    for p in [0.0, 1.0, 2.0, 3.0, 0.5, f64::INFINITY, f64::NEG_INFINITY] {
        ops.push((AlongOp::Norm, p));
    }
    for dt in DType::ALL.into_iter().filter(|d| d.is_float()) {
        let [a, b] = inputs(dt, 12);
        let [c, d] = tame_inputs(dt, 12);
        {
            for x in [&a, &b, &c, &d] {
                for &(op, p) in &ops {
                    let dims: Vec<Option<usize>> = if op.reduces() {
                        vec![None, Some(0), Some(1), Some(2)]
                    } else {
                        vec![Some(0), Some(1), Some(2)]
                    };
                    for dim in dims {
                        let want = along(op, p, &on_sim(x), dim.map(|d| d as i64), false).unwrap();
                        let shape = if op.reduces() {
                            reduced_shape(x.shape(), dim, false)
                        } else {
                            x.shape().to_vec()
                        };
                        let input = r.input(x);
                        let out = ok(
                            exec_along::along(r, op, p, view(&input, x), dim, shape),
                            op.name(),
                        );
                        assert_eq!(out.shape, want.shape());
                        let got = r.download(&out.mem);
                        let mut tol = one_ulp(dt).max(math_tolerance(r, dt, true));
                        if op == AlongOp::Norm && dt != DType::F64 {
                            // Summed in f32, in another order: a few f32 roundings.
                            tol = tol.max(2e-6);
                        }
                        if op == AlongOp::LogSoftmax {
                            // x - max - ln(sum): near 0 its error is the sum's, absolute.
                            let (g, w) = (Tensor::new(got, out.shape.clone(), Device::Cpu), &want);
                            for (k, (a, b)) in
                                g.to_vec::<f64>().iter().zip(w.to_vec::<f64>()).enumerate()
                            {
                                let close = (a.is_nan() && b.is_nan())
                                    || a == &b
                                    || (a - b).abs() <= tol * b.abs() + 1e-14;
                                assert!(close, "{dt} log_softmax(dim={dim:?}): element {k}: kernel {a}, simulator {b}");
                            }
                            continue;
                        }
                        let what = format!(
                            "{dt} {}(p={p}, dim={dim:?}) of {:?}",
                            op.name(),
                            x.strides()
                        );
                        assert_same(&got, &want.read(), tol, &what);
                    }
                }
            }
        }
    }
}

/// sort (both ways), topk and tril/triu in every dtype, along every dim of
/// a contiguous tensor and a transposed view, bit for bit: edge values hold
/// many equal elements and NaNs, so stability and NaN's place are checked.
pub fn sorts_and_triangles_match_the_simulator(r: &impl Runner) {
    for dt in DType::ALL {
        for t in inputs(dt, 13) {
            let input = r.input(&t);
            for dim in 0..3 {
                for descending in [false, true] {
                    let (wv, wi) = sort::sort(&t, dim as i64, descending).unwrap();
                    let (v, i) = ok(
                        exec_along::sort(r, view(&input, &t), dim, descending),
                        "sort",
                    );
                    let what = format!(
                        "{dt} sort(dim={dim}, descending={descending}) of {:?}",
                        t.strides()
                    );
                    assert_same(&r.download(&v.mem), &wv.read(), 0.0, &what);
                    assert_same(&r.download(&i.mem), &wi.read(), 0.0, &what);
                }
                if dt != DType::Bool {
                    for largest in [false, true] {
                        let (wv, wi) = sort::topk(&t, 2, dim as i64, largest).unwrap();
                        let (v, i) = ok(
                            exec_along::topk(r, view(&input, &t), 2, dim, largest),
                            "topk",
                        );
                        assert_eq!(v.shape, wv.shape());
                        let what = format!("{dt} topk(2, dim={dim}, largest={largest})");
                        assert_same(&r.download(&v.mem), &wv.read(), 0.0, &what);
                        assert_same(&r.download(&i.mem), &wi.read(), 0.0, &what);
                    }
                }
            }
            for diagonal in [-1, 0, 2] {
                for upper in [false, true] {
                    let want = tri::tri(&t, diagonal, upper).unwrap();
                    let out = ok(exec_along::tri(r, view(&input, &t), diagonal, upper), "tri");
                    let what = format!("{dt} tri(diagonal={diagonal}, upper={upper})");
                    assert_same(&r.download(&out.mem), &want.read(), 0.0, &what);
                }
            }
        }
    }
    // One long line: many merge passes, runs of every width.
    let long = edge_values(DType::F32, 1000, 14);
    let input = r.input(&long);
    let (wv, wi) = sort::sort(&long, 0, false).unwrap();
    let (v, i) = ok(exec_along::sort(r, view(&input, &long), 0, false), "sort");
    assert_same(&r.download(&v.mem), &wv.read(), 0.0, "sort of 1000");
    assert_same(&r.download(&i.mem), &wi.read(), 0.0, "sort of 1000");
}
