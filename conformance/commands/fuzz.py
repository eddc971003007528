"""``jhyap fuzz``: differential play against the reference, every divergence shrunk to a
transcript (see conformance/fuzz/)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import IO, TYPE_CHECKING

from conformance.distributed.shards import WHOLE, add_shard_argument, empty_shard_problem
from conformance.fuzz.settings import DEFAULT_BUDGET, DEFAULT_MAX_FINDINGS, DEFAULT_WINDOW
from conformance.harness.sandbox import engine_environment
from conformance.reporting.outputs import FORCE_HELP, FUZZ_JSON
from conformance.reporting.terminal import one_line
from conformance.spec.files import STDOUT, write_report
from conformance.spec.wording import headed, plural

from . import COMMAND_HELP, Subparsers, jobs_count
from .checks import (
    MAX_DURATION,
    MAX_FINDINGS,
    MAX_GAMES,
    MAX_SEATS,
    MAX_SEED,
    MAX_SHRINK_BUDGET,
    MAX_TIMEOUT,
    MAX_WINDOW,
    clashing_paths,
    folder_problem,
    report_file_problem,
    seconds,
    whole,
)
from .run import default_engine, default_engine_env

if TYPE_CHECKING:
    from conformance.fuzz.campaign import Finding, FuzzResult
    from conformance.fuzz.config import FuzzConfig

DEFAULT_GAMES = 300
DEFAULT_OUT = "fuzz-findings"


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``fuzz`` subcommand."""
    parser = subparsers.add_parser(
        "fuzz",
        help=COMMAND_HELP["fuzz"],
        description="Differential fuzzing: seeded random games (legal moves mixed with "
        "illegal ones) are sent to the engine and to the reference engine over the protocol, "
        "and every answer is compared (and checked against schema/protocol/). Every distinct "
        "divergence (by signature) is shrunk once and written as a transcript of kind fuzz "
        "(the reference's answers, not an oracle), kept only when it validates, fails "
        "against the engine and passes against the reference. Games are steered toward "
        "the coverage counters not yet reached. The same seed plays the same games. Exit "
        "status: 0 no divergence, 1 a divergence (or a reference bug), 2 a usage error or "
        "an unusable engine.",
    )
    parser.add_argument(
        "--engine",
        metavar="CMD",
        help="the engine command (split like a shell would, no expansion), or its words "
        "after -- at the end (... -- ./my-engine --fast); default: the bundled reference engine",
    )
    parser.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="P",
        help="fuzz under this profile (repeatable, or comma-separated): a shipped id or a "
        "profile file; default: every shipped profile, in turn",
    )
    amount = parser.add_mutually_exclusive_group()
    amount.add_argument(
        "--games",
        type=whole(1, MAX_GAMES),
        metavar="N",
        help=f"games to play (default {DEFAULT_GAMES})",
    )
    amount.add_argument(
        "--time",
        type=seconds(MAX_DURATION),
        metavar="S",
        help="run for S seconds instead, shrinking and checking included",
    )
    parser.add_argument(
        "--seed", type=whole(0, MAX_SEED), default=0, help="the run's seed (default 0)"
    )
    parser.add_argument(
        "--seats",
        type=whole(1, MAX_SEATS),
        metavar="N",
        help="every table with N seats (default: varied)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=jobs_count,
        default=1,
        metavar="N",
        help="engine pairs in parallel; auto: one per CPU (default 1)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=DEFAULT_OUT,
        help=f"where to write the transcript of a divergence (default {DEFAULT_OUT}/)",
    )
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="write a JSON report (schema/fuzz-report.schema.json); - for standard output "
        "(the text then goes to standard error)",
    )
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    parser.add_argument(
        "--known-divergences",
        metavar="FILE",
        help="YAML or JSON list of {signature (fnmatch pattern), clause, reason}: "
        "divergences that do not fail the run",
    )
    parser.add_argument(
        "--timeout",
        type=seconds(MAX_TIMEOUT),
        default=10.0,
        metavar="SECONDS",
        help="the time to wait for each response (default 10)",
    )
    parser.add_argument(
        "--window",
        type=whole(1, MAX_WINDOW),
        default=DEFAULT_WINDOW,
        metavar="N",
        help=f"requests in flight per engine (default {DEFAULT_WINDOW}; 1: one at a time)",
    )
    parser.add_argument(
        "--shrink-budget",
        type=whole(0, MAX_SHRINK_BUDGET),
        default=DEFAULT_BUDGET,
        metavar="REQUESTS",
        help=f"requests the shrinker may send (default {DEFAULT_BUDGET})",
    )
    parser.add_argument(
        "--max-findings",
        type=whole(1, MAX_FINDINGS),
        default=DEFAULT_MAX_FINDINGS,
        metavar="N",
        help=f"stop after N distinct divergences (default {DEFAULT_MAX_FINDINGS})",
    )
    parser.add_argument(
        "--validate-protocol",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="check every engine answer against schema/protocol/, as jhyap run does (on by "
        "default; --no-validate-protocol switches it off)",
    )
    parser.add_argument(
        "--engine-env",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="pass an environment variable to the engine (repeatable; as for jhyap run, and "
        "repeated in the rerun and replay commands printed)",
    )
    add_shard_argument(parser, "games (of --games, or of an unbounded --time run)")
    parser.add_argument(
        "--steer",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="aim games at the coverage counters earlier games left at zero (on by default; "
        "a shard steers by its own games; --no-steer fixes every game by the seed and its "
        "index alone, so that shards merge into the unsharded run game for game)",
    )
    parser.add_argument(
        "--carry-on",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="carry each game on past its divergences, steering away from one on a choice "
        "and going on past one in what the engine reports, so that the rest of the game is "
        "still compared (on by default; --no-carry-on ends each game at its first)",
    )
    parser.add_argument("--reference", metavar="CMD", help=argparse.SUPPRESS)
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"jhyap fuzz: {message}", file=sys.stderr)
    return 2


