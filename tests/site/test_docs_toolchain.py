"""The docs toolchain: the ``docs`` extra pins the releases the site is known to build with."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


def _docs_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    return [Requirement(text) for text in project["optional-dependencies"]["docs"]]


def test_the_docs_extra_has_an_upper_bound_on_every_tool() -> None:
    bounds = {r.name: str(r.specifier) for r in _docs_requirements()}
    assert bounds == {
        "mkdocs": "<1.7,>=1.6",
        "mkdocs-material": "<9.9,>=9.5",
        "mkdocs-gen-files": "<0.7,>=0.5",
        "matplotlib": "<3.12,>=3.8",
    }


def test_the_installed_docs_tools_are_within_the_pins() -> None:
    for requirement in _docs_requirements():
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            pytest.skip(f"{requirement.name} is not installed (pip install -e '.[docs]')")
        assert requirement.specifier.contains(installed, prereleases=True), (
            requirement.name,
            installed,
        )


def test_the_documented_build_command_turns_the_notices_off() -> None:
    command = "NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true mkdocs build --strict"
    assert command in (ROOT / "docs" / "versions.md").read_text("utf-8")
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "`NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true`" in readme
