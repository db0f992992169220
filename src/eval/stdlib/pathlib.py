"""Python's `pathlib` on POSIX (written for cudash, after CPython's
`pathlib`): `PurePath`'s parts, `/`, names and suffixes, and `Path`'s
files and folders (`exists`, `mkdir`, `open`, `read_text`, `glob`,
`iterdir`, `stat().st_size`, ...) through `os`, `glob` and `shutil`. A path goes wherever
a str path does (`open(p)`, `torch.save(x, p)`, `os.path.join(p, "a")`),
as Python's `os.PathLike` does. Bytes (`read_bytes`) are not here:
cudash has no bytes."""
import glob as _glob
import os
import re as _re
import shutil as _shutil


def _join(parts):
    """POSIX's joining as pathlib does it: a part from `/` starts again;
    `.` parts and doubled slashes dropped; `..` kept."""
    root = ""
    names = []
    for part in parts:
        if isinstance(part, PurePath):
            part = part._raw
        elif not isinstance(part, str):
            raise TypeError(f"argument should be a str or an os.PathLike object, not '{type(part).__name__}'")
        if part.startswith("/"):
            root = "//" if part.startswith("//") and not part.startswith("///") else "/"
            names = []
        names.extend(p for p in part.split("/") if p and p != ".")
    text = root + "/".join(names)
    return text if text else "."


def _fnmatch(name, pattern):
    """Whether a name matches a shell pattern (`*`, `?`, `[...]`), case and all."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and "]" in pattern[i + 2:] + pattern[i + 1:i + 2]:
            j = pattern.index("]", i + 2) if pattern[i + 1:i + 2] == "]" else pattern.index("]", i + 1)
            body = pattern[i + 1:j]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = j
        else:
            out.append(_re.escape(c))
        i += 1
    return _re.fullmatch("".join(out), name, _re.DOTALL) is not None


class _Stat:
    """What `Path.stat()` gives here: the file's size."""

    def __init__(self, path):
        self.st_size = os.path.getsize(path)


class PurePath:
    def __init__(self, *parts):
        self._raw = _join(parts)

    def __str__(self):
        return self._raw

    def __fspath__(self):
        return self._raw

    def __repr__(self):
        return f"{self._kind}({self._raw!r})"

    _kind = "PurePosixPath"

    def as_posix(self):
        return self._raw

    def __eq__(self, other):
        return isinstance(other, PurePath) and other._raw == self._raw

    def __hash__(self):
        return hash(self._raw)

    def __lt__(self, other):
        return self.parts < other.parts

    def __le__(self, other):
        return self.parts <= other.parts

    def __gt__(self, other):
        return self.parts > other.parts

    def __ge__(self, other):
        return self.parts >= other.parts

    def _new(self, *parts):
        return type(self)(*parts)

    def __truediv__(self, other):
        return self._new(self, other)

    def __rtruediv__(self, other):
        return self._new(other, self)

    def joinpath(self, *others):
        return self._new(self, *others)

    @property
    def anchor(self):
        if self._raw.startswith("//") and not self._raw.startswith("///"):
            return "//"
        return "/" if self._raw.startswith("/") else ""

    @property
    def root(self):
        return self.anchor

    @property
    def drive(self):
        return ""

    @property
    def parts(self):
        names = [p for p in self._raw.split("/") if p and p != "."]
        return tuple([self.anchor] + names) if self.anchor else tuple(names)

    @property
    def name(self):
        if self._raw in (".", "/", "//"):
            return ""
        return self._raw.rsplit("/", 1)[-1]

    @property
    def suffix(self):
        name = self.name
        i = name.rfind(".")
        if 0 < i < len(name) - 1:
            return name[i:]
        return ""

    @property
    def suffixes(self):
        name = self.name
        if name.endswith("."):
            return []
        name = name.lstrip(".")
        return ["." + s for s in name.split(".")[1:]]

    @property
    def stem(self):
        name = self.name
        suffix = self.suffix
        return name[: len(name) - len(suffix)] if suffix else name

    @property
    def parent(self):
        text = self._raw
        if text in (".", "/", "//"):
            return self
        if "/" not in text:
            return self._new(".")
        head = text.rsplit("/", 1)[0]
        return self._new(head if head else self.anchor)

    @property
    def parents(self):
        out = []
        p = self
        while p.parent != p:
            p = p.parent
            out.append(p)
        return tuple(out)

    def is_absolute(self):
        return self._raw.startswith("/")

    def with_name(self, name):
        if not self.name:
            raise ValueError(f"{self!r} has an empty name")
        if not name or "/" in name or name == ".":
            raise ValueError(f"Invalid name {name!r}")
        return self.parent / name

    def with_stem(self, stem):
        return self.with_name(stem + self.suffix)

    def with_suffix(self, suffix):
        if suffix and (not suffix.startswith(".") or suffix == "." or "/" in suffix):
            raise ValueError(f"Invalid suffix {suffix!r}")
        if not self.name:
            raise ValueError(f"{self!r} has an empty name")
        return self.with_name(self.stem + suffix)

    def relative_to(self, other, *more):
        other = self._new(other, *more)
        mine, theirs = self.parts, other.parts
        if mine[: len(theirs)] != theirs or (not theirs and self.is_absolute()):
            raise ValueError(f"{str(self)!r} is not in the subpath of {str(other)!r}")
        return self._new(*mine[len(theirs):]) if len(mine) > len(theirs) else self._new(".")

    def is_relative_to(self, other):
        try:
            self.relative_to(other)
            return True
        except ValueError:
            return False

    def match(self, pattern):
        pat = [p for p in pattern.split("/") if p]
        mine = [p for p in self._raw.split("/") if p]
        if pattern.startswith("/") and len(pat) != len(mine):
            return False
        if len(pat) > len(mine):
            return False
        return all(_fnmatch(m, p) for m, p in zip(mine[len(mine) - len(pat):], pat))


