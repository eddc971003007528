"""The hostile-input probes of issues 24 and 41, run as a stranger runs jhyap: each a
command in a subprocess, judged on what it must never do. Prints one line per probe that
misbehaved and the totals: probes, files lost, orphans, hangs, wrong verdicts, internal
errors (each must be 0), and the time from each signal to the exit of a stopped run.

    python bench/probes.py [--jobs N] [-k WORD]   # minutes; -k runs the probes naming WORD

A probe's command runs with ``FAKE_ENGINE_PIDS`` set: every fake engine and helper
records its pid, and any still running afterwards is an orphan (then killed). The
process tree under the command is watched too (pool and Dask workers, the resource
tracker): a process of it still running after the command ends is an orphan.

The classes (issue 41): every command's input files opened the checked way (a named
pipe, /dev/zero, a folder, a file over the size limit, deep nesting, bytes that are not
UTF-8, for every command that takes a file, as itself, in a folder it reads and through
``extends:``); numbers read from files checked for what they can mean (shards' tallies:
negative, NaN, infinite, huge, fractional, the wrong type); report files strict JSON
(read with a parser refusing NaN and Infinity); engine text that would forge the
harness's lines (newlines, carriage returns, ANSI and OSC codes, U+2028, U+0085, bidi
controls) in the engine's name, a refusal, its standard error and an event; every
command's failure one line with its exit status; signals (SIGINT to the process group,
SIGTERM, SIGHUP, SIGKILL) to ``run``, to the pytest plugin, to ``simulate --jobs 2``, to
``simulate --cluster`` and to the Dask fuzz campaign, and a Dask worker killed mid-run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAKES = ROOT / "tests" / "fake_engines"
DATA = str(ROOT / "tests" / "data" / "transcripts")
PASSING = "harness-pass-run-ends"
LONG = "a" * 5000
PRECIOUS = "my notes: not a report\n"
LIMIT = 120.0  # seconds a probe may take before it counts as a hang


def fake(name: str, *args: str) -> str:
    return shlex.join([sys.executable, str(FAKES / f"{name}.py"), *args])


@dataclass
class Probe:
    """A command, the exit statuses it may end with, and what its output must (not) hold."""

    name: str
    argv: list[str]
    statuses: tuple[int, ...] = (2,)
    must: tuple[str, ...] = ()
    must_not: tuple[str, ...] = ()
    guarded: tuple[str, ...] = ()  # files (relative to the probe folder) that must survive
    within: float | None = None  # seconds the command must finish in
    check: Callable[[str], str | None] | None = None  # another finding on the output
    action: Callable[[subprocess.Popen[str], Path], None] | None = None  # e.g. a signal
    setup: Callable[[Path], None] | None = None
    files: Callable[[Path], str | None] | None = None  # a finding on the files it wrote
    alone: bool = False  # timed or heavy: run when no other probe runs
    timed: str | None = None  # the signal timing this probe measures, for the summary


@dataclass
class Totals:
    probes: int = 0
    orphans: int = 0
    internal_errors: int = 0
    files_lost: int = 0
    hangs: int = 0
    wrong_verdicts: int = 0
    findings: list[str] = field(default_factory=list)
    timings: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _running(pid: int) -> bool:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rindex(")") + 2 :].split()[0] != "Z"


def _orphans(pids: Path) -> list[int]:
    deadline = time.monotonic() + 3  # helpers may take a moment to act on SIGTERM
    while True:
        alive = [int(p.read_text()) for p in pids.iterdir() if _running(int(p.read_text()))]
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for pid in alive:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return alive


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError):
                found += map(int, Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    return found


def descendants(pid: int) -> set[int]:
    """Every process under ``pid`` now (read from /proc)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in _children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


