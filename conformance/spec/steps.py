"""A transcript and its steps: what each step sends or checks, built from its YAML."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jhyap_core.vocabulary import ActionType, Command, PickSource

from .decks import Deck, expand_deal


@dataclass(frozen=True)
class Expect:
    """What an action step must produce: an error code, or events (or just acceptance)."""

    error: str | None = None
    events: tuple[Mapping[str, Any], ...] | None = None
    seq_given: bool = False  # whether the transcript states the answer's seq
    seq: int | None = None


@dataclass(frozen=True)
class Step:
    """One step: a protocol request to send, or a state check."""

    index: int
    line: int
    kind: str  # deal, act, reshuffle, set_option, end_game, check, raw, legal, start
    request: Mapping[str, Any] | None  # protocol request without seq; None for check, raw
    check: Mapping[str, Any] | None = None
    expect: Expect = field(default_factory=Expect)
    starter: int | None = None  # for a deal given by hands: the starter the engine must report
    clauses: tuple[str, ...] = ()  # the clauses this step checks; () means the transcript's
    raw: Mapping[str, Any] | None = None  # a raw step: text, json (+ add_seq) or oversize
    legal: Any = None  # a legal step: the expected answer (null outside a turn)
    start_options: Mapping[str, Any] | None = None  # a start step's replacement options
    start_seats: int | None = None  # a start step's replacement seat count
    deal: Mapping[str, Any] | None = None  # a deal step's spec as written (hands or order)

    def describe(self) -> str:
        if self.kind == "check":
            return "check " + ", ".join(self.check or {})
        if self.kind == "raw":
            spec = self.raw or {}
            if "oversize" in spec:
                return f"a state request padded to {spec['oversize']} bytes"
            if "text" in spec:
                return str(spec["text"])
            return json.dumps(spec.get("json"), separators=(",", ":"))
        if self.kind == "legal":
            return "legal: " + json.dumps(self.legal, separators=(",", ":"))
        if self.kind == "start":
            options = "" if self.start_options is None else f" options {dict(self.start_options)}"
            seats = "" if self.start_seats is None else f" seats {self.start_seats}"
            return f"start{options}{seats}"
        return json.dumps(self.request, separators=(",", ":"))


def _action(act: Mapping[str, Any]) -> dict[str, Any]:
    if "call" in act:
        return {"type": ActionType.CALL}
    if "throw" in act:
        return {"type": ActionType.THROW, "cards": list(act["throw"])}
    if "timeout" in act:
        return {"type": ActionType.TIMEOUT}
    if "slapdown" in act:
        return {"type": ActionType.SLAPDOWN, "card": act["slapdown"]}
    pick = act["pick"]
    if pick == "deck":
        return {"type": ActionType.PICK, "from": PickSource.DECK}
    return {"type": ActionType.PICK, "from": PickSource.OFFER, "card": pick}


def raw_line(spec: Mapping[str, Any], seq: int) -> tuple[bytes, int | None]:
    """The bytes of a raw step's line (without newline), and the seq the harness put in it."""
    if "text" in spec:
        return str(spec["text"]).encode("utf-8"), None
    if "oversize" in spec:
        head = json.dumps({"seq": seq, "cmd": Command.STATE}, separators=(",", ":"))
        # Made as bytes: the line is over a megabyte, and the head is ASCII.
        padding = b" " * (int(spec["oversize"]) - len(head))
        return head[:-1].encode() + padding + b"}", seq
    value = spec["json"]
    if isinstance(value, dict) and "seq" not in value and spec.get("add_seq", True):
        value = {"seq": seq, **value}
        put: int | None = seq
    else:
        put = None
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"), put


def build_step(index: int, raw: Mapping[str, Any], line: int, deck: Deck = (1, 0)) -> Step:
    step = _build_step_kind(index, raw, line, deck)
    clauses = tuple(raw.get("clauses") or ())
    # Most steps name no clauses of their own: the default, without a copy of the step.
    return replace(step, clauses=clauses) if clauses else step


def _build_step_kind(index: int, raw: Mapping[str, Any], line: int, deck: Deck = (1, 0)) -> Step:
    expect_raw = raw.get("expect") or {}
    expect = Expect(
        error=expect_raw.get("error"),
        events=tuple(expect_raw["events"]) if "events" in expect_raw else None,
        seq_given="seq" in expect_raw,
        seq=expect_raw.get("seq"),
    )
    if "raw" in raw:
        return Step(index, line, "raw", None, expect=expect, raw=dict(raw["raw"]))
    if "legal" in raw:
        return Step(index, line, "legal", {"cmd": Command.LEGAL}, legal=raw["legal"])
    if "start" in raw:
        spec = raw["start"] or {}
        return Step(
            index,
            line,
            "start",
            {"cmd": Command.START},
            expect=expect,
            start_options=spec.get("options"),
            start_seats=spec.get("seats"),
        )
    if "deal" in raw:
        spec = raw["deal"]
        return Step(
            index,
            line,
            "deal",
            {"cmd": Command.DEAL, "deck": expand_deal(spec, deck)},
            expect=expect,
            starter=spec.get("starter"),
            deal=spec,
        )
    if "act" in raw:
        act = raw["act"]
        return Step(
            index,
            line,
            "act",
            {"cmd": Command.ACT, "seat": act["seat"], "action": _action(act)},
            expect=expect,
        )
    if "reshuffle" in raw:
        return Step(
            index,
            line,
            "reshuffle",
            {"cmd": Command.RESHUFFLE, "order": list(raw["reshuffle"])},
            expect=expect,
        )
    if "set_option" in raw:
        opt = raw["set_option"]
        return Step(
            index,
            line,
            "set_option",
            {"cmd": Command.SET_OPTION, "name": opt["name"], "value": opt["value"]},
            expect=expect,
        )
    if "end_game" in raw:
        return Step(index, line, "end_game", {"cmd": Command.END_GAME}, expect=expect)
    return Step(index, line, "check", None, check=dict(raw["check"]))


@dataclass(frozen=True)
class Transcript:
    id: str
    title: str
    kind: str
    file: Path
    line: int
    seats: int
    clauses: tuple[str, ...]
    steps: tuple[Step, ...]
    profiles: tuple[str, ...] = ()
    where: Mapping[str, Any] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    description: str = ""
    start_error: str | None = None  # the table itself must be refused with this code
    raw: Mapping[str, Any] = field(default_factory=dict)
    fresh_engine: bool = False  # a new engine process, and no start before the steps
    # (packs, jokers per pack[, ranks left out]) the deals are written for
    deck: Deck = (1, 0)

    def location(self, step: Step | None = None) -> str:
        return f"{self.file}:{step.line if step else self.line}"
