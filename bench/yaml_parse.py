"""The strict YAML loader's speed: every shipped transcript and profile, parsed in process.

Run: python bench/yaml_parse.py [--repeats R] [--checkout DIR]

Prints the median seconds to load the whole corpus (bytes already read) with the strict
loader over libyaml's parser and over the pure-Python one. ``--checkout`` measures another
checkout's loader (to compare before and after in one run). Then the CPU of a cold
``jhyap validate`` of the corpus (``conformance/transcripts``, the cache off), that
checkout's command in a process of its own; with ``--before DIR``, that checkout's too,
the two runs taking turns (so that both see the same machine).
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--before", type=Path, help="another checkout's cold validate too")
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout.resolve()))
    yamlsafe = importlib.import_module("conformance.spec.yamlsafe")
    import yaml

    files = sorted((ROOT / "conformance" / "transcripts").glob("*.yaml"))
    files += sorted((ROOT / "specs").rglob("*.yaml"))
    texts = [(str(p), p.read_bytes()) for p in files]
    print(f"loader: {Path(yamlsafe.__file__).resolve()}; {len(texts)} files")
    for name, chosen in (
        ("libyaml", getattr(yaml, "CSafeLoader", None)),
        ("python", yaml.SafeLoader),
    ):
        if chosen is None:
            continue
        yamlsafe._Parser = chosen
        times = []
        for _ in range(args.repeats):
            yamlsafe._PLAIN.clear()
            start = time.perf_counter()
            for file, raw in texts:
                yamlsafe.load_bytes(raw, file)
            times.append(time.perf_counter() - start)
        print(f"{name:<8} {statistics.median(times):.3f} s (median of {args.repeats})")
    checkouts = [args.checkout.resolve()]
    if args.before is not None:
        checkouts.insert(0, args.before.resolve())
    cold: dict[Path, list[float]] = {checkout: [] for checkout in checkouts}
    for _ in range(args.repeats):
        for checkout in checkouts:
            cold[checkout].append(cold_validate(checkout))
    for checkout, seconds in cold.items():
        print(
            f"cold validate of the corpus, {checkout}: {statistics.median(seconds):.3f} CPU s "
            f"(median of {args.repeats})"
        )
    return 0


def cold_validate(checkout: Path) -> float:
    """CPU seconds of ``jhyap validate conformance/transcripts`` in ``checkout``, no cache."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "validate", "conformance/transcripts"],
        cwd=checkout,
        env={**os.environ, "JHYAP_CACHE_DIR": "off"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime


if __name__ == "__main__":
    raise SystemExit(main())
