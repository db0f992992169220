//! Mixed precision (issue 71): `autocast` casts each op's inputs as
//! PyTorch 2.15's lists say (CUDA's from `ATen/autocast_mode.h`, the CPU's
//! checked against torch's own CPU autocast), keeps a parameter's cast for
//! the region, leaves backward alone; `GradScaler` scales, skips and backs
//! off as `torch.amp.GradScaler` does (its figures below come from torch
//! 2.15 on the CPU).

mod common;

use common::{cpu_session, err_in, ok_in, session};

/// The dtype each op of cudash gives under `autocast(dtype=f16)` on CUDA
/// tensors: `x`, `w` are f32, `h` is f16 (so float32-listed ops show their
/// cast), `t` holds class indices. One line per op, as the PyTorch docs'
/// CUDA lists have them (`torch.amp`: "CUDA Ops that can autocast to
/// float16", "... to float32", "... promote to the widest input type"; an
/// op in none of them runs in the dtypes it is given).
#[test]
fn every_op_autocasts_as_pytorchs_cuda_lists_say() {
    let cases: &[(&str, &str)] = &[
        // Lower precision.
        ("x @ w", "f16"),
        ("matmul(x, w)", "f16"),
        ("x.matmul(w)", "f16"),
        ("linear(x, w, b)", "f16"),
        ("lin(x)", "f16"),
        ("conv2d(img, k)", "f16"),
        ("conv(img)", "f16"),
        // Float32.
        ("exp(h)", "f32"),
        ("h.log()", "f32"),
        ("h ** 2", "f32"),
        ("pow(h, 2)", "f32"),
        ("layer_norm(h, [8])", "f32"),
        ("ln(h)", "f32"),
        ("mse_loss(h, h)", "f32"),
        ("nll_loss(h, t)", "f32"),
        ("cross_entropy(h, t)", "f32"),
        ("h.norm()", "f32"),
        ("h.log1p()", "f32"),
        ("l1_loss(h, h)", "f32"),
        ("smooth_l1_loss(h, h)", "f32"),
        ("huber_loss(h, h)", "f32"),
        ("binary_cross_entropy_with_logits(h, h)", "f32"),
        // Float32 unless a dtype is given.
        ("h.sum()", "f32"),
        ("h.sum(dtype=f16)", "f16"),
        ("h.prod()", "f32"),
        ("h.softmax(-1)", "f32"),
        ("sm(h)", "f32"),
        ("h.log_softmax(-1)", "f32"),
        ("h.cumsum(0)", "f32"),
        ("h.cumprod(0)", "f32"),
        // The widest input type.
        ("dot(h[0], x[0])", "f32"),
        // Not listed: the dtypes they are given (and the usual promotion).
        ("h.relu()", "f16"),
        ("h.sigmoid()", "f16"),
        ("h.tanh()", "f16"),
        ("gelu(h)", "f16"),
        ("h.mean()", "f16"),
        ("h.max()", "f16"),
        ("h.sqrt()", "f16"),
        ("h.var()", "f16"),
        ("h + x", "f32"),
        ("h * 2", "f16"),
        ("cat([h, h])", "f16"),
        ("dropout(h, 0.5)", "f16"),
        ("emb(t)", "f32"),
        ("bn(h)", "f16"),
    ];
    for backend in ["sim", "emu"] {
        let mut s = match backend {
            "sim" => session(),
            _ => cudash::session::Session::new(cudash::session::Config {
                backend: cudash::runtime::backend::BackendChoice::Emu,
                ..Default::default()
            })
            .unwrap(),
        };
        ok_in(
            &mut s,
            "x = randn(4, 8, device=cuda)
w = randn(8, 8, device=cuda, requires_grad=true)
b = randn(8, device=cuda)
h = randn(4, 8, device=cuda).half()
t = tensor([1, 0, 3, 2], device=cuda)
img = randn(1, 2, 6, 6, device=cuda)
k = randn(3, 2, 3, 3, device=cuda)
lin = Linear(8, 8).to(cuda)
conv = Conv2d(2, 3, 3).to(cuda)
ln = LayerNorm(8).to(cuda)
sm = Softmax(dim=-1)
emb = Embedding(8, 4).to(cuda)
bn = BatchNorm1d(8).to(cuda)",
        );
        for (expr, want) in cases {
            let got = ok_in(
                &mut s,
                &format!("with autocast(dtype=f16) {{ r = {expr} }}\nprint(r.dtype)"),
            );
            assert_eq!(
                got.trim(),
                format!("torch.{}", long_name(want)),
                "{expr} on {backend}"
            );
        }
        // bf16 regions cast to bf16.
        let got = ok_in(
            &mut s,
            "with autocast(\"cuda\", dtype=bf16) { r = x @ w }\nprint(r.dtype)",
        );
        assert_eq!(got.trim(), "torch.bfloat16");
        // PyTorch bans binary_cross_entropy (and BCELoss) in a CUDA region.
        let (ename, evalue) = err_in(
            &mut s,
            "p = sigmoid(x)\nwith autocast(dtype=f16) { r = BCELoss()(p, p) }",
        );
        assert_eq!(ename, "RuntimeError");
        assert!(evalue.contains("are unsafe to autocast"), "{evalue}");
        let got = ok_in(
            &mut s,
            "try { with autocast(dtype=f16) { r = binary_cross_entropy(p, p) } } except RuntimeError { r = none }\nprint(r, binary_cross_entropy(p, p).dtype)",
        );
        assert_eq!(got.trim(), "None torch.float32");
    }
}

