"""Reporting a run: progress while it runs, failure blocks and a summary, JSON and JUnit XML."""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import shlex
import sys
import threading
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

from reference_engine.messages import clip_words

from ..harness.compare import show
from ..harness.known_failures import NOT_EXCUSED
from ..harness.outcome import (
    CRASHED,
    ERRORED,
    FAILED,
    NOT_APPLICABLE,
    NOT_CHECKED,
    NOT_PASSED,
    PASSED,
    SKIPPED,
    STATUSES,
    TIMED_OUT,
    XFAIL,
    XPASS,
    Outcome,
)
from ..harness.runner import RunResult
from .files import OutputKind, WriteRefused, write_atomic
from .modes import DERIVED, WRITTEN, any_derived, mode_counts, mode_lines, split_counts
from .style import Style, plural
from .terminal import one_line, visible_styled
from .unchecked import junit_note, unchecked_lines, unchecked_total

SYMBOLS = {
    "passed": ".",
    FAILED: "F",
    ERRORED: "E",
    CRASHED: "C",
    TIMED_OUT: "T",
    SKIPPED: "s",
    XFAIL: "x",
    XPASS: "X",
    NOT_APPLICABLE: "-",
    NOT_CHECKED: "?",
}
HEADINGS = {
    FAILED: "FAILED",
    ERRORED: "ERRORED",
    CRASHED: "CRASHED",
    TIMED_OUT: "TIMED OUT",
    XPASS: "UNEXPECTED PASS",
}
# How the console names each outcome in counts ("3 timed out", "1 xfailed").
LABELS = {
    TIMED_OUT: "timed out",
    XFAIL: "xfailed",
    XPASS: "xpassed",
    NOT_APPLICABLE: "not applicable",
    NOT_CHECKED: "not checked",
}
COLOURS = {
    "passed": "green",
    FAILED: "red",
    ERRORED: "red",
    CRASHED: "red",
    TIMED_OUT: "red",
    XPASS: "red",
    SKIPPED: "yellow",
    XFAIL: "yellow",
    NOT_APPLICABLE: "yellow",
    NOT_CHECKED: "yellow",
}
BAD = NOT_PASSED | {XPASS}
OK_PLAIN = frozenset({PASSED, SKIPPED, NOT_APPLICABLE, NOT_CHECKED})  # no failure to describe
PLAIN = Style(enabled=False)
STDERR_LINES = 20
DOTS_PER_LINE = 80
MAX_VALUE_CHARS = 2000


class Progress:
    """Progress on stderr: a bar on a terminal, else a line of one symbol per case."""

    def __init__(self, total: int, stream: IO[str] | None = None, tty: bool | None = None) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = 0
        self.bad = 0
        self._lock = threading.Lock()

    def __call__(self, outcome: Outcome) -> None:
        with self._lock:
            self.done += 1
            self.bad += outcome.status in BAD
            if self.tty:
                width = 30
                filled = width * self.done // max(self.total, 1)
                bar = "#" * filled + "." * (width - filled)
                failed = f"  {self.bad} failed" if self.bad else ""
                self.stream.write(f"\r[{bar}] {self.done}/{self.total}{failed}")
            else:
                self.stream.write(SYMBOLS.get(outcome.status, "?"))
                if self.done % DOTS_PER_LINE == 0 and self.done < self.total:
                    self.stream.write("\n")
            self.stream.flush()

    def finish(self) -> None:
        with self._lock:
            if self.tty:
                self.stream.write("\r" + " " * 60 + "\r")
            elif self.done:
                self.stream.write("\n")
            self.stream.flush()


