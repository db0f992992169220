//! The CUDA backend's operations on a real GPU, timed with CUDA events, for
//! `benches/gpu/run` to set beside PyTorch on the same GPU. Each operation is
//! the backend's own path: `cuda::exec` on `cuda::launcher::OnStream` (the
//! caching allocator's blocks, kernels from NVRTC, cuBLAS), and each result
//! is checked before it is timed, so no figure is the speed of a wrong answer.
//!
//! ```sh
//! gpu-bench [--quick]        # JSON lines on stdout, one per measurement
//! gpu-bench first-result     # one fresh process's time to its first result
//! gpu-bench sweep            # add and sum at several launch shapes (tuning)
//! gpu-bench copies           # the host copies alone (run again to see their spread)
//! ```

use std::sync::{Arc, Mutex};
use std::time::Instant;

use cudash::runtime::cuda::blas::Blas;
use cudash::runtime::cuda::driver::{CudaDevice, DriverSegments, Event, Stream};
use cudash::runtime::cuda::exec::{self, Out, View};
use cudash::runtime::cuda::launcher::{DeviceMemory, OnStream};
use cudash::runtime::driver::Geometry;
use cudash::runtime::gpu::DeviceAllocator;
use cudash::runtime::op::binary::BinaryOp;
use cudash::runtime::op::factory::Distribution;
use cudash::runtime::op::reduce::ReduceOp;
use cudash::runtime::rng::Generator;
use cudash::runtime::shape::contiguous_strides;
use cudash::runtime::DType;

// The allocator the cudash binary uses (src/main.rs), so host buffers here
// are what its tensors get: mimalloc gives large ones page-aligned, where
// glibc's malloc gives them 16 bytes past a page, and device-to-host copies
// into those ran at 10 GB/s instead of 13 on an H100.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

type R<T> = Result<T, String>;

fn s<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

struct Bench {
    device: Arc<CudaDevice>,
    allocator: Arc<Mutex<DeviceAllocator>>,
    blas: Mutex<Blas>,
    stream: Stream,
    geometry: Geometry,
    quick: bool,
}

impl Bench {
    fn open(quick: bool) -> R<Bench> {
        let device = Arc::new(CudaDevice::open(0).map_err(s)?);
        let allocator = Arc::new(Mutex::new(DeviceAllocator::new(Box::new(DriverSegments {
            device: Arc::clone(&device),
        }))));
        let blas = Mutex::new(Blas::new(&device)?);
        let stream = device.stream().map_err(s)?;
        let geometry = Geometry::for_device(device.info.multiprocessors);
        Ok(Bench {
            device,
            allocator,
            blas,
            stream,
            geometry,
            quick,
        })
    }

    fn on(&self) -> OnStream<'_> {
        OnStream {
            device: &self.device,
            index: 0,
            allocator: &self.allocator,
            blas: &self.blas,
            stream: Some(&self.stream),
            stream_id: 1,
            geometry: self.geometry,
        }
    }

    fn sync(&self) -> R<()> {
        self.device
            .synchronize_stream(Some(&self.stream))
            .map_err(s)
    }

    /// The median of `reps` timings (ms) of `f`, each between two events on
    /// the stream, after `warm` untimed runs.
    fn time(&self, warm: usize, reps: usize, mut f: impl FnMut() -> R<()>) -> R<f64> {
        for _ in 0..warm {
            f()?;
        }
        let mut events: Vec<(Event, Event)> = Vec::new();
        for _ in 0..reps {
            let (a, b) = (
                self.device.event(true).map_err(s)?,
                self.device.event(true).map_err(s)?,
            );
            a.record(Some(&self.stream)).map_err(s)?;
            f()?;
            b.record(Some(&self.stream)).map_err(s)?;
            events.push((a, b));
        }
        self.sync()?;
        let mut ms: Vec<f64> = events
            .iter()
            .map(|(a, b)| a.elapsed_ms(b).map(|m| m as f64).map_err(s))
            .collect::<R<_>>()?;
        ms.sort_by(|a, b| a.total_cmp(b));
        Ok(ms[ms.len() / 2])
    }

    fn random(&self, gen: &mut Generator, n: usize, dt: DType) -> R<Out<DeviceMemory>> {
        exec::random(&self.on(), gen, Distribution::Normal, &[n], dt, (0.0, 1.0)).map_err(s)
    }

    fn download(&self, m: &DeviceMemory, bytes: usize) -> R<Vec<u8>> {
        let mut v = vec![0u8; bytes];
        // SAFETY: `m` holds at least `bytes`; `v` outlives the synchronize below.
        unsafe {
            self.device
                .copy_to_host(v.as_mut_ptr(), m.addr, bytes, Some(&self.stream))
        }
        .map_err(s)?;
        self.sync()?;
        Ok(v)
    }

    fn f32s(&self, m: &DeviceMemory, n: usize) -> R<Vec<f32>> {
        let b = self.download(m, n * 4)?;
        Ok(b.chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    }
}

