# pandas, the part PyTorch programs use to read a table of labels (written
# for cudash, after pandas 3): `read_csv`, a `DataFrame` of columns with
# `iloc`, `loc`, `head`, `tail`, `shape`, `columns`, `iterrows`,
# `to_numpy`, `to_csv`, row selection by a mask, and a `Series` with
# `tolist`, `to_numpy`, `unique`, `value_counts`, sums and means,
# comparisons and arithmetic with numbers. Columns are inferred as pandas
# does: `int64`, `float64` (an empty field is NaN) or `str`. Printed as
# pandas prints a small table.
import csv
import math

import numpy as np

__version__ = "3.0.0"

NaN = float("nan")
nan = NaN


def isna(v):
    if isinstance(v, Series):
        return Series([_missing(x) for x in v._values], v.index, v.name)
    return _missing(v)


isnull = isna


def notna(v):
    if isinstance(v, Series):
        return Series([not _missing(x) for x in v._values], v.index, v.name)
    return not _missing(v)


def _missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


def _dtype_of(values):
    kinds = set()
    for v in values:
        if isinstance(v, bool):
            kinds.add("bool")
        elif isinstance(v, int):
            kinds.add("int64")
        elif isinstance(v, float):
            kinds.add("float64")
        else:
            kinds.add("str" if isinstance(v, str) else "object")
    if not kinds:
        return "object"
    if len(kinds) == 1:
        return next(iter(kinds))
    if kinds <= {"int64", "float64"}:
        return "float64"
    return "object"


def _common(values):
    # Values of one dtype: ints among floats become floats.
    if _dtype_of(values) == "float64":
        return [float(v) for v in values]
    return list(values)


def _parse(text):
    # A CSV column's values as pandas infers them.
    if all(t == "" or _is_int(t) for t in text) and any(t != "" for t in text):
        if all(t != "" for t in text):
            return [int(t) for t in text]
        return [float(t) if t != "" else NaN for t in text]
    if all(t == "" or _is_float(t) for t in text) and any(t != "" for t in text):
        return [float(t) if t != "" else NaN for t in text]
    return [t if t != "" else NaN for t in text]


def _is_int(t):
    t = t.strip()
    if t[:1] in "+-":
        t = t[1:]
    return t.isdigit()


def _is_float(t):
    try:
        float(t)
        return True
    except ValueError:
        return False


def _format_column(values):
    # Each value as pandas writes it in a table: floats with a common
    # number of decimals (at most 6, trailing zeros dropped together).
    floats = [v for v in values if isinstance(v, float) and not math.isnan(v)]
    if floats and all(isinstance(v, float) for v in values):
        if any(abs(v) >= 1e16 or (v != 0 and abs(v) < 1e-4) for v in floats):
            return ["NaN" if math.isnan(v) else f"{v:.6e}" for v in values]
        texts = [f"{v:.6f}" for v in floats]
        decimals = 1
        for t in texts:
            frac = t.split(".")[1].rstrip("0")
            decimals = max(decimals, len(frac))
        return ["NaN" if math.isnan(v) else f"{v:.{decimals}f}" for v in values]
    return ["NaN" if _missing(v) else str(v) for v in values]


class _DType:
    """A column's dtype (`df.dtypes`), equal to its name."""

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return str(other) == self.name

    def __repr__(self):
        return self.name

    __str__ = __repr__


class Index:
    """The labels of rows or columns."""

    def __init__(self, labels, dtype=None, name=None):
        self._labels = list(labels)
        self.name = name
        self.dtype = dtype or ("str" if all(isinstance(x, str) for x in self._labels) else _dtype_of(self._labels))

    def tolist(self):
        return list(self._labels)

    to_list = tolist

    def __iter__(self):
        return iter(self._labels)

    def __len__(self):
        return len(self._labels)

    def __getitem__(self, i):
        return self._labels[i]

    def __contains__(self, x):
        return x in self._labels

    def __eq__(self, other):
        return [a == b for a, b in zip(self._labels, list(other))]

    def __repr__(self):
        return f"Index({self._labels!r}, dtype='{self.dtype}')"

    @property
    def values(self):
        return np.array(self._labels)


