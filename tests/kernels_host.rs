//! The CUDA kernels, run on the CPU: `kernels/*.cu` compiled as C++ with
//! `kernels/host_shim.h` (each thread of each block is a call, or a real
//! thread where the kernel synchronises) and checked against the simulator's
//! own ops on the same inputs. What this cannot check is the GPU itself:
//! memory, launches and streams on the driver.
//!
//! Needs a C++20 compiler (`$CXX`, else `c++`). Without one the tests say so
//! and pass, except under CI, where they fail.

use std::ffi::{c_void, CString};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use cudash::runtime::buffer::Buffer;
use cudash::runtime::cuda::args::{self, *};
use cudash::runtime::cuda::launch::{reduce_plan, ReducePlan};
use cudash::runtime::cuda::source::{self, Kernel, Pass, BINARY_OPS, REDUCE_OPS, UNARY_OPS};
use cudash::runtime::element::Element;
use cudash::runtime::ops::elementwise::{binary, unary, BinaryOp, Operand as SimOperand};
use cudash::runtime::ops::factory::{self, from_value, Distribution};
use cudash::runtime::ops::reduce::{reduce, ReduceOp};
use cudash::runtime::rng::Generator;
use cudash::runtime::shape::broadcast_strides;
use cudash::runtime::{DType, Device, Tensor};
use cudash::with_dtype;

/// The compiled kernels, loaded; None when no C++ compiler is found.
struct Lib(*mut c_void);
unsafe impl Send for Lib {}
unsafe impl Sync for Lib {}

fn lib() -> Option<&'static Lib> {
    static LIB: OnceLock<Option<Lib>> = OnceLock::new();
    LIB.get_or_init(build).as_ref()
}

fn build() -> Option<Lib> {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("kernels_host");
    std::fs::create_dir_all(&out).unwrap();
    let mut all = String::from(source::COMMON);
    for (_, src) in source::FILES {
        all.push_str(src);
    }
    let src = out.join("all.cu");
    std::fs::write(&src, all).unwrap();
    let so = out.join(format!("libkernels-{}.so", std::process::id()));
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let status = Command::new(&cxx)
        .args([
            "-std=c++20",
            "-O2",
            "-fPIC",
            "-shared",
            "-pthread",
            "-include",
        ])
        .arg(format!("{root}/kernels/host_shim.h"))
        .args(["-x", "c++"])
        .arg(&src)
        .arg(format!("{root}/kernels/host_emu.cpp"))
        .arg("-o")
        .arg(&so)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            panic!("the kernels did not compile as C++ ({s}): see the compiler's messages above")
        }
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI needs a C++ compiler for the kernel tests: `{cxx}` could not run ({e})"
            );
            eprintln!("SKIPPED: no C++ compiler (`{cxx}`: {e}); the CUDA kernels were not checked");
            return None;
        }
    }
    let path = CString::new(so.to_str().unwrap()).unwrap();
    // SAFETY: loading the library just built.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    assert!(
        !handle.is_null(),
        "dlopen of the host-compiled kernels failed"
    );
    Some(Lib(handle))
}

impl Lib {
    fn symbol(&self, name: &str) -> *mut c_void {
        let c = CString::new(name).unwrap();
        // SAFETY: a live handle and a NUL-terminated name.
        let p = unsafe { libc::dlsym(self.0, c.as_ptr()) };
        assert!(!p.is_null(), "the kernels define no `{name}`");
        p
    }

