"""The code is type-checked and linted as part of the test suite, and its layers
(docs/architecture.md) are kept."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGES = ("reference_engine", "conformance", "jhyap_kit")
# Why an import may sit in a function: the comment above it (or on its line) says which.
LAZY_REASONS = ("# lazy: start-up speed", "# lazy: optional dependency", "# lazy: POSIX only")


def mypy_cache(tmp_path_factory: pytest.TempPathFactory, name: str) -> str:
    """Where a mypy run keeps its cache: beside pytest's numbered run folders (as the compiled
    modules are, tests/conftest.py), never in the checkout. Shared by the runs that follow, as
    a cache in the checkout was: mypy checks each entry against its source."""
    return str(tmp_path_factory.getbasetemp().parent / f"jhyap-tests-mypy-{name}")


@pytest.mark.e2e
def test_mypy_strict(tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = ["--cache-dir", mypy_cache(tmp_path_factory, "packages")]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", *cache],  # the files pyproject.toml names
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.e2e
def test_mypy_strict_fake_engines(tmp_path_factory: pytest.TempPathFactory) -> None:
    # The fake engines run as scripts that import their sibling `_common`, so they are
    # checked as top-level modules from their own folder, the project's packages on MYPYPATH.
    folder = ROOT / "tests" / "fake_engines"
    scripts = sorted(path.name for path in folder.glob("*.py"))
    cache = ["--cache-dir", mypy_cache(tmp_path_factory, "fake-engines")]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-namespace-packages", *cache, *scripts],
        cwd=folder,
        env={**os.environ, "MYPYPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    assert len(scripts) > 40
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.e2e
def test_ruff() -> None:
    ruff = shutil.which("ruff") or "ruff"
    result = subprocess.run(
        [ruff, "check", "--no-cache", *PACKAGES, "tests", "bench"],  # none in the checkout
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.e2e
def test_import_contracts() -> None:
    """lint-imports: the layers, the base packages apart from the harness, no cycles
    (the contracts in pyproject.toml)."""
    lint = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    # --no-cache: its cache folder would be written into the checkout
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def unexplained_function_imports(source: str, name: str) -> list[str]:
    """The imports inside a function of ``source`` without a ``# lazy:`` reason, on
    their line or on a comment line heading the run of imports they belong to."""
    lines = source.splitlines()
    found: list[str] = []

    def explained(node: ast.stmt, run_start: int) -> bool:
        if any(reason in lines[node.lineno - 1] for reason in LAZY_REASONS):
            return True
        return run_start >= 2 and lines[run_start - 2].strip() in LAZY_REASONS

    def visit(node: ast.AST, in_function: bool) -> None:
        # A run of imports: import statements one right after another (a statement may
        # span several lines), headed by the comment line just above the first.
        run_start, previous_end = 0, -1
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                if child.lineno != previous_end + 1:
                    run_start = child.lineno
                previous_end = child.end_lineno or child.lineno
                if in_function and not explained(child, run_start):
                    found.append(f"{name}:{child.lineno}: {lines[child.lineno - 1].strip()}")
            else:
                previous_end = -1
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(ast.parse(source), False)
    return found


def test_function_level_imports_say_why() -> None:
    """An import inside a function hides what a module depends on (and so a cycle): only
    one made lazy for start-up speed, an optional dependency or a POSIX-only module."""
    found = [
        problem
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for problem in unexplained_function_imports(
            path.read_text("utf-8"), path.relative_to(ROOT).as_posix()
        )
    ]
    assert found == []


def test_a_function_level_import_without_a_reason_is_found() -> None:
    source = (
        "def f() -> None:\n"
        "    # lazy: start-up speed\n"
        "    import json\n"
        "    import csv\n"
        "\n"
        "    import os\n"
        "    from .x import y  # lazy: POSIX only\n"
        "\n"
        "\n"
        "def g() -> None:\n"
        "    # lazy: start-up speed\n"
        "    from .a import (\n"
        "        b,\n"
        "    )\n"
        "    from .c import d\n"
        "    x = 1\n"
        "    from .e import f\n"
    )
    assert unexplained_function_imports(source, "m.py") == [
        "m.py:6: import os",
        "m.py:17: from .e import f",
    ]
