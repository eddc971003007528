"""card_values.cards (issue 40: a suit-specific value, the king of hearts 0): its variant passes
its oracle transcript as written, and the same transcript fails where the card keeps its
rank's value."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec.profiles import load_profile
from jhyap_core.cards import parse_cards
from jhyap_core.profile import resolve
from jhyap_core.vocabulary import ProfileError
from reference_engine.rules import Rules
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
VARIANT = VARIANTS / "yaniv-israel-king-of-hearts-zero.yaml"
TRANSCRIPTS = VARIANTS / "card-value-transcripts"


def _rules(cards: object) -> Rules:
    document = resolve(load_profile("yaniv-israel"))
    document["rules"]["card_values"]["cards"] = cards
    return Rules.from_profile(document)


def test_a_card_of_its_own_value_and_the_rest_of_its_rank() -> None:
    rules = _rules([{"card": "Kh", "value": 0}, {"card": "2s", "value": 12}])
    values = [rules.cards.card_value(c) for c in parse_cards(["Kh", "Kd", "2s", "2c", "X"])]
    assert values == [0, 10, 12, 2, 0]
    assert rules.cards.hand_value(parse_cards(["Kh", "Ac", "Ad", "2c", "3c"])) == 7
    assert rules.cards.highest_value == 12


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ([{"card": "Kx", "value": 0}], "rules.card_values.cards: a card such as Kh, not 'Kx'"),
        (
            [{"card": "Kh", "value": -1}],
            "rules.card_values.cards: Kh's value must be an integer of at least 0",
        ),
        (
            [{"card": "Kh", "value": 0}, {"card": "Kh", "value": 1}],
            "rules.card_values.cards: Kh is given twice",
        ),
    ],
)
def test_a_malformed_entry_is_refused_by_name(cards: object, message: str) -> None:
    with pytest.raises(ProfileError) as caught:
        _rules(cards)
    assert str(caught.value.message) == message


@pytest.mark.e2e
def test_the_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANT], capsys)
    assert status == 0, out
    assert out.splitlines()[-1].startswith("== 1 passed (1 case)")


@pytest.mark.e2e
def test_the_transcript_fails_where_the_king_keeps_its_ten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_variant_switched(
        TRANSCRIPTS,
        VARIANT,
        "rules: {card_values: {cards: [{card: Kh, value: 0}]}}",
        "rules: {card_values: {cards: []}}",
        tmp_path,
        capsys,
    )
    assert status == 1
    assert "hand_values[0]: expected 7, got 17 (step 2: check hand_values)" in out, out
