//! The kernel checks, run on whatever executes kernels: the host-compiled
//! kernels (tests/kernels_host.rs) or a GPU (tests/kernels_gpu.rs). Each
//! check runs the kernels the way the CUDA backend plans them and compares
//! with the simulator's own ops on the same inputs.

use cudash::runtime::buffer::Buffer;
use cudash::runtime::cuda::exec::{self, Launcher, View};
use cudash::runtime::cuda::source::{self, BINARY_OPS, REDUCE_OPS, UNARY_OPS};
use cudash::runtime::driver::Kernel;
use cudash::runtime::element::Element;
use cudash::runtime::op::binary::{compute_dtype, BinaryOp, Operand as SimOperand};
use cudash::runtime::op::factory::Distribution;
use cudash::runtime::op::matmul::matmul_dtypes;
use cudash::runtime::op::reduce::ReduceOp;
use cudash::runtime::op::unary::{unary_dtype, UnaryOp};
use cudash::runtime::ops::elementwise::{binary, unary};
use cudash::runtime::ops::factory;
use cudash::runtime::ops::matmul::matmul;
use cudash::runtime::ops::reduce::reduce;
use cudash::runtime::rng::Generator;
use cudash::runtime::shape::{contiguous_strides, numel};
use cudash::runtime::{DType, Device, Tensor};
use cudash::with_dtype;

mod along;
mod window;
pub use along::*;
pub use window::*;

/// A `Launcher` the checks can also fill and read back.
pub trait Runner: Launcher {
    /// A copy of `t`'s whole storage (views keep their offset and strides).
    fn input(&self, t: &Tensor) -> Self::Mem;
    /// The elements, back on the host.
    fn download(&self, m: &Self::Mem) -> Buffer;
    /// Fails unless the kernel can be found.
    fn check_defined(&self, kernel: &Kernel);
    /// Whether exp, log, tanh, pow, sin and cos give the host's (glibc's)
    /// results bit for bit. A GPU's are within a few ulps, so results may
    /// differ in the last place of their dtype.
    fn exact_math(&self) -> bool {
        true
    }
}

/// What a runner's `alloc` hands out: not zeros, since the caching allocator
/// gives memory as the last user left it. Every byte 0xFF (NaN in every float
/// dtype, -1 in the integers), and true for bool, so an element an op forgets
/// to write shows up in its check.
pub fn poisoned(dt: DType, n: usize) -> Buffer {
    let byte = if dt == DType::Bool { 1 } else { 0xFF };
    Buffer::from_le_bytes(dt, &vec![byte; n * dt.size()])
}

/// `t`'s layout over memory holding its whole storage (from `Runner::input`).
fn view<'a, M>(mem: &'a M, t: &'a Tensor) -> View<'a, M> {
    View {
        mem,
        dtype: t.dtype(),
        shape: t.shape(),
        strides: t.strides(),
        offset: t.offset(),
    }
}

/// `t`'s elements on a simulated device: the reference a kernel must
/// match. (CPU tensors sum, multiply, cast and count ranges as PyTorch's
/// CPU kernels do; device tensors as cudash's CUDA kernels.)
fn on_sim(t: &Tensor) -> Tensor {
    t.with_device(Device::Cuda(0))
}

/// Fails the check with the error's message.
fn ok<T>(r: Result<T, cudash::error::Error>, what: &str) -> T {
    r.unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The difference allowed where math functions or summation order may
/// differ: a few units in the last place of `dt` (0 where they cannot).
fn math_tolerance(r: &impl Runner, dt: DType, approximate: bool) -> f64 {
    if !approximate || r.exact_math() {
        return 0.0;
    }
    match dt {
        DType::F16 => 2e-3,
        DType::BF16 => 1.6e-2,
        DType::F32 => 5e-7,
        _ => 1e-14,
    }
}

/// Calls `$m!` with the name of every check, so each runner's test file
/// lists them once.
macro_rules! all_checks {
    ($m:ident) => {
        $m!(
            every_kernel_the_runtime_names_is_defined,
            casts_match_the_simulator,
            half_conversions_are_exact_for_every_bit_pattern,
            binary_ops_and_comparisons_match_the_simulator,
            flat_paths_match_the_simulator,
            integer_edges_match_the_simulator,
            ternary_ops_match_the_simulator,
            opmath_scalars_match_the_simulator,
            pow_shortcuts_match_the_simulator,
            take_and_put_match_the_simulator,
            unary_ops_match_the_simulator,
            fill_arange_and_linspace_match_the_simulator,
            random_numbers_match_the_simulator,
            reductions_match_the_simulator,
            matmul_matches_the_simulator,
            scans_match_the_simulator,
            softmax_var_and_norm_match_the_simulator,
            sorts_and_triangles_match_the_simulator,
            window_ops_match_the_simulator,
        );
    };
}

/// Small grids, so grid-stride loops go round more than once, and small
/// reduction chunks, so the combining pass has several partial results per row.
pub const SMALL: cudash::runtime::driver::Geometry = cudash::runtime::driver::Geometry {
    block: 32,
    max_blocks: 3,
    reduce_block: 8,
    reduce: cudash::runtime::driver::ReduceTargets {
        blocks: 6,
        min_chunk: 5,
        threads: 24,
        min_col_chunk: 2,
    },
};

/// Equal element for element; NaNs equal any NaN; floats within `tol` (relative).
fn assert_same(got: &Buffer, want: &Buffer, tol: f64, what: &str) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.len(), want.len(), "{what}: length");
    with_dtype!(got.dtype(), T => {
        for (i, (&g, &w)) in got.as_slice::<T>().iter().zip(want.as_slice::<T>()).enumerate() {
            let (gf, wf) = (g.to_f64(), w.to_f64());
            let ok = if T::DTYPE.is_float() {
                (gf.is_nan() && wf.is_nan()) || gf == wf || (gf - wf).abs() <= tol * wf.abs().max(1e-300)
            } else {
                g == w
            };
            assert!(ok, "{what}: element {i}: kernel {g:?}, simulator {w:?}");
        }
    });
}