class _Progress:
    """Games, requests and their rates on stderr: a live line on a terminal, else a line
    every few seconds."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.last = 0.0
        self.lock = threading.Lock()

    def __call__(self, result: FuzzResult) -> None:
        now = time.monotonic()
        with self.lock:
            if now - self.last < (0.2 if self.tty else 5.0):
                return
            self.last = now
            line = (
                f"{result.seconds:,.0f} s: {plural(result.games, 'game', grouped=True)}, "
                f"{plural(result.requests, 'request', grouped=True)}, "
                f"{result.games_per_second:,.1f} games/s, {len(result.findings)} found"
            )
            if result.activity:
                line += f"; {result.activity}"
            self.stream.write(f"\r{line[:150]:<150}" if self.tty else line + "\n")
            self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\r" + " " * 150 + "\r")
            self.stream.flush()


def build_config(args: argparse.Namespace) -> FuzzConfig | str:
    """The run's configuration from parsed arguments, or what is wrong with them."""
    # lazy: start-up speed
    from conformance.fuzz.config import FuzzConfig
    from conformance.fuzz.writer import (
        KnownDivergence,
        KnownDivergenceError,
        load_known_divergences,
    )
    from conformance.harness.runner import InputError
    from conformance.spec.data import DataNotFound, ProfileNotFound
    from conformance.spec.profiles import ProfileFileError
    from conformance.spec.transcript_profiles import shipped_documents, with_profile_files

    # The command line's types check these too; pytest --jhyap-fuzz builds its own.
    if args.games is not None and args.games < 1:
        return "--games must be at least 1"
    if args.time is not None and not 0 < args.time <= MAX_DURATION:
        return f"--time must be above 0 and at most {MAX_DURATION}"
    if args.jobs < 1:
        return "--jobs must be at least 1"
    shard = getattr(args, "shard", WHOLE)
    empty = empty_shard_problem(shard, None if args.time else (args.games or DEFAULT_GAMES))
    if empty:
        return empty
    if not 0 < args.timeout <= MAX_TIMEOUT:
        return f"--timeout must be above 0 and at most {MAX_TIMEOUT}"
    if args.window < 1:
        return "--window must be at least 1"
    if args.shrink_budget < 0:
        return "--shrink-budget must not be negative"
    max_findings = getattr(args, "max_findings", DEFAULT_MAX_FINDINGS)
    if not 1 <= max_findings <= MAX_FINDINGS:
        return f"--max-findings must be from 1 to {MAX_FINDINGS}"
    env_items = tuple(getattr(args, "engine_env", None) or ())
    try:
        engine_env = (
            default_engine_env(env_items) if args.engine is None else engine_environment(env_items)
        )
    except ValueError as exc:
        return str(exc)
    named = [p.strip() for text in args.profile for p in text.split(",") if p.strip()]
    clash = clashing_paths(
        (("--json", getattr(args, "json", None)), ("--out", args.out)),
        (("--known-divergences", args.known_divergences), *(("--profile", n) for n in named)),
    )
    if clash:
        return clash
    force = bool(getattr(args, "force", False))
    problem = report_file_problem(getattr(args, "json", None), FUZZ_JSON, force)
    if problem:
        return f"--json: {problem}"
    # Checked before fuzzing, not after a divergence is found and shrunk.
    unwritable = folder_problem(str(args.out)) if args.out is not None else None
    if unwritable:
        return f"--out: {unwritable}; the transcript of a divergence goes there"
    try:
        documents, ids = with_profile_files(shipped_documents(), named)
    except (ProfileFileError, DataNotFound, ProfileNotFound, InputError) as exc:
        return headed("the profiles cannot be loaded", str(exc))
    unknown = [p for p in ids if p not in documents]
    if unknown:
        return f"unknown profile {unknown[0]!r}; shipped profiles: {', '.join(sorted(documents))}"
    profiles = tuple(dict.fromkeys(ids)) if ids else tuple(sorted(documents))
    known: tuple[KnownDivergence, ...] = ()
    if args.known_divergences:
        try:
            known = tuple(load_known_divergences(args.known_divergences))
        except KnownDivergenceError as exc:
            return str(exc)
    default_env = default_engine_env()
    return FuzzConfig(
        engine=args.engine if args.engine is not None else default_engine(),
        reference=args.reference if args.reference is not None else default_engine(),
        documents=documents,
        profiles=profiles,
        names=dict(zip(ids, named, strict=True)),
        engine_env=engine_env,
        engine_env_items=env_items,
        reference_env=None if args.reference is not None else default_env,
        games=None if args.time is not None else (args.games or DEFAULT_GAMES),
        seconds=args.time,
        seed=args.seed,
        seats=args.seats,
        jobs=args.jobs,
        window=args.window,
        timeout=args.timeout,
        known=known,
        out=Path(args.out),
        shrink_budget=args.shrink_budget,
        max_findings=max_findings,
        check_schema=getattr(args, "validate_protocol", True),
        steer=getattr(args, "steer", True),
        carry_on=getattr(args, "carry_on", True),
        shard=(shard.index, shard.count),
    )


