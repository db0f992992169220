//! What random programs found (issue 65), each minimal, each against what
//! Python and PyTorch give. The hangs run on a thread with a deadline, so
//! a regression fails instead of hanging the suite.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use cudash::runtime::backend::BackendChoice;
use cudash::session::{Config, Session};

/// `src`'s output, or a failure when it takes longer than `secs`.
fn within(secs: u64, src: &'static str) -> String {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(common::run(src));
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("`{src}` did not finish in {secs} s"))
}

#[test]
fn a_list_in_itself_answers_as_python() {
    // Python: `xs = []; xs.append(1); xs in xs` is False (1 == xs is not).
    let out = within(10, "xs = list()\nxs.append(1)\nxs in xs");
    assert!(out.trim_end().ends_with("false"), "{out}");
}

#[test]
fn a_list_that_holds_itself_shows_and_compares_as_python() {
    let out = within(
        10,
        "c = list()\nc.append(c)\nc\nprint(c)\nc in c\nc == c\nlen(c)",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, ["[[...]]", "[[...]]", "true", "true", "1"], "{out}");
}

#[test]
fn append_keeps_the_list_itself() {
    let out = common::ok("a = list()\nb = list()\na.append(b)\nb.append(1)\na\na[0] is b");
    assert_eq!(out.lines().collect::<Vec<_>>(), ["[[1]]", "true"], "{out}");
}

#[test]
fn a_huge_dataset_starts_at_once() {
    let out = within(
        20,
        "fn g(i) { return tensor(i) }\n\
         for b in DataLoader(Dataset(g, 10**12)) { print(b); break }\n\
         for b in DataLoader(Dataset(g, 2**62), num_workers=2) { print(b); break }",
    );
    assert_eq!(out.matches("[0]").count(), 2, "{out}");
    let (class, msg) = common::err(
        "fn g(i) { return tensor(i) }\nfor b in DataLoader(Dataset(g, 2**62), shuffle=true) { }",
    );
    assert_eq!(class, "ValueError");
    assert!(msg.contains("needs a permutation"), "{msg}");
}

#[test]
fn a_main_thread_batch_keeps_its_samples_history() {
    // PyTorch with num_workers=0: True, grad_fn=<StackBackward0>.
    let out = common::ok(
        "W = ones(4, 2, requires_grad=true)\n\
         for b in DataLoader(TensorDataset(W), batch_size=2) { print(b[0].grad_fn) }\n\
         fn g(i) { return W[0] * i }\n\
         for b in DataLoader(Dataset(g, 4), batch_size=2) { print(b.grad_fn) }\n\
         loss = 0\n\
         for b in DataLoader(TensorDataset(W), batch_size=2) { loss = loss + b[0].sum() }\n\
         loss.backward()\nW.grad.sum().item()",
    );
    assert_eq!(out.matches("<StackBackward0>").count(), 4, "{out}");
    assert!(out.trim_end().ends_with("8.0"), "{out}");
}

#[test]
fn mse_loss_broadcasts_with_pytorchs_warning() {
    let out = common::ok(
        "x = ones(2, 3, requires_grad=true)\nl = mse_loss(x, tensor([1., 2., 3.]))\n\
         l.backward()\nl.item()\nx.grad.tolist()",
    );
    assert!(out.contains("different to the input size"), "{out}");
    // mean((1 - [1, 2, 3])²) = 5/3; d/dx = 2 (x - t) / 6.
    assert!(out.contains("1.666666"), "{out}");
    assert!(out.contains("-0.6666666"), "{out}");
}

