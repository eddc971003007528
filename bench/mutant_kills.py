"""A pytest plugin counting the examples each rule mutant's check draws until the kill, for
the budget of tests/engine/test_rule_mutants_killed.py.

Loaded with ``-p mutant_kills`` (bench/ on PYTHONPATH) and ``JHYAP_MUTANT_KILLS_OUT`` naming a
file: each test process appends one JSON line a test of that module, ``{"id", "examples",
"cpu"}``: the examples its check ran (the failing one once, not Hypothesis's replay of it)
and the process's CPU seconds for the test. The count wraps each check with
``functools.wraps``, so Hypothesis draws the examples it draws unwrapped (its seed is the
check's source).
"""

from __future__ import annotations

import functools
import json
import os
import resource
from collections.abc import Callable, Iterator
from typing import Any

import pytest

_count = [0]
_wrapped: list[bool] = []


def _wrap() -> None:
    if _wrapped:
        return
    from tests.engine import test_rule_model  # once a test of the module runs

    for name, (check, strategies) in list(test_rule_model.CHECKS.items()):

        def counted(*args: Any, _check: Callable[..., None] = check, **kwargs: Any) -> None:
            _count[0] += 1
            _check(*args, **kwargs)

        test_rule_model.CHECKS[name] = (functools.wraps(check)(counted), strategies)
    _wrapped.append(True)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    if "test_the_mutant_is_killed" not in item.nodeid:
        yield
        return
    _wrap()
    _count[0] = 0
    cpu = _cpu()
    yield
    row = {"id": item.nodeid, "examples": _count[0] - 1, "cpu": _cpu() - cpu}
    with open(os.environ["JHYAP_MUTANT_KILLS_OUT"], "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")
