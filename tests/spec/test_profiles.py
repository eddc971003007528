"""Profile checking: the shipped profiles, broken profiles, and the validate/profiles/show CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.cli import main
from conformance.commands import validate
from conformance.spec import data, yamlsafe
from conformance.spec.profiles import (
    Problem,
    ProfileFileError,
    check_profile_file,
    load_profile,
    profile_schema,
    resolved_profile,
)
from jhyap_core.profile import resolve
from jhyap_core.vocabulary import OptionError
from reference_engine import shipped as shipped_data
from tests.conftest import profile_document

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<field>\S+): (?P<message>.*)$")

Doc = dict[str, Any]


# The shipped profiles, written out: a test of the listing must not derive it from specs/.
SHIPPED_IDS = [
    "alankar-dhumbal",
    "bga-yaniv",
    "dashain",
    "dhumbal",
    "everestbuzz",
    "jhyap-encyclopedia",
    "jhyap-jacks-zero",
    "yaniv-israel",
    "yarsa-dhumbal",
]


def shipped(name: str) -> Doc:
    """A fresh copy of a shipped profile, as plain YAML data."""
    return profile_document(name)


def shipped_text(name: str) -> str:
    return (SPECS / f"{name}.yaml").read_text(encoding="utf-8")


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the ``occurrence``-th line of ``text`` equal to ``needle``."""
    seen = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line == needle:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in text")


def validate_output(path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, str]]:
    """Run ``jhyap validate path``; it must refuse. The problem lines, parsed."""
    status = main(["validate", str(path)])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert err == ""
    lines = [LINE.match(line) for line in out.splitlines()]
    assert lines and all(lines), out
    return [m.groupdict() for m in lines if m is not None]


def fields(problems: list[dict[str, str]]) -> set[str]:
    return {p["field"] for p in problems}


def problem_at(problems: list[dict[str, str]], field: str) -> dict[str, str]:
    matching = [p for p in problems if p["field"] == field]
    assert matching, f"no problem at {field}: {problems}"
    return matching[0]


