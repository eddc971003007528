"""The conventions of the ``jhyap`` command line: one exit-status table for every command,
--version, help on every option, a subcommand's own usage on an unknown option, colour
that honours NO_COLOR and FORCE_COLOR, ``-`` for standard output, and every error of every
command starting the same way: ``jhyap CMD: ...``."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from conformance import __version__, cli
from conformance.commands import COMMAND_STATUSES, ExitCode, exit_status_epilog, exit_statuses
from conformance.reporting.style import Style, colour_wanted
from conformance.spec.wording import plural

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fake_engines"
DATA_ARG = os.path.relpath(ROOT / "tests" / "data" / "transcripts", ROOT)
PASSING = "harness-pass-run-ends"
WRONG = "harness-wrong-expectation"
MUTANT = shlex.join([sys.executable, str(ROOT / "tests" / "mutants" / "engine.py")])


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def jhyap(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def fake(name: str) -> str:
    return shlex.join([sys.executable, str(FAKES / f"{name}.py")])


def _bad_profile(folder: Path) -> str:
    path = folder / "bad.yaml"
    path.write_text("profile_format: 1\nid: bad\n")
    return str(path)


def _json_of(folder: Path, *argv: str) -> str:
    """The --json file of one run of ``argv`` (a whole run: one shard of one)."""
    path = folder / "run.json"
    cli.main([*argv, "--json", str(path)])
    return str(path)


def _serve_stop() -> int:
    """``jhyap engine`` as a process: one stop request, then its exit status."""
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "engine"],
        input='{"seq": 1, "cmd": "stop"}\n',
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    return done.returncode


# (command, what the case shows, the arguments (given a temporary folder), the status).
# Every status of every command's table must appear here: see the test below.
Args = Callable[[Path], list[str]]


def _run_report(folder: Path) -> str:
    """A run report of one passing case, written by the in-process reference (no process)."""
    from tests.site.test_matrix import MIXED, report

    path = folder / "run.json"
    path.write_text(json.dumps(report("engine", MIXED[:1])), encoding="utf-8")
    return str(path)


EXIT_CASES: list[tuple[str, str, Args, ExitCode]] = [
    ("validate", "shipped profiles", lambda t: ["validate"], ExitCode.OK),
    ("validate", "an invalid profile", lambda t: ["validate", _bad_profile(t)], ExitCode.FAILURES),
    ("validate", "a missing path", lambda t: ["validate", str(t / "nope.yaml")], ExitCode.FAILURES),
    ("validate", "an unknown option", lambda t: ["validate", "--strict"], ExitCode.ERROR),
    ("profiles", "the list", lambda t: ["profiles"], ExitCode.OK),
    ("profiles", "an extra argument", lambda t: ["profiles", "dhumbal"], ExitCode.ERROR),
    ("show", "a shipped profile", lambda t: ["show", "dhumbal"], ExitCode.OK),
    ("show", "an unknown profile", lambda t: ["show", "nope"], ExitCode.ERROR),
    (
        "run",
        "a passing case",
        lambda t: ["run", "--transcripts", DATA_ARG, "-k", PASSING],
        ExitCode.OK,
    ),
    (
        "run",
        "a failing case",
        lambda t: ["run", "--transcripts", DATA_ARG, "-k", WRONG],
        ExitCode.FAILURES,
    ),
    ("run", "an unknown profile", lambda t: ["run", "--profile", "nope"], ExitCode.ERROR),
    ("smoke", "the reference engine", lambda t: ["smoke"], ExitCode.OK),
    (
        "smoke",
        "a debug line on stdout",
        lambda t: ["smoke", "--timeout", "5", "--engine", fake("debug_line")],
        ExitCode.FAILURES,
    ),
    ("smoke", "no such engine", lambda t: ["smoke", "--engine", "/nonexistent"], ExitCode.ERROR),
    ("coverage", "the shipped corpus", lambda t: ["coverage"], ExitCode.OK),
    (
        "coverage",
        "a partial corpus",
        lambda t: ["coverage", "--transcripts", DATA_ARG],
        ExitCode.FAILURES,
    ),
    (
        "coverage",
        "a missing corpus",
        lambda t: ["coverage", "--transcripts", str(t / "nope")],
        ExitCode.ERROR,
    ),
    (
        "export",
        "a folder",
        lambda t: ["export", str(t / "out"), "--transcripts", DATA_ARG],
        ExitCode.OK,
    ),
    (
        "export",
        "an unknown profile",
        lambda t: ["export", str(t / "out"), "--profile", "nope"],
        ExitCode.ERROR,
    ),
    (
        "record",
        "a game",
        lambda t: ["record", "dhumbal", str(t), "--seats", "2", "--max-rounds", "1"],
        ExitCode.OK,
    ),
    (
        "record",
        "an unknown profile",
        lambda t: ["record", "nope", str(t), "--seats", "2"],
        ExitCode.ERROR,
    ),
    (
        "simulate",
        "two short games",
        lambda t: ["simulate", "dhumbal", "--games", "2", "--seats", "2", "--max-rounds", "1"],
        ExitCode.OK,
    ),
    (
        "simulate",
        "an unknown policy",
        lambda t: ["simulate", "dhumbal", "--policy", "nope"],
        ExitCode.ERROR,
    ),
    ("engine", "an unknown option", lambda t: ["engine", "--port", "1"], ExitCode.ERROR),
    (
        "fuzz",
        "the reference against itself",
        lambda t: ["fuzz", "--games", "1", "--profile", "dashain", "--out", str(t / "found")],
        ExitCode.OK,
    ),
    (
        "fuzz",
        "a divergence",
        lambda t: [
            "fuzz",
            "--engine",
            f"{MUTANT} deal_in_blocks",
            "--games",
            "2",  # seed 0's first game is a table the model refuses: no deal to diverge on
            "--profile",
            "dashain",
            "--out",
            str(t / "found"),
        ],
        ExitCode.FAILURES,
    ),
    ("fuzz", "no such engine", lambda t: ["fuzz", "--engine", "/nonexistent"], ExitCode.ERROR),
    (
        "merge",
        "a simulation",
        lambda t: ["merge", _json_of(t, "simulate", "dhumbal", "--games", "1")],
        ExitCode.OK,
    ),
    (
        "merge",
        "a campaign that diverged",
        lambda t: [
            "merge",
            _json_of(
                t,
                "fuzz",
                "--engine",
                f"{MUTANT} deal_in_blocks",
                "--games",
                "2",
                "--profile",
                "dashain",
                "--out",
                str(t / "found"),
            ),
        ],
        ExitCode.FAILURES,
    ),
    ("merge", "no such file", lambda t: ["merge", str(t / "none.json")], ExitCode.ERROR),
    ("matrix", "a report", lambda t: ["matrix", _run_report(t), "-o", str(t / "m")], ExitCode.OK),
    ("matrix", "no such file", lambda t: ["matrix", str(t / "none.json")], ExitCode.ERROR),
]


@pytest.mark.parametrize(
    ("command", "args", "status"),
    [pytest.param(c, a, s, id=f"{c}: {what}") for c, what, a, s in EXIT_CASES],
)
@pytest.mark.e2e
def test_exit_status_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, args: Args, status: int
) -> None:
    argv = args(tmp_path)
    assert argv[0] == command
    code, out, err = jhyap(capsys, *argv)
    assert code == status, out + err
    assert code in exit_statuses(command)
    if code == ExitCode.ERROR:
        # smoke reports on stdout (a check a line); the rest on stderr
        assert (out if command == "smoke" else err).strip(), "a 2 says why"
        assert "Traceback" not in out + err


@pytest.mark.e2e
def test_engine_exits_0_after_stop() -> None:
    assert _serve_stop() == ExitCode.OK


def test_the_table_covers_every_status_of_every_command() -> None:
    assert set(COMMAND_STATUSES) == set(cli.COMMANDS)
    shown = {(c, int(s)) for c, _, _, s in EXIT_CASES} | {("engine", ExitCode.OK)}
    wanted = {
        (c, int(s))
        for c in cli.COMMANDS
        for s in exit_statuses(c)
        if s != ExitCode.INTERRUPTED  # shown by the next test
    }
    assert shown == wanted


@pytest.mark.parametrize("command", cli.COMMANDS)
@pytest.mark.parametrize(
    ("error", "status"),
    [(RuntimeError("boom\nagain"), ExitCode.ERROR), (KeyboardInterrupt(), 130)],
)
def test_a_bug_is_2_and_ctrl_c_is_130_for_every_command(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    error: BaseException,
    status: int,
) -> None:
    def raising(args: argparse.Namespace) -> int:
        raise error

    real = cli.build_parser

    def patched(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
        parser = real(argv)
        cli.command_parsers(parser)[command].set_defaults(run=raising)
        return parser

    monkeypatch.setattr(cli, "build_parser", patched)
    required = {
        "show": ["dhumbal"],
        "simulate": ["dhumbal"],
        "record": ["dhumbal", "x", "--seats", "2"],
        "export": ["x"],
        "merge": ["x.json"],
        "matrix": ["x.json"],
    }
    code, _, err = jhyap(capsys, command, *required.get(command, []))
    assert code == status
    if status == ExitCode.ERROR:
        assert err == f"jhyap {command}: internal error: RuntimeError: boom again\n"


def test_an_unknown_profile_is_2_everywhere(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for argv in (
        ["show", "nope"],
        ["record", "nope", str(tmp_path), "--seats", "2"],
        ["run", "--profile", "nope"],
        ["export", str(tmp_path / "x"), "--profile", "nope"],
    ):
        code, out, err = jhyap(capsys, *argv)
        assert (code, out) == (2, ""), argv
        assert "nope" in err


def test_the_exit_statuses_close_every_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in cli.COMMANDS:
        with pytest.raises(SystemExit):
            cli.build_parser().parse_args([command, "--help"])
        out = capsys.readouterr().out
        assert out.startswith(f"usage: jhyap {command}")
        assert exit_status_epilog(command).splitlines()[0] in out
        tail = out[out.index("exit status:") :]
        assert tail.splitlines()[1].startswith("  0    ")
        assert "  2    usage error" in tail
        assert "  130  interrupted (Ctrl-C)" in tail


def test_each_help_lists_only_the_errors_its_command_can_meet(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # the width argparse wraps help to
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["validate", "--help"])
    out = capsys.readouterr().out
    assert out[out.index("exit status:") :].splitlines()[3:6] == [
        "  2    usage error (an unknown option or command, a bad option value); or an",
        "       internal error (a bug in jhyap: please report it)",
        "  130  interrupted (Ctrl-C)",
    ]
    errors = {c: exit_statuses(c)[ExitCode.ERROR] for c in cli.COMMANDS}
    starting = {c for c, meaning in errors.items() if "an engine it cannot start" in meaning}
    assert starting == {"run", "smoke", "fuzz"}
    writing = {c for c, meaning in errors.items() if "an output it cannot write" in meaning}
    assert writing == {"run", "coverage", "export", "record", "simulate", "fuzz", "merge", "matrix"}


def test_every_option_of_every_command_has_help() -> None:
    parser = cli.build_parser()
    commands = cli.command_parsers(parser)
    assert list(commands) == list(cli.COMMANDS)
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, command in [("jhyap", parser), *commands.items()]
        for action in command._actions
        if not isinstance(action, argparse._SubParsersAction) and not action.help
    ]
    assert missing == []
    # A reference page is generated from these texts: nothing of this machine in them.
    texts = [command.format_help() for command in [parser, *commands.values()]]
    assert not [t for t in texts if sys.executable in t or str(ROOT) in t]


@pytest.mark.e2e
def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = jhyap(capsys, "--version")
    assert (code, err) == (0, "")
    assert out == f"jhyap {__version__} (jhyap-conformance; protocol 1.2; Python " + (
        ".".join(map(str, sys.version_info[:3])) + ")\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert (done.returncode, done.stdout) == (0, out)


def test_help_without_a_command_is_the_whole_parsers_help() -> None:
    """``jhyap --help`` lists each command from its summary alone, as the parser with every
    command's module registered lists it: same names, order and text."""
    whole = cli.build_parser()
    for argv in (["--help"], ["--version"], [], ["rnu"]):
        assert cli.build_parser(argv).format_help() == whole.format_help(), argv
    assert list(cli.command_parsers(cli.build_parser(["--help"]))) == list(cli.COMMANDS)


