"""Python's `codecs`, as programs use it: `decode` and `encode` by the
name of an encoding (`utf-8`, `latin-1`, `ascii`, and `unicode_escape`,
which reads backslash escapes: `codecs.decode("\\\\t", "unicode_escape")`
is a tab), and `open`."""

_open = open

_SIMPLE = {
    "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
    "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\n": "",
}


def _norm(encoding):
    return encoding.lower().replace("-", "_")


def _unescape(text):
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = text[i + 1]
        if e in _SIMPLE:
            out.append(_SIMPLE[e])
            i += 2
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = text[i + 2:i + 2 + width]
            if len(digits) != width:
                raise UnicodeDecodeError(
                    "unicode_escape", text, i, i + 2,
                    f"truncated \\{e}{'X' * width} escape")
            out.append(chr(int(digits, 16)))
            i += 2 + width
        elif e in "01234567":
            j = i + 1
            while j < n and j < i + 4 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[i + 1:j], 8)))
            i = j
        else:
            out.append("\\" + e)
            i += 2
    return "".join(out)


def decode(obj, encoding="utf-8", errors="strict"):
    enc = _norm(encoding)
    if enc == "unicode_escape":
        text = obj if isinstance(obj, str) else obj.decode("latin-1")
        return _unescape(text)
    if isinstance(obj, str):
        raise TypeError(f"decoding with '{encoding}' codec failed (TypeError: a bytes-like object is required, not 'str')")
    return obj.decode(encoding, errors)


def encode(obj, encoding="utf-8", errors="strict"):
    if _norm(encoding) == "unicode_escape":
        raise LookupError("cudash's codecs does not encode to unicode_escape")
    return obj.encode(encoding, errors)


def open(filename, mode="r", encoding=None, errors="strict", buffering=-1):
    return _open(filename, mode, encoding=encoding)
