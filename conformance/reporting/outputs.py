"""Every kind of report file a command writes, and how each begins.

A report replaces the last run's report of its kind unasked (as pytest's ``--junitxml``
does), but never another file: one that does not begin as every report of the kind begins
is someone's data, replaced only with ``--force`` (as ``export`` and ``record`` refuse any
existing file without it). tests/cli/test_output_files.py checks that each writer's text
begins as its signature says.
"""

from __future__ import annotations

from typing import Final

from ..spec.files import OutputKind

RUN_JSON: Final = OutputKind(
    "a jhyap run JSON report", r'\{\n  "format": "jhyap-conformance-report",\n'
)
RUN_JUNIT: Final = OutputKind(
    "a jhyap JUnit report", r'<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="jhyap" '
)
# Of every clause (its first key), or of one ruleset (``--profile``).
COVERAGE_JSON: Final = OutputKind(
    "a jhyap coverage JSON report",
    r'\{\n  (?:"covered": \d+,\n  "total": |"profile": "[^"\n]*",\n  "counts": \{)',
)
SIMULATE_JSON: Final = OutputKind(
    "a jhyap simulate JSON report", r'\{\n  "format": "jhyap-simulation",\n'
)
MATRIX_JSON: Final = OutputKind(
    "a jhyap matrix.json", r'\{\n  "format": "jhyap-conformance-matrix",\n'
)
FUZZ_JSON: Final = OutputKind("a jhyap fuzz JSON report", r'\{\n  "format": "jhyap-fuzz-report",\n')

FORCE_HELP: Final = (
    "replace an output file that is not a report of this command "
    "(the last run's report is replaced without it)"
)

__all__ = [
    "COVERAGE_JSON",
    "FORCE_HELP",
    "FUZZ_JSON",
    "MATRIX_JSON",
    "RUN_JSON",
    "RUN_JUNIT",
    "SIMULATE_JSON",
]
