"""What the command-line tests share: the fake engines, the harness's own transcripts,
``jhyap`` called in this process and the reference engine (or a rule mutant of it) run in it."""

from __future__ import annotations

import contextlib
import io
import shlex
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest

from conformance import cli
from conformance.harness import runner
from conformance.harness.inprocess import ReferenceStandIn
from conformance.harness.runner import Case, RunConfig, RunResult
from tests.mutants.engine import MUTANTS

ROOT = Path(__file__).resolve().parent.parent
FAKES = ROOT / "tests" / "fake_engines"
DATA = ROOT / "tests" / "data" / "transcripts"
PASSING = "harness-pass-run-ends"  # a transcript every faithful engine passes


def fake(name: str, *args: str) -> str:
    """The command string of a fake engine."""
    return shlex.join([sys.executable, str(FAKES / f"{name}.py"), *args])


def jhyap(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``jhyap ARGS`` in this process: (exit status, stdout, stderr)."""
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_args(engine: str, *more: str) -> tuple[str, ...]:
    """``jhyap run`` of ``engine`` on the passing transcript."""
    return ("run", "--engine", engine, "--transcripts", str(DATA), "-k", PASSING, *more)


# The reference engine in this process, standing in for the runner's engine client: for
# tests about what the reference answers under a ruleset, not about the pipe (the answers
# still go through JSON, as over it; tests/e2e/test_corpus_teeth.py runs the real server).
InProcessReference = ReferenceStandIn


def run_reference_in_process(cases: Sequence[Case], config: RunConfig) -> RunResult:
    """``run_cases`` with every engine process an in-process reference engine."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "EngineClient", InProcessReference)
        return runner.run_cases(cases, config)


def reference_report(engine: str, profile: str, target: Path) -> int:
    """``jhyap run -q --engine ENGINE --profile PROFILE --json TARGET`` by
    ``run_reference_quietly``. Returns the exit status."""
    args = ["run", "-q", "--engine", engine, "--profile", profile, "--json", str(target)]
    return run_reference_quietly(args)[0]


def run_reference_quietly(args: Sequence[str]) -> tuple[int, str]:
    """``jhyap ARGS`` in this process, from the repository's root, every engine it starts
    the reference engine in this process (an ``--engine`` given is only the command a report
    names): for tests that need a run's report, not the pipe. (exit status, stdout); what it
    prints on stderr is dropped."""
    return run_quietly(args, reference_in_process=True)


def run_quietly(args: Sequence[str], *, reference_in_process: bool = False) -> tuple[int, str]:
    """``jhyap ARGS`` in this process, from the repository's root, its engines over their
    pipes (for tests of an engine, not of the command's start; each command keeps tests of
    its own process): (exit status, stdout); what it prints on stderr is dropped."""
    out = io.StringIO()
    quiet = contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO())
    with pytest.MonkeyPatch.context() as patch, quiet[0], quiet[1]:
        if reference_in_process:
            patch.setattr(runner, "EngineClient", InProcessReference)
        patch.chdir(ROOT)
        code = cli.main(list(args))
    return code, out.getvalue()


