"""The documentation site: the generated pages (fast, no mkdocs needed) and a strict build."""

from __future__ import annotations

import copy
import html
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.site import (
    clauses,
    common,
    comparison,
    corpus,
    docsgen,
    narration,
    parameters,
    profile_page,
    schemas,
)
from conformance.spec.transcript import Transcript, load_corpus, load_transcript

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_ID = "docs-sample-dashain-run-ends"


def _text(markdown: str) -> str:
    """Generated Markdown without HTML tags (cards of red suits are wrapped in spans)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markdown))


@pytest.fixture(scope="module")
def site() -> common.SiteData:
    return common.load_site()


def _sample_yaml(site: common.SiteData) -> str:
    clauses = common.clauses_of(site.profiles["dashain"])
    picking = [c["id"] for c in clauses if c.get("family") == "picking"][:1]
    examples = [c["id"] for c in clauses if c.get("family") == "examples"][:1]
    if not picking:
        pytest.skip("the dashain profile has no picking clause yet")
    return f"""\
id: {SAMPLE_ID}
title: A run's middle card cannot be picked at the Dashain table
description: Written by tests/test_docs.py to exercise the transcript pages.
kind: oracle
profiles: [dashain]
seats: 3
clauses: [{", ".join(picking + examples)}]
steps:
  - deal:
      starter: 0
      hands:
        0: [4h, 5h, 6h, Kc, Qd]
        1: [9c, 9s, 2d, 3d, Jh]
        2: [Ac, 7c, 8d, Ts, Th]
      turned_up: Ks
      deck: [2c, 3c]
  - act: {{seat: 0, throw: [4h, 5h, 6h]}}
    note: The run is now on offer.
  - act: {{seat: 0, pick: deck}}
    expect:
      events:
        - {{type: picked, seat: 0, from: deck, card: 2c}}
        - {{type: out_of_play, cards: [Ks]}}
  - check: {{to_act: 1, offer: [4h, 5h, 6h], pickable: [4h, 6h]}}
  - act: {{seat: 1, throw: [9c, 9s]}}
  - act: {{seat: 1, pick: 5h}}
    expect: {{error: pick_not_allowed}}
  - act: {{seat: 1, pick: 6h}}
  - act: {{seat: 2, call: true}}
    expect: {{error: call_too_early}}
