"""``jhyap smoke``: the plumbing checks, against the reference engine and broken fakes.

Each fake engine records its pid in $FAKE_ENGINE_PIDS; the ``pids`` fixture checks
afterwards that no engine process (nor a helper in its process group) survived.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from conformance import cli
from conformance.commands.run import default_engine, default_engine_env
from conformance.harness import smoke
from conformance.harness.inprocess import ReferenceStandIn

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fake_engines"

ALL_CHECKS = [
    "launch",
    "hello",
    "protocol",
    "engine",
    "start",
    "deal",
    "refusal",
    "throw",
    "pick",
    "state",
    "legal",
    "turn",
    "call",
    "point range-max-null",
    "point sets-list",
    "point unknown-parameter",
    "point start-order",
    "point array-value",
    "point seq-range",
    "point legal-order",
    "stop",
    "exit",
    "schema",
    "stdout",
]


class InProcessSmokeEngine(ReferenceStandIn):
    """The reference engine in this process, standing in for smoke's engine client: for
    tests of the smoke hand smoke plans and plays under a ruleset, not of the pipe
    (test_reference_engine_passes and the fake engines' tests keep it). It exits, with
    status 0 and nothing left running, once it has answered stop, as the server does."""

    @property
    def returncode(self) -> int | None:
        return 0 if self._session.stopped else None

    def leftover_processes(self) -> list[int]:
        return []


@pytest.fixture
def smoke_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every engine smoke starts is the reference engine in this process."""
    monkeypatch.setattr(smoke, "EngineClient", InProcessSmokeEngine)


def fake(name: str, *args: str) -> str:
    """The command string of a fake engine."""
    return shlex.join([sys.executable, str(FAKES / f"{name}.py"), *args])


def hooked_engine(folder: Path, hook_body: str) -> str:
    """A fake engine whose hook(request, session) has ``hook_body`` (answers via respond)."""
    script = folder / "engine.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(FAKES)!r})\n"
        "from _common import respond, serve\n"
        "def hook(request, session):\n"
        "    response = session.handle(request)\n"
        f"{hook_body}"
        "    return None if session.stopped else respond(response)\n"
        "raise SystemExit(serve(hook))\n"
    )
    return shlex.join([sys.executable, str(script)])