/// Values that find the edges: signs, zeros, NaN, infinities, rounding ties, large and tiny.
fn edge_values(dt: DType, n: usize, seed: u64) -> Tensor {
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.5,
        -3.5,
        7.0,
        65504.0,
        65520.0,
        1e-8,
        -6e-8,
        3.0e38,
        1e300,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1.0009765625,
        1.00048828125,
        2147483648.0,
        -9.3e18,
        3e9,
        100.0,
        -100.0,
    ];
    let mut g = Generator::new(seed);
    let noise = g.normal(n);
    let vals: Vec<f64> = (0..n)
        .map(|i| {
            if i < special.len() && dt.is_float() {
                special[i]
            } else {
                (noise[i] * 40.0).round() / 4.0
            }
        })
        .collect();
    factory::from_f64s(vals, &[n], dt, Device::Cpu)
}

pub fn every_kernel_the_runtime_names_is_defined(r: &impl Runner) {
    for k in source::all_kernels() {
        r.check_defined(&k);
    }
}

/// Every cast (49) over edge values, bit for bit against `Buffer::cast`,
/// from a strided source into a strided destination.
pub fn casts_match_the_simulator(r: &impl Runner) {
    for from in DType::ALL {
        let base = edge_values(from, 60, 1);
        // Every other element, backwards in pairs: a [30] view with stride 2, offset 1.
        let src = base.view(vec![30], vec![2], 1);
        for to in DType::ALL {
            let want = src.copy().read().cast(to);
            // Into every third slot of a larger buffer.
            let out = r.alloc(to, 91).unwrap();
            let base_in = r.input(&base);
            let dst = View {
                mem: &out,
                dtype: to,
                shape: &[30],
                strides: &[3],
                offset: 1,
            };
            ok(exec::copy_into(r, view(&base_in, &src), dst), "copy_into");
            let got = Tensor::new(r.download(&out), vec![91], Device::Cpu)
                .view(vec![30], vec![3], 1)
                .copy();
            assert_same(&got.read(), &want, 0.0, &format!("cast {from} -> {to}"));
        }
    }
}

/// A tensor converted to `to` by the cast kernel.
fn cast_whole(r: &impl Runner, t: &Tensor, to: DType) -> Buffer {
    let input = r.input(t);
    r.download(&ok(exec::cast(r, view(&input, t), to), "cast").mem)
}

/// Every f16 and bf16 bit pattern converts to f32 and back as the half crate does.
pub fn half_conversions_are_exact_for_every_bit_pattern(r: &impl Runner) {
    for dt in [DType::F16, DType::BF16] {
        let bits: Vec<u16> = (0..=u16::MAX).collect();
        let halves = match dt {
            DType::F16 => Buffer::F16(bits.iter().map(|&b| half::f16::from_bits(b)).collect()),
            _ => Buffer::BF16(bits.iter().map(|&b| half::bf16::from_bits(b)).collect()),
        };
        let t = Tensor::new(halves, vec![65536], Device::Cpu);
        let wide = cast_whole(r, &t, DType::F32);
        let want = t.read().cast(DType::F32);
        let (g, w) = (wide.as_slice::<f32>(), want.as_slice::<f32>());
        for i in 0..65536 {
            assert_eq!(g[i].to_bits(), w[i].to_bits(), "{dt} bits {i:#06x} to f32");
        }
        // And every f32 near them back (rounding ties, subnormals, overflow).
        let probes: Vec<f32> = w
            .iter()
            .flat_map(|&x| {
                [
                    x,
                    f32::from_bits(x.to_bits().wrapping_add(0x1000)),
                    f32::from_bits(x.to_bits() | 0x7FFF),
                ]
            })
            .collect();
        let n = probes.len();
        let src = Tensor::from_vec(probes, vec![n]);
        let back = cast_whole(r, &src, dt);
        let want = src.read().cast(dt);
        with_dtype!(dt, T => {
            for (i, (g, w)) in back.as_slice::<T>().iter().zip(want.as_slice::<T>()).enumerate() {
                assert!(g.to_f64().to_bits() == w.to_f64().to_bits() || (g.is_nan() && w.is_nan()), "f32 {:?} to {dt}: kernel {g:?}, simulator {w:?}", src.to_vec::<f32>()[i]);
            }
        });
    }
}

/// `a op b` on the kernels, computed in `compute`.
fn emu_binary(r: &impl Runner, op: BinaryOp, a: &Tensor, b: &Tensor, compute: DType) -> Tensor {
    let (a_in, b_in) = (r.input(a), r.input(b));
    let out = ok(
        exec::binary(r, op, view(&a_in, a), view(&b_in, b), compute),
        op.symbol(),
    );
    Tensor::new(r.download(&out.mem), out.shape, Device::Cpu)
}

/// Every binary op and comparison in every dtype, over a broadcast of a
/// transposed view against a column, against `ops::elementwise::binary`.
pub fn binary_ops_and_comparisons_match_the_simulator(r: &impl Runner) {
    for dt in DType::ALL {
        // [4,6] viewed transposed as [6,4]; against a [6,1] column.
        let a = edge_values(dt, 24, 2).reshape(&[4, 6]).unwrap().t();
        let b = edge_values(dt, 30, 3).view(vec![6, 1], vec![5, 1], 2);
        for op in BINARY_OPS {
            let (sa, sb) = (on_sim(&a), on_sim(&b));
            let Ok(want) = binary(op, SimOperand::strong(&sa), SimOperand::strong(&sb)) else {
                continue; // refused before any kernel runs (negative integer powers, bool `-`)
            };
            let compute = compute_dtype(op, dt);
            let got = emu_binary(r, op, &a, &b, compute);
            assert_eq!(got.shape(), want.shape());
            let tol = math_tolerance(r, compute, op == BinaryOp::Pow);
            assert_same(
                &got.read(),
                &want.read(),
                tol,
                &format!("{dt} {}", op.symbol()),
            );
        }
    }
}

