//! Autocast (`torch.autocast`, PyTorch's `torch.amp`): inside a region, an
//! op PyTorch lists gets its inputs cast as PyTorch's autocast casts them
//! before it runs, and every other op runs in the dtypes it is given.
//!
//! The lists are PyTorch 2.15's (`ATen/autocast_mode.h` for CUDA, the CPU
//! registrations of `autocast_mode.cpp`, checked against torch's own CPU
//! autocast by `scripts/torch_check.py`), each op under its PyTorch name:
//! - **lower precision** (the region's dtype: f16 or bf16): the matrix
//!   products (`matmul`, `linear`, `conv2d` ...): tensor-core work;
//! - **float32**: ops that lose too much in 16 bits (`exp`, `log`, `pow`,
//!   `layer_norm`, the losses; on a CPU only `prod` and the losses);
//! - **float32 unless a dtype is given** (`sum`, `prod`, `softmax`,
//!   `log_softmax`, `cumsum`, `cumprod`) when the first input is eligible;
//! - **the widest input type** (`dot` ...).
//!
//! A tensor is eligible when it is floating point but not f64 and on the
//! region's device type (a CUDA region leaves ops on CPU tensors alone).
//! Each cast is an op of its own (`ToCopyBackward0` for autograd). Casts of
//! a leaf that requires grad (a parameter) to the lower precision are kept
//! for the rest of the outermost region (PyTorch's weight cache), so a
//! parameter used twice is cast once; the cache is memory until the region
//! ends. Backward runs without autocast (its ops follow the forward's
//! dtypes), as PyTorch's engine does.

use std::cell::RefCell;
use std::sync::Arc;

use super::meta::{is_leaf, requires_grad};
use super::Mode;
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::{DType, Device, StorageHandle, Tensor};

type R<T> = Result<T, Error>;

/// The autocast regions in force: a dtype per device type, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Autocast {
    /// `autocast("cuda", dtype)`: f16 (the default) or bf16.
    pub cuda: Option<DType>,
    /// `autocast("cpu", dtype)`: bf16 (the default) or f16.
    pub cpu: Option<DType>,
    /// Whether lower-precision casts of parameters are kept for the region
    /// (`cache_enabled`, true by default).
    pub cache: bool,
}

impl Default for Autocast {
    /// No region; casts kept once one begins (PyTorch's default).
    fn default() -> Autocast {
        Autocast {
            cuda: None,
            cpu: None,
            cache: true,
        }
    }
}

/// `autocast(device_type, dtype, enabled, cache_enabled)`: what a `with`
/// switches to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// True: `"cuda"`; false: `"cpu"`.
    pub cuda: bool,
    pub dtype: DType,
    pub enabled: bool,
    /// `cache_enabled` (None: as the region around it has it).
    pub cache: Option<bool>,
}

/// What autocast does to an op's inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Cast to the region's lower precision.
    Lower,
    /// Cast to float32.
    Fp32,
    /// Float32 when the first input is eligible and no dtype is given.
    Fp32UnlessDtype,
    /// Cast to the widest floating type among the inputs.
    Promote,
}

