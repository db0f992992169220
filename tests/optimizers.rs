//! Optimizers, learning-rate schedules and gradient clipping as
//! `torch.optim` and `torch.nn.utils` run them (issue 67). The figures in
//! the expectations are PyTorch 2.15's for the same program (CPU, f64).

mod common;

/// Five steps of `opt` on w = [1, -2, 3] with gradients (i + 1) * [0.5, -1, 2].
fn five_steps(opt: &str) -> Vec<f64> {
    let out = common::ok(&format!(
        "w = tensor([1., -2., 3.], dtype=f64, requires_grad=true)\n\
         g = tensor([0.5, -1., 2.], dtype=f64)\n\
         opt = {opt}\n\
         for i in 0..5 {{ w.grad = g * (i + 1); opt.step() }}\n\
         print(w.tolist())"
    ));
    out.trim()
        .trim_matches(['[', ']'])
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect()
}

#[test]
fn each_optimizer_steps_as_pytorchs() {
    // PyTorch 2.15: the same five steps (printed with repr, exact).
    let cases: &[(&str, [f64; 3])] = &[
        (
            "AdamW([w], lr=0.1)",
            [0.5109031111824294, -1.5059130984987836, 2.5009230871594603],
        ),
        (
            "RMSprop([w], lr=0.01)",
            [0.5891169465522837, -1.5891169281325703, 2.589116918922713],
        ),
        (
            "RMSprop([w], lr=0.01, momentum=0.9, centered=true)",
            [-0.1535463807797404, -0.8464535542431928, 1.846453521754656],
        ),
        (
            "Adagrad([w], lr=0.1)",
            [0.5899292477827053, -1.5899292477643199, 2.5899292477551277],
        ),
        (
            "Adadelta([w], lr=1.0)",
            [0.9757868839086709, -1.9757866309082095, 2.9757865676563053],
        ),
    ];
    for (opt, expected) in cases {
        let got = five_steps(opt);
        for (g, e) in got.iter().zip(expected) {
            assert!(
                (g - e).abs() <= 4.0 * f64::EPSILON * e.abs(),
                "{opt}: {got:?} vs {expected:?}"
            );
        }
    }
}

#[test]
fn schedules_give_pytorchs_learning_rates() {
    let lrs = |sched: &str| -> String {
        common::ok(&format!(
            "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\n\
             fn lam(e) {{ return 0.95 ** e }}\n\
             s = {sched}\nlrs = list()\n\
             for e in 0..6 {{ opt.step(); s.step(); lrs.append(opt.param_groups[0][\"lr\"]) }}\n\
             print(lrs)"
        ))
        .trim()
        .to_string()
    };
    assert_eq!(
        lrs("StepLR(opt, step_size=2, gamma=0.5)"),
        "[0.1, 0.05, 0.05, 0.025, 0.025, 0.0125]"
    );
    assert_eq!(
        lrs("MultiStepLR(opt, milestones=[1, 3, 3], gamma=0.1)"),
        "[0.010000000000000002, 0.010000000000000002, 0.00010000000000000005, 0.00010000000000000005, 0.00010000000000000005, 0.00010000000000000005]"
    );
    assert_eq!(
        lrs("CosineAnnealingLR(opt, T_max=3)"),
        "[0.07500000000000001, 0.025000000000000015, 0.0, 0.024999999999999994, 0.07500000000000005, 0.10000000000000006]"
    );
    assert_eq!(
        lrs("LambdaLR(opt, lam)"),
        "[0.095, 0.09025, 0.0857375, 0.081450625, 0.07737809374999999, 0.07350918906249998]"
    );
}

#[test]
fn a_schedule_stepped_before_its_optimizer_says_so() {
    let out = common::run(
        "w = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\ns = StepLR(opt, step_size=1)\ns.step()",
    );
    assert!(
        out.contains("Detected call of `lr_scheduler.step()` before `optimizer.step()`"),
        "{out}"
    );
}

