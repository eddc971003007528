"""A profile page states only the rules its profile has: every worded rule value and every
rule number on the page is the one the profile plays (its own value or the schema's default).

Text taken from the profile itself (its summary, clause statements, reasons, examples and
transcript notes) is the profile speaking, and is left out of the check.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import pytest

from conformance.site import common, docsgen, parameters, profile_page
from jhyap_core.profile import resolve
from tests.conftest import PROFILE_IDS


@cache
def site() -> common.SiteData:
    """The shipped profiles and corpus, loaded once when a test first asks (not when the
    tests are collected: loading the corpus takes seconds)."""
    return docsgen.load_site()


def played(document: Mapping[str, Any]) -> dict[str, Any]:
    rules = resolve(document, {})["rules"]
    return {**common.rule_defaults(), **dict(parameters.leaf_paths(rules))}


def generated_text(page: str) -> str:
    """The page without the text that comes from the profile or its transcripts."""
    page = re.sub(r'<div class="jc-clause.*?\n</div>\n', "", page, flags=re.S)  # clauses
    lines = page.splitlines()
    return "\n".join(
        line
        for line in lines
        if not (line.startswith("*") and line.endswith("*"))  # the summary, notes
        and not line.lstrip().startswith(("- *", "- expected:"))
    )


# Rule numbers the page states, and the value each must be.
NUMBERS: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
    (r"- (\d+) to \d+ players", lambda p: str(p["seats.min"])),
    (r"- \d+ to (\d+) players", lambda p: str(p["seats.max"])),
    (r"players, (\d+) cards each", lambda p: str(p["hand_size"])),
    (
        r"A call needs a hand of (at most|under) ",
        lambda p: "at most" if p["call.inclusive"] else "under",
    ),
    (r"A call needs a hand of (?:at most|under) (\d+) points", lambda p: str(p["call.limit"])),
    (r"\((\d+) rounds\)", lambda p: str(p.get("game_end.rounds"))),
    (
        r"in the first round: ([^.;]+)\.",
        lambda p: common.value_words("call.first_round", p["call.first_round"]),
    ),
    (r"\(out above (\d+) points\)", lambda p: str(p.get("game_end.out_above"))),
]


# Sentences said only when a yes-or-no parameter is yes.
FLAGS: dict[str, str] = {
    "pick.only_after_multi_throw": "only after throwing two or more cards at once",
}


def misstated_rules(page: str, document: Mapping[str, Any]) -> list[str]:
    """Every rule the generated text of ``page`` states that ``document`` does not play."""
    values = played(document)
    text = generated_text(page)
    wrong: list[str] = []
    for path, words in common.VALUE_WORDS.items():
        for value, phrase in words.items():
            if " " not in phrase:  # one word ("allowed"): checked in its sentence below
                continue
            if phrase in text and values.get(path) != value:
                # a phrase inside another value's longer phrase of the same parameter is that one
                if any(phrase in w and phrase != w and w in text for w in words.values()):
                    continue
                wrong.append(
                    f"{path}: the page says {phrase!r}, the profile plays {values.get(path)!r}"
                )
    for path, sentence in FLAGS.items():
        if (sentence in text) != bool(values.get(path)):
            wrong.append(f"{path}: the page {'says' if sentence in text else 'omits'} {sentence!r}")
    for pattern, expected in NUMBERS:
        for found in re.findall(pattern, text):
            if found != expected(values):
                wrong.append(
                    f"{pattern}: the page says {found!r}, the profile {expected(values)!r}"
                )
    return wrong


@pytest.mark.parametrize("pid", PROFILE_IDS)
def test_no_profile_page_states_a_rule_its_profile_does_not_have(pid: str) -> None:
    assert misstated_rules(profile_page.profile_page(pid, site()), site().profiles[pid]) == []


def test_the_checker_catches_a_wrong_sentence() -> None:
    document = site().profiles["bga-yaniv"]
    page = profile_page.profile_page("bga-yaniv", site())
    said = "the others score their hands, the round winner too"
    assert said in page
    wrong = page.replace(said, "the others score nothing")
    assert misstated_rules(wrong, document) == [
        "scoring.beaten_others: the page says 'the others score nothing', the profile plays "
        "'all_but_caller_score_own_hands'"
    ]
    limit = re.search(r"A call needs a hand of (at most|under) (\d+) points", page)
    assert limit is not None
    changed = page.replace(limit.group(0), f"A call needs a hand of {limit.group(1)} 99 points")
    assert len(misstated_rules(changed, document)) == 1
    # A sentence inside a clause block is the profile's own words: not checked.
    clause = page.replace('markdown="1">\n<h3', 'markdown="1">\nthe others score nothing\n<h3', 1)
    assert misstated_rules(clause, document) == []


# (profile, parameter, a value it does not play, words the page must then say)
CHANGES: list[tuple[str, str, Any, str]] = [
    ("dhumbal", "direction", "left", "play passes to the left (clockwise)"),
    ("dhumbal", "pick.from_offer", "last_placed", "may pick only the card placed last"),
    ("dashain", "pick.only_after_multi_throw", True, "only after throwing two or more cards"),
    ("dhumbal", "call.inclusive", False, "A call needs a hand of under"),
    ("dhumbal", "call.limit", 15, "at most 15 points"),
    ("dhumbal", "call.first_round", "after_every_player_had_a_turn", "only once every player"),
    ("bga-yaniv", "scoring.beaten_others", "score_nothing", "; the others score nothing."),
    ("bga-yaniv", "scoring.beaten_call", "all_hands", "the caller pays the winner the total"),
    ("dhumbal", "hand_size", 6, "6 cards each"),
    ("dhumbal", "seats.max", 5, "to 5 players"),
    ("dashain", "game_end.kind", "fixed_rounds", "the game ends after a fixed number of rounds"),
]


def _set(document: dict[str, Any], path: str, value: Any) -> None:
    node = document["rules"]
    *parents, leaf = path.split(".")
    for key in parents:
        node = node.setdefault(key, {})
    node[leaf] = value


@pytest.mark.parametrize(("pid", "path", "value", "words"), CHANGES)
def test_a_changed_parameter_changes_the_page(pid: str, path: str, value: Any, words: str) -> None:
    before = profile_page.profile_page(pid, site())
    assert words not in generated_text(before)
    document = copy.deepcopy(dict(site().profiles[pid]))
    _set(document, path, value)
    if path == "game_end.kind":
        _set(document, "game_end.rounds", 8)
    for option in document.get("options") or []:
        if option.get("sets") == path:  # the option's default sets the rule at the table
            option["default"] = value
    changed = common.SiteData(
        profiles={**site().profiles, pid: document},
        transcripts=site().transcripts,
        selections=site().selections,
    )
    after = profile_page.profile_page(pid, changed)
    assert words in generated_text(after)
    assert misstated_rules(after, document) == []
    assert misstated_rules(after, site().profiles[pid]) != []  # the old profile's page no more
