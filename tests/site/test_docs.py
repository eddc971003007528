"""The documentation site: the generated pages (fast, no mkdocs needed) and a strict build."""

from __future__ import annotations

import copy
import functools
import html
import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
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
from conformance.spec.steps import Transcript
from conformance.spec.transcript import load_corpus, load_transcript
from tests.conftest import made_once

ROOT = Path(__file__).resolve().parents[2]
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
description: Written by tests/site/test_docs.py to exercise the transcript pages.
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
    assert "0.01 or more in steps of 0.01" in section


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
            # raw HTML in the grid: the address as built (comparison.md is served at comparison/)
            assert f'<a href="../profiles/{pid}/#{clause_id}">' in page


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
    assert "```text" in page
    assert "    1  id: docs-sample-dashain-run-ends" in page
    source = sample.file.read_text(encoding="utf-8").splitlines()
    line = source.index("  - act: {seat: 0, throw: [4h, 5h, 6h]}") + 1  # as the CLI reports
    narrated = next(x for x in page.splitlines() if "Seat 0 throws the run" in x)
    assert narrated.endswith(f'<span class="jc-lines">line {line}</span>')


def test_a_reading_transcript_names_the_reading_it_runs_under(site: common.SiteData) -> None:
    by_id = {t.id: t for t in site.transcripts}
    own = corpus.transcript_page(by_id["dhumbal-dealer-none"], site)
    assert "- **Rulesets:** [Dhumbal table](../profiles/dhumbal.md)\n" in own
    page = corpus.transcript_page(by_id["alankar-dhumbal-target-reaching"], site)
    assert (
        "- **Rulesets:** [Dhumbal (Alankar app)](../profiles/alankar-dhumbal.md) read with "
        "`target_reached` = `reaching` ([readings](../readings.md))\n"
    ) in page
    assert "none of the shipped profiles" not in page
    # Listed with its ruleset, not among the transcripts shared by several.
    assert corpus.transcript_group(by_id["alankar-dhumbal-target-reaching"], site)[0] == (
        "alankar-dhumbal"
    )
    assert corpus.transcript_group(by_id["shared-reshuffle-next-draw"], site)[0] == corpus.SHARED


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
    # deal.first_offer none: the dealt event's turned_up is null and nothing is on offer.
    assert narration.event_words({"type": "dealt", "turned_up": None, "deck_size": 42}) == (
        "the cards are dealt (no card is turned up; 42 cards left in the deck)"
    )
    assert narration.check_words({"offer": [], "offer_kind": None}) == (
        "the offer is no cards; nothing has been thrown or turned up yet"
    )


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
    """``mkdocs build --strict`` of the repository, with the corpus plus the sample transcript;
    built once per test run, the xdist workers share it (read only)."""
    reason = _missing_build_tools()
    if reason:
        pytest.skip(reason)

    def build(folder: Path) -> None:
        corpus = folder / "corpus"
        shipped = ROOT / "conformance" / "transcripts"
        if shipped.is_dir():
            shutil.copytree(shipped, corpus, dirs_exist_ok=True)
        corpus.mkdir(exist_ok=True)
        (corpus / f"{SAMPLE_ID}.yaml").write_text(_sample_yaml(site), encoding="utf-8")
        out = folder / "site"
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

    return made_once(tmp_path_factory, "site", build) / "site"


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))


@pytest.mark.e2e
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


@pytest.mark.e2e
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
    # the protocol page as written, with its example hand drawn where it is marked
    protocol = (built / "protocol" / "index.html").read_text(encoding="utf-8")
    assert protocol.count('<figure class="jc-seq"><svg class="jc-seq-svg"') == 1
    assert "the example hand, drawn at build time" not in protocol
    assert not (built / "hooks").exists()
    assert (built / "stylesheets" / "extra.css").is_file()


def test_strict_build_writes_nothing_into_docs() -> None:
    generated = ["comparison.md", "clauses.md", "schemas.md", "profiles", "corpus"]
    assert not [name for name in generated if (ROOT / "docs" / name).exists()]


def test_profile_yaml_loads_like_the_specs(site: common.SiteData) -> None:
    for pid, document in site.profiles.items():
        with open(ROOT / "specs" / f"{pid}.yaml", encoding="utf-8") as handle:
            assert yaml.safe_load(handle) == document


