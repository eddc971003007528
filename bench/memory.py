"""Memory at scale: max RSS of `jhyap validate`, `run`, `coverage` and `export` on 1x, 10x,
100x the corpus.

Run: python bench/memory.py [--sizes 1,10,100] [--commands validate,run,coverage,export]
     [--checkout DIR]

Each size is the shipped corpus copied that many times into a temporary directory,
copy k of ``foo.yaml`` being ``foo-xk.yaml`` with ``id: foo-xk`` (a transcript's id is
its file name). Each command runs in a child process, twice: cold (an empty cache
directory of its own) and warm (the same cache again); the figures are the child's
maximum resident set size (``os.wait4``) and wall time. ``--checkout`` runs another
checkout's code (``python -m conformance`` from that directory), to compare before and
after with the same interpreter and the same copies.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_ID_LINE = re.compile(rb"^id:[^\n]*$", re.MULTILINE)


def build_corpus(source: Path, target: Path, factor: int) -> int:
    """``factor`` copies of every transcript under ``source`` in ``target``; the file count."""
    count = 0
    for path in sorted(source.rglob("*.y*ml")):
        raw = path.read_bytes()
        for k in range(factor):
            name = path.stem if k == 0 else f"{path.stem}-x{k}"
            text = _ID_LINE.sub(b"id: " + name.encode(), raw, count=1)
            (target / f"{name}{path.suffix}").write_bytes(text)
            count += 1
    return count


def measure(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """(max RSS in MB, wall seconds, exit status) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, time.perf_counter() - start, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,100", help="corpus multiples (comma-separated)")
    parser.add_argument(
        "--commands", default="validate,run", help="of validate, run, coverage, export"
    )
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the code to measure")
    parser.add_argument("--jobs", type=int, default=1, help="run --jobs")
    parser.add_argument("--run-sizes", default="", help="sizes for run (default: --sizes)")
    parser.add_argument("--no-warm", action="store_true", help="cold runs only")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    sizes = [int(s) for s in args.sizes.split(",")]
    run_sizes = [int(s) for s in args.run_sizes.split(",")] if args.run_sizes else sizes
    commands = args.commands.split(",")
    print(f"code: {checkout}; python {sys.version.split()[0]}")
    print(
        f"{'command':<9} {'size':>5} {'files':>6} {'cold MB':>8} {'cold s':>7} "
        f"{'warm MB':>8} {'warm s':>7}"
    )
    with tempfile.TemporaryDirectory(prefix="jhyap-memory-") as scratch:
        for factor in sizes:
            corpus = Path(scratch) / f"x{factor}"
            corpus.mkdir()
            files = build_corpus(checkout / "conformance" / "transcripts", corpus, factor)
            for command in commands:
                if command == "run" and factor not in run_sizes:
                    continue
                cache = Path(scratch) / f"cache-{command}-{factor}"
                env = {**os.environ, "JHYAP_CACHE_DIR": str(cache)}
                env["PYTHONPATH"] = str(checkout)
                argv = [sys.executable, "-m", "conformance", command]
                if command == "validate":
                    argv.append(str(corpus))
                elif command == "run":
                    argv += ["--transcripts", str(corpus), "--jobs", str(args.jobs)]
                elif command == "coverage":
                    argv += ["--transcripts", str(corpus)]
                else:  # export, into a new folder each time
                    argv += ["--transcripts", str(corpus), "--force", str(Path(scratch) / "out")]
                cold = measure(argv, checkout, env)
                warm = (0.0, 0.0, 0) if args.no_warm else measure(argv, checkout, env)
                bad = "" if cold[2] == warm[2] == 0 else f"  (exit {cold[2]}, {warm[2]})"
                print(
                    f"{command:<9} {factor:>4}x {files:>6} {cold[0]:>8.0f} {cold[1]:>7.1f} "
                    f"{warm[0]:>8.0f} {warm[1]:>7.1f}{bad}",
                    flush=True,
                )
                shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(corpus)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