#[test]
fn optimizers_take_parameters_as_pytorchs() {
    // A leaf that does not require grad is accepted (and skipped without a grad).
    common::ok("U = ones(2)\nopt = SGD([U])\nopt.step()");
    // A parameter listed twice shares its state: PyTorch 2.15 gives 0.339.
    let out = common::ok(
        "V = ones(1, requires_grad=true)\nopt = SGD([V, V], lr=0.1, momentum=0.9)\n\
         for i in 0..2 { opt.zero_grad(); (V * 1).sum().backward(); opt.step() }\nV.item()",
    );
    assert!(out.contains("duplicate parameters"), "{out}");
    let v: f64 = out
        .lines()
        .last()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((v - 0.339).abs() < 1e-6, "{out}");
    let (_, msg) = common::err("w = ones(2, requires_grad=true)\nSGD([w * 2])");
    assert!(msg.contains("non-leaf"), "{msg}");
}

#[test]
fn a_version_error_names_the_variables_own_creator() {
    // A leaf changed under no_grad: PyTorch names no op.
    let (_, msg) = common::err(
        "w = ones(3, requires_grad=true)\ny = w * w\nno_grad { w.mul_(2) }\ny.sum().backward()",
    );
    assert!(
        msg.contains("[torch.FloatTensor [3]] is at version 1"),
        "{msg}"
    );
    // An output changed under no_grad: its own op; changed by a recorded
    // in-place op: that op.
    let (_, msg) = common::err(
        "x = tensor([1., 2., 3.], requires_grad=true)\ne = x.exp()\nno_grad { e.mul_(2) }\ne.sum().backward()",
    );
    assert!(
        msg.contains("which is output 0 of Exp, is at version 1"),
        "{msg}"
    );
    let (_, msg) = common::err(
        "x = tensor([1., 2., 3.], requires_grad=true)\na = x.exp()\nb = a * a\na.mul_(2)\nb.sum().backward()",
    );
    assert!(
        msg.contains("which is output 0 of Mul, is at version 1"),
        "{msg}"
    );
}

#[test]
fn workers_never_reach_into_the_session() {
    // In PyTorch each worker has its own copy: the session's W.grad stays
    // None, its requires_grad true, its grad untouched.
    let out = within(
        60,
        "W = ones(1000, requires_grad=true)\n\
         fn g(i) { (W * 1).sum().backward(); return tensor(i) }\n\
         for b in DataLoader(Dataset(g, 40), num_workers=3) { }\n\
         W.grad is none\n\
         fn h(i) { W.requires_grad = false; W.requires_grad_(false); return tensor(i) }\n\
         for b in DataLoader(Dataset(h, 4), num_workers=2) { }\n\
         W.requires_grad\n\
         (W * 1).sum().backward()\n\
         fn z(i) { W.grad.zero_(); return tensor(i) }\n\
         for b in DataLoader(Dataset(z, 4), num_workers=2) { }\n\
         W.grad.sum().item()",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        ["true", "true", "1000.0"],
        "{out}"
    );
}

#[test]
fn a_workers_device_work_is_refused_before_any_allocation_on_every_backend() {
    use cudash::runtime::backend::BackendChoice;
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = cudash::session::Session::new(cudash::session::Config {
            backend,
            ..cudash::session::Config::default()
        })
        .unwrap();
        common::ok_in(&mut s, "W = ones(3, device=cuda)\nfn g(i) { return W * i }");
        let o = s.execute("for b in DataLoader(Dataset(g, 4), num_workers=1) { }");
        let e = o.error.expect("refused");
        assert!(e.evalue.contains("cannot use CUDA devices"), "{}", e.evalue);
        let out = common::ok_in(&mut s, "memory_stats()[\"allocation.all.allocated\"]");
        assert_eq!(out.trim(), "1", "{backend:?}: only W was ever allocated");
        // `mem` in a worker's function is refused at the `mem`.
        let o = s.execute("fn m(i) {\n  mem\n  return tensor(i)\n}\nfor b in DataLoader(Dataset(m, 4), num_workers=1) { }");
        let report = o.error.expect("refused").report;
        assert!(report.contains(":2:3 ]"), "{report}");
    }
}

