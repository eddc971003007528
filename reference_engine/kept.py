"""Values kept by the data they were made from: a hashable image of JSON data, and a small
bounded store of what was made from each image."""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

_Value = TypeVar("_Value")


class NotPlain(Exception):
    """Data other than JSON's dicts (of text keys), lists and scalars, met by a walk over
    JSON data (this module's, or the harness's in-process copy, which also takes tuples)."""


def plain_key(value: Any) -> Hashable:
    """A hashable image of JSON data that tells apart whatever a reader checking types could
    tell apart (a list from a tuple, true from 1, 1 from 1.0); NotPlain for other data."""
    cls = value.__class__
    if cls is dict:
        items = []
        for key, item in value.items():
            if key.__class__ is not str:
                raise NotPlain
            items.append((key, plain_key(item)))
        return (dict, tuple(items))
    if cls is list:
        return (list, tuple([plain_key(item) for item in value]))
    if cls is str or cls is int or cls is bool or value is None:
        return (cls, value)
    if cls is float:
        return (float, repr(value))  # -0.0 and nan as written, not as they compare
    raise NotPlain


class Kept(Generic[_Value]):
    """The last ``size`` values put, by key (none while ``size`` is 0); safe to share
    between threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: dict[Hashable, _Value] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> _Value | None:
        return self._values.get(key)

    def put(self, key: Hashable, value: _Value) -> None:
        if self.size <= 0:
            return
        with self._lock:
            while len(self._values) >= self.size:
                del self._values[next(iter(self._values))]  # the oldest
            self._values[key] = value

    def resize(self, size: int) -> None:
        """Keep up to ``size`` values from now on, forgetting those kept."""
        with self._lock:
            self.size = size
            self._values.clear()


__all__ = ["Kept", "NotPlain", "plain_key"]
