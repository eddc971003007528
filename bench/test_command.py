"""The README's test command from a clean clone, timed by phase: what issue 25 asks of it.

Run: python bench/test_command.py [--python PYTHON] [--rev REV] [--keep] [--by-file K]

Clones REV (default HEAD) of this checkout into a new temporary folder, makes a virtual
environment there with PYTHON (default: the interpreter .ci/run would choose), upgrades pip,
runs ``pip install ".[test]"`` and then ``python -m pytest``, each with an empty
``XDG_CACHE_HOME`` (a cold cache, as on a fresh machine), and prints each phase's wall
seconds and CPU seconds (its processes and all they started), the pytest summary line, the
whole, and the machine's load average before and after. The CPU figure says how much work
there was; on a shared machine the wall figure also says how busy the machine was.
Needs git; the browser tests skip without chromium and chromedriver, so install them first
to time what CI runs. Exits 1 if the tests fail.

With ``--by-file K``, pytest also loads bench/test_cpu.py, which records every test's CPU
(its process's own and its reaped children's), and the K test files that cost the most CPU
are printed after the phases, with the tests' total and the fast tier's share (the tests not
marked e2e, which ``-m "not e2e"`` runs). The plugin's bookkeeping is a JSON line a test.

On Linux the bench makes itself a child subreaper, so a process a phase leaves behind (an
older tree's browser, which its tests did not wait for) becomes the bench's child; each phase
reaps those before its CPU is read, so their CPU counts where it was spent, and says how many
there were.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent


def ci_python() -> str:
    """The interpreter .ci/run takes: $JHYAP_CI_PYTHON, else /usr/bin/python3 if it is 3.11+
    with venv and ensurepip, else python3."""
    chosen = os.environ.get("JHYAP_CI_PYTHON")
    if chosen:
        return chosen
    check = "import ensurepip, sys, venv; sys.exit(sys.version_info < (3, 11))"
    system = Path("/usr/bin/python3")
    usable = system.exists() and subprocess.run([system, "-c", check]).returncode == 0
    if usable:
        return str(system)
    return "python3"


_PR_SET_CHILD_SUBREAPER = 36  # prctl(2)


def become_subreaper() -> bool:
    """Makes this process the one that adopts what its phases leave running (Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0


def reap_adopted(wait: float = 60.0) -> int:
    """Waits for the processes a phase left behind (adopted, being a subreaper) to end,
    up to ``wait`` seconds, then kills those still running; returns how many there were."""
    reaped, deadline = 0, time.monotonic() + wait
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid:
            reaped += 1
        elif time.monotonic() < deadline:
            time.sleep(0.05)
        else:
            for line in Path("/proc").glob("[0-9]*/stat"):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    fields = line.read_text(errors="replace").rsplit(")", 1)[-1].split()
                    if int(fields[1]) == os.getpid():  # the parent's pid: one we adopted
                        os.kill(int(line.parent.name), signal.SIGKILL)
            deadline = float("inf")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def phase(name: str, args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """Runs one phase; returns its wall seconds, CPU seconds and last line of output (for a
    failed pytest, with its FAILED and ERROR lines and what it says it wrote where it must
    not before it: the run's figures stand, and what failed is named)."""
    cpu, began = children_cpu(), time.perf_counter()
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - began
    left = reap_adopted()
    used = children_cpu() - cpu
    if left:
        print(f"{name}: {left} process(es) it left running were reaped and counted")
    lines = (result.stdout + result.stderr).strip().splitlines() or [""]
    if result.returncode != 0 and name != "pytest":
        sys.exit(f"bench/test_command.py: {name} failed (exit {result.returncode}): {lines[-1]}")
    if result.returncode == 0:
        return wall, used, lines[-1]
    named = [
        line
        for line in lines[:-1]
        if line.startswith(("FAILED ", "ERROR ", "the tests wrote into the checkout"))
    ]
    return wall, used, "\n".join([f"FAILED: {lines[-1]}", *named])


def print_by_file(rows: Path, top: int) -> None:
    """The tests' CPU by file, the costliest first, from bench/test_cpu.py's rows."""
    by_file: dict[str, list[float]] = {}
    count = fast = 0
    fast_cpu = 0.0
    for line in rows.read_text("utf-8").splitlines():
        row = json.loads(line)
        count += 1
        if not row["e2e"]:
            fast += 1
            fast_cpu += row["self"] + row["children"]
        spent = by_file.setdefault(row["id"].split("::")[0], [0, 0.0, 0.0])
        spent[0] += 1
        spent[1] += row["self"]
        spent[2] += row["children"]
    own = sum(s[1] for s in by_file.values())
    reaped = sum(s[2] for s in by_file.values())
    print(f"tests: {count}, {own + reaped:.1f} s CPU ({own:.1f} s in pytest, {reaped:.1f} s in")
    print(f"       the processes they started); not marked e2e: {fast}, {fast_cpu:.1f} s CPU")
    print(f"{'CPU s':>8} {'tests':>5}  file (the {top} costliest)")
    ranked = sorted(by_file.items(), key=lambda item: -(item[1][1] + item[1][2]))
    for name, (tests, mine, theirs) in ranked[:top]:
        print(f"{mine + theirs:8.1f} {int(tests):5d}  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=None, help="interpreter for the venv")
    parser.add_argument("--rev", default="HEAD", help="the revision to clone (default HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and print its path")
    parser.add_argument(
        "--by-file", type=int, default=0, metavar="K", help="print the K costliest test files"
    )
    args = parser.parse_args()
    python = args.python or ci_python()
    become_subreaper()
    work = Path(tempfile.mkdtemp(prefix="jhyap-test-command-"))
    clone, cache, venv = work / "clone", work / "cache", work / "venv"
    cache.mkdir()
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("VIRTUAL_ENV", None)
    print(f"load average before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", args.rev], cwd=clone, check=True)
    rev = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True
    ).stdout.strip()
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True
    ).stdout.strip()
    print(f"revision {rev}, Python {version} ({python}), {os.cpu_count()} cores")
    bin_dir = venv / "bin"
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    phases = [
        ("venv", [python, "-m", "venv", str(venv)]),
        ("pip upgrade", [str(bin_dir / "python"), "-m", "pip", "install", "-qU", "pip"]),
        ("pip install", [str(bin_dir / "pip"), "install", "-q", ".[test]"]),
        ("pytest", [str(bin_dir / "python"), "-m", "pytest"]),  # the README's, as it is
    ]
    rows = work / "test-cpu.jsonl"
    if args.by_file:
        phases[-1][1].extend(["-p", "test_cpu"])
        env["PYTHONPATH"] = str(HERE)
        env["JHYAP_TEST_CPU_OUT"] = str(rows)
    total_wall = total_cpu = 0.0
    failed = False
    for name, command in phases:
        wall, cpu, last = phase(name, command, clone, env)
        total_wall, total_cpu = total_wall + wall, total_cpu + cpu
        failed = failed or last.startswith("FAILED")
        shown = f"  {last}" if name == "pytest" else ""
        print(f"{name:12} {wall:7.1f} s wall {cpu:7.1f} s CPU{shown}")
    print(f"{'whole':12} {total_wall:7.1f} s wall {total_cpu:7.1f} s CPU")
    print(f"load average after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    if args.by_file and rows.exists():
        print_by_file(rows, args.by_file)
    if args.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
