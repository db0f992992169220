"""Python's typing for cudash: the names programs import for their
annotations (which cudash, like Python, does not check), subscripted as
Python's are (`Dict[str, Tensor]` shows as `typing.Dict[str,
torch.Tensor]`), and the few used when a program runs: `NamedTuple` as a
base class (a named tuple of the annotated fields), `Generic[T]` and
`Protocol` as bases, `TypeVar`, `NewType`, `cast`, `overload`,
`TYPE_CHECKING`. Written for cudash in Python."""
TYPE_CHECKING = False


def _type_repr(t):
    if isinstance(t, (_Form, TypeVar)):
        return repr(t)
    if t is None or t is type(None):
        return "None"
    if repr(t) == "Ellipsis":
        return "..."
    if isinstance(t, list):
        return "[" + ", ".join(_type_repr(a) for a in t) + "]"
    if isinstance(t, str):
        return repr(t)
    text = repr(t)
    if text.startswith("<class '") and text.endswith("'>"):
        text = text[8:-2]
        if text.startswith("builtins."):
            text = text[9:]
        if text.startswith("__main__."):
            text = text[9:]
    return text


class _Form:
    """A special form or generic alias (`Optional`, `Dict[str, int]`): a
    marker to subscript and show, as Python's."""

    def __init__(self, name, args=()):
        self._name = name
        self.__args__ = args

    def __getitem__(self, params):
        if not isinstance(params, tuple):
            params = (params,)
        return _Form(self._name, self.__args__ + params)

    def __repr__(self):
        if not self.__args__:
            return "typing." + self._name
        return "typing." + self._name + "[" + ", ".join(_type_repr(a) for a in self.__args__) + "]"

    def __eq__(self, other):
        return isinstance(other, _Form) and self._name == other._name and self.__args__ == other.__args__

    def __hash__(self):
        return hash(repr(self))

    def __call__(self, *args, **kwargs):
        raise TypeError(f"Type {self._name} cannot be instantiated")


Any = _Form("Any")
Union = _Form("Union")
Optional = _Form("Optional")
List = _Form("List")
Dict = _Form("Dict")
Tuple = _Form("Tuple")
Set = _Form("Set")
FrozenSet = _Form("FrozenSet")
Callable = _Form("Callable")
Iterable = _Form("Iterable")
Iterator = _Form("Iterator")
Generator = _Form("Generator")
Sequence = _Form("Sequence")
MutableSequence = _Form("MutableSequence")
Mapping = _Form("Mapping")
MutableMapping = _Form("MutableMapping")
Collection = _Form("Collection")
Container = _Form("Container")
Hashable = _Form("Hashable")
Sized = _Form("Sized")
Type = _Form("Type")
Literal = _Form("Literal")
Final = _Form("Final")
ClassVar = _Form("ClassVar")
Annotated = _Form("Annotated")
NoReturn = _Form("NoReturn")
Never = _Form("Never")
Self = _Form("Self")
Awaitable = _Form("Awaitable")
Coroutine = _Form("Coroutine")
AsyncIterator = _Form("AsyncIterator")
Deque = _Form("Deque")
DefaultDict = _Form("DefaultDict")
OrderedDict = _Form("OrderedDict")
Counter = _Form("Counter")
ChainMap = _Form("ChainMap")
Text = str
AnyStr = _Form("AnyStr")
SupportsInt = _Form("SupportsInt")
SupportsFloat = _Form("SupportsFloat")
TypeAlias = _Form("TypeAlias")
TypeGuard = _Form("TypeGuard")
ParamSpec = _Form("ParamSpec")
Concatenate = _Form("Concatenate")
Unpack = _Form("Unpack")
TypedDict = dict


class TypeVar:
    """`T = TypeVar("T")`: a type variable, shown as `~T`."""

    def __init__(self, name, *constraints, bound=None, covariant=False, contravariant=False):
        self.__name__ = name
        self.__constraints__ = constraints
        self.__bound__ = bound
        self.__covariant__ = covariant
        self.__contravariant__ = contravariant

    def __repr__(self):
        prefix = "+" if self.__covariant__ else "-" if self.__contravariant__ else "~"
        return prefix + self.__name__


class Generic:
    """A base for generic classes: `class Box(Generic[T])`; `Box[int]` is
    the class itself (Python's is an alias that makes a `Box` when called)."""

    @classmethod
    def __class_getitem__(cls, params):
        return cls


class Protocol(Generic):
    """A base for structural types: nothing is checked, as when Python runs
    a program without a type checker."""


class NamedTuple:
    """A base for named tuples written as classes: `class Row(NamedTuple):
    name: str; score: float = 0.0` makes a named tuple of the annotated
    fields, with their defaults (cudash makes the class, `eval/class.rs`)."""

    _typing_named_tuple = True

    def __init__(self, *args, **kwargs):
        raise TypeError("cudash makes a NamedTuple from a class body: "
                        "`class Row(NamedTuple): name: str`, or collections.namedtuple(name, fields)")


def NewType(name, tp):
    """`UserId = NewType("UserId", int)`: a function that gives its argument back."""

    def new_type(x):
        return x

    new_type.__name__ = name
    new_type.__supertype__ = tp
    return new_type


def cast(typ, val):
    """`cast(T, v)`: `v` itself (nothing is checked, as in Python)."""
    return val


def overload(func):
    return func


def final(f):
    return f


def no_type_check(f):
    return f


def runtime_checkable(cls):
    return cls


def get_args(tp):
    return tp.__args__ if isinstance(tp, _Form) else ()


def get_origin(tp):
    return _Form(tp._name) if isinstance(tp, _Form) and tp.__args__ else None
