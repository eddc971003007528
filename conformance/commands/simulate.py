"""``jhyap simulate PROFILE``: play seeded games and print how the ruleset plays."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, Final

from conformance.distributed.shards import Shard, add_shard_argument, empty_shard_problem
from conformance.reporting.outputs import FORCE_HELP, SIMULATE_JSON
from conformance.spec.wording import plural

from . import (
    COMMAND_HELP,
    ExitCode,
    Subparsers,
    add_option_argument,
    jobs_count,
    profile_with_options,
)
from .checks import (
    MAX_ROUNDS,
    MAX_SEATS,
    MAX_SIMULATED_GAMES,
    clashing_paths,
    report_file_problem,
    whole,
)

if TYPE_CHECKING:
    from conformance.simulation.play import SimulationSpec
    from conformance.simulation.stats import Tally

FIGURES: tuple[tuple[str, str, bool], ...] = (
    # attribute, label, shown as a percentage
    ("turns_per_hand", "turns per hand", False),
    ("hands_per_game", "hands per game", False),
    ("turns_per_game", "turns per game", False),
    ("reshuffles_per_hand", "reshuffles per hand", False),
    ("call_success", "calls that win", True),
    ("value_at_call", "hand value at a call", False),
    ("value_at_beaten_call", "hand value at a beaten call", False),
    ("won_call_tally", "a won call: caller's score", False),
    ("beaten_call_tally", "a beaten call: caller's loss", False),
    ("won_call_swing", "a won call: caller vs the rest", False),
    ("beaten_call_swing", "a beaten call: loss vs the rest", False),
)


def register(subparsers: Subparsers[argparse.ArgumentParser]) -> None:
    """Add the ``simulate`` subcommand."""
    parser = subparsers.add_parser(
        "simulate",
        help=COMMAND_HELP["simulate"],
        description="Play seeded games through the reference engine and print, with 95% "
        "confidence intervals, how long hands and games run, how often calls win and what "
        "they gain or cost, and how often each position in the turn order wins a hand. The "
        "same seed gives the same figures, whatever --jobs is.",
    )
    parser.add_argument("profile", metavar="PROFILE", help="a shipped profile id or a YAML file")
    add_option_argument(parser)
    parser.add_argument(
        "--seats",
        type=whole(1, MAX_SEATS),
        help="players at the table (default: 4, or the nearest count the profile allows)",
    )
    parser.add_argument(
        "--games",
        type=whole(1, MAX_SIMULATED_GAMES),
        default=1000,
        help="games to play (default: 1000; with --shard, of the whole run)",
    )
    parser.add_argument(
        "--policy",
        default="heuristic",
        metavar="NAME[,NAME...]",
        help="the policy of every seat, or a comma-separated list given to seats 0, 1, ... "
        "in turn (policies: random, heuristic; default: heuristic)",
    )
    parser.add_argument("--seed", default="0", help="the seed (default: 0)")
    parser.add_argument(
        "--max-rounds",
        type=whole(1, MAX_ROUNDS),
        default=50,
        metavar="N",
        help="end a host-ended table after N hands, and leave a game unfinished after N "
        "(default: 50)",
    )
    parser.add_argument(
        "--jobs", "-j", type=jobs_count, default=1, help="processes to play in; auto: one per CPU"
    )
    add_shard_argument(parser, "games")
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play on a Dask cluster instead of --jobs: local:N (N worker processes on this "
        "machine) or a scheduler's address, tcp://HOST:PORT, whose workers have this "
        "jhyap-conformance (needs the distributed extra); the figures are the same",
    )
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="also write the figures as JSON ('-': standard output, instead of the table), "
        "with the exact sums they come from (schema/simulation.schema.json)",
    )
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"jhyap simulate: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    # lazy: start-up speed
    from conformance.dask_cluster import ClusterUnavailable, address_problem
    from conformance.simulation.play import SimulationSpec, default_seats, play_games
    from conformance.simulation.stats import Tally
    from jhyap_core.vocabulary import JhyapError
    from reference_engine.game import Game
    from reference_engine.policies import POLICIES

    clash = clashing_paths((("--json", args.json),), (("PROFILE", args.profile),))
    if clash:
        return _fail(clash)
    problem = report_file_problem(args.json, SIMULATE_JSON, args.force)
    if problem:
        return _fail(f"--json: {problem}")
    empty = empty_shard_problem(args.shard, args.games)
    if empty:
        return _fail(empty)
    if args.cluster is not None:
        problem = address_problem(args.cluster)
        if problem is not None:
            return _fail(f"--cluster: {problem}")
        if args.jobs != 1:
            return _fail("--cluster and --jobs: the cluster's workers are the jobs; give one")
    loaded = profile_with_options("simulate", args.profile, args.option)
    if loaded is None:
        return ExitCode.ERROR
    document, options = loaded
    policies = tuple(name.strip() for name in args.policy.split(","))
    unknown = [name for name in policies if name not in POLICIES]
    if unknown or not all(policies):
        return _fail(
            f"unknown policy {unknown[0] if unknown else ''!r}; policies: {', '.join(POLICIES)}"
        )
    seats = args.seats if args.seats is not None else default_seats(document)
    try:
        Game(document, seats, options)
    except JhyapError as exc:
        return _fail(exc.message)
    spec = SimulationSpec(document, seats, policies, options, args.max_rounds)
    shard: Shard = args.shard
    games = shard.games(args.games)
    progress = Progress(len(games), sys.stderr)
    if args.cluster is not None:
        # lazy: start-up speed
        from conformance.distributed.simulate_cluster import simulate_on_cluster

        try:
            tally = simulate_on_cluster(spec, games, args.seed, args.cluster, progress)
        except ClusterUnavailable as exc:
            return _fail(f"--cluster: {exc}")
    else:
        records = play_games(spec, games, args.seed, jobs=args.jobs, progress=progress)
        tally = Tally.of(records)
    progress.finish()
    header = run_header(spec, args.games, args.seed, shard)
    return write_and_print(header, tally, args.json, "simulate", args.force)


def run_header(spec: SimulationSpec, games: int, seed: str, shard: Shard) -> dict[str, Any]:
    """The JSON header of a simulation (or of one shard of it)."""
    # lazy: start-up speed
    from conformance import __version__
    from conformance.simulation.report import FORMAT, FORMAT_VERSION

    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "tool": {"name": "jhyap-conformance", "version": __version__},
        "profile": spec.document["id"],
        "options": dict(spec.options),
        "seats": spec.seats,
        "policies": list(spec.seat_policies()),
        "total_games": games,
        "seed": seed,
        "max_rounds": spec.max_rounds,
        "host_ends": spec.document["rules"]["game_end"]["kind"] == "host_ends",
        "shard": shard.to_json(),
    }


def write_and_print(
    header: dict[str, Any], tally: Tally, path: str | None, command: str, force: bool = False
) -> int:
    """Write the JSON to ``path`` (if any) and print the table (unless it went to stdout)."""
    # lazy: start-up speed
    from conformance.simulation.report import figures_json

    if path:
        # lazy: start-up speed
        from conformance.spec.files import STDOUT, os_error_text, write_report

        text = json.dumps(figures_json(header, tally), indent=2, allow_nan=False) + "\n"
        try:
            write_report(path, text, kind=SIMULATE_JSON, force=force)
        except OSError as exc:
            print(
                f"jhyap {command}: cannot write the JSON: {os_error_text(exc, path)}",
                file=sys.stderr,
            )
            return ExitCode.ERROR
        if path == STDOUT:
            return ExitCode.OK
    print(figures_table(header, tally.summary()))
    return ExitCode.OK


class Progress:
    """How many games are played, on stderr: a line rewritten in place on a terminal; else
    (a log, a CI job) a line every LOG_EVERY seconds and one at the end."""

    LOG_EVERY: Final = 5.0

    def __init__(
        self, total: int, stream: IO[str], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.total = total
        self.stream = stream
        self.tty = stream.isatty()
        self.clock = clock
        self.logged = clock()

    def __call__(self, done: int) -> None:
        if self.tty:
            self.stream.write(f"\rplayed {done}/{plural(self.total, 'game')}")
        elif done == self.total or self.clock() - self.logged >= self.LOG_EVERY:
            self.logged = self.clock()
            self.stream.write(f"jhyap simulate: played {done}/{plural(self.total, 'game')}\n")
        self.stream.flush()

    def finish(self) -> None:
        """Clear a terminal's line (a log keeps its last line)."""
        if self.tty:
            self.stream.write("\r" + " " * 40 + "\r")
            self.stream.flush()