fn view<'a>(o: &'a Out<DeviceMemory>, strides: &'a [isize]) -> View<'a, DeviceMemory> {
    View {
        mem: &o.mem,
        dtype: o.dtype,
        shape: &o.shape,
        strides,
        offset: 0,
    }
}

/// The first side² f32 of `mem` as a row-major square matrix.
fn square<'a>(
    mem: &'a DeviceMemory,
    shape: &'a [usize; 2],
    strides: &'a [isize; 2],
) -> View<'a, DeviceMemory> {
    View {
        mem,
        dtype: DType::F32,
        shape,
        strides,
        offset: 0,
    }
}

fn emit(name: &str, ms: f64, fields: &[(&str, f64)]) {
    let mut line = format!("{{\"name\":\"{name}\",\"ms\":{ms:.6}");
    for (k, v) in fields {
        line.push_str(&format!(",\"{k}\":{v:.6}"));
    }
    line.push('}');
    println!("{line}");
}

fn gbs(bytes: f64, ms: f64) -> f64 {
    bytes / (ms * 1e6)
}

fn elementwise_and_reductions(b: &Bench) -> R<()> {
    let n: usize = if b.quick { 1 << 24 } else { 1 << 28 };
    let mut gen = Generator::new(7);
    let x = b.random(&mut gen, n, DType::F32)?;
    let y = b.random(&mut gen, n, DType::F32)?;
    let st = contiguous_strides(&x.shape);
    let (vx, vy) = (view(&x, &st), view(&y, &st));
    let on = b.on();

    // Checked first: every element of a sample of the sum.
    let z = exec::binary(&on, BinaryOp::Add, vx, vy, DType::F32).map_err(s)?;
    let sample = n.min(1 << 22);
    let (hx, hy, hz) = (
        b.f32s(&x.mem, sample)?,
        b.f32s(&y.mem, sample)?,
        b.f32s(&z.mem, sample)?,
    );
    if let Some(i) = (0..sample).find(|&i| hz[i].to_bits() != (hx[i] + hy[i]).to_bits()) {
        return Err(format!(
            "add: element {i} is {} for {} + {}",
            hz[i], hx[i], hy[i]
        ));
    }
    drop(z);
    let ms = b.time(3, 20, || {
        exec::binary(&on, BinaryOp::Add, vx, vy, DType::F32)
            .map(drop)
            .map_err(s)
    })?;
    emit(
        "add_f32",
        ms,
        &[("n", n as f64), ("gbs", gbs(12.0 * n as f64, ms))],
    );

    // The device-to-device copy of the same bytes: the bandwidth ceiling.
    let dst = on.memory(n * 4).map_err(s)?;
    let ms = b.time(3, 20, || {
        // SAFETY: both hold n f32.
        unsafe {
            b.device
                .copy_on_device(dst.addr, x.mem.addr, n * 4, Some(&b.stream))
        }
        .map_err(s)
    })?;
    emit(
        "copy_d2d",
        ms,
        &[("n", n as f64), ("gbs", gbs(8.0 * n as f64, ms))],
    );
    drop(dst);

    // sum: against the sum in f64 on the host (the kernel accumulates in f64).
    let total = exec::reduce(&on, ReduceOp::Sum, vx, None, vec![]).map_err(s)?;
    let got = b.f32s(&total.mem, 1)?[0] as f64;
    let hx = b.f32s(&x.mem, n)?;
    let want = hx.iter().map(|&v| v as f64).sum::<f64>();
    if (got - want).abs() > 1e-6 * want.abs().max(1.0) {
        return Err(format!("sum: {got}, want {want}"));
    }
    drop(total);
    let ms = b.time(3, 20, || {
        exec::reduce(&on, ReduceOp::Sum, vx, None, vec![])
            .map(drop)
            .map_err(s)
    })?;
    emit(
        "sum_f32",
        ms,
        &[("n", n as f64), ("gbs", gbs(4.0 * n as f64, ms))],
    );

    // A matrix's columns and rows: sum over dim 0 (strided axis) and dim 1.
    let side = (n as f64).sqrt() as usize;
    let (shape, st2) = ([side, side], [side as isize, 1]);
    let m = square(&x.mem, &shape, &st2);
    for (dim, name) in [(0usize, "sum_dim0_f32"), (1, "sum_dim1_f32")] {
        let r = exec::reduce(&on, ReduceOp::Sum, m, Some(dim), vec![side]).map_err(s)?;
        let got = b.f32s(&r.mem, side)?;
        for j in [0, side / 2, side - 1] {
            let want: f64 = (0..side)
                .map(|k| {
                    let (row, col) = if dim == 0 { (k, j) } else { (j, k) };
                    hx[row * side + col] as f64
                })
                .sum();
            if (got[j] as f64 - want).abs() > 1e-5 * want.abs().max(1.0) {
                return Err(format!("{name}: output {j} is {}, want {want}", got[j]));
            }
        }
        drop(r);
        let ms = b.time(3, 20, || {
            exec::reduce(&on, ReduceOp::Sum, m, Some(dim), vec![side])
                .map(drop)
                .map_err(s)
        })?;
        let bytes = 4.0 * (side * side) as f64;
        emit(
            name,
            ms,
            &[("n", (side * side) as f64), ("gbs", gbs(bytes, ms))],
        );
    }
    Ok(())
}

