"""Declared profiles (``extends``) that override rules an option sets, and change, add or
remove options: how they resolve, what they claim, and one line for each broken file."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli import main
from conformance.spec import readings
from conformance.spec.profiles import ProfileFileError, load_profile, profile_schema
from jhyap_core.profile import resolve

ROOT = Path(__file__).resolve().parents[2]
HEAD = "profile_format: 1\nid: mine\nextends: {base}\n"
SEVEN = (
    "profile_format: 1\nid: dhumbal-seven\nextends: dhumbal\nrules: {call: {limit: 7}}\n"
    "options:\n  call_limit: {values: [5, 7, 10, 15]}\n"
)
SEVEN_CLAIM = (
    "dhumbal-seven: checked against a variant of dhumbal (normative parameters overridden: "
    "call.limit, options.call_limit.values, options.call_limit.default), never conformance "
    "to dhumbal itself"
)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def declared(tmp_path: Path, base: str, body: str) -> Path:
    return write(tmp_path / "mine.yaml", HEAD.format(base=base) + body)


def option(document: dict[str, Any], name: str) -> dict[str, Any]:
    return next(o for o in document["options"] if o["name"] == name)


def test_limit_seven_over_dhumbal_moves_the_option_default(tmp_path: Path) -> None:
    document = load_profile(write(tmp_path / "seven.yaml", SEVEN))
    base = load_profile("dhumbal")
    assert document["rules"]["call"]["limit"] == 7
    assert option(document, "call_limit") == {
        **option(base, "call_limit"),
        "values": [5, 7, 10, 15],
        "default": 7,
    }
    assert document["derived_from"] == {
        "profile": "dhumbal",
        "readings": {},
        "variant": ["call.limit", "options.call_limit.values", "options.call_limit.default"],
    }
    assert readings.claim_text(document) == SEVEN_CLAIM
    assert resolve(document, {})["rules"]["call"]["limit"] == 7
    assert resolve(document, {"call_limit": 15})["rules"]["call"]["limit"] == 15


def test_a_rule_override_among_the_option_values_needs_no_options_entry(tmp_path: Path) -> None:
    document = load_profile(declared(tmp_path, "dhumbal", "rules: {call: {limit: 15}}\n"))
    assert option(document, "call_limit")["default"] == 15
    assert option(document, "call_limit")["values"] == [5, 10, 15]
    assert document["derived_from"]["variant"] == ["call.limit", "options.call_limit.default"]


@pytest.mark.parametrize(
    ("base", "rules", "name", "default", "variant"),
    [
        # a range without a top: any whole limit
        ("dashain", "{call: {limit: 12}}", "call_limit", 12, "call.limit"),
        # a decimal range
        (
            "dashain",
            "{money: {dollars_per_point: '0.10'}}",
            "dollars_per_point",
            "0.10",
            "money.dollars_per_point",
        ),
        # a boolean mapped to a choice parameter
        (
            "dashain",
            "{call: {first_round: allowed}}",
            "first_round_jhyap",
            True,
            "call.first_round",
        ),
        # an option setting three parameters: the value whose map gives all three
        ("jhyap-jacks-zero", "{card_values: {J: 10}}", "picture_cards", "all_ten", "card_values.J"),
    ],
)
def test_the_option_value_setting_the_overridden_rule_becomes_the_default(
    tmp_path: Path, base: str, rules: str, name: str, default: Any, variant: str
) -> None:
    document = load_profile(declared(tmp_path, base, f"rules: {rules}\n"))
    assert option(document, name)["default"] == default
    assert document["derived_from"]["variant"] == [variant, f"options.{name}.default"]


def test_a_new_default_sets_the_rule(tmp_path: Path) -> None:
    document = load_profile(declared(tmp_path, "dhumbal", "options:\n  call_limit: {default: 5}\n"))
    assert document["rules"]["call"]["limit"] == 5
    assert document["derived_from"]["variant"] == ["call.limit", "options.call_limit.default"]


def test_a_range_replaces_the_values(tmp_path: Path) -> None:
    document = load_profile(
        declared(
            tmp_path,
            "dhumbal",
            "rules: {call: {limit: 7}}\n"
            "options:\n  call_limit: {range: {min: 1, max: 20, step: 1}}\n",
        )
    )
    limit = option(document, "call_limit")
    assert "values" not in limit
    assert (limit["range"], limit["default"]) == ({"min": 1, "max": 20, "step": 1}, 7)
    assert document["derived_from"]["variant"] == [
        "call.limit",
        "options.call_limit.values",
        "options.call_limit.default",
        "options.call_limit.range",
    ]


def test_removing_an_option_drops_its_citations_and_its_reading(tmp_path: Path) -> None:
    document = load_profile(
        declared(tmp_path, "dhumbal", "rules: {call: {limit: 7}}\noptions:\n  call_limit: null\n")
    )
    base = load_profile("dhumbal")
    assert [o["name"] for o in document["options"]] == ["pickup_after_multi_throw"]
    assert document["rules"]["call"]["limit"] == 7
    cited = {p for c in document["clauses"] for p in c["params"]}
    assert "options.call_limit" in {p for c in base["clauses"] for p in c["params"]}
    assert "options.call_limit" not in cited
    assert [r["name"] for r in document["readings"]] == ["reshuffle", "dealer", "house_rule_lock"]
    assert document["derived_from"]["variant"] == ["call.limit", "options.call_limit"]


def test_adding_an_option(tmp_path: Path) -> None:
    document = load_profile(
        declared(
            tmp_path,
            "dhumbal",
            "options:\n  penalty:\n    type: integer\n    values: [25, 30]\n    default: 30\n"
            "    sets: scoring.beaten_penalty\n    changes: at_start_only\n",
        )
    )
    assert option(document, "penalty") == {
        "name": "penalty",
        "type": "integer",
        "values": [25, 30],
        "default": 30,
        "sets": "scoring.beaten_penalty",
        "changes": "at_start_only",
        "locked_when_open": True,
    }
    assert document["rules"]["scoring"]["beaten_penalty"] == 30
    assert resolve(document, {"penalty": 25})["rules"]["scoring"]["beaten_penalty"] == 25
    assert document["derived_from"]["variant"] == ["scoring.beaten_penalty", "options.penalty"]


def test_a_lock_no_reading_offers_leaves_the_reading_out(tmp_path: Path) -> None:
    document = load_profile(
        declared(tmp_path, "dhumbal", "options:\n  call_limit: {changes: between_hands}\n")
    )
    limit = option(document, "call_limit")
    assert (limit["changes"], limit["locked_when_open"]) == ("between_hands", False)
    assert "call_limit_lock" not in [r["name"] for r in document["readings"]]
    assert document["derived_from"]["variant"] == [
        "options.call_limit.locked_when_open",
        "options.call_limit.changes",
    ]


def test_options_over_a_profile_file(tmp_path: Path) -> None:
    shutil.copy(ROOT / "specs" / "dhumbal.yaml", tmp_path / "table.yaml")
    document = load_profile(declared(tmp_path, "table.yaml", "rules: {call: {limit: 15}}\n"))
    assert option(document, "call_limit")["default"] == 15


def test_show_prints_the_option_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = declared(
        tmp_path,
        "dhumbal",
        "rules: {call: {limit: 7}}\noptions:\n  call_limit: null\n"
        "  penalty: {type: integer, values: [25, 30], default: 30, "
        "sets: scoring.beaten_penalty, changes: at_start_only}\n",
    )
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:6] == [
        "# mine: checked against a variant of dhumbal (normative parameters overridden: "
        "call.limit, scoring.beaten_penalty, options.call_limit, options.penalty), never "
        "conformance to dhumbal itself",
        "# differs from dhumbal in:",
        "#   rules.call.limit: 10 -> 7",
        "#   rules.scoring.beaten_penalty: 25 -> 30",
        "#   options.call_limit: removed (it sets call.limit; 5, 10, 15; default 10)",
        "#   options.penalty: added (sets scoring.beaten_penalty; 25, 30; default 30)",
    ]
    shown = yaml.safe_load(out)
    assert [o["name"] for o in shown["options"]] == ["pickup_after_multi_throw", "penalty"]


def test_show_prints_a_changed_option_field_by_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", str(write(tmp_path / "seven.yaml", SEVEN))]) == 0
    assert capsys.readouterr().out.splitlines()[:5] == [
        f"# {SEVEN_CLAIM}",
        "# differs from dhumbal in:",
        "#   rules.call.limit: 10 -> 7",
        "#   options.call_limit.values: [5, 10, 15] -> [5, 7, 10, 15]",
        "#   options.call_limit.default: 10 -> 7",
    ]


@pytest.mark.usefixtures("reference_in_process")
def test_a_run_under_an_option_variant_claims_the_variant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = write(tmp_path / "seven.yaml", SEVEN)
    status = main(["run", "--profile", str(profile), "-k", "dhumbal-call-limit-5"])
    out = capsys.readouterr().out
    assert status == 0, out
    claims = [line.split("; judged ")[0] for line in out.splitlines()]
    assert claims.count(f"claim: {SEVEN_CLAIM}") == 1
    assert "== 1 passed (1 case)" in out


def test_a_rule_an_option_of_values_lacks_is_added_to_its_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """call.limit: 7 over dhumbal: 7 is the table's default, the other limits stay."""
    path = declared(tmp_path, "dhumbal", "rules: {call: {limit: 7}}\n")
    document = load_profile(path)
    (option,) = [o for o in document["options"] if o["name"] == "call_limit"]
    assert (option["values"], option["default"]) == ([5, 7, 10, 15], 7)
    assert document["rules"]["call"]["limit"] == 7
    assert document["derived_from"]["variant"] == [
        "call.limit",
        "options.call_limit.values",
        "options.call_limit.default",
    ]


