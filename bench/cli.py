"""Whole-process cost of the ``jhyap`` commands: CPU and wall time, side by side.

Run: python bench/cli.py [--repeats R] [--tenfold [--tenfold-repeats R]] [--only TEXT ...]
     python bench/cli.py --only start-up      (every command's start-up: its --help)

Each command runs as its own process (``python -m conformance ...``) against the
reference engine; CPU is user + system time of the process and everything it
waited for (the engine included). One unmeasured run of each command comes first
(it fills any cache); the figures are medians of the R runs after it, all in one run
of this script, so the ratios compare like with like on a loaded machine.

The floor is ``python -c "import yaml, jsonschema"``: no command can cost less (it is
measured whatever ``--only`` picks). The "start-up" rows are ``jhyap --version``, ``jhyap
--help`` and each command's ``--help``: what a command costs before it does anything.
``--tenfold`` adds the same commands on a synthetic corpus ten times the shipped one
(each transcript copied under ten new ids), so costs that grow with the corpus show.

Rows marked "cold" start every run with an empty cache of checked files (a fresh
``JHYAP_CACHE_DIR``), as a CI job with no cache between runs does: every transcript and
profile is parsed and schema-checked. The other rows reuse the cache.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.cli import COMMANDS  # noqa: E402  (the checkout's, not an installed copy)

CORPUS = ROOT / "conformance" / "transcripts"
ONE_ID = "dhumbal-call-limit-5"
JHYAP = (sys.executable, "-m", "conformance")


@dataclass(frozen=True)
class Figure:
    name: str
    cpu: float
    wall: float


def run_once(argv: Sequence[str], cold: bool = False) -> tuple[float, float]:
    """(CPU, wall) of one process, with the CPU taken from wait4; ``cold``: with an empty
    cache of checked files."""
    env = None
    if cold:
        env = dict(os.environ, JHYAP_CACHE_DIR=tempfile.mkdtemp(prefix="jhyap-cold-"))
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    if env is not None:
        shutil.rmtree(env["JHYAP_CACHE_DIR"], ignore_errors=True)
    if proc.returncode != 0:
        tail = err.decode(errors="replace")[-1500:]
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}:\n{tail}")
    return usage.ru_utime + usage.ru_stime, wall


def figure(name: str, argv: Sequence[str], repeats: int) -> Figure:
    cold = name.endswith("cold") or "cold " in name
    run_once(argv, cold)  # warm-up: page cache, and any cache the command keeps
    samples = [run_once(argv, cold) for _ in range(repeats)]
    return Figure(
        name, statistics.median(c for c, _ in samples), statistics.median(w for _, w in samples)
    )


def run_help() -> str:
    done = subprocess.run([*JHYAP, "run", "--help"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout


def checking_flags() -> tuple[list[str], list[str]]:
    """The ``jhyap run`` arguments that switch response checking off and on."""
    text = run_help()
    off = ["--no-validate-protocol"] if "--no-validate-protocol" in text else []
    on = ["--validate-protocol"] if re.search(r"(?<!no-)--validate-protocol", text) else []
    return off, on


def tenfold_corpus(target: Path) -> Path:
    """A copy of the shipped corpus ten times over: ``<id>-xN`` for N in 0..9."""
    for path in sorted(CORPUS.rglob("*.yaml")):
        text = path.read_text("utf-8")
        rel = path.relative_to(CORPUS)
        for n in range(10):
            new_id = f"{path.stem}-x{n}"
            body = re.sub(r"^id: .*$", f"id: {new_id}", text, count=1, flags=re.MULTILINE)
            out = target / rel.parent / f"{new_id}.yaml"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(body, "utf-8")
    return target


VARIANT = "dhumbal-penalty-30-out-150.yaml"  # a variant of two parameters


def commands(corpus: Path | None) -> list[tuple[str, list[str]]]:
    """(name, argv) of every measured command; on ``corpus`` when given."""
    off, on = checking_flags()
    where = ["--transcripts", str(corpus)] if corpus is not None else []
    one = f"{ONE_ID}-x0" if corpus is not None else ONE_ID
    variant = ["--profile", str(ROOT / "tests" / "data" / "variants" / VARIANT)]
    suffix = " (10x)" if corpus is not None else ""
    listed: list[tuple[str, list[str]]] = []
    if corpus is None:
        listed += [
            ("floor: import yaml, jsonschema", [sys.executable, "-c", "import yaml, jsonschema"]),
            ("start-up: jhyap --version", [*JHYAP, "--version"]),
            ("start-up: jhyap --help", [*JHYAP, "--help"]),
        ]
        listed += [(f"start-up: jhyap {c} --help", [*JHYAP, c, "--help"]) for c in COMMANDS]
        listed += [
            ("jhyap profiles", [*JHYAP, "profiles"]),
            ("jhyap show dhumbal", [*JHYAP, "show", "dhumbal"]),
            ("jhyap validate specs/", [*JHYAP, "validate", "specs/"]),
        ]
    else:
        listed.append((f"jhyap validate <corpus>{suffix}", [*JHYAP, "validate", str(corpus)]))
    corpus_arg = str(corpus) if corpus is not None else "conformance/transcripts"
    listed += [
        (f"jhyap run -k {one}{suffix}", [*JHYAP, "run", *where, "-k", one]),
        (f"jhyap run, unchecked{suffix}", [*JHYAP, "run", *where, *off]),
        (f"jhyap run, checked{suffix}", [*JHYAP, "run", *where, *on]),
        (f"jhyap run -j 2, checked{suffix}", [*JHYAP, "run", *where, *on, "-j", "2"]),
        (f"jhyap validate <corpus>{suffix}, cold", [*JHYAP, "validate", corpus_arg]),
        (f"jhyap run, checked{suffix}, cold", [*JHYAP, "run", *where, *on]),
    ]
    if corpus is None:
        # Every transcript under a declared variant: each classified (then cached) and run.
        listed += [
            ("jhyap run --profile <variant>", [*JHYAP, "run", *on, *variant]),
            ("jhyap run --profile <variant>, cold", [*JHYAP, "run", *on, *variant]),
        ]
    return listed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tenfold", action="store_true", help="also on a tenfold corpus")
    parser.add_argument(
        "--tenfold-repeats", type=int, metavar="R", help="runs on the tenfold corpus (default R)"
    )
    parser.add_argument(
        "--only", action="append", default=[], metavar="TEXT", help="only names containing TEXT"
    )
    args = parser.parse_args()
    off, on = checking_flags()
    print(
        f"python {sys.version.split()[0]}; medians of {args.repeats} runs after one warm-up"
        + (f" ({args.tenfold_repeats} on the tenfold corpus); " if args.tenfold_repeats else "; ")
        + f"unchecked = {' '.join(off) or '(default)'}, checked = {' '.join(on) or '(default)'}"
    )
    with tempfile.TemporaryDirectory(prefix="jhyap-bench-") as tmp:
        corpora: list[Path | None] = [None]
        if args.tenfold:
            corpora.append(tenfold_corpus(Path(tmp) / "tenfold"))
        figures: list[Figure] = []
        print(f"{'command':<44} {'CPU s':>7} {'wall s':>7} {'CPU/floor':>9}")
        for corpus in corpora:
            repeats = args.repeats if corpus is None else args.tenfold_repeats or args.repeats
            for name, argv in commands(corpus):
                floor_row = name.startswith("floor")
                if args.only and not floor_row and not any(text in name for text in args.only):
                    continue
                fig = figure(name, argv, repeats)
                figures.append(fig)
                floor = figures[0].cpu if figures[0].name.startswith("floor") else None
                ratio = f"{fig.cpu / floor:>8.2f}x" if floor else f"{'':>9}"
                print(f"{fig.name:<44} {fig.cpu:>7.2f} {fig.wall:>7.2f} {ratio}", flush=True)
        by_name = {f.name: f for f in figures}
        for suffix in ("", " (10x)"):
            plain = by_name.get(f"jhyap run, unchecked{suffix}")
            checked = by_name.get(f"jhyap run, checked{suffix}")
            if plain and checked:
                print(
                    f"response checking adds{suffix}: {checked.wall / plain.wall - 1:+.0%} wall, "
                    f"{checked.cpu / plain.cpu - 1:+.0%} CPU"
                )
        shutil.rmtree(Path(tmp) / "tenfold", ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
