//! Learning-rate schedules and an optimizer's parameter groups from the
//! language: `StepLR(opt, step_size=1, gamma=0.7)` and its kin,
//! `scheduler.step()`, `opt.param_groups[0]["lr"]` read and set, and the
//! gradient clipping of `torch.nn.utils` (`clip_grad_norm_`,
//! `clip_grad_value_`). The schedules' arithmetic is
//! `autograd::schedule`'s; LambdaLR's factor is the program's function.

use std::sync::{Arc, Mutex};

use super::args::{ArgVal, Bound};
use super::value::LrScheduler;
use super::{Interp, Value};
use crate::autograd::optim::Optimizer;
use crate::autograd::schedule::{Plateau, Schedule, Scheduler};
use crate::error::{Diagnostic, Error};
use crate::lang::Span;
use crate::runtime::lock::lock;

type Out = Result<Value, Diagnostic>;

/// PyTorch's warning when a schedule steps before its optimizer ever did.
const STEP_ORDER: &str =
    "UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. \
    In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` \
    before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first \
    value of the learning rate schedule. See more details at \
    https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate";

fn optimizer_arg(b: &Bound) -> Result<Arc<Mutex<Optimizer>>, Diagnostic> {
    match b.get("optimizer") {
        Some((Value::Optimizer(o), _)) => Ok(Arc::clone(o)),
        // LBFGS, or a class of the program's derived from torch.optim.Optimizer.
        Some((Value::Object(o), span))
            if o.class.is_optimizer_base() || o.class.mro.iter().any(|c| c.is_optimizer_base()) =>
        {
            Err(Error::value_help(
                format!(
                    "this scheduler of cudash's drives its built-in optimizers, not {}",
                    o.class.name
                ),
                "StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR, \
                 MultiplicativeLR, LinearLR and ConstantLR drive an optimizer of yours; else set \
                 the rate yourself each epoch: `for g in opt.param_groups: g[\"lr\"] = ...`",
            )
            .at(*span))
        }
        Some((v, span)) => Err(Error::wrong_type(
            "the optimizer",
            "an optimizer (`SGD(...)`, `Adam(...)`)",
            v.type_name(),
        )
        .at(*span)),
        None => Err(Error::value("a scheduler needs its optimizer").at(b.span)),
    }
}

/// The schedulers `stdlib/torch_optim_lr_program.py` writes for an
/// optimizer of the program's, and the arguments they take.
const FOR_PROGRAM_OPTIMIZERS: &[&str] = &[
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
    "LambdaLR",
    "MultiplicativeLR",
    "LinearLR",
    "ConstantLR",
];
const SCHEDULER_ARGS: &[&str] = &[
    "optimizer",
    "step_size",
    "milestones",
    "gamma",
    "T_max",
    "eta_min",
    "lr_lambda",
    "start_factor",
    "end_factor",
    "total_iters",
    "factor",
];

/// A scheduler of `name` for a program's optimizer (a torch.optim.Optimizer
/// subclass): the Python one, which sets its groups' `"lr"` as PyTorch's.
fn for_program_optimizer(me: &mut Interp, name: &'static str, b: &Bound) -> Option<Out> {
    let Some((Value::Object(o), _)) = b.get("optimizer") else {
        return None;
    };
    let program = o.class.is_optimizer_base() || o.class.mro.iter().any(|c| c.is_optimizer_base());
    if !program || !FOR_PROGRAM_OPTIMIZERS.contains(&name) {
        return None;
    }
    let args = SCHEDULER_ARGS
        .iter()
        .filter_map(|key| {
            b.given(key).map(|(v, span)| ArgVal {
                keyword: Some(crate::lang::ast::Name::new((*key).into(), *span)),
                value: v.clone(),
                span: *span,
            })
        })
        .collect();
    Some(me.call_stdlib_args("torch.optim._lr_program", name, args, b.span))
}

