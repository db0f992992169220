"""Python's dataclasses for cudash: `@dataclass` with its options
`frozen`, `order` and `unsafe_hash`, `field`, `fields`, `asdict`,
`astuple`, `replace`, `is_dataclass`, `FrozenInstanceError`, `MISSING`.
Written for cudash in Python over its natives (`eval/dataclass.rs` makes
the class: its `__init__`, repr, `==`, hashing and ordering, and the
frozen instance's refusals). `init=False`, `repr=False`, `eq=False`,
`kw_only` and `slots` are refused rather than ignored."""
import _cudash

FrozenInstanceError = _cudash.FrozenInstanceError
field = _cudash.dataclass_field
asdict = _cudash.asdict


class _MISSING_TYPE:
    pass


MISSING = _MISSING_TYPE()


class Field:
    """What `fields()` gives for each field: its `name`, and its `default`
    and `default_factory` (MISSING where it has none)."""

    def __init__(self, name, default, default_factory):
        self.name = name
        self.default = default
        self.default_factory = default_factory

    def __repr__(self):
        return f"Field(name={self.name!r},default={self.default!r},default_factory={self.default_factory!r})"


def dataclass(cls=None, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False,
              frozen=False, match_args=True, kw_only=False, slots=False, weakref_slot=False):
    """`@dataclass` or `@dataclass(frozen=True, order=True)` over a class."""
    for name, given, default in (("init", init, True), ("repr", repr, True), ("eq", eq, True),
                                 ("kw_only", kw_only, False), ("slots", slots, False),
                                 ("weakref_slot", weakref_slot, False)):
        if bool(given) != default:
            raise NotImplementedError(
                f"cudash's @dataclass takes `{name}` only as {default}: its classes are made, "
                "shown and compared by their fields")

    def wrap(c):
        return _cudash.dataclass(c, bool(frozen), bool(order), bool(unsafe_hash))

    if cls is None:
        return wrap
    return wrap(cls)


def is_dataclass(obj):
    """Whether `obj` is a dataclass or an instance of one."""
    try:
        _cudash.dataclass_fields(obj)
    except TypeError:
        return False
    return True


def fields(class_or_instance):
    """A tuple of the fields (`Field`) of a dataclass or an instance, in
    order; TypeError for anything else."""
    names = _cudash.dataclass_fields(class_or_instance)
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    out = []
    for name in names:
        default, factory = MISSING, MISSING
        held = getattr(cls, name, MISSING)
        if type(held).__name__ == "Field" and not isinstance(held, Field):
            default = getattr(held, "default", MISSING)
            factory = getattr(held, "default_factory", MISSING)
        elif held is not MISSING:
            default = held
        out.append(Field(name, default, factory))
    return tuple(out)


def _is_instance(obj):
    return is_dataclass(obj) and not isinstance(obj, type)


def astuple(obj):
    """The values of an instance's fields as a tuple, a dataclass among
    them as a tuple too."""
    if not _is_instance(obj):
        raise TypeError("astuple() should be called on dataclass instances")
    return tuple(astuple(v) if _is_instance(v) else v
                 for v in (getattr(obj, name) for name in _cudash.dataclass_fields(obj)))


def replace(obj, **changes):
    """A new instance of `obj`'s class with `changes` in place of its
    fields' values (`__init__` and `__post_init__` run again)."""
    if not _is_instance(obj):
        raise TypeError("replace() should be called on dataclass instances")
    for name in _cudash.dataclass_fields(obj):
        if name not in changes:
            changes[name] = getattr(obj, name)
    return type(obj)(**changes)