@pytest.mark.e2e
def test_built_pages_have_unique_titles_and_stay_small(built: Path) -> None:
    pages = sorted(built.rglob("*.html"))
    titles: dict[str, Path] = {}
    for page in pages:
        assert page.stat().st_size < PAGE_LIMIT, f"{page}: {page.stat().st_size} bytes"
        if page.name == "404.html":  # titled like the home page by the theme; never in the nav
            continue
        text = page.read_text(encoding="utf-8")
        match = re.search(r"<title>(.*?)</title>", text, re.S)
        assert match, page
        title = html.unescape(match.group(1)).strip()
        assert title not in titles, f"{page} and {titles[title]} are both titled {title!r}"
        titles[title] = page
    assert (built / "cli" / "index.html").is_file()
    assert (built / "changelog" / "index.html").is_file()
    assert "Corpus version" in (built / "changelog" / "index.html").read_text("utf-8")
    schemas = (built / "schemas" / "index.html").read_text("utf-8")
    for path in (ROOT / "schema").rglob("*.json"):
        relative = path.relative_to(ROOT / "schema").as_posix()
        assert (built / "schema" / relative).read_bytes() == path.read_bytes()
        assert f'href="../schema/{relative}"' in schemas
    assert "enumDescriptions" in schemas and "beats the call" in schemas


@pytest.mark.e2e
def test_recorded_games_do_not_dominate_the_search_index(built: Path) -> None:
    index = json.loads((built / "search" / "search_index.json").read_text("utf-8"))
    sizes = [(d["location"], len(d["text"])) for d in index["docs"]]
    total = sum(size for _, size in sizes)
    recorded = sum(size for location, size in sizes if "/regression-" in f"/{location}")
    assert recorded < total * 0.1
    clauses = [d for d in index["docs"] if d["title"] == "dhumbal.showdown.failed"]
    assert [d["location"] for d in clauses] == ["profiles/dhumbal/#dhumbal.showdown.failed"]


# -- the built site in a browser ------------------------------------------------------------

PAGE_LIMIT = 300_000  # bytes: a page over this is slow on a phone
WIDTHS = (400, 1400)
# scrollWidth beyond the viewport, and any table or scroll box wider than the page
_OVERFLOW_JS = """
const width = document.documentElement.clientWidth;
const out = [];
if (document.documentElement.scrollWidth > width + 1) {
  out.push('page ' + document.documentElement.scrollWidth + ' > ' + width);
}
for (const box of document.querySelectorAll('table, .md-typeset__scrollwrap')) {
  const wide = box.scrollWidth > box.clientWidth + 1 && box.closest('.jc-compare, .jc-clauses');
  if (box.offsetParent !== null && (box.getBoundingClientRect().right > width + 1 || wide)) {
    out.push((box.className || box.tagName) + ' ' + Math.round(box.getBoundingClientRect().right)
             + ' / ' + box.scrollWidth + ' > ' + width);
  }
}
return out;
"""


@pytest.fixture(scope="module")
def served(built: Path) -> Iterator[str]:
    """The built site over HTTP on a free local port (search needs a server, not file://)."""
    handler = functools.partial(QuietHandler, directory=str(built))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def browser(shared_browser: Any) -> Any:
    """The run's browser (tests/conftest.py, one a test process), as a new window would be:
    no device metrics emulated (a test that sets a width leaves it set)."""
    shared_browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return shared_browser


# Fetched by the theme on every page and handed to its search worker, which builds the whole
# index (the most work of a page load); it changes nothing on the page until a search is typed.
SEARCH_INDEX = "*/search/search_index.json"


@pytest.fixture
def no_search_index(browser: Any) -> Iterator[Any]:
    """The browser with the search index blocked, for every test of what pages show (the
    layout sweep, axe, contrast); only the search tests use ``browser`` as it is (building
    the index tripled what a page load cost the browser: 1.0 s of CPU against 0.34 s)."""
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [SEARCH_INDEX]})
    try:
        yield browser
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})


@pytest.fixture
def sweep_browser(no_search_index: Any) -> Iterator[Any]:
    """The browser as the layout sweep uses it: no search index, and reduced motion (the
    theme then turns its transitions off, so that a page resized from narrow to wide is at
    once as it settles, not sliding its drawer out wider than the window for a moment)."""
    browser = no_search_index
    reduced = [{"name": "prefers-reduced-motion", "value": "reduce"}]
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": reduced})
    try:
        yield browser
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def _set_width(driver: Any, width: int) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
    )


