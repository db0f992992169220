//! `scaled_dot_product_attention` on a GPU: which kernel PyTorch's rules
//! pick, what each keeps in device memory (the fused kernels no [L, S]
//! weights), and the fused kernels on `emu` (the CUDA C kernels compiled for
//! the CPU) agreeing with the simulator's host computation.

mod common;

use common::{script_lines_on, script_lines_on_emu, script_streams_on};

/// Held after the forward and peak through the backward, MiB, per backend.
const MEMORY: &str = r#"
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
torch.manual_seed(0)
q, k, v = [torch.randn(2, 4, 512, 64, device="cuda", dtype=torch.float16, requires_grad=True)
           for _ in range(3)]
for b in [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]:
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    with sdpa_kernel(b):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        held = torch.cuda.memory_allocated() - base
        o.sum().backward()
    peak = torch.cuda.max_memory_allocated() - base
    print(b.name, o.grad_fn.name(), held / 2**20, peak / 2**20)
    del o
    q.grad = k.grad = v.grad = None
"#;

fn figures(lines: &[String], backend: &str) -> (String, f64, f64) {
    let line = lines
        .iter()
        .find(|l| l.starts_with(&format!("{backend} ")))
        .unwrap_or_else(|| panic!("no {backend} in {lines:?}"));
    let parts: Vec<&str> = line.split_whitespace().collect();
    (
        parts[1].to_string(),
        parts[2].parse().unwrap(),
        parts[3].parse().unwrap(),
    )
}

#[test]
fn fused_attention_keeps_no_weights_in_device_memory() {
    let lines = script_lines_on(1, "sdpa_memory", MEMORY);
    let (flash, held_flash, peak_flash) = figures(&lines, "FLASH_ATTENTION");
    let (efficient, held_eff, _) = figures(&lines, "EFFICIENT_ATTENTION");
    let (math, held_math, peak_math) = figures(&lines, "MATH");
    assert_eq!(flash, "ScaledDotProductFlashAttentionBackward0");
    assert_eq!(efficient, "ScaledDotProductEfficientAttentionBackward0");
    assert_eq!(math, "UnsafeViewBackward0");
    // The output (2 * 4 * 512 * 64 halves: 0.5 MiB) and the f32 log-sum-exp.
    let out = 0.5 + 2.0 * 4.0 * 512.0 * 4.0 / 1048576.0;
    assert!((held_flash - out).abs() < 0.02, "{lines:?}");
    assert_eq!(held_flash, held_eff);
    // The math path keeps its [512, 512] weights per head (4 MiB for all
    // heads in f16) and more.
    assert!(held_math > 4.0 && peak_math > 4.0 * peak_flash, "{lines:?}");
}

const VALUES: &str = r#"
import torch, torch.nn.functional as F
torch.manual_seed(0)
q = torch.randn(2, 3, 5, 8)
k = torch.randn(2, 3, 7, 8)
v = torch.randn(2, 3, 7, 40)
for dt, w in [(torch.float32, v), (torch.float16, v), (torch.bfloat16, k)]:
    qc, kc, vc = [t.to("cuda", dt).requires_grad_() for t in (q, k, w)]
    mask = torch.rand(2, 1, 5, 7, device="cuda") > 0.3 if dt == torch.float32 else None
    o = F.scaled_dot_product_attention(qc, kc, vc, attn_mask=mask, scale=0.7)
    o.float().pow(2).sum().backward()
    print(dt, o.grad_fn.name())
    for t in (o, qc.grad, kc.grad, vc.grad):
        print(t.float().cpu().flatten().tolist())
"#;

#[test]
fn the_cuda_kernels_compute_what_the_simulator_does() {
    let sim = script_lines_on(1, "sdpa_values", VALUES);
    let emu = script_lines_on_emu("sdpa_values", VALUES);
    assert_eq!(sim, emu);
    assert!(
        sim[0].ends_with("ScaledDotProductEfficientAttentionBackward0"),
        "{sim:?}"
    );
    assert!(
        sim[5].ends_with("ScaledDotProductEfficientAttentionBackward0"),
        "{sim:?}"
    );
    assert!(
        sim[10].ends_with("ScaledDotProductFlashAttentionBackward0"),
        "{sim:?}"
    );
}

#[test]
fn a_gpu_with_no_kernel_left_says_why() {
    let src = r#"
import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
q = torch.randn(2, 3, 5, 8, device="cuda")
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    try:
        F.scaled_dot_product_attention(q, q, q)
    except RuntimeError as e:
        print(e)
print(F.scaled_dot_product_attention(q, q, q).grad_fn)
"#;
    let (out, err, ok) = script_streams_on(1, "sdpa_none", src);
    assert!(ok, "{err}");
    assert_eq!(out, "No available kernel. Aborting execution.\nNone\n");
    assert!(
        err.contains("Flash attention kernel not used because:"),
        "{err}"
    );
    assert!(
        err.contains("FlashAttention requires query, key and value to be of dtype"),
        "{err}"
    );
}
