"""The Python kit as its own distribution (kits/python): jhyap_kit and the stdlib-only base
package jhyap_core, with no dependencies, versioned with the protocol; its wheel installs
alone in a fresh venv and a binding run by that venv's python passes smoke."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import jhyap_kit
from jhyap_core.vocabulary import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "kits" / "python"
PACKAGES = ("jhyap_core", "jhyap_kit")


def _imported_roots(package: str) -> set[str]:
    """The top-level names every module of ``package`` imports (absolute imports only)."""
    roots: set[str] = set()
    for path in (ROOT / package).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                roots.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots.add(node.module.split(".")[0])
    return roots


def test_jhyap_core_imports_only_the_standard_library() -> None:
    foreign = _imported_roots("jhyap_core") - set(sys.stdlib_module_names)
    assert foreign == set()


def test_jhyap_kit_imports_only_the_standard_library_and_jhyap_core() -> None:
    foreign = _imported_roots("jhyap_kit") - set(sys.stdlib_module_names)
    assert foreign == {"jhyap_core"}


def test_the_distribution_is_versioned_with_the_protocol_and_depends_on_nothing() -> None:
    project = tomllib.loads((KIT / "pyproject.toml").read_text("utf-8"))
    assert project["project"]["name"] == "jhyap-kit"
    assert project["project"]["dependencies"] == []
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"] == {"path": "../../jhyap_kit/__init__.py"}
    # major.minor: the protocol version; the patch: the kit's own revision.
    assert jhyap_kit.__version__.rsplit(".", 1)[0] == PROTOCOL_VERSION
    # The packages come from the repository itself, never from copies beside the file.
    assert project["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"] == {
        f"../../{package}": package for package in PACKAGES
    }
    assert sorted(p.name for p in KIT.iterdir()) == ["README.md", "pyproject.toml"]


def _run(
    args: list[str | Path], cwd: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    # Without PYTHONPATH: the fresh venv must find the kit it installed, not this checkout.
    # No pip cache: nothing is written outside the test's folders.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PIP_NO_CACHE_DIR": "1"}
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _pip(python: Path, *args: str | Path) -> list[str | Path]:
    """This pip acting on the environment of ``python`` (pip --python): a venv made without
    pip of its own (no ensurepip, the slowest step) is installed into and listed the same."""
    return [sys.executable, "-m", "pip", "--python", python, *args]


def _installed(python: Path, cwd: Path) -> dict[str, str]:
    listed = _run(_pip(python, "list", "--format=json"), cwd)
    assert listed.returncode == 0, listed.stderr
    return {d["name"]: d["version"] for d in json.loads(listed.stdout)}


@pytest.mark.e2e
def test_the_wheel_installs_alone_in_a_fresh_venv_and_a_binding_passes_smoke(
    tmp_path: Path,
) -> None:
    """The wheel built from kits/python holds the two packages' sources and nothing else;
    ``pip install --no-index`` in a fresh venv (made without pip) adds jhyap-kit alone, the
    only distribution in it; the python-loop example binding, run by that venv's python
    (copied away from this checkout), passes smoke."""
    dist = tmp_path / "dist"
    # hatchling is in the test extra: the build needs no index.
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-build-isolation",
            "--no-deps",
            "-w",
            dist,
            KIT,
        ],
        tmp_path,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    version = jhyap_kit.__version__
    [wheel] = dist.iterdir()
    assert wheel.name == f"jhyap_kit-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = sorted(archive.namelist())
    info = f"jhyap_kit-{version}.dist-info"
    sources = sorted(
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).iterdir()
        if path.suffix == ".py" or path.name == "py.typed"
    )
    assert names == sorted([*sources, f"{info}/METADATA", f"{info}/RECORD", f"{info}/WHEEL"])

    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    assert _installed(python, tmp_path) == {}
    installed = _run(_pip(python, "install", "--no-index", wheel), tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert _installed(python, tmp_path) == {"jhyap-kit": version}

    where = _run(
        [
            python,
            "-c",
            "import jhyap_kit, jhyap_core; print(jhyap_kit.__file__, jhyap_core.__file__)",
        ],
        tmp_path,
    )
    site = (venv / "lib").resolve()
    assert [Path(p).resolve().is_relative_to(site) for p in where.stdout.split()] == [True, True]

    # bind.py puts its folder and the one two levels up on sys.path: here, away from ROOT.
    example = tmp_path / "a" / "b" / "python-loop"
    example.mkdir(parents=True)
    for name in ("bind.py", "dhumbal_game.py"):
        shutil.copy(ROOT / "examples" / "python-loop" / name, example / name)
    engine = f"{python} {example / 'bind.py'}"
    smoke = _run(
        [
            sys.executable,
            "-m",
            "conformance",
            "smoke",
            "--engine",
            engine,
            "--profile",
            ROOT / "examples" / "python-loop" / "rules.yaml",
        ],
        ROOT,
    )
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert "FAIL" not in smoke.stdout
    # The points smoke checks under other shipped profiles are skipped: the example declines them.
    assert smoke.stdout.rstrip().endswith("smoke: 18 ok, 0 failed, 6 skipped; ready for jhyap run")
