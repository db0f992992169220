//! Reductions and matrix products, plus property tests against naive references.

mod common;

use std::sync::Arc;

use cudash::runtime::op::binary::{BinaryOp, Operand};
use cudash::runtime::op::reduce::ReduceOp;
use cudash::runtime::ops::elementwise::binary;
use cudash::runtime::ops::matmul::matmul;
use cudash::runtime::ops::reduce::reduce;
#[cfg(target_arch = "x86_64")]
use cudash::runtime::ops::Capability;
use cudash::runtime::Tensor;
use proptest::prelude::*;

#[test]
fn reductions() {
    let m = "m = [[1., 5.], [3., 2.]]; ";
    shows!(&format!("{m}m.sum()") => "11.  f32[] @cpu");
    shows!(&format!("{m}m.sum(dim=0)") => "[4., 7.]  f32[2] @cpu");
    shows!(&format!("{m}m.sum(dim=-1, keepdim=true)") => "[[6.],\n [5.]]\nf32[2,1] @cpu");
    shows!(&format!("{m}m.mean(dim=1)") => "[3.0000, 2.5000]  f32[2] @cpu");
    shows!(&format!("{m}max(m)") => "5.  f32[] @cpu");
    shows!(&format!("{m}m.min(dim=0).values") => "[1., 2.]  f32[2] @cpu");
    // With a dim, PyTorch's (values, indices).
    shows!(&format!("{m}v, i = m.max(1); i") => "[1, 0]  i64[2] @cpu");
    shows!(&format!("{m}min(m, 0, keepdim=true)[1]") => "[[0, 1]]  i64[1,2] @cpu");
    shows!(&format!("{m}m.argmax()") => "1  i64[] @cpu");
    shows!(&format!("{m}argmax(m, dim=0)") => "[1, 0]  i64[2] @cpu");
    shows!("[1, 2, 3].sum()" => "6  i64[] @cpu");
    shows!("[true, true, false].sum()" => "2  i64[] @cpu");
    shows!("ones(0).sum()" => "0.  f32[] @cpu");
}

#[test]
fn reduction_errors() {
    let (class, msg) = common::err("[1, 2].mean()");
    assert_eq!(class, "DTypeError");
    assert!(msg.contains("floating point"), "{msg}");
    let (_, msg) = common::err("ones(0).max()");
    assert!(msg.contains("size 0"), "{msg}");
    let (_, msg) = common::err("ones(2, 2).sum(dim=2)");
    assert!(msg.contains("out of range"), "{msg}");
}

#[test]
fn matmul_shapes() {
    shows!("(ones(2, 3) @ ones(3, 4)).shape" => "[2, 4]");
    shows!("(ones(3) @ ones(3))" => "3.  f32[] @cpu");
    shows!("(ones(3) @ ones(3, 2)).shape" => "[2]");
    shows!("(ones(2, 3) @ ones(3)).shape" => "[2]");
    shows!("(ones(5, 2, 3) @ ones(3, 4)).shape" => "[5, 2, 4]");
    shows!("(ones(5, 1, 2, 3) @ ones(4, 3, 2)).shape" => "[5, 4, 2, 2]");
    shows!("[[1, 2], [3, 4]] @ [[5], [6]]" => "[[17],\n [39]]\ni64[2,1] @cpu");
    shows!("(ones(2, 3, dtype=f16) @ ones(3, 2, dtype=f16)).dtype" => "f16");
    let (class, msg) = common::err("ones(2, 3) @ ones(2, 3)");
    assert_eq!(class, "ShapeError");
    assert!(msg.contains("do not line up"), "{msg}");
}

#[test]
fn matmul_uses_strides_without_copies() {
    // x @ x.T with a transposed view must equal the explicit copy.
    let a: f64 = common::ok("seed(1); x = randn(7, 5); (x @ x.T).sum().item()")
        .parse()
        .unwrap();
    let b: f64 = common::ok("seed(1); x = randn(7, 5); (x @ x.T.contiguous()).sum().item()")
        .parse()
        .unwrap();
    assert!((a - b).abs() < 1e-4 * a.abs(), "{a} vs {b}");
}

#[test]
fn cat_and_stack() {
    shows!("cat([ones(2), zeros(1)])" => "[1., 1., 0.]  f32[3] @cpu");
    shows!("cat([ones(1, 2), zeros(1, 2)], dim=1)" => "[[1., 1., 0., 0.]]  f32[1,4] @cpu");
    shows!("stack([ones(2), zeros(2)]).shape" => "[2, 2]");
    shows!("stack([ones(2), zeros(2)], dim=1)" => "[[1., 0.],\n [1., 0.]]\nf32[2,2] @cpu");
    let (_, msg) = common::err("cat([ones(2, 2), ones(3, 3)])");
    assert!(msg.contains("differ outside dimension 0"), "{msg}");
}

// ---- property tests against naive references ----

fn shape_strategy() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..4, 0..4)
}

/// A shape that broadcasts with `s`: each dim kept, set to 1, or dropped from the left.
fn broadcast_partner(s: Vec<usize>) -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    let n = s.len();
    (prop::collection::vec(any::<bool>(), n), 0..=n).prop_map(move |(ones, drop)| {
        let other: Vec<usize> = s
            .iter()
            .zip(&ones)
            .map(|(&d, &one)| if one { 1 } else { d })
            .skip(drop)
            .collect();
        (s.clone(), other)
    })
}

