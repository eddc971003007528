"""An ``extends`` file drops a reading of its base (``readings: {name: null}``), as it drops an
option: the table plays the base's own choice and no longer offers the others."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.spec import readings
from conformance.spec.profiles import ProfileFileError, load_profile


def _declared(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "mine.yaml"
    path.write_text("profile_format: 1\nid: mine\nextends: dhumbal\n" + body, encoding="utf-8")
    return path


def test_a_dropped_reading_is_no_longer_offered(tmp_path: Path) -> None:
    base = load_profile("dhumbal")
    document = load_profile(_declared(tmp_path, "readings: {dealer: null}\n"))
    names = [r["name"] for r in readings.readings_of(document)]
    assert "dealer" in [r["name"] for r in readings.readings_of(base)]
    assert names == [r["name"] for r in readings.readings_of(base) if r["name"] != "dealer"]
    assert ("dealer", "seat_before_starter") in readings.alternatives(base)
    assert [a for a in readings.alternatives(document) if a[0] == "dealer"] == []
    # The rules are the base's own choice: no variant, no declared reading.
    assert document["rules"] == base["rules"]
    assert document["derived_from"] == {"profile": "dhumbal", "readings": {}, "variant": []}


def test_a_reading_chosen_and_another_dropped(tmp_path: Path) -> None:
    body = "readings: {dealer: seat_before_starter, reshuffle: null}\n"
    document = load_profile(_declared(tmp_path, body))
    assert document["rules"]["deal"]["dealer"] == "seat_before_starter"
    assert "reshuffle" not in [r["name"] for r in readings.readings_of(document)]
    assert document["derived_from"]["readings"] == {"dealer": "seat_before_starter"}


def test_dropping_a_reading_the_base_lacks_names_the_offered_ones(tmp_path: Path) -> None:
    path = _declared(tmp_path, "readings: {no_such_point: null}\n")
    with pytest.raises(ProfileFileError) as caught:
        load_profile(path)
    (problem,) = caught.value.problems
    assert str(problem) == (
        f"{path}:4: readings.no_such_point: no reading 'no_such_point' to drop; dhumbal offers: "
        "reshuffle, dealer, call_limit_lock, house_rule_lock"
    )