/// PyTorch 2.15's CUDA lists (`AT_FORALL_LOWER_PRECISION_FP`,
/// `AT_FORALL_FP32`, `AT_FORALL_FP32_SET_OPT_DTYPE`, `norm`'s
/// `fp32_append_dtype`, `AT_FORALL_PROMOTE`), by op name.
const CUDA: &[(&str, Policy)] = &[
    // Lower precision.
    ("_convolution", Policy::Lower),
    ("conv1d", Policy::Lower),
    ("conv2d", Policy::Lower),
    ("conv3d", Policy::Lower),
    ("conv_tbc", Policy::Lower),
    ("conv_transpose1d", Policy::Lower),
    ("conv_transpose2d", Policy::Lower),
    ("conv_transpose3d", Policy::Lower),
    ("convolution", Policy::Lower),
    ("prelu", Policy::Lower),
    ("addmm", Policy::Lower),
    ("addmv", Policy::Lower),
    ("addr", Policy::Lower),
    ("matmul", Policy::Lower),
    ("einsum", Policy::Lower),
    ("mm", Policy::Lower),
    ("mv", Policy::Lower),
    ("linalg_vecdot", Policy::Lower),
    ("linear", Policy::Lower),
    ("addbmm", Policy::Lower),
    ("baddbmm", Policy::Lower),
    ("bmm", Policy::Lower),
    ("chain_matmul", Policy::Lower),
    ("linalg_multi_dot", Policy::Lower),
    ("lstm_cell", Policy::Lower),
    ("gru_cell", Policy::Lower),
    ("rnn_tanh_cell", Policy::Lower),
    ("rnn_relu_cell", Policy::Lower),
    ("scaled_dot_product_attention", Policy::Lower),
    // Float32.
    ("acos", Policy::Fp32),
    ("asin", Policy::Fp32),
    ("cosh", Policy::Fp32),
    ("erfinv", Policy::Fp32),
    ("exp", Policy::Fp32),
    ("expm1", Policy::Fp32),
    ("log", Policy::Fp32),
    ("log10", Policy::Fp32),
    ("log2", Policy::Fp32),
    ("log1p", Policy::Fp32),
    ("reciprocal", Policy::Fp32),
    ("rsqrt", Policy::Fp32),
    ("sinh", Policy::Fp32),
    ("tan", Policy::Fp32),
    ("pow", Policy::Fp32),
    ("softplus", Policy::Fp32),
    ("layer_norm", Policy::Fp32),
    ("rms_norm", Policy::Fp32),
    ("group_norm", Policy::Fp32),
    ("frobenius_norm", Policy::Fp32),
    ("nuclear_norm", Policy::Fp32),
    ("cosine_similarity", Policy::Fp32),
    ("poisson_nll_loss", Policy::Fp32),
    ("cosine_embedding_loss", Policy::Fp32),
    ("nll_loss", Policy::Fp32),
    ("hinge_embedding_loss", Policy::Fp32),
    ("kl_div", Policy::Fp32),
    ("l1_loss", Policy::Fp32),
    ("smooth_l1_loss", Policy::Fp32),
    ("huber_loss", Policy::Fp32),
    ("mse_loss", Policy::Fp32),
    ("margin_ranking_loss", Policy::Fp32),
    ("multilabel_margin_loss", Policy::Fp32),
    ("soft_margin_loss", Policy::Fp32),
    ("triplet_margin_loss", Policy::Fp32),
    ("multi_margin_loss", Policy::Fp32),
    ("binary_cross_entropy_with_logits", Policy::Fp32),
    ("dist", Policy::Fp32),
    ("pdist", Policy::Fp32),
    ("cdist", Policy::Fp32),
    ("renorm", Policy::Fp32),
    ("logsumexp", Policy::Fp32),
    // `norm` is called with dtype=float32 (`fp32_append_dtype`).
    ("norm", Policy::Fp32),
    // Float32 unless the call gives a dtype.
    ("prod", Policy::Fp32UnlessDtype),
    ("softmax", Policy::Fp32UnlessDtype),
    ("log_softmax", Policy::Fp32UnlessDtype),
    ("cumprod", Policy::Fp32UnlessDtype),
    ("cumsum", Policy::Fp32UnlessDtype),
    ("linalg_vector_norm", Policy::Fp32UnlessDtype),
    ("linalg_matrix_norm", Policy::Fp32UnlessDtype),
    ("sum", Policy::Fp32UnlessDtype),
    // The widest input type.
    ("addcdiv", Policy::Promote),
    ("addcmul", Policy::Promote),
    ("atan2", Policy::Promote),
    ("bilinear", Policy::Promote),
    ("cross", Policy::Promote),
    ("dot", Policy::Promote),
    ("vdot", Policy::Promote),
    ("grid_sampler", Policy::Promote),
    ("index_put", Policy::Promote),
    ("tensordot", Policy::Promote),
    ("scatter_add", Policy::Promote),
];

