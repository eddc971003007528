"""The one helper for a count and its noun."""

from __future__ import annotations

from conformance.spec.wording import plural


def test_plural_agrees_with_its_count() -> None:
    assert [plural(n, "game") for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
    assert plural(1, "process", "processes") == "1 process"
    assert plural(3, "process", "processes") == "3 processes"
    assert plural(1200, "request", grouped=True) == "1,200 requests"
    assert plural(1, "request", grouped=True) == "1 request"
