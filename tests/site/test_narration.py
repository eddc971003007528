"""The transcript pages' narration tells the table as the reference engine plays it: hand
values by the ruleset's card values, who is out by its scoring, what a timer does by its
turn_timer, for every ruleset the site shows (conformance/site/narration.py)."""

from __future__ import annotations

import copy
import html
import re
from pathlib import Path
from typing import Any

import pytest

from conformance.site import common, narration
from conformance.spec.steps import Transcript
from conformance.spec.transcript import load_transcript


@pytest.fixture(scope="module")
def site() -> common.SiteData:
    return common.load_site()


def _profile(site: common.SiteData, pid: str, rules: dict[str, Any]) -> dict[str, Any]:
    """The shipped profile ``pid`` with the rules at the dotted paths of ``rules`` changed,
    and no host option that sets one of them."""
    document = copy.deepcopy(dict(site.profiles[pid]))
    for path, value in rules.items():
        node = document["rules"]
        *parents, last = path.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    document["options"] = [
        o
        for o in document.get("options") or []
        if not set(o["sets"] if isinstance(o["sets"], list) else [o["sets"]]) & set(rules)
    ]
    return document


def _narrated(
    site: common.SiteData, tmp_path: Path, document: dict[str, Any], transcript_yaml: str
) -> str:
    """The narration of the transcript ``transcript_yaml`` on its page, with ``document`` in
    place of the shipped profile of its id, as plain text (the red suits' spans taken out)."""
    tid = re.search(r"^id: (\S+)$", transcript_yaml, re.MULTILINE)
    assert tid is not None
    path = tmp_path / f"{tid.group(1)}.yaml"
    path.write_text(transcript_yaml, encoding="utf-8")
    transcript = load_transcript(path)
    shown = common.SiteData(
        profiles={**site.profiles, str(document["id"]): document},
        transcripts=[transcript],
        schema_dir=site.schema_dir,
        repo_root=site.repo_root,
    )
    lines = narration.narrated_hand("corpus/page.md", transcript, shown)
    return html.unescape(re.sub(r"<[^>]+>", "", "\n".join(lines)))


def test_a_card_worth_other_than_its_rank_counts_its_own_value(
    site: common.SiteData, tmp_path: Path
) -> None:
    # The king of hearts is worth 0 at this table: A 2 3 4 + Kh is 10, and may call at 10.
    document = _profile(site, "dhumbal", {"card_values.cards": [{"card": "Kh", "value": 0}]})
    narrated = _narrated(
        site,
        tmp_path,
        document,
        """\
id: narration-card-worth-other
title: The king of hearts is worth 0
kind: oracle
profiles: [dhumbal]
seats: 2
clauses: [dhumbal.players.count]
steps:
  - deal:
      starter: 0
      hands:
        0: [Kh, Ac, 2d, 3h, 4s]
        1: [Kc, Qc, Jc, 9c, 8c]
      turned_up: 9s
  - act: {seat: 0, call: true}
""",
    )
    assert narrated == (
        "## After the deal\n"
        "\n"
        "Deal, hand 1: seat 0 starts, 9♠ is turned up, the deck's top card is A♦.\n"
        "\n"
        "| seat | cards | points |\n"
        "|---|---|---|\n"
        "| 0 | A♣ 2♦ 3♥ 4♠ K♥ | 10 |\n"
        "| 1 | 8♣ 9♣ J♣ Q♣ K♣ | 53 |\n"
        "\n"
        "## Play\n"
        "\n"
        "1. Deal, hand 1: seat 0 starts, 9♠ is turned up, the deck's top card is A♦. line 8\n"
        "2. Seat 0 calls Jhyap holding 10 points. line 14\n"
    )