class RangeIndex(Index):
    def __init__(self, n):
        super().__init__(range(n), "int64")
        self._n = n

    def __repr__(self):
        return f"RangeIndex(start=0, stop={self._n}, step=1)"


def _at(seq, i):
    n = len(seq)
    if i < -n or i >= n:
        raise IndexError("single positional indexer is out-of-bounds")
    return i % n


def _positions(key, n):
    # The positions an `iloc` key picks: (positions, whether one).
    if isinstance(key, bool):
        raise TypeError("Cannot index by location index with a non-integer key")
    if isinstance(key, int):
        return [_at(range(n), key)], True
    if isinstance(key, slice):
        return list(range(n))[key], False
    if isinstance(key, Series):
        key = key._values
    key = list(key)
    if key and all(isinstance(k, bool) for k in key):
        return [i for i, k in enumerate(key) if k], False
    return [_at(range(n), k) for k in key], False


class Series:
    """One column (or one row) of values, with labels."""

    def __init__(self, data=None, index=None, name=None, dtype=None):
        if isinstance(data, Series):
            values = list(data._values)
            index = index if index is not None else data.index.tolist()
        elif isinstance(data, dict):
            index = list(data.keys()) if index is None else index
            values = [data[k] for k in index]
        elif data is None:
            values = []
        elif isinstance(data, (int, float, str)):
            values = [data] * (len(index) if index is not None else 1)
        else:
            values = list(data.tolist() if hasattr(data, "tolist") else data)
        if dtype is not None:
            values = [_cast(v, dtype) for v in values]
        self._values = _common(values)
        self.index = Index(index) if index is not None else RangeIndex(len(self._values))
        if isinstance(index, Index):
            self.index = index
        self.name = name

    @property
    def dtype(self):
        return _dtype_of(self._values)

    @property
    def values(self):
        return np.array(self._values)

    def to_numpy(self, dtype=None):
        return np.array(self._values, dtype=dtype)

    def __array__(self, dtype=None):
        return self.to_numpy(dtype)

    def tolist(self):
        return list(self._values)

    to_list = tolist

    def __len__(self):
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    @property
    def shape(self):
        return (len(self._values),)

    @property
    def size(self):
        return len(self._values)

    @property
    def iloc(self):
        return _SeriesILoc(self)

    @property
    def loc(self):
        return _SeriesLoc(self)

    def __getitem__(self, key):
        if isinstance(key, (Series, list)) and not isinstance(key, str):
            picked, _ = _positions(key, len(self._values))
            return Series([self._values[i] for i in picked], [self.index[i] for i in picked], self.name)
        if isinstance(key, slice):
            return self.iloc[key]
        labels = self.index.tolist()
        if key in labels:
            return self._values[labels.index(key)]
        raise KeyError(key)

    def __setitem__(self, key, value):
        labels = self.index.tolist()
        if key in labels:
            self._values[labels.index(key)] = value
        else:
            self._values.append(value)
            self.index = Index(labels + [key])

    def __contains__(self, key):
        return key in self.index.tolist()

    def keys(self):
        return self.index

    def items(self):
        return list(zip(self.index.tolist(), self._values))

    def _present(self):
        return [v for v in self._values if not _missing(v)]

    def sum(self):
        return sum(self._present())

    def mean(self):
        vals = self._present()
        return sum(vals) / len(vals) if vals else NaN

    def min(self):
        return min(self._present())

    def max(self):
        return max(self._present())

    def std(self, ddof=1):
        vals = self._present()
        m = sum(vals) / len(vals)
        return math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - ddof))

    def count(self):
        return len(self._present())

    def unique(self):
        seen = []
        for v in self._values:
            if v not in seen:
                seen.append(v)
        return np.array(seen)

    def nunique(self):
        return len(set(self._present()))

    def value_counts(self):
        counts = {}
        for v in self._present():
            counts[v] = counts.get(v, 0) + 1
        order = sorted(counts.items(), key=lambda kv: -kv[1])
        index = Index([k for k, _ in order])
        index.name = self.name
        return Series([c for _, c in order], index, "count")

    def astype(self, dtype):
        return Series([_cast(v, dtype) for v in self._values], self.index, self.name)

    def apply(self, f):
        return Series([f(v) for v in self._values], self.index, self.name)

    map = apply

    def head(self, n=5):
        return self.iloc[:n]

    def tail(self, n=5):
        return self.iloc[-n:] if n else self.iloc[0:0]

    def isna(self):
        return isna(self)

    isnull = isna

    def fillna(self, value):
        return Series([value if _missing(v) else v for v in self._values], self.index, self.name)

    def _binary(self, other, op):
        if isinstance(other, Series):
            return Series([op(a, b) for a, b in zip(self._values, other._values)], self.index, self.name)
        return Series([op(a, other) for a in self._values], self.index, self.name)

    def __eq__(self, o):
        return self._binary(o, lambda a, b: a == b)

    def __ne__(self, o):
        return self._binary(o, lambda a, b: a != b)

    def __lt__(self, o):
        return self._binary(o, lambda a, b: a < b)

    def __le__(self, o):
        return self._binary(o, lambda a, b: a <= b)

    def __gt__(self, o):
        return self._binary(o, lambda a, b: a > b)

    def __ge__(self, o):
        return self._binary(o, lambda a, b: a >= b)

    def __add__(self, o):
        return self._binary(o, lambda a, b: a + b)

    def __sub__(self, o):
        return self._binary(o, lambda a, b: a - b)

    def __mul__(self, o):
        return self._binary(o, lambda a, b: a * b)

    def __truediv__(self, o):
        return self._binary(o, lambda a, b: a / b)

    def __and__(self, o):
        return self._binary(o, lambda a, b: a and b)

    def __or__(self, o):
        return self._binary(o, lambda a, b: a or b)

    def __invert__(self):
        return Series([not v for v in self._values], self.index, self.name)

    def __repr__(self):
        labels = [str(x) for x in self.index.tolist()]
        texts = _format_column(self._values)
        wl = max([len(t) for t in labels] + [0])
        wv = max([len(t) for t in texts] + [0])
        lines = [f"{l.ljust(wl)}    {t.rjust(wv)}" for l, t in zip(labels, texts)]
        if self.index.name is not None:
            lines.insert(0, str(self.index.name))
        tail = []
        if self.name is not None:
            tail.append(f"Name: {self.name}")
        tail.append(f"dtype: {self.dtype}")
        if not lines:
            return f"Series([], {', '.join(tail)})"
        return "\n".join(lines + [", ".join(tail)])

    __str__ = __repr__