def summary_lines(config: FuzzConfig, result: FuzzResult) -> list[str]:
    """The run in words: amounts and rates, coverage per profile, what was never reached."""
    # lazy: start-up speed
    from conformance.fuzz.campaign import never_reached
    from conformance.fuzz.counters import (
        COUNTERS,
        SEVERAL_LOWEST,
        applicable_counters,
        low_counters,
        unreachable_counters,
    )

    per_profile = ", ".join(f"{p} {result.stats[p].games}" for p in config.profiles)
    lines = [
        f"{plural(result.games, 'game', grouped=True)} ({per_profile}), "
        f"{plural(result.requests, 'request', grouped=True)} in "
        f"{result.seconds:.1f} s ({result.shrinking_seconds:.1f} s shrinking and checking): "
        f"{result.games_per_second:,.1f} games/s, {result.requests_per_second:,.0f} "
        f"requests/s (seed {config.seed}, {plural(config.jobs, 'job')}"
        f"{shard_words(config)})",
        *games_lines(config, result),
        "coverage (counted up to where each game stopped):",
    ]
    missing = never_reached(config, result)
    for profile in config.profiles:
        counts = result.stats[profile].coverage
        shown = ", ".join(f"{name} {counts[name]}" for name in COUNTERS if counts[name])
        lines.append(f"  {profile}: {shown or 'nothing'}")
        unreachable = unreachable_counters(config.documents[profile])
        if unreachable:
            by_reason: dict[str, list[str]] = {}
            for name, reason in unreachable.items():
                by_reason.setdefault(reason, []).append(name)
            why = "; ".join(f"{', '.join(names)} ({r})" for r, names in by_reason.items())
            lines.append(f"  {profile}: cannot reach: {why}")
        if missing[profile] and result.stats[profile].games:
            lines.append(f"  {profile}: never reached: {', '.join(missing[profile])}")
        stats = result.stats[profile]
        applicable = stats.applicable or applicable_counters(config.documents[profile])
        if config.seats is not None and config.seats < 3:
            # No showdown of two seats has several other hands to break a tie among.
            applicable = tuple(c for c in applicable if c != SEVERAL_LOWEST)
        low = low_counters(stats.coverage, stats.games, applicable)
        if low:
            lines.append(f"  {profile}: low: {'; '.join(low)} — raise --time or seats")
    lines += declined_lines(config, result)
    for signature, count in sorted(result.known_hits.items()):
        lines.append(f"known divergence ({plural(count, 'game')}): {signature}")
    for signature, count in sorted(result.repeats.items()):
        lines.append(f"met again ({plural(count, 'more game')}): {signature}")
    for problem in sorted(set(result.reference_problems)):
        lines.append(f"REFERENCE INVARIANT BROKEN: {problem}")
    if result.capped:
        lines.append(f"stopped at --max-findings {config.max_findings}")
    return lines


