"""timeit, as cudash gives it (written for cudash, after CPython's):
`default_timer` (`time.perf_counter`), `Timer(stmt, setup, timer, globals)`
with `timeit(number)`, `repeat(repeat, number)` and `autorange()`, and the
functions `timeit` and `repeat`. Statements are strings run in `globals` (a
dict) or callables. The clock is the program's: the wall clock on a GPU;
on simulated devices it moves by the modelled machine's time where the
model moved, so a statement that trains a model is timed as the GPU the
simulator models would run it, not as the simulator does."""
import time

__all__ = ["Timer", "timeit", "repeat", "default_timer"]

default_number = 1000000
default_repeat = 5
default_timer = time.perf_counter


def _indent(code, prefix):
    return "\n".join(prefix + line for line in code.split("\n"))


class Timer:
    def __init__(self, stmt="pass", setup="pass", timer=default_timer, globals=None):
        self.timer = timer
        self._stmt = stmt
        self._setup = setup
        self._globals = dict(globals) if globals is not None else {}

    def timeit(self, number=default_number):
        """Seconds `number` runs of the statement took, after the setup."""
        g = self._globals
        g["_timeit_timer"] = self.timer
        if callable(self._setup):
            self._setup()
            setup = "pass"
        else:
            setup = self._setup
        if callable(self._stmt):
            g["_timeit_stmt"] = self._stmt
            stmt = "_timeit_stmt()"
        else:
            stmt = self._stmt
        source = (
            f"{setup}\n"
            "_timeit_t0 = _timeit_timer()\n"
            f"for _timeit_i in range({int(number)}):\n{_indent(stmt, '    ')}\n"
            "_timeit_t1 = _timeit_timer()\n"
        )
        exec(source, g)
        return g["_timeit_t1"] - g["_timeit_t0"]

    def repeat(self, repeat=default_repeat, number=default_number):
        return [self.timeit(number) for _ in range(repeat)]

    def autorange(self, callback=None):
        """The number of runs (1, 2, 5, 10, 20, 50, ...) that take 0.2 s or
        more, and their time."""
        i = 1
        while True:
            for j in 1, 2, 5:
                number = i * j
                taken = self.timeit(number)
                if callback:
                    callback(number, taken)
                if taken >= 0.2:
                    return (number, taken)
            i *= 10


def timeit(stmt="pass", setup="pass", timer=default_timer, number=default_number, globals=None):
    return Timer(stmt, setup, timer, globals).timeit(number)


def repeat(stmt="pass", setup="pass", timer=default_timer, repeat=default_repeat,
           number=default_number, globals=None):
    return Timer(stmt, setup, timer, globals).repeat(repeat, number)
