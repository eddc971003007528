"""Merge the ``--json`` files of the shards of one run into the report one run gives.

A simulation merges exactly: its files carry a :class:`~conformance.simulation.stats.Tally`
(counts, and sums and sums of squares as exact fractions), and the figures are computed
from the merged tally as one run computes them from its own. A fuzz campaign merges by
adding games, requests and coverage counters and by keeping, for each divergence
signature, the finding of the lowest game (the later ones are counted as met again).
"""

from __future__ import annotations

import datetime
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import jsonschema

from conformance.fuzz.report import REPORT_FORMAT
from conformance.simulation.report import FORMAT, FORMAT_VERSION, RUN_KEYS, figures_json
from conformance.simulation.stats import Tally
from conformance.spec.data import schema_dir
from conformance.spec.files import os_error_text, read_input
from conformance.spec.wording import plural
from jhyap_core import bounded_json

SIMULATION: Final = FORMAT
FUZZ: Final = REPORT_FORMAT
SCHEMAS: Final = {SIMULATION: "simulation.schema.json", FUZZ: "fuzz-report.schema.json"}
VERSIONS: Final = {SIMULATION: FORMAT_VERSION, FUZZ: 1}


class MergeError(Exception):
    """Why the files cannot be merged: one line."""


@dataclass(frozen=True, slots=True)
class ShardFile:
    path: str
    data: Mapping[str, Any]
    index: int
    count: int


@dataclass(frozen=True, slots=True)
class Merged:
    format: str  # SIMULATION or FUZZ
    report: dict[str, Any]


def schema_problem(data: Any, name: str) -> str | None:
    schema = json.loads((schema_dir() / name).read_text("utf-8"))
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(data)
    )
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "the top level"
    return f"{where}: {error.message[:200]}"


MAX_EXACT: Final = 2**53 - 1  # the largest integer every JSON reader holds exactly
MAX_FIGURE_CHARS: Final = 200  # an exact sum written as text (a tally's moments)


def too_large(data: object, where: str = "") -> str | None:
    """The first number of a shard no run writes: an integer beyond 2^53 - 1 (a count of
    10^400 games was taken, then failed as a float: an internal error) or an exact sum
    of more than MAX_FIGURE_CHARS characters (Python refuses to read 4,300 digits)."""
    if isinstance(data, bool):
        return None
    if isinstance(data, int) and abs(data) > MAX_EXACT:
        return f"{where}: a number of {data.bit_length()} bits, beyond 2^53 - 1"
    if isinstance(data, str) and where.endswith(("/sum", "/sum_squares")):
        if len(data) > MAX_FIGURE_CHARS:
            return f"{where}: an exact figure of {len(data):,} characters"
        return None
    items: Iterable[tuple[object, object]] = ()
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    for key, value in items:
        problem = too_large(value, f"{where}/{key}" if where else str(key))
        if problem:
            return problem
    return None


def read_shard(path: str) -> tuple[str, ShardFile]:
    """One shard file, checked against its schema; its format and contents."""
    try:
        text = read_input(path).decode("utf-8")
    except OSError as exc:
        raise MergeError(f"cannot read {os_error_text(exc, path)}") from None
    except UnicodeDecodeError:
        raise MergeError(f"{path}: not UTF-8 text") from None
    try:
        # Bounded: a shard nested 200,000 deep made json.loads a RecursionError.
        data = bounded_json.loads(text)
    except bounded_json.JsonTooDeep as exc:
        raise MergeError(f"{path}: not a shard file: {exc}") from None
    except ValueError as exc:
        line = getattr(exc, "lineno", "?")
        raise MergeError(f"{path}: line {line}: not JSON ({str(exc).split(':')[0]})") from None
    kind = data.get("format") if isinstance(data, dict) else None
    if kind not in SCHEMAS:
        raise MergeError(
            f"{path}: not the --json file of jhyap simulate or jhyap fuzz "
            f"(format {kind!r}, not {SIMULATION!r} or {FUZZ!r})"
        )
    if data.get("format_version") != VERSIONS[kind]:
        raise MergeError(
            f"{path}: format_version {data.get('format_version')!r} of {kind}; "
            f"this jhyap reads {VERSIONS[kind]}"
        )
    if kind == FUZZ and "run" not in data:
        raise MergeError(f"{path}: no 'run' field: written by a jhyap fuzz without --shard")
    problem = schema_problem(data, SCHEMAS[kind]) or too_large(data)
    if problem is None and kind == SIMULATION:
        problem = Tally.problem_of(data["tally"])
    if problem is not None:
        raise MergeError(f"{path}: field {problem}")
    shard = data["shard"] if kind == SIMULATION else data["run"]["shard"]
    return kind, ShardFile(path, data, int(shard["index"]), int(shard["count"]))


