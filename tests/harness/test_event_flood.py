"""Issue 41, item 3: an answer of 100,000 events is judged in bounded work. The schema
library takes milliseconds for each bad event, so its errors are read up to a cap; the
event types and the events a failure shows are capped too."""

from __future__ import annotations

from typing import Any, cast

import pytest

from conformance.harness import response_schemas
from conformance.harness.compare import compare_events
from conformance.harness.response_schemas import MAX_SCHEMA_ERRORS, schema_problems
from conformance.reporting import report
from conformance.spec.schema_check import SchemaCheck

FLOOD = 100_000
NOISE = [{"type": "noise", "n": n} for n in range(FLOOD)]


def test_a_flood_of_bad_events_reads_only_the_first_schema_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    check = response_schemas.answer_check("response-ok.schema.json#/$defs/deal")
    pulled = 0

    class Counted:
        """The library validator, counting the errors it is asked for."""

        def iter_errors(self, value: Any) -> Any:
            nonlocal pulled
            for error in check.library.iter_errors(value):
                pulled += 1
                yield error

    counted = SchemaCheck(check.fast, cast(Any, Counted()))
    monkeypatch.setattr(response_schemas, "answer_check", lambda ref: counted)
    problems = schema_problems("deal", {"seq": 1, "ok": True, "events": NOISE})
    assert pulled == MAX_SCHEMA_ERRORS + 1 == 51
    assert len(problems) == 51
    assert problems[-1] == "... and more (the first 50 schema errors are shown)"
    assert problems[0].endswith("(at $.events[0])")


def test_a_few_schema_errors_are_all_shown_with_no_cap_line() -> None:
    problems = schema_problems("deal", {"seq": 1, "ok": True, "events": NOISE[:3]})
    assert len(problems) == 3
    assert not [p for p in problems if p.startswith("...")]


def test_a_flood_of_events_names_the_first_forty_types_and_counts_the_rest() -> None:
    [difference] = compare_events([], NOISE)
    assert difference == (
        "events: expected 0 events [], got 100000 ["
        + ", ".join(["noise"] * 40)
        + ", ... 99960 more]"
    )


def test_a_failure_shows_forty_events_and_counts_the_rest() -> None:
    lines = report._value_lines("actual", NOISE)
    assert len(lines) == 1 + 40 + 1
    assert lines[1] == '    {"type": "noise", "n": 0}'
    assert lines[-1] == "    ... and 99960 more events"