fn tensor(shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((i as u64 * 7919 + seed * 104729) % 17) as f64 - 8.0)
        .collect();
    Tensor::from_vec(v, shape.to_vec())
}

fn index_of(idx: &[usize], shape: &[usize]) -> usize {
    // Row-major index into `shape`, reading broadcast dims (size 1) at 0 and aligning from the right.
    let lead = idx.len() - shape.len();
    let mut flat = 0;
    for (k, &d) in shape.iter().enumerate() {
        let i = if d == 1 { 0 } else { idx[lead + k] };
        flat = flat * d + i;
    }
    flat
}

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        idx[k] = i % shape[k];
        i /= shape[k];
    }
    idx
}

proptest! {
    #[test]
    fn broadcasting_matches_naive((sa, sb) in shape_strategy().prop_flat_map(broadcast_partner), swap in any::<bool>()) {
        let (sa, sb) = if swap { (sb, sa) } else { (sa, sb) };
        let (a, b) = (tensor(&sa, 1), tensor(&sb, 2));
        let out = binary(BinaryOp::Sub, Operand::strong(&a), Operand::strong(&b)).unwrap();
        let (va, vb, vo) = (a.to_vec::<f64>(), b.to_vec::<f64>(), out.to_vec::<f64>());
        for (i, &o) in vo.iter().enumerate() {
            let idx = unravel(i, out.shape());
            prop_assert_eq!(o, va[index_of(&idx, &sa)] - vb[index_of(&idx, &sb)]);
        }
    }

    #[test]
    fn sum_over_dim_matches_naive(shape in prop::collection::vec(1usize..5, 1..4), d in 0usize..3, keep in any::<bool>()) {
        let d = d % shape.len();
        let t = tensor(&shape, 3);
        let out = reduce(ReduceOp::Sum, &t, Some(d as i64), keep).unwrap();
        let v = t.to_vec::<f64>();
        let mut want = std::collections::BTreeMap::<Vec<usize>, f64>::new();
        for (i, x) in v.iter().enumerate() {
            let mut idx = unravel(i, &shape);
            idx[d] = 0;
            *want.entry(idx).or_default() += x;
        }
        let got = out.to_vec::<f64>();
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want.values()) {
            prop_assert!((g - w).abs() < 1e-9);
        }
        let mut expect_shape = shape.clone();
        if keep { expect_shape[d] = 1 } else { expect_shape.remove(d); }
        prop_assert_eq!(out.shape(), expect_shape.as_slice());
    }

    #[test]
    fn max_and_argmax_agree(n in 1usize..200, seed in 0u64..1000) {
        let t = tensor(&[n], seed);
        let m = reduce(ReduceOp::Max, &t, None, false).unwrap().to_vec::<f64>()[0];
        let i = reduce(ReduceOp::Argmax, &t, None, false).unwrap().to_vec::<i64>()[0];
        let v = t.to_vec::<f64>();
        prop_assert_eq!(v[i as usize], m);
        prop_assert!(v.iter().all(|&x| x <= m));
    }

    #[test]
    fn matmul_matches_naive(m in 1usize..9, k in 0usize..9, n in 1usize..9, transpose in any::<bool>()) {
        let a = tensor(&[m, k], 5);
        let b = if transpose { tensor(&[n, k], 6).t() } else { tensor(&[k, n], 6) };
        let out = matmul(&a, &b).unwrap();
        let (va, vb, vo) = (a.to_vec::<f64>(), b.to_vec::<f64>(), out.to_vec::<f64>());
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k).map(|p| va[i * k + p] * vb[p * n + j]).sum();
                prop_assert!((vo[i * n + j] - want).abs() < 1e-9);
            }
        }
    }
}

#[test]
fn large_f32_sum_is_accurate() {
    let t = Tensor::from_vec(vec![0.1f32; 1 << 22], vec![1 << 22]);
    let s = reduce(ReduceOp::Sum, &t, None, false)
        .unwrap()
        .to_vec::<f64>()[0];
    let want = 0.1f32 as f64 * (1 << 22) as f64;
    assert!((s - want).abs() / want < 1e-6, "{s} vs {want}");
    let _ = Arc::new(t);
}

#[test]
fn argmin_lists_of_dims_and_dtype_as_pytorch() {
    shows!("argmin(tensor([3, 1, 4, 1]))" => "1  i64[] @cpu");
    shows!("tensor([[3., 0.], [-1., 5.]]).argmin(dim=0)" => "[1, 0]  i64[2] @cpu");
    shows!("ones(2, 3, 4).sum(dim=(0, 2))" => "[8., 8., 8.]  f32[3] @cpu");
    shows!("ones(2, 3, 4).sum([2, 0], keepdim=true).shape" => "[1, 3, 1]");
    shows!("arange(4).mean(dtype=f64)" => "1.5000  f64[] @cpu");
    shows!("tensor([true, true]).sum(dtype=i32)" => "2  i32[] @cpu");
    shows!("zeros((2, 3)).shape" => "[2, 3]");
    shows!("prod(tensor([1, 2, 3, 4]))" => "24  i64[] @cpu");
    shows!("tensor([[1., 2.], [3., 4.]]).prod(dim=1)" => "[ 2., 12.]  f32[2] @cpu");
    shows!("tensor([true, false]).prod()" => "0  i64[] @cpu");
    shows!("dot([1., 2.], [3., 4.])" => "11.  f32[] @cpu");
    shows!("pow(2, tensor([2, 3]))" => "[4, 8]  i64[2] @cpu");
    let (_, msg) = common::err("dot(ones(2, 2), ones(2, 2))");
    assert!(msg.contains("1D tensors expected"), "{msg}");
    let (_, msg) = common::err("argmin(tensor([true]))");
    assert!(
        msg.contains("argmin() is not implemented for bool"),
        "{msg}"
    );
    let (_, msg) = common::err("ones(2, 2).sum((1, -1))");
    assert!(msg.contains("appears multiple times"), "{msg}");
    let (_, msg) = common::err("ones(2, 2).max((0, 1))");
    assert!(msg.contains("one int"), "{msg}");
}

