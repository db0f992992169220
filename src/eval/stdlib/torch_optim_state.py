"""`opt.state` of a built-in optimizer, as PyTorch's: a defaultdict keyed by
parameter, each value a dict of that parameter's state by PyTorch's names
(`step`, `exp_avg`, `momentum_buffer`). The optimizer keeps the state;
these views read it when asked and write an entry back into it
(`opt.state[p]["exp_avg"] = t`), so what a program changes is what the
next `step()` uses."""

import _cudash


class _ParamState:
    """`opt.state[p]`: one parameter's state (empty before its first step)."""

    def __init__(self, opt, param):
        self._opt = opt
        self._param = param

    def _dict(self):
        return _cudash.optim_state_of(self._opt, self._param)

    def __getitem__(self, key):
        d = self._dict()
        if key not in d:
            raise KeyError(key)
        return d[key]

    def __setitem__(self, key, value):
        _cudash.optim_state_set(self._opt, self._param, key, value)

    def __contains__(self, key):
        return key in self._dict()

    def __iter__(self):
        return iter(list(self._dict().keys()))

    def __len__(self):
        return len(self._dict())

    def __eq__(self, other):
        if isinstance(other, _ParamState):
            other = other._dict()
        return self._dict() == other

    def keys(self):
        return self._dict().keys()

    def values(self):
        return self._dict().values()

    def items(self):
        return self._dict().items()

    def get(self, key, default=None):
        return self._dict().get(key, default)

    def copy(self):
        return self._dict()

    def __repr__(self):
        return repr(self._dict())


class _OptimizerState:
    """`opt.state`: the parameters that have state, each with its dict."""

    def __init__(self, opt):
        self._opt = opt

    def _params(self):
        return _cudash.optim_state_params(self._opt)

    def __getitem__(self, param):
        return _ParamState(self._opt, param)

    def __contains__(self, param):
        return any(p is param for p in self._params())

    def __iter__(self):
        return iter(self._params())

    def __len__(self):
        return len(self._params())

    def keys(self):
        return self._params()

    def values(self):
        return [_ParamState(self._opt, p) for p in self._params()]

    def items(self):
        return [(p, _ParamState(self._opt, p)) for p in self._params()]

    def get(self, param, default=None):
        if param in self:
            return _ParamState(self._opt, param)
        return default

    def __repr__(self):
        held = {p: _cudash.optim_state_of(self._opt, p) for p in self._params()}
        return "defaultdict(<class 'dict'>, " + repr(held) + ")"


def _state_of(opt):
    return _OptimizerState(opt)
