"""The files commands write and the paths and numbers they are given: no file lost (every
report a command writes replaces the last report of its kind, never someone's file, unless
--force; refused before the work starts), no number or path that ends in a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance import cli
from conformance.reporting.outputs import (
    COVERAGE_JSON,
    FUZZ_JSON,
    MATRIX_JSON,
    RUN_JSON,
    RUN_JUNIT,
    SIMULATE_JSON,
)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "transcripts"
PASSING = "harness-pass-run-ends"


def jhyap(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_refuses_one_file_for_both_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "report"
    args = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
    code, out, err = jhyap(capsys, *args, "--json", str(report), "--junit", str(report))
    assert (code, out) == (2, "")
    assert err == (
        f"jhyap run: --json and --junit name the same file ({report}); give each its own\n"
    )
    assert not report.exists()  # refused before anything ran or was written


@pytest.mark.parametrize("spelling", ["./r.json", "sub/../r.json", "link.json", "hard.json"])
def test_run_sees_every_spelling_of_one_file(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spelling: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "r.json").write_text("keep\n")
    os.symlink("r.json", tmp_path / "link.json")
    os.link(tmp_path / "r.json", tmp_path / "hard.json")
    args = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
    code, _, err = jhyap(capsys, *args, "--json", "r.json", "--junit", spelling)
    assert code == 2
    assert err == (
        f"jhyap run: --json and --junit name the same file (r.json and {spelling}); "
        "give each its own\n"
    )
    assert (tmp_path / "r.json").read_text() == "keep\n"


def test_run_report_never_replaces_its_known_failures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.json"
    known.write_text("[]\n")
    args = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
    code, _, err = jhyap(capsys, *args, "--known-failures", str(known), "--junit", str(known))
    assert code == 2
    assert err == (
        f"jhyap run: --junit and --known-failures name the same file ({known}); give each its own\n"
    )
    assert known.read_text() == "[]\n"


@pytest.mark.e2e
def test_run_replaces_last_runs_reports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A report replaces the report of the last run, as pytest's --junitxml does (any
    other file in the way is refused: test_a_report_never_replaces_a_file_that_is_not_one)."""
    json_file, junit = tmp_path / "r.json", tmp_path / "r.xml"
    args = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
    reports = ("--json", str(json_file), "--junit", str(junit))
    assert jhyap(capsys, *args, *reports)[0] == 0
    first = json_file.read_text(), junit.read_text()
    code, _, _ = jhyap(capsys, *args, *reports)
    assert code == 0
    assert json_file.read_text().startswith("{") and json_file.read_text() != first[0]
    assert junit.read_text().startswith("<?xml") and junit.read_text() != first[1]