def _cast(v, dtype):
    name = getattr(dtype, "__name__", dtype)
    name = str(name)
    if name in ("int", "int64", "int32"):
        return int(v)
    if name in ("float", "float64", "float32"):
        return float(v)
    if name in ("str", "object"):
        return str(v)
    if name == "bool":
        return bool(v)
    return v


class _SeriesILoc:
    def __init__(self, s):
        self._s = s

    def __getitem__(self, key):
        s = self._s
        picked, one = _positions(key, len(s._values))
        if one:
            return s._values[picked[0]]
        return Series([s._values[i] for i in picked], [s.index[i] for i in picked], s.name)


class _SeriesLoc:
    def __init__(self, s):
        self._s = s

    def __getitem__(self, key):
        return self._s[key]


class DataFrame:
    """A table: named columns of equal length, rows labelled 0, 1, ..."""

    def __init__(self, data=None, columns=None, index=None):
        cols = {}
        if data is None:
            data = {}
        if isinstance(data, DataFrame):
            cols = {c: list(v) for c, v in data._cols.items()}
        elif isinstance(data, dict):
            for k, v in data.items():
                cols[k] = list(v._values) if isinstance(v, Series) else list(v.tolist() if hasattr(v, "tolist") else v)
        else:
            rows = list(data.tolist() if hasattr(data, "tolist") else data)
            if rows and isinstance(rows[0], dict):
                names = []
                for r in rows:
                    for k in r:
                        if k not in names:
                            names.append(k)
                cols = {k: [r.get(k, NaN) for r in rows] for k in names}
            elif rows and isinstance(rows[0], (list, tuple)):
                width = len(rows[0])
                names = list(columns) if columns is not None else list(range(width))
                cols = {names[j]: [r[j] for r in rows] for j in range(width)}
            else:
                name = columns[0] if columns is not None else 0
                cols = {name: rows}
        if columns is not None and isinstance(data, dict):
            cols = {c: cols.get(c, [NaN] * self._length(cols)) for c in columns}
        lengths = {len(v) for v in cols.values()}
        if len(lengths) > 1:
            raise ValueError("All arrays must be of the same length")
        self._cols = {k: _common(v) for k, v in cols.items()}
        n = next(iter(lengths)) if lengths else 0
        self.index = Index(index) if index is not None else RangeIndex(n)

    @staticmethod
    def _length(cols):
        for v in cols.values():
            return len(v)
        return 0

    def _n(self):
        return len(self.index)

    @property
    def columns(self):
        return Index(list(self._cols.keys()))

    @property
    def shape(self):
        return (self._n(), len(self._cols))

    @property
    def size(self):
        return self._n() * len(self._cols)

    def __len__(self):
        return self._n()

    @property
    def dtypes(self):
        return Series([_DType(_dtype_of(v)) for v in self._cols.values()], list(self._cols.keys()))

    @property
    def iloc(self):
        return _ILoc(self)

    @property
    def loc(self):
        return _Loc(self)

    @property
    def values(self):
        return self.to_numpy()

    def to_numpy(self, dtype=None):
        rows = [[self._cols[c][i] for c in self._cols] for i in range(self._n())]
        kinds = {_dtype_of(v) for v in self._cols.values()}
        if dtype is None and kinds <= {"int64", "float64", "bool"} and "float64" in kinds:
            dtype = float
        return np.array(rows, dtype=dtype)

    def __array__(self, dtype=None):
        return self.to_numpy(dtype)

    def _rows(self, picked):
        labels = self.index.tolist()
        return DataFrame({c: [v[i] for i in picked] for c, v in self._cols.items()}, index=[labels[i] for i in picked])

    def _row(self, i, names=None):
        names = list(self._cols.keys()) if names is None else names
        return Series([self._cols[c][i] for c in names], names, self.index[i])

    def __getitem__(self, key):
        if isinstance(key, str) or isinstance(key, int) and key in self._cols:
            if key not in self._cols:
                raise KeyError(key)
            return Series(self._cols[key], self.index, key)
        if isinstance(key, slice):
            return self.iloc[key]
        if isinstance(key, Series) or (isinstance(key, list) and key and isinstance(key[0], bool)):
            picked, _ = _positions(key, self._n())
            return self._rows(picked)
        if isinstance(key, (list, Index)):
            for k in key:
                if k not in self._cols:
                    raise KeyError(f"{[k]} not in index")
            out = DataFrame({k: self._cols[k] for k in key})
            out.index = self.index
            return out
        if key in self._cols:
            return Series(self._cols[key], self.index, key)
        raise KeyError(key)

    def __setitem__(self, key, value):
        if isinstance(value, Series):
            value = value._values
        elif not isinstance(value, (list, tuple)) and not hasattr(value, "tolist"):
            value = [value] * self._n()
        value = list(value.tolist() if hasattr(value, "tolist") else value)
        if len(value) != self._n():
            raise ValueError(
                f"Length of values ({len(value)}) does not match length of index ({self._n()})"
            )
        self._cols[key] = _common(value)

    def __contains__(self, key):
        return key in self._cols

    def __iter__(self):
        return iter(self._cols.keys())

    def keys(self):
        return self.columns

    def head(self, n=5):
        return self.iloc[:n]

    def tail(self, n=5):
        return self.iloc[-n:] if n else self.iloc[0:0]

    def iterrows(self):
        for i in range(self._n()):
            yield self.index[i], self._row(i)

    def itertuples(self, index=True):
        for i in range(self._n()):
            row = [self._cols[c][i] for c in self._cols]
            yield tuple(([self.index[i]] if index else []) + row)

    def items(self):
        for c in self._cols:
            yield c, self[c]

    def copy(self):
        out = DataFrame({c: list(v) for c, v in self._cols.items()})
        out.index = self.index
        return out

    def drop(self, labels=None, axis=0, columns=None):
        if columns is None and axis in (1, "columns"):
            columns = labels
        if columns is not None:
            columns = [columns] if isinstance(columns, str) else list(columns)
            out = DataFrame({c: v for c, v in self._cols.items() if c not in columns})
            out.index = self.index
            return out
        labels = [labels] if not isinstance(labels, (list, tuple)) else list(labels)
        keep = [i for i, l in enumerate(self.index.tolist()) if l not in labels]
        return self._rows(keep)

    def reset_index(self, drop=False):
        out = self.copy()
        if not drop:
            out = DataFrame(dict([("index", self.index.tolist())] + list(self._cols.items())))
        out.index = RangeIndex(self._n())
        return out

    def sample(self, n=None, frac=None, random_state=None):
        import random as _random
        rng = _random.Random(random_state)
        k = n if n is not None else int(round((frac if frac is not None else 1) * self._n()))
        picked = rng.sample(range(self._n()), k)
        return self._rows(picked)

    def to_csv(self, path=None, index=True, header=True, sep=","):
        lines = []
        names = list(self._cols.keys())
        if header:
            lines.append(([""] if index else []) + [str(c) for c in names])
        for i in range(self._n()):
            row = [self._cols[c][i] for c in names]
            texts = ["" if _missing(v) else str(v) for v in row]
            lines.append(([str(self.index[i])] if index else []) + texts)
        if path is None:
            out = []
            w = csv.writer(_Lines(out), delimiter=sep, lineterminator="\n")
            w.writerows(lines)
            return "".join(out)
        with open(path, "w") as f:
            csv.writer(f, delimiter=sep, lineterminator="\n").writerows(lines)

    def describe(self):
        numeric = [c for c, v in self._cols.items() if _dtype_of(v) in ("int64", "float64")]
        stats = ["count", "mean", "std", "min", "max"]
        data = {}
        for c in numeric:
            s = Series(self._cols[c])
            data[c] = [float(s.count()), s.mean(), s.std(), float(s.min()), float(s.max())]
        return DataFrame(data, index=stats)

    def __repr__(self):
        # pandas' layout: columns one space apart, each value after a
        # space of its own, right-justified; a numeric column's name
        # after a space too; the row labels left-justified.
        names = list(self._cols.keys())
        labels = [str(x) for x in self.index.tolist()]
        if not names:
            return f"Empty DataFrame\nColumns: []\nIndex: {labels}"
        wl = max([len(l) for l in labels] + [0])
        columns = []
        for c in names:
            values = self._cols[c]
            texts = [" " + t for t in _format_column(values)]
            numeric = _dtype_of(values) in ("int64", "float64", "bool")
            header = " " + str(c) if numeric else str(c)
            w = max([len(t) for t in texts] + [len(header)])
            columns.append((header.rjust(w), [t.rjust(w) for t in texts]))
        lines = [" " * wl + "".join(" " + h for h, _ in columns)]
        for i, l in enumerate(labels):
            lines.append(l.ljust(wl) + "".join(" " + col[i] for _, col in columns))
        return "\n".join(lines)

    __str__ = __repr__