#[test]
fn a_device_ops_temporaries_yield_to_the_caching_allocator_on_every_backend() {
    use cudash::runtime::backend::BackendChoice;
    let ballast =
        "ballast = empty(1073741824 - memory_reserved(cuda:0), dtype=bool, device=cuda:0)";
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let session = || {
            cudash::session::Session::new(cudash::session::Config {
                backend,
                sim_memory: 1 << 30,
                ..cudash::session::Config::default()
            })
            .unwrap()
        };
        // A full device: the temporary (emu's copy of the number 2) comes
        // from the caching allocator's segment, where `y` fits too.
        let mut s = session();
        common::ok_in(
            &mut s,
            &format!("x = ones(3, device=cuda)\n{ballast}\ny = x * 2"),
        );
        // A temporary kept for reuse is released for a tensor that needs
        // the memory, as the caching allocator's cache is.
        let mut s = session();
        common::ok_in(
            &mut s,
            &format!("x = ones(3, device=cuda)\ny = x * 2\n{ballast}"),
        );
    }
}

#[test]
fn device_free_is_the_same_on_sim_and_emu_with_temporaries_kept() {
    use cudash::runtime::backend::BackendChoice;
    let free = |backend| {
        let mut s = cudash::session::Session::new(cudash::session::Config {
            backend,
            sim_memory: 1 << 30,
            ..cudash::session::Config::default()
        })
        .unwrap();
        let out = common::ok_in(
            &mut s,
            "x = ones(3, device=cuda)\ny = x * 2\n\
             z = scatter(randn(5, 0, device=cuda:1), [cuda:0, cuda:1])\ndel z\nmem all",
        );
        out.lines()
            .filter(|l| l.contains("device free"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let sim = free(BackendChoice::Sim);
    assert_eq!(sim.len(), 2, "{sim:?}");
    assert_eq!(free(BackendChoice::Emu), sim);
}

/// What `src` prints on `backend`.
fn printed_on(backend: cudash::runtime::backend::BackendChoice, src: &str) -> String {
    let mut s = cudash::session::Session::new(cudash::session::Config {
        backend,
        ..cudash::session::Config::default()
    })
    .unwrap();
    common::ok_in(&mut s, src)
}

#[test]
fn device_products_and_sums_give_the_same_bits_on_sim_and_emu() {
    use cudash::runtime::backend::BackendChoice;
    // Products of every dtype cuBLAS takes, batched, broadcast and through
    // views; sums and means of f64 (and the rest) whole and along each
    // axis, of lengths that split into chunks and packs unevenly.
    let src = "manual_seed(0)\n\
        a = randn(2, 2, device=cuda)\nb = randn(2, 2, device=cuda)\nprint((a @ b).tolist())\n\
        c = randn(37, 300, device=cuda)\nd = randn(300, 41, device=cuda)\nprint((c @ d).tolist())\n\
        h = randn(5, 70, dtype=f16, device=cuda) @ randn(70, 3, dtype=f16, device=cuda)\nprint(h.tolist())\n\
        g = randn(5, 70, dtype=bf16, device=cuda) @ randn(70, 3, dtype=bf16, device=cuda)\nprint(g.tolist())\n\
        x = randn(3, 4, 5, dtype=f64, device=cuda)\ny = randn(5, 6, dtype=f64, device=cuda)\n\
        print((x @ y).tolist(), (x @ y.T.T).tolist(), (y.T @ x.transpose(1, 2)).tolist())\n\
        for n in [8, 100, 1000, 5000, 70001] {\n\
          c = randn(n, dtype=f64, device=cuda) * 1000\n\
          print(c.sum().item(), c.mean().item(), c[1:].sum().item())\n\
          f = randn(n, device=cuda)\n\
          print(f.sum().item(), f.mean().item(), f.to(f16).sum().item(), f.to(bf16).mean().item())\n\
        }\n\
        m = randn(30, 700, dtype=f64, device=cuda)\n\
        print(m.sum(0).tolist(), m.sum(1).tolist(), m.mean(0).tolist(), m.T.sum(0).tolist())";
    let sim = printed_on(BackendChoice::Sim, src);
    let emu = printed_on(BackendChoice::Emu, src);
    assert_eq!(sim.lines().count(), 16, "{sim}");
    for (s, e) in sim.lines().zip(emu.lines()) {
        assert_eq!(s, e, "sim against emu");
    }
}

#[test]
fn empty_launches_no_kernel_and_reads_the_same_on_sim_and_emu() {
    use cudash::runtime::backend::BackendChoice;
    // `torch.empty` takes memory and launches nothing; a reused block reads
    // as zeros on both backends here (a GPU's shows what it held).
    // 1 GiB: filling it through an emulated kernel took about 9 s; the
    // second profile shows no kernel for it either.
    let src = "x = randn(4, device=cuda)\ndel x\n\
        profile { y = empty(4, device=cuda)\nz = empty_like(y)\nw = y.new_empty(2) }\n\
        y\nprofile { big = empty(1073741824, dtype=bool, device=cuda) }\nbig[5].item()";
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let out = printed_on(backend, src);
        let kernels: Vec<&str> = out
            .lines()
            .filter(|l| l.trim_start().starts_with("kernels"))
            .collect();
        assert_eq!(kernels.len(), 2, "{backend:?}: {out}");
        assert!(
            kernels.iter().all(|l| l.trim_end().ends_with(" 0")),
            "{backend:?}: {out}"
        );
        assert!(out.contains("[0., 0., 0., 0.]"), "{backend:?}: {out}");
        assert!(out.trim_end().ends_with("false"), "{backend:?}: {out}");
    }
}

#[test]
fn an_index_into_a_dimension_of_size_0_is_pytorchs_index_error_on_the_host() {
    use cudash::runtime::backend::BackendChoice;
    // PyTorch's AdvancedIndex refuses it before any kernel: no device-side
    // assert, the device stays usable.
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = cudash::session::Session::new(cudash::session::Config {
            backend,
            ..cudash::session::Config::default()
        })
        .unwrap();
        for line in [
            "randn(0, dtype=f16, device=cuda:0)[tensor([0, 0])]",
            "randn(2, 0, 3, device=cuda)[tensor([1]), tensor([0])]",
            "c = randn(0, device=cuda)\nc[tensor([0])] = 1.0",
            "randn(0)[tensor([0])]",
        ] {
            let (class, msg) = common::err_in(&mut s, line);
            assert_eq!(class, "IndexError", "{backend:?} {line}");
            assert_eq!(msg, "index is out of bounds for dimension with size 0");
        }
        let out = common::ok_in(&mut s, "randn(2, 0, device=cuda)[:, tensor([], dtype=i64)].shape\n(ones(2, device=cuda) * 3).tolist()");
        assert_eq!(out.lines().last(), Some("[3.0, 3.0]"), "{backend:?}: {out}");
    }
}

/// Session 45's `cat` that reads strided parts in place indexed a part of
/// shape [2, 0] past its empty buffer (a panic); PyTorch gives [4, 0].
#[test]
fn cat_of_parts_with_no_element_on_a_device() {
    let out =
        common::run("t3 = ones(2, 0, dtype=bf16, device=cuda)\nt0 = -t3\ncat([t0, t3]).shape");
    assert!(!out.contains("panicked"), "{out}");
    assert!(out.trim_end().ends_with("[4, 0]"), "{out}");
}

/// SmoothL1 and Huber broadcast a target of another shape as `mse_loss`
/// does, with PyTorch's warning, as functions and as modules alike
/// (PyTorch 2.15: 0.6666666865348816 for each, x.grad's rows [0, -1/6, -1/6]).
#[test]
fn regression_losses_broadcast_as_mse_does() {
    let out = common::ok(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\
         x = torch.ones(2, 3, requires_grad=True)\nt = torch.tensor([1., 2., 3.])\n\
         a = F.smooth_l1_loss(x, t)\nb = nn.SmoothL1Loss()(x, t)\n\
         c = F.huber_loss(x, t)\nd = nn.HuberLoss()(x, t)\n\
         print(a.item(), b.item(), c.item(), d.item())\n\
         a.backward()\nprint(x.grad.tolist())",
    );
    assert!(out.contains("different to the input size"), "{out}");
    assert!(
        out.contains("0.6666666865348816 0.6666666865348816 0.6666666865348816 0.6666666865348816"),
        "{out}"
    );
    assert!(
        out.contains("[[0.0, -0.1666666716337204, -0.1666666716337204], [0.0, -0.1666666716337204, -0.1666666716337204]]"),
        "{out}"
    );
}

/// A session of two devices on `backend` (what random programs use).
fn on(backend: BackendChoice) -> Session {
    Session::new(Config {
        backend,
        sim_devices: 2,
        ..Config::default()
    })
    .unwrap()
}

/// `all_reduce` on a side stream is one write to each buffer: a read that
/// races it sees "the values from before that write", on the simulator as
/// on emu. (The simulator checks the buffers, then assigns them, and counted
/// its own assignment as an earlier write still pending on the stream.)
#[test]
fn a_collective_on_a_side_stream_is_one_write_on_sim_and_emu() {
    let program = [
        "t = tensor(2, device=cuda)",
        "s0 = stream()",
        "parts = replicate(t, [cuda:0, cuda:1])",
        "sync all",
        "stream s0 { all_reduce(parts) }",
        "t > 1",
    ];
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = on(backend);
        let mut seen = Vec::new();
        for stmt in program {
            seen.extend(common::warnings(&s.execute(stmt)));
        }
        assert_eq!(seen.len(), 1, "{backend:?}: {seen:?}");
        assert!(
            seen[0].contains("while a write to it queued on `s0` may still be running: `default` sees the values from before that write. Fix"),
            "{backend:?}: {}",
            seen[0]
        );
    }
}

