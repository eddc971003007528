"""Reporting a run: progress while it runs, failure blocks and a summary, JSON and JUnit XML."""

from __future__ import annotations

import json
import shlex
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Final

from jhyap_core.text import clip_words

from ..harness.compare import show
from ..harness.known_failures import NOT_EXCUSED
from ..harness.outcome import NOT_PASSED, STATUSES, CaseStatus, Outcome, total_judged
from ..harness.runner import RunResult
from ..spec.wording import plural
from .modes import any_derived, mode_lines, split_counts
from .style import Style
from .terminal import one_line, visible_styled
from .unchecked import kit_kept_lines, unchecked_lines

SYMBOLS = {
    "passed": ".",
    CaseStatus.FAILED: "F",
    CaseStatus.EMPTY: "0",
    CaseStatus.ERRORED: "E",
    CaseStatus.CRASHED: "C",
    CaseStatus.TIMED_OUT: "T",
    CaseStatus.SKIPPED: "s",
    CaseStatus.XFAIL: "x",
    CaseStatus.XPASS: "X",
    CaseStatus.NOT_APPLICABLE: "-",
    CaseStatus.NOT_CHECKED: "?",
}
HEADINGS = {
    CaseStatus.FAILED: "FAILED",
    CaseStatus.EMPTY: "JUDGED NOTHING",
    CaseStatus.ERRORED: "ERRORED",
    CaseStatus.CRASHED: "CRASHED",
    CaseStatus.TIMED_OUT: "TIMED OUT",
    CaseStatus.XPASS: "UNEXPECTED PASS",
}
# How the console names each outcome in counts ("3 timed out", "1 xfailed").
LABELS = {
    CaseStatus.TIMED_OUT: "timed out",
    CaseStatus.XFAIL: "xfailed",
    CaseStatus.XPASS: "xpassed",
    CaseStatus.NOT_APPLICABLE: "not applicable",
    CaseStatus.NOT_CHECKED: "not checked",
}
COLOURS = {
    "passed": "green",
    CaseStatus.FAILED: "red",
    CaseStatus.EMPTY: "red",
    CaseStatus.ERRORED: "red",
    CaseStatus.CRASHED: "red",
    CaseStatus.TIMED_OUT: "red",
    CaseStatus.XPASS: "red",
    CaseStatus.SKIPPED: "yellow",
    CaseStatus.XFAIL: "yellow",
    CaseStatus.NOT_APPLICABLE: "yellow",
    CaseStatus.NOT_CHECKED: "yellow",
}
BAD = NOT_PASSED | {CaseStatus.XPASS}
OK_PLAIN = frozenset(
    {CaseStatus.PASSED, CaseStatus.SKIPPED, CaseStatus.NOT_APPLICABLE, CaseStatus.NOT_CHECKED}
)  # no failure to describe
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
    engine_env: tuple[str, ...] = ()  # each --engine-env as given (NAME or NAME=VALUE)
    engine_memory: int | None = None  # --engine-memory MB
    engine_cpu: int | None = None  # --engine-cpu SECONDS

    def command(self, outcome: Outcome) -> str:
        profile = self.profile_files.get(outcome.profile, outcome.profile)
        words = ["jhyap", "run", "-k", outcome.transcript_id, "--profile", profile]
        if self.engine is not None:
            words += ["--engine", self.engine]
        for variable in self.engine_env:
            words.append(f"--engine-env={variable}")  # "=": a value may start with a dash
        if self.engine_memory is not None:
            words += ["--engine-memory", str(self.engine_memory)]
        if self.engine_cpu is not None:
            words += ["--engine-cpu", str(self.engine_cpu)]
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


# The events of a failure shown one per line, at most: the rest are counted.
MAX_EVENT_LINES = 40


def _value_lines(label: str, value: Any) -> list[str]:
    """``label`` and a value: a list of events one per line, anything else on one line."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        shown = [f"    {one_line(_clip(show(v)))}" for v in value[:MAX_EVENT_LINES]]
        if len(value) > MAX_EVENT_LINES:
            shown.append(f"    ... and {len(value) - MAX_EVENT_LINES} more events")
        return [f"  {label}:", *shown]
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
        stopped = "crash" if outcome.status == CaseStatus.CRASHED else "hang"
        lines.append(
            f"  listed as a known failure, which excuses a wrong answer, not a "
            f"{stopped}: {one_line(outcome.known_failure)}"
        )
    elif outcome.known_failure:
        lines.append(f"  listed as a known failure: {one_line(outcome.known_failure)}")
    if outcome.status == CaseStatus.XPASS:
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
    pass, a case that judged nothing (no clause was shown broken); those are listed apart,
    never as failing clauses."""
    if outcome.status == "passed":
        return "passed"
    return "failed" if outcome.status in NOT_PASSED - {CaseStatus.EMPTY} else "other"


