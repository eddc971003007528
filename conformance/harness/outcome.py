"""What became of one case: its status, and where and how it failed (docs/reports)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from ..spec.steps import Step
from .compare import show


class CaseStatus(StrEnum):
    """What became of a case; the value is the word in every report."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    CRASHED = "crashed"
    TIMED_OUT = "timed_out"
    SKIPPED = "skipped"
    XFAIL = "xfail"
    XPASS = "xpass"
    # The ruleset declared cannot play the transcript's setup (seats, deck, an option value).
    NOT_APPLICABLE = "not_applicable"
    # Every check needs a state field the engine does not report (state_fields.py).
    NOT_CHECKED = "not_checked"


# The statuses by their short names, as the harness and the reports use them.
PASSED: Final = CaseStatus.PASSED
FAILED: Final = CaseStatus.FAILED
ERRORED: Final = CaseStatus.ERRORED
CRASHED: Final = CaseStatus.CRASHED
TIMED_OUT: Final = CaseStatus.TIMED_OUT
SKIPPED: Final = CaseStatus.SKIPPED
XFAIL: Final = CaseStatus.XFAIL
XPASS: Final = CaseStatus.XPASS
NOT_APPLICABLE: Final = CaseStatus.NOT_APPLICABLE
NOT_CHECKED: Final = CaseStatus.NOT_CHECKED
_RAN: Final = (PASSED, FAILED, ERRORED, CRASHED, TIMED_OUT, SKIPPED, XFAIL, XPASS)
STATUSES: Final = (*_RAN, NOT_APPLICABLE, NOT_CHECKED)
OK_STATUSES: Final = frozenset({PASSED, SKIPPED, XFAIL, NOT_APPLICABLE, NOT_CHECKED})
NOT_PASSED: Final = frozenset({FAILED, ERRORED, CRASHED, TIMED_OUT})


@dataclass(frozen=True)
class Outcome:
    """What happened to one (transcript, profile) case.

    ``step`` counts from 1 (0 is the ``start`` request); ``line`` is that step's line
    in ``file``. ``expected``/``actual`` are JSON-like values for the report.
    ``clauses`` are the clauses the outcome is credited to under ``profile``: a pass, the
    transcript's; a failure, the failing step's (or the protocol clause the answer broke).
    """

    status: CaseStatus
    transcript_id: str
    profile: str
    clauses: tuple[str, ...] = ()
    file: str = ""
    line: int = 0
    step: int | None = None
    step_description: str = ""
    request: Mapping[str, Any] | None = None
    expected: Any = None
    actual: Any = None
    differences: tuple[str, ...] = ()
    reason: str = ""
    stderr_tail: tuple[str, ...] = ()
    state_diff: bool = False  # differences compare the state before and after a refusal
    focus: int = 0  # how many of ``clauses`` (the first) what differed points at
    duration: float = 0.0
    known_failure: str | None = None  # the known-failures entry's reason, for xfail/xpass
    # How the case ran under its ruleset (conformance.harness.derive.Mode): "as_written",
    # "derived" (the expectations are the reference engine's) or "not_applicable"; why,
    # for the last two; the profile the transcript was written for that it was set
    # against; and, for a failure, the parameters the ruleset changes that the step touches.
    mode: str = "as_written"
    mode_note: str = ""
    base: str | None = None
    changed: tuple[str, ...] = ()
    not_checked: tuple[str, ...] = ()  # checkpoint fields the engine does not report
    # Checkpoint fields the engine's kit keeps itself (hello.supports.kit_kept_fields):
    # compared, but no check of the engine's.
    kit_kept: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status in OK_STATUSES


def describe_step(step: Step) -> str:
    """A step in words, for reports."""
    req = step.request or {}
    text: str
    if step.kind == "check":
        text = "check " + ", ".join(step.check or {})
    elif step.kind == "raw":
        spec = step.raw or {}
        if "oversize" in spec:
            text = f"a line of {spec['oversize']} bytes"
        else:
            shown = spec["text"] if "text" in spec else show(spec.get("json"))
            text = f"the raw line {shortened(str(shown))}"
    elif step.kind == "legal":
        text = "legal"
    elif step.kind == "start":
        text = "start" + (f" with options {show(step.start_options)}" if step.start_options else "")
        text += f" at {step.start_seats} seats" if step.start_seats is not None else ""
    elif step.kind == "deal":
        text = "deal" + (
            f" (starter {step.starter})" if step.starter is not None else " (52-card order)"
        )
    elif step.kind == "act":
        action = req.get("action") or {}
        seat = req.get("seat")
        kind = action.get("type")
        if kind == "throw":
            text = f"seat {seat} throws {' '.join(map(str, action.get('cards', [])))}"
        elif kind == "pick" and action.get("from") == "deck":
            text = f"seat {seat} picks from the deck"
        elif kind == "pick":
            text = f"seat {seat} picks {action.get('card')} from the offer"
        elif kind == "call":
            text = f"seat {seat} calls"
        else:
            text = f"seat {seat} times out"
    elif step.kind == "reshuffle":
        text = f"reshuffle ({len(req.get('order', []))} cards)"
    elif step.kind == "set_option":
        text = f"set_option {req.get('name')} = {show(req.get('value'))}"
    else:
        text = step.kind
    if step.expect.error:
        text += f" (expects {step.expect.error})"
    return text


def shortened(text: str, limit: int = 120) -> str:
    """``text``, cut at ``limit`` characters with its length said."""
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"
