"""The protocol schemas' check of an answer: time per answer, by validator.

Run: python bench/schema_check.py [--repeats R] [--every N]

Replays the shipped corpus against the reference engine in process (a `state` before each
step, its request and a `legal` after it, as the harness asks) and keeps every answer as
JSON data. Then times, on those same answers, the verdict "valid or not" of the answer's
schema in schema/protocol/ by:

- jsonschema (the library validator that words the harness's messages),
- jsonschema-rs (the verdict the harness asks first),
- schema_problems, the harness's whole check (jsonschema-rs, then jsonschema for an
  answer it refuses).

Figures are medians of R passes over all answers, in microseconds an answer. The run
before the hand-written schema compiler (conformance/spec/fastschema.py) was deleted, on 2
cores shared with other work: 21,195 answers; jsonschema 4,781.5, fastschema 107.6,
jsonschema-rs 21.6, schema_problems (on jsonschema-rs) 25.7.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.harness import response_schemas  # noqa: E402
from conformance.harness.ahead import start_message  # noqa: E402
from conformance.harness.runner import build_cases  # noqa: E402
from conformance.spec.transcript import load_corpus  # noqa: E402
from conformance.spec.transcript_profiles import shipped_documents  # noqa: E402
from reference_engine.server import Session  # noqa: E402

Answer = tuple[str, dict[str, Any]]


def corpus_answers(every: int = 1) -> list[Answer]:
    """(command, answer) of the reference engine to every ``every``-th case of the corpus."""
    transcripts, problems = load_corpus()
    assert not problems, problems
    found: list[Answer] = []
    for case in build_cases(transcripts, shipped_documents())[::every]:
        assert case.resolved is not None
        session = Session()
        requests: list[dict[str, Any]] = [
            {"cmd": "hello", "protocol": "1.1"},
            start_message(case.transcript, case.resolved),
        ]
        for step in case.transcript.steps:
            requests.append({"cmd": "state"})
            if step.request is not None:
                requests += [dict(step.request), {"cmd": "legal"}]
        requests += [{"cmd": "state"}, {"cmd": "stop"}]
        for seq, request in enumerate(requests):
            answer = session.handle({"seq": seq, **request})
            found.append((str(request["cmd"]), json.loads(json.dumps(answer))))
    return found


def schema_ref(cmd: str, answer: dict[str, Any]) -> str:
    """The schema an answer to ``cmd`` is checked against (as schema_problems picks it)."""
    if answer.get("ok") is True:
        return f"response-ok.schema.json#/$defs/{cmd}"
    return "response-error.schema.json"


Verdict = Callable[[str, dict[str, Any]], bool]


def verdicts() -> dict[str, Verdict]:
    """Each validator's verdict on an answer to a command."""

    def library(cmd: str, answer: dict[str, Any]) -> bool:
        return response_schemas._validator(schema_ref(cmd, answer)).is_valid(answer)

    def fast(cmd: str, answer: dict[str, Any]) -> bool:
        return response_schemas.answer_check(schema_ref(cmd, answer)).fast.is_valid(answer)

    def harness(cmd: str, answer: dict[str, Any]) -> bool:
        return not response_schemas.schema_problems(cmd, answer)

    return {
        "jsonschema": library,
        "jsonschema-rs": fast,
        "schema_problems": harness,
    }


def per_answer(verdict: Verdict, answers: list[Answer]) -> float:
    """Seconds per answer of one pass; every answer must pass."""
    start = time.perf_counter()
    for cmd, answer in answers:
        if not verdict(cmd, answer):
            raise AssertionError(f"refused: {cmd} {answer}")
    return (time.perf_counter() - start) / len(answers)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--every", type=int, default=1, help="every N-th case of the corpus")
    args = parser.parse_args()
    answers = corpus_answers(args.every)
    print(
        f"python {sys.version.split()[0]}; {len(answers):,} answers; "
        f"medians of {args.repeats} passes"
    )
    # One answer of each schema.
    warm = list({schema_ref(cmd, answer): (cmd, answer) for cmd, answer in answers}.values())
    for name, verdict in verdicts().items():
        per_answer(verdict, warm)  # not timed: builds and caches the validators
        seconds = statistics.median(per_answer(verdict, answers) for _ in range(args.repeats))
        print(f"{name:<16} {seconds * 1e6:>9,.1f} us an answer")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
