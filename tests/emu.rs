//! The `emu` backend: the CUDA backend's code path (tensors in a driver's
//! device memory, `cuda::exec` launches, driver copies) on the CPU. Every
//! program shows what the simulator shows, and its ops run as kernels.
//!
//! Needs a C++20 compiler for the kernels, as `--backend emu` does.

mod common;

use std::sync::Arc;

use cudash::lesson::outputs::mask_for_check;
use cudash::runtime::backend::{BackendChoice, H100};
use cudash::runtime::cuda::backend::DriverBackend;
use cudash::runtime::cuda::emu::Emu;
use cudash::runtime::devices::Devices;
use cudash::runtime::dispatch::Runtime;
use cudash::runtime::op::binary::{BinaryOp, Operand};
use cudash::runtime::op::factory::{Distribution, NewTensor};
use cudash::runtime::op::index::{select, Index};
use cudash::runtime::op::reduce::ReduceOp;
use cudash::runtime::op::unary::UnaryOp;
use cudash::runtime::{DType, Device, Tensor};
use cudash::session::{Config, Session};
use proptest::prelude::*;

fn session(backend: BackendChoice) -> Session {
    Session::new(Config {
        backend,
        ..Config::default()
    })
    .unwrap_or_else(|e| panic!("--backend {}: {e}", backend.name()))
}

/// `src`, statement by statement, shows the same on emu as on the simulator.
fn same_as_sim(src: &str) {
    let (mut sim, mut emu) = (session(BackendChoice::Sim), session(BackendChoice::Emu));
    for line in src.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (a, b) = (sim.execute(line), emu.execute(line));
        assert_eq!(
            mask_for_check(&a.plain_text()),
            mask_for_check(&b.plain_text()),
            "`{line}` shows something else on emu"
        );
    }
}

#[test]
fn ops_show_what_the_simulator_shows() {
    same_as_sim(
        "x = randn(3, 4, device=cuda)
         x
         y = x * 2 + 1
         y.sum(); y.sum(1); y.mean(0, keepdim=true); y.max(); y.min(1); y.argmax()
         x @ x.T; x[0] @ x.T; x.T @ x[1]; x @ x[0]; x.T @ x.T[1]; x.T[1] @ x
         randn(2, 3, 4, device=cuda) @ randn(4, 5, device=cuda)
         x.to(f16) + x.to(bf16); (x.to(f16) @ x.T.to(f16)).sum()
         a = arange(12, device=cuda).reshape(3, 4)
         a.T.contiguous(); a.T.reshape(12); a * a; a / 2; a ** 2; -a; a.abs()
         (x > 0).sum(); (x > 0) == (x >= 0); (a > 5).to(f32)
         exp(x); log(x.abs()); sqrt(x.abs()); relu(x); sigmoid(x); tanh(x)
         b = zeros(2, 3, device=cuda)
         b[1, 1:] = 7; b
         b[0] = b[1]; b
         b[:, 1:] = b[:, :2]; b
         b.fill_(2); b[0].fill_(5); b
         ones(2, dtype=i32, device=cuda) + 1.5
         full([2, 2], 3, device=cuda:1); empty(3, device=cuda); eye(3, device=cuda)
         linspace(0, 1, 5, device=cuda); arange(0, 1, 0.25, device=cuda)
         c = x.to(cuda:1); c; c.device; x.to(cuda:1) is x
         x[1:].copy_to(cuda:1); x.T.to(cuda:1); x.copy_to(cuda:0)
         x.cpu(); x[2, 3].item(); x.sum().item()
         cat([x, x], 0); stack([x[0], x[1]]); x.T[1:3]
         d = randn(2, 2, device=cuda:1).normal_(1., 2.); d
         u = arange(250, 256, device=cuda).to(u8); u + 10; u * 2; -u; u // 3; u % 7; ~u
         u.sum(); u.cumsum(0); u.max(); u.to(f32) / 255; u > 252; u.sort(descending=true)
         tensor([-1., 256., 300.5], device=cuda).to(u8); u[u > 252]; zeros(3, dtype=u8, device=cuda)
         s = tensor([100, -100, 127, -128], device=cuda).to(i8); s * 2; s + 1; -s; s.abs(); s // 3; s % 3; s / 4
         s.sum(); s.cumsum(0); s.sort(); s.max(1 - 1); s.to(i16) * 300; s & 15; s ^ s.flip(0); s + u[:4]
         tensor([300., -200.2, 40000.], device=cuda).to(i8); arange(5, dtype=i16, device=cuda); full([2], 7, dtype=i8, device=cuda)",
    );
}

