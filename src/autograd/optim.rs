//! Optimizers as PyTorch's `torch.optim` runs them one tensor at a time
//! (`_single_tensor_sgd`, `_single_tensor_adam`): each `step()` updates the
//! parameters in place from their `.grad`, with the op layer's ops (so on
//! every backend, on each parameter's device); state (momentum buffers,
//! Adam's two averages) is allocated at the first step, beside its parameter.
//! `zero_grad()` sets the grads to none, as PyTorch 2 does.

use std::sync::Arc;

// One Adam update's settings, the capturable step's too.
use super::adam_capturable::Settings as AdamStep;
use super::hook_list::HookFn;
use super::meta::meta;
use super::ops::{add_scaled, bin, bin_s, full_like};
use super::step_ops::{addcmul_, count_step, counted_step, lerp_};
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
        flags: Flags,
    },
    /// `decoupled`: `decoupled_weight_decay=True`, AdamW's update.
    Adam {
        lr: f64,
        betas: (f64, f64),
        eps: f64,
        weight_decay: f64,
        decoupled: bool,
        flags: Flags,
    },
    /// Adam with decoupled weight decay (`param.mul_(1 - lr * wd)` first).
    AdamW {
        lr: f64,
        betas: (f64, f64),
        eps: f64,
        weight_decay: f64,
        flags: Flags,
    },
    RmsProp {
        lr: f64,
        alpha: f64,
        eps: f64,
        weight_decay: f64,
        momentum: f64,
        centered: bool,
        flags: Flags,
    },
    Adagrad {
        lr: f64,
        lr_decay: f64,
        weight_decay: f64,
        initial_accumulator_value: f64,
        eps: f64,
        flags: Flags,
    },
    Adadelta {
        lr: f64,
        rho: f64,
        eps: f64,
        weight_decay: f64,
        flags: Flags,
    },
    /// Adam's relatives: `Adamax`, `RAdam`, `NAdam` (`momentum_decay`:
    /// NAdam's; `decoupled`: RAdam's and NAdam's `decoupled_weight_decay`).
    AdamLike {
        variant: AdamVariant,
        lr: f64,
        betas: (f64, f64),
        eps: f64,
        weight_decay: f64,
        momentum_decay: f64,
        decoupled: bool,
        flags: Flags,
    },
}

/// The switches PyTorch's optimizers share beside their numbers
/// (`param_groups[0]["maximize"]`), each where PyTorch's optimizer of that
/// kind has it (`Kind::keys`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Flags {
    /// Adam's and AdamW's AMSGrad: the denominator from the largest second
    /// moment so far (`max_exp_avg_sq`), not the current one.
    pub amsgrad: bool,
    /// Ascends: the step follows the gradient, not its negative.
    pub maximize: bool,
    /// PyTorch's multi-tensor (`foreach`) and fused implementations: the
    /// same update, whose values agree with the single-tensor one within
    /// float32 rounding; cudash runs the single-tensor update for either
    /// and keeps the choice to show it.
    pub foreach: Option<bool>,
    pub fused: Option<bool>,
    /// Adam's and AdamW's `capturable=True`: the step counted and the bias
    /// corrections computed on the parameter's device, so that a CUDA graph
    /// can capture the step (`adam_capturable`); the other optimizers
    /// refuse it.
    pub capturable: bool,
    /// Differentiating through the step: false only (refused).
    pub differentiable: bool,
    /// Which numeric settings are Python ints (bit `k`: `Kind::keys()[k]`).
    pub whole: u32,
}

/// Which relative of Adam.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AdamVariant {
    /// The infinity norm in place of the second moment (`exp_inf`).
    Adamax,
    /// Adam with the variance rectified (`rho_t`).
    RAdam,
    /// Adam with Nesterov momentum (`mu_product`).
    NAdam,
}

impl Kind {
    /// The learning rate (`param_groups[0]["lr"]`).
    pub fn lr(&self) -> f64 {
        match *self {
            Kind::Sgd { lr, .. }
            | Kind::Adam { lr, .. }
            | Kind::AdamW { lr, .. }
            | Kind::RmsProp { lr, .. }
            | Kind::Adagrad { lr, .. }
            | Kind::Adadelta { lr, .. }
            | Kind::AdamLike { lr, .. } => lr,
        }
    }

    /// Sets the learning rate (a scheduler's step, `g["lr"] = v`): a float.
    pub fn set_lr(&mut self, v: f64) {
        if v != self.lr() {
            self.set_whole("lr", false);
        }
        match self {
            Kind::Sgd { lr, .. }
            | Kind::Adam { lr, .. }
            | Kind::AdamW { lr, .. }
            | Kind::RmsProp { lr, .. }
            | Kind::Adagrad { lr, .. }
            | Kind::Adadelta { lr, .. }
            | Kind::AdamLike { lr, .. } => *lr = v,
        }
    }

    /// Sets the momentum a schedule cycles (OneCycleLR's): SGD's and
    /// RMSprop's `momentum`, Adam's `betas[0]`; `false` when it has none.
    pub fn set_momentum(&mut self, v: f64) -> bool {
        match self {
            Kind::Sgd { momentum, .. } | Kind::RmsProp { momentum, .. } => *momentum = v,
            Kind::Adam { betas, .. } | Kind::AdamW { betas, .. } | Kind::AdamLike { betas, .. } => {
                betas.0 = v
            }
            Kind::Adagrad { .. } | Kind::Adadelta { .. } => return false,
        }
        true
    }

    /// The settings as PyTorch's `param_groups[0]` names them, in its order.
    pub fn settings(&self) -> Vec<(&'static str, Setting)> {
        self.keys()
            .iter()
            .filter_map(|&k| Some((k, self.get(k)?)))
            .collect()
    }

