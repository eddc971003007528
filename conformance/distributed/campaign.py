"""The command line of a fuzz campaign on a Dask cluster (an entry point, as ``jhyap`` is):
each shard a task (:mod:`.fuzz_shards`), merged as ``jhyap merge`` does.

    python -m conformance.distributed.campaign --cluster local:2 --shards 4 \\
        [--json FILE] -- --engine ./my-engine --games 2000 --no-steer

The arguments after ``--`` are those of ``jhyap fuzz`` (without ``--shard`` or ``--json``);
every worker needs the engine command to work where it runs, and this jhyap installed.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence

from conformance.cli import Terminated, build_parser, catch_termination
from conformance.commands import ExitCode
from conformance.commands.checks import report_file_problem
from conformance.commands.fuzz import build_config
from conformance.dask_cluster import ClusterUnavailable, address_problem
from conformance.reporting.outputs import FUZZ_JSON
from conformance.reporting.terminal import one_line
from conformance.spec.files import STDOUT, os_error_text, write_report

from .fuzz_shards import ShardFailed, fuzz_on_cluster
from .merge import fuzz_lines

PROG = "python -m conformance.distributed.campaign"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the campaign; its exit status. Ctrl-C, SIGTERM or SIGHUP ends it in one line
    (130, 143, 129), the cluster's workers and their engines with it, as jhyap does."""
    previous = catch_termination()
    try:
        return _campaign(argv)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Terminated as exc:
        print(f"{PROG}: stopped by {signal.Signals(exc.signum).name}", file=sys.stderr)
        return 128 + exc.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _campaign(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    fuzz_args = words[words.index("--") + 1 :] if "--" in words else []
    own = words[: words.index("--")] if "--" in words else words
    parser = argparse.ArgumentParser(prog=PROG)
    parser.add_argument("--cluster", required=True, metavar="ADDRESS", help="local:N or tcp://…")
    parser.add_argument("--shards", type=int, required=True, metavar="N", help="shards (tasks)")
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="write the merged report; - for standard output (the text then goes to standard "
        "error); an existing file only if it is a fuzz report",
    )
    args = parser.parse_args(own)
    refused = [w for w in fuzz_args if w.split("=")[0] in ("--shard", "--json")]
    problem = address_problem(args.cluster)
    if problem or args.shards < 1 or refused:
        why = problem or (f"{refused[0]} is set here" if refused else "--shards must be >= 1")
        print(f"{parser.prog}: {why}", file=sys.stderr)
        return 2

    # the campaign's configuration, built once here and sent to every shard's task
    config = build_config(_parsed(fuzz_args))
    unwritable = report_file_problem(args.json, FUZZ_JSON)
    if isinstance(config, str) or unwritable:
        why = config if isinstance(config, str) else f"--json: {unwritable}"
        print(f"{parser.prog}: {why}", file=sys.stderr)
        return 2
    command = ("python", "-m", "conformance.distributed.campaign", *words)
    try:
        report = fuzz_on_cluster(config, fuzz_args, args.shards, args.cluster, command)
    except (ClusterUnavailable, ShardFailed) as exc:
        # one line, and 2 (not 1, which says that a shard diverged)
        print(f"{parser.prog}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    if args.json:
        try:
            text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
            write_report(args.json, text, kind=FUZZ_JSON)
        except OSError as exc:
            print(
                f"{parser.prog}: cannot write the report: {os_error_text(exc, args.json)}",
                file=sys.stderr,
            )
            return 2
    console = sys.stderr if args.json == STDOUT else sys.stdout
    print("\n".join(one_line(line) for line in fuzz_lines(report)), file=console)
    return int(report["exit_status"])


def _parsed(fuzz_args: Sequence[str]) -> argparse.Namespace:
    return build_parser(["fuzz"]).parse_args(["fuzz", *fuzz_args])


if __name__ == "__main__":
    raise SystemExit(main())