def test_simulate_json_never_replaces_its_profile(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    profile = tmp_path / "mine.yaml"
    text = (ROOT / "specs" / "dhumbal.yaml").read_text()
    profile.write_text(text)
    code, out, err = jhyap(capsys, "simulate", str(profile), "--games", "2", "--json", str(profile))
    assert (code, out) == (2, "")
    assert err == (
        f"jhyap simulate: --json and PROFILE name the same file ({profile}); give each its own\n"
    )
    assert profile.read_text() == text


def test_fuzz_json_never_replaces_its_known_divergences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    known = tmp_path / "known.json"
    known.write_text("[]\n")
    code, _, err = jhyap(
        capsys, "fuzz", "--games", "1", "--json", str(known), "--known-divergences", str(known)
    )
    assert code == 2
    assert err == (
        f"jhyap fuzz: --json and --known-divergences name the same file ({known}); "
        "give each its own\n"
    )
    assert known.read_text() == "[]\n"


SECONDS = "must be a number of seconds above 0 and at most"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "--timeout", "inf"), f"jhyap run: --timeout: {SECONDS} 86400, not 'inf'"),
        (("run", "--timeout", "1e300"), f"jhyap run: --timeout: {SECONDS} 86400, not '1e300'"),
        (("run", "--timeout", "nan"), f"jhyap run: --timeout: {SECONDS} 86400, not 'nan'"),
        (("run", "--timeout", "0"), f"jhyap run: --timeout: {SECONDS} 86400, not '0'"),
        (("smoke", "--timeout", "-1"), f"jhyap smoke: --timeout: {SECONDS} 86400, not '-1'"),
        (("fuzz", "--timeout", "inf"), f"jhyap fuzz: --timeout: {SECONDS} 86400, not 'inf'"),
        (("fuzz", "--time", "nan"), f"jhyap fuzz: --time: {SECONDS} 604800, not 'nan'"),
        # Negative numbers argparse took for options (issue 41, item 11): its usage block.
        (("run", "--timeout", "-inf"), f"jhyap run: --timeout: {SECONDS} 86400, not '-inf'"),
        (("fuzz", "--time", "-inf"), f"jhyap fuzz: --time: {SECONDS} 604800, not '-inf'"),
        (("run", "--timeout", "-1e3"), f"jhyap run: --timeout: {SECONDS} 86400, not '-1e3'"),
        (
            ("run", "--window", "-NaN"),
            "jhyap run: --window: must be a whole number from 1 to 10000, not '-NaN'",
        ),
        (
            ("run", "--engine-memory", "100000000000000000000"),
            "jhyap run: --engine-memory: must be a whole number from 1 to 1048576, "
            "not '100000000000000000000'",
        ),
        (
            ("run", "--engine-memory", "1e20"),
            "jhyap run: --engine-memory: must be a whole number from 1 to 1048576, not '1e20'",
        ),
        (
            ("smoke", "--engine-cpu", "0"),
            "jhyap smoke: --engine-cpu: must be a whole number from 1 to 604800, not '0'",
        ),
        (
            ("run", "--jobs", "0"),
            "jhyap run: --jobs: must be a whole number from 1 to 1024, or auto, not '0'",
        ),
        (
            ("simulate", "dhumbal", "--games", "1000000000000"),
            "jhyap simulate: --games: must be a whole number from 1 to 1000000, "
            "not '1000000000000'",
        ),
        (
            ("simulate", "dhumbal", "--games", "1e12"),
            "jhyap simulate: --games: must be a whole number from 1 to 1000000, not '1e12'",
        ),
        (
            ("simulate", "dhumbal", "--max-rounds", "0"),
            "jhyap simulate: --max-rounds: must be a whole number from 1 to 10000, not '0'",
        ),
        (
            ("simulate", "dhumbal", "--jobs", "-3"),
            "jhyap simulate: --jobs: must be a whole number from 1 to 1024, or auto, not '-3'",
        ),
        (
            ("record", "dhumbal", "out", "--seats", "3", "--max-rounds", "-1"),
            "jhyap record: --max-rounds: must be a whole number from 1 to 10000, not '-1'",
        ),
        (
            ("record", "dhumbal", "out", "--seats", "1000"),
            "jhyap record: --seats: must be a whole number from 1 to 64, not '1000'",
        ),
        (
            ("record", "dhumbal", "out", "--seats", "3", "--seed", "9" * 5000),
            "jhyap record: --seed: must be a whole number from 0 to 9223372036854775807, "
            "not '999999999999999999999999999999999999999… (5000 characters)'",
        ),
        (
            ("fuzz", "--games", "0"),
            "jhyap fuzz: --games: must be a whole number from 1 to 10000000, not '0'",
        ),
        (
            ("fuzz", "--window", "0"),
            "jhyap fuzz: --window: must be a whole number from 1 to 10000, not '0'",
        ),
        (
            ("fuzz", "--shrink-budget", "-1"),
            "jhyap fuzz: --shrink-budget: must be a whole number from 0 to 10000000, not '-1'",
        ),
        (
            ("fuzz", "--seats", "x"),
            "jhyap fuzz: --seats: must be a whole number from 1 to 64, not 'x'",
        ),
    ],
)
def test_every_numeric_option_is_checked_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    code, out, err = jhyap(capsys, *args)
    assert (code, out, err) == (2, "", message + "\n")


def test_every_numeric_option_has_a_checked_type() -> None:
    """The class: no command takes a number through a bare int or float."""
    parser = cli.build_parser()
    for name, command in cli.command_parsers(parser).items():
        for action in command._actions:
            assert action.type not in (int, float), (name, action.option_strings)