# The sweep in one script: each page is loaded into a frame the size of a window and read
# there at both widths, the frame resized between them (its media queries follow the
# frame's width as a window's follow the window's). Each page is still a whole page load,
# its scripts run; what is saved is the browser's work of a top-level navigation and the
# round trips to the driver: 176 ms of CPU a page against 248 ms (60 pages, one run).
_SWEEP_JS = """
const [pages, widths, check, prepare] = arguments;
const done = arguments[arguments.length - 1];
const overflow = new Function('document', check);
document.documentElement.innerHTML = '<body style="margin: 0"></body>';
const frame = document.createElement('iframe');
frame.style.cssText = 'border: 0; position: absolute; top: 0; left: 0; height: 900px';
document.body.append(frame);
const nextFrame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
const pause = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  const problems = {};
  const order = [...widths];
  frame.style.width = order[0] + 'px';
  for (const page of pages) {
    await new Promise(loaded => { frame.onload = loaded; frame.src = page; });
    if (prepare) new Function('document', prepare)(frame.contentDocument);
    for (let n = 0; n < order.length; n++) {
      if (n) { frame.style.width = order[n] + 'px'; await nextFrame(); }
      // polled, up to two seconds, for the theme's transitions to settle
      let found = overflow(frame.contentDocument);
      for (let tries = 0; tries < 20 && found.length; tries++) {
        await pause(100);
        found = overflow(frame.contentDocument);
      }
      if (found.length) problems[page + ' at ' + order[n] + ' px'] = found;
    }
    // the next page loads at the width this one ended at: one resize a page
    order.reverse();
  }
  return problems;
})().then(done, error => done({'sweep failed': [String(error)]}));
"""


def _sweep(browser: Any, served: str, pages: list[str], prepare: str = "") -> dict[str, Any]:
    """Every page of ``pages`` at both ``WIDTHS``, as ``{"page at width px": [what sticks
    out]}``; ``prepare`` is a script run on each page's document once it has loaded."""
    browser.set_script_timeout(60 + 5 * len(pages))
    browser.get(served + "404.html")  # any page of the site: the frames are same-origin
    found: dict[str, Any] = browser.execute_async_script(
        _SWEEP_JS, [served + page for page in pages], list(WIDTHS), _OVERFLOW_JS, prepare
    )
    return {key.removeprefix(served) or "/": value for key, value in found.items()}


def _site_pages(built: Path) -> list[str]:
    """Every page as a path under the site root; the home page as ``""``."""
    pages = {p.relative_to(built).parent.as_posix() + "/" for p in built.rglob("index.html")}
    return ["", *sorted(pages - {"./"})]


# The pages in parts, so that the xdist workers share the sweep (each has its own browser).
PAGE_PARTS = 4


@pytest.mark.parametrize("part", range(PAGE_PARTS))
@pytest.mark.e2e
def test_no_page_scrolls_sideways(built: Path, served: str, sweep_browser: Any, part: int) -> None:
    """Every page at a phone's and a desktop's width: nothing wider than the window (the page
    itself, and tables or their scroll boxes on the comparison and clause pages)."""
    largest = max(built.rglob("*.html"), key=lambda p: p.stat().st_size)
    assert largest.stat().st_size < PAGE_LIMIT, largest
    pages = _site_pages(built)[part::PAGE_PARTS]
    assert _sweep(sweep_browser, served, pages) == {}
    shots = os.environ.get("JHYAP_SCREENSHOTS")  # a folder: also take screenshots there
    for page in [p for p in pages if shots and p in SHOT_PAGES]:
        sweep_browser.get(served + page)
        for width in WIDTHS:
            _set_width(sweep_browser, width)
            name = (page.strip("/").replace("/", "-") or "home") + f"-{width}.png"
            Path(str(shots)).mkdir(parents=True, exist_ok=True)
            sweep_browser.save_screenshot(str(Path(str(shots)) / name))


SHOT_PAGES = ("", "profiles/dhumbal/", "comparison/", "corpus/regression-dhumbal-4-seats-seed-2/")


@pytest.mark.e2e
def test_the_clause_index_shows_tested_by_on_a_phone(served: str, no_search_index: Any) -> None:
    browser = no_search_index
    _set_width(browser, 400)
    browser.get(served + "clauses/")
    cells = browser.execute_script(
        "return [...document.querySelectorAll('.jc-clauses tr')].slice(0, 40).map(r => {"
        " const c = r.lastElementChild.getBoundingClientRect();"
        " return [r.lastElementChild.textContent.trim(), c.left, c.right, c.width]; });"
    )
    assert cells and cells[0][0] == "tested by"
    for text, left, right, cell_width in cells:
        assert left >= 0 and right <= 401 and cell_width > 60, (text, left, right)