def run_smoke(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = cli.main(["smoke", "--timeout", "5", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def checks(lines: list[str]) -> list[tuple[str, str]]:
    """(status, name) of each check line."""
    found = []
    for line in lines:
        status, _, rest = line.partition(" ")
        if status in ("ok", "FAIL", "skip"):
            found.append((status, rest.strip().split(":")[0]))
    return found


def line_of(lines: list[str], name: str) -> str:
    return next(line for line in lines if line[5:].startswith(f"{name}:"))


def test_check_names_are_the_documented_list() -> None:
    assert list(smoke.CHECK_NAMES) == ALL_CHECKS


@pytest.mark.e2e
def test_reference_engine_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run_smoke(capsys)
    assert (code, err) == (0, "")
    assert lines[0] == f"engine: {default_engine()}"
    assert checks(lines) == [("ok", name) for name in ALL_CHECKS]
    assert lines[1:] == [
        "ok   launch: the engine started",
        "ok   hello: answered hello",
        "ok   protocol: speaks protocol 1.2 (the harness speaks 1.2)",
        "ok   engine: jhyap-reference 0.1.0, written in python",
        "ok   start: accepted a 2-seat dhumbal table",
        "ok   deal: accepted the deal: round_started, dealt",
        "ok   refusal: refused seat 1's call on seat 0's turn: not_your_turn",
        "ok   throw: accepted seat 0's throw of Kh: thrown",
        "ok   pick: accepted seat 0's pick from the deck: picked, out_of_play",
        "ok   state: answered state: phase call_or_throw, seat 1 to act",
        "ok   legal: answered legal for seat 1",
        "ok   turn: accepted seat 1's turn: a throw of Kc, a pick from the deck",
        "ok   call: accepted seat 0's call: called, round_ended",
        "ok   point range-max-null: an option range with max null takes any value from its "
        "min, by its step (protocol.options.range-no-max)",
        "ok   point sets-list: an option whose sets is a list sets each parameter from its map "
        "(protocol.options.sets-list)",
        "ok   point unknown-parameter: a rule parameter the engine does not know is "
        "unsupported_profile (docs/protocol.md, Declining a profile)",
        "ok   point start-order: start checks the profile, the option names, their values, "
        "then the seats (protocol.order-of-checks.start)",
        "ok   point array-value: an array as an option value is bad_request "
        "(protocol.order-of-checks.arguments)",
        "ok   point seq-range: a seq outside 0 to 2^53 - 1 is bad_request with seq null "
        "(protocol.seq.null)",
        "ok   point legal-order: legal lists throws shorter first, then by their cards' "
        "canonical positions (protocol.legal.order)",
        "ok   stop: answered stop",
        "ok   exit: exited with status 0, no process left",
        "ok   schema: all 31 responses match schema/protocol/",
        "ok   stdout: standard output carried only responses, one per request (31)",
        "smoke: 24 ok, 0 failed, 0 skipped; ready for jhyap run",
    ]


@pytest.mark.parametrize("profile", smoke.PROFILES)
@pytest.mark.usefixtures("smoke_in_process")
def test_the_smoke_hand_plays_under_every_shipped_profile(
    monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    monkeypatch.setattr(smoke, "PROFILES", (profile,))
    result = smoke.smoke(default_engine(), env=default_engine_env())
    assert [(c.name, c.status) for c in result.checks] == [(n, "ok") for n in ALL_CHECKS]
    assert result.checks[4].text == f"accepted a 2-seat {profile} table"


@pytest.mark.e2e
def test_debug_output_on_stdout_is_named(capsys: pytest.CaptureFixture[str], pids: Path) -> None:
    code, lines, _ = run_smoke(capsys, "--engine", fake("debug_line"))
    assert code == 1
    assert line_of(lines, "stdout") == (
        "FAIL stdout: the engine wrote a line that is not a protocol response to stdout: "
        "'DEBUG dealing 52 cards'; write logs to stderr"
    )
    assert line_of(lines, "deal") == "FAIL deal: no usable answer to deal (see the stdout check)"
    assert checks(lines) == [
        *[("ok", n) for n in ALL_CHECKS[:5]],
        ("FAIL", "deal"),
        *[("skip", n) for n in ALL_CHECKS[6:20]],
        ("ok", "stop"),
        ("ok", "exit"),
        ("ok", "schema"),
        ("FAIL", "stdout"),
    ]
    # stop and exit are checked on a fresh engine: two engines ran, none survived.
    assert line_of(lines, "stop") == (
        "ok   stop: answered stop (by a fresh engine: the first could not be used after deal)"
    )
    assert len(list(pids.iterdir())) == 2
    assert lines[-1] == "smoke: 8 ok, 2 failed, 14 skipped; fix the failures before jhyap run"


@pytest.mark.e2e
def test_engine_exiting_during_hello(capsys: pytest.CaptureFixture[str], pids: Path) -> None:
    code, lines, _ = run_smoke(capsys, "--engine", fake("exit_during_hello"))
    assert code == 1
    hello = lines.index(line_of(lines, "hello"))
    assert lines[hello].startswith("FAIL hello: the engine exited with status 1 while answering ")
    assert lines[hello].endswith("; run the command by hand and send it the same line to see why")
    assert lines[hello + 1 : hello + 3] == [
        "       its last standard error lines:",
        "       | fake engine: cannot find my configuration file",
    ]
    assert checks(lines) == [("ok", "launch"), ("FAIL", "hello")] + [
        ("skip", n) for n in ALL_CHECKS[2:]
    ]
    assert line_of(lines, "start") == "skip start: not run: the handshake failed"
    assert lines[-3:] == [
        "engine stderr (last 1 line):",
        "  | fake engine: cannot find my configuration file",
        "smoke: 1 ok, 1 failed, 22 skipped; fix the failures before jhyap run",
    ]


@pytest.mark.e2e
def test_engine_that_cannot_be_started(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run_smoke(capsys, "--engine", "/nonexistent/engine --fast")
    assert (code, err) == (2, "")
    assert lines == [
        "engine: /nonexistent/engine --fast",
        "FAIL launch: engine command not found: /nonexistent/engine (from --engine "
        "'/nonexistent/engine --fast'); check the command: it must start your engine from "
        "this directory",
        "smoke: the engine could not be started",
    ]


@pytest.mark.e2e
def test_responses_that_break_the_schema(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    engine = hooked_engine(
        tmp_path,
        "    if request['cmd'] == 'deal':\n        response['events'][1]['deck_size'] = 'many'\n",
    )
    code, lines, _ = run_smoke(capsys, "--engine", engine)
    assert code == 1
    assert checks(lines) == [("ok", n) for n in ALL_CHECKS[:-2]] + [
        ("FAIL", "schema"),
        ("ok", "stdout"),
    ]
    schema = lines.index(line_of(lines, "schema"))
    assert lines[schema : schema + 2] == [
        "FAIL schema: 3 of 31 responses break schema/protocol/; make them match the JSON "
        "Schemas (docs/schemas.md):",
        "       deal (seq 2): event.schema.json#/$defs/dealt/properties/deck_size/type: 'many' "
        "is not of type 'integer' (at $.events[1].deck_size)",
    ]


@pytest.mark.e2e
def test_hello_without_the_engine_language(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    engine = hooked_engine(
        tmp_path, "    if request['cmd'] == 'hello':\n        del response['engine']['language']\n"
    )
    code, lines, _ = run_smoke(capsys, "--engine", engine)
    assert code == 1
    assert line_of(lines, "engine") == (
        "FAIL engine: hello's engine object lacks language; answer "
        '"engine": {"name": ..., "version": ..., "language": ...} (non-empty strings)'
    )
    # The hello schema requires the language too, so the schema check names it as well.
    assert [n for s, n in checks(lines) if s != "ok"] == ["engine", "schema"]


@pytest.mark.e2e
def test_protocol_major_version_mismatch(capsys: pytest.CaptureFixture[str], pids: Path) -> None:
    code, lines, _ = run_smoke(capsys, "--engine", fake("protocol2", "--refuse"))
    assert code == 1
    assert line_of(lines, "protocol") == (
        "FAIL protocol: the engine does not speak protocol 1.2: this engine speaks protocol "
        "2.0, not 1.2; the harness speaks 1.2 and needs an engine that speaks major version 1"
    )
    assert line_of(lines, "deal") == "skip deal: not run: the handshake failed"
    assert line_of(lines, "exit") == "ok   exit: exited with status 0, no process left"


@pytest.mark.e2e
def test_engine_leaving_a_helper_behind(capsys: pytest.CaptureFixture[str], pids: Path) -> None:
    code, lines, _ = run_smoke(capsys, "--engine", fake("ignore_sigterm"), "--timeout", "1")
    assert code == 1
    assert line_of(lines, "refusal").startswith("FAIL refusal: no response to act (seq 3) within")
    assert line_of(lines, "refusal").endswith(
        "; answer every request with one line on standard output, and flush it"
    )
    exit_line = line_of(lines, "exit")
    assert exit_line.startswith("FAIL exit: the engine exited but left 1 process running (pid ")
    assert exit_line.endswith("); end the processes it started before it exits")


@pytest.mark.e2e
def test_an_engine_of_its_own_rules_gets_a_green_smoke_with_profile(
    capsys: pytest.CaptureFixture[str], pids: Path
) -> None:
    variant = ROOT / "tests" / "data" / "variants" / "jhyap-encyclopedia-halve-at-50.yaml"
    engine = fake("own_rules_only", "jhyap-encyclopedia-halve-at-50")
    # Without --profile it declines every shipped table, and smoke cannot go on.
    code, lines, _ = run_smoke(capsys, "--engine", engine)
    assert code == 1
    assert line_of(lines, "start") == (
        "FAIL start: the engine declined every shipped profile (dhumbal, everestbuzz, dashain: "
        "unsupported_profile: this engine plays jhyap-encyclopedia-halve-at-50); smoke needs "
        "one it plays"
    )
    # Each check once: the protocol points open tables of their own, so they still run.
    assert [name for _, name in checks(lines)] == list(ALL_CHECKS)
    assert lines[-1] == "smoke: 9 ok, 1 failed, 14 skipped; fix the failures before jhyap run"
    code, lines, err = run_smoke(capsys, "--engine", engine, "--profile", str(variant))
    assert (code, err) == (0, "")
    # The protocol points play shipped tables, which this engine declines: not checked.
    assert checks(lines) == [
        ("skip" if name.startswith("point ") and name != "point seq-range" else "ok", name)
        for name in ALL_CHECKS
    ]
    assert line_of(lines, "point sets-list") == (
        "skip point sets-list: the engine declines a jhyap-jacks-zero table with picture_cards "
        "eleven_to_thirteen: unsupported_profile"
    )
    assert lines[1] == (
        "profile: jhyap-encyclopedia-halve-at-50: checked against a variant of "
        "jhyap-encyclopedia (normative parameters overridden: scoring.halve_at_multiples_of), "
        "never conformance to jhyap-encyclopedia itself"
    )
    # A call limit of 5: the hand is played on until a call is allowed.
    assert line_of(lines, "turn") == (
        "ok   turn: accepted seat 1's turn: a throw of Qc Qs, a pick from the deck, "
        "then 2 more turns"
    )
    assert line_of(lines, "call") == "ok   call: accepted seat 0's call: called, round_ended"


@pytest.mark.parametrize(
    "variant", sorted((ROOT / "tests" / "data" / "variants").glob("*.yaml")), ids=lambda p: p.stem
)
@pytest.mark.usefixtures("smoke_in_process")
def test_the_smoke_hand_plays_under_every_variant(variant: Path) -> None:
    from conformance.spec.profiles import load_profile

    document = load_profile(variant)
    result = smoke.smoke(default_engine(), env=default_engine_env(), profile=document)
    assert [(c.name, c.status) for c in result.checks] == [(n, "ok") for n in ALL_CHECKS]


def test_smoke_with_a_profile_that_cannot_be_loaded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("profile_format: 1\nid: bad\nextends: dhumbal\nrules: {hand_size: 0}\n")
    code, lines, err = run_smoke(capsys, "--profile", str(bad))
    assert (code, lines) == (2, [])
    assert len(err.splitlines()) == 1
    assert err.startswith(f"jhyap smoke: the profile cannot be loaded: {bad}:4: rules.hand_size: ")


@pytest.mark.e2e
def test_a_stale_adapter_is_caught_point_by_point(
    capsys: pytest.CaptureFixture[str], pids: Path
) -> None:
    """An adapter written to the previous release's docs plays the smoke hand, yet misses
    every point docs/versions.md lists as changed: smoke names each one."""
    code, lines, _ = run_smoke(capsys, "--engine", fake("stale_adapter"))
    assert code == 1
    failed = [name for status, name in checks(lines) if status == "FAIL"]
    assert failed == [
        "point range-max-null",
        "point sets-list",
        "point unknown-parameter",
        "point start-order",
        "point array-value",
        "point seq-range",
        "point legal-order",
    ]
    assert [name for status, name in checks(lines) if status == "ok"] == [
        name for name in ALL_CHECKS if not name.startswith("point ")
    ]
    assert line_of(lines, "point unknown-parameter") == (
        "FAIL point unknown-parameter: a dhumbal table whose rules hold "
        'call.limit_after_turns, no rule parameter: expected "unsupported_profile", got '
        '"accepted" (docs/protocol.md, Declining a profile)'
    )
    assert line_of(lines, "point seq-range") == (
        'FAIL point seq-range: a line with seq -1: expected {"seq": null, "answer": '
        '"bad_request"}, got {"seq": -1, "answer": "unknown_command"} (protocol.seq.null)'
    )
    # It says it was written for protocol 1.0: one warning line names what it may miss.
    protocol = lines.index(line_of(lines, "protocol"))
    assert lines[protocol] == "ok   protocol: speaks protocol 1.0 (the harness speaks 1.2)"
    assert lines[protocol + 1].startswith(
        "       warning: the engine was written for protocol 1.0, the harness speaks 1.2: "
        "it may miss the deal's layout"
    )
    assert lines[-1] == "smoke: 17 ok, 7 failed, 0 skipped; fix the failures before jhyap run"


@pytest.mark.e2e
def test_a_point_an_engine_cannot_show_is_not_checked(
    capsys: pytest.CaptureFixture[str], pids: Path
) -> None:
    """An engine reporting few state fields and no legal: the points that read them are
    not checked (skip), never passed."""
    code, lines, _ = run_smoke(capsys, "--engine", fake("few_state_fields"))
    assert code == 0
    assert line_of(lines, "point range-max-null") == (
        "skip point range-max-null: the engine does not report state.options"
    )
    assert line_of(lines, "point sets-list") == (
        "skip point sets-list: the engine does not report state.hand_values"
    )
    assert line_of(lines, "schema").startswith("ok   schema: all ")
