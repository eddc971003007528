"""What became of one case: its status, and where and how it failed (docs/reports)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, Final

from jhyap_core.vocabulary import ErrorCode

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
    # The case ended having judged nothing: none of the accepted moves its transcript
    # expects (each refused, as the ruleset plays it), or no comparison at all (Judged).
    EMPTY = "empty"


# The statuses by their short names, as the harness and the reports use them.
_RAN: Final = (
    CaseStatus.PASSED,
    CaseStatus.FAILED,
    CaseStatus.EMPTY,
    CaseStatus.ERRORED,
    CaseStatus.CRASHED,
    CaseStatus.TIMED_OUT,
    CaseStatus.SKIPPED,
    CaseStatus.XFAIL,
    CaseStatus.XPASS,
)
STATUSES: Final = (*_RAN, CaseStatus.NOT_APPLICABLE, CaseStatus.NOT_CHECKED)
OK_STATUSES: Final = frozenset(
    {
        CaseStatus.PASSED,
        CaseStatus.SKIPPED,
        CaseStatus.XFAIL,
        CaseStatus.NOT_APPLICABLE,
        CaseStatus.NOT_CHECKED,
    }
)
NOT_PASSED: Final = frozenset(
    {
        CaseStatus.FAILED,
        CaseStatus.EMPTY,
        CaseStatus.ERRORED,
        CaseStatus.CRASHED,
        CaseStatus.TIMED_OUT,
    }
)


class Refusal(StrEnum):
    """What a ruleset's refusal of a move says, where the transcript as written expects the
    move accepted (a derived case ends there: docs/readings.md)."""

    # The ruleset cannot set the move up: the seat is not the one it gives the turn to,
    # or the move needs an option, a seat count or a timer it does not have. A case that
    # ends at one before any move it expects is accepted cannot be played: not applicable.
    SETUP = "setup"
    # A rule of the ruleset refuses the move (a throw it does not allow, a call over its
    # limit, a pick it forbids...): the refusal is what the case judges.
    RULE = "rule"


# The refusals that say the ruleset cannot set the move up; every other code is a rule's.
SETUP_REFUSALS: Final = frozenset(
    {
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.INVALID_SEAT,
        ErrorCode.INVALID_SEATS,
        ErrorCode.UNKNOWN_OPTION,
        ErrorCode.INVALID_OPTION_VALUE,
        ErrorCode.UNSUPPORTED_OPTION,
        ErrorCode.TIMER_OFF,
    }
)


def refusal_of(code: str) -> Refusal:
    """Whether the refusal ``code`` is the setup's or a rule's."""
    return Refusal.SETUP if code in SETUP_REFUSALS else Refusal.RULE


@dataclass(frozen=True)
class Judged:
    """What a case compared with its expectations, whether it agreed or not (docs/reports).

    ``accepted``: requests the engine accepted whose answer was compared (a move, a deal,
    a reshuffle, an option change, a raw line, a start step); ``moves``: those of them that
    were ``act`` requests. ``refusals``: expected refusals whose error code was compared
    (a refused table's start too). ``states``: state checks and ``legal`` answers compared.
    """

    accepted: int = 0
    moves: int = 0
    refusals: int = 0
    states: int = 0

    def __add__(self, other: Judged) -> Judged:
        return Judged(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @property
    def compared(self) -> int:
        """How many comparisons in all (``moves`` are among ``accepted``)."""
        return self.accepted + self.refusals + self.states

    @property
    def nothing(self) -> bool:
        """Whether nothing at all was compared."""
        return not self.compared

    def as_json(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def words(self) -> str:
        """``judged 1,234 accepted actions (987 moves), 210 refusals, 890 states``."""
        return (
            f"judged {_counted(self.accepted, 'accepted action')} "
            f"({_counted(self.moves, 'move')}), {_counted(self.refusals, 'refusal')}, "
            f"{_counted(self.states, 'state')}"
        )


def _counted(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def total_judged(outcomes: Iterable[Outcome]) -> Judged:
    """What the cases judged, added up."""
    return sum((o.judged for o in outcomes), Judged())


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
    # "derived" (the expectations are the reference engine's), "reseated" (derived, the
    # transcript's seats moved round first) or "not_applicable"; why,
    # for the last two; the profile the transcript was written for that it was set
    # against; and, for a failure, the parameters the ruleset changes that the step touches.
    mode: str = "as_written"
    mode_note: str = ""
    base: str | None = None
    changed: tuple[str, ...] = ()
    not_checked: tuple[str, ...] = ()  # checkpoint fields the engine does not report
    judged: Judged = Judged()  # what the case compared, up to where it ended
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
        elif kind == "slapdown":
            text = f"seat {seat} slaps down {action.get('card')}"
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
