"""Shared fixtures: the shipped profile documents and a table dealt from named hands; the
run's own cache folder; the fast tier's guard against starting processes."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

import hypothesis
import pytest
import yaml
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase

from conformance.fuzz import generate
from conformance.spec import transcript
from jhyap_core.profile import copy_json
from reference_engine import Game, parse_cards

ROOT = Path(__file__).resolve().parent.parent

# Each worker loads the shipped corpus under some seventy rulesets: it keeps what it parsed
# (about four times the corpus's bytes; a command keeps nothing).
transcript.keep_parsed(4 * 1024 * 1024)
# And the fuzz plans it made: dozens of campaigns of one seed remake the same plans.
generate.keep_plans(64)

# Every profile shipped in specs/: tests over "every profile" follow the directory.
PROFILE_IDS = tuple(sorted(path.stem for path in (ROOT / "specs").glob("*.yaml")))


def profile_document(name: str) -> dict[str, Any]:
    """The shipped profile ``name`` as plain data, the caller's own copy to change."""
    data: dict[str, Any] = copy_json(_parsed_profile(name))
    return data


@cache
def _parsed_profile(name: str) -> dict[str, Any]:
    # Parsed once per process: property tests ask for a profile once per example.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(ROOT / "specs" / f"{name}.yaml", encoding="utf-8") as handle:
        data: dict[str, Any] = yaml.load(handle, Loader=loader)
    return data


def deck_from_hands(
    hands: Sequence[str], turned_up: str, starter: int = 0, deck_top: str = ""
) -> list[str]:
    """The 52-card order that deals ``hands`` (space-separated, per seat) from ``starter``."""
    from conformance.spec.decks import expand_deal

    return expand_deal(
        {
            "starter": starter,
            "turned_up": turned_up,
            "hands": {i: h.split() for i, h in enumerate(hands)},
            "deck": deck_top.split(),
        }
    )


def dealt_game(
    name: str,
    hands: Sequence[str],
    turned_up: str = "Kh",
    starter: int = 0,
    deck_top: str = "",
    options: Mapping[str, Any] | None = None,
) -> Game:
    """A table after its first deal. Hands shorter than a full deal are set after dealing
    (for tests of scoring, where only the hands' values matter)."""
    game = Game(profile_document(name), len(hands), options)
    game.starter = starter
    full = all(len(h.split()) == game.rules.deal.hand_size for h in hands)
    if full:
        game.deal(parse_cards(deck_from_hands(hands, turned_up, starter, deck_top)))
    else:
        from reference_engine import DECK

        game.deal(list(DECK))
        game.hands = [parse_cards(h.split()) for h in hands]
    return game


@pytest.fixture(params=PROFILE_IDS)
def profile_id(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def nothing_kept_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each transcript load as in a new process: nothing the process parsed before is kept
    (for tests of the cache on disk)."""
    monkeypatch.setattr(transcript, "_MEMO", transcript._Memo(0))


@pytest.fixture
def plans_made_afresh() -> Iterator[None]:
    """Every fuzz plan made again, as in a new process (for tests that a seed gives the same
    plans: a kept plan would be the same object, whatever the code)."""
    generate.keep_plans(0)
    try:
        yield
    finally:
        generate.keep_plans(64)


# -- engine processes ---------------------------------------------------------------


@pytest.fixture
def reference_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every engine the runner starts is the reference engine in this process: for tests of
    the harness's judgement and reports, not of the pipe (each path keeps tests over a real
    pipe, marked e2e). The answers still go through JSON, as over the pipe."""
    from conformance.harness import runner
    from tests.cli_helpers import InProcessReference

    monkeypatch.setattr(runner, "EngineClient", InProcessReference)


ENGINE_ENV = "JHYAP_ENGINE_ENV"  # conformance/harness/sandbox.py: what an engine is given


def engine_env_names(names: str) -> str:
    """``names`` (of $JHYAP_ENGINE_ENV) with PYTHONPYCACHEPREFIX among them: a Python engine
    keeps its compiled modules where the run does, never in the checkout."""
    listed = names.replace(",", " ").split()
    return " ".join([*listed, *[n for n in ("PYTHONPYCACHEPREFIX",) if n not in listed]])


@pytest.fixture
def fuzz_engines(request: pytest.FixtureRequest) -> Iterator[None]:
    """For a test not marked e2e, every engine a fuzz campaign (or ``jhyap run``) starts
    answers in this process (tests/fuzz/engines.py): for tests of the campaign's judgement,
    not of the pipe. A test marked e2e keeps its engines over real pipes."""
    if request.node.get_closest_marker("e2e") is not None:
        yield
        return
    from tests.fuzz.engines import in_process

    with in_process():
        yield


@pytest.fixture
def pids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory where fake engines record their pids; checked for survivors after."""
    folder = tmp_path / "pids"
    folder.mkdir()
    monkeypatch.setenv("FAKE_ENGINE_PIDS", str(folder))
    # engines get a minimal env
    monkeypatch.setenv(ENGINE_ENV, engine_env_names("FAKE_ENGINE_PIDS"))
    yield folder
    assert_no_survivors(folder)


def _proc_stat(pid: int) -> tuple[str, int] | None:
    """(state, process group) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[2])