/// add and sum at launch shapes around the backend's, for tuning: the
/// kernels' compile-time knobs come from CUDASH_KERNEL_DEFINES, and each
/// line names them.
fn sweep(b: &Bench) -> R<()> {
    let n: usize = if b.quick { 1 << 24 } else { 1 << 28 };
    let defines = std::env::var("CUDASH_KERNEL_DEFINES").unwrap_or_default();
    let tag = defines.replace("-D", "").replace(' ', ",");
    let mut gen = Generator::new(7);
    let x = b.random(&mut gen, n, DType::F32)?;
    let y = b.random(&mut gen, n, DType::F32)?;
    let st = contiguous_strides(&x.shape);
    let (vx, vy) = (view(&x, &st), view(&y, &st));
    let sms = b.device.info.multiprocessors;
    for per_sm in [2u32, 4, 8, 32] {
        let mut g = b.geometry;
        g.max_blocks = per_sm * sms;
        let on = OnStream {
            geometry: g,
            ..b.on()
        };
        let ms = b.time(3, 20, || {
            exec::binary(&on, BinaryOp::Add, vx, vy, DType::F32)
                .map(drop)
                .map_err(s)
        })?;
        emit(
            &format!("sweep add [{tag}] {per_sm} blocks/SM"),
            ms,
            &[("gbs", gbs(12.0 * n as f64, ms))],
        );
    }
    for per_sm in [2u64, 4, 8] {
        let mut g = b.geometry;
        g.reduce.blocks = per_sm * sms as u64;
        let on = OnStream {
            geometry: g,
            ..b.on()
        };
        let ms = b.time(3, 20, || {
            exec::reduce(&on, ReduceOp::Sum, vx, None, vec![])
                .map(drop)
                .map_err(s)
        })?;
        emit(
            &format!("sweep sum [{tag}] {per_sm} blocks/SM"),
            ms,
            &[("gbs", gbs(4.0 * n as f64, ms))],
        );
    }
    let side = (n as f64).sqrt() as usize;
    let (shape, st2) = ([side, side], [side as isize, 1]);
    let m = square(&x.mem, &shape, &st2);
    let on = b.on();
    let ms = b.time(3, 20, || {
        exec::reduce(&on, ReduceOp::Sum, m, Some(0), vec![side])
            .map(drop)
            .map_err(s)
    })?;
    emit(
        &format!("sweep sum dim 0 [{tag}]"),
        ms,
        &[("gbs", gbs(4.0 * (side * side) as f64, ms))],
    );
    Ok(())
}

