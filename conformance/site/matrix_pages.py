"""The engines matrix's pages (data: conformance/reporting/matrix.py): a table of engines by
rulesets and a page per engine with its failures by clause, as a folder of plain HTML and
CSS (``jhyap matrix``) or as pages of the documentation site (the bundled engines').

The same fragments serve both: :class:`Links` says where pages and badges are from each
page. Every string from a report is escaped here, control characters made visible first.
No script: the table scrolls sideways on a phone (a focusable region), the colours have a
contrast of at least 4.5:1 (WCAG AA) and every badge has its text alternative.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..reporting.matrix import (
    FAILED,
    NO_CLAUSE,
    Cell,
    Claim,
    Engine,
    Failure,
    Matrix,
    badge_svg,
    build_matrix,
    matrix_text,
    read_report,
)
from ..reporting.terminal import one_line
from ..spec.wording import plural
from .docsgen import nav_with

MAX_CLAUSES: Final = 6  # a failure's other clauses named; the rest counted (all in matrix.json)
MAX_SHOWN: Final = 600  # characters of a verdict or command shown; the rest in matrix.json

# The folder's stylesheet; the documentation site adds it to its own (mkdocs.yml extra_css),
# whose scheme gives text and background colours there.
CSS: Final = """\
.jm-page { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #1b1b1b; background: #fff; margin: 0 auto; padding: 1rem; max-width: 90rem;
  line-height: 1.45; }
