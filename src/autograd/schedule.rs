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
}

#[derive(Clone, Debug)]
pub struct Scheduler {
    pub schedule: Schedule,
    /// The learning rate when the scheduler was made (`initial_lr`).
    pub base_lr: f64,
    pub last_epoch: i64,
    /// How many times `step()` ran, the first (at construction) included.
    pub step_count: u64,
    pub last_lr: f64,
}

impl Scheduler {
    pub fn new(schedule: Schedule, base_lr: f64) -> Scheduler {
        Scheduler {
            schedule,
            base_lr,
            last_epoch: -1,
            step_count: 0,
            last_lr: base_lr,
        }
    }

    pub fn name(&self) -> &'static str {
        match self.schedule {
            Schedule::StepLR { .. } => "StepLR",
            Schedule::MultiStepLR { .. } => "MultiStepLR",
            Schedule::ExponentialLR { .. } => "ExponentialLR",
            Schedule::CosineAnnealingLR { .. } => "CosineAnnealingLR",
            Schedule::LambdaLR => "LambdaLR",
        }
    }

    /// One `step()`: the next epoch, and the learning rate for it from the
    /// optimizer's current `lr` (`factor`: LambdaLR's `lambda(epoch)`, asked
    /// with the epoch `next_epoch` gives).
    pub fn step(&mut self, current: f64, factor: Option<f64>) -> f64 {
        let initial = self.step_count == 0;
        self.step_count += 1;
        self.last_epoch += 1;
        let e = self.last_epoch;
        let lr = match &self.schedule {
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
                    current + (self.base_lr - eta) * (1.0 - (pi / t).cos()) / 2.0
                } else {
                    (1.0 + (pi * e as f64 / t).cos()) / (1.0 + (pi * (e - 1) as f64 / t).cos())
                        * (current - eta)
                        + eta
                }
            }
            Schedule::LambdaLR => self.base_lr * factor.unwrap_or(1.0),
        };
        self.last_lr = lr;
        lr
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
        let mut s = Scheduler::new(schedule, 0.1);
        let mut lr = s.step(0.1, None);
        let mut out = vec![lr];
        for _ in 1..n {
            lr = s.step(lr, None);
            out.push(lr);
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
