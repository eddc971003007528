"""The known-failures file: cases expected to fail, reported as xfail (or xpass)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..spec import strictjson, yamlsafe
from ..spec.steps import Transcript
from .outcome import NOT_PASSED, CaseStatus, Outcome

XPASS_REASON = "unexpected pass: remove it from the known failures"
# What a listed failure never covers: an engine that died or stopped answering has a new
# problem, whatever wrong answer the entry was written for.
NOT_EXCUSED = frozenset({CaseStatus.CRASHED, CaseStatus.TIMED_OUT})


class InputError(Exception):
    """Input the run cannot use: ``problems`` are printed as they are (``file:line: ...``
    lines), then ``summary``, if any, after the command's name."""

    def __init__(self, problems: Sequence[str], summary: str | None = None) -> None:
        super().__init__("\n".join([*problems, *([summary] if summary else [])]))
        self.problems = list(problems)
        self.summary = summary

    def lines(self, command: str) -> list[str]:
        """What to print on standard error, one item a line."""
        return [*self.problems, *([f"{command}: {self.summary}"] if self.summary else [])]


@dataclass(frozen=True)
class KnownFailure:
    """An entry of the known-failures file."""

    id: str
    reason: str
    profile: str | None = None

    def matches(self, transcript_id: str, profile: str) -> bool:
        return self.id == transcript_id and self.profile in (None, profile)


def read_data_file(path: Path, what: str) -> Any:
    """The data of a YAML file (JSON for ``*.json``); InputError saying why there is none."""
    where = str(path)
    if not path.exists():  # the strict reader would only say "cannot read file"
        raise InputError([f"{where}: no such file (the {what})"])
    try:
        if path.suffix == ".json":
            raw = yamlsafe.read_regular_file(path)
            if len(raw) > yamlsafe.MAX_BYTES:
                raise ValueError(f"file is larger than {yamlsafe.MAX_BYTES} bytes")
            return strictjson.loads_unique(raw.decode("utf-8"), where)
        return yamlsafe.load(path).data
    except FileNotFoundError:
        raise InputError([f"{where}: no such file (the {what})"]) from None
    except OSError as exc:
        raise InputError([f"{where}: cannot read the {what}: {exc.strerror}"]) from None
    except yamlsafe.YamlProblem as exc:
        raise InputError([f"{exc}"]) from None
    except ValueError as exc:
        raise InputError(
            [f"{where}: not valid {path.suffix.lstrip('.') or 'YAML'}: {exc}"]
        ) from None


def data_entries(
    path: Path,
    what: str,
    keys: Sequence[str],
    needed: str,
    check: Callable[[str, Mapping[str, Any]], list[str]],
) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The entries of a data file holding a list of mappings that ``check`` finds no fault
    with, and every problem in file order: an entry that is not a mapping (``needed`` says
    what it must hold), an unknown key, what ``check(place, entry)`` says. InputError if the
    file holds no list."""
    where = str(path)
    content = read_data_file(path, what)
    if content is None:
        return [], []
    if not isinstance(content, list):
        raise InputError([f"{where}: expected a list of {{{', '.join(keys)}}} entries"])
    entries: list[Mapping[str, Any]] = []
    problems: list[str] = []
    for i, item in enumerate(content, start=1):
        at = f"{where}: entry {i}"
        if not isinstance(item, dict):
            problems.append(f"{at}: expected a mapping with {needed}")
            continue
        extra = sorted(str(k) for k in item if k not in keys)
        if extra:
            problems.append(f"{at}: unknown key {', '.join(extra)}")
        faults = check(at, item)
        problems += faults
        if not faults:
            entries.append(item)
    if len(problems) > _MAX_PROBLEMS:
        problems[_MAX_PROBLEMS:] = [f"{where}: ... and {len(problems) - _MAX_PROBLEMS} more"]
    return entries, problems


def _known_failure_faults(at: str, item: Mapping[str, Any]) -> list[str]:
    faults = []
    ident, reason, profile = item.get("id"), item.get("reason"), item.get("profile")
    if not isinstance(ident, str) or not ident:
        faults.append(f"{at}: id must be a transcript id")
    if not isinstance(reason, str) or not reason.strip():
        faults.append(f"{at}: reason must say why it fails")
    if profile is not None and not isinstance(profile, str):
        faults.append(f"{at}: profile must be a profile id")
    return faults


def load_known_failures(path: str | Path) -> list[KnownFailure]:
    """The entries of a known-failures file (YAML, or JSON for ``*.json``)."""
    items, problems = data_entries(
        Path(path),
        "known failures",
        ("id", "profile", "reason"),
        "id and reason",
        _known_failure_faults,
    )
    if problems:
        raise InputError(problems)
    return [KnownFailure(item["id"], item["reason"], item.get("profile")) for item in items]


_MAX_PROBLEMS = 20


def known_failure_warnings(
    known: Iterable[KnownFailure],
    transcripts: Iterable[Transcript | str],
    profile_ids: Iterable[str],
) -> list[str]:
    """Entries naming a transcript (given, or its id) or profile that does not exist."""
    ids = {t if isinstance(t, str) else t.id for t in transcripts}
    profiles = set(profile_ids)
    warnings = []
    for entry in known:
        if entry.id not in ids:
            warnings.append(f"known failures: no transcript {entry.id!r}")
        elif entry.profile is not None and entry.profile not in profiles:
            warnings.append(f"known failures: {entry.id}: no profile {entry.profile!r}")
    return warnings


def apply_known_failure(outcome: Outcome, known: Sequence[KnownFailure]) -> Outcome:
    """A listed case that fails is xfail; one that passes is xpass. One that crashes or
    times out keeps its status (the entry is noted): a known wrong answer never hides a
    crash or a hang."""
    entry = next((k for k in known if k.matches(outcome.transcript_id, outcome.profile)), None)
    if entry is None:
        return outcome
    if outcome.status in NOT_EXCUSED:
        return replace(outcome, known_failure=entry.reason)
    if outcome.status in NOT_PASSED:
        return replace(outcome, status=CaseStatus.XFAIL, known_failure=entry.reason)
    if outcome.status == CaseStatus.PASSED:
        return replace(
            outcome, status=CaseStatus.XPASS, known_failure=entry.reason, reason=XPASS_REASON
        )
    return outcome


__all__ = [
    "XPASS_REASON",
    "InputError",
    "KnownFailure",
    "apply_known_failure",
    "data_entries",
    "known_failure_warnings",
    "load_known_failures",
    "read_data_file",
]
