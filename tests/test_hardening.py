"""Hostile input (issue 11): deep JSON, huge YAML, FIFOs, deep trees, hostile engines,
signals, terminal escapes and files in the way. Each test reproduces one finding: a clear
error or the documented answer, no hang, no orphan, nothing overwritten."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.harness.client import EngineClient, ProtocolViolation
from conformance.spec import yamlsafe
from reference_engine.server import serve

ROOT = Path(__file__).resolve().parent.parent
FAKES = ROOT / "tests" / "fake_engines"
DATA_ARG = os.path.relpath(ROOT / "tests" / "data" / "transcripts", ROOT)
PASSING = "harness-pass-run-ends"


def fake(name: str, *args: str) -> str:
    """The command string of a fake engine."""
    return shlex.join([sys.executable, str(FAKES / f"{name}.py"), *args])


def jhyap(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def served(*lines: bytes) -> list[dict[str, Any]]:
    """The reference server's answers to ``lines``, in one session."""
    out = io.StringIO()
    serve(io.BytesIO(b"".join(line + b"\n" for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


# -- 1. bounded parsing --------------------------------------------------------------


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


def test_fifo_in_transcripts_is_refused_not_read(tmp_path: Path) -> None:
    corpus = corpus_with_a_fifo(tmp_path)
    for command in (["run", "-k", PASSING], ["export", str(tmp_path / "out")]):
        done = jhyap_process(*command, "--transcripts", str(corpus), timeout=30)
        assert done.returncode == 2, done
        assert f"{corpus / 'x.yaml'}:1: (file): not a regular file" in done.stderr
        assert "internal error" not in done.stderr
    assert not (tmp_path / "out").exists()


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


def test_deep_directory_tree_is_walked_without_recursion(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    leaf = deep_tree(tmp_path / "tree", 1100)
    source = ROOT / DATA_ARG / f"{PASSING}.yaml"
    (leaf / source.name).write_text(source.read_text())
    try:
        code, out, err = jhyap(capsys, "validate", str(tmp_path / "tree"))
        assert (code, err) == (0, "")
        assert out == "OK: 1 files valid\n"
        code, out, err = jhyap(capsys, "run", "--transcripts", str(tmp_path / "tree"))
        assert code == 0, err
        assert "1 passed" in out
    finally:
        # pytest's own clean-up (shutil.rmtree) recurses: take the tree down level by level.
        (leaf / source.name).unlink()
        while leaf != tmp_path:
            leaf.rmdir()
            leaf = leaf.parent