@dataclass(frozen=True)
class RerunInfo:
    """What a rerun command must repeat: every option of the run that is not its default."""

    engine: str | None = None  # None: the default engine
    transcripts: str | None = None  # None: the shipped corpus
    timeout: float | None = None  # None: the default timeout
    profile_files: Mapping[str, str] = field(default_factory=dict)  # profile id -> file given
    validate_protocol: bool = True
    known_failures: str | None = None
    window: int | None = None  # None: the default window

    def command(self, outcome: Outcome) -> str:
        profile = self.profile_files.get(outcome.profile, outcome.profile)
        words = ["jhyap", "run", "-k", outcome.transcript_id, "--profile", profile]
        if self.engine is not None:
            words += ["--engine", self.engine]
        if self.transcripts is not None:
            words += ["--transcripts", self.transcripts]
        if self.timeout is not None:
            words += ["--timeout", f"{self.timeout:g}"]
        if not self.validate_protocol:
            words.append("--no-validate-protocol")
        if self.known_failures is not None:
            words += ["--known-failures", self.known_failures]
        if self.window is not None:
            words += ["--window", str(self.window)]
        return shlex.join(words)


def _clip(text: str) -> str:
    if len(text) <= MAX_VALUE_CHARS:
        return text
    return text[:MAX_VALUE_CHARS] + f" ... ({len(text)} characters)"


