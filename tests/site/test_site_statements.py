"""A profile page states only the rules its profile has: every worded rule value and every
rule number on the page is the one the profile plays (its own value or the schema's default).

Text taken from the profile itself (its summary, clause statements, reasons, examples and
transcript notes) is the profile speaking, and is left out of the check.
"""

from __future__ import annotations

import copy
import html
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli import main
from conformance.site import common, comparison, docsgen, parameters, profile_page
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


# Words that hold only while a parameter has a value: (words, parameter, value).
IMPLIES: list[tuple[str, str, Any]] = [
    ("never Q K A", "throws.run.wrap", False),  # a run that turns the corner has Q K A
    ("(out above ", "game_end.reaching_is_out", False),
    ("(out at ", "game_end.reaching_is_out", True),
]


def misstated_words(
    text: str, values: Mapping[str, Any], paths: Collection[str] | None = None
) -> list[str]:
    """Every value in words in ``text`` (of the parameters ``paths``; default all) that the
    played ``values`` contradict, every implied value they contradict, and every sentence of
    the schema's put inside another sentence (a value without words of its own)."""
    wrong: list[str] = []
    for path, words in common.VALUE_WORDS.items():
        if paths is not None and path not in paths:
            continue
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
    for said, path, value in IMPLIES:
        if said in text and values.get(path) != value:
            wrong.append(f"{path}: the page says {said!r}, the profile plays {values.get(path)!r}")
    for path, described in common.rule_enum_descriptions().items():
        for sentence in described.values():
            clause = sentence.rstrip(".")
            if re.search(r"[a-z,;] " + re.escape(clause), text):
                wrong.append(f"{path}: the page puts the schema's {clause!r} inside a sentence")
    return wrong


def misstated_rules(page: str, document: Mapping[str, Any]) -> list[str]:
    """Every rule the generated text of ``page`` states that ``document`` does not play."""
    values = played(document)
    text = generated_text(page)
    wrong = misstated_words(text, values)
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


# -- the comparison page and the home page -----------------------------------------------

GRID_ROW = re.compile(
    r'<tr class="jc-row[^"]*" id="(?P<kind>rules|option)\.(?P<name>[^"]+)">(?P<html>.*?)</tr>', re.S
)
CELL = re.compile(
    r'<td class="jc-cell[^"]*" data-group="[^"]*">.*?<span class="jc-sr">(?P<words>.*?)</span></td>'
)


@dataclass(frozen=True)
class GridCell:
    pid: str  # the ruleset of the cell's column
    param: str  # the row's key: a rule path, or option:NAME
    words: str
    start: int  # where the cell's HTML is in the page
    end: int


def grid_cells(page: str, columns: Iterable[str]) -> list[GridCell]:
    """Every cell of the comparison grid, with its column's ruleset (the columns are the
    profiles, in order) and its row's parameter."""
    pids = list(columns)
    found: list[GridCell] = []
    for row in GRID_ROW.finditer(page):
        param = row["name"] if row["kind"] == "rules" else f"option:{row['name']}"
        cells = list(CELL.finditer(row["html"]))
        assert len(cells) == len(pids), param
        for pid, cell in zip(pids, cells, strict=True):
            start = row.start("html") + cell.start()
            words = html.unescape(cell["words"])
            found.append(GridCell(pid, param, words, start, start + len(cell[0])))
    return found


