"""Python's `re` (written for cudash, after CPython's `re` module): the
same functions, `Pattern` and `Match`, flags, `sub`'s templates and
`split`'s groups, each as Python gives them. The matching is the Rust
crate fancy-regex's (`python_re.rs`), which reads Python's syntax:
look-around, back-references, named groups, and Unicode classes
(`\\p{L}`, which the third-party `regex` module adds to Python's).

What differs: patterns are text (no `bytes` patterns: cudash has no bytes),
and a pattern that backtracks without end stops with an error instead of
running forever."""
import _cudash

NOFLAG = 0
TEMPLATE = T = 1
IGNORECASE = I = 2
LOCALE = L = 4
MULTILINE = M = 8
DOTALL = S = 16
UNICODE = U = 32
VERBOSE = X = 64
DEBUG = 128
ASCII = A = 256

_FLAG_NAMES = [(TEMPLATE, "TEMPLATE"), (IGNORECASE, "IGNORECASE"), (LOCALE, "LOCALE"), (MULTILINE, "MULTILINE"),
               (DOTALL, "DOTALL"), (UNICODE, "UNICODE"), (VERBOSE, "VERBOSE"), (DEBUG, "DEBUG"), (ASCII, "ASCII")]

_MAXREPEAT = 4294967295


class error(Exception):
    """What a pattern that does not compile raises (`re.error`)."""

    def __init__(self, msg, pattern=None, pos=None):
        self.msg = msg
        if pattern is not None and pos is not None:
            msg = f"{msg} at position {pos}"
        super().__init__(msg)
        self.pattern = pattern
        self.pos = pos


PatternError = error


def _text(s, what):
    if not isinstance(s, str):
        raise TypeError(f"expected string or bytes-like object, got '{type(s).__name__}'")
    return s


class Pattern:
    """A compiled pattern (`re.compile`)."""

    def __init__(self, pattern, flags):
        if isinstance(pattern, Pattern):
            if flags:
                raise ValueError("cannot process flags argument with a compiled pattern")
            pattern, flags = pattern.pattern, pattern.flags
        pattern = _text(pattern, "pattern")
        if flags & LOCALE:
            raise ValueError("cannot use LOCALE flag with a str pattern")
        try:
            groups, names = _cudash.re_compile(pattern, flags)
        except ValueError as e:
            raise error(str(e), pattern) from None
        self.pattern = pattern
        self.flags = flags | UNICODE if not flags & ASCII else flags
        self._flags = flags
        self.groups = groups
        self.groupindex = {name: index for name, index in names}

    def __repr__(self):
        shown = repr(self.pattern)
        flags = self._flags & ~UNICODE
        if flags:
            names = [name for bit, name in _FLAG_NAMES if flags & bit]
            return f"re.compile({shown}, re.{'|re.'.join(names)})"
        return f"re.compile({shown})"

    def __eq__(self, other):
        return isinstance(other, Pattern) and other.pattern == self.pattern and other.flags == self.flags

    def __hash__(self):
        return hash((self.pattern, self.flags))

    def _bounds(self, string, pos, endpos):
        string = _text(string, "string")
        n = len(string)
        if endpos is None or endpos > n:
            endpos = n
        if pos < 0:
            pos = 0
        if endpos < 0:
            endpos = 0
        return string, pos, endpos

    def _find(self, mode, string, pos, endpos):
        string, pos, endpos = self._bounds(string, pos, endpos)
        spans = _cudash.re_find(self.pattern, self._flags, mode, string, pos, endpos)
        if spans is None:
            return None
        return Match(self, string, pos, endpos, spans)

    def search(self, string, pos=0, endpos=None):
        return self._find("search", string, pos, endpos)

    def match(self, string, pos=0, endpos=None):
        return self._find("match", string, pos, endpos)

    def fullmatch(self, string, pos=0, endpos=None):
        return self._find("fullmatch", string, pos, endpos)

    def _all(self, string, pos=0, endpos=None, limit=0):
        string, pos, endpos = self._bounds(string, pos, endpos)
        found = _cudash.re_all(self.pattern, self._flags, string, pos, endpos, limit)
        return [Match(self, string, pos, endpos, spans) for spans in found]

    def finditer(self, string, pos=0, endpos=None):
        return iter(self._all(string, pos, endpos))

    def findall(self, string, pos=0, endpos=None):
        string, pos, endpos = self._bounds(string, pos, endpos)
        return _cudash.re_findall(self.pattern, self._flags, string, pos, endpos)

    def _pieces(self, string, limit):
        """Each match as (text before it, Match), then the text after the
        last: made in Rust, as slicing a long str would cost its length."""
        string = _text(string, "string")
        found = _cudash.re_pieces(self.pattern, self._flags, string, 0, len(string), limit)
        tail = found.pop()
        return [(before, Match(self, string, 0, len(string), spans, texts)) for before, spans, texts in found], tail

    def subn(self, repl, string, count=0):
        string = _text(string, "string")
        if count < 0:
            return string, 0
        if callable(repl):
            expand = repl
        else:
            template = _compile_template(self, _text(repl, "repl"))
            expand = lambda m: _expand(template, m)
        found, tail = self._pieces(string, count)
        pieces = []
        for before, m in found:
            pieces.append(before)
            got = expand(m)
            if not isinstance(got, str):
                raise TypeError(f"expected str instance, {type(got).__name__} found")
            pieces.append(got)
        pieces.append(tail)
        return "".join(pieces), len(found)

    def sub(self, repl, string, count=0):
        return self.subn(repl, string, count)[0]

    def split(self, string, maxsplit=0):
        string = _text(string, "string")
        if maxsplit < 0:
            return [string]
        found, tail = self._pieces(string, maxsplit)
        out = []
        for before, m in found:
            out.append(before)
            out.extend(m.groups())
        out.append(tail)
        return out


