"""A fuzz campaign on a Dask cluster: each shard a task, merged as ``jhyap merge`` does.

    python -m conformance.distributed.campaign --cluster local:2 --shards 4 \\
        [--json FILE] -- --engine ./my-engine --games 2000 --no-steer

The arguments after ``--`` are those of ``jhyap fuzz`` (without ``--shard`` or ``--json``);
every worker needs the engine command to work where it runs, and this jhyap installed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from .merge import ShardFile, fuzz_lines, merge_fuzz


def fuzz_shard(task: tuple[tuple[str, ...], int, int]) -> dict[str, Any]:
    """Run shard ``index`` of ``count`` of the campaign ``argv``; its JSON report."""
    from conformance.cli import build_parser
    from conformance.commands.fuzz import build_config
    from conformance.distributed.shards import Shard
    from conformance.fuzz.campaign import fuzz
    from conformance.fuzz.report import json_report

    argv, index, count = task
    args = build_parser(["fuzz"]).parse_args(["fuzz", *argv])
    args.shard = Shard(index, count)
    config = build_config(args)
    if isinstance(config, str):
        raise ValueError(config)
    result = fuzz(config)
    findings = bool(result.findings) or bool(result.reference_problems)
    return json_report(config, result, 1 if findings else 0, ("jhyap", "fuzz", *argv))


def main(argv: Sequence[str] | None = None) -> int:
    from .cluster import ClusterUnavailable, address_problem, map_on_cluster

    words = list(sys.argv[1:] if argv is None else argv)
    fuzz_args = words[words.index("--") + 1 :] if "--" in words else []
    own = words[: words.index("--")] if "--" in words else words
    parser = argparse.ArgumentParser(prog="python -m conformance.distributed.campaign")
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
    from conformance.commands.checks import report_file_problem
    from conformance.commands.fuzz import build_config
    from conformance.reporting.outputs import FUZZ_JSON
    from conformance.spec.files import STDOUT, os_error_text, write_report

    # one line now, not a failed task later
    check = build_config(_parsed(fuzz_args))
    unwritable = report_file_problem(args.json, FUZZ_JSON)
    if isinstance(check, str) or unwritable:
        why = check if isinstance(check, str) else f"--json: {unwritable}"
        print(f"{parser.prog}: {why}", file=sys.stderr)
        return 2
    tasks = [(tuple(fuzz_args), k, args.shards) for k in range(1, args.shards + 1)]
    try:
        reports = map_on_cluster(fuzz_shard, tasks, args.cluster)
    except ClusterUnavailable as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 2
    shards = [ShardFile(f"shard {k}", r, k, args.shards) for k, r in enumerate(reports, 1)]
    report = merge_fuzz(shards, ("python", "-m", "conformance.distributed.campaign", *words))
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
    print("\n".join(fuzz_lines(report)), file=console)
    return int(report["exit_status"])


def _parsed(fuzz_args: Sequence[str]) -> argparse.Namespace:
    from conformance.cli import build_parser

    return build_parser(["fuzz"]).parse_args(["fuzz", *fuzz_args])


if __name__ == "__main__":
    raise SystemExit(main())
