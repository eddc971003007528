"""The strict YAML loader's speed: every shipped transcript and profile, parsed in process.

Run: python bench/yaml_parse.py [--repeats R] [--checkout DIR]

Prints the median seconds to load the whole corpus (bytes already read) with the strict
loader over libyaml's parser and over the pure-Python one. ``--checkout`` measures another
checkout's loader (to compare before and after in one run).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--checkout", type=Path, default=ROOT)
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