/// `StepLR`, `MultiStepLR`, `ExponentialLR`, `CosineAnnealingLR`,
/// `LambdaLR`: made, each takes its first step (epoch 0) at once.
pub(super) fn scheduler(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    if let Some(made) = for_program_optimizer(me, name, b) {
        return made;
    }
    let optimizer = optimizer_arg(b)?;
    let gamma = b.float("gamma")?;
    let mut lambda = None;
    let mut cyclic_bases = None;
    let schedule = match name {
        "StepLR" => {
            let step_size = b.int("step_size")?.unwrap_or(1);
            if step_size <= 0 {
                return Err(
                    Error::value(format!("step_size must be positive, not {step_size}"))
                        .at(b.span_of("step_size")),
                );
            }
            Schedule::StepLR {
                step_size,
                gamma: gamma.unwrap_or(0.1),
            }
        }
        "MultiStepLR" => {
            let (v, span) = b
                .get("milestones")
                .cloned()
                .ok_or_else(|| Error::value("MultiStepLR needs `milestones`").at(b.span))?;
            let mut milestones = Vec::new();
            for (v, span) in super::args::flatten(&v, span)? {
                match v.as_number() {
                    Some(x) if x.fract() == 0.0 && !matches!(v, Value::Bool(_)) => {
                        milestones.push(x as i64)
                    }
                    _ => {
                        return Err(
                            Error::wrong_type("a milestone", "an int", v.type_name()).at(span)
                        )
                    }
                }
            }
            Schedule::MultiStepLR {
                milestones,
                gamma: gamma.unwrap_or(0.1),
            }
        }
        "ExponentialLR" => Schedule::ExponentialLR {
            gamma: gamma.ok_or_else(|| Error::value("ExponentialLR needs `gamma`").at(b.span))?,
        },
        "CosineAnnealingLR" => {
            let t_max = b
                .int("T_max")?
                .ok_or_else(|| Error::value("CosineAnnealingLR needs `T_max`").at(b.span))?;
            if t_max <= 0 {
                return Err(Error::value(format!("T_max must be positive, not {t_max}"))
                    .at(b.span_of("T_max")));
            }
            Schedule::CosineAnnealingLR {
                t_max,
                eta_min: b.float("eta_min")?.unwrap_or(0.0),
            }
        }
        "OneCycleLR" => one_cycle(b, &optimizer)?,
        "CyclicLR" => {
            let (schedule, bases) = cyclic(b, &optimizer)?;
            cyclic_bases = Some(bases);
            schedule
        }
        "ConstantLR" => {
            let factor = b.float("factor")?.unwrap_or(1.0 / 3.0);
            if !(0.0..=1.0).contains(&factor) {
                return Err(Error::value(
                    "Constant multiplicative factor expected to be between 0 and 1.",
                )
                .at(b.span_of("factor")));
            }
            Schedule::ConstantLR {
                factor,
                total_iters: b.int("total_iters")?.unwrap_or(5),
            }
        }
        "LinearLR" => {
            let start = b.float("start_factor")?.unwrap_or(1.0 / 3.0);
            let end = b.float("end_factor")?.unwrap_or(1.0);
            if start > 1.0 || start <= 0.0 {
                return Err(Error::value(
                    "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.",
                )
                .at(b.span_of("start_factor")));
            }
            if !(0.0..=1.0).contains(&end) {
                return Err(Error::value(
                    "Ending multiplicative factor expected to be between 0 and 1.",
                )
                .at(b.span_of("end_factor")));
            }
            Schedule::LinearLR {
                start,
                end,
                total_iters: b.int("total_iters")?.unwrap_or(5),
            }
        }
        "PolynomialLR" => Schedule::PolynomialLR {
            total_iters: b.int("total_iters")?.unwrap_or(5),
            power: b.float("power")?.unwrap_or(1.0),
        },
        "CosineAnnealingWarmRestarts" => {
            let t_0 = b.int("T_0")?.unwrap_or(0);
            if t_0 <= 0 {
                return Err(
                    Error::value(format!("Expected positive integer T_0, but got {t_0}"))
                        .at(b.span_of("T_0")),
                );
            }
            let t_mult = b.int("T_mult")?.unwrap_or(1);
            if t_mult < 1 {
                return Err(Error::value(format!(
                    "Expected integer T_mult >= 1, but got {t_mult}"
                ))
                .at(b.span_of("T_mult")));
            }
            Schedule::CosineAnnealingWarmRestarts {
                t_0,
                t_mult,
                eta_min: b.float("eta_min")?.unwrap_or(0.0),
                t_i: t_0,
                t_cur: 0.0,
            }
        }
        "MultiplicativeLR" => {
            let (f, _) = b
                .get("lr_lambda")
                .cloned()
                .ok_or_else(|| Error::value("MultiplicativeLR needs `lr_lambda`").at(b.span))?;
            lambda = Some(f);
            Schedule::MultiplicativeLR
        }
        _ => {
            let (f, _) = b
                .get("lr_lambda")
                .cloned()
                .ok_or_else(|| Error::value("LambdaLR needs `lr_lambda`").at(b.span))?;
            lambda = Some(f);
            Schedule::LambdaLR
        }
    };
    let base_lrs = lock(&optimizer).initial_lrs();
    let mut scheduler = Scheduler::new(schedule, base_lrs);
    if let Some(bases) = cyclic_bases {
        // CyclicLR cycles from the `base_lr` given, whatever `initial_lr` says.
        scheduler.base_lrs = bases;
    }
    let s = Arc::new(LrScheduler {
        scheduler: Mutex::new(scheduler),
        optimizer,
        lambda,
        parts: Vec::new(),
        milestones: Vec::new(),
    });
    me.schedule_step(&s, b.span)?;
    Ok(Value::Scheduler(s))
}