/// The contiguous ("flat") paths, which move four elements per access where
/// every operand is aligned for it: lengths that leave a remainder, operands
/// at offsets 0 to 3 (so the packs are sometimes misaligned and the scalar
/// path runs), in every dtype. Binary ops, comparisons, unary ops, casts and
/// fills; reductions over rows and columns with the extreme at each position.
pub fn flat_paths_match_the_simulator(r: &impl Runner) {
    for dt in DType::ALL {
        let (base_a, base_b) = (edge_values(dt, 1010, 4), edge_values(dt, 1010, 6));
        let (in_a, in_b) = (r.input(&base_a), r.input(&base_b));
        // 1003: more packs than a small grid has threads, twice over.
        for n in [1usize, 7, 64, 75, 1003] {
            for (oa, ob) in [(0, 0), (1, 1), (0, 2), (3, 0)] {
                let a = base_a.view(vec![n], vec![1], oa);
                let b = base_b.view(vec![n], vec![1], ob);
                let what = |op: &str| format!("{dt} {op} over {n} at offsets {oa}, {ob}");
                let (sa, sb) = (on_sim(&a), on_sim(&b));
                for op in BINARY_OPS {
                    let Ok(want) = binary(op, SimOperand::strong(&sa), SimOperand::strong(&sb))
                    else {
                        continue;
                    };
                    let compute = compute_dtype(op, dt);
                    let got = ok(
                        exec::binary(r, op, view(&in_a, &a), view(&in_b, &b), compute),
                        op.symbol(),
                    );
                    let tol = math_tolerance(r, compute, op == BinaryOp::Pow);
                    assert_same(&r.download(&got.mem), &want.read(), tol, &what(op.symbol()));
                }
                for op in UNARY_OPS {
                    let out_dt = unary_dtype(op, dt);
                    let (Ok(want), Some(_)) = (unary(op, &sa), source::unary(op, out_dt)) else {
                        continue;
                    };
                    let got = ok(exec::unary(r, op, view(&in_a, &a), out_dt), op.name());
                    let approximate = !matches!(
                        op,
                        UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Relu | UnaryOp::Sqrt
                    );
                    let tol = math_tolerance(r, out_dt, approximate);
                    assert_same(&r.download(&got.mem), &want.read(), tol, &what(op.name()));
                }
                for to in DType::ALL {
                    // Into a destination at offset `ob`: both sides flat.
                    let out = r.alloc(to, n + ob).unwrap();
                    let strides = [1isize];
                    let dst = View {
                        mem: &out,
                        dtype: to,
                        shape: &[n],
                        strides: &strides,
                        offset: ob,
                    };
                    ok(exec::copy_into(r, view(&in_a, &a), dst), "copy_into");
                    let got = Tensor::new(r.download(&out), vec![n + ob], Device::Cpu)
                        .view(vec![n], vec![1], ob)
                        .copy();
                    let want = a.copy().read().cast(to);
                    assert_same(&got.read(), &want, 0.0, &what(&format!("cast to {to}")));
                    let v = if to.is_signed() { -2.0 } else { 2.0 };
                    let one = factory::full(&[n], v.into(), to, Device::Cpu).unwrap();
                    ok(exec::fill(r, dst, &one.read().to_le_bytes()), "fill");
                    let got = Tensor::new(r.download(&out), vec![n + ob], Device::Cpu)
                        .view(vec![n], vec![1], ob)
                        .copy();
                    assert_same(&got.read(), &one.read(), 0.0, &what(&format!("fill {to}")));
                }
            }
        }
    }
    // The largest element at each position in turn (so in each lane of a
    // pack, and in the scalar head and tail), over a row and down columns.
    // Rows long enough that each block's chunk holds many packs per thread.
    for at in [0usize, 1, 2, 3, 5, 41, 66, 150, 151, 202, 203, 398, 399] {
        for offset in [0usize, 1] {
            let mut v: Vec<f32> = (0..401).map(|i| ((i * 7) % 13) as f32).collect();
            v[at + offset] = 100.0;
            let base = Tensor::from_vec(v, vec![401]);
            let row = base.view(vec![400], vec![1], offset);
            let cols = base.view(vec![100, 4], vec![4, 1], offset);
            for op in [
                ReduceOp::Argmax,
                ReduceOp::Argmin,
                ReduceOp::Max,
                ReduceOp::Sum,
            ] {
                for (t, dim) in [(&row, None), (&cols, Some(0)), (&cols, Some(1))] {
                    let want = reduce(op, &on_sim(t), dim.map(|d| d as i64), false).unwrap();
                    let got = emu_reduce(r, op, t, dim, want.shape());
                    let what = format!(
                        "{} over {dim:?}, largest at {at}, offset {offset}",
                        op.name()
                    );
                    assert_same(&got, &want.read(), 1e-12, &what);
                }
            }
        }
    }
}

/// Integer division's edges (MIN / -1, division by zero is refused earlier)
/// and integer powers, against the simulator.
pub fn integer_edges_match_the_simulator(r: &impl Runner) {
    let a = Tensor::from_vec(vec![i64::MIN, i64::MIN, -7, 7, 3, -2, 2, 0], vec![8]);
    let b = Tensor::from_vec(vec![-1i64, 1, 2, -2, 40, 63, 64, 0], vec![8]);
    for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Pow] {
        let want = binary(
            op,
            SimOperand::strong(&a),
            SimOperand::strong(&b.abs_for_pow(op)),
        )
        .unwrap();
        let got = emu_binary(r, op, &a, &b.abs_for_pow(op), DType::I64);
        assert_same(
            &got.read(),
            &want.read(),
            0.0,
            &format!("i64 {}", op.symbol()),
        );
    }
    // `//` and `%`: floors, wrapping, and a divisor of 0, which the cpu
    // refuses and a device computes (-1 and x) without looking.
    let on_device =
        |t: &Tensor| Tensor::new(t.contiguous_buffer(), t.shape().to_vec(), Device::Cuda(0));
    for op in [BinaryOp::FloorDiv, BinaryOp::Rem] {
        for dt in [DType::I32, DType::I64] {
            let (x, y) = (a.cast(dt), b.cast(dt));
            assert!(binary(op, SimOperand::strong(&x), SimOperand::strong(&y)).is_err());
            let want = binary(
                op,
                SimOperand::strong(&on_device(&x)),
                SimOperand::strong(&on_device(&y)),
            )
            .unwrap();
            let got = emu_binary(r, op, &x, &y, dt);
            assert_same(
                &got.read(),
                &want.read(),
                0.0,
                &format!("{dt} {}", op.symbol()),
            );
        }
    }
    let got = emu_binary(
        r,
        BinaryOp::Div,
        &a.cast(DType::I64),
        &Tensor::from_vec(vec![-1i64; 8], vec![8]),
        DType::I64,
    );
    assert_eq!(
        got.to_vec::<i64>()[0],
        0,
        "i64::MIN / -1 wraps to 0, as the simulator's checked_div"
    );
}

