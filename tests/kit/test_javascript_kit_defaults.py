"""The JavaScript kit's default hooks play the values the Python kit refuses without a hook
(jhyap_kit.support.default_misplay): its laying (throws.laid by_rank) and its run ends
(pick.from_offer run_ends) read runs with jokers, round the corner and with the ace at
either end as the reference does, and its settlement plays money.settlement. So the JS
kit has nothing to refuse there; this keeps it so, against the reference's functions."""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from conformance.spec.profiles import resolved_profile
from jhyap_core.cards import parse_cards
from jhyap_core.table import Throw
from jhyap_core.vocabulary import ThrowKind
from reference_engine import game_end, picking, throws
from reference_engine.rules import Rules

pytestmark = pytest.mark.e2e

KIT = Path(__file__).resolve().parents[2] / "kits" / "javascript" / "jhyap-kit.mjs"
NODE = shutil.which("node")
RANKS = "A23456789TJQK"

# Each case: the kit's defaults on a throw (laid, pickable positions) or on final scores.
JS_DEFAULTS = f"""
import {{ readFileSync }} from 'node:fs';
import {{ readRules, laidCards, pickablePositions, settlement }} from {json.dumps(KIT.as_uri())};
const cases = JSON.parse(readFileSync(0, 'utf8'));
console.log(JSON.stringify(cases.map((c) => {{
  const rules = readRules(c.rules);
  if (c.scores) return settlement(c.scores, rules.money);
  const offer = {{ cards: c.cards, kind: 'run' }};
  return [laidCards(c.cards, 'run', rules), pickablePositions(offer, rules)];
}})));
"""


def _run_cases(rng: random.Random, count: int) -> list[tuple[dict[str, Any], Any]]:
    """Runs thrown as placed under by_rank and run_ends, with jokers wild or not, round the
    corner or not, the ace low, high or either: each with the reference's laying and run ends."""
    base = resolved_profile("bga-yaniv", {})["rules"]
    found: list[tuple[dict[str, Any], Any]] = []
    while len(found) < count:
        rules = copy.deepcopy(base)
        rules["throws"]["laid"] = "by_rank"
        rules["pick"]["from_offer"] = "run_ends"
        rules["deck"]["jokers_wild"] = rng.choice(["none", "runs", "sets_and_runs"])
        rules["throws"]["run"]["wrap"] = rng.random() < 0.3
        rules["throws"]["run"]["ace"] = rng.choice(["low", "high", "low_or_high"])
        rules["throws"]["run"]["max"] = rng.choice([None, 13])
        rules["hand_size"], rules["seats"]["max"] = 13, 2  # thirteen-card runs
        model = Rules.from_profile({"rules": rules})
        suit, start = rng.choice("cdhs"), rng.randint(1, 13)
        ranks = [start + i for i in range(rng.randint(3, 13))]
        if rules["throws"]["run"]["wrap"]:
            ranks = [(r - 1) % 13 + 1 for r in ranks]
        cards = [RANKS[r - 1] + suit for r in ranks if r <= 13]
        for _ in range(rng.randint(0, 2)):
            cards[rng.randrange(len(cards))] = "X"
        rng.shuffle(cards)
        parsed = parse_cards(cards)
        if throws.classify(parsed, model) is not ThrowKind.RUN:
            continue
        laid = [c.name for c in throws.laid(parsed, ThrowKind.RUN, model)]
        offer = Throw(tuple(parsed), ThrowKind.RUN)
        found.append(
            (
                {"rules": rules, "cards": cards},
                [laid, list(picking.pickable_positions(offer, model))],
            )
        )
    return found


def _settlement_cases(rng: random.Random, count: int) -> list[tuple[dict[str, Any], Any]]:
    base = resolved_profile("dashain", {})["rules"]
    found: list[tuple[dict[str, Any], Any]] = []
    for _ in range(count):
        rules = copy.deepcopy(base)
        method = rng.choice(
            ["largest_debtor_pays_largest_creditor", "debtors_pay_creditors_in_seat_order"]
        )
        rules["money"] = {
            "dollars_per_point": rng.choice(["0.05", "0.1", "1.25"]),
            "settlement": method,
        }
        scores = [rng.randint(-100, 100) for _ in range(rng.randint(1, 5))]
        scores.append(-sum(scores))
        model = Rules.from_profile({"rules": rules})
        assert model.money.dollars_per_point == Decimal(rules["money"]["dollars_per_point"])
        paid = game_end.settlement(scores, model.money.dollars_per_point, model.money.settlement)
        found.append(({"rules": rules, "scores": scores}, [p.to_json() for p in paid]))
    return found


@pytest.mark.skipif(NODE is None, reason="node is not installed (CI installs it)")
def test_the_js_defaults_lay_pick_and_settle_as_the_reference() -> None:
    assert NODE is not None
    rng = random.Random(38)
    cases = _run_cases(rng, 1500) + _settlement_cases(rng, 300)
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", JS_DEFAULTS],
        input=json.dumps([case for case, _ in cases]),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    differ = [
        (case.get("cards") or case["scores"], expected, got)
        for (case, expected), got in zip(cases, answers, strict=True)
        if got != expected
    ]
    assert differ == []
    # The runs drawn include jokers, corners turned and thirteen-card runs.
    runs = [case["cards"] for case, _ in cases if "cards" in case]
    assert sum("X" in cards for cards in runs) > 300
    assert sum(case["rules"]["throws"]["run"]["wrap"] for case, _ in cases if "cards" in case) > 100
    assert any(len(cards) == 13 for cards in runs)
