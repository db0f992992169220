# io.BytesIO and io.StringIO, written for cudash after Python's: a file
# held in memory. `torch.save(obj, buf)`, `torch.load(buf)`,
# `pickle.dump`/`pickle.load` and `print(..., file=buf)` use any object with
# `write` or `read`, as Python's do, so these are plain classes. Writes
# are kept as pieces and joined when read, so many small writes cost what
# one does. Positions count bytes (BytesIO) or characters (StringIO).


class _Memory:
    _empty = b""
    _closed = "I/O operation on closed file."

    def __init__(self, initial):
        self._value = initial
        self._pieces = []
        self._pos = 0
        self.closed = False

    def _joined(self):
        if self._pieces:
            self._value = self._empty.join([self._value] + self._pieces)
            self._pieces = []
        return self._value

    def _check(self):
        if self.closed:
            raise ValueError(self._closed)

    def _size(self):
        return len(self._value) + sum(len(p) for p in self._pieces)

    def getvalue(self):
        self._check()
        return self._joined()

    def read(self, size=-1):
        self._check()
        value = self._joined()
        end = len(value) if size is None or size < 0 else min(len(value), self._pos + size)
        start = min(self._pos, len(value))
        self._pos = max(self._pos, end)
        return value[start:end]

    def read1(self, size=-1):
        return self.read(size)

    def readline(self, size=-1):
        self._check()
        value = self._joined()
        start = min(self._pos, len(value))
        k = value.find(self._newline, start)
        end = len(value) if k < 0 else k + 1
        if size is not None and size >= 0:
            end = min(end, start + size)
        self._pos = end
        return value[start:end]

    def readlines(self, hint=-1):
        lines = []
        while True:
            line = self.readline()
            if not line:
                return lines
            lines.append(line)

    def __iter__(self):
        self._check()
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def write(self, data):
        self._check()
        self._accepts(data)
        n = len(data)
        if n == 0:
            return 0
        size = self._size()
        if self._pos == size:
            self._pieces.append(data)
        else:
            value = self._joined()
            if self._pos > size:
                value = value + self._padding(self._pos - size)
            self._value = value[: self._pos] + data + value[self._pos + n :]
        self._pos += n
        return n

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def seek(self, pos, whence=0):
        self._check()
        if whence == 0:
            if pos < 0:
                raise ValueError(f"negative seek value {pos}")
            self._pos = pos
        elif whence == 1:
            self._pos = max(0, self._pos + pos)
        elif whence == 2:
            self._pos = max(0, self._size() + pos)
        else:
            raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
        return self._pos

    def tell(self):
        self._check()
        return self._pos

    def truncate(self, size=None):
        self._check()
        if size is None:
            size = self._pos
        if size < 0:
            raise ValueError(f"negative size value {size}")
        self._value = self._joined()[:size]
        return size

    def flush(self):
        self._check()

    def readable(self):
        self._check()
        return True

    def writable(self):
        self._check()
        return True

    def seekable(self):
        self._check()
        return True

    def isatty(self):
        self._check()
        return False

    def close(self):
        self.closed = True

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _View:
    """What `BytesIO.getbuffer()` gives: its bytes, `nbytes` long."""

    def __init__(self, value):
        self._value = value
        self.nbytes = len(value)

    def __len__(self):
        return self.nbytes

    def tobytes(self):
        return self._value

    def release(self):
        pass


class BytesIO(_Memory):
    _empty = b""
    _newline = b"\n"

    def __init__(self, initial_bytes=None):
        if initial_bytes is None:
            initial_bytes = b""
        if not isinstance(initial_bytes, bytes):
            raise TypeError(
                f"a bytes-like object is required, not '{type(initial_bytes).__name__}'"
            )
        super().__init__(initial_bytes)

    def _accepts(self, data):
        if not isinstance(data, bytes):
            raise TypeError(f"a bytes-like object is required, not '{type(data).__name__}'")

    def _padding(self, n):
        return bytes(n)

    def getbuffer(self):
        self._check()
        return _View(self._joined())


class StringIO(_Memory):
    _empty = ""
    _newline = "\n"
    _closed = "I/O operation on closed file"

    def __init__(self, initial_value="", newline="\n"):
        if initial_value is None:
            initial_value = ""
        if not isinstance(initial_value, str):
            raise TypeError(
                f"initial_value must be str or None, not {type(initial_value).__name__}"
            )
        super().__init__(initial_value)

    def _accepts(self, data):
        if not isinstance(data, str):
            raise TypeError(f"string argument expected, got '{type(data).__name__}'")

    def _padding(self, n):
        return "\0" * n

    def seek(self, pos, whence=0):
        self._check()
        if whence == 0 and pos < 0:
            raise ValueError(f"Negative seek position {pos}")
        # CPython says "cur-relative" for both.
        if whence in (1, 2) and pos != 0:
            raise OSError("Can't do nonzero cur-relative seeks")
        return super().seek(pos, whence)