/// `OneCycleLR(optimizer, max_lr, total_steps=none, epochs=none,
/// steps_per_epoch=none, pct_start=0.3, anneal_strategy="cos",
/// cycle_momentum=true, base_momentum=0.85, max_momentum=0.95,
/// div_factor=25.0, final_div_factor=1e4, three_phase=false)`, with
/// PyTorch's checks and messages.
fn one_cycle(b: &Bound, optimizer: &Arc<Mutex<Optimizer>>) -> Result<Schedule, Diagnostic> {
    use crate::autograd::schedule::OneCycle;
    let groups = lock(optimizer).groups.len();
    let (v, span) = b
        .get("max_lr")
        .cloned()
        .ok_or_else(|| Error::value("OneCycleLR needs `max_lr`").at(b.span))?;
    let max_lrs: Vec<f64> = match v.as_number() {
        Some(x) => vec![x; groups],
        None => {
            let items = super::args::flatten(&v, span)?;
            let lrs: Vec<f64> = items.iter().filter_map(|(x, _)| x.as_number()).collect();
            if lrs.len() != groups || items.len() != groups {
                return Err(Error::value(format!(
                    "expected {groups} values for max_lr, got {}",
                    items.len()
                ))
                .at(span));
            }
            lrs
        }
    };
    let total_steps = match (
        b.int("total_steps")?,
        b.int("epochs")?,
        b.int("steps_per_epoch")?,
    ) {
        (Some(t), _, _) => {
            if t <= 0 {
                return Err(Error::value(format!(
                    "Expected positive integer total_steps, but got {t}"
                ))
                .at(b.span_of("total_steps")));
            }
            t
        }
        (None, Some(e), Some(s)) => {
            if e <= 0 || s <= 0 {
                return Err(Error::value(format!(
                    "Expected positive integer epochs and steps_per_epoch, but got {e} and {s}"
                ))
                .at(b.span));
            }
            e * s
        }
        _ => {
            return Err(Error::value(
                "You must define either total_steps OR (epochs AND steps_per_epoch)",
            )
            .at(b.span))
        }
    };
    let pct_start = b.float("pct_start")?.unwrap_or(0.3);
    if !(0.0..=1.0).contains(&pct_start) {
        return Err(Error::value(format!(
            "Expected float between 0 and 1 pct_start, but got {pct_start}"
        ))
        .at(b.span_of("pct_start")));
    }
    let cos = match b.str("anneal_strategy")?.as_deref().unwrap_or("cos") {
        "cos" => true,
        "linear" => false,
        other => {
            return Err(Error::value(format!(
                "anneal_strategy must be one of 'cos' or 'linear', instead got {other}"
            ))
            .at(b.span_of("anneal_strategy")))
        }
    };
    let momentum = match b.bool("cycle_momentum", true)? {
        false => None,
        true => {
            let base = b.float("base_momentum")?.unwrap_or(0.85);
            let top = b.float("max_momentum")?.unwrap_or(0.95);
            let mut o = lock(optimizer);
            for g in o.groups.iter_mut() {
                if !g.set_momentum(top) {
                    return Err(Error::value(
                        "optimizer must support momentum or beta1 with `cycle_momentum` option enabled",
                    )
                    .at(b.span));
                }
            }
            Some((base, top))
        }
    };
    Ok(Schedule::OneCycleLR(OneCycle {
        total_steps,
        max_lrs,
        div_factor: b.float("div_factor")?.unwrap_or(25.0),
        final_div_factor: b.float("final_div_factor")?.unwrap_or(1e4),
        pct_start,
        three_phase: b.bool("three_phase", false)?,
        cos,
        momentum,
    }))
}