class TreeWatch(threading.Thread):
    """Notes every process under a command while it runs: those still running after it
    ended are orphans."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.seen, self.done = pid, set[int](), threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.2):
            self.seen |= descendants(self.pid)

    def left(self) -> list[int]:
        self.done.set()
        self.join()
        deadline = time.monotonic() + 5  # a worker may take a moment to see its leader gone
        while True:
            alive = [p for p in self.seen if _running(p)]
            if not alive or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return alive


def run_probe(probe: Probe, totals: Totals) -> None:
    with totals.lock:
        totals.probes += 1
    with tempfile.TemporaryDirectory(prefix="jhyap-probe-") as folder:
        here = Path(folder)
        pids = here / "pids"
        pids.mkdir()
        for name in probe.guarded:
            (here / name).write_text(PRECIOUS)
        if probe.setup is not None:
            probe.setup(here)
        env = {
            **os.environ,
            "FAKE_ENGINE_PIDS": str(pids),
            "JHYAP_ENGINE_ENV": "FAKE_ENGINE_PIDS",
            "PYTHONPATH": str(ROOT),
            "NO_COLOR": "",
            "FORCE_COLOR": "1",
        }
        argv = [a.replace("{here}", folder) for a in probe.argv]
        began = time.monotonic()
        process = subprocess.Popen(
            argv,
            cwd=here,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            start_new_session=True,  # its own group: Ctrl-C is sent to that group
            preexec_fn=_default_interrupt,
        )
        watch = TreeWatch(process.pid)
        watch.start()
        signalled: list[float] = []
        if probe.action is not None:
            probe.action(process, pids)
            signalled.append(time.monotonic())
        hung = False
        try:
            out, _ = process.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            out, _ = process.communicate()
            hung = True
        ended = time.monotonic()
        took = ended - (signalled[0] if signalled and probe.timed else began)
        orphans = sorted(set(_orphans(pids)) | set(watch.left()))
        with totals.lock:
            _judge(probe, totals, here, process, out, took, hung, orphans)


def _default_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a shell starts a foreground command


def _judge(
    probe: Probe,
    totals: Totals,
    here: Path,
    process: subprocess.Popen[str],
    out: str,
    took: float,
    hung: bool,
    orphans: list[int],
) -> None:
    """Count what ``probe``'s run did wrong (with ``totals.lock`` held)."""
    if hung:
        totals.hangs += 1
        totals.findings.append(f"HANG {probe.name}")
    if probe.timed:
        totals.timings.append(f"{probe.timed}: exit {process.returncode} {took:.2f} s after")
    found: list[str] = []
    # jhyap's own words, not a fake engine's last words it quotes ("    | ...").
    own = [line for line in out.splitlines() if not line.lstrip().startswith("|")]
    if any(line.startswith("Traceback") or "internal error" in line for line in own):
        totals.internal_errors += 1
        found.append("internal error")
    lost = [n for n in probe.guarded if (here / n).read_text() != PRECIOUS]
    if lost:
        totals.files_lost += len(lost)
        found.append(f"lost {', '.join(lost)}")
    if orphans:
        totals.orphans += len(orphans)
        found.append(f"{len(orphans)} orphan(s)")
    verdict = []
    if process.returncode not in probe.statuses:
        verdict.append(f"exit {process.returncode}, expected {probe.statuses}")
    verdict += [f"missing {m!r}" for m in probe.must if m not in out]
    verdict += [f"shows {m!r}" for m in probe.must_not if m in out]
    if probe.within is not None and took > probe.within:
        verdict.append(f"took {took:.1f} s (at most {probe.within:g})")
    if probe.check is not None:
        verdict += filter(None, [probe.check(out)])
    if probe.files is not None:
        verdict += filter(None, [probe.files(here)])
    if verdict:
        totals.wrong_verdicts += 1
        found += verdict
    if found:
        totals.findings.append(f"{probe.name}: {'; '.join(found)}  [{out[-300:]!r}]")


def jhyap(*args: str) -> list[str]:
    return [sys.executable, "-m", "conformance", *args]


def run_args(engine: str, *more: str) -> list[str]:
    return jhyap("run", "--engine", engine, "--transcripts", DATA, "-k", PASSING, *more)


def _kill_once_started(
    count: int, signum: int, settle: float = 1.0, group: bool = False
) -> Callable[..., None]:
    def act(process: subprocess.Popen[str], pids: Path) -> None:
        deadline = time.monotonic() + 60
        while len(list(pids.iterdir())) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(settle)
        if group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)

    return act


def _no_forged_line(out: str) -> str | None:
    forged = [line for line in out.splitlines() if line.startswith(("==", "\x1b[32m=="))]
    forged = [line for line in forged if "145 passed" in line]
    return f"forged line {forged[0]!r}" if forged else None


def _few_lines(limit: int) -> Callable[[str], str | None]:
    def check(out: str) -> str | None:
        count = len(out.splitlines())
        return f"{count} lines of output (at most {limit})" if count > limit else None

    return check


def _short_lines(limit: int) -> Callable[[str], str | None]:
    def check(out: str) -> str | None:
        longest = max((len(line) for line in out.splitlines()), default=0)
        return f"a line of {longest} characters" if longest > limit else None

    return check


def _big_known_failures(here: Path) -> None:
    entries = [{"id": f"no-such-{i}", "reason": "gone"} for i in range(120_001)]
    (here / "big.json").write_text(json.dumps(entries))


def _yml_corpus(here: Path) -> None:
    (here / "tr").mkdir()
    text = (Path(DATA) / f"{PASSING}.yaml").read_text()
    (here / "tr" / f"{PASSING}.yml").write_text(text)


def _known(here: Path) -> None:
    (here / "known.yaml").write_text(f"- id: {PASSING}\n  reason: a known wrong answer\n")
    (here / "dup.json").write_text('[{"id": "x", "id": "y", "reason": "r"}]\n')
    (here / "long.yaml").write_text(f"- id: a{'9' * 5000}\n  reason: gone\n")


PYTEST = [sys.executable, "-m", "pytest", "-c", "{here}/pytest.ini", "-p", "no:cacheprovider"]
PYTEST += ["-q", "--jhyap-engine"]


def _pytest_ini(here: Path) -> None:
    (here / "pytest.ini").write_text("[pytest]\n")  # not this project's settings (xdist)


