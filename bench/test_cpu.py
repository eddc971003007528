"""A pytest plugin recording each test's CPU, for bench/test_command.py --by-file.

Loaded with ``-p test_cpu`` (bench/ on PYTHONPATH) and ``JHYAP_TEST_CPU_OUT`` naming a file:
each test process (each xdist worker) appends one JSON line a test, ``{"id", "e2e", "self",
"children"}``: whether it is marked e2e, and the CPU seconds of the process itself and of the
children it reaped while the test ran (setup, call and teardown). A session or module
fixture's cost lands on the first test that uses it.
"""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Iterator

import pytest


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, reaped.ru_utime + reaped.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    own, reaped = _cpu()
    yield
    own_after, reaped_after = _cpu()
    row = {
        "id": item.nodeid,
        "e2e": item.get_closest_marker("e2e") is not None,
        "self": own_after - own,
        "children": reaped_after - reaped,
    }
    with open(os.environ["JHYAP_TEST_CPU_OUT"], "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")