/// A setting given once for every group or as a list of one per group
/// (PyTorch's `_format_param`).
fn per_group(
    b: &Bound,
    name: &str,
    default: Option<f64>,
    groups: usize,
) -> Result<Vec<f64>, Diagnostic> {
    let Some((v, span)) = b.given(name).cloned() else {
        return match default {
            Some(d) => Ok(vec![d; groups]),
            None => Err(Error::value(format!("CyclicLR needs `{name}`")).at(b.span)),
        };
    };
    if let Some(x) = v.as_number() {
        return Ok(vec![x; groups]);
    }
    let items = super::args::flatten(&v, span)?;
    let values: Vec<f64> = items.iter().filter_map(|(x, _)| x.as_number()).collect();
    if values.len() != groups || items.len() != groups {
        return Err(Error::value(format!(
            "expected {groups} values for {name}, got {}",
            items.len()
        ))
        .at(span));
    }
    Ok(values)
}

/// `CyclicLR(optimizer, base_lr, max_lr, step_size_up=2000,
/// step_size_down=none, mode="triangular", gamma=1.0, scale_fn=none,
/// scale_mode="cycle", cycle_momentum=true, base_momentum=0.8,
/// max_momentum=0.9)`: as PyTorch's, it sets each group's rate to
/// `base_lr` and (with `cycle_momentum`) its momentum to `max_momentum`;
/// the schedule, and the base rates it cycles from.
fn cyclic(
    b: &Bound,
    optimizer: &Arc<Mutex<Optimizer>>,
) -> Result<(Schedule, Vec<f64>), Diagnostic> {
    use crate::autograd::schedule::{Cyclic, CyclicMode};
    let groups = lock(optimizer).groups.len();
    let bases = per_group(b, "base_lr", None, groups)?;
    let max_lrs = per_group(b, "max_lr", None, groups)?;
    let up = b.float("step_size_up")?.unwrap_or(2000.0);
    let down = b.float("step_size_down")?.unwrap_or(up);
    if b.given("scale_fn")
        .is_some_and(|(v, _)| !matches!(v, Value::None))
    {
        return Err(Error::value_help(
            "CyclicLR's scale_fn is not in cudash",
            "use `mode=\"triangular2\"` or `mode=\"exp_range\"` with `gamma`",
        )
        .at(b.span_of("scale_fn")));
    }
    let mode = match b.str("mode")?.as_deref().unwrap_or("triangular") {
        "triangular" => CyclicMode::Triangular,
        "triangular2" => CyclicMode::Triangular2,
        "exp_range" => CyclicMode::ExpRange {
            gamma: b.float("gamma")?.unwrap_or(1.0),
        },
        _ => return Err(Error::value("mode is invalid and scale_fn is None").at(b.span_of("mode"))),
    };
    let momentum = match b.bool("cycle_momentum", true)? {
        false => None,
        true => {
            let low = per_group(b, "base_momentum", Some(0.8), groups)?;
            let high = per_group(b, "max_momentum", Some(0.9), groups)?;
            let mut o = lock(optimizer);
            for (g, &m) in o.groups.iter_mut().zip(&high) {
                if !g.set_momentum(m) {
                    return Err(Error::value(
                        "optimizer must support momentum or beta1 with `cycle_momentum` option enabled",
                    )
                    .at(b.span));
                }
            }
            Some(low.into_iter().zip(high).collect())
        }
    };
    let mut o = lock(optimizer);
    for (g, &lr) in o.groups.iter_mut().zip(&bases) {
        g.set_lr(lr);
    }
    let total_size = up + down;
    let schedule = Schedule::CyclicLR(Cyclic {
        max_lrs,
        total_size,
        step_ratio: up / total_size,
        mode,
        momentum,
    });
    Ok((schedule, bases))
}

impl Interp {
    /// Each group's `lr_lambda(epoch)` of a LambdaLR or MultiplicativeLR
    /// (none for the other schedules).
    fn lambda_factors(
        &mut self,
        s: &LrScheduler,
        epoch: i64,
        span: Span,
    ) -> Result<Option<Vec<f64>>, Diagnostic> {
        let Some(f) = &s.lambda else {
            return Ok(None);
        };
        let groups = lock(&s.optimizer).groups.len();
        // One function for every group, or a list of one per group.
        let fs = match f {
            Value::List(fs) => fs.to_vec(),
            f => vec![f.clone(); groups],
        };
        if fs.len() != groups {
            return Err(Error::value(format!(
                "Expected {groups} lr_lambdas, but got {}",
                fs.len()
            ))
            .at(span));
        }
        let mut factors = Vec::with_capacity(groups);
        for f in fs {
            let arg = ArgVal {
                keyword: None,
                value: Value::Int(epoch),
                span,
            };
            let v = self.call_value(f, vec![arg], span)?;
            factors.push(v.as_number().ok_or_else(|| {
                Error::wrong_type("what lr_lambda gave", "a number", v.type_name()).at(span)
            })?);
        }
        Ok(Some(factors))
    }