.jm-page a { color: #0b57d0; }
.jm-page a:focus-visible, .jm-scroll:focus-visible { outline: 3px solid #0b57d0;
  outline-offset: 2px; }
.jm-page .jm-note { color: #4a4a4a; }
.jm-scroll { overflow-x: auto; max-width: 100%; margin: 1rem 0; }
table.jm-matrix { border-collapse: collapse; min-width: 100%; font-size: 0.9rem; }
.jm-matrix th, .jm-matrix td { border: 1px solid #8a8a8a; padding: 0.5rem; text-align: left;
  vertical-align: top; min-width: 9.5rem; }
.jm-matrix tbody th { min-width: 7rem; }
.jm-matrix caption { text-align: left; font-weight: bold; padding: 0.25rem 0; }
/* As plain lines, also inside the documentation theme (whose lists have bullets). */
ul.jm-counts, .md-typeset ul.jm-counts { list-style: none; margin: 0.4rem 0; padding: 0; }
ul.jm-counts li, .md-typeset ul.jm-counts li { margin: 0; }
.jm-bad { font-weight: bold; }
.jm-bad::before { content: "\\2717\\00a0"; }
.jm-claim { margin: 0.4rem 0 0; font-size: 0.85rem; }
.jm-empty { font-style: italic; }
/* A badge at its own size (the theme shrinks images to their box: unreadable text). */
img.jm-badge, .md-typeset img.jm-badge { display: inline-block; vertical-align: middle;
  max-width: none; height: auto; }
.jm-engine dt { font-weight: bold; }
.jm-engine dd { margin: 0 0 0.5rem 0; overflow-wrap: anywhere; }
.jm-failures li { margin-bottom: 0.5rem; overflow-wrap: anywhere; }
.jm-failures code, .jm-engine code { overflow-wrap: anywhere; }
/* A phone: each engine a block, each of its cells under its ruleset's name. */
@media (max-width: 40rem) {
  table.jm-matrix, .jm-matrix tbody, .jm-matrix tr, .jm-matrix th, .jm-matrix td {
    display: block; min-width: 0; }
  .jm-matrix thead { position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip-path: inset(50%); }
  .jm-matrix tbody tr { margin-bottom: 1rem; border: 1px solid #8a8a8a; }
  .jm-matrix th, .jm-matrix td { border: 0; border-top: 1px solid #8a8a8a; }
  .jm-matrix td::before { content: attr(data-ruleset); display: block; font-weight: bold; }
  .jm-matrix caption { display: block; }
}
"""


@dataclass(frozen=True)
class BundledRun:
    """One report behind the site's matrix: an engine of this repository under a ruleset."""

    report: str  # its file name under BUNDLED_DATA
    engine: str  # the engine command, from the repository root ("python": the suite's)
    profile: str  # a shipped id or a profile file


BUNDLED_DATA: Final = "docs/data/matrix"
DOCS_FOLDER: Final = "matrix"  # the matrix's pages on the site
DOCS_INDEX: Final = f"{DOCS_FOLDER}/index.md"
_REFERENCE = "python -m reference_engine.server"
_LOOP = "python examples/python-loop/bind.py"
_OBJECT = "node examples/javascript-object/bind.mjs"
_KITCHEN = "examples/python-loop/rules.yaml"
_YANIV_MJS = "examples/javascript-object/rules.yaml"
# Each engine under its own rules and under the shipped ruleset they extend; the reference
# under all four. Rewritten by python -m scripts.bundled_matrix.
BUNDLED_RUNS: Final = (
    BundledRun("reference-dhumbal.json", _REFERENCE, "dhumbal"),
    BundledRun("reference-bga-yaniv.json", _REFERENCE, "bga-yaniv"),
    BundledRun("reference-kitchen-dhumbal.json", _REFERENCE, _KITCHEN),
    BundledRun("reference-js-object-yaniv.json", _REFERENCE, _YANIV_MJS),
    BundledRun("python-loop-kitchen-dhumbal.json", _LOOP, _KITCHEN),
    BundledRun("python-loop-dhumbal.json", _LOOP, "dhumbal"),
    BundledRun("javascript-object-js-object-yaniv.json", _OBJECT, _YANIV_MJS),
    BundledRun("javascript-object-bga-yaniv.json", _OBJECT, "bga-yaniv"),
)


@dataclass(frozen=True)
class Links:
    """Where the pages are, from the index and from an engine's page."""

    engine_page: str  # from the index, formatted with the engine's slug
    up: str  # from an engine's page, the index
    from_engine: str  # from an engine's page, the matrix folder (badges are under it)


STANDALONE: Final = Links(engine_page="engines/{}.html", up="../index.html", from_engine="../")
# The documentation site (directory URLs): matrix/index.md is /matrix/, matrix/<slug>.md
# is /matrix/<slug>/.
DOCS: Final = Links(engine_page="{}/", up="../", from_engine="../")


def text(value: str, limit: int = MAX_SHOWN) -> str:
    """A report's string in a page: one line, controls visible, cut at ``limit``, escaped."""
    shown = one_line(value)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return html.escape(shown, quote=True)


OUTCOME_WORDS: Final = {
    "failed": "failed",
    "empty": "judged nothing",
    "errored": "errored",
    "crashed": "crashed",
    "timed_out": "timed out",
    "xpass": "passed though listed as a known failure",
    "skipped": "skipped",
    "xfail": "known failures",
    "not_checked": "not checked",
}


def badge_img(cell: Cell, prefix: str = "") -> str:
    badge = cell.badge
    return (
        f'<img class="jm-badge" src="{html.escape(prefix + cell.badge_file)}" '
        f'alt="{text(badge.alt)}">'
    )


def claim_html(claim: Claim | None) -> str:
    """The engine's claim for the ruleset in words: what it extends, the rule parameters
    its variant overrides, the readings it declares."""
    if claim is None:
        return '<p class="jm-claim">No claim in the report.</p>'
    parts = []
    if claim.variant:
        parts.append(
            f"a variant of {text(claim.base)}, never {text(claim.base)} itself; overrides "
            + ", ".join(f"<code>{text(v)}</code>" for v in claim.variant)
        )
    else:
        parts.append(f"conformance to {text(claim.base)}")
    if readings := claim.readings:
        parts.append(
            "declared readings: "
            + ", ".join(f"<code>{text(r.reading)} = {text(r.choice)}</code>" for r in readings)
        )
    elif not claim.variant:
        parts.append("its own readings")
    return f'<p class="jm-claim">{"; ".join(parts)}</p>'


def counts_html(cell: Cell) -> str:
    """The cell's counts: passes as written and derived, failures, not applicable, other."""
    items = [f"{cell.passed_as_written:,} passed as written"]
    derived = f"{cell.passed_derived:,} passed derived"
    if cell.passed_reseated:
        derived += f" ({cell.passed_reseated:,} reseated)"
    items.append(derived)
    if cell.failed:
        kinds = ", ".join(
            f"{cell.counts[s]:,} {OUTCOME_WORDS[s]}"
            for s in sorted(FAILED)
            if cell.counts[s] and s != "failed"
        )
        items.append(
            f'<span class="jm-bad">{cell.failed:,} failed</span>' + (f" ({kinds})" if kinds else "")
        )
    else:
        items.append("0 failed")
    items.append(f"{cell.not_applicable:,} not applicable")
    items += [f"{n:,} {OUTCOME_WORDS[s]}" for s, n in cell.other.items()]
    if not cell.complete:
        items.append('<span class="jm-bad">an incomplete run</span>')
    return '<ul class="jm-counts">' + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def _cell_html(ruleset: str, cell: Cell | None) -> str:
    # data-ruleset: the column's name, shown above the cell when a phone stacks the table
    opening = f'<td data-ruleset="{text(ruleset)}">'
    if cell is None:
        return f'{opening}<span class="jm-empty">not run</span></td>'
    return f"{opening}{badge_img(cell)}{counts_html(cell)}{claim_html(cell.claim)}</td>"


def table_html(matrix: Matrix, links: Links) -> str:
    """The matrix as a table: an engine a row, a ruleset a column, in a region that
    scrolls sideways when the page is narrower."""
    head = "".join(f'<th scope="col">{text(r)}</th>' for r in matrix.rulesets)
    rows = []
    for engine in matrix.engines:
        href = html.escape(links.engine_page.format(engine.slug))
        language = f"<br>{text(engine.language)}" if engine.language else ""
        cells = "".join(_cell_html(r, matrix.cell(engine.slug, r)) for r in matrix.rulesets)
        rows.append(
            f'<tr><th scope="row"><a href="{href}">{text(engine.title)}</a>{language}</th>'
            f"{cells}</tr>"
        )
    return (
        '<div class="jm-scroll" role="region" aria-labelledby="jm-caption" tabindex="0">'
        '<table class="jm-matrix"><caption id="jm-caption">Engines by rulesets: '
        f"{plural(len(matrix.engines), 'engine')}, {plural(len(matrix.rulesets), 'ruleset')}"
        "</caption>"
        f'<thead><tr><th scope="col">Engine</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _by_clause(failures: Sequence[Failure]) -> dict[str, list[Failure]]:
    grouped: dict[str, list[Failure]] = {}
    for f in sorted(failures, key=lambda f: (f.clause == NO_CLAUSE, f.clause, f.id)):
        grouped.setdefault(f.clause, []).append(f)
    return grouped


def _failure_html(failure: Failure) -> str:
    more = failure.clauses[1:]
    named = ", ".join(f"<code>{text(c)}</code>" for c in more[:MAX_CLAUSES])
    if len(more) > MAX_CLAUSES:
        named += f" and {len(more) - MAX_CLAUSES} more"
    also = f"<br>also tests {named}" if more else ""
    return (
        f"<li><code>{text(failure.id)}</code> ({text(OUTCOME_WORDS.get(failure.outcome, ''))}"
        f", {text(failure.mode.replace('_', ' '))}): {text(failure.verdict)}"
        f"<br><code>{text(failure.location)}</code>{also}</li>"
    )


def engine_html(matrix: Matrix, engine: Engine, links: Links) -> str:
    """One engine's page: what it is, then each ruleset it ran with its failures by clause
    (the transcript's first clause, the rule it is about)."""
    facts = [("Name", engine.name), ("Version", engine.version or "(none given)")]
    facts += [("Language", engine.language)] if engine.language else []
    facts += [("Protocol", engine.protocol), ("Command", engine.command)]
    parts = [
        f"<h1>{text(engine.title)}</h1>",
        f'<p><a href="{html.escape(links.up)}">The engines matrix</a></p>',
        '<dl class="jm-engine">'
        + "".join(f"<dt>{k}</dt><dd><code>{text(v)}</code></dd>" for k, v in facts)
        + "</dl>",
    ]
    for cell in matrix.engine_cells(engine.slug):
        parts.append(f"<h2>Under {text(cell.ruleset)}</h2>")
        parts.append(f"<p>{badge_img(cell, links.from_engine)}</p>")
        parts.append(counts_html(cell) + claim_html(cell.claim))
        parts.append(f'<p class="jm-note">From <code>{text(cell.report)}</code>.</p>')
        if not cell.failures:
            parts.append("<p>No case failed.</p>")
            continue
        parts.append(f"<h3>{plural(len(cell.failures), 'failure')}, by clause</h3>")
        for clause, failures in _by_clause(cell.failures).items():
            parts.append(f"<h4><code>{text(clause)}</code> ({len(failures):,})</h4>")
            parts.append(
                '<ul class="jm-failures">' + "".join(_failure_html(f) for f in failures) + "</ul>"
            )
    return "\n".join(parts)


def index_intro(matrix: Matrix) -> str:
    reports = plural(len(matrix.sources), "jhyap run report")
    return (
        f"<p>{reports} of {plural(len(matrix.engines), 'engine')}. Each cell is one engine "
        "under one ruleset: its cases passed as the transcript is written, passed as the "
        "reference engine plays the ruleset (derived), failed, or not applicable (the "
        "ruleset cannot play the transcript's setup); then what the engine claims: the "
        "ruleset it conforms to, or the variant it plays, and the readings it declares. "
        'The data is in <a href="matrix.json">matrix.json</a>.</p>'
    )


def _document(title: str, body: str, css: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n"
        f'<link rel="stylesheet" href="{css}">\n</head>\n'
        f'<body>\n<main class="jm-page">\n{body}\n</main>\n</body>\n</html>\n'
    )


def site_files(matrix: Matrix) -> dict[str, str]:
    """The folder ``jhyap matrix`` writes, by relative path: index.html, a page per engine
    under engines/, matrix.json, style.css and a badge per cell under badges/."""
    links = STANDALONE
    files = {
        "index.html": _document(
            "Jhyap engines matrix",
            "<h1>Jhyap engines matrix</h1>\n"
            + index_intro(matrix)
            + "\n"
            + table_html(matrix, links),
            "style.css",
        ),
        "style.css": CSS,
        "matrix.json": matrix_text(matrix),
    }
    for engine in matrix.engines:
        files[links.engine_page.format(engine.slug)] = _document(
            f"{text(engine.title)}: Jhyap engines matrix",
            engine_html(matrix, engine, links),
            "../style.css",
        )
    for cell in matrix.cells:
        files[cell.badge_file] = badge_svg(cell.badge)
    return files


def docs_files(matrix: Matrix, folder: str = DOCS_FOLDER) -> dict[str, str]:
    """The matrix as pages of the documentation site, under ``folder``: index.md (the
    table), a page per engine, matrix.json and the badges. The stylesheet is CSS, which
    mkdocs.yml lists (stylesheets/matrix.css)."""
    links = DOCS
    intro = (
        "# The engines matrix\n\n"
        "The bundled engines, each under the rulesets it was run with: the reference "
        "engine and the kit examples of `examples/` (docs/data/matrix/ holds their "
        "reports; `jhyap matrix` built this page). To publish your engine's, see "
        "[Port your engine](../port.md#8a-publish-your-matrix-and-badge).\n\n"
    )
    files = {
        f"{folder}/index.md": intro
        + f'<div class="jm-docs">\n{index_intro(matrix)}\n{table_html(matrix, links)}\n</div>\n',
        f"{folder}/matrix.json": matrix_text(matrix),
        "stylesheets/matrix.css": CSS,
    }
    for engine in matrix.engines:
        body = engine_html(matrix, engine, links)
        title, rest = body.split("\n", 1)
        files[f"{folder}/{engine.slug}.md"] = (
            f"# {title.removeprefix('<h1>').removesuffix('</h1>')}\n\n"
            f'<div class="jm-docs">\n{rest}\n</div>\n'
        )
    for cell in matrix.cells:
        files[f"{folder}/{cell.badge_file}"] = badge_svg(cell.badge)
    return files


def bundled_matrix(root: Path) -> Matrix:
    """The matrix of the stored reports of the bundled engines (BUNDLED_RUNS), each named
    by its path in the repository at ``root``."""
    return build_matrix(
        [
            (f"{BUNDLED_DATA}/{run.report}", read_report(str(root / BUNDLED_DATA / run.report)))
            for run in BUNDLED_RUNS
        ]
    )


def with_engine_pages(nav: list[Any] | None, matrix: Matrix) -> list[Any] | None:
    """The nav with the matrix's entry a section: the matrix, then a page per engine."""
    pages: list[Any] = [{e.title: f"{DOCS_FOLDER}/{e.slug}.md"} for e in matrix.engines]
    return nav_with(nav, sections={DOCS_INDEX: pages})