def _run_of(kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """What every shard of one run shares (its jhyap version too: the games may differ)."""
    version = {"jhyap version": data["tool"]["version"]}
    if kind == SIMULATION:
        return {**{key: data[key] for key in RUN_KEYS}, **version}
    run = {k: v for k, v in data["run"].items() if k != "shard"}
    return {"engine": data["engine"]["command"], "seed": data["seed"], **run, **version}


def check_together(kind: str, shards: Sequence[ShardFile]) -> list[ShardFile]:
    """The shards in order, once each checked to be all the shards of one run."""
    first = shards[0]
    run = _run_of(kind, first.data)
    for shard in shards[1:]:
        other = _run_of(kind, shard.data)
        for key, value in run.items():
            if other[key] != value:
                raise MergeError(
                    f"{first.path} and {shard.path} are not shards of one run: their "
                    f"{key} differs ({json.dumps(value)} and {json.dumps(other[key])})"
                )
        if shard.count != first.count:
            raise MergeError(
                f"{first.path} and {shard.path} are not shards of one run: one of "
                f"{first.count} shards and one of {shard.count}"
            )
    seen: dict[int, ShardFile] = {}
    for shard in shards:
        if shard.index in seen:
            raise MergeError(
                f"{seen[shard.index].path} and {shard.path} are both shard "
                f"{shard.index}/{shard.count}"
            )
        seen[shard.index] = shard
    missing = [k for k in range(1, first.count + 1) if k not in seen]
    if missing:
        names = ", ".join(f"{k}/{first.count}" for k in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        raise MergeError(f"shard {names}{more} missing: every shard of the run must be given")
    return [seen[k] for k in sorted(seen)]


def merge_simulations(shards: Sequence[ShardFile]) -> dict[str, Any]:
    tally = Tally()
    for shard in shards:
        tally = tally + Tally.from_json(shard.data["tally"])
    first = shards[0].data
    header = {key: first[key] for key in ("format", "format_version", "tool", *RUN_KEYS)}
    header["shard"] = {"index": 1, "count": 1}
    return figures_json(header, tally)


def _sum_counts(maps: Sequence[Mapping[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for counts in maps:
        total.update(counts)
    return dict(total)


def merge_fuzz(shards: Sequence[ShardFile], argv: Sequence[str]) -> dict[str, Any]:
    reports = [s.data for s in shards]
    first = reports[0]
    profiles = {}
    for profile in first["run"]["profiles"]:
        parts = [r["profiles"][profile] for r in reports]
        coverage = {c: sum(p["coverage"][c] for p in parts) for c in parts[0]["coverage"]}
        unreached = {c for p in parts for c in p["never_reached"]}
        profiles[profile] = {
            "games": sum(p["games"] for p in parts),
            "requests": sum(p["requests"] for p in parts),
            "unsupported": sum(p["unsupported"] for p in parts),
            **{
                name: sum(p[name] for p in parts)
                for name in ("ended", "stopped", "carried")
                if all(name in p for p in parts)
            },
            "coverage": coverage,
            "never_reached": [c for c in coverage if c in unreached and not coverage[c]],
        }
    met_again = Counter(_sum_counts([r["met_again"] for r in reports]))
    divergences: list[dict[str, Any]] = []
    filed: set[str] = set()
    # The lowest game files a class, as in one run; the others met it again.
    for finding in sorted((f for r in reports for f in r["divergences"]), key=lambda f: f["game"]):
        if finding["signature"] in filed:
            met_again[finding["signature"]] += 1
        else:
            filed.add(finding["signature"])
            divergences.append(finding)
    problems = sorted({p for r in reports for p in r["reference_problems"]})
    games = sum(r["games"] for r in reports)
    requests = sum(r["requests"] for r in reports)
    seconds = round(sum(r["seconds"] for r in reports), 3)
    played = sum(p["games"] for p in profiles.values())
    status = 1 if divergences or (played and problems) else (2 if played == 0 else 0)
    return {
        **{key: first[key] for key in ("format", "format_version", "tool")},
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": list(argv),
        "engine": first["engine"],
        "seed": first["seed"],
        "jobs": sum(r["jobs"] for r in reports),
        "run": {**first["run"], "shard": {"index": 1, "count": 1}},
        "games": games,
        "requests": requests,
        # Machine time: the shards' seconds added, so the rates are those of one process.
        "seconds": seconds,
        "shrinking_seconds": round(sum(r["shrinking_seconds"] for r in reports), 3),
        "games_per_second": round(games / seconds, 2) if seconds > 0 else 0.0,
        "requests_per_second": round(requests / seconds, 1) if seconds > 0 else 0.0,
        "profiles": profiles,
        "known_divergences": _sum_counts([r["known_divergences"] for r in reports]),
        "met_again": dict(sorted(met_again.items())),
        "reference_problems": problems,
        "capped": any(r["capped"] for r in reports),
        "divergences": divergences,
        "exit_status": status,
        "merged_from": [s.path for s in shards],
    }


def merge_files(paths: Sequence[str], argv: Sequence[str] = ("jhyap", "merge")) -> Merged:
    """The report of the run whose shards wrote ``paths``."""
    if not paths:
        raise MergeError("no shard file given")
    read = [read_shard(p) for p in paths]
    kinds = {kind for kind, _ in read}
    if len(kinds) > 1:
        sim = next(s.path for k, s in read if k == SIMULATION)
        fz = next(s.path for k, s in read if k == FUZZ)
        raise MergeError(f"{sim} is a simulation and {fz} a fuzz report: they do not merge")
    (kind,) = kinds
    shards = check_together(kind, [s for _, s in read])
    if kind == SIMULATION:
        return Merged(kind, merge_simulations(shards))
    return Merged(kind, merge_fuzz(shards, argv))


def fuzz_lines(report: Mapping[str, Any]) -> list[str]:
    """A merged campaign in words (the text of ``jhyap fuzz``, from its report)."""
    per_profile = ", ".join(f"{p} {v['games']}" for p, v in report["profiles"].items())
    lines = [
        f"{plural(report['games'], 'game', grouped=True)} ({per_profile}), "
        f"{plural(report['requests'], 'request', grouped=True)} in "
        f"{report['seconds']:.1f} s of {plural(len(report.get('merged_from', [1])), 'shard')} "
        f"({report['games_per_second']:,.1f} games/s a shard; seed {report['seed']})",
        "coverage (counted up to each game's divergence):",
    ]
    for profile, stats in report["profiles"].items():
        shown = ", ".join(f"{c} {n}" for c, n in stats["coverage"].items() if n)
        lines.append(f"  {profile}: {shown or 'nothing'}")
        if stats["never_reached"]:
            lines.append(f"  {profile}: never reached: {', '.join(stats['never_reached'])}")
        if stats["unsupported"]:
            declined = plural(stats["unsupported"], "game")
            lines.append(f"skipped: the engine declined {profile} ({declined})")
    for signature, count in sorted(report["known_divergences"].items()):
        lines.append(f"known divergence ({plural(count, 'game')}): {signature}")
    for signature, count in sorted(report["met_again"].items()):
        lines.append(f"met again ({plural(count, 'more game')}): {signature}")
    for problem in report["reference_problems"]:
        lines.append(f"REFERENCE INVARIANT BROKEN: {problem}")
    if report["capped"]:
        lines.append(f"a shard stopped at --max-findings {report['run']['max_findings']}")
    for number, f in enumerate(report["divergences"], start=1):
        lines.append(
            f"DIVERGED in game {f['game']} ({f['profile']}), request {f['request']}: "
            f"{f['signature']} ({f['class']}) [divergence {number}]"
        )
        lines += [f"  {d}" for d in f["differences"][:6]]
        lines.append(f"  clauses involved: {', '.join(f['clauses'])}")
        if f["transcript"]:
            lines.append(f"  transcript: {f['transcript']} (kind fuzz: not an oracle)")
        lines += [f"  replay: {f['replay']}", f"  rerun: {f['rerun']}"]
    if report["divergences"]:
        lines.append(f"{len(report['divergences'])} distinct divergence(s)")
    elif report["exit_status"] == 0:
        lines.append("no divergence")
    return lines
