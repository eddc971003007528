"""The variant study behind the site's "How the variants play" page.

For every shipped profile it plays seeded hands under each call limit the host may
choose, at every seat count, and whole games, under each policy. The results are
cached by a key over the profiles, the engine's and the simulation's sources, the
seed and ``STUDY_VERSION``: a build reuses them until one of those changes.

    python -m conformance.simulation.study [--write FILE]

recomputes the study and writes it (by default to the snapshot the site reads first).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_engine.profile import option_specs

from .play import HandRecord, SimulationSpec, default_seats, play_one
from .stats import mean, share, success_by_value, summarise

STUDY_VERSION = 1
SEED = "variant-study-1"
HANDS_PER_POINT = 300  # hands played for each point of a hand-length figure
GAMES_PER_POLICY = 40  # whole games for the game-length figures
HAND_CAP = 10  # hands per game when only hands are measured
POLICIES = ("heuristic", "random")
LIMITS = (5, 10, 15)  # the call limits compared where the host may choose among them

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "docs" / "data" / "variant-study.json"


@dataclass(frozen=True, slots=True)
class Point:
    """One configuration of the study: a profile, its options, a seat count and a policy."""

    profile: str
    kind: str  # "limit", "seats" or "games"
    options: Mapping[str, Any]
    seats: int
    policy: str


def call_limit_option(document: Mapping[str, Any]) -> tuple[str, list[int]] | None:
    """The option that sets the call limit and the limits of ``LIMITS`` it allows."""
    for spec in option_specs(document).values():
        if spec.sets != "call.limit":
            continue
        allowed = []
        for limit in LIMITS:
            try:
                spec.normalize(limit)
            except Exception:
                continue
            allowed.append(limit)
        return spec.name, allowed
    return None


def points_of(profile: str, document: Mapping[str, Any]) -> list[Point]:
    seats = default_seats(document)
    points: list[Point] = []
    limits = call_limit_option(document)
    for policy in POLICIES:
        if limits is not None:
            name, values = limits
            points += [Point(profile, "limit", {name: v}, seats, policy) for v in values]
        else:
            points.append(Point(profile, "limit", {}, seats, policy))
        if document["rules"]["game_end"]["kind"] != "host_ends":
            points.append(Point(profile, "games", {}, seats, policy))
    low, high = int(document["rules"]["seats"]["min"]), int(document["rules"]["seats"]["max"])
    points += [Point(profile, "seats", {}, n, "heuristic") for n in range(low, high + 1)]
    return points


def measure(args: tuple[Point, Mapping[str, Any]]) -> dict[str, Any]:
    """Play one point of the study and return its figures as JSON data."""
    point, document = args
    seed = f"{SEED}:{point.profile}:{point.kind}:{sorted(point.options.items())}:{point.seats}"
    if point.kind == "games":
        spec = SimulationSpec(document, point.seats, (point.policy,), point.options, 200)
        records = [play_one(spec, seed, i) for i in range(GAMES_PER_POLICY)]
        return {"summary": summarise(records).to_json()}
    spec = SimulationSpec(document, point.seats, (point.policy,), point.options, HAND_CAP)
    records = []
    hands: list[HandRecord] = []
    while len(hands) < HANDS_PER_POINT:
        record = play_one(spec, seed, len(records))
        records.append(record)
        hands.extend(record.hands)
    summary = summarise(records).to_json()
    summary["turns_per_player"] = mean(h.turns / h.seats for h in hands).to_json()
    summary["at_limit_success"] = _at_limit(hands, document, point.options)
    summary["success_by_value"] = {str(v): e.to_json() for v, e in success_by_value(hands).items()}
    return {"summary": summary}


def _at_limit(
    hands: Sequence[HandRecord], document: Mapping[str, Any], options: Mapping[str, Any]
) -> dict[str, Any]:
    """Calls made right on the limit against calls below it (an inclusive limit only)."""
    limit = int(document["rules"]["call"]["limit"])
    option = call_limit_option(document)
    if option is not None and option[0] in options:
        limit = int(options[option[0]])
    if not document["rules"]["call"]["inclusive"]:
        limit -= 1
    on = [h for h in hands if h.called_value == limit]
    below = [h for h in hands if h.called_value < limit]
    return {
        "limit": limit,
        "on": share(sum(h.won for h in on), len(on)).to_json(),
        "below": share(sum(h.won for h in below), len(below)).to_json(),
    }


def study_key(documents: Mapping[str, Mapping[str, Any]]) -> str:
    digest = hashlib.sha256(f"{STUDY_VERSION}:{SEED}".encode())
    for pid in sorted(documents):
        digest.update(json.dumps(documents[pid], sort_keys=True, default=str).encode())
    for folder in (ROOT / "reference_engine", Path(__file__).resolve().parent):
        for source in sorted(folder.glob("*.py")):
            digest.update(source.name.encode() + source.read_bytes())
    return digest.hexdigest()[:20]


Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], list[Any]]


def compute(
    documents: Mapping[str, Mapping[str, Any]], jobs: int = 2, mapper: Mapper | None = None
) -> dict[str, Any]:
    """The study; ``mapper`` (a function over tasks, results in order) measures the points
    elsewhere, e.g. on a Dask cluster (conformance.distributed.cluster)."""
    points = [p for pid, doc in documents.items() for p in points_of(pid, doc)]
    tasks = [(p, documents[p.profile]) for p in points]
    if mapper is not None:
        results = mapper(measure, tasks)
    elif jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(measure, tasks))
    else:
        results = [measure(task) for task in tasks]
    rows = [
        {
            "profile": p.profile,
            "kind": p.kind,
            "options": dict(p.options),
            "seats": p.seats,
            "policy": p.policy,
            **result,
        }
        for p, result in zip(points, results, strict=True)
    ]
    return {"key": study_key(documents), "version": STUDY_VERSION, "seed": SEED, "points": rows}


def _cache_file(key: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "jhyap" / f"variant-study-{key}.json"


def _read(path: Path, key: str) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if data.get("key") == key else None


def _write(path: Path, data: Mapping[str, Any]) -> None:
    from conformance.reporting.files import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def load_study(documents: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The study of ``documents``: from the snapshot, the user cache, or computed now."""
    key = study_key(documents)
    for path in (SNAPSHOT, _cache_file(key)):
        data = _read(path, key)
        if data is not None:
            return data
    data = compute(documents)
    # An unwritable cache only costs the next build the same time again.
    with contextlib.suppress(OSError):
        _write(_cache_file(key), data)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    from conformance.spec.data import shipped_profile_ids
    from conformance.spec.profiles import load_profile

    parser = argparse.ArgumentParser(prog="python -m conformance.simulation.study")
    parser.add_argument("--write", type=Path, default=SNAPSHOT, help="where to write the study")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="measure on a Dask cluster: local:N (N worker processes here) or a scheduler's "
        "address (the distributed extra)",
    )
    args = parser.parse_args(argv)
    documents = {pid: load_profile(pid) for pid in shipped_profile_ids()}
    if args.cluster:
        from conformance.distributed.cluster import ClusterUnavailable, map_on_cluster

        address = args.cluster
        try:
            data = compute(documents, mapper=lambda fn, tasks: map_on_cluster(fn, tasks, address))
        except ClusterUnavailable as exc:
            print(f"{parser.prog}: --cluster: {exc}", file=sys.stderr)
            return 2
    else:
        data = compute(documents, args.jobs)
    _write(args.write, data)
    print(f"wrote {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
