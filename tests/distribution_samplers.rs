//! The rejection samplers on a GPU (`stdlib/torch_random_samplers.py`):
//! a CUDA tensor's gamma, Dirichlet, Poisson and binomial draws are made
//! with device ops from cudash's Philox generator (PyTorch's come from
//! curand, so no numbers can be compared): each distribution's sample
//! mean lies within six standard errors of its mean, every draw in its
//! support, on the device, on simulated GPUs and on `emu`; `nn.RReLU`'s
//! slopes lie in their bounds. (On the CPU
//! the draws are PyTorch's own: `tests/pasted/distributions_gamma_family.py`.)

use std::process::Command;

const SCRIPT: &str = r#"
import math
import torch
dev = "cuda"
torch.manual_seed(0)
n = 3000
def near(x, mean, var):
    return abs(x.mean().item() - mean) < 6 * math.sqrt(var / n)
for alpha in [0.3, 1.0, 4.0, 30.0]:
    x = torch._standard_gamma(torch.full((n,), alpha, device=dev))
    print("gamma", alpha, near(x, alpha, alpha), bool((x > 0).all()), x.device)
x = torch._sample_dirichlet(torch.tensor([1.0, 2.0, 3.0], device=dev).expand(n, 3))
print("dirichlet", near(x[:, 2], 0.5, 0.5 * 0.5 / 7), bool(((x.sum(-1) - 1).abs() < 1e-5).all()), bool((x > 0).all()))
for rate in [0.5, 4.0, 9.9, 10.0, 50.0, 1000.0]:
    x = torch.poisson(torch.full((n,), rate, device=dev))
    print("poisson", rate, near(x, rate, rate), bool((x == x.floor()).all() and (x >= 0).all()))
for count, p in [(10, 0.3), (100, 0.05), (100, 0.5), (1000, 0.9), (50, 0.99)]:
    x = torch.binomial(torch.full((n,), float(count), device=dev), torch.full((n,), p, device=dev))
    print("binomial", count, p, near(x, count * p, count * p * (1 - p)), bool((x >= 0).all() and (x <= count).all() and (x == x.floor()).all()))
x = torch.binomial(torch.tensor([5.0, 5.0], device=dev), torch.tensor([0.0, 1.0], device=dev))
print("edges", x.tolist(), torch.poisson(torch.zeros(2, device=dev)).tolist())
c = torch.tensor([2.0, 0.7], device=dev, requires_grad=True)
from torch.distributions import Beta
y = Beta(c, torch.tensor([3.0, 1.0], device=dev)).rsample((5,))
y.sum().backward()
print("grad", y.device, c.grad.device, bool((c.grad == c.grad).all()))
x = torch.randn(1000, device=dev, requires_grad=True)
y = torch.nn.RReLU()(x)
neg = x.detach() <= 0
s = (y.detach() / x.detach())[neg]
y.sum().backward()
print("rrelu", y.device, bool((s >= 0.125).all() and (s <= 1 / 3 + 1e-6).all()), bool((y.detach()[~neg] == x.detach()[~neg]).all()), torch.allclose(x.grad[neg], s))
"#;

fn run(args: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!("cudash-samplers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("samplers{}.py", args.len()));
    std::fs::write(&path, SCRIPT).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cudash"))
        .args(args)
        .arg("script")
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn check(out: &str) {
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 19, "{out}");
    for line in &lines[..16] {
        assert!(!line.contains("False"), "{out}");
    }
    for line in &lines[..4] {
        assert!(line.ends_with("cuda:0"), "{out}");
    }
    assert_eq!(lines[16], "edges [0.0, 5.0] [0.0, 0.0]", "{out}");
    assert_eq!(lines[17], "grad cuda:0 cuda:0 True", "{out}");
    assert_eq!(lines[18], "rrelu cuda:0 True True True", "{out}");
}

#[test]
fn gpu_draws_follow_their_distributions_on_simulated_gpus() {
    check(&run(&[]));
}

#[test]
fn gpu_draws_follow_their_distributions_on_emu() {
    check(&run(&["--backend", "emu"]));
}