def _failing_clauses_table(failing: Counter[str], first_named: Counter[str], top: int) -> list[str]:
    """The clauses failed cases credit, most failures first: first the failures naming the
    clause first (a failure names the rule most likely broken first), then all of them, then
    the clause id; titled with that order and the columns' meaning."""
    ranked = sorted(failing.items(), key=lambda kv: (-first_named[kv[0]], -kv[1], kv[0]))
    shown = ranked[:top]
    width = max([len("clause")] + [len(c) for c, _ in shown])
    lines = [
        "top failing clauses, by first, then failed, then clause:",
        "  (first: failed cases naming the clause first, as the rule most likely broken; "
        "failed: failed cases crediting it)",
        f"  {'clause':<{width}}  first  failed",
        *(f"  {c:<{width}}  {first_named[c]:>5}  {n:>6}" for c, n in shown),
    ]
    if len(ranked) > top:
        more = plural(len(ranked) - top, "more clause")
        lines.append(f"  ... and {more}: each failure above lists its clauses")
    return lines


def counts_line(outcomes: Sequence[Outcome], style: Style = PLAIN) -> str:
    """``3 passed, 1 failed, 2 timed out`` in the order of STATUSES."""
    counts = Counter(o.status for o in outcomes)
    split = any_derived(outcomes)
    parts = []
    for s in STATUSES:
        if not counts[s]:
            continue
        colour = COLOURS.get(s, "bold")
        if split and s in (CaseStatus.PASSED, CaseStatus.FAILED):
            # Under a declared ruleset a pass says whose expectations it met.
            parts += [style.paint(f"{n} {label}", colour) for label, n in split_counts(outcomes, s)]
        else:
            parts.append(style.paint(f"{counts[s]} {LABELS.get(s, s)}", colour))
    return ", ".join(parts) or "no cases"


def verdict_line(result: RunResult, style: Style = PLAIN) -> str:
    """The last line of a run: ``== 3 passed, 1 failed (4 cases) in 1.20 s; judged 52
    accepted actions (40 moves), 3 refusals, 12 states ==``."""
    outcomes = result.outcomes
    return (
        f"== {counts_line(outcomes, style)} ({plural(len(outcomes), 'case')}) "
        f"in {result.wall_time:.2f} s; {total_judged(outcomes).words()} =="
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
                lines.append(
                    f"... and {more}, none with more failures "
                    "(a --json report gives each case's clauses)"
                )
        lines.append("")
    if failing_clauses:
        lines += _failing_clauses_table(failing_clauses, first_named, top)
        lines.append("")
    skipped = Counter(o.reason for o in outcomes if o.status == CaseStatus.SKIPPED)
    if skipped:
        lines.append("skipped:")
        lines += [f"  {n} x {reason}" for reason, n in sorted(skipped.items())]
        lines.append("")
    lines += unchecked_lines(outcomes)
    lines += kit_kept_lines(outcomes)
    xfails = [o for o in outcomes if o.status == CaseStatus.XFAIL]
    if xfails:
        lines.append("known failures (xfail):")
        lines += [f"  {o.transcript_id} [{o.profile}]: {o.known_failure}" for o in xfails]
        lines.append("")
    xpasses = [o for o in outcomes if o.status == CaseStatus.XPASS]
    if xpasses:
        lines.append("unexpected passes (listed as known failures; remove the entries):")
        lines += [f"  {o.transcript_id} [{o.profile}]: {o.known_failure}" for o in xpasses]
        lines.append("")
    # The engine names itself in its hello answer: its words stay on this one line.
    lines.append(f"engine: {one_line(result.info.describe())}")
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


def with_judged(
    claims: Sequence[Mapping[str, Any]], outcomes: Sequence[Outcome]
) -> list[dict[str, Any]]:
    """The claims, each with what its profile's cases judged, in numbers and in its text:
    a claim rests on what was compared, never on a count of cases alone."""
    found = []
    for c in claims:
        judged = total_judged(o for o in outcomes if o.profile == c["profile"])
        found.append({**c, "judged": judged.as_json(), "text": f"{c['text']}; {judged.words()}"})
    return found


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
    "RerunInfo",
    "console_report",
    "counts_line",
    "failure_block",
    "headline",
    "print_lines",
    "summary_lines",
]