/// PyTorch 2.15's CPU lists (the `AutocastCPU` registrations), by op name:
/// the products in lower precision, and `prod` and the losses in float32;
/// the CPU's other ops run in what they are given (`exp` of a bf16 tensor
/// stays bf16 there).
const CPU: &[(&str, Policy)] = &[
    ("conv1d", Policy::Lower),
    ("conv2d", Policy::Lower),
    ("conv3d", Policy::Lower),
    ("bmm", Policy::Lower),
    ("mm", Policy::Lower),
    ("linalg_vecdot", Policy::Lower),
    ("baddbmm", Policy::Lower),
    ("addmm", Policy::Lower),
    ("addbmm", Policy::Lower),
    ("linear", Policy::Lower),
    ("_convolution", Policy::Lower),
    ("matmul", Policy::Lower),
    ("conv_tbc", Policy::Lower),
    ("conv_transpose1d", Policy::Lower),
    ("conv_transpose2d", Policy::Lower),
    ("conv_transpose3d", Policy::Lower),
    ("prelu", Policy::Lower),
    ("scaled_dot_product_attention", Policy::Lower),
    ("prod", Policy::Fp32),
    ("cdist", Policy::Fp32),
    ("mse_loss", Policy::Fp32),
    ("cosine_embedding_loss", Policy::Fp32),
    ("nll_loss", Policy::Fp32),
    ("hinge_embedding_loss", Policy::Fp32),
    ("poisson_nll_loss", Policy::Fp32),
    ("smooth_l1_loss", Policy::Fp32),
    ("cross_entropy_loss", Policy::Fp32),
    ("l1_loss", Policy::Fp32),
    ("huber_loss", Policy::Fp32),
    ("margin_ranking_loss", Policy::Fp32),
    ("soft_margin_loss", Policy::Fp32),
    ("triplet_margin_loss", Policy::Fp32),
    ("multi_margin_loss", Policy::Fp32),
    ("kl_div", Policy::Fp32),
    ("multilabel_margin_loss", Policy::Fp32),
    ("binary_cross_entropy_with_logits", Policy::Fp32),
    ("binary_cross_entropy", Policy::Fp32),
];

/// What autocast does to op `op` on `device`'s type; None: nothing.
pub fn policy(device: Device, op: &str) -> Option<Policy> {
    let table = match device {
        Device::Cuda(_) => CUDA,
        Device::Cpu => CPU,
        // (PyTorch has no autocast for the meta device.)
        Device::Meta => return None,
    };
    table.iter().find(|(n, _)| *n == op).map(|&(_, p)| p)
}

impl Mode {
    /// The lower precision of the region for ops on `device`, when one is
    /// in force.
    fn autocast_on(&self, device: Device) -> Option<DType> {
        match device {
            Device::Cuda(_) => self.autocast.cuda,
            Device::Cpu => self.autocast.cpu,
            Device::Meta => None,
        }
    }

    /// This mode without autocast (what backward runs in).
    pub fn without_autocast(self) -> Mode {
        Mode {
            autocast: Autocast::default(),
            ..self
        }
    }
}

/// An op's inputs as autocast hands them to it: the casts it made (none
/// where an input goes as it is).
#[derive(Default)]
pub struct Cast(Vec<Option<Arc<Tensor>>>);

impl Cast {
    /// Input `i` as the op takes it (`given`, or autocast's cast of it).
    pub fn get<'a>(&'a self, i: usize, given: &'a Tensor) -> &'a Tensor {
        match self.0.get(i) {
            Some(Some(cast)) => cast,
            _ => given,
        }
    }