def test_help_and_version_import_no_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    imported: list[str] = []
    real = importlib.import_module

    def recording(name: str, package: str | None = None) -> object:
        imported.append(name)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", recording)
    for argv in (["--help"], ["--version"], [], ["rnu"]):
        assert jhyap(capsys, *argv)[0] in (0, 2), argv
    assert imported == []
    # Naming a command imports its module, and only it.
    assert jhyap(capsys, "profiles", "--help")[0] == 0
    assert imported == ["conformance.commands.profiles"]


# What a command's --help may import: the parser needs its defaults and words, never the
# harness, the engine, the schemas or the YAML loader (start-up speed, docs/architecture.md).
HELP_SCRIPT = """
import sys
from conformance import cli
from conformance.commands import COMMAND_HELP
for name in COMMAND_HELP:
    cli.build_parser([name, "--help"]).format_help()
print("\\n".join(sorted(sys.modules)))
"""
LIGHT_FOR_HELP = (
    "conformance.harness.sandbox",
    "conformance.harness.settings",
    "conformance.fuzz.settings",
    "conformance.spec.files",
    "conformance.spec.wording",
)
HEAVY_ROOTS = ("yaml", "jsonschema", "referencing", "reference_engine", "dask", "distributed")
HEAVY_PACKAGES = (
    "conformance.harness.",
    "conformance.fuzz.",
    "conformance.simulation",
    "conformance.site",
    "conformance.spec.",
)