#[test]
fn clipping_scales_or_clamps_the_gradients_in_place() {
    let out = common::ok(
        "w = ones(2, dtype=f64, requires_grad=true)\n\
         (w * tensor([3., 4.], dtype=f64)).sum().backward()\n\
         print(clip_grad_norm_([w], max_norm=1.0).item())\n\
         print(w.grad.tolist())\n\
         w.grad = tensor([5., -7.], dtype=f64)\n\
         clip_grad_value_([w], 2.0)\nprint(w.grad.tolist())",
    );
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "5.0",
            "[0.599999880000024, 0.799999840000032]",
            "[2.0, -2.0]"
        ],
        "{out}"
    );
}

#[test]
fn an_optimizer_s_state_has_pytorchs_names() {
    let out = common::ok(
        "w = ones(3, device=cuda, requires_grad=true)\nopt = RMSprop([w], momentum=0.9, centered=true)\n\
         w.sum().backward()\nopt.step()\nopt\nmem map",
    );
    assert!(
        out.contains("RMSprop(lr=0.01, momentum=0.9, alpha=0.99"),
        "{out}"
    );
    assert!(out.contains("state 36 bytes"), "{out}");
    for name in [
        "square_avg of w (RMSprop)",
        "grad_avg of w (RMSprop)",
        "momentum_buffer of w (RMSprop)",
    ] {
        assert!(out.contains(name), "{name}: {out}");
    }
}

/// OneCycleLR over its six steps: PyTorch 2.15's rates and momenta, to the
/// bit, and its error one step past the end.
#[test]
fn one_cycle_follows_pytorchs_rates_and_momenta() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "w = zeros(2, requires_grad=true)\nopt = SGD([w], lr=0.1, momentum=0.9)\nsch = OneCycleLR(opt, max_lr=1.0, total_steps=6)\n\
         lrs = list()\nms = list()\nlrs.append(opt.param_groups[0][\"lr\"])\nms.append(opt.param_groups[0][\"momentum\"])\n\
         for i in 0..5 { opt.step(); sch.step(); lrs.append(opt.param_groups[0][\"lr\"]); ms.append(opt.param_groups[0][\"momentum\"]) }",
    );
    assert_eq!(
        common::ok_in(&mut s, "print(lrs)"),
        "[0.040000000000000036, 0.9944154354509117, 0.811745653949763, 0.46263710266697505, 0.1334775301888306, 4e-06]"
    );
    assert_eq!(
        common::ok_in(&mut s, "print(ms)"),
        "[0.95, 0.8505584586887436, 0.8688255099070633, 0.9037365046793212, 0.9366525935914912, 0.95]"
    );
    common::ok_in(&mut s, "sch.step()");
    let (_, msg) = common::err_in(&mut s, "sch.step()");
    assert_eq!(
        msg,
        "Tried to step 7 times. The specified number of total steps is 6"
    );
    let (_, msg) = common::err_in(
        &mut s,
        "OneCycleLR(Adagrad([w]), max_lr=0.1, total_steps=5)",
    );
    assert!(msg.contains("must support momentum or beta1"), "{msg}");
}

