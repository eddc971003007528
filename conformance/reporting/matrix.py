"""The engines matrix: many ``jhyap run --json`` reports, of any engines and rulesets, as
one table of engines by rulesets (``jhyap matrix``; its pages: conformance/site/matrix_pages.py).

Each cell is one engine under one ruleset (the ``profile`` of the report's cases): its
passes as written and derived, its failures, the cases not applicable, and the claim the
engine's report makes for the ruleset (the readings it declares, the rule parameters its
variant overrides). The data behind the pages is ``matrix.json``
(schema/matrix.schema.json); a badge per cell is an SVG a README can show.

Reports come from engines' runs and may have been written by anyone: each is checked
against schema/report.schema.json before it is read, and every string of it is only ever
data (escaped by the pages, made visible in a terminal line).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import jsonschema

from jhyap_core import bounded_json
from jhyap_core.text import clip_words

from .. import __version__
from ..harness.outcome import NOT_PASSED, CaseStatus
from ..spec.data import schema_dir
from ..spec.files import os_error_text, read_input
from ..spec.strictjson import loads_unique
from ..spec.yamlsafe import YamlProblem
from .json_junit import REPORT_FORMAT, REPORT_FORMAT_VERSION
from .terminal import one_line

MATRIX_FORMAT: Final = "jhyap-conformance-matrix"
# The matrix's own version; it reads reports of REPORT_FORMAT_VERSION (and says so).
MATRIX_FORMAT_VERSION: Final = 1
MATRIX_SCHEMA: Final = "matrix.schema.json"
REPORT_SCHEMA: Final = "report.schema.json"

# A cell's failures: every outcome that makes ``jhyap run`` exit 1.
FAILED: Final = frozenset(NOT_PASSED | {CaseStatus.XPASS})
# Neither passed nor failed nor not applicable: listed apart in a cell.
OTHER: Final = (CaseStatus.SKIPPED, CaseStatus.XFAIL, CaseStatus.NOT_CHECKED)
NO_CLAUSE: Final = "(no clause named)"
MAX_LINE: Final = 400  # characters of an error line: a report's strings may be any length


class ReportError(ValueError):
    """A file that is not a report ``jhyap matrix`` can read: one line, naming the file
    and the field."""


@dataclass(frozen=True)
class Reading:
    """A reading the engine declares for a ruleset: where the rules are silent, its choice."""

    reading: str
    choice: str
    clauses: tuple[str, ...]


@dataclass(frozen=True)
class Claim:
    """What an engine's report claims under one ruleset (``claims`` of the report)."""

    base: str  # the shipped ruleset the profile extends, or the profile itself
    readings: tuple[Reading, ...]
    variant: tuple[str, ...]  # the normative rule parameters the profile overrides
    text: str  # the report's own sentence

    @property
    def kind(self) -> str:
        """``variant`` (never conformance to the base), ``readings`` or ``as shipped``."""
        if self.variant:
            return "variant"
        return "readings" if self.readings else "as shipped"


@dataclass(frozen=True)
class Failure:
    """One case of a cell that failed: its id, clause and what went wrong."""

    id: str
    outcome: str
    clause: str  # the transcript's first clause (the rule it is about), or NO_CLAUSE
    clauses: tuple[str, ...]
    verdict: str  # the failure's summary line, or the reason
    location: str
    mode: str


@dataclass(frozen=True)
class Engine:
    """An engine as its reports' hello answer names it."""

    slug: str  # a file name part: [a-z0-9-] only, unique in the matrix
    name: str
    version: str
    language: str
    protocol: str
    command: str

    @property
    def title(self) -> str:
        return f"{self.name} {self.version}".strip()


@dataclass(frozen=True)
class Cell:
    """One engine under one ruleset, from one report."""

    engine: str  # Engine.slug
    ruleset: str
    report: str  # the file it came from
    counts: Mapping[str, int]  # every outcome (report.schema.json's), 0 when none
    passed_as_written: int
    passed_derived: int  # reseated passes included
    passed_reseated: int
    complete: bool
    claim: Claim | None
    failures: tuple[Failure, ...]
    badge_file: str  # its badge, relative to the matrix folder

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def passed(self) -> int:
        return self.counts[CaseStatus.PASSED]

    @property
    def failed(self) -> int:
        return sum(self.counts[s] for s in FAILED)

    @property
    def not_applicable(self) -> int:
        return self.counts[CaseStatus.NOT_APPLICABLE]

    @property
    def other(self) -> dict[str, int]:
        return {s: self.counts[s] for s in OTHER if self.counts[s]}

    @property
    def badge(self) -> Badge:
        return badge_of(self)


@dataclass(frozen=True)
class Source:
    """A report the matrix was built from."""

    file: str
    created: str
    tool_version: str