def test_a_beaten_caller_is_scored_by_the_rulesets_beaten_call(
    site: common.SiteData, tmp_path: Path
) -> None:
    # A beaten caller scores their hand times 11: seat 0, beaten holding 10, scores 110 and is
    # out above 100, so the next hand is dealt to seats 1 and 2 alone (hand plus penalty, 10,
    # would have kept seat 0 in).
    document = _profile(
        site,
        "dhumbal",
        {
            "scoring.beaten_call": "caller_hand_times",
            "scoring.beaten_factor": 11,
            "scoring.beaten_penalty": 0,
        },
    )
    narrated = _narrated(
        site,
        tmp_path,
        document,
        """\
id: narration-beaten-caller-times
title: A beaten caller scores their hand times 11
kind: oracle
profiles: [dhumbal]
seats: 3
clauses: [dhumbal.players.count]
steps:
  - deal:
      starter: 0
      hands:
        0: [Ac, Ad, 2c, 2d, 4h]
        1: [As, Ah, 2h, 2s, 3c]
        2: [Kc, Kd, Ks, Qc, Qd]
      turned_up: 9s
  - act: {seat: 0, call: true}
  - deal:
      starter: 1
      hands:
        1: [3d, 3h, 4c, 4d, 5c]
        2: [6c, 6d, 7c, 7d, 8c]
      turned_up: 9c
""",
    )
    assert narrated.split("## Play\n\n")[1] == (
        "1. Deal, hand 1: seat 0 starts, 9♠ is turned up, the deck's top card is 3♦. line 8\n"
        "2. Seat 0 calls Jhyap holding 10 points. line 15\n"
        "3. Deal, hand 2: seat 1 starts, 9♣ is turned up, the deck's top card is A♣. line 16\n"
        "    - seat 1: 3♦ 3♥ 4♣ 4♦ 5♣ (19 points)\n"
        "    - seat 2: 6♣ 6♦ 7♣ 7♦ 8♣ (34 points)\n"
    )


def test_a_hand_of_jokers_only_is_worth_only_jokers_each(
    site: common.SiteData, tmp_path: Path
) -> None:
    # Two jokers alone are worth -5 each at this table (card_values.only_jokers), dealt from
    # a pack of 54 cards.
    document = _profile(site, "bga-yaniv", {"hand_size": 2, "card_values.only_jokers": -5})
    narrated = _narrated(
        site,
        tmp_path,
        document,
        """\
id: narration-only-jokers
title: Two jokers alone are worth -10
kind: oracle
profiles: [bga-yaniv]
seats: 2
deck: {packs: 1, jokers: 2}
clauses: [bga-yaniv.reshuffle.new-deck]
steps:
  - deal:
      starter: 0
      hands:
        0: [X, X]
        1: [Ac, 2d]
      turned_up: 5h
  - act: {seat: 0, call: true}
""",
    )
    assert narrated == (
        "## After the deal\n"
        "\n"
        "Deal, hand 1: seat 0 starts, 5♥ is turned up, the deck's top card is A♦.\n"
        "\n"
        "| seat | cards | points |\n"
        "|---|---|---|\n"
        "| 0 | X X | -10 |\n"
        "| 1 | A♣ 2♦ | 3 |\n"
        "\n"
        "## Play\n"
        "\n"
        "1. Deal, hand 1: seat 0 starts, 5♥ is turned up, the deck's top card is A♦. line 9\n"
        "2. Seat 0 calls Jhyap holding -10 points. line 15\n"
    )


def _corpus_transcript(site: common.SiteData, tid: str) -> Transcript:
    return next(t for t in site.transcripts if t.id == tid)


def _play_lines(site: common.SiteData, tid: str) -> list[str]:
    transcript = _corpus_transcript(site, tid)
    text = "\n".join(narration.narrated_hand("corpus/page.md", transcript, site))
    return html.unescape(re.sub(r"<[^>]+>", "", text)).splitlines()


def test_a_start_steps_options_set_the_card_values(site: common.SiteData) -> None:
    # The transcript starts the table again with picture cards at 11 to 13 and checks the
    # hands are worth 39 and 43.
    lines = _play_lines(site, "protocol-option-sets-list")
    assert "| 0 | A♣ 2♣ J♠ Q♠ K♠ | 39 |" in lines
    assert "| 1 | 3♣ 4♣ J♥ Q♥ K♥ | 43 |" in lines


def test_a_transcript_for_a_reading_is_told_under_that_reading(site: common.SiteData) -> None:
    # Written for Dashain read with timer_expiry take_lowest: the timer takes from the offer.
    lines = _play_lines(site, "dashain-turn-timer-take-lowest")
    assert (
        "2. Seat 0's turn timer runs out: K♠ is thrown for them and they take J♠ from the "
        "offer. line 28"
    ) in lines
    assert "5. Seat 1's turn timer runs out and they take K♠ from the offer. line 36" in lines


def test_a_run_with_a_joker_is_named_a_run(site: common.SiteData) -> None:
    lines = _play_lines(site, "yaniv-israel-jokers-and-picks")
    assert "3. Seat 0 throws the run 4♥ X 6♥. line 41" in lines