/// Values both sides can make: `((k * 2654435761) % 1000003) / 1000003 * 4 - 2`
/// in f64, rounded to the dtype.
fn spread(n: usize) -> Vec<f64> {
    (0..n as u64)
        .map(|k| ((k * 2_654_435_761) % 1_000_003) as f64 / 1_000_003.0 * 4.0 - 2.0)
        .collect()
}

fn spread_tensor(shape: &[usize], dt: cudash::runtime::DType) -> Tensor {
    spread_near_one(shape, dt, None)
}

/// `spread`, or `spread / div + 1` (factors near 1, for products).
fn spread_near_one(shape: &[usize], dt: cudash::runtime::DType, div: Option<f64>) -> Tensor {
    let n = shape.iter().product();
    let v = spread(n);
    let v = match div {
        Some(d) => v.iter().map(|x| x / d + 1.0).collect(),
        None => v,
    };
    cudash::runtime::ops::factory::from_f64s(v, shape, dt, cudash::runtime::Device::Cpu)
}

/// The bits of every element, widened to u64.
fn bits(t: &Tensor) -> Vec<u64> {
    use cudash::runtime::DType;
    match t.dtype() {
        DType::F64 => t.to_vec::<f64>().iter().map(|x| x.to_bits()).collect(),
        DType::F32 => t
            .to_vec::<f32>()
            .iter()
            .map(|x| x.to_bits() as u64)
            .collect(),
        DType::F16 => t
            .to_vec::<half::f16>()
            .iter()
            .map(|x| x.to_bits() as u64)
            .collect(),
        _ => t
            .to_vec::<half::bf16>()
            .iter()
            .map(|x| x.to_bits() as u64)
            .collect(),
    }
}