@dataclass(frozen=True)
class Matrix:
    engines: tuple[Engine, ...]
    rulesets: tuple[str, ...]
    cells: tuple[Cell, ...]
    sources: tuple[Source, ...]

    def cell(self, engine: str, ruleset: str) -> Cell | None:
        return next((c for c in self.cells if c.engine == engine and c.ruleset == ruleset), None)

    def engine_cells(self, engine: str) -> list[Cell]:
        return [c for c in self.cells if c.engine == engine]


# -- reading reports ----------------------------------------------------------------------


def _problem(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(p) for p in error.absolute_path) or "(the top level)"
    return f"field {where}: {error.message[:160]}"


def _schema(name: str) -> Any:
    return json.loads((schema_dir() / name).read_text("utf-8"))


def report_problem(data: Any) -> str | None:
    """What makes ``data`` no run report this jhyap reads ("field X: problem"), or None."""
    if not isinstance(data, dict):
        return "field (the top level): not a JSON object"
    if data.get("format") != REPORT_FORMAT:
        found = repr(data.get("format"))[:80]
        return f"field format: {found}, not {REPORT_FORMAT!r} (not a jhyap run --json report)"
    if data.get("format_version") != REPORT_FORMAT_VERSION:
        return (
            f"field format_version: {data.get('format_version')!r}; "
            f"this jhyap reads reports of format_version {REPORT_FORMAT_VERSION}"
        )
    validator = jsonschema.Draft202012Validator(_schema(REPORT_SCHEMA))
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    return None if error is None else _problem(error)