def _running(pid: int) -> bool:
    # A zombie has ended; only a parent that never reaps (here PID 1) keeps it listed.
    stat = _proc_stat(pid)
    return stat is not None and stat[0] != "Z"


def assert_no_survivors(folder: Path) -> None:
    recorded = [int(p.read_text()) for p in folder.iterdir()]
    survivors = [pid for pid in recorded if _running(pid)]
    groups = set(recorded)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _proc_stat(int(entry.name))
            if stat and stat[0] != "Z" and stat[1] in groups:
                survivors.append(int(entry.name))
    assert survivors == [], f"engine processes survived: {survivors}"


# -- one browser a test process ---------------------------------------------------------------

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
_PR_SET_CHILD_SUBREAPER = 36  # prctl(2)
_PR_GET_CHILD_SUBREAPER = 37


def browser_tools() -> tuple[str, str] | str:
    """(chromium, chromedriver), or why the browser tests skip."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        return "no chromium or chromedriver (apt-get install chromium chromium-driver)"
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[test]')"
    return chromium, driver


class _Browser:
    """The one browser of this test process, started by the first test that asks for it and
    quit after the last of a run of tests that use it (an open page costs CPU while other
    tests run: 0.1 s a second, found by a page left open for ten seconds)."""

    def __init__(self) -> None:
        self.driver: Any = None
        self.service_pid = 0

    def get(self, tmp_path_factory: pytest.TempPathFactory) -> Any:
        if self.driver is not None:
            return self.driver
        tools = browser_tools()
        if isinstance(tools, str):
            pytest.skip(tools)
        chromium, driver_path = tools
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
        options.add_argument("--window-size=1400,1000")
        driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
        driver.set_page_load_timeout(60)
        self.driver, self.service_pid = driver, driver.service.process.pid
        return driver

    def close(self) -> None:
        if self.driver is not None:
            driver, self.driver = self.driver, None
            _quit_and_reap(driver, self.service_pid)


_BROWSER = _Browser()


@pytest.fixture
def shared_browser(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A headless Chromium driven by selenium, one for every browser test of this process
    (its start costs more than most of the tests): started when a test first asks for it,
    quit (every process of it reaped here, so that its CPU is counted with the run's) when
    the next test does not use it, or at the end. Each test sets what it needs (a width,
    blocked URLs) and puts it back."""
    return _BROWSER.get(tmp_path_factory)