/// Reductions big enough to split across blocks (a combining pass) and
/// columns, whose synchronising kernels run their threads as fibers.
#[test]
fn large_reductions_show_what_the_simulator_shows() {
    same_as_sim(
        "x = randn(300, 700, device=cuda)
         x.sum(); x.mean(); x.sum(0)[0:5]; x.sum(1)[0:5]; x.T.sum(0)[0:5]
         x.max(0).values[0:5]; x.min(1).indices[0:5]; x.argmax(); x.argmax(0)[0:5]; x.to(f64).mean(1)[0:5]
         arange(100000, device=cuda).sum(); (x > 0).sum(1)[0:5]",
    );
}

#[test]
fn refusals_are_the_simulators() {
    same_as_sim(
        "t = [true, false].cuda()
         -t
         t - t
         arange(3, device=cuda).mean()
         zeros(0, device=cuda).max()
         randn(2, dtype=i64, device=cuda)
         arange(3, device=cuda) ** -1
         randn(2, 3, device=cuda) @ randn(2, 3, device=cuda)
         randn(2, device=cuda) + randn(3, device=cuda)
         randn(2, device=cuda:0) + randn(2, device=cuda:1)
         zeros(2, device=cuda)[0] = [1., 2.]",
    );
}

#[test]
fn streams_races_and_memory_are_the_simulators() {
    same_as_sim(
        "x = randn(1000, device=cuda)
         stream s { y = x * 2 }
         y.sum()
         z = y + 1
         z[0:3]
         wait s; sync
         A = empty(100, 100, device=cuda).normal_(0., 1.)
         stream s { B = A.sum() }
         B
         mem
         del x; del y; empty_cache(); mem
         profile { for i in 0..5 { l = (A * A).sum().item() } }
         big = zeros(2**40, device=cuda)",
    );
}

/// A runtime on `n` emulated devices, and the driver (to count its launches).
fn emulated(n: u32) -> (Runtime, Arc<Emu>) {
    on(Emu::new(n, 1 << 30, H100.name, H100.compute_capability))
}

/// A runtime on one emulated device presented as a GPU (`Emu::like_a_gpu`).
fn like_a_gpu() -> (Runtime, Arc<Emu>) {
    on(Emu::new(1, 1 << 30, H100.name, H100.compute_capability).like_a_gpu())
}

fn on(emu: Emu) -> (Runtime, Arc<Emu>) {
    let emu = Arc::new(emu);
    emu.prepare().expect("a C++20 compiler for the kernels");
    let backend = DriverBackend::new(emu.clone(), &H100).unwrap();
    let devices = Arc::new(Devices::new(&backend, "test"));
    (Runtime::new(0, devices), emu)
}