@pytest.mark.e2e
def test_a_yml_transcript_is_run_exported_and_counted_like_a_yaml_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """validate took *.yml; run, export and coverage never saw it. Now every command
    reads the same files: *.yaml and *.yml, as for profiles."""
    import json
    import shutil

    from conformance.spec.transcript import corpus_files

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(DATA / f"{PASSING}.yaml", corpus / f"{PASSING}.yml")
    assert corpus_files(corpus) == [corpus / f"{PASSING}.yml"]
    code, out, _ = jhyap(capsys, "validate", str(corpus))
    assert (code, out) == (0, "OK: 1 file valid\n")
    code, out, _ = jhyap(capsys, "run", "--transcripts", str(corpus), "-q")
    assert code == 0
    assert "== 1 passed (1 case) in " in out
    code, out, _ = jhyap(capsys, "run", "--transcripts", str(corpus), "-q", "-k", PASSING)
    assert "== 1 passed (1 case) in " in out
    code, out, _ = jhyap(capsys, "export", str(tmp_path / "out"), "--transcripts", str(corpus))
    assert code == 0
    assert out.startswith("wrote 1 transcript (1 case) and index.json to ")
    code, out, _ = jhyap(
        capsys, "coverage", "--transcripts", str(corpus), "--json", str(tmp_path / "c.json")
    )
    listed = json.loads((tmp_path / "c.json").read_text())
    assert PASSING in json.dumps(listed)
    # the same id as .yaml and .yml is one id used twice, not a silent choice
    shutil.copy(DATA / f"{PASSING}.yaml", corpus / f"{PASSING}.yaml")
    code, _, err = jhyap(capsys, "run", "--transcripts", str(corpus), "-q")
    assert code == 2
    assert f"id {PASSING!r} is also used by {corpus / PASSING}.yaml" in err