fn matmuls(b: &Bench) -> R<()> {
    let n: usize = if b.quick { 2048 } else { 8192 };
    let on = b.on();
    let mut gen = Generator::new(11);
    let shape = [n, n];
    let st = contiguous_strides(&shape);
    for (dt, name, tol) in [
        (DType::F32, "matmul_f32", 1e-4),
        (DType::F16, "matmul_f16", 1e-2),
        (DType::BF16, "matmul_bf16", 4e-2),
    ] {
        let a = b.random(&mut gen, n * n, dt)?;
        let c = b.random(&mut gen, n * n, dt)?;
        let (va, vc) = (
            View {
                mem: &a.mem,
                dtype: dt,
                shape: &shape,
                strides: &st,
                offset: 0,
            },
            View {
                mem: &c.mem,
                dtype: dt,
                shape: &shape,
                strides: &st,
                offset: 0,
            },
        );
        // Checked on a few outputs against f64 dot products of the operands as stored.
        let p = exec::matmul(&on, va, vc, dt, false).map_err(s)?;
        let as64 = |m: &DeviceMemory| -> R<Vec<f64>> {
            let f = exec::cast(
                &on,
                View {
                    mem: m,
                    dtype: dt,
                    shape: &shape,
                    strides: &st,
                    offset: 0,
                },
                DType::F64,
            )
            .map_err(s)?;
            let bytes = b.download(&f.mem, n * n * 8)?;
            Ok(bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect())
        };
        let (ha, hc, hp) = (as64(&a.mem)?, as64(&c.mem)?, as64(&p.mem)?);
        for (i, j) in [(0, 0), (n / 3, n / 2), (n - 1, n - 1), (17, n - 5)] {
            let want: f64 = (0..n).map(|k| ha[i * n + k] * hc[k * n + j]).sum();
            let norm: f64 = (0..n).map(|k| (ha[i * n + k] * hc[k * n + j]).abs()).sum();
            if (hp[i * n + j] - want).abs() > tol * norm {
                return Err(format!(
                    "{name}: C[{i},{j}] = {}, want {want}",
                    hp[i * n + j]
                ));
            }
        }
        drop(p);
        let ms = b.time(2, 10, || {
            exec::matmul(&on, va, vc, dt, false).map(drop).map_err(s)
        })?;
        let tflops = 2.0 * (n as f64).powi(3) / (ms * 1e9);
        emit(name, ms, &[("n", n as f64), ("tflops", tflops)]);
    }
    Ok(())
}