def games_lines(config: FuzzConfig, result: FuzzResult) -> list[str]:
    """How many games reached their end, how many stopped at a divergence, and how many
    divergences games went on past (steered away from or carried)."""
    stats = [result.stats[p] for p in config.profiles]
    ended, stopped = sum(s.ended for s in stats), sum(s.stopped for s in stats)
    carried = sum(s.carried for s in stats)
    how = "carried on past divergences" if config.carry_on else "each stopped at its first"
    lines = [
        f"games: {ended:,} reached their end, {stopped:,} stopped at a divergence "
        f"({plural(carried, 'divergence', grouped=True)} gone past; {how})"
    ]
    stops: Counter[str] = Counter()
    for s in stats:
        stops.update(s.stopped_at)
    if stops:
        shown = "; ".join(f"{sig} ({n})" for sig, n in stops.most_common(3))
        lines.append(f"  stopped at: {shown}")
    return lines


def shard_words(config: FuzzConfig) -> str:
    index, count = config.shard
    return f", shard {index}/{count}" if count > 1 else ""


def declined_lines(config: FuzzConfig, result: FuzzResult) -> list[str]:
    """Per profile, the games the engine declined: not applicable, not divergences."""
    lines = []
    for profile in config.profiles:
        stats = result.stats[profile]
        if not stats.unsupported:
            continue
        played = stats.games + stats.unsupported
        whole = " (the whole profile: its counters are not applicable)" if not stats.games else ""
        lines.append(
            f"not applicable: the engine declined {stats.unsupported} of {played} {profile} "
            f"games, skipped and not counted as divergences{whole}:"
        )
        for message, count in stats.declined.most_common(5):
            lines.append(f"  {count} x {message}")
        if stats.games and (values := stats.never_accepted()):
            lines.append(f"  option values no accepted table had: {', '.join(values)}")
    return lines