@pytest.mark.e2e
def test_searching_a_clause_id_lands_on_the_clause(served: str, browser: Any) -> None:
    _set_width(browser, 1400)
    browser.get(served)
    browser.execute_script(
        "const input = document.querySelector('.md-search__input');"
        "input.focus(); input.value = 'dhumbal.showdown.failed';"
        "input.dispatchEvent(new Event('input', {bubbles: true}));"
        "input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true}));"
    )
    links: list[str] = []
    for _ in range(100):  # the search worker answers asynchronously; poll, no fixed sleep
        links = browser.execute_script(
            "const li = document.querySelector('.md-search-result__list > li');"
            "return li ? [...li.querySelectorAll('a')].map(a => a.getAttribute('href')) : [];"
        )
        if links:
            break
        threading.Event().wait(0.1)
    # the best result is the profile page, and its first section is the clause itself
    assert links[0].split("?")[0].endswith("/profiles/dhumbal/")
    # (the search splits ids at their dots, so that a parameter's name is found on its own)
    assert links[1].endswith("profiles/dhumbal/?h=dhumbal+showdown+failed#dhumbal.showdown.failed")


@pytest.mark.e2e
def test_comparison_chooser_moves_the_differing_rows(served: str, no_search_index: Any) -> None:
    browser = no_search_index
    _set_width(browser, 1400)
    first = next(iter(docsgen.load_site().profiles))
    browser.get(served + f"comparison/?compare={first}")
    state = browser.execute_script(
        "return {shown: [...document.querySelectorAll('table.jc-compare thead th[data-profile]')]"
        ".filter(c => !c.hidden).map(c => c.dataset.profile),"
        " differing: document.querySelectorAll('table.jc-compare--differs tr.jc-row').length,"
        " form: !document.querySelector('form.jc-choose').hidden};"
    )
    # one ruleset alone differs from nobody: every row moves to the second table
    assert state == {"shown": [first, first], "differing": 0, "form": True}


@pytest.mark.e2e
def test_the_overflow_check_catches_a_wide_table(served: str, sweep_browser: Any) -> None:
    # through the sweep itself, at both widths: a page that fits, then the same page with a
    # table too wide for either
    assert _sweep(sweep_browser, served, ["glossary/"]) == {}
    wide = (
        "const t = document.createElement('table'); t.className = 'jc-compare';"
        "t.innerHTML = '<tr><td><div style=\"width: 1500px\">wide</div></td></tr>';"
        "document.querySelector('article').appendChild(t);"
    )
    found = _sweep(sweep_browser, served, ["glossary/"], prepare=wide)
    assert sorted(found) == ["glossary/ at 1400 px", "glossary/ at 400 px"]
    for lines in found.values():
        assert any(line.startswith("jc-compare") for line in lines), lines


# A table too wide for the page that shows only at the width the page did not load at: the
# sweep loads a page at one width and resizes it to the other, so it is caught only where
# the page is laid out again for its new width (the first page loads narrow, the next wide).
_WIDE_AFTER_RESIZE = """
const loaded_narrow = document.documentElement.clientWidth < 1000;
const style = document.createElement('style');
style.textContent = 'div.jc-fault { display: none } @media ('
  + (loaded_narrow ? 'min' : 'max') + '-width: 1000px) { div.jc-fault { display: block } }';
document.head.appendChild(style);
const box = document.createElement('div'); box.className = 'jc-fault';
box.innerHTML = '<table class="jc-compare"><tr><td>'
  + '<div style="width: 1500px">wide</div></td></tr></table>';
document.querySelector('article').appendChild(box);
"""


@pytest.mark.e2e
def test_the_sweep_catches_what_overflows_only_at_the_width_it_resizes_to(
    served: str, sweep_browser: Any
) -> None:
    found = _sweep(sweep_browser, served, ["glossary/", "cli/"], prepare=_WIDE_AFTER_RESIZE)
    # glossary/ loaded at 400 px, then widened; cli/ loaded at 1400 px, then narrowed
    assert sorted(found) == ["cli/ at 400 px", "glossary/ at 1400 px"]
    for lines in found.values():
        assert any(line.startswith("jc-compare") for line in lines), lines


def test_values_without_words_fall_back_to_the_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    assert common.value_words("reshuffle.kept_aside", "current_offer") == "the cards on offer"
    monkeypatch.setitem(common.VALUE_WORDS, "reshuffle.kept_aside", {})
    assert common.value_words("reshuffle.kept_aside", "current_offer") == (
        "The throw that is the next player's offer (goes with when_deck_emptied)"
    )
    assert common.value_words("reshuffle.kept_aside", "no_such_value") == "no_such_value"


