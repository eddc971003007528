"""The engines matrix end to end: ``jhyap matrix`` over real run reports of two engines
under two rulesets; the site's stored reports current; the GitHub Action run step by step.
The reference engine's reports are made in this process (its pipe is run by the Action's
test and tests/e2e/test_corpus_teeth.py); the other engines' over their pipes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance import cli
from conformance.site.matrix_pages import BUNDLED_DATA, BUNDLED_RUNS, BundledRun
from scripts import bundled_matrix, run_action_locally
from tests.cli_helpers import ROOT, fake, reference_report
from tests.site.test_docs import _set_width, axe_violations, browser

__all__ = ["browser"]  # the fixture: a headless Chromium driven by selenium

pytestmark = pytest.mark.e2e

MATRIX_SCHEMA = json.loads((ROOT / "schema" / "matrix.schema.json").read_text("utf-8"))
REFERENCE = "python -m reference_engine.server"  # as the bundled runs name it
BUGS = fake("named_two_bugs")  # two rules broken; a name full of markup
TWO_BUGS_SLUG = "two-bugs-script-alert-x-script-0-0-1-b-b"


def jhyap(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance", *args], capture_output=True, text=True, cwd=ROOT
    )


def jhyap_here(*args: str) -> subprocess.CompletedProcess[str]:
    """``jhyap ARGS`` in this process, from the repository's root, its engines over their
    pipes (the command's own process is run by the matrix's test): as ``jhyap`` gives it."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(args))
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def reference_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The reference engine's run reports, made in this process, by profile (once a module:
    the matrix and the check of the stored reports share them)."""
    folder = tmp_path_factory.mktemp("reference-reports")
    made = {}
    for run in (run for run in BUNDLED_RUNS if run.engine == REFERENCE):
        made[run.profile] = folder / run.report
        assert reference_report(REFERENCE, run.profile, made[run.profile]) == 0
    return made


@pytest.fixture(scope="module")
def reports(
    reference_reports: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> list[Path]:
    folder = tmp_path_factory.mktemp("reports")
    made = []
    for name, profile in (("ref-dhumbal", "dhumbal"), ("ref-yaniv", "bga-yaniv")):
        path = folder / f"{name}.json"
        path.write_bytes(reference_reports[profile].read_bytes())
        made.append(path)
    for name, profile in (("bugs-dhumbal", "dhumbal"), ("bugs-yaniv", "bga-yaniv")):
        path = folder / f"{name}.json"
        done = jhyap_here("run", "-q", "--engine", BUGS, "--profile", profile, "--json", str(path))
        assert done.returncode == 1, done.stderr
        made.append(path)
    return made


@pytest.fixture(scope="module")
def matrix(
    reports: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``jhyap matrix`` of the four reports, as a command, and the folder it wrote (once a
    module: the matrix's test and the browser's share it)."""
    out = tmp_path_factory.mktemp("matrix") / "site"
    return jhyap("matrix", *map(str, reports), "-o", str(out)), out


def test_the_matrix_of_two_engines_under_two_rulesets(
    reports: list[Path], matrix: tuple[subprocess.CompletedProcess[str], Path]
) -> None:
    done, out = matrix
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"wrote {out / 'index.html'}: 2 engines by 2 rulesets, 4 cells, 2 with failures; 9 files\n"
    )
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.*")) == [
        "badges/jhyap-reference-0-1-0--bga-yaniv.svg",
        "badges/jhyap-reference-0-1-0--dhumbal.svg",
        f"badges/{TWO_BUGS_SLUG}--bga-yaniv.svg",
        f"badges/{TWO_BUGS_SLUG}--dhumbal.svg",
        "engines/jhyap-reference-0-1-0.html",
        f"engines/{TWO_BUGS_SLUG}.html",
        "index.html",
        "matrix.json",
        "style.css",
    ]
    data = json.loads((out / "matrix.json").read_text("utf-8"))
    jsonschema.validate(data, MATRIX_SCHEMA)
    cells = {(c["engine"], c["ruleset"]): c for c in data["cells"]}
    # The counts are each report's own: the matrix adds nothing and drops nothing.
    for path in reports:
        report = json.loads(path.read_text("utf-8"))
        profile = report["results"][0]["profile"]
        engine = "jhyap-reference-0-1-0" if "ref-" in path.name else TWO_BUGS_SLUG
        cell = cells[(engine, profile)]
        summary = report["summary"]
        assert cell["passed_as_written"] == summary["passed_as_written"]
        assert cell["passed_derived"] == summary["passed_derived"] + summary["passed_reseated"]
        assert cell["not_applicable"] == summary["not_applicable"]
        assert cell["failed"] == summary["failed"] + summary["crashed"] + summary["errored"]
        assert cell["total"] == summary["total"]
    assert cells[(TWO_BUGS_SLUG, "dhumbal")]["badge"]["message"] == "6 failed"
    assert cells[(TWO_BUGS_SLUG, "bga-yaniv")]["badge"]["message"] == "4 failed"
    assert cells[("jhyap-reference-0-1-0", "dhumbal")]["badge"]["message"] == "137 passed"
    page = (out / "engines" / f"{TWO_BUGS_SLUG}.html").read_text("utf-8")
    assert "<script" not in page and "<b>" not in page
    assert "two-bugs &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "<h3>6 failures, by clause</h3>" in page
    assert "<code>dhumbal-game-to-last-player</code> (failed, as written): " in page


