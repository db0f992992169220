//! Which kernel `scaled_dot_product_attention` runs, as PyTorch chooses
//! (`sdp_utils_cpp.cpp` for the CPU, `cuda/sdp_utils.cpp` for a GPU): the
//! backends a program enabled (`torch.backends.cuda.enable_flash_sdp`,
//! `torch.nn.attention.sdpa_kernel`), tried in PyTorch's order, each with
//! its constraints. When none may run, PyTorch's warnings say why and its
//! error ends the call.
//!
//! cudash has the fused flash kernel (CPU and GPU) and the
//! memory-efficient one (GPU); cuDNN's attention is not here, so where
//! PyTorch on an H100 with a recent cuDNN runs it first, cudash runs
//! flash (docs/performance.md).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::{DType, Device, Tensor};

/// PyTorch's `SDPBackend`s that run here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Math,
    Flash,
    Efficient,
    Cudnn,
}

static ENABLED: [AtomicBool; 4] = [
    AtomicBool::new(true),
    AtomicBool::new(true),
    AtomicBool::new(true),
    AtomicBool::new(true),
];

impl Backend {
    pub const ALL: [Backend; 4] = [
        Backend::Math,
        Backend::Flash,
        Backend::Efficient,
        Backend::Cudnn,
    ];

    /// The name `torch.backends.cuda`'s functions use (`flash_sdp_enabled`).
    pub fn named(name: &str) -> Option<Backend> {
        match name {
            "math" => Some(Backend::Math),
            "flash" => Some(Backend::Flash),
            "mem_efficient" => Some(Backend::Efficient),
            "cudnn" => Some(Backend::Cudnn),
            _ => None,
        }
    }

    fn slot(self) -> &'static AtomicBool {
        &ENABLED[self as usize]
    }

    /// Whether the program left it enabled.
    pub fn enabled(self) -> bool {
        self.slot().load(Ordering::Relaxed)
    }

    pub fn set_enabled(self, on: bool) {
        self.slot().store(on, Ordering::Relaxed)
    }
}

/// What the choice looks at.
pub struct Params<'a> {
    pub q: &'a Tensor,
    pub k: &'a Tensor,
    pub v: &'a Tensor,
    pub mask: Option<&'a Tensor>,
    pub dropout_p: f64,
    pub is_causal: bool,
}

/// The first failed constraint's reason (PyTorch's warning), or none.
type Check = Option<String>;

fn shapes(p: &Params) -> Check {
    let (q, k, v) = (p.q.ndim(), p.k.ndim(), p.v.ndim());
    (!(q == 4 && k == 4 && v == 4)).then(|| {
        format!(
            "Both fused kernels requires query, key and value to be 4 dimensional, but got Query \
             dim: {q}, Key dim: {k}, Value dim: {v} instead."
        )
    })
}

fn heads(p: &Params) -> Check {
    let (q, k, v) = (p.q.shape(), p.k.shape(), p.v.shape());
    let same = q[0] == k[0] && q[0] == v[0] && q[1] == k[1] && q[1] == v[1];
    (!same).then(|| {
        format!(
            "For dense inputs, both fused kernels require query, key and value to have the same \
             batch_size and num_heads. Query.sizes(): {:?}, Key sizes(): {:?}, Value sizes(): \
             {:?} instead.",
            q, k, v
        )
    })
}

fn nonzero_lengths(p: &Params) -> Check {
    let zero = p.q.shape()[2] == 0 || p.k.shape()[2] == 0;
    zero.then(|| "All fused kernels do not support zero seq_len_q or seq_len_kv.".to_string())
}

fn last_dim_stride(p: &Params) -> Check {
    let one = |t: &Tensor| t.shape()[3] <= 1 || t.strides()[3] == 1;
    (!(one(p.q) && one(p.k) && one(p.v))).then(|| {
        format!(
            "All fused kernels require the last dimension of the input to have stride 1. Got \
             Query.stride(-1): {}, Key.stride(-1): {}, Value.stride(-1): {} instead.",
            p.q.strides()[3],
            p.k.strides()[3],
            p.v.strides()[3]
        )
    })
}

