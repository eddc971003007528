"""The state fields an engine reports (``hello.supports.state_fields``, protocol 1.1), and
what the harness cannot check without the others.

An engine that lists ``state_fields`` reports those fields of ``state`` only (absent: every
field). The harness compares only the fields reported; each checkpoint field that needs
another is **not checked**: listed per case (``step N (line L): field, ...``), counted in
the reports, never passed in silence. A case none of whose checks could be made is
``not_checked``, not passed.

An engine bound through an adapter kit may list, in ``hello.supports.kit_kept_fields``,
the fields the kit keeps by its own table procedure rather than reading from the engine.
The harness still compares them, but a failure on one says so, each checkpoint field that
is kit-kept is listed per case (:func:`kit_kept`), and no check on one counts as a check
of the engine (:func:`anything_checked`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from jhyap_core.vocabulary import STATE_FIELDS  # in the order docs/protocol.md lists them

from ..spec.steps import Transcript
from .client import EngineInfo

# A check's name that is not a state field, and the field it reads.
READS: Final[Mapping[str, str]] = {"settlement": "result"}
_REQUIRED = re.compile(r"^state\.schema\.json#/required: '([a-z_]+)' is a required property")


def reported_fields(info: EngineInfo) -> frozenset[str] | None:
    """The fields the engine declares it reports, or None for every field."""
    declared = info.supports.get("state_fields")
    if not isinstance(declared, list):
        return None
    return frozenset(str(name) for name in declared)


def kit_kept_fields(info: EngineInfo) -> frozenset[str]:
    """The fields the engine's kit keeps itself (``kit_kept_fields``; absent: none)."""
    declared = info.supports.get("kit_kept_fields")
    if not isinstance(declared, list):
        return frozenset()
    return frozenset(str(name) for name in declared)


def kept_names(check: Mapping[str, Any], kept: frozenset[str]) -> list[str]:
    """The names of ``check`` that read a field the engine's kit keeps."""
    return [name for name in check if needs(name) in kept]


def kit_kept(
    transcript: Transcript, fields: frozenset[str] | None, kept: frozenset[str]
) -> tuple[str, ...]:
    """Each checkpoint of the transcript comparing a field the engine's kit keeps (of those
    reported), as ``step N (line L): a, b``."""
    if not kept:
        return ()
    found = []
    for number, step in enumerate(transcript.steps, start=1):
        if step.kind != "check":
            continue
        names = kept_names(narrowed(step.check or {}, fields), kept)
        if names:
            found.append(f"step {number} (line {step.line}): {', '.join(names)}")
    return tuple(found)


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


def anything_checked(
    transcript: Transcript, fields: frozenset[str] | None, kept: frozenset[str] = frozenset()
) -> bool:
    """Whether any check of the transcript is made of the engine: an expectation of a
    request (its events, its refusal, or just its acceptance), a legal answer, or a
    checkpoint field the engine reports and its kit does not keep (``kept``). A transcript
    refused at start checks the refusal."""
    if (fields is None and not kept) or transcript.start_error is not None:
        return True
    if transcript.fresh_engine or (fields is None and not transcript.steps):
        return True  # a start accepted, with nothing after it, is the engine's answer
    for step in transcript.steps:
        if step.kind != "check":
            return True
        compared = narrowed(step.check or {}, fields)
        if any(needs(name) not in kept for name in compared):
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
    "kept_names",
    "kit_kept",
    "kit_kept_fields",
    "narrowed",
    "needs",
    "not_checked",
    "reported_fields",
    "unchecked_names",
    "undeclared",
    "unreported_dropped",
]
