"""Every variant ruleset (and every alternative reading) in one process, as the tests do.

Run: python bench/variants.py [--variants N] [--readings] [--cache DIR] [--root CHECKOUT]

For each variant file of tests/data/variants/ (the first N with ``--variants``), and with
``--readings`` each alternative reading of each shipped profile: the corpus loaded under
it, its cases built (each transcript classified, derived where it must be) and run against
the reference engine in this process, as tests/e2e/test_every_ruleset.py and
tests/spec/test_readings.py do. Printed: the CPU seconds of building the cases and of
running them, the number of outcomes and a hash of them all (every field but the
duration), to show that a change keeps every outcome as it was. The classification cache
is a fresh folder (cold, as in a test run) unless ``--cache`` names one. Before/after
figures: run this file against another checkout with ``--root``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from checkout import ROOT  # first: it puts the measured checkout on the import path


def _cpu() -> float:
    return time.process_time()


def _outcome_json(outcome: Any) -> str:
    fields = dataclasses.asdict(outcome)
    fields.pop("duration")
    # The file as the checkout names it: the same outcomes from another checkout's folder.
    fields["file"] = os.path.relpath(fields["file"], ROOT)
    return json.dumps(fields, sort_keys=True, default=str)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variants", type=int, default=None)
    parser.add_argument("--readings", action="store_true")
    parser.add_argument("--cache", default=None)
    parser.add_argument("--root", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["JHYAP_CACHE_DIR"] = args.cache or str(Path(folder) / "cache")
        run(args.variants, args.readings)


def run(count: int | None, with_readings: bool) -> None:
    from conformance.commands.run import default_engine, default_engine_env
    from conformance.harness import runner

    try:
        from conformance.harness.inprocess import ReferenceStandIn
    except ImportError:  # a checkout from before it (--root): the tests' own stand-in
        from tests.cli_helpers import InProcessReference as ReferenceStandIn
    from conformance.harness.runner import RunConfig, build_cases
    from conformance.spec import readings, transcript
    from conformance.spec.transcript import load_corpus
    from conformance.spec.transcript_profiles import shipped_documents, with_profile_files

    setattr(runner, "EngineClient", ReferenceStandIn)  # noqa: B010 (as the tests do)
    transcript.keep_parsed(4 * 1024 * 1024)  # as tests/conftest.py does
    rulesets: list[tuple[str, dict[str, Any]]] = []
    files = sorted((ROOT / "tests" / "data" / "variants").glob("*.yaml"))[:count]
    for path in files:
        documents, (pid,) = with_profile_files(shipped_documents(), [str(path)])
        rulesets.append((pid, documents))
    if with_readings:
        for _, document in sorted(shipped_documents().items()):
            for reading, choice in readings.alternatives(document):
                declared = readings.declared(document, reading, choice)
                rulesets.append((declared["id"], {**shipped_documents(), declared["id"]: declared}))
    config = RunConfig(engine=default_engine(), env=default_engine_env(), jobs=1, timeout=30)
    digest = hashlib.sha256()
    outcomes = 0
    building = running = 0.0
    began = _cpu()
    for pid, documents in rulesets:
        start = _cpu()
        transcripts, problems = load_corpus(None, documents)
        assert problems == []
        cases = build_cases(transcripts, documents, [pid])
        built = _cpu()
        result = runner.run_cases(cases, config)
        done = _cpu()
        building += built - start
        running += done - built
        for outcome in result.outcomes:
            digest.update(_outcome_json(outcome).encode())
            digest.update(b"\n")
            outcomes += 1
    total = _cpu() - began
    print(
        f"{len(rulesets)} rulesets, {outcomes:,} outcomes, hash {digest.hexdigest()[:16]}: "
        f"{total:.2f} CPU-s (cases built {building:.2f}, run {running:.2f})"
    )


if __name__ == "__main__":
    main()
