"""Comparing what a transcript expects with what an engine answered. Pure functions.

Every function returns a list of differences, one line each in the form
``field: expected X, got Y`` (values shown as JSON); an empty list means equal.

The rules (docs/transcripts.md): an expected object lists only the keys it checks
(recursively); a list is compared whole, element by element in order; ``true`` is not
``1``. Vendor fields (keys starting with ``x-``) in the engine's answers are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..spec.wording import plural

# Check fields compared as sets, and per-seat fields whose per-seat values are sets.
SET_FIELDS = frozenset({"out_of_play", "multi_throwers"})
PER_SEAT_FIELDS = frozenset({"hands", "hand_values", "scores"})
PER_SEAT_SET_FIELDS = frozenset({"hands"})
SUBSET_FIELDS = frozenset({"last_round", "result"})


def show(value: Any) -> str:
    """A value as compact, readable JSON."""
    return json.dumps(value, ensure_ascii=False)


def _missing(path: str, expected: Any, what: str = "nothing") -> str:
    return f"{path}: expected {show(expected)}, got {what}"


def _differ(path: str, expected: Any, actual: Any) -> str:
    return f"{path}: expected {show(expected)}, got {show(actual)}"


def _same_scalar(expected: Any, actual: Any) -> bool:
    # JSON has one number type, so 2 and 2.0 agree; a boolean never equals a number.
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    return type(expected) is type(actual) and bool(expected == actual)


def strip_vendor(value: Any) -> Any:
    """``value`` without the ``x-`` vendor fields of its objects, at every depth."""
    if isinstance(value, dict):
        return {
            k: strip_vendor(v)
            for k, v in value.items()
            if not (isinstance(k, str) and k.startswith("x-"))
        }
    if isinstance(value, list):
        return [strip_vendor(v) for v in value]
    return value


def _agrees(expected: Any, actual: Any) -> bool:
    """Whether :func:`diff_values` finds no difference, found without wording any: stops
    at the first difference."""
    kind = expected.__class__
    if kind in _PLAIN_SCALARS:
        if kind is actual.__class__:
            return bool(expected == actual)
        return _same_scalar(expected, actual)
    if kind is dict or (kind is not list and isinstance(expected, Mapping)):
        if actual.__class__ is not dict and not isinstance(actual, Mapping):
            return False
        for key, want in expected.items():
            if key not in actual:
                return False
            got = actual[key]
            # A scalar against one of its kind is compared here, without a call.
            if want.__class__ is got.__class__ and want.__class__ in _PLAIN_SCALARS:
                if want != got:
                    return False
            elif not _agrees(want, got):
                return False
        return True
    if kind is list:
        if actual.__class__ is not list and not isinstance(actual, list):
            return False
        if len(expected) != len(actual):
            return False
        for want, got in zip(expected, actual, strict=True):
            if want.__class__ is got.__class__ and want.__class__ in _PLAIN_SCALARS:
                if want != got:
                    return False
            elif not _agrees(want, got):
                return False
        return True
    return _same_scalar(expected, actual)


# The scalars JSON decodes to, each equal only to its own kind when of one kind.
_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def diff_values(path: str, expected: Any, actual: Any) -> list[str]:
    """Differences of ``actual`` from ``expected``: objects by the keys expected, lists whole."""
    if _agrees(expected, actual):
        return []
    return _diff_values(path, expected, actual)


def _diff_values(path: str, expected: Any, actual: Any) -> list[str]:
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [_differ(path, expected, actual)]
        found: list[str] = []
        for key, want in expected.items():
            sub = f"{path}.{key}" if path else str(key)
            if key not in actual:
                found.append(_missing(sub, want, "nothing (missing)"))
            else:
                found.extend(_diff_values(sub, want, actual[key]))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [_differ(path, expected, actual)]
        if len(expected) != len(actual):
            return [_differ(path, expected, strip_vendor(actual))]
        if any(isinstance(e, Mapping | list) for e in expected):
            found = []
            for i, (want, got) in enumerate(zip(expected, actual, strict=True)):
                found.extend(_diff_values(f"{path}[{i}]", want, got))
            return found
        if all(_same_scalar(e, a) for e, a in zip(expected, actual, strict=True)):
            return []
        return [_differ(path, expected, actual)]
    if _same_scalar(expected, actual):
        return []
    return [_differ(path, expected, strip_vendor(actual))]


# The event types a difference names: an engine may answer with 100,000 events.
MAX_TYPES_SHOWN = 40


def _types(events: Sequence[Any]) -> str:
    words = [
        str(e.get("type")) if isinstance(e, Mapping) else show(e) for e in events[:MAX_TYPES_SHOWN]
    ]
    if len(events) > MAX_TYPES_SHOWN:
        words.append(f"... {len(events) - MAX_TYPES_SHOWN} more")
    return "[" + ", ".join(words) + "]"


def compare_events(expected: Sequence[Mapping[str, Any]], actual: Any) -> list[str]:
    """The same number of events, in order, each with the expected fields."""
    if not isinstance(actual, list):
        return [f"events: expected a list of {plural(len(expected), 'event')}, got {show(actual)}"]
    if len(expected) == len(actual) and _events_agree(expected, actual):
        return []
    found: list[str] = []
    if len(expected) != len(actual):
        found.append(
            f"events: expected {plural(len(expected), 'event')} {_types(expected)}, "
            f"got {len(actual)} {_types(actual)}"
        )
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if not isinstance(got, Mapping):
            found.append(_differ(f"events[{i}]", want, got))
            continue
        if want.get("type") != got.get("type"):
            # A different event: its other fields would only add noise.
            found.append(_differ(f"events[{i}].type", want.get("type"), got.get("type")))
            continue
        found.extend(diff_values(f"events[{i}]", want, got))
    return found


def _events_agree(expected: Sequence[Mapping[str, Any]], actual: list[Any]) -> bool:
    """Each event has the expected type and fields (as many events as expected)."""
    for want, got in zip(expected, actual, strict=True):
        if got.__class__ is not dict and not isinstance(got, Mapping):
            return False
        if want.get("type") != got.get("type") or not _agrees(want, got):
            return False
    return True


def _seat_key(key: Any) -> int | None:
    try:
        return int(key)
    except (TypeError, ValueError):
        return None


def _word(value: Any) -> str:
    """A set element in a difference: cards and other strings bare, the rest as JSON."""
    return value if isinstance(value, str) else show(value)


def _diff_set(path: str, expected: Any, actual: Any) -> list[str]:
    if not isinstance(actual, list) or not isinstance(expected, list):
        return [_differ(path, expected, actual)]
    want = sorted(map(_word, expected))
    got = sorted(map(_word, actual))
    if want == got:
        return []
    missing = list(set(want) - set(got))
    extra = list(set(got) - set(want))
    detail = []
    if missing:
        detail.append("missing " + " ".join(sorted(missing)))
    if extra:
        detail.append("extra " + " ".join(sorted(extra)))
    if not detail:
        detail.append("the same elements, repeated differently")
    return [f"{_differ(path, expected, actual)} ({'; '.join(detail)})"]


def _diff_per_seat(name: str, expected: Any, actual: Any) -> list[str]:
    compare = _diff_set if name in PER_SEAT_SET_FIELDS else diff_values
    if not isinstance(actual, list):
        return [_differ(name, expected, actual)]
    if isinstance(expected, Mapping):
        found: list[str] = []
        for key, want in expected.items():
            seat = _seat_key(key)
            path = f"{name}[{key}]"
            if seat is None or not 0 <= seat < len(actual):
                found.append(
                    _missing(
                        path, want, f"no such seat (the engine lists {plural(len(actual), 'seat')})"
                    )
                )
            else:
                found.extend(compare(path, want, actual[seat]))
        return found
    if not isinstance(expected, list):
        return [_differ(name, expected, actual)]
    if len(expected) != len(actual):
        return [
            f"{_differ(name, expected, actual)} ({plural(len(expected), 'seat')} expected, "
            f"{len(actual)} given)"
        ]
    found = []
    for seat, (want, got) in enumerate(zip(expected, actual, strict=True)):
        found.extend(compare(f"{name}[{seat}]", want, got))
    return found


def compare_check(check: Mapping[str, Any], state: Any) -> list[str]:
    """The fields a ``check`` step names against the engine's state (docs/transcripts.md)."""
    if not isinstance(state, Mapping):
        return [f"state: expected an object, got {show(state)}"]
    found: list[str] = []
    for name, want in check.items():
        if name == "settlement":
            result = state.get("result")
            if not isinstance(result, Mapping):
                found.append(_missing(name, want, f"no game result (result is {show(result)})"))
            elif "settlement" not in result:
                found.append(_missing(name, want, "nothing (result.settlement is missing)"))
            else:
                found.extend(diff_values(name, want, result["settlement"]))
            continue
        if name not in state:
            found.append(_missing(name, want, "nothing (the state has no such field)"))
            continue
        got = state[name]
        if name in PER_SEAT_FIELDS:
            found.extend(_diff_per_seat(name, want, got))
        elif name in SET_FIELDS:
            found.extend(_diff_set(name, want, got))
        elif name in SUBSET_FIELDS and isinstance(want, Mapping):
            found.extend(diff_values(name, want, got))
        else:
            found.extend(diff_values(name, want, got))
    return found