/// `*`, `/` and `//` of f16/bf16 tensors (a transposed view) by numbers
/// that f16 cannot hold, read as f32 (PyTorch's opmath), and on a CUDA
/// device `+` and `-` too, the number on either side, against
/// `ops::elementwise::binary` with the same number as a weak scalar.
pub fn opmath_scalars_match_the_simulator(r: &impl Runner) {
    use cudash::runtime::op::binary::opmath_scalar;
    for dt in [DType::F16, DType::BF16] {
        let x = edge_values(dt, 24, 5).reshape(&[4, 6]).unwrap().t();
        let on_gpu = x.with_device(Device::Cuda(0)).t();
        for number in [0.1, 3.3, 1e-3, -7.77, 0.0, f64::NAN] {
            let s = Tensor::scalar(number);
            let number = SimOperand {
                tensor: &s,
                weak: true,
            };
            let cases = [
                (BinaryOp::Mul, &x, false),
                (BinaryOp::Div, &x, false),
                (BinaryOp::FloorDiv, &x, false),
                (BinaryOp::Add, &on_gpu, false),
                (BinaryOp::Sub, &on_gpu, false),
                (BinaryOp::Sub, &on_gpu, true),
                (BinaryOp::Add, &on_gpu, true),
            ];
            for (op, t, scalar_first) in cases {
                let (a, b) = match scalar_first {
                    false => (SimOperand::strong(t), number),
                    true => (number, SimOperand::strong(t)),
                };
                let side = if scalar_first { 0 } else { 1 };
                assert_eq!(opmath_scalar(op, dt, a, b), Some(side));
                let want = binary(op, a, b).unwrap();
                let s32 = s.cast(DType::F32);
                let (xi, si) = (r.input(t), r.input(&s32));
                let out = ok(
                    exec::binary_opmath(r, (op, scalar_first), view(&xi, t), view(&si, &s32), dt),
                    op.name(),
                );
                let got = Tensor::new(r.download(&out.mem), out.shape, Device::Cpu);
                let what = format!(
                    "{dt} {} {} (scalar first: {scalar_first})",
                    op.symbol(),
                    s.to_vec::<f64>()[0]
                );
                assert_same(&got.read(), &want.read(), 0.0, &what);
            }
            // On the cpu, `+` rounds the number to the tensor's dtype first.
            let (a, b) = (SimOperand::strong(&x), number);
            assert_eq!(opmath_scalar(BinaryOp::Add, dt, a, b), None);
        }
    }
}

/// `x ** number` on a CUDA device for the six numbers PyTorch's CUDA
/// kernel takes a shortcut for (`ops::pow_shortcut`), in every float dtype, over
/// a transposed view of edge values, against `ops::elementwise::binary`:
/// bit for bit but for rsqrt, which a GPU's `rsqrtf` rounds its own way.
pub fn pow_shortcuts_match_the_simulator(r: &impl Runner) {
    use cudash::runtime::op::binary::pow_number_on_cuda;
    use cudash::runtime::op::pow_shortcut::PowShortcut;
    for dt in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        let x = edge_values(dt, 40, 8).reshape(&[5, 8]).unwrap().t();
        let on_gpu = x.with_device(Device::Cuda(0)).t();
        // 2.0001 is 2 in f16 and bf16 (a square there), not in f32 or f64.
        for number in [0.5, -0.5, -1.0, 2.0, 3.0, -2.0, 2.0001, 2.5] {
            let s = Tensor::scalar(number);
            let (a, b) = (
                SimOperand::strong(&on_gpu),
                SimOperand {
                    tensor: &s,
                    weak: true,
                },
            );
            let e = pow_number_on_cuda(BinaryOp::Pow, a, b);
            assert_eq!(e, Some(number));
            let Some(shortcut) = PowShortcut::on_cuda(dt, number) else {
                let half = matches!(dt, DType::F16 | DType::BF16);
                assert!(
                    number == 2.5 || (number == 2.0001 && !half),
                    "{dt} ** {number}"
                );
                continue;
            };
            let want = binary(BinaryOp::Pow, a, b).unwrap();
            let xi = r.input(&on_gpu);
            let out = ok(
                exec::pow_shortcut(r, shortcut, view(&xi, &on_gpu), dt),
                shortcut.name(),
            );
            let got = Tensor::new(r.download(&out.mem), out.shape, Device::Cpu);
            let tol = math_tolerance(r, dt, shortcut == PowShortcut::Rsqrt);
            assert_same(&got.read(), &want.read(), tol, &format!("{dt} ** {number}"));
        }
        // On the cpu the same numbers take PyTorch's CPU kernels instead.
        let s = Tensor::scalar(3.0);
        let number = SimOperand {
            tensor: &s,
            weak: true,
        };
        assert_eq!(
            pow_number_on_cuda(BinaryOp::Pow, SimOperand::strong(&x), number),
            None
        );
    }
}