class PurePosixPath(PurePath):
    pass


class Path(PurePath):
    """A path of this machine's files (`PosixPath`)."""

    _kind = "PosixPath"

    @classmethod
    def cwd(cls):
        return cls(os.getcwd())

    @classmethod
    def home(cls):
        return cls(os.path.expanduser("~"))

    def exists(self):
        return os.path.exists(self._raw)

    def is_file(self):
        return os.path.isfile(self._raw)

    def is_dir(self):
        return os.path.isdir(self._raw)

    def absolute(self):
        return self if self.is_absolute() else self._new(os.getcwd(), self)

    def resolve(self, strict=False):
        if strict and not self.exists():
            raise FileNotFoundError(f"[Errno 2] No such file or directory: '{self._raw}'")
        return self._new(os.path.realpath(self._raw))

    def expanduser(self):
        return self._new(os.path.expanduser(self._raw))

    def mkdir(self, mode=0o777, parents=False, exist_ok=False):
        if self.exists():
            if exist_ok and self.is_dir():
                return
            raise FileExistsError(f"[Errno 17] File exists: '{self._raw}'")
        if not parents and not self.parent.is_dir():
            raise FileNotFoundError(f"[Errno 2] No such file or directory: '{self._raw}'")
        os.makedirs(self._raw, exist_ok=True)

    def rmdir(self):
        os.rmdir(self._raw)

    def unlink(self, missing_ok=False):
        if missing_ok and not self.exists():
            return
        os.remove(self._raw)

    def touch(self, mode=0o666, exist_ok=True):
        if self.exists():
            if not exist_ok:
                raise FileExistsError(f"[Errno 17] File exists: '{self._raw}'")
            return
        open(self._raw, "a").close()

    def rename(self, target):
        _shutil.move(self._raw, str(target))
        return self._new(target)

    def replace(self, target):
        if os.path.exists(str(target)) and not os.path.isdir(str(target)):
            os.remove(str(target))
        return self.rename(target)

    def open(self, mode="r", buffering=-1, encoding=None, errors=None, newline=None):
        return open(self._raw, mode, encoding=encoding)

    def read_text(self, encoding=None, errors=None):
        with open(self._raw, encoding=encoding) as f:
            return f.read()

    def write_text(self, data, encoding=None, errors=None, newline=None):
        if not isinstance(data, str):
            raise TypeError(f"data must be str, not {type(data).__name__}")
        with open(self._raw, "w", encoding=encoding) as f:
            f.write(data)
        return len(data)

    def iterdir(self):
        names = os.listdir(self._raw)
        return iter([self / name for name in names])

    def glob(self, pattern):
        base = "" if self._raw == "." else self._raw + "/"
        found = _glob.glob(base + pattern, recursive="**" in pattern)
        return iter([self._new(p) for p in found])

    def rglob(self, pattern):
        return self.glob("**/" + pattern)

    def stat(self):
        return _Stat(self._raw)

    def samefile(self, other):
        return os.path.realpath(self._raw) == os.path.realpath(str(other))


class PosixPath(Path):
    pass