    /// One step of `s`: the next epoch's learning rate set on its optimizer.
    fn schedule_step(&mut self, s: &LrScheduler, span: Span) -> Result<(), Diagnostic> {
        if !s.parts.is_empty() {
            return self.combined_step(s, span);
        }
        if let Some(message) = lock(&s.scheduler).past_the_end() {
            return Err(Error::value(message).at(span));
        }
        // MultiplicativeLR's first step keeps the rate without asking.
        let (epoch, asks) = {
            let sch = lock(&s.scheduler);
            let first = sch.step_count == 0;
            let multiplicative = matches!(sch.schedule, Schedule::MultiplicativeLR);
            (sch.next_epoch(), !(first && multiplicative))
        };
        let factors = match asks {
            true => self.lambda_factors(s, epoch, span)?,
            false => None,
        };
        let current: Vec<f64> = lock(&s.optimizer).groups.iter().map(|g| g.lr()).collect();
        let lrs = lock(&s.scheduler).step(&current, factors.as_deref());
        let momenta = lock(&s.scheduler).momenta(lrs.len());
        let mut o = lock(&s.optimizer);
        for (g, lr) in o.groups.iter_mut().zip(lrs) {
            g.set_lr(lr);
        }
        for (g, m) in o.groups.iter_mut().zip(momenta.unwrap_or_default()) {
            g.set_momentum(m);
        }
        Ok(())
    }

    /// A step of a SequentialLR (its scheduler for this epoch steps, or
    /// restarts at epoch 0 on a milestone) or a ChainedScheduler (each of
    /// its schedulers steps), as PyTorch's.
    fn combined_step(&mut self, s: &LrScheduler, span: Span) -> Result<(), Diagnostic> {
        let sequential = matches!(
            lock(&s.scheduler).schedule,
            Schedule::Combined { sequential: true }
        );
        let epoch = {
            let mut sch = lock(&s.scheduler);
            sch.last_epoch += 1;
            sch.step_count += 1;
            sch.last_epoch
        };
        let last = match sequential {
            true => {
                let idx = s.milestones.iter().filter(|&&m| m <= epoch).count();
                let part = &s.parts[idx];
                match idx > 0 && s.milestones[idx - 1] == epoch {
                    true => self.restart(part, span)?,
                    false => self.schedule_step(part, span)?,
                }
                lock(&part.scheduler).last_lrs.clone()
            }
            false => {
                for part in &s.parts {
                    self.schedule_step(part, span)?;
                }
                lock(&s.optimizer).groups.iter().map(|g| g.lr()).collect()
            }
        };
        lock(&s.scheduler).last_lrs = last;
        Ok(())
    }

    /// `_update_lr(0)` of `s`: its epoch back to 0 and its rate there.
    fn restart(&mut self, s: &LrScheduler, span: Span) -> Result<(), Diagnostic> {
        let factors = self.lambda_factors(s, 0, span)?;
        let current: Vec<f64> = lock(&s.optimizer).groups.iter().map(|g| g.lr()).collect();
        let lrs = lock(&s.scheduler).restart(&current, factors.as_deref());
        let mut o = lock(&s.optimizer);
        for (g, lr) in o.groups.iter_mut().zip(lrs) {
            g.set_lr(lr);
        }
        Ok(())
    }
}