fn same_head_dims(p: &Params, max: Option<usize>) -> Check {
    let (q, k, v) = (p.q.shape()[3], p.k.shape()[3], p.v.shape()[3]);
    let fits = q == k && q == v && max.is_none_or(|m| q <= m);
    (!fits).then(|| match max {
        Some(m) => format!(
            "Flash attention requires q,k,v to have the same last dimension and to be less than \
             or equal to {m}. Got Query.size(-1): {q}, Key.size(-1): {k}, Value.size(-1): {v} \
             instead."
        ),
        None => format!(
            "Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): \
             {q}, Key.size(-1): {k}, Value.size(-1): {v} instead."
        ),
    })
}

fn dtypes(p: &Params, allowed: &[DType], what: &str) -> Check {
    let dt = p.q.dtype();
    (!allowed.contains(&dt)).then(|| {
        let names: Vec<String> = allowed.iter().map(|d| format!("{d}")).collect();
        format!(
            "{what} requires query, key and value to be of dtype {}. Got Query dtype: {dt}, Key \
             dtype: {}, and Value dtype: {} instead.",
            names.join(" or "),
            p.k.dtype(),
            p.v.dtype()
        )
    })
}

fn disabled(b: Backend, what: &str) -> Check {
    (!b.enabled()).then(|| format!("{what} has been runtime disabled."))
}

/// Why the CPU's flash kernel may not run, or none.
fn cpu_flash(p: &Params) -> Check {
    disabled(Backend::Flash, "Flash attention")
        .or_else(|| {
            (p.dropout_p > 0.0)
                .then(|| "Both fused kernels do not support non-zero dropout.".to_string())
        })
        .or_else(|| shapes(p))
        .or_else(|| heads(p))
        .or_else(|| same_head_dims(p, None))
        .or_else(|| nonzero_lengths(p))
        .or_else(|| last_dim_stride(p))
        .or_else(|| {
            let floats = [DType::F32, DType::F64, DType::BF16, DType::F16];
            dtypes(p, &floats, "FlashAttentionCPU")
        })
}

fn sm(rt: &Runtime, d: u32) -> (u32, u32) {
    rt.devices.info(d).map_or((0, 0), |i| i.compute_capability)
}

/// Why the GPU's flash kernel may not run, or none.
fn gpu_flash(rt: &Runtime, d: u32, p: &Params) -> Check {
    let cc = sm(rt, d);
    disabled(Backend::Flash, "Flash attention")
        .or_else(|| no_dropout(p))
        .or_else(|| shapes(p))
        .or_else(|| {
            p.mask
                .map(|_| "Flash attention does not support non-null attn_mask.".to_string())
        })
        .or_else(|| same_head_dims(p, Some(256)))
        .or_else(|| {
            (!((8, 0)..=(12, 1)).contains(&cc)).then(|| {
                format!(
                    "Flash attention only supports gpu architectures in the range [sm80, sm121]. \
             Attempting to run on a sm {}.{} gpu.",
                    cc.0, cc.1
                )
            })
        })
        .or_else(|| {
            let (l, s) = (p.q.shape()[2], p.k.shape()[2]);
            (p.is_causal && l != s).then(|| {
                format!(
                "Flash attention does not support the is_causal flag when seqlen_q != seqlen_k. \
                 Got seqlen_q: {l} seqlen_k: {s}. If you would like to use causal attention with \
                 non-square masks, please see CausalAttnMask.")
            })
        })
        .or_else(|| dtypes(p, &[DType::F16, DType::BF16], "FlashAttention"))
        .or_else(|| heads(p))
        .or_else(|| nonzero_lengths(p))
        .or_else(|| last_dim_stride(p))
}

