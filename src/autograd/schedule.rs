//! Learning-rate schedulers as `torch.optim.lr_scheduler`'s: each `step()`
//! counts an epoch (`last_epoch`) and sets the optimizer's `lr` by the
//! schedule's chainable rule, with PyTorch's arithmetic (the same floats in
//! the same order, so the sequences agree to the bit). Made, a scheduler
//! takes its first step at once (epoch 0), as PyTorch's `_initial_step`.

/// Which schedule.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    StepLR {
        step_size: i64,
        gamma: f64,
    },
    /// Milestones in order, each as often as it was given.
    MultiStepLR {
        milestones: Vec<i64>,
        gamma: f64,
    },
    ExponentialLR {
        gamma: f64,
    },
    CosineAnnealingLR {
        t_max: i64,
        eta_min: f64,
    },
    /// `base_lr * lambda(epoch)`: the factor comes from the program's function.
    LambdaLR,
    /// `lr * lambda(epoch)` from the second step on (the program's function).
    MultiplicativeLR,
    /// `factor` times the rate until `total_iters`, then the rate.
    ConstantLR {
        factor: f64,
        total_iters: i64,
    },
    /// The rate's factor going linearly from `start` to `end` over
    /// `total_iters` steps (warm-up).
    LinearLR {
        start: f64,
        end: f64,
        total_iters: i64,
    },
    /// `base_lr * (1 - epoch / total_iters) ** power` until `total_iters`.
    PolynomialLR {
        total_iters: i64,
        power: f64,
    },
    /// Cosine annealing restarted every `t_i` steps (`t_i` growing by
    /// `t_mult` at each restart; `t_cur` the steps since the last one).
    CosineAnnealingWarmRestarts {
        t_0: i64,
        t_mult: i64,
        eta_min: f64,
        t_i: i64,
        t_cur: f64,
    },
    /// `SequentialLR` / `ChainedScheduler`: their schedulers do the work
    /// (the interpreter steps them); this one keeps the epoch count.
    Combined {
        sequential: bool,
    },
    /// The 1cycle policy: up from `max_lr / div_factor` to `max_lr`, then
    /// down to `initial / final_div_factor` (three phases: back to the
    /// initial rate first), the momentum the other way round.
    OneCycleLR(OneCycle),
    /// `CyclicLR`: the rate up from `base_lr` to `max_lr` and back in
    /// cycles (the momentum the other way round).
    CyclicLR(Cyclic),
    /// `ReduceLROnPlateau`: the rate cut by `factor` when the metric has not
    /// improved for `patience` steps (its state changes with each step).
    ReduceLROnPlateau(Plateau),
}

/// ReduceLROnPlateau's settings and state, as PyTorch's attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct Plateau {
    /// `mode="max"`: a larger metric is better (else smaller).
    pub max: bool,
    pub factor: f64,
    pub patience: i64,
    pub threshold: f64,
    /// `threshold_mode="abs"` (else "rel").
    pub absolute: bool,
    pub cooldown: i64,
    pub min_lrs: Vec<f64>,
    pub eps: f64,
    pub best: f64,
    pub num_bad_epochs: i64,
    pub cooldown_counter: i64,
}

impl Plateau {
    /// PyTorch's `is_better(a, best)`.
    fn is_better(&self, a: f64) -> bool {
        match (self.max, self.absolute) {
            (false, false) => a < self.best * (1.0 - self.threshold),
            (false, true) => a < self.best - self.threshold,
            (true, false) => a > self.best * (self.threshold + 1.0),
            (true, true) => a > self.best + self.threshold,
        }
    }

    /// One `step(metric)`: each group's rate from its `current` one.
    pub fn step(&mut self, metric: f64, current: &[f64]) -> Vec<f64> {
        if self.is_better(metric) {
            self.best = metric;
            self.num_bad_epochs = 0;
        } else {
            self.num_bad_epochs += 1;
        }
        if self.cooldown_counter > 0 {
            self.cooldown_counter -= 1;
            self.num_bad_epochs = 0;
        }
        if self.num_bad_epochs <= self.patience {
            return current.to_vec();
        }
        self.cooldown_counter = self.cooldown;
        self.num_bad_epochs = 0;
        current
            .iter()
            .enumerate()
            .map(|(g, &old)| {
                let floor = self.min_lrs.get(g).copied().unwrap_or(0.0);
                let new = (old * self.factor).max(floor);
                if old - new > self.eps {
                    new
                } else {
                    old
                }
            })
            .collect()
    }
}

