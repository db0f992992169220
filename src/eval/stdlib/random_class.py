"""Python's `random.Random`: a generator of its own, with the module's
functions as methods. Each instance keeps its own Mersenne Twister state
and runs the module's own code over it (the module's state put aside and
back), so `Random(5).random()` draws what `random.seed(5); random.random()`
draws, as in Python."""
import random as _random


class Random:
    def __init__(self, x=None):
        self._state = None
        self.seed(x)

    def _run(self, f, *args, **kwargs):
        saved = _random.getstate()
        if self._state is not None:
            _random.setstate(self._state)
        try:
            return f(*args, **kwargs)
        finally:
            self._state = _random.getstate()
            _random.setstate(saved)

    def seed(self, a=None, version=2):
        saved = _random.getstate()
        try:
            _random.seed(a)
            self._state = _random.getstate()
        finally:
            _random.setstate(saved)

    def getstate(self):
        return self._state

    def setstate(self, state):
        self._state = state

    def random(self):
        return self._run(_random.random)

    def randint(self, a, b):
        return self._run(_random.randint, a, b)

    def randrange(self, *args):
        return self._run(_random.randrange, *args)

    def choice(self, seq):
        return self._run(_random.choice, seq)

    def choices(self, population, weights=None, *, cum_weights=None, k=1):
        return self._run(_random.choices, population, weights, cum_weights=cum_weights, k=k)

    def shuffle(self, x):
        return self._run(_random.shuffle, x)

    def uniform(self, a, b):
        return self._run(_random.uniform, a, b)

    def sample(self, population, k):
        return self._run(_random.sample, population, k)

    def getrandbits(self, k):
        return self._run(_random.getrandbits, k)