    /// Runs `kernel` over `grid` blocks of `block` threads, as a GPU would:
    /// sequential calls, or one OS thread per GPU thread when it synchronises.
    fn launch<A: Copy + Send + Sync>(
        &self,
        kernel: &Kernel,
        grid: u32,
        block: u32,
        args: A,
        syncs: bool,
    ) {
        static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
        let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        type Dims = unsafe extern "C" fn(u32, u32);
        type Begin = unsafe extern "C" fn(u32);
        type End = unsafe extern "C" fn();
        // SAFETY: the symbols have these C signatures (kernels/host_emu.cpp), and every
        // kernel takes one argument struct by value, laid out as `A` (args.rs).
        unsafe {
            let dims: Dims = std::mem::transmute(self.symbol("emu_launch_dims"));
            let thread: Dims = std::mem::transmute(self.symbol("emu_thread"));
            let begin: Begin = std::mem::transmute(self.symbol("emu_begin_block"));
            let end: End = std::mem::transmute(self.symbol("emu_end_block"));
            let f: unsafe extern "C" fn(A) = std::mem::transmute(self.symbol(&kernel.name));
            dims(grid, block);
            for b in 0..grid {
                if syncs {
                    begin(block);
                    std::thread::scope(|s| {
                        for t in 0..block {
                            s.spawn(move || {
                                thread(b, t);
                                f(args)
                            });
                        }
                    });
                    end();
                } else {
                    for t in 0..block {
                        thread(b, t);
                        f(args);
                    }
                }
            }
        }
    }
}

macro_rules! need_lib {
    () => {
        match lib() {
            Some(l) => l,
            None => return,
        }
    };
}

/// Small grids, so grid-stride loops go round more than once.
const GRID: u32 = 3;
const BLOCK: u32 = 32;

fn ptr(t: &Tensor) -> u64 {
    let guard = t.read();
    with_dtype!(t.dtype(), T => guard.as_slice::<T>().as_ptr() as u64)
}

fn buf_ptr(b: &mut Buffer) -> u64 {
    with_dtype!(b.dtype(), T => b.as_mut_slice::<T>().as_mut_ptr() as u64)
}

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

#[test]
fn every_kernel_the_runtime_names_is_defined() {
    let lib = need_lib!();
    for k in source::all_kernels() {
        lib.symbol(&k.name);
    }
}

/// Every cast (49) over edge values, bit for bit against `Buffer::cast`,
/// from a strided source into a strided destination.
#[test]
fn casts_match_the_simulator() {
    let lib = need_lib!();
    for from in DType::ALL {
        let base = edge_values(from, 60, 1);
        // Every other element, backwards in pairs: a [30] view with stride 2, offset 1.
        let src = base.view(vec![30], vec![2], 1);
        for to in DType::ALL {
            let want = src.copy().read().cast(to);
            // Into every third slot of a larger buffer.
            let mut out = Buffer::zeros(to, 91);
            let (sh, l) = args::plan(
                &[30],
                &[
                    args::Operand {
                        strides: &[2],
                        offset: 1,
                    },
                    args::Operand {
                        strides: &[3],
                        offset: 1,
                    },
                ],
            )
            .unwrap();
            let a = CastArgs {
                out: buf_ptr(&mut out),
                input: ptr(&base),
                shape: sh,
                sin: l[0],
                sout: l[1],
            };
            lib.launch(&source::cast(from, to), GRID, BLOCK, a, false);
            let got = Tensor::new(out, vec![91], Device::Cpu)
                .view(vec![30], vec![3], 1)
                .copy();
            assert_same(&got.read(), &want, 0.0, &format!("cast {from} -> {to}"));
        }
    }
}

/// Every f16 and bf16 bit pattern converts to f32 and back as the half crate does.
#[test]
fn half_conversions_are_exact_for_every_bit_pattern() {
    let lib = need_lib!();
    for dt in [DType::F16, DType::BF16] {
        let bits: Vec<u16> = (0..=u16::MAX).collect();
        let halves = match dt {
            DType::F16 => Buffer::F16(bits.iter().map(|&b| half::f16::from_bits(b)).collect()),
            _ => Buffer::BF16(bits.iter().map(|&b| half::bf16::from_bits(b)).collect()),
        };
        let t = Tensor::new(halves, vec![65536], Device::Cpu);
        let (sh, l) = args::plan(
            &[65536],
            &[args::Operand {
                strides: &[1],
                offset: 0,
            }; 2],
        )
        .unwrap();
        let mut wide = Buffer::zeros(DType::F32, 65536);
        let a = CastArgs {
            out: buf_ptr(&mut wide),
            input: ptr(&t),
            shape: sh,
            sin: l[0],
            sout: l[1],
        };
        lib.launch(&source::cast(dt, DType::F32), 64, 256, a, false);
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
        let (sh, l) = args::plan(
            &[n],
            &[args::Operand {
                strides: &[1],
                offset: 0,
            }; 2],
        )
        .unwrap();
        let mut back = Buffer::zeros(dt, n);
        let a = CastArgs {
            out: buf_ptr(&mut back),
            input: ptr(&src),
            shape: sh,
            sin: l[0],
            sout: l[1],
        };
        lib.launch(&source::cast(DType::F32, dt), 64, 256, a, false);
        let want = src.read().cast(dt);
        with_dtype!(dt, T => {
            for (i, (g, w)) in back.as_slice::<T>().iter().zip(want.as_slice::<T>()).enumerate() {
                assert!(g.to_f64().to_bits() == w.to_f64().to_bits() || (g.is_nan() && w.is_nan()), "f32 {:?} to {dt}: kernel {g:?}, simulator {w:?}", src.to_vec::<f32>()[i]);
            }
        });
    }
}

