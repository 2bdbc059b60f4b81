"""Read-only JSON values for what a run holds once read (the target's and the reference's
configs, the settings, the baseline): still a dict or a list to every reader (isinstance,
json.dumps, JSON pointers), but any change raises TypeError. A deep copy is a plain,
writable one (what a fix builds on)."""

from __future__ import annotations

from types import MappingProxyType


def _refuse(self, *args, **kwargs):
    raise TypeError(f"{type(self).__name__} is read-only: copy it to change it")


class ReadOnlyDict(dict):
    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __deepcopy__(self, memo):
        return writable(self)

    def __copy__(self):
        return dict(self)

    def __reduce__(self):
        return ReadOnlyDict, (dict(self),)


class ReadOnlyList(list):
    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __deepcopy__(self, memo):
        return writable(self)

    def __copy__(self):
        return list(self)

    def __reduce__(self):
        return ReadOnlyList, (list(self),)


def readonly(value):
    """`value` (JSON-like) with every dict and list read-only, all the way down; a tuple
    stays a tuple, its items made read-only."""
    if isinstance(value, ReadOnlyDict | ReadOnlyList):
        return value
    if isinstance(value, dict):
        return ReadOnlyDict((k, readonly(v)) for k, v in value.items())
    if isinstance(value, list):
        return ReadOnlyList(readonly(v) for v in value)
    if isinstance(value, tuple):
        return tuple(readonly(v) for v in value)
    return value


def writable(value):
    """A plain, writable deep copy of a JSON-like `value`."""
    if isinstance(value, dict):
        return {k: writable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [writable(v) for v in value]
    return value


def view(mapping: dict) -> MappingProxyType:
    """A read-only view of `mapping`, for a table no one else holds (no copy)."""
    return mapping if isinstance(mapping, MappingProxyType) else MappingProxyType(mapping)