def test_the_stored_reports_of_the_site_are_current(
    reference_reports: dict[str, Path], tmp_path: Path
) -> None:
    """docs/data/matrix/ must say what the bundled engines do now.

    Rewrite them with: python -m scripts.bundled_matrix
    """
    if any("node " in run.engine for run in BUNDLED_RUNS):
        assert subprocess.run(["node", "--version"], capture_output=True).returncode == 0

    def now(run: BundledRun) -> dict[str, Any]:
        target = tmp_path / run.report
        if run.engine != REFERENCE:
            return bundled_matrix.run_bundled(run, target)
        target.write_bytes(reference_reports[run.profile].read_bytes())
        return bundled_matrix.stored_form(run, target)

    made = {run.report: now(run) for run in BUNDLED_RUNS}
    stale = bundled_matrix.stale_reports(ROOT / BUNDLED_DATA, made)
    assert stale == [], "stale: run python -m scripts.bundled_matrix"


def test_the_action_runs_as_a_runner_would(tmp_path: Path) -> None:
    """action.yml's steps in order, in a fresh virtual environment: the reference engine
    passes; an engine that fails some cases fails the job, with its reports and badge."""
    temp = tmp_path / "runner"
    temp.mkdir()
    workspace = tmp_path / "work"
    workspace.mkdir()
    inputs = {"engine": "python -m reference_engine.server", "profile": "dhumbal"}
    status, outputs = run_action_locally.run_action(inputs, workspace, temp, borrow_pip=True)
    assert status == 0
    assert outputs == {
        "status": "0",
        "json": "jhyap-reports/report.json",
        "junit": "jhyap-reports/report.xml",
        "badge": "jhyap-reports/matrix/badges",
    }
    reports = workspace / "jhyap-reports"
    report = json.loads((reports / "report.json").read_text("utf-8"))
    assert report["summary"]["passed"] == 137 and report["summary"]["failed"] == 0
    assert (reports / "report.xml").read_text("utf-8").startswith("<?xml")
    badge = reports / "matrix" / "badges" / "jhyap-reference-0-1-0--dhumbal.svg"
    assert "jhyap dhumbal: 137 passed" in badge.read_text("utf-8")
    artifact = temp / "artifacts" / "jhyap-conformance"
    assert (artifact / "report.json").is_file() and (artifact / "matrix" / "index.html").is_file()

    failing = {"engine": BUGS, "profile": "dhumbal", "artifact-name": ""}
    status, outputs = run_action_locally.run_action(failing, workspace, temp, borrow_pip=True)
    assert status == 1
    assert outputs["status"] == "1"
    badge = reports / "matrix" / "badges" / f"{TWO_BUGS_SLUG}--dhumbal.svg"
    assert "jhyap dhumbal: 6 failed" in badge.read_text("utf-8")


@pytest.fixture(scope="module")
def site(matrix: tuple[subprocess.CompletedProcess[str], Path]) -> Path:
    done, out = matrix
    assert done.returncode == 0
    return out


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("page", ["index.html", f"engines/{TWO_BUGS_SLUG}.html"])
def test_axe_finds_nothing_in_the_matrix_pages(
    site: Path, browser: Any, page: str, width: int
) -> None:
    """Every rule of axe-core, any impact, at a phone's width and a desktop's; and the
    page never wider than the window (the table scrolls or stacks inside it)."""
    _set_width(browser, width)
    browser.get((site / page).as_uri())
    assert axe_violations(browser, ("minor", "moderate", "serious", "critical")) == []
    assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    badges = browser.execute_script(
        "return [...document.images].map(i => [i.alt, i.naturalWidth > 0])"
    )
    assert badges and all(alt and loaded for alt, loaded in badges), badges
    # JHYAP_SCREENSHOTS=DIR keeps a screenshot of the whole page, for a person to look at.
    shots = os.environ.get("JHYAP_SCREENSHOTS")
    if shots:
        height = min(int(browser.execute_script("return document.body.scrollHeight")), 6000)
        browser.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        name = "matrix-index" if page == "index.html" else "matrix-engine"
        Path(shots).mkdir(parents=True, exist_ok=True)
        assert browser.save_screenshot(str(Path(shots) / f"{name}-{width}.png"))
