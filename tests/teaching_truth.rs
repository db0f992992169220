//! What a learner measures must be what the material teaches (issue 64):
//! pinning a loader's batches never makes the lesson's loop slower and pays
//! where the copy is on the critical path; page-locking shows as host work;
//! a race warning describes the value shown under it; `time` gives the
//! copies' own rate. Each test failed on the model before these fixes.

mod common;

use cudash::session::Session;

/// The modelled seconds per iteration `time` printed last in `out`.
fn time_of(out: &str) -> f64 {
    let line = out
        .lines()
        .rev()
        .find(|l| l.starts_with("time: "))
        .unwrap_or_else(|| panic!("no `time:` line in\n{out}"));
    let figure = line["time: ".len()..].split(" per").next().unwrap();
    let (n, unit) = figure.split_once(' ').unwrap();
    let n: f64 = n.parse().unwrap();
    n * match unit {
        "s" => 1.0,
        "ms" => 1e-3,
        "µs" => 1e-6,
        "ns" => 1e-9,
        other => panic!("unit {other}"),
    }
}

/// The lesson 09 setting: 4096 samples of 4 KiB, batches of 512 (2 MiB).
fn lesson_session() -> Session {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "seed(0)\nX = randn(4096, 1024)\nT = arange(4096) % 10\n\
         W = randn(1024, 1024, device=cuda) * 0.03\nds = TensorDataset(X, T)",
    );
    s
}

fn loop_time(s: &mut Session, workers: u32, pinned: bool, body: &str) -> f64 {
    let pin = if pinned { "true" } else { "false" };
    let out = common::ok_in(
        s,
        &format!(
            "loader = DataLoader(ds, batch_size=512, num_workers={workers}, pin_memory={pin})\n\
             time {{ for xb, tb in loader {{ {body} }} }}"
        ),
    );
    time_of(&out)
}

#[test]
fn pinning_never_slows_the_lessons_loader() {
    let mut s = lesson_session();
    let body = "y = (xb.to(cuda, non_blocking=true) @ W).relu()";
    for workers in [0, 4, 8] {
        let pageable = loop_time(&mut s, workers, false, body);
        let pinned = loop_time(&mut s, workers, true, body);
        assert!(
            pinned <= pageable,
            "{workers} workers: pinned {pinned} s, pageable {pageable} s"
        );
    }
}

#[test]
fn pinning_pays_when_the_copy_is_on_the_critical_path() {
    let mut s = lesson_session();
    let body = "y = xb.to(cuda, non_blocking=true)\nfor k in 0..20 { y = (y @ W).relu() }";
    let pageable = loop_time(&mut s, 8, false, body);
    // The first pinned epoch also page-locks the caching host allocator's
    // blocks (as PyTorch's does); the next ones reuse them.
    let first = loop_time(&mut s, 8, true, body);
    let pinned = loop_time(&mut s, 8, true, body);
    assert!(
        first < pageable,
        "first pinned epoch {first} s, pageable {pageable} s"
    );
    assert!(
        pinned < 0.85 * pageable,
        "pinned {pinned} s, pageable {pageable} s"
    );
}

#[test]
fn a_pageable_copy_costs_the_memcpy_that_stages_it() {
    // 8 MiB: the pin thread's one-core copy and the driver's staging are
    // the same memcpy (7.7 GB/s, as the H100's host measured pageable
    // copies), so neither side of the comparison is free.
    let out = common::ok("r = randn(2048, 1024)\ntime { q = r.to(cuda) }");
    let t = time_of(&out);
    assert!(t > 1.0e-3 && t < 1.3e-3, "{out}");
}

/// The share the host lane of `profile`'s timeline reports.
fn host_busy(out: &str) -> u32 {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("host ") && l.contains('│'))
        .unwrap_or_else(|| panic!("no host lane in\n{out}"));
    let pct = line
        .rsplit('│')
        .next()
        .unwrap()
        .trim()
        .trim_end_matches('%');
    pct.trim().parse().unwrap()
}

#[test]
fn page_locking_a_fresh_block_is_drawn_as_host_work() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "x = randn(2048, 2048)\na = randn(2048, 2048, device=cuda)\nsync",
    );
    // 16 MiB page-locked: about 4 ms of the host's, beside a 0.3 ms matmul.
    let out = common::ok_in(&mut s, "profile { p = x.pin_memory(); b = a @ a }");
    assert!(host_busy(&out) >= 80, "{out}");
    assert!(out.contains("pin_memory"), "{out}");
}