fn long_name(short: &str) -> &'static str {
    match short {
        "f16" => "float16",
        "bf16" => "bfloat16",
        "f32" => "float32",
        _ => panic!("{short}"),
    }
}

/// On CPU tensors `autocast("cpu")` follows PyTorch's CPU lists, bf16 by
/// default: products in bf16, `prod` and the losses in f32, and the rest
/// (`exp`, `sum`, `softmax`, `layer_norm` ...) in what they are given. The
/// figures are torch 2.15's own CPU autocast on the same ops (bf16 inputs
/// `hb`, f32 `x`, `w`). A CUDA region leaves CPU ops alone, and a CPU
/// region CUDA ones.
#[test]
fn cpu_autocast_follows_torchs_cpu_lists() {
    let mut s = session();
    ok_in(
        &mut s,
        "x = randn(4, 8)
w = randn(8, 8, requires_grad=true)
hb = randn(4, 8).bfloat16()
t = tensor([1, 0, 3, 2])",
    );
    let cases: &[(&str, &str)] = &[
        ("x @ w", "bfloat16"),
        ("linear(x, w)", "bfloat16"),
        ("hb.exp()", "bfloat16"),
        ("hb.sum()", "bfloat16"),
        ("hb.softmax(0)", "bfloat16"),
        ("hb.prod()", "float32"),
        ("layer_norm(hb, [8])", "bfloat16"),
        ("mse_loss(hb, hb)", "float32"),
        ("nll_loss(hb, t)", "float32"),
        ("cross_entropy(hb, t)", "float32"),
        ("dot(hb[0], hb[1])", "bfloat16"),
        ("hb.relu()", "bfloat16"),
    ];
    for (expr, want) in cases {
        let got = ok_in(
            &mut s,
            &format!("with autocast(\"cpu\") {{ r = {expr} }}\nprint(r.dtype)"),
        );
        assert_eq!(got.trim(), format!("torch.{want}"), "{expr}");
    }
    let got = ok_in(
        &mut s,
        "with autocast(\"cuda\") { r = x @ w }\nprint(r.dtype)",
    );
    assert_eq!(
        got.trim(),
        "torch.float32",
        "a CUDA region leaves CPU tensors alone"
    );
    let got = ok_in(
        &mut s,
        "xc = x.to(cuda)\nwith autocast(\"cpu\") { r = xc @ xc.T }\nprint(r.dtype)",
    );
    assert_eq!(
        got.trim(),
        "torch.float32",
        "a CPU region leaves CUDA tensors alone"
    );
}

