//! The driver layer on a real GPU: streams and events, pinned memory that is
//! not write-combined, the caching allocator on driver segments (out of
//! memory included) and on expandable segments, cuBLAS products in f32, f16 and bf16 against the
//! simulator's, and peer copies where two GPUs can reach each other.
//! Ignored unless asked for, on a machine with an NVIDIA GPU:
//!
//! ```sh
//! cargo test --release --test driver_gpu -- --ignored
//! ```

use std::sync::{Arc, OnceLock};

use cudash::runtime::alloc::{AllocError, AllocatorConfig, CachingAllocator};
use cudash::runtime::cuda::blas::Blas;
use cudash::runtime::cuda::driver::{CudaDevice, DriverSegments};
use cudash::runtime::cuda::probe;
use cudash::runtime::driver::Gemm;
use cudash::runtime::op::factory::Distribution;
use cudash::runtime::ops::factory;
use cudash::runtime::ops::matmul::matmul;
use cudash::runtime::rng::Generator;
use cudash::runtime::{DType, Device, Tensor};
use cudash::with_dtype;

fn device() -> Arc<CudaDevice> {
    static DEVICE: OnceLock<Arc<CudaDevice>> = OnceLock::new();
    Arc::clone(
        DEVICE.get_or_init(|| {
            Arc::new(CudaDevice::open(0).unwrap_or_else(|e| panic!("cuda:0: {e}")))
        }),
    )
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release --test driver_gpu -- --ignored"]
fn the_device_is_described_as_the_driver_sees_it() {
    let d = device();
    eprintln!("{:?}", d.info);
    assert!(!d.info.name.is_empty());
    assert!(d.info.total_memory > 1 << 30);
    assert!(d.info.compute_capability.0 >= 5);
    let (free, total) = d.memory().unwrap();
    assert!(
        free <= total && total == d.info.total_memory,
        "{free} {total}"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release --test driver_gpu -- --ignored"]
fn events_order_streams_and_time_them() {
    let d = device();
    let (s, t) = (d.stream().unwrap(), d.stream().unwrap());
    let (start, end) = (d.event(true).unwrap(), d.event(true).unwrap());
    let bytes = 256 << 20;
    let (a, b) = (d.alloc(bytes).unwrap(), d.alloc(bytes).unwrap());
    start.record(Some(&s)).unwrap();
    for _ in 0..20 {
        d.copy_from_peer(b, &d, a, bytes, Some(&s)).unwrap(); // a device-to-device copy on s
    }
    end.record(Some(&s)).unwrap();
    assert!(
        !end.query().unwrap(),
        "5 GiB of copies cannot be done already"
    );
    d.wait(Some(&t), &end).unwrap();
    let after = d.event(false).unwrap();
    after.record(Some(&t)).unwrap();
    after.synchronize().unwrap();
    assert!(end.query().unwrap(), "t waited for s's end event");
    let ms = start.elapsed_ms(&end).unwrap();
    eprintln!(
        "20 copies of 256 MiB: {ms:.2} ms, {:.0} GB/s",
        20.0 * 2.0 * bytes as f64 / (ms as f64 * 1e6)
    );
    assert!(ms > 0.0);
    // An event made only to order work has no timing.
    assert!(after.elapsed_ms(&end).is_err());
    d.free(a).unwrap();
    d.free(b).unwrap();
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release --test driver_gpu -- --ignored"]
fn copies_and_fills_are_queued_on_their_stream() {
    let d = device();
    let s = d.stream().unwrap();
    let bytes = 256 << 20;
    let src = d.pinned(bytes).unwrap();
    let back = d.pinned(bytes).unwrap();
    // SAFETY: both hold `bytes`.
    let (src_bytes, back_bytes) = unsafe {
        (
            std::slice::from_raw_parts_mut(src.ptr, bytes),
            std::slice::from_raw_parts_mut(back.ptr, bytes),
        )
    };
    for (i, b) in src_bytes.iter_mut().enumerate() {
        *b = (i % 253) as u8;
    }
    let (a, b, c) = (
        d.alloc(bytes).unwrap(),
        d.alloc(bytes).unwrap(),
        d.alloc(bytes).unwrap(),
    );
    let done = d.event(false).unwrap();
    // SAFETY: every range is `bytes` long and lives past the synchronize below.
    unsafe {
        d.copy_to_device(a, src.ptr, bytes, Some(&s)).unwrap();
        done.record(Some(&s)).unwrap();
        // From pinned memory the copy is asynchronous: 256 MiB takes
        // milliseconds, and the call has already returned.
        assert!(!done.query().unwrap(), "the copy ran synchronously");
        d.copy_on_device(b, a, bytes, Some(&s)).unwrap();
        d.memset(c, 7, bytes, Some(&s)).unwrap();
        d.copy_to_host(back.ptr, b, bytes, Some(&s)).unwrap();
    }
    d.synchronize_stream(Some(&s)).unwrap();
    assert!(back_bytes == src_bytes, "the bytes came back changed");
    // SAFETY: as above.
    unsafe { d.copy_to_host(back.ptr, c, bytes, Some(&s)).unwrap() };
    d.synchronize_stream(Some(&s)).unwrap();
    assert!(back_bytes.iter().all(|&x| x == 7));
    // Streams and events may be dropped on another thread: they bind their
    // device's context first, and the device is still there.
    std::thread::spawn(move || drop((s, done))).join().unwrap();
    d.synchronize().unwrap();
    for p in [a, b, c] {
        d.free(p).unwrap();
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release --test driver_gpu -- --ignored"]
fn pinned_memory_is_page_locked_and_not_write_combined() {
    let d = device();
    let p = d.pinned(64 << 20).unwrap();
    let flags = d.pinned_flags(&p).unwrap();
    assert_eq!(
        flags & 4,
        0,
        "CU_MEMHOSTALLOC_WRITECOMBINED is set: {flags:#x}"
    );
    // SAFETY: 64 MiB of host memory owned by `p`.
    unsafe { std::ptr::write_bytes(p.ptr, 7, p.bytes) };
    let dev = d.alloc(p.bytes).unwrap();
    // SAFETY: as above.
    d.upload(dev, unsafe { std::slice::from_raw_parts(p.ptr, p.bytes) })
        .unwrap();
    let mut back = vec![0u8; p.bytes];
    d.download(&mut back, dev).unwrap();
    assert!(back.iter().all(|&b| b == 7));
    d.free(dev).unwrap();
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release --test driver_gpu -- --ignored"]
fn the_caching_allocator_runs_on_driver_segments_and_reports_out_of_memory() {
    let d = device();
    let mut alloc = CachingAllocator::new(DriverSegments {
        device: Arc::clone(&d),
    });
    let small = alloc.malloc(1000, 0).unwrap();
    let big = alloc.malloc(64 << 20, 0).unwrap();
    // The blocks are real memory: write through one and read it back.
    // (A block names its segment by id; the address is the segment's handle.)
    let addr = alloc.address(&big).unwrap();
    assert_eq!(addr % 512, 0, "blocks are 512-byte aligned");
    d.upload(addr, &[1, 2, 3]).unwrap();
    let mut back = [0u8; 3];
    d.download(&mut back, addr).unwrap();
    assert_eq!(back, [1, 2, 3]);
    // More than the device has: out of memory (the driver's
    // CUDA_ERROR_OUT_OF_MEMORY), not any other failure.
    let Err(AllocError::OutOfMemory(too_much)) = alloc.malloc(d.info.total_memory * 2, 0) else {
        panic!("twice the device's memory must be out of memory");
    };
    assert_eq!(too_much.requested, d.info.total_memory * 2);
    alloc.free(small);
    alloc.free(big);
    assert!(alloc.empty_cache() > 0);
    alloc.check().unwrap();
}

/// Expandable segments on the driver's virtual memory calls: address space
/// reserved, 20 MiB pages mapped as requests need them, a block across two
/// pages read and written as one, the pages unmapped and the space freed.
#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release --test driver_gpu -- --ignored"]
fn expandable_segments_map_pages_on_the_device() {
    let d = device();
    let mut alloc = CachingAllocator::new(DriverSegments {
        device: Arc::clone(&d),
    });
    let mut config = AllocatorConfig::default();
    config.parse("expandable_segments:True").unwrap();
    alloc.set_config(config);
    let mib = 1 << 20;
    let x = alloc.malloc(30 * mib, 0).unwrap();
    let y = alloc.malloc(5 * mib, 0).unwrap();
    let z = alloc.malloc(8 * mib, 0).unwrap();
    assert_eq!(alloc.stats().reserved_bytes.all.current as usize, 60 * mib);
    // z lies across the second and third pages (35..43 MiB).
    let at = alloc.address(&z).unwrap();
    let bytes: Vec<u8> = (0..8 * mib).map(|i| (i % 251) as u8).collect();
    d.upload(at, &bytes).unwrap();
    let mut back = vec![0u8; 8 * mib];
    d.download(&mut back, at).unwrap();
    assert!(
        back == bytes,
        "a block across two pages reads back what was written"
    );
    // More than the device has: out of memory, not any other failure.
    let Err(AllocError::OutOfMemory(_)) = alloc.malloc(d.info.total_memory * 2, 0) else {
        panic!("twice the device's memory must be out of memory");
    };
    for b in [x, y, z] {
        alloc.free(b);
    }
    assert_eq!(alloc.empty_cache(), 60 * mib);
    assert_eq!(alloc.segments().count(), 0);
    alloc.check().unwrap();
}

fn randn(shape: &[usize], dt: DType, seed: u64) -> Tensor {
    factory::philox(
        &mut Generator::new(seed),
        Distribution::Normal,
        shape,
        dt,
        Device::Cpu,
    )
    .unwrap()
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release --test driver_gpu -- --ignored"]
fn cublas_products_match_the_simulator() {
    let d = device();
    let mut blas = Blas::new(&d).unwrap();
    for dt in [DType::F32, DType::F16, DType::BF16, DType::F64] {
        // A batch of 3 products [33,17] x [17,40], and one B shared by every batch.
        for shared_b in [false, true] {
            let (batch, m, k, n) = (3, 33, 17, 40);
            let a = randn(&[batch, m, k], dt, 1);
            let b = if shared_b {
                randn(&[k, n], dt, 2)
            } else {
                randn(&[batch, k, n], dt, 2)
            };
            let want = matmul(&a, &b).unwrap();
            let up = |t: &Tensor| {
                let bytes = t.read().to_le_bytes();
                let p = d.alloc(bytes.len()).unwrap();
                d.upload(p, &bytes).unwrap();
                p
            };
            let (pa, pb) = (up(&a), up(&b));
            let pc = d.alloc(batch * m * n * dt.size()).unwrap();
            let g =
                Gemm::row_major(m, k, n, batch, m * k, if shared_b { 0 } else { k * n }).unwrap();
            // SAFETY: the three allocations hold the matrices `g` describes.
            unsafe { blas.gemm(dt, &g, pb, pa, pc, None) }.unwrap();
            d.synchronize().unwrap();
            let mut out = vec![0u8; batch * m * n * dt.size()];
            d.download(&mut out, pc).unwrap();
            let got: Vec<f64> = with_dtype!(dt, T => {
                // SAFETY: `out` holds batch*m*n elements of T.
                let s = unsafe { std::slice::from_raw_parts(out.as_ptr() as *const T, batch * m * n) };
                s.iter().map(|x| cudash::runtime::element::Element::to_f64(*x)).collect()
            });
            let want = want.to_vec::<f64>();
            let tol = match dt {
                DType::F16 => 1e-2,
                DType::BF16 => 6e-2,
                DType::F32 => 1e-4,
                _ => 1e-12,
            };
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= tol * w.abs().max(1.0),
                    "{dt} element {i}: cuBLAS {g}, simulator {w}"
                );
            }
            for p in [pa, pb, pc] {
                d.free(p).unwrap();
            }
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU: cargo test --release --test driver_gpu -- --ignored"]
fn peer_copies_between_two_gpus() {
    let count = match probe::probe() {
        probe::Probe::Driver { devices, .. } => devices,
        other => panic!("no working driver: {other:?}"),
    };
    if count < 2 {
        eprintln!("SKIPPED: peer copies need two GPUs; this machine has {count}");
        return;
    }
    let (d0, d1) = (device(), CudaDevice::open(1).unwrap());
    if d1.can_access_peer(&d0).unwrap() {
        d1.enable_peer_access(&d0).unwrap();
        d1.enable_peer_access(&d0).unwrap(); // twice is fine
    }
    let src = d0.alloc(4096).unwrap();
    d0.upload(src, &[9u8; 4096]).unwrap();
    let dst = d1.alloc(4096).unwrap();
    d1.copy_from_peer(dst, &d0, src, 4096, None).unwrap();
    d1.synchronize().unwrap();
    let mut back = vec![0u8; 4096];
    d1.download(&mut back, dst).unwrap();
    assert!(back.iter().all(|&b| b == 9));
}