/// Runs a binary kernel on the operands as the simulator's `binary` computes them.
fn emu_binary(lib: &Lib, op: BinaryOp, a: &Tensor, b: &Tensor, compute: DType) -> Option<Tensor> {
    let kernel = source::binary(op, compute)?;
    let shape = cudash::runtime::shape::broadcast_shapes(a.shape(), b.shape()).unwrap();
    let (ca, cb) = (a.cast(compute), b.cast(compute));
    let (sa, sb) = (
        broadcast_strides(ca.shape(), ca.strides(), &shape),
        broadcast_strides(cb.shape(), cb.strides(), &shape),
    );
    let (sh, l) = args::plan(
        &shape,
        &[
            args::Operand {
                strides: &sa,
                offset: ca.offset(),
            },
            args::Operand {
                strides: &sb,
                offset: cb.offset(),
            },
        ],
    )
    .unwrap();
    let out_dt = if op.is_comparison() {
        DType::Bool
    } else {
        compute
    };
    let n = shape.iter().product();
    let mut out = Buffer::zeros(out_dt, n);
    let p = BinaryArgs {
        out: buf_ptr(&mut out),
        a: ptr(&ca),
        b: ptr(&cb),
        shape: sh,
        sa: l[0],
        sb: l[1],
    };
    lib.launch(&kernel, GRID, BLOCK, p, false);
    Some(Tensor::new(out, shape, Device::Cpu))
}

/// Every binary op and comparison in every dtype, over a broadcast of a
/// transposed view against a column, against `ops::elementwise::binary`.
#[test]
fn binary_ops_and_comparisons_match_the_simulator() {
    let lib = need_lib!();
    for dt in DType::ALL {
        // [4,6] viewed transposed as [6,4]; against a [6,1] column.
        let a = edge_values(dt, 24, 2).reshape(&[4, 6]).unwrap().t();
        let b = edge_values(dt, 30, 3).view(vec![6, 1], vec![5, 1], 2);
        for op in BINARY_OPS {
            let Ok(want) = binary(op, SimOperand::strong(&a), SimOperand::strong(&b)) else {
                continue; // refused before any kernel runs (negative integer powers, bool `-`)
            };
            let compute = match op {
                BinaryOp::Div => dt.to_float(),
                BinaryOp::Pow if dt == DType::Bool => DType::I64,
                _ => dt,
            };
            let got = emu_binary(lib, op, &a, &b, compute)
                .unwrap_or_else(|| panic!("no kernel for {dt} {op:?}"));
            assert_eq!(got.shape(), want.shape());
            assert_same(
                &got.read(),
                &want.read(),
                0.0,
                &format!("{dt} {}", op.symbol()),
            );
        }
    }
}