    /// The names of this kind's settings, in the order PyTorch's
    /// constructor puts them in its `defaults` (so its `param_groups`).
    pub fn keys(&self) -> &'static [&'static str] {
        match self {
            Kind::Sgd { .. } => &[
                "lr",
                "momentum",
                "dampening",
                "weight_decay",
                "nesterov",
                "maximize",
                "foreach",
                "differentiable",
                "fused",
            ],
            Kind::Adam { .. } | Kind::AdamW { .. } => &[
                "lr",
                "betas",
                "eps",
                "weight_decay",
                "amsgrad",
                "maximize",
                "foreach",
                "capturable",
                "differentiable",
                "fused",
                "decoupled_weight_decay",
            ],
            Kind::RmsProp { .. } => &[
                "lr",
                "momentum",
                "alpha",
                "eps",
                "centered",
                "weight_decay",
                "capturable",
                "foreach",
                "maximize",
                "differentiable",
            ],
            Kind::Adagrad { .. } => &[
                "lr",
                "lr_decay",
                "eps",
                "weight_decay",
                "initial_accumulator_value",
                "foreach",
                "maximize",
                "differentiable",
                "fused",
            ],
            Kind::Adadelta { .. } => &[
                "lr",
                "rho",
                "eps",
                "weight_decay",
                "maximize",
                "capturable",
                "foreach",
                "differentiable",
            ],
            Kind::AdamLike { variant, .. } => match variant {
                AdamVariant::Adamax => &[
                    "lr",
                    "betas",
                    "eps",
                    "weight_decay",
                    "foreach",
                    "maximize",
                    "differentiable",
                    "capturable",
                ],
                AdamVariant::RAdam => &[
                    "lr",
                    "betas",
                    "eps",
                    "weight_decay",
                    "maximize",
                    "foreach",
                    "capturable",
                    "decoupled_weight_decay",
                    "differentiable",
                ],
                AdamVariant::NAdam => &[
                    "lr",
                    "betas",
                    "eps",
                    "weight_decay",
                    "momentum_decay",
                    "decoupled_weight_decay",
                    "maximize",
                    "foreach",
                    "capturable",
                    "differentiable",
                ],
            },
        }
    }

    /// `kind` with every switch at PyTorch's default (what `describe`
    /// leaves out).
    fn default_of(kind: &Kind) -> Kind {
        let mut plain = kind.clone();
        *plain.flags_mut() = Flags::default();
        if let Kind::Adam { decoupled, .. } | Kind::AdamLike { decoupled, .. } = &mut plain {
            *decoupled = false;
        }
        plain
    }

    /// The switches of this group.
    pub fn flags(&self) -> &Flags {
        match self {
            Kind::Sgd { flags, .. }
            | Kind::Adam { flags, .. }
            | Kind::AdamW { flags, .. }
            | Kind::RmsProp { flags, .. }
            | Kind::Adagrad { flags, .. }
            | Kind::Adadelta { flags, .. }
            | Kind::AdamLike { flags, .. } => flags,
        }
    }

    fn flags_mut(&mut self) -> &mut Flags {
        match self {
            Kind::Sgd { flags, .. }
            | Kind::Adam { flags, .. }
            | Kind::AdamW { flags, .. }
            | Kind::RmsProp { flags, .. }
            | Kind::Adagrad { flags, .. }
            | Kind::Adadelta { flags, .. }
            | Kind::AdamLike { flags, .. } => flags,
        }
    }

    /// One setting's value (`None`: a name this kind has not); a number
    /// the program gave as an int (or PyTorch's int default) as `Whole`.
    fn get(&self, key: &str) -> Option<Setting> {
        match self.get_raw(key)? {
            Setting::Number(x) if self.is_whole(key) && x.fract() == 0.0 && x.abs() < 9e15 => {
                Some(Setting::Whole(x as i64))
            }
            v => Some(v),
        }
    }

    fn bit(&self, key: &str) -> Option<u32> {
        self.keys().iter().position(|k| *k == key).map(|k| 1 << k)
    }

    fn is_whole(&self, key: &str) -> bool {
        self.bit(key).is_some_and(|b| self.flags().whole & b != 0)
    }

    fn set_whole(&mut self, key: &str, on: bool) {
        if let Some(b) = self.bit(key) {
            let f = self.flags_mut();
            f.whole = if on { f.whole | b } else { f.whole & !b };
        }
    }

    /// Marks which numeric settings are Python ints when the optimizer is
    /// made: `given(key)` says whether the program gave that one as an int
    /// (None: not given, so PyTorch's default, an int where it is 0).
    pub fn mark_whole(&mut self, given: impl Fn(&str) -> Option<bool>) {
        for key in self.keys() {
            if let Some(Setting::Number(x)) = self.get_raw(key) {
                let whole = given(key).unwrap_or(x == 0.0);
                self.set_whole(key, whole);
            }
        }
    }

    fn get_raw(&self, key: &str) -> Option<Setting> {
        use Setting::{Bool, Maybe, Number, Pair};
        if !self.keys().contains(&key) {
            return None;
        }
        let f = self.flags();
        Some(match (self, key) {
            (_, "lr") => Number(self.lr()),
            (_, "amsgrad") => Bool(f.amsgrad),
            (_, "maximize") => Bool(f.maximize),
            (_, "foreach") => Maybe(f.foreach),
            (_, "fused") => Maybe(f.fused),
            (_, "capturable") => Bool(f.capturable),
            (_, "differentiable") => Bool(f.differentiable),
            (Kind::Sgd { momentum, .. } | Kind::RmsProp { momentum, .. }, "momentum") => {
                Number(*momentum)
            }
            (Kind::Sgd { dampening, .. }, "dampening") => Number(*dampening),
            (Kind::Sgd { nesterov, .. }, "nesterov") => Bool(*nesterov),
            (
                Kind::Sgd { weight_decay, .. }
                | Kind::Adam { weight_decay, .. }
                | Kind::AdamW { weight_decay, .. }
                | Kind::RmsProp { weight_decay, .. }
                | Kind::Adagrad { weight_decay, .. }
                | Kind::Adadelta { weight_decay, .. }
                | Kind::AdamLike { weight_decay, .. },
                "weight_decay",
            ) => Number(*weight_decay),
            (
                Kind::Adam { eps, .. }
                | Kind::AdamW { eps, .. }
                | Kind::RmsProp { eps, .. }
                | Kind::Adagrad { eps, .. }
                | Kind::Adadelta { eps, .. }
                | Kind::AdamLike { eps, .. },
                "eps",
            ) => Number(*eps),
            (
                Kind::Adam { betas, .. } | Kind::AdamW { betas, .. } | Kind::AdamLike { betas, .. },
                "betas",
            ) => Pair(*betas),
            (
                Kind::Adam { decoupled, .. } | Kind::AdamLike { decoupled, .. },
                "decoupled_weight_decay",
            ) => Bool(*decoupled),
            (Kind::AdamW { .. }, "decoupled_weight_decay") => Bool(true),
            (Kind::RmsProp { alpha, .. }, "alpha") => Number(*alpha),
            (Kind::RmsProp { centered, .. }, "centered") => Bool(*centered),
            (Kind::Adagrad { lr_decay, .. }, "lr_decay") => Number(*lr_decay),
            (
                Kind::Adagrad {
                    initial_accumulator_value,
                    ..
                },
                "initial_accumulator_value",
            ) => Number(*initial_accumulator_value),
            (Kind::Adadelta { rho, .. }, "rho") => Number(*rho),
            (Kind::AdamLike { momentum_decay, .. }, "momentum_decay") => Number(*momentum_decay),
            _ => return None,
        })
    }
}

impl Kind {
    /// A group's own value of one setting (`{"params": ..., "lr": 0.01}`);
    /// `Err` names the settings this kind has.
    pub fn set(&mut self, key: &str, v: Setting) -> Result<(), String> {
        let (v, whole) = match v {
            Setting::Whole(n) => (Setting::Number(n as f64), true),
            other => (other, false),
        };
        self.set_number(key, v)?;
        if matches!(v, Setting::Number(_)) {
            self.set_whole(key, whole);
        }
        Ok(())
    }

