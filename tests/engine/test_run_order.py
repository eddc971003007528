"""Issue 40's runs that must be laid in ascending order (throws.run.order), runs laid by
rank while sets stay as placed (throws.laid runs_by_rank) and jokers only inside runs, never
alone (throws.single_joker) and where a joker extending a run stands
(throws.run.jokers_extend), which no shipped profile plays:
their variants pass their oracle transcripts as written, each transcript fails where its
parameter is back at its default, and the engine's refusal and legal list follow the rule on
exact hands."""

from __future__ import annotations

from pathlib import Path

import pytest

from jhyap_core.cards import parse_cards
from jhyap_core.profile import resolve
from reference_engine import throws
from reference_engine.rules import JokersExtend, JokersWild, Rules, RunOrder
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT, profile_document

VARIANTS = ROOT / "tests" / "data" / "variants"
TRANSCRIPTS = VARIANTS / "run-order-transcripts"
# Each variant's override, and the value that puts it back at its default.
OVERRIDES = {
    "dhumbal-runs-ascending.yaml": ("order: ascending", "order: any"),
    "bga-yaniv-runs-by-rank.yaml": ("laid: runs_by_rank", "laid: as_placed"),
    "bga-yaniv-jokers-only-in-runs.yaml": ("single_joker: false", "single_joker: true"),
    "yaniv-israel-jokers-extend-down.yaml": (
        "jokers_extend: down_first",
        "jokers_extend: up_first",
    ),
}
# The first step each transcript fails at once its variant's value is back at the default.
FAILS_AT = {
    "dhumbal-runs-ascending.yaml": 'expected "illegal_throw", got accepted (step 2: seat 0 throws',
    "bga-yaniv-runs-by-rank.yaml": 'events[0].cards: expected ["4h", "X", "6h"]',
    "bga-yaniv-jokers-only-in-runs.yaml": (
        'expected "illegal_throw", got accepted (step 2: seat 0 throws X'
    ),
    "yaniv-israel-jokers-extend-down.yaml": 'pickable: expected ["7h", "X"], got ["5h", "X"]',
}


@pytest.mark.e2e
def test_each_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANTS / name for name in OVERRIDES], capsys)
    assert status == 0
    assert out.splitlines()[-1].startswith("== 4 passed as written, 12 passed derived (16 cases)")


@pytest.mark.e2e
@pytest.mark.parametrize("name", sorted(OVERRIDES))
def test_the_transcript_fails_without_the_new_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    new, default = OVERRIDES[name]
    others = [VARIANTS / n for n in OVERRIDES if n != name]
    # The same id, the parameter back at its default.
    status, out = run_variant_switched(
        TRANSCRIPTS, VARIANTS / name, new, default, tmp_path, capsys, others
    )
    assert status == 1
    assert "1 failed as written" in out.splitlines()[-1]
    assert FAILS_AT[name] in out


def _rules(**changes: object) -> Rules:
    base = Rules.from_profile(resolve(profile_document("dhumbal")))
    values = {"throws.run_order": RunOrder.ASCENDING, **changes}
    return base.with_values(values)


def _names(cards: list[object]) -> list[str]:
    return [str(c) for c in cards]


@pytest.mark.parametrize(
    ("placed", "refused"),
    [
        ("5h 6h 7h", False),
        ("7h 6h 5h", True),
        ("5h 7h 6h", True),
        ("9c 9d", False),  # a set: any order
        ("9d 9c", False),
        ("Kc", False),
    ],
)
def test_a_run_is_refused_unless_placed_lowest_first(placed: str, refused: bool) -> None:
    rules = _rules()
    assert throws.out_of_order(parse_cards(placed.split()), rules) is refused
    at_default = _rules(**{"throws.run_order": RunOrder.ANY})
    assert throws.out_of_order(parse_cards(placed.split()), at_default) is False


def test_a_joker_is_placed_where_it_stands() -> None:
    rules = _rules(**{"cards.jokers_per_pack": 2, "cards.jokers_wild": "runs"})
    # Jokers fill the gaps, then extend the run upwards: 5h X 7h, and 5h 6h 7h X (X the 8h).
    assert not throws.out_of_order(parse_cards(["5h", "X", "7h"]), rules)
    assert throws.out_of_order(parse_cards(["5h", "7h", "X"]), rules)
    assert not throws.out_of_order(parse_cards(["5h", "6h", "7h", "X"]), rules)
    assert throws.out_of_order(parse_cards(["X", "5h", "6h", "7h"]), rules)


def test_legal_lists_each_run_in_the_order_it_must_be_placed() -> None:
    # Canonical order puts the joker last (5h 7h X); placed, it stands between them.
    rules = _rules(**{"cards.jokers_per_pack": 2, "cards.jokers_wild": "runs"})
    hand = parse_cards(["5h", "7h", "X", "Kc", "2s"])
    listed = [_names(list(t)) for t in throws.legal_throws(hand, rules)]
    assert listed == [["2s"], ["5h"], ["7h"], ["Kc"], ["X"], ["5h", "X", "7h"]]
    at_default = rules.with_values({"throws.run_order": RunOrder.ANY})
    assert [_names(list(t)) for t in throws.legal_throws(hand, at_default)][-1] == ["5h", "7h", "X"]


def test_a_joker_alone_is_refused_while_the_hand_allows_another_throw() -> None:
    rules = Rules.from_profile(resolve(profile_document("bga-yaniv"))).with_values(
        {"throws.single_joker": False}
    )
    joker = parse_cards(["X"])
    assert throws.joker_alone_refused(joker, parse_cards(["X", "5h", "Kc"]), rules)
    # Jokers only, which make no set here (set.jokers_alone false): one may be thrown.
    assert not throws.joker_alone_refused(joker, parse_cards(["X", "X"]), rules)
    assert [_names(list(t)) for t in throws.legal_throws(parse_cards(["X", "X"]), rules)] == [["X"]]
    listed = [_names(list(t)) for t in throws.legal_throws(parse_cards(["X", "5h", "6h"]), rules)]
    assert listed == [["5h"], ["6h"], ["5h", "6h", "X"]]
    at_default = rules.with_values({"throws.single_joker": True})
    assert not throws.joker_alone_refused(joker, parse_cards(["X", "5h", "Kc"]), at_default)


@pytest.mark.parametrize(
    ("extend", "placed", "ranks"),
    [
        ("up_first", "5h 6h 7h X", [5, 6, 7, 8]),
        ("down_first", "5h 6h 7h X", [4, 5, 6, 7]),
        ("down_first", "Ah 2h 3h X", [1, 2, 3, 4]),  # no rank below the ace: above
        ("up_first", "Jh Qh Kh X", [10, 11, 12, 13]),  # no rank above the king: below
        ("down_first", "5h X 7h X", [4, 5, 6, 7]),  # the gap first
    ],
)
def test_a_spare_joker_stands_where_jokers_extend_says(
    extend: str, placed: str, ranks: list[int]
) -> None:
    rules = _rules(
        **{
            "throws.run_order": RunOrder.ANY,
            "cards.jokers_per_pack": 2,
            "cards.jokers_wild": JokersWild.RUNS,
            "throws.run_jokers_extend": JokersExtend(extend),
        }
    )
    positions = throws.run_positions(parse_cards(placed.split()), rules)
    assert positions is not None
    assert [rank for _, rank in positions] == ranks