def probes() -> list[Probe]:
    found: list[Probe] = []
    # -- files lost: every file any command writes ---------------------------------------
    found.append(
        Probe(
            "run --json X --junit X",
            run_args(fake("passthrough"), "--json", "{here}/x", "--junit", "{here}/x"),
            guarded=("x",),
        )
    )
    for command, option in [
        (run_args(fake("passthrough")), "--json"),
        (run_args(fake("passthrough")), "--junit"),
        (jhyap("coverage", "--uncovered"), "--json"),
        (jhyap("coverage", "--profile", "dashain"), "--json"),
        (jhyap("simulate", "dashain", "--seats", "2", "--games", "2"), "--json"),
        (jhyap("fuzz", "--profile", "dashain", "--games", "1", "--seats", "2"), "--json"),
    ]:
        found.append(
            Probe(
                f"{command[3]} {option} over a file that is no report",
                [*command, option, "{here}/mine.txt"],
                guarded=("mine.txt",),
            )
        )
    found.append(
        Probe("export over a file", jhyap("export", "{here}/mine.txt"), guarded=("mine.txt",))
    )
    found.append(
        Probe(
            "record over a file",
            jhyap("record", "dashain", "{here}/mine.txt", "--seats", "2"),
            guarded=("mine.txt",),
        )
    )
    # -- orphans: every way a child can outlive its parent -------------------------------
    for mode in ("setsid", "daemon", "clean"):
        found.append(Probe(f"helper {mode}", run_args(fake("escape", mode)), statuses=(0,)))
    for mode in ("other", "empty"):
        found.append(
            Probe(f"helper with id {mode}", run_args(fake("escape_renamed", mode)), statuses=(0,))
        )
        found.append(
            Probe(
                f"smoke sees a helper with id {mode}",
                jhyap("smoke", "--engine", fake("escape_renamed", mode)),
                statuses=(1,),
                must=("left 1 process running",),
                must_not=("no process left",),
            )
        )
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        found.append(
            Probe(
                f"run, {signum.name}",
                run_args(fake("escape", "daemon", "hang"), "--timeout", "600"),
                statuses=(128 + signum, 130),
                action=_kill_once_started(2, signum),
            )
        )
    found.append(
        Probe(
            "run, SIGKILL, hung engine",
            run_args(fake("hang"), "--timeout", "600"),
            statuses=(-9,),
            action=_kill_once_started(1, signal.SIGKILL),
        )
    )
    for signum in (signal.SIGTERM, signal.SIGHUP):
        found.append(
            Probe(
                f"pytest --jhyap-engine, {signum.name}",
                [
                    *PYTEST,
                    fake("escape", "daemon", "hang"),
                    "--jhyap-transcripts",
                    DATA,
                    "--jhyap-timeout",
                    "600",
                    "--junitxml",
                    "{here}/junit.xml",
                    "-k",
                    PASSING,
                ],
                statuses=(2,),
                setup=_pytest_ini,
                action=_kill_once_started(2, signum),
            )
        )
    # -- wrong verdicts -------------------------------------------------------------------
    for engine, heading in (("crash_mid_game", "CRASHED"), ("hang", "TIMED OUT")):
        found.append(
            Probe(
                f"known failure does not hide {heading}",
                run_args(fake(engine), "--known-failures", "{here}/known.yaml", "--timeout", "1"),
                statuses=(1,),
                must=(heading,),
                setup=_known,
            )
        )
    for mode in ("group", "setsid"):
        found.append(
            Probe(
                f"engine exits, a child ({mode}) holds stdout",
                run_args(fake("exit_child_holds_stdout", mode), "--timeout", "60", "-q"),
                statuses=(1,),
                must=("CRASHED",),
                within=20,
            )
        )
    found.append(
        Probe(
            ".yml transcript is run",
            jhyap("run", "--transcripts", "{here}/tr", "-q"),
            statuses=(0,),
            must=("1 passed",),
            setup=_yml_corpus,
        )
    )
    found.append(
        Probe(
            "duplicate keys in known failures",
            run_args(fake("passthrough"), "--known-failures", "{here}/dup.json"),
            must=("dup.json:1: duplicate key 'id'",),
            setup=_known,
        )
    )
    # -- internal errors: every path option and numeric option -------------------------
    long_paths = [
        ["validate", LONG],
        ["show", LONG],
        ["run", "--json", LONG],
        ["run", "--junit", LONG],
        ["run", "--known-failures", LONG],
        ["run", "--transcripts", LONG],
        ["run", "--profile", LONG],
        ["coverage", "--json", LONG],
        ["coverage", "--transcripts", LONG],
        ["coverage", "--profile", LONG],
        ["export", LONG],
        ["export", "{here}/out", "--transcripts", LONG],
        ["record", LONG, "{here}/out", "--seats", "2"],
        ["record", "dashain", LONG, "--seats", "2"],
        ["simulate", LONG],
        ["simulate", "dashain", "--json", LONG],
        ["fuzz", "--out", LONG],
        ["fuzz", "--json", LONG],
        ["fuzz", "--known-divergences", LONG],
        ["fuzz", "--profile", LONG],
        ["smoke", "--profile", LONG],
    ]
    for words in long_paths:
        found.append(Probe(f"5000-character path: {words[0]} {words[1][:20]}", jhyap(*words)))
    numbers = [
        ["run", "--engine-memory", "1e20"],
        ["run", "--engine-cpu", "inf"],
        ["run", "--timeout", "inf"],
        ["run", "--timeout", "nan"],
        ["run", "--timeout", "1e300"],
        ["run", "--jobs", "1e9"],
        ["smoke", "--timeout", "-1"],
        ["record", "dashain", "{here}/out", "--seats", "2", "--max-rounds", "-1"],
        ["record", "dashain", "{here}/out", "--seats", "1e9"],
        ["simulate", "dashain", "--games", "1e12"],
        ["simulate", "dashain", "--seats", "-2"],
        ["fuzz", "--time", "nan"],
        ["fuzz", "--games", "0"],
        ["fuzz", "--jobs", "0"],
        ["fuzz", "--seed", "9" * 5000],
    ]
    for words in numbers:
        found.append(
            Probe(
                f"number: {' '.join(words[:1] + words[-2:])[:60]}",
                jhyap(*words),
                check=_short_lines(300),
            )
        )
    # -- spoofing and noise ---------------------------------------------------------------
    for quiet in ((), ("-q",)):
        found.append(
            Probe(
                f"forged summary line {' '.join(quiet)}",
                run_args(fake("forged_summary"), *quiet),
                statuses=(1,),
                check=_no_forged_line,
            )
        )
    found.append(
        Probe(
            "120,001 warnings",
            run_args(fake("passthrough"), "--known-failures", "{here}/big.json", "-q"),
            statuses=(0,),
            setup=_big_known_failures,
            check=_few_lines(40),
        )
    )
    found.append(
        Probe(
            "failure block shows only sent requests",
            run_args(fake("crash_on_state", "2")),
            statuses=(1,),
            must=('  request: {"seq":7,"cmd":"state"}',),
            must_not=('"cmd":"act"',),
        )
    )
    found.append(
        Probe(
            "5,000-digit value echoed",
            run_args(fake("passthrough"), "--known-failures", "{here}/long.yaml"),
            statuses=(0,),
            setup=_known,
            check=_short_lines(300),
        )
    )
    return found