/// OneCycleLR's settings: per group `max_lrs`, the phases' ends, the curve.
#[derive(Clone, Debug, PartialEq)]
pub struct OneCycle {
    pub total_steps: i64,
    pub max_lrs: Vec<f64>,
    pub div_factor: f64,
    pub final_div_factor: f64,
    pub pct_start: f64,
    pub three_phase: bool,
    /// `anneal_strategy="cos"` (else linear).
    pub cos: bool,
    /// `(base_momentum, max_momentum)` when `cycle_momentum`.
    pub momentum: Option<(f64, f64)>,
}

/// CyclicLR's settings: per group `max_lrs`, the cycle's length in steps
/// and the part of it going up, the policy, and per group
/// `(base_momentum, max_momentum)` when `cycle_momentum`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cyclic {
    pub max_lrs: Vec<f64>,
    pub total_size: f64,
    pub step_ratio: f64,
    pub mode: CyclicMode,
    pub momentum: Option<Vec<(f64, f64)>>,
}

/// CyclicLR's `mode`: the amplitude each cycle (`triangular`: the same;
/// `triangular2`: halved each cycle) or each step (`exp_range`: times
/// `gamma`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CyclicMode {
    Triangular,
    Triangular2,
    ExpRange { gamma: f64 },
}

impl Cyclic {
    /// PyTorch's `get_lr` at `epoch`: where in its cycle the step is
    /// (`scale_factor`), and the policy's scale.
    fn place(&self, epoch: i64) -> (f64, f64) {
        let e = epoch as f64;
        let cycle = (1.0 + e / self.total_size).floor();
        let x = 1.0 + e / self.total_size - cycle;
        let factor = match x <= self.step_ratio {
            true => x / self.step_ratio,
            false => (x - 1.0) / (self.step_ratio - 1.0),
        };
        let scale = match self.mode {
            CyclicMode::Triangular => 1.0,
            CyclicMode::Triangular2 => 1.0 / 2.0f64.powf(cycle - 1.0),
            CyclicMode::ExpRange { gamma } => gamma.powf(e),
        };
        (factor, scale)
    }

    /// Group `g`'s rate (from its `base`) and momentum at `epoch`.
    fn at(&self, g: usize, base: f64, epoch: i64) -> (f64, Option<f64>) {
        let (factor, scale) = self.place(epoch);
        let max = self.max_lrs[g.min(self.max_lrs.len() - 1)];
        let lr = base + ((max - base) * factor) * scale;
        let momentum = self.momentum.as_ref().map(|m| {
            let (low, high) = m[g.min(m.len() - 1)];
            high - ((high - low) * factor) * scale
        });
        (lr, momentum)
    }
}

/// Which of a group's rates a phase starts or ends at.
#[derive(Clone, Copy)]
enum Rate {
    Initial,
    Max,
    Min,
}

/// Which momentum a phase starts or ends at.
#[derive(Clone, Copy)]
enum Momentum {
    Base,
    Max,
}

impl OneCycle {
    /// PyTorch's `_schedule_phases`: each phase's last step and its ends.
    fn phases(&self) -> Vec<(f64, Rate, Rate, Momentum, Momentum)> {
        let total = self.total_steps as f64;
        let up = self.pct_start * total - 1.0;
        if self.three_phase {
            vec![
                (up, Rate::Initial, Rate::Max, Momentum::Max, Momentum::Base),
                (
                    2.0 * self.pct_start * total - 2.0,
                    Rate::Max,
                    Rate::Initial,
                    Momentum::Base,
                    Momentum::Max,
                ),
                (
                    total - 1.0,
                    Rate::Initial,
                    Rate::Min,
                    Momentum::Max,
                    Momentum::Max,
                ),
            ]
        } else {
            vec![
                (up, Rate::Initial, Rate::Max, Momentum::Max, Momentum::Base),
                (
                    total - 1.0,
                    Rate::Max,
                    Rate::Min,
                    Momentum::Base,
                    Momentum::Max,
                ),
            ]
        }
    }

