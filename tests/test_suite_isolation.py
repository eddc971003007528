"""The suite keeps to itself: the jhyap cache it uses is in the run's pytest temporary folder
(never the user's), for this process and every process a test starts; and a test not marked e2e
that starts a process fails (tests/conftest.py), and so does a run that leaves anything new in
the checkout; a rule mutant answering in the test's process leaves the reference engine as it
was (tests/cli_helpers.py)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.harness.processes import become_subreaper
from conformance.harness.sandbox import engine_environment
from conformance.spec import filecache
from tests import cli_helpers
from tests.conftest import PRIVATE_HOME, ROOT, _quit_and_reap
from tests.mutants.engine import MUTANTS

pytest_plugins = ["pytester"]


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's own temporary folder (above the xdist workers' own folders)."""
    base = tmp_path_factory.getbasetemp().resolve()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def test_the_cache_the_code_resolves_is_the_runs_own(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = filecache.cache_dir()
    assert folder is not None
    assert folder.resolve() == run_folder(tmp_path_factory) / "private-cache" / "jhyap"
    assert Path(os.environ["XDG_CACHE_HOME"]).resolve() == folder.resolve().parent
    assert os.environ[PRIVATE_HOME] == str(folder.parent)


def test_without_jhyap_cache_dir_the_cache_is_still_the_runs_own(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JHYAP_CACHE_DIR")  # the XDG fallback is the run's folder too
    folder = filecache.cache_dir()
    assert folder is not None
    assert folder.resolve() == run_folder(tmp_path_factory) / "private-cache" / "jhyap"
    monkeypatch.delenv("XDG_CACHE_HOME")  # and so is the home folder's
    folder = filecache.cache_dir()
    assert folder is not None
    home = run_folder(tmp_path_factory) / "private-cache" / "home"
    assert folder.resolve() == home / ".cache" / "jhyap"


@pytest.mark.e2e
def test_an_engine_with_its_minimal_environment_resolves_a_cache_of_the_run() -> None:
    code = "from conformance.spec.filecache import cache_dir; print(cache_dir())"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        env={**engine_environment(), "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout == f"{Path(os.environ['HOME']) / '.cache' / 'jhyap'}\n"
    assert Path(os.environ["HOME"]).resolve().parent == Path(os.environ[PRIVATE_HOME]).resolve()


@pytest.mark.e2e
def test_a_process_a_test_starts_resolves_the_same_cache() -> None:
    code = "from conformance.spec.filecache import cache_dir; print(cache_dir())"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout == f"{filecache.cache_dir()}\n"


GUARDED = """
import subprocess

import pytest


def test_unmarked_starts_a_process():
    subprocess.run(["true"])


def test_unmarked_hides_the_refusal():
    try:
        subprocess.run(["true"])
    except BaseException:
        pass


@pytest.mark.e2e
def test_marked_starts_a_process():
    assert subprocess.run(["true"]).returncode == 0
"""


# The suite's own guard, with the marker registered as pyproject.toml does.
GUARD = """
from tests.conftest import pytest_runtest_call, pytest_runtest_setup, pytest_runtest_teardown


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: starts a process")
"""


# A run in a checkout of its own, with the suite's guard: one test writes beside its
# temporary folder, into the checkout.
WRITER = """
from pathlib import Path


def test_writes_into_the_checkout(request):
    (request.config.rootpath / "found").mkdir()
    (request.config.rootpath / "found" / "finding.yaml").write_text("x")
    (request.config.rootpath / "kept.txt").write_text("changed")


def test_writes_in_its_own_folder(tmp_path):
    (tmp_path / "finding.yaml").write_text("x")
"""

CHECKOUT_GUARD = """
from tests.conftest import pytest_sessionfinish, pytest_sessionstart, pytest_terminal_summary
"""


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


@pytest.mark.e2e  # git
def test_a_run_that_writes_into_the_checkout_fails(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CHECKOUT_GUARD)
    pytester.makepyfile(test_writer=WRITER)
    pytester.makefile(".txt", kept="as committed")
    pytester.makefile(".yaml", untracked_before="x")  # there before the run: not the run's
    _git(pytester.path, "init", "-q")
    _git(pytester.path, "add", "kept.txt", "conftest.py", "test_writer.py")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"the tests wrote into the checkout {pytester.path} (a test may write only in its "
            "temporary folders): found/, kept.txt"
        ]
    )


@pytest.mark.e2e  # git
def test_a_run_that_writes_only_in_its_folders_passes(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CHECKOUT_GUARD)
    pytester.makepyfile(test_writer=WRITER.replace("def test_writes_into", "def _writes_into"))
    _git(pytester.path, "init", "-q")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert "wrote into the checkout" not in result.stdout.str()


@pytest.mark.e2e  # its own marked test starts a process, in this process
def test_a_test_not_marked_e2e_fails_when_it_starts_a_process(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(GUARD)
    pytester.makepyfile(test_guarded=GUARDED)
    result = pytester.runpytest("-p", "no:cacheprovider", "--strict-markers")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*test_unmarked_starts_a_process starts a process (subprocess.Popen): mark it e2e",
            "*test_unmarked_hides_the_refusal starts a process (subprocess.Popen): mark it e2e",
        ]
    )


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_mutant_in_process_leaves_the_reference_as_it_was(name: str) -> None:
    """Finding a rule mutant's patches puts every one back; its engine applies them only while
    it answers (tests/cli_helpers.py), the reference in between is the true one."""
    before = [dict(vars(owner)) for owner in cli_helpers._patchable()]
    patched, original = cli_helpers.mutant_patches(name)
    assert [dict(vars(owner)) for owner in cli_helpers._patchable()] == before
    assert [(o, a) for o, a, _ in patched] == [(o, a) for o, a, _ in original]
    assert all(new is not old for (_, _, new), (_, _, old) in zip(patched, original, strict=True))
    if cli_helpers.runs_in_process(name):
        engine = cli_helpers.mutant_client(name)()
        assert engine.send({"cmd": "hello", "protocol": "1.1"})["ok"] is True
        assert [dict(vars(owner)) for owner in cli_helpers._patchable()] == before
    else:
        assert name in {"non_json_seq_zero", "unknown_command_bad_request", "string_seq_echoed"}


def test_a_browser_quit_leaves_the_process_a_subreaper_as_it_was() -> None:
    """The harness makes a test process the subreaper of its engines' helpers for good; the
    browser's quit (which adopts the browser's leftovers while it ends) once turned that off,
    and the helper tests later in that process then found no helper."""

    class Driver:
        def quit(self) -> None:
            pass

    assert become_subreaper()
    _quit_and_reap(Driver(), 4_194_304 + 1)  # above any pid_max: a driver with no processes
    state = ctypes.c_int(0)
    ctypes.CDLL(None, use_errno=True).prctl(37, ctypes.byref(state), 0, 0, 0)  # GET_SUBREAPER
    assert state.value == 1