/// Why the GPU's memory-efficient kernel may not run, or none.
fn gpu_efficient(rt: &Runtime, d: u32, p: &Params) -> Check {
    let cc = sm(rt, d);
    let half = matches!(p.q.dtype(), DType::F16 | DType::BF16);
    // PyTorch's `minimum_gemm_alignment` on sm80 and later: 8 halves or 4 floats.
    let align = if half { 8 } else { 4 };
    disabled(Backend::Efficient, "Memory Efficient attention")
        .or_else(|| no_dropout(p))
        .or_else(|| {
            (!((5, 0)..=(12, 1)).contains(&cc)).then(|| {
                format!(
            "Mem Efficient Attention only supports gpu architectures in the range [sm50, sm121]. \
             Attempting to run on a sm {}.{} gpu.", cc.0, cc.1)
            })
        })
        .or_else(|| shapes(p))
        .or_else(|| {
            let (q, k, v) = (p.q.shape()[3], p.k.shape()[3], p.v.shape()[3]);
            let ok = q == k && q % align == 0 && q > 0 && v % align == 0 && v > 0;
            (!ok).then(|| {
                format!(
                    "Mem efficient attention requires last dimension of inputs to be divisible by \
                 {align}. Got Query.size(-1): {q}, Key.size(-1): {k}, Value.size(-1): {v} instead."
                )
            })
        })
        .or_else(|| {
            let bytes = align * p.q.dtype().size();
            let off = |t: &Tensor| t.offset() * t.dtype().size() % bytes;
            let ok = [p.q, p.k, p.v]
                .iter()
                .all(|t| t.numel() == 0 || off(t) == 0);
            (!ok).then(|| {
                format!(
                "Mem efficient attention on sm80 or newer requires q, k, and v storage offsets * \
                 element_size to be aligned to {bytes} bytes. Got query.storage_offset() * \
                 element_size % alignment_bytes: {}, key.storage_offset() * element_size % \
                 alignment_bytes: {}, value.storage_offset() * element_size % alignment_bytes: {}.",
                off(p.q), off(p.k), off(p.v))
            })
        })
        .or_else(|| nonzero_lengths(p))
        .or_else(|| last_dim_stride(p))
        .or_else(|| heads(p))
        .or_else(|| {
            dtypes(
                p,
                &[DType::F16, DType::F32, DType::BF16],
                "MemoryEfficientAttention",
            )
        })
}

/// PyTorch's GPU kernels draw their dropout inside the kernel; cudash's
/// have none, so a dropout on a GPU runs the math path.
fn no_dropout(p: &Params) -> Check {
    (p.dropout_p > 0.0).then(|| {
        "cudash's fused attention kernels have no dropout (PyTorch's do): the math path runs it."
            .to_string()
    })
}

fn cudnn() -> Check {
    match Backend::Cudnn.enabled() {
        false => Some("cuDNN attention has been runtime disabled.".into()),
        true => Some(
            "cudash has no cuDNN attention (its fused kernels are flash and memory-efficient)."
                .into(),
        ),
    }
}

/// The backend `scaled_dot_product_attention` runs for `p`, or PyTorch's
/// warnings (on `rt`) and error when none may.
pub fn choose(rt: &mut Runtime, p: &Params) -> Result<Backend, Error> {
    let none = || {
        Error::runtime(
            "No viable backend for scaled_dot_product_attention was found. This is likely due to \
         turning off both the math kernel and the fused kernels.",
        )
    };
    if Backend::ALL.iter().all(|b| !b.enabled()) {
        return Err(none());
    }
    match p.q.device() {
        Device::Cuda(d) => {
            if gpu_flash(rt, d, p).is_none() {
                return Ok(Backend::Flash);
            }
            if gpu_efficient(rt, d, p).is_none() {
                return Ok(Backend::Efficient);
            }
            if Backend::Math.enabled() {
                return Ok(Backend::Math);
            }
            let why = [
                ("Memory efficient kernel", gpu_efficient(rt, d, p)),
                ("Flash attention kernel", gpu_flash(rt, d, p)),
                ("cuDNN attention kernel", cudnn()),
            ];
            for (what, reason) in why {
                rt.note(format!("UserWarning: {what} not used because:"));
                if let Some(r) = reason {
                    rt.note(format!("UserWarning: {r}"));
                }
            }
            Err(Error::runtime("No available kernel. Aborting execution."))
        }
        // PyTorch's meta tensors take the math path (`_fused_sdp_choice_meta`).
        Device::Meta => Ok(Backend::Math),
        Device::Cpu => {
            if !Backend::Math.enabled() && !Backend::Flash.enabled() {
                return Err(none());
            }
            if cpu_flash(p).is_none() {
                return Ok(Backend::Flash);
            }
            if Backend::Math.enabled() {
                return Ok(Backend::Math);
            }
            rt.note("UserWarning: Flash attention kernel not used because:".into());
            if let Some(r) = cpu_flash(p) {
                rt.note(format!("UserWarning: {r}"));
            }
            Err(Error::runtime("No available kernel.  Aborting execution."))
        }
    }
}
