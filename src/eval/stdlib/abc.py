"""Python's `abc`: `ABC` and `abstractmethod`. A class derived from `ABC`
is not made while a method marked `@abstractmethod` is left without an
override (Python's `TypeError: Can't instantiate abstract class ...`,
checked when the class is called: eval/abstract_methods.rs). `ABCMeta`
and `metaclass=` are not here."""
import _cudash

abstractmethod = _cudash.abstractmethod


class ABC:
    """A base class whose abstract methods its subclasses must define."""