def run_variants(
    transcripts: Path, profiles: Sequence[Path], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``jhyap run -q`` of the transcripts under ``transcripts`` against the reference, under
    each variant file of ``profiles``, in this process: (exit status, stdout)."""
    args = ["run", "-q", "--transcripts", str(transcripts)]
    for path in profiles:
        args += ["--profile", str(path)]
    status = cli.main(args)
    return status, capsys.readouterr().out


def run_variant_switched(
    transcripts: Path,
    variant: Path,
    stated: str,
    switched: str,
    folder: Path,
    capsys: pytest.CaptureFixture[str],
    others: Sequence[Path] = (),
) -> tuple[int, str]:
    """``run_variants`` under ``variant`` with its rule value switched: asserts the variant
    still says ``stated``, writes a copy of the same name under ``folder`` saying
    ``switched`` instead, and runs it (with ``others`` beside it): (exit status, stdout)."""
    text = variant.read_text("utf-8")
    assert stated in text
    copy = folder / variant.name
    copy.write_text(text.replace(stated, switched), "utf-8")
    return run_variants(transcripts, [copy, *others], capsys)


# -- a rule mutant in this process ----------------------------------------------------------

# The packages a mutant of tests/mutants/engine.py patches: their modules and the classes
# they define.
_PATCHED_PACKAGES = ("reference_engine", "jhyap_core")
_Patch = tuple[object, str, object]  # owner, attribute, value (_ABSENT: none)
_ABSENT = object()


def _patchable() -> list[object]:
    # Not the copies tests/fuzz/engines.py keeps for its in-process engines, listed as
    # ``reference_engine.rules@2``: a mutant patches the test process's own modules, and a
    # campaign's tests load dozens of copies (walking them was most of what this cost).
    modules = [
        module
        for name, module in sorted(sys.modules.items())
        if module is not None and name.split(".", 1)[0] in _PATCHED_PACKAGES and "@" not in name
    ]
    classes = [
        value
        for module in modules
        for value in vars(module).values()
        if isinstance(value, type) and value.__module__ == module.__name__
    ]
    return [*modules, *classes]


def _set(patches: Sequence[_Patch]) -> None:
    for owner, attribute, value in patches:
        if value is _ABSENT:
            delattr(owner, attribute)
        else:
            setattr(owner, attribute, value)


def mutant_patches(name: str) -> tuple[list[_Patch], list[_Patch]]:
    """What the mutant ``name`` of tests/mutants/engine.py changes, found by applying it and
    putting everything back: (its patches, the originals they replace)."""
    owners = _patchable()
    before = [dict(vars(owner)) for owner in owners]
    MUTANTS[name]()
    patched: list[_Patch] = []
    original: list[_Patch] = []
    for owner, kept in zip(owners, before, strict=True):
        now = vars(owner)
        for attribute in sorted(set(kept) | set(now)):
            old, new = kept.get(attribute, _ABSENT), now.get(attribute, _ABSENT)
            if old is not new:
                patched.append((owner, attribute, new))
                original.append((owner, attribute, old))
    _set(original)
    assert patched, f"the mutant {name} changes nothing in {_PATCHED_PACKAGES}"
    # A module it loaded itself would have escaped the comparison (and kept its patches).
    assert _patchable() == owners, f"the mutant {name} loads modules of its own"
    return patched, original


def _protocol_layer(patched: Sequence[_Patch]) -> bool:
    """Whether ``patched`` changes the protocol layer (reference_engine/server.py)."""
    from reference_engine import server

    return any(
        owner is server or getattr(owner, "__module__", None) == server.__name__
        for owner, _, _ in patched
    )


def runs_in_process(name: str) -> bool:
    """Whether the mutant ``name`` can answer in this process: not one of the protocol layer
    (reference_engine/server.py), which breaks how requests are read and answered."""
    patched, _ = mutant_patches(name)
    return not _protocol_layer(patched)


def mutant_client(name: str) -> type[InProcessMutant]:
    """The engine client of the rule mutant ``name`` in this process (each instance a fresh
    engine)."""
    patched, original = mutant_patches(name)
    assert not _protocol_layer(patched), f"the mutant {name} breaks the protocol layer: use a pipe"
    return type(f"InProcess_{name}", (InProcessMutant,), {"patched": patched, "original": original})


class InProcessMutant(InProcessReference):
    """A rule mutant answering in this process: its patches are in force only while it
    answers a request, so that the reference the harness asks in between (to derive a
    case's expectations) is the true one. For one engine at a time (``--jobs 1``); a
    protocol mutant, which breaks the server's own decoding, stays a subprocess."""

    patched: ClassVar[Sequence[_Patch]] = ()
    original: ClassVar[Sequence[_Patch]] = ()

    def send(self, message: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        _set(self.patched)
        try:
            return super().send(message, timeout=timeout)
        finally:
            _set(self.original)

    def send_raw(self, line: bytes, *, timeout: float | None = None) -> dict[str, Any]:
        _set(self.patched)
        try:
            return super().send_raw(line, timeout=timeout)
        finally:
            _set(self.original)


@contextmanager
def mutant_in_process(name: str) -> Iterator[None]:
    """Every engine the runner starts is the rule mutant ``name`` in this process (run with
    ``--jobs 1``): for tests of what the harness makes of a broken rule, not of the pipe
    (tests/e2e/test_corpus_teeth.py runs every mutant as a subprocess)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "EngineClient", mutant_client(name))
        yield