/// Parameter groups as PyTorch's: each group's settings over the call's,
/// schedules per group, a parameter in two groups refused.
#[test]
fn parameter_groups_have_their_own_settings() {
    let mut s = common::session();
    common::ok_in(
        &mut s,
        "a = tensor([1., 2.], dtype=f64, requires_grad=true)\nb = tensor([3.], dtype=f64, requires_grad=true)\n\
         opt = SGD([{\"params\": [a]}, {\"params\": [b], \"lr\": 0.01}], lr=0.1)\n\
         a.grad = ones_like(a)\nb.grad = ones_like(b)\nopt.step()",
    );
    assert_eq!(
        common::ok_in(&mut s, "print(a.tolist(), b.tolist())"),
        "[0.9, 1.9] [2.99]"
    );
    assert_eq!(common::ok_in(&mut s, "len(opt.param_groups)"), "2");
    common::ok_in(
        &mut s,
        "sch = StepLR(opt, step_size=1, gamma=0.5)\nopt.step()\nsch.step()",
    );
    assert_eq!(
        common::ok_in(&mut s, "print(sch.get_last_lr())"),
        "[0.05, 0.005]"
    );
    let (_, msg) = common::err_in(
        &mut s,
        "SGD([{\"params\": [a]}, {\"params\": [a, b]}], lr=0.1)",
    );
    assert_eq!(
        msg,
        "some parameters appear in more than one parameter group"
    );
    // Another optimizer's setting in a group: kept, as PyTorch keeps any
    // key, and said to do nothing (PyTorch leaves that unsaid).
    let o = s.execute("m = Adam([{\"params\": [a], \"momentum\": 0.9, \"name\": \"enc\"}])");
    assert!(o.error.is_none(), "{:?}", o.error.map(|e| e.report));
    let warned = common::warnings(&o).join("\n");
    assert!(
        warned.contains("Adam sets \"momentum\", which it does not use"),
        "{warned}"
    );
    assert!(!warned.contains("\"name\""), "{warned}");
    assert_eq!(
        common::ok_in(
            &mut s,
            "print(m.param_groups[0][\"momentum\"], m.param_groups[0][\"name\"])"
        ),
        "0.9 enc"
    );
    assert_eq!(
        common::ok_in(
            &mut s,
            "Adam([a], betas=(0.8, 0.99)).param_groups[0][\"betas\"]"
        ),
        "[0.8, 0.99]"
    );
}

