"""NumPy, the part PyTorch programs lean on (written for cudash): arrays
are CPU tensors underneath (`torch.from_numpy(a)` and `t.numpy()` share
them, as PyTorch's do), with NumPy's dtypes (float64 by default), its
promotion of Python numbers, its printing, and its legacy random numbers
(`np.random.seed(0); np.random.randn(3)` gives NumPy's). What is not
here raises `AttributeError` (a module's missing name), not a stand-in.

uint8 arrays are uint8 tensors; uint16 arrays hold their values in int64
tensors (cudash has no uint16), printing and converting as NumPy's."""
import math

import torch
import _cudash

# Python's own, before this module's `max`, `min`, `sum` and `abs` hide them.
_bmax = max
_bmin = min
_babs = abs

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None


class dtype:
    def __init__(self, name, torch_dtype=None, kind=None, size=None):
        if kind is None:
            # `np.dtype(str)`, `np.dtype("float32")`: the dtype named.
            d = _dtype(name)
            name, torch_dtype, kind, size = d.name, d._torch, d.kind, d.itemsize
        self.name = name
        self._torch = torch_dtype
        self.kind = kind
        self.itemsize = size
        # A string array's strings: its tensor holds positions in this list.
        self._strings = []

    def __repr__(self):
        return f"dtype('{self.name}')"

    def __str__(self):
        return self.name

    def __eq__(self, other):
        return _dtype(other).name == self.name

    def __hash__(self):
        return hash(self.name)

    def __call__(self, x=0):
        if self.kind == "f":
            return float(x)
        if self.kind == "b":
            return bool(x)
        return int(x)


float64 = dtype("float64", torch.float64, "f", 8)
float32 = dtype("float32", torch.float32, "f", 4)
float16 = dtype("float16", torch.float16, "f", 2)
int64 = dtype("int64", torch.int64, "i", 8)
int32 = dtype("int32", torch.int32, "i", 4)
int16 = dtype("int16", torch.int16, "i", 2)
int8 = dtype("int8", torch.int8, "i", 1)
uint8 = dtype("uint8", torch.uint8, "u", 1)
uint16 = dtype("uint16", torch.int64, "u", 2)
bool_ = dtype("bool", torch.bool, "b", 1)
double = float64
single = float32
intp = int64
float_ = float64
int_ = int64

_BY_NAME = {d.name: d for d in (float64, float32, float16, int64, int32, int16, int8, uint8, uint16, bool_)}
_BY_TORCH = {str(d._torch): d for d in (float64, float32, float16, int64, int32, int16, int8, uint8, bool_)}


def _np_of(torch_dtype):
    """The NumPy dtype of a tensor's dtype."""
    d = _BY_TORCH.get(str(torch_dtype))
    if d is None:
        raise TypeError(f"cudash's NumPy has no dtype for {torch_dtype}")
    return d


def _str_dtype(strings):
    """The dtype of an array of `strings` (`<U5`: as long as the longest),
    holding them: the array's tensor holds positions in the list."""
    d = dtype(f"<U{_bmax([len(s) for s in strings] + [0])}", torch.int64, "U", 0)
    d.itemsize = 4 * _bmax([len(s) for s in strings] + [0])
    d._strings = strings
    return d


def _strings_array(values, shape):
    """An array of the strings `values` (flat, row-major) of `shape`."""
    d = _str_dtype(list(values))
    return _wrap(torch.arange(len(values)).reshape(shape), d)


def _dtype(d):
    """A dtype from what a program gives as one (`np.float32`, "float32", `float`)."""
    if isinstance(d, dtype):
        return d
    if d is str or d in ("U", "<U", "str"):
        return dtype("<U", torch.int64, "U", 0)
    if d is None or d is float:
        return float64
    if d is int:
        return int64
    if d is bool:
        return bool_
    if isinstance(d, str):
        name = {"f": "float32", "f4": "float32", "f8": "float64", "float": "float64", "double": "float64",
                "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "int": "int64", "long": "int64", "u1": "uint8", "u2": "uint16",
                "?": "bool", "<f4": "float32", "<f8": "float64", "<i8": "int64", "<u2": "uint16"}.get(d, d)
        if name in _BY_NAME:
            return _BY_NAME[name]
    raise TypeError(f"cudash's NumPy has no dtype {d!r}: it has {', '.join(_BY_NAME)}")


def _rank(d):
    return {"b": 0, "u": 1, "i": 1, "f": 2}[d.kind]


def _promote(a, b):
    """NumPy's result dtype of two array dtypes."""
    if a.name == b.name:
        return a
    ra, rb = _rank(a), _rank(b)
    if ra != rb:
        hi, lo = (a, b) if ra > rb else (b, a)
        if hi.kind == "f" and lo.kind in "iu" and lo.itemsize >= 4 and hi.itemsize < 8:
            return float64
        return hi
    if a.kind == "f":
        return a if a.itemsize >= b.itemsize else b
    if a.kind != b.kind:
        u, s = (a, b) if a.kind == "u" else (b, a)
        if s.itemsize > u.itemsize:
            return s
        return int64
    return a if a.itemsize >= b.itemsize else b


def _scalar_dtype(x, other):
    """The dtype a Python number takes beside an array of `other` (NEP 50)."""
    if isinstance(x, bool):
        return other
    if isinstance(x, int):
        return other if other.kind in "iuf" else int64
    return other if other.kind == "f" else float64


