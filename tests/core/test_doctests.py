"""The examples in the docstrings of the public engine and kit API run as written.

Only the modules listed: ``--doctest-modules`` would import every module of the project."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = {
    # module: examples it holds (a module losing its examples fails too)
    "jhyap_core.cards": 5,
    "jhyap_core.messages": 5,
    "jhyap_core.table": 9,
    "jhyap_kit.engine": 13,
    "reference_engine.game": 11,
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_the_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert (failed, attempted) == (0, MODULES[name])