def finding_lines(finding: Finding, number: int = 1) -> list[str]:
    # lazy: start-up speed
    from conformance.fuzz.driver import shorten

    found, shrunk = finding.found, finding.shrunk
    steps = len(finding.data.get("steps") or [])
    fuzz_block = finding.data["fuzz"]
    stopped = f", stopped by {shrunk.stopped}" if shrunk.stopped else ""
    lines = [
        f"DIVERGED in game {finding.game} ({finding.profile}), request {found.index} "
        f"after {finding.find_seconds:.1f} s of fuzzing: {found.signature} ({found.kind}) "
        f"[divergence {number}]",
        *(f"  {d}" for d in found.differences[:6]),
        f"  expected (reference): {shorten(found.expected)}",
        f"  actual (engine): {shorten(found.actual)}",
        f"  clauses involved: {', '.join(finding.data['clauses'])}",
        f"  shrunk and checked in {finding.shrink_seconds:.1f} s "
        f"({plural(shrunk.candidates, 'candidate')}, "
        f"{plural(shrunk.requests_sent, 'request', grouped=True)}{stopped}): "
        f"{plural(found.index + 1, 'request')} -> {plural(steps, 'step')}, "
        f"{plural(shrunk.plan.spec.seats, 'seat')}",
    ]
    if finding.transcript is not None:
        lines.append(f"  transcript: {finding.transcript} (kind fuzz: not an oracle)")
    lines += [f"  checked: {line}" for line in finding.verified]
    lines += [
        f"  replay: {fuzz_block['replay']}",
        f"  rerun: {fuzz_block['rerun']}",
        "  to accept it, list it in a --known-divergences file: "
        f"- {{signature: {json.dumps(shrunk.divergence.signature)}, clause: ..., reason: ...}}",
    ]
    # An engine's words (its refusal, quoted in the checks) stay on their line.
    return [one_line(line) for line in lines]


def run(args: argparse.Namespace) -> int:
    """Fuzz; see the exit statuses in the parser's description."""
    # lazy: start-up speed
    from conformance.fuzz.campaign import fuzz
    from conformance.fuzz.driver import ReferenceFailed
    from conformance.fuzz.report import json_report
    from conformance.harness.client import EngineUnusable

    config = build_config(args)
    if isinstance(config, str):
        return _fail(config)
    # With the report on standard output, the text goes to standard error, as run's does.
    console = sys.stderr if args.json == STDOUT else sys.stdout
    print(
        f"jhyap fuzz: {config.engine} against the reference; seed {config.seed}; "
        f"profiles {', '.join(config.profiles)}",
        file=console,
    )
    progress = _Progress()
    try:
        result = fuzz(config, progress)
    except EngineUnusable as exc:
        progress.finish()
        return _fail(f"the engine is unusable: {exc}")
    except ReferenceFailed as exc:
        progress.finish()
        return _fail(str(exc))
    progress.finish()
    for line in summary_lines(config, result):
        print(line, file=console)
    played = sum(s.games for s in result.stats.values())
    if result.findings:
        status = 1
        for number, finding in enumerate(result.findings, start=1):
            for line in finding_lines(finding, number):
                print(line, file=console)
        print(f"{len(result.findings)} distinct divergence(s)", file=console)
    elif played == 0:
        status = 2
        why = (
            "the engine declined every game"
            if any(s.unsupported for s in result.stats.values())
            else f"no game finished within --time {args.time:g}"
            if args.time is not None
            else "no game was played"
        )
        print(f"jhyap fuzz: {why}: nothing was fuzzed", file=sys.stderr)
    else:
        status = 1 if result.reference_problems else 0
        print("no divergence" if status == 0 else "the reference broke an invariant", file=console)
    if args.json:
        try:
            argv = tuple(getattr(args, "argv", ("jhyap", "fuzz")))
            report = json_report(config, result, status, argv)
            text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
            write_report(args.json, text, kind=FUZZ_JSON, force=args.force)
        except OSError as exc:
            return _fail(f"cannot write the report: {exc}")
    return status