/// PyTorch's switches: AMSGrad (Adam, AdamW), `maximize` (every kind),
/// `decoupled_weight_decay` (Adam), `fused`/`foreach` (the same update),
/// each group's full settings in PyTorch's order, a group's dict methods
/// and `g[key] = v` for any setting. Expected lines: PyTorch 2.15's.
#[test]
fn switches_amsgrad_maximize_fused_as_pytorch() {
    let out = common::script_lines_on(
        0,
        "optimizer_switches",
        r#"import torch
torch.manual_seed(0)
x = torch.randn(8, 3)
y = torch.randn(8, 1)
def run(make, steps=5):
    torch.manual_seed(1)
    lin = torch.nn.Linear(3, 1)
    opt = make(lin.parameters())
    for _ in range(steps):
        opt.zero_grad()
        loss = ((lin(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    return [round(v, 5) for v in lin.weight.flatten().tolist() + lin.bias.tolist()], opt
for name, make in [
    ("adam amsgrad", lambda p: torch.optim.Adam(p, lr=0.1, amsgrad=True)),
    ("adamw amsgrad", lambda p: torch.optim.AdamW(p, lr=0.1, amsgrad=True, weight_decay=0.1)),
    ("adam decoupled", lambda p: torch.optim.Adam(p, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)),
    ("adamw fused", lambda p: torch.optim.AdamW(p, lr=0.1, fused=True)),
    ("adam foreach", lambda p: torch.optim.Adam(p, lr=0.1, foreach=True)),
    ("sgd maximize", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, maximize=True)),
    ("rmsprop maximize", lambda p: torch.optim.RMSprop(p, lr=0.01, maximize=True)),
    ("adagrad maximize", lambda p: torch.optim.Adagrad(p, lr=0.1, maximize=True)),
    ("adadelta maximize", lambda p: torch.optim.Adadelta(p, maximize=True)),
    ("adamax maximize", lambda p: torch.optim.Adamax(p, maximize=True)),
    ("radam maximize", lambda p: torch.optim.RAdam(p, maximize=True)),
    ("nadam maximize", lambda p: torch.optim.NAdam(p, maximize=True)),
    ("adam amsgrad maximize", lambda p: torch.optim.Adam(p, lr=0.1, amsgrad=True, maximize=True)),
]:
    vals, opt = run(make)
    print(name, vals)
vals, opt = run(lambda p: torch.optim.Adam(p, lr=0.1, amsgrad=True))
print(sorted(opt.state_dict()["state"][0].keys()))
g = opt.param_groups[0]
print(g["amsgrad"], g["maximize"], g["foreach"], g["fused"], g["capturable"], g["differentiable"], g["decoupled_weight_decay"])
print(list(opt.state_dict()["param_groups"][0].keys()))
print(list(torch.optim.SGD([torch.ones(1, requires_grad=True)]).state_dict()["param_groups"][0].keys()))
print(list(torch.optim.RMSprop([torch.ones(1, requires_grad=True)]).state_dict()["param_groups"][0].keys()))
for bad in [lambda: torch.optim.Adam([torch.ones(1, requires_grad=True)], fused=True, foreach=True)]:
    try:
        bad()
        print("no error")
    except RuntimeError as e:
        print("RuntimeError", e)
    except ValueError as e:
        print("ValueError")
w = torch.ones(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
g = opt.param_groups[0]
print(list(g.keys())[:3], g.get("nesterov"), g.get("nothing", 7), len(g.items()))
g["weight_decay"] = 0.5
g["maximize"] = True
(w * w).sum().backward()
opt.step()
print(w.tolist(), opt.param_groups[0]["weight_decay"])
"#,
    );
    assert_eq!(
        out,
        [
            "adam amsgrad [-0.19948, 0.18917, 0.36298, 0.37889]",
            "adamw amsgrad [-0.20406, 0.19078, 0.35873, 0.37087]",
            "adam decoupled [-0.20406, 0.19078, 0.35873, 0.37087]",
            "adamw fused [-0.19996, 0.18935, 0.36255, 0.37805]",
            "adam foreach [-0.19948, 0.18918, 0.36298, 0.37889]",
            "sgd maximize [1.12583, -1.30844, -1.23782, 0.04802]",
            "rmsprop maximize [0.63078, -0.61892, -0.4672, -0.13227]",
            "adagrad maximize [0.62948, -0.61772, -0.46596, -0.13135]",
            "adadelta maximize [0.31395, -0.27144, -0.12848, 0.25396]",
            "adamax maximize [0.30748, -0.26478, -0.12189, 0.26115]",
            "radam maximize [0.30347, -0.26044, -0.11846, 0.26981]",
            "nadam maximize [0.30559, -0.26296, -0.12004, 0.2628]",
            "adam amsgrad maximize [0.79909, -0.7554, -0.61371, -0.21524]",
            "['exp_avg', 'exp_avg_sq', 'max_exp_avg_sq', 'step']",
            "True False None None False False False",
            "['lr', 'betas', 'eps', 'weight_decay', 'amsgrad', 'maximize', 'foreach', 'capturable', 'differentiable', 'fused', 'decoupled_weight_decay', 'params']",
            "['lr', 'momentum', 'dampening', 'weight_decay', 'nesterov', 'maximize', 'foreach', 'differentiable', 'fused', 'params']",
            "['lr', 'momentum', 'alpha', 'eps', 'centered', 'weight_decay', 'capturable', 'foreach', 'maximize', 'differentiable', 'params']",
            "RuntimeError `fused` and `foreach` cannot be `True` together.",
            "['params', 'lr', 'momentum'] False 7 10",
            "[1.149999976158142, 1.149999976158142] 0.5"
        ]
    );
    let (_, err) = common::err("w = ones(1, requires_grad=true)\nRAdam([w], capturable=true)");
    assert!(err.contains("capturable=True is not supported"), "{err}");
}

/// `load_state_dict` holds the state_dict's own tensors where they are on
/// the parameter's device in its dtype (PyTorch's `_cast` is `value.to(...)`,
/// which gives the tensor itself), a cast copy otherwise. Expected lines:
/// PyTorch 2.15's.
#[test]
fn loading_a_state_dict_holds_its_tensors() {
    let out = common::script_lines_on(
        0,
        "optimizer_load_shares",
        r#"import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.Adam([w], lr=0.1)
opt.zero_grad(); (w ** 2).sum().backward(); opt.step()
sd = opt.state_dict()
w2 = torch.tensor([1.0, -2.0], requires_grad=True)
opt2 = torch.optim.Adam([w2], lr=0.1)
opt2.load_state_dict(sd)
print(opt2.state_dict()["state"][0]["exp_avg"] is sd["state"][0]["exp_avg"])
opt3 = torch.optim.Adam([w2.double().detach().requires_grad_()], lr=0.1)
opt3.load_state_dict(sd)
print(opt3.state_dict()["state"][0]["exp_avg"] is sd["state"][0]["exp_avg"], opt3.state_dict()["state"][0]["exp_avg"].dtype)
"#,
    );
    assert_eq!(out, ["True", "False torch.float64"]);
}

/// A group's numbers keep Python's int or float (`momentum: 0`, PyTorch's
/// int defaults; `lr=1` given as an int), and a scheduler's `initial_lr`
/// is in the group and its state_dict. Expected lines: PyTorch 2.15's.
#[test]
fn group_numbers_keep_pythons_ints() {
    let out = common::script_lines_on(
        0,
        "optimizer_group_ints",
        r#"import torch
w = torch.ones(2, requires_grad=True)
for o in [torch.optim.SGD([w], lr=1), torch.optim.SGD([w], lr=0.1, weight_decay=0.0, momentum=0),
          torch.optim.Adam([w]), torch.optim.AdamW([w]), torch.optim.RMSprop([w]), torch.optim.Adagrad([w]),
          torch.optim.Adadelta([w]), torch.optim.Adamax([w]), torch.optim.RAdam([w]), torch.optim.NAdam([w])]:
    print({k: v for k, v in o.param_groups[0].items() if k != "params"})
o = torch.optim.SGD([w], lr=0.8)
s = torch.optim.lr_scheduler.StepLR(o, 1, gamma=0.5)
o.param_groups[0]["momentum"] = 1
print(o.param_groups[0]["lr"], o.param_groups[0]["momentum"], o.param_groups[0]["initial_lr"])
o.step(); s.step()
print(o.param_groups[0]["lr"], o.state_dict()["param_groups"][0])
"#,
    );
    assert_eq!(
        out,
        [
            "{'lr': 1, 'momentum': 0, 'dampening': 0, 'weight_decay': 0, 'nesterov': False, 'maximize': False, 'foreach': None, 'differentiable': False, 'fused': None}",
            "{'lr': 0.1, 'momentum': 0, 'dampening': 0, 'weight_decay': 0.0, 'nesterov': False, 'maximize': False, 'foreach': None, 'differentiable': False, 'fused': None}",
            "{'lr': 0.001, 'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0, 'amsgrad': False, 'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False, 'fused': None, 'decoupled_weight_decay': False}",
            "{'lr': 0.001, 'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0.01, 'amsgrad': False, 'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False, 'fused': None, 'decoupled_weight_decay': True}",
            "{'lr': 0.01, 'momentum': 0, 'alpha': 0.99, 'eps': 1e-08, 'centered': False, 'weight_decay': 0, 'capturable': False, 'foreach': None, 'maximize': False, 'differentiable': False}",
            "{'lr': 0.01, 'lr_decay': 0, 'eps': 1e-10, 'weight_decay': 0, 'initial_accumulator_value': 0, 'foreach': None, 'maximize': False, 'differentiable': False, 'fused': None}",
            "{'lr': 1.0, 'rho': 0.9, 'eps': 1e-06, 'weight_decay': 0, 'maximize': False, 'capturable': False, 'foreach': None, 'differentiable': False}",
            "{'lr': 0.002, 'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0, 'foreach': None, 'maximize': False, 'differentiable': False, 'capturable': False}",
            "{'lr': 0.001, 'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0, 'maximize': False, 'foreach': None, 'capturable': False, 'decoupled_weight_decay': False, 'differentiable': False}",
            "{'lr': 0.002, 'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0, 'momentum_decay': 0.004, 'decoupled_weight_decay': False, 'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False}",
            "0.8 1 0.8",
            "0.4 {'lr': 0.4, 'momentum': 1, 'dampening': 0, 'weight_decay': 0, 'nesterov': False, 'maximize': False, 'foreach': None, 'differentiable': False, 'fused': None, 'initial_lr': 0.8, 'params': [0]}"
        ]
    );
}

/// `print(optimizer)` is PyTorch's `Optimizer.__repr__` (each group's
/// settings by sorted name, a scheduler's `initial_lr`); the REPL's echo of
/// one keeps cudash's line with the bytes of state. Expected lines:
/// PyTorch 2.15's.
#[test]
fn printing_an_optimizer_is_pytorchs_repr() {
    let out = common::script_lines_on(
        0,
        "optimizer_repr",
        r#"import torch
w = torch.ones(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1, amsgrad=True)
print(opt)
sgd = torch.optim.SGD([w], lr=0.1, momentum=0.9)
sch = torch.optim.lr_scheduler.StepLR(sgd, 2)
print(sgd)
print(f"{torch.optim.AdamW([w])}")
"#,
    );
    assert_eq!(
        out,
        [
            "Adam (",
            "Parameter Group 0",
            "    amsgrad: True",
            "    betas: (0.9, 0.999)",
            "    capturable: False",
            "    decoupled_weight_decay: False",
            "    differentiable: False",
            "    eps: 1e-08",
            "    foreach: None",
            "    fused: None",
            "    lr: 0.1",
            "    maximize: False",
            "    weight_decay: 0",
            "",
            "Parameter Group 1",
            "    amsgrad: True",
            "    betas: (0.9, 0.999)",
            "    capturable: False",
            "    decoupled_weight_decay: False",
            "    differentiable: False",
            "    eps: 1e-08",
            "    foreach: None",
            "    fused: None",
            "    lr: 0.01",
            "    maximize: False",
            "    weight_decay: 0",
            ")",
            "SGD (",
            "Parameter Group 0",
            "    dampening: 0",
            "    differentiable: False",
            "    foreach: None",
            "    fused: None",
            "    initial_lr: 0.1",
            "    lr: 0.1",
            "    maximize: False",
            "    momentum: 0.9",
            "    nesterov: False",
            "    weight_decay: 0",
            ")",
            "AdamW (",
            "Parameter Group 0",
            "    amsgrad: False",
            "    betas: (0.9, 0.999)",
            "    capturable: False",
            "    decoupled_weight_decay: True",
            "    differentiable: False",
            "    eps: 1e-08",
            "    foreach: None",
            "    fused: None",
            "    lr: 0.001",
            "    maximize: False",
            "    weight_decay: 0.01",
            ")"
        ]
    );
    let shown = common::ok("w = ones(2, requires_grad=true)\nopt = SGD([w], lr=0.1)\nopt");
    assert!(shown.contains("SGD(lr=0.1, momentum=0.0"), "{shown}");
}

/// Adam on a GPU steps as PyTorch's multi-tensor Adam (`foreach`, its
/// default when every parameter is on a CUDA device): for a moment it holds
/// a square root of `exp_avg_sq` for every parameter at once, memory the
/// size of all the parameters (the "optimizer intermediates" of PyTorch's
/// optimizer-step-in-backward tutorial); with `foreach=False` one
/// parameter's temporaries at a time. The numbers are the same.
#[test]
fn adam_on_a_gpu_holds_the_multi_tensor_intermediates() {
    let lines = common::script_lines_on(
        1,
        "adam_foreach_memory",
        "import torch
def run(**kw):
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(8)]).cuda()
    opt = torch.optim.Adam(model.parameters(), **kw)
    x = torch.randn(4, 256, device='cuda')
    for _ in range(2):
        model(x).sum().backward()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        opt.step()
        opt.zero_grad()
        peak = torch.cuda.max_memory_allocated()
    P = sum(p.numel() * 4 for p in model.parameters())
    print('%.2f %.6f' % ((peak - before) / P, model[0].weight.sum().item()))
run()
run(foreach=False)
run(weight_decay=0.1)
run(weight_decay=0.1, foreach=False)",
    );
    let parsed: Vec<(f64, String)> = lines
        .iter()
        .map(|l| {
            let (extra, w) = l.split_once(' ').unwrap();
            (extra.parse().unwrap(), w.to_string())
        })
        .collect();
    let [(multi, w1), (single, w2), (multi_wd, w3), (single_wd, w4)] = &parsed[..] else {
        panic!("{lines:?}")
    };
    assert!(*multi >= 1.0 && *multi < 1.3, "{lines:?}");
    assert!(*single < 0.3, "{lines:?}");
    // With weight decay the multi-tensor step copies every gradient too.
    assert!(*multi_wd >= 1.0 && *single_wd < 0.4, "{lines:?}");
    assert_eq!(w1, w2);
    assert_eq!(w3, w4);
}

/// Five steps of `opt` on an f64 `w` on the GPU (sim or emu), with
/// gradients (i + 1) * [0.5, -1, 2], negated and scaled by 0.7 on even
/// steps; `w` as printed with repr.
fn five_capturable_steps(opt: &str, emu: bool) -> (Vec<f64>, String) {
    let src = format!(
        "import warnings\nimport torch\n\
         warnings.filterwarnings('ignore', category=UserWarning)\n\
         w = torch.tensor([1., -2., 3.], dtype=torch.float64, device='cuda', requires_grad=True)\n\
         g = torch.tensor([0.5, -1., 2.], dtype=torch.float64, device='cuda')\n\
         opt = torch.optim.{opt}\n\
         for i in range(5):\n    w.grad = g * (i + 1) * (1 if i % 2 else -0.7)\n    opt.step()\n\
         s = opt.state[w]['step']\n\
         print([repr(v) for v in w.tolist()])\n\
         print(s, s.dtype)\n"
    );
    let lines = match emu {
        true => common::script_lines_on_emu("capturable.py", &src),
        false => common::script_lines_on(1, "capturable.py", &src),
    };
    let w = lines[0]
        .trim_matches(['[', ']'])
        .split(", ")
        .map(|x| x.trim_matches('\'').parse().unwrap())
        .collect();
    (w, lines[1].clone())
}

/// `capturable=True`: the step count a float32 scalar on the parameter's
/// device, the bias corrections computed from it there in float32 (so an f64
/// parameter's update differs from the host-counted step's after the ninth
/// digit, as PyTorch's does). The single-tensor step is PyTorch 2.15's bit
/// for bit (its CPU run with the device check let through); the
/// multi-tensor step within float32 rounding of its bias corrections
/// (PyTorch's CUDA foreach kernels divide by `lr` where cudash's per-tensor
/// division multiplies by its reciprocal, as PyTorch's `x / s` on a GPU).
#[test]
fn capturable_adam_counts_on_the_device_as_pytorchs() {
    let cases: &[(&str, [f64; 3], f64)] = &[
        (
            "Adam([w], lr=0.1, capturable=True, foreach=False)",
            [1.038342359993844, -2.0383423610786595, 3.038342361621068],
            0.0,
        ),
        (
            "AdamW([w], lr=0.1, capturable=True, amsgrad=True, foreach=False)",
            [1.0330975336992967, -2.028107524784303, 3.023117515329306],
            0.0,
        ),
        (
            "Adam([w], lr=0.1, capturable=True, weight_decay=0.1, maximize=True, foreach=False)",
            [0.9266682925360515, -1.925668066090032, 2.934524413360601],
            0.0,
        ),
        (
            "Adam([w], lr=0.1, capturable=True, foreach=True)",
            [1.0383423622024208, -2.0383423632872364, 3.0383423638296443],
            1e-8,
        ),
        (
            "AdamW([w], lr=0.1, capturable=True, amsgrad=True, foreach=True)",
            [1.0330975359026335, -2.0281075269876396, 3.023117517532642],
            1e-8,
        ),
        (
            "Adam([w], lr=0.1)",
            [1.038342295936882, -2.038342297021708, 3.0383422975641214],
            0.0,
        ),
        // RMSprop and Adadelta read no step: capturable only counts it on
        // the device.
        (
            "RMSprop([w], lr=0.01, momentum=0.9, centered=True, capturable=True)",
            [1.1822290790071006, -2.182229127010661, 3.182229151012446],
            0.0,
        ),
        (
            "Adadelta([w], lr=1.0, capturable=True)",
            [1.0028903398242226, -2.0028904298121213, 3.002890452310379],
            0.0,
        ),
        // Adamax's `neg_bias_correction.div_(lr)` by a number on a GPU is
        // a multiplication by its float32 reciprocal (PyTorch's CPU run
        // with `div_` so: its own gives 1.0594566006626158, ...).
        (
            "Adamax([w], lr=0.1, capturable=True, foreach=False)",
            [1.0594565993223188, -2.059456600593859, 3.0594566012296287],
            0.0,
        ),
    ];
    for emu in [false, true] {
        for (opt, expected, tolerance) in cases {
            let (got, step) = five_capturable_steps(opt, emu);
            for (g, e) in got.iter().zip(expected) {
                let bound = (4.0 * f64::EPSILON).max(*tolerance) * e.abs();
                assert!((g - e).abs() <= bound, "{opt}: {got:?} vs {expected:?}");
            }
            let want = match opt.contains("capturable=True") {
                true => "tensor(5., device='cuda:0') torch.float32",
                false => "tensor(5.) torch.float32",
            };
            assert_eq!(step, want, "{opt}");
        }
    }
}

/// Which optimizers take `capturable=True`: Adam, AdamW, Adamax, RMSprop
/// and Adadelta step on the device; RAdam and NAdam say cudash does not
/// capture them, and a capturable
/// step of parameters on the host is PyTorch's AssertionError.
#[test]
fn capturable_is_refused_where_cudash_does_not_capture() {
    let (kind, msg) =
        common::err("w = ones(2, requires_grad=true)\nopt = NAdam([w], capturable=true)");
    assert!(
        msg.contains("capturable=True is not supported"),
        "{kind}: {msg}"
    );
    let (out, err, ok) = common::script_streams(
        "host.py",
        "import torch\nw = torch.ones(2, requires_grad=True)\nw.sum().backward()\n\
         opt = torch.optim.Adam([w], capturable=True)\nopt.step()\n",
    );
    assert!(!ok && out.is_empty(), "{out}");
    assert!(
        err.contains("AssertionError: If capturable=True, params and state_steps must be on supported devices"),
        "{err}"
    );
}

/// A capturable step outside a capture: PyTorch's warning, once per
/// optimizer however often it steps.
#[test]
fn a_capturable_step_outside_a_capture_warns_once() {
    let (out, err, ok) = common::script_streams_on(
        1,
        "uncaptured.py",
        "import torch\nw = torch.ones(2, device='cuda', requires_grad=True)\n\
         opt = torch.optim.Adam([w], capturable=True)\n\
         def train():\n    for _ in range(3):\n        w.grad = torch.ones_like(w)\n        opt.step()\n\
         train()\ntrain()\nprint(opt.state[w]['step'].item())\n",
    );
    assert!(ok, "{err}");
    assert_eq!(out, "6.0\n");
    let warning = "UserWarning: This instance was constructed with capturable=True";
    assert_eq!(err.matches(warning).count(), 1, "{err}");
}