    /// Input `i` as the op takes it, shared.
    pub fn arc(&self, i: usize, given: &Arc<Tensor>) -> Arc<Tensor> {
        match self.0.get(i) {
            Some(Some(cast)) => Arc::clone(cast),
            _ => Arc::clone(given),
        }
    }

    /// Whether autocast changed any input.
    pub fn changed(&self) -> bool {
        self.0.iter().any(Option::is_some)
    }
}

/// `op`'s inputs as autocast hands them to it: unchanged when there is no
/// region for the op's device type or the op is not listed, else each
/// eligible input cast where PyTorch casts it.
pub fn inputs(rt: &mut Runtime, mode: Mode, op: &str, xs: &[&Tensor]) -> R<Cast> {
    // The op's device type: CUDA when any input is on a CUDA device.
    let Some(device) = xs
        .iter()
        .map(|t| t.device())
        .find(|d| d.is_cuda())
        .or_else(|| xs.first().map(|t| t.device()))
    else {
        return Ok(Cast::default());
    };
    let (Some(lower), Some(policy)) = (mode.autocast_on(device), policy(device, op)) else {
        return Ok(Cast::default());
    };
    let eligible = |t: &Tensor| {
        t.dtype().is_float() && t.dtype() != DType::F64 && t.device().is_cuda() == device.is_cuda()
    };
    let to = match policy {
        Policy::Lower => lower,
        Policy::Fp32 => DType::F32,
        Policy::Fp32UnlessDtype if xs.first().is_some_and(|t| eligible(t)) => DType::F32,
        Policy::Fp32UnlessDtype => return Ok(Cast::default()),
        Policy::Promote => xs
            .iter()
            .filter(|t| eligible(t))
            .map(|t| t.dtype())
            .reduce(DType::promote)
            .unwrap_or(DType::F32),
    };
    let mut out = Vec::with_capacity(xs.len());
    for &x in xs {
        out.push(match eligible(x) && x.dtype() != to {
            true => Some(cast(rt, mode, x, to, to == lower && mode.autocast.cache)?),
            false => None,
        });
    }
    Ok(Cast(out))
}

/// PyTorch's refusal of an op unsafe in a CUDA autocast region:
/// `binary_cross_entropy` of half-precision probabilities loses too much.
pub fn refuse_unsafe(mode: Mode, device: Device, op: &str) -> R<()> {
    if op != "binary_cross_entropy" || !device.is_cuda() || mode.autocast_on(device).is_none() {
        return Ok(());
    }
    Err(Error::Module {
        class: "RuntimeError",
        help: None,
        message: "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n\
         Many models use a sigmoid layer right before the binary cross entropy layer.\n\
         In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n\
         or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n\
         safe to autocast."
            .into(),
    })
}

/// `op(x)` of a user's unary op (`exp`, `log` ... are listed): its input
/// as autocast gives it, then the op, recorded.
pub fn unary(rt: &mut Runtime, mode: Mode, op: UnaryOp, x: &Tensor) -> R<Arc<Tensor>> {
    let cast = inputs(rt, mode, op.name(), &[x])?;
    super::record::unary(rt, mode, op, cast.get(0, x))
}

/// `a op b` of a user's binary op: `pow` is listed (float32), the others
/// promote as they always do.
pub fn binary(
    rt: &mut Runtime,
    mode: Mode,
    op: BinaryOp,
    a: Operand,
    b: Operand,
) -> R<Arc<Tensor>> {
    if op != BinaryOp::Pow {
        return super::record::binary(rt, mode, op, a, b);
    }
    let cast = inputs(rt, mode, "pow", &[a.tensor, b.tensor])?;
    let a = Operand {
        tensor: cast.get(0, a.tensor),
        ..a
    };
    let b = Operand {
        tensor: cast.get(1, b.tensor),
        ..b
    };
    super::record::binary(rt, mode, op, a, b)
}

