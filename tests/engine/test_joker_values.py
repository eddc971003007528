"""card_values.only_jokers (issue 40: values that depend on the rest of the hand, negative
values): a hand of jokers only is worth the value for each joker, below 0 too, and is called
on, compared and scored as such; the variant passes its oracle transcript as written, and the
same transcript fails where jokers keep card_values.X in every hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec.profiles import ProfileFileError, load_profile
from jhyap_core.cards import parse_cards
from jhyap_core.profile import resolve
from reference_engine import calling, scoring
from reference_engine.rules import Rules
from tests.cli_helpers import run_variant_switched, run_variants
from tests.conftest import ROOT

VARIANTS = ROOT / "tests" / "data" / "variants"
VARIANT = VARIANTS / "yaniv-israel-jokers-only-minus-5.yaml"
TRANSCRIPTS = VARIANTS / "joker-value-transcripts"


def _rules(only_jokers: int | None) -> Rules:
    document = resolve(load_profile("yaniv-israel"))
    document["rules"]["card_values"]["only_jokers"] = only_jokers
    return Rules.from_profile(document)


@pytest.mark.parametrize(
    ("cards", "minus_five", "plain"),
    [
        (["X", "X"], -10, 0),
        (["X"], -5, 0),
        (["X", "Ac"], 1, 1),
        (["Ac", "2c"], 3, 3),
        ([], 0, 0),
    ],
)
def test_a_hand_of_jokers_only_counts_the_value_for_each_joker(
    cards: list[str], minus_five: int, plain: int
) -> None:
    assert _rules(-5).cards.hand_value(parse_cards(cards)) == minus_five
    assert _rules(None).cards.hand_value(parse_cards(cards)) == plain


def test_a_hand_below_zero_is_called_on_compared_and_scored() -> None:
    rules = _rules(-5)
    # A call on -10 is within a limit of 7.
    assert calling.call_refusal(-10, 5, 2, rules) is None
    # Won: each other hand scores itself, -5 included (a total may go below 0).
    won = scoring.showdown({0: -10, 1: -5, 2: 40}, [1, 2], 0, rules)
    assert (won.winner, dict(won.deltas)) == (0, {1: -5, 2: 40})
    # Beaten by -10: the caller on -5 scores -5 + 30, the third seat its 40.
    beaten = scoring.showdown({0: -10, 1: -5, 2: 40}, [2, 0], 1, rules)
    assert (beaten.winner, dict(beaten.deltas)) == (0, {0: 0, 1: 25, 2: 40})
    # A total below 0 is never halved or dropped; an exact cut still applies.
    halving = rules.with_values({"scoring.halve_at_multiples_of": 50})
    assert [scoring.cut_score(t, halving) for t in (-50, 0, 100)] == [-50, 0, 50]


def test_validate_accepts_a_value_below_zero_and_refuses_a_string(tmp_path: Path) -> None:
    assert load_profile(VARIANT)["rules"]["card_values"]["only_jokers"] == -5
    text = VARIANT.read_text("utf-8").replace("only_jokers: -5", 'only_jokers: "-5"')
    bad = tmp_path / "jokers-only-string.yaml"
    bad.write_text(text.replace("id: yaniv-israel-jokers-only-minus-5", "id: a-string"), "utf-8")
    with pytest.raises(ProfileFileError) as caught:
        load_profile(bad)
    assert str(caught.value).endswith(
        'rules.card_values.only_jokers: must be an integer or null, not a string ("-5")'
    )


@pytest.mark.e2e
def test_the_variant_passes_its_transcript_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_variants(TRANSCRIPTS, [VARIANT], capsys)
    assert status == 0, out
    assert out.splitlines()[-1].startswith("== 1 passed (1 case)")


@pytest.mark.e2e
def test_the_transcript_fails_where_jokers_keep_their_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_variant_switched(
        TRANSCRIPTS,
        VARIANT,
        "rules: {card_values: {only_jokers: -5}}",
        "rules: {card_values: {only_jokers: null}}",
        tmp_path,
        capsys,
    )
    assert status == 1
    assert "hand_values[0]: expected -10, got 0 (step 5: check hand_values)" in out, out
