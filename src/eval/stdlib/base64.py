"""base64, as cudash gives it (written for cudash, after CPython's): the
standard and URL-safe alphabets of RFC 4648 (`b64encode`, `b64decode`,
`standard_b64encode`, `standard_b64decode`, `urlsafe_b64encode`,
`urlsafe_b64decode`, `encodebytes`, `decodebytes`)."""

__all__ = [
    "b64encode", "b64decode", "standard_b64encode", "standard_b64decode",
    "urlsafe_b64encode", "urlsafe_b64decode", "encodebytes", "decodebytes",
]

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


class Error(ValueError):
    """binascii's error: a string that is no base64."""


def _bytes(s, what):
    if isinstance(s, str):
        try:
            return s.encode("ascii")
        except UnicodeEncodeError:
            raise ValueError("string argument should contain only ASCII characters")
    if isinstance(s, bytes):
        return s
    raise TypeError(f"{what}: a bytes-like object is required, not '{type(s).__name__}'")


def b64encode(s, altchars=None):
    data = _bytes(s, "b64encode") if not isinstance(s, str) else None
    if data is None:
        raise TypeError("a bytes-like object is required, not 'str'")
    out = []
    for k in range(0, len(data), 3):
        chunk = data[k:k + 3]
        n = int.from_bytes(chunk + b"\x00" * (3 - len(chunk)), "big")
        quad = [_ALPHABET[(n >> shift) & 63] for shift in (18, 12, 6, 0)]
        if len(chunk) < 3:
            quad[len(chunk) + 1:] = ["="] * (3 - len(chunk))
        out.append("".join(quad))
    text = "".join(out)
    if altchars is not None:
        alt = _bytes(altchars, "altchars").decode("ascii")
        text = text.replace("+", alt[0]).replace("/", alt[1])
    return text.encode("ascii")


def b64decode(s, altchars=None, validate=False):
    text = _bytes(s, "b64decode").decode("ascii")
    if altchars is not None:
        alt = _bytes(altchars, "altchars").decode("ascii")
        text = text.replace(alt[0], "+").replace(alt[1], "/")
    if not validate:
        text = "".join(c for c in text if c in _ALPHABET or c == "=")
    elif any(c not in _ALPHABET and c != "=" for c in text):
        raise Error("Only base64 data is allowed")
    body = text.split("=")[0]
    if len(body) % 4 == 1:
        raise Error(
            "Invalid base64-encoded string: number of data characters "
            f"({len(body)}) cannot be 1 more than a multiple of 4"
        )
    if len(text) - len(body) < (4 - len(body) % 4) % 4:
        raise Error("Incorrect padding")
    out = []
    bits = 0
    count = 0
    for c in body:
        bits = ((bits << 6) | _ALPHABET.index(c)) & 0xFFFF
        count += 6
        if count >= 8:
            count -= 8
            out.append((bits >> count) & 255)
    return bytes(out)


def standard_b64encode(s):
    return b64encode(s)


def standard_b64decode(s):
    return b64decode(s)


def urlsafe_b64encode(s):
    return b64encode(s, b"-_")


def urlsafe_b64decode(s):
    return b64decode(s, b"-_")


def encodebytes(s):
    text = b64encode(s)
    lines = [text[k:k + 76] + b"\n" for k in range(0, len(text), 76)]
    return b"".join(lines)


def decodebytes(s):
    return b64decode(s)
