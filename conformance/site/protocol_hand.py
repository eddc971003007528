"""The protocol page's example hand drawn as a sequence diagram, from the reference engine's
real answers (so the picture cannot drift from what an engine says).

``docs/protocol.md`` is written by hand; at build time :func:`protocol_page` puts the drawing
where the page marks it (:data:`MARKER`), above the same exchange as JSON lines, which stay on
the page as the drawing's full text. The example is the page's: a whole game of one hand at a
two-seat Dashain table (a call refused, two turns of a throw and a pick, the call, the host
ending the game). tests/site/test_protocol_hand.py checks that the page's JSON lines are this
exchange.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jhyap_core.cards import DECK, names
from jhyap_core.profile import resolve
from jhyap_core.vocabulary import PROTOCOL_VERSION, ActionType, Command, PickSource
from reference_engine.server import Session

from ..spec.transcript_profiles import shipped_documents
from .common import md_safe

PROTOCOL_PAGE = "protocol.md"
MARKER = "<!-- the example hand, drawn at build time (conformance/site/protocol_hand.py) -->"

EXAMPLE_PROFILE = "dashain"
EXAMPLE_SEATS = 2
# The deck's first cards, dealt in turn from seat 0: seat 0 gets Ac As 2c 2d Kh, seat 1 Qc Kc
# Kd Qs Js; 3h is turned up and 4c is the top of the deck. The rest follow in canonical order.
EXAMPLE_DECK_TOP = ("Ac", "Qc", "As", "Kc", "2c", "Kd", "2d", "Qs", "Kh", "Js", "3h", "4c")


def _act(seat: int, action: Mapping[str, Any]) -> dict[str, Any]:
    return {"cmd": Command.ACT, "seat": seat, "action": dict(action)}


def example_requests() -> list[dict[str, Any]]:
    """The example's requests, without their ``seq``."""
    resolved = resolve(shipped_documents()[EXAMPLE_PROFILE])
    deck = [*EXAMPLE_DECK_TOP, *(c for c in names(DECK) if c not in EXAMPLE_DECK_TOP)]
    call = {"type": ActionType.CALL}
    return [
        {"cmd": Command.HELLO, "protocol": PROTOCOL_VERSION},
        {
            "cmd": Command.START,
            "profile": resolved,
            "options": resolved["option_values"],
            "seats": EXAMPLE_SEATS,
        },
        {"cmd": Command.DEAL, "deck": deck},
        {"cmd": Command.STATE},
        _act(0, call),  # too early: nobody may call before every player has had a turn
        _act(0, {"type": ActionType.THROW, "cards": ["Kh"]}),
        _act(0, {"type": ActionType.PICK, "from": PickSource.OFFER, "card": "3h"}),
        _act(1, {"type": ActionType.THROW, "cards": ["Kc", "Kd"]}),
        _act(1, {"type": ActionType.PICK, "from": PickSource.DECK}),
        _act(0, call),
        {"cmd": Command.END_GAME},
        {"cmd": Command.STOP},
    ]


@dataclass(frozen=True)
class Message:
    """One request and the reference engine's answer, both as JSON would carry them."""

    request: dict[str, Any]
    answer: dict[str, Any]


def exchange(requests: Sequence[Mapping[str, Any]] | None = None) -> list[Message]:
    """``requests`` (the example's by default) numbered from 0 and answered by the reference
    engine in this process, each through a JSON round trip as over the pipe."""
    session = Session()
    out: list[Message] = []
    for seq, request in enumerate(example_requests() if requests is None else requests):
        sent = json.loads(json.dumps({"seq": seq, **request}))
        out.append(Message(sent, json.loads(json.dumps(session.handle(sent)))))
    return out


