"""docs/port.md's examples hold: real transcript ids, YAML that keeps its reasons whole,
a CI job that installs what step 1 builds, and no package index the suite is not on."""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from conformance import __version__
from conformance.harness.runner import load_known_failures
from conformance.spec.transcript import load_corpus
from conformance.spec.transcript_profiles import shipped_documents
from tests.cli_helpers import jhyap

ROOT = Path(__file__).resolve().parents[2]
PORT = (ROOT / "docs" / "port.md").read_text("utf-8")
WHEEL = f"jhyap_conformance-{__version__}-py3-none-any.whl"


def _block(language: str, first_line: str) -> str:
    for match in re.finditer(rf"```{language}\n(.*?)```", PORT, re.DOTALL):
        if match.group(1).startswith(first_line):
            return match.group(1)
    raise AssertionError(f"no {language} block starting {first_line!r}")


def test_the_known_failures_example_names_real_cases(tmp_path: Path) -> None:
    path = tmp_path / "known-failures.yaml"
    path.write_text(_block("yaml", "# known-failures.yaml\n"), "utf-8")
    entries = load_known_failures(path)
    transcripts, problems = load_corpus()
    assert problems == []
    ids = {t.id for t in transcripts}
    assert [e.id for e in entries if e.id not in ids] == []
    assert {e.profile for e in entries} - {None} <= set(shipped_documents())
    assert entries[0].reason.endswith("(issue #12)")  # quoted: the # is no comment


def test_the_ci_job_installs_the_wheel_step_1_builds() -> None:
    job = yaml.safe_load(_block("yaml", "name: Jhyap conformance\n"))
    steps = job["jobs"]["conformance"]["steps"]
    install = next(s for s in steps if s.get("name") == "Install the conformance suite")
    assert install["run"] == "python -m pip install ci/jhyap_conformance-*.whl"
    assert (
        f"--wheel-dir wheels ./jhyap-conformance\n$ python3 -m pip install wheels/{WHEEL}" in PORT
    )
    assert f"cp wheels/{WHEEL} ci/" in PORT
    run = next(s for s in steps if s.get("name") == "Conformance")["run"]
    assert run.split() == [
        "jhyap", "run", "--engine", "./my-engine", "--junit", "report.xml", "--json",
        "report.json", "--known-failures", "known-failures.yaml",
    ]  # fmt: skip


def test_no_page_claims_a_package_index() -> None:
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text("utf-8")
        assert "pip install jhyap-conformance\n" not in text, page
        assert "jhyap-conformance==" not in text, page
        assert "<repository URL>" not in text, page


@pytest.mark.parametrize(
    "command",
    [
        "python examples/python-loop/bind.py",
        "node examples/javascript-object/bind.mjs",
    ],
)
@pytest.mark.e2e
def test_the_example_bindings_end_as_the_page_says(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The page's command, run as written (from the checkout; jhyap in this process, the
    # engine a subprocess), and its summary as quoted.
    if command.startswith("node") and shutil.which("node") is None:
        pytest.skip("node is not installed")
    block = _block("console", f'$ jhyap run --engine "{command}"')
    argv = shlex.split(block.strip().removeprefix("$ "))
    argv[argv.index("--engine") + 1] = command.replace("python ", f"{sys.executable} ", 1)
    monkeypatch.chdir(ROOT)
    code, out, err = jhyap(capsys, *argv[1:], "-q")
    assert code == 0, out[-2000:] + err[-2000:]
    summary = re.search(r"== (.*\(\d+ cases\)) in ", out)
    assert summary is not None, out[-500:]
    quoted = PORT.split(block, 1)[1].split("ends with `", 1)[1].split("`", 1)[0]
    assert quoted == summary.group(1)


def test_the_one_step_job_pins_this_release_and_gives_inputs_the_action_takes() -> None:
    job = yaml.safe_load(_block("yaml", "name: Jhyap conformance (one step)\n"))
    step = job["jobs"]["conformance"]["steps"][-1]
    assert step["uses"] == f"<owner>/jhyap-conformance@v{__version__}"
    action = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    inputs = action["inputs"]
    assert set(step["with"]) <= set(inputs)
    assert {n for n, spec in inputs.items() if spec.get("required")} <= set(step["with"])
    # The page's table names every input, with its default.
    for name, spec in inputs.items():
        assert f"| `{name}` |" in PORT, name
        if spec.get("default"):
            assert f"| `{name}` | `{spec['default']}` |" in PORT, name