def heavy_modules(loaded: Sequence[str]) -> list[str]:
    """The modules of ``loaded`` that a command's --help should not need."""
    return [
        name
        for name in loaded
        if name.split(".")[0] in HEAVY_ROOTS
        or (name.startswith(HEAVY_PACKAGES) and name not in LIGHT_FOR_HELP)
    ]


@pytest.mark.e2e
def test_every_commands_help_imports_no_harness() -> None:
    done = subprocess.run(
        [sys.executable, "-c", HELP_SCRIPT], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.split()
    assert "conformance.commands.fuzz" in loaded  # every command's module was imported
    assert heavy_modules(loaded) == []


def test_a_heavy_import_at_help_is_found() -> None:
    loaded = ["argparse", "conformance.spec.files", "conformance.harness.runner", "yaml.loader"]
    assert heavy_modules(loaded) == ["conformance.harness.runner", "yaml.loader"]


def test_version_matches_the_installed_metadata() -> None:
    from importlib.metadata import version

    assert version("jhyap-conformance") == __version__


def test_an_unknown_option_shows_the_subcommand_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = jhyap(capsys, "run", "--enigne", "x")
    assert (code, out) == (2, "")
    assert err.startswith("usage: jhyap run ")
    assert err.splitlines()[-1] == (
        "jhyap run: unrecognized arguments: --enigne x (did you mean --engine?)"
    )
    code, _, err = jhyap(capsys, "show", "dhumbal", "extra")
    assert code == 2
    assert err.splitlines()[-1] == "jhyap show: unrecognized arguments: extra"


def test_a_mistyped_command_names_the_nearest_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = jhyap(capsys, "rnu", "--engine", "x")
    assert (code, out) == (2, "")
    assert err.startswith("usage: jhyap ")
    assert err.splitlines()[-1] == (
        "jhyap: argument COMMAND: invalid choice: 'rnu' (did you mean run?)"
    )
    code, _, err = jhyap(capsys, "fuz")
    assert err.splitlines()[-1].endswith("(did you mean fuzz?)")
    code, _, err = jhyap(capsys, "zzzz")
    assert code == 2
    assert "(choose from 'validate'," in err.splitlines()[-1]


def test_help_texts_print_no_doubled_percent_sign() -> None:
    for name, command in cli.command_parsers(cli.build_parser()).items():
        assert "%%" not in command.format_help(), name


# -- colour -------------------------------------------------------------------------------


class _Terminal:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("tty", "env", "wanted"),
    [
        (True, {}, True),
        (False, {}, False),
        (True, {"NO_COLOR": "1"}, False),
        (True, {"NO_COLOR": ""}, True),  # empty counts as unset
        (False, {"FORCE_COLOR": "1"}, True),
        (True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),  # NO_COLOR wins
        (True, {"TERM": "dumb"}, False),
    ],
)
def test_colour_wanted(tty: bool, env: dict[str, str], wanted: bool) -> None:
    assert colour_wanted(_Terminal(tty), env) is wanted  # type: ignore[arg-type]