def _ten_profiles(site: common.SiteData) -> dict[str, Any]:
    """Ten profiles made from Dhumbal's, each changing one more parameter than the last."""
    base = site.profiles["dhumbal"]
    profiles: dict[str, Any] = {}
    for n in range(10):
        document = copy.deepcopy(dict(base))
        document["id"], document["name"] = f"t{n}", f"Table {n}"
        rules = document["rules"]
        if n >= 1:
            rules["hand_size"] = 7
        if n >= 2:
            rules["call"]["limit"] = 7
        if n >= 3:
            rules["throws"]["run"]["min"] = 4
        rules["card_values"]["K"] = 10 + n  # ten different values: colours must cycle
        profiles[f"t{n}"] = document
    return profiles


def test_comparison_of_ten_profiles(site: common.SiteData) -> None:
    profiles = _ten_profiles(site)
    page = comparison.comparison_page(profiles)
    assert page.count('name="profile" value="t') == 10
    assert page.count('<th data-profile="t') == 20  # both tables
    king = page[page.index('id="rules.card_values.K"') :].split("</tr>", 1)[0]
    assert [f"jc-v{n}" in king for n in range(1, 9)] == [True] * 8
    assert king.count('jc-cell jc-v1"') == 2  # group 9 reuses colour 1
    assert king.count('jc-cell jc-v2"') == 2
    rows = parameters.comparison_rows(profiles)
    tree = comparison.family_tree(list(profiles), rows)
    assert len(tree) == 10 and tree[0].parent is None
    parents = {b.profile: b.parent for b in tree}
    assert sum(p is None for p in parents.values()) == 1
    for branch in tree[1:]:  # each hangs under a relative it differs from least
        distance = len(branch.differences)
        assert branch.parent is not None  # only the first is a root
        assert distance == len(comparison.differing_rows(rows, branch.profile, branch.parent))
        placed = [b.profile for b in tree[: tree.index(branch)]]
        assert distance == min(
            len(comparison.differing_rows(rows, branch.profile, p)) for p in placed
        )
    assert "## The family tree" in page


def test_family_tree_of_a_chain() -> None:
    def row(key: str, groups: dict[str, int]) -> parameters.Row:
        cells = {p: parameters.Cell(True, g, str(g), str(g), (), g) for p, g in groups.items()}
        return parameters.Row(key, key, cells)

    rows = [
        row("a", {"x": 1, "y": 2, "z": 2}),
        row("b", {"x": 1, "y": 1, "z": 2}),
        row("c", {"x": 1, "y": 1, "z": 1}),
    ]
    tree = comparison.family_tree(["x", "y", "z"], rows)
    # y is one step from each of x and z: the root; x and z hang under it
    assert [(b.profile, b.parent, [r.key for r in b.differences]) for b in tree] == [
        ("y", None, []),
        ("x", "y", ["a"]),
        ("z", "y", ["b"]),
    ]


# every link's text colour against the colour behind it (WCAG relative luminance)
_CONTRAST_JS = """
function rgb(s) { const m = s.match(/[\\d.]+/g).map(Number); return m.length > 3 ? m : [...m, 1]; }
function lum(c) {
  const [r, g, b] = c.slice(0, 3).map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function behind(el) {
  for (let e = el; e; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c[3] > 0.5) { return c; }
  }
  return [255, 255, 255, 1];
}
const worst = [];
for (const a of document.querySelectorAll('article a, .md-nav a')) {
  if (!a.offsetParent || !a.textContent.trim()) { continue; }
  const fg = rgb(getComputedStyle(a).color), bg = behind(a);
  const [l1, l2] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  const ratio = (l1 + 0.05) / (l2 + 0.05);
  if (ratio < 4.5) { worst.push([a.textContent.trim().slice(0, 30), ratio.toFixed(2)]); }
}
return worst;
"""


@pytest.mark.parametrize("page", ["", "comparison/", "clauses/", "profiles/dashain/"])
@pytest.mark.e2e
def test_links_have_enough_contrast(served: str, no_search_index: Any, page: str) -> None:
    browser = no_search_index
    _set_width(browser, 1400)
    browser.get(served + page)
    assert browser.execute_script(_CONTRAST_JS) == []


@pytest.mark.e2e
def test_the_404_page_works_at_any_depth(built: Path) -> None:
    text = (built / "404.html").read_text(encoding="utf-8")
    assert 'href="/stylesheets/extra.css"' in text  # root-absolute, from site_url's path
    assert "<loc>" in (built / "sitemap.xml").read_text(encoding="utf-8")