#[test]
fn tensors_live_in_device_memory_and_ops_launch_kernels() {
    let (mut rt, emu) = emulated(2);
    let dev = Device::Cuda(0);
    let new = NewTensor {
        shape: &[64, 64],
        dtype: DType::F32,
        device: dev,
        like: None,
    };
    let x = rt.random(new, Distribution::Normal).unwrap();
    assert!(x.device_bytes().is_some(), "x is in device memory");
    let launched = |what: &str, before: u64, emu: &Emu| {
        assert!(emu.launches() > before, "{what} ran no kernel");
        emu.launches()
    };
    let mut n = launched("randn", 0, &emu);
    let y = rt
        .binary(
            BinaryOp::Mul,
            Operand {
                tensor: &x,
                weak: false,
            },
            Operand {
                tensor: &Tensor::scalar(2.0f32),
                weak: true,
            },
        )
        .unwrap();
    n = launched("x * 2", n, &emu);
    let z = rt.unary(UnaryOp::Exp, &y).unwrap();
    n = launched("exp", n, &emu);
    let s = rt.reduce(ReduceOp::Sum, &z, Some(1), false).unwrap();
    n = launched("sum(1)", n, &emu);
    let p = rt.matmul(&x, &z).unwrap();
    n = launched("matmul", n, &emu);
    let c = rt.cast(&p, DType::F16).unwrap();
    n = launched("cast", n, &emu);
    rt.fill(&c, 1.0.into()).unwrap();
    n = launched("fill_", n, &emu);
    rt.normal_(&p, 0.0, 1.0).unwrap();
    n = launched("normal_", n, &emu);
    let joined = rt.join(&[&x, &y], 0, false).unwrap();
    n = launched("cat", n, &emu);
    let eye = rt.eye(3, 3, DType::F32, dev).unwrap();
    launched("eye", n, &emu);
    for t in [&y, &z, &s, &p, &c, &joined, &eye] {
        assert!(t.device_bytes().is_some());
    }
    let moved = rt.copy_to(&s, Device::Cuda(1)).unwrap();
    assert_eq!(moved.device_bytes().map(|b| b.device), Some(1));
    assert_eq!(moved.to_vec::<f32>(), s.to_vec::<f32>());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Elementwise ops over views (transposed, sliced, broadcast) and
    /// reductions over every dimension give the simulator's values.
    #[test]
    fn views_and_reductions_match_the_simulator(
        rows in 1usize..6, cols in 1usize..6, seed in 0u64..1000, dim in 0i64..2,
    ) {
        let src = format!(
            "seed({seed}); x = randn({rows}, {cols}, device=cuda)
             x.T * x.T[0]
             x[::2] - x[0]
             x.sum({dim}); x.max({dim}); x.argmax({dim}); x.T.mean({dim}, keepdim=true)"
        );
        same_as_sim(&src);
    }
}

/// `n` normal numbers on cuda:0.
fn randn(rt: &mut Runtime, n: usize) -> Arc<Tensor> {
    let new = NewTensor {
        shape: &[n],
        dtype: DType::F32,
        device: Device::Cuda(0),
        like: None,
    };
    rt.random(new, Distribution::Normal).unwrap()
}

fn times_two(rt: &mut Runtime, x: &Tensor) -> Arc<Tensor> {
    let two = Tensor::scalar(2.0f32);
    rt.binary(
        BinaryOp::Mul,
        Operand {
            tensor: x,
            weak: false,
        },
        Operand {
            tensor: &two,
            weak: true,
        },
    )
    .unwrap()
}

/// A stream of the program is a stream of the driver: work inside
/// `stream s { }` is queued there, and `wait` and events order streams
/// through the driver's events.
#[test]
fn streams_and_events_are_the_drivers() {
    let (mut rt, emu) = emulated(1);
    let x = randn(&mut rt, 256);
    let default = rt.current_stream().unwrap();
    let on_default = rt.devices.stream_handle(default);
    let s = rt.new_stream(Some("s")).unwrap();
    let side = rt.devices.stream_handle(s.key);
    assert_ne!(side, on_default, "s has a driver stream of its own");
    assert_eq!(
        rt.new_stream(Some("s")).unwrap().key,
        s.key,
        "the name finds it again"
    );

    let waits = emu.waits();
    rt.wait_stream(s.key, default).unwrap();
    assert_eq!(emu.waits(), waits + 1, "`wait` is a driver wait");
    let (before_default, before_side) = (emu.work_on(on_default), emu.work_on(side));
    let saved = rt.enter_stream(s.key);
    let y = times_two(&mut rt, &x);
    rt.restore(saved);
    assert!(
        emu.work_on(side) > before_side,
        "x * 2 in `stream s` ran on s"
    );
    assert_eq!(emu.work_on(on_default), before_default);

    let e = cudash::runtime::event::Event::default();
    rt.record(&e, s.key).unwrap();
    assert!(e.recorded().unwrap().driver.is_some(), "a driver event");
    rt.wait_event(default, &e).unwrap();
    assert_eq!(emu.waits(), waits + 2, "`wait e` is a driver wait");
    assert!(rt.take_hazards().is_empty());
    rt.sync_event(&e).unwrap();
    assert!(e.recorded().unwrap().is_complete());
    rt.sync_all().unwrap();
    assert_eq!(y.to_vec::<f32>()[0], 2.0 * x.to_vec::<f32>()[0]);
}

