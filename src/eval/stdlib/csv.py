# csv, written for cudash after Python's: `reader`, `writer`,
# `DictReader` and `DictWriter` over any iterable of lines and any object
# with `write`, with Python's dialect settings (`delimiter`, `quotechar`,
# `lineterminator`, `quoting`, `skipinitialspace`) and its quoting rules: a
# field holding the delimiter, the quote or a line break is quoted, a quote
# inside doubled.

QUOTE_MINIMAL = 0
QUOTE_ALL = 1
QUOTE_NONNUMERIC = 2
QUOTE_NONE = 3


class Error(Exception):
    pass


class Dialect:
    delimiter = ","
    quotechar = '"'
    doublequote = True
    skipinitialspace = False
    lineterminator = "\r\n"
    quoting = QUOTE_MINIMAL
    escapechar = None
    strict = False


class excel(Dialect):
    pass


class excel_tab(Dialect):
    delimiter = "\t"


class unix_dialect(Dialect):
    lineterminator = "\n"
    quoting = QUOTE_ALL


_dialects = {"excel": excel, "excel-tab": excel_tab, "unix": unix_dialect}


def _settings(dialect, kw):
    if isinstance(dialect, str):
        if dialect not in _dialects:
            raise Error("unknown dialect")
        dialect = _dialects[dialect]
    out = {}
    for name in ("delimiter", "quotechar", "doublequote", "skipinitialspace",
                 "lineterminator", "quoting", "escapechar", "strict"):
        out[name] = kw.get(name, getattr(dialect, name))
    for name in kw:
        if name not in out:
            raise TypeError(f"'{name}' is an invalid keyword argument for this function")
    if not isinstance(out["delimiter"], str) or len(out["delimiter"]) != 1:
        raise TypeError('"delimiter" must be a 1-character string')
    return out


def register_dialect(name, dialect=excel, **kw):
    class _D(Dialect):
        pass

    for k, v in _settings(dialect, kw).items():
        setattr(_D, k, v)
    _dialects[name] = _D


def get_dialect(name):
    if name not in _dialects:
        raise Error("unknown dialect")
    return _dialects[name]


def list_dialects():
    return list(_dialects)


class _Reader:
    def __init__(self, lines, settings):
        self._lines = iter(lines)
        self._s = settings
        self.line_num = 0
        self.dialect = settings

    def __iter__(self):
        return self

    def _next_line(self):
        line = next(self._lines)
        if not isinstance(line, str):
            raise Error(
                "iterator should return strings, not %s (the file should be opened in text mode)"
                % type(line).__name__
            )
        self.line_num += 1
        return line

    def __next__(self):
        s = self._s
        delim, quote = s["delimiter"], s["quotechar"]
        quoting = s["quoting"]
        line = self._next_line()
        if line in ("", "\n", "\r\n", "\r"):
            # A blank line is an empty row, as Python's reader gives it.
            return []
        fields = []
        field = ""
        in_quotes = False
        was_quoted = False
        i = 0
        while True:
            if i >= len(line):
                if in_quotes:
                    # A quoted field goes on on the next line.
                    try:
                        line = self._next_line()
                    except StopIteration:
                        if s["strict"]:
                            raise Error("unexpected end of data")
                        break
                    i = 0
                    continue
                break
            c = line[i]
            if in_quotes:
                if c == quote:
                    if s["doublequote"] and i + 1 < len(line) and line[i + 1] == quote:
                        field += quote
                        i += 2
                        continue
                    in_quotes = False
                    i += 1
                    continue
                if s["escapechar"] is not None and c == s["escapechar"] and i + 1 < len(line):
                    field += line[i + 1]
                    i += 2
                    continue
                field += c
                i += 1
                continue
            if c == delim:
                fields.append(self._value(field, was_quoted))
                field = ""
                was_quoted = False
                i += 1
                if s["skipinitialspace"]:
                    while i < len(line) and line[i] == " ":
                        i += 1
                continue
            if c in "\r\n":
                i += 1
                continue
            if c == quote and quoting != QUOTE_NONE and field == "":
                in_quotes = True
                was_quoted = True
                i += 1
                continue
            if s["escapechar"] is not None and c == s["escapechar"] and i + 1 < len(line):
                field += line[i + 1]
                i += 2
                continue
            field += c
            i += 1
        fields.append(self._value(field, was_quoted))
        return fields

    def _value(self, field, was_quoted):
        if self._s["quoting"] == QUOTE_NONNUMERIC and not was_quoted:
            return float(field)
        return field