BROKEN = [
    (
        "dashain",
        "rules: {call: {limit: 0}}\n",
        "4: rules.call.limit: 0 is not a value of option call_limit (1 or more in steps of 1), "
        "which sets call.limit; add it to the option (options: {call_limit: {range: ...}}) "
        "or remove the option (options: {call_limit: null})",
    ),
    (
        "jhyap-jacks-zero",
        "rules: {card_values: {J: 5}}\n",
        "4: rules.card_values.J: no value of option picture_cards sets card_values.J 5, "
        "card_values.Q 10, card_values.K 10; add it to the option (options: {picture_cards: "
        "{values: [...], map: {...}}}) or remove the option (options: {picture_cards: null})",
    ),
    (
        "dhumbal",
        "rules: {call: {limit: 15}}\noptions:\n  call_limit: {default: 5}\n",
        "6: options.call_limit.default: default 5 sets call.limit to 5, but rules.call.limit is 15",
    ),
    (
        "dhumbal",
        "options:\n  nosuch: null\n",
        "5: options.nosuch: dhumbal has no option nosuch to remove; "
        "its options: call_limit, pickup_after_multi_throw",
    ),
    (
        "dhumbal",
        "options:\n  penalty: {type: integer, default: 25}\n",
        "5: options.penalty: dhumbal has no option penalty (its options: call_limit, "
        "pickup_after_multi_throw), and a new option needs sets, locked_when_open "
        "(or changes), values (or range)",
    ),
    (
        "dhumbal",
        "options:\n  call_limit: {dflt: 5}\n",
        "5: options.call_limit.dflt: unknown key; expected one of: type, values, range, "
        "default, sets, map, locked_when_open, changes",
    ),
    (
        "dhumbal",
        "options:\n  call_limit: {values: [5], range: {min: 1, max: 9, step: 1}}\n",
        "5: options.call_limit.range: give values or range, not both",
    ),
    (
        "dhumbal",
        "options:\n  call_limit:\n    values: [7, 12]\n",
        "5: options.call_limit.default: option call_limit: 10 is not allowed; allowed: 7, 12",
    ),
    (
        "dhumbal",
        "options:\n  call_limit: {values: 5}\n",
        "5: options.call_limit.values: must be a list, not an integer (5)",
    ),
    (
        "dhumbal",
        "options: [call_limit]\n",
        '4: options: must be a mapping, not a list (["call_limit"])',
    ),
    ("dhumbal", "options:\n  call_limit: {}\n", "5: options.call_limit: must not be empty"),
    (
        "dhumbal",
        "options:\n  call_limit: {type: choice}\n",
        "5: options.call_limit.type: a new type needs a new default and values (or range) too",
    ),
    (
        "dhumbal",
        "options:\n  call_limit: {sets: call.nolimit}\n",
        "5: options.call_limit.sets: no rule parameter call.nolimit in rules",
    ),
    (
        "dashain",
        "options:\n  dollars_per_point: {default: 0.1}\n",
        '5: options.dollars_per_point.default: must be a decimal string such as "0.05" '
        "(quoted), not 0.1",
    ),
    (
        "dashain",
        "options:\n  first_round_jhyap: {map: null}\n",
        "5: options.first_round_jhyap.map: false is not one of: allowed, "
        "after_every_player_had_a_turn",
    ),
    (
        "dhumbal",
        "readings: {call_limit_lock: table_open}\noptions:\n  call_limit: null\n",
        "6: options.call_limit: the declared reading call_limit_lock sets this option; "
        "keep the option or drop the reading",
    ),
    (
        "dhumbal",
        "readings: {call_limit_lock: table_open}\n"
        "options:\n  call_limit: {changes: before_first_deal}\n",
        "6: options.call_limit.changes: the declared reading call_limit_lock sets it to "
        '"at_start_only"',
    ),
    # A rule an integer option sets, made null: one line, no internal error.
    (
        "alankar-dhumbal",
        "rules:\n  game_end: {kind: one_hand, out_above: null}\n",
        "5: rules.game_end.out_above: null is not a value of option target_score (50, 100, "
        "150, 200), which sets game_end.out_above; remove the option (options: "
        "{target_score: null})",
    ),
    # A reading's choice the variant's rules break: the rule it breaks is named.
    (
        "alankar-dhumbal",
        "rules:\n  game_end: {kind: one_hand, out_above: null}\noptions: {target_score: null}\n",
        "1: readings.target_reached.choices.reaching: this choice makes "
        "rules.game_end.reaching_is_out: only a game with a threshold has one to reach; "
        "declare one that plays (readings: {target_reached: above})",
    ),
    # Declared, only the reading's choice is played.
    (
        "alankar-dhumbal",
        "readings: {target_reached: reaching}\n"
        "rules:\n  game_end: {kind: one_hand, out_above: null}\noptions: {target_score: null}\n",
        "6: rules.game_end.reaching_is_out: only a game with a threshold has one to reach",
    ),
]