/// On a GPU the runtime asks the driver what has completed, and measures
/// device time with events: here on `emu` presented as a GPU.
#[test]
fn on_a_gpu_pending_work_follows_the_driver_and_time_is_measured() {
    let (mut rt, emu) = like_a_gpu();
    let x = randn(&mut rt, 256);
    let key = rt.current_stream().unwrap();
    let start = rt.time_start().unwrap();
    let _y = times_two(&mut rt, &x);
    emu.set_busy(true);
    let stream = rt.stream_ref(key);
    assert!(stream.pending() > 0, "the driver says it is still running");
    let e = cudash::runtime::event::Event::default();
    rt.record(&e, key).unwrap();
    assert!(!e.recorded().unwrap().is_complete());
    emu.set_busy(false);
    assert!(
        e.recorded().unwrap().is_complete(),
        "the driver's event query"
    );
    assert_eq!(stream.pending(), 0, "the driver says the stream is idle");
    let t = rt.time_end(start).unwrap().expect("the block queued work");
    assert!(
        t.basis
            .starts_with("measured with CUDA events on NVIDIA H100"),
        "{}",
        t.basis
    );
    assert!(t.seconds >= 0.0 && t.seconds < 10.0, "{}", t.seconds);
}

/// A race is a race however fast the GPU ran: a write the driver reports
/// finished, but that the program never synchronised with, is still
/// reported when another stream reads it (as on the simulator).
#[test]
fn on_a_gpu_a_finished_write_still_races_a_read_on_another_stream() {
    let (mut rt, _emu) = like_a_gpu();
    let x = randn(&mut rt, 256);
    let default = rt.current_stream().unwrap();
    assert_eq!(rt.stream_ref(default).pending(), 0, "the driver says idle");
    let s = rt.new_stream(Some("s")).unwrap();
    let saved = rt.enter_stream(s.key);
    let _y = times_two(&mut rt, &x);
    rt.restore(saved);
    let hazards = rt.take_hazards();
    assert!(
        hazards.iter().any(|h| h.contains("may still be running")),
        "{hazards:?}"
    );
    // After a sync the same read is ordered.
    rt.sync_all().unwrap();
    let saved = rt.enter_stream(s.key);
    let _z = times_two(&mut rt, &x);
    rt.restore(saved);
    assert!(rt.take_hazards().is_empty());
}

/// Ctrl-C stops a device op at its next launch; the runtime goes on after.
#[test]
fn a_stop_request_stops_at_the_next_launch() {
    let (mut rt, emu) = emulated(1);
    let x = randn(&mut rt, 64);
    let before = emu.launches();
    rt.interrupt
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let stopped = rt.unary(UnaryOp::Exp, &x);
    assert!(
        matches!(stopped, Err(cudash::error::Error::Interrupted)),
        "{:?}",
        stopped.err()
    );
    assert_eq!(emu.launches(), before, "nothing launched");
    rt.interrupt
        .store(false, std::sync::atomic::Ordering::Relaxed);
    let y = rt.unary(UnaryOp::Exp, &x).unwrap();
    assert_eq!(y.to_vec::<f32>()[0], x.to_vec::<f32>()[0].exp());
}

/// Pinned tensors own page-locked memory on a driver: `.pin()`, `pin x` and
/// a non-blocking copy to the host lock their memory in place, copies go
/// to and from it, and dropping the tensor unlocks it.
#[test]
fn pinned_tensors_are_page_locked_memory() {
    let (mut rt, emu) = emulated(1);
    let host = Tensor::from_vec((0..1000).map(|i| i as f32).collect(), vec![1000]);
    let pinned = rt.pinned_copy(&host).unwrap();
    assert!(pinned.is_page_locked());
    assert_eq!(emu.registered_bytes(), 4000);

    let on_device = rt.transfer(&pinned, Device::Cuda(0), true).unwrap();
    let back = rt.transfer(&on_device, Device::Cpu, true).unwrap();
    assert!(back.is_pinned() && back.is_page_locked());
    assert_eq!(emu.registered_bytes(), 8000);
    rt.sync_all().unwrap();
    assert_eq!(back.to_vec::<f32>(), host.to_vec::<f32>());
    let view = rt
        .transfer(
            &Arc::new(select(&on_device, &[Index::Slice(Some(10), Some(20), None)]).unwrap()),
            Device::Cpu,
            true,
        )
        .unwrap();
    assert!(
        view.is_page_locked(),
        "a view lands in page-locked memory too"
    );
    rt.sync_all().unwrap();
    assert_eq!(
        view.to_vec::<f32>(),
        (10..20).map(|i| i as f32).collect::<Vec<_>>()
    );

    let in_place = Tensor::from_vec(vec![1f32; 64], vec![64]);
    rt.pin_in_place(&in_place).unwrap();
    assert!(in_place.is_page_locked());
    drop((pinned, back, view, in_place));
    assert_eq!(
        emu.registered_bytes(),
        0,
        "dropping a pinned tensor unlocks it"
    );
}