def test_duplicate_keys_in_a_known_failures_json_file_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The last key won silently; now the file, line and key, as the YAML reader says."""
    known = tmp_path / "known.json"
    known.write_text('[\n  {"id": "a",\n   "reason": "r",\n   "id": "b"}\n]\n', encoding="utf-8")
    args = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
    code, out, err = jhyap(capsys, *args, "--known-failures", str(known))
    assert (code, out) == (2, "")
    assert err == f"{known}:4: duplicate key 'id' (first on line 2)\n"
    # as a YAML file says it
    (tmp_path / "known.yaml").write_text("- id: a\n  reason: r\n  id: b\n", encoding="utf-8")
    code, _, err = jhyap(capsys, *args, "--known-failures", str(tmp_path / "known.yaml"))
    assert (code, err) == (
        2,
        f"{tmp_path / 'known.yaml'}:3: duplicate key 'id' (first on line 1)\n",
    )


def test_duplicate_keys_found_at_any_depth_and_for_divergences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from conformance.spec.strictjson import loads_unique
    from conformance.spec.yamlsafe import YamlProblem

    assert loads_unique('{"a": {"b": 1, "c": [1, {"b": 2}]}, "b": 3}', "f") == {
        "a": {"b": 1, "c": [1, {"b": 2}]},
        "b": 3,
    }
    with pytest.raises(YamlProblem, match=r"^f:3: duplicate key 'x' \(first on line 2\)$"):
        loads_unique('[{"a": 1,\n "b": {"x": 1,\n "x": 2}}]', "f")
    with pytest.raises(YamlProblem, match=r"^f:1: duplicate key 'é' \(first on line 1\)$"):
        loads_unique('{"\\u00e9": 1, "é": 2}', "f")
    known = tmp_path / "divergences.json"
    known.write_text('[{"signature": "*", "clause": "c", "reason": "r", "reason": "s"}]\n')
    code, _, err = jhyap(capsys, "fuzz", "--games", "1", "--known-divergences", str(known))
    assert code == 2
    assert f"{known}:1: duplicate key 'reason' (first on line 1)" in err


def _engine_answers(*requests: str) -> list[dict[str, object]]:
    import io
    import json

    from reference_engine.server import serve

    out = io.StringIO()
    serve(io.BytesIO("".join(r + "\n" for r in requests).encode()), out)
    return [json.loads(line).get("error", {}) for line in out.getvalue().splitlines()]


def test_engine_messages_name_each_kind_with_its_article() -> None:
    hello = '{"cmd": "hello", "seq": 1, "protocol": "1.0"}'
    errors = _engine_answers(
        hello,
        '{"cmd": "start", "seq": 2, "profile": []}',
        '{"cmd": "start", "seq": 3, "profile": {}, "seats": "4"}',
    )
    assert [e["message"] for e in errors[1:]] == [
        "'profile' must be an object",
        "'seats' must be an integer",
    ]
    from reference_engine.server import kind_name

    assert [kind_name(k) for k in (dict, str, int, list, bool)] == [
        "an object",
        "a string",
        "an integer",
        "an array",
        "a boolean",
    ]


def test_a_long_value_is_clipped_in_messages(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    digits = "9" * 5000
    errors = _engine_answers('{"cmd": "y' + "y" * 4999 + '", "seq": 1}', '{"seq": ' + digits + "}")
    assert errors[0] == {
        "code": "unknown_command",
        "message": "unknown command '" + "y" * 79 + "… (5000 characters)'",
    }
    assert errors[1] == {
        "code": "bad_request",
        "message": "not JSON: an integer of more than 4300 digits",
    }
    for command in (("show", "dhumbal"), ("record", "dhumbal", str(tmp_path), "--seats", "3")):
        code, out, err = jhyap(capsys, *command, "--option", f"call_limit={digits}")
        assert (code, out) == (2, "")
        assert err == (
            f"jhyap {command[0]}: option call_limit: {'9' * 79}… (5000 characters) "
            "is not allowed; allowed: 5, 10, 15\n"
        )


LONG_PART = "a" * 5000
LONG_PATH = "/".join(["b" * 200] * 25)
PROBLEMS = (
    (
        "a" * 300,
        "must be a path whose every part is at most 255 bytes, not 300 "
        f"('{'a' * 39}… (300 characters)')",
    ),
    (LONG_PART, "must be a path of at most 4095 bytes, not 5000"),
    (LONG_PATH, "must be a path of at most 4095 bytes, not 5024"),
)


@pytest.mark.parametrize(
    ("words", "option"),
    [
        (("validate", "{}"), "PATH"),
        (("show", "{}"), "PROFILE"),
        (("run", "--transcripts", "{}"), "--transcripts"),
        (("run", "--json", "{}"), "--json"),
        (("run", "--junit", "{}"), "--junit"),
        (("run", "--known-failures", "{}"), "--known-failures"),
        (("run", "--profile", "{}"), "--profile"),
        (("smoke", "--profile", "{}"), "--profile"),
        (("coverage", "--json", "{}"), "--json"),
        (("coverage", "--transcripts", "{}"), "--transcripts"),
        (("coverage", "--profile", "{}"), "--profile"),
        (("export", "{}"), "DIR"),
        (("export", "out", "--transcripts", "{}"), "--transcripts"),
        (("export", "out", "--profile", "{}"), "--profile"),
        (("record", "{}", "out", "--seats", "3"), "PROFILE"),
        (("record", "dhumbal", "{}", "--seats", "3"), "DIR"),
        (("simulate", "{}"), "PROFILE"),
        (("simulate", "dhumbal", "--json", "{}"), "--json"),
        (("fuzz", "--out", "{}"), "--out"),
        (("fuzz", "--json", "{}"), "--json"),
        (("fuzz", "--known-divergences", "{}"), "--known-divergences"),
        (("fuzz", "--profile", "{}"), "--profile"),
    ],
)
def test_a_path_too_long_to_open_is_one_line_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    words: tuple[str, ...],
    option: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    for path, problem in PROBLEMS:
        args = [path if word == "{}" else word for word in words]
        code, out, err = jhyap(capsys, *args)
        assert (code, out, err) == (2, "", f"jhyap {words[0]}: {option}: {problem}\n")
    assert list(tmp_path.iterdir()) == []


def test_every_path_argument_is_checked() -> None:
    """The class: every argument that names a file or folder takes it through path_text."""
    from conformance.commands.checks import PATH_METAVARS, path_text

    parser = cli.build_parser()
    checked = 0
    for command in cli.command_parsers(parser).values():
        for action in command._actions:
            if action.metavar in PATH_METAVARS:
                assert action.type is path_text, action
                checked += 1
    assert checked == 25  # merge's FILE and --json, matrix's --output among them


def test_a_name_too_long_met_elsewhere_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path the arguments do not give (here a profile's extends) is no internal error."""
    monkeypatch.chdir(tmp_path)
    Path("ext.yaml").write_text(
        f"profile_format: 1\nid: mine\nextends: {LONG_PART}.yaml\nreadings: {{}}\n"
    )
    for command in ("validate", "show"):
        code, out, err = jhyap(capsys, command, "ext.yaml")
        assert (code, out) == (2, "")
        assert err == f"jhyap {command}: {'a' * 39}… (5005 characters): File name too long\n"


