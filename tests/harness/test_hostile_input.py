"""Hostile input (issue 11): deep JSON, huge YAML, FIFOs, deep trees, hostile engines,
signals, terminal escapes and files in the way. Each test reproduces one finding: a clear
error or the documented answer, no hang, no orphan, nothing overwritten."""

from __future__ import annotations

import copy
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance import cli
from conformance.harness.cases import load_selection
from conformance.harness.client import EngineClient, ProtocolViolation
from conformance.harness.sandbox import BASE_VARIABLES
from conformance.reporting.terminal import visible
from conformance.spec import yamlsafe
from jhyap_core.vocabulary import ErrorCode, JhyapError
from reference_engine import DECK, Card, Game, parse_cards
from reference_engine.actions import Call, PickDeck, PickOffer, ThrowCards, Timeout
from reference_engine.server import serve
from tests.cli_helpers import fake, jhyap
from tests.conftest import dealt_game, profile_document

ROOT = Path(__file__).resolve().parents[2]
FAKES = ROOT / "tests" / "fake_engines"
DATA_ARG = os.path.relpath(ROOT / "tests" / "data" / "transcripts", ROOT)
PASSING = "harness-pass-run-ends"


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def served(*lines: bytes) -> list[dict[str, Any]]:
    """The reference server's answers to ``lines``, in one session."""
    out = io.StringIO()
    serve(io.BytesIO(b"".join(line + b"\n" for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


# -- 1. bounded parsing --------------------------------------------------------------


@pytest.mark.e2e
def test_server_answers_deep_json_with_bad_request_and_keeps_serving() -> None:
    deep = b"[" * 1000 + b"]" * 1000
    deep_field = b'{"seq": 3, "cmd": "state", "x": ' + b"[" * 100 + b"]" * 100 + b"}"
    answers = served(deep, deep_field, b'{"seq": 4, "cmd": "hello", "protocol": "1.0"}')
    assert [a["seq"] for a in answers] == [None, None, 4]
    for answer in answers[:2]:
        assert answer["ok"] is False
        assert answer["error"]["code"] == "bad_request"
        assert "nested deeper than 64 levels" in answer["error"]["message"]
    assert answers[2]["ok"] is True


@pytest.mark.e2e
def test_engine_with_deep_hello_is_a_protocol_failure_with_a_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pids: Path
) -> None:
    client = EngineClient(fake("deep_hello"), timeout=5)
    try:
        with pytest.raises(ProtocolViolation, match="nested deeper than 64 levels"):
            client.request("hello", protocol="1.0")
    finally:
        client.close()
    report = tmp_path / "r.json"
    code, _, err = jhyap(
        capsys,
        "run",
        "--engine",
        fake("deep_hello"),
        "--transcripts",
        DATA_ARG,
        "-k",
        PASSING,
        "--json",
        str(report),
    )
    assert code == 2
    assert "internal error" not in err
    assert "the engine is unusable: the handshake failed: response nested deeper than 64" in err
    results = json.loads(report.read_text())["results"]
    assert [(r["id"], r["outcome"]) for r in results] == [(PASSING, "errored")]
    assert "nested deeper than 64 levels" in results[0]["reason"]


def test_yaml_with_too_many_nodes_is_refused_with_one_short_line(tmp_path: Path) -> None:
    items = tmp_path / "items.yaml"
    items.write_text("- 1\n" * 1_300_000)
    with pytest.raises(yamlsafe.YamlProblem) as caught:
        yamlsafe.load(items)
    assert str(caught.value) == f"{items}:200000: more than 200000 YAML nodes in one file"
    keys = tmp_path / "keys.yaml"
    keys.write_text("".join(f"k{i}: {i}\n" for i in range(300_000)))
    with pytest.raises(yamlsafe.YamlProblem) as caught:
        yamlsafe.load(keys)
    assert len(str(caught.value)) < 200
    assert str(caught.value) == f"{keys}:100000: more than 200000 YAML nodes in one file"


def test_validate_refuses_a_huge_list_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = tmp_path / "items.yaml"
    items.write_text("- 1\n" * 1_300_000)
    code, out, _ = jhyap(capsys, "validate", str(items))
    assert code == 1
    assert out.splitlines() == [f"{items}:200000: (file): more than 200000 YAML nodes in one file"]


def test_yaml_nesting_is_bounded_with_a_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text("".join("  " * i + f"k{i}:\n" for i in range(100)) + "  " * 100 + "1\n")
    with pytest.raises(yamlsafe.YamlProblem, match=r"deep\.yaml:\d+: nesting deeper than 64"):
        yamlsafe.load(deep)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000, "nested deeper than 64 levels"),
        ("deep.yaml", "[" * 1000 + "]" * 1000, "nesting deeper than 64 levels"),
        ("deeper.yaml", "[" * 100_000 + "]" * 100_000, "exceeded maximum nesting depth"),
        ("huge.json", "[" + " " * (6 * 1024 * 1024) + "]", "larger than 5242880 bytes"),
    ],
    ids=["deep-json", "deep-yaml", "deeper-yaml", "huge-json"],
)
@pytest.mark.e2e
def test_known_failures_file_is_bounded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: str, message: str
) -> None:
    known = tmp_path / name
    known.write_text(content)
    code, out, err = jhyap(capsys, "run", "--transcripts", DATA_ARG, "--known-failures", str(known))
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"{known}")
    assert message in err