/// A parameter's cast is made once per region (the weight cache): two
/// products with `w` in one region cast it once (`x`, which requires no
/// grad, is cast each time), and both products' graphs share that cast;
/// without the cache, or in a new region, it is cast again.
#[test]
fn a_parameter_is_cast_once_per_region() {
    let mut s = session();
    ok_in(
        &mut s,
        "x = randn(4, 8, device=cuda)\nw = randn(8, 8, device=cuda, requires_grad=true)",
    );
    let kernels = |s: &mut cudash::session::Session, src: &str| -> usize {
        let out = ok_in(s, &format!("profile {{ {src} }}"));
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with("kernels"))
            .unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    // cast x, cast w, mm, cast x, mm.
    let cached = kernels(&mut s, "with autocast() { y = x @ w; z = x @ w }");
    assert_eq!(cached, 5);
    let uncached = kernels(
        &mut s,
        "with autocast(cache_enabled=false) { y = x @ w; z = x @ w }",
    );
    assert_eq!(uncached, 6);
    let two_regions = kernels(
        &mut s,
        "with autocast() { y = x @ w }\nwith autocast() { z = x @ w }",
    );
    assert_eq!(two_regions, 6);
    // Nested regions share the outer one's cache.
    let nested = kernels(
        &mut s,
        "with autocast() { y = x @ w\nwith autocast() { z = x @ w } }",
    );
    assert_eq!(nested, 5);
    let shared = ok_in(
        &mut s,
        "with autocast() { y = x @ w; z = x @ w }
print(y.grad_fn.next_functions[1][0] is z.grad_fn.next_functions[1][0])",
    );
    assert_eq!(shared.trim(), "True");
    // The cache is memory while the region lasts, and `mem map` names it.
    let map = ok_in(&mut s, "with autocast() { y = x @ w\nmem map }");
    assert!(map.contains("autocast's f16 cast of w"), "{map}");
    let map = ok_in(&mut s, "mem map");
    assert!(!map.contains("autocast's"), "{map}");
}

/// Backward follows the forward's dtypes and ends in the parameters'
/// own: f32 gradients for f32 parameters. A region around `backward()`
/// changes nothing (backward runs without autocast, as PyTorch's engine).
/// `enabled=false` inside a region switches it off for its block.
#[test]
fn backward_runs_outside_autocast_and_enabled_false_switches_it_off() {
    let mut s = session();
    ok_in(
        &mut s,
        "manual_seed(0)
x = randn(16, 8, device=cuda)
w = randn(8, 4, device=cuda, requires_grad=true)
with autocast() { loss = (x @ w).float().pow(2).mean() }
loss.backward()
g1 = w.grad.clone()
w.grad = None
with autocast() { loss = (x @ w).float().pow(2).mean() }
with autocast() { loss.backward() }",
    );
    assert_eq!(ok_in(&mut s, "print(w.grad.dtype)").trim(), "torch.float32");
    assert_eq!(
        ok_in(&mut s, "print((w.grad == g1).all().item())").trim(),
        "True"
    );
    let off = ok_in(
        &mut s,
        "with autocast() { with autocast(enabled=false) { r = x @ w } }\nprint(r.dtype)",
    );
    assert_eq!(off.trim(), "torch.float32");
}