def _compact(value: Any) -> str:
    return _clip(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def _value_lines(label: str, value: Any) -> list[str]:
    """``label`` and a value: a list of events one per line, anything else on one line."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [f"  {label}:"] + [f"    {one_line(_clip(show(v)))}" for v in value]
    return [f"  {label}: {one_line(_clip(show(value)))}"]


def headline(outcome: Outcome) -> str:
    """One line saying what went wrong first: the first difference, then the step (so
    that a line cut to the terminal's width keeps the difference)."""
    detail = outcome.differences[0] if outcome.differences else outcome.reason
    if outcome.state_diff and outcome.reason and outcome.differences:
        detail = f"{outcome.reason}: {detail}"
    if outcome.step is None:
        return one_line(detail)
    return one_line(f"{detail} (step {outcome.step}: {outcome.step_description})")


def failure_block(outcome: Outcome, rerun: RerunInfo, style: Style = PLAIN) -> list[str]:
    """The explanation of one case that did not pass, line by line."""
    heading = HEADINGS.get(outcome.status, outcome.status.upper())
    lines = [f"{style.paint(heading, 'red', 'bold')} {outcome.transcript_id} [{outcome.profile}]"]
    where = f"  {outcome.file}:{outcome.line}"
    if outcome.step is not None:
        where += f"  step {outcome.step}: {outcome.step_description}"
    lines.append(where)
    if outcome.reason:
        lines.append(f"  {one_line(outcome.reason)}")
    lines += mode_lines(outcome)
    if outcome.known_failure and outcome.status in NOT_EXCUSED:
        lines.append(
            f"  listed as a known failure, which excuses a wrong answer, not a "
            f"{'crash' if outcome.status == CRASHED else 'hang'}: {one_line(outcome.known_failure)}"
        )
    elif outcome.known_failure:
        lines.append(f"  listed as a known failure: {one_line(outcome.known_failure)}")
    if outcome.status == XPASS:
        # A pass: no clause failed. It is listed so that the stale entry gets removed.
        lines.append(f"  rerun: {rerun.command(outcome)}")
        return lines
    lines.append(
        f"  clauses: {', '.join(outcome.clauses) or f'(none of {outcome.profile} or the protocol)'}"
    )
    if outcome.request is not None:
        lines.append(f"  request: {_compact(outcome.request)}")
    if outcome.state_diff:
        lines += _value_lines("expected", outcome.expected)
        lines += _value_lines("actual", outcome.actual)
        lines.append("  state before and after the refusal:")
        lines += [f"    {one_line(d)}" for d in outcome.differences]
    else:
        if outcome.expected is not None or outcome.actual is not None:
            lines += _value_lines("expected", outcome.expected)
            lines += _value_lines("actual", outcome.actual)
        if outcome.differences:
            lines.append("  differences:")
            lines += [f"    {one_line(d)}" for d in outcome.differences]
    tail = outcome.stderr_tail[-STDERR_LINES:]
    if tail:
        lines.append(f"  engine stderr (last {plural(len(tail), 'line')}):")
        lines += [f"    | {one_line(_clip(line))}" for line in tail]
    else:
        lines.append("  engine stderr: (nothing)")
    lines.append(f"  rerun: {rerun.command(outcome)}")
    return lines


def _family(clause: str) -> str:
    return ".".join(clause.split(".")[:2])


def _table(title: str, rows: Sequence[tuple[str, Counter[str]]]) -> list[str]:
    width = max([len(title)] + [len(name) for name, _ in rows])
    lines = [f"{title:<{width}}  passed  failed  other"]
    for name, counts in rows:
        lines.append(
            f"{name:<{width}}  {counts['passed']:>6}  {counts['failed']:>6}  {counts['other']:>5}"
        )
    return lines


def _bucket(outcome: Outcome) -> str:
    """passed, failed (a clause broken) or other: skipped, a known failure, an unexpected
    pass; those two are listed apart, never as failing clauses."""
    if outcome.status == "passed":
        return "passed"
    return "failed" if outcome.status in NOT_PASSED else "other"


def counts_line(outcomes: Sequence[Outcome], style: Style = PLAIN) -> str:
    """``3 passed, 1 failed, 2 timed out`` in the order of STATUSES."""
    counts = Counter(o.status for o in outcomes)
    split = any_derived(outcomes)
    parts = []
    for s in STATUSES:
        if not counts[s]:
            continue
        colour = COLOURS.get(s, "bold")
        if split and s in (PASSED, FAILED):
            # Under a declared ruleset a pass says whose expectations it met.
            parts += [style.paint(f"{n} {label}", colour) for label, n in split_counts(outcomes, s)]
        else:
            parts.append(style.paint(f"{counts[s]} {LABELS.get(s, s)}", colour))
    return ", ".join(parts) or "no cases"


def verdict_line(result: RunResult, style: Style = PLAIN) -> str:
    """The last line of a run: ``== 3 passed, 1 failed (4 cases) in 1.20 s ==``."""
    outcomes = result.outcomes
    return (
        f"== {counts_line(outcomes, style)} ({plural(len(outcomes), 'case')}) "
        f"in {result.wall_time:.2f} s =="
    )


def summary_lines(
    result: RunResult, top: int = 10, verbosity: int = 0, style: Style = PLAIN
) -> list[str]:
    """What ends a run's report, by verbosity: -1 the verdict line alone; 0 adds the
    failing clauses, skip reasons, known failures and the engine; 1 adds the tables by
    profile and clause family. The verdict line comes last."""
    outcomes = result.outcomes
    verdict = verdict_line(result, style)
    if verbosity < 0:
        return [verdict]
    by_profile: dict[str, Counter[str]] = {}
    by_family: dict[str, Counter[str]] = {}
    failing_clauses: Counter[str] = Counter()
    first_named: Counter[str] = Counter()  # failures that name the clause first
    for o in outcomes:
        bucket = _bucket(o)
        by_profile.setdefault(o.profile, Counter())[bucket] += 1
        for family in dict.fromkeys(_family(c) for c in o.clauses):
            by_family.setdefault(family, Counter())[bucket] += 1
        if bucket == "failed":
            # What differed points at the first `focus` clauses; the rest only came along.
            failing_clauses.update(o.clauses[: o.focus] if o.focus else o.clauses)
            if o.clauses:
                first_named[o.clauses[0]] += 1
    lines: list[str] = []
    if verbosity > 0:
        lines += _table("profile", sorted(by_profile.items()))
        if by_family:
            lines.append("")
            families = sorted(by_family.items(), key=lambda kv: (-kv[1]["failed"], kv[0]))
            lines += _table("clause family", families[:top])
            if len(families) > top:
                more = plural(len(families) - top, "more family", "more families")
                lines.append(f"... and {more}")
        lines.append("")
    if failing_clauses:
        lines.append("top failing clauses:")
        # A stable sort: among equal counts, the order transcripts list their clauses in,
        # which puts the rule a transcript is about (listed first) before its incidentals.
        # Failures naming the clause first rank it before those it merely came along with.
        ranked = sorted(failing_clauses.items(), key=lambda kv: (-first_named[kv[0]], -kv[1]))
        ranked = ranked[:top]
        width = max(len(c) for c, _ in ranked)
        lines += [f"  {c:<{width}}  {n}" for c, n in ranked]
        lines.append("")
    skipped = Counter(o.reason for o in outcomes if o.status == SKIPPED)
    if skipped:
        lines.append("skipped:")
        lines += [f"  {n} x {reason}" for reason, n in sorted(skipped.items())]
        lines.append("")
    lines += unchecked_lines(outcomes)
    xfails = [o for o in outcomes if o.status == XFAIL]
    if xfails:
        lines.append("known failures (xfail):")
        lines += [f"  {o.transcript_id} [{o.profile}]: {o.known_failure}" for o in xfails]
        lines.append("")
    xpasses = [o for o in outcomes if o.status == XPASS]
    if xpasses:
        lines.append("unexpected passes (listed as known failures; remove the entries):")
        lines += [f"  {o.transcript_id} [{o.profile}]: {o.known_failure}" for o in xpasses]
        lines.append("")
    lines.append(f"engine: {result.info.describe()}")
    lines.append(verdict)
    return lines


def quiet_line(outcome: Outcome, style: Style = PLAIN) -> str:
    """A case that did not pass, in one line (``run -q``)."""
    heading = HEADINGS.get(outcome.status, outcome.status.upper())
    return (
        f"{style.paint(heading, 'red', 'bold')} {outcome.transcript_id} [{outcome.profile}] "
        f"{outcome.file}:{outcome.line}: {headline(outcome)}"
    )


MAX_SHOWN_WARNINGS: Final = 20  # a console shows this many warnings, then a count


def shown_warnings(warnings: Sequence[str], limit: int = MAX_SHOWN_WARNINGS) -> list[str]:
    """The warnings a console shows, each on one line: the first ``limit``, then how many
    more there are (a large known-failures file must not bury the summary)."""
    shown = [clip_words(one_line(w)) for w in warnings[:limit]]
    if len(warnings) > limit:
        more = plural(len(warnings) - limit, "more warning")
        shown.append(f"... and {more} (a --json report lists them all)")
    return shown


def console_report(
    result: RunResult, rerun: RerunInfo, verbosity: int = 0, style: Style = PLAIN
) -> list[str]:
    """The whole console report: a block per case that did not pass (a line each under
    ``-q``), the warnings, then the summary."""
    lines: list[str] = []
    for outcome in result.outcomes:
        if outcome.status in BAD:
            if verbosity < 0:
                lines.append(quiet_line(outcome, style))
            else:
                lines += failure_block(outcome, rerun, style)
                lines.append("")
    for warning in shown_warnings(result.warnings):
        lines.append(f"{style.paint('warning:', 'yellow')} {warning}")
    if result.warnings and verbosity >= 0:
        lines.append("")
    claimed = declared_claims(result)
    lines += [f"claim: {c['text']}" for c in claimed] + ([""] if claimed else [])
    return lines + summary_lines(result, verbosity=verbosity, style=style)


def declared_claims(result: RunResult) -> list[dict[str, Any]]:
    """The claims of profiles that declare readings or are variants (not shipped as they are),
    and of every profile a run faced every transcript with (``--profile``)."""
    return [c for c in result.claims if c["profile"] != c["base"] or c["variant"] or "modes" in c]


# -- files -------------------------------------------------------------------------


STDOUT: Final = "-"  # a report path meaning standard output


def write_report(
    path: str,
    text: str,
    stdout: IO[str] | None = None,
    *,
    kind: OutputKind | None = None,
    force: bool = False,
) -> None:
    """Write a report to ``path``, or to standard output when ``path`` is ``-``; an
    existing file only when it is a report of ``kind`` or ``force`` is given."""
    if path == STDOUT:
        out = stdout if stdout is not None else sys.stdout
        out.write(text)
        out.flush()
    else:
        write_atomic(path, text, kind=None if force else kind)


def os_error_text(exc: OSError, path: str | Path | None = None) -> str:
    """An OSError as people read it: ``path: No such file or directory``, no errno.
    ``path`` names the file meant (not the temporary file a write failed on); a refused
    write already says which file was in the way."""
    if isinstance(exc, WriteRefused):
        return str(exc)
    reason = exc.strerror or str(exc)
    name = path if path is not None else exc.filename
    return f"{os.fsdecode(name)}: {reason}" if name is not None else reason


# -- JSON and JUnit ------------------------------------------------------------------

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
        from ..spec.data import transcripts_dir

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
        "failure": None if o.status in OK_PLAIN else failure_json(o, context),
    }


def json_report(result: RunResult, context: ReportContext) -> dict[str, Any]:
    """The JSON report (schema/report.schema.json): what ran, on what, and every case."""
    from .. import __version__
    from ..harness.client import PROTOCOL_VERSION

    counts = Counter(o.status for o in result.outcomes)
    summary: dict[str, Any] = {s: counts[s] for s in STATUSES}
    summary["total"] = len(result.outcomes)
    selected = len(result.outcomes) if result.selected is None else result.selected
    summary["selected"] = selected
    summary["modes"] = mode_counts(result.outcomes)
    summary["passed_as_written"] = sum(
        1 for o in result.outcomes if o.status == PASSED and o.mode == WRITTEN
    )
    summary["passed_derived"] = sum(
        1 for o in result.outcomes if o.status == PASSED and o.mode == DERIVED
    )
    summary["checks_not_checked"] = unchecked_total(result.outcomes)
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
    failures = counts[FAILED] + counts[XPASS]
    errors = counts[ERRORED] + counts[CRASHED] + counts[TIMED_OUT]
    skipped = counts[SKIPPED] + counts[XFAIL] + counts[NOT_APPLICABLE] + counts[NOT_CHECKED]
    totals = {
        "name": "jhyap",
        "tests": str(len(result.outcomes)),
        "failures": str(failures),
        "errors": str(errors),
        "time": f"{result.wall_time:.3f}",
    }
    suites = ET.Element("testsuites", totals)
    created = context.created.astimezone(datetime.UTC).isoformat(timespec="seconds")
    suite = ET.SubElement(
        suites, "testsuite", {**totals, "skipped": str(skipped), "timestamp": created}
    )
    rerun = context.rerun
    claimed = declared_claims(result)
    if claimed:
        properties = ET.SubElement(suite, "properties")
        for claim in claimed:
            ET.SubElement(properties, "property", {"name": "claim", "value": claim["text"]})
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
        notes = [f"derived: {o.mode_note}"] if o.mode == DERIVED else []
        notes += [note] if (note := junit_note(o)) and o.status != NOT_CHECKED else []
        if o.status == "passed":
            if notes:
                ET.SubElement(case, "system-out").text = _xml_text("\n".join(notes))
            continue
        if o.status in (SKIPPED, XFAIL, NOT_APPLICABLE, NOT_CHECKED):
            message = {
                SKIPPED: o.reason,
                XFAIL: f"known failure: {o.known_failure}",
                NOT_APPLICABLE: f"not applicable: {o.reason}",
                NOT_CHECKED: note or "not checked",
            }[o.status]
            ET.SubElement(case, "skipped", {"message": _xml_text(message)})
            continue
        tag = "failure" if o.status in (FAILED, XPASS) else "error"
        child = ET.SubElement(case, tag, {"message": _xml_text(headline(o)), "type": o.status})
        child.text = _xml_text("\n".join(failure_block(o, rerun)))
        if notes:
            ET.SubElement(case, "system-out").text = _xml_text("\n".join(notes))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"


def print_lines(lines: Iterable[str], stream: IO[str] | None = None) -> None:
    out = stream if stream is not None else sys.stdout
    for line in lines:
        out.write(visible_styled(line) + "\n")  # lines quote what engines wrote
    out.flush()


def counts_by_status(outcomes: Iterable[Outcome]) -> Mapping[str, int]:
    counts = Counter(o.status for o in outcomes)
    return {s: counts[s] for s in STATUSES}


__all__ = [
    "Progress",
    "ReportContext",
    "RerunInfo",
    "console_report",
    "counts_line",
    "failure_block",
    "headline",
    "json_report",
    "json_text",
    "junit_report",
    "os_error_text",
    "print_lines",
    "summary_lines",
    "write_atomic",
    "write_report",
]