@pytest.mark.e2e
def test_cli_page_lists_every_command_and_option() -> None:
    import argparse

    from conformance.cli import build_parser
    from conformance.site import cli_page

    page = cli_page.cli_page()
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert subparsers.choices
    for name, sub in subparsers.choices.items():
        assert f"## jhyap {name} {{#{name}}}" in page
        for action in sub._actions:
            if action.help == argparse.SUPPRESS:  # hidden (fuzz --reference): off the page
                assert not any(f"`{o}" in page for o in action.option_strings), (name, action)
                continue
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in page or f", {option}" in page, (name, option)
    assert sys.executable not in page  # the page does not depend on the machine it was built on


@pytest.mark.e2e
def test_the_contrast_check_catches_the_old_deep_orange(served: str, no_search_index: Any) -> None:
    browser = no_search_index
    _set_width(browser, 1400)
    # a profile page: its interpretations are tinted, and links sit on the tint (the grid's
    # coloured cells hold letters now, no links)
    browser.get(served + "profiles/dashain/")
    browser.execute_script(  # links fade to a new colour: no transition, the new colour at once
        "const style = document.createElement('style');"
        "style.textContent = '* { transition: none !important; }';"
        "document.head.appendChild(style);"
        "document.body.style.setProperty('--md-typeset-a-color', '#ff5722');"
    )
    worst = browser.execute_script(_CONTRAST_JS)
    # every link is caught (3.16:1 on white), and those on the tint are worse (2.90:1)
    assert len(worst) > 20 and min(float(ratio) for _, ratio in worst) < 3


def _glance(document: Any) -> str:
    return "\n".join(profile_page.at_a_glance(document))


def test_at_a_glance_states_only_what_each_profile_says() -> None:
    # Every worded value on the page must be the value the profile plays (its own or the
    # schema default): a sentence of fixed text stating a rule would fail here.
    site = docsgen.load_site()
    checked = 0
    for pid, document in site.profiles.items():
        glance = _glance(document)
        played = {**common.rule_defaults(), **dict(parameters.leaf_paths(document["rules"]))}
        for path, words in common.VALUE_WORDS.items():
            for value, phrase in words.items():
                if phrase in glance:
                    assert played.get(path) == value, (pid, path, phrase)
                    checked += 1
    assert checked >= 5 * len(site.profiles)


def test_at_a_glance_follows_a_changed_parameter() -> None:
    document = copy.deepcopy(dict(docsgen.load_site().profiles["bga-yaniv"]))
    assert "; the others score their hands, the round winner too." in _glance(document)
    document["rules"]["scoring"]["beaten_others"] = "score_nothing"
    assert "; the others score nothing." in _glance(document)
    del document["rules"]["scoring"]["beaten_others"]  # the schema default
    assert "; the others score nothing." in _glance(document)
    document["rules"]["scoring"]["kind"] = "transfer"
    document["rules"]["scoring"]["beaten_call"] = "all_hands"
    assert "the others" not in _glance(document)
    assert "the caller pays the winner the total of all hands." in _glance(document)


def _broken_tables(text: str) -> list[int]:
    """Lines that start a table row after a blank line without the header's ``|---|`` line:
    Markdown then shows them as raw text (a blank line inside a table ends it)."""
    lines = text.splitlines()
    return [
        n + 1
        for n, line in enumerate(lines)
        if line.startswith("|")
        and (n == 0 or not lines[n - 1].strip())
        and not (n + 1 < len(lines) and re.match(r"^\|\s*:?-", lines[n + 1]))
    ]


def test_no_table_in_the_docs_is_cut_by_a_blank_line() -> None:
    assert _broken_tables("| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n") == [5]
    broken = {
        page.name: _broken_tables(page.read_text("utf-8"))
        for page in sorted((ROOT / "docs").glob("*.md"))
    }
    assert {name: lines for name, lines in broken.items() if lines} == {}


def test_the_site_description_names_no_count_of_rulesets() -> None:
    config = (ROOT / "mkdocs.yml").read_text("utf-8")  # it has !ENV tags: read it as text
    described = config.split("site_description:", 1)[1].split("\ndocs_dir:", 1)[0]
    assert "rulesets" in described
    assert not re.search(r"\b(three|nine|\d+) (house )?rulesets\b", described)


# -- accessibility (axe-core), screenshots and search ------------------------------------------

AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"  # MPL-2.0, vendored: runs offline