/// Integer division's edges (MIN / -1, division by zero is refused earlier)
/// and integer powers, against the simulator.
#[test]
fn integer_edges_match_the_simulator() {
    let lib = need_lib!();
    let a = Tensor::from_vec(vec![i64::MIN, i64::MIN, -7, 7, 3, -2, 2, 0], vec![8]);
    let b = Tensor::from_vec(vec![-1i64, 1, 2, -2, 40, 63, 64, 0], vec![8]);
    for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Pow] {
        let want = binary(
            op,
            SimOperand::strong(&a),
            SimOperand::strong(&b.abs_for_pow(op)),
        )
        .unwrap();
        let got = emu_binary(lib, op, &a, &b.abs_for_pow(op), DType::I64).unwrap();
        assert_same(
            &got.read(),
            &want.read(),
            0.0,
            &format!("i64 {}", op.symbol()),
        );
    }
    let got = emu_binary(
        lib,
        BinaryOp::Div,
        &a.cast(DType::I64),
        &Tensor::from_vec(vec![-1i64; 8], vec![8]),
        DType::I64,
    )
    .unwrap();
    assert_eq!(
        got.to_vec::<i64>()[0],
        0,
        "i64::MIN / -1 wraps to 0, as the simulator's checked_div"
    );
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

#[test]
fn unary_ops_match_the_simulator() {
    let lib = need_lib!();
    for dt in DType::ALL {
        let t = edge_values(dt, 40, 4);
        for op in UNARY_OPS {
            let Ok(want) = unary(op, &t) else { continue };
            let Some(kernel) = source::unary(op, want.dtype()) else {
                assert!(dt == DType::Bool, "no kernel for {dt} {op:?}");
                continue; // bool neg is refused; abs and relu copy
            };
            let src = t.cast(want.dtype());
            let (sh, l) = args::plan(
                &[40],
                &[args::Operand {
                    strides: &[1],
                    offset: 0,
                }],
            )
            .unwrap();
            let mut out = Buffer::zeros(want.dtype(), 40);
            let p = UnaryArgs {
                out: buf_ptr(&mut out),
                input: ptr(&src),
                shape: sh,
                s: l[0],
            };
            lib.launch(&kernel, GRID, BLOCK, p, false);
            assert_same(&out, &want.read(), 0.0, &format!("{dt} {}", op.name()));
        }
    }
}

#[test]
fn fill_and_arange_match_the_simulator() {
    let lib = need_lib!();
    for dt in DType::ALL {
        for value in [0.0, 1.5, -2.0, 1e10, f64::NAN] {
            let want = factory::full(&[2, 5], value, dt, Device::Cpu).unwrap();
            let bits: u64 = with_dtype!(dt, T => {
                let v: T = from_value::<T>(value);
                let mut bytes = [0u8; 8];
                // SAFETY: T is a plain element of dt.size() bytes.
                unsafe { std::ptr::copy_nonoverlapping(&v as *const T as *const u8, bytes.as_mut_ptr(), dt.size()) };
                u64::from_le_bytes(bytes)
            });
            // Into a transposed destination: the fill must reach every element once.
            let mut out = Buffer::zeros(dt, 10);
            let (sh, l) = args::plan(
                &[5, 2],
                &[args::Operand {
                    strides: &[1, 5],
                    offset: 0,
                }],
            )
            .unwrap();
            let p = FillArgs {
                out: buf_ptr(&mut out),
                shape: sh,
                s: l[0],
                bits,
            };
            lib.launch(&source::fill(dt.size()), GRID, BLOCK, p, false);
            assert_same(&out, &want.read(), 0.0, &format!("fill {dt} {value}"));
        }
        let Some(kernel) = source::arange(dt) else {
            continue;
        };
        for (start, end, step) in [(0.0, 10.0, 1.0), (-3.0, 2.0, 0.25), (5.0, -5.0, -0.7)] {
            let want = factory::arange(start, end, step, dt, Device::Cpu).unwrap();
            let mut out = Buffer::zeros(dt, want.numel());
            let p = ArangeArgs {
                out: buf_ptr(&mut out),
                n: want.numel() as i64,
                start,
                step,
            };
            lib.launch(&kernel, GRID, BLOCK, p, false);
            assert_same(
                &out,
                &want.read(),
                0.0,
                &format!("arange {dt} {start} {end} {step}"),
            );
        }
    }
}

