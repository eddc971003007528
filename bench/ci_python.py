"""The same suite work under several Python interpreters: why .ci/run picks the one it does.

Run: python bench/ci_python.py [--repeats R] PYTHON [PYTHON ...]

Each PYTHON is an interpreter that can import this checkout and its test extras (the
python of a virtual environment made with ``pip install -e ".[test]"``). Each runs, R times
alternately with the others, in a fresh process: the whole corpus under two rulesets in
process (the reference engine and the harness, as the variant tests run it), and checked
random play of three profiles (tests/checked_play.py, as the property tests play). Prints
per interpreter its version, the median seconds of each part and of the whole, and the ratio
of each whole to the first interpreter's. The work is the suite's own, so the ratio is
about what the suite's CPU time would be; the machine's other load moves both alike when
the runs alternate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in each interpreter: prints one JSON line of seconds per part.
_WORK = """
import json, sys, time
sys.path.insert(0, ROOT)
from conformance.commands.run import default_engine, default_engine_env
from conformance.harness.runner import RunConfig, build_cases
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents
from tests.checked_play import Style, play
from tests.cli_helpers import run_reference_in_process
from tests.strategies import Table

times = {}
documents = shipped_documents()
transcripts, problems = load_corpus(None, documents)
assert problems == []
began = time.perf_counter()
for pid in ("dashain", "yaniv-israel"):
    cases = build_cases(transcripts, documents, [pid])
    config = RunConfig(engine=default_engine(), env=default_engine_env(), jobs=1, timeout=30)
    outcomes = run_reference_in_process(cases, config).outcomes
    assert all(o.ok for o in outcomes)
times["corpus under two rulesets"] = time.perf_counter() - began
began = time.perf_counter()
for pid in ("dhumbal", "dashain", "bga-yaniv"):
    for seed in range(12):
        play(Table(documents[pid], 3 + seed % 2, {}, seed), Style(option=0.0))
times["checked random play"] = time.perf_counter() - began
print(json.dumps({"times": times, "version": sys.version.split()[0], "executable": sys.executable}))
"""


def run_once(python: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="jhyap-ci-python-") as cache:
        result = subprocess.run(
            [python, "-c", f"ROOT = {str(ROOT)!r}\n{_WORK}"],
            cwd=ROOT,
            env={"PATH": "/usr/bin:/bin", "JHYAP_CACHE_DIR": cache, "HOME": cache},
            capture_output=True,
            text=True,
            check=False,
        )
    if result.returncode != 0:
        raise SystemExit(f"{python}: {result.stderr.strip().splitlines()[-1:]}")
    found: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pythons", nargs="+", metavar="PYTHON")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, float]]] = {p: [] for p in args.pythons}
    about: dict[str, str] = {}
    for _ in range(args.repeats):
        for python in args.pythons:  # alternately, so that the machine's load moves both
            found = run_once(python)
            runs[python].append(found["times"])  # type: ignore[arg-type]
            about[python] = f"Python {found['version']} ({found['executable']})"
    first = None
    for python, times in runs.items():
        parts = {k: statistics.median(t[k] for t in times) for k in times[0]}
        whole = statistics.median(sum(t.values()) for t in times)
        first = whole if first is None else first
        print(f"{about[python]}: median of {args.repeats}")
        for name, seconds in parts.items():
            print(f"  {name}: {seconds:.2f} s")
        print(f"  whole: {whole:.2f} s, {whole / first:.2f} of the first")


if __name__ == "__main__":
    main()