    fn anneal(&self, start: f64, end: f64, pct: f64) -> f64 {
        if self.cos {
            let cos_out = (std::f64::consts::PI * pct).cos() + 1.0;
            end + (start - end) / 2.0 * cos_out
        } else {
            (end - start) * pct + start
        }
    }

    /// Group `g`'s learning rate and momentum at `step`.
    fn at(&self, g: usize, step: i64) -> (f64, Option<f64>) {
        let max = self.max_lrs[g.min(self.max_lrs.len() - 1)];
        let initial = max / self.div_factor;
        let rate = |r: Rate| match r {
            Rate::Initial => initial,
            Rate::Max => max,
            Rate::Min => initial / self.final_div_factor,
        };
        let phases = self.phases();
        let mut start_step = 0.0;
        for (i, &(end_step, r0, r1, m0, m1)) in phases.iter().enumerate() {
            if step as f64 <= end_step || i == phases.len() - 1 {
                let pct = (step as f64 - start_step) / (end_step - start_step);
                let lr = self.anneal(rate(r0), rate(r1), pct);
                let momentum = self.momentum.map(|(base, top)| {
                    let m = |m: Momentum| match m {
                        Momentum::Base => base,
                        Momentum::Max => top,
                    };
                    self.anneal(m(m0), m(m1), pct)
                });
                return (lr, momentum);
            }
            start_step = end_step;
        }
        unreachable!("the last phase is always taken")
    }
}

#[derive(Clone, Debug)]
pub struct Scheduler {
    pub schedule: Schedule,
    /// Each parameter group's learning rate when the scheduler was made
    /// (its `initial_lr`).
    pub base_lrs: Vec<f64>,
    pub last_epoch: i64,
    /// How many times `step()` ran, the first (at construction) included.
    pub step_count: u64,
    pub last_lrs: Vec<f64>,
}

impl Scheduler {
    pub fn new(schedule: Schedule, base_lrs: Vec<f64>) -> Scheduler {
        Scheduler {
            schedule,
            last_lrs: base_lrs.clone(),
            base_lrs,
            last_epoch: -1,
            step_count: 0,
        }
    }

