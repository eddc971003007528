"""The corpus replay against its floor, in CPU seconds, and requests/s against the echo bound.

Run: python bench/replay_floor.py [--rounds R] [--round-trips N] [--suite PATH]

Each round measures, one right after the other (so that they see the same machine):

1. the replay: the shipped corpus against the reference engine over the protocol, in this
   process's harness (``run_cases``, one job, the default window); its CPU is this
   process's plus that of every engine process it started (reaped children);
2. its floor: the same request streams (recorded from a replay before the rounds, byte
   for byte as the harness wrote them) answered by the reference engine, each stream by
   a process of its own as in the replay (``python -m reference_engine.server`` reading
   the stream from a file: its start, the warm-up of its caches, decoding, playing,
   encoding; none of them waits for a request), plus one bare pipe round trip per request
   (the CPU of both sides of bench/echo_engine.py, its start taken off). Answering every
   stream in this process instead (printed too, as "engine in process") leaves out the
   starts and finds the engine's caches warm from the replays: each engine of the replay
   warms its own;
3. requests per second of the replay at window 1 and at the default window, against the
   echo bound of the round (bare round trips per second, one at a time). What goes ahead
   at the default window depends on the engine's hello: every planned request when it
   declares ``supports.requests_ahead`` (protocol 1.2, printed in the first line), else
   ``state`` and ``legal`` only; a checkout that has the declaration is also measured
   with it ignored ("changes held back": the 1.1 behaviour, in the same minutes).

Printed: medians over the rounds; the CPU per step of the corpus (steps of the cases
replayed) against the JSON-Schema-Test-Suite anchor: the CPU of a suite test, measured in
each round with ``--suite PATH`` (a suite checkout's folder, holding tests/ and remotes/;
one ships under json/ in jsonschema's source distribution: ``pip download --no-binary :all:
--no-deps jsonschema``), else quoted from issue 43 (0.095 ms). A suite test there is what
Bowtie times for python-jsonschema: every draft 2020-12 test of the required suite, a
validator built for each case (its remotes in a registry, never fetched) and asked
``is_valid`` for each of its tests. Before/after figures: run this file against another
checkout with ``--root`` (it imports that checkout's harness).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import jsonschema
import referencing
import referencing.jsonschema
from checkout import ROOT  # first: it puts the measured checkout on the import path

HERE = Path(__file__).resolve().parent

from conformance.harness import client as client_module  # noqa: E402
from conformance.harness import replay as replay_module  # noqa: E402
from conformance.harness.runner import Case, RunConfig, build_cases, run_cases  # noqa: E402
from conformance.harness.settings import DEFAULT_WINDOW  # noqa: E402
from conformance.spec.transcript import load_corpus, shipped_documents  # noqa: E402
from jhyap_core.serving import serve  # noqa: E402
from reference_engine.server import Session, decode_request  # noqa: E402

REFERENCE = f"{shlex.quote(sys.executable)} -m reference_engine.server"
ECHO = [sys.executable, str(HERE / "echo_engine.py")]
ANCHOR_MS = 0.095  # issue 43: CPU per JSON-Schema-Test-Suite test (Bowtie's anchor), quoted
SUITE_DRAFT = "draft2020-12"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu() -> float:
    """This process's CPU and that of its reaped children."""
    return time.process_time() + children_cpu()


def shipped_cases() -> list[Case]:
    transcripts, problems = load_corpus()
    assert not problems, problems
    return build_cases(transcripts, shipped_documents())


# What the harness sends ahead to an engine whose hello answered ``supports`` (a checkout
# before protocol 1.2 has no such choice: None).
GOES_AHEAD = getattr(replay_module, "goes_ahead", None)
DECLARED: list[bool] = []  # whether the engine's hello declared requests_ahead, per replay


def replay(
    cases: list[Case], window: int, *, hold_back: bool = False
) -> tuple[float, float, float, int]:
    """CPU seconds (all, the engines'), wall seconds, cases passed of one replay;
    ``hold_back``: requests that change the game wait for their turn, whatever the engine
    declared."""
    if hold_back:
        from conformance.harness.ahead import changes_nothing

        replay_module.goes_ahead = lambda supports: changes_nothing  # type: ignore[attr-defined]
    try:
        wall, used, engines = time.perf_counter(), cpu(), children_cpu()
        result = run_cases(cases, RunConfig(engine=REFERENCE, jobs=1, window=window))
        used, wall, engines = cpu() - used, time.perf_counter() - wall, children_cpu() - engines
    finally:
        if hold_back:
            replay_module.goes_ahead = GOES_AHEAD  # type: ignore[attr-defined]
    DECLARED.append(result.info.supports.get("requests_ahead") is True)
    return used, engines, wall, sum(1 for o in result.outcomes if o.status == "passed")


