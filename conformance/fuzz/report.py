"""The JSON report of ``jhyap fuzz --json FILE`` (schema/fuzz-report.schema.json).

Its header is the one of ``jhyap run``'s report (format, format_version, tool, created,
command, engine); then the run, the coverage per profile and every divergence class.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any, Final

from jhyap_core.vocabulary import PROTOCOL_VERSION

from .. import __version__
from .campaign import Finding, FuzzResult, never_reached
from .config import FuzzConfig
from .counters import COUNTERS

REPORT_FORMAT: Final = "jhyap-fuzz-report"
REPORT_FORMAT_VERSION: Final = 1


def finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "game": finding.game,
        "profile": finding.profile,
        "request": finding.found.index,
        "class": finding.found.kind,
        "signature": finding.shrunk.divergence.signature,
        "differences": list(finding.found.differences),
        "clauses": list(finding.data.get("clauses") or []),
        "transcript": str(finding.transcript) if finding.transcript else None,
        "steps": len(finding.data.get("steps") or []),
        "verified": finding.verified_ok,
        "checks": list(finding.verified),
        "found_requests": finding.found_requests,
        "shrunk_requests": finding.shrunk.divergence.index + 1,
        "shrink_candidates": finding.shrunk.candidates,
        "shrink_stopped_by": finding.shrunk.stopped,
        "find_seconds": round(finding.find_seconds, 3),
        "shrink_seconds": round(finding.shrink_seconds, 3),
        "replay": finding.data["fuzz"]["replay"],
        "rerun": finding.data["fuzz"]["rerun"],
    }


def json_report(
    config: FuzzConfig, result: FuzzResult, status: int, argv: Sequence[str] = ("jhyap", "fuzz")
) -> dict[str, Any]:
    """The report as plain values."""

    missing = never_reached(config, result)
    return {
        "format": REPORT_FORMAT,
        "format_version": REPORT_FORMAT_VERSION,
        "tool": {"name": "jhyap-conformance", "version": __version__, "protocol": PROTOCOL_VERSION},
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": list(argv),
        "engine": {"command": config.engine},
        "seed": config.seed,
        "jobs": config.jobs,
        # What decides the games, so that shards of one run can be merged (jhyap merge).
        "run": {
            "profiles": list(config.profiles),
            "games": config.games,
            "seconds": config.seconds,
            "seats": config.seats,
            "steer": config.steer,
            "max_findings": config.max_findings,
            "shard": {"index": config.shard[0], "count": config.shard[1]},
        },
        "games": result.games,
        "requests": result.requests,
        "seconds": round(result.seconds, 3),
        "shrinking_seconds": round(result.shrinking_seconds, 3),
        "games_per_second": round(result.games_per_second, 2),
        "requests_per_second": round(result.requests_per_second, 1),
        "profiles": {
            p: {
                "games": result.stats[p].games,
                "requests": result.stats[p].requests,
                "unsupported": result.stats[p].unsupported,
                "ended": result.stats[p].ended,
                "stopped": result.stats[p].stopped,
                "carried": result.stats[p].carried,
                "coverage": {c: result.stats[p].coverage[c] for c in COUNTERS},
                "never_reached": missing[p],
            }
            for p in config.profiles
        },
        "known_divergences": dict(result.known_hits),
        "met_again": dict(result.repeats),
        "reference_problems": sorted(set(result.reference_problems)),
        "capped": result.capped,
        "divergences": [finding_json(f) for f in result.findings],
        "exit_status": status,
    }


__all__ = ["REPORT_FORMAT", "REPORT_FORMAT_VERSION", "finding_json", "json_report"]