# -- 3. only regular files, no recursion on input depth -------------------------------


def jhyap_process(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``jhyap`` in a child process, so that a hang fails the test instead of stalling it."""
    return subprocess.run(
        [sys.executable, "-m", "conformance", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )


def corpus_with_a_fifo(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    source = ROOT / DATA_ARG / f"{PASSING}.yaml"
    (corpus / source.name).write_text(source.read_text())
    os.mkfifo(corpus / "x.yaml")
    return corpus


@pytest.mark.e2e
def test_fifo_in_transcripts_is_refused_not_read(tmp_path: Path) -> None:
    corpus = corpus_with_a_fifo(tmp_path)
    for command in (["run", "-k", PASSING], ["export", str(tmp_path / "out")]):
        done = jhyap_process(*command, "--transcripts", str(corpus), timeout=30)
        assert done.returncode == 2, done
        assert f"{corpus / 'x.yaml'}:1: (file): not a regular file" in done.stderr
        assert "internal error" not in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.e2e
def test_fifo_passed_to_validate_and_known_failures_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "p.yaml"
    os.mkfifo(fifo)
    code, out, _ = jhyap(capsys, "validate", str(fifo), str(tmp_path))
    assert code == 1
    assert out.splitlines() == [f"{fifo}:1: (file): not a regular file"]
    for name in ("k.yaml", "k.json"):
        os.mkfifo(tmp_path / name)
        code, out, err = jhyap(
            capsys, "run", "--transcripts", DATA_ARG, "--known-failures", str(tmp_path / name)
        )
        assert (code, out) == (2, "")
        assert "not a regular file" in err


def deep_tree(base: Path, levels: int) -> Path:
    """``base/d/d/.../d``, ``levels`` deep."""
    folder = base
    folder.mkdir()
    for _ in range(levels):
        folder = folder / "d"
        folder.mkdir()  # one level at a time: mkdir(parents=True) recurses
    return folder


@pytest.mark.e2e
def test_deep_directory_tree_is_walked_without_recursion(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    leaf = deep_tree(tmp_path / "tree", 1100)
    source = ROOT / DATA_ARG / f"{PASSING}.yaml"
    (leaf / source.name).write_text(source.read_text())
    try:
        code, out, err = jhyap(capsys, "validate", str(tmp_path / "tree"))
        assert (code, err) == (0, "")
        assert out == "OK: 1 file valid\n"
        code, out, err = jhyap(capsys, "run", "--transcripts", str(tmp_path / "tree"))
        assert code == 0, err
        assert "1 passed" in out
    finally:
        # pytest's own clean-up (shutil.rmtree) recurses: take the tree down level by level.
        (leaf / source.name).unlink()
        while leaf != tmp_path:
            leaf.rmdir()
            leaf = leaf.parent


# -- 2. playable profiles, and no change of state on a refusal ------------------------


def dashain_variant(**rules: Any) -> dict[str, Any]:
    document = profile_document("dashain")
    for path, value in rules.items():
        node = document["rules"]
        *parents, last = path.split("__")
        for key in parents:
            node = node[key]
        node[last] = value
    return document


def test_a_profile_without_a_card_to_draw_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    document = dashain_variant(seats={"min": 3, "max": 3}, hand_size=17)
    with pytest.raises(JhyapError) as caught:
        Game(document, 3)
    assert caught.value.code == ErrorCode.INVALID_PROFILE
    assert caught.value.message == (
        "rules.hand_size: 3 seats x 17 cards, the turned-up card and one card to draw "
        "need 53 cards, more than the 52-card deck"
    )
    path = tmp_path / "tight.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    code, out, _ = jhyap(capsys, "validate", str(path))
    assert code == 1
    assert [line.split(": ", 2)[1:] for line in out.splitlines()] == [
        [
            "rules.hand_size",
            "3 seats x 17 cards + the turned-up card + one card to draw = 53, "
            "more than the 52-card deck",
        ]
    ]
    code, out, err = jhyap(capsys, "record", str(path), str(tmp_path / "rec"), "--seats", "3")
    assert (code, out) == (2, "")
    assert "rules.hand_size" in err and "internal error" not in err


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("game_end__out_above", "x", "rules.game_end.out_above: must be an integer, not 'x'"),
        ("game_end__rounds", 2.5, "rules.game_end.rounds: must be an integer, not 2.5"),
        ("hand_size", "5", "rules.hand_size: must be an integer, not '5'"),
        ("hand_size", True, "rules.hand_size: must be an integer, not True"),
        ("call__limit", -1, "rules.call.limit: must be at least 0, not -1"),
        ("call__inclusive", "yes", "rules.call.inclusive: must be true or false, not 'yes'"),
        ("turn_timer", {"seconds": "15"}, "rules.turn_timer.seconds: must be an integer, not '15'"),
        (
            "money",
            {
                "dollars_per_point": "1e999999999",
                "settlement": "largest_debtor_pays_largest_creditor",
            },
            "rules.money.dollars_per_point: must be an amount such as \"0.05\", not '1e999999999'",
        ),
    ],
    ids=[
        "out_above",
        "rounds",
        "hand_size-text",
        "hand_size-bool",
        "limit",
        "bool",
        "timer",
        "money",
    ],
)
def test_rule_parameters_of_the_wrong_type_are_refused_at_start(
    path: str, value: Any, message: str
) -> None:
    document = dashain_variant(**{path: value})
    document["options"] = []  # options would set some of these parameters
    with pytest.raises(JhyapError) as caught:
        Game(document, 3)
    assert (caught.value.code, caught.value.message) == (ErrorCode.INVALID_PROFILE, message)


@pytest.mark.e2e
def test_a_huge_decimal_option_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    huge = "1e999999999"
    message = (
        f"option dollars_per_point: {huge} is not allowed; allowed: 0.01 or more in steps of 0.01"
    )
    with pytest.raises(JhyapError) as caught:
        Game(profile_document("dashain"), 3, {"dollars_per_point": huge})
    assert (caught.value.code, caught.value.message) == (ErrorCode.INVALID_OPTION_VALUE, message)
    [answer] = served(
        json.dumps(
            {
                "seq": 1,
                "cmd": "start",
                "profile": profile_document("dashain"),
                "seats": 3,
                "options": {"dollars_per_point": huge},
            }
        ).encode()
    )
    assert answer["error"] == {"code": "invalid_option_value", "message": message}
    code, out, err = jhyap(capsys, "show", "dashain", "--option", f"dollars_per_point={huge}")
    assert (code, out, err) == (2, "", f"jhyap show: {message}\n")


# Requests a table may get: every kind of action, good and bad, in any phase.
_CARDS = st.sampled_from([str(card) for card in DECK])
_ACTIONS = st.one_of(
    st.just(Call()),
    st.just(Timeout()),
    st.just(PickDeck()),
    st.builds(PickOffer, _CARDS.map(lambda name: parse_cards([name])[0])),
    st.lists(_CARDS, min_size=1, max_size=4).map(lambda n: ThrowCards(tuple(parse_cards(n)))),
)
_REQUESTS = st.one_of(
    st.tuples(st.just("act"), st.integers(-1, 6), _ACTIONS),
    st.tuples(st.just("legal"), st.integers(0, 1000)),
    st.tuples(st.just("legal"), st.integers(0, 1000)),
    st.tuples(st.just("legal"), st.integers(0, 1000)),
    st.tuples(st.just("timeout")),
    st.tuples(st.just("deal"), st.permutations(list(DECK))),
    st.tuples(st.just("reshuffle"), st.booleans()),
    st.tuples(
        st.just("set_option"),
        st.sampled_from(["dollars_per_point", "call_limit", "turn_timer", "first_round_jhyap"]),
        st.one_of(st.integers(-5, 70), st.sampled_from(["0.05", "1e999999999", "x", True, None])),
    ),
    st.tuples(st.just("end_game")),
)


@st.composite
def _tables(draw: st.DrawFn) -> tuple[dict[str, Any], int, dict[str, Any]]:
    """A Dashain variant near the limits of the deck, a seat count it allows or not, and
    option values."""
    seats_max = draw(st.integers(2, 8))
    most = 52 // seats_max  # often the largest hands the deck allows: its edge cases
    document = dashain_variant(
        seats={"min": 2, "max": seats_max},
        hand_size=draw(st.one_of(st.just(most), st.just(most - 1), st.integers(1, most))),
        call__limit=draw(st.integers(0, 60)),
    )
    document["clauses"] = []  # not read by the engine; copied before every request
    out_above = draw(st.one_of(st.none(), st.integers(0, 60), st.just("x")))
    if out_above is not None:
        rules = document["rules"]
        rules["game_end"] = {"kind": "elimination", "rounds": None, "out_above": out_above}
        rules["scoring"].update(kind="penalty", beaten_call="caller_hand_plus_penalty")
        rules["money"] = None
        document["options"] = [o for o in document["options"] if o["name"] != "dollars_per_point"]
    seats = draw(st.one_of(st.just(seats_max), st.integers(2, seats_max + 1)))
    return document, seats, {"turn_timer": draw(st.sampled_from([0, 15]))}


def _prepare(game: Game, request: tuple[Any, ...]) -> Callable[[], object]:
    """The call that sends ``request`` to ``game`` (legal actions chosen from its state)."""
    kind, *args = request
    if kind == "act":
        return lambda: game.act(args[0], args[1])
    if kind in ("legal", "timeout"):
        legal = game.legal_actions()
        seat = game.to_act if game.to_act is not None else 0
        choices: list[Any] = [Timeout()]
        if legal is not None and kind == "legal":
            choices = [Call()] if legal.call else []
            choices += [ThrowCards(cards) for cards in legal.throws]
            choices += [PickDeck()] if legal.pick_deck else []
            choices += [PickOffer(card) for card in legal.pick_offer]
        action = choices[(args[0] if args else 0) % len(choices)] if choices else Call()
        return lambda: game.act(seat, action)
    if kind == "deal":
        return lambda: game.deal(args[0])
    if kind == "reshuffle":
        order = list(game.out_of_play) if args[0] else list(DECK[:3])
        return lambda: game.reshuffle(order)
    if kind == "set_option":
        return lambda: game.set_option(args[0], args[1])
    return game.end_game


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables(), st.permutations(list(DECK)), st.lists(_REQUESTS, max_size=80))
def test_a_refused_or_failed_request_never_changes_the_game(
    table: tuple[dict[str, Any], int, dict[str, Any]],
    first_deal: list[Card],
    requests: list[tuple[Any, ...]],
) -> None:
    document, seats, options = table
    requests = [("deal", first_deal), *requests]
    try:
        game = Game(document, seats, options)
    except JhyapError:
        return  # refused at start: nothing to change
    for request in requests:
        send = _prepare(game, request)
        before = copy.deepcopy(vars(game))
        try:
            send()
        except Exception as exc:  # a refusal, or an internal error
            assert vars(game) == before, (request, exc)
            assert isinstance(exc, JhyapError), f"internal error on {request}: {exc!r}"
        assert _undeclared_containers(game) == []


def _undeclared_containers(game: Game) -> list[str]:
    """The game's attributes a snapshot would not copy rightly: a container the snapshot
    shares although requests edit it, or one of another shape than declared."""
    from jhyap_core import table as game_module

    def flat(value: object) -> bool:
        return isinstance(value, list) and not any(isinstance(v, list | dict | set) for v in value)

    wrong = []
    for name, value in vars(game).items():
        if name in game_module.FLAT_LISTS:
            ok = flat(value)
        elif name in game_module.NESTED_LISTS:
            ok = isinstance(value, list) and all(flat(inner) for inner in value)
        elif name in game_module.DICTS_AND_SETS:
            ok = isinstance(value, dict | set) and not any(
                isinstance(v, list | dict | set)
                for v in (value.values() if isinstance(value, dict) else value)
            )
        else:
            ok = name in game_module.REPLACED_ONLY or not isinstance(value, list | dict | set)
        if not ok:
            wrong.append(name)
    return wrong


def test_the_snapshot_check_sees_an_undeclared_container() -> None:
    game = dealt_game("dhumbal", ["Ac As 2c 2d 3c", "Qc Kc Kd Kh Ks"], turned_up="9h")
    assert _undeclared_containers(game) == []
    game.notes = []  # type: ignore[attr-defined]  # a new attribute nobody declared
    game.hands = [["Ac"], [["nested"]]]  # type: ignore[list-item]  # a shape not declared
    assert _undeclared_containers(game) == ["hands", "notes"]


def test_an_internal_error_mid_request_puts_the_state_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = dealt_game("dhumbal", ["Ac As 2c 2d 3c", "Qc Kc Kd Kh Ks"], turned_up="9h")
    before = copy.deepcopy(vars(game))

    def broken(*args: Any) -> list[int]:
        raise RuntimeError("a bug after the scores changed")

    # The showdown has added the deltas to the scores by the time eliminations are asked.
    monkeypatch.setattr("reference_engine.game.game_end.eliminated_after", broken)
    with pytest.raises(RuntimeError):
        game.act(0, Call())
    assert vars(game) == before
    monkeypatch.undo()
    assert game.act(0, Call())[0] == {"type": "called", "seat": 0, "value": 9}


# -- 4. every process an engine starts is reaped ---------------------------------------


@pytest.mark.parametrize("mode", ["setsid", "daemon", "clean"])
@pytest.mark.e2e
def test_run_reaps_helpers_that_left_the_process_group(
    capsys: pytest.CaptureFixture[str], pids: Path, mode: str
) -> None:
    code, out, err = jhyap(
        capsys, "run", "--engine", fake("escape", mode), "--transcripts", DATA_ARG, "-k", PASSING
    )
    assert code == 0, out + err
    assert len(list(pids.glob("*-helper"))) == 1  # the helper ran; the fixture checks it ended


@pytest.mark.e2e
def test_smoke_reports_a_helper_left_running(
    capsys: pytest.CaptureFixture[str], pids: Path
) -> None:
    code, out, _ = jhyap(capsys, "smoke", "--engine", fake("escape", "daemon"))
    assert code == 1
    [exit_line] = [line for line in out.splitlines() if line.startswith("FAIL exit:")]
    assert "left 1 process running" in exit_line
    assert len(list(pids.glob("*-helper"))) == 1


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
@pytest.mark.e2e
def test_a_signalled_run_ends_its_engines_and_their_helpers(
    pids: Path, signum: signal.Signals
) -> None:
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "--engine",
            fake("escape", "daemon", "hang"),
            "--transcripts",
            DATA_ARG,
            "-k",
            PASSING,
            "--timeout",
            "600",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell's background job ignores SIGINT; Ctrl-C reaches a foreground one.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while len(list(pids.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(list(pids.iterdir())) == 2, "the engine and its helper did not start"
        time.sleep(0.5)  # let the run reach its first act, which the engine never answers
        run.send_signal(signum)
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 128 + signum
    assert "internal error" not in err


# -- 5. engine text reaches the terminal with its control characters made visible ----


@pytest.mark.e2e
def test_terminal_escapes_from_an_engine_are_made_visible(
    capsys: pytest.CaptureFixture[str], pids: Path
) -> None:
    code, out, err = jhyap(
        capsys, "run", "--engine", fake("escapes"), "--transcripts", DATA_ARG, "-k", PASSING
    )
    assert code == 1
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in out + err
    assert "\\x1b]52;c;ZXZpbA==\\x07 wrote the clipboard" in out
    assert "\\x1b[2J\\x1b]0;owned\\x07 cleared the screen\\x9b31m" in out
    code, out, err = jhyap(capsys, "smoke", "--engine", fake("escapes"))
    assert code == 1
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in out + err
    assert "\\x1b]52;c;ZXZpbA==\\x07 wrote the clipboard" in out


def test_visible_keeps_text_and_shows_controls() -> None:
    assert visible("plain text, tab\there, ünïcödé") == "plain text, tab\there, ünïcödé"
    assert (
        visible("a\x1b[2Jb\rc\x00d\x7fe\x9bf\u202eg")
        == "a\\x1b[2Jb\\x0dc\\x00d\\x7fe\\x9bf\\u202eg"
    )


# -- 6. writes: nothing the tool did not write is replaced or deleted ------------------


def export_to(capsys: pytest.CaptureFixture[str], folder: Path, *args: str) -> tuple[int, str]:
    code, _, err = jhyap(capsys, "export", str(folder), "--transcripts", DATA_ARG, *args)
    return code, err


def test_export_leaves_files_it_did_not_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "index.json").write_text("my own index\n")
    code, err = export_to(capsys, folder)
    assert code == 2
    assert err == (
        f"jhyap export: {folder / 'index.json'} was not written by jhyap export; "
        "nothing was written (--force replaces it)\n"
    )
    assert sorted(p.name for p in folder.iterdir()) == ["index.json"]
    (folder / "index.json").unlink()
    (folder / f"{PASSING}.json").write_text("my notes\n")
    code, err = export_to(capsys, folder)
    assert code == 2
    assert err == (
        f"jhyap export: {folder / (PASSING + '.json')} exists and was not written by "
        "jhyap export; nothing was written (--force replaces it)\n"
    )
    assert sorted(p.name for p in folder.iterdir()) == [f"{PASSING}.json"]
    code, err = export_to(capsys, folder, "--force")
    assert (code, err) == (0, "")
    assert json.loads((folder / f"{PASSING}.json").read_text())["id"] == PASSING
    assert export_to(capsys, folder) == (0, "")  # over its own export: no --force needed


def test_export_deletes_only_its_own_stale_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "out"
    assert export_to(capsys, folder) == (0, "")
    index = json.loads((folder / "index.json").read_text())
    (folder / "victim.json").write_text('{"precious": true}\n')
    index["files"].append({"file": "victim.json"})
    (folder / "index.json").write_text(json.dumps(index))
    assert export_to(capsys, folder) == (0, "")
    assert (folder / "victim.json").read_text() == '{"precious": true}\n'
    index["files"].append({"file": ".."})
    (folder / "index.json").write_text(json.dumps(index))
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    code, err = export_to(capsys, folder)
    assert code == 2
    assert err == (
        f"jhyap export: {folder / 'index.json'}: entry '..' is not a file name of this "
        "directory; nothing was written\n"
    )
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


@pytest.mark.e2e
def test_files_written_honour_the_umask(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        assert export_to(capsys, tmp_path / "out") == (0, "")
        code, _, _ = jhyap(
            capsys,
            "run",
            "--transcripts",
            DATA_ARG,
            "-k",
            PASSING,
            "--json",
            str(tmp_path / "r.json"),
            "--junit",
            str(tmp_path / "r.xml"),
        )
        assert code == 0
        assert cli.main(["record", "dhumbal", str(tmp_path / "rec"), "--seats", "2"]) == 0
    finally:
        os.umask(old)
    written = [*(tmp_path / "out").iterdir(), *(tmp_path / "rec").iterdir()]
    written += [tmp_path / "r.json", tmp_path / "r.xml"]
    assert {oct(p.stat().st_mode & 0o777) for p in written} == {oct(0o640)}


def test_record_never_replaces_a_recording_unasked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["record", "dhumbal", str(tmp_path), "--seats", "2"]
    assert cli.main(args) == 0
    path = tmp_path / "regression-dhumbal-2-seats-seed-0.yaml"
    path.write_text(path.read_text() + "# my hand edit\n")
    capsys.readouterr()
    assert cli.main(args) == 2
    assert capsys.readouterr().err == (
        f"jhyap record: {path} exists; not replaced (--force replaces it)\n"
    )
    assert path.read_text().endswith("# my hand edit\n")
    assert cli.main([*args, "--force"]) == 0
    assert not path.read_text().endswith("# my hand edit\n")
    capsys.readouterr()
    assert cli.main(["record", "dhumbal", str(path), "--seats", "2"]) == 2
    assert capsys.readouterr().err == f"jhyap record: {path} is not a directory\n"


@pytest.mark.e2e
def test_a_report_path_that_is_a_symlink_is_not_followed_or_replaced(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    link = tmp_path / "r.json"
    link.symlink_to(target)
    code, _, err = jhyap(
        capsys, "run", "--transcripts", DATA_ARG, "-k", PASSING, "--json", str(link)
    )
    assert code == 2
    # Refused before the run, naming the option.
    assert err.endswith(f"jhyap run: --json: {link} is a symbolic link; not replaced\n")
    assert link.is_symlink() and target.read_text() == "keep me\n"


# -- 7. engines run with limits and a minimal environment -------------------------------


@pytest.mark.parametrize(
    ("what", "option", "expected"),
    [("memory", "--engine-memory", "exited with status 1"), ("cpu", "--engine-cpu", "SIGXCPU")],
)
@pytest.mark.e2e
def test_engine_limits_end_a_hog(
    capsys: pytest.CaptureFixture[str], pids: Path, what: str, option: str, expected: str
) -> None:
    limit = "300" if what == "memory" else "1"
    code, out, err = jhyap(
        capsys,
        "run",
        "--engine",
        fake("hog", what),
        option,
        limit,
        "--transcripts",
        DATA_ARG,
        "-k",
        PASSING,
        "--timeout",
        "60",
    )
    assert code == 1, err
    assert f"CRASHED {PASSING} [dashain]" in out
    assert expected in out
    assert f"(its limits: {option} {limit} {'MB' if what == 'memory' else 's'})" in out


@pytest.mark.e2e
def test_engines_get_a_minimal_environment(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    monkeypatch.setenv("WANTED", "yes")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.delenv("JHYAP_ENGINE_ENV", raising=False)
    dump = tmp_path / "env.json"
    code, _, err = jhyap(
        capsys,
        "run",
        "--engine",
        fake("hog", "env", str(dump)),
        "--engine-env",
        "WANTED",
        # the run's compiled-module folder: without it the engine wrote into the checkout
        "--engine-env",
        "PYTHONPYCACHEPREFIX",
        "--engine-env",
        "EXTRA=1",
        "--engine-env",
        "UNSET_NAME",
        "--transcripts",
        DATA_ARG,
        "-k",
        PASSING,
    )
    assert code == 0, err
    env = json.loads(dump.read_text())
    assert "SECRET_TOKEN" not in env
    assert (env["WANTED"], env["EXTRA"], env["PATH"]) == ("yes", "1", "/usr/bin:/bin")
    assert set(env) <= {
        *BASE_VARIABLES,
        "WANTED",
        "EXTRA",
        "JHYAP_ENGINE_ID",
        "PYTHONPYCACHEPREFIX",
    }
    code, _, err = jhyap(capsys, "run", "--engine-env", "BAD NAME", "-k", PASSING)
    assert (code, err) == (
        2,
        "jhyap run: --engine-env expects NAME or NAME=VALUE, not 'BAD NAME'\n",
    )


@pytest.mark.e2e
def test_smoke_fails_the_hello_check_of_a_deep_hello(
    capsys: pytest.CaptureFixture[str], pids: Path
) -> None:
    code, out, err = jhyap(capsys, "smoke", "--engine", fake("deep_hello"))
    assert code == 1
    assert "internal error" not in out + err
    assert "FAIL hello: no usable answer to hello (see the stdout check)" in out.splitlines()
    [stdout] = [line for line in out.splitlines() if line.startswith("FAIL stdout:")]
    assert stdout.startswith("FAIL stdout: response nested deeper than 64 levels: {")


@pytest.mark.e2e
def test_closing_an_engine_never_closes_a_descriptor_number_twice(
    monkeypatch: pytest.MonkeyPatch, pids: Path
) -> None:
    # Parallel jobs start engines while others close theirs: a number freed by one close
    # is at once another engine's pipe. Play that other job: take the number the moment
    # os.close frees it, and check that the client does not close it a second time (a
    # file object dropped after os.close closes its number again when collected).
    client = EngineClient(fake("passthrough"), timeout=5)
    client.request("hello", protocol="1.0")
    numbers = {
        stream.fileno()
        for stream in (client._proc.stdin, client._proc.stdout, client._proc.stderr)
        if stream is not None
    }
    squatters: list[int] = []
    real_close = os.close
    devnull = os.open(os.devnull, os.O_RDONLY)

    def close_and_squat(fd: int) -> None:
        real_close(fd)
        if fd in numbers:
            squatters.append(os.dup2(devnull, fd))  # the very number just freed

    monkeypatch.setattr(os, "close", close_and_squat)
    try:
        client.close()
    finally:
        monkeypatch.undo()
    still_open = []
    for fd in squatters:
        try:
            os.fstat(fd)
            still_open.append(fd)
            os.close(fd)
        except OSError:
            pass
    os.close(devnull)
    assert still_open == squatters


@pytest.mark.e2e
def test_ctrl_c_prints_what_ran_and_writes_its_reports(tmp_path: Path, pids: Path) -> None:
    report = tmp_path / "r.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "--engine",
            fake("slow"),
            "--jobs",
            "2",
            "--json",
            str(report),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell's background job ignores SIGINT; Ctrl-C reaches a foreground one.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    assert process.stderr.read(3) == "..."  # the progress line: three cases have finished
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    data = json.loads(report.read_text("utf-8"))
    ran = len(data["results"])
    total = len(load_selection().cases)  # a default run: the whole corpus
    assert 3 <= ran < total
    # Marked incomplete, with what was selected (a finished run says complete: true).
    assert (data["complete"], data["summary"]["selected"], data["summary"]["total"]) == (
        False,
        total,
        ran,
    )
    verdict = rf"== {ran} passed \({ran} cases\) in [\d.]+ s; judged [^=]* =="
    assert re.search(verdict, out), out[-500:]
    assert err.splitlines()[-1] == (
        f"jhyap run: interrupted: {ran} of {total} cases ran (the reports hold those)"
    )