/// Host memory aligned to `align` bytes, freed when dropped.
struct HostBuffer {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl HostBuffer {
    fn new(bytes: usize, align: usize) -> R<HostBuffer> {
        let layout = std::alloc::Layout::from_size_align(bytes, align).map_err(s)?;
        // SAFETY: a non-zero size; the pointer is checked below.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            return Err(format!("could not allocate {bytes} host bytes"));
        }
        Ok(HostBuffer { ptr, layout })
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}

/// 1 GiB each way between the device and: pageable memory as a tensor's
/// `Vec` gets it, pageable memory aligned to 64 bytes (as PyTorch's CPU
/// allocator gives it), and pinned memory.
fn host_copies(b: &Bench) -> R<()> {
    let bytes: usize = if b.quick { 64 << 20 } else { 1 << 30 };
    let on = b.on();
    let dev = on.memory(bytes).map_err(s)?;
    let mut vec = vec![0u8; bytes];
    for (i, v) in vec.iter_mut().enumerate() {
        *v = (i * 31 % 251) as u8;
    }
    let aligned = HostBuffer::new(bytes, 64)?;
    let pinned = b.device.pinned(bytes).map_err(s)?;
    // SAFETY: each holds `bytes`.
    unsafe {
        std::ptr::copy_nonoverlapping(vec.as_ptr(), aligned.ptr, bytes);
        std::ptr::copy_nonoverlapping(vec.as_ptr(), pinned.ptr, bytes);
    }
    let cases: [(&str, *mut u8); 3] = [
        ("pageable", vec.as_mut_ptr()),
        ("pageable_aligned64", aligned.ptr),
        ("pinned", pinned.ptr),
    ];
    for (kind, host) in cases {
        let ms = b.time(2, 10, || {
            // SAFETY: `dev` and the host buffer hold `bytes` and outlive the sync in `time`.
            unsafe {
                b.device
                    .copy_to_device(dev.addr, host, bytes, Some(&b.stream))
            }
            .map_err(s)
        })?;
        emit(
            &format!("h2d_{kind}"),
            ms,
            &[("bytes", bytes as f64), ("gbs", gbs(bytes as f64, ms))],
        );
        let ms = b.time(2, 10, || {
            // SAFETY: as above.
            unsafe {
                b.device
                    .copy_to_host(host, dev.addr, bytes, Some(&b.stream))
            }
            .map_err(s)
        })?;
        emit(
            &format!("d2h_{kind}"),
            ms,
            &[("bytes", bytes as f64), ("gbs", gbs(bytes as f64, ms))],
        );
    }
    // The bytes made the round trip intact.
    b.sync()?;
    let back = b.download(&dev, bytes)?;
    if back
        .iter()
        .enumerate()
        .any(|(i, &v)| v != (i * 31 % 251) as u8)
    {
        return Err("host copies: the bytes did not come back as sent".into());
    }
    Ok(())
}

/// Host time of a cached 1 MiB allocation and free through the allocator.
fn alloc_free(b: &Bench) -> R<()> {
    let on = b.on();
    drop(on.memory(1 << 20).map_err(s)?); // the segment, once
    let iters = if b.quick { 10_000 } else { 1_000_000 };
    let t = Instant::now();
    for _ in 0..iters {
        drop(std::hint::black_box(on.memory(1 << 20).map_err(s)?));
    }
    let ns = t.elapsed().as_nanos() as f64 / iters as f64;
    emit("alloc_free_1mib", ns / 1e6, &[("ns", ns)]);
    Ok(())
}

/// 10,000 adds of a 1,000-element tensor, each allocating its output, the
/// host's cost per op included (launch, allocator): the floor under the same
/// loop run from a script.
fn small_adds(b: &Bench) -> R<()> {
    let on = b.on();
    let mut gen = Generator::new(3);
    let x = b.random(&mut gen, 1000, DType::F32)?;
    let st = contiguous_strides(&x.shape);
    let vx = view(&x, &st);
    let one = exec::arange(&on, 1000, 1.0, 0.0, DType::F32).map_err(s)?;
    let vone = view(&one, &st);
    b.sync()?;
    let ops = 10_000;
    let t = Instant::now();
    let mut y = exec::binary(&on, BinaryOp::Add, vx, vone, DType::F32).map_err(s)?;
    for _ in 1..ops {
        let next = exec::binary(&on, BinaryOp::Add, view(&y, &st), vone, DType::F32).map_err(s)?;
        y = next;
    }
    let enqueued = t.elapsed().as_secs_f64() * 1e3;
    b.sync()?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let got = b.f32s(&y.mem, 1)?[0];
    let want = b.f32s(&x.mem, 1)?[0] + ops as f32;
    if (got - want).abs() > 1e-2 {
        return Err(format!("small adds: {got}, want about {want}"));
    }
    emit(
        "small_adds_10k",
        ms,
        &[
            ("us_per_op", ms * 1e3 / ops as f64),
            ("host_us_per_op", enqueued * 1e3 / ops as f64),
        ],
    );
    Ok(())
}

/// A fresh process's time from start to the first result on the host:
/// driver, context, kernel (compiled, or read from the cache) and a copy back.
fn first_result(started: Instant) -> R<()> {
    let b = Bench::open(true)?;
    let on = b.on();
    let x = exec::arange(&on, 4, 1.0, 1.0, DType::F32).map_err(s)?;
    let st = contiguous_strides(&x.shape);
    let y =
        exec::binary(&on, BinaryOp::Add, view(&x, &st), view(&x, &st), DType::F32).map_err(s)?;
    let got = b.f32s(&y.mem, 4)?;
    if got != [2.0, 4.0, 6.0, 8.0] {
        return Err(format!("first result: {got:?}"));
    }
    emit("first_result", started.elapsed().as_secs_f64() * 1e3, &[]);
    Ok(())
}

fn main() {
    let started = Instant::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if args.iter().any(|a| a == "first-result") {
        first_result(started)
    } else if args.iter().any(|a| a == "sweep") {
        Bench::open(false).and_then(|b| sweep(&b))
    } else if args.iter().any(|a| a == "copies") {
        Bench::open(false).and_then(|b| host_copies(&b))
    } else {
        Bench::open(args.iter().any(|a| a == "--quick")).and_then(|b| {
            eprintln!(
                "{} ({} SMs, {:.0} GiB)",
                b.device.info.name,
                b.device.info.multiprocessors,
                b.device.info.total_memory as f64 / (1u64 << 30) as f64
            );
            elementwise_and_reductions(&b)?;
            matmuls(&b)?;
            host_copies(&b)?;
            alloc_free(&b)?;
            small_adds(&b)
        })
    };
    if let Err(e) = result {
        eprintln!("gpu-bench: {e}");
        std::process::exit(1);
    }
}