def read_report(path: str) -> dict[str, Any]:
    """The run report at ``path``, checked; ReportError (one line) if it is none."""

    def refuse(problem: str) -> ReportError:
        line = clip_words(one_line(f"{path}: {problem}"))
        return ReportError(line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…")

    try:
        text = read_input(path).decode("utf-8")
    except OSError as exc:
        raise ReportError(one_line(f"cannot read {os_error_text(exc, path)}")) from None
    except UnicodeDecodeError:
        raise refuse("not UTF-8 text") from None
    try:
        data = loads_unique(text, path)
    except bounded_json.JsonTooDeep as exc:
        raise refuse(f"not a report: {exc}") from None
    except YamlProblem as exc:
        raise refuse(f"line {exc.line}: {exc.message}") from None
    except ValueError as exc:
        line = getattr(exc, "lineno", "?")
        raise refuse(f"line {line}: not JSON ({str(exc).split(':')[0]})") from None
    problem = report_problem(data)
    if problem is not None:
        raise refuse(problem)
    return dict(_cleaned(data))


# A lone surrogate (JSON can escape one) is no character: no page or file can hold it.
_NO_CHARACTER = re.compile("[\ud800-\udfff]")


def _cleaned(value: Any) -> Any:
    """``value`` with every lone surrogate of its strings (and keys) a U+FFFD."""
    if isinstance(value, str):
        return _NO_CHARACTER.sub("\N{REPLACEMENT CHARACTER}", value)
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    if isinstance(value, dict):
        return {_cleaned(k): _cleaned(v) for k, v in value.items()}
    return value


# -- building the matrix ------------------------------------------------------------------


def slug(text: str, limit: int = 40) -> str:
    """``text`` as a file name part: lower-case letters, digits and single hyphens."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit].strip("-")


def unique_slugs(texts: Iterable[str]) -> dict[str, str]:
    """A file name part for each of ``texts``, none the same: where two would meet (or
    one would be empty), a short hash of the whole text is added."""
    found: dict[str, str] = {}
    taken: set[str] = set()
    for text in sorted(set(texts)):
        part = slug(text)
        if not part or part in taken:
            digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:8]
            part = f"{part or 'x'}-{digest}"
        found[text] = part
        taken.add(part)
    return found


def _engine(data: Mapping[str, Any]) -> Engine:
    engine = data["engine"]

    def text(key: str) -> str:
        value = engine.get(key)
        return value if isinstance(value, str) else ""

    name = text("name") or "(unnamed engine)"
    return Engine(
        slug="",  # given once every engine is known (unique_slugs)
        name=name,
        version=text("version"),
        language=text("language"),
        protocol=text("protocol"),
        command=text("command"),
    )


def _claim(data: Mapping[str, Any], ruleset: str) -> Claim | None:
    found = next((c for c in data.get("claims") or [] if c.get("profile") == ruleset), None)
    if found is None:
        return None
    return Claim(
        base=found["base"],
        readings=tuple(
            Reading(r["reading"], r["choice"], tuple(r["clauses"])) for r in found["readings"]
        ),
        variant=tuple(found["variant"]),
        text=found["text"],
    )


def _failure(result: Mapping[str, Any]) -> Failure:
    failure = result["failure"]
    verdict = failure["summary"] if failure else result["reason"]
    clauses = tuple(result["clauses"])
    return Failure(
        id=result["id"],
        outcome=result["outcome"],
        clause=clauses[0] if clauses else NO_CLAUSE,
        clauses=clauses,
        verdict=verdict or result["outcome"],
        location=failure["location"] if failure else f"{result['file']}:{result['line']}",
        mode=result["mode"],
    )


def _cells(data: Mapping[str, Any], file: str) -> list[Cell]:
    """A cell for each ruleset of the report's cases (engine and badge file still blank)."""
    by_ruleset: dict[str, list[Mapping[str, Any]]] = {}
    for result in data["results"]:
        by_ruleset.setdefault(result["profile"], []).append(result)
    complete = data.get("complete", True) is not False
    cells = []
    for ruleset, results in by_ruleset.items():
        counted = Counter(r["outcome"] for r in results)
        passed = [r for r in results if r["outcome"] == CaseStatus.PASSED]
        cells.append(
            Cell(
                engine="",
                ruleset=ruleset,
                report=file,
                counts={s.value: counted[s] for s in CaseStatus},
                passed_as_written=sum(r["mode"] == "as_written" for r in passed),
                passed_derived=sum(r["mode"] in ("derived", "reseated") for r in passed),
                passed_reseated=sum(r["mode"] == "reseated" for r in passed),
                complete=complete,
                claim=_claim(data, ruleset),
                failures=tuple(_failure(r) for r in results if r["outcome"] in FAILED),
                badge_file="",
            )
        )
    return cells


def build_matrix(reports: Sequence[tuple[str, Mapping[str, Any]]]) -> Matrix:
    """The matrix of checked reports, given as (file, report) pairs. One engine under one
    ruleset comes from one report: a second is a ReportError naming both files."""
    engines: dict[tuple[str, str], Engine] = {}
    cells: dict[tuple[tuple[str, str], str], Cell] = {}
    sources = []
    for file, data in reports:
        engine = engines.setdefault(_key(_engine(data)), _engine(data))
        sources.append(Source(file, data["created"], data["tool"]["version"]))
        for cell in _cells(data, file):
            where = (_key(engine), cell.ruleset)
            if where in cells:
                raise ReportError(
                    one_line(
                        f"{file}: field results: {engine.title} under {cell.ruleset} is "
                        f"also in {cells[where].report} (one report per engine and ruleset)"
                    )
                )
            cells[where] = cell
    engine_slugs = unique_slugs(f"{name} {version}" for name, version in engines)
    ruleset_slugs = unique_slugs(ruleset for _, ruleset in cells)
    named = {key: replace(e, slug=engine_slugs[f"{key[0]} {key[1]}"]) for key, e in engines.items()}
    placed = [
        replace(
            cell,
            engine=named[key].slug,
            badge_file=f"badges/{named[key].slug}--{ruleset_slugs[ruleset]}.svg",
        )
        for (key, ruleset), cell in cells.items()
    ]
    return Matrix(
        engines=tuple(sorted(named.values(), key=lambda e: (e.name, e.version))),
        rulesets=tuple(sorted({c.ruleset for c in placed})),
        cells=tuple(sorted(placed, key=lambda c: (c.engine, c.ruleset))),
        sources=tuple(sources),
    )


def _key(engine: Engine) -> tuple[str, str]:
    """What tells engines apart: the name and version of their hello answer."""
    return engine.name, engine.version


def read_matrix(paths: Iterable[str]) -> Matrix:
    """The matrix of the reports at ``paths``; ReportError for the first that is none."""
    return build_matrix([(path, read_report(path)) for path in paths])


# -- the JSON behind the pages --------------------------------------------------------------


def _claim_json(claim: Claim | None) -> dict[str, Any] | None:
    if claim is None:
        return None
    return {
        "base": claim.base,
        "kind": claim.kind,
        "readings": [
            {"reading": r.reading, "choice": r.choice, "clauses": list(r.clauses)}
            for r in claim.readings
        ],
        "variant": list(claim.variant),
        "text": claim.text,
    }


def _cell_json(cell: Cell) -> dict[str, Any]:
    badge = cell.badge
    return {
        "engine": cell.engine,
        "ruleset": cell.ruleset,
        "report": cell.report,
        "total": cell.total,
        "passed": cell.passed,
        "passed_as_written": cell.passed_as_written,
        "passed_derived": cell.passed_derived,
        "passed_reseated": cell.passed_reseated,
        "failed": cell.failed,
        "not_applicable": cell.not_applicable,
        "outcomes": dict(cell.counts),
        "complete": cell.complete,
        "badge": {
            "file": cell.badge_file,
            "label": badge.label,
            "message": badge.message,
            "colour": badge.colour,
        },
        "claim": _claim_json(cell.claim),
        "failures": [
            {
                "id": f.id,
                "outcome": f.outcome,
                "clause": f.clause,
                "clauses": list(f.clauses),
                "verdict": f.verdict,
                "location": f.location,
                "mode": f.mode,
            }
            for f in cell.failures
        ],
    }


def matrix_json(matrix: Matrix) -> dict[str, Any]:
    """matrix.json (schema/matrix.schema.json): the engines, the rulesets and every cell."""
    return {
        "format": MATRIX_FORMAT,
        "format_version": MATRIX_FORMAT_VERSION,
        "report_format_version": REPORT_FORMAT_VERSION,
        "tool": {"name": "jhyap-conformance", "version": __version__},
        "reports": [
            {"file": s.file, "created": s.created, "tool_version": s.tool_version}
            for s in matrix.sources
        ],
        "rulesets": list(matrix.rulesets),
        "engines": [
            {
                "slug": e.slug,
                "name": e.name,
                "version": e.version,
                "language": e.language,
                "protocol": e.protocol,
                "command": e.command,
            }
            for e in matrix.engines
        ],
        "cells": [_cell_json(c) for c in matrix.cells],
    }


def matrix_text(matrix: Matrix) -> str:
    """matrix.json's text: two-space indent, ASCII escapes (a lone surrogate an engine
    sent stays a valid escape), final newline."""
    return json.dumps(matrix_json(matrix), indent=2) + "\n"


# -- badges -------------------------------------------------------------------------------

# White text on each colour has a contrast ratio of at least 4.5:1 (WCAG AA; the
# tests compute it): shields.io's own green (#4c1) would have 2.3:1.
LABEL_COLOUR: Final = "#454545"
PASSED_COLOUR: Final = "#1d7a34"
FAILED_COLOUR: Final = "#b3261e"
NONE_COLOUR: Final = "#6b5900"  # nothing passed or failed, or an incomplete run


@dataclass(frozen=True)
class Badge:
    label: str  # "jhyap dhumbal"
    message: str  # "155 passed", "3 failed"
    colour: str

    @property
    def alt(self) -> str:
        """The badge's text alternative: what it shows, as one sentence."""
        return f"{self.label}: {self.message}"


def badge_of(cell: Cell) -> Badge:
    """A cell's badge: its failures in red, else its passes in green (amber when the run
    was cut short or nothing passed)."""
    label = f"jhyap {cell.ruleset}"
    if cell.failed:
        return Badge(label, f"{cell.failed} failed", FAILED_COLOUR)
    if not cell.complete:
        return Badge(label, f"{cell.passed} passed, incomplete", NONE_COLOUR)
    if not cell.passed:
        return Badge(label, "none passed", NONE_COLOUR)
    return Badge(label, f"{cell.passed} passed", PASSED_COLOUR)


# Verdana at 11 px, as shields.io measures: each character's advance, roughly.
_NARROW = frozenset("iljtf.,:;|!'()[] ")
_WIDE = frozenset("mwMW%@")


def text_width(text: str) -> int:
    """The width in pixels of ``text`` in 11 px Verdana, near enough for a badge."""
    width = 0.0
    for char in text:
        if char in _NARROW:
            width += 3.9
        elif char in _WIDE:
            width += 10.5
        elif char.isupper() or char.isdigit():
            width += 7.5
        else:
            width += 6.8
    return round(width)


MAX_BADGE_TEXT: Final = 60  # characters of a label or message; a longer one ends in "…"


def _fit(text: str) -> str:
    shown = one_line(text)
    return shown if len(shown) <= MAX_BADGE_TEXT else shown[: MAX_BADGE_TEXT - 1] + "…"


def _xml(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def badge_svg(badge: Badge) -> str:
    """The badge as a flat shields-style SVG, its text alternative in ``<title>`` and
    ``aria-label``; every text of it escaped."""
    label, message = _fit(badge.label), _fit(badge.message)
    left, right = text_width(label) + 12, text_width(message) + 12
    width = left + right
    alt = _xml(f"{label}: {message}")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" '
        f'role="img" aria-label="{alt}">'
        f"<title>{alt}</title>"
        f'<rect width="{left}" height="20" fill="{LABEL_COLOUR}"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{badge.colour}"/>'
        '<g fill="#fff" text-anchor="middle" '
        'font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{left / 2:g}" y="14" textLength="{left - 12}" '
        f'lengthAdjust="spacingAndGlyphs">{_xml(label)}</text>'
        f'<text x="{left + right / 2:g}" y="14" textLength="{right - 12}" '
        f'lengthAdjust="spacingAndGlyphs">{_xml(message)}</text>'
        "</g></svg>\n"
    )
