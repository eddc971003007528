"""wider_options (issue 28): an engine that offers more option values than its profile says so
in its declared file; the claim stays conformance to the base, the transcripts expecting such
a value refused are not applicable, every other transcript still runs. Tested both ways."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.spec.wider import offers
from jhyap_core.profile import OptionType

FAKE = Path(__file__).resolve().parents[1] / "fake_engines" / "wider_options.py"
WIDER_ENGINE = f"{sys.executable} {FAKE}"
WIDER_DHUMBAL = """profile_format: 1
id: my-dhumbal
extends: dhumbal
wider_options:
  call_limit: {range: {min: 1, max: 30, step: 1}}
"""
ANY_AMOUNT = """profile_format: 1
id: my-dashain
extends: dashain
wider_options:
  dollars_per_point: {range: {min: "0", max: null, step: null}}
"""


def _file(tmp_path: Path, text: str, name: str = "mine.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("given", "value", "kind", "held"),
    [
        ({"range": {"min": 1, "max": 30, "step": 1}}, 7, OptionType.INTEGER, True),
        ({"range": {"min": 1, "max": 30, "step": 1}}, 31, OptionType.INTEGER, False),
        ({"range": {"min": 1, "max": 30, "step": 2}}, 4, OptionType.INTEGER, False),
        ({"range": {"min": 1, "max": 30, "step": 1}}, True, OptionType.INTEGER, False),
        ({"range": {"min": "0", "max": None, "step": None}}, "0.005", OptionType.DECIMAL, True),
        ({"range": {"min": "0", "max": None, "step": None}}, 1, OptionType.DECIMAL, False),
        ({"range": {"min": "0", "max": None, "step": None}}, "1e-1", OptionType.DECIMAL, False),
        (
            {"range": {"min": "0", "max": None, "step": "0.001"}},
            "0.0015",
            OptionType.DECIMAL,
            False,
        ),
        ({"values": ["0.005"]}, "0.0050", OptionType.DECIMAL, True),
        ({"values": ["fast"]}, "fast", OptionType.CHOICE, True),
        ({"values": ["fast"]}, "slow", OptionType.CHOICE, False),
    ],
)
def test_a_wider_option_holds_only_values_of_its_type_and_range(
    given: dict[str, object], value: object, kind: OptionType, held: bool
) -> None:
    assert offers(given, value, kind) is held


def test_the_claim_stays_conformance_to_the_base(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", _file(tmp_path, ANY_AMOUNT)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        "# my-dashain: conformance to dashain with its own readings; offering more values "
        "than the profile of dollars_per_point"
    )
    assert "# no parameter differs from dashain" in out


def test_validate_refuses_a_wider_option_the_profile_lacks_or_cannot_widen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = ANY_AMOUNT.replace(
        '  dollars_per_point: {range: {min: "0", max: null, step: null}}',
        '  dollar_per_point: {values: ["0.005"]}\n  first_round_jhyap: {values: ["x"]}\n'
        '  call_limit: {values: ["7"]}',
    )
    path = _file(tmp_path, text)
    assert main(["validate", path]) == 1
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert f"{path}:5: wider_options.dollar_per_point: no option dollar_per_point to widen" in out
    assert "wider_options.first_round_jhyap: option first_round_jhyap is on or off" in out
    assert "wider_options.call_limit: '7' is not a value of integer option call_limit" in out


@pytest.mark.e2e
def test_a_refusal_of_a_wider_value_is_not_applicable_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    path = _file(tmp_path, ANY_AMOUNT)
    status = main(
        ["run", "-q", "--profile", path, "-k", "dashain-dollars-whole-cents",
         "-k", "protocol-decimal-option", "--json", str(report)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0, out
    # "1e-1" and the JSON number 1 are no amounts at all: that transcript still runs.
    assert "== 1 passed as written, 1 not applicable (2 cases)" in out
    cases = {c["id"]: c for c in json.loads(report.read_text("utf-8"))["results"]}
    assert cases["protocol-decimal-option"]["outcome"] == "passed"
    na = cases["dashain-dollars-whole-cents"]
    assert na["outcome"] == "not_applicable"
    assert na["reason"] == (
        "line 15 expects option dollars_per_point = '0.005' refused (invalid_option_value); "
        "this engine offers it beyond the profile (wider_options)"
    )


@pytest.mark.e2e
def test_an_engine_offering_more_passes_with_its_wider_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path, WIDER_DHUMBAL)
    status = main(["run", "-q", "--engine", WIDER_ENGINE, "--profile", path, "-k", "dhumbal-call"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "== 3 passed as written, 1 passed derived, 1 not applicable (5 cases)" in out
    assert "my-dhumbal: conformance to dhumbal with its own readings; offering more" in out


@pytest.mark.e2e
def test_the_same_engine_fails_without_them(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["run", "-q", "--engine", WIDER_ENGINE, "--profile", "dhumbal", "-k", "dhumbal-call"]
    )
    out = capsys.readouterr().out
    assert status == 1, out
    assert "FAILED dhumbal-call-limit-other-values [dhumbal]" in out
    assert 'expected "invalid_option_value", got accepted' in out


@pytest.mark.usefixtures("reference_in_process")
def test_the_reference_engine_passes_the_refusals_as_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["run", "-q", "--profile", "dhumbal,dashain", "-k", "dhumbal-call-limit-other",
                   "-k", "dashain-dollars-whole"])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0, out
    # Each runs as written under its own profile (and derived under the other).
    assert "== 2 passed as written, 2 passed derived (4 cases)" in out