/// `:watch` on a GPU: a line when a stream's queued work finishes; nothing
/// to watch where work completes only at sync points.
#[test]
fn the_watcher_reports_streams_the_driver_says_drained() {
    use cudash::session::watch::StreamWatcher;
    let (rt, _) = emulated(1);
    assert!(StreamWatcher::new(Arc::clone(&rt.devices)).is_none());

    let (mut rt, emu) = like_a_gpu();
    let mut watcher = StreamWatcher::new(Arc::clone(&rt.devices)).expect("a GPU-like driver");
    emu.set_busy(true);
    let x = randn(&mut rt, 64);
    let _y = times_two(&mut rt, &x);
    assert!(watcher.poll().is_empty(), "still running");
    emu.set_busy(false);
    assert_eq!(
        watcher.poll(),
        vec!["cuda:0 stream `default` drained (2 items done)".to_string()]
    );
    assert!(watcher.poll().is_empty(), "said once");
}

/// `--backend auto` picks a driver's devices only when they pass the first
/// check: emu's pass it; devices with no memory to run it fail it, and the
/// reason says so.
#[test]
fn auto_picks_a_drivers_devices_only_after_its_first_check() {
    use cudash::runtime::dispatch::pick::auto_on;
    use cudash::runtime::driver::Driver;
    let emu = |memory: usize| {
        let e = Emu::new(2, memory, H100.name, H100.compute_capability);
        e.prepare().expect("a C++20 compiler for the kernels");
        Ok(Arc::new(e) as Arc<dyn Driver>)
    };
    let driver = emu(1 << 30);
    let used = |driver: &Arc<dyn Driver>| {
        let (free, total) = driver.mem_info(0).unwrap();
        total - free
    };
    let shared = driver.as_ref().map(Arc::clone).unwrap();
    let picked = auto_on(driver).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(picked.backend.name(), "emu");
    assert!(picked.reason.contains("2 "), "{}", picked.reason);
    assert!(
        picked.reason.contains("picked by --backend auto"),
        "{}",
        picked.reason
    );
    // The check gives its memory back: the session starts with all of it.
    assert_eq!(used(&shared), 0, "the first check's memory is back");
    let why = auto_on(emu(0)).err().expect("no memory: the check fails");
    assert!(
        why.contains("first check failed on cuda:0") && why.contains("auto picked the simulator"),
        "{why}"
    );
}