/// `SequentialLR(optimizer, schedulers, milestones)`: each scheduler in
/// turn, the next from its milestone on (PyTorch's construction: the rates
/// back to their initial values, the schedulers' first steps undone, the
/// first one's taken again); `ChainedScheduler(schedulers, optimizer=None)`:
/// every scheduler steps at each step.
pub(super) fn combined(me: &mut Interp, name: &'static str, b: &Bound) -> Out {
    let sequential = name == "SequentialLR";
    let (v, span) = b
        .get("schedulers")
        .cloned()
        .ok_or_else(|| Error::value(format!("{name} needs `schedulers`")).at(b.span))?;
    let mut parts = Vec::new();
    for (item, s) in super::args::flatten(&v, span)? {
        match item {
            Value::Scheduler(p) => {
                if matches!(lock(&p.scheduler).schedule, Schedule::ReduceLROnPlateau(_)) {
                    return Err(Error::value(format!(
                        "{name} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be specified when calling `step`, but got one at index {} in the given schedulers sequence.",
                        parts.len()
                    ))
                    .at(s));
                }
                parts.push(p)
            }
            other => {
                return Err(Error::wrong_type(
                    "a scheduler",
                    "a learning-rate scheduler",
                    other.type_name(),
                )
                .at(s))
            }
        }
    }
    if parts.is_empty() {
        let what = match sequential {
            true => "expects at least one scheduler, but got no scheduler.",
            false => "expects at least one scheduler to be chained, but got no scheduler.",
        };
        return Err(Error::value(format!("{name} {what}")).at(span));
    }
    let optimizer = match b.given("optimizer") {
        None | Some((Value::None, _)) => Arc::clone(&parts[0].optimizer),
        Some(_) => optimizer_arg(b)?,
    };
    for (k, p) in parts.iter().enumerate() {
        if !Arc::ptr_eq(&p.optimizer, &optimizer) {
            return Err(Error::value(format!(
                "{name} expects all schedulers to belong to the same optimizer, but got scheduler {} at index {k} has another optimizer",
                lock(&p.scheduler).name()
            ))
            .at(span));
        }
    }
    let milestones: Vec<i64> = match sequential {
        false => Vec::new(),
        true => {
            let (mv, mspan) = b
                .get("milestones")
                .cloned()
                .ok_or_else(|| Error::value("SequentialLR needs `milestones`").at(b.span))?;
            let ms: Vec<i64> = super::args::flatten(&mv, mspan)?
                .iter()
                .filter_map(|(x, _)| x.as_number().map(|n| n as i64))
                .collect();
            if ms.len() + 1 != parts.len() {
                return Err(Error::value(format!(
                    "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone points, but got number of schedulers {} and the number of milestones to be equal to {}",
                    parts.len(),
                    ms.len()
                ))
                .at(mspan));
            }
            ms
        }
    };
    let base_lrs: Vec<f64> = lock(&parts[0].scheduler).base_lrs.clone();
    let mut scheduler = Scheduler::new(Schedule::Combined { sequential }, base_lrs.clone());
    if sequential {
        // The rates back to their initial values, every part's epoch one
        // back, and the first part's first step again.
        {
            let mut o = lock(&optimizer);
            for (g, lr) in o.groups.iter_mut().zip(&base_lrs) {
                g.set_lr(*lr);
            }
        }
        for p in &parts {
            undo(p);
        }
        lock(&parts[0].scheduler).step_count = 0;
        me.schedule_step(&parts[0], b.span)?;
        scheduler.last_epoch = 0;
        scheduler.step_count = 1;
        scheduler.last_lrs = lock(&parts[0].scheduler).last_lrs.clone();
    } else {
        scheduler.last_epoch = 0;
        scheduler.last_lrs = lock(&optimizer).groups.iter().map(|g| g.lr()).collect();
    }
    Ok(Value::Scheduler(Arc::new(LrScheduler {
        scheduler: Mutex::new(scheduler),
        optimizer,
        lambda: None,
        parts,
        milestones,
    })))
}

/// PyTorch's `recursive_undo`: each scheduler's epoch one back (a
/// combined one's parts').
fn undo(s: &LrScheduler) {
    match s.parts.is_empty() {
        true => lock(&s.scheduler).last_epoch -= 1,
        false => s.parts.iter().for_each(|p| undo(p)),
    }
}

/// `scheduler.step()`; `scheduler.step(metric)` of a ReduceLROnPlateau.
pub(super) fn step(me: &mut Interp, _: &'static str, s: &Arc<LrScheduler>, b: &Bound) -> Out {
    let plateau = matches!(lock(&s.scheduler).schedule, Schedule::ReduceLROnPlateau(_));
    if plateau {
        return plateau_step(me, s, b);
    }
    if let Some((_, span)) = b.given("metrics") {
        return Err(Error::value_help(
            format!("{}.step() takes no metric", lock(&s.scheduler).name()),
            "only ReduceLROnPlateau steps by a metric (`scheduler.step(val_loss)`)",
        )
        .at(*span));
    }
    let first = lock(&s.scheduler).step_count == 1;
    if first && lock(&s.optimizer).steps_taken == 0 {
        me.warn_once(STEP_ORDER.into());
    }
    me.schedule_step(s, b.span)?;
    Ok(Value::None)
}