    fn set_number(&mut self, key: &str, v: Setting) -> Result<(), String> {
        let known: Vec<&'static str> = self.settings().iter().map(|(k, _)| *k).collect();
        if known.contains(&key) {
            if let Some(r) = self.set_switch(key, v) {
                return r;
            }
        }
        let slot: Option<&mut f64> = match (&mut *self, key) {
            (_, "lr") => {
                if let Setting::Number(x) = v {
                    self.set_lr(x);
                    return Ok(());
                }
                None
            }
            (Kind::Sgd { momentum, .. }, "momentum")
            | (Kind::RmsProp { momentum, .. }, "momentum") => Some(momentum),
            (Kind::Sgd { dampening, .. }, "dampening") => Some(dampening),
            (
                Kind::Sgd { weight_decay, .. }
                | Kind::Adam { weight_decay, .. }
                | Kind::AdamW { weight_decay, .. }
                | Kind::RmsProp { weight_decay, .. }
                | Kind::Adagrad { weight_decay, .. }
                | Kind::Adadelta { weight_decay, .. }
                | Kind::AdamLike { weight_decay, .. },
                "weight_decay",
            ) => Some(weight_decay),
            (
                Kind::Adam { eps, .. }
                | Kind::AdamW { eps, .. }
                | Kind::RmsProp { eps, .. }
                | Kind::Adagrad { eps, .. }
                | Kind::Adadelta { eps, .. }
                | Kind::AdamLike { eps, .. },
                "eps",
            ) => Some(eps),
            (Kind::RmsProp { alpha, .. }, "alpha") => Some(alpha),
            (Kind::Adadelta { rho, .. }, "rho") => Some(rho),
            (Kind::Adagrad { lr_decay, .. }, "lr_decay") => Some(lr_decay),
            (
                Kind::Adagrad {
                    initial_accumulator_value,
                    ..
                },
                "initial_accumulator_value",
            ) => Some(initial_accumulator_value),
            (Kind::AdamLike { momentum_decay, .. }, "momentum_decay") => Some(momentum_decay),
            (
                Kind::AdamLike { decoupled, .. } | Kind::Adam { decoupled, .. },
                "decoupled_weight_decay",
            ) => {
                if let Setting::Bool(b) = v {
                    *decoupled = b;
                    return Ok(());
                }
                None
            }
            (
                Kind::Adam { betas, .. } | Kind::AdamW { betas, .. } | Kind::AdamLike { betas, .. },
                "betas",
            ) => {
                if let Setting::Pair(p) = v {
                    *betas = p;
                    return Ok(());
                }
                None
            }
            (Kind::Sgd { nesterov, .. }, "nesterov") => {
                if let Setting::Bool(b) = v {
                    *nesterov = b;
                    return Ok(());
                }
                None
            }
            (Kind::RmsProp { centered, .. }, "centered") => {
                if let Setting::Bool(b) = v {
                    *centered = b;
                    return Ok(());
                }
                None
            }
            _ => {
                return Err(format!(
                    "a parameter group of this optimizer takes \"params\" and {}, not {key:?}",
                    known
                        .iter()
                        .map(|k| format!("{k:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        };
        match (slot, v) {
            (Some(slot), Setting::Number(x)) => {
                *slot = x;
                Ok(())
            }
            _ => Err(format!("the group's {key:?} has the wrong type")),
        }
    }
}

impl Kind {
    /// Sets one of the switches (`Flags`); `None` for another key.
    fn set_switch(&mut self, key: &str, v: Setting) -> Option<Result<(), String>> {
        let wrong = || Err(format!("the group's {key:?} has the wrong type"));
        let captures = matches!(
            self,
            Kind::Adam { .. }
                | Kind::AdamW { .. }
                | Kind::RmsProp { .. }
                | Kind::Adadelta { .. }
                | Kind::AdamLike {
                    variant: AdamVariant::Adamax,
                    ..
                }
        );
        let f = self.flags_mut();
        let flag = match key {
            "amsgrad" => &mut f.amsgrad,
            "maximize" => &mut f.maximize,
            "foreach" | "fused" => {
                let slot = if key == "foreach" {
                    &mut f.foreach
                } else {
                    &mut f.fused
                };
                return Some(match v {
                    Setting::Bool(b) => {
                        *slot = Some(b);
                        Ok(())
                    }
                    Setting::Maybe(b) => {
                        *slot = b;
                        Ok(())
                    }
                    _ => wrong(),
                });
            }
            "capturable" if captures => &mut f.capturable,
            "capturable" | "differentiable" => {
                return Some(match v {
                    Setting::Bool(false) => Ok(()),
                    Setting::Bool(true) => Err(unsupported(key)),
                    _ => wrong(),
                })
            }
            _ => return None,
        };
        Some(match v {
            Setting::Bool(b) => {
                *flag = b;
                Ok(())
            }
            _ => wrong(),
        })
    }
}

/// Why `capturable=True` or `differentiable=True` is refused.
pub fn unsupported(key: &str) -> String {
    match key {
        "capturable" => "cudash captures the steps of Adam, AdamW, Adamax, RMSprop and \
                         Adadelta into CUDA graphs, not this optimizer's: capturable=True \
                         is not supported here (leave it False)"
            .into(),
        _ => "cudash's optimizer steps are not differentiated through: \
              differentiable=True is not supported (leave it False)"
            .into(),
    }
}

/// One setting of a parameter group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setting {
    Number(f64),
    /// A number Python holds as an int: PyTorch's defaults of 0
    /// (`momentum`, `weight_decay`) and what a program gave as one.
    Whole(i64),
    Pair((f64, f64)),
    Bool(bool),
    /// `foreach`, `fused`: None (PyTorch picks), or a choice.
    Maybe(Option<bool>),
}

/// Where one entry of a parameter's state (`opt.state[p]["exp_avg"]`) is kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    /// `step`: how many updates the parameter had.
    Step,
    First,
    Second,
    Third,
    /// NAdam's `mu_product` (a float32 number, as PyTorch keeps it).
    MuProduct,
}

impl Kind {
    /// A parameter's state entries by PyTorch's names, in the order its
    /// `_init_group` makes them.
    pub fn state_names(&self) -> &'static [(&'static str, Slot)] {
        match self {
            Kind::Sgd { .. } => &[("momentum_buffer", Slot::First)],
            Kind::Adam { flags, .. } | Kind::AdamW { flags, .. } if flags.amsgrad => &[
                ("step", Slot::Step),
                ("exp_avg", Slot::First),
                ("exp_avg_sq", Slot::Second),
                ("max_exp_avg_sq", Slot::Third),
            ],
            Kind::Adam { .. }
            | Kind::AdamW { .. }
            | Kind::AdamLike {
                variant: AdamVariant::RAdam,
                ..
            } => &[
                ("step", Slot::Step),
                ("exp_avg", Slot::First),
                ("exp_avg_sq", Slot::Second),
            ],
            Kind::RmsProp { .. } => &[
                ("step", Slot::Step),
                ("square_avg", Slot::Second),
                ("momentum_buffer", Slot::First),
                ("grad_avg", Slot::Third),
            ],
            Kind::Adagrad { .. } => &[("step", Slot::Step), ("sum", Slot::Second)],
            Kind::Adadelta { .. } => &[
                ("step", Slot::Step),
                ("square_avg", Slot::Second),
                ("acc_delta", Slot::Third),
            ],
            Kind::AdamLike {
                variant: AdamVariant::Adamax,
                ..
            } => &[
                ("step", Slot::Step),
                ("exp_avg", Slot::First),
                ("exp_inf", Slot::Second),
            ],
            Kind::AdamLike {
                variant: AdamVariant::NAdam,
                ..
            } => &[
                ("step", Slot::Step),
                ("mu_product", Slot::MuProduct),
                ("exp_avg", Slot::First),
                ("exp_avg_sq", Slot::Second),
            ],
        }
    }
}

/// One parameter's state.
#[derive(Default)]
struct State {
    /// SGD's momentum buffer, Adam's first moment (`exp_avg`).
    first: Option<Arc<Tensor>>,
    /// Adam's second moment (`exp_avg_sq`), RMSprop's and Adadelta's
    /// `square_avg`, Adagrad's `sum`.
    second: Option<Arc<Tensor>>,
    /// RMSprop's `grad_avg` (centered), Adadelta's `acc_delta`.
    third: Option<Arc<Tensor>>,
    /// `step`: how many updates the parameter had, as PyTorch keeps it: a
    /// float32 scalar tensor on the host, made at the first update and
    /// counted in place (`count_step`), so that `opt.state[p]["step"]`, a
    /// `state_dict()` and an optimizer that loaded it hold the same tensor.
    step: Option<Arc<Tensor>>,
    /// NAdam's `mu_product`, a float32 as PyTorch's (1 before the first step).
    mu_product: Option<f32>,
}

impl std::fmt::Debug for Optimizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

pub struct Optimizer {
    /// The constructor's settings (PyTorch's `opt.defaults`), which a group
    /// added later starts from.
    pub defaults: Kind,
    /// Each parameter group's settings (`param_groups[i]`), one kind for all.
    pub groups: Vec<Kind>,
    /// Every group's parameters, in order.
    pub params: Vec<Arc<Tensor>>,
    /// The group of each entry of `params`.
    pub group_of: Vec<usize>,
    /// One state per distinct parameter, as PyTorch keys `self.state[p]`
    /// by the tensor: a parameter listed twice shares its state.
    state: Vec<State>,
    /// Which state each entry of `params` uses.
    slot: Vec<usize>,
    /// How many times `step()` ran (a scheduler warns when it steps first).
    pub steps_taken: u64,
    /// `register_step_pre_hook(f)`'s and `register_step_post_hook(f)`'s
    /// functions, run before and after each `step()`.
    pub step_pre_hooks: Arc<super::hook_list::Hooks>,
    pub step_post_hooks: Arc<super::hook_list::Hooks>,
    /// Whether the warning of a capturable step run outside a capture was
    /// given (PyTorch's `_warned_capturable_if_run_uncaptured`).
    warned_uncaptured: bool,
    /// Each group's `initial_lr`: its rate when the first scheduler was
    /// made (empty before), every scheduler's `base_lrs`, as PyTorch's
    /// `group.setdefault("initial_lr", group["lr"])`.
    pub initial_lrs: Vec<f64>,
    /// Each group's keys of the program's (`{"params": ..., "name": "enc"}`,
    /// a scheduler's `swa_lr`), in the order they came: PyTorch's groups are
    /// dicts that hold any key. The values are the program's.
    pub extras: Vec<Vec<(String, HookFn)>>,
}

impl Optimizer {
    /// Group `g`'s keys of the program's, in order.
    pub fn extras_of(&self, g: usize) -> &[(String, HookFn)] {
        self.extras.get(g).map_or(&[], Vec::as_slice)
    }

    /// `group[key] = value` for a key that is no setting of the optimizer.
    pub fn set_extra(&mut self, g: usize, key: &str, value: HookFn) {
        if self.extras.len() <= g {
            self.extras.resize_with(g + 1, Vec::new);
        }
        match self.extras[g].iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.extras[g].push((key.to_string(), value)),
        }
    }

    /// The groups' `initial_lr`s, set from their rates the first time.
    pub fn initial_lrs(&mut self) -> Vec<f64> {
        for g in self.groups.iter().skip(self.initial_lrs.len()) {
            self.initial_lrs.push(g.lr());
        }
        self.initial_lrs.clone()
    }
}

/// Every optimizer alive, so that `module.to(device)` can give each the
/// moved parameters (`replace_param`).
static LIVE: std::sync::Mutex<Vec<std::sync::Weak<std::sync::Mutex<Optimizer>>>> =
    std::sync::Mutex::new(Vec::new());

/// Counts `o` among the optimizers alive.
pub fn register(o: &Arc<std::sync::Mutex<Optimizer>>) {
    let mut live = crate::runtime::lock::lock(&LIVE);
    live.retain(|w| w.strong_count() > 0);
    live.push(Arc::downgrade(o));
}

/// `module.to(device)` made `new` in place of the parameter `old`: every
/// optimizer that holds `old` holds `new` instead, as PyTorch's
/// optimizers go on stepping a module's parameters after `.to()` (it
/// changes each parameter's data in place). How many optimizers did.
pub fn replace_param(old: &Arc<Tensor>, new: &Arc<Tensor>) -> usize {
    let live: Vec<_> = crate::runtime::lock::lock(&LIVE)
        .iter()
        .filter_map(std::sync::Weak::upgrade)
        .collect();
    let mut replaced = 0;
    for o in live {
        let mut o = crate::runtime::lock::lock(&o);
        let mut held = false;
        for p in o.params.iter_mut().filter(|p| Arc::ptr_eq(p, old)) {
            *p = Arc::clone(new);
            held = true;
        }
        replaced += usize::from(held);
    }
    replaced
}

/// PyTorch's refusal of a parameter that is the result of ops.
fn check_leaves(params: &[Arc<Tensor>]) -> R<()> {
    if params
        .iter()
        .any(|p| meta(p).is_some_and(|m| m.has_grad_fn()))
    {
        return Err(Error::value_help(
            "can't optimize a non-leaf Tensor",
            "a result of ops on parameters is not a parameter: optimize the leaves \
             (made with `requires_grad=true`, or `p.requires_grad_()`)",
        ));
    }
    Ok(())
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
        Optimizer::with_groups(vec![(kind, params)])
    }

