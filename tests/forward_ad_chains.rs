//! Forward-mode AD on random chains of ops: each chain's tangent, as the
//! ops' forward formulas carry it, agrees with central finite differences
//! of the same chain (f64, a random input and direction). Where
//! `tests/forward_ad.rs` checks each formula against PyTorch's numbers,
//! this checks that they compose: views, in-place-free chains through
//! reductions, selections and normalizations, ending in a loss.
//!
//! `CUDASH_PROGRAMS=N` runs N batches of chains (default: what fits in a
//! few seconds), `CUDASH_PROGRAMS_SEED=S` another set of them.

mod common;

use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestRunner};

/// Ops from a [2, 3, 4] f64 tensor `v` to one of the same shape.
const STEPS: &[&str] = &[
    "v.exp() * 0.3",
    "v.tanh()",
    "torch.sigmoid(v) - 0.5",
    "v * v",
    "v / (v.abs() + 1)",
    "F.gelu(v)",
    "F.elu(v)",
    "F.leaky_relu(v, 0.2)",
    "F.softplus(v, beta=2.0)",
    "F.hardswish(v * 3)",
    "F.softmax(v, 2)",
    "F.log_softmax(v, 1)",
    "v.sort(2).values",
    "v.sort(1, descending=True).values",
    "v.topk(4, 2).values",
    "v.flip(1)",
    "v.roll(1, 2)",
    "v.tril()",
    "F.pad(v, (1, 1), value=2.0)[..., 1:5]",
    "F.layer_norm(v, (4,))",
    "F.layer_norm(v, (3, 4), torch.linspace(0.5, 1.5, 12, dtype=torch.float64).view(3, 4))",
    "F.group_norm(v, 3)",
    "F.batch_norm(v, None, None, training=True)",
    "v.cumsum(2)",
    "v.cumprod(2)",
    "torch.lerp(v, v.flip(0), 0.3)",
    "torch.addcmul(v, v, v.flip(2), value=0.5)",
    "torch.where(v > 0, v, v * 0.1)",
    "torch.matmul(v, v.transpose(1, 2)) @ v * 0.1",
    "v.gather(2, IDX)",
    "torch.cat([v[:, :, 2:], v[:, :, :2]], 2)",
    "v.max(2, keepdim=True).values + v",
    "v.min(1, keepdim=True).values * v",
    "v.median(2, keepdim=True).values - v",
    "v.amax(1, keepdim=True) * v",
    "v.logsumexp(2, keepdim=True) - v",
    "v.var(1, keepdim=True) + v",
    "v.std(2, keepdim=True) * v",
    "v.norm(dim=2, keepdim=True) * v",
    "F.normalize(v, dim=2)",
    "F.max_pool2d(v.unsqueeze(0), 2, 1, 1)[0, :, :3, :4]",
    "F.avg_pool2d(v.unsqueeze(0), 3, 1, 1)[0, :, :3, :4] * 2",
    "F.interpolate(v, scale_factor=2, mode='linear')[..., ::2]",
    "v.transpose(0, 1).reshape(3, 2, 4).transpose(0, 1)",
    "v.clone().mul_(2).add_(v)",
    "F.embedding(IDX[0, 0] % 2, v.reshape(2, 12))[:, None].expand(4, 3, 12)[:2, :, :4]",
];

/// Ops from such a `v` to what the chain's tangent is compared on.
const ENDS: &[&str] = &[
    "v.sum()",
    "F.mse_loss(v, torch.zeros_like(v))",
    "F.cross_entropy(v[:, :, 0], torch.tensor([1, 2]))",
    "F.nll_loss(F.log_softmax(v[0], 1), torch.tensor([0, 3, 1]), reduction='sum')",
    "F.binary_cross_entropy(torch.sigmoid(v), torch.full_like(v, 0.3))",
    "F.smooth_l1_loss(v, v.flip(2) * 0.5, beta=0.2)",
    "v.prod(2).sum()",
    "v.max()",
    "v.std()",
    "v.norm(p=3)",
    "v.mean(1)",
    "v",
];

fn chain() -> impl Strategy<Value = (Vec<&'static str>, &'static str)> {
    (
        prop::collection::vec(prop::sample::select(STEPS), 1..5),
        prop::sample::select(ENDS),
    )
}

/// The program: each chain's tangent through a dual level, and its
/// finite differences; `ok` when they agree, else the error.
fn program(chains: &[(Vec<&'static str>, &'static str)]) -> String {
    let mut p = String::from(
        "import torch\nimport torch.nn.functional as F\nimport torch.autograd.forward_ad as fwAD\n\
         torch.manual_seed(3)\nx = torch.randn(2, 3, 4, dtype=torch.float64)\n\
         t = torch.randn(2, 3, 4, dtype=torch.float64)\n\
         IDX = torch.tensor([[[3, 0, 1, 2], [2, 2, 0, 1], [1, 3, 3, 0]]] * 2)\n\
         def check(f):\n    with fwAD.dual_level():\n        tan = fwAD.unpack_dual(f(fwAD.make_dual(x, t))).tangent\n\
         \x20   h = 1e-6\n    fd = (f(x + h * t) - f(x - h * t)) / (2 * h)\n\
         \x20   err = ((tan - fd).abs() / fd.abs().clamp(min=1)).max().item()\n\
         \x20   return 'ok' if err < 1e-5 else f'tangent {tan.flatten()[:4].tolist()} vs {fd.flatten()[:4].tolist()}'\n",
    );
    for (k, (steps, end)) in chains.iter().enumerate() {
        p.push_str(&format!("def chain_{k}(v):\n"));
        // Each step squashed back into (-1, 1), so no chain overflows.
        for s in steps {
            p.push_str(&format!("    v = {s}\n    v = v / (1 + v.abs())\n"));
        }
        p.push_str(&format!("    return {end}\nprint({k}, check(chain_{k}))\n"));
    }
    p
}

#[test]
fn random_chains_tangents_agree_with_finite_differences() {
    let config = RunnerConfig {
        cases: common::program_cases(6),
        failure_persistence: None,
        ..RunnerConfig::default()
    };
    let mut runner = TestRunner::new_with_rng(config, common::program_rng(11));
    let outcome = runner.run(&prop::collection::vec(chain(), 16), |chains| {
        let src = program(&chains);
        let lines = common::script_lines_on(0, "chains", &src);
        for (k, line) in lines.iter().enumerate() {
            let (steps, end) = &chains[k];
            prop_assert!(
                line == &format!("{k} ok"),
                "chain {k}: {} then {end}: {line}",
                steps.join(" | ")
            );
        }
        prop_assert_eq!(lines.len(), chains.len());
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
