"""Python's tempfile, the part programs reach for (written for cudash):
`gettempdir`, `mkdtemp`, `mkstemp`-free `TemporaryDirectory`."""
import os
import time

_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
# Names are drawn apart from `random`'s generator (CPython's tempfile has
# a `Random` of its own), so a seeded program draws the same numbers
# whether or not it makes a temporary file.
_made = [0]


def gettempdir():
    for name in ("TMPDIR", "TEMP", "TMP"):
        d = os.environ.get(name)
        if d:
            return d
    return "/tmp"


def _name(prefix, suffix):
    _made[0] += 1
    n = (int(time.time() * 1000003) * 31 + os.getpid() * 7919 + _made[0] * 104729) % (37 ** 8)
    chars = []
    for _ in range(8):
        chars.append(_CHARS[n % 37])
        n //= 37
    return prefix + "".join(chars) + suffix


def mkdtemp(suffix=None, prefix=None, dir=None):
    """A new directory of its own under `dir` (the temporary one), its path."""
    base = gettempdir() if dir is None else dir
    for _ in range(100):
        path = os.path.join(base, _name("tmp" if prefix is None else prefix, "" if suffix is None else suffix))
        if not os.path.exists(path):
            os.makedirs(path)
            return path
    raise FileExistsError("No usable temporary directory name found")


class TemporaryDirectory:
    """A directory made now and removed (with what it holds) when the
    `with` block ends or `cleanup()` is called."""

    def __init__(self, suffix=None, prefix=None, dir=None, ignore_cleanup_errors=False):
        self.name = mkdtemp(suffix, prefix, dir)

    def __repr__(self):
        return f"<TemporaryDirectory {self.name!r}>"

    def __enter__(self):
        return self.name

    def __exit__(self, *exc):
        self.cleanup()
        return False

    def cleanup(self):
        _remove_tree(self.name)


def _remove_tree(path):
    if os.path.isdir(path):
        for name in os.listdir(path):
            _remove_tree(os.path.join(path, name))
        os.rmdir(path)
    elif os.path.exists(path):
        os.remove(path)