    /// An optimizer of parameter groups, each with its own settings (PyTorch's
    /// `SGD([{"params": ...}, {"params": ..., "lr": 0.01}], lr=0.1)`).
    pub fn with_groups(given: Vec<(Kind, Vec<Arc<Tensor>>)>) -> R<Optimizer> {
        if given.iter().all(|(_, ps)| ps.is_empty()) {
            return Err(Error::value("optimizer got an empty parameter list"));
        }
        let mut groups = Vec::with_capacity(given.len());
        let mut params = Vec::new();
        let mut group_of = Vec::new();
        for (g, (kind, ps)) in given.into_iter().enumerate() {
            for p in &ps {
                let elsewhere = params
                    .iter()
                    .zip(&group_of)
                    .any(|(q, &h)| h != g && Arc::ptr_eq(q, p));
                if elsewhere {
                    return Err(Error::value(
                        "some parameters appear in more than one parameter group",
                    ));
                }
            }
            group_of.extend(std::iter::repeat_n(g, ps.len()));
            params.extend(ps);
            groups.push(kind);
        }
        check_leaves(&params)?;
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
            defaults: groups[0].clone(),
            groups,
            params,
            group_of,
            state,
            slot,
            steps_taken: 0,
            warned_uncaptured: false,
            step_pre_hooks: Arc::default(),
            step_post_hooks: Arc::default(),
            initial_lrs: Vec::new(),
            extras: Vec::new(),
        })
    }

    /// `opt.add_param_group(...)`: a group of new parameters with settings
    /// `kind` and the program's keys `extras`, its state made as at the
    /// constructor's (`init_state`). A parameter of another group is
    /// PyTorch's error.
    pub fn add_group(
        &mut self,
        rt: &mut Runtime,
        kind: Kind,
        params: Vec<Arc<Tensor>>,
        extras: Vec<(String, HookFn)>,
    ) -> R<()> {
        if params
            .iter()
            .any(|p| self.params.iter().any(|q| Arc::ptr_eq(p, q)))
        {
            return Err(Error::value(
                "some parameters appear in more than one parameter group",
            ));
        }
        check_leaves(&params)?;
        let g = self.groups.len();
        let first_new = self.state.len();
        let start = self.params.len();
        for p in params {
            let earlier = (start..self.params.len()).find(|&k| Arc::ptr_eq(&self.params[k], &p));
            match earlier {
                Some(k) => self.slot.push(self.slot[k]),
                None => {
                    self.slot.push(self.state.len());
                    self.state.push(State::default());
                }
            }
            self.params.push(p);
            self.group_of.push(g);
        }
        self.groups.push(kind);
        self.extras.resize_with(g, Vec::new);
        self.extras.push(extras);
        self.init_state_from(rt, first_new)
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

    /// The first group's settings (the kind is the same in every group).
    pub fn kind(&self) -> &Kind {
        &self.groups[0]
    }

    pub fn name(&self) -> &'static str {
        self.groups[0].name()
    }

    /// State PyTorch makes at construction: Adagrad's `sum`, filled with
    /// `initial_accumulator_value`, beside each parameter.
    pub fn init_state(&mut self, rt: &mut Runtime) -> R<()> {
        self.init_state_from(rt, 0)
    }

    /// `init_state` of the states from `first` on (a group added later).
    fn init_state_from(&mut self, rt: &mut Runtime, first: usize) -> R<()> {
        for (s, state) in self.state.iter_mut().enumerate().skip(first) {
            let k = self.slot.iter().position(|&x| x == s).unwrap_or(0);
            if let Kind::Adagrad {
                initial_accumulator_value,
                ..
            } = self.groups[self.group_of[k]]
            {
                let p = &self.params[k];
                let sum = full_like(rt, p, 0)?;
                if initial_accumulator_value != 0.0 {
                    inplace_s(rt, BinaryOp::Add, &sum, initial_accumulator_value)?;
                }
                state.second = Some(sum);
            }
        }
        Ok(())
    }

    /// `SGD(lr=0.1, momentum=0.9) of 2 parameters, state 4.0 KiB`; with
    /// several groups, each group's settings in turn.
    pub fn describe(&self) -> String {
        let number = |x: f64| format!("{x:?}");
        let settings = |kind: &Kind| {
            let plain = Kind::default_of(kind);
            kind.settings()
                .into_iter()
                // A switch at its default is not shown (`amsgrad=true` is).
                .filter(|(k, v)| {
                    !matches!(v, Setting::Bool(_) | Setting::Maybe(_))
                        || plain.get(k) != Some(*v)
                        || matches!(*k, "nesterov" | "centered")
                })
                .map(|(k, v)| match v {
                    Setting::Number(x) => format!("{k}={}", number(x)),
                    Setting::Whole(n) => format!("{k}={}", number(n as f64)),
                    Setting::Pair((a, b)) => format!("{k}=({}, {})", number(a), number(b)),
                    Setting::Bool(b) => format!("{k}={b}"),
                    Setting::Maybe(None) => format!("{k}=none"),
                    Setting::Maybe(Some(b)) => format!("{k}={b}"),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let shown = match self.groups.len() {
            1 => settings(&self.groups[0]),
            _ => self
                .groups
                .iter()
                .enumerate()
                .map(|(g, kind)| format!("group {g}: {}", settings(kind)))
                .collect::<Vec<_>>()
                .join("; "),
        };
        let n = self.params.len();
        let s = if n == 1 { "" } else { "s" };
        format!(
            "{}({shown}) of {n} parameter{s}, state {} bytes",
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

    /// PyTorch's warning, once per optimizer, when every group is
    /// capturable and a step runs outside a CUDA graph's capture: the text,
    /// the first time.
    pub fn uncaptured_warning(&mut self, capturing: bool) -> Option<&'static str> {
        let all = self.groups.iter().all(|k| k.flags().capturable);
        if !all || capturing || self.warned_uncaptured {
            return None;
        }
        self.warned_uncaptured = true;
        Some(
            "UserWarning: This instance was constructed with capturable=True or some of all the \
             param_groups came with capturable=True, but step() is running without CUDA graph \
             capture. If you never intend to graph-capture this instance, capturable=True can \
             impair performance, and you should set capturable=False.",
        )
    }

    /// `opt.step()`: each parameter with a gradient updated in place, in
    /// the order listed. As PyTorch's SGD, the momentum buffers are read
    /// from the state at the start of the step and written back at its end
    /// (a parameter listed twice: the last entry's); Adam's state is
    /// updated in place, entry after entry.
    pub fn step(&mut self, rt: &mut Runtime) -> R<()> {
        // As PyTorch: an optimizer whose step counts on the host (its bias
        // corrections would be frozen into the graph) refuses a capture.
        let counts_on_host = self
            .groups
            .iter()
            .any(|k| k.keys().contains(&"capturable") && !k.flags().capturable);
        if counts_on_host && rt.is_current_stream_capturing() {
            return Err(Error::runtime(format!(
                "Attempting CUDA graph capture of step() for an instance of {} but \
                 param_groups' capturable is False.",
                self.name()
            )));
        }
        self.steps_taken += 1;
        let mut buffers: Vec<Option<Arc<Tensor>>> = self
            .slot
            .iter()
            .map(|&s| self.state[s].first.clone())
            .collect();
        let multi: Vec<bool> = (0..self.groups.len())
            .map(|g| self.multi_tensor(g))
            .collect();
        let mut grouped: Vec<Vec<(usize, Arc<Tensor>)>> = vec![Vec::new(); self.groups.len()];
        for (k, p) in self.params.iter().enumerate() {
            let Some(grad) = meta(p).and_then(|m| m.grad()) else {
                continue;
            };
            let kind = &self.groups[self.group_of[k]];
            // `maximize`: PyTorch's first line, `grad = -grad`.
            let grad = match kind.flags().maximize {
                true => rt.unary(UnaryOp::Neg, &grad)?,
                false => grad,
            };
            if multi[self.group_of[k]] {
                grouped[self.group_of[k]].push((k, grad));
                continue;
            }
            let amsgrad = kind.flags().amsgrad;
            match *kind {
                Kind::Sgd {
                    lr,
                    momentum,
                    dampening,
                    weight_decay,
                    nesterov,
                    ..
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
                    decoupled: false,
                    ..
                } => {
                    let state = &mut self.state[self.slot[k]];
                    let how = AdamStep {
                        lr,
                        betas,
                        eps,
                        weight_decay,
                        amsgrad,
                    };
                    match kind.flags().capturable {
                        true => adam_capturable(rt, p, grad, state, how)?,
                        false => adam(rt, p, grad, state, how)?,
                    }
                }
                Kind::AdamW {
                    lr,
                    betas,
                    eps,
                    weight_decay,
                    ..
                }
                | Kind::Adam {
                    lr,
                    betas,
                    eps,
                    weight_decay,
                    decoupled: true,
                    ..
                } => {
                    // PyTorch's decoupled weight decay, then Adam without it.
                    inplace_s(rt, BinaryOp::Mul, p, 1.0 - lr * weight_decay)?;
                    let state = &mut self.state[self.slot[k]];
                    let how = AdamStep {
                        lr,
                        betas,
                        eps,
                        weight_decay: 0.0,
                        amsgrad,
                    };
                    match kind.flags().capturable {
                        true => adam_capturable(rt, p, grad, state, how)?,
                        false => adam(rt, p, grad, state, how)?,
                    }
                }
                Kind::RmsProp { .. } => rmsprop(rt, p, grad, &mut self.state[self.slot[k]], kind)?,
                Kind::Adagrad { .. } => adagrad(rt, p, grad, &mut self.state[self.slot[k]], kind)?,
                Kind::Adadelta { .. } => {
                    adadelta(rt, p, grad, &mut self.state[self.slot[k]], kind)?
                }
                Kind::AdamLike {
                    variant: AdamVariant::Adamax,
                    flags:
                        Flags {
                            capturable: true, ..
                        },
                    ..
                } => adamax_capturable(rt, p, grad, &mut self.state[self.slot[k]], kind)?,
                Kind::AdamLike { .. } => {
                    adam_like(rt, p, grad, &mut self.state[self.slot[k]], kind)?
                }
            }
        }
        for (g, members) in grouped.into_iter().enumerate() {
            if !members.is_empty() {
                self.multi_tensor_adam(rt, g, members)?;
            }
        }
        for (k, buf) in buffers.into_iter().enumerate() {
            let momentum = matches!(
                self.groups[self.group_of[k]],
                Kind::Sgd { momentum, .. } if momentum != 0.0
            );
            if momentum && buf.is_some() {
                self.state[self.slot[k]].first = buf;
            }
        }
        Ok(())
    }

    /// Whether group `g` steps as PyTorch's multi-tensor Adam
    /// (`adam_foreach`): Adam or AdamW with `foreach=True`, or unset and
    /// not `fused`, every parameter on a CUDA device (PyTorch's
    /// `_default_to_fused_or_foreach`), no parameter listed twice.
    fn multi_tensor(&self, g: usize) -> bool {
        let flags = match &self.groups[g] {
            Kind::Adam { flags, .. } | Kind::AdamW { flags, .. } => flags,
            _ => return false,
        };
        let members: Vec<usize> = (0..self.params.len())
            .filter(|&k| self.group_of[k] == g)
            .collect();
        let mut slots: Vec<usize> = members.iter().map(|&k| self.slot[k]).collect();
        slots.sort_unstable();
        slots.dedup();
        if slots.len() != members.len() {
            return false;
        }
        match flags.foreach {
            Some(choice) => choice,
            None => {
                flags.fused != Some(true)
                    && members.iter().all(|&k| self.params[k].device().is_cuda())
            }
        }
    }

    /// Group `g`'s step as PyTorch's multi-tensor Adam, `members` its
    /// parameters that have a gradient.
    fn multi_tensor_adam(
        &mut self,
        rt: &mut Runtime,
        g: usize,
        members: Vec<(usize, Arc<Tensor>)>,
    ) -> R<()> {
        let (lr, betas, eps, weight_decay, decoupled, flags) = match self.groups[g] {
            Kind::Adam {
                lr,
                betas,
                eps,
                weight_decay,
                decoupled,
                flags,
            } => (lr, betas, eps, weight_decay, decoupled, flags),
            Kind::AdamW {
                lr,
                betas,
                eps,
                weight_decay,
                flags,
            } => (lr, betas, eps, weight_decay, true, flags),
            _ => {
                return Err(Error::value(
                    "internal error: a multi-tensor step of another optimizer",
                ))
            }
        };
        let settings = super::adam_foreach::Settings {
            lr,
            betas,
            eps,
            weight_decay,
            decoupled,
            amsgrad: flags.amsgrad,
            capturable: flags.capturable,
        };
        let slots: Vec<usize> = members.iter().map(|(k, _)| self.slot[*k]).collect();
        let params: Vec<Arc<Tensor>> = members
            .iter()
            .map(|(k, _)| Arc::clone(&self.params[*k]))
            .collect();
        let mut states: Vec<(usize, &mut State)> = self
            .state
            .iter_mut()
            .enumerate()
            .filter(|(s, _)| slots.contains(s))
            .collect();
        let mut entries = Vec::with_capacity(members.len());
        for ((_, grad), (slot, param)) in members.into_iter().zip(slots.iter().zip(&params)) {
            let at = states
                .iter()
                .position(|(s, _)| s == slot)
                .expect("each slot once");
            let (_, state) = states.swap_remove(at);
            entries.push(super::adam_foreach::Entry {
                param,
                grad,
                first: &mut state.first,
                second: &mut state.second,
                third: &mut state.third,
                step: &mut state.step,
            });
        }
        super::adam_foreach::step(rt, entries, settings)
    }

    /// The state's tensors on a device as PyTorch's `opt.state[p]` names them
    /// (`momentum_buffer`, `exp_avg`, `exp_avg_sq`, a capturable `step`), each with the index
    /// of its parameter (the first entry of a parameter listed twice).
    pub fn state_tensors(&self) -> Vec<(usize, &'static str, Arc<Tensor>)> {
        let mut out = Vec::new();
        for (s, state) in self.state.iter().enumerate() {
            let Some(k) = self.slot.iter().position(|&slot| slot == s) else {
                continue;
            };
            // Each slot's name, as `state_names` gives it.
            let names = self.groups[0].state_names();
            let name_of = |slot: Slot| {
                names
                    .iter()
                    .find(|(_, s)| *s == slot)
                    .map_or("", |(n, _)| *n)
            };
            for (what, t) in [
                (name_of(Slot::First), &state.first),
                (name_of(Slot::Second), &state.second),
                (name_of(Slot::Third), &state.third),
            ] {
                out.extend(t.iter().map(|t| (k, what, Arc::clone(t))));
            }
            // A capturable optimizer's step, counted on the device.
            let on_device = state.step.as_ref().filter(|t| t.device().is_cuda());
            out.extend(on_device.map(|t| (k, "step", Arc::clone(t))));
        }
        out
    }

    /// PyTorch's numbering of the parameters in `state_dict()`: each
    /// entry of `params` its number (a parameter listed twice in a group
    /// keeps its first number; a group's numbers start after the previous
    /// group's entries).
    pub fn param_ids(&self) -> Vec<usize> {
        let mut ids = Vec::with_capacity(self.params.len());
        for k in 0..self.params.len() {
            let first = (0..k).find(|&j| Arc::ptr_eq(&self.params[j], &self.params[k]));
            ids.push(first.map_or(k, |j| ids[j]));
        }
        ids
    }

    /// The entry of `params` that is `p` itself (its first, for a
    /// parameter listed twice), as PyTorch keys `opt.state` by the tensor.
    pub fn entry_of(&self, p: &Arc<Tensor>) -> Option<usize> {
        self.params.iter().position(|q| Arc::ptr_eq(q, p))
    }

    /// The entries whose parameter has state (`opt.state`'s keys), each
    /// parameter once, in the order of the parameters.
    pub fn entries_with_state(&self) -> Vec<usize> {
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for k in 0..self.params.len() {
            if seen.contains(&self.slot[k]) {
                continue;
            }
            seen.push(self.slot[k]);
            if !self.state_of(k).is_empty() {
                out.push(k);
            }
        }
        out
    }

    /// The state of entry `k`'s parameter, by PyTorch's names (empty before
    /// the parameter's first update).
    pub fn state_of(&self, k: usize) -> Vec<(&'static str, Arc<Tensor>)> {
        let state = &self.state[self.slot[k]];
        let has = state.step.is_some()
            || [&state.first, &state.second, &state.third]
                .iter()
                .any(|t| t.is_some());
        if !has {
            return Vec::new();
        }
        self.groups[self.group_of[k]]
            .state_names()
            .iter()
            .filter_map(|&(name, slot)| {
                let value = match slot {
                    Slot::Step => Arc::clone(state.step.as_ref()?),
                    Slot::First => Arc::clone(state.first.as_ref()?),
                    Slot::Second => Arc::clone(state.second.as_ref()?),
                    Slot::Third => Arc::clone(state.third.as_ref()?),
                    Slot::MuProduct => Arc::new(Tensor::scalar(state.mu_product.unwrap_or(1.0))),
                };
                Some((name, value))
            })
            .collect()
    }

    /// Sets one entry of entry `k`'s parameter's state (`load_state_dict`);
    /// `Err` for a name this optimizer keeps no state under.
    pub fn set_state_of(&mut self, k: usize, name: &str, t: Arc<Tensor>) -> Result<(), String> {
        let kind = &self.groups[self.group_of[k]];
        let Some(&(_, slot)) = kind.state_names().iter().find(|(n, _)| *n == name) else {
            return Err(format!("{} keeps no state named {name:?}", self.name()));
        };
        let state = &mut self.state[self.slot[k]];
        match slot {
            Slot::Step => state.step = Some(t),
            Slot::First => state.first = Some(t),
            Slot::Second => state.second = Some(t),
            Slot::Third => state.third = Some(t),
            Slot::MuProduct => {
                let v = t.to_vec::<f32>().first().copied();
                state.mu_product = Some(v.ok_or("mu_product is one number")?);
            }
        }
        Ok(())
    }

    /// Drops every parameter's state (before `load_state_dict` fills it).
    pub fn clear_state(&mut self) {
        self.state.iter_mut().for_each(|s| *s = State::default());
    }

    /// Bytes of state the optimizer holds (momentum buffers, Adam's moments).
    pub fn state_bytes(&self) -> usize {
        self.state
            .iter()
            .flat_map(|s| [&s.first, &s.second, &s.third])
            .flatten()
            .map(|t| t.nbytes())
            .sum()
    }
}

/// PyTorch's `_single_tensor_adamax`, `_single_tensor_radam` and
/// `_single_tensor_nadam`, op for op: the moments made at the first step,
/// the weight decay added to the gradient (or, decoupled, taken from the
/// parameter first), then each one's update.
fn adam_like(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    state: &mut State,
    kind: &Kind,
) -> R<()> {
    let Kind::AdamLike {
        variant,
        lr,
        betas: (beta1, beta2),
        eps,
        weight_decay,
        momentum_decay,
        decoupled,
        ..
    } = *kind
    else {
        return Err(Error::value("internal error: not an Adam relative"));
    };
    let m = zeros_once(rt, &mut state.first, p)?;
    let v = zeros_once(rt, &mut state.second, p)?;
    let step = counted_step(rt, &mut state.step)?;
    let mut grad = grad;
    if weight_decay != 0.0 {
        match decoupled {
            true => inplace_s(rt, BinaryOp::Mul, p, 1.0 - lr * weight_decay)?,
            false => grad = add_scaled(rt, &grad, p, weight_decay)?,
        }
    }
    lerp_(rt, &m, &grad, 1.0 - beta1)?;
    match variant {
        AdamVariant::Adamax => {
            // exp_inf = max(exp_inf * beta2, |grad| + eps)
            inplace_s(rt, BinaryOp::Mul, &v, beta2)?;
            let a = rt.unary(UnaryOp::Abs, &grad)?;
            inplace_s(rt, BinaryOp::Add, &a, eps)?;
            let top = bin(rt, BinaryOp::Maximum, &v, &a)?;
            rt.assign(&v, &top)?;
            let clr = lr / (1.0 - beta1.powf(step));
            addcdiv_(rt, p, &m, &v, -clr)
        }
        AdamVariant::RAdam => {
            inplace_s(rt, BinaryOp::Mul, &v, beta2)?;
            addcmul_(rt, &v, &grad, &grad, 1.0 - beta2)?;
            let bias1 = 1.0 - beta1.powf(step);
            let bias2 = 1.0 - beta2.powf(step);
            let corrected = bin_s(rt, BinaryOp::Div, &m, bias1)?;
            let rho_inf = 2.0 / (1.0 - beta2) - 1.0;
            let rho_t = rho_inf - 2.0 * step * beta2.powf(step) / bias2;
            let scaled = bin_s(rt, BinaryOp::Mul, &corrected, lr)?;
            let update = match rho_t > 5.0 {
                true => {
                    let root = rt.unary(UnaryOp::Sqrt, &v)?;
                    inplace_s(rt, BinaryOp::Add, &root, eps)?;
                    let adaptive = super::ops::s_bin(rt, BinaryOp::Div, bias2.sqrt(), &root)?;
                    let rect = ((rho_t - 4.0) * (rho_t - 2.0) * rho_inf
                        / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t))
                        .sqrt();
                    let u = bin(rt, BinaryOp::Mul, &scaled, &adaptive)?;
                    bin_s(rt, BinaryOp::Mul, &u, rect)?
                }
                false => scaled,
            };
            add_scaled_(rt, p, &update, -1.0)
        }
        AdamVariant::NAdam => {
            let bias2 = 1.0 - beta2.powf(step);
            let mu = beta1 * (1.0 - 0.5 * 0.96f64.powf(step * momentum_decay));
            let mu_next = beta1 * (1.0 - 0.5 * 0.96f64.powf((step + 1.0) * momentum_decay));
            // A float32 number, as PyTorch's state tensor.
            let product = state.mu_product.unwrap_or(1.0) * mu as f32;
            state.mu_product = Some(product);
            let product = product as f64;
            inplace_s(rt, BinaryOp::Mul, &v, beta2)?;
            addcmul_(rt, &v, &grad, &grad, 1.0 - beta2)?;
            let q = bin_s(rt, BinaryOp::Div, &v, bias2)?;
            let denom = rt.unary(UnaryOp::Sqrt, &q)?;
            drop(q);
            inplace_s(rt, BinaryOp::Add, &denom, eps)?;
            let product_next = product * mu_next;
            addcdiv_(rt, p, &grad, &denom, -lr * (1.0 - mu) / (1.0 - product))?;
            addcdiv_(rt, p, &m, &denom, (-lr * mu_next) / (1.0 - product_next))
        }
    }
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

fn adam(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    state: &mut State,
    how: AdamStep,
) -> R<()> {
    let AdamStep {
        lr,
        betas: (beta1, beta2),
        eps,
        weight_decay,
        amsgrad,
    } = how;
    let mut grad = grad;
    if state.first.is_none() {
        state.first = Some(full_like(rt, p, 0)?);
        state.second = Some(full_like(rt, p, 0)?);
    }
    // AMSGrad's `max_exp_avg_sq`, made with the others (or on the first
    // step after a group turned it on).
    if amsgrad && state.third.is_none() {
        state.third = Some(full_like(rt, p, 0)?);
    }
    let (m, v) = match (&state.first, &state.second) {
        (Some(m), Some(v)) => (Arc::clone(m), Arc::clone(v)),
        _ => unreachable!("both moments are made together"),
    };
    let step = counted_step(rt, &mut state.step)?;
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
    let bias1 = 1.0 - beta1.powf(step);
    let bias2 = 1.0 - beta2.powf(step);
    let step_size = lr / bias1;
    // AMSGrad: `torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)`,
    // the denominator from it.
    let v = match (amsgrad, &state.third) {
        (true, Some(max)) => {
            rt.binary_(BinaryOp::Maximum, max, Operand::strong(&v))?;
            Arc::clone(max)
        }
        _ => v,
    };
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

/// Adam's step with `capturable=True` (`adam_capturable`).
fn adam_capturable(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    state: &mut State,
    how: AdamStep,
) -> R<()> {
    let moments = super::adam_capturable::Moments {
        first: &mut state.first,
        second: &mut state.second,
        third: &mut state.third,
        step: &mut state.step,
    };
    super::adam_capturable::step(rt, p, grad, moments, how)
}

/// `x.addcdiv_(a, b, value=v)`: `x + v * a / b` (`(v * a) / b`, then the add).
fn addcdiv_(rt: &mut Runtime, x: &Tensor, a: &Tensor, b: &Tensor, v: f64) -> R<()> {
    let t = bin_s(rt, BinaryOp::Mul, a, v)?;
    rt.binary_(BinaryOp::Div, &t, Operand::strong(b))?;
    rt.binary_(BinaryOp::Add, x, Operand::strong(&t))
}

/// `step_t += 1`: on the parameter's device for a capturable group
/// (`adam_capturable::count_on_device`), else where the step is.
fn count(rt: &mut Runtime, step: &mut Option<Arc<Tensor>>, p: &Tensor, capturable: bool) -> R<()> {
    match capturable {
        true => super::adam_capturable::count_on_device(rt, step, p, true).map(drop),
        false => count_step(rt, step).map(drop),
    }
}

/// Adamax's step with `capturable=True` (`adam_capturable::adamax`).
fn adamax_capturable(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    state: &mut State,
    kind: &Kind,
) -> R<()> {
    let Kind::AdamLike {
        lr,
        betas,
        eps,
        weight_decay,
        ..
    } = *kind
    else {
        return Err(Error::value("internal error: not Adamax"));
    };
    let m = zeros_once(rt, &mut state.first, p)?;
    let v = zeros_once(rt, &mut state.second, p)?;
    let settings = super::adam_capturable::Settings {
        lr,
        betas,
        eps,
        weight_decay,
        amsgrad: false,
    };
    super::adam_capturable::adamax(rt, p, grad, (&m, &v, &mut state.step), settings)
}

/// A zero tensor beside `p`, made once.
fn zeros_once(rt: &mut Runtime, slot: &mut Option<Arc<Tensor>>, p: &Tensor) -> R<Arc<Tensor>> {
    if slot.is_none() {
        *slot = Some(full_like(rt, p, 0)?);
    }
    Ok(Arc::clone(slot.as_ref().expect("made above")))
}

/// PyTorch's `_single_tensor_rmsprop`, op for op.
fn rmsprop(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    state: &mut State,
    kind: &Kind,
) -> R<()> {
    let Kind::RmsProp {
        lr,
        alpha,
        eps,
        weight_decay,
        momentum,
        centered,
        ..
    } = *kind
    else {
        unreachable!("called for RMSprop")
    };
    let square_avg = zeros_once(rt, &mut state.second, p)?;
    count(rt, &mut state.step, p, kind.flags().capturable)?;
    let mut grad = grad;
    if weight_decay != 0.0 {
        grad = add_scaled(rt, &grad, p, weight_decay)?;
    }
    inplace_s(rt, BinaryOp::Mul, &square_avg, alpha)?;
    addcmul_(rt, &square_avg, &grad, &grad, 1.0 - alpha)?;
    let avg = match centered {
        true => {
            let grad_avg = zeros_once(rt, &mut state.third, p)?;
            lerp_(rt, &grad_avg, &grad, 1.0 - alpha)?;
            let avg = rt.copy(&square_avg)?;
            addcmul_(rt, &avg, &grad_avg, &grad_avg, -1.0)?;
            let root = rt.unary(UnaryOp::Sqrt, &avg)?;
            drop(avg);
            root
        }
        false => rt.unary(UnaryOp::Sqrt, &square_avg)?,
    };
    inplace_s(rt, BinaryOp::Add, &avg, eps)?;
    if momentum > 0.0 {
        let buf = zeros_once(rt, &mut state.first, p)?;
        inplace_s(rt, BinaryOp::Mul, &buf, momentum)?;
        addcdiv_(rt, &buf, &grad, &avg, 1.0)?;
        add_scaled_(rt, p, &buf, -lr)
    } else {
        addcdiv_(rt, p, &grad, &avg, -lr)
    }
}

/// PyTorch's `_single_tensor_adagrad`, op for op (its `sum` was made at
/// construction, `init_state`).
fn adagrad(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    state: &mut State,
    kind: &Kind,
) -> R<()> {
    let Kind::Adagrad {
        lr,
        lr_decay,
        weight_decay,
        eps,
        ..
    } = *kind
    else {
        unreachable!("called for Adagrad")
    };
    let sum = zeros_once(rt, &mut state.second, p)?;
    let step = counted_step(rt, &mut state.step)?;
    let mut grad = grad;
    if weight_decay != 0.0 {
        grad = add_scaled(rt, &grad, p, weight_decay)?;
    }
    let clr = lr / (1.0 + (step - 1.0) * lr_decay);
    addcmul_(rt, &sum, &grad, &grad, 1.0)?;
    let std = rt.unary(UnaryOp::Sqrt, &sum)?;
    inplace_s(rt, BinaryOp::Add, &std, eps)?;
    addcdiv_(rt, p, &grad, &std, -clr)
}

/// PyTorch's `_single_tensor_adadelta`, op for op.
fn adadelta(
    rt: &mut Runtime,
    p: &Tensor,
    grad: Arc<Tensor>,
    state: &mut State,
    kind: &Kind,
) -> R<()> {
    let Kind::Adadelta {
        lr,
        rho,
        eps,
        weight_decay,
        ..
    } = *kind
    else {
        unreachable!("called for Adadelta")
    };
    let square_avg = zeros_once(rt, &mut state.second, p)?;
    let acc_delta = zeros_once(rt, &mut state.third, p)?;
    count(rt, &mut state.step, p, kind.flags().capturable)?;
    let mut grad = grad;
    if weight_decay != 0.0 {
        grad = add_scaled(rt, &grad, p, weight_decay)?;
    }
    inplace_s(rt, BinaryOp::Mul, &square_avg, rho)?;
    addcmul_(rt, &square_avg, &grad, &grad, 1.0 - rho)?;
    let std = bin_s(rt, BinaryOp::Add, &square_avg, eps)?;
    let std = rt.unary(UnaryOp::Sqrt, &std)?;
    let delta = bin_s(rt, BinaryOp::Add, &acc_delta, eps)?;
    let delta = rt.unary(UnaryOp::Sqrt, &delta)?;
    rt.binary_(BinaryOp::Div, &delta, Operand::strong(&std))?;
    drop(std);
    rt.binary_(BinaryOp::Mul, &delta, Operand::strong(&grad))?;
    inplace_s(rt, BinaryOp::Mul, &acc_delta, rho)?;
    addcmul_(rt, &acc_delta, &delta, &delta, 1.0 - rho)?;
    add_scaled_(rt, p, &delta, -lr)
}

impl Kind {
    /// PyTorch's name of the optimizer (`SGD`, `AdamW`).
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Sgd { .. } => "SGD",
            Kind::Adam { .. } => "Adam",
            Kind::AdamW { .. } => "AdamW",
            Kind::RmsProp { .. } => "RMSprop",
            Kind::Adagrad { .. } => "Adagrad",
            Kind::Adadelta { .. } => "Adadelta",
            Kind::AdamLike { variant, .. } => match variant {
                AdamVariant::Adamax => "Adamax",
                AdamVariant::RAdam => "RAdam",
                AdamVariant::NAdam => "NAdam",
            },
        }
    }
}