def _wrap(t, d=None):
    return ndarray(_t=t, _d=_np_of(t.dtype) if d is None else d)


def _from_tensor(t):
    """`t.numpy()`: the array over the tensor's own elements."""
    if t.requires_grad:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    if t.device.type != "cpu":
        raise TypeError(f"can't convert {t.device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.")
    _np_of(t.dtype)
    return _wrap(t)


def _unpickled(t, name):
    """An array a pickle held (`pickle.load`, `torch.load(weights_only=False)`)."""
    return _wrap(t, _BY_NAME[name])


def from_numpy(a):
    """`torch.from_numpy(a)`: the tensor under the array (they share it)."""
    if not isinstance(a, ndarray):
        raise TypeError(f"expected np.ndarray (got {type(a).__name__})")
    if a._t.dtype != a._d._torch:
        raise TypeError(f"cudash holds NumPy's {a._d.name} in int64: convert first (`a.astype(np.int64)`)")
    return a._t


def _operand(x, other_dtype):
    if isinstance(x, ndarray):
        return x._t, x._d
    if isinstance(x, torch.Tensor):
        return x, _np_of(x.dtype)
    if isinstance(x, (int, float, bool)):
        return x, _scalar_dtype(x, other_dtype)
    if isinstance(x, (list, tuple)):
        a = array(x)
        return a._t, a._d
    raise TypeError(f"unsupported operand type: {type(x).__name__}")


def _astype_strings(a, d):
    """`a.astype(d)` where either side holds strings: each string read as
    a number (`int("17711")`), or each number written as a string."""
    flat = a._t.reshape(-1).tolist()
    if a._d.kind == "U" and d.kind == "U":
        return _wrap(a._t.clone(), a._d)
    if d.kind == "U":
        cells = _cells(a)[0] if a.size else []
        out = _strings_array(cells, a.shape)
        # NumPy's width is the longest text any element of the dtype has.
        width = {"int64": 21, "int32": 11, "int16": 6, "int8": 4, "uint8": 3, "uint16": 5, "bool": 5}.get(a._d.name, 32)
        out._d.name = f"<U{width}"
        out._d.itemsize = 4 * width
        return out
    strings = [a._d._strings[p] for p in flat]
    if d.kind == "f":
        values = [float(s) for s in strings]
    elif d.kind == "b":
        values = [bool(s) for s in strings]
    else:
        values = [int(s) for s in strings]
    return array(values, d).reshape(a.shape)


def _nested(values, shape):
    """A flat list as nested lists of `shape`."""
    if len(shape) <= 1:
        return list(values)
    step = len(values) // shape[0] if shape[0] else 0
    return [_nested(values[k * step:(k + 1) * step], shape[1:]) for k in range(shape[0])]


def _string_binary(a, b, op):
    """`==` and `!=` of string arrays (or an array and a string),
    elementwise; NumPy's other operators are not defined for strings."""
    def strings(x):
        if isinstance(x, ndarray):
            return [x._d._strings[p] for p in x._t.reshape(-1).tolist()], x.shape
        return None, None
    (sa, shape_a), (sb, shape_b) = strings(a), strings(b)
    if op not in ("==", "!="):
        raise TypeError(f"cudash's NumPy has no `{op}` for string arrays")
    shape = shape_a if shape_a is not None else shape_b
    left = sa if sa is not None else [a] * len(sb)
    right = sb if sb is not None else [b] * len(sa)
    if len(left) != len(right):
        raise ValueError("operands could not be broadcast together")
    same = [(x == y) == (op == "==") for x, y in zip(left, right)]
    return _wrap(torch.tensor(same, dtype=torch.bool).reshape(shape), bool_)


def _binary(a, b, op, true_div=False, cmp=False):
    da = a._d if isinstance(a, ndarray) else None
    db = b._d if isinstance(b, ndarray) else None
    if (da is not None and da.kind == "U") or (db is not None and db.kind == "U"):
        raise TypeError("cudash's NumPy does no arithmetic on string arrays: convert first (`a.astype(np.int64)`)")
    ta, da = _operand(a, db if db is not None else float64)
    tb, db = _operand(b, da)
    d = _promote(da, db)
    if true_div and d.kind != "f":
        d = float64
    if isinstance(ta, torch.Tensor):
        ta = ta.to(d._torch)
    if isinstance(tb, torch.Tensor):
        tb = tb.to(d._torch)
    elif d.kind == "f":
        tb = float(tb)
    if not isinstance(ta, torch.Tensor):
        ta = torch.tensor(ta, dtype=d._torch)
    r = op(ta, tb)
    if cmp:
        return _wrap(r, bool_)
    if d.kind == "u" and r.dtype == torch.int64 and d._torch == torch.int64:
        r = r % 65536
    return _wrap(r, d if r.dtype == d._torch else None)