    pub fn name(&self) -> &'static str {
        match self.schedule {
            Schedule::StepLR { .. } => "StepLR",
            Schedule::MultiStepLR { .. } => "MultiStepLR",
            Schedule::ExponentialLR { .. } => "ExponentialLR",
            Schedule::CosineAnnealingLR { .. } => "CosineAnnealingLR",
            Schedule::LambdaLR => "LambdaLR",
            Schedule::MultiplicativeLR => "MultiplicativeLR",
            Schedule::ConstantLR { .. } => "ConstantLR",
            Schedule::LinearLR { .. } => "LinearLR",
            Schedule::PolynomialLR { .. } => "PolynomialLR",
            Schedule::CosineAnnealingWarmRestarts { .. } => "CosineAnnealingWarmRestarts",
            Schedule::Combined { sequential: true } => "SequentialLR",
            Schedule::Combined { sequential: false } => "ChainedScheduler",
            Schedule::OneCycleLR(_) => "OneCycleLR",
            Schedule::CyclicLR(_) => "CyclicLR",
            Schedule::ReduceLROnPlateau(_) => "ReduceLROnPlateau",
        }
    }

    /// One `step()`: the next epoch, and each group's learning rate for it
    /// from the group's current `lr` (`factors`: LambdaLR's `lambda(epoch)`
    /// per group, asked with the epoch `next_epoch` gives).
    pub fn step(&mut self, current: &[f64], factors: Option<&[f64]>) -> Vec<f64> {
        let initial = self.step_count == 0;
        self.step_count += 1;
        self.last_epoch += 1;
        if let Schedule::OneCycleLR(c) = &self.schedule {
            let lrs: Vec<f64> = (0..current.len())
                .map(|g| c.at(g, self.last_epoch).0)
                .collect();
            self.last_lrs = lrs.clone();
            return lrs;
        }
        if let Schedule::CyclicLR(c) = &self.schedule {
            let lrs: Vec<f64> = (0..current.len())
                .map(|g| {
                    let base = self.base_lrs.get(g).copied().unwrap_or(current[g]);
                    c.at(g, base, self.last_epoch).0
                })
                .collect();
            self.last_lrs = lrs.clone();
            return lrs;
        }
        // PyTorch's `CosineAnnealingWarmRestarts.step()`: a restart when
        // `t_cur` reaches `t_i` (its first step starts at 0).
        if let Schedule::CosineAnnealingWarmRestarts {
            t_i, t_cur, t_mult, ..
        } = &mut self.schedule
        {
            if !initial {
                *t_cur += 1.0;
                if *t_cur >= *t_i as f64 {
                    *t_cur %= *t_i as f64;
                    *t_i *= *t_mult;
                }
            }
        }
        let lrs: Vec<f64> = (0..current.len())
            .map(|g| {
                let factor = factors.and_then(|f| f.get(g).copied());
                let base = self.base_lrs.get(g).copied().unwrap_or(current[g]);
                self.group_lr(initial, current[g], base, factor)
            })
            .collect();
        self.last_lrs = lrs.clone();
        lrs
    }

    /// One group's learning rate at `last_epoch`, by PyTorch's chainable
    /// rule from its `current` one (`base`: its `initial_lr`).
    fn group_lr(&self, initial: bool, current: f64, base: f64, factor: Option<f64>) -> f64 {
        let e = self.last_epoch;
        match &self.schedule {
            Schedule::StepLR { step_size, gamma } => {
                if e == 0 || e % step_size != 0 {
                    current
                } else {
                    current * gamma
                }
            }
            Schedule::MultiStepLR { milestones, gamma } => {
                let n = milestones.iter().filter(|&&m| m == e).count();
                match n {
                    0 => current,
                    n => current * gamma.powf(n as f64),
                }
            }
            Schedule::ExponentialLR { gamma } => match initial {
                true => current,
                false => current * gamma,
            },
            Schedule::CosineAnnealingLR { t_max, eta_min } => {
                let (t, eta) = (*t_max as f64, *eta_min);
                let pi = std::f64::consts::PI;
                if initial {
                    current
                } else if (e - 1 - t_max).rem_euclid(2 * t_max) == 0 {
                    current + (base - eta) * (1.0 - (pi / t).cos()) / 2.0
                } else {
                    (1.0 + (pi * e as f64 / t).cos()) / (1.0 + (pi * (e - 1) as f64 / t).cos())
                        * (current - eta)
                        + eta
                }
            }
            Schedule::LambdaLR => base * factor.unwrap_or(1.0),
            Schedule::MultiplicativeLR => match initial {
                true => current,
                false => current * factor.unwrap_or(1.0),
            },
            Schedule::ConstantLR {
                factor,
                total_iters,
            } => {
                if e == 0 {
                    current * factor
                } else if e != *total_iters {
                    current
                } else {
                    current * (1.0 / factor)
                }
            }
            Schedule::LinearLR {
                start,
                end,
                total_iters,
            } => {
                if e == 0 {
                    current * start
                } else if initial || e > *total_iters {
                    current
                } else {
                    let t = *total_iters as f64;
                    current * (1.0 + (end - start) / (t * start + (e - 1) as f64 * (end - start)))
                }
            }
            Schedule::PolynomialLR { total_iters, power } => {
                if initial || e > *total_iters {
                    current
                } else {
                    let t = *total_iters as f64;
                    let decay = ((1.0 - e as f64 / t) / (1.0 - (e - 1) as f64 / t)).powf(*power);
                    current * decay
                }
            }
            Schedule::CosineAnnealingWarmRestarts {
                eta_min,
                t_i,
                t_cur,
                ..
            } => {
                let pi = std::f64::consts::PI;
                eta_min + (base - eta_min) * (1.0 + (pi * t_cur / *t_i as f64).cos()) / 2.0
            }
            Schedule::OneCycleLR(_)
            | Schedule::CyclicLR(_)
            | Schedule::ReduceLROnPlateau(_)
            | Schedule::Combined { .. } => current,
        }
    }

    /// `_update_lr(0)` as `SequentialLR` calls it at a milestone: the epoch
    /// set to 0 and each group's rate from PyTorch's closed form there
    /// (`get_lr` at epoch 0 for the schedules without one: LambdaLR's
    /// `base * lambda(0)`, MultiplicativeLR's `lr * lambda(0)`).
    pub fn restart(&mut self, current: &[f64], factors: Option<&[f64]>) -> Vec<f64> {
        self.last_epoch = 0;
        let lrs: Vec<f64> = (0..current.len())
            .map(|g| {
                let base = self.base_lrs.get(g).copied().unwrap_or(current[g]);
                let factor = factors.and_then(|f| f.get(g).copied());
                match &self.schedule {
                    Schedule::MultiStepLR { milestones, gamma } => {
                        let n = milestones.iter().filter(|&&m| m <= 0).count();
                        base * gamma.powi(n as i32)
                    }
                    Schedule::ConstantLR {
                        factor,
                        total_iters,
                    } => base * (factor + if *total_iters <= 0 { 1.0 - factor } else { 0.0 }),
                    Schedule::LinearLR { start, .. } => base * start,
                    Schedule::LambdaLR => base * factor.unwrap_or(1.0),
                    Schedule::MultiplicativeLR => current[g] * factor.unwrap_or(1.0),
                    Schedule::OneCycleLR(c) => c.at(g, 0).0,
                    Schedule::CyclicLR(c) => c.at(g, base, 0).0,
                    Schedule::CosineAnnealingWarmRestarts { .. } => {
                        self.group_lr(false, current[g], base, factor)
                    }
                    Schedule::ReduceLROnPlateau(_) | Schedule::Combined { .. } => current[g],
                    _ => base,
                }
            })
            .collect();
        self.last_lrs = lrs.clone();
        lrs
    }

    /// OneCycleLR's and CyclicLR's momentum for each of `groups` at the current step
    /// (none for the other schedules, or without `cycle_momentum`).
    pub fn momenta(&self, groups: usize) -> Option<Vec<f64>> {
        match &self.schedule {
            Schedule::OneCycleLR(c) if c.momentum.is_some() => Some(
                (0..groups)
                    .filter_map(|g| c.at(g, self.last_epoch).1)
                    .collect(),
            ),
            Schedule::CyclicLR(c) if c.momentum.is_some() => Some(
                (0..groups)
                    .filter_map(|g| c.at(g, 0.0, self.last_epoch).1)
                    .collect(),
            ),
            _ => None,
        }
    }

    /// OneCycleLR's error when stepped past its last step (PyTorch's text).
    pub fn past_the_end(&self) -> Option<String> {
        match &self.schedule {
            Schedule::OneCycleLR(c) if self.last_epoch + 1 > c.total_steps => Some(format!(
                "Tried to step {} times. The specified number of total steps is {}",
                self.last_epoch + 1,
                c.total_steps
            )),
            _ => None,
        }
    }

    /// The epoch the next `step()` counts (LambdaLR asks its function of it).
    pub fn next_epoch(&self) -> i64 {
        self.last_epoch + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scheduler's sequence over `n` epochs from lr 0.1.
    fn lrs(schedule: Schedule, n: usize) -> Vec<f64> {
        let mut s = Scheduler::new(schedule, vec![0.1]);
        let mut lr = s.step(&[0.1], None);
        let mut out = vec![lr[0]];
        for _ in 1..n {
            lr = s.step(&lr, None);
            out.push(lr[0]);
        }
        out
    }

    #[test]
    fn step_lr_decays_every_step_size_epochs() {
        let got = lrs(
            Schedule::StepLR {
                step_size: 2,
                gamma: 0.5,
            },
            5,
        );
        assert_eq!(got, [0.1, 0.1, 0.05, 0.05, 0.025]);
    }

    #[test]
    fn cosine_annealing_reaches_eta_min_at_t_max_and_comes_back() {
        let got = lrs(
            Schedule::CosineAnnealingLR {
                t_max: 4,
                eta_min: 0.0,
            },
            9,
        );
        assert_eq!(got[0], 0.1);
        assert!(got[4].abs() < 1e-12, "{got:?}");
        assert!((got[8] - 0.1).abs() < 1e-12, "{got:?}");
    }
}
