"""Run the repository's GitHub Action (action.yml) on this machine, step by step, as a
runner would: `act` needs Docker, which a developer's machine or this CI may lack.

    python -m scripts.run_action_locally --input engine="python -m reference_engine.server" \\
        --input profile=dhumbal [--workspace DIR] [--runner-temp DIR]

Each step of action.yml runs in order in the workspace (the current folder by default):
``run`` steps with ``bash --noprofile --norc -eo pipefail`` as GitHub runs ``shell: bash``,
their ``${{ ... }}`` expressions substituted (inputs, with their defaults; github.action_path,
the repository; steps.<id>.outputs; runner.temp), ``env`` set, GITHUB_OUTPUT and GITHUB_PATH
honoured. The two actions it uses are done here: ``actions/setup-python`` makes a fresh
virtual environment of this Python under runner.temp and puts it first on PATH;
``actions/upload-artifact`` copies the path into runner.temp/artifacts/<name>. A step whose
``if`` is false, or that follows a failed step without ``always()``, is skipped. Prints the
outputs of the action; exits 0 when every step passed, else 1 (as the job would end).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class Runner:
    """What a runner keeps across the steps of one job."""

    inputs: dict[str, str]
    workspace: Path
    temp: Path
    path: list[str] = field(default_factory=list)  # GITHUB_PATH entries, newest first
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)  # by step id
    failed: bool = False
    borrow_pip: bool = False  # setup-python links this Python's pip instead of installing one

    def value(self, expression: str) -> str:
        """One expression's value: ``inputs.x``, ``github.action_path``, ``runner.temp``,
        ``steps.<id>.outputs.<name>``; anything else is an error (the action uses no more)."""
        parts = expression.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            return self.inputs.get(parts[1], "")
        if expression == "github.action_path":
            return str(ROOT)
        if expression == "github.action_repository":
            return "local/jhyap-conformance"
        if expression == "runner.temp":
            return str(self.temp)
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.outputs.get(parts[1], {}).get(parts[3], "")
        raise ValueError(f"action.yml: an expression this script does not know: {expression}")

    def substitute(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: self.value(m.group(1)), text)

    def condition(self, expression: str | None) -> bool:
        """A step's ``if``: terms joined by ``&&``, each always(), success(), failure(),
        or ``X == 'v'`` / ``X != 'v'``; without one, success()."""
        if expression is None:
            return not self.failed
        text = EXPRESSION.sub(lambda m: m.group(1), expression)
        verdict = True
        uses_status = False
        for term in (t.strip() for t in text.split("&&")):
            if term in ("always()", "success()", "failure()"):
                uses_status = True
                verdict &= {"always()": True, "success()": not self.failed}.get(term, self.failed)
                continue
            compared = re.fullmatch(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", term)
            if compared is None:
                raise ValueError(f"action.yml: a condition this script does not know: {term}")
            name, operator, literal = compared.groups()
            equal = self.value(name) == literal
            verdict &= equal if operator == "==" else not equal
        return verdict and (uses_status or not self.failed)

    def environment(self, step_env: Mapping[str, Any]) -> dict[str, str]:
        env = dict(os.environ)
        env["PATH"] = os.pathsep.join([*self.path, env.get("PATH", "")])
        env.update({k: self.substitute(str(v)) for k, v in step_env.items()})
        env.update(
            RUNNER_TEMP=str(self.temp),
            GITHUB_ACTION_PATH=str(ROOT),
            GITHUB_WORKSPACE=str(self.workspace),
            CI="true",
        )
        return env


def setup_python(runner: Runner, with_: Mapping[str, str]) -> int:
    """actions/setup-python: a fresh virtual environment of this Python, first on PATH."""
    wanted = tuple(int(p) for p in with_.get("python-version", "3").split(".")[:2])
    if sys.version_info[: len(wanted)] < wanted:
        print(f"  this Python is {sys.version.split()[0]}, under {wanted}", file=sys.stderr)
        return 1
    home = runner.temp / "python"
    if not (home / "bin" / "python").exists():
        venv.EnvBuilder(with_pip=not runner.borrow_pip, clear=True).create(home)
        if runner.borrow_pip:  # the same pip, importable there: nothing unpacked or installed
            where = {"base": str(home), "platbase": str(home)}
            site = Path(sysconfig.get_path("purelib", "venv", vars=where))
            (site / "pip").symlink_to(Path(pip_package()).parent)
    runner.path.insert(0, str(home / "bin"))
    return 0


def upload_artifact(runner: Runner, with_: Mapping[str, str]) -> int:
    """actions/upload-artifact: the path copied under runner.temp/artifacts/<name>."""
    source = runner.workspace / with_["path"]
    if not source.exists():
        print(f"  no files at {source}", file=sys.stderr)
        return 1
    target = runner.temp / "artifacts" / with_.get("name", "artifact")
    shutil.rmtree(target, ignore_errors=True)
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        target.mkdir(parents=True)
        shutil.copy2(source, target)
    return 0


USES = {"actions/setup-python": setup_python, "actions/upload-artifact": upload_artifact}


def run_step(runner: Runner, index: int, step: Mapping[str, Any]) -> int:
    name = step.get("name", f"step {index + 1}")
    if not runner.condition(step.get("if")):
        print(f"== {name}: skipped", flush=True)
        return 0
    print(f"== {name}", flush=True)
    if "uses" in step:
        action = step["uses"].split("@")[0]
        with_ = {k: runner.substitute(str(v)) for k, v in (step.get("with") or {}).items()}
        return USES[action](runner, with_)
    if step.get("shell") != "bash":
        raise ValueError(f"action.yml: step {name!r}: only shell: bash is run here")
    output = runner.temp / f"output-{index}"
    path_file = runner.temp / f"path-{index}"
    output.write_text("")
    path_file.write_text("")
    env = runner.environment(step.get("env") or {})
    env.update(GITHUB_OUTPUT=str(output), GITHUB_PATH=str(path_file))
    script = runner.temp / f"step-{index}.sh"
    script.write_text(runner.substitute(step["run"]))
    status = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=runner.workspace,
        env=env,
    ).returncode
    if "id" in step:
        lines = output.read_text().splitlines()
        runner.outputs[step["id"]] = dict(line.split("=", 1) for line in lines if "=" in line)
    runner.path[:0] = [p for p in reversed(path_file.read_text().splitlines()) if p]
    return status


def pip_package() -> str:
    """The file of this Python's pip package (its ``__init__.py``)."""
    import pip  # lazy: only where pip is borrowed

    return str(pip.__file__)