@pytest.mark.parametrize(("base", "body", "line"), BROKEN)
def test_a_broken_options_override_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base: str, body: str, line: str
) -> None:
    path = declared(tmp_path, base, body)
    with pytest.raises(ProfileFileError) as caught:
        load_profile(path)
    assert [str(p) for p in caught.value.problems] == [f"{path}:{line}"]
    assert main(["validate", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [f"{path}:{line}"]
    assert main(["show", str(path)]) == 2
    out, err = capsys.readouterr()
    assert (out, err.splitlines()) == ("", [f"{path}:{line}"])


@pytest.mark.e2e
def test_a_broken_file_is_reported_without_a_traceback(tmp_path: Path) -> None:
    path = declared(tmp_path, "dashain", "rules: {call: {limit: 0}}\n")
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "validate", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == f"{path}:{BROKEN[0][2]}\n"


def test_a_one_hand_variant_that_settles_the_threshold_reading_is_valid(tmp_path: Path) -> None:
    body = (
        "readings: {target_reached: above}\n"
        "rules:\n  game_end: {kind: one_hand, out_above: null}\noptions: {target_score: null}\n"
    )
    document = load_profile(declared(tmp_path, "alankar-dhumbal", body))
    assert document["rules"]["game_end"] == {
        "kind": "one_hand",
        "rounds": None,
        "out_above": None,
        "reaching_is_out": False,
    }


def test_the_declared_schema_describes_options() -> None:
    defs = profile_schema()["$defs"]
    options = defs["declared"]["properties"]["options"]
    assert options["additionalProperties"] == {"$ref": "#/$defs/optionOverride"}
    assert "null removes" in options["description"]
    override = defs["optionOverride"]
    assert override["type"] == ["object", "null"]
    assert set(override["properties"]) == set(defs["option"]["properties"]) - {"name"}
    assert all(
        "description" in override["properties"][f] or "$ref" in override["properties"][f]
        for f in ("map", "values", "range")
    )


def test_the_readings_page_example_of_options_works_as_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (ROOT / "docs" / "readings.md").read_text("utf-8")
    section = page[page.index("### Options in an extends file") :]
    blocks = re.findall(r"```(yaml|console)\n(.*?)```", section, re.S)
    (_, example), (_, shown), (_, refused) = blocks[:3]
    seven = SEVEN.split("options:")[0]
    assert example == f"# dhumbal-seven.yaml\n{seven}"
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "dhumbal-seven.yaml", seven)
    assert shown.splitlines()[0] == "$ jhyap show dhumbal-seven.yaml"
    assert main(["show", "dhumbal-seven.yaml"]) == 0
    assert capsys.readouterr().out.splitlines()[:5] == shown.splitlines()[1:]
    # The same profile as SEVEN, which says the values itself.
    write(tmp_path / "said.yaml", SEVEN)
    assert (
        load_profile(tmp_path / "said.yaml")["options"]
        == load_profile(tmp_path / "dhumbal-seven.yaml")["options"]
    )
    write(tmp_path / "my-dashain.yaml", HEAD.format(base="dashain") + "rules: {call: {limit: 0}}\n")
    assert refused.splitlines()[0] == "$ jhyap validate my-dashain.yaml"
    assert main(["validate", "my-dashain.yaml"]) == 1
    assert capsys.readouterr().out.splitlines() == refused.splitlines()[1:]