class _Lines:
    def __init__(self, out):
        self._out = out

    def write(self, text):
        self._out.append(text)


class _ILoc:
    def __init__(self, df):
        self._df = df

    def __getitem__(self, key):
        df = self._df
        names = list(df._cols.keys())
        if isinstance(key, tuple):
            rk, ck = key
        else:
            rk, ck = key, slice(None)
        rows, one_row = _positions(rk, df._n())
        cols, one_col = _positions(ck, len(names))
        picked_names = [names[j] for j in cols]
        if one_row and one_col:
            return df._cols[picked_names[0]][rows[0]]
        if one_row:
            return df._row(rows[0], picked_names)
        if one_col:
            c = picked_names[0]
            return Series([df._cols[c][i] for i in rows], [df.index[i] for i in rows], c)
        return df[picked_names]._rows(rows) if picked_names != names else df._rows(rows)


class _Loc:
    def __init__(self, df):
        self._df = df

    def _rows(self, key):
        labels = self._df.index.tolist()
        if isinstance(key, slice):
            start = 0 if key.start is None else labels.index(key.start)
            stop = len(labels) - 1 if key.stop is None else labels.index(key.stop)
            return list(range(start, stop + 1)), False
        if isinstance(key, Series) or (isinstance(key, list) and key and isinstance(key[0], bool)):
            return _positions(key, len(labels))
        if isinstance(key, list):
            return [labels.index(k) for k in key], False
        if key not in labels:
            raise KeyError(key)
        return [labels.index(key)], True

    def _cols(self, key):
        names = list(self._df._cols.keys())
        if isinstance(key, slice):
            start = 0 if key.start is None else names.index(key.start)
            stop = len(names) - 1 if key.stop is None else names.index(key.stop)
            return names[start:stop + 1], False
        if isinstance(key, list):
            return key, False
        if key not in names:
            raise KeyError(key)
        return [key], True

    def __getitem__(self, key):
        df = self._df
        if isinstance(key, tuple):
            rk, ck = key
        else:
            rk, ck = key, slice(None)
        rows, one_row = self._rows(rk)
        names, one_col = self._cols(ck)
        if one_row and one_col:
            return df._cols[names[0]][rows[0]]
        if one_row:
            return df._row(rows[0], names)
        if one_col:
            c = names[0]
            return Series([df._cols[c][i] for i in rows], [df.index[i] for i in rows], c)
        return df[names]._rows(rows)


