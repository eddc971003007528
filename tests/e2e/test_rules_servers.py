"""Rules servers behind jhyap_kit.hooks, as processes: the Java and C++ examples built into a
temporary folder and run against the whole corpus under the profile each declares; a Python
one (tests/kit_engines/hook_server.py, the reference rules) against the reference; and the
kit's handling of its child: no server left behind, a dying server named on one line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conformance.spec.profiles import resolved_profile
from tests.cli_helpers import run_quietly
from tests.conftest import _running, deck_from_hands, made_once

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HOOKS = [sys.executable, "-m", "jhyap_kit.hooks", "--"]
PYTHON_SERVER = [sys.executable, str(ROOT / "tests" / "kit_engines" / "hook_server.py")]


def outcomes(profile: str, engine: list[str] | None) -> dict[str, str]:
    """Each case's outcome under ``profile`` against ``engine``, given after ``--`` as a user
    does, by ``jhyap run`` in this process (the rules server is what a test runs over its
    pipes); None: the reference, in this process too."""
    command = ["run", "--profile", profile, "--jobs", "1", "--json", "-", "-q"]
    if engine is None:
        stdout = run_quietly(command, reference_in_process=True)[1]
    else:
        stdout = run_quietly([*command, "--", *engine])[1]
    report = json.loads(stdout)
    return {c["id"]: c["outcome"] for c in report["results"]}


def built(tmp_path_factory: pytest.TempPathFactory, name: str, command: list[str]) -> Path:
    """The folder ``command`` (its last word the output folder) builds into, once per run."""

    def build(folder: Path) -> None:
        subprocess.run([*command, str(folder)], check=True, cwd=ROOT, timeout=300)

    return made_once(tmp_path_factory, name, build)


@pytest.fixture(scope="session")
def java_server(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("javac or java is not installed: the Java rules server cannot be built")
    source = str(EXAMPLES / "java-rules-server" / "RulesServer.java")
    folder = built(tmp_path_factory, "java-rules-server", ["javac", source, "-d"])
    return ["java", "-cp", str(folder), "RulesServer"]


@pytest.fixture(scope="session")
def cpp_server(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed: the C++ rules server cannot be built")
    source = str(EXAMPLES / "cpp-rules-server" / "rules_server.cpp")
    script = f'mkdir -p "$0" && g++ -std=c++17 -O2 -o "$0/rules-server" {source}'
    folder = built(tmp_path_factory, "cpp-rules-server", ["sh", "-c", script])
    return [str(folder / "rules-server")]


def passes_as_the_reference(profile: str, server: list[str]) -> None:
    found = outcomes(profile, [*HOOKS, *server])
    assert found == outcomes(profile, None)
    assert set(found.values()) == {"passed", "not_applicable"}


def test_the_java_rules_server_passes_the_corpus_under_everestbuzz(java_server: list[str]) -> None:
    passes_as_the_reference("everestbuzz", java_server)


def test_the_cpp_rules_server_passes_the_corpus_under_dhumbal(cpp_server: list[str]) -> None:
    passes_as_the_reference("dhumbal", cpp_server)


def test_a_python_rules_server_of_every_hook_plays_as_the_reference() -> None:
    passes_as_the_reference("dashain", PYTHON_SERVER)  # money, run_ends: every optional hook


class Kit:
    """``python -m jhyap_kit.hooks`` over the Python rules server, spoken to line by line."""

    def __init__(self, *server_args: str) -> None:
        self.process = subprocess.Popen(
            [*HOOKS, *PYTHON_SERVER, *server_args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            start_new_session=True,
        )
        self.seq = 0

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.seq += 1
        self.process.stdin.write(json.dumps({"seq": self.seq, "cmd": cmd, **args}) + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer


def server_pid(pids: Path) -> int:
    (recorded,) = pids.iterdir()
    return int(recorded.read_text())


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_the_server_ends_with_the_kit(pids: Path, signum: int) -> None:
    kit = Kit("--stubborn")  # deaf to SIGTERM and to the end of its input
    assert kit.ask("hello", protocol="1.1")["engine"]["name"] == "hook-object-api"
    child = server_pid(pids)
    os.kill(kit.process.pid, signum)  # the kit alone, not its process group
    kit.process.wait(timeout=10)
    assert gone_within(child, 5)


def test_a_server_that_dies_is_named_on_one_line(pids: Path) -> None:
    kit = Kit("--die-on", "on_throw")
    kit.ask("hello", protocol="1.1")
    assert kit.ask("start", profile=resolved_profile("dhumbal", {}), seats=2)["ok"] is True
    assert kit.ask("deal", deck=deck_from_hands(["Ac As 2c 2d 3c", "Qc Kc Kd Kh Ks"], "5h"))["ok"]
    message = (
        'rules server exited with status 3 when asked on_throw: {"hook":"on_throw","seat":0,'
        '"cards":["Ac"]}'
    )
    reply = kit.ask("act", seat=0, action={"type": "throw", "cards": ["Ac"]})
    assert reply["error"] == {"code": "internal_error", "message": message}
    assert kit.ask("stop")["ok"] is True
    _, stderr = kit.process.communicate(timeout=10)
    assert stderr == f"jhyap_kit.hooks: {message}\n"
    assert kit.process.returncode == 0


def test_a_server_that_cannot_start_is_said_on_one_line() -> None:
    done = subprocess.run(
        [*HOOKS, "/nonexistent/rules-server"], capture_output=True, text=True, timeout=30
    )
    assert (done.returncode, done.stderr) == (
        2,
        "jhyap_kit.hooks: cannot start the rules server '/nonexistent/rules-server': "
        "No such file or directory\n",
    )