# -- issue 41: the classes behind its reproductions ------------------------------------

HUGE_BYTES = 100 * 1024 * 1024  # a sparse file over every input limit (64 MiB the largest)


def _hostile(kind: str) -> Callable[[Path], None]:
    """Make ``x.yaml`` and ``x.json`` (and ``dir/x.yaml``, a corpus or a folder of
    profiles holding one) of ``kind``, and ``mine.yaml``, a profile extending ``./x.yaml``."""

    def make(path: Path) -> None:
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "zero":
            path.symlink_to("/dev/zero")
        elif kind == "folder":
            path.mkdir()
        elif kind == "huge":
            with open(path, "wb") as handle:
                handle.truncate(HUGE_BYTES)
        elif kind == "deep":
            path.write_text("[" * 200_000 + "]" * 200_000)
        elif kind == "deepmap":
            path.write_text("".join(" " * i + "a:\n" for i in range(3000)))
        elif kind == "binary":
            path.write_bytes(b"\xff\xfe\x00\x80 not utf-8 \xc3\x28\n" * 100)

    def setup(here: Path) -> None:
        (here / "dir").mkdir()
        for name in ("x.yaml", "x.json", "dir/x.yaml"):
            make(here / name)
        (here / "mine.yaml").write_text("profile_format: 1\nid: mine\nextends: ./x.yaml\n")

    return setup


HOSTILE_KINDS = ("fifo", "zero", "folder", "huge", "deep", "deepmap", "binary")

# Every command that takes an input file, with the file's place ("X" the file, "D" a
# folder holding it, "E" a profile extending it) and the exit status its refusal has.
INPUT_COMMANDS: list[tuple[list[str], tuple[int, ...]]] = [
    (["validate", "X"], (1,)),
    (["validate", "D"], (1,)),
    (["validate", "E"], (1,)),
    (["show", "X"], (2,)),
    (["show", "E"], (2,)),
    (["simulate", "X", "--games", "1"], (2,)),
    (["simulate", "E", "--games", "1"], (2,)),
    (["record", "X", "{here}/out", "--seats", "2"], (2,)),
    (["coverage", "--profile", "X"], (2,)),
    (["coverage", "--transcripts", "D"], (2,)),
    (["smoke", "--profile", "X"], (2,)),
    (["export", "{here}/out", "--profile", "X"], (2,)),
    (["export", "{here}/out", "--transcripts", "D"], (2,)),
    (["fuzz", "--profile", "X", "--games", "1"], (2,)),
    (["fuzz", "--known-divergences", "J", "--games", "1"], (2,)),
    (["run", "--profile", "X"], (2,)),
    (["run", "--profile", "E"], (2,)),
    (["run", "--known-failures", "J", "-k", PASSING, "--transcripts", DATA], (2,)),
    (["run", "--transcripts", "D"], (2,)),
    (["merge", "J"], (2,)),
]


def _place(word: str, kind: str) -> str:
    if kind == "zero" and word in ("X", "J"):
        return "/dev/zero"  # the device itself, not only a link to it
    return {"X": "{here}/x.yaml", "J": "{here}/x.json", "D": "{here}/dir"}.get(
        word, "{here}/mine.yaml" if word == "E" else word
    )


