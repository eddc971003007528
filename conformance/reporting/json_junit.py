"""A run's machine-readable reports: the JSON report (schema/report.schema.json) and
JUnit XML (Jenkins junit-10.xsd), from the same outcomes as the console report."""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from jhyap_core.vocabulary import PROTOCOL_VERSION

from .. import __version__
from ..harness.derive import Mode
from ..harness.outcome import STATUSES, CaseStatus, Judged, Outcome, total_judged
from ..harness.runner import RunResult
from ..spec.data import transcripts_dir
from .modes import mode_counts
from .report import (
    OK_PLAIN,
    STDERR_LINES,
    RerunInfo,
    declared_claims,
    failure_block,
    headline,
)
from .unchecked import junit_note, kit_kept_total, unchecked_total

REPORT_FORMAT: Final = "jhyap-conformance-report"
REPORT_FORMAT_VERSION: Final = 1


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


@dataclass(frozen=True)
class ReportContext:
    """What the files of a run say besides its outcomes: how it was invoked."""

    engine_command: str  # the engine command that was started
    engine: str | None = None  # --engine as given; None: the default engine
    transcripts: str | None = None  # --transcripts as given; None: the shipped corpus
    argv: tuple[str, ...] = ()  # the command line, program name first
    created: datetime.datetime = field(default_factory=_now)
    rerun_info: RerunInfo | None = None  # every non-default flag of the run, for reruns

    @property
    def rerun(self) -> RerunInfo:
        if self.rerun_info is not None:
            return self.rerun_info
        return RerunInfo(engine=self.engine, transcripts=self.transcripts)

    def corpus_root(self) -> Path:
        if self.transcripts is not None:
            return Path(os.path.abspath(self.transcripts))

        return Path(os.path.abspath(transcripts_dir()))

    def report_path(self, file: str) -> str:
        """``file`` relative to the working directory when under it, else to the corpus
        root; so a CI annotator can map it onto the repository it runs in."""
        path = Path(os.path.abspath(file))
        for base in (Path(os.path.abspath(".")), self.corpus_root()):
            with contextlib.suppress(ValueError):
                return path.relative_to(base).as_posix()
        return path.as_posix()


def engine_json(result: RunResult, command: str) -> dict[str, Any]:
    info = result.info
    return {
        **dict(info.engine),
        "protocol": info.protocol,
        "supports": dict(info.supports),
        "command": command,
    }


def failure_json(outcome: Outcome, context: ReportContext) -> dict[str, Any]:
    """Everything known about a case that did not pass, as plain values."""
    return {
        "summary": headline(outcome),
        "location": f"{context.report_path(outcome.file)}:{outcome.line}",
        "step_description": outcome.step_description or None,
        "request": outcome.request,
        "expected": outcome.expected,
        "actual": outcome.actual,
        "state_changed_on_refusal": outcome.state_diff,
        "stderr_tail": list(outcome.stderr_tail[-STDERR_LINES:]),
        "rerun": context.rerun.command(outcome),
    }


def result_json(outcome: Outcome, context: ReportContext) -> dict[str, Any]:
    """One case of the JSON report; ``failure`` is null for a pass or a skip."""
    o = outcome
    return {
        "id": o.transcript_id,
        "profile": o.profile,
        "clauses": list(o.clauses),
        "outcome": o.status,
        "file": context.report_path(o.file),
        "line": o.line,
        "step": o.step,
        "reason": o.reason,
        "differences": list(o.differences),
        "known_failure": o.known_failure,
        "duration": round(o.duration, 4),
        "mode": o.mode,
        "mode_note": o.mode_note,
        "base": o.base,
        "changed": list(o.changed),
        "not_checked": list(o.not_checked),
        "judged": o.judged.as_json(),
        "kit_kept": list(o.kit_kept),
        "failure": None if o.status in OK_PLAIN else failure_json(o, context),
    }


