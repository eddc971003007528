"""The variant study behind the site's "How the variants play" page.

For every shipped profile it plays seeded hands under each call limit the host may
choose, at every seat count, and whole games, under each policy. The results are
stored per profile, keyed by a hash of the resolved profile and of the code version
(the engine's and the simulation's sources, the seed and ``STUDY_VERSION``): a build
reuses a profile's figures until its key changes, measures only the profiles whose key
did (saying so on stderr, with progress) and caches them under ~/.cache/jhyap.

    python -m conformance.simulation.study [--write FILE] [--all] [--jobs N]

refreshes the stored study (docs/data/variant-study.json, the snapshot the site reads
first): it measures the profiles whose key changed and keeps the others.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance.dask_cluster import ClusterUnavailable, map_on_cluster
from conformance.spec.data import shipped_profile_ids
from conformance.spec.files import write_atomic
from conformance.spec.profiles import load_profile

from .measure import (
    GAMES_PER_POLICY,
    HAND_CAP,
    HANDS_PER_POINT,
    LIMITS,
    POLICIES,
    SEED,
    STUDY_VERSION,
    Point,
    call_limit_option,
    measure,
    points_of,
)
from .play import worker_pool

__all__ = [
    "GAMES_PER_POLICY",
    "HANDS_PER_POINT",
    "HAND_CAP",
    "LIMITS",
    "POLICIES",
    "SEED",
    "STUDY_VERSION",
    "Point",
    "call_limit_option",
    "code_version",
    "load_study",
    "measure",
    "points_of",
    "profile_key",
    "study_key",
]

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "docs" / "data" / "variant-study.json"
STORAGE = Path(__file__).name  # this file only stores and caches: not part of the code version


def code_version() -> str:
    """A hash of what every profile's figures depend on besides the profile: the engine's
    and the simulation's sources (this file, which only stores, excepted), the seed and
    ``STUDY_VERSION``."""
    digest = hashlib.sha256(f"{STUDY_VERSION}:{SEED}".encode())
    for folder in (ROOT / "jhyap_core", ROOT / "reference_engine", Path(__file__).resolve().parent):
        for source in sorted(folder.glob("*.py")):
            if source.parent == Path(__file__).parent and source.name == STORAGE:
                continue
            digest.update(source.name.encode() + source.read_bytes())
    return digest.hexdigest()[:20]


def profile_key(pid: str, document: Mapping[str, Any], code: str | None = None) -> str:
    """The key of one profile's figures: its id (the seeds name it), the resolved profile
    document and the code version."""
    digest = hashlib.sha256(f"{code or code_version()}:{pid}:".encode())
    digest.update(json.dumps(document, sort_keys=True, default=str).encode())
    return digest.hexdigest()[:20]


def profile_keys(documents: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    code = code_version()
    return {pid: profile_key(pid, documents[pid], code) for pid in sorted(documents)}


def study_key(documents: Mapping[str, Mapping[str, Any]]) -> str:
    """The key of the whole study: over every profile's key."""
    digest = hashlib.sha256(b"variant-study")
    for pid, key in profile_keys(documents).items():
        digest.update(f"{pid}={key};".encode())
    return digest.hexdigest()[:20]