def input_probes() -> list[Probe]:
    found = []
    for kind in HOSTILE_KINDS:
        for words, statuses in INPUT_COMMANDS:
            argv = jhyap(*(_place(w, kind) for w in words))
            in_folder = "D" in words
            check: Callable[[str], str | None] | None
            if in_folder and kind == "folder":
                # A folder named x.yaml in a corpus is a folder: nothing to refuse.
                statuses, check = (0, 1, 2), None
            else:
                # A problem in a folder's file: its line, then the count of problems.
                check = _one_line_failure(words[0], statuses, 2 if in_folder else 1)
            found.append(
                Probe(
                    f"input {kind}: {' '.join(words[:3])}",
                    argv,
                    statuses=statuses,
                    within=60,
                    setup=_hostile(kind),
                    check=check,
                )
            )
    return found


def _one_line_failure(
    command: str, statuses: tuple[int, ...], most: int = 1
) -> Callable[[str], str | None]:
    """A refused input is one line (``most``: a line per problem, and a count of them)."""

    def check(out: str) -> str | None:
        lines = [line for line in out.splitlines() if line.strip()]
        if not 1 <= len(lines) <= most:
            return f"{len(lines)} lines, not {'1' if most == 1 else f'1 to {most}'}"
        if len(lines[0]) > 400:
            return f"a line of {len(lines[0])} characters"
        return None

    return check


def _strict_json(name: str) -> Callable[[Path], str | None]:
    """The report ``name`` parses with a parser that refuses NaN and Infinity."""

    def refuse(text: str) -> object:
        raise ValueError(f"not JSON: {text}")

    def check(here: Path) -> str | None:
        try:
            json.loads((here / name).read_text(), parse_constant=refuse)
        except FileNotFoundError:
            return f"{name} not written"
        except ValueError as exc:
            return f"{name}: {exc}"
        return None

    return check


SHARD_CACHE: dict[str, str] = {}


def _shard_text(shard: str) -> str:
    """A real shard file of a host-ended table (a figure without observations), made once."""
    if shard not in SHARD_CACHE:
        with tempfile.TemporaryDirectory(prefix="jhyap-probe-shard-") as folder:
            out = Path(folder) / "s.json"
            command = jhyap("simulate", "dashain", "--games", "4", "--seats", "2")
            command += ["--shard", shard, "--json", str(out)]
            subprocess.run(
                command,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                timeout=LIMIT,
                stdout=subprocess.DEVNULL,
                check=True,
            )
            SHARD_CACHE[shard] = out.read_text()
    return SHARD_CACHE[shard]


def _tampered(path: tuple[str, ...], value: object) -> Callable[[Path], None]:
    def setup(here: Path) -> None:
        first = json.loads(_shard_text("1/2"))
        node = first
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        text = json.dumps(first)
        for word, raw in (('"@NaN"', "NaN"), ('"@Inf"', "Infinity"), ('"@-Inf"', "-Infinity")):
            text = text.replace(word, raw)
        text = text.replace('"@huge"', "1" + "0" * 400).replace('"@e400"', "1e400")
        (here / "s1.json").write_text(text)
        (here / "s2.json").write_text(_shard_text("2/2"))

    return setup


def number_probes() -> list[Probe]:
    found = []
    values: list[object] = [-1, "@NaN", "@Inf", "@-Inf", "@huge", "@e400", 1.5, "1", None, True]
    fields = [
        ("games",),
        ("tally", "games"),
        ("tally", "hands"),
        ("tally", "won_calls"),
        ("tally", "unfinished_games"),
        ("tally", "moments", "turns_per_hand", "n"),
        ("total_games",),
        ("seats",),
    ]
    for path in fields:
        for value in values:
            found.append(
                Probe(
                    f"shard number {'/'.join(path)} = {value}",
                    jhyap("merge", "{here}/s1.json", "{here}/s2.json", "--json", "{here}/m.json"),
                    setup=_tampered(path, value),
                    within=60,
                    check=_one_line_failure("merge", (2,)),
                )
            )
    sums = ["-5", "1e999999999", "1/0", "NaN", "inf", "9" * 5000, "0x10", " 1", "1_000"]
    for where in ("sum", "sum_squares"):
        for text in sums:
            found.append(
                Probe(
                    f"shard {where} = {text[:12]!r}",
                    jhyap("merge", "{here}/s1.json", "{here}/s2.json"),
                    setup=_tampered(("tally", "moments", "turns_per_hand", where), text),
                    within=60,
                    check=_one_line_failure("merge", (2,)),
                )
            )
    found.append(
        Probe(
            "shard wins_by_seats negative",
            jhyap("merge", "{here}/s1.json", "{here}/s2.json"),
            setup=_tampered(("tally", "wins_by_seats", "2"), [-100, 200]),
            check=_one_line_failure("merge", (2,)),
        )
    )
    found.append(
        Probe(
            "merge of good shards is strict JSON (a host-ended table)",
            jhyap("merge", "{here}/s1.json", "{here}/s2.json", "--json", "{here}/m.json"),
            statuses=(0,),
            setup=_tampered(("seed",), "0"),
            files=_strict_json("m.json"),
        )
    )
    return found