/// On a GPU `profile`'s timeline is measured with events, not modelled:
/// here on `emu` presented as a GPU, whose events carry the host's clock.
/// A host that sleeps between two launches shows as a gap on the stream,
/// and the trace file gets the measured times.
#[test]
fn on_a_gpu_the_timeline_is_measured_with_events() {
    use cudash::runtime::timeline::trace::TraceWriter;
    use cudash::runtime::timeline::Kind;
    use std::time::{Duration, Instant};

    let (mut rt, _emu) = like_a_gpu();
    let x = randn(&mut rt, 1 << 16);
    let path = std::env::temp_dir().join(format!("cudash-measured-{}.json", std::process::id()));
    rt.timeline_start(Some(TraceWriter::create(&path).unwrap()))
        .unwrap();
    let wall = Instant::now();
    rt.begin_op("mul");
    let y = times_two(&mut rt, &x);
    std::thread::sleep(Duration::from_millis(30));
    rt.begin_op("mul");
    let _z = times_two(&mut rt, &y);
    rt.begin_op("to");
    rt.copy_to(&y, Device::Cpu).unwrap();
    let (t, written) = rt.timeline_end().unwrap().expect("a timeline");
    let wall = wall.elapsed().as_secs_f64();
    written.unwrap();
    assert!(t.measured);
    let kernels: Vec<_> = t.items.iter().filter(|i| i.kind == Kind::Kernel).collect();
    assert_eq!(kernels.len(), 2, "{:?}", t.items);
    for i in &t.items {
        assert!(
            0.0 <= i.start && i.start <= i.end && i.end <= t.end,
            "{i:?}"
        );
    }
    let gap = kernels[1].start - kernels[0].end;
    assert!(
        gap >= 0.029,
        "the host slept 30 ms between the launches: {gap}"
    );
    assert!(t.end <= wall + 0.01, "{} of {wall}", t.end);
    let copy = t.items.iter().find(|i| i.kind == Kind::Copy("D2H"));
    let copy = copy.unwrap_or_else(|| panic!("a D2H copy in {:?}", t.items));
    assert!(
        copy.start >= kernels[1].end,
        "the copy follows the second kernel on the stream"
    );
    let text = cudash::display::timeline::text(&t, 80);
    assert!(
        text.starts_with("timeline (measured with CUDA events; "),
        "{text}"
    );

    // The trace file holds the same, measured, times.
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&path);
    let kernels_ts: Vec<f64> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "kernel")
        .map(|e| e["ts"].as_f64().unwrap())
        .collect();
    assert_eq!(kernels_ts.len(), 2, "{trace}");
    assert!(
        kernels_ts[1] - kernels_ts[0] >= 29_000.0,
        "{kernels_ts:?} µs"
    );
}

