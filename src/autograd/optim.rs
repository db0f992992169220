//! Optimizers as PyTorch's `torch.optim` runs them one tensor at a time
//! (`_single_tensor_sgd`, `_single_tensor_adam`): each `step()` updates the
//! parameters in place from their `.grad`, with the op layer's ops (so on
//! every backend, on each parameter's device); state (momentum buffers,
//! Adam's two averages) is allocated at the first step, beside its parameter.
//! `zero_grad()` sets the grads to none, as PyTorch 2 does.

use std::sync::Arc;

use super::meta::meta;
use super::ops::{bin, bin_s, full_like};
use crate::error::Error;
use crate::runtime::dispatch::Runtime;
use crate::runtime::op::binary::{BinaryOp, Operand};
use crate::runtime::op::ternary::TernaryOp;
use crate::runtime::op::unary::UnaryOp;
use crate::runtime::Tensor;

type R<T> = Result<T, Error>;

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Sgd {
        lr: f64,
        momentum: f64,
        dampening: f64,
        weight_decay: f64,
        nesterov: bool,
    },
    Adam {
        lr: f64,
        betas: (f64, f64),
        eps: f64,
        weight_decay: f64,
    },
}

/// One parameter's state.
#[derive(Default)]
struct State {
    /// SGD's momentum buffer, Adam's first moment (`exp_avg`).
    first: Option<Arc<Tensor>>,
    /// Adam's second moment (`exp_avg_sq`).
    second: Option<Arc<Tensor>>,
    steps: u64,
}

impl std::fmt::Debug for Optimizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

pub struct Optimizer {
    pub kind: Kind,
    pub params: Vec<Arc<Tensor>>,
    /// One state per distinct parameter, as PyTorch keys `self.state[p]`
    /// by the tensor: a parameter listed twice shares its state.
    state: Vec<State>,
    /// Which state each entry of `params` uses.
    slot: Vec<usize>,
}

/// `x op= s` in place.
fn inplace_s(rt: &mut Runtime, op: BinaryOp, x: &Tensor, s: f64) -> R<()> {
    rt.binary_(op, x, Operand::weak(&Tensor::scalar(s)))
}

impl Optimizer {
    /// An optimizer of `params`, as `torch.optim`'s: each a leaf tensor
    /// (one that does not require grad is accepted, and skipped while it
    /// has no gradient). A parameter listed twice shares its state, as
    /// PyTorch's; `duplicates` says so, for the warning PyTorch gives.
    pub fn new(kind: Kind, params: Vec<Arc<Tensor>>) -> R<Optimizer> {
        if params.is_empty() {
            return Err(Error::value("optimizer got an empty parameter list"));
        }
        for p in &params {
            if meta(p).is_some_and(|m| m.has_grad_fn()) {
                return Err(Error::value_help(
                    "can't optimize a non-leaf Tensor",
                    "a result of ops on parameters is not a parameter: optimize the leaves \
                     (made with `requires_grad=true`, or `p.requires_grad_()`)",
                ));
            }
        }
        let mut slot = Vec::with_capacity(params.len());
        let mut distinct: Vec<&Arc<Tensor>> = Vec::new();
        for p in &params {
            match distinct.iter().position(|q| Arc::ptr_eq(q, p)) {
                Some(i) => slot.push(i),
                None => {
                    slot.push(distinct.len());
                    distinct.push(p);
                }
            }
        }
        let state = distinct.iter().map(|_| State::default()).collect();
        Ok(Optimizer {
            kind,
            params,
            state,
            slot,
        })
    }

    /// PyTorch's warning when a parameter is listed twice (its update then
    /// runs twice a step, on one shared state).
    pub fn duplicates(&self) -> Option<String> {
        (self.state.len() < self.params.len()).then(|| {
            "optimizer contains a parameter group with duplicate parameters; in future, this \
             will cause an error; see github.com/pytorch/pytorch/issues/40967 for more information"
                .to_string()
        })
    }