def report_probes() -> list[Probe]:
    """Every report file is strict JSON, however the run went."""
    reports = [
        ("run passes", run_args(fake("passthrough"), "--json", "{here}/r.json"), (0,)),
        ("run fails", run_args(fake("crash_mid_game"), "--json", "{here}/r.json"), (1,)),
        ("run hangs", run_args(fake("hang"), "--timeout", "1", "--json", "{here}/r.json"), (1,)),
        (
            "run forged",
            run_args(fake("forged_text", "all", "error"), "--json", "{here}/r.json"),
            (1,),
        ),
        ("coverage", jhyap("coverage", "--json", "{here}/r.json"), (0,)),
        ("coverage uncovered", jhyap("coverage", "--uncovered", "--json", "{here}/r.json"), (0,)),
        (
            "simulate host-ended",
            jhyap("simulate", "dashain", "--games", "2", "--seats", "2", "--json", "{here}/r.json"),
            (0,),
        ),
        (
            "simulate yaniv",
            jhyap("simulate", "bga-yaniv", "--games", "2", "--json", "{here}/r.json"),
            (0,),
        ),
        (
            "fuzz",
            jhyap("fuzz", "--profile", "dashain", "--games", "2", "--json", "{here}/r.json"),
            (0,),
        ),
        (
            "fuzz forged engine",
            jhyap(
                "fuzz",
                "--profile",
                "dashain",
                "--games",
                "1",
                "--json",
                "{here}/r.json",
                "--engine",
                fake("forged_text", "all", "error"),
            ),
            (1,),
        ),
    ]
    return [
        Probe(f"strict JSON: {name}", argv, statuses=statuses, files=_strict_json("r.json"))
        for name, argv, statuses in reports
    ]


TRICKS = ("newline", "cr", "ansi", "osc", "u2028", "u0085", "bidi", "all")
PLACES = ("name", "error", "stderr", "event")
SMUGGLED = {
    "\r": "a carriage return",
    "\x1b]": "an OSC code",
    "\u2028": "U+2028",
    "\u2029": "U+2029",
    "\u0085": "U+0085",
    "\x0b": "a vertical tab",
    "\x0c": "a form feed",
    "\u202e": "a bidi override",
    "\u2066": "a bidi isolate",
}


def _nothing_smuggled(out: str) -> str | None:
    """No engine text passes for the harness's own: no forged summary line, no control
    that moves the cursor or breaks a line, no bidi control."""
    for text, name in SMUGGLED.items():
        if text in out:
            return f"shows {name}"
    if re.search(r"\x1b\[[0-9;]*[A-HJKST]", out):
        return "shows a cursor-moving ANSI code"
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    forged = [line for line in plain.splitlines() if line.strip().startswith("==")]
    forged = [line for line in forged if "145 passed" in line]
    return f"forged line {forged[0]!r}" if forged else None


def forging_probes() -> list[Probe]:
    found = []
    for trick in TRICKS:
        for place in PLACES:
            engine = fake("forged_text", trick, place)
            passes = place in ("name", "stderr")
            found.append(
                Probe(
                    f"forged line: {trick} in {place}, run",
                    run_args(engine, "-v"),
                    statuses=(0,) if passes else (1,),
                    check=_nothing_smuggled,
                )
            )
        found.append(
            Probe(
                f"forged line: {trick} in name, smoke",
                jhyap("smoke", "--engine", fake("forged_text", trick, "name")),
                statuses=(0, 1),
                check=_nothing_smuggled,
            )
        )
        found.append(
            Probe(
                f"forged line: {trick} in error, pytest plugin",
                [
                    *PYTEST,
                    fake("forged_text", trick, "error"),
                    "--jhyap-transcripts",
                    DATA,
                    "-k",
                    PASSING,
                ],
                statuses=(1,),
                setup=_pytest_ini,
                check=_nothing_smuggled,
            )
        )
    for trick in ("newline", "all"):
        found.append(
            Probe(
                f"forged line: {trick} in error, fuzz",
                jhyap(
                    "fuzz",
                    "--profile",
                    "dashain",
                    "--games",
                    "1",
                    "--engine",
                    fake("forged_text", trick, "error"),
                ),
                statuses=(1,),
                check=_nothing_smuggled,
            )
        )
    return found


def usage_probes() -> list[Probe]:
    """Every command's usage error is one line with status 2 (issue 41, item 11)."""
    mistakes = [
        ["run", "--timeout", "-inf"],
        ["run", "--timeout", "-1"],
        ["run", "--window", "0"],
        ["run", "--bogus"],
        ["fuzz", "--time", "-inf"],
        ["fuzz", "--seed", "-1"],
        ["fuzz", "--shrink-budget", "-5"],
        ["simulate", "dashain", "--games", "-1"],
        ["simulate", "dashain", "--max-rounds", "nan"],
        ["simulate", "dashain", "--jobs", "-2"],
        ["simulate", "dashain", "--cluster", "inproc://x"],
        ["simulate", "dashain", "--cluster", "ucx://x:1"],
        ["simulate", "dashain", "--cluster", "tls://x:1"],
        ["simulate", "dashain", "--cluster", "tcp://" + "h" * 5000 + ":1"],
        ["simulate", "dashain", "--cluster", "tcp://192.0.2.1:8786"],
        ["simulate", "dashain", "--cluster", "local:0"],
        ["simulate", "dashain", "--shard", "3/2"],
        ["simulate", "dashain", "--shard", "-1/2"],
        ["record", "dashain", "{here}/o", "--seats", "-inf"],
        ["smoke", "--timeout", "-inf"],
        ["merge"],
        ["coverage", "--bogus"],
        ["export"],
        ["show"],
        ["validate", "--bogus"],
        ["profiles", "--bogus"],
        ["engine", "--bogus"],
        ["nosuchcommand"],
    ]
    return [
        Probe(
            f"usage: {' '.join(words)[:50]}",
            jhyap(*words),
            within=90,
            check=_one_error_line,
        )
        for words in mistakes
    ]


