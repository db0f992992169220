"""Python's `string.Template`: `$name`, `${name}` and `$$` substituted
from a mapping or keywords (`substitute` raises KeyError for a missing
name, `safe_substitute` leaves it), written for cudash in Python. (It
reads the text itself: a stdlib module here imports no module a
program's own file could stand in for, `re` included.)"""


def _is_start(c):
    return c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z")


def _is_part(c):
    return _is_start(c) or ("0" <= c <= "9")


def _placeholders(text):
    """Each `$...` of `text`: (start, end, name or None, kind), kind one of
    "escaped", "named", "braced", "invalid"."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text[i] != "$":
            i += 1
            continue
        if i + 1 < n and text[i + 1] == "$":
            out.append((i, i + 2, None, "escaped"))
            i += 2
            continue
        if i + 1 < n and _is_start(text[i + 1]):
            j = i + 2
            while j < n and _is_part(text[j]):
                j += 1
            out.append((i, j, text[i + 1:j], "named"))
            i = j
            continue
        if i + 2 < n and text[i + 1] == "{" and _is_start(text[i + 2]):
            j = i + 3
            while j < n and _is_part(text[j]):
                j += 1
            if j < n and text[j] == "}":
                out.append((i, j + 1, text[i + 2:j], "braced"))
                i = j + 1
                continue
        out.append((i, i + 1, None, "invalid"))
        i += 1
    return out


class Template:
    delimiter = "$"

    def __init__(self, template):
        self.template = template

    def _replace(self, mapping, keywords, safe):
        values = dict(mapping) if mapping is not None else {}
        values.update(keywords)
        text = self.template
        parts = []
        at = 0
        for start, end, name, kind in _placeholders(text):
            parts.append(text[at:start])
            at = end
            if kind == "escaped":
                parts.append("$")
            elif name is not None and name in values:
                parts.append(str(values[name]))
            elif safe:
                parts.append(text[start:end])
            elif name is not None:
                raise KeyError(name)
            else:
                lines = text[:start].splitlines(True) or [""]
                col = start - sum(len(l) for l in lines[:-1]) + 1
                raise ValueError(f"Invalid placeholder in string: line {len(lines)}, col {col}")
        parts.append(text[at:])
        return "".join(parts)

    def substitute(self, mapping=None, **keywords):
        return self._replace(mapping, keywords, False)

    def safe_substitute(self, mapping=None, **keywords):
        return self._replace(mapping, keywords, True)

    def get_identifiers(self):
        names = []
        for _, _, name, _ in _placeholders(self.template):
            if name is not None and name not in names:
                names.append(name)
        return names