@pytest.mark.parametrize(
    ("out", "problem"),
    [("afile", "afile is a file, not a folder"), ("afile/sub", "afile is a file, not a folder")],
)
def test_fuzz_out_that_cannot_be_a_folder_is_refused_before_fuzzing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    out: str,
    problem: str,
) -> None:
    """A divergence found, shrunk and then lost to FileExistsError: now refused up front."""
    monkeypatch.chdir(tmp_path)
    Path("afile").write_text("keep\n")
    code, out_text, err = jhyap(capsys, "fuzz", "--games", "1", "--out", out)
    assert (code, out_text) == (2, "")
    assert err == f"jhyap fuzz: --out: {problem}; the transcript of a divergence goes there\n"
    assert Path("afile").read_text() == "keep\n"


# -- a report replaces only a report of its kind ---------------------------------------------

PRECIOUS = "my notes: not a report\n"

RUN = ("run", "--transcripts", str(DATA), "-k", PASSING, "-q")
COVERAGE = ("coverage", "--uncovered")
COVERAGE_OF_ONE = ("coverage", "--profile", "dashain")
SIMULATE = ("simulate", "dashain", "--seats", "2", "--games", "2")
FUZZ = ("fuzz", "--profile", "dashain", "--games", "1", "--seats", "2")

# (command, report option, what the refusal calls the report, its kind)
WRITERS = [
    (RUN, "--json", "a jhyap run JSON report", RUN_JSON),
    (RUN, "--junit", "a jhyap JUnit report", RUN_JUNIT),
    (COVERAGE, "--json", "a jhyap coverage JSON report", COVERAGE_JSON),
    (COVERAGE_OF_ONE, "--json", "a jhyap coverage JSON report", COVERAGE_JSON),
    (SIMULATE, "--json", "a jhyap simulate JSON report", SIMULATE_JSON),
    (FUZZ, "--json", "a jhyap fuzz JSON report", FUZZ_JSON),
]
IDS = ["run-json", "run-junit", "coverage", "coverage-profile", "simulate", "fuzz"]


@pytest.mark.parametrize(("command", "option", "what", "kind"), WRITERS, ids=IDS)
def test_a_report_never_replaces_a_file_that_is_not_one(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    option: str,
    what: str,
    kind: object,
) -> None:
    monkeypatch.chdir(tmp_path)  # fuzz writes its findings under the working folder
    target = tmp_path / "mine.txt"
    target.write_text(PRECIOUS)
    code, out, err = jhyap(capsys, *command, option, str(target))
    assert (code, out) == (2, "")
    assert err == (
        f"jhyap {command[0]}: {option}: {target} exists and is not {what}; "
        "not replaced (--force replaces it)\n"
    )
    assert target.read_text() == PRECIOUS