/// `op(a, b)` of a matrix product PyTorch names `op` (`matmul`, `dot`):
/// its inputs as autocast gives them, then the product, recorded.
pub fn matmul(rt: &mut Runtime, mode: Mode, op: &str, a: &Tensor, b: &Tensor) -> R<Arc<Tensor>> {
    let cast = inputs(rt, mode, op, &[a, b])?;
    match op {
        "bmm" => super::record::bmm(rt, mode, cast.get(0, a), cast.get(1, b)),
        _ => super::record::matmul(rt, mode, cast.get(0, a), cast.get(1, b)),
    }
}

/// `x.to(dtype)` as autocast makes it (`ToCopyBackward0`); a parameter's
/// lower-precision cast from the region's cache when `cache` says so.
fn cast(rt: &mut Runtime, mode: Mode, x: &Tensor, to: DType, cache: bool) -> R<Arc<Tensor>> {
    let cacheable = cache && x.dtype() == DType::F32 && requires_grad(x) && is_leaf(x);
    if cacheable {
        if let Some(hit) = CACHE.with(|c| c.borrow().find(x)) {
            return Ok(hit);
        }
    }
    let out = rt.cast(x, to)?;
    let out = super::record::copied(rt, mode, x, out, "ToCopyBackward0")?;
    if cacheable {
        CACHE.with(|c| c.borrow_mut().keep(x, Arc::clone(&out)));
    }
    Ok(out)
}

/// The casts kept for the outermost region.
#[derive(Default)]
struct Cache {
    /// Nested regions entered and not yet left.
    depth: usize,
    entries: Vec<Entry>,
}

/// One parameter's cast: the parameter named by its address and memory
/// (the handle keeps that address from being reused while the entry lives).
struct Entry {
    at: usize,
    storage: StorageHandle,
    shape: Vec<usize>,
    cast: Arc<Tensor>,
}

impl Cache {
    fn find(&self, x: &Tensor) -> Option<Arc<Tensor>> {
        let at = x as *const Tensor as usize;
        self.entries
            .iter()
            .find(|e| e.at == at && e.storage.is(x) && e.shape == x.shape())
            .map(|e| Arc::clone(&e.cast))
    }

    fn keep(&mut self, x: &Tensor, cast: Arc<Tensor>) {
        self.entries.push(Entry {
            at: x as *const Tensor as usize,
            storage: x.storage_handle(),
            shape: x.shape().to_vec(),
            cast,
        });
    }
}

thread_local! {
    /// PyTorch's autocast cache is per thread, as its regions are.
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

/// A region begins (`with autocast(...)`, enabled or not).
pub fn enter() {
    CACHE.with(|c| c.borrow_mut().depth += 1);
}

/// A region ends: leaving the outermost one empties the cache (its casts'
/// memory goes back to the allocator with the last reference).
pub fn exit() {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        c.depth = c.depth.saturating_sub(1);
        if c.depth == 0 {
            c.entries.clear();
        }
    });
}

/// The casts the cache holds: (the parameter's address, its cast), for
/// `mem map` to name them.
pub fn cached() -> Vec<(usize, Arc<Tensor>)> {
    CACHE.with(|c| {
        c.borrow()
            .entries
            .iter()
            .map(|e| (e.at, Arc::clone(&e.cast)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_is_listed_once_per_device_type() {
        for table in [CUDA, CPU] {
            for (i, (n, _)) in table.iter().enumerate() {
                assert!(
                    !table[..i].iter().any(|(m, _)| m == n),
                    "{n} is listed twice"
                );
            }
        }
        assert_eq!(policy(Device::Cuda(0), "linear"), Some(Policy::Lower));
        assert_eq!(policy(Device::Cuda(0), "exp"), Some(Policy::Fp32));
        assert_eq!(policy(Device::Cpu, "exp"), None);
        assert_eq!(policy(Device::Cuda(0), "relu"), None);
    }
}