@pytest.mark.e2e
def test_no_color_and_force_color_on_a_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["run", "--transcripts", DATA_ARG, "-k", PASSING, "-k", WRONG]
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = jhyap(capsys, *argv)
    assert f"\x1b[31;1mFAILED\x1b[0m {WRONG} [dashain]" in out
    assert out.splitlines()[-1].startswith(
        "== \x1b[32m1 passed\x1b[0m, \x1b[31m1 failed\x1b[0m (2 cases) in "
    )
    monkeypatch.setenv("NO_COLOR", "1")
    _, out, _ = jhyap(capsys, *argv)
    assert "\x1b[" not in out
    assert f"FAILED {WRONG} [dashain]" in out
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.delenv("FORCE_COLOR")
    _, out, _ = jhyap(capsys, *argv)  # captured output is no terminal
    assert "\x1b[" not in out


@pytest.mark.e2e
def test_no_color_on_smoke(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = jhyap(capsys, "smoke")
    assert out.splitlines()[1] == "\x1b[32mok\x1b[0m   launch: the engine started"
    monkeypatch.setenv("NO_COLOR", "1")
    _, out, _ = jhyap(capsys, "smoke")
    assert out.splitlines()[1] == "ok   launch: the engine started"


def test_style_and_plural() -> None:
    assert Style(False).paint("x", "red") == "x"
    assert Style(True).paint("x", "red", "bold") == "\x1b[31;1mx\x1b[0m"
    assert [plural(n, "case") for n in (0, 1, 2)] == ["0 cases", "1 case", "2 cases"]
    assert plural(1, "family", "families") == "1 family"
    assert plural(3, "family", "families") == "3 families"


# -- standard output ----------------------------------------------------------------------


@pytest.mark.e2e
def test_json_report_on_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = jhyap(
        capsys, "run", "--transcripts", DATA_ARG, "-k", PASSING, "-k", WRONG, "--json", "-"
    )
    assert code == 1
    report = json.loads(out)  # nothing else on standard output
    assert [(r["id"], r["outcome"]) for r in report["results"]] == [
        (PASSING, "passed"),
        (WRONG, "failed"),
    ]
    assert report["command"] == [
        "jhyap", "run", "--transcripts", DATA_ARG, "-k", PASSING, "-k", WRONG, "--json", "-",
    ]  # fmt: skip
    assert f"FAILED {WRONG} [dashain]" in err  # the console report moved to stderr
    assert not Path("-").exists()


@pytest.mark.e2e
def test_junit_report_on_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    import xml.etree.ElementTree as ET

    code, out, err = jhyap(capsys, "run", "--transcripts", DATA_ARG, "-k", PASSING, "--junit", "-")
    assert code == 0
    assert ET.fromstring(out).tag == "testsuites"
    assert "== 1 passed (1 case) in " in err
    code, out, err = jhyap(capsys, "run", "--json", "-", "--junit", "-")
    assert (code, out) == (2, "")
    assert err == "jhyap run: only one of --json and --junit can go to standard output (-)\n"


def test_coverage_json_on_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = jhyap(capsys, "coverage", "--json", "-")
    assert code == 0
    report = json.loads(out)
    assert report["covered"] == report["total"] > 0
    total, readings = report["total"], len(report["readings"])
    assert readings > 0
    # the clause listing, then the reading values (issue 15), each ending with its count
    assert f"{total}/{total} clauses covered" in err.splitlines()
    assert err.splitlines()[-1] == f"{readings}/{readings} reading values tested"


# -- messages -------------------------------------------------------------------------------


def test_missing_known_failures_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "known.yaml"
    code, out, err = jhyap(capsys, "run", "--known-failures", str(missing))
    assert (code, out) == (2, "")
    assert err == f"{missing}: no such file (the known failures)\n"


def test_export_onto_a_file_names_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("keep me\n")
    code, out, err = jhyap(capsys, "export", str(target), "--transcripts", DATA_ARG)
    assert (code, out) == (2, "")
    assert err == f"jhyap export: {target} exists and is not a directory; nothing was written\n"
    assert "Errno" not in err
    assert target.read_text() == "keep me\n"
    code, _, err = jhyap(capsys, "export", str(target / "below"), "--transcripts", DATA_ARG)
    assert code == 2
    assert "Errno" not in err and err.startswith("jhyap export: cannot write to ")


def test_record_into_a_file_names_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("keep me\n")
    code, out, err = jhyap(capsys, "record", "dhumbal", str(target), "--seats", "2")
    assert (code, out) == (2, "")
    # refused before anything is written (the message tests/harness/test_hostile_input.py
    # expects too)
    assert err == f"jhyap record: {target} is not a directory\n"
    assert target.read_text() == "keep me\n"


def test_an_unwritable_report_names_the_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "no-dir" / "r.json"
    for option in ("--json", "--junit"):
        code, out, err = jhyap(
            capsys, "run", "--transcripts", DATA_ARG, "-k", PASSING, option, str(target)
        )
        # refused before the run: nothing ran, so nothing was printed
        assert (code, out) == (2, "")
        assert err == (
            f"jhyap run: {option}: {target}: its folder {target.parent} does not exist\n"
        )
    code, out, err = jhyap(capsys, "run", "--transcripts", DATA_ARG, "--junit", str(tmp_path))
    assert (code, out, err) == (2, "", f"jhyap run: --junit: {tmp_path} is a folder, not a file\n")
    code, _, err = jhyap(capsys, "coverage", "--json", str(target))
    assert code == 2
    # checked up front, as run checks its reports
    assert err == f"jhyap coverage: --json: {target}: its folder {target.parent} does not exist\n"


def test_plural_forms(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    profile = ROOT / "specs" / "dhumbal.yaml"
    code, out, _ = jhyap(capsys, "validate", str(profile))
    assert (code, out) == (0, "OK: 1 file valid\n")
    code, out, _ = jhyap(capsys, "export", str(tmp_path), "--transcripts", DATA_ARG, "-k", "x")
    assert code == 2  # -k is no export option
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(ROOT / DATA_ARG / "harness-check-fails.yaml", one)
    code, out, _ = jhyap(
        capsys, "export", str(tmp_path / "out"), "--transcripts", str(one), "--profile", "dhumbal"
    )
    assert code == 0
    assert out.startswith("wrote 1 transcript (1 case) and index.json to ")


@pytest.mark.e2e
def test_jobs_auto_is_one_engine_per_usable_cpu(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.commands import jobs_count

    assert jobs_count("auto") == len(os.sched_getaffinity(0))
    assert jobs_count("3") == 3
    with pytest.raises(argparse.ArgumentTypeError, match="'many' is neither a number nor auto"):
        jobs_count("many")
    code, out, _ = jhyap(
        capsys, "run", "--transcripts", DATA_ARG, "-k", PASSING, "-k", WRONG, "-j", "auto", "-q"
    )
    assert code == 1
    assert f"FAILED {WRONG} [dashain]" in out
    assert "== 1 passed, 1 failed (2 cases) in " in out


def test_the_readme_lists_every_command() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    listed = readme.split("## Commands", 1)[1].split("```", 2)[1]
    named = {line.split()[1] for line in listed.splitlines() if line.startswith("jhyap ")}
    assert named == set(cli.COMMANDS)


# -- every error of every command starts the same way: ``jhyap CMD: ...`` ----------------

# Errors of every command beyond those of the exit-status table: a mistyped option, a
# missing argument, an unknown profile, a refused value, an unwritable report.
MORE_ERRORS: list[tuple[str, Args]] = [
    *[(command, lambda t: ["--bogus-option"]) for command in cli.COMMANDS],
    ("show", lambda t: []),
    ("simulate", lambda t: ["nosuch"]),
    ("simulate", lambda t: ["dhumbal", "--seats", "9", "--games", "1"]),
    ("run", lambda t: ["--profile", "nosuch"]),
    ("run", lambda t: ["--timeout", "abc"]),
    ("run", lambda t: ["--junit", str(t / "no" / "such" / "x.xml")]),
    ("smoke", lambda t: ["--profile", "nosuch"]),
    ("export", lambda t: ["--profile", "nosuch", str(t / "out")]),
    ("record", lambda t: ["nosuch", str(t / "out"), "--seats", "2"]),
    ("fuzz", lambda t: ["--profile", "nosuch"]),
    ("fuzz", lambda t: ["--games", "-1"]),
    ("coverage", lambda t: ["--transcripts", str(t / "nosuch")]),
    ("coverage", lambda t: ["--json", str(t / "no" / "such" / "x.json")]),
]

# validate and smoke report what they check (files; an engine) on standard output: there an
# error is a line of the report, not an error of the command.
REPORTS = {("validate", "an invalid profile"), ("validate", "a missing path")}
CASES = [
    pytest.param(command, args, id=f"{command}: {what}")
    for command, what, args, status in EXIT_CASES
    if status == ExitCode.ERROR and (command, what) not in REPORTS and command != "smoke"
] + [
    pytest.param(command, lambda t, a=args, c=command: [c, *a(t)], id=f"{command}: {i}")
    for i, (command, args) in enumerate(MORE_ERRORS)
]


def error_line(err: str) -> str:
    """The first line of standard error that is not argparse's usage."""
    lines = [line for line in err.splitlines() if line.strip()]
    body = [line for line in lines if not line.startswith(("usage: ", " "))]
    assert body, err
    return body[0]


@pytest.mark.parametrize(("command", "args"), CASES)
@pytest.mark.e2e
def test_every_error_names_jhyap_and_the_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, args: Args
) -> None:
    argv = args(tmp_path)
    code, _, err = jhyap(capsys, *argv)
    assert code == ExitCode.ERROR, err
    line = error_line(err)
    assert line.startswith(f"jhyap {command}: "), line
    assert ": error: " not in err  # argparse's own form is gone


def test_the_check_catches_another_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    line = error_line("usage: jhyap run [-h]\n  more usage\njhyap run: error: x\n")
    assert line == "jhyap run: error: x"  # ": error: " would fail the test above
    with pytest.raises(AssertionError):
        assert error_line("unknown profile 'x'\n").startswith("jhyap run: ")


def test_before_a_command_is_known_errors_say_jhyap(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = jhyap(capsys, "--bogus")
    assert code == ExitCode.ERROR
    assert error_line(err).startswith("jhyap: ")
    assert ": error: " not in err