def checked_fields(check: Mapping[str, Any], state: Any) -> Any:
    """The engine's values of the fields a check names, shaped like the check (for reports):
    per-seat mappings keep only the seats named; ``settlement`` comes from the result."""
    if not isinstance(state, Mapping):
        return state
    shown: dict[str, Any] = {}
    for name, want in check.items():
        if name == "settlement":
            result = state.get("result")
            shown[name] = result.get("settlement") if isinstance(result, Mapping) else None
            continue
        got = state.get(name)
        if name in PER_SEAT_FIELDS and isinstance(want, Mapping) and isinstance(got, list):
            seats = {str(k): _seat_key(k) for k in want}
            shown[name] = {
                k: got[i] for k, i in seats.items() if i is not None and 0 <= i < len(got)
            }
        elif name in SUBSET_FIELDS and isinstance(want, Mapping) and isinstance(got, Mapping):
            shown[name] = {k: got[k] for k in want if k in got}
        else:
            shown[name] = got
    return shown


def compare_states(before: Any, after: Any) -> list[str]:
    """Every field that differs between two states, as ``field: before X, after Y``."""
    if _same_text(before, after):
        return []
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        if strip_vendor(before) == strip_vendor(after):
            return []
        return [f"state: before {show(before)}, after {show(after)}"]
    found = []
    for key in list(before) + [k for k in after if k not in before]:
        if isinstance(key, str) and key.startswith("x-"):
            continue
        old = strip_vendor(before.get(key)) if key in before else None
        new = strip_vendor(after.get(key)) if key in after else None
        if key not in before:
            found.append(f"{key}: before (absent), after {show(new)}")
        elif key not in after:
            found.append(f"{key}: before {show(old)}, after (absent)")
        elif not _deep_equal(old, new):
            found.append(f"{key}: before {show(old)}, after {show(new)}")
    return found


def _same_text(a: Any, b: Any) -> bool:
    """Whether two values serialise alike: then they are equal (``true`` is not ``1``, and
    vendor fields alike are alike without them); otherwise they may still be (``2`` and
    ``2.0``, keys in another order), which the walk decides."""
    try:
        return json.dumps(a, allow_nan=False) == json.dumps(b, allow_nan=False)
    except (TypeError, ValueError):  # NaN equals nothing, not even NaN: the walk says so
        return False


def _deep_equal(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_deep_equal(x, y) for x, y in zip(a, b, strict=True))
    return _same_scalar(a, b)


__all__ = [
    "checked_fields",
    "compare_check",
    "compare_events",
    "compare_states",
    "diff_values",
    "show",
    "strip_vendor",
]
