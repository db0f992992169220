"""warnings, as cudash gives it (written for cudash, after CPython's
`warnings`): `warn`, `filterwarnings`, `simplefilter`, `resetwarnings`
and `catch_warnings` (`record=True` keeps the warnings `warn` gives in the
block in its list; cudash's own warnings are shown). A warning is shown where cudash shows its own (the
program's stderr, `warning: UserWarning: ...`), once per line of a
statement, as Python's "default" action. An "ignore" filter of a
category, with no message pattern, also hides PyTorch's warnings of that
category that cudash gives (`FutureWarning` of `torch.cuda.amp`, a
`UserWarning`); cudash's teaching warnings (a race between streams) carry
no category and stay. "error" raises the warning from `warn`. A filter's
`message` is matched as a prefix, case aside (Python's is a regular
expression matched at the start, and cudash has no `re`)."""
import _cudash

_ACTIONS = ("default", "error", "ignore", "always", "all", "module", "once")
_CATEGORIES = (UserWarning, DeprecationWarning, PendingDeprecationWarning, SyntaxWarning,
               RuntimeWarning, FutureWarning, ImportWarning, UnicodeWarning, BytesWarning,
               ResourceWarning)

filters = []
defaultaction = "default"


def _check(action):
    if action not in _ACTIONS:
        raise ValueError(f"invalid action: {action!r}")


def filterwarnings(action, message="", category=Warning, module="", lineno=0, append=False):
    _check(action)
    if not issubclass(category, Warning):
        raise TypeError("category must be a Warning subclass")
    item = (action, message, category, module, lineno)
    if item in filters:
        filters.remove(item)
    if append:
        filters.append(item)
    else:
        filters.insert(0, item)
    _sync()


def simplefilter(action, category=Warning, lineno=0, append=False):
    filterwarnings(action, "", category, "", lineno, append)


def resetwarnings():
    filters.clear()
    _sync()


def _action(text, category):
    for action, message, cat, module, lineno in filters:
        if issubclass(category, cat) and (not message or text.lower().startswith(message.lower())):
            return action
    return defaultaction


def _sync():
    # The categories whose warnings cudash itself gives are hidden when
    # the first filter that matches any text of theirs ignores them.
    hidden = []
    for c in _CATEGORIES:
        for action, message, cat, module, lineno in filters:
            if issubclass(c, cat) and not message:
                if action == "ignore":
                    hidden.append(c.__name__)
                break
    _cudash.ignore_warnings(hidden)


def warn(message, category=None, stacklevel=1, source=None):
    if isinstance(message, Warning):
        category = type(message)
        message = str(message)
    if category is None:
        category = UserWarning
    if not issubclass(category, Warning):
        raise TypeError("category must be a Warning subclass, not 'type'")
    action = _action(str(message), category)
    if action == "ignore":
        return
    if action == "error":
        raise category(message)
    if _logs and _logs[-1] is not None:
        _logs[-1].append(WarningMessage(category(message), category, "", 0))
        return
    _cudash.warn(f"{category.__name__}: {message}")


# The lists of `catch_warnings(record=True)` blocks, innermost last (None
# for a block that does not record).
_logs = []


class WarningMessage:
    """A warning a `catch_warnings(record=True)` block caught."""

    def __init__(self, message, category, filename, lineno, file=None, line=None, source=None):
        self.message = message
        self.category = category
        self.filename = filename
        self.lineno = lineno
        self.file = file
        self.line = line
        self.source = source

    def __str__(self):
        return (
            f"{{message : {self.message!r}, category : {self.category.__name__!r}, "
            f"filename : {self.filename!r}, lineno : {self.lineno}, line : {self.line!r}}}"
        )


class catch_warnings:
    """The filters as they were given back when the block ends."""

    def __init__(self, record=False, action=None, category=Warning):
        self._record = record
        self._action = action
        self._category = category

    def __enter__(self):
        self._saved = list(filters)
        if self._action is not None:
            simplefilter(self._action, self._category)
        log = [] if self._record else None
        _logs.append(log)
        return log

    def __exit__(self, type, value, traceback):
        _logs.pop()
        filters.clear()
        filters.extend(self._saved)
        _sync()
        return False