class Match:
    """A match (`Pattern.search`, `re.match`, ...): its groups' text and spans."""

    def __init__(self, pattern, string, pos, endpos, spans, texts=None):
        self.re = pattern
        self.string = string
        self.pos = pos
        self.endpos = endpos
        self._spans = [(spans[i], spans[i + 1]) for i in range(0, len(spans), 2)]
        self._texts = texts

    def _index(self, g):
        if isinstance(g, str):
            if g not in self.re.groupindex:
                raise IndexError("no such group")
            return self.re.groupindex[g]
        if isinstance(g, bool) or not isinstance(g, int) or g < 0 or g >= len(self._spans):
            raise IndexError("no such group")
        return g

    def _group(self, g, default=None):
        i = self._index(g)
        start, end = self._spans[i]
        if start < 0:
            return default
        if self._texts is not None:
            return self._texts[i]
        return self.string[start:end]

    def group(self, *groups):
        if not groups:
            return self._group(0)
        if len(groups) == 1:
            return self._group(groups[0])
        return tuple(self._group(g) for g in groups)

    def __getitem__(self, g):
        return self._group(g)

    def groups(self, default=None):
        return tuple(self._group(i, default) for i in range(1, len(self._spans)))

    def groupdict(self, default=None):
        return {name: self._group(index, default) for name, index in self.re.groupindex.items()}

    def start(self, group=0):
        return self._spans[self._index(group)][0]

    def end(self, group=0):
        return self._spans[self._index(group)][1]

    def span(self, group=0):
        return self._spans[self._index(group)]

    @property
    def regs(self):
        return tuple(self._spans)

    @property
    def lastindex(self):
        last, best = None, -1
        for i in range(1, len(self._spans)):
            start, end = self._spans[i]
            if start >= 0 and end > best:
                last, best = i, end
        return last

    @property
    def lastgroup(self):
        last = self.lastindex
        for name, index in self.re.groupindex.items():
            if index == last:
                return name
        return None

    def expand(self, template):
        return _expand(_compile_template(self.re, template), self)

    def __bool__(self):
        return True

    def __repr__(self):
        return f"<re.Match object; span={self.span()!r}, match={self.group()!r}>"


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def _compile_template(pattern, repl):
    """A replacement template as text and group numbers, in order: `\\1`,
    `\\g<1>`, `\\g<name>`, and Python's character escapes."""
    parts = []
    literal = []
    i = 0
    n = len(repl)
    while i < n:
        c = repl[i]
        if c != "\\":
            literal.append(c)
            i += 1
            continue
        if i + 1 >= n:
            raise error("bad escape (end of pattern)", repl, i)
        e = repl[i + 1]
        if e == "g":
            close = repl.find(">", i + 3)
            if i + 2 >= n or repl[i + 2] != "<" or close < 0:
                raise error("missing <" if i + 2 >= n or repl[i + 2] != "<" else "missing >, unterminated name", repl, i)
            name = repl[i + 3:close]
            if name.isdigit():
                index = int(name)
            elif name in pattern.groupindex:
                index = pattern.groupindex[name]
            else:
                raise IndexError(f"unknown group name '{name}'")
            if index > pattern.groups:
                raise error(f"invalid group reference {index}", repl, i + 3)
            parts.append("".join(literal))
            literal = []
            parts.append(index)
            i = close + 1
        elif e.isdigit():
            j = i + 1
            while j < n and j < i + 3 and repl[j].isdigit():
                j += 1
            digits = repl[i + 1:j]
            if e == "0" or (len(digits) == 3 and all(d in "01234567" for d in digits)):
                # An octal escape.
                j = i + 1
                while j < n and j < i + 4 and repl[j] in "01234567":
                    j += 1
                literal.append(chr(int(repl[i + 1:j], 8)))
                i = j
                continue
            index = int(digits)
            if index > pattern.groups:
                raise error(f"invalid group reference {index}", repl, i + 1)
            parts.append("".join(literal))
            literal = []
            parts.append(index)
            i = j
        elif e in _ESCAPES:
            literal.append(_ESCAPES[e])
            i += 2
        elif e.isascii() and e.isalpha():
            raise error(f"bad escape \\{e}", repl, i)
        else:
            literal.append("\\" + e)
            i += 2
    parts.append("".join(literal))
    return parts


def _expand(template, m):
    out = []
    for part in template:
        if isinstance(part, int):
            out.append(m.group(part) or "")
        else:
            out.append(part)
    return "".join(out)


def compile(pattern, flags=0):
    if isinstance(pattern, Pattern) and not flags:
        return pattern
    return Pattern(pattern, flags)


def search(pattern, string, flags=0):
    return compile(pattern, flags).search(string)


def match(pattern, string, flags=0):
    return compile(pattern, flags).match(string)


def fullmatch(pattern, string, flags=0):
    return compile(pattern, flags).fullmatch(string)


def findall(pattern, string, flags=0):
    return compile(pattern, flags).findall(string)


def finditer(pattern, string, flags=0):
    return compile(pattern, flags).finditer(string)


def sub(pattern, repl, string, count=0, flags=0):
    return compile(pattern, flags).sub(repl, string, count)


def subn(pattern, repl, string, count=0, flags=0):
    return compile(pattern, flags).subn(repl, string, count)


def split(pattern, string, maxsplit=0, flags=0):
    return compile(pattern, flags).split(string, maxsplit)


_SPECIAL = set("()[]{}?*+-|^$\\.&~# \t\n\r\v\f")


def escape(pattern):
    """The pattern with each character special to a regular expression escaped."""
    return "".join("\\" + c if c in _SPECIAL else c for c in _text(pattern, "pattern"))


def purge():
    pass