def write_doc(tmp_path: Path, doc: Doc, name: str = "broken.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


# -- the shipped profiles -------------------------------------------------------------


@pytest.mark.parametrize("path", data.shipped_profile_paths(), ids=lambda p: p.stem)
def test_shipped_profile_is_valid(path: Path) -> None:
    assert [str(p) for p in check_profile_file(path)] == []


def test_shipped_profiles_are_found() -> None:
    assert data.shipped_profile_ids() == SHIPPED_IDS
    assert data.specs_dir() == SPECS
    assert (data.schema_dir() / "profile.schema.json").is_file()
    assert data.transcripts_dir() == ROOT / "conformance" / "transcripts"


def test_shipped_profile_ids_match_file_names() -> None:
    for path in data.shipped_profile_paths():
        assert load_profile(path)["id"] == path.stem


def test_schema_is_valid_draft_2020_12() -> None:
    schema = profile_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "https://jhyap-conformance.org/schema/profile.schema.json"


def test_validate_defaults_to_shipped_specs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate"]) == 0
    # Everything shipped: the nine profiles and the protocol clause catalogue, the whole
    # transcript corpus, and the two example engines' declared profiles.
    corpus = len(list((ROOT / "conformance" / "transcripts").rglob("*.yaml")))
    assert corpus >= 155
    assert capsys.readouterr().out == (
        f"OK: {corpus + 12} files valid (the shipped specs: 10, the transcript corpus: "
        f"{corpus}, the examples' profiles: 2)\n"
    )


def test_validate_directory_recurses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text(shipped_text("dhumbal"), encoding="utf-8")
    (tmp_path / "sub" / "b.yml").write_text(shipped_text("dashain"), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not yaml: [", encoding="utf-8")
    assert main(["validate", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "OK: 2 files valid\n"


# -- broken profiles, built from dhumbal (or another shipped profile) -----------------


def _drop_param(doc: Doc, param: str) -> None:
    for clause in doc["clauses"]:
        clause["params"] = [p for p in clause["params"] if p != param]


def _no_fixed_rounds_kept_as_fixed(doc: Doc) -> None:
    """No number of rounds for a game that ends after a fixed number of rounds (and no table
    option or clause left that sets it)."""
    doc["rules"]["game_end"].update(rounds=None)
    doc.update(options=[])
    _drop_param(doc, "options.table")


def _first_interpretation(doc: Doc) -> Doc:
    clause: Doc = next(c for c in doc["clauses"] if c["status"] == "interpretation")
    return clause


def _add_timer_option(doc: Doc) -> None:
    doc["options"].append(
        {
            "name": "turn_timer",
            "type": "integer",
            "values": [0, 15],
            "default": 0,
            "sets": "turn_timer.seconds",
            "locked_when_open": False,
        }
    )


Mutation = Callable[[Doc], object]  # changes the document in place; what it returns is unused
BROKEN: list[tuple[str, str, Mutation, str]] = [
    ("unknown-top-key", "dhumbal", lambda d: d.update(colour="red"), "colour"),
    (
        "unknown-nested-key",
        "dhumbal",
        lambda d: d["rules"]["call"].update(maximum=3),
        "rules.call.maximum",
    ),
    ("missing-rule", "dhumbal", lambda d: d["rules"].pop("hand_size"), "rules.hand_size"),
    ("missing-option-key", "dhumbal", lambda d: d["options"][0].pop("sets"), "options[0].sets"),
    ("missing-top-key", "dhumbal", lambda d: d.pop("summary"), "summary"),
    ("wrong-enum", "dhumbal", lambda d: d["rules"].update(direction="up"), "rules.direction"),
    (
        "wrong-nested-enum",
        "dhumbal",
        lambda d: d["rules"]["pick"].update(from_offer="top"),
        "rules.pick.from_offer",
    ),
    ("profile-format", "dhumbal", lambda d: d.update(profile_format=2), "profile_format"),
    (
        "seats-min-above-max",
        "dhumbal",
        lambda d: d["rules"]["seats"].update(min=7),
        "rules.seats.min",
    ),
    ("hand-too-big", "dhumbal", lambda d: d["rules"].update(hand_size=9), "rules.hand_size"),
    ("integer-as-float", "dhumbal", lambda d: d["rules"].update(hand_size=5.0), "rules.hand_size"),
    (
        "integer-as-boolean",
        "dhumbal",
        lambda d: d["rules"]["call"].update(limit=True),
        "rules.call.limit",
    ),
    (
        "set-of-five",
        "dhumbal",
        lambda d: d["rules"]["throws"]["set"].update(max=5),
        "rules.throws.set.max",
    ),
    (
        "run-of-one",
        "dhumbal",
        lambda d: d["rules"]["throws"]["run"].update(min=1),
        "rules.throws.run.min",
    ),
    (
        "card-values-missing-rank",
        "dhumbal",
        lambda d: d["rules"]["card_values"].pop("Q"),
        "rules.card_values.Q",
    ),
    (
        "card-values-extra-rank",
        "dhumbal",
        lambda d: d["rules"]["card_values"].update(Z=0),
        "rules.card_values.Z",
    ),
    (
        "default-not-allowed",
        "dhumbal",
        lambda d: d["options"][0].update(default=12),
        "options[0].default",
    ),
    (
        "rule-differs-from-default",
        "dhumbal",
        lambda d: d["rules"]["call"].update(limit=15),
        "options[0].default",
    ),
    (
        "sets-unknown-path",
        "dhumbal",
        lambda d: d["options"][0].update(sets="call.maximum"),
        "options[0].sets",
    ),
    ("sets-a-group", "dhumbal", lambda d: d["options"][0].update(sets="call"), "options[0].sets"),
    ("timer-null-but-option", "dhumbal", _add_timer_option, "options[2].sets"),
    (
        "values-and-range",
        "dhumbal",
        lambda d: d["options"][0].update(range={"min": 5, "max": 15, "step": 5}),
        "options[0].range",
    ),
    (
        "boolean-with-range",
        "dhumbal",
        lambda d: (
            d["options"][1].pop("values"),
            d["options"][1].update(range={"min": 0, "max": 1, "step": 1}),
        ),
        "options[1].range",
    ),
    (
        "duplicate-option-name",
        "dhumbal",
        lambda d: d["options"][1].update(name="call_limit"),
        "options[1].name",
    ),
    (
        "duplicate-clause-id",
        "dhumbal",
        lambda d: d["clauses"][1].update(id=d["clauses"][0]["id"]),
        "clauses[1].id",
    ),
    (
        "bad-clause-id",
        "dhumbal",
        lambda d: d["clauses"][0].update(id="dhumbal.Players"),
        "clauses[0].id",
    ),
    (
        "clause-id-other-profile",
        "dhumbal",
        lambda d: d["clauses"][0].update(id="dashain.players.count"),
        "clauses[0].id",
    ),
    ("bad-family", "dhumbal", lambda d: d["clauses"][0].update(family="misc"), "clauses[0].family"),
    (
        "param-does-not-exist",
        "dhumbal",
        lambda d: d["clauses"][0].update(params=["seats.min", "seats.maximum"]),
        "clauses[0].params[1]",
    ),
    (
        "param-unknown-option",
        "dhumbal",
        lambda d: d["clauses"][0].update(params=["seats.min", "seats.max", "options.speed"]),
        "clauses[0].params[2]",
    ),
    ("rule-not-cited", "dhumbal", lambda d: _drop_param(d, "hand_size"), "rules.hand_size"),
    (
        "option-not-cited",
        "dhumbal",
        lambda d: _drop_param(d, "options.call_limit"),
        "options[0].name",
    ),
    (
        "interpretation-without-reason",
        "dhumbal",
        lambda d: _first_interpretation(d).pop("reason"),
        "clauses[{interpretation}].reason",
    ),
    (
        "normative-with-reason",
        "dhumbal",
        lambda d: d["clauses"][0].update(reason="because"),
        "clauses[0].reason",
    ),
    (
        "elimination-with-transfer",
        "dhumbal",
        lambda d: d["rules"]["scoring"].update(
            kind="transfer", beaten_call="all_hands", beaten_penalty=0
        ),
        "rules.game_end.kind",
    ),
    (
        "penalty-without-caller-hand",
        "dhumbal",
        lambda d: d["rules"]["scoring"].update(beaten_call="all_hands"),
        "rules.scoring.beaten_call",
    ),
    (
        "rounds-null-with-fixed-rounds",
        "everestbuzz",
        _no_fixed_rounds_kept_as_fixed,
        "rules.game_end.rounds",
    ),
    (
        "option-value-breaks-rules",
        "everestbuzz",
        lambda d: d["options"][0]["map"].update(computer=0),
        "options[0].values[1]",
    ),
    (
        "map-misses-a-value",
        "dashain",
        lambda d: d["options"][2]["map"].pop(True),
        "options[2].map",
    ),
    (
        "decimal-as-float",
        "dashain",
        lambda d: d["rules"]["money"].update(dollars_per_point=0.05),
        "rules.money.dollars_per_point",
    ),
    (
        "decimal-three-places",
        "dashain",
        lambda d: d["options"][0].update(default="0.055"),
        "options[0].default",
    ),
    ("host-ends-without-money", "dashain", lambda d: d["rules"].update(money=None), "rules.money"),
    (
        "first-starter-off-table",
        "dhumbal",
        lambda d: d["rules"]["deal"].update(first_starter=2),
        "rules.deal.first_starter",
    ),
]


@pytest.mark.parametrize(
    ("profile", "mutate", "field"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN]
)
def test_broken_profile_is_refused(
    profile: str,
    mutate: Mutation,
    field: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doc = shipped(profile)
    interpretation = doc["clauses"].index(_first_interpretation(doc))
    mutate(doc)
    path = write_doc(tmp_path, doc)
    problems = validate_output(path, capsys)
    assert field.format(interpretation=interpretation) in fields(problems), problems
    assert all(p["file"] == str(path) for p in problems)


def test_broken_profile_count() -> None:
    assert len(BROKEN) >= 20


def test_seats_problem_is_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = shipped("dhumbal")
    doc["rules"]["seats"]["min"] = 7
    problems = validate_output(write_doc(tmp_path, doc), capsys)
    assert problems == [
        {
            "file": str(tmp_path / "broken.yaml"),
            "line": problems[0]["line"],
            "field": "rules.seats.min",
            "message": "min 7 is above max 6",
        }
    ]


def test_default_outside_values_names_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = shipped("dhumbal")
    doc["options"][0]["default"] = 12
    problem = problem_at(validate_output(write_doc(tmp_path, doc), capsys), "options[0].default")
    assert "5, 10, 15" in problem["message"]


def test_elimination_with_transfer_names_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = shipped("dhumbal")
    doc["rules"]["scoring"]["kind"] = "transfer"
    problems = validate_output(write_doc(tmp_path, doc), capsys)
    assert {"rules.game_end.kind", "rules.scoring.beaten_call"} <= fields(problems)


# -- broken YAML text, where line numbers matter ----------------------------------


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def write_text(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_unknown_nested_key_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = edit(shipped_text("dhumbal"), "    limit: 10\n", "    limit: 10\n    maximum: 3\n")
    problem = problem_at(validate_output(write_text(tmp_path, text), capsys), "rules.call.maximum")
    assert int(problem["line"]) == line_of(text, "    maximum: 3")
    assert problem["message"].startswith("unknown key")


def test_missing_key_line_is_parent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = edit(shipped_text("dhumbal"), "    inclusive: true\n", "")
    problem = problem_at(
        validate_output(write_text(tmp_path, text), capsys), "rules.call.inclusive"
    )
    assert int(problem["line"]) == line_of(text, "  call:")
    assert problem["message"] == "missing required key"


def test_duplicate_yaml_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = edit(shipped_text("dhumbal"), "    limit: 10\n", "    limit: 10\n    limit: 15\n")
    problems = validate_output(write_text(tmp_path, text), capsys)
    assert len(problems) == 1
    assert problems[0]["field"] == "rules.call.limit"
    assert int(problems[0]["line"]) == line_of(text, "    limit: 15")
    assert "duplicate key" in problems[0]["message"]


def test_anchor_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = edit(
        shipped_text("dhumbal"), "  seats: {min: 2, max: 6}\n", "  seats: &s {min: 2, max: 6}\n"
    )
    problems = validate_output(write_text(tmp_path, text), capsys)
    assert [(p["field"], int(p["line"])) for p in problems] == [
        ("rules.seats", line_of(text, "  seats: &s {min: 2, max: 6}"))
    ]
    assert "anchor" in problems[0]["message"]


def test_alias_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "profile_format: 1\nid: x\nname: *nothing\n"
    problems = validate_output(write_text(tmp_path, text), capsys)
    assert [(p["field"], p["line"]) for p in problems] == [("name", "3")]
    assert "alias" in problems[0]["message"]


def test_alias_bomb_refused_quickly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    rows += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 12)]
    text = "profile_format: 1\n" + "\n".join(rows) + "\n"
    problems = validate_output(write_text(tmp_path, text), capsys)
    assert [(p["field"], p["line"]) for p in problems] == [("a0", "2")]


def test_python_tag_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pwned"
    line = f"  hand_size: !!python/object/apply:os.system ['touch {marker}']"
    text = edit(shipped_text("dhumbal"), "  hand_size: 5\n", line + "\n")
    problems = validate_output(write_text(tmp_path, text), capsys)
    assert [(p["field"], int(p["line"])) for p in problems] == [
        ("rules.hand_size", line_of(text, line))
    ]
    assert "!!python/object/apply:os.system" in problems[0]["message"]
    assert not marker.exists()


def test_non_utf8_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = (
        shipped_text("dhumbal")
        .encode("utf-8")
        .replace(b"name: Dhumbal table", b"name: Dhumbal \xe9table")
    )
    path = tmp_path / "latin1.yaml"
    path.write_bytes(raw)
    problems = validate_output(path, capsys)
    assert [(p["field"], p["line"]) for p in problems] == [("(file)", "4")]
    assert "not UTF-8" in problems[0]["message"]


def test_syntax_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = edit(shipped_text("dhumbal"), "  hand_size: 5\n", "  hand_size: 5\n   direction: left\n")
    problems = validate_output(write_text(tmp_path, text), capsys)
    assert len(problems) == 1
    assert int(problems[0]["line"]) == line_of(text, "   direction: left")
    assert problems[0]["message"].startswith("YAML syntax error")


def test_huge_file_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    filler = "# " + "x" * 98 + "\n"
    text = shipped_text("dhumbal") + filler * (yamlsafe.MAX_BYTES // len(filler) + 1)
    problems = validate_output(write_text(tmp_path, text), capsys)
    assert [(p["field"], p["line"]) for p in problems] == [("(file)", "1")]
    assert "larger than" in problems[0]["message"]


def test_boolean_map_keys_allowed_but_float_keys_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = edit(
        shipped_text("dashain"),
        "    map: {false: after_every_player_had_a_turn, true: allowed}\n",
        "    map: {false: after_every_player_had_a_turn, true: allowed, 1.5: allowed}\n",
    )
    problems = validate_output(write_text(tmp_path, text), capsys)
    assert problems[0]["field"] == "options[2].map.1.5"
    assert "must be a string, integer or boolean" in problems[0]["message"]


def test_not_a_profile_or_transcript(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    problems = validate_output(write_text(tmp_path, "hello: world\n"), capsys)
    assert problems[0]["field"] == "(top)"
    assert "neither a profile" in problems[0]["message"]


def test_nonexistent_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.yaml"
    problems = validate_output(missing, capsys)
    assert problems == [
        {
            "file": str(missing),
            "line": "1",
            "field": "(file)",
            "message": "no such file or directory",
        }
    ]


# -- transcripts and internal errors -------------------------------------------


def test_a_transcript_is_checked_as_a_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_text(tmp_path, "id: t\nsteps: []\n")
    problems = validate_output(path, capsys)
    assert {
        "file": str(path),
        "line": "1",
        "field": "(top)",
        "message": "'title' is a required property",
    } in problems


def test_a_variant_and_its_transcript_validate_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = shipped("dhumbal")
    variant["id"] = "kathmandu"
    for clause in variant["clauses"]:
        clause["id"] = clause["id"].replace("dhumbal.", "kathmandu.", 1)
    for reading in variant["readings"]:
        reading["clauses"] = [c.replace("dhumbal.", "kathmandu.", 1) for c in reading["clauses"]]
    profile = tmp_path / "kathmandu.yaml"
    profile.write_text(yaml.safe_dump(variant, allow_unicode=True), encoding="utf-8")
    transcript = tmp_path / "kathmandu-table-of-one.yaml"
    transcript.write_text(
        "id: kathmandu-table-of-one\ntitle: one seat\nkind: oracle\n"
        "profiles: [kathmandu]\nseats: 1\nstart_error: invalid_seats\n"
        "clauses: [kathmandu.players.count]\n",
        encoding="utf-8",
    )
    assert main(["validate", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "OK: 2 files valid\n"
    # Without its profile the transcript names a profile nobody knows.
    assert main(["validate", str(transcript)]) == 1
    assert "profiles[0]: no profile 'kathmandu'" in capsys.readouterr().out


def test_internal_error_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(files: object) -> list[object]:
        raise RuntimeError("kaboom\nsecond line")

    monkeypatch.setattr(validate, "check_files", boom)
    assert main(["validate"]) == 2
    _out, err = capsys.readouterr()
    assert err == "jhyap validate: internal error: RuntimeError: kaboom second line\n"


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["frobnicate"]) == 2
    assert "usage: jhyap" in capsys.readouterr().err


# -- profiles and show ------------------------------------------------------------------


def test_profiles_lists_shipped(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profiles"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == SHIPPED_IDS
    dhumbal = lines[3]
    assert re.match(r"^dhumbal +Dhumbal table +seats 2-6  2-6 players on penalty points", dhumbal)
    assert "seats 2-5" in lines[4]
    assert re.match(r"^yaniv-israel +Israeli Yaniv +seats 2-8  ", lines[7])


def show(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["show", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_show_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = show(capsys, "dhumbal", "--option", "call_limit=15")
    assert (status, err) == (0, "")
    printed = yaml.safe_load(out)
    assert printed["rules"]["call"]["limit"] == 15
    assert printed["option_values"] == {"call_limit": 15, "pickup_after_multi_throw": False}
    # Resolving the shipped document with the printed option values gives exactly the printout.
    assert resolve(load_profile("dhumbal"), printed["option_values"]) == printed
    # Everything but the option values and what they set is the shipped document.
    expected = load_profile("dhumbal")
    expected["rules"]["call"]["limit"] = 15
    assert {k: v for k, v in printed.items() if k != "option_values"} == expected


def test_show_json_equals_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("dashain", "-o", "dollars_per_point=0.5", "-o", "first_round_jhyap=true")
    _, yaml_out, _ = show(capsys, *args)
    status, json_out, _ = show(capsys, *args, "--format", "json")
    assert status == 0
    printed = json.loads(json_out)
    assert printed == yaml.safe_load(yaml_out)
    assert printed["option_values"]["dollars_per_point"] == "0.50"
    assert printed["rules"]["money"]["dollars_per_point"] == "0.50"
    assert printed["rules"]["call"]["first_round"] == "allowed"
    assert resolve(load_profile("dashain"), printed["option_values"]) == printed


def test_show_defaults_equal_document(capsys: pytest.CaptureFixture[str]) -> None:
    for name in data.shipped_profile_ids():
        status, out, _ = show(capsys, name)
        assert status == 0
        printed = yaml.safe_load(out)
        assert {k: v for k, v in printed.items() if k != "option_values"} == load_profile(name)


def test_show_value_not_allowed(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = show(capsys, "dhumbal", "--option", "call_limit=12")
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "5, 10, 15" in err


def test_show_unknown_option(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = show(capsys, "dhumbal", "--option", "speed=3")
    assert status == 2
    assert "call_limit, pickup_after_multi_throw" in err


def test_show_bad_option_syntax(capsys: pytest.CaptureFixture[str]) -> None:
    assert show(capsys, "dhumbal", "--option", "call_limit")[0] == 2
    assert show(capsys, "dhumbal", "-o", "call_limit=5", "-o", "call_limit=15")[0] == 2


def test_show_unknown_profile(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = show(capsys, "nosuch")
    assert status == 2
    assert "dashain, dhumbal, everestbuzz" in err


def test_show_user_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = shipped("dhumbal")
    doc["id"] = "mine"
    for clause in doc["clauses"]:
        clause["id"] = "mine." + clause["id"].split(".", 1)[1]
    for reading in doc["readings"]:
        reading["clauses"] = ["mine." + c.split(".", 1)[1] for c in reading["clauses"]]
    path = write_doc(tmp_path, doc, "mine.yaml")
    status, out, _ = show(capsys, str(path), "-o", "call_limit=5")
    assert status == 0
    assert yaml.safe_load(out)["rules"]["call"]["limit"] == 5


def test_show_refuses_broken_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = shipped("dhumbal")
    doc["rules"]["direction"] = "up"
    status, _out, err = show(capsys, str(write_doc(tmp_path, doc)))
    assert status == 2
    assert ": rules.direction: " in err


# -- library functions --------------------------------------------------------------


def test_load_profile_errors(tmp_path: Path) -> None:
    doc = shipped("dhumbal")
    doc["rules"]["seats"]["min"] = 9
    with pytest.raises(ProfileFileError) as info:
        load_profile(write_doc(tmp_path, doc))
    assert [p.field for p in info.value.problems] == ["rules.seats.min"]
    with pytest.raises(data.ProfileNotFound):
        load_profile("nosuch")
    with pytest.raises(data.ProfileNotFound):
        load_profile(str(tmp_path / "nosuch.yaml"))


def test_load_profile_ignores_coverage_only(tmp_path: Path) -> None:
    doc = shipped("dhumbal")
    _drop_param(doc, "hand_size")
    path = write_doc(tmp_path, doc)
    assert load_profile(path)["rules"]["hand_size"] == 5
    assert [p.field for p in check_profile_file(path)] == ["rules.hand_size"]


def test_resolved_profile() -> None:
    resolved = resolved_profile("everestbuzz", {"table": "computer"})
    assert resolved["rules"]["game_end"]["rounds"] == 5
    with pytest.raises(OptionError):
        resolved_profile("everestbuzz", {"table": "casino"})


def test_problem_str() -> None:
    assert str(Problem("a.yaml", 3, "rules.call.limit", "bad")) == "a.yaml:3: rules.call.limit: bad"


def test_find_profile(tmp_path: Path) -> None:
    assert data.find_profile("dhumbal") == SPECS / "dhumbal.yaml"
    assert data.find_profile(SPECS / "dashain.yaml") == SPECS / "dashain.yaml"
    with pytest.raises(
        data.ProfileNotFound,
        match="shipped profiles: alankar-dhumbal, bga-yaniv, dashain, dhumbal, everestbuzz, ",
    ):
        data.find_profile("nosuch")


def test_data_dirs_from_wheel_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "site-packages" / "conformance"
    for name in ("specs", "schema"):
        (package / "_data" / name).mkdir(parents=True)
    (package / "_data" / "specs" / "solo.yaml").write_text("id: solo\n", encoding="utf-8")
    monkeypatch.setattr(data, "PACKAGE_DIR", package)
    monkeypatch.setattr(shipped_data, "ROOT", package.parent)  # the search both packages share
    assert data.specs_dir() == package / "_data" / "specs"
    assert data.schema_dir() == package / "_data" / "schema"
    assert data.transcripts_dir() == package / "transcripts"
    assert data.find_profile("solo") == package / "_data" / "specs" / "solo.yaml"


def test_yaml_lines() -> None:
    doc = yamlsafe.loads("a: 1\nlist:\n  - id: x\n  - id: y\n    map: {false: n, true: y}\n")
    assert doc.line("list[1].id") == 4
    assert doc.line(["list", 1, "map", "true"]) == 5
    assert doc.line("list[1].missing") == 4
    assert doc.line("nothing") == 1
    assert doc.data["list"][1]["map"] == {False: "n", True: "y"}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("a: 1\na: 2\n", 2, "duplicate key"),
        ("a: {yes: 1, true: 2}\n", 1, "duplicate key"),
        ("a: !!binary aGk=\n", 1, "tag !!binary"),
        ("a: !custom x\n", 1, "tag !custom"),
        ("a:\n  <<: {b: 1}\n", 2, "merge keys"),
        ("? [a]\n: 1\n", 1, "plain scalars"),
        ("a: [1\n", 2, "YAML syntax error"),
        ("a: 1\n---\nb: 2\n", 2, "single YAML document"),
        ("a: " + "[" * 100 + "]" * 100 + "\n", 1, "nesting deeper"),
        ("a: " + "9" * 5000 + "\n", 1, "bad !!int"),
        ("a: b\nc: \x07\n", 2, "unreadable character"),
    ],
)
def test_yaml_refusals(text: str, line: int, words: str) -> None:
    with pytest.raises(yamlsafe.YamlProblem) as info:
        yamlsafe.loads(text, "t.yaml")
    assert info.value.line == line
    assert words in info.value.message


def test_yaml_dates_stay_text() -> None:
    assert yamlsafe.loads("d: 2024-01-01\n").data == {"d": "2024-01-01"}


# -- python -m conformance ----------------------------------------------------------


@pytest.mark.e2e
def test_python_m_conformance(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ok = subprocess.run(
        [sys.executable, "-m", "conformance", "validate"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (ok.returncode, ok.stderr) == (0, "")
    assert ok.stdout.startswith("OK: ") and "(the shipped specs: 10, " in ok.stdout
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        shipped_text("dhumbal").replace("direction: right", "direction: up"), encoding="utf-8"
    )
    bad = subprocess.run(
        [sys.executable, "-m", "conformance", "validate", str(broken)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 1
    assert bad.stdout.startswith(
        f"{broken}:{line_of(shipped_text('dhumbal'), '  direction: right')}"
    )
    assert "rules.direction" in bad.stdout
    assert "Traceback" not in bad.stderr


@pytest.mark.parametrize(
    ("make", "kind"), [(os.mkfifo, "a named pipe (FIFO)"), (os.mkdir, "a folder")]
)
def test_a_profile_path_that_is_no_file_says_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Callable[[Path], None], kind: str
) -> None:
    # Issue 41, item 8: `extends:` naming a FIFO or a folder said "no such profile file".
    base = tmp_path / "base.yaml"
    make(base)
    mine = tmp_path / "mine.yaml"
    mine.write_text("profile_format: 1\nid: mine\nextends: ./base.yaml\n")
    with pytest.raises(data.ProfileNotFound) as caught:
        data.find_profile(str(base))
    assert str(caught.value) == f"{base} is {kind}, not a profile file"
    assert main(["validate", str(mine)]) == 1
    out = capsys.readouterr().out
    assert out == f"{mine}:3: extends: {base} is {kind}, not a profile file\n"


def test_a_call_limit_of_thirty_one_digits_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 41, item 7: Decimal's % refused a quotient over 28 digits (InvalidOperation).
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        f"profile_format: 1\nid: mine\nextends: dashain\nrules:\n  call:\n    limit: {10**30}\n"
    )
    assert main(["validate", str(mine)]) == 0
    assert capsys.readouterr().out == "OK: 1 file valid\n"


@pytest.mark.parametrize(("step", "valid"), [(1, True), (7, False)])
def test_an_option_value_of_thirty_one_digits_is_checked_exactly(step: int, valid: bool) -> None:
    from jhyap_core.profile import OptionSpec

    spec = OptionSpec.from_dict(
        {
            "name": "n",
            "type": "integer",
            "range": {"min": 1, "max": None, "step": step},
            "default": 1,
            "sets": "call.limit",
            "locked_when_open": False,
        }
    )
    value = 10**30 + 1  # min 1 plus 10**30, which is 1 past a whole number of steps of 7
    if valid:
        assert spec.normalize(value) == value
    else:
        with pytest.raises(OptionError):
            spec.normalize(value)


@pytest.mark.parametrize(("written", "shown"), [(".nan", "nan"), ("abc", '"abc"')])
def test_a_call_limit_that_is_no_number_is_refused_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], written: str, shown: str
) -> None:
    # bench/probes.py: sorting the widened option's values raised decimal.InvalidOperation
    # (an internal error in validate, run and simulate). A value that is no number never
    # joins the option's values: the one problem is named where the file writes it.
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        f"profile_format: 1\nid: mine\nextends: dhumbal\nrules:\n  call:\n    limit: {written}\n"
    )
    assert main(["validate", str(mine)]) == 1
    assert capsys.readouterr().out == (
        f"{mine}:6: rules.call.limit: {shown} is not a value of option call_limit (5, 10, 15), "
        "which sets call.limit; remove the option (options: {call_limit: null})\n"
    )


def test_a_hand_size_of_401_digits_is_said_by_its_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # bench/probes.py: the message wrote the number whole, a line of 942 characters.
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        f"profile_format: 1\nid: mine\nextends: dhumbal\nrules:\n  hand_size: {10**400}\n"
    )
    assert main(["validate", str(mine)]) == 1
    assert capsys.readouterr().out == (
        f"{mine}:5: rules.hand_size: 2 seats x a number of 401 digits cards + the turned-up "
        "card + one card to draw = a number of 401 digits, more than the 52-card deck\n"
    )