def record_streams(cases: list[Case]) -> list[bytes]:
    """The bytes the harness writes to each engine it starts, in one replay."""
    streams: dict[int, bytearray] = {}  # by descriptor: the engine writing to it now
    found: list[bytearray] = []
    original = client_module.write_all

    def recording(fd: int, data: bytes, *args: object, **kwargs: object) -> bool:
        if fd not in streams or data.startswith(b'{"seq":0,'):  # a new engine's first line
            streams[fd] = bytearray()
            found.append(streams[fd])
        streams[fd] += data
        return original(fd, data, *args, **kwargs)  # type: ignore[arg-type]

    client_module.write_all = recording  # type: ignore[assignment]
    try:
        run_cases(cases, RunConfig(engine=REFERENCE, jobs=1))
    finally:
        client_module.write_all = original
    return [bytes(stream) for stream in found]


def in_process(streams: list[bytes]) -> float:
    """CPU seconds of the reference engine answering ``streams`` in this process."""
    start = time.process_time()
    for stream in streams:
        serve(
            Session(),
            io.BytesIO(stream),
            io.StringIO(),
            quiet_prints=False,
            decode=decode_request,
        )
    return time.process_time() - start


def engines_from_files(paths: list[Path]) -> float:
    """CPU seconds of one reference engine process for each stream in ``paths``, each
    reading its stream from the file (and answering into nothing)."""
    used = cpu()
    for path in paths:
        with path.open("rb") as stream:
            subprocess.run(
                [sys.executable, "-m", "reference_engine.server"],
                stdin=stream,
                stdout=subprocess.DEVNULL,
                cwd=ROOT,
                check=True,
            )
    return cpu() - used


