"""The engines matrix (``jhyap matrix``): its cells counted exactly from reports, every
string of a report escaped, a report that is none refused in one line, its colours AA."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance.reporting import matrix as mx
from conformance.reporting.outputs import MATRIX_JSON
from conformance.site import matrix_pages
from tests.cli_helpers import ROOT, jhyap

REPORT_SCHEMA = json.loads((ROOT / "schema" / "report.schema.json").read_text("utf-8"))
MATRIX_SCHEMA = json.loads((ROOT / "schema" / "matrix.schema.json").read_text("utf-8"))

Case = tuple[str, str, str, str, Sequence[str]]  # id, profile, outcome, mode, clauses


def _result(case: Case) -> dict[str, Any]:
    cid, profile, outcome, mode, clauses = case
    ok = outcome in ("passed", "skipped", "not_applicable", "not_checked")
    return {
        "id": cid,
        "profile": profile,
        "clauses": list(clauses),
        "outcome": outcome,
        "file": f"conformance/transcripts/{cid}.yaml",
        "line": 7,
        "step": None if ok else 3,
        "reason": "" if ok else f"why {cid}",
        "differences": [] if ok else [f"differs {cid}"],
        "known_failure": None,
        "duration": 0.01,
        "failure": None
        if ok
        else {
            "summary": f"events[0]: expected 1, got 2 ({cid})",
            "location": f"conformance/transcripts/{cid}.yaml:12",
            "step_description": "seat 0 calls",
            "request": None,
            "expected": None,
            "actual": None,
            "state_changed_on_refusal": False,
            "stderr_tail": [],
            "rerun": f"jhyap run -k {cid}",
        },
        "mode": mode,
        "mode_note": "",
        "base": None,
        "changed": [],
        "not_checked": [],
        "judged": {"accepted": 1, "moves": 1, "refusals": 0, "states": 0},
        "kit_kept": [],
    }


def report(
    name: str,
    cases: Sequence[Case],
    version: str = "1.0",
    claims: Sequence[dict[str, Any]] = (),
    command: str = "./engine",
) -> dict[str, Any]:
    """A run report valid against schema/report.schema.json."""
    zero = {
        "passed": 0,
        "failed": 0,
        "empty": 0,
        "errored": 0,
        "crashed": 0,
        "timed_out": 0,
        "skipped": 0,
        "xfail": 0,
        "xpass": 0,
        "not_applicable": 0,
        "not_checked": 0,
    }
    data = {
        "format": "jhyap-conformance-report",
        "format_version": 1,
        "tool": {"name": "jhyap-conformance", "version": "0.2.0", "protocol": "1.1"},
        "created": "2026-12-01T10:00:00+00:00",
        "command": ["jhyap", "run"],
        "corpus": {"source": "the shipped corpus", "root": "/corpus"},
        "engine": {
            "name": name,
            "version": version,
            "language": "c",
            "protocol": "1.1",
            "supports": {},
            "command": command,
        },
        "complete": True,
        "summary": {
            **zero,
            "total": len(cases),
            "wall_time": 1.0,
            "modes": {"as_written": 0, "derived": 0, "reseated": 0, "not_applicable": 0},
            "passed_as_written": 0,
            "passed_derived": 0,
            "passed_reseated": 0,
            "checks_not_checked": 0,
            "judged": {"accepted": 0, "moves": 0, "refusals": 0, "states": 0},
        },
        "warnings": [],
        "claims": list(claims),
        "results": [_result(c) for c in cases],
    }
    jsonschema.validate(data, REPORT_SCHEMA)
    return data


def claim(
    profile: str, base: str, readings: Sequence[tuple[str, str]] = (), variant: Sequence[str] = ()
) -> Any:
    return {
        "profile": profile,
        "base": base,
        "readings": [{"reading": r, "choice": c, "clauses": ["x.y"]} for r, c in readings],
        "variant": list(variant),
        "text": f"{profile}: a claim",
    }


MIXED: list[Case] = [
    ("a1", "dhumbal", "passed", "as_written", ["dhumbal.call.limit"]),
    ("a2", "dhumbal", "passed", "as_written", ["dhumbal.call.limit"]),
    ("d1", "dhumbal", "passed", "derived", []),
    ("r1", "dhumbal", "passed", "reseated", []),
    ("f1", "dhumbal", "failed", "as_written", ["dhumbal.showdown.tie", "dhumbal.scoring.kind"]),
    ("c1", "dhumbal", "crashed", "derived", ["dhumbal.call.limit"]),
    ("f2", "dhumbal", "failed", "derived", []),
    ("n1", "dhumbal", "not_applicable", "not_applicable", []),
    ("s1", "dhumbal", "skipped", "as_written", []),
    ("y1", "bga-yaniv", "passed", "as_written", []),
    ("y2", "bga-yaniv", "not_applicable", "not_applicable", []),
]


def build(*reports: tuple[str, dict[str, Any]]) -> mx.Matrix:
    return mx.build_matrix([(f, mx._cleaned(r)) for f, r in reports])


def test_each_cell_counts_its_ruleset_cases_exactly() -> None:
    m = build(("a.json", report("eng", MIXED, claims=[claim("dhumbal", "dhumbal")])))
    assert [e.slug for e in m.engines] == ["eng-1-0"]
    assert m.rulesets == ("bga-yaniv", "dhumbal")
    cell = m.cell("eng-1-0", "dhumbal")
    assert cell is not None
    assert (cell.total, cell.passed, cell.passed_as_written, cell.passed_derived) == (9, 4, 2, 2)
    assert (cell.passed_reseated, cell.failed, cell.not_applicable) == (1, 3, 1)
    assert cell.other == {"skipped": 1}
    assert [f.id for f in cell.failures] == ["f1", "c1", "f2"]
    assert cell.badge == mx.Badge("jhyap dhumbal", "3 failed", mx.FAILED_COLOUR)
    yaniv = m.cell("eng-1-0", "bga-yaniv")
    assert yaniv is not None and (yaniv.total, yaniv.passed, yaniv.not_applicable) == (2, 1, 1)
    assert yaniv.badge == mx.Badge("jhyap bga-yaniv", "1 passed", mx.PASSED_COLOUR)
    assert yaniv.claim is None  # the report claims nothing for it

    counts = matrix_pages.counts_html(cell)
    assert counts == (
        '<ul class="jm-counts"><li>2 passed as written</li>'
        "<li>2 passed derived (1 reseated)</li>"
        '<li><span class="jm-bad">3 failed</span> (1 crashed)</li>'
        "<li>1 not applicable</li><li>1 skipped</li></ul>"
    )
    data = mx.matrix_json(m)
    jsonschema.validate(data, MATRIX_SCHEMA)
    assert MATRIX_JSON.begins(mx.matrix_text(m))  # a later matrix replaces it unasked
    cells = {c["ruleset"]: c for c in data["cells"]}
    assert cells["dhumbal"]["outcomes"]["failed"] == 2
    assert cells["dhumbal"]["outcomes"]["crashed"] == 1
    assert cells["dhumbal"]["badge"] == {
        "file": "badges/eng-1-0--dhumbal.svg",
        "label": "jhyap dhumbal",
        "message": "3 failed",
        "colour": mx.FAILED_COLOUR,
    }


def test_an_engine_page_groups_failures_by_their_first_clause() -> None:
    m = build(("a.json", report("eng", MIXED)))
    page = matrix_pages.engine_html(m, m.engines[0], matrix_pages.STANDALONE)
    headings = re.findall(r"<h4><code>([^<]*)</code> \((\d+)\)</h4>", page)
    assert headings == [
        ("dhumbal.call.limit", "1"),
        ("dhumbal.showdown.tie", "1"),
        ("(no clause named)", "1"),
    ]
    assert (
        "<li><code>f1</code> (failed, as written): events[0]: expected 1, got 2 (f1)"
        "<br><code>conformance/transcripts/f1.yaml:12</code>"
        "<br>also tests <code>dhumbal.scoring.kind</code></li>"
    ) in page
    assert "<h3>3 failures, by clause</h3>" in page
    assert "<p>No case failed.</p>" in page  # under bga-yaniv


def test_engines_are_rows_rulesets_columns_and_a_missing_cell_is_not_run() -> None:
    own = claim("house", "dhumbal", readings=[("dealer", "seat_before_starter")], variant=["x.y"])
    m = build(
        ("a.json", report("alpha", MIXED)),
        ("b.json", report("beta", [("h1", "house", "passed", "derived", [])], claims=[own])),
    )
    assert [e.name for e in m.engines] == ["alpha", "beta"]
    assert m.rulesets == ("bga-yaniv", "dhumbal", "house")
    table = matrix_pages.table_html(m, matrix_pages.STANDALONE)
    assert table.count("<tr>") == 3
    assert table.count('<span class="jm-empty">not run</span>') == 3  # alpha/house, beta x2
    assert (
        "a variant of dhumbal, never dhumbal itself; overrides <code>x.y</code>; "
        "declared readings: <code>dealer = seat_before_starter</code>"
    ) in table
    assert '<a href="engines/beta-1-0.html">beta 1.0</a>' in table


def test_one_engine_under_one_ruleset_comes_from_one_report() -> None:
    with pytest.raises(mx.ReportError) as caught:
        build(("a.json", report("eng", MIXED)), ("b.json", report("eng", MIXED[:1])))
    assert str(caught.value) == (
        "b.json: field results: eng 1.0 under dhumbal is also in a.json "
        "(one report per engine and ruleset)"
    )


HOSTILE = '<script>alert("x")</script>&amp;\x1b[2J\u202e'


def test_every_string_of_a_report_is_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases: list[Case] = [
        (f"id{HOSTILE}", f"rules{HOSTILE}", "failed", "as_written", [f"clause{HOSTILE}"]),
        ("ok", f"rules{HOSTILE}", "passed", "as_written", []),
    ]
    data = report(
        f"name{HOSTILE}",
        cases,
        version=f"v{HOSTILE}",
        claims=[claim(f"rules{HOSTILE}", f"base{HOSTILE}", [(f"r{HOSTILE}", f"c{HOSTILE}")])],
        command=f"cmd{HOSTILE}",
    )
    data["results"][0]["failure"]["summary"] = f"verdict{HOSTILE}"
    data["results"][0]["failure"]["location"] = f"loc{HOSTILE}:3"
    data["engine"]["language"] = f"lang{HOSTILE}\ud800"  # a lone surrogate, as JSON allows
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "out"
    code, _, stderr = jhyap(capsys, "matrix", str(path), "-o", str(out))
    assert (code, stderr) == (0, "")
    files = {p.relative_to(out).as_posix(): p.read_text("utf-8") for p in out.rglob("*.*")}
    assert sorted(files) == [
        # slugs: [a-z0-9-], 40 characters at most
        "badges/name-script-alert-x-script-amp-2j-v-scri--rules-script-alert-x-script-amp-2j.svg",
        "engines/name-script-alert-x-script-amp-2j-v-scri.html",
        "index.html",
        "matrix.json",
        "style.css",
    ]
    for name, text in files.items():
        if name.endswith((".html", ".svg")):
            assert "<script" not in text and "\x1b" not in text and "\u202e" not in text
            assert (
                "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;amp;\\x1b[2J\\u202e" in text
            )
    page = files["engines/name-script-alert-x-script-amp-2j-v-scri.html"]
    for word in ("name", "v", "cmd", "id", "clause", "verdict", "loc", "lang", "base", "r", "c"):
        assert f"{word}&lt;script&gt;" in page, word
    assert (
        "lang&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;amp;\\x1b[2J\\u202e\ufffd"
        in page
    )
    svg = ET.fromstring(files[next(n for n in files if n.endswith(".svg"))])
    title = svg.find("{http://www.w3.org/2000/svg}title")
    assert title is not None
    assert title.text == 'jhyap rules<script>alert("x")</script>&amp;\\x1b[2J\\u202e: 1 failed'
    assert svg.get("aria-label") == title.text
    jsonschema.validate(json.loads(files["matrix.json"]), MATRIX_SCHEMA)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("{", "line 1: not JSON (Expecting property name enclosed in double quotes)"),
        (
            '{"format": "jhyap-fuzz-report"}',
            "field format: 'jhyap-fuzz-report', not "
            "'jhyap-conformance-report' (not a jhyap run --json report)",
        ),
        (
            '{"format": "jhyap-conformance-report", "format_version": 2}',
            "field format_version: 2; this jhyap reads reports of format_version 1",
        ),
        ("[1]", "field (the top level): not a JSON object"),
        ('{"a": 1, "a": 2}', "line 1: duplicate key 'a' (first on line 1)"),
    ],
)
def test_a_file_that_is_no_report_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = jhyap(capsys, "matrix", str(path), "-o", str(tmp_path / "out"))
    assert (code, out, err) == (2, "", f"jhyap matrix: {path}: {line}\n")
    assert not (tmp_path / "out").exists()


def test_a_report_failing_its_schema_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(report("eng", MIXED)), encoding="utf-8")
    data = report("other", MIXED)
    data["results"][4]["outcome"] = "<b>won</b>"
    bad.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = jhyap(capsys, "matrix", str(good), str(bad), "-o", str(tmp_path / "o"))
    assert code == 2 and out == ""
    assert err.startswith(f"jhyap matrix: {bad}: field results/4/outcome: '<b>won</b>' is not ")
    assert err.count("\n") == 1
    code, out, err = jhyap(capsys, "matrix", str(tmp_path / "nothing.json"))
    assert (code, err) == (
        2,
        f"jhyap matrix: cannot read {tmp_path / 'nothing.json'}: No such file or directory\n",
    )


def test_the_folder_of_someone_else_is_not_written_into(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report("eng", MIXED)), encoding="utf-8")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine", encoding="utf-8")
    code, _, err = jhyap(capsys, "matrix", str(path), "-o", str(theirs))
    assert (code, err) == (
        2,
        f"jhyap matrix: {theirs}: a folder holding no jhyap matrix; not written into "
        "(--force writes into it)\n",
    )
    out = tmp_path / "out"
    assert jhyap(capsys, "matrix", str(path), "-o", str(out))[0] == 0
    code, stdout, _ = jhyap(capsys, "matrix", str(path), "-o", str(out))  # its own: replaced
    assert (code, stdout) == (
        0,
        f"wrote {out / 'index.html'}: 1 engine by 2 rulesets, 2 cells, 1 with failures; 6 files\n",
    )


def test_slugs_never_meet() -> None:
    assert mx.unique_slugs(["a b", "a-b", "", "A.B"]) == {
        "": "x-e3b0c442",
        "A.B": "a-b",
        "a b": "a-b-c8687a08",
        "a-b": "a-b-d44362d6",
    }


# -- WCAG AA: contrast and text alternatives ------------------------------------------------


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_badge_and_page_colours_meet_aa() -> None:
    for colour in (mx.LABEL_COLOUR, mx.PASSED_COLOUR, mx.FAILED_COLOUR, mx.NONE_COLOUR):
        assert contrast("#ffffff", colour) >= 4.5, colour
    css = matrix_pages.CSS
    background = "#ffffff"
    assert "background: #fff;" in css
    for colour in set(re.findall(r"color: (#[0-9a-f]{6})", css)):
        assert contrast(background, colour) >= 4.5, colour
    assert contrast(background, "#8a8a8a") >= 3.0  # cell borders: non-text contrast (1.4.11)


def test_every_badge_image_has_its_words_as_alt() -> None:
    m = build(("a.json", report("eng", MIXED)))
    table = matrix_pages.table_html(m, matrix_pages.STANDALONE)
    images = re.findall(r"<img [^>]*>", table)
    opening = '<img class="jm-badge" src="badges/eng-1-0--'
    assert images == [
        f'{opening}bga-yaniv.svg" alt="jhyap bga-yaniv: 1 passed">',
        f'{opening}dhumbal.svg" alt="jhyap dhumbal: 3 failed">',
    ]


def test_a_new_matrix_removes_the_pages_of_the_last_one_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(report("old", MIXED)), encoding="utf-8")
    second.write_text(json.dumps(report("new", MIXED[:1])), encoding="utf-8")
    out = tmp_path / "out"
    assert jhyap(capsys, "matrix", str(first), "-o", str(out))[0] == 0
    (out / "badges" / "notes.svg").write_text("someone's", encoding="utf-8")
    assert jhyap(capsys, "matrix", str(second), "-o", str(out))[0] == 0
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.*")) == [
        "badges/new-1-0--dhumbal.svg",
        "badges/notes.svg",  # not the last matrix's: kept
        "engines/new-1-0.html",
        "index.html",
        "matrix.json",
        "style.css",
    ]
