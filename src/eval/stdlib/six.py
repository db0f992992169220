"""The `six` package's names a Python 3 program still imports (written
for cudash, after six 1.16): `six.moves` (`urllib`, `range`, `zip`,
`map`, `filter`, `reduce`, `cPickle`), `PY2`/`PY3`, the type
tuples, and `iteritems`/`itervalues`/`iterkeys`."""
import six.moves as moves

PY2 = False
PY3 = True
string_types = (str,)
integer_types = (int,)
class_types = (type,)
text_type = str
MAXSIZE = 9223372036854775807


def iteritems(d, **kw):
    return iter(d.items(**kw))


def itervalues(d, **kw):
    return iter(d.values(**kw))


def iterkeys(d, **kw):
    return iter(d.keys(**kw))


def ensure_str(s, encoding="utf-8", errors="strict"):
    return s
