"""The JavaScript kit's list of the profile format's rule parameters (RULE_PARAMETERS in
kits/javascript/jhyap-kit.mjs, which ships without the schema) is the registry's: a
parameter added to the schema and missing there would be refused by every JS binding as
unknown, one kept there after leaving the schema would be let through."""

from __future__ import annotations

import re

from reference_engine.parameters import registry
from tests.conftest import ROOT

KIT = ROOT / "kits" / "javascript" / "jhyap-kit.mjs"


def _kit_parameters() -> list[str]:
    text = KIT.read_text("utf-8")
    block = re.search(r"RULE_PARAMETERS = Object\.freeze\(new Set\(\[(.*?)\]\)\);", text, re.S)
    assert block is not None
    body = block.group(1)
    # The ranks' values are spelled by a map over RANKS, the joker's key, the cards' and
    # the jokers-only value's.
    ranks = "A23456789TJQK"
    own = ["X", "cards", "only_jokers"]
    assert "...[...RANKS, 'X', 'cards', 'only_jokers'].map((k) => `card_values.${k}`)" in body
    return [
        *(p for p in re.findall(r"'([a-z_]+(?:\.[a-z_]+)*)'", body) if p not in own),
        *(f"card_values.{k}" for k in [*ranks, *own]),
    ]


def test_the_javascript_kit_knows_every_parameter_of_the_registry() -> None:
    assert sorted(_kit_parameters()) == sorted(registry().paths())