@pytest.mark.parametrize(("command", "option", "what", "kind"), WRITERS, ids=IDS)
@pytest.mark.e2e
def test_a_report_replaces_its_own_kind_and_force_replaces_anything(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    option: str,
    what: str,
    kind: object,
) -> None:
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "mine.txt"
    target.write_text(PRECIOUS)
    code, _, err = jhyap(capsys, *command, option, str(target), "--force")
    assert code in (0, 1), err
    written = target.read_text()
    assert kind.begins(written)  # type: ignore[attr-defined]
    # The report of the last run is replaced without --force.
    code, _, err = jhyap(capsys, *command, option, str(target))
    assert code in (0, 1), err
    assert kind.begins(target.read_text())  # type: ignore[attr-defined]


@pytest.mark.e2e
def test_an_empty_file_holds_nothing_to_lose(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "made-by-mktemp"
    target.write_text("")
    code, _, err = jhyap(capsys, *RUN, "--json", str(target))
    assert code == 0, err
    assert RUN_JSON.begins(target.read_text())


def test_no_kind_of_report_passes_for_another() -> None:
    kinds = [RUN_JSON, RUN_JUNIT, COVERAGE_JSON, SIMULATE_JSON, FUZZ_JSON, MATRIX_JSON]
    samples = {
        "run": '{\n  "format": "jhyap-conformance-report",\n  "format_version": 1,',
        "junit": '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="jhyap" tests="1"',
        "coverage": '{\n  "covered": 370,\n  "total": 370,',
        "coverage-profile": '{\n  "profile": "dashain",\n  "counts": {',
        "simulate": '{\n  "format": "jhyap-simulation",\n  "format_version": 1,',
        "fuzz": '{\n  "format": "jhyap-fuzz-report",\n  "format_version": 1,',
        "matrix": '{\n  "format": "jhyap-conformance-matrix",\n  "format_version": 1,',
    }
    owners = {
        "run": RUN_JSON,
        "junit": RUN_JUNIT,
        "coverage": COVERAGE_JSON,
        "coverage-profile": COVERAGE_JSON,
        "simulate": SIMULATE_JSON,
        "fuzz": FUZZ_JSON,
        "matrix": MATRIX_JSON,
    }
    for name, text in samples.items():
        assert [k for k in kinds if k.begins(text)] == [owners[name]], name
    profile_json = '{\n  "profile_format": 1,\n  "id": "mine"'
    assert not [k for k in kinds if k.begins(profile_json)]


SHIPPED_ID = (
    "id: 'dashain' is the id of a shipped profile; a profile of your own needs an id of its "
    "own (this one would take the shipped profile's place in every transcript written for it)"
)


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_profile_of_ones_own_cannot_take_a_shipped_id(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    # Issue 41, item 10: validate passed it, then run blamed 221 lines of shipped transcripts.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.yaml").write_text("profile_format: 1\nid: dashain\nextends: dhumbal\n")
    args = ("validate", "mine.yaml") if command == "validate" else ("run", "--profile", "mine.yaml")
    code, out, err = jhyap(capsys, *args)
    if command == "validate":
        assert (code, out, err) == (1, f"mine.yaml:2: {SHIPPED_ID}\n", "")
    else:
        assert (code, out) == (2, "")
        assert err == f"jhyap run: the profiles cannot be loaded: mine.yaml:2: {SHIPPED_ID}\n"


def test_the_shipped_profile_keeps_its_own_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = jhyap(capsys, "validate", str(ROOT / "specs" / "dashain.yaml"))
    assert (code, out, err) == (0, "OK: 1 file valid\n", "")


@pytest.mark.parametrize("command", ["run", "coverage", "fuzz", "export"])
@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("/dev/zero", "a character device"),
        ("./folder", "a folder"),
        ("./pipe", "a named pipe (FIFO)"),
    ],
)
def test_a_profile_path_that_is_no_file_is_said_in_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    name: str,
    kind: str,
) -> None:
    # --profile /dev/zero was taken for a shipped id ("unknown profile '/dev/zero'"), and a
    # profile's one problem was said on a second line under its heading.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "pipe")
    where = {"export": [str(tmp_path / "out")], "fuzz": ["--games", "1"]}.get(command, [])
    code, out, err = jhyap(capsys, command, *where, "--profile", name)
    assert (code, out) == (2, "")
    assert err == (
        f"jhyap {command}: the profiles cannot be loaded: {name} is {kind}, not a profile file\n"
    )
