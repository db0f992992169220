"""Python's inspect module as PyTorch programs use it: a callable's
signature (nanoGPT's `'fused' in inspect.signature(torch.optim.AdamW).parameters`),
and what sort of object a value is. Written for cudash on what the
interpreter tells (`_cudash.parameters`, `_cudash.kind`)."""

import _cudash


class _empty:
    """Marks a parameter without a default (Parameter.empty)."""


class Parameter:
    POSITIONAL_ONLY = 0
    POSITIONAL_OR_KEYWORD = 1
    VAR_POSITIONAL = 2
    KEYWORD_ONLY = 3
    VAR_KEYWORD = 4
    empty = _empty

    def __init__(self, name, kind, default=_empty, annotation=_empty):
        self.name = name
        self.kind = kind
        self.default = default
        self.annotation = annotation

    def __str__(self):
        if self.kind == Parameter.VAR_POSITIONAL:
            return "*" + self.name
        if self.kind == Parameter.VAR_KEYWORD:
            return "**" + self.name
        if self.default is _empty:
            return self.name
        return self.name + "=" + repr(self.default)

    def __repr__(self):
        return '<Parameter "' + str(self) + '">'


class Signature:
    empty = _empty

    def __init__(self, parameters=None, return_annotation=_empty):
        self.parameters = {}
        for p in parameters or []:
            self.parameters[p.name] = p
        self.return_annotation = return_annotation

    def __str__(self):
        parts = []
        starred = False
        for p in self.parameters.values():
            if p.kind == Parameter.KEYWORD_ONLY and not starred:
                parts.append("*")
            if p.kind in (Parameter.VAR_POSITIONAL, Parameter.KEYWORD_ONLY):
                starred = True
            parts.append(str(p))
        return "(" + ", ".join(parts) + ")"

    def __repr__(self):
        return "<Signature " + str(self) + ">"


def signature(obj):
    """The parameters `obj` takes, in order, each with its kind and default."""
    return Signature([Parameter(*p) for p in _cudash.parameters(obj)])


def isclass(obj):
    return _cudash.kind(obj) == "class"


def isfunction(obj):
    return _cudash.kind(obj) == "function"


def ismethod(obj):
    return _cudash.kind(obj) == "method"


def isbuiltin(obj):
    return _cudash.kind(obj) == "builtin"


def ismodule(obj):
    return _cudash.kind(obj) == "module"


def isroutine(obj):
    return _cudash.kind(obj) in ("function", "method", "builtin")