def descendants(root: int) -> list[int]:
    """The processes under ``root`` (children, their children, ...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                text = (entry / "stat").read_text()
                parent = int(text[text.rindex(")") + 2 :].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _quit_and_reap(driver: Any, service_pid: int) -> None:
    """``driver.quit()``, with this process the subreaper of the browser's processes while it
    ends: those that chromedriver leaves behind would go to init, their CPU never counted,
    and some kept running. Each is waited for (killed after ten seconds)."""
    libc = ctypes.CDLL(None, use_errno=True)
    tree = descendants(service_pid)
    # As it was before, after: the harness makes a test process a subreaper for good, to find
    # an engine's helpers (conformance/harness/processes.py), and a browser quit in between
    # turned that off, so those tests later in the same process found none.
    was = ctypes.c_int(0)
    libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        driver.quit()
        began = time.monotonic()
        while tree and time.monotonic() < began + 20:
            for pid in list(tree):
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == pid:
                        tree.remove(pid)
                except ChildProcessError:
                    # Not ours: gone, or ended and left to its own parent (in the tree: its
                    # CPU comes with that parent's); else still running under its parent.
                    stat = _proc_stat(pid)
                    if stat is None or stat[0] == "Z":
                        tree.remove(pid)
            if tree and time.monotonic() > began + 10:
                for pid in tree:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            if tree:
                time.sleep(0.02)
    finally:
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1 if was.value else 0, 0, 0, 0)


# -- made once per run, shared by the xdist workers -------------------------------------------


def made_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """The folder ``name``, filled by ``make(folder)`` once per test run: the xdist workers of
    one run share it (the first to ask makes it, under a lock; the others wait and reuse it).
    When ``make`` fails, the next to ask starts again."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's own folder, above the workers' (popen-gw0, ...)
    folder, done = base / f"once-{name}", base / f"once-{name}.done"
    with open(base / f"once-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


# -- the order the workers get the tests in ---------------------------------------------------

# Files whose tests are handed out first, in this order: xdist deals the tests out in the
# collected order, and long tests dealt last run alone at the end while the other worker waits.
# The longest: whole-corpus runs under every variant ruleset, random play, the mutant games.
LONG_TESTS_FIRST: tuple[str, ...] = (
    "tests/e2e/test_every_ruleset.py",
    "tests/engine/test_random_play_properties.py",
    "tests/engine/test_rule_mutants_killed.py",
)


def pytest_sessionfinish(session: pytest.Session) -> None:
    _BROWSER.close()  # a run stopped early (-x, a keyboard interrupt) quits it too
    _check_checkout_untouched(session)


# -- no test writes into the checkout ----------------------------------------------------------


def checkout_entries(root: Path) -> frozenset[str] | None:
    """What of ``root`` git does not hold as committed: its untracked and ignored files (an
    untracked folder as one entry) and its changed tracked files; None outside a git
    checkout. (Where PYTHONDONTWRITEBYTECODE is unset, the modules pytest imports before the
    run's compiled-module folder is set are compiled beside their sources: before the first
    listing, which therefore holds them.)"""
    listings = (
        ["git", "ls-files", "--others", "--directory", "-z"],
        ["git", "diff", "--name-only", "-z"],
    )
    found: set[str] = set()
    for args in listings:
        try:
            done = subprocess.run(args, cwd=root, capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode != 0:
            return None
        found.update(name.decode() for name in done.stdout.split(b"\0") if name)
    return frozenset(found)


_CHECKOUT_BEFORE = pytest.StashKey[frozenset[str] | None]()
_WRITTEN_INTO_CHECKOUT = pytest.StashKey[list[str]]()


def pytest_sessionstart(session: pytest.Session) -> None:
    """The run's first process notes what the checkout (pytest's root folder) holds. (Not
    told apart by $PYTEST_XDIST_WORKER: a run a test starts in its own process inherits it.)"""
    if not hasattr(session.config, "workerinput"):  # what xdist gives its workers
        session.config.stash[_CHECKOUT_BEFORE] = checkout_entries(session.config.rootpath)


def _check_checkout_untouched(session: pytest.Session) -> None:
    """Fails the run when it left something new in the checkout (a file or folder a test or
    a process it started wrote there), whatever the tests' own outcomes."""
    before = session.config.stash.get(_CHECKOUT_BEFORE, None)
    after = checkout_entries(session.config.rootpath) if before is not None else None
    if before is None or after is None:
        return
    written = sorted(after - before)
    session.config.stash[_WRITTEN_INTO_CHECKOUT] = written
    if written:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    written = config.stash.get(_WRITTEN_INTO_CHECKOUT, [])
    if written:
        terminalreporter.write_line(
            f"the tests wrote into the checkout {config.rootpath} (a test may write only in "
            f"its temporary folders): {', '.join(written)}",
            red=True,
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    files: dict[str, int] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], len(files))

    def rank(item: pytest.Item) -> tuple[int, int, bool]:
        path = item.nodeid.split("::", 1)[0]
        first = LONG_TESTS_FIRST.index(path) if path in LONG_TESTS_FIRST else len(LONG_TESTS_FIRST)
        # a file's browser tests together, after its others: the browser is quit when the
        # next test does not use it, and each start cost more than most of the tests (five
        # starts a run of tests/site/test_docs.py, where its browser tests were in groups)
        return first, files[path], "shared_browser" in getattr(item, "fixturenames", ())

    items.sort(key=rank)  # stable: the collected order within each file's two groups


# -- the run's own cache: the user's jhyap cache is never read or written ---------------------

# Set by the run's first process to the run's private folder; its xdist workers and every
# process the tests start inherit it.
PRIVATE_HOME = "JHYAP_TESTS_PRIVATE_CACHE"


@pytest.hookimpl(trylast=True)  # after the tmp_path plugin's: its factory is needed
def pytest_configure(config: pytest.Config) -> None:
    """Point the jhyap cache (and the XDG cache and the home folder it falls back to) at a
    folder of this run's pytest temporary folder, before anything is collected: collecting
    loads the corpus, and every process a test starts inherits the environment."""
    folder = os.environ.get(PRIVATE_HOME)
    if folder is None or not os.environ.get("PYTEST_XDIST_WORKER"):
        base = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
        folder = str(Path(base) / "private-cache")
        os.environ[PRIVATE_HOME] = folder
    os.environ["JHYAP_CACHE_DIR"] = str(Path(folder) / "jhyap")
    os.environ["XDG_CACHE_HOME"] = folder
    # And HOME: an engine gets a minimal environment (conformance/harness/sandbox.py) that
    # keeps HOME but not the two above, and would find ~/.cache/jhyap.
    home = Path(folder) / "home"
    home.mkdir(parents=True, exist_ok=True)
    os.environ["HOME"] = str(home)
    # Compiled modules (and pytest's rewritten test modules) are kept in pytest's temporary
    # folders too, shared by this process, its workers, every Python a test starts with this
    # environment and the next runs: where PYTHONDONTWRITEBYTECODE is set (it keeps
    # __pycache__ out of the checkout), each of those hundreds of processes compiled every
    # module it imported, from source, each time.
    if not os.environ.get("PYTEST_XDIST_WORKER") or "PYTHONPYCACHEPREFIX" not in os.environ:
        os.environ["PYTHONPYCACHEPREFIX"] = _pycache_folder(config, Path(folder))
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    # And the engines the harness starts, which get a minimal environment: without it each
    # Python engine wrote __pycache__ folders into the checkout.
    os.environ[ENGINE_ENV] = engine_env_names(os.environ.get(ENGINE_ENV, ""))
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    # Hypothesis keeps its examples and caches there too, not in the checkout's .hypothesis/.
    set_hypothesis_home_dir(str(Path(folder) / "hypothesis"))
    hypothesis.settings.register_profile(
        "jhyap-suite",
        database=DirectoryBasedExampleDatabase(str(Path(folder) / "hypothesis" / "examples")),
    )
    hypothesis.settings.load_profile("jhyap-suite")
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        _list_fonts()
    # A test process holds a large heap that lives as long as it does (the corpus parsed
    # under some seventy rulesets, fuzz plans, the loaded profiles): at Python's default
    # thresholds (700, 10, 10) the collector kept walking it, about a tenth of the CPU of
    # the tests that run in process (side by side over the same test files).
    gc.set_threshold(20_000, 20, 20)


def _pycache_folder(config: pytest.Config, run_folder: Path) -> str:
    """Where compiled modules are kept: beside pytest's numbered run folders (a pyc is
    checked against its source's time and size, so the runs of any checkout can share it),
    or in the run's own folder when ``--basetemp`` names where the run may write."""
    if config.option.basetemp:
        return str(run_folder / "pycache")
    base = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    return str(Path(base).parent / "jhyap-tests-pycache")


def _list_fonts() -> None:
    """matplotlib lists the fonts (running fc-list) the first time it finds its cache folder
    empty, as the run's own is: done here once, before any test, and not by the first test that
    draws a figure (a test not marked e2e may start no process)."""
    with contextlib.suppress(ImportError):  # without the [docs] extra nothing draws
        import matplotlib.font_manager  # noqa: F401


# -- the fast tier starts no process ----------------------------------------------------------


class ProcessStarted(BaseException):
    """A test not marked e2e tried to start a process. A BaseException, so that code under
    test that turns a failed start (an OSError) into a verdict cannot swallow it."""


# Every way Python starts a process (asyncio and multiprocessing go through these too).
_STARTERS: tuple[tuple[object, str], ...] = (
    (subprocess.Popen, "__init__"),
    (os, "posix_spawn"),
    (os, "posix_spawnp"),
    (os, "fork"),
    (os, "forkpty"),
    (os, "system"),
    (os, "execv"),
    (os, "execve"),
)


def _no_process_started(item: pytest.Item) -> Generator[None, object, object]:
    """One phase of a test not marked e2e, with every way to start a process refused. The
    phase fails on an attempt even where the code under test caught the refusal."""
    if item.get_closest_marker("e2e") is not None:
        return (yield)
    attempts: list[str] = []

    def refuse(name: str) -> Callable[..., NoReturn]:
        def refused(*args: object, **kwargs: object) -> NoReturn:
            attempts.append(name)
            raise ProcessStarted(f"{item.nodeid} starts a process ({name}): mark it e2e")

        return refused

    with pytest.MonkeyPatch.context() as patch:
        for owner, name in _STARTERS:
            if hasattr(owner, name):
                label = "subprocess.Popen" if owner is subprocess.Popen else f"os.{name}"
                patch.setattr(owner, name, refuse(label))
        result = yield
    if attempts:
        raise ProcessStarted(f"{item.nodeid} starts a process ({attempts[0]}): mark it e2e")
    return result


# Setup, call and teardown (fixtures of every scope included): a forgotten marker fails.
@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _no_process_started(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    return (yield from _no_process_started(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    try:
        return (yield from _no_process_started(item))
    finally:
        # The browser quit after the last of a run of tests that use it.
        # (fixturenames: a pytest.Function's, which every test item here is)
        if nextitem is None or "shared_browser" not in getattr(nextitem, "fixturenames", ()):
            _BROWSER.close()