    pub fn name(&self) -> &'static str {
        match self.kind {
            Kind::Sgd { .. } => "SGD",
            Kind::Adam { .. } => "Adam",
        }
    }

    /// `SGD(lr=0.1, momentum=0.9) of 2 parameters, state 4.0 KiB`.
    pub fn describe(&self) -> String {
        let number = |x: f64| format!("{x:?}");
        let settings = match &self.kind {
            Kind::Sgd {
                lr,
                momentum,
                dampening,
                weight_decay,
                nesterov,
            } => format!(
                "lr={}, momentum={}, dampening={}, weight_decay={}, nesterov={nesterov}",
                number(*lr),
                number(*momentum),
                number(*dampening),
                number(*weight_decay)
            ),
            Kind::Adam {
                lr,
                betas,
                eps,
                weight_decay,
            } => format!(
                "lr={}, betas=({}, {}), eps={}, weight_decay={}",
                number(*lr),
                number(betas.0),
                number(betas.1),
                number(*eps),
                number(*weight_decay)
            ),
        };
        let n = self.params.len();
        let s = if n == 1 { "" } else { "s" };
        format!(
            "{}({settings}) of {n} parameter{s}, state {} bytes",
            self.name(),
            self.state_bytes()
        )
    }

    /// `opt.zero_grad()`: every parameter's `.grad` set to none.
    pub fn zero_grad(&self) {
        for p in &self.params {
            if let Some(m) = meta(p) {
                m.set_grad(None);
            }
        }
    }

    /// `opt.step()`: each parameter with a gradient updated in place, in
    /// the order listed. As PyTorch's SGD, the momentum buffers are read
    /// from the state at the start of the step and written back at its end
    /// (a parameter listed twice: the last entry's); Adam's state is
    /// updated in place, entry after entry.
    pub fn step(&mut self, rt: &mut Runtime) -> R<()> {
        let mut buffers: Vec<Option<Arc<Tensor>>> = self
            .slot
            .iter()
            .map(|&s| self.state[s].first.clone())
            .collect();
        for (k, p) in self.params.iter().enumerate() {
            let Some(grad) = meta(p).and_then(|m| m.grad()) else {
                continue;
            };
            match self.kind {
                Kind::Sgd {
                    lr,
                    momentum,
                    dampening,
                    weight_decay,
                    nesterov,
                } => sgd(
                    rt,
                    p,
                    grad,
                    &mut buffers[k],
                    (lr, momentum, dampening, weight_decay, nesterov),
                )?,
                Kind::Adam {
                    lr,
                    betas,
                    eps,
                    weight_decay,
                } => {
                    let state = &mut self.state[self.slot[k]];
                    adam(rt, p, grad, state, lr, betas, eps, weight_decay)?
                }
            }
        }
        if matches!(self.kind, Kind::Sgd { momentum, .. } if momentum != 0.0) {
            for (k, buf) in buffers.into_iter().enumerate() {
                if buf.is_some() {
                    self.state[self.slot[k]].first = buf;
                }
            }
        }
        Ok(())
    }

    /// The state's tensors as PyTorch's `opt.state[p]` names them
    /// (`momentum_buffer`, `exp_avg`, `exp_avg_sq`), each with the index
    /// of its parameter (the first entry of a parameter listed twice).
    pub fn state_tensors(&self) -> Vec<(usize, &'static str, Arc<Tensor>)> {
        let mut out = Vec::new();
        for (s, state) in self.state.iter().enumerate() {
            let Some(k) = self.slot.iter().position(|&slot| slot == s) else {
                continue;
            };
            let first = match self.kind {
                Kind::Sgd { .. } => "momentum_buffer",
                _ => "exp_avg",
            };
            out.extend(state.first.iter().map(|t| (k, first, Arc::clone(t))));
            out.extend(
                state
                    .second
                    .iter()
                    .map(|t| (k, "exp_avg_sq", Arc::clone(t))),
            );
        }
        out
    }

    /// Bytes of state the optimizer holds (momentum buffers, Adam's moments).
    pub fn state_bytes(&self) -> usize {
        self.state
            .iter()
            .flat_map(|s| [&s.first, &s.second])
            .flatten()
            .map(|t| t.nbytes())
            .sum()
    }
}

/// `a + alpha * b`, PyTorch's `a.add(b, alpha=alpha)`: one kernel.
fn add_scaled(rt: &mut Runtime, a: &Tensor, b: &Tensor, alpha: f64) -> R<Arc<Tensor>> {
    let alpha = Tensor::scalar(alpha);
    rt.ternary(
        TernaryOp::AddScaled,
        Operand::strong(a),
        Operand::strong(b),
        Operand::weak(&alpha),
    )
}