def reader(csvfile, dialect="excel", **fmtparams):
    """Rows of `csvfile` (an iterable of lines), each a list of strings."""
    return _Reader(csvfile, _settings(dialect, fmtparams))


class _Writer:
    def __init__(self, f, settings):
        self._f = f
        self._s = settings
        self.dialect = settings

    def _field(self, v):
        s = self._s
        quoting = s["quoting"]
        if v is None:
            text = ""
        elif isinstance(v, float):
            text = repr(v)
        else:
            text = str(v)
        quote = s["quotechar"]
        if quoting == QUOTE_ALL or (
            quoting == QUOTE_NONNUMERIC and not isinstance(v, (int, float))
        ):
            needs = True
        elif quoting == QUOTE_NONE:
            needs = False
        else:
            needs = (
                s["delimiter"] in text
                or (quote is not None and quote in text)
                or "\n" in text
                or "\r" in text
            )
        if needs:
            if s["doublequote"]:
                text = text.replace(quote, quote + quote)
            return quote + text + quote
        if quoting == QUOTE_NONE and s["escapechar"] is not None:
            for special in (s["delimiter"], quote):
                if special is not None:
                    text = text.replace(special, s["escapechar"] + special)
        return text

    def writerow(self, row):
        line = self._s["delimiter"].join(self._field(v) for v in row) + self._s["lineterminator"]
        return self._f.write(line)

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def writer(csvfile, dialect="excel", **fmtparams):
    """Rows written to `csvfile` (anything with `write`) as lines of fields."""
    return _Writer(csvfile, _settings(dialect, fmtparams))


class DictReader:
    """Rows as dicts, keyed by the first row (or `fieldnames`)."""

    def __init__(self, f, fieldnames=None, restkey=None, restval=None, dialect="excel", **kw):
        self.reader = reader(f, dialect, **kw)
        self._fieldnames = fieldnames
        self.restkey = restkey
        self.restval = restval
        self.line_num = 0

    @property
    def fieldnames(self):
        if self._fieldnames is None:
            try:
                self._fieldnames = next(self.reader)
            except StopIteration:
                pass
        self.line_num = self.reader.line_num
        return self._fieldnames

    def __iter__(self):
        return self

    def __next__(self):
        names = self.fieldnames
        row = next(self.reader)
        while row == []:
            row = next(self.reader)
        self.line_num = self.reader.line_num
        d = dict(zip(names, row))
        if len(names) < len(row):
            d[self.restkey] = row[len(names):]
        elif len(names) > len(row):
            for key in names[len(row):]:
                d[key] = self.restval
        return d


class DictWriter:
    """Rows written from dicts, in the order of `fieldnames`."""

    def __init__(self, f, fieldnames, restval="", extrasaction="raise", dialect="excel", **kw):
        self.fieldnames = list(fieldnames)
        self.restval = restval
        if extrasaction not in ("raise", "ignore"):
            raise ValueError(f"extrasaction ({extrasaction}) must be 'raise' or 'ignore'")
        self.extrasaction = extrasaction
        self.writer = writer(f, dialect, **kw)

    def writeheader(self):
        return self.writer.writerow(self.fieldnames)

    def _row(self, d):
        if self.extrasaction == "raise":
            wrong = [k for k in d if k not in self.fieldnames]
            if wrong:
                raise ValueError("dict contains fields not in fieldnames: " + ", ".join(repr(x) for x in wrong))
        return [d.get(k, self.restval) for k in self.fieldnames]

    def writerow(self, rowdict):
        return self.writer.writerow(self._row(rowdict))

    def writerows(self, rowdicts):
        for d in rowdicts:
            self.writerow(d)