/// `where` and `clamp` in every dtype, over a transposed view, a strided
/// column and a row broadcast together, against `ops::ternary`: NaN
/// bounds, -0 against 0, and bounds the wrong way round among the values;
/// and `a + alpha * b` out of place and in place.
pub fn ternary_ops_match_the_simulator(r: &impl Runner) {
    use cudash::runtime::op::ternary::{plan, TernaryOp};
    use cudash::runtime::ops::ternary::ternary;
    for dt in DType::ALL {
        let x = edge_values(dt, 24, 2).reshape(&[4, 6]).unwrap().t();
        let column = edge_values(dt, 30, 3).view(vec![6, 1], vec![5, 1], 2);
        let row = edge_values(dt, 4, 7);
        let cond = edge_values(DType::Bool, 24, 9).reshape(&[6, 4]).unwrap();
        for (op, [a, b, c]) in [
            (TernaryOp::Where, [&cond, &x, &column]),
            (TernaryOp::Clamp, [&x, &column, &row]),
        ] {
            let operands = [a, b, c].map(SimOperand::strong);
            let Ok(want) = ternary(op, operands[0], operands[1], operands[2]) else {
                assert_eq!(
                    (op, dt),
                    (TernaryOp::Clamp, DType::Bool),
                    "only bool clamp is refused"
                );
                continue;
            };
            let compute = plan(op, operands[0], operands[1], operands[2])
                .unwrap()
                .compute;
            let ins = [r.input(a), r.input(b), r.input(c)];
            let views = [view(&ins[0], a), view(&ins[1], b), view(&ins[2], c)];
            let out = ok(exec::ternary(r, op, views, compute), op.name());
            let got = Tensor::new(r.download(&out.mem), out.shape, Device::Cpu);
            assert_eq!(got.shape(), want.shape());
            assert_same(
                &got.read(),
                &want.read(),
                0.0,
                &format!("{dt} {}", op.name()),
            );
        }
        // `a + alpha * b` (the optimizers' `add_`): one rounding in the
        // opmath type, out of place and straight into a's own memory.
        let alpha = match dt.is_float() {
            true => Tensor::scalar(-0.1),
            false => Tensor::scalar(3i64),
        };
        let xc = x.copy();
        let operands = [
            SimOperand::strong(&xc),
            SimOperand::strong(&column),
            SimOperand {
                tensor: &alpha,
                weak: true,
            },
        ];
        let op = TernaryOp::AddScaled;
        let Ok(want) = ternary(op, operands[0], operands[1], operands[2]) else {
            assert_eq!(dt, DType::Bool, "only bool is refused");
            continue;
        };
        let compute = plan(op, operands[0], operands[1], operands[2])
            .unwrap()
            .compute;
        let ins = [r.input(&xc), r.input(&column), r.input(&alpha)];
        let views = || {
            [
                view(&ins[0], &xc),
                view(&ins[1], &column),
                view(&ins[2], &alpha),
            ]
        };
        let out = ok(exec::ternary(r, op, views(), compute), op.name());
        let got = Tensor::new(r.download(&out.mem), out.shape, Device::Cpu);
        assert_same(&got.read(), &want.read(), 0.0, &format!("{dt} add_scaled"));
        ok(
            exec::ternary_in_place(r, op, views(), compute, view(&ins[0], &xc)),
            "add_scaled in place",
        );
        let got = Tensor::new(r.download(&ins[0]), want.shape().to_vec(), Device::Cpu);
        assert_same(&got.read(), &want.read(), 0.0, &format!("{dt} add_scaled_"));
    }
}

/// Advanced indexing's gather and store in every dtype, on a transposed
/// view: integer indices (negative ones, repeats, a multi-dimensional
/// index) along the second dimension, and a mask over both, against the
/// host's `Take`. Stores go through indices without repeats only: with a
/// repeated index, which thread's write lands is undefined on a GPU (as
/// PyTorch's `index_put_` documents), where the host's loop keeps the last.
pub fn take_and_put_match_the_simulator(r: &impl Runner) {
    use cudash::runtime::op::index::Index;
    use cudash::runtime::ops::index::Take;
    use std::sync::Arc;
    let ints = Arc::new(Tensor::from_vec(vec![2i64, -1, 0, 3, 3, 1], vec![2, 3]));
    let distinct = Arc::new(Tensor::from_vec(vec![2i64, -1, 0, 1], vec![2, 2]));
    let mask = Arc::new(factory::from_f64s(
        (0..24).map(|i| ((i * 7) % 3 == 0) as i64 as f64).collect(),
        &[6, 4],
        DType::Bool,
        Device::Cpu,
    ));
    for dt in DType::ALL {
        let base = edge_values(dt, 24, 5);
        for (items, store) in [
            (
                vec![
                    Index::Slice(None, None, None),
                    Index::Tensor(Arc::clone(&ints)),
                ],
                false,
            ),
            (
                vec![
                    Index::Slice(None, None, None),
                    Index::Tensor(Arc::clone(&distinct)),
                ],
                true,
            ),
            (vec![Index::Tensor(Arc::clone(&mask))], true),
        ] {
            let x = base.copy().reshape(&[4, 6]).unwrap().t();
            let take = Take::plan(&x, &items).unwrap();
            let (index, wrap): (Vec<i64>, _) = if take.index.dtype() == DType::Bool {
                (take.mask_offsets(&take.index.to_vec::<bool>()), None)
            } else {
                (take.index.to_vec::<i64>(), Some(take.size_and_stride()))
            };
            let n = index.len();
            let idx = Tensor::from_vec(index.clone(), vec![n]);
            let (shape, src, at) = take.layout(n);
            let want = take.host(&index, wrap);
            let (x_in, idx_in) = (r.input(&x), r.input(&idx));
            let out = ok(
                exec::take(
                    r,
                    view(&x_in, &take.view),
                    view(&idx_in, &idx),
                    (&shape, &src, &at),
                    wrap,
                ),
                "take",
            );
            assert_same(&r.download(&out.mem), &want, 0.0, &format!("{dt} take"));
            if !store {
                continue;
            }
            // Store a value of the output's (collapsed) shape back.
            let value = edge_values(dt, numel(&shape), 11)
                .reshape(&shape.iter().map(|&s| s as i64).collect::<Vec<_>>())
                .unwrap();
            let v_in = r.input(&value);
            // Stored, then (f32 and f64) added: index_put_ with accumulate,
            // autograd's `x[i]` backward.
            let adds = matches!(dt, DType::F32 | DType::F64);
            for accumulate in [false, true].into_iter().filter(|&a| !a || adds) {
                let (to, from, ix) = (
                    view(&x_in, &take.view),
                    view(&v_in, &value),
                    view(&idx_in, &idx),
                );
                let what = if accumulate { "put_add" } else { "put" };
                let layout = (&shape[..], &src[..], &at[..]);
                ok(exec::put(r, to, from, ix, layout, wrap, accumulate), what);
                match accumulate {
                    true => take.put_add_host(&index, wrap, &value),
                    false => take.put_host(&index, wrap, &value),
                }
                let storage: Buffer = (*x.read()).clone();
                assert_same(&r.download(&x_in), &storage, 0.0, &format!("{dt} {what}"));
            }
        }
    }
}

