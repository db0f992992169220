"""Python's uuid, the part programs reach for (written for cudash):
`uuid4()` (random, from the operating system's generator, so it draws
nothing from `random`), `UUID(hex)` with its `hex`, `version`, `urn`,
`str()`, `repr()`, `==` and `hash()`."""
import _cudash

_HEX = "0123456789abcdef"


class UUID:
    def __init__(self, hex=None):
        if hex is None:
            raise TypeError("one of the hex, bytes, bytes_le, fields, or int arguments must be given")
        h = hex.replace("urn:", "").replace("uuid:", "").strip("{}").replace("-", "").lower()
        if len(h) != 32 or any(c not in _HEX for c in h):
            raise ValueError("badly formed hexadecimal UUID string")
        self.hex = h

    def __str__(self):
        h = self.hex
        return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]

    def __repr__(self):
        return "UUID('" + str(self) + "')"

    def __eq__(self, other):
        return isinstance(other, UUID) and self.hex == other.hex

    def __hash__(self):
        return hash(self.hex)

    @property
    def version(self):
        return _HEX.index(self.hex[12])

    @property
    def urn(self):
        return "urn:uuid:" + str(self)


def uuid4():
    """A random UUID (version 4, RFC 4122's variant)."""
    h = _cudash.random_hex(16)
    variant = "89ab"[_HEX.index(h[16]) % 4]
    return UUID(h[:12] + "4" + h[13:16] + variant + h[17:])
