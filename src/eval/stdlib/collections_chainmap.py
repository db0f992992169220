"""Python's `collections.ChainMap`: several dicts read as one (the first
that has a key gives its value), written to through the first; written
for cudash in Python over the dicts themselves."""


class ChainMap:
    def __init__(self, *maps):
        self.maps = list(maps) or [{}]

    def __getitem__(self, key):
        for m in self.maps:
            if key in m:
                return m[key]
        return self.__missing__(key)

    def __missing__(self, key):
        raise KeyError(key)

    def get(self, key, default=None):
        for m in self.maps:
            if key in m:
                return m[key]
        return default

    def __contains__(self, key):
        return any(key in m for m in self.maps)

    def __len__(self):
        return len(self.keys())

    def keys(self):
        # In Python's order: the last map's keys first, each once.
        seen = {}
        for m in reversed(self.maps):
            for k in m:
                seen[k] = None
        return list(seen)

    def __iter__(self):
        return iter(self.keys())

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def values(self):
        return [self[k] for k in self.keys()]

    def __setitem__(self, key, value):
        self.maps[0][key] = value

    def __delitem__(self, key):
        try:
            del self.maps[0][key]
        except KeyError:
            raise KeyError(f"Key not found in the first mapping: {key!r}")

    def pop(self, key, *default):
        if key in self.maps[0]:
            return self.maps[0].pop(key)
        if default:
            return default[0]
        raise KeyError(f"Key not found in the first mapping: {key!r}")

    def new_child(self, m=None):
        return ChainMap({} if m is None else m, *self.maps)

    @property
    def parents(self):
        return ChainMap(*self.maps[1:])

    def __bool__(self):
        return any(self.maps)

    def __eq__(self, other):
        return dict(self.items()) == dict(other.items())

    def __repr__(self):
        return f"ChainMap({', '.join(repr(m) for m in self.maps)})"