#[test]
fn a_race_warning_describes_the_value_shown() {
    let out = common::ok("s = stream()\nb = ones(4, device=cuda:0)\nwith stream(s) { b *= 2 }\nb");
    // The side stream read `b` before `ones` filled it: the host is shown
    // the memory from before both writes, and the warning says so.
    assert!(out.contains("[0., 0., 0., 0.]"), "{out}");
    let host_read = out
        .lines()
        .find(|l| l.contains("is read on the host"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        host_read.contains("from before that write and from before the write queued on `default`"),
        "{host_read}"
    );
}

#[test]
fn a_race_against_one_write_still_says_just_that_write() {
    let out =
        common::ok("s = stream()\nb = ones(4, device=cuda:0)\nsync\nwith stream(s) { b *= 2 }\nb");
    assert!(out.contains("[1., 1., 1., 1.]"), "{out}");
    assert!(
        out.contains("sees the values from before that write. Fix"),
        "{out}"
    );
}

#[test]
fn time_reports_the_copies_own_rate_and_share() {
    let mut s = lesson_session();
    let out = common::ok_in(
        &mut s,
        "loader = DataLoader(ds, batch_size=512, num_workers=4, pin_memory=true)\n\
         time { for xb, tb in loader { y = (xb.to(cuda, non_blocking=true) @ W).relu() } }",
    );
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("copies: "))
        .unwrap_or_else(|| panic!("{out}"));
    let rate: f64 = line.trim_start()["copies: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // Pinned copies run near PCIe's 50 GB/s while they run; over the whole
    // loop they would read about 3 GB/s.
    assert!(rate > 30.0, "{line}");
    assert!(line.contains("% of it)"), "{line}");
}

/// The figure `profile` gives on its line `name` (`kernels      2`).
fn counted(out: &str, name: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no `{name}` in\n{out}"));
    line.trim_start()[name.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn sgds_step_is_one_kernel_per_parameter_and_allocates_nothing() {
    // PyTorch's single-tensor SGD: `param.add_(grad, alpha=-lr)`.
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "W = randn(256, 256, device=cuda, requires_grad=true)\n\
         b = zeros(256, device=cuda, requires_grad=true)\n\
         opt = SGD([W, b], lr=0.1)\n\
         (randn(8, 256, device=cuda) @ W + b).sum().backward()\nsync",
    );
    let out = common::ok_in(&mut s, "profile { opt.step() }");
    assert_eq!(counted(&out, "kernels"), 2, "{out}");
    assert_eq!(counted(&out, "allocations"), 0, "{out}");
    // With momentum: the first step clones each grad into its buffer; later
    // steps are `buf.mul_(m).add_(g, alpha=1 - dampening)` and the update.
    common::ok_in(
        &mut s,
        "opt = SGD([W, b], lr=0.1, momentum=0.9)\nopt.step()",
    );
    let out = common::ok_in(&mut s, "profile { opt.step() }");
    assert_eq!(counted(&out, "kernels"), 6, "{out}");
    assert_eq!(counted(&out, "allocations"), 0, "{out}");
}

#[test]
fn sgds_update_rounds_once_as_pytorchs_fused_add() {
    // 1 + (-0.1f) * 7 in f32 with one rounding (PyTorch's fmadd), not two.
    let out = common::ok(
        "p = ones(1, requires_grad=true)\n(p * 7).sum().backward()\n\
         SGD([p], lr=0.1).step()\np.tolist()",
    );
    let want = 7f32.mul_add(-0.1f32, 1.0);
    let two_roundings = 1.0f32 - 0.1f32 * 7.0;
    assert_ne!(want, two_roundings, "the case must tell them apart");
    let got: f64 = out
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .unwrap_or_else(|_| panic!("{out}"));
    assert_eq!(got as f32, want, "{out}");
}

/// The bytes `max_memory_allocated()` grew by while `step` ran in `s`.
fn peak_during(s: &mut Session, step: &str) -> i64 {
    common::ok_in(s, "reset_peak()");
    let before: i64 = common::ok_in(s, "memory_allocated()")
        .trim()
        .parse()
        .unwrap();
    common::ok_in(s, step);
    let peak: i64 = common::ok_in(s, "max_memory_allocated()")
        .trim()
        .parse()
        .unwrap();
    peak - before
}

/// A channel's sum over N, H and W of an NCHW tensor on a GPU makes no
/// copy of it (PyTorch's reduction reads it strided): the dims are reduced
/// run by run (H and W merged as a view, then N), where merging all three
/// at once copied the whole tensor.
#[test]
fn a_channel_sum_on_a_gpu_copies_nothing() {
    let mut s = common::session();
    common::ok_in(&mut s, "x = randn(16, 8, 32, 32, device=cuda)"); // 512 KiB
    let grew = peak_during(&mut s, "y = x.sum(dim=(0, 2, 3))");
    assert!(grew < 4096, "the sum's peak grew by {grew} bytes");
    let near = common::ok_in(
        &mut s,
        "((y - x.cpu().sum(dim=(0, 2, 3)).to(cuda)).abs().max() < 1e-3).item()",
    );
    assert_eq!(near.trim(), "true");
    for kept in ["x.amax(dim=(0, 2, 3))", "x.sum(dim=(0, 3), keepdim=true)"] {
        let grew = peak_during(&mut s, &format!("z = {kept}"));
        assert!(grew < 64 * 1024, "`{kept}` grew the peak by {grew} bytes");
    }
    let shape = common::ok_in(&mut s, "x.sum(dim=(0, 3), keepdim=true).shape");
    assert!(shape.contains("[1, 8, 32, 1]"), "{shape}");
}

/// BatchNorm2d's and LayerNorm's forwards allocate their output and
/// nothing more of x's size at once (PyTorch's kernels write the output
/// once); their backwards at most two buffers of x's size (PyTorch's
/// kernels one, grad_input), where the composite backwards held five.
#[test]
fn the_norms_hold_what_pytorchs_kernels_hold() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "x = randn(16, 8, 32, 32, device=cuda, requires_grad=true)\n\
         g = ones(16, 8, 32, 32, device=cuda)\n\
         bn = BatchNorm2d(8).to(cuda)\nln = LayerNorm(32).to(cuda)",
    );
    let n = 16 * 8 * 32 * 32 * 4;
    // Beside them, statistics and coefficients of a row or a channel
    // each: LayerNorm's 4,096 rows hold 16 KiB a statistic, up to 16 at once.
    let small = 16 * 16 * 1024;
    for norm in ["bn", "ln"] {
        let forward = peak_during(&mut s, &format!("y = {norm}(x)"));
        assert!(
            forward >= n && forward < n + small,
            "{norm}'s forward grew the peak by {forward} bytes"
        );
        let backward = peak_during(&mut s, "y.backward(g)");
        assert!(
            backward <= 2 * n + small,
            "{norm}'s backward grew the peak by {backward} bytes"
        );
    }
}