trait AbsForPow {
    fn abs_for_pow(&self, op: BinaryOp) -> Tensor;
}
impl AbsForPow for Tensor {
    /// Negative integer exponents are refused before a kernel runs.
    fn abs_for_pow(&self, op: BinaryOp) -> Tensor {
        if op != BinaryOp::Pow {
            return self.copy();
        }
        Tensor::from_vec(
            self.to_vec::<i64>()
                .iter()
                .map(|v| v.wrapping_abs().max(0))
                .collect(),
            self.shape().to_vec(),
        )
    }
}

pub fn unary_ops_match_the_simulator(r: &impl Runner) {
    for dt in DType::ALL {
        let t = edge_values(dt, 40, 4);
        for op in UNARY_OPS {
            let Ok(want) = unary(op, &on_sim(&t)) else {
                continue;
            };
            let out_dt = unary_dtype(op, dt);
            assert_eq!(out_dt, want.dtype());
            if source::unary(op, out_dt).is_none() {
                assert!(dt == DType::Bool, "no kernel for {dt} {op:?}");
                continue; // bool neg is refused; abs and relu copy
            }
            // A strided view: every other element.
            let src = t.view(vec![20], vec![2], 0);
            let want = unary(op, &on_sim(&src)).unwrap();
            let src_in = r.input(&t);
            let out = ok(exec::unary(r, op, view(&src_in, &src), out_dt), op.name());
            let approximate = !matches!(
                op,
                UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Relu | UnaryOp::Sqrt
            );
            assert_same(
                &r.download(&out.mem),
                &want.read(),
                math_tolerance(r, want.dtype(), approximate),
                &format!("{dt} {}", op.name()),
            );
        }
    }
}

pub fn fill_arange_and_linspace_match_the_simulator(r: &impl Runner) {
    for dt in DType::ALL {
        for value in [0.0, 1.5, -2.0, 1e10, f64::NAN, 1e39] {
            // Refused before any kernel, as PyTorch refuses it: 1e10 and
            // NaN into integers, 1e39 into f32.
            let Ok(want) = factory::full(&[2, 5], value.into(), dt, Device::Cpu) else {
                assert!(dt.is_int() || dt == DType::F32, "{dt} {value}");
                continue;
            };
            // Into a transposed destination: the fill must reach every element once.
            let out = r.alloc(dt, 10).unwrap();
            let dst = View {
                mem: &out,
                dtype: dt,
                shape: &[5, 2],
                strides: &[1, 5],
                offset: 0,
            };
            // The element `full` makes, as the kernel's bit pattern.
            ok(exec::fill(r, dst, &want.read().to_le_bytes()), "fill");
            assert_same(
                &r.download(&out),
                &want.read(),
                0.0,
                &format!("fill {dt} {value}"),
            );
        }
        if source::arange(dt).is_none() {
            continue;
        }
        // PyTorch's CUDA formula: fused in f32 or f64 (these cross zero,
        // where fusing shows), integers from a truncated start and step.
        for (start, end, step) in [
            (0.0, 10.0, 1.0),
            (-3.0, 2.0, 0.25),
            (5.0, -5.0, -0.7),
            (-3.7, 11.1, 0.013),
            (0.5, 40.0, 1.5),
            (0.0, 30000.0, 0.7),
        ] {
            let want = factory::arange(start, end, step, dt, Device::Cuda(0)).unwrap();
            let out = ok(exec::arange(r, want.numel(), start, step, dt), "arange");
            assert_same(
                &r.download(&out.mem),
                &want.read(),
                0.0,
                &format!("arange {dt} {start} {end} {step}"),
            );
        }
        // PyTorch's symmetric formula, with steps either side of f16's
        // 2048 (where the index itself rounds) and values that truncate.
        for (start, end, steps) in [
            (0.0, 1.0, 5),
            (-3.7, 2.2, 7),
            (10.0, -10.0, 3001),
            (0.1, 0.3, 1),
            (0.0, 1.0, 0),
            (1e6, 1e6 + 1.0, 2),
            (-3.7, 11.1, 517),
        ] {
            let want = factory::linspace(start, end, steps, dt, Device::Cuda(0)).unwrap();
            let plan = factory::Linspace::plan(start, end, steps, dt, Device::Cuda(0)).unwrap();
            let out = ok(exec::linspace(r, &plan, dt), "linspace");
            assert_same(
                &r.download(&out.mem),
                &want.read(),
                0.0,
                &format!("linspace {dt} {start} {end} {steps}"),
            );
        }
    }
}