def figures_table(header: dict[str, Any], summary: Any) -> str:
    options = ", ".join(f"{k}={v}" for k, v in header["options"].items()) or "defaults"
    policies = sorted(set(header["policies"]))
    shard = Shard(header["shard"]["index"], header["shard"]["count"])
    games = plural(summary.games, "game")
    if not shard.whole:
        games += f" (shard {shard.text()} of {header['total_games']})"
    lines = [
        f"{header['profile']} ({options}), {plural(header['seats'], 'seat')}, "
        f"{'/'.join(policies)} play, {games}, seed {header['seed']}",
        f"{plural(summary.hands, 'hand')}; 95 % confidence intervals in brackets",
        "",
    ]
    for attr, label, percent in FIGURES:
        estimate = getattr(summary, attr)
        lines.append(f"  {label:<32} {estimate.text(1 if percent else 2, percent)}")
    if header["host_ends"]:
        lines.append(
            f"  (the table is ended by the host: per-game figures do not apply; each "
            f"game was ended after {plural(header['max_rounds'], 'hand')})"
        )
    elif summary.unfinished_games:
        lines.append(
            f"  ({plural(summary.unfinished_games, 'game')} unfinished after "
            f"{plural(header['max_rounds'], 'hand')} "
            f"{'is' if summary.unfinished_games == 1 else 'are'} left out of the per-game figures)"
        )
    lines.append("")
    lines.append("  hands won by position in the turn order (0 = the hand's starter):")
    for position, estimate in enumerate(summary.win_by_position):
        lines.append(f"    {position}: {estimate.text(1, percent=True)}")
    return "\n".join(lines)