/// `ReduceLROnPlateau.step(metrics)`: the metric (a number, or a
/// one-element tensor read by the host, as PyTorch's `float(metrics)`)
/// compared with the best so far; the rates cut after `patience` steps
/// without improvement.
fn plateau_step(me: &mut Interp, s: &Arc<LrScheduler>, b: &Bound) -> Out {
    let (v, span) = b.given("metrics").cloned().ok_or_else(|| {
        Error::Call {
            message: "ReduceLROnPlateau.step() missing 1 required positional argument: 'metrics'"
                .into(),
            signature: "scheduler.step(metrics)".into(),
        }
        .at(b.span)
    })?;
    let v = match v {
        Value::Tensor(_) => {
            let item = crate::lang::ast::Name::new("item".into(), span);
            me.call_method(v, &item, vec![], span)?
        }
        v => v,
    };
    let metric = v
        .as_number()
        .ok_or_else(|| Error::wrong_type("the metric", "a number", v.type_name()).at(span))?;
    let current: Vec<f64> = lock(&s.optimizer).groups.iter().map(|g| g.lr()).collect();
    let lrs = {
        let mut sch = lock(&s.scheduler);
        sch.last_epoch += 1;
        sch.step_count += 1;
        let Schedule::ReduceLROnPlateau(p) = &mut sch.schedule else {
            unreachable!("a plateau scheduler")
        };
        let lrs = p.step(metric, &current);
        sch.last_lrs = lrs.clone();
        lrs
    };
    let mut o = lock(&s.optimizer);
    for (g, lr) in o.groups.iter_mut().zip(lrs) {
        g.set_lr(lr);
    }
    Ok(Value::None)
}

/// `ReduceLROnPlateau(optimizer, mode="min", factor=0.1, patience=10,
/// threshold=1e-4, threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8)`:
/// made without a first step (PyTorch's `last_epoch` starts at 0).
pub(super) fn plateau(_: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let optimizer = optimizer_arg(b)?;
    let factor = b.float("factor")?.unwrap_or(0.1);
    if factor >= 1.0 {
        return Err(Error::value("Factor should be < 1.0.").at(b.span_of("factor")));
    }
    let max = match b.str("mode")?.as_deref().unwrap_or("min") {
        "min" => false,
        "max" => true,
        other => {
            return Err(Error::value(format!("mode {other} is unknown!")).at(b.span_of("mode")))
        }
    };
    let absolute = match b.str("threshold_mode")?.as_deref().unwrap_or("rel") {
        "rel" => false,
        "abs" => true,
        other => {
            return Err(Error::value(format!("threshold mode {other} is unknown!"))
                .at(b.span_of("threshold_mode")))
        }
    };
    let groups = lock(&optimizer).groups.len();
    let min_lrs = match b.given("min_lr") {
        None => vec![0.0; groups],
        Some((v, span)) => match v.as_number() {
            Some(x) => vec![x; groups],
            None => {
                let items = v.items().ok_or_else(|| {
                    Error::wrong_type("min_lr", "a number or a list of them", v.type_name())
                        .at(*span)
                })?;
                if items.len() != groups {
                    return Err(Error::value(format!(
                        "expected {groups} min_lrs, got {}",
                        items.len()
                    ))
                    .at(*span));
                }
                items.iter().map(|x| x.as_number().unwrap_or(0.0)).collect()
            }
        },
    };
    let plateau = Plateau {
        max,
        factor,
        patience: b.int("patience")?.unwrap_or(10),
        threshold: b.float("threshold")?.unwrap_or(1e-4),
        absolute,
        cooldown: b.int("cooldown")?.unwrap_or(0),
        min_lrs,
        eps: b.float("eps")?.unwrap_or(1e-8),
        best: if max {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        },
        num_bad_epochs: 0,
        cooldown_counter: 0,
    };
    let base_lrs = lock(&optimizer).initial_lrs();
    let mut scheduler = Scheduler::new(Schedule::ReduceLROnPlateau(plateau), base_lrs);
    scheduler.last_epoch = 0;
    let s = Arc::new(LrScheduler {
        scheduler: Mutex::new(scheduler),
        optimizer,
        lambda: None,
        parts: Vec::new(),
        milestones: Vec::new(),
    });
    Ok(Value::Scheduler(s))
}

/// `scheduler.get_last_lr()`: one learning rate per parameter group.
pub(super) fn get_last_lr(_: &mut Interp, _: &'static str, s: &Arc<LrScheduler>, _: &Bound) -> Out {
    let lrs = lock(&s.scheduler).last_lrs.clone();
    Ok(Value::list(lrs.into_iter().map(Value::float).collect()))
}

/// ReduceLROnPlateau's `best` (none for the other schedulers).
pub(super) fn plateau_best(s: &Arc<LrScheduler>) -> Value {
    match &lock(&s.scheduler).schedule {
        Schedule::ReduceLROnPlateau(p) => Value::float(p.best),
        _ => Value::None,
    }
}