/// rand, randn and randint draw the simulator's numbers for the same seed and
/// offset: uniform ones and integers bit for bit, normal ones too wherever
/// log, sin and cos are the host's.
pub fn random_numbers_match_the_simulator(r: &impl Runner) {
    for dt in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        for (normal, n) in [(false, 1001usize), (true, 999)] {
            let mut sim = Generator::new(42);
            sim.offset = 17; // as after earlier draws
            let mut dev = sim.clone();
            let dist = if normal {
                Distribution::Normal
            } else {
                Distribution::Uniform
            };
            let want = factory::philox(&mut sim, dist, &[n], dt, Device::Cpu).unwrap();
            let out = ok(
                exec::random(r, &mut dev, dist, &[n], dt, (0.0, 1.0)),
                "random",
            );
            assert_eq!(
                dev.offset, sim.offset,
                "the generator advances as the simulator's"
            );
            assert_same(
                &r.download(&out.mem),
                &want.read(),
                math_tolerance(r, dt, normal),
                &format!("{} {dt}", if normal { "randn" } else { "rand" }),
            );
        }
    } // randint's integers, bit for bit in every dtype that takes them, in a
      // 32-bit range and in one wider than 2^32.
    for dt in [
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ] {
        for (low, range) in [(-5i64, 10u64), (7, 3 << 40)] {
            let mut sim = Generator::new(7);
            sim.offset = 3;
            let mut dev = sim.clone();
            let dist = Distribution::Integers { low, range };
            let want = factory::philox(&mut sim, dist, &[1003], dt, Device::Cpu).unwrap();
            let out = ok(
                exec::random(r, &mut dev, dist, &[1003], dt, (0.0, 1.0)),
                "integers",
            );
            assert_eq!(dev.offset, sim.offset);
            assert_same(
                &r.download(&out.mem),
                &want.read(),
                0.0,
                &format!("randint {dt} {range}"),
            );
        }
    }
}

/// A reduction on the kernels, into the simulator's output shape.
fn emu_reduce(
    r: &impl Runner,
    op: ReduceOp,
    t: &Tensor,
    dim: Option<usize>,
    out_shape: &[usize],
) -> Buffer {
    let input = r.input(t);
    let out = ok(
        exec::reduce(r, op, view(&input, t), dim, out_shape.to_vec()),
        op.name(),
    );
    r.download(&out.mem)
}

pub fn reductions_match_the_simulator(r: &impl Runner) {
    for dt in DType::ALL {
        let mut t = edge_values(dt, 60, 5).reshape(&[3, 4, 5]).unwrap();
        if dt.is_float() {
            // NaN and infinities only in the first row: other rows have ordinary extremes.
            let mut v = t.to_vec::<f64>();
            for x in v.iter_mut().skip(20) {
                if !x.is_finite() {
                    *x = 1.25;
                }
            }
            t = factory::from_f64s(v, &[3, 4, 5], dt, Device::Cpu);
        }
        // Contiguous, and a strided view (made contiguous on the device first).
        for t in [t.copy(), t.transpose(0, 2)] {
            for op in REDUCE_OPS {
                for dim in [None, Some(0), Some(1), Some(2)] {
                    let Ok(want) = reduce(op, &on_sim(&t), dim.map(|d| d as i64), false) else {
                        continue;
                    };
                    let got = emu_reduce(r, op, &t, dim, want.shape());
                    // Sums and products accumulate in another order: equal up to
                    // the last bits of the f64 accumulation, which may round the
                    // result either way.
                    let tol = if matches!(op, ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Prod) {
                        math_tolerance(r, dt, true).max(1e-12)
                    } else {
                        0.0
                    };
                    assert_same(
                        &got,
                        &want.read(),
                        tol,
                        &format!("{dt} {}(dim={dim:?}) of {:?}", op.name(), t.strides()),
                    );
                }
            }
        }
    }
    // A 0-d tensor: over its one element, whatever the dim.
    let t = Tensor::scalar(2.5f32);
    let input = r.input(&t);
    for dim in [None, Some(0)] {
        let got = ok(
            exec::reduce(r, ReduceOp::Sum, view(&input, &t), dim, vec![]),
            "0-d sum",
        );
        assert_eq!(r.download(&got.mem).as_slice::<f32>(), &[2.5]);
    }
    // A long row: many chunks, ties and a late maximum. As a matrix of four
    // long columns, summed over its rows: the column pass cuts each column
    // into chunks and combines them.
    let v: Vec<f32> = (0..1000).map(|i| ((i * 37) % 101) as f32).collect();
    let t = Tensor::from_vec(v, vec![1000]);
    let cols = t.reshape(&[250, 4]).unwrap();
    for op in [
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::Argmax,
        ReduceOp::Argmin,
        ReduceOp::Sum,
        ReduceOp::Mean,
        ReduceOp::Prod,
    ] {
        for (t, dim) in [(&t, None), (&cols, Some(0))] {
            let want = reduce(op, &on_sim(t), dim.map(|d| d as i64), false).unwrap();
            assert_same(
                &emu_reduce(r, op, t, dim, want.shape()),
                &want.read(),
                1e-12,
                &format!("{} over {dim:?} of {:?}", op.name(), t.shape()),
            );
        }
    }
}

/// Small integers (halves in floats): every product and partial sum is exact
/// in every dtype, so any summation order gives the simulator's bits.
fn small_values(dt: DType, n: usize, seed: usize) -> Tensor {
    let scale = if dt.is_float() { 0.5 } else { 1.0 };
    let vals = (0..n)
        .map(|i| ((i * seed + 3) % 7) as f64 * scale - 1.5)
        .collect();
    factory::from_f64s(vals, &[n], dt, Device::Cpu)
}

/// Matrix products in every float dtype, against `ops::matmul`: batches
/// broadcast on either side or both, transposed and offset operands, mixed
/// dtypes, empty products. Integers are refused, as on PyTorch's CUDA
/// tensors.
pub fn matmul_matches_the_simulator(r: &impl Runner) {
    for dt in DType::ALL {
        if !dt.is_float() {
            continue;
        }
        let mat = |shape: &[i64], seed| {
            let n = shape.iter().product::<i64>() as usize;
            small_values(dt, n, seed).reshape(shape).unwrap()
        };
        let cases = [
            // One B for every batch of A, and one A for every batch of B.
            (mat(&[2, 3, 4], 1), mat(&[4, 5], 2)),
            (mat(&[3, 4], 3), mat(&[2, 4, 5], 4)),
            // A transposed per matrix; B a view at an offset.
            (
                mat(&[2, 4, 3], 5).transpose(1, 2),
                small_values(dt, 30, 6).view(vec![4, 5], vec![5, 1], 7),
            ),
            // Batches broadcast on both sides.
            (mat(&[2, 1, 3, 4], 8), mat(&[1, 3, 4, 2], 9)),
            // A narrow result.
            (mat(&[3, 4], 10), mat(&[4, 1], 11)),
            // Empty: no rows, and nothing to sum.
            (mat(&[0, 4], 12), mat(&[4, 3], 13)),
            (mat(&[2, 0], 14), mat(&[0, 3], 15)),
        ];
        for (a, b) in &cases {
            check_matmul(r, a, b);
        }
    }
    // Two dtypes are refused before any launch, as PyTorch refuses them.
    assert!(matmul_dtypes(DType::I32, DType::F32).is_err());
    // Operands that do not line up are an error, not a launch.
    let (a, b) = (
        small_values(DType::F32, 6, 1),
        small_values(DType::F32, 6, 2),
    );
    let (a, b) = (a.reshape(&[2, 3]).unwrap(), b.reshape(&[2, 3]).unwrap());
    let (a_in, b_in) = (r.input(&a), r.input(&b));
    let Err(err) = exec::matmul(r, view(&a_in, &a), view(&b_in, &b), DType::F32, false) else {
        panic!("[2, 3] @ [2, 3] was launched");
    };
    assert!(err.to_string().contains("do not line up"), "{err}");
    // Integers have no product on a device (the dispatcher says so first).
    let a = Tensor::from_vec(vec![1i64, 3, 5, -1], vec![2, 2]);
    let a_in = r.input(&a);
    assert!(exec::matmul(r, view(&a_in, &a), view(&a_in, &a), DType::I64, false).is_err());
}