"""


@pytest.fixture(scope="module")
def sample(site: common.SiteData, tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    folder = tmp_path_factory.mktemp("sample")
    path = folder / f"{SAMPLE_ID}.yaml"
    path.write_text(_sample_yaml(site), encoding="utf-8")
    return load_transcript(path)


@pytest.fixture(scope="module")
def sample_site(site: common.SiteData, sample: Transcript) -> common.SiteData:
    return common.SiteData(
        profiles=site.profiles,
        transcripts=[*site.transcripts, sample],
        schema_dir=site.schema_dir,
        repo_root=site.repo_root,
    )


# -- generated pages, without mkdocs ------------------------------------------------------


def test_every_clause_is_anchored_on_its_profile_page(site: common.SiteData) -> None:
    assert set(site.profiles) >= {"dashain", "everestbuzz", "dhumbal"}
    for pid, document in site.profiles.items():
        page = profile_page.profile_page(pid, site)
        for clause in common.clauses_of(document):
            assert f'id="{clause["id"]}"' in page, clause["id"]
            assert f"`{clause['source']['document']}`" in page


def test_families_come_in_the_documented_order(site: common.SiteData) -> None:
    for pid, document in site.profiles.items():
        page = profile_page.profile_page(pid, site)
        present = {c.get("family") for c in common.clauses_of(document)}
        titles = [common.FAMILY_TITLES[f] for f in common.FAMILY_ORDER if f in present]
        positions = [page.index(f"\n## {title}\n") for title in titles]
        assert positions == sorted(positions), pid


def test_interpretations_are_marked_with_their_reason(site: common.SiteData) -> None:
    for pid, document in site.profiles.items():
        page = profile_page.profile_page(pid, site)
        for clause in common.clauses_of(document):
            if clause.get("status") == "interpretation":
                block = page[page.index(f'id="{clause["id"]}"') :].split("</div>", 1)[0]
                assert "jc-badge--interpretation" in block
                assert " ".join(clause["reason"].split())[:40] in html.unescape(block)


def test_profile_page_lists_host_options(site: common.SiteData) -> None:
    page = profile_page.profile_page("dashain", site)
    section = page[page.index("## Host options") :]
    for option in site.profiles["dashain"]["options"]:
        assert f"| `{option['name']}` |" in section
    assert "locked once the table opens" in section
    assert "0.01 to 10.00 in steps of 0.01" in section


def test_comparison_lists_differences_first(site: common.SiteData) -> None:
    rows = parameters.comparison_rows(site.profiles)
    keys = {r.key for r in rows}
    for document in site.profiles.values():
        for option in document["options"]:
            assert f"option:{option['name']}" in keys
    assert "money" not in keys  # a null group shows as its leaves
    assert {"money.dollars_per_point", "pick.from_offer", "card_values.K"} <= keys
    by_key = {r.key: r for r in rows}
    assert by_key["pick.from_offer"].differs
    assert not by_key["deck.cards"].differs
    page = comparison.comparison_page(site.profiles)
    disagree, agree = (
        page.index("## Where the rulesets disagree"),
        page.index("## Where they agree"),
    )
    assert disagree < agree
    for row in rows:
        anchor = ("option." if row.is_option else "rules.") + row.key.split(":")[-1]
        position = page.index(f'id="{anchor}"')
        assert (disagree < position < agree) == row.differs, row.key
        if row.differs:
            assert "jc-row--differs" in page[page.rindex("<tr", 0, position) : position]


def test_comparison_cells_link_the_citing_clauses(site: common.SiteData) -> None:
    row = next(r for r in parameters.comparison_rows(site.profiles) if r.key == "pick.from_offer")
    page = comparison.comparison_page(site.profiles)
    for pid, document in site.profiles.items():
        citing = [
            c["id"]
            for c in common.clauses_of(document)
            if any(p == "pick.from_offer" or p == "pick" for p in c.get("params") or [])
        ]
        assert set(citing) <= set(row.cells[pid].clauses)
        for clause_id in row.cells[pid].clauses:
            assert f"(profiles/{pid}.md#{clause_id})" in page


def test_editing_a_profile_copy_changes_the_pages(site: common.SiteData, tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    shutil.copytree(ROOT / "specs", specs)
    path = specs / "everestbuzz.yaml"
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert document["rules"]["hand_size"] == 5
    document["rules"]["hand_size"] = 7
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), "utf-8")
    edited = common.load_site(specs=specs)
    before = docsgen.generate(site)
    after = docsgen.generate(edited)
    assert before["profiles/everestbuzz.md"] != after["profiles/everestbuzz.md"]
    assert "5 cards each" in before["profiles/everestbuzz.md"]
    assert "7 cards each" in after["profiles/everestbuzz.md"]
    old_rows = {r.key: r for r in parameters.comparison_rows(site.profiles)}
    new_rows = {r.key: r for r in parameters.comparison_rows(edited.profiles)}
    assert not old_rows["hand_size"].differs and new_rows["hand_size"].differs
    assert before["comparison.md"] != after["comparison.md"]


def test_changing_a_value_in_memory_moves_its_row(site: common.SiteData) -> None:
    profiles: dict[str, Any] = copy.deepcopy(dict(site.profiles))
    profiles["dhumbal"]["rules"]["throws"]["run"]["min"] = 4
    page = comparison.comparison_page(profiles)
    assert page.index('id="rules.throws.run.min"') < page.index("## Where they agree")
    original = comparison.comparison_page(site.profiles)
    assert original.index('id="rules.throws.run.min"') > original.index("## Where they agree")


def test_a_transcript_reads_as_a_hand(sample: Transcript, sample_site: common.SiteData) -> None:
    page = corpus.transcript_page(sample, sample_site)
    text = _text(page)
    assert "| 0 | 4♥ 5♥ 6♥ Q♦ K♣ | 40 |" in text
    assert "Seat 0 throws the run 4♥ 5♥ 6♥." in text
    assert "The run is now on offer." in text
    assert "Seat 0 picks from the deck (2♣)." in text
    assert "expected: K♠ goes out of play" in text
    assert "Check: seat 1 is to act; the offer is 4♥ 5♥ 6♥" in text
    assert "Seat 1 throws the set 9♣ 9♠." in text
    assert "Seat 1 tries to pick 5♥ from the offer: refused (`pick_not_allowed`)" in text
    assert "Seat 2 tries to call Jhyap: refused (`call_too_early`)" in text
    for clause in sample.clauses:
        assert f"(../profiles/dashain.md#{clause})" in page
    assert "```yaml" in page


def test_clause_index_links_transcripts(sample: Transcript, sample_site: common.SiteData) -> None:
    page = clauses.clause_index_page(sample_site)
    for document in sample_site.profiles.values():
        for clause in common.clauses_of(document):
            assert f"[{clause['id']}](profiles/" in page
    line = next(x for x in page.splitlines() if f"[{sample.clauses[0]}]" in x)
    assert f"(corpus/{SAMPLE_ID}.md)" in line


def test_worked_example_uses_an_examples_transcript(
    sample: Transcript, sample_site: common.SiteData
) -> None:
    tested = {c for c in sample.clauses}
    examples = {
        c["id"]
        for c in common.clauses_of(sample_site.profiles["dashain"])
        if c.get("family") == "examples"
    }
    page = profile_page.profile_page("dashain", sample_site)
    if tested & examples and profile_page.example_transcript("dashain", sample_site) == sample:
        assert f"(../corpus/{SAMPLE_ID}.md)" in page.split("## A worked example", 1)[1]
    bare = common.SiteData(profiles=sample_site.profiles)
    assert "None yet" in profile_page.profile_page("dashain", bare).split("## A worked example")[1]


def test_every_corpus_transcript_gets_a_page(site: common.SiteData) -> None:
    pages = docsgen.generate(site)
    corpus, _ = load_corpus()
    for transcript in corpus:
        assert f"corpus/{transcript.id}.md" in pages
    assert {"comparison.md", "clauses.md", "corpus/index.md", "schemas.md"} <= set(pages)


def test_schemas_page_shows_every_schema(site: common.SiteData) -> None:
    assert site.schema_dir is not None
    page = schemas.schemas_page(site.schema_dir)
    for path in site.schema_dir.rglob("*.json"):
        assert f"## schema/{path.relative_to(site.schema_dir).as_posix()} " in page


def test_nav_gets_the_generated_pages(
    sample_site: common.SiteData,
) -> None:
    nav = [
        {"Rulesets": [{"Compare": "comparison.md"}]},
        {"Clauses": [{"Transcripts": "corpus/index.md"}]},
        "index.md",
    ]
    extended = docsgen.extend_nav(nav, sample_site)
    assert extended is not None
    rulesets = extended[0]["Rulesets"]
    assert rulesets[0] == {"Compare": "comparison.md"}
    assert [next(iter(x.values())) for x in rulesets[1:]] == [
        f"profiles/{p}.md" for p in sample_site.profiles
    ]
    corpus = extended[1]["Clauses"][0]["Transcripts"]
    assert corpus[0] == "corpus/index.md"
    sections = {next(iter(x)): next(iter(x.values())) for x in corpus[1:]}
    names = [common.profile_name(d) for d in sample_site.profiles.values()]
    assert list(sections)[: len(names)] == names  # one section per ruleset, in their order
    assert list(sections)[-1] == "Recorded games"
    assert f"corpus/{SAMPLE_ID}.md" in _nav_pages(sections[names[0]])
    assert nav[0] == {"Rulesets": [{"Compare": "comparison.md"}]}  # not modified in place


def _nav_pages(items: list[Any]) -> list[str]:
    pages: list[str] = []
    for item in items:
        target = next(iter(item.values()))
        pages += _nav_pages(target) if isinstance(target, list) else [target]
    return pages


def test_nav_titles_are_short_and_unique(site: common.SiteData) -> None:
    titles = corpus.short_titles(site)
    assert len(set(titles.values())) == len(titles)
    assert max(len(t) for t in titles.values()) <= 48
    assert titles["dashain-turn-timer"] == "Turn timer"
    assert titles["dashain-table-of-seven-refused"] == "Table of seven refused (Dashain table)"
    nav = docsgen.corpus_nav(site)
    pages = _nav_pages(nav)
    assert sorted(pages) == sorted(f"corpus/{t.id}.md" for t in site.transcripts)


def test_words_for_events_and_checks() -> None:
    assert _text(common.card_text("Th")) == "10♥"
    assert common.card_text("Ks") == "K♠"
    ended = narration.event_words(
        {"type": "round_ended", "outcome": "beaten_call", "caller": 1, "deltas": [44, 0, -44]}
    )
    assert ended == (
        "round ends (the call is beaten; caller seat 1; score changes: seat 0 +44; "
        "seat 1 +0; seat 2 -44)"
    )
    settled = narration.event_words(
        {
            "type": "game_ended",
            "settlement": [{"from": 1, "to": 0, "points": 44, "dollars": "2.20"}],
        }
    )
    assert "seat 1 pays seat 0 44 points ($2.20)" in settled
    assert narration.check_words({"to_act": None, "phase": "round_over"}) == (
        "no seat is to act; the phase is `round_over`"
    )
    assert "seat 2 5" in narration.check_words({"hand_values": {"2": 5}})


# -- the built site ---------------------------------------------------------------------------


def _missing_build_tools() -> str | None:
    for module in ("mkdocs", "mkdocs_gen_files", "material"):
        if importlib.util.find_spec(module) is None:
            return (
                f"{module} is not installed: the docs build needs the docs extra "
                "(pip install -e '.[docs]')"
            )
    return None


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory, site: common.SiteData, sample_site: common.SiteData
) -> Path:
    """``mkdocs build --strict`` of the repository, with the corpus plus the sample transcript."""
    reason = _missing_build_tools()
    if reason:
        pytest.skip(reason)
    corpus = tmp_path_factory.mktemp("corpus")
    shipped = ROOT / "conformance" / "transcripts"
    if shipped.is_dir():
        shutil.copytree(shipped, corpus, dirs_exist_ok=True)
    (corpus / f"{SAMPLE_ID}.yaml").write_text(_sample_yaml(site), encoding="utf-8")
    out = tmp_path_factory.mktemp("site")
    env = {
        **os.environ,
        "JHYAP_DOCS_TRANSCRIPTS": str(corpus),
        "DISABLE_MKDOCS_2_WARNING": "true",
        "NO_MKDOCS_2_WARNING": "1",
    }
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))


def test_strict_build_anchors_every_clause(built: Path, site: common.SiteData) -> None:
    for pid, document in site.profiles.items():
        page = built / "profiles" / pid / "index.html"
        assert page.is_file(), pid
        ids = _ids(page)
        for clause in common.clauses_of(document):
            assert clause["id"] in ids, clause["id"]
    comparison = (built / "comparison" / "index.html").read_text(encoding="utf-8")
    for pid in site.profiles:
        assert f'href="../profiles/{pid}/"' in comparison
    clause_ids = [c["id"] for d in site.profiles.values() for c in common.clauses_of(d)]
    if clause_ids:  # links keep the dotted anchor as it is
        owner = next(p for p, d in site.profiles.items() if common.clauses_of(d))
        first = common.clauses_of(site.profiles[owner])[0]["id"]
        index = (built / "clauses" / "index.html").read_text(encoding="utf-8")
        assert f'href="../profiles/{owner}/#{first}"' in index


def test_strict_build_has_every_page(built: Path) -> None:
    corpus, _ = load_corpus()
    for transcript in corpus:
        assert (built / "corpus" / transcript.id / "index.html").is_file(), transcript.id
    assert (built / "corpus" / SAMPLE_ID / "index.html").is_file()
    for page in (
        "index.html",
        "comparison/index.html",
        "clauses/index.html",
        "schemas/index.html",
        "protocol/index.html",
        "transcripts/index.html",
        "port/index.html",
        "variants/index.html",
        "glossary/index.html",
    ):
        assert (built / page).is_file(), page
    assert not (built / "hooks").exists()
    assert (built / "stylesheets" / "extra.css").is_file()


def test_strict_build_writes_nothing_into_docs() -> None:
    generated = ["comparison.md", "clauses.md", "schemas.md", "profiles", "corpus"]
    assert not [name for name in generated if (ROOT / "docs" / name).exists()]


def test_profile_yaml_loads_like_the_specs(site: common.SiteData) -> None:
    for pid, document in site.profiles.items():
        with open(ROOT / "specs" / f"{pid}.yaml", encoding="utf-8") as handle:
            assert yaml.safe_load(handle) == document
