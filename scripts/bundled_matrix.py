"""The reports behind the site's engines matrix: the bundled engines (the reference
engine and the kit examples of examples/) each run with ``jhyap run --json`` under the
rulesets of conformance.site.matrix_pages.BUNDLED_RUNS, into docs/data/matrix/.

    python -m scripts.bundled_matrix           # rewrite docs/data/matrix/*.json
    python -m scripts.bundled_matrix --check   # exit 1 when a stored report is not current

The docs build reads the stored reports (running the engines would add a minute and need
Node.js); tests/e2e/test_matrix.py checks that they are current. A stored report is the
run's own, the checkout's path taken out of it (corpus.root, relative to the repository).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conformance.site.matrix_pages import BUNDLED_DATA, BUNDLED_RUNS, BundledRun

ROOT = Path(__file__).resolve().parents[1]


def run_bundled(run: BundledRun, target: Path) -> dict[str, Any]:
    """``jhyap run`` of one bundled engine under one ruleset, from the repository root,
    its JSON report written to ``target`` and returned (the checkout's path taken out)."""
    # "python" in an engine command is this Python: its folder first on PATH.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    argv = [sys.executable, "-m", "conformance", "run", "-q", "--engine", run.engine]
    argv += ["--profile", run.profile, "--json", str(target)]
    done = subprocess.run(
        argv, cwd=ROOT, env={**os.environ, "PATH": path}, capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{run.report}: jhyap run exited {done.returncode}: {done.stderr}")
    return stored_form(run, target)


def stored_form(run: BundledRun, target: Path) -> dict[str, Any]:
    """The report of ``run`` at ``target`` as it is stored, rewritten there and returned: the
    checkout's path taken out, the command as a user would type it."""
    report = json.loads(target.read_text("utf-8"))
    report["corpus"]["root"] = Path(report["corpus"]["root"]).relative_to(ROOT).as_posix()
    report["command"] = ["jhyap", *report["command"][1:]]
    report["command"][-1] = f"{BUNDLED_DATA}/{run.report}"
    target.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")
    return dict(report)


def verdicts(report: Mapping[str, Any]) -> dict[str, Any]:
    """What a report says that a rerun must say again: the engine, the claims and each
    case's outcome and mode (not the times)."""
    engine = {k: report["engine"].get(k) for k in ("name", "version", "language", "command")}
    results = [(r["id"], r["profile"], r["outcome"], r["mode"]) for r in report["results"]]
    return {"engine": engine, "claims": report.get("claims"), "results": results}


def stale_reports(folder: Path, reports: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The bundled runs whose stored report in ``folder`` the run's report now in
    ``reports`` (by report name, made by ``run_bundled`` or as it does) contradicts."""
    stale = []
    for run in BUNDLED_RUNS:
        stored = folder / run.report
        if not stored.is_file() or verdicts(json.loads(stored.read_text("utf-8"))) != (
            verdicts(reports[run.report])
        ):
            stale.append(run.report)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which are stale")
    args = parser.parse_args(argv)
    folder = ROOT / BUNDLED_DATA
    if args.check:
        with tempfile.TemporaryDirectory(prefix="jhyap-bundled-") as scratch:
            made = {r.report: run_bundled(r, Path(scratch) / r.report) for r in BUNDLED_RUNS}
        stale = stale_reports(folder, made)
        for name in stale:
            print(f"{BUNDLED_DATA}/{name}: stale (python -m scripts.bundled_matrix rewrites it)")
        return 1 if stale else 0
    for run in BUNDLED_RUNS:
        report = run_bundled(run, folder / run.report)
        print(f"{BUNDLED_DATA}/{run.report}: {report['summary']['total']} cases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