def json_report(result: RunResult, context: ReportContext) -> dict[str, Any]:
    """The JSON report (schema/report.schema.json): what ran, on what, and every case."""

    counts = Counter(o.status for o in result.outcomes)
    summary: dict[str, Any] = {s: counts[s] for s in STATUSES}
    summary["total"] = len(result.outcomes)
    selected = len(result.outcomes) if result.selected is None else result.selected
    summary["selected"] = selected
    summary["modes"] = mode_counts(result.outcomes)
    summary["passed_as_written"] = sum(
        1 for o in result.outcomes if o.status == CaseStatus.PASSED and o.mode == Mode.WRITTEN
    )
    summary["passed_derived"] = sum(
        1 for o in result.outcomes if o.status == CaseStatus.PASSED and o.mode == Mode.DERIVED
    )
    summary["passed_reseated"] = sum(
        1 for o in result.outcomes if o.status == CaseStatus.PASSED and o.mode == Mode.RESEATED
    )
    summary["checks_not_checked"] = unchecked_total(result.outcomes)
    summary["judged"] = total_judged(result.outcomes).as_json()
    summary["checks_kit_kept"] = kit_kept_total(result.outcomes)
    summary["wall_time"] = round(result.wall_time, 3)
    return {
        "format": REPORT_FORMAT,
        "format_version": REPORT_FORMAT_VERSION,
        "tool": {"name": "jhyap-conformance", "version": __version__, "protocol": PROTOCOL_VERSION},
        "created": context.created.astimezone(datetime.UTC).isoformat(timespec="seconds"),
        "command": list(context.argv),
        "corpus": {
            "source": context.transcripts or "the shipped corpus",
            "root": context.corpus_root().as_posix(),
        },
        "engine": engine_json(result, context.engine_command),
        "complete": selected <= len(result.outcomes),
        "summary": summary,
        "warnings": list(result.warnings),
        "claims": [dict(c) for c in result.claims],
        "results": [result_json(o, context) for o in result.outcomes],
    }


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def json_text(report: Mapping[str, Any]) -> str:
    """The report as JSON text: two-space indent, UTF-8, final newline."""
    return json.dumps(report, indent=2, ensure_ascii=False, default=_plain) + "\n"


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    # XML 1.0 cannot carry most control characters, which engine stderr may hold.
    return _XML_INVALID.sub("\N{REPLACEMENT CHARACTER}", text)


def junit_report(result: RunResult, context: ReportContext) -> str:
    """JUnit XML (valid against Jenkins' junit-10.xsd): one testcase per case, classname
    ``jhyap.<profile>``, name the id, ``file`` and ``line`` as in the JSON report."""
    counts = Counter(o.status for o in result.outcomes)
    failures = counts[CaseStatus.FAILED] + counts[CaseStatus.EMPTY] + counts[CaseStatus.XPASS]
    errors = counts[CaseStatus.ERRORED] + counts[CaseStatus.CRASHED] + counts[CaseStatus.TIMED_OUT]
    skipped = (
        counts[CaseStatus.SKIPPED]
        + counts[CaseStatus.XFAIL]
        + counts[CaseStatus.NOT_APPLICABLE]
        + counts[CaseStatus.NOT_CHECKED]
    )
    totals = {
        "name": "jhyap",
        "tests": str(len(result.outcomes)),
        "failures": str(failures),
        "errors": str(errors),
        "time": f"{result.wall_time:.3f}",
    }
    suites = ET.Element("testsuites", totals)
    created = context.created.astimezone(datetime.UTC).isoformat(timespec="seconds")
    judged = total_judged(result.outcomes)
    suite = ET.SubElement(
        suites,
        "testsuite",
        {
            **totals,
            "skipped": str(skipped),
            "assertions": str(judged.compared),
            "timestamp": created,
        },
    )
    rerun = context.rerun
    properties = ET.SubElement(suite, "properties")
    for claim in declared_claims(result):
        ET.SubElement(properties, "property", {"name": "claim", "value": claim["text"]})
    _judged_properties(properties, judged)
    for o in result.outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": f"jhyap.{o.profile}",
                "name": o.transcript_id,
                "file": context.report_path(o.file),
                "line": str(o.line),
                "time": f"{o.duration:.4f}",
            },
        )
        # junit-10.xsd gives a testcase no properties: its comparisons are its assertions.
        case.set("assertions", str(o.judged.compared))
        notes = [f"derived: {o.mode_note}"] if o.mode in (Mode.DERIVED, Mode.RESEATED) else []
        notes.append(o.judged.words())
        notes += [note] if (note := junit_note(o)) and o.status != CaseStatus.NOT_CHECKED else []
        if o.status == "passed":
            if notes:
                ET.SubElement(case, "system-out").text = _xml_text("\n".join(notes))
            continue
        if o.status in (
            CaseStatus.SKIPPED,
            CaseStatus.XFAIL,
            CaseStatus.NOT_APPLICABLE,
            CaseStatus.NOT_CHECKED,
        ):
            message = {
                CaseStatus.SKIPPED: o.reason,
                CaseStatus.XFAIL: f"known failure: {o.known_failure}",
                CaseStatus.NOT_APPLICABLE: f"not applicable: {o.reason}",
                CaseStatus.NOT_CHECKED: note or "not checked",
            }[o.status]
            ET.SubElement(case, "skipped", {"message": _xml_text(message)})
            continue
        tag = (
            "failure"
            if o.status in (CaseStatus.FAILED, CaseStatus.EMPTY, CaseStatus.XPASS)
            else "error"
        )
        child = ET.SubElement(case, tag, {"message": _xml_text(headline(o)), "type": o.status})
        child.text = _xml_text("\n".join(failure_block(o, rerun)))
        if notes:
            ET.SubElement(case, "system-out").text = _xml_text("\n".join(notes))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"


def _judged_properties(properties: ET.Element, judged: Judged) -> None:
    """``judged.accepted``, ``judged.moves``, ... as JUnit properties."""
    for name, count in judged.as_json().items():
        ET.SubElement(properties, "property", {"name": f"judged.{name}", "value": str(count)})
