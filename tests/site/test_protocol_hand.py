"""The protocol page's example hand: drawn from the reference engine's answers, and the page's
JSON lines are that exchange."""

from __future__ import annotations

import re
from pathlib import Path

from conformance.site import protocol_hand

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "docs" / "protocol.md"


def _page_lines() -> list[str]:
    """The JSON lines of the drawn example, as docs/protocol.md writes them."""
    text = PROTOCOL.read_text(encoding="utf-8")
    after = text.split(protocol_hand.MARKER, 1)[1]
    block = re.search(r"```\{\.text \.jc-exchange\}\n(.*?)```", after, re.S)
    assert block is not None
    return block[1].splitlines()


def _matches(written: str, real: str) -> bool:
    """Whether a line as the page writes it is ``real`` with parts left out as ``...``."""
    first, *rest = written.split("...")
    if not rest:
        return written == real
    if not real.startswith(first):
        return False
    at = len(first)
    for piece in rest[:-1]:
        found = real.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return real.endswith(rest[-1]) and len(real) - len(rest[-1]) >= at


def test_the_drawing_shows_the_commands_in_order_and_each_answer() -> None:
    messages = protocol_hand.exchange()
    labels = [
        (protocol_hand.request_label(m.request), protocol_hand.answer_label(m.answer))
        for m in messages
    ]
    assert labels == [
        ("hello, protocol 1.2", "ok: jhyap-reference 0.1.0, protocol 1.2"),
        ("start dashain, 2 seats", "ok: no events"),
        ("deal 52 cards", "ok: round_started, dealt"),
        ("state", "ok: state, phase call_or_throw, to act 0"),
        ("act, seat 0: call", "refused: call_too_early"),
        ("act, seat 0: throw Kh", "ok: thrown"),
        ("act, seat 0: pick 3h from the offer", "ok: picked"),
        ("act, seat 1: throw Kc Kd", "ok: thrown"),
        ("act, seat 1: pick from the deck", "ok: picked, out_of_play"),
        ("act, seat 0: call", "ok: called, round_ended"),
        ("end_game", "ok: game_ended"),
        ("stop", "ok"),
    ]
    svg = protocol_hand.sequence_svg(messages)
    drawn = re.findall(r'<text [^>]*class="jc-seq-(?:request|answer)[^"]*">(.*?)</text>', svg)
    said = [re.sub(r"<[^>]+>", "", t) for t in drawn]
    expected: list[str] = []
    for seq, (request, answer) in enumerate(labels):
        expected += [f"{seq} {request}", answer]
    assert said == expected
    assert svg.count("jc-seq-refused") == 3  # the refusal's words, line and arrowhead
    assert '<title id="jc-seq-title">' in svg and "4: the harness sends act, seat 0: call" in svg


def test_the_pages_lines_are_the_reference_engines_exchange() -> None:
    real = []
    for message in protocol_hand.exchange():
        real += ["> " + protocol_hand.json_line(message.request)]
        real += ["< " + protocol_hand.json_line(message.answer)]
    written = _page_lines()
    assert len(written) == len(real)
    assert [w for w, r in zip(written, real, strict=True) if not _matches(w, r)] == []


def test_the_line_matcher_fails_a_changed_line() -> None:
    real = '{"seq":3,"ok":true,"state":{"phase":"call_or_throw","to_act":0,"deck":[]}}'
    assert _matches('{"seq":3,"ok":true,"state":{"phase":"call_or_throw",...}}', real)
    assert not _matches('{"seq":3,"ok":true,"state":{"phase":"pick",...}}', real)
    assert not _matches('{"seq":4,...}', real)
    assert not _matches('{"seq":3,...,"to_act":1,...}', real)


def test_the_page_gets_the_drawing_where_it_is_marked() -> None:
    source = PROTOCOL.read_text(encoding="utf-8")
    assert source.count(protocol_hand.MARKER) == 1
    page = protocol_hand.protocol_page(source)
    assert protocol_hand.MARKER not in page
    assert page.count('<figure class="jc-seq"><svg class="jc-seq-svg"') == 1
    assert page.index('<figure class="jc-seq">') < page.index('> {"seq":3,"cmd":"state"}')