/// Runs `check` as the bits it holds were measured: on two threads
/// (PyTorch's chunks follow its thread count) and, where its kernels'
/// register width depends on the CPU (softmax, pow, sigmoid: registered for
/// AVX-512 too), under `capability`; `None` for sum, prod and norm, whose
/// kernels are AVX2's on every x86 CPU. Where this process models another
/// capability, the test `name` runs again in a child process with
/// `ATEN_CPU_CAPABILITY` set, the variable PyTorch and cudash both read.
/// Where cudash's loops run in AVX-512 registers, it runs once more with
/// them built for AVX2 (`CUDASH_ISA`), so that such a CPU tests both builds.
#[cfg(target_arch = "x86_64")]
fn as_pytorch_measured(name: &str, capability: Option<Capability>, check: impl FnOnce() + Send) {
    use cudash::runtime::ops::{capability as current, Isa};
    let wanted = capability.unwrap_or_else(current);
    if wanted != current() {
        return in_avx2_child(name, wanted);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(check);
    if Isa::of_cpu() == Isa::Avx512 {
        in_avx2_child(name, wanted);
    }
}

/// Runs the test `name` in a child process under `capability`, with
/// cudash's loops built for AVX2.
#[cfg(target_arch = "x86_64")]
fn in_avx2_child(name: &str, capability: Capability) {
    use cudash::runtime::ops::capability_name;
    let isa = "avx2";
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--test-threads=1"])
        .env("ATEN_CPU_CAPABILITY", capability_name(capability))
        .env("CUDASH_ISA", isa)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} under ATEN_CPU_CAPABILITY={} CUDASH_ISA={isa}:\n{stdout}\n{}",
        capability_name(capability),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What PyTorch 2.15's CPU build (AVX2, 2 threads) gave for the same sums
/// of `spread`: its order of additions (vector lanes, four levels of
/// cascade, rows or columns by stride, a chunk per thread past 32,768
/// elements, f16 in f32 where partial sums would be rounded) to the bit.
#[test]
#[cfg(target_arch = "x86_64")]
fn sums_add_in_pytorchs_order() {
    use cudash::runtime::ops::reduce::reduce_dims;
    use cudash::runtime::DType;
    as_pytorch_measured("sums_add_in_pytorchs_order", None, || {
        let sum =
            |t: &Tensor, dim: Option<i64>| bits(&reduce(ReduceOp::Sum, t, dim, false).unwrap());
        assert_eq!(
            sum(&spread_tensor(&[100_003], DType::F32), None),
            [0x41a7e56e]
        );
        assert_eq!(
            sum(&spread_tensor(&[2_100_001], DType::F32), None),
            [0x418699b6]
        );
        let a = spread_tensor(&[37, 45], DType::F32);
        assert_eq!(
            sum(&a, Some(0))[..6],
            [0xc18ce0bc, 0x411b44ee, 0x3f825aa2, 0xc13aae46, 0x417a5821, 0x403d7a16]
        );
        let rows = [
            0x41014368, 0x3f9ec776, 0xbfcc8c5e, 0xc106fc06, 0x410b9980, 0x3ff1782d,
        ];
        assert_eq!(sum(&a, Some(1))[..6], rows);
        assert_eq!(
            sum(&a.t(), Some(0))[..6],
            rows,
            "the same sums through a transpose"
        );
        let long = spread_tensor(&[70_001, 40], DType::F64);
        assert_eq!(
            sum(&long, Some(0))[..6],
            [
                0xc021cdafb969f180,
                0x40205718974dc1de,
                0x4014f7c1d00aeaca,
                0x4024a0a938bd28bb,
                0x400b15c625d370ed,
                0xc01e2b8c4ba6e0b9
            ]
        );
        let h = spread_tensor(&[5, 7, 2000], DType::F16);
        assert_eq!(
            bits(&reduce_dims(ReduceOp::Sum, &h, &[0, 2], false).unwrap()),
            [0xc858, 0xc75d, 0x48fb, 0x4ba7, 0x484f, 0x3fd2, 0xc85c]
        );
        assert_eq!(sum(&spread_tensor(&[1000], DType::F16), None), [0x49eb]);
        let b = spread_tensor(&[1000], DType::BF16);
        assert_eq!(sum(&b, None), [0x413d]);
        assert_eq!(
            bits(&reduce(ReduceOp::Mean, &b, None, false).unwrap()),
            [0x3c42]
        );
    });
}

/// As `sums_add_in_pytorchs_order`, for `prod`: products in the dtype, four
/// vectors side by side along rows, vectors of columns down columns, a
/// chunk per thread past 32,768 elements (PyTorch 2.15, AVX2, 2 threads).
#[test]
#[cfg(target_arch = "x86_64")]
fn products_multiply_in_pytorchs_order() {
    use cudash::runtime::DType;
    as_pytorch_measured("products_multiply_in_pytorchs_order", None, || {
        let prod =
            |t: &Tensor, dim: Option<i64>| bits(&reduce(ReduceOp::Prod, t, dim, false).unwrap());
        let a = spread_near_one(&[37, 70], DType::F32, Some(4.0));
        let rows = [0x3ed6b440, 0x3caf9429, 0x3cc15b40, 0x3e9a4add];
        assert_eq!(prod(&a, Some(1))[..4], rows);
        assert_eq!(
            prod(&a.t(), Some(0))[..4],
            rows,
            "the same products through a transpose"
        );
        assert_eq!(
            prod(&a, Some(0))[..4],
            [0x3dcb8a49, 0x3e7fdca9, 0x3e52a915, 0x3e2fe5f4]
        );
        let big = spread_near_one(&[300, 130], DType::F32, Some(64.0));
        assert_eq!(prod(&big, None), [0x3b16fea0]);
        let h = spread_near_one(&[37, 70], DType::F16, Some(4.0));
        assert_eq!(prod(&h, Some(0))[..4], [0x2e5d, 0x3402, 0x3293, 0x317f]);
        let d = spread_near_one(&[37, 70], DType::F64, Some(4.0));
        assert_eq!(prod(&d, None), [0x357607ce017e0fd9]);
    });
}

/// What PyTorch 2.15's CPU build (AVX2, 2 threads) gave for softmax and
/// log_softmax of `spread` times a scale: SLEEF's exp and log in vector
/// lanes and libm's in the tails (columns 8, 9, 18 and 19 of the second
/// case, the last two of the third), a thread's chunk ending mid-register,
/// f16 and bf16 rounded where the kernels store them.
#[test]
#[cfg(target_arch = "x86_64")]
fn softmax_rounds_as_pytorchs_cpu_kernels() {
    use cudash::runtime::op::along::AlongOp;
    use cudash::runtime::DType;
    let scaled = |shape: &[usize], dt: DType, scale: f64| {
        let v = spread(shape.iter().product())
            .iter()
            .map(|x| x * scale)
            .collect();
        cudash::runtime::ops::factory::from_f64s(v, shape, dt, cudash::runtime::Device::Cpu)
    };
    let run = |op, t: &Tensor, dim: i64, row: usize| {
        let y = along(op, 0.0, t, Some(dim), false).unwrap();
        let width = t.shape()[1];
        bits(&y)[row * width..(row + 1) * width].to_vec()
    };
    as_pytorch_measured(
        "softmax_rounds_as_pytorchs_cpu_kernels",
        Some(Capability::Avx2),
        || {
            let a = scaled(&[3, 13], DType::F32, 8.0);
            assert_eq!(
                run(AlongOp::Softmax, &a, 1, 0),
                [
                    0x2884c3e6, 0x325f4135, 0x3c3bb5ac, 0x2f0ca580, 0x38ec81f6, 0x2bb135a6,
                    0x3594fee0, 0x3f7a8c1f, 0x323bbac1, 0x3c1dd72b, 0x2eec8850, 0x38c6dfa3,
                    0x2b9502f3
                ]
            );
            let b = scaled(&[5, 20], DType::F32, 8.0);
            assert_eq!(
                run(AlongOp::Softmax, &b, 0, 0),
                [
                    0x300bd777, 0x32a14ded, 0x3cddee96, 0x300bd777, 0x3a459b26, 0x300bd777,
                    0x3a459b20, 0x3f7ffe5e, 0x32a14ded, 0x3cddee96, 0x300bd777, 0x3a459b26,
                    0x300bd777, 0x3a459b2d, 0x3f7ffe5e, 0x32a14ded, 0x3cddee89, 0x300bd777,
                    0x3a459b2d, 0x300bd777
                ]
            );
            let c = scaled(&[4, 6], DType::F64, 8.0);
            assert_eq!(
                run(AlongOp::LogSoftmax, &c, 0, 0),
                [
                    0xc0366ce121a61728,
                    0xc032231d15d266c8,
                    0xc0112710af5233f3,
                    0xc0366ce121a61728,
                    0xc0112710af5233f7,
                    0xc0366ce121a61728
                ]
            );
            let h = scaled(&[2, 21], DType::F16, 8.0);
            assert_eq!(
                run(AlongOp::LogSoftmax, &h, 1, 0),
                [
                    0xd00f, 0xccb1, 0xc512, 0xcdd9, 0xc8d9, 0xcf01, 0xcb29, 0xb904, 0xccbc, 0xc540,
                    0xcde4, 0xc8ef, 0xcf0c, 0xcb3f, 0xba64, 0xccc7, 0xc56c, 0xcdef, 0xc906, 0xcf17,
                    0xcb55
                ]
            );
            let g = scaled(&[3, 40], DType::BF16, 8.0);
            assert_eq!(
                run(AlongOp::Softmax, &g, 0, 0)[14..22],
                [0x3f80, 0x3a47, 0x3ce2, 0x3a45, 0x3a46, 0x3a4d, 0x3a48, 0x3f80]
            );
            let l = scaled(&[2, 11], DType::F32, 20.0);
            assert_eq!(
                run(AlongOp::LogSoftmax, &l, 1, 1),
                [
                    0xc1b95eb9, 0xc289e516, 0xc20ae4fb, 0xbeffe5b2, 0xc2391a9b, 0xc140d5aa,
                    0xc2675039, 0xc1bcd614, 0xc28ac2ed, 0xc20ca0a9, 0xbf6ede19
                ]
            );
        },
    );
}

/// What PyTorch 2.15's CPU build (AVX2, 2 threads) gave for `**` and
/// sigmoid: SLEEF's pow and exp in pairs of registers (the first 32 of 37
/// f32s, 8 of 11 f64s, 32 of 40 f16s or bf16s), libm's after them; f32's
/// scalar path raising to the number in f64; a transposed tensor split in
/// its memory order (the last 8 of its 120 elements one by one).
#[test]
#[cfg(target_arch = "x86_64")]
fn pow_and_sigmoid_round_as_pytorchs_cpu_kernels() {
    use cudash::runtime::op::unary::UnaryOp;
    use cudash::runtime::ops::elementwise::unary;
    use cudash::runtime::DType;
    // `spread`, scaled, through f32 (so every dtype rounds it once).
    let t = |n: usize, dt: DType, f: fn(f64) -> f64| {
        let v = spread(n).iter().map(|&x| f(x) as f32 as f64).collect();
        cudash::runtime::ops::factory::from_f64s(v, &[n], dt, cudash::runtime::Device::Cpu)
    };
    let pos = |x: f64| (x + 2.5) * 3.0;
    let pow = |x: &Tensor, e: f64| {
        let e = Tensor::scalar(e);
        bits(&binary(BinaryOp::Pow, Operand::strong(x), Operand::weak(&e)).unwrap())
    };
    let sigmoid = |x: &Tensor| bits(&unary(UnaryOp::Sigmoid, x).unwrap());
    as_pytorch_measured(
        "pow_and_sigmoid_round_as_pytorchs_cpu_kernels",
        Some(Capability::Avx2),
        || {
            assert_eq!(pow(&t(37, DType::F32, pos), 2.5), P32);
            let (x, y) = (t(37, DType::F32, pos), t(37, DType::F32, |x| x * 3.0));
            let xy = binary(BinaryOp::Pow, Operand::strong(&x), Operand::strong(&y)).unwrap();
            assert_eq!(bits(&xy), TT32);
            assert_eq!(pow(&t(11, DType::F64, pos), 0.1), P64);
            assert_eq!(pow(&t(40, DType::BF16, pos), 1.7), BF);
            assert_eq!(pow(&t(40, DType::F16, pos), 0.5), H);
            assert_eq!(sigmoid(&t(20, DType::F32, |x| x * 8.0)), S32);
            assert_eq!(sigmoid(&t(11, DType::F64, |x| x * 8.0)), S64);
            assert_eq!(sigmoid(&t(40, DType::BF16, |x| x * 8.0)), SBF);
            let m = t(120, DType::F32, pos).reshape(&[6, 20]).unwrap().t();
            let r = pow(&m, 2.5);
            let last: Vec<u64> = (12..20).map(|i| r[i * 6 + 5]).collect();
            assert_eq!(last, T);
        },
    );
}

/// PyTorch's bits for `pow_and_sigmoid_round_as_pytorchs_cpu_kernels`.
const P32: [u64; 37] = [
    0x40305cff, 0x42e2ac25, 0x43ed7dc9, 0x4254abe5, 0x439f790a, 0x418ee42f, 0x43468e55, 0x44256656,
    0x42dd2941, 0x43ea39c4, 0x424db0c2, 0x439ce731, 0x4187acc3, 0x4342b14a, 0x4423681d, 0x42d7bb29,
    0x43e6fcaf, 0x4246d94e, 0x439a5bbe, 0x4180ae7b, 0x433edfe2, 0x44216d99, 0x42d261bd, 0x43e3c688,
    0x42402543, 0x4397d6af, 0x4173d178, 0x433b1a16, 0x441f76ca, 0x42cd1ce5, 0x43e09744, 0x42399469,
    0x439557fa, 0x4166b5da, 0x43375fd1, 0x441d83a9, 0x42c7ec89,
];
const TT32: [u64; 37] = [
    0x3db3cc07, 0x3e46c0f8, 0x4710b33f, 0x3c83960e, 0x43ac984b, 0x3bddd9d9, 0x40ae7fa7, 0x4a979551,
    0x3e315fe2, 0x46f0e219, 0x3c75f042, 0x4392353e, 0x3be17a04, 0x40973239, 0x4a78e1be, 0x3e1e835d,
    0x46c89e6b, 0x3c66588a, 0x4377e4f6, 0x3be63ae5, 0x4083224a, 0x4a4c6af4, 0x3e0ddb0c, 0x46a72f34,
    0x3c583bdb, 0x43524f12, 0x3bec3878, 0x4063b171, 0x4a27fb1f, 0x3dfe4214, 0x468b67e3, 0x3c4b75a3,
    0x43328ea0, 0x3bf39552, 0x4045dff2, 0x4a0a1ba3, 0x3de43107,
];
const P64: [u64; 11] = [
    0x3ff0a97dce72a0cb,
    0x3ff355324d57b827,
    0x3ff47927d9f85af1,
    0x3ff2c1996d459134,
    0x3ff42652ef524bd5,
    0x3ff1f4994172948b,
    0x3ff3c5742506b771,
    0x3ff4bf174a7dfefa,
    0x3ff35053776e3cb7,
    0x3ff47640f08393d0,
    0x3ff2bb317907b2bd,
];
const BF: [u64; 40] = [
    0x3fff, 0x41c8, 0x4285, 0x4170, 0x424c, 0x40e5, 0x4213, 0x42a7, 0x41c5, 0x4284, 0x416b, 0x424a,
    0x40dd, 0x4212, 0x42a6, 0x41c2, 0x4282, 0x4166, 0x4246, 0x40d4, 0x4210, 0x42a4, 0x41bf, 0x4281,
    0x4161, 0x4244, 0x40cc, 0x420e, 0x42a3, 0x41bc, 0x4280, 0x415c, 0x4241, 0x40c5, 0x420c, 0x42a2,
    0x41b8, 0x427e, 0x4154, 0x423f,
];
const H: [u64; 40] = [
    0x3ce6, 0x4127, 0x42dc, 0x406e, 0x4256, 0x3f1f, 0x41c3, 0x4355, 0x4120, 0x42d8, 0x4066, 0x4251,
    0x3f0c, 0x41bd, 0x4350, 0x411a, 0x42d3, 0x405e, 0x424b, 0x3ef9, 0x41b8, 0x434c, 0x4113, 0x42ce,
    0x4057, 0x4246, 0x3ee6, 0x41b2, 0x4347, 0x410d, 0x42c9, 0x404f, 0x4241, 0x3ed2, 0x41ac, 0x4342,
    0x4106, 0x42c4, 0x4047, 0x423c,
];
const S32: [u64; 20] = [
    0x33f1aadb, 0x3db8d9df, 0x3f7fff40, 0x3a7fc37e, 0x3f7fb3f9, 0x37214851, 0x3f64fb86, 0x3f7ffffe,
    0x3d9db3a5, 0x3f7fff1c, 0x3a57194f, 0x3f7fa59c, 0x37079e67, 0x3f607fba, 0x3f7ffffe, 0x3d8640a5,
    0x3f7ffef0, 0x3a34e51d, 0x3f7f9487, 0x36e413c2,
];
const S64: [u64; 11] = [
    0x3e7e355b81e5bc48,
    0x3fb71b3bc90d0b9e,
    0x3fefffe80650ec33,
    0x3f4ff86fbf1c4894,
    0x3feff67f241a1210,
    0x3ee4290a263dcc18,
    0x3fec9f70c8217ca3,
    0x3fefffffb8266c69,
    0x3fb3b6749542b6da,
    0x3fefffe37cdc2c91,
    0x3f4ae329eba7cf38,
];
const SBF: [u64; 40] = [
    0x33f2, 0x3db9, 0x3f80, 0x3a7e, 0x3f80, 0x3720, 0x3f65, 0x3f80, 0x3d9e, 0x3f80, 0x3a59, 0x3f80,
    0x3704, 0x3f60, 0x3f80, 0x3d86, 0x3f80, 0x3a34, 0x3f80, 0x36ea, 0x3f5b, 0x3f80, 0x3d65, 0x3f80,
    0x3a1a, 0x3f80, 0x36c2, 0x3f56, 0x3f80, 0x3d42, 0x3f80, 0x3a00, 0x3f7f, 0x36a1, 0x3f4f, 0x3f80,
    0x3d25, 0x3f80, 0x39d4, 0x3f7f,
];
const T: [u64; 8] = [
    0x44090218, 0x4294017a, 0x43bc72ec, 0x41ea5037, 0x43729fa8, 0x40d362ca, 0x430e1812, 0x44073a86,
];

/// What PyTorch 2.15's AVX-512 build (2 threads) gave where its kernels
/// are registered for AVX-512 (softmax, log_softmax, pow, sigmoid): 16 f32
/// lanes, so other elements take SLEEF's math and other lanes sum a row
/// than under AVX2 (each case differs from AVX2's bits in some elements).
/// Sums, products and norms are AVX2's kernels there too (the tests above).
#[test]
#[cfg(target_arch = "x86_64")]
fn avx512_kernels_round_as_pytorchs() {
    use cudash::runtime::op::along::AlongOp;
    use cudash::runtime::op::unary::UnaryOp;
    use cudash::runtime::ops::elementwise::unary;
    use cudash::runtime::DType;
    // `spread` times `scale`, or through f32 with `f`, rounded to `dt`.
    let make = |shape: &[usize], dt: DType, f: &dyn Fn(f64) -> f64| {
        let v = spread(shape.iter().product()).into_iter().map(f).collect();
        cudash::runtime::ops::factory::from_f64s(v, shape, dt, cudash::runtime::Device::Cpu)
    };
    let along_bits = |op, t: &Tensor, dim: i64| bits(&along(op, 0.0, t, Some(dim), false).unwrap());
    as_pytorch_measured(
        "avx512_kernels_round_as_pytorchs",
        Some(Capability::Avx512),
        || {
            let a = make(&[3, 70], DType::F32, &|x| x * 8.0);
            assert_eq!(
                along_bits(AlongOp::Softmax, &a, 1)[..16],
                [
                    0x2757fac0, 0x313597c7, 0x3b18ae51, 0x2de4ccf1, 0x37c05f68, 0x2a9023e9,
                    0x347261f9, 0x3e4bcadb, 0x3118b274, 0x3b0062bd, 0x2dc06492, 0x37a1c2f4,
                    0x2a72689a, 0x344bd054, 0x3e2b5d2b, 0x31006628
                ]
            );
            let b = make(&[2, 21], DType::F64, &|x| x * 8.0);
            assert_eq!(
                along_bits(AlongOp::LogSoftmax, &b, 1)[..21],
                [
                    0xc0403a012e60d875,
                    0xc032c37d867d88cc,
                    0xc0144be2c0e582b3,
                    0xc0376273d9f5388e,
                    0xc02363de076220dd,
                    0xc03c016a2d6ce850,
                    0xc02ca1caae518061,
                    0xbfe40c101c930237,
                    0xc032efdbaaa06ff2,
                    0xc014fd5b51711f4f,
                    0xc0378ed1fe181fb4,
                    0xc023bc9a4fa7ef2b,
                    0xc03c2dc8518fcf76,
                    0xc02cfa86f6974eaf,
                    0xbfe997d4a0efe717,
                    0xc0331c39cec3571a,
                    0xc015aed3e1fcbbe7,
                    0xc037bb30223b06dc,
                    0xc024155697edbd77,
                    0xc03c5a2675b2b69d,
                    0xc02d53433edd1cfb
                ]
            );
            let c = make(&[5, 20], DType::F32, &|x| x * 8.0);
            assert_eq!(
                along_bits(AlongOp::Softmax, &c, 0)[20..40],
                [
                    0x3cddee8f, 0x3f7ffe5e, 0x329cf030, 0x3cddee89, 0x300bbc81, 0x3cddee96,
                    0x300bbc81, 0x35350663, 0x3f7ffe5e, 0x329cf030, 0x3cddee96, 0x300bbc81,
                    0x3cddee8f, 0x300bbc81, 0x35350663, 0x3f7ffe5e, 0x329cf030, 0x3cddee89,
                    0x300bbc81, 0x3cddee8f
                ]
            );
            let h = make(&[2, 40], DType::F16, &|x| x * 8.0);
            assert_eq!(
                along_bits(AlongOp::Softmax, &h, 0)[..16],
                [
                    0x26f4, 0x26f0, 0x26f4, 0x26f1, 0x26f4, 0x26ee, 0x26ee, 0x3c00, 0x26ee, 0x26e7,
                    0x26ee, 0x26f4, 0x26f4, 0x26ec, 0x3c00, 0x26f1
                ]
            );
            let x = make(&[20], DType::F32, &|x| ((x + 2.5) * 3.0) as f32 as f64);
            let e = Tensor::scalar(1.7);
            let p = binary(BinaryOp::Pow, Operand::strong(&x), Operand::weak(&e)).unwrap();
            assert_eq!(
                bits(&p),
                [
                    0x3fff03bf, 0x41c78ddb, 0x42842e7b, 0x416e8a46, 0x4249a51a, 0x40e33929,
                    0x42121709, 0x42a59714, 0x41c43de9, 0x4282f15f, 0x41692ff0, 0x42476e00,
                    0x40db5afc, 0x421026a5, 0x42a43b0d, 0x41c0f3d2, 0x4281b57f, 0x4163e272,
                    0x4245397a, 0x40d39a21
                ]
            );
            let s = make(&[40], DType::F64, &|x| (x * 8.0) as f32 as f64);
            assert_eq!(
                bits(&unary(UnaryOp::Sigmoid, &s).unwrap())[32..],
                [
                    0x3fefed037104bde2,
                    0x3ed4288e1787af03,
                    0x3fe9e3d268988deb,
                    0x3fefffff70493875,
                    0x3fa480085ec9c08a,
                    0x3fefffc6f876b472,
                    0x3f3ae54f399596e5,
                    0x3fefe96e2e9bded1
                ]
            );
        },
    );
}

/// `norm` of CPU tensors walks the elements as PyTorch's CPU kernel does:
/// register lanes along one contiguous dim (2-norm of f32, f64, bf16), the
/// rest of the row fused as GCC compiled it; a fold in the iterator's order
/// otherwise, one chunk per thread past 32,768 elements for one result.
#[test]
fn norms_walk_as_pytorchs_cpu_kernel() {
    use cudash::runtime::op::along::AlongOp;
    use cudash::runtime::op::view::split_sizes;
    use cudash::runtime::ops::along::norm_over_cpu;
    use cudash::runtime::DType;
    // `spread` through f32 (so every dtype rounds it once), in `shape`.
    let t = |shape: &[usize], dt: DType| {
        let n = shape.iter().product();
        let v = spread(n).iter().map(|&x| x as f32 as f64).collect();
        cudash::runtime::ops::factory::from_f64s(v, shape, dt, cudash::runtime::Device::Cpu)
    };
    let norm = |x: &Tensor, p: f64, dim: Option<i64>| {
        bits(&along(AlongOp::Norm, p, x, dim, false).unwrap())
    };
    as_pytorch_measured("norms_walk_as_pytorchs_cpu_kernel", None, || {
        let n32: Vec<u64> = [1003, 1004, 1005, 1007]
            .iter()
            .flat_map(|&n| norm(&t(&[n], DType::F32), 2.0, None))
            .collect();
        assert_eq!(n32, N32);
        let f64s = |n: usize| {
            cudash::runtime::ops::factory::from_f64s(
                spread(n),
                &[n],
                DType::F64,
                cudash::runtime::Device::Cpu,
            )
        };
        let n64: Vec<u64> = [1001, 1003]
            .iter()
            .flat_map(|&n| norm(&f64s(n), 2.0, None))
            .collect();
        assert_eq!(n64, N64);
        let nbf: Vec<u64> = [1001, 40]
            .iter()
            .flat_map(|&n| norm(&t(&[n], DType::BF16), 2.0, None))
            .collect();
        assert_eq!(nbf, NBF);
        assert_eq!(norm(&t(&[1001], DType::F16), 2.0, None), NH);
        assert_eq!(norm(&t(&[40, 37], DType::F32), 2.0, Some(0)), COLS);
        let wide = t(&[300, 400], DType::F32);
        let sliced = split_sizes(&wide, &[350, 50], 1).unwrap().remove(0);
        let mut s = norm(&sliced, 2.0, None);
        s.extend(norm(&sliced, 1.0, None));
        assert_eq!(s, SLICED);
        let cube = t(&[3, 5, 4], DType::F32);
        assert_eq!(
            bits(&norm_over_cpu(2.0, &cube, &[0, 2], false).unwrap()),
            DIMS
        );
        assert_eq!(norm(&t(&[5, 33], DType::F32), 3.0, Some(1)), P3);
    });
}

/// PyTorch's bits for `norms_walk_as_pytorchs_cpu_kernel`.
const N32: [u64; 4] = [0x421251cb, 0x42127911, 0x42127916, 0x4212a7d4];
const N64: [u64; 2] = [0x40424774b64e7c81, 0x40424a394b0690ac];
const NBF: [u64; 2] = [0x4212, 0x40ed];
const NH: [u64; 1] = [0x5092];
const COLS: [u64; 37] = [
    0x40e9da6c, 0x40eb7ac1, 0x40e59302, 0x40eba92c, 0x40e89539, 0x40eafa4c, 0x40ea6c69, 0x40e96c2e,
    0x40eb630d, 0x40e56f9e, 0x40eb7be6, 0x40e8be19, 0x40eab73b, 0x40ea7f49, 0x40e912dd, 0x40eb603e,
    0x40e561a9, 0x40eb6380, 0x40e8fc10, 0x40ea8915, 0x40eaa71f, 0x40e8ce8d, 0x40eb7258, 0x40e56928,
    0x40eb6002, 0x40e94f12, 0x40ea6fe3, 0x40eae3e3, 0x40e89f52, 0x40eb9955, 0x40e58617, 0x40eb716a,
    0x40e9b702, 0x40ea6baf, 0x40eb3587, 0x40e882e0, 0x40ebd402,
];
const SLICED: [u64; 2] = [0x43bb1534, 0x47cd1375];
const DIMS: [u64; 5] = [0x408a7a60, 0x4080e9fe, 0x407a08cb, 0x4082f9ec, 0x407920d3];
const P3: [u64; 5] = [0x4083f2d2, 0x408230a0, 0x4080c70a, 0x407f6da3, 0x407fcd26];

/// The host's op along a dim, planned and computed as the runtime does.
fn along(
    op: cudash::runtime::op::along::AlongOp,
    p: f64,
    t: &Tensor,
    dim: Option<i64>,
    keepdim: bool,
) -> Result<Tensor, cudash::error::Error> {
    let plan =
        cudash::runtime::op::along::Along::plan((op, p), (t.shape(), t.dtype()), dim, keepdim)?;
    cudash::runtime::ops::along::along(t, &plan)
}
