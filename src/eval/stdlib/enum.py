"""Python's `enum`: `Enum`, `IntEnum`, `StrEnum`, `auto` and `unique`, as
the imagenet example's `class Summary(Enum)` uses them, and an Enum of
values of a type (`class Mode(str, Enum)`: `_ValueMixin` is put in for
`str`, `int` or `float`). What Python's
metaclass does is cudash's (eval/enums.rs): a class derived from `Enum`
has its body's values made members (each an instance, `auto()` counted
on), `Color(1)` finds a member by value, `Color["RED"]` by name, and the
class iterates its members. What a member does is written here."""


class auto:
    """A member's value counted from the one before (1 for the first)."""

    def __init__(self):
        self.value = None


class Enum:
    def __repr__(self):
        return f"<{type(self).__name__}.{self._name_}: {self._value_!r}>"

    def __str__(self):
        return f"{type(self).__name__}.{self._name_}"

    def __format__(self, spec):
        return format(str(self), spec)

    @property
    def name(self):
        return self._name_

    @property
    def value(self):
        return self._value_

    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        for last in reversed(last_values):
            if isinstance(last, int):
                return last + 1
        return start


def _plain(v):
    """A member's value, or anything else as it is."""
    if isinstance(v, Enum):
        return v._value_
    return v


class _ValueMixin(Enum):
    """Members that are their value too (`class Mode(str, Enum)`, an
    IntEnum's): compared, hashed and added as it, its methods theirs
    (`Mode.TRAIN.upper()`); shown as an Enum's."""

    def __hash__(self):
        return hash(self._value_)

    def __eq__(self, other):
        return self._value_ == _plain(other)

    def __ne__(self, other):
        return self._value_ != _plain(other)

    def __lt__(self, other):
        return self._value_ < _plain(other)

    def __le__(self, other):
        return self._value_ <= _plain(other)

    def __gt__(self, other):
        return self._value_ > _plain(other)

    def __ge__(self, other):
        return self._value_ >= _plain(other)

    def __add__(self, other):
        return self._value_ + _plain(other)

    def __radd__(self, other):
        return _plain(other) + self._value_

    def __sub__(self, other):
        return self._value_ - _plain(other)

    def __rsub__(self, other):
        return _plain(other) - self._value_

    def __mul__(self, other):
        return self._value_ * _plain(other)

    def __rmul__(self, other):
        return _plain(other) * self._value_

    def __int__(self):
        return int(self._value_)

    def __float__(self):
        return float(self._value_)

    def __index__(self):
        return self._value_

    def __bool__(self):
        return bool(self._value_)

    def __len__(self):
        return len(self._value_)

    def __getattr__(self, name):
        return getattr(self._value_, name)


class IntEnum(_ValueMixin):
    """Members that are ints, shown as their value (Python 3.11)."""

    def __str__(self):
        return str(self._value_)

    def __format__(self, spec):
        return format(self._value_, spec)


class StrEnum(_ValueMixin):
    """Members that are strings, shown as their value (Python 3.11):
    `auto()` is the name in lower case."""

    def __str__(self):
        return self._value_

    def __format__(self, spec):
        return format(self._value_, spec)

    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        return name.lower()


def unique(enumeration):
    """The class, if no two of its names are one member (aliases)."""
    aliases = [
        (name, member.name)
        for name, member in enumeration.__members__.items()
        if name != member.name
    ]
    if aliases:
        listed = ", ".join(f"{alias} -> {name}" for alias, name in aliases)
        raise ValueError(f"duplicate values found in <enum '{enumeration.__name__}'>: {listed}")
    return enumeration