/// `GradScaler`'s scales, skipped steps and parameters over a scripted
/// series of gradients (an inf at step 2, a NaN at step 6, growth every 3
/// clean steps), equal to torch 2.15's `torch.amp.GradScaler("cpu",
/// init_scale=1024.0, growth_interval=3)` with SGD(lr=0.1) on the same
/// series (printed by that script with 9 significant digits).
#[test]
fn grad_scaler_matches_torchs_scales_skips_and_updates() {
    let torch: &[(f64, i64, [f64; 3])] = &[
        (1024.0, 1, [0.949999988, -2.0250001, 3.0999999]),
        (1024.0, 2, [0.849999964, -2.125, 3.0]),
        (512.0, 0, [0.849999964, -2.125, 3.0]),
        (512.0, 1, [0.839999974, -2.14499998, 2.97000003]),
        (512.0, 2, [0.829999983, -2.16499996, 2.94000006]),
        (1024.0, 0, [0.819999993, -2.18499994, 2.91000009]),
        (512.0, 0, [0.819999993, -2.18499994, 2.91000009]),
        (512.0, 1, [0.620000005, -2.18499994, 3.11000013]),
        (512.0, 2, [-99.3800049, -102.185005, -96.8899994]),
    ];
    for device in ["cpu", "cuda"] {
        let mut s = session();
        ok_in(
            &mut s,
            &format!(
                "w = tensor([1.0, -2.0, 3.0], device={device}, requires_grad=true)
opt = SGD([w], lr=0.1)
scaler = GradScaler(\"{device}\", init_scale=1024.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=3)
gs = [[0.5, 0.25, -1.0], [1.0, 1.0, 1.0], [inf, 0.0, 0.0], [0.1, 0.2, 0.3], [0.1, 0.2, 0.3], [0.1, 0.2, 0.3], [nan, 1.0, 1.0], [2.0, 0.0, -2.0], [1e3, 1e3, 1e3]]"
            ),
        );
        for (k, (scale, tracker, w)) in torch.iter().enumerate() {
            let out = ok_in(
                &mut s,
                &format!(
                    "loss = (w * tensor(gs[{k}], device={device})).sum()
scaler.scale(loss).backward()
scaler.step(opt)
scaler.update()
opt.zero_grad()
print(scaler.get_scale(), scaler.state_dict()[\"_growth_tracker\"], w.tolist())"
                ),
            );
            let nums: Vec<f64> = out
                .replace(['[', ']', ','], " ")
                .split_whitespace()
                .map(|n| n.parse().unwrap())
                .collect();
            assert_eq!(nums[0], *scale, "step {k} on {device}: {out}");
            assert_eq!(nums[1] as i64, *tracker, "step {k} on {device}: {out}");
            for (got, want) in nums[2..].iter().zip(w) {
                assert!(
                    ((got - want) / want.abs().max(1.0)).abs() < 1e-6,
                    "step {k} on {device}: {out}"
                );
            }
        }
        let shown = ok_in(&mut s, "scaler");
        assert!(
            shown.contains("scale=512.0") && shown.contains("9 steps, 2 skipped"),
            "{shown}"
        );
    }
}

/// The AMP recipe's mistakes get PyTorch's messages.
#[test]
fn grad_scaler_misuse_is_pytorchs_error() {
    let mut s = session();
    ok_in(
        &mut s,
        "w = ones(3, device=cuda, requires_grad=true)
opt = SGD([w], lr=0.1)
scaler = GradScaler()",
    );
    let e = err_in(&mut s, "scaler.step(opt)").1;
    assert!(e.contains("Attempted step but _scale is None"), "{e}");
    ok_in(
        &mut s,
        "scaler.scale(w.sum()).backward()\nscaler.unscale_(opt)",
    );
    let e = err_in(&mut s, "scaler.unscale_(opt)").1;
    assert!(
        e.contains("unscale_() has already been called on this optimizer since the last update()."),
        "{e}"
    );
    ok_in(&mut s, "scaler.step(opt)");
    let e = err_in(&mut s, "scaler.step(opt)").1;
    assert!(
        e.contains("step() has already been called since the last update()."),
        "{e}"
    );
    let e = err_in(&mut s, "scaler.unscale_(opt)").1;
    assert!(
        e.contains("unscale_() is being called after step()."),
        "{e}"
    );
    ok_in(&mut s, "scaler.update()");
    let e = err_in(&mut s, "scaler.update()").1;
    assert!(
        e.contains("No inf checks were recorded prior to update."),
        "{e}"
    );
    // A model made `.half()`: f16 gradients.
    ok_in(
        &mut s,
        "h = ones(3, device=cuda).half().requires_grad_()
opt16 = SGD([h], lr=0.1)
scaler.scale(h.float().sum()).backward()",
    );
    let e = err_in(&mut s, "scaler.step(opt16)").1;
    assert!(e.contains("Attempting to unscale FP16 gradients."), "{e}");
    let e = err_in(&mut s, "GradScaler(growth_factor=1.0)").1;
    assert!(e.contains("The growth factor must be > 1.0."), "{e}");
    let e = err_in(&mut s, "autocast(dtype=i64)").1;
    assert!(
        e.contains("autocast runs the listed ops in a lower-precision float"),
        "{e}"
    );
    let e = err_in(&mut s, "autocast(\"tpu\")").1;
    assert!(e.contains("unsupported autocast device_type 'tpu'"), "{e}");
    // The session goes on with its variables.
    assert_eq!(ok_in(&mut s, "w.shape").trim(), "[3]");
}

/// Without a CUDA device a cuda scaler and a cuda region warn and switch
/// themselves off, as PyTorch's; a CPU region with a dtype it does not
/// take warns and is off.
#[test]
fn without_cuda_the_cuda_scaler_and_region_are_off() {
    let mut s = cpu_session();
    let out = ok_in(&mut s, "scaler = GradScaler()\nprint(scaler.is_enabled())");
    assert!(out.contains("CUDA is not available.  Disabling."), "{out}");
    assert!(out.trim_end().ends_with("False"), "{out}");
    let out = ok_in(
        &mut s,
        "w = ones(2, requires_grad=true)
opt = SGD([w], lr=0.5)
scaler.scale(w.sum()).backward()
scaler.step(opt)
w",
    );
    assert!(out.contains("[0.5000, 0.5000]"), "{out}");
    let out = ok_in(&mut s, "with autocast() { r = w @ w }\nprint(r.dtype)");
    assert!(
        out.contains("Disabling autocast") && out.contains("torch.float32"),
        "{out}"
    );
    let out = ok_in(
        &mut s,
        "with autocast(\"cpu\", dtype=f32) { r = w @ w }\nprint(r.dtype)",
    );
    assert!(
        out.contains("CPU Autocast only supports") && out.contains("torch.float32"),
        "{out}"
    );
}

/// Autocast adds the casts PyTorch's does, no more: a training step of the
/// MLP 784 → 256 → 10 (cross-entropy, SGD) makes 11 more kernels under
/// autocast than in float32, one per cast: torch 2.15's profiler counts 11
/// `aten::_to_copy` in the same step under CPU autocast (5 casts for the
/// two linears' x, weights and biases, 1 for log_softmax's input; in
/// backward 4 gradients back to float32 and the logits' one back to 16 bits).
#[test]
fn a_step_casts_as_often_as_pytorchs() {
    let mut s = session();
    ok_in(
        &mut s,
        "manual_seed(0)
model = Sequential(Linear(784, 256), ReLU(), Linear(256, 10)).to(cuda)
x = randn(64, 784, device=cuda)
y = randint(0, 10, [64], device=cuda)
opt = SGD(model.parameters(), lr=0.01)
fn plain() {
  cross_entropy(model(x), y).backward()
  opt.step()
  opt.zero_grad()
}
fn amp() {
  with autocast() { loss = cross_entropy(model(x), y) }
  loss.backward()
  opt.step()
  opt.zero_grad()
}
plain()
amp()",
    );
    let kernels = |s: &mut cudash::session::Session, f: &str| -> i64 {
        let out = ok_in(s, &format!("profile {{ {f}() }}"));
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with("kernels"))
            .unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let (plain, amp) = (kernels(&mut s, "plain"), kernels(&mut s, "amp"));
    assert_eq!(amp - plain, 11, "plain {plain}, autocast {amp}");
}

/// `torch.cuda.amp.GradScaler(...)` and `torch.cuda.amp.autocast(...)`
/// work and warn as PyTorch 2.15's deprecated spellings do; `torch.amp`'s
/// do not warn.
#[test]
fn the_cuda_amp_spellings_warn_as_pytorchs() {
    let (out, err, ok) = common::script_streams(
        "cuda_amp",
        "import torch\nscaler = torch.cuda.amp.GradScaler(enabled=False)\n\
         with torch.cuda.amp.autocast(enabled=False):\n    x = torch.ones(2) * 2\n\
         print(x.tolist(), scaler.is_enabled())\n\
         s2 = torch.amp.GradScaler(\"cuda\", enabled=False)\n",
    );
    assert!(ok, "{err}");
    assert_eq!(out, "[2.0, 2.0] False\n");
    for name in ["GradScaler", "autocast"] {
        let warning = format!(
            "FutureWarning: `torch.cuda.amp.{name}(args...)` is deprecated. Please use `torch.amp.{name}('cuda', args...)` instead."
        );
        assert_eq!(err.matches(&warning).count(), 1, "{err}");
    }
}

/// `scaler.step(optimizer)` runs the optimizer's `step()` as the program's
/// own call does: its step hooks run when it steps, not when the scaler
/// skips the step for an inf.
#[test]
fn scaler_step_runs_the_optimizers_step_hooks() {
    let lines = common::script_lines_on(
        1,
        "scaler_hooks.py",
        "import torch\n\
         w = torch.ones(2, device='cuda', requires_grad=True)\n\
         opt = torch.optim.SGD([w], lr=0.1)\n\
         seen = []\n\
         opt.register_step_pre_hook(lambda o, a, k: seen.append('pre'))\n\
         opt.register_step_post_hook(lambda o, a, k: seen.append('post'))\n\
         scaler = torch.amp.GradScaler('cuda')\n\
         for bad in [False, True]:\n\
         \x20   opt.zero_grad()\n\
         \x20   loss = (w * (float('inf') if bad else 1.0)).sum()\n\
         \x20   scaler.scale(loss).backward()\n\
         \x20   print(scaler.step(opt))\n\
         \x20   scaler.update()\n\
         print(seen, w.tolist())\n",
    );
    assert_eq!(
        lines,
        [
            "None",
            "None",
            "['pre', 'post'] [0.8999999761581421, 0.8999999761581421]"
        ]
    );
}