def read_csv(filepath_or_buffer, sep=",", delimiter=None, header="infer", names=None,
             index_col=None, usecols=None, nrows=None, skiprows=None, dtype=None):
    """A table from a CSV file (a path or an open file): the first row its
    column names (or `names=`, or numbered with `header=None`)."""
    if delimiter is not None:
        sep = delimiter
    if isinstance(filepath_or_buffer, str) or hasattr(filepath_or_buffer, "__fspath__"):
        with open(str(filepath_or_buffer)) as f:
            lines = f.read().splitlines()
    else:
        lines = filepath_or_buffer.read().splitlines()
    if isinstance(skiprows, int):
        lines = lines[skiprows:]
    rows = [r for r in csv.reader(lines, delimiter=sep) if r]
    if names is not None:
        columns = list(names)
        if header == 0:
            rows = rows[1:]
    elif header is None:
        columns = list(range(len(rows[0]))) if rows else []
    else:
        columns = rows[0] if rows else []
        rows = rows[1:]
    if nrows is not None:
        rows = rows[:nrows]
    width = len(columns)
    cols = {}
    for j, c in enumerate(columns):
        text = [r[j] if j < len(r) else "" for r in rows]
        want = dtype.get(c) if isinstance(dtype, dict) else dtype
        cols[c] = [_cast(t, want) for t in text] if want is not None else _parse(text)
    df = DataFrame(cols)
    if usecols is not None:
        df = df[[columns[u] if isinstance(u, int) else u for u in usecols]]
    if index_col is not None:
        key = columns[index_col] if isinstance(index_col, int) else index_col
        labels = df._cols.pop(key)
        df.index = Index(labels)
    return df


def concat(objs, ignore_index=False):
    objs = list(objs)
    names = []
    for o in objs:
        for c in o._cols:
            if c not in names:
                names.append(c)
    cols = {c: [] for c in names}
    labels = []
    for o in objs:
        for c in names:
            cols[c].extend(o._cols.get(c, [NaN] * o._n()))
        labels.extend(o.index.tolist())
    out = DataFrame(cols)
    if not ignore_index:
        out.index = Index(labels)
    return out
