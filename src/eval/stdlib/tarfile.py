"""Python's tarfile, for reading (written for cudash, after CPython 3.12's
`tarfile.py`): `tarfile.open` of a `.tar`, `.tar.gz` or `.tgz` file, its
members as `TarInfo`s (iterated, `getmembers`, `getnames`,
`getmember`), `extract` and `extractall` into a folder; `fileobj=` a
stream backed by a file (`requests.get(url).raw`). The archive is
read in Rust (`runtime/io/tar.rs`: ustar, GNU long names, PAX paths;
files and folders, links refused) and unpacked as Python's `data` filter
allows (no member outside the folder). Writing archives is not here."""
import os
import _cudash


class TarError(Exception):
    pass


class ReadError(TarError):
    pass


class ExtractError(TarError):
    pass


REGTYPE = "0"  # bytes in Python; cudash has no bytes
DIRTYPE = "5"


class TarInfo:
    def __init__(self, name=""):
        self.name = name
        self.size = 0
        self.type = REGTYPE
        self.mode = 0o644
        self.mtime = 0

    def __repr__(self):
        return f"<TarInfo {self.name!r} at 0x{id(self):X}>"

    @property
    def path(self):
        return self.name

    def isfile(self):
        return self.type == REGTYPE

    def isreg(self):
        return self.type == REGTYPE

    def isdir(self):
        return self.type == DIRTYPE

    def issym(self):
        return False

    def islnk(self):
        return False


class TarFile:
    def __init__(self, name=None, mode="r", fileobj=None):
        if name is None and fileobj is not None:
            # A stream whose body is a file (`requests.get(url).raw`, a
            # file `open()` gave): the archive is that file.
            name = getattr(fileobj, "name", None)
            if not isinstance(name, str) or not os.path.isfile(name):
                raise NotImplementedError("cudash's tarfile reads a file object backed by a file (with a `name`), "
                                          "or opens a file by its name")
        if mode not in ("r", "r:*", "r:", "r:gz"):
            raise NotImplementedError(f"cudash's tarfile reads archives (mode 'r'), not mode {mode!r}")
        self.name = os.path.abspath(os.fspath(name))
        self._members = []
        for path, size, is_dir in _cudash.tar_members(self.name):
            info = TarInfo(path)
            info.size = size
            if is_dir:
                info.type = DIRTYPE
                info.mode = 0o755
            self._members.append(info)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __iter__(self):
        return iter(self._members)

    def close(self):
        _cudash.tar_close()

    def getmembers(self):
        return list(self._members)

    def getnames(self):
        return [m.name for m in self._members]

    def getmember(self, name):
        for m in reversed(self._members):
            if m.name == name:
                return m
        raise KeyError(f"filename {name!r} not found")

    def extract(self, member, path="", set_attrs=True, numeric_owner=False, filter=None):
        name = member.name if isinstance(member, TarInfo) else member
        self.getmember(name)
        _cudash.untar(self.name, os.fspath(path) or ".", [name])

    def extractall(self, path=".", members=None, numeric_owner=False, filter=None):
        names = None if members is None else [m.name if isinstance(m, TarInfo) else m for m in members]
        _cudash.untar(self.name, os.fspath(path), names)


def open(name=None, mode="r", fileobj=None, bufsize=10240, **kwargs):
    """The archive at `name`, for reading (gzipped or not)."""
    return TarFile(name, mode, fileobj)


def is_tarfile(name):
    try:
        _cudash.tar_members(os.fspath(name))
    except Exception:
        return False
    _cudash.tar_close()
    return True
