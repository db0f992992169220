# Python's timeit: timeit, repeat, Timer of a string or a callable, autorange, default_timer, globals.
import timeit
t = timeit.timeit("x = sum(range(10))", number=100)
print(t > 0, type(t).__name__)
r = timeit.repeat("y = a * 2", setup="a = 3", repeat=3, number=10)
print(len(r), all(v >= 0 for v in r))
def f():
    return 1
print(timeit.Timer(f).timeit(5) >= 0)
n, taken = timeit.Timer("pass").autorange()
print(n >= 1, taken >= 0.2)
b = timeit.default_timer()
print(timeit.default_timer() >= b)
print(timeit.timeit("z = q + 1", globals={"q": 1}, number=3) >= 0)