Progress = Callable[[str], None]
Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], list[Any]]


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def compute_profile(
    pid: str,
    document: Mapping[str, Any],
    jobs: int = 2,
    progress: Progress | None = _say,
    mapper: Mapper | None = None,
) -> list[dict[str, Any]]:
    """Every point of one profile's study, measured now (progress on stderr); ``mapper`` (a
    function over tasks, results in order) measures them elsewhere, e.g. on a Dask cluster
    (conformance.dask_cluster)."""
    points = points_of(pid, document)
    tasks = [(p, document) for p in points]
    results: list[dict[str, Any]] = []
    started = time.monotonic()

    def tick() -> None:
        if progress is not None:
            elapsed = time.monotonic() - started
            progress(f"variant study: {pid}: {len(results)}/{len(points)} points ({elapsed:.0f} s)")

    if mapper is not None:
        results.extend(mapper(measure, tasks))
        tick()
    elif jobs > 1 and len(tasks) > 1:
        with worker_pool(jobs) as pool:
            for result in pool.map(measure, tasks):
                results.append(result)
                tick()
    else:
        for task in tasks:
            results.append(measure(task))
            tick()
    return [
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


def _assemble(
    documents: Mapping[str, Mapping[str, Any]], parts: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """The study as the site reads it (``points`` in profile order) and as it is stored
    (``profiles``: each profile's key and points)."""
    return {
        "key": study_key(documents),
        "version": STUDY_VERSION,
        "seed": SEED,
        "code": code_version(),
        "profiles": {pid: dict(parts[pid]) for pid in sorted(parts)},
        "points": [point for pid in documents for point in parts[pid]["points"]],
    }


def _stored(data: Mapping[str, Any] | None) -> dict[str, Mapping[str, Any]]:
    """Profile id -> {"key", "points"} of a stored study (an older layout holds none)."""
    if data is None or not isinstance(data.get("profiles"), Mapping):
        return {}
    return {
        str(pid): part
        for pid, part in data["profiles"].items()
        if isinstance(part, Mapping) and isinstance(part.get("points"), list)
    }


def compute(
    documents: Mapping[str, Mapping[str, Any]],
    jobs: int = 2,
    reuse: Mapping[str, Any] | None = None,
    progress: Progress | None = _say,
    mapper: Mapper | None = None,
) -> dict[str, Any]:
    """The study of ``documents``, reusing each profile of ``reuse`` whose key still fits and
    measuring the others (saying which, and why, on stderr)."""
    keys = profile_keys(documents)
    stored = _stored(reuse)
    parts: dict[str, Mapping[str, Any]] = {}
    for pid in documents:
        old = stored.get(pid)
        if old is not None and old.get("key") == keys[pid]:
            parts[pid] = old
            continue
        if progress is not None:
            why = "new profile" if old is None else "profile or engine changed"
            progress(f"variant study: recomputing {pid} ({why}; this takes a minute or so)")
        parts[pid] = {
            "key": keys[pid],
            "points": compute_profile(pid, documents[pid], jobs, progress, mapper),
        }
    return _assemble(documents, parts)


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "jhyap" / "variant-study"


def _cache_file(pid: str, key: str) -> Path:
    return _cache_dir() / f"{pid}-{key}.json"


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write(path: Path, data: Mapping[str, Any]) -> None:

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def load_study(
    documents: Mapping[str, Mapping[str, Any]],
    progress: Progress | None = _say,
    snapshot: Path | None = None,
) -> dict[str, Any]:
    """The study of ``documents``, profile by profile: from the stored snapshot, else the
    user cache, else measured now (and cached). Only a profile whose key changed is
    measured again, and stderr says so."""
    keys = profile_keys(documents)
    snapshot_data = _read(snapshot or SNAPSHOT)
    stored = _stored(snapshot_data)
    parts: dict[str, Mapping[str, Any]] = {}
    for pid in documents:
        part = stored.get(pid)
        if part is None or part.get("key") != keys[pid]:
            part = _stored({"profiles": {pid: _read(_cache_file(pid, keys[pid])) or {}}}).get(pid)
        if part is not None and part.get("key") == keys[pid]:
            parts[pid] = part
    missing = [pid for pid in documents if pid not in parts]
    if missing:
        started = time.monotonic()
        fresh = compute(
            {pid: documents[pid] for pid in missing}, reuse=snapshot_data, progress=progress
        )
        for pid, part in _stored(fresh).items():
            parts[pid] = part
            # An unwritable cache only costs the next build the same time again.
            with contextlib.suppress(OSError):
                _write(_cache_file(pid, keys[pid]), part)
        if progress is not None:
            progress(
                f"variant study: measured {', '.join(missing)} in "
                f"{time.monotonic() - started:.0f} s (cached in {_cache_dir()}); store it "
                "for everyone with: python -m conformance.simulation.study"
            )
    return _assemble(documents, parts)


def main(argv: Sequence[str] | None = None) -> int:

    parser = argparse.ArgumentParser(
        prog="python -m conformance.simulation.study",
        description="Refresh the stored variant study: measure the profiles whose key "
        "changed (a new or edited profile; any engine or simulation change) and keep the rest.",
    )
    parser.add_argument("--write", type=Path, default=SNAPSHOT, help="where to write the study")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--all", action="store_true", help="measure every profile again")
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="measure on a Dask cluster: local:N (N worker processes here) or a scheduler's "
        "address (the distributed extra)",
    )
    args = parser.parse_args(argv)
    documents = {pid: load_profile(pid) for pid in shipped_profile_ids()}
    reuse = None if args.all else _read(args.write)
    mapper: Mapper | None = None
    if args.cluster:
        address = args.cluster

        def mapper(fn: Callable[[Any], Any], tasks: Sequence[Any]) -> list[Any]:
            return map_on_cluster(fn, tasks, address)

    try:
        data = compute(documents, args.jobs, reuse, mapper=mapper)
    except ClusterUnavailable as exc:
        print(f"{parser.prog}: --cluster: {exc}", file=sys.stderr)
        return 2
    old = _stored(reuse)
    kept = sum(
        1 for pid, part in data["profiles"].items() if old.get(pid, {}).get("key") == part["key"]
    )
    _write(args.write, {k: v for k, v in data.items() if k != "points"})  # points: in memory
    shown = os.path.relpath(args.write) if args.write.is_absolute() else str(args.write)
    print(
        f"wrote {shown}: {len(documents)} profiles, {kept} of them unchanged",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