def _one_error_line(out: str) -> str | None:
    """One line says the error; argparse's usage block may come before it (jhyap shows
    the usage on a mistyped option or a missing argument, on purpose)."""
    lines = [line for line in out.splitlines() if line.strip()]
    if lines and lines[0].startswith("usage: "):
        lines = [line for line in lines[1:] if not line.startswith(" ")]
    if len(lines) != 1:
        return f"{len(lines)} error lines, not 1"
    if not lines[0].startswith(("jhyap", "python -m")):
        return f"the error line does not name the command: {lines[0][:80]!r}"
    return _one_line_failure("", (2,))(lines[0])


def _profile(text: str) -> Callable[[Path], None]:
    def setup(here: Path) -> None:
        (here / "p.yaml").write_text(text)

    return setup


def profile_probes() -> list[Probe]:
    """Numbers in a profile checked for what they can mean; a shipped id refused."""
    texts = {
        "call limit 10**30": "rules:\n  call:\n    limit: " + "1" + "0" * 30 + "\n",
        "call limit NaN": "rules:\n  call:\n    limit: .nan\n",
        "call limit inf": "rules:\n  call:\n    limit: .inf\n",
        "hand size -1": "rules:\n  hand_size: -1\n",
        "hand size 10**400": "rules:\n  hand_size: 1" + "0" * 400 + "\n",
        "hand size 5.5": "rules:\n  hand_size: 5.5\n",
        "seats max 10**9": "rules:\n  seats: {min: 2, max: 1000000000}\n",
        "target NaN": "rules:\n  game_end: {target: .nan}\n",
        "jokers 1e400": "rules:\n  deck: {jokers: 1e400}\n",
        "shipped id": "",
    }
    found = []
    for name, body in texts.items():
        pid = "dashain" if name == "shipped id" else "mine"
        text = f"profile_format: 1\nid: {pid}\nextends: dhumbal\n{body}"
        for words, statuses in (
            (["validate", "{here}/p.yaml"], (1,)),
            (["run", "--profile", "{here}/p.yaml"], (2,)),
            (["simulate", "{here}/p.yaml", "--games", "1"], (2,)),
        ):
            found.append(
                Probe(
                    f"profile {name}: {words[0]}",
                    jhyap(*words),
                    statuses=(0, *statuses) if name == "call limit 10**30" else statuses,
                    setup=_profile(text),
                    within=90,
                    # a line per problem: a value may break an option and a rule
                    check=_one_line_failure(words[0], statuses, 3)
                    if name != "call limit 10**30"
                    else None,
                )
            )
    return found


def _signal_when(
    ready: Callable[[subprocess.Popen[str]], bool], signum: int, group: bool, settle: float
) -> Callable[..., None]:
    def act(process: subprocess.Popen[str], pids: Path) -> None:
        deadline = time.monotonic() + LIMIT / 2
        while not ready(process) and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        time.sleep(settle)
        with contextlib.suppress(OSError):
            if group:
                os.killpg(process.pid, signum)
            else:
                os.kill(process.pid, signum)

    return act


def _pool_up(process: subprocess.Popen[str]) -> bool:
    return len(_children(process.pid)) >= 2


def _dask_workers(process: subprocess.Popen[str]) -> list[int]:
    """The Dask workers under ``process`` that are up (they ignore SIGINT once started)."""
    workers = []
    for pid in descendants(process.pid):
        with contextlib.suppress(OSError, StopIteration, ValueError):
            if b"spawn_main" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
            ignored = next(line for line in status if line.startswith("SigIgn:"))
            if int(ignored.split()[1], 16) & (1 << (signal.SIGINT - 1)):
                workers.append(pid)
    return workers


def _cluster_up(process: subprocess.Popen[str]) -> bool:
    return len(_dask_workers(process)) >= 2


def _kill_a_worker(process: subprocess.Popen[str], pids: Path) -> None:
    deadline = time.monotonic() + LIMIT / 2
    while not _cluster_up(process) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.1)
    time.sleep(2)
    workers = _dask_workers(process)
    if workers:
        os.kill(workers[0], signal.SIGKILL)


SIGNALS = (
    (signal.SIGINT, True, 130, "interrupted"),
    (signal.SIGTERM, False, 143, "stopped by SIGTERM"),
    (signal.SIGHUP, False, 129, "stopped by SIGHUP"),
    (signal.SIGKILL, False, -9, ""),
)