/// ReduceLROnPlateau's `num_bad_epochs` (none for the other schedulers).
pub(super) fn plateau_bad_epochs(s: &Arc<LrScheduler>) -> Value {
    match &lock(&s.scheduler).schedule {
        Schedule::ReduceLROnPlateau(p) => Value::Int(p.num_bad_epochs),
        _ => Value::None,
    }
}

/// `scheduler.last_epoch`.
pub(super) fn last_epoch(s: &Arc<LrScheduler>) -> Value {
    Value::Int(lock(&s.scheduler).last_epoch)
}

/// `opt.param_groups`: one value per group.
pub(super) fn param_groups(o: &Arc<Mutex<Optimizer>>) -> Value {
    let n = lock(o).groups.len();
    Value::list(
        (0..n)
            .map(|g| Value::ParamGroup(Arc::new((Arc::clone(o), g))))
            .collect(),
    )
}

/// `clip_grad_norm_(parameters, max_norm, norm_type=2.0)`, as
/// `torch.nn.utils.clip_grad_norm_`: the norm of every gradient's norm,
/// each gradient scaled in place by `max_norm / (total + 1e-6)` clamped to
/// 1; the total norm back (a tensor).
pub(super) fn clip_grad_norm_(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    use crate::runtime::op::binary::{BinaryOp, Operand};
    use crate::runtime::Tensor;
    let at = |e: Error| e.at(b.span);
    let max_norm = b
        .float("max_norm")?
        .ok_or_else(|| Error::value("clip_grad_norm_ needs `max_norm`").at(b.span))?;
    let p = b.float("norm_type")?.unwrap_or(2.0);
    let grads = gradients(b)?;
    if grads.is_empty() {
        return Ok(Value::tensor(Tensor::scalar(0.0f32)));
    }
    let mut norms = Vec::with_capacity(grads.len());
    for g in &grads {
        norms.push(norm(me, g, p).map_err(at)?);
    }
    let refs: Vec<&Tensor> = norms.iter().map(|t| &**t).collect();
    let stacked = me.rt.join(&refs, 0, true).map_err(at)?;
    let total = norm(me, &stacked, p).map_err(at)?;
    let denom = crate::autograd::ops::bin_s(&mut me.rt, BinaryOp::Add, &total, 1e-6).map_err(at)?;
    let coef =
        crate::autograd::ops::s_bin(&mut me.rt, BinaryOp::Div, max_norm, &denom).map_err(at)?;
    let one = Tensor::scalar(1.0f32);
    let coef = me
        .rt
        .binary(
            BinaryOp::Minimum,
            Operand::strong(&coef),
            Operand::weak(&one),
        )
        .map_err(at)?;
    for g in &grads {
        let c = match coef.device() == g.device() {
            true => Arc::clone(&coef),
            false => me.rt.copy_to(&coef, g.device()).map_err(at)?,
        };
        me.rt
            .binary_(BinaryOp::Mul, g, Operand::strong(&c))
            .map_err(at)?;
    }
    Ok(Value::Tensor(total))
}

/// `clip_grad_value_(parameters, clip_value)`: each gradient clamped in
/// place to `[-clip_value, clip_value]`.
pub(super) fn clip_grad_value_(me: &mut Interp, _: &'static str, b: &Bound) -> Out {
    let v = b
        .float("clip_value")?
        .ok_or_else(|| Error::value("clip_grad_value_ needs `clip_value`").at(b.span))?;
    use crate::runtime::op::binary::{BinaryOp, Operand};
    for g in gradients(b)? {
        for (op, bound) in [(BinaryOp::Maximum, -v), (BinaryOp::Minimum, v)] {
            let bound = crate::runtime::Tensor::scalar(bound);
            me.rt
                .binary_(op, &g, Operand::weak(&bound))
                .map_err(|e| e.at(b.span))?;
        }
    }
    Ok(Value::None)
}

/// The `.grad`s of `parameters` (a tensor or a list of them) that exist.
fn gradients(b: &Bound) -> Result<Vec<Arc<crate::runtime::Tensor>>, Diagnostic> {
    let ts = super::builtins::param_vector::parameter_tensors(b)?;
    Ok(ts
        .iter()
        .filter_map(|t| crate::autograd::meta::meta(t).and_then(|m| m.grad()))
        .collect())
}

/// The `p`-norm of all of `x`'s elements (`torch.linalg.vector_norm`).
fn norm(
    me: &mut Interp,
    x: &crate::runtime::Tensor,
    p: f64,
) -> Result<Arc<crate::runtime::Tensor>, Error> {
    me.rt
        .along(crate::runtime::op::along::AlongOp::Norm, p, x, None, false)
}
