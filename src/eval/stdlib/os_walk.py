"""`os.walk` and `os.scandir`, as Python's (written for cudash over its
`os.listdir` and `os.path`): entries in the order the system lists them,
`walk` top-down (or bottom-up), into linked folders only with
`followlinks=True`."""
import os


class DirEntry:
    def __init__(self, folder, name):
        self.name = name
        self.path = os.path.join(folder, name)

    def is_dir(self, follow_symlinks=True):
        if not follow_symlinks and os.path.islink(self.path):
            return False
        return os.path.isdir(self.path)

    def is_file(self, follow_symlinks=True):
        if not follow_symlinks and os.path.islink(self.path):
            return False
        return os.path.isfile(self.path)

    def is_symlink(self):
        return os.path.islink(self.path)

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return f"<DirEntry {self.name!r}>"


class _ScandirIterator:
    def __init__(self, entries):
        self._entries = entries
        self._at = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self._at >= len(self._entries):
            raise StopIteration
        self._at += 1
        return self._entries[self._at - 1]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def close(self):
        self._at = len(self._entries)


def scandir(path="."):
    path = os.fspath(path) if not isinstance(path, str) else path
    return _ScandirIterator([DirEntry(path, name) for name in os.listdir(path)])


def walk(top, topdown=True, onerror=None, followlinks=False):
    top = os.fspath(top) if not isinstance(top, str) else top
    try:
        names = os.listdir(top)
    except OSError as err:
        if onerror is not None:
            onerror(err)
        return
    dirs, nondirs = [], []
    for name in names:
        (dirs if os.path.isdir(os.path.join(top, name)) else nondirs).append(name)
    if topdown:
        yield top, dirs, nondirs
    for name in dirs:
        path = os.path.join(top, name)
        if followlinks or not os.path.islink(path):
            yield from walk(path, topdown, onerror, followlinks)
    if not topdown:
        yield top, dirs, nondirs
