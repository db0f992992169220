//! Collectives across devices: values as NCCL's ring computes them, the
//! peer traffic `profile` counts, and the checks on their arguments.

mod common;

use common::{err_in, ok_in, sim_session};

/// The number after `label` in the profile table (`copies D2D   2 (8.0 MiB)`).
fn row<'a>(out: &'a str, label: &str) -> &'a str {
    out.lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` in:\n{out}"))
        .trim_start()[label.len()..]
        .trim()
}

#[test]
fn all_reduce_combines_in_place_with_each_reduction() {
    let mut s = sim_session(2, 1 << 30);
    ok_in(
        &mut s,
        "g = [tensor([1., -2., 3.], device=cuda:0), tensor([4., 5., -6.], device=cuda:1)]",
    );
    assert_eq!(
        ok_in(&mut s, "all_reduce(g)"),
        "",
        "in place: it shows nothing"
    );
    assert_eq!(
        ok_in(&mut s, "g"),
        "[[ 5.,  3., -3.]  f32[3] @cuda:0, [ 5.,  3., -3.]  f32[3] @cuda:1]"
    );
    ok_in(&mut s, "all_reduce(g, op=\"avg\")");
    assert_eq!(
        ok_in(&mut s, "g[1]"),
        "[ 5.,  3., -3.]  f32[3] @cuda:1",
        "the average of equal parts"
    );
    ok_in(
        &mut s,
        "m = [tensor([1, 7, -3], device=cuda:0), tensor([2, -2, 4], device=cuda:1)]",
    );
    ok_in(&mut s, "all_reduce(m, op=\"max\")");
    assert_eq!(ok_in(&mut s, "m[0]"), "[2, 7, 4]  i64[3] @cuda:0");
    ok_in(
        &mut s,
        "m = [tensor([1, 7, -3], device=cuda:0), tensor([2, -2, 4], device=cuda:1)]",
    );
    ok_in(&mut s, "all_reduce(m, op=\"min\")");
    assert_eq!(ok_in(&mut s, "m[1]"), "[ 1, -2, -3]  i64[3] @cuda:1");
    ok_in(
        &mut s,
        "m = [tensor([1, 7, -3], device=cuda:0), tensor([2, -2, 4], device=cuda:1)]",
    );
    ok_in(&mut s, "all_reduce(m, op=\"avg\")");
    assert_eq!(
        ok_in(&mut s, "m[0]"),
        "[1, 2, 0]  i64[3] @cuda:0",
        "integers: the sum divided, truncating (3/2, 5/2, 1/2)"
    );
    ok_in(
        &mut s,
        "b = [tensor([true, false, false], device=cuda:0), tensor([false, false, true], device=cuda:1)]",
    );
    ok_in(&mut s, "all_reduce(b)");
    assert_eq!(
        ok_in(&mut s, "b[0]"),
        "[ true, false,  true]  bool[3] @cuda:0",
        "a bool sum is max (or), as PyTorch's NCCL group"
    );
}

/// Each chunk is summed in ring order: chunk c from device c + 1 round to
/// device c. In f32, 1e8 + 1 - 1e8 depends on the order, so each chunk shows it.
#[test]
fn each_chunk_is_summed_in_ring_order() {
    let mut s = sim_session(3, 1 << 30);
    ok_in(
        &mut s,
        "r = [full([3], 1e8, device=cuda:0), ones(3, device=cuda:1), full([3], -1e8, device=cuda:2)]",
    );
    ok_in(&mut s, "all_reduce(r)");
    // chunk 0: (1 + -1e8) + 1e8 = 0; chunk 1: (-1e8 + 1e8) + 1 = 1; chunk 2: (1e8 + 1) + -1e8 = 0.
    assert_eq!(ok_in(&mut s, "r[2]"), "[0., 1., 0.]  f32[3] @cuda:2");
    assert_eq!(ok_in(&mut s, "r[0]"), ok_in(&mut s, "r[2].to(cuda:0)"));
}

#[test]
fn reduce_scatter_all_gather_and_broadcast_give_each_device_its_part() {
    let mut s = sim_session(2, 1 << 30);
    assert_eq!(
        ok_in(
            &mut s,
            "reduce_scatter([arange(6., device=cuda:0).reshape(2, 3), ones(2, 3, device=cuda:1)])"
        ),
        "[[[1., 2., 3.]]  f32[1,3] @cuda:0, [[4., 5., 6.]]  f32[1,3] @cuda:1]"
    );
    assert_eq!(
        ok_in(
            &mut s,
            "all_gather([zeros(1, 2, device=cuda:0), ones(1, 2, device=cuda:1)])[1]"
        ),
        "[[0., 0.],\n [1., 1.]]\nf32[2,2] @cuda:1"
    );
    ok_in(
        &mut s,
        "x = arange(3, device=cuda:1)\nc = broadcast(x, [cuda:0, cuda:1])",
    );
    assert_eq!(ok_in(&mut s, "c[0]"), "[0, 1, 2]  i64[3] @cuda:0");
    assert_eq!(
        ok_in(&mut s, "c[1] is x"),
        "true",
        "the root's own is the input itself"
    );
}

/// `profile` counts the ring's traffic as D2D copies: for an all_reduce of
/// B bytes over n devices, each device receives 2(n−1)/n·B.
#[test]
fn profile_counts_the_ring_traffic() {
    let mut s = sim_session(3, 1 << 30);
    ok_in(
        &mut s,
        "g = [randn(3, 1024, 1024, device=cuda:0), randn(3, 1024, 1024, device=cuda:1), randn(3, 1024, 1024, device=cuda:2)]",
    );
    let out = ok_in(&mut s, "profile { all_reduce(g) }");
    // 12 MiB each: 2·2/3·12 = 16 MiB received by each of 3.
    assert_eq!(row(&out, "copies D2D"), "3 (48.0 MiB)", "{out}");
    assert_eq!(row(&out, "kernels"), "0");
    assert_eq!(row(&out, "allocations"), "0 (0 B)", "in place");
    assert!(out.contains("cuda:2 default │"), "{out}");
    let out = ok_in(&mut s, "profile { p = reduce_scatter(g) }");
    // (n−1)/n of 12 MiB each: 8 MiB.
    assert_eq!(row(&out, "copies D2D"), "3 (24.0 MiB)", "{out}");
    assert_eq!(row(&out, "allocations"), "3 (12.0 MiB)", "{out}");
    let out = ok_in(&mut s, "profile { a = all_gather(p) }");
    assert_eq!(row(&out, "copies D2D"), "3 (24.0 MiB)", "{out}");
    let out = ok_in(
        &mut s,
        "profile { c = broadcast(g[0], [cuda:0, cuda:1, cuda:2]) }",
    );
    assert_eq!(
        row(&out, "copies D2D"),
        "2 (24.0 MiB)",
        "down the ring: each device but the root receives it once"
    );
}

#[test]
fn misfits_are_errors_and_leave_the_tensors_as_they_were() {
    let mut s = sim_session(2, 1 << 30);
    ok_in(
        &mut s,
        "a = ones(2, device=cuda:0)\nb = 2 * ones(2, device=cuda:1)",
    );
    let cases = [
        (
            "all_reduce([a, ones(2)])",
            "DeviceError",
            "tensor 1 is on cpu",
        ),
        (
            "all_reduce([a, a])",
            "ValueError",
            "tensors 0 and 1 are both on cuda:0",
        ),
        (
            "all_reduce([a, ones(3, device=cuda:1)])",
            "ShapeError",
            "tensor 1 is [3] and tensor 0 is [2]",
        ),
        (
            "all_reduce([a, b.to(f64)])",
            "DTypeError",
            "tensor 1 is f64 and tensor 0 is f32",
        ),
        (
            "all_reduce([a, b], op=\"prod\")",
            "ValueError",
            "no reduction `prod`",
        ),
        (
            "all_reduce([a, b], op=1)",
            "TypeError",
            "`op` must be a string",
        ),
        (
            "all_reduce([ones(2, 2, device=cuda:0).T, ones(2, 2, device=cuda:1)])",
            "ValueError",
            "strided view",
        ),
        ("all_reduce([])", "ValueError", "at least one tensor"),
        (
            "all_reduce([a > 0, b > 0], op=\"avg\")",
            "DTypeError",
            "cannot average bool",
        ),
        (
            "all_reduce([a, \"x\"])",
            "TypeError",
            "an element of `tensors`",
        ),
        (
            "reduce_scatter([ones(3, device=cuda:0), ones(3, device=cuda:1)])",
            "ShapeError",
            "3 rows do not divide by 2",
        ),
        ("broadcast(ones(2), [cuda:0])", "DeviceError", "on cpu"),
        (
            "broadcast(b, [cuda:0])",
            "ValueError",
            "cuda:1, which is not in the list",
        ),
        (
            "broadcast(b, [cuda:1, cuda:1])",
            "ValueError",
            "both on cuda:1",
        ),
    ];
    for (src, class, says) in cases {
        let (ename, evalue) = err_in(&mut s, src);
        assert_eq!(ename, class, "{src}: {evalue}");
        assert!(evalue.contains(says), "{src}: {evalue}");
    }
    assert_eq!(ok_in(&mut s, "a"), "[1., 1.]  f32[2] @cuda:0");
    assert_eq!(ok_in(&mut s, "b"), "[2., 2.]  f32[2] @cuda:1");
}

/// On the simulator (the host computes the ring's values) and on `emu` (the
/// ring runs over peer copies and kernels, `ring.rs`), every chunk is the
/// fold in ring order, bit for bit: checked against the same folds on the cpu.
#[test]
fn the_ring_order_holds_bit_for_bit_on_sim_and_emu() {
    use cudash::runtime::backend::BackendChoice;
    use cudash::session::{Config, Session};
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = Session::new(Config {
            backend,
            sim_devices: 3,
            sim_memory: 1 << 30,
            ..Config::default()
        })
        .unwrap();
        let name = if backend == BackendChoice::Emu {
            "emu"
        } else {
            "sim"
        };
        assert_eq!(s.backend_name(), name);
        for dtype in ["f32", "f16", "bf16", "f64"] {
            ok_in(
                &mut s,
                &format!(
                    "p = [((arange(1000., dtype={dtype}) * 0.37).sin() * 1e3).to(cuda:0),
                          ((arange(1000., dtype={dtype}) * 1.3).cos() * 7).to(cuda:1),
                          ((arange(1000., dtype={dtype}) * 0.11).sin() * -1e3).to(cuda:2)]
                     h = [p[0].to(cpu), p[1].to(cpu), p[2].to(cpu)]
                     all_reduce(p)"
                ),
            );
            // 1000 elements in chunks of 334: chunk c folds from device c + 1.
            let want = "cat([(h[1][:334] + h[2][:334]) + h[0][:334],
                             (h[2][334:668] + h[0][334:668]) + h[1][334:668],
                             (h[0][668:] + h[1][668:]) + h[2][668:]])";
            for d in 0..3 {
                assert_eq!(
                    ok_in(&mut s, &format!("(p[{d}].to(cpu) == {want}).all()")),
                    "true  bool[] @cpu",
                    "{backend:?} {dtype} device {d}"
                );
            }
            ok_in(
                &mut s,
                "q = [h[0].to(cuda:0), h[1].to(cuda:1), h[2].to(cuda:2)]\nall_reduce(q, op=\"max\")",
            );
            assert_eq!(
                ok_in(
                    &mut s,
                    "(q[1].to(cpu) == maximum(maximum(h[0], h[1]), h[2])).all()"
                ),
                "true  bool[] @cpu",
                "{backend:?} {dtype} max"
            );
            // avg: each part premultiplied by 1/n (in the parts' dtype), then folded.
            ok_in(
                &mut s,
                "v = [h[0].to(cuda:0), h[1].to(cuda:1), h[2].to(cuda:2)]\nall_reduce(v, op=\"avg\")",
            );
            assert_eq!(
                ok_in(
                    &mut s,
                    "k = 1 / 3\n(v[0].to(cpu)[334:668] == (h[2][334:668] * k + h[0][334:668] * k) + h[1][334:668] * k).all()"
                ),
                "true  bool[] @cpu",
                "{backend:?} {dtype} avg"
            );
            // reduce_scatter: device i's share is chunk i folded from device i + 1.
            ok_in(
                &mut s,
                "rs = reduce_scatter([h[0][:999].to(cuda:0), h[1][:999].to(cuda:1), h[2][:999].to(cuda:2)])",
            );
            assert_eq!(
                ok_in(
                    &mut s,
                    "(rs[1].to(cpu) == (h[2][333:666] + h[0][333:666]) + h[1][333:666]).all()"
                ),
                "true  bool[] @cpu",
                "{backend:?} {dtype} reduce_scatter"
            );
            // all_gather and broadcast move the bytes as they are.
            ok_in(
                &mut s,
                "a = all_gather([h[0].to(cuda:0), h[1].to(cuda:1), h[2].to(cuda:2)])\nc = broadcast(q[1], [cuda:2, cuda:1, cuda:0])",
            );
            assert_eq!(
                ok_in(
                    &mut s,
                    "(a[2].to(cpu) == cat(h)).all() & (a[0].to(cpu) == cat(h)).all()"
                ),
                "true  bool[] @cpu",
                "{backend:?} {dtype} all_gather"
            );
            assert_eq!(
                ok_in(
                    &mut s,
                    "(c[0].to(cpu) == q[1].to(cpu)).all() & (c[2].to(cpu) == q[1].to(cpu)).all()"
                ),
                "true  bool[] @cpu",
                "{backend:?} {dtype} broadcast"
            );
        }
    }
}

mod differential {
    use super::common::ok_in;
    use cudash::runtime::backend::BackendChoice;
    use cudash::session::{Config, Session};
    use proptest::prelude::*;

    fn session(backend: BackendChoice) -> Session {
        Session::new(Config {
            backend,
            sim_devices: 3,
            sim_memory: 1 << 28,
            ..Config::default()
        })
        .unwrap()
    }

    /// The bytes of `expr` (a cpu tensor), saved as .safetensors by session `s`.
    fn bytes(s: &mut Session, expr: &str, name: &str) -> Vec<u8> {
        let path = std::env::temp_dir().join(format!(
            "cudash-collective-{}-{name}.safetensors",
            std::process::id()
        ));
        ok_in(s, &format!("save({expr}, \"{}\")", path.display()));
        let b = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        b
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Random collectives give the same bytes on the simulator (values
        /// computed on the host) and on `emu` (computed on the devices).
        #[test]
        fn sim_and_emu_agree_byte_for_byte(
            n in 2usize..=3,
            rows in 0usize..6,
            dtype in prop::sample::select(vec!["f32", "f16", "bf16", "f64", "i32", "i64", "bool"]),
            op in prop::sample::select(vec!["sum", "avg", "max", "min", "product"]),
            seed in 0u64..1000,
        ) {
            prop_assume!(!(dtype == "bool" && op == "avg"));
            let devices: Vec<String> = (0..n).map(|d| format!("cuda:{d}")).collect();
            let parts: Vec<String> = (0..n)
                .map(|d| format!("(randn({}, 3) * 50).to({dtype}).to(cuda:{d})", rows * n))
                .collect();
            let script = format!(
                "seed({seed})\np = [{}]\nall_reduce(p, op=\"{op}\")\nr = reduce_scatter(p, op=\"{op}\")\ng = all_gather(r)\nb = broadcast(g[0], [{}])",
                parts.join(", "),
                devices.join(", ")
            );
            let mut got = Vec::new();
            for backend in [BackendChoice::Sim, BackendChoice::Emu] {
                let mut s = session(backend);
                ok_in(&mut s, &script);
                let mut all = Vec::new();
                for d in 0..n {
                    for v in ["p", "r", "g", "b"] {
                        all.push(bytes(&mut s, &format!("{v}[{d}].to(cpu)"), &format!("{v}{d}")));
                    }
                }
                prop_assert_eq!(s.check_invariants(), Ok(()));
                got.push(all);
            }
            prop_assert!(got[0] == got[1], "sim and emu differ for {}", script);
        }
    }
}
