# The learning-rate schedulers for an optimizer of the program's (a
# torch.optim.Optimizer subclass, whose parameter groups are its own
# dicts): StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR,
# MultiplicativeLR, LinearLR and ConstantLR, written for cudash after
# PyTorch's chainable forms (each step's rate from the group's current one),
# on the LRScheduler base. cudash's built-in schedulers drive its built-in
# optimizers; `StepLR(opt, ...)` with a program's optimizer comes here
# (eval/schedule.rs).
import math
from collections import Counter

from torch.optim._lr_scheduler_base import LRScheduler


def _rates(optimizer):
    return [group["lr"] for group in optimizer.param_groups]


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _rates(self.optimizer)
        return [lr * self.gamma for lr in _rates(self.optimizer)]


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return _rates(self.optimizer)
        times = self.milestones[self.last_epoch]
        return [lr * self.gamma**times for lr in _rates(self.optimizer)]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return _rates(self.optimizer)
        return [lr * self.gamma for lr in _rates(self.optimizer)]


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = _rates(self.optimizer)
        if self._is_initial:
            return lrs
        low, t, n = self.eta_min, self.last_epoch, self.T_max
        if self._step_count == 1 and t > 0:
            return [low + (base - low) * (1 + math.cos(t * math.pi / n)) / 2 for base in self.base_lrs]
        # At the bottom of a cycle the rate climbs back by the first step's amount.
        if (t - 1 - n) % (2 * n) == 0:
            return [lr + (base - low) * (1 - math.cos(math.pi / n)) / 2 for lr, base in zip(lrs, self.base_lrs)]
        ratio = (1 + math.cos(math.pi * t / n)) / (1 + math.cos(math.pi * (t - 1) / n))
        return [ratio * (lr - low) + low for lr in lrs]


def _lambdas(optimizer, lr_lambda):
    n = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * n


class LambdaLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = _rates(self.optimizer)
        if self._is_initial:
            return lrs
        return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, lrs)]


class LinearLR(LRScheduler):
    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = _rates(self.optimizer)
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in lrs]
        if self._is_initial or self.last_epoch > self.total_iters:
            return lrs
        # This step's factor over the last one's.
        span = self.end_factor - self.start_factor
        before = self.total_iters * self.start_factor + (self.last_epoch - 1) * span
        return [lr * (1.0 + span / before) for lr in lrs]


class ConstantLR(LRScheduler):
    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = _rates(self.optimizer)
        if self.last_epoch == 0:
            return [lr * self.factor for lr in lrs]
        if self.last_epoch != self.total_iters:
            return lrs
        return [lr * (1.0 / self.factor) for lr in lrs]
