"""The "How the variants play" page and the per-profile variant study behind it."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.simulation import study
from conformance.site import variants_play
from conformance.site.common import load_profiles


def _fake_points(pid: str, document: Mapping[str, Any], *_: Any, **__: Any) -> list[Any]:
    return [{"profile": pid, "kind": "limit", "options": {}, "seats": 4, "policy": "heuristic"}]


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The profiles the study measures (faked: one point each), with an empty user cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    seen: list[str] = []

    def fake(pid: str, document: Mapping[str, Any], *args: Any, **kw: Any) -> list[Any]:
        seen.append(pid)
        return _fake_points(pid, document)

    monkeypatch.setattr(study, "compute_profile", fake)
    return seen


@pytest.mark.e2e
def test_the_shipped_profiles_come_from_the_stored_study(measured: list[str]) -> None:
    said: list[str] = []
    data = study.load_study(load_profiles(), progress=said.append)
    assert measured == [] and said == []
    assert {p["profile"] for p in data["points"]} == set(load_profiles())


@pytest.mark.e2e
def test_adding_a_profile_measures_only_that_profile(measured: list[str], tmp_path: Path) -> None:
    profiles = load_profiles()
    added = copy.deepcopy(dict(profiles["dhumbal"]))
    added["id"] = "dhumbal-copy"
    said: list[str] = []
    data = study.load_study({**profiles, "dhumbal-copy": added}, progress=said.append)
    assert measured == ["dhumbal-copy"]
    assert said[0] == (
        "variant study: recomputing dhumbal-copy (new profile; this takes a minute or so)"
    )
    assert said[-1].startswith("variant study: measured dhumbal-copy in ")
    assert "python -m conformance.simulation.study" in said[-1]
    assert [p for p in data["points"] if p["profile"] == "dhumbal-copy"] == _fake_points(
        "dhumbal-copy", added
    )
    # The next build finds it in the user cache: nothing is measured again.
    measured.clear()
    said.clear()
    study.load_study({**profiles, "dhumbal-copy": added}, progress=said.append)
    assert measured == [] and said == []


@pytest.mark.e2e
def test_editing_a_profile_or_the_engine_measures_again(
    measured: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    profiles = load_profiles()
    edited = copy.deepcopy(dict(profiles["dashain"]))
    edited["rules"]["hand_size"] = 6
    said: list[str] = []
    study.load_study({**profiles, "dashain": edited}, progress=said.append)
    assert measured == ["dashain"]
    assert said[0] == (
        "variant study: recomputing dashain (profile or engine changed; this takes a minute or so)"
    )
    measured.clear()
    monkeypatch.setattr(study, "code_version", lambda: "another engine")
    study.load_study(profiles, progress=said.append)
    assert measured == list(profiles)


@pytest.mark.e2e
def test_refreshing_keeps_the_unchanged_profiles(
    measured: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "study.json"
    target.write_text(study.SNAPSHOT.read_text(encoding="utf-8"), encoding="utf-8")
    assert study.main(["--write", str(target)]) == 0
    assert measured == []
    assert capsys.readouterr().err.endswith(
        f"wrote {os.path.relpath(target)}: 9 profiles, 9 of them unchanged\n"
    )
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written == json.loads(study.SNAPSHOT.read_text(encoding="utf-8"))
    assert "points" not in written  # stored once, per profile


def test_every_stored_profile_is_current() -> None:
    stored = json.loads(study.SNAPSHOT.read_text(encoding="utf-8"))["profiles"]
    assert {pid: part["key"] for pid, part in stored.items()} == study.profile_keys(
        load_profiles()
    ), "the variant study is stale: run python -m conformance.simulation.study"


# -- the page ------------------------------------------------------------------------


def test_no_interval_prints_a_negative_zero() -> None:
    estimate = {"value": 0.0, "low": -0.00001, "high": 0.00002, "n": 300}
    assert variants_play._fig(estimate) == "0.0 (0.0 to 0.0)"
    assert variants_play._fig({**estimate, "low": -0.06}) == "0.0 (-0.1 to 0.0)"  # kept


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return variants_play.generate(load_profiles())


def test_the_page_has_no_negative_zero(files: dict[str, str]) -> None:
    assert "-0.0 " not in files["play.md"] and "(-0 " not in files["play.md"]


def test_the_ten_minute_verdict_states_its_pace(files: dict[str, str]) -> None:
    assert (
        '"holds, assuming 2 to 5 seconds a turn: A game takes about ten minutes."'
        in files["play.md"]
    )


def test_each_panel_is_a_figure_of_its_own(files: dict[str, str]) -> None:
    page = files["play.md"]
    for name in ("limit-turns", "limit-beaten", "seats-turns", "seats-each"):
        svg = files[f"play/dhumbal-{name}.svg"]
        assert svg.count('id="axes_') == 1, name  # one panel a file
        assert f"play/dhumbal-{name}.svg" in page
    # (the first figure is every variant's on shared axes: one picture of two panels)
    start = page.rindex('<div class="jc-figures"', 0, page.index("play/dhumbal-limit-turns.svg"))
    row = page[start : page.index("</div>", start)]
    assert row.count("![") == 2  # the two panels of one figure share a row


@pytest.mark.e2e
def test_the_page_is_drawn_once_then_taken_from_the_cache(
    measured: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[list[str]] = []

    def draw(profiles: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, str]:
        drawn.append(sorted(profiles))
        return {"play.md": f"{len(drawn)}\n"}

    monkeypatch.setattr(variants_play, "_draw", draw)
    profiles = load_profiles()
    assert variants_play.generate(profiles) == {"play.md": "1\n"}
    assert variants_play.generate(profiles) == {"play.md": "1\n"}  # cached: not drawn again
    reordered = dict(reversed(list(profiles.items())))  # the same profiles: the same page
    assert variants_play.generate(reordered) == {"play.md": "1\n"}
    assert drawn == [sorted(profiles)]
    edited = copy.deepcopy(dict(profiles))
    edited["dashain"]["name"] = "Dashain, renamed"  # another page: drawn again
    assert variants_play.generate(edited) == {"play.md": "2\n"}
    variants_play._cache_file(profiles, study.load_study(profiles)).write_text("{")
    assert variants_play.generate(profiles) == {"play.md": "3\n"}  # a broken cache: drawn
    monkeypatch.setattr(study, "code_version", lambda: "another engine")
    assert variants_play.generate(profiles) == {"play.md": "4\n"}
    assert len(list(variants_play._cache_dir().glob("*.json"))) == 3  # (the broken one redrawn)
    monkeypatch.setattr(variants_play, "CACHED_PAGES", 2)
    monkeypatch.setattr(study, "code_version", lambda: "a third engine")
    assert variants_play.generate(profiles) == {"play.md": "5\n"}
    assert len(list(variants_play._cache_dir().glob("*.json"))) == 2  # the oldest forgotten