/// A dropout in place on a GPU (`nn.Dropout(inplace=True)`, PyTorch's
/// `dropout_`) leaves the noise behind, a tensor of x's dtype that
/// `MulBackward0` keeps; out of place it is the fused kernel's result and
/// its one-byte mask. The peak of the in-place one is the noise and what
/// draws it (a draw and a mask at once), never a second copy of x.
#[test]
fn dropout_in_place_keeps_its_noise_and_no_second_output() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "w = randn(1024, 256, device=cuda, requires_grad=true)\nx = w * 2",
    );
    let n = 1024 * 256 * 4;
    let allocated = |s: &mut Session| -> i64 {
        common::ok_in(s, "memory_allocated()")
            .trim()
            .parse()
            .unwrap()
    };
    let before = allocated(&mut s);
    let peak = peak_during(&mut s, "y = Dropout(0.5, inplace=true)(x)");
    assert_eq!(
        allocated(&mut s) - before,
        n,
        "the noise, kept by MulBackward0"
    );
    assert!(
        peak <= n + n / 4 + 4096,
        "the in-place dropout's peak grew by {peak}"
    );
    let same = common::ok_in(&mut s, "(y is x, x._version, x.grad_fn.name())");
    assert!(
        same.contains("true") && same.contains("1") && same.contains("MulBackward0"),
        "{same}"
    );
    let before = allocated(&mut s);
    common::ok_in(&mut s, "z = dropout(w * 2, 0.5)");
    // The product freed; z and its mask stay.
    assert_eq!(allocated(&mut s) - before, n + n / 4);
}

/// A channels-last tensor's elementwise results and clone on a GPU are
/// channels-last, each made in one block of x's size (PyTorch's
/// TensorIterator lays a result out as its input): no row-major result
/// and no copy on the way.
#[test]
fn channels_last_results_take_one_block_each() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "import torch\nx = randn(8, 16, 32, 32, device=cuda).to(memory_format=torch.channels_last)",
    );
    let n = 8 * 16 * 32 * 32 * 4;
    let peak = peak_during(&mut s, "y = (x * 2).relu()");
    assert_eq!(peak, 2 * n, "x * 2 and its relu, nothing more");
    let peak = peak_during(&mut s, "c = x.clone()");
    assert_eq!(peak, n, "one copy, laid out as x");
    let said = common::ok_in(
        &mut s,
        "(y.stride(), c.stride(), y.is_contiguous(), y.is_contiguous(memory_format=torch.channels_last))",
    );
    assert_eq!(said.matches("16384, 1, 512, 16").count(), 2, "{said}");
    assert!(said.contains("false") && said.contains("true"), "{said}");
}