class ndarray:
    def __init__(self, shape=(), dtype=float, buffer=None, _t=None, _d=None):
        if _t is not None:
            self._t, self._d = _t, _d
            return
        d = _dtype(dtype)
        self._t = torch.zeros(_shape(shape), dtype=d._torch)
        self._d = d

    @property
    def shape(self):
        return tuple(self._t.shape)

    @property
    def ndim(self):
        return self._t.dim()

    @property
    def size(self):
        return self._t.numel()

    @property
    def dtype(self):
        return self._d

    @property
    def itemsize(self):
        return self._d.itemsize

    @property
    def nbytes(self):
        return self.size * self._d.itemsize

    @property
    def T(self):
        return _wrap(self._t.permute(*reversed(range(self.ndim))), self._d)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self._t.shape[0]

    def __iter__(self):
        for k in range(len(self)):
            yield self[k]

    def _value(self, t):
        if t.dim() == 0 and self._d.kind == "U":
            return self._d._strings[t.item()]
        if t.dim() == 0:
            v = t.item()
            return float(v) if self._d.kind == "f" else (bool(v) if self._d.kind == "b" else int(v))
        return _wrap(t, self._d)

    def __getitem__(self, key):
        return self._value(self._t[_index(key)])

    def __setitem__(self, key, value):
        if isinstance(value, (list, tuple)):
            value = array(value, dtype=self._d)
        if isinstance(value, ndarray):
            value = value._t
        if isinstance(value, torch.Tensor):
            value = value.to(self._d._torch)
        self._t[_index(key)] = value

    def astype(self, dtype, copy=True):
        d = _dtype(dtype)
        if self._d.kind == "U" or d.kind == "U":
            return _astype_strings(self, d)
        t = self._t
        if d.kind in "iu" and t.is_floating_point():
            t = t.trunc()
        t = t.to(d._torch)
        if d.kind == "u" and t.dtype == torch.int64:
            t = t % 65536
        if copy and t is self._t:
            t = t.clone()
        return _wrap(t, d)

    def round(self, decimals=0, out=None):
        return round(self, decimals)

    def copy(self):
        return _wrap(self._t.clone(), self._d)

    def tolist(self):
        if self.ndim == 0:
            return self.item()
        if self._d.kind == "U":
            return _nested([self._d._strings[p] for p in self._t.reshape(-1).tolist()], list(self.shape))
        return self._t.tolist()

    def item(self, *index):
        t = self._t[tuple(index)] if index else self._t
        if t.numel() != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self._value(t.reshape(()))

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return _wrap(self._t.reshape(*shape), self._d)

    def flatten(self):
        return _wrap(self._t.flatten().clone(), self._d)

    def ravel(self):
        return _wrap(self._t.flatten(), self._d)

    def transpose(self, *axes):
        if not axes:
            return self.T
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = axes[0]
        return _wrap(self._t.permute(*axes), self._d)

    def squeeze(self, axis=None):
        return _wrap(self._t.squeeze() if axis is None else self._t.squeeze(axis), self._d)

    def dot(self, other):
        return dot(self, other)

    def sum(self, axis=None, keepdims=False):
        return sum(self, axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return mean(self, axis, keepdims=keepdims)

    def std(self, axis=None, ddof=0):
        return std(self, axis, ddof=ddof)

    def var(self, axis=None, ddof=0):
        return var(self, axis, ddof=ddof)

    def max(self, axis=None, keepdims=False):
        return max(self, axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return min(self, axis, keepdims=keepdims)

    def argmax(self, axis=None):
        return argmax(self, axis)

    def argmin(self, axis=None):
        return argmin(self, axis)

    def fill(self, value):
        self._t.fill_(value)

    def __add__(self, o):
        return _binary(self, o, lambda a, b: a + b)

    def __radd__(self, o):
        return _binary(o, self, lambda a, b: a + b)

    def __sub__(self, o):
        return _binary(self, o, lambda a, b: a - b)

    def __rsub__(self, o):
        return _binary(o, self, lambda a, b: a - b)

    def __mul__(self, o):
        return _binary(self, o, lambda a, b: a * b)

    def __rmul__(self, o):
        return _binary(o, self, lambda a, b: a * b)

    def __truediv__(self, o):
        return _binary(self, o, lambda a, b: a / b, true_div=True)

    def __rtruediv__(self, o):
        return _binary(o, self, lambda a, b: a / b, true_div=True)

    def __floordiv__(self, o):
        return _binary(self, o, lambda a, b: a // b)

    def __mod__(self, o):
        return _binary(self, o, lambda a, b: a % b)

    def __pow__(self, o):
        return _binary(self, o, lambda a, b: a ** b)

    def __matmul__(self, o):
        return matmul(self, o)

    def __neg__(self):
        return _wrap(-self._t, self._d)

    def __abs__(self):
        return _wrap(self._t.abs(), self._d)

    def __lt__(self, o):
        return _binary(self, o, lambda a, b: a < b, cmp=True)

    def __le__(self, o):
        return _binary(self, o, lambda a, b: a <= b, cmp=True)

    def __gt__(self, o):
        return _binary(self, o, lambda a, b: a > b, cmp=True)

    def __ge__(self, o):
        return _binary(self, o, lambda a, b: a >= b, cmp=True)

    def __eq__(self, o):
        if self._d.kind == "U" or isinstance(o, str):
            return _string_binary(self, o, "==")
        return _binary(self, o, lambda a, b: a == b, cmp=True)

    def __ne__(self, o):
        if self._d.kind == "U" or isinstance(o, str):
            return _string_binary(self, o, "!=")
        return _binary(self, o, lambda a, b: a != b, cmp=True)

    def __and__(self, o):
        return _binary(self, o, lambda a, b: a & b)

    def __or__(self, o):
        return _binary(self, o, lambda a, b: a | b)

    def __invert__(self):
        return _wrap(~self._t, self._d)

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()")
        return bool(self._t.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def any(self):
        return bool(self._t.any().item())

    def all(self):
        return bool(self._t.all().item())

    def __repr__(self):
        return _repr(self)

    def __str__(self):
        return _str(self)


def _shape(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(shape)


def _index(key):
    if isinstance(key, ndarray):
        return key._t
    if isinstance(key, tuple):
        return tuple(k._t if isinstance(k, ndarray) else k for k in key)
    return key


def _infer(x):
    """The dtype NumPy gives a nested list of Python values."""
    kinds = set()

    def walk(v):
        if isinstance(v, (list, tuple)):
            for w in v:
                walk(w)
        elif isinstance(v, ndarray):
            kinds.add(v._d.kind)
        elif not isinstance(v, (str, bytes, int, float, bool)) and hasattr(v, "__array__"):
            walk(v.__array__())
        elif isinstance(v, str):
            kinds.add("U")
        elif isinstance(v, bool):
            kinds.add("b")
        elif isinstance(v, int):
            kinds.add("i")
        else:
            kinds.add("f")

    walk(x)
    if "U" in kinds:
        return dtype("<U", torch.int64, "U", 0)
    if "f" in kinds:
        return float64
    if "i" in kinds or "u" in kinds:
        return int64
    return bool_ if kinds else float64


def array(obj, dtype=None, copy=True):
    if isinstance(obj, ndarray):
        d = obj._d if dtype is None else _dtype(dtype)
        out = obj.astype(d)
        return out
    if isinstance(obj, torch.Tensor):
        t = obj.detach().cpu()
        d = _np_of(t.dtype) if dtype is None else _dtype(dtype)
        return _wrap(t.to(d._torch).clone(), d)
    if isinstance(obj, range):
        obj = list(obj)
    if hasattr(obj, "__array__"):
        return array(obj.__array__(), dtype)
    d = _infer(obj) if dtype is None else _dtype(dtype)
    values = _plain(obj)
    if d.kind == "U":
        flat, shape = _flatten(values)
        return _strings_array([str(v) for v in flat], shape)
    if d.kind == "u":
        t = (torch.tensor(values, dtype=torch.int64) % (256 if d.itemsize == 1 else 65536)).to(d._torch)
    else:
        t = torch.tensor(values, dtype=d._torch)
    return _wrap(t, d)


def _plain(v):
    if isinstance(v, ndarray):
        return v.tolist()
    if isinstance(v, (list, tuple)):
        return [_plain(w) for w in v]
    if isinstance(v, torch.Tensor):
        return v.tolist()
    # `np.array([series])`: an array-like inside a list is its array.
    if not isinstance(v, (str, bytes, int, float, bool)) and hasattr(v, "__array__"):
        return _plain(v.__array__())
    return v


def _flatten(values):
    """A nested list's items in row-major order, and its shape."""
    if not isinstance(values, list):
        return [values], ()
    parts = [_flatten(v) for v in values]
    inner = parts[0][1] if parts else ()
    return [x for flat, _ in parts for x in flat], (len(values),) + tuple(inner)


_BUFFER_CODES = {"uint8": "B", "int8": "b", "bool": "?", "int16": "h", "uint16": "H", "int32": "i",
                 "int64": "q", "float16": "e", "float32": "f", "float64": "d"}


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """`np.frombuffer(data, np.uint8, offset=16)`: bytes read as elements of
    `dtype`, little-endian (a `">i4"` dtype big-endian); a new array."""
    big = isinstance(dtype, str) and dtype.startswith(">")
    if isinstance(dtype, str) and dtype[:1] in ("<", ">", "=", "|") and len(dtype) > 1:
        dtype = dtype[1:]
    d = _dtype(dtype)
    return _wrap(_cudash.frombuffer(buffer, _BUFFER_CODES[d.name], big, count, offset), d)


def asarray(obj, dtype=None):
    if isinstance(obj, ndarray) and (dtype is None or _dtype(dtype) == obj._d):
        return obj
    return array(obj, dtype)


def zeros(shape, dtype=float):
    d = _dtype(dtype)
    return _wrap(torch.zeros(_shape(shape), dtype=d._torch), d)


def ones(shape, dtype=float):
    d = _dtype(dtype)
    return _wrap(torch.ones(_shape(shape), dtype=d._torch), d)


def empty(shape, dtype=float):
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    d = _dtype(dtype) if dtype is not None else _infer(fill_value)
    return _wrap(torch.full(_shape(shape), fill_value, dtype=d._torch), d)


def zeros_like(a, dtype=None):
    return zeros(a.shape, a.dtype if dtype is None else dtype)


def ones_like(a, dtype=None):
    return ones(a.shape, a.dtype if dtype is None else dtype)


def arange(start, stop=None, step=1, dtype=None):
    if stop is None:
        start, stop = 0, start
    d = _dtype(dtype) if dtype is not None else _infer([start, stop, step])
    if d.kind == "f":
        n = _bmax(int(math.ceil((stop - start) / step)), 0)
        t = torch.arange(n, dtype=torch.float64) * step + start
        return _wrap(t.to(d._torch), d)
    return _wrap(torch.arange(start, stop, step, dtype=d._torch), d)


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    d = _dtype(dtype)
    if endpoint:
        t = torch.linspace(start, stop, num, dtype=torch.float64)
    else:
        t = torch.arange(num, dtype=torch.float64) * ((stop - start) / num) + start
    return _wrap(t.to(d._torch), d)


def _t(x):
    if isinstance(x, ndarray):
        return x._t, x._d
    if isinstance(x, (int, float, bool)):
        a = array(x)
        return a._t, a._d
    a = array(x)
    return a._t, a._d


def _into(r, out):
    """A ufunc's `out=`: the result written into the array given (cast
    to its dtype), which is returned."""
    if isinstance(out, tuple):
        out = out[0]
    if not isinstance(out, ndarray):
        raise TypeError("return arrays must be of ArrayType")
    out._t.copy_(r._t if isinstance(r, ndarray) else torch.tensor(r))
    return out


def _unary(f, out_float=True):
    def g(x, out=None):
        if out is None and isinstance(x, (int, float)) and not isinstance(x, bool):
            return f(torch.tensor(float(x), dtype=torch.float64)).item()
        t, d = _t(x)
        if out_float and d.kind != "f":
            t, d = t.to(torch.float64), float64
        r = _wrap(f(t), d)
        return r if out is None else _into(r, out)
    return g


def _ufunc(op, true_div=False):
    """NumPy's two-operand ufuncs (`np.add(a, b, out=a)`)."""
    def f(x1, x2, out=None):
        r = _binary(x1, x2, op, true_div=true_div)
        return r if out is None else _into(r, out)
    return f


add = _ufunc(lambda a, b: a + b)
subtract = _ufunc(lambda a, b: a - b)
multiply = _ufunc(lambda a, b: a * b)
divide = _ufunc(lambda a, b: a / b, true_div=True)
true_divide = divide
power = _ufunc(lambda a, b: a ** b)


exp = _unary(torch.exp)
log = _unary(torch.log)
log2 = _unary(torch.log2)
log10 = _unary(torch.log10)
log1p = _unary(torch.log1p)
sqrt = _unary(torch.sqrt)
sin = _unary(torch.sin)
cos = _unary(torch.cos)
tan = _unary(torch.tan)
tanh = _unary(torch.tanh)
arctan = _unary(torch.atan)
floor = _unary(torch.floor)
ceil = _unary(torch.ceil)
abs = _unary(torch.abs, out_float=False)
absolute = abs
square = _unary(torch.square, out_float=False)
sign = _unary(torch.sign, out_float=False)


def maximum(a, b):
    return _binary(asarray(a), b, torch.maximum if isinstance(b, ndarray) else lambda x, y: torch.clamp(x, min=y))


def minimum(a, b):
    return _binary(asarray(a), b, torch.minimum if isinstance(b, ndarray) else lambda x, y: torch.clamp(x, max=y))


def clip(a, a_min, a_max):
    a = asarray(a)
    return _wrap(a._t.clamp(a_min, a_max), a._d)


def where(condition, x=None, y=None):
    c = asarray(condition)._t.bool()
    if x is None and y is None:
        return tuple(_wrap(i) for i in torch.nonzero(c, as_tuple=True))
    xa, ya = asarray(x), asarray(y)
    d = _promote(xa._d, ya._d)
    return _wrap(torch.where(c, xa._t.to(d._torch), ya._t.to(d._torch)), d)


def _reduce(a, axis, keepdims, f, keep_dtype=False):
    """`f(t, dim)` over `axis` (all of it: None); a 0-d result is a number.
    `max`/`min` keep the array's dtype (a uint8's stays uint8)."""
    a = asarray(a)
    t = a._t
    r = f(t.reshape(-1), 0) if axis is None else f(t, axis)
    if keepdims:
        r = r.reshape((1,) * a.ndim) if axis is None else r.unsqueeze(axis)
    out = _wrap(r, a._d if keep_dtype else None)
    return out._value(r) if r.dim() == 0 else out


def sum(a, axis=None, keepdims=False):
    a = asarray(a)
    return _reduce(a, axis, keepdims, lambda t, k: t.sum(k))


def mean(a, axis=None, keepdims=False):
    a = asarray(a)
    if a._d.kind != "f":
        a = a.astype(float64)
    return _reduce(a, axis, keepdims, lambda t, k: t.mean(k))


def var(a, axis=None, ddof=0):
    a = asarray(a).astype(float64) if asarray(a)._d.kind != "f" else asarray(a)
    return _reduce(a, axis, False, lambda t, k: t.var(k, correction=ddof))


def std(a, axis=None, ddof=0):
    a = asarray(a).astype(float64) if asarray(a)._d.kind != "f" else asarray(a)
    return _reduce(a, axis, False, lambda t, k: t.std(k, correction=ddof))


def max(a, axis=None, keepdims=False):
    return _reduce(a, axis, keepdims, lambda t, k: t.amax(k), keep_dtype=True)


def min(a, axis=None, keepdims=False):
    return _reduce(a, axis, keepdims, lambda t, k: t.amin(k), keep_dtype=True)


amax = max
amin = min


def argwhere(a):
    """The indices of the nonzero elements, one row each (int64)."""
    a = asarray(a)
    return _wrap(torch.nonzero(a._t))


def nonzero(a):
    """A tuple of index arrays, one per dimension, of the nonzero elements."""
    a = asarray(a)
    return tuple(_wrap(i) for i in torch.nonzero(a._t, as_tuple=True))


def flatnonzero(a):
    """The flat indices of the nonzero elements."""
    return _wrap(torch.nonzero(asarray(a)._t.reshape(-1)).reshape(-1))


def argmax(a, axis=None):
    a = asarray(a)
    r = a._t.reshape(-1).argmax() if axis is None else a._t.argmax(axis)
    return int(r.item()) if r.dim() == 0 else _wrap(r)


def argmin(a, axis=None):
    a = asarray(a)
    r = a._t.reshape(-1).argmin() if axis is None else a._t.argmin(axis)
    return int(r.item()) if r.dim() == 0 else _wrap(r)


def prod(a, axis=None):
    a = asarray(a)
    return _reduce(a, axis, False, lambda t, k: t.prod(k))


def cumsum(a, axis=None):
    a = asarray(a)
    t = a._t.reshape(-1) if axis is None else a._t
    return _wrap(t.cumsum(0 if axis is None else axis))


def dot(a, b):
    a, b = asarray(a), asarray(b)
    d = _promote(a._d, b._d)
    ta, tb = a._t.to(d._torch), b._t.to(d._torch)
    if a.ndim == 0 or b.ndim == 0:
        return _wrap(ta * tb, d)
    r = ta @ tb
    return _wrap(r, d)._value(r) if r.dim() == 0 else _wrap(r, d)


matmul = dot


def concatenate(arrays, axis=0):
    arrays = [asarray(x) for x in arrays]
    d = arrays[0]._d
    for x in arrays[1:]:
        d = _promote(d, x._d)
    return _wrap(torch.cat([x._t.to(d._torch) for x in arrays], axis), d)


def stack(arrays, axis=0):
    arrays = [asarray(x) for x in arrays]
    d = arrays[0]._d
    for x in arrays[1:]:
        d = _promote(d, x._d)
    return _wrap(torch.stack([x._t.to(d._torch) for x in arrays], axis), d)


def vstack(arrays):
    return concatenate([x.reshape(1, -1) if asarray(x).ndim == 1 else x for x in arrays], 0)


def array_split(ary, indices_or_sections, axis=0):
    """Parts of `ary` along `axis`: N parts as equal as can be (the first
    `len % N` one longer), or cut at the indices given."""
    a = asarray(ary)
    n = a.shape[axis]
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, sections)
        cuts = [0]
        for k in range(sections):
            cuts.append(cuts[-1] + each + (1 if k < extra else 0))
    else:
        cuts = [0] + [int(i) if 0 <= int(i) <= n else (0 if int(i) < 0 else n) for i in indices_or_sections] + [n]
    parts = []
    for k in range(len(cuts) - 1):
        start = cuts[k]
        stop = cuts[k + 1] if cuts[k + 1] > start else start
        parts.append(_wrap(a._t.narrow(axis, start, stop - start), a._d))
    return parts


def split(ary, indices_or_sections, axis=0):
    """`array_split`, where N parts must be equal."""
    if isinstance(indices_or_sections, int) and asarray(ary).shape[axis] % indices_or_sections:
        raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


def round(a, decimals=0, out=None):
    """NumPy's round: halves to even, to `decimals` places (`x * 10**n`
    rounded, then divided back, in the array's dtype)."""
    t, d = _t(a)
    if not t.is_floating_point():
        if decimals >= 0:
            return _wrap(t.clone(), d)
        return _wrap(torch.round(t.double(), decimals=decimals).to(t.dtype), d)
    return _wrap(torch.round(t, decimals=decimals) if decimals else torch.round(t), d)


around = round


def ravel(a, order="C"):
    return asarray(a).ravel()


def reshape(a, shape):
    return asarray(a).reshape(shape)


def transpose(a, axes=None):
    return asarray(a).T if axes is None else asarray(a).transpose(axes)


def unique(a, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """The sorted distinct elements; with `return_index`, each one's first
    position; `return_inverse`, each element's place among them (in the
    input's shape); `return_counts`, how often each occurs."""
    a = asarray(a)
    if axis is not None:
        raise NotImplementedError("cudash's np.unique has no axis")
    if a._d.kind == "U":
        flat = [a._d._strings[p] for p in a._t.reshape(-1).tolist()]
    else:
        flat = a._t.reshape(-1).tolist()
    distinct = sorted(set(flat))
    place = {v: k for k, v in enumerate(distinct)}
    if a._d.kind == "U":
        out = [_strings_array(distinct, (len(distinct),))]
    else:
        out = [_wrap(torch.tensor(distinct, dtype=a._t.dtype).reshape(-1), a._d)]
    if return_index:
        first = {}
        for k, v in enumerate(flat):
            first.setdefault(v, k)
        out.append(_wrap(torch.tensor([first[v] for v in distinct], dtype=torch.int64).reshape(-1), int64))
    if return_inverse:
        inverse = torch.tensor([place[v] for v in flat], dtype=torch.int64).reshape(a.shape)
        out.append(_wrap(inverse, int64))
    if return_counts:
        counts = [0] * len(distinct)
        for v in flat:
            counts[place[v]] += 1
        out.append(_wrap(torch.tensor(counts, dtype=torch.int64).reshape(-1), int64))
    return out[0] if len(out) == 1 else tuple(out)


def argsort(a):
    a = asarray(a)
    return _wrap(torch.argsort(a._t, stable=True))


def sort(a):
    a = asarray(a)
    return _wrap(torch.sort(a._t, stable=True).values, a._d)


def isnan(a):
    return _wrap(asarray(a)._t.isnan(), bool_)


def allclose(a, b, rtol=1e-05, atol=1e-08):
    a, b = asarray(a), asarray(b)
    return bool(torch.allclose(a._t.double(), b._t.double(), rtol=rtol, atol=atol))


def array_equal(a, b):
    a, b = asarray(a), asarray(b)
    return a.shape == b.shape and bool((a._t == b._t).all())


class memmap(ndarray):
    """The elements of a binary file, read now (`mode="r"`), in `dtype`."""

    def __init__(self, filename, dtype=uint8, mode="r+", offset=0, shape=None):
        if mode not in ("r", "c"):
            raise ValueError(f"cudash's memmap reads files (mode 'r'), not mode {mode!r}")
        d = _dtype(dtype)
        t = _cudash.np_read(str(filename), d.name, offset)
        if shape is not None:
            t = t.reshape(_shape(shape))
        self._t = t
        self._d = d


class _RandomState:
    """NumPy's legacy generator: MT19937 seeded as `np.random.seed` seeds
    it, its doubles, Gaussians (the polar method, one kept) and bounded
    integers drawn as NumPy's `RandomState` draws them."""

    def seed(self, seed=None):
        _cudash.np_seed(seed)

    def rand(self, *shape):
        return self.random_sample(shape if shape else None)

    def random_sample(self, size=None):
        return _sized(size, lambda n: _cudash.np_uniform(n), float64)

    def random(self, size=None):
        return self.random_sample(size)

    def randn(self, *shape):
        return self.standard_normal(shape if shape else None)

    def standard_normal(self, size=None):
        return _sized(size, lambda n: _cudash.np_gauss(n), float64)

    def normal(self, loc=0.0, scale=1.0, size=None):
        z = self.standard_normal(size)
        return z * scale + loc

    def uniform(self, low=0.0, high=1.0, size=None):
        u = self.random_sample(size)
        return u * (high - low) + low

    def randint(self, low, high=None, size=None, dtype=int):
        if high is None:
            low, high = 0, low
        if high <= low:
            raise ValueError("low >= high")
        return _sized(size, lambda n: _cudash.np_randint(low, high, n), _dtype(dtype))

    def permutation(self, x):
        if isinstance(x, int):
            return _wrap(_cudash.np_permutation(x))
        a = asarray(x).copy()
        self.shuffle(a)
        return a

    def shuffle(self, x):
        n = len(x)
        order = _cudash.np_permutation(n).tolist()
        items = [x[i] for i in order]
        for k in range(n):
            x[k] = items[k]

    def choice(self, a, size=None, replace=True, p=None):
        if p is not None or not replace:
            raise NotImplementedError("cudash's np.random.choice draws with replacement and equal chances")
        n = a if isinstance(a, int) else len(a)
        idx = self.randint(0, n, size)
        if isinstance(a, int):
            return idx
        pool = asarray(a)
        return pool[idx] if size is not None else pool[int(idx)]


def _sized(size, draw, d):
    if size is None:
        t = draw(1)
        v = t[0].item()
        return float(v) if d.kind == "f" else int(v)
    shape = _shape(size)
    n = 1
    for s in shape:
        n *= s
    t = draw(n).reshape(shape)
    return _wrap(t.to(d._torch), d)


random = _RandomState()
random.RandomState = _RandomState


def _fmt_float(x, shortest=None):
    """NumPy's positional text of a float: its shortest decimal (of the
    float32 itself for a float32 array), at most 8 decimals."""
    if x != x:
        return "nan"
    if x in (math.inf, -math.inf):
        return "inf" if x > 0 else "-inf"
    s = repr(float(x)) if shortest is None else shortest
    if "e" in s or ("." in s and len(s.split(".")[1]) > 8):
        s = f"{x:.8f}".rstrip("0")
    if s.endswith(".0"):
        s = s[:-1]
    if "." not in s:
        s = s + "."
    return s


def _digits(text):
    """How many significant digits a number's shortest text has."""
    m = text.lower().split("e")[0].lstrip("-").replace(".", "").lstrip("0").rstrip("0")
    return len(m) if m else 1


def _scientific(values, shortest):
    """NumPy's scientific form of an array's floats: each with the mantissa
    digits the longest needs (at most 8), exponents of two digits or more."""
    finite = [v for v in values if v == v and v not in (math.inf, -math.inf)]
    prec = 0
    for v, t in zip(values, shortest):
        if v in finite:
            prec = _bmax(prec, _bmin(_digits(t) - 1, 8))
    cells = []
    for v in values:
        if v != v:
            cells.append("nan")
        elif v in (math.inf, -math.inf):
            cells.append("inf" if v > 0 else "-inf")
        else:
            m, exp = f"{v:.{prec}e}".split("e")
            if prec == 0:
                m = m + "."
            cells.append(m + "e" + exp)
    return cells


def _cells(a):
    values = a._t.reshape(-1).tolist()
    if a._d.kind == "U":
        return [repr(a._d._strings[p]) for p in values], False
    if a._d.kind == "b":
        return [("True" if v else "False") for v in values], False
    if a._d.kind in "iu":
        return [str(int(v)) for v in values], False
    if a._d.name in ("float32", "float16"):
        shortest = _cudash.np_f32_text(a._t)
    else:
        shortest = [repr(float(v)) for v in values]
    nonzero = [_babs(v) for v in values if v == v and v not in (math.inf, -math.inf) and v != 0]
    if nonzero:
        hi, lo = _bmax(nonzero), _bmin(nonzero)
        if hi >= 1.0e8 or lo < 0.0001 or hi / lo > 1000.0:
            return _scientific(values, shortest), True
    return [_fmt_float(v, t) for v, t in zip(values, shortest)], True


def _layout(a, sep):
    cells, floats = _cells(a)
    if floats:
        whole = _bmax([len(c.split(".")[0]) for c in cells if "." in c] + [0])
        frac = _bmax([len(c.split(".")[1]) for c in cells if "." in c] + [0])
        out = []
        for c in cells:
            if "." in c:
                w, f = c.split(".")
                out.append(" " * (whole - len(w)) + w + "." + f + " " * (frac - len(f)))
            else:
                out.append(c.rjust(whole + 1 + frac))
        cells = out
    elif a._d.kind != "U":
        width = _bmax([len(c) for c in cells] + [0])
        cells = [c.rjust(width) for c in cells]
    return cells


def _nest(cells, shape, indent, sep, width=75):
    if not shape:
        return cells[0]
    if len(shape) == 1:
        lines, line = [], "["
        for k, c in enumerate(cells):
            piece = c + (sep if k + 1 < len(cells) else "")
            if len(line) + len(piece.rstrip()) > width - 1 and line.strip("["):
                lines.append(line.rstrip())
                line = " " * indent + "["[:0] + " "
            line += piece
        lines.append(line + "]")
        return ("\n" + " " * 0).join(lines)
    n = shape[0]
    step = len(cells) // n if n else 0
    parts = [_nest(cells[k * step:(k + 1) * step], shape[1:], indent + 1, sep, width) for k in range(n)]
    joiner = sep.rstrip() + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + joiner.join(parts) + "]"


def _str(a):
    if a.ndim == 0:
        return _cells(a)[0][0]
    return _nest(_layout(a, " "), list(a.shape), 0, " ")


def _repr(a):
    if a.ndim == 0:
        return f"array({_cells(a)[0][0]})"
    if a.size == 0:
        # NumPy names an empty array's dtype always, and its shape unless it is (0,).
        shape = "" if a.ndim == 1 else f"shape={a.shape}, "
        return f"array([], {shape}dtype={a._d.name})"
    body = _nest(_layout(a, ", "), list(a.shape), 6, ", ")
    extra = "" if a._d.name in ("float64", "int64", "bool") else f", dtype={a._d.name}"
    if a._d.kind == "U":
        extra = f", dtype='{a._d.name}'"
    return f"array({body}{extra})"


def load(file, mmap_mode=None, allow_pickle=False, **kwargs):
    """A `.npy` file's array (`np.save`'s, or NumPy's own)."""
    path = str(file)
    if not path.endswith(".npy"):
        raise NotImplementedError(f"cudash's np.load reads .npy files, not {path!r}")
    t = torch.load(path)
    return _wrap(t, _np_of(t.dtype))


def save(file, arr, allow_pickle=True):
    """`arr` as a `.npy` file (the suffix added if missing), as NumPy writes it."""
    path = str(file)
    if not path.endswith(".npy"):
        path += ".npy"
    torch.save(asarray(arr)._t, path)


def _read_table(fname, delimiter, skip, comments, usecols):
    """The rows of a text file's table: each line's fields (split at
    `delimiter`, or at whitespace), comments and blank lines left out."""
    rows = []
    with open(fname) as f:
        for k, line in enumerate(f):
            if k < skip:
                continue
            if comments is not None and comments in line:
                line = line[:line.index(comments)]
            line = line.strip()
            if not line:
                continue
            fields = line.split() if delimiter is None else [x.strip() for x in line.split(delimiter)]
            if usecols is not None:
                cols = [usecols] if isinstance(usecols, int) else list(usecols)
                fields = [fields[c] for c in cols]
            rows.append(fields)
    return rows


def _table_array(rows, dtype):
    d = _dtype(dtype)
    width = len(rows[0]) if rows else 0
    for k, r in enumerate(rows):
        if len(r) != width:
            raise ValueError(f"Some errors were detected !\n    Line #{k + 1} (got {len(r)} columns instead of {width})")
    flat = [x for r in rows for x in r]
    shape = (len(rows), width) if width != 1 else (len(rows),)
    if len(rows) == 1 and width != 1:
        shape = (width,)
    if d.kind == "U":
        return _strings_array(flat, shape)
    if d.kind == "f":
        values = []
        for x in flat:
            try:
                values.append(float(x))
            except ValueError:
                values.append(nan)
    elif d.kind == "b":
        values = [x not in ("0", "False", "") for x in flat]
    else:
        values = [int(x) for x in flat]
    return array(values, d).reshape(shape)


def genfromtxt(fname, dtype=float, comments="#", delimiter=None, skip_header=0, usecols=None, **kwargs):
    """A text file's table as an array (`np.genfromtxt`): one row a line,
    fields split at `delimiter` (whitespace when None); with `dtype=str` the
    fields as strings, else numbers (a float field that does not read is
    nan)."""
    return _table_array(_read_table(str(fname), delimiter, skip_header, comments, usecols), dtype)


def loadtxt(fname, dtype=float, comments="#", delimiter=None, skiprows=0, usecols=None, **kwargs):
    """A text file's table as an array (`np.loadtxt`): as `genfromtxt`, a
    field that does not read as `dtype` an error."""
    rows = _read_table(str(fname), delimiter, skiprows, comments, usecols)
    d = _dtype(dtype)
    if d.kind == "f":
        for r in rows:
            for x in r:
                float(x)
    return _table_array(rows, d)