/// An in-place op on a side stream that races the write that made its
/// tensor reads the bytes from before that write (a fresh block's zeros
/// here), on the simulator as on emu: the simulator's in-place loops read
/// the live bytes, so `t0.div_(0)` gave ±inf there and NaN on emu.
#[test]
fn an_in_place_op_racing_a_pending_write_reads_the_bytes_before_it_on_sim_and_emu() {
    let program = [
        "t0 = randn(2, 3, device=cuda)",
        "s0 = stream()",
        "stream s0 { t0.add_(1) }",
        "sync all",
        "t0.tolist()",
        "w = randn(3, device=cuda)",
        "stream s0 { w.div_(0) }",
        "sync all",
        "w.tolist()",
    ];
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = on(backend);
        let mut shown = Vec::new();
        for stmt in program {
            let o = s.execute(stmt);
            assert!(o.error.is_none(), "{backend:?}: {stmt}");
            if stmt.ends_with("tolist()") {
                shown.push(o.plain_text().trim().to_string());
            }
        }
        assert_eq!(
            shown,
            ["[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]", "[nan, nan, nan]"],
            "{backend:?}"
        );
    }
}

/// `x[mask] = v` into no element launches nothing, as PyTorch's kernel:
/// a 0-d `v` still being written on another stream is not read, so no
/// race is reported, on emu as on the simulator (emu read it: random
/// programs, seed 36).
#[test]
fn a_masked_fill_into_no_element_reads_no_value_on_sim_and_emu() {
    let program = [
        "t0 = ones(0, device=cuda)",
        "t4 = tensor(2., device=cuda)",
        "t5 = t4 * 2",
        "s0 = stream()",
        "stream s0 { t0[t0 > 0] = t5 }",
        "t6 = t4 * 3",
        "stream s0 { t0[t0 > 0] = t6 }",
    ];
    for backend in [BackendChoice::Sim, BackendChoice::Emu] {
        let mut s = on(backend);
        let mut seen = Vec::new();
        for stmt in program {
            let o = s.execute(stmt);
            assert!(o.error.is_none(), "{backend:?}: {stmt}");
            seen.extend(common::warnings(&o));
        }
        assert!(seen.is_empty(), "{backend:?}: {seen:?}");
    }
}
