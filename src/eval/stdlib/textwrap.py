"""textwrap, as cudash gives it (written for cudash, after CPython's):
`dedent`, `indent`, `wrap`, `fill` and `shorten`, breaking on whitespace
(not on hyphens)."""

__all__ = ["dedent", "indent", "wrap", "fill", "shorten"]


def _margin(line):
    return line[:len(line) - len(line.lstrip(" \t"))]


def dedent(text):
    """`text` without the whitespace every non-blank line begins with;
    blank lines become empty."""
    lines = text.split("\n")
    common = None
    for line in lines:
        if not line.strip():
            continue
        m = _margin(line)
        if common is None:
            common = m
            continue
        n = 0
        while n < len(common) and n < len(m) and common[n] == m[n]:
            n += 1
        common = common[:n]
    cut = len(common or "")
    return "\n".join("" if not line.strip() else line[cut:] for line in lines)


def indent(text, prefix, predicate=None):
    """`prefix` before each line `predicate` accepts (by default, each line
    that is not whitespace alone)."""
    keep = predicate if predicate is not None else (lambda line: line.strip())
    out = []
    for line in text.splitlines(True):
        out.append(prefix + line if keep(line) else line)
    return "".join(out)


def wrap(text, width=70, initial_indent="", subsequent_indent="", break_long_words=True, **kwargs):
    """`text`'s words in lines of at most `width` characters."""
    words = text.split()
    lines, line = [], None
    for word in words:
        lead = initial_indent if not lines else subsequent_indent
        if line is None:
            line = lead + word
        elif len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = subsequent_indent + word
        while break_long_words and len(line) > width:
            lines.append(line[:width])
            line = subsequent_indent + line[width:]
    if line is not None:
        lines.append(line)
    return lines


def fill(text, width=70, **kwargs):
    """`wrap`'s lines joined by newlines."""
    return "\n".join(wrap(text, width, **kwargs))


def shorten(text, width, placeholder=" [...]", **kwargs):
    """`text`'s words, whitespace collapsed, cut to fit `width` with
    `placeholder` at the end when they do not fit."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    words, out = text.split(), ""
    for word in words:
        candidate = (out + " " + word) if out else word
        if len(candidate) + len(placeholder) > width:
            break
        out = candidate
    # No word fits: the placeholder alone, its leading space dropped.
    return out + placeholder if out else placeholder.lstrip()