def run_action(
    inputs: Mapping[str, str],
    workspace: Path,
    temp: Path,
    action: Path = ACTION,
    *,
    borrow_pip: bool = False,
) -> tuple[int, dict[str, str]]:
    """Every step of ``action``, in order: (0 or 1 as the job would end, the outputs).
    ``borrow_pip``: the virtual environment of setup-python gets this Python's pip linked
    in, not one installed by ensurepip (for tests: the same pip, without its install)."""
    document = yaml.safe_load(action.read_text("utf-8"))
    declared = document.get("inputs") or {}
    missing = [n for n, spec in declared.items() if spec.get("required") and n not in inputs]
    if missing:
        raise ValueError(f"required inputs missing: {', '.join(missing)}")
    unknown = sorted(set(inputs) - set(declared))
    if unknown:
        raise ValueError(f"inputs action.yml does not declare: {', '.join(unknown)}")
    values = {n: str(spec.get("default", "")) for n, spec in declared.items()}
    values.update(inputs)
    runner = Runner(values, workspace, temp, borrow_pip=borrow_pip)
    for index, step in enumerate(document["runs"]["steps"]):
        status = run_step(runner, index, step)
        if status:
            print(f"   (exit status {status})", flush=True)
            runner.failed = True
    outputs = {
        name: runner.substitute(spec["value"])
        for name, spec in (document.get("outputs") or {}).items()
    }
    return int(runner.failed), outputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--input", action="append", default=[], metavar="NAME=VALUE", help="an input"
    )
    parser.add_argument("--workspace", type=Path, default=Path.cwd(), help="the working folder")
    parser.add_argument("--runner-temp", type=Path, help="runner.temp (default: a new folder)")
    args = parser.parse_args(argv)
    inputs = dict(item.split("=", 1) for item in args.input)
    temp = args.runner_temp or Path(tempfile.mkdtemp(prefix="jhyap-action-"))
    temp.mkdir(parents=True, exist_ok=True)
    status, outputs = run_action(inputs, args.workspace.resolve(), temp.resolve())
    for name, value in outputs.items():
        print(f"output {name}={value}")
    print(f"job {'failed' if status else 'passed'}; runner.temp: {temp}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
