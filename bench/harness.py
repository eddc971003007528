"""The harness's speed: protocol round trips and whole-corpus wall time.

Run: python bench/harness.py [--round-trips N] [--repeats R]

1. Round trips per second with a trivial echo engine (bench/echo_engine.py), once
   over bare pipes (write a line, read a line) and once through the harness's
   EngineClient (seq bookkeeping, reader threads, JSON decoding, checks), in the
   same run, and their ratio: the harness's own overhead per request.
2. The same EngineClient round trip against the reference engine's `state`.
3. Wall time of the whole corpus against the reference engine over the protocol,
   with --jobs 1 and --jobs 2, in process (run_cases) and as the `jhyap run` command.
Figures are medians of R runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.harness.client import EngineClient  # noqa: E402
from conformance.harness.runner import Case, RunConfig, RunResult, build_cases, run_cases  # noqa: E402
from conformance.spec.profiles import resolved_profile  # noqa: E402
from conformance.spec.transcript import load_corpus, shipped_documents  # noqa: E402

ECHO = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'bench' / 'echo_engine.py'))}"
REFERENCE = f"{shlex.quote(sys.executable)} -m reference_engine.server"


def bare_round_trips(count: int) -> float:
    """Seconds per round trip over raw pipes, with the least possible work."""
    proc = subprocess.Popen(shlex.split(ECHO), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    readline, stdin = proc.stdout.readline, proc.stdin.fileno()
    os.write(stdin, b'{"seq":-1,"cmd":"state"}\n')  # not timed: waits for the process to start
    json.loads(readline())
    start = time.perf_counter()
    for seq in range(count):
        os.write(stdin, b'{"seq":%d,"cmd":"state"}\n' % seq)
        json.loads(readline())
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(10)
    return elapsed / count


def start_table(client: EngineClient) -> None:
    """Greet the reference engine and open a four-seat Dhumbal table."""
    profile = resolved_profile("dhumbal", {})
    client.request("hello", protocol="1.1")
    client.request("start", profile=profile, options=profile["option_values"], seats=4)


def client_round_trips(command: str, count: int, cmd: str = "state") -> float:
    """Seconds per round trip through EngineClient."""
    with EngineClient(command, timeout=10, cwd=str(ROOT)) as client:
        if command == REFERENCE:
            start_table(client)
        client.request(cmd)  # not timed: the echo engine's first answer waits for its start
        start = time.perf_counter()
        for _ in range(count):
            client.request(cmd)
        return (time.perf_counter() - start) / count


def shipped_cases() -> list[Case]:
    """The cases of the shipped corpus under the profiles it is written for."""
    transcripts, problems = load_corpus()
    assert not problems, problems
    return build_cases(transcripts, shipped_documents())


def passed_count(result: RunResult) -> int:
    return sum(1 for o in result.outcomes if o.status == "passed")


def corpus_in_process(jobs: int) -> tuple[float, int, int]:
    cases = shipped_cases()
    start = time.perf_counter()
    result = run_cases(cases, RunConfig(engine=REFERENCE, jobs=jobs))
    elapsed = time.perf_counter() - start
    return elapsed, len(cases), passed_count(result)


def corpus_command(jobs: int) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "run", "--jobs", str(jobs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round-trips", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n, r = args.round_trips, args.repeats
    print(f"python {sys.version.split()[0]}; medians of {r} runs")

    bare = statistics.median(bare_round_trips(n) for _ in range(r))
    harness = statistics.median(client_round_trips(ECHO, n) for _ in range(r))
    engine = statistics.median(client_round_trips(REFERENCE, n // 5) for _ in range(r))
    print(
        f"echo engine, bare pipes:        {1 / bare:>9,.0f} round trips/s "
        f"({bare * 1e6:,.1f} us each)"
    )
    print(
        f"echo engine, harness client:    {1 / harness:>9,.0f} round trips/s "
        f"({harness * 1e6:,.1f} us each)"
    )
    print(f"harness / bare time ratio:      {harness / bare:>9.2f}x")
    print(f"reference engine 'state', harness client: {1 / engine:,.0f} round trips/s")

    for jobs in (1, 2):
        runs = [corpus_in_process(jobs) for _ in range(r)]
        wall = statistics.median(e for e, _, _ in runs)
        _, cases, passed = runs[0]
        command = statistics.median(corpus_command(jobs) for _ in range(r))
        print(
            f"whole corpus, --jobs {jobs}: {cases} cases ({passed} passed) in {wall:.2f} s "
            f"in process; `jhyap run` command {command:.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
