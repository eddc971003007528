"""JSON data files read as strictly as YAML ones: a duplicate key is refused.

Python's decoder keeps the last of two equal keys without a word. :func:`loads_unique`
refuses one as :mod:`yamlsafe` does in YAML, with a :class:`~yamlsafe.YamlProblem`
naming the file, the line of the second key and the line of the first:
``known.json:4: duplicate key 'id' (first on line 2)``. The fast C decoder reads the
file; only a file with a duplicate is read again, in Python, to find the lines.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
from collections.abc import Callable
from typing import Any, cast

from jhyap_core import bounded_json

from .yamlsafe import YamlProblem

# The pure-Python parts of the decoder, which typeshed does not describe.
_decoder = vars(json.decoder)
_JSON_OBJECT = cast(Callable[..., tuple[Any, int]], _decoder["JSONObject"])
_SCANSTRING = cast(Callable[[str, int], tuple[str, int]], _decoder["scanstring"])
_WHITESPACE = cast(Any, _decoder["WHITESPACE"])
_PY_MAKE_SCANNER = cast(Callable[[Any], Any], vars(json.scanner)["py_make_scanner"])


class _Duplicate(ValueError):
    """A duplicate key, found while decoding."""

    def __init__(self, key: str, line: int = 0, first: int = 0) -> None:
        super().__init__(key)
        self.key, self.line, self.first = key, line, first


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Duplicate(key)
        result[key] = value
    return result


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _key_lines(text: str, start: int, scan: Callable[[str, int], tuple[Any, int]]) -> None:
    """Walk the members of the object whose ``{`` ends at ``start``; _Duplicate with the
    lines of the first key seen twice."""
    skip = _WHITESPACE.match
    seen: dict[str, int] = {}
    position = skip(text, start).end()
    while position < len(text) and text[position] == '"':
        key, after = _SCANSTRING(text, position + 1)
        if key in seen:
            raise _Duplicate(key, _line(text, position), seen[key])
        seen[key] = _line(text, position)
        position = skip(text, after).end() + 1  # past the colon
        _, position = scan(text, skip(text, position).end())
        position = skip(text, position).end()
        if text[position : position + 1] != ",":
            break
        position = skip(text, position + 1).end()


class _LocatingDecoder(json.JSONDecoder):
    """A pure-Python decoder whose objects raise _Duplicate with the lines."""

    def __init__(self) -> None:
        super().__init__(object_pairs_hook=_unique)
        self.parse_object = self._parse_object
        self.scan_once = _PY_MAKE_SCANNER(self)

    def _parse_object(self, s_and_end: tuple[str, int], *rest: Any) -> tuple[Any, int]:
        text, start = s_and_end
        try:
            return _JSON_OBJECT(s_and_end, *rest)
        except _Duplicate as exc:
            if exc.line:  # found in a nested object, lines known
                raise
            _key_lines(text, start, self.scan_once)
            raise


def loads_unique(text: str | bytes, file: str) -> Any:
    """``bounded_json.loads`` that refuses a duplicate key as a YamlProblem of ``file``."""
    try:
        value = json.loads(text, object_pairs_hook=_unique)
    except RecursionError:
        raise bounded_json.JsonTooDeep(bounded_json.MAX_DEPTH) from None
    except _Duplicate as exc:
        raise _located(text, file, exc.key) from None
    if bounded_json.depth_exceeds(value):
        raise bounded_json.JsonTooDeep(bounded_json.MAX_DEPTH)
    return value


def _located(text: str | bytes, file: str, key: str) -> YamlProblem:
    """The problem of the first duplicate key of ``text``, with its lines."""
    decoded = text.decode("utf-8") if isinstance(text, bytes) else text
    try:
        _LocatingDecoder().decode(decoded)
    except _Duplicate as exc:
        return YamlProblem(file, exc.line, f"duplicate key {exc.key!r} (first on line {exc.first})")
    except (RecursionError, ValueError):
        pass
    return YamlProblem(file, 1, f"duplicate key {key!r}")  # too deep for the second reading