def misstated_cells(page: str, profiles: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Every cell of the comparison grid whose words its ruleset does not play."""
    wrong: list[str] = []
    for cell in grid_cells(page, profiles):
        for problem in misstated_words(cell.words, played(profiles[cell.pid]), {cell.param}):
            wrong.append(f"comparison, {cell.pid}, {cell.param}: {problem}")
    return wrong


SUMMARY_ROW = re.compile(
    r"^\| \[[^\]]+\]\(profiles/(?P<pid>[\w-]+)\.md\) \| (?P<said>[^|]+) \|", re.M
)
HOME = Path(__file__).resolve().parents[2] / "docs" / "index.md"


def misstated_summaries(text: str, profiles: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Every ruleset line of the home page that is not its profile's summary."""
    return [
        f"{row['pid']}: docs/index.md says {row['said'].strip()!r}, "
        f"the profile's summary is {profiles[row['pid']]['summary']!r}"
        for row in SUMMARY_ROW.finditer(text)
        if row["said"].strip() != profiles[row["pid"]]["summary"]
    ]


def test_no_comparison_cell_states_a_value_its_ruleset_does_not_play() -> None:
    page = comparison.comparison_page(site().profiles)
    cells = len(grid_cells(page, site().profiles))
    rows = len(parameters.comparison_rows(site().profiles))
    assert cells == rows * len(site().profiles)  # every cell is checked
    assert misstated_cells(page, site().profiles) == []


def test_the_home_page_gives_each_rulesets_summary() -> None:
    text = HOME.read_text(encoding="utf-8")
    assert len(SUMMARY_ROW.findall(text)) == len(site().profiles)
    assert misstated_summaries(text, site().profiles) == []


# The four contradictions the site once held (issue 42), planted back: each is reported.


def test_the_check_catches_the_israeli_ace_said_low_only() -> None:
    page = comparison.comparison_page(site().profiles)
    now = "at either end: runs turn the corner (Q K A 2)"
    (found,) = (
        c
        for c in grid_cells(page, site().profiles)
        if (c.pid, c.param) == ("yaniv-israel", "throws.run.ace")
    )
    cell = page[found.start : found.end]
    assert 'data-group="moot"' in cell and now in cell
    planted = (
        page[: found.start] + cell.replace(now, "low only (A 2 3, never Q K A)") + page[found.end :]
    )
    assert misstated_cells(planted, site().profiles) == [
        "comparison, yaniv-israel, throws.run.ace: throws.run.wrap: the page says "
        "'never Q K A', the profile plays True"
    ]


def test_the_check_catches_out_above_where_reaching_is_out() -> None:
    page = profile_page.profile_page("jhyap-encyclopedia", site())
    assert "(out at 100 points or more)" in page
    planted = page.replace("(out at 100 points or more)", "(out above 100 points)")
    assert misstated_rules(planted, site().profiles["jhyap-encyclopedia"]) == [
        "game_end.reaching_is_out: the page says '(out above ', the profile plays True"
    ]


def test_the_check_catches_the_garbled_tie_sentence() -> None:
    page = profile_page.profile_page("yarsa-dhumbal", site())
    now = "A tie with the caller goes to the caller (only a lower hand beats the call)"
    assert now in page
    planted = page.replace(
        now,
        "A tie with the caller Only a strictly lower hand beats the call; on a tie the caller wins",
    )
    assert misstated_rules(planted, site().profiles["yarsa-dhumbal"]) == [
        "showdown.tie: the page puts the schema's 'Only a strictly lower hand beats the call; "
        "on a tie the caller wins' inside a sentence"
    ]


def test_the_check_catches_an_old_summary_on_the_home_page() -> None:
    text = HOME.read_text(encoding="utf-8")
    summary = site().profiles["jhyap-jacks-zero"]["summary"]
    old = (
        "The Dhumbal table's game with jacks worth 0 and queens and kings 10; one host switch "
        "sets all three picture cards (jacks 0, all 10, or 11-12-13)."
    )
    planted = text.replace(summary, old)
    assert misstated_summaries(planted, site().profiles) == [
        f"jhyap-jacks-zero: docs/index.md says {old!r}, the profile's summary is {summary!r}"
    ]


# -- a profile that extends another ------------------------------------------------------

KITCHEN = Path(__file__).resolve().parents[2] / "examples" / "python-loop" / "rules.yaml"
KITCHEN_CHANGES = [
    "Most players: 5",
    "Dealer: The seat just before the starter deals, so the deal passes round with the start",
    "Extra penalty on a beaten call: 20",
]


def test_a_derived_profile_says_what_it_changes(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    for pid in ("dhumbal",):
        (specs / f"{pid}.yaml").write_bytes(
            (HOME.parents[1] / "specs" / f"{pid}.yaml").read_bytes()
        )
    (specs / "kitchen-dhumbal.yaml").write_bytes(KITCHEN.read_bytes())
    derived = common.load_site(specs=specs, transcripts=tmp_path / "no-corpus")
    document = derived.profiles["kitchen-dhumbal"]
    assert document["summary"] == "Dhumbal table, changed: " + "; ".join(KITCHEN_CHANGES) + "."
    page = profile_page.profile_page("kitchen-dhumbal", derived)
    section = page[
        page.index("## What it changes from Dhumbal table") : page.index("## At a glance")
    ]
    assert section.splitlines()[2:] == [
        "It extends [Dhumbal table](dhumbal.md) (`dhumbal`); everything else is as there.",
        "",
        *(f"- {line}" for line in KITCHEN_CHANGES),
        "",
    ]
    assert "out above 100" not in document["summary"]
    assert misstated_rules(page, document) == []


def test_jhyap_show_gives_a_derived_profiles_changes_as_its_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["show", str(KITCHEN)]) == 0
    shown = yaml.safe_load(capsys.readouterr().out)
    assert shown["summary"] == "Dhumbal table, changed: " + "; ".join(KITCHEN_CHANGES) + "."