fn check_matmul(r: &impl Runner, a: &Tensor, b: &Tensor) {
    let what = format!(
        "{:?} {} @ {:?} {}",
        a.shape(),
        a.dtype(),
        b.shape(),
        b.dtype()
    );
    let want = matmul(a, b).unwrap();
    let (dt, _) = matmul_dtypes(a.dtype(), b.dtype()).unwrap();
    let (a_in, b_in) = (r.input(a), r.input(b));
    let got = ok(
        exec::matmul(r, view(&a_in, a), view(&b_in, b), dt, false),
        &what,
    );
    assert_eq!(got.shape, want.shape(), "{what}");
    assert_same(&r.download(&got.mem), &want.read(), 0.0, &what);
}

/// A strided view for `views_match_the_simulator`: a contiguous `base` at
/// offset 1, dimensions swapped, one dimension taking every other element;
/// and which dimensions of the second operand are 1 (broadcast).
#[derive(Debug, Clone)]
pub struct Layout {
    pub base: Vec<usize>,
    pub swaps: Vec<(usize, usize)>,
    pub every_other: Option<usize>,
    pub broadcast: Vec<bool>,
    pub float: bool,
    pub dim: usize,
}

/// Shapes of up to four dimensions (some empty) and every way to view them.
pub fn layouts() -> impl proptest::strategy::Strategy<Value = Layout> {
    use proptest::prelude::*;
    prop::collection::vec(0usize..5, 1..5).prop_flat_map(|base| {
        let nd = base.len();
        (
            Just(base),
            prop::collection::vec((0..nd, 0..nd), 0..3),
            prop::option::of(0..nd),
            prop::collection::vec(any::<bool>(), nd),
            any::<bool>(),
            0..nd,
        )
            .prop_map(|(base, swaps, every_other, broadcast, float, dim)| Layout {
                base,
                swaps,
                every_other,
                broadcast,
                float,
                dim,
            })
    })
}

/// Any layout through `exec`, against the simulator: a binary op and a
/// comparison with a broadcast operand, a cast, a unary op, and reductions
/// over everything and over one dimension.
pub fn views_match_the_simulator(r: &impl Runner, l: &Layout) {
    let (dt, other) = if l.float {
        (DType::F32, DType::F16)
    } else {
        (DType::I64, DType::I32)
    };
    let n: usize = l.base.iter().product();
    let storage = small_values(dt, n + 1, 7);
    let mut shape = l.base.clone();
    let mut strides = contiguous_strides(&shape);
    let nd = shape.len();
    for &(i, j) in &l.swaps {
        shape.swap(i % nd, j % nd);
        strides.swap(i % nd, j % nd);
    }
    if let Some(d) = l.every_other {
        shape[d % nd] = shape[d % nd].div_ceil(2);
        strides[d % nd] *= 2;
    }
    let a = storage.view(shape.clone(), strides, 1);
    let b_shape: Vec<i64> = shape
        .iter()
        .zip(&l.broadcast)
        .map(|(&s, &one)| if one { 1 } else { s as i64 })
        .collect();
    let b_n = b_shape.iter().product::<i64>() as usize;
    let b = small_values(dt, b_n, 5).reshape(&b_shape).unwrap();
    let what = format!("{dt} {shape:?} strides {:?} with {b_shape:?}", a.strides());
    let (a_in, b_in) = (r.input(&a), r.input(&b));
    let (av, bv) = (view(&a_in, &a), view(&b_in, &b));

    for op in [BinaryOp::Sub, BinaryOp::Lt] {
        let want = binary(op, SimOperand::strong(&a), SimOperand::strong(&b)).unwrap();
        let got = ok(exec::binary(r, op, av, bv, dt), &what);
        assert_eq!(got.shape, want.shape(), "{what}");
        assert_same(&r.download(&got.mem), &want.read(), 0.0, &what);
    }
    let got = ok(exec::cast(r, av, other), &what);
    assert_same(
        &r.download(&got.mem),
        &on_sim(&a).cast(other).read(),
        0.0,
        &what,
    );
    let want = unary(UnaryOp::Neg, &a).unwrap();
    let got = ok(exec::unary(r, UnaryOp::Neg, av, dt), &what);
    assert_same(&r.download(&got.mem), &want.read(), 0.0, &what);
    for op in [ReduceOp::Sum, ReduceOp::Argmax] {
        for dim in [None, Some(l.dim % nd)] {
            let Ok(want) = reduce(op, &on_sim(&a), dim.map(|d| d as i64), false) else {
                continue; // argmax over nothing
            };
            let got = ok(exec::reduce(r, op, av, dim, want.shape().to_vec()), &what);
            let what = format!("{what}: {}(dim={dim:?})", op.name());
            assert_same(&r.download(&got.mem), &want.read(), 0.0, &what);
        }
    }
}
