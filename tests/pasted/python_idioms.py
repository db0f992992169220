# Python idioms PyTorch programs are written with (session of 2026-12-07,
# sixth): assignment expressions, the match statement, dataclasses with
# frozen/order and their helpers, typing at run time (NamedTuple classes,
# Generic, aliases), functools (wraps, cached_property, total_ordering,
# cmp_to_key), positional-only parameters, dict union, zip(strict=True).
# Expected: what Python 3.11 prints.
# pasted: host only
import functools, itertools, operator, collections, math, sys, os, typing, enum, re, dataclasses
from dataclasses import dataclass, field, asdict, astuple, replace, fields, is_dataclass
from typing import NamedTuple, TypeVar, Generic, Protocol, Dict, List, Optional, Callable, Any, Tuple, Union, cast, TYPE_CHECKING
class Row(NamedTuple):
    name: str
    score: float = 0.0
r = Row("a", 1.5)
print(r, r.name, r._asdict(), Row("b"))
T = TypeVar("T")
class Box(Generic[T]):
    def __init__(self, v: T): self.v = v
print(Box[int](3).v)
class Shape(enum.Enum):
    A = enum.auto()
    B = enum.auto()
print(Shape.A.value, Shape.B.value)
class Lazy:
    @functools.cached_property
    def heavy(self):
        print("computing")
        return 42
l = Lazy(); print(l.heavy, l.heavy)
@functools.total_ordering
class Ver:
    def __init__(self, n): self.n = n
    def __eq__(self, o): return self.n == o.n
    def __lt__(self, o): return self.n < o.n
print(Ver(1) <= Ver(2), Ver(3) > Ver(2))
print(sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a)))
class Ctx:
    def __enter__(self): print("enter"); return self
    def __exit__(self, *exc): print("exit", exc[0].__name__ if exc[0] else None); return True
with Ctx():
    raise ValueError("x")
try:
    try:
        1 / 0
    except ZeroDivisionError as e:
        raise RuntimeError("wrapped") from e
except RuntimeError as e:
    print(e)
try:
    pass
except Exception:
    pass
else:
    print("else ran")
finally:
    print("finally ran")
print(list(zip([1, 2], "ab", strict=True)), list(enumerate("ab", start=1)), {"a": 1} | {"b": 2}, {**{"a": 1}, "c": 3})
print({1, 2} & {2, 3}, {1, 2} | {3}, {1, 2} - {2}, {1, 2} ^ {2, 3}, "a,b".partition(","), (255).bit_length(), divmod(7, 2), round(3.14159, 2), format(3.14159, ".2f"))
print(list(map(lambda x: x * 2, [1, 2])), list(filter(None, [0, 1, 2])), list(reversed([1, 2, 3])), sum([1, 2], 10), min([3, 1, 2], key=lambda x: -x))
a = [5, 3, 1, 4]; a.sort(key=lambda x: x % 3, reverse=True); print(a, a[::-1], a[-2:])
del a[1:3]; a.insert(0, 9); print(a, a.pop(), a.index(9), a.count(9))
print(list(itertools.starmap(pow, [(2, 3), (3, 2)])), operator.attrgetter("name")(r), operator.itemgetter(0, 2)("abc"))
print(math.floor(-1.5), math.ceil(1.2), math.log2(8), math.sqrt(2), math.pi, math.e, math.exp(1), math.tanh(0.5))
print("x", "y", sep="-", end="!\n", flush=True)
def kw(a, /, b, *, c=3): return a + b + c
print(kw(1, 2), kw(1, b=2, c=4))
def gen():
    yield from range(3)
    return "done"