/// `x.add_(b, alpha=alpha)`: one kernel into x's memory, nothing allocated.
fn add_scaled_(rt: &mut Runtime, x: &Tensor, b: &Tensor, alpha: f64) -> R<()> {
    let alpha = Tensor::scalar(alpha);
    rt.ternary_(
        TernaryOp::AddScaled,
        x,
        Operand::strong(b),
        Operand::weak(&alpha),
    )
}

/// PyTorch's `_single_tensor_sgd`, op for op: `grad.add(param,
/// alpha=weight_decay)`; the momentum buffer a clone of the first grad,
/// then `buf.mul_(momentum).add_(grad, alpha=1 - dampening)`; Nesterov's
/// `grad.add(buf, alpha=momentum)`; and `param.add_(grad, alpha=-lr)`: one
/// kernel and no temporary for the plain update.
fn sgd(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    momentum_buffer: &mut Option<Arc<Tensor>>,
    (lr, momentum, dampening, weight_decay, nesterov): (f64, f64, f64, f64, bool),
) -> R<()> {
    let mut grad = grad;
    if weight_decay != 0.0 {
        grad = add_scaled(rt, &grad, p, weight_decay)?;
    }
    if momentum != 0.0 {
        let buf = match momentum_buffer.take() {
            None => rt.copy(&grad)?,
            Some(buf) => {
                inplace_s(rt, BinaryOp::Mul, &buf, momentum)?;
                add_scaled_(rt, &buf, &grad, 1.0 - dampening)?;
                buf
            }
        };
        grad = match nesterov {
            true => add_scaled(rt, &grad, &buf, momentum)?,
            false => Arc::clone(&buf),
        };
        *momentum_buffer = Some(buf);
    }
    add_scaled_(rt, p, &grad, -lr)
}

#[allow(clippy::too_many_arguments)]
fn adam(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    state: &mut State,
    lr: f64,
    (beta1, beta2): (f64, f64),
    eps: f64,
    weight_decay: f64,
) -> R<()> {
    let mut grad = grad;
    if state.first.is_none() {
        state.first = Some(full_like(rt, p, 0)?);
        state.second = Some(full_like(rt, p, 0)?);
    }
    let (m, v) = match (&state.first, &state.second) {
        (Some(m), Some(v)) => (Arc::clone(m), Arc::clone(v)),
        _ => unreachable!("both moments are made together"),
    };
    state.steps += 1;
    if weight_decay != 0.0 {
        grad = add_scaled(rt, &grad, p, weight_decay)?;
    }
    // Each temporary is dropped as soon as it is used, so that the step's
    // transient memory is what PyTorch's single-tensor Adam holds: two
    // tensors the size of the parameter at most (`mem history` shows it).
    // m.lerp_(grad, 1 - beta1): m + (1 - beta1) * (grad - m)
    {
        let diff = bin(rt, BinaryOp::Sub, &grad, &m)?;
        let scaled = bin_s(rt, BinaryOp::Mul, &diff, 1.0 - beta1)?;
        drop(diff);
        rt.binary_(BinaryOp::Add, &m, Operand::strong(&scaled))?;
    }
    // v = v * beta2 + (1 - beta2) * grad * grad
    inplace_s(rt, BinaryOp::Mul, &v, beta2)?;
    {
        let gg = bin(rt, BinaryOp::Mul, &grad, &grad)?;
        inplace_s(rt, BinaryOp::Mul, &gg, 1.0 - beta2)?;
        rt.binary_(BinaryOp::Add, &v, Operand::strong(&gg))?;
    }
    drop(grad);
    let step = state.steps as f64;
    let bias1 = 1.0 - beta1.powf(step);
    let bias2 = 1.0 - beta2.powf(step);
    let step_size = lr / bias1;
    // denom = sqrt(v) / sqrt(bias2) + eps
    let denom = {
        let root = rt.unary(UnaryOp::Sqrt, &v)?;
        bin_s(rt, BinaryOp::Div, &root, bias2.sqrt())?
    };
    inplace_s(rt, BinaryOp::Add, &denom, eps)?;
    // p -= step_size * m / denom
    let update = bin(rt, BinaryOp::Div, &m, &denom)?;
    drop(denom);
    inplace_s(rt, BinaryOp::Mul, &update, step_size)?;
    rt.binary_(BinaryOp::Sub, p, Operand::strong(&update))
}