# One page of every kind the site has.
PAGE_TYPES: dict[str, str] = {
    "home": "",
    "profile": "profiles/dhumbal/",
    "comparison": "comparison/",
    "play": "play/",
    "clauses": "clauses/",
    "corpus": "corpus/",
    "transcript": "corpus/dhumbal-dealer-none/",
    "readings": "readings/",
    "cli": "cli/",
    "protocol": "protocol/",
    "schemas": "schemas/",
    "glossary": "glossary/",
    "changelog": "changelog/",
    "matrix": "matrix/",
    "matrix-engine": "matrix/yaniv-mjs-1-0-0/",
}

_AXE_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(result => done(result.violations.map(v =>
  [v.id, v.impact, v.nodes.length, v.nodes.slice(0, 3).map(n => n.target.join(' '))])));
"""


def axe_violations(browser: Any, impacts: tuple[str, ...] = ("serious", "critical")) -> list[Any]:
    """axe-core's violations of the loaded page with one of ``impacts``."""
    browser.set_script_timeout(60)
    # injected once a document: a page read at two widths compiles the 500 kB script once
    if not browser.execute_script("return typeof axe !== 'undefined'"):
        browser.execute_script(AXE.read_text(encoding="utf-8"))
    found: list[Any] = browser.execute_async_script(_AXE_RUN)
    return [v for v in found if v[1] in impacts]


AXE_WIDTHS = (390, 1440)
# Pages whose own script lays them out for the width they load at, not for a later resize:
# each is loaded anew at each width (compare.js opens every row's key on a wide screen at
# load). Every other kind is read at the phone's width, then widened and read again, which
# gave axe's every violation and incomplete item, node by node, as a fresh load at each
# width did (all 15 kinds; only the comparison differed: its keys stayed closed).
LOADED_AT_EACH_WIDTH = frozenset({"comparison"})
_NEXT_FRAME = "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(done));"


def _axe_at_widths(
    browser: Any,
    url: str,
    *,
    fresh_each_width: bool = False,
    prepare: str = "",
    impacts: tuple[str, ...] = ("serious", "critical"),
    shots: Path | None = None,
    name: str = "",
) -> dict[int, list[Any]]:
    """axe's violations of the page at ``url`` at each of ``AXE_WIDTHS``: loaded once at the
    first and resized (the browser should have reduced motion: the theme's transitions off,
    the page at once as it settles), or loaded anew at each; ``prepare`` runs after a load."""
    found: dict[int, list[Any]] = {}
    for n, width in enumerate(AXE_WIDTHS):
        _set_width(browser, width)
        if n == 0 or fresh_each_width:
            browser.get(url)
            if prepare:
                browser.execute_script(prepare)
        else:
            browser.execute_async_script(_NEXT_FRAME)
        found[width] = axe_violations(browser, impacts)
        if shots is not None:
            # A screenshot of the whole page, for a person to look at (a tall page's image
            # cost more than its axe run, for nobody to see).
            shots.mkdir(parents=True, exist_ok=True)
            height = min(int(browser.execute_script("return document.body.scrollHeight")), 6000)
            browser.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            )
            assert browser.save_screenshot(str(shots / f"{name}-{width}.png"))
    return found


@pytest.mark.e2e
def test_the_page_types_exist(built: Path) -> None:
    for kind, page in PAGE_TYPES.items():
        assert (built / page / "index.html").is_file(), kind


@pytest.mark.parametrize("kind", list(PAGE_TYPES))
@pytest.mark.e2e
def test_axe_finds_nothing_serious(served: str, sweep_browser: Any, kind: str) -> None:
    """Every kind of page at a phone's and a desktop's width, one page load a kind where the
    page does not lay itself out at load (``LOADED_AT_EACH_WIDTH``)."""
    # sweep_browser: no search index (axe reads the page; the index adds nothing to it), and
    # reduced motion, so that the widened page is read as it settles
    shots = os.environ.get("JHYAP_SCREENSHOTS")  # a folder: also take screenshots there
    found = _axe_at_widths(
        sweep_browser,
        served + PAGE_TYPES[kind],
        fresh_each_width=kind in LOADED_AT_EACH_WIDTH,
        shots=Path(shots) if shots else None,
        name=kind,
    )
    assert found == {width: [] for width in AXE_WIDTHS}


