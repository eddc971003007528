"""Shared fixtures: the shipped profile documents and a table dealt from named hands."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

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
    full = all(len(h.split()) == game.rules.hand_size for h in hands)
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
def pids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory where fake engines record their pids; checked for survivors after."""
    folder = tmp_path / "pids"
    folder.mkdir()
    monkeypatch.setenv("FAKE_ENGINE_PIDS", str(folder))
    monkeypatch.setenv("JHYAP_ENGINE_ENV", "FAKE_ENGINE_PIDS")  # engines get a minimal env
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
    "tests/test_every_ruleset.py",
    "tests/test_properties.py",
    "tests/test_mutants_killed.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return LONG_TESTS_FIRST.index(path) if path in LONG_TESTS_FIRST else len(LONG_TESTS_FIRST)

    items.sort(key=rank)  # stable: the collected order within each rank
