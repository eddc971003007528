"""The state fields an engine reports (``hello.supports.state_fields``, protocol 1.1), and
what the harness cannot check without the others.

An engine that lists ``state_fields`` reports those fields of ``state`` only (absent: every
field). The harness compares only the fields reported; each checkpoint field that needs
another is **not checked**: listed per case (``step N (line L): field, ...``), counted in
the reports, never passed in silence. A case none of whose checks could be made is
``not_checked``, not passed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from ..spec.steps import Transcript
from .client import EngineInfo

# The fields of state.schema.json, in the order docs/protocol.md lists them.
STATE_FIELDS: Final = (
    "phase",
    "round",
    "seats",
    "active",
    "eliminated",
    "dealer",
    "starter",
    "to_act",
    "hands",
    "hand_values",
    "offer",
    "offer_kind",
    "pickable",
    "thrown",
    "multi_throwers",
    "deck",
    "deck_size",
    "out_of_play",
    "turns_taken",
    "scores",
    "options",
    "last_round",
    "result",
)
# A check's name that is not a state field, and the field it reads.
READS: Final[Mapping[str, str]] = {"settlement": "result"}
_REQUIRED = re.compile(r"^state\.schema\.json#/required: '([a-z_]+)' is a required property")


def reported_fields(info: EngineInfo) -> frozenset[str] | None:
    """The fields the engine declares it reports, or None for every field."""
    declared = info.supports.get("state_fields")
    if not isinstance(declared, list):
        return None
    return frozenset(str(name) for name in declared)


def needs(name: str) -> str:
    """The state field a check of ``name`` reads."""
    return READS.get(name, name)


def narrowed(check: Mapping[str, Any], fields: frozenset[str] | None) -> dict[str, Any]:
    """The part of ``check`` the reported fields let the harness compare."""
    if fields is None:
        return dict(check)
    return {name: value for name, value in check.items() if needs(name) in fields}


def unchecked_names(check: Mapping[str, Any], fields: frozenset[str] | None) -> list[str]:
    """The names of ``check`` that need a field the engine does not report."""
    if fields is None:
        return []
    return [name for name in check if needs(name) not in fields]


def not_checked(transcript: Transcript, fields: frozenset[str] | None) -> tuple[str, ...]:
    """Each checkpoint of the transcript with a field the harness cannot compare, as
    ``step N (line L): a, b``."""
    found = []
    for number, step in enumerate(transcript.steps, start=1):
        if step.kind != "check":
            continue
        names = unchecked_names(step.check or {}, fields)
        if names:
            found.append(f"step {number} (line {step.line}): {', '.join(names)}")
    return tuple(found)


def anything_checked(transcript: Transcript, fields: frozenset[str] | None) -> bool:
    """Whether any check of the transcript is made: an expectation of a request (its
    events, its refusal, or just its acceptance), a legal answer, or a checkpoint field
    the engine reports. A transcript refused at start checks the refusal."""
    if fields is None or transcript.start_error is not None or transcript.fresh_engine:
        return True
    for step in transcript.steps:
        if step.kind != "check" or narrowed(step.check or {}, fields):
            return True
    return False


def unreported_dropped(problems: Iterable[str], fields: frozenset[str] | None) -> list[str]:
    """Schema problems less the missing state fields the engine declared it does not report."""
    if fields is None:
        return list(problems)
    kept = []
    for problem in problems:
        missing = _REQUIRED.match(problem)
        if missing and missing.group(1) not in fields:
            continue
        kept.append(problem)
    return kept


def undeclared(declared: Sequence[str]) -> list[str]:
    """The names of ``state_fields`` that are no state field."""
    return [name for name in declared if name not in STATE_FIELDS]


__all__ = [
    "READS",
    "STATE_FIELDS",
    "anything_checked",
    "narrowed",
    "needs",
    "not_checked",
    "reported_fields",
    "unchecked_names",
    "undeclared",
    "unreported_dropped",
]