@pytest.mark.e2e
def test_axe_catches_a_faint_link_and_a_skipped_heading(served: str, sweep_browser: Any) -> None:
    # as test_axe_finds_nothing_serious reads a page: loaded at the phone's width, then widened
    # (the glossary: links in its text, and a quarter of the profile page's axe run)
    faults = (
        "const style = document.createElement('style');"
        "style.textContent = '* { transition: none !important; }"
        " .md-typeset a { text-decoration: none !important; color: #a63000 !important; }';"
        "document.head.appendChild(style);"
        "const h = document.createElement('h5'); h.textContent = 'skipped';"
        "document.querySelector('article h1').after(h);"
    )
    every = ("minor", "moderate", "serious", "critical")
    url = served + PAGE_TYPES["glossary"]
    found = _axe_at_widths(sweep_browser, url, prepare=faults, impacts=every)
    assert sorted(found) == list(AXE_WIDTHS)
    for violations in found.values():
        ids = {v[0] for v in violations}
        assert "link-in-text-block" in ids  # the link colour alone: 2.3:1 against body text
        assert "heading-order" in ids


@pytest.mark.e2e
def test_axe_reads_a_widened_page_as_laid_out_at_its_new_width(
    served: str, sweep_browser: Any
) -> None:
    # an image without words that shows only on a wide screen: axe, reading the page as
    # test_axe_finds_nothing_serious does (loaded at the phone's width, then widened), finds
    # it at the desktop's width alone
    fault = (
        "const style = document.createElement('style');"
        "style.textContent = 'img.jc-fault { display: none }"
        " @media (min-width: 1000px) { img.jc-fault { display: inline } }';"
        "document.head.appendChild(style);"
        "const img = document.createElement('img'); img.className = 'jc-fault';"
        "img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';"
        "img.width = 40; img.height = 40;"
        "document.querySelector('article h1').after(img);"
    )
    every = ("minor", "moderate", "serious", "critical")
    assert "transcript" not in LOADED_AT_EACH_WIDTH
    url = served + PAGE_TYPES["transcript"]
    found = _axe_at_widths(sweep_browser, url, prepare=fault, impacts=every)
    assert {width: "image-alt" in {v[0] for v in found[width]} for width in AXE_WIDTHS} == {
        390: False,
        1440: True,
    }


@pytest.mark.e2e
def test_only_a_page_laid_out_at_load_is_loaded_at_each_width(built: Path) -> None:
    """``LOADED_AT_EACH_WIDTH`` names the kinds of page that a script of the site lays out
    for the width it loads at: compare.js alone reads the width once (it opens the grid's row
    keys on a wide screen), and only the pages with those keys are loaded at each width. (The
    theme's own script and a11y.js follow a resize.)"""
    scripts = ROOT / "docs" / "javascripts"
    reading = sorted(p.name for p in scripts.glob("*.js") if "matchMedia" in p.read_text("utf-8"))
    assert reading == ["compare.js"]
    with_keys = {
        kind
        for kind, page in PAGE_TYPES.items()
        if re.search(
            r'<details class="jc-(row-key|agree)\b',
            (built / page / "index.html").read_text("utf-8"),
        )
    }
    assert with_keys == LOADED_AT_EACH_WIDTH


def _without_tags(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def _search_tokens(index: dict[str, Any], text: str) -> list[str]:
    # the site's search separator is a JavaScript regular expression that Python reads alike
    return [t for t in re.split(index["config"]["separator"], text) if t]


@pytest.mark.e2e
def test_search_finds_a_parameter_name(built: Path) -> None:
    index = json.loads((built / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert "beaten_penalty" in _search_tokens(index, "`scoring.beaten_penalty`")
    assert _search_tokens(index, "dhumbal.showdown.failed") == ["dhumbal", "showdown", "failed"]
    holding = {
        doc["location"].split("#")[0]
        for doc in index["docs"]
        # the search worker indexes a section's text without its markup
        if "beaten_penalty" in _search_tokens(index, _without_tags(doc["text"]))
    }
    assert {"comparison/", "profiles/dhumbal/"} <= holding


@pytest.mark.e2e
def test_searching_a_parameter_name_finds_its_row(served: str, browser: Any) -> None:
    _set_width(browser, 1400)
    browser.get(served)
    browser.execute_script(
        "const input = document.querySelector('.md-search__input');"
        "input.focus(); input.value = 'beaten_penalty';"
        "input.dispatchEvent(new Event('input', {bubbles: true}));"
        "input.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true}));"
    )
    links: list[str] = []
    for _ in range(100):  # the search worker answers asynchronously; poll, no fixed sleep
        links = browser.execute_script(
            "return [...document.querySelectorAll('.md-search-result__list a')]"
            ".map(a => a.getAttribute('href'));"
        )
        if links:
            break
        threading.Event().wait(0.1)
    assert any("comparison/" in link for link in links), links