g = gen(); print(list(g))
it = iter([1, 2, 3]); print(next(it), next(it), next(it), next(it, "end"))
d = collections.defaultdict(lambda: collections.defaultdict(int)); d["a"]["b"] += 1; print(d["a"]["b"])
print(isinstance(3, (int, float)), callable(len), getattr(r, "nope", "dflt"), type(r).__name__, vars(Box(1)))
s = "Hello, World"
print(s.lower(), s.upper(), s.title(), s.swapcase(), s.center(16, "*"), s.ljust(14, "."), s.zfill(15), s.count("l"), s.find("W"), s.rfind("o"), s.startswith(("He", "x")), s.casefold())
print(" a b ".strip(), "a-b-c".rsplit("-", 1), "abc".replace("b", "B"), "x=1;y=2".split(";"), "\t".join(["a", "b"]), "ab".encode(), b"ab".decode(), "%.3e" % 12345.678, f"{12345.678:.3e}", f"{0.000123:g}", f"{1e20:g}")
print(int("ff", 16), int("0b101", 0), float("1e-3"), str(1e16), str(1.0), repr(0.1), 1e16, 2**0.5, -7 // 2, -7 % 3, 7 / 2, abs(-3), pow(2, 10, 1000))
print(sorted({"b": 2, "a": 1}), list({"b": 2, "a": 1}.items()), dict(zip("ab", [1, 2])), dict.fromkeys("ab", 0))
print(any(x > 2 for x in [1, 3]), all([]), max("abc"), ord("a"), chr(98), hex(255), bin(5), oct(8), hash(1) == hash(1.0))
print(f"{'nested ' + str(1)!s:>12}", f"{{literal}}", f"{3:{'>'}{5}}", f"{[1,2]!r}")
x = 5
print(f"{x if x > 3 else 0}", f"{x:#06b}", f"{-x:+d}", f"{1234.5:,.1f}", f"{0.5:.0%}")


@dataclass
class Config:
    lr: float = 1e-3
    layers: List[int] = field(default_factory=lambda: [64, 32])
    name: Optional[str] = None

c = Config(lr=0.1)
print(c, asdict(c), replace(c, name="x"), astuple(c))
print([f.name for f in fields(c)], is_dataclass(c), is_dataclass(Config), is_dataclass(3))

@dataclass(frozen=True)
class P:
    x: int
    y: int = 0

p = P(1)
try:
    p.x = 3
except dataclasses.FrozenInstanceError as e:
    print("frozen:", e)
try:
    del p.y
except AttributeError as e:
    print(type(e).__name__, e)
print(P(1, 2) == P(1, 2), hash(P(1, 2)) == hash(P(1, 2)), len({P(1, 2), P(1, 2), P(2)}), {P(1): "a"}[P(1)])
print(replace(p, y=5), p)

@dataclass(order=True)
class V:
    major: int
    minor: int = 0

print(sorted([V(1, 5), V(0, 9), V(1, 2)]), V(1) < V(1, 1), V(2) >= V(1, 9), max(V(3), V(3, 1)))
try:
    V(1) < P(1)
except TypeError as e:
    print("TypeError:", e)
try:
    hash(c)
except TypeError as e:
    print("TypeError:", e)
try:
    replace(Config, lr=1)
except TypeError as e:
    print("TypeError:", e)
try:
    replace(c, nope=1)
except TypeError as e:
    print("TypeError:", e)

@dataclass
class Post:
    a: int
    b: int = field(default=2)
    def __post_init__(self):
        self.total = self.a + self.b

q = replace(Post(1), a=10)
print(q, q.total)

if (n := len(a)) > 2: print("walrus", n)
match c:
    case Config(lr=0.1): print("matched lr")
    case _: print("no")
first, *rest = [1, 2, 3]; print(first, rest)

class Row(NamedTuple):
    name: str
    score: float = 0.0
    def label(self):
        return f"{self.name}:{self.score}"
r = Row("a", 1.5)
print(r, r.name, r._asdict(), Row("b"), r.label(), r[0], len(r), tuple(r), r._replace(score=2.0), Row._fields)
n, s = r
print(n, s, isinstance(r, tuple))
Batch = Dict[str, float]
print(Batch, Optional[int], List[int], Tuple[int, ...], Union[int, str], Callable[[int], float], Any)
T = TypeVar("T")
class Box(Generic[T]):
    def __init__(self, v: T):
        self.v = v
print(Box[int](3).v, Box(4).v, T)
class Greeter(Protocol):
    def greet(self) -> str: ...
print(cast(int, "x"), TYPE_CHECKING)
def f(x: Optional[List[int]] = None) -> Dict[str, Any]:
    return {"n": len(x or [])}
print(f([1, 2]))

class Color(enum.Enum):
    RED = 1
    GREEN = 2

@dataclass
class Point:
    x: int
    y: int = 0

Pair = collections.namedtuple("Pair", ["a", "b"])

class Circle:
    __match_args__ = ("r",)
    def __init__(self, r):
        self.r = r

def describe(v):
    match v:
        case None:
            return "none"
        case True:
            return "true"
        case 0 | 1:
            return "small int"
        case -5:
            return "minus five"
        case int(n) if n > 100:
            return f"big {n}"
        case int():
            return "int"
        case "hi" | "hello" as word:
            return f"greeting {word}"
        case str(s):
            return f"str {s!r}"
        case Color.RED:
            return "red"
        case Point(x=0, y=0):
            return "origin"
        case Point(x, 0):
            return f"on x axis at {x}"
        case Point(x=x, y=y):
            return f"point {x},{y}"
        case Circle(r):
            return f"circle {r}"
        case Pair(a, b):
            return f"pair {a} {b}"
        case [] | ():
            return "empty"
        case [x]:
            return f"one {x}"
        case [first, *rest] if len(rest) > 2:
            return f"long from {first}, {len(rest)} more"
        case (a, b, *_):
            return f"seq {a} {b}"
        case {"action": "move", "to": (tx, ty), **others}:
            return f"move {tx} {ty} {others}"
        case {"action": act}:
            return f"action {act}"
        case _:
            return "other"

for v in [None, True, 0, 1, -5, 7, 1000, "hi", "hello", "yo", Color.RED, Color.GREEN,
          Point(0, 0), Point(3), Point(1, 2), Circle(2.5), Pair(1, 2), [], (), [9], [1, 2, 3, 4],
          (1, 2, 3), [1, 2], {"action": "move", "to": (1, 2), "speed": 3}, {"action": "stop"}, {"x": 1}, 3.5]:
    print(type(v).__name__, "->", describe(v))

command = "go north"
match command.split():
    case [verb, direction]:
        print("verb", verb, "dir", direction)
    case _:
        print("?")
print(verb)

match (1, 2):
    case x, y:
        print("tuple", x, y)

match = re.match(r"(\w+)", "abc")
print(match.group(1))
case = 3
print(case)

def gen():
    for v in [1, "a", [2, 3]]:
        match v:
            case int():
                yield "int"
            case [a, b]:
                yield a + b
            case _:
                yield "?"
print(list(gen()))
for k in range(3):
    match k:
        case 1:
            continue
        case _:
            pass
    print("k", k)