/// rand and randn draw exactly the simulator's numbers for the same seed and offset.
#[test]
fn random_numbers_match_the_simulator_bit_for_bit() {
    let lib = need_lib!();
    for dt in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        for (normal, n) in [(false, 1001usize), (true, 999)] {
            let mut sim = Generator::new(42);
            sim.offset = 17; // as after earlier draws
            let first = sim.offset;
            let dist = if normal {
                Distribution::Normal
            } else {
                Distribution::Uniform
            };
            let want = factory::random(&mut sim, dist, &[n], dt, Device::Cpu).unwrap();
            assert_eq!(
                sim.offset,
                first + n.div_ceil(4) as u64,
                "the kernel's caller advances the offset the same way"
            );
            let mut out = Buffer::zeros(dt, n);
            let p = RandomArgs {
                out: buf_ptr(&mut out),
                n: n as i64,
                seed: 42,
                first,
                mean: 0.0,
                std: 1.0,
            };
            lib.launch(&source::random(normal, dt).unwrap(), GRID, BLOCK, p, false);
            assert_same(
                &out,
                &want.read(),
                0.0,
                &format!("{} {dt}", if normal { "randn" } else { "rand" }),
            );
        }
    }
}

/// Runs a reduction the way the CUDA backend plans it, with small chunks so
/// the combining pass has several partial results per row.
fn emu_reduce(lib: &Lib, op: ReduceOp, t: &Tensor, dim: Option<usize>) -> Option<Buffer> {
    let t = t.copy(); // the kernels read a contiguous input
    let shape = t.shape();
    let (outer, len, inner) = match dim {
        None => (1, t.numel(), 1),
        Some(d) => (
            shape[..d].iter().product(),
            shape[d],
            shape[d + 1..].iter().product(),
        ),
    };
    let out_dt = match op {
        ReduceOp::Argmax => DType::I64,
        ReduceOp::Sum if !t.dtype().is_float() => DType::I64,
        _ => t.dtype(),
    };
    let mut out = Buffer::zeros(out_dt, outer * inner);
    let plan = reduce_plan(outer as u64, len as u64, inner as u64, 6, 5);
    let mut partial = vec![
        Acc {
            f: 0.0,
            i: 0,
            idx: 0
        };
        plan.partials(outer as u64) as usize
    ];
    let p = ReduceArgs {
        input: ptr(&t),
        out: buf_ptr(&mut out),
        partial: partial.as_mut_ptr() as u64,
        outer: outer as i64,
        len: len as i64,
        inner: inner as i64,
        chunks: 0,
        chunk_len: 0,
    };
    match plan {
        ReducePlan::Rows { chunks, chunk_len } => {
            let p = ReduceArgs {
                chunks: chunks as i64,
                chunk_len: chunk_len as i64,
                ..p
            };
            lib.launch(&source::reduce(Pass::Rows, op, t.dtype())?, 4, 8, p, true);
            lib.launch(&source::reduce(Pass::Finish, op, t.dtype())?, 2, 4, p, true);
        }
        ReducePlan::Cols => lib.launch(
            &source::reduce(Pass::Cols, op, t.dtype())?,
            GRID,
            BLOCK,
            p,
            false,
        ),
    }
    Some(out)
}

#[test]
fn reductions_match_the_simulator() {
    let lib = need_lib!();
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
        for op in REDUCE_OPS {
            for dim in [None, Some(0), Some(1), Some(2)] {
                let Ok(want) = reduce(op, &t, dim.map(|d| d as i64), false) else {
                    continue;
                };
                let got = emu_reduce(lib, op, &t, dim)
                    .unwrap_or_else(|| panic!("no kernel for {dt} {op:?}"));
                // Sums add in another order: equal to the last bits of f64 accumulation.
                let tol = if matches!(op, ReduceOp::Sum | ReduceOp::Mean) {
                    1e-12
                } else {
                    0.0
                };
                assert_same(
                    &got,
                    &want.read(),
                    tol,
                    &format!("{dt} {}(dim={dim:?})", op.name()),
                );
            }
        }
    }
    // A long row: many chunks, ties and a late maximum.
    let v: Vec<f32> = (0..1000).map(|i| ((i * 37) % 101) as f32).collect();
    let t = Tensor::from_vec(v, vec![1000]);
    for op in [
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::Argmax,
        ReduceOp::Sum,
    ] {
        let want = reduce(op, &t, None, false).unwrap();
        assert_same(
            &emu_reduce(lib, op, &t, None).unwrap(),
            &want.read(),
            1e-12,
            op.name(),
        );
    }
}