/// Collectives on `emu` read and write each device's memory through the
/// driver and show what the simulator shows (values, traffic, timeline).
#[test]
fn collectives_are_the_simulators() {
    same_as_sim(
        "g = [randn(4, 3, device=cuda:0), randn(4, 3, device=cuda:1)]
         all_reduce(g); g
         all_reduce(g, op=\"max\"); g[1]
         h = [arange(6, device=cuda:0), arange(6, device=cuda:1)]
         all_reduce(h, op=\"avg\"); h
         reduce_scatter(g); all_gather(g)
         broadcast(g[1], [cuda:0, cuda:1])
         profile { all_reduce(g)
           p = reduce_scatter(g, op=\"min\") }
         p
         x = arange(8., device=cuda:0); y = arange(8., device=cuda:1) * 10
         all_reduce([x[2:6], y[1:5]]); x; y
         reduce_scatter([x[0:4], y[4:8]], op=\"max\"); all_gather([x[1:3], y[5:7]])
         broadcast(y[3:5], [cuda:1, cuda:0])
         z = zeros(0, device=cuda:0); all_reduce([z, zeros(0, device=cuda:1)]); z
         all_gather([z, zeros(0, device=cuda:1)])
         m = [ones(1, device=cuda:0)]; all_reduce(m); reduce_scatter(m); m",
    );
}

/// An index out of range is the kernel's assertion: the launch succeeds, the
/// device's next call fails with what it printed, every call after it too,
/// and the other device and the device's attributes are untouched.
#[test]
fn a_failed_device_assert_is_sticky_on_its_device_only() {
    let (mut rt, emu) = emulated(2);
    let x = rt.tensor(
        &Tensor::from_vec(vec![1.0f32, 2.0, 3.0], vec![3]),
        DType::F32,
        Device::Cuda(0),
    );
    let x = x.unwrap();
    let i = Arc::new(Tensor::from_vec(vec![1i64, 3], vec![2]));
    let y = rt.index(&x, &[Index::Tensor(i)]);
    assert!(y.is_ok(), "the launch itself succeeds: {y:?}");
    let printed = emu.fault(0).expect("cuda:0 failed an assertion");
    assert!(printed.starts_with("take_f32: Assertion `"), "{printed}");
    assert!(printed.contains("index out of bounds"), "{printed}");
    assert_eq!(emu.fault(1), None);
    for _ in 0..2 {
        match rt.sync_device(0) {
            Err(cudash::error::Error::DeviceAssert { device }) => {
                assert_eq!(device, Device::Cuda(0));
            }
            other => panic!("cuda:0 should report the assert, not {other:?}"),
        }
    }
    rt.sync_device(1).expect("cuda:1 still works");
    use cudash::runtime::driver::Driver;
    emu.properties(0).expect("attributes need no context");
}

/// MultiheadAttention (both paths) and a Transformer encoder on a device:
/// their products, softmaxes, norms and gradients run the CUDA backend's
/// kernels and show what the simulator shows.
#[test]
fn attention_layers_show_what_the_simulator_shows() {
    same_as_sim(
        "seed(0)
         attn = MultiheadAttention(8, 2).to(cuda)
         x = randn(5, 3, 8, device=cuda, requires_grad=true)
         out, w = attn(x, x, x)
         out[0]; w[0]; out.grad_fn
         mask = generate_square_subsequent_mask(5).to(cuda)
         y = attn(x, x, x, attn_mask=mask, need_weights=false)[0]
         (out.sum() + y.sum()).backward()
         x.grad[0]; attn.in_proj_weight.grad[0]
         layer = TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=true).to(cuda)
         encoder = TransformerEncoder(layer, 2).to(cuda)
         z = encoder(randn(3, 5, 8, device=cuda), mask=mask)
         z[0, 0]; z.grad_fn",
    );
}

/// The tensor ops PyTorch programs reach for, on a device: the new unary
/// kernels (and in place), gather and scatter through offsets computed on
/// the device, index_select, masked_select, amax, logsumexp, the blends,
/// and their gradients, as the simulator shows them.
#[test]
fn tensor_ops_show_what_the_simulator_shows() {
    same_as_sim(
        "x = tensor([[-2., 0.5, 3.], [0.25, -1., 4.]], device=cuda, requires_grad=true)
         y = x.abs().rsqrt()
         y; x.sign(); x.tan(); x.atan(); x.sinh(); x.reciprocal(); x.abs().log2(); x.expm1(); x.exp2()
         g = x.gather(1, tensor([[2, 0], [1, 1]], device=cuda))
         s = x.scatter_add(1, tensor([[0, 0], [2, 1]], device=cuda), g)
         l = x.logsumexp(1) + x.amax(0).sum() + x.index_select(1, tensor([2, 0], device=cuda)).sum()
         m = x.masked_select(x > 0)
         c = x.addcdiv(x, x.abs() + 1., value=0.5) + x.lerp(x * 2, 0.25)
         (y.sum() + s.sum() + l.sum() + m.sum() + c.sum()).backward()
         x.grad; g; s; l; m; c
         z = zeros(3, 4, device=cuda).scatter_(1, tensor([[3], [0], [2]], device=cuda), 1.)
         z; z.exp_(); z.sign_(); z.count_nonzero()
         one_hot(tensor([2, 0, 1], device=cuda), 3)
         e = einsum(\"bij,bjk->bik\", randn(2, 3, 4, device=cuda), randn(2, 4, 5, device=cuda))
         e.shape; e[0]; einsum(\"i,j->ij\", x[0], x[1]); pad(x, (1, 1), value=-1.)
         silu(x); mish(x)",
    );
}

/// The layers image and sequence models use, on a device: transposed and
/// 1-d convolutions, bilinear resizing, a reflection pad, pixel shuffle,
/// group and instance norms and the activations with settings, and their
/// gradients, as the simulator shows them.
#[test]
fn image_layers_show_what_the_simulator_shows() {
    same_as_sim(
        "seed(0)
         x = randn(2, 3, 5, 5, device=cuda, requires_grad=true)
         y = ConvTranspose2d(3, 2, 4, stride=2, padding=1).to(cuda)(x)
         w = Conv1d(3, 4, 3, padding=1).to(cuda)(x[:, :, 0])
         z = interpolate(x, scale_factor=1.5, mode=\"bilinear\")
         p = pad(x, (1, 2, 2, 1), mode=\"reflect\")
         n = GroupNorm(3, 3).to(cuda)(x)
         i = InstanceNorm2d(3, affine=true).to(cuda)(x)
         a = elu(x) + softplus(x, beta=2.) + hardswish(x) + hardtanh(x) + logsigmoid(x) + prelu(x, tensor([0.1, 0.2, 0.3], device=cuda))
         (y.sum() + w.sum() + z.sum() + p.sum() + n.sum() + i.sum() + a.sum()).backward()
         x.grad[0, 0]; y[0, 0]; w[0]; z[0, 0]; p[0, 0]; n[0, 0]; i[0, 0]; a[0, 0]
         pixel_shuffle(arange(16., device=cuda).reshape(1, 4, 2, 2), 2)",
    );
}