def echo_cpu(count: int) -> tuple[float, float]:
    """(CPU seconds of both sides, wall seconds) of ``count`` bare round trips to the echo
    engine, its start and end included."""
    used = cpu()
    proc = subprocess.Popen(ECHO, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    readline, stdin = proc.stdout.readline, proc.stdin.fileno()
    os.write(stdin, b'{"seq":-1,"cmd":"state"}\n')
    readline()
    wall = time.perf_counter()
    for seq in range(count):
        os.write(stdin, b'{"seq":%d,"cmd":"state"}\n' % seq)
        readline()
    wall = time.perf_counter() - wall
    proc.stdin.close()
    proc.wait(10)
    return cpu() - used, wall


def suite_cases(suite: Path) -> tuple[list[dict[str, Any]], Any]:
    """The required draft 2020-12 cases of a JSON-Schema-Test-Suite checkout, and a
    registry of its remotes as the suite serves them (http://localhost:1234/...)."""
    remotes = suite / "remotes"
    resources = []
    for path in sorted(remotes.rglob("*.json")):
        contents = json.loads(path.read_text("utf-8"))
        dialect = contents.get("$schema", "") if isinstance(contents, dict) else ""
        specification = referencing.jsonschema.specification_with(
            dialect, default=referencing.jsonschema.DRAFT202012
        )
        uri = "http://localhost:1234/" + path.relative_to(remotes).as_posix()
        resources.append((uri, specification.create_resource(contents)))
    cases: list[dict[str, Any]] = []
    for path in sorted((suite / "tests" / SUITE_DRAFT).glob("*.json")):
        cases.extend(json.loads(path.read_text("utf-8")))
    if not cases:
        raise SystemExit(f"--suite {suite}: no tests/{SUITE_DRAFT}/*.json there")
    return cases, referencing.Registry().with_resources(resources)


def suite_cpu_ms(cases: list[dict[str, Any]], registry: Any) -> tuple[float, int]:
    """(CPU ms a test, tests) of python-jsonschema running ``cases``: a validator built
    for each case, ``is_valid`` asked for each test (as Bowtie does)."""
    used, tests = time.process_time(), 0
    for case in cases:
        validator = jsonschema.Draft202012Validator(case["schema"], registry=registry)
        for test in case["tests"]:
            validator.is_valid(test["data"])
            tests += 1
    return (time.process_time() - used) / tests * 1e3, tests


def engine_start_cpu() -> float:
    used = cpu()
    subprocess.run(
        [sys.executable, "-m", "reference_engine.server"],
        input=b"",
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return cpu() - used


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--round-trips", type=int, default=4000)
    parser.add_argument("--root", default=str(ROOT), help="the checkout whose harness runs")
    parser.add_argument(
        "--suite",
        type=Path,
        help="a JSON-Schema-Test-Suite checkout: its anchor measured here, not quoted",
    )
    args = parser.parse_args()
    suite = suite_cases(args.suite.resolve()) if args.suite is not None else None
    suite_tests = 0
    os.chdir(ROOT)  # the engine's `-m reference_engine.server` is the checkout's
    cases = shipped_cases()
    streams = record_streams(cases)
    requests = sum(stream.count(b"\n") for stream in streams)
    steps = sum(len(c.transcript.steps) for c in cases if c.resolved is not None)
    folder = Path(tempfile.mkdtemp(prefix="replay-floor-"))
    paths = [folder / f"stream-{i}.jsonl" for i in range(len(streams))]
    for path, stream in zip(paths, streams, strict=True):
        path.write_bytes(stream)
    rows: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        used, engines, wall_default, passed = replay(cases, DEFAULT_WINDOW)
        _, _, wall_one, _ = replay(cases, 1)
        held = replay(cases, DEFAULT_WINDOW, hold_back=True) if GOES_AHEAD is not None else None
        answering = engines_from_files(paths)
        engine = in_process(streams)
        bare, _ = echo_cpu(0)
        echo, echo_wall = echo_cpu(args.round_trips)
        trip = (echo - bare) / args.round_trips
        starts = statistics.median(engine_start_cpu() for _ in range(3)) * len(streams)
        floor = answering + trip * requests
        anchor = None
        if suite is not None:
            anchor, suite_tests = suite_cpu_ms(*suite)
        bound = args.round_trips / echo_wall
        for name, value in {
            "replay CPU s": used,
            "  harness (this process)": used - engines,
            "  engine processes": engines,
            "floor CPU s": floor,
            "  engines answering from files": answering,
            "  bare round trips": trip * requests,
            "(engine in process, warm)": engine,
            "(engine starts)": starts,
            "(old floor: in process + starts)": engine + trip * requests + starts,
            "replay / floor": used / floor,
            "replay / old floor": used / (engine + trip * requests + starts),
            "replay CPU ms a step": used / steps * 1e3,
            "echo bound requests/s": bound,
            "window 1 requests/s": requests / wall_one,
            f"window {DEFAULT_WINDOW} requests/s": requests / wall_default,
            "window 1 share of echo bound": requests / wall_one / bound,
            f"window {DEFAULT_WINDOW} share of echo bound": requests / wall_default / bound,
        }.items():
            rows.setdefault(name, []).append(value)
        if held is not None:
            rows.setdefault("replay CPU s, changes held back", []).append(held[0])
            rows.setdefault(f"window {DEFAULT_WINDOW} requests/s, changes held back", []).append(
                requests / held[2]
            )
        if anchor is not None:
            rows.setdefault("anchor CPU ms a suite test", []).append(anchor)
        assert passed == len(cases), f"{passed} of {len(cases)} passed"
    for path in paths:
        path.unlink()
    folder.rmdir()
    print(
        f"root {ROOT}; python {sys.version.split()[0]}; {len(cases)} cases, {steps} steps, "
        f"{requests} requests to {len(streams)} engines; medians of {args.rounds} rounds"
    )
    ahead = "every planned request" if DECLARED[0] else "state and legal only"
    print(
        f"the engine's hello {'declares' if DECLARED[0] else 'does not declare'} "
        f"requests_ahead: at window {DEFAULT_WINDOW}, {ahead} goes ahead"
    )
    for name, values in rows.items():
        value = statistics.median(values)
        shown = f"{value:,.0f}" if "requests/s" in name else f"{value:.3f}"
        if name.startswith("replay /"):
            shown += "x  (goal <= 1.5x)" if name == "replay / floor" else "x"
        print(f"{name:<34} {shown}")
    per_step = statistics.median(rows["replay CPU ms a step"])
    if suite is None:
        anchor, source = ANCHOR_MS, "quoted from issue 43, not measured"
    else:
        anchor = statistics.median(rows["anchor CPU ms a suite test"])
        source = f"measured: {suite_tests} {SUITE_DRAFT} tests of {args.suite}"
    print(
        f"replay CPU a step / JSON-Schema-Test-Suite anchor ({anchor:.3f} ms, {source}): "
        f"{per_step / anchor:.2f}x  (goal <= 2x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