def json_line(message: Mapping[str, Any]) -> str:
    """A message as one protocol line (no spaces, as the page writes them)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


# -- what each arrow says ---------------------------------------------------------------------


def _action_words(action: Mapping[str, Any]) -> str:
    kind = action.get("type")
    if kind == ActionType.THROW:
        return "throw " + " ".join(action.get("cards", []))
    if kind == ActionType.PICK:
        if action.get("from") == PickSource.OFFER:
            return f"pick {action.get('card')} from the offer"
        return "pick from the deck"
    return str(kind)


def request_label(request: Mapping[str, Any]) -> str:
    """A request in a few words: its command and what it carries."""
    command = str(request.get("cmd"))
    if command == Command.HELLO:
        return f"hello, protocol {request.get('protocol')}"
    if command == Command.START:
        profile = request.get("profile") or {}
        return f"start {profile.get('id')}, {request.get('seats')} seats"
    if command == Command.DEAL:
        return f"deal {len(request.get('deck') or [])} cards"
    if command == Command.ACT:
        return f"act, seat {request.get('seat')}: {_action_words(request.get('action') or {})}"
    return command


def answer_label(answer: Mapping[str, Any]) -> str:
    """An answer in a few words: refused with its code, else what it carries (the events by
    their type)."""
    if not answer.get("ok"):
        return f"refused: {(answer.get('error') or {}).get('code')}"
    if "engine" in answer:
        engine = answer["engine"]
        return (
            f"ok: {engine.get('name')} {engine.get('version')}, protocol {answer.get('protocol')}"
        )
    if "state" in answer:
        state = answer["state"]
        return f"ok: state, phase {state.get('phase')}, to act {state.get('to_act')}"
    if "events" in answer:
        events = [str(e.get("type")) for e in answer["events"]]
        return "ok: " + (", ".join(events) if events else "no events")
    return "ok"


# -- the drawing ------------------------------------------------------------------------------

# Drawn for a phone (340 px wide, the text 12 px) and shown at that size on any screen.
WIDTH = 340
HARNESS_X = 14  # the harness's lifeline
ENGINE_X = WIDTH - 14  # the engine's
HEAD = 40  # px above the first message: the two names
STEP = 27  # px from one arrow to the next
GAP = 8  # px more between one request's answer and the next request
ARROW = 6  # the arrowhead's length


def _arrow(y: float, rightwards: bool, css: str) -> str:
    start, end = (HARNESS_X, ENGINE_X) if rightwards else (ENGINE_X, HARNESS_X)
    tip = end - ARROW if rightwards else end + ARROW
    return (
        f'<path class="{css}" d="M{start} {y} H{tip}"/>'
        f'<path class="{css} jc-seq-head" d="M{end} {y} L{tip} {y - 4} L{tip} {y + 4} Z"/>'
    )


def sequence_svg(messages: Sequence[Message]) -> str:
    """The exchange drawn: the harness on the left, the engine on the right, one arrow a line
    (the request's seq, command and arguments; the answer's events or refusal)."""
    marks: list[str] = []
    texts: list[str] = []
    y = float(HEAD)
    for message in messages:
        seq = message.request.get("seq")
        y += STEP
        texts.append(
            f'<text x="{HARNESS_X + 6}" y="{y - 5}" class="jc-seq-request">'
            f'<tspan class="jc-seq-number">{seq}</tspan> '
            f"{md_safe(request_label(message.request))}</text>"
        )
        marks.append(_arrow(y, True, "jc-seq-line"))
        y += STEP
        refused = not message.answer.get("ok")
        css = "jc-seq-answer jc-seq-refused" if refused else "jc-seq-answer"
        texts.append(
            f'<text x="{ENGINE_X - 6}" y="{y - 5}" text-anchor="end" class="{css}">'
            f"{md_safe(answer_label(message.answer))}</text>"
        )
        back = "jc-seq-line jc-seq-back" + (" jc-seq-refused" if refused else "")
        marks.append(_arrow(y, False, back))
        y += GAP
    height = int(y + 10)
    lifelines = "".join(
        f'<path class="jc-seq-life" d="M{x} {HEAD - 8} V{height - 4}"/>'
        for x in (HARNESS_X, ENGINE_X)
    )
    heads = (
        f'<text x="{HARNESS_X - 8}" y="18" class="jc-seq-name">harness</text>'
        f'<text x="{ENGINE_X + 8}" y="18" text-anchor="end" class="jc-seq-name">engine</text>'
        f'<text x="{WIDTH / 2}" y="18" text-anchor="middle" class="jc-seq-note">'
        "requests → ← answers</text>"
    )
    steps = "; ".join(
        f"{m.request.get('seq')}: the harness sends {request_label(m.request)}; "
        f"the engine answers {answer_label(m.answer)}"
        for m in messages
    )
    return (
        f'<svg class="jc-seq-svg" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
        'aria-labelledby="jc-seq-title jc-seq-desc">'
        '<title id="jc-seq-title">One hand over the protocol: each request of the harness '
        "and the engine's answer, in order (the same exchange as JSON lines follows)</title>"
        f'<desc id="jc-seq-desc">{md_safe(steps)}.</desc>'
        + lifelines
        + heads
        + "".join(marks)
        + "".join(texts)
        + "</svg>"
    )


def sequence_figure(messages: Sequence[Message]) -> str:
    return f'<figure class="jc-seq">{sequence_svg(messages)}</figure>'


def protocol_page(source: str) -> str:
    """docs/protocol.md with the drawing where it is marked (unchanged without a marker)."""
    return source.replace(MARKER, sequence_figure(exchange()))
