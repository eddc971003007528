"""The hostile-input probes of issue 24, run as a stranger runs jhyap: each a command in a
subprocess, judged on what it must never do. Prints one line per probe that misbehaved
and the totals: probes, orphans, internal errors, files lost, hangs, wrong verdicts.

    python bench/probes.py            # about two minutes on a quiet machine

A probe's command runs with ``FAKE_ENGINE_PIDS`` set: every fake engine and helper
records its pid, and any still running afterwards is an orphan (then killed).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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


@dataclass
class Totals:
    probes: int = 0
    orphans: int = 0
    internal_errors: int = 0
    files_lost: int = 0
    hangs: int = 0
    wrong_verdicts: int = 0
    findings: list[str] = field(default_factory=list)


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


def run_probe(probe: Probe, totals: Totals) -> None:
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
            argv, cwd=here, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        if probe.action is not None:
            probe.action(process, pids)
        try:
            out, _ = process.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            process.kill()
            out, _ = process.communicate()
            totals.hangs += 1
            totals.findings.append(f"HANG {probe.name}")
        took = time.monotonic() - began
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
        orphans = _orphans(pids)
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
        if verdict:
            totals.wrong_verdicts += 1
            found += verdict
        if found:
            totals.findings.append(f"{probe.name}: {'; '.join(found)}  [{out[-300:]!r}]")


def jhyap(*args: str) -> list[str]:
    return [sys.executable, "-m", "conformance", *args]


def run_args(engine: str, *more: str) -> list[str]:
    return jhyap("run", "--engine", engine, "--transcripts", DATA, "-k", PASSING, *more)


def _kill_once_started(count: int, signum: int, settle: float = 1.0) -> Callable[..., None]:
    def act(process: subprocess.Popen[str], pids: Path) -> None:
        deadline = time.monotonic() + 60
        while len(list(pids.iterdir())) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(settle)
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


def main() -> int:
    totals = Totals()
    all_probes = probes()
    began = time.monotonic()
    for probe in all_probes:
        run_probe(probe, totals)
    for finding in totals.findings:
        print(finding)
    print(
        f"probes {totals.probes}, orphans {totals.orphans}, "
        f"internal errors {totals.internal_errors}, files lost {totals.files_lost}, "
        f"hangs {totals.hangs}, wrong verdicts {totals.wrong_verdicts} "
        f"({time.monotonic() - began:.0f} s)"
    )
    bad = totals.orphans + totals.internal_errors + totals.files_lost + totals.hangs
    return 1 if bad + totals.wrong_verdicts else 0


if __name__ == "__main__":
    raise SystemExit(main())
