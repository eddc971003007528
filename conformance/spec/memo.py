"""Results remembered per object, by identity: a run asks the same question of the same
mapping (its profiles, its ruleset) once per transcript."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import TypeVar

from reference_engine.kept import Kept

_Arg = TypeVar("_Arg")
_Result = TypeVar("_Result")


def by_identity(size: int = 8) -> Callable[[Callable[[_Arg], _Result]], Callable[[_Arg], _Result]]:
    """Remember a one-argument function's result for the last ``size`` objects given, by
    identity (for mappings, which cannot be hashed). Each object is kept with its result, so
    its id cannot pass to another while remembered; the result is shared: not to be changed."""

    def decorate(function: Callable[[_Arg], _Result]) -> Callable[[_Arg], _Result]:
        remembered: Kept[tuple[_Arg, _Result]] = Kept(size)

        @functools.wraps(function)
        def remembering(value: _Arg) -> _Result:
            hit = remembered.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
            result = function(value)
            remembered.put(id(value), (value, result))
            return result

        return remembering

    return decorate


_First = TypeVar("_First")
_Second = TypeVar("_Second")


def by_identities(
    size: int = 8,
) -> Callable[[Callable[[_First, _Second], _Result]], Callable[[_First, _Second], _Result]]:
    """:func:`by_identity` for a function of two arguments: its result remembered for the
    last ``size`` pairs given, by the identity of both."""

    def decorate(
        function: Callable[[_First, _Second], _Result],
    ) -> Callable[[_First, _Second], _Result]:
        remembered: Kept[tuple[_First, _Second, _Result]] = Kept(size)

        @functools.wraps(function)
        def remembering(first: _First, second: _Second) -> _Result:
            hit = remembered.get((id(first), id(second)))
            if hit is not None and hit[0] is first and hit[1] is second:
                return hit[2]
            result = function(first, second)
            remembered.put((id(first), id(second)), (first, second, result))
            return result

        return remembering

    return decorate


def by_identity_and_key(
    key: Callable[[_Second], Hashable], size: int = 8
) -> Callable[[Callable[[_First, _Second], _Result]], Callable[[_First, _Second], _Result]]:
    """:func:`by_identity` for a function of an object and a value: its result remembered
    for the last ``size`` pairs given, by the identity of the object and ``key`` of the
    value (what the value means to the function: its JSON text, say)."""

    def decorate(
        function: Callable[[_First, _Second], _Result],
    ) -> Callable[[_First, _Second], _Result]:
        remembered: Kept[tuple[_First, _Result]] = Kept(size)

        @functools.wraps(function)
        def remembering(first: _First, second: _Second) -> _Result:
            entry = (id(first), key(second))
            hit = remembered.get(entry)
            if hit is not None and hit[0] is first:
                return hit[1]
            result = function(first, second)
            remembered.put(entry, (first, result))
            return result

        return remembering

    return decorate


__all__ = ["by_identities", "by_identity", "by_identity_and_key"]