def signal_probes(cluster: bool) -> list[Probe]:
    """Signals to a pool run, a cluster run, the fuzz campaign and a pytest run: each ends
    within seconds, in one line, no process left (issue 41, item 1 and the unprobed)."""
    found = []
    pool = jhyap("simulate", "dashain", "--games", "200000", "--jobs", "2")
    for signum, group, status, words in SIGNALS:
        name = f"{signum.name}{' to the group' if group else ''}"
        found.append(
            Probe(
                f"simulate --jobs 2, {name}",
                pool,
                statuses=(status,),
                must=(f"jhyap simulate: {words}",) if words else (),
                within=15,
                action=_signal_when(_pool_up, signum, group, 1.0),
                check=None if status == -9 else _one_line_failure("simulate", (status,)),
                alone=True,
                timed=f"simulate --jobs 2, {name}",
            )
        )
    found.append(
        Probe(
            "pytest --jhyap-engine, SIGINT to the group",
            [
                *PYTEST,
                fake("escape", "daemon", "hang"),
                "--jhyap-transcripts",
                DATA,
                "--jhyap-timeout",
                "600",
                "-k",
                PASSING,
            ],
            statuses=(2,),
            setup=_pytest_ini,
            action=_kill_once_started(2, signal.SIGINT, group=True),
            must_not=("pytest_plugin.py", "--full-trace"),
        )
    )
    found.append(
        Probe(
            "pytest --jhyap-engine, SIGKILL",
            [
                *PYTEST,
                # Not the escaping daemon: a helper that left the engine's group is found only
                # by a harness that lives, and nothing runs after kill -9. The engine must die.
                fake("hang"),
                "--jhyap-transcripts",
                DATA,
                "--jhyap-timeout",
                "600",
                "-k",
                PASSING,
            ],
            statuses=(-9,),
            setup=_pytest_ini,
            action=_kill_once_started(1, signal.SIGKILL),
        )
    )
    if not cluster:
        return found
    simulate = jhyap("simulate", "dashain", "--games", "200000", "--cluster", "local:2")
    campaign = [
        sys.executable,
        "-m",
        "conformance.distributed.campaign",
        "--cluster",
        "local:2",
        "--shards",
        "2",
        "--",
        "--games",
        "100000",
        "--profile",
        "dashain",
    ]
    for signum, group, status, words in SIGNALS:
        name = f"{signum.name}{' to the group' if group else ''}"
        found.append(
            Probe(
                f"simulate --cluster local:2, {name}",
                simulate,
                statuses=(status,),
                must=(f"jhyap simulate: {words}",) if words else (),
                within=30,
                action=_signal_when(_cluster_up, signum, group, 2.0),
                check=None if status == -9 else _one_line_failure("simulate", (status,)),
                alone=True,
                timed=f"simulate --cluster local:2, {name}",
            )
        )
    for signum, group, status, words in SIGNALS[:2]:
        name = f"{signum.name}{' to the group' if group else ''}"
        found.append(
            Probe(
                f"fuzz campaign on local:2, {name}",
                campaign,
                statuses=(status,),
                must=(f"campaign: {words}",),
                within=30,
                action=_signal_when(_cluster_up, signum, group, 2.0),
                check=_one_line_failure("campaign", (status,)),
                alone=True,
                timed=f"fuzz campaign on local:2, {name}",
            )
        )
    found.append(
        Probe(
            "simulate --cluster local:2, a worker killed mid-run",
            jhyap("simulate", "dashain", "--games", "100", "--seats", "2", "--cluster", "local:2"),
            statuses=(0,),
            must=("hands won by position",),
            action=_kill_a_worker,
            alone=True,
        )
    )
    found.append(
        Probe(
            "fuzz campaign, missing engine (item 6)",
            [
                sys.executable,
                "-m",
                "conformance.distributed.campaign",
                "--cluster",
                "local:1",
                "--shards",
                "2",
                "--",
                "--games",
                "2",
                "--engine",
                "/no/such/engine",
            ],
            statuses=(2,),
            check=_one_line_failure("campaign", (2,)),
            alone=True,
        )
    )
    return found


def all_probes(cluster: bool) -> list[Probe]:
    return [
        *probes(),
        *input_probes(),
        *number_probes(),
        *report_probes(),
        *forging_probes(),
        *usage_probes(),
        *profile_probes(),
        *signal_probes(cluster),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="probes run at once (default 2)")
    parser.add_argument("-k", dest="word", help="only the probes whose name holds WORD")
    args = parser.parse_args()
    totals = Totals()
    try:
        # lazy: the distributed extra is optional
        import distributed  # noqa: F401

        cluster = True
    except ImportError:
        cluster = False
    chosen = [p for p in all_probes(cluster) if args.word is None or args.word in p.name]
    began = time.monotonic()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        list(pool.map(lambda p: run_probe(p, totals), [p for p in chosen if not p.alone]))
    for probe in chosen:
        if probe.alone:
            run_probe(probe, totals)
    for finding in totals.findings:
        print(finding)
    for timing in totals.timings:
        print(f"signal timing: {timing}")
    print(
        f"probes {totals.probes}, files lost {totals.files_lost}, orphans {totals.orphans}, "
        f"hangs {totals.hangs}, wrong verdicts {totals.wrong_verdicts}, "
        f"internal errors {totals.internal_errors} "
        f"({time.monotonic() - began:.0f} s{'' if cluster else '; no Dask: no cluster probes'})"
    )
    bad = totals.orphans + totals.internal_errors + totals.files_lost + totals.hangs
    return 1 if bad + totals.wrong_verdicts else 0


if __name__ == "__main__":
    raise SystemExit(main())
