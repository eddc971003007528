"""The pytest plugin: the conformance corpus as pytest items (``pytest --jhyap-engine CMD``).

Installed as the ``pytest11`` entry point ``jhyap``, so every pytest session in an
environment with this package loads it. Without ``--jhyap-engine`` it only adds its
options: it adds no item, registers nothing else and imports none of the harness.

With ``--jhyap-engine`` each (transcript, profile) case becomes one item, named
``jhyap::<profile>::<id>`` and marked ``jhyap``, added to whatever else the session
collects. Items run through the same runner as ``jhyap run``: one engine process serves
item after item and is restarted after a crash, a timeout or a protocol violation; it is
stopped when the session ends. A failure shows the same explanation as ``jhyap run``
(file:line, step, expected, actual, engine stderr, rerun command). Skipped cases are
skipped; known failures are xfail, and one that passes fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from .harness.replay import Outcome
    from .harness.runner import Case, EngineWorker, RunConfig
    from .reporting.report import RerunInfo

PLUGIN_NAME = "jhyap-conformance-session"
ROOT_NAME = "jhyap"
MARKER = "jhyap"  # every item has it: ``-m jhyap`` selects the corpus alone


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's options; all of them are ignored without ``--jhyap-engine``."""
    group = parser.getgroup(
        "jhyap", "Jhyap conformance (runs the corpus when --jhyap-engine is given)"
    )
    group.addoption(
        "--jhyap-engine",
        metavar="CMD",
        default=None,
        help="run the conformance transcripts against the engine started by CMD "
        "(split like a shell would, no expansion)",
    )
    group.addoption(
        "--jhyap-profile",
        action="append",
        default=[],
        metavar="P",
        help="only cases under this profile (repeatable, or comma-separated): a shipped id, "
        "or the path of your own profile file, which transcripts then select by its id",
    )
    group.addoption(
        "--jhyap-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="the time to wait for each engine response (default 10)",
    )
    group.addoption(
        "--jhyap-transcripts",
        metavar="DIR",
        default=None,
        help="the transcripts to run (default: the shipped corpus)",
    )
    group.addoption(
        "--jhyap-known-failures",
        metavar="FILE",
        default=None,
        help="YAML or JSON list of {id, profile (optional), reason}: xfail (strict)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """With ``--jhyap-engine``, load the corpus and register the session plugin."""
    engine = config.getoption("jhyap_engine")
    if engine is None:
        return
    config.pluginmanager.register(JhyapSession.from_config(config, engine), PLUGIN_NAME)
    config.addinivalue_line("markers", f"{MARKER}: a case of the Jhyap conformance corpus")


class CaseFailed(Exception):
    """A case did not pass; ``text`` is its explanation, as ``jhyap run`` prints it."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class JhyapSession:
    """The cases to run, the engine that runs them, and the hooks that make them items."""

    def __init__(
        self,
        cases: Sequence[Case],
        config: RunConfig,
        rerun: RerunInfo,
        warnings: Sequence[str],
        source: str,
    ) -> None:
        from .harness.runner import EngineWorker

        self.cases = list(cases)
        self.run_config = config
        self.rerun = rerun
        self.warnings = list(warnings)
        self.source = source
        self.worker: EngineWorker = EngineWorker(config)
        self.unusable: str | None = None
        self.engine_description: str | None = None

    @classmethod
    def from_config(cls, config: pytest.Config, engine: str) -> JhyapSession:
        """Everything ``jhyap run`` checks before it starts an engine; UsageError if bad."""
        from .harness.runner import InputError, RunConfig, known_failure_warnings, load_selection
        from .reporting.report import RerunInfo

        timeout = float(config.getoption("jhyap_timeout"))
        if timeout <= 0:
            raise pytest.UsageError("--jhyap-timeout must be positive")
        transcripts: str | None = config.getoption("jhyap_transcripts")
        if transcripts and not Path(transcripts).is_dir():
            raise pytest.UsageError(f"--jhyap-transcripts: no such directory: {transcripts}")
        try:
            selection = load_selection(
                transcripts,
                config.getoption("jhyap_profile"),
                known_failures=config.getoption("jhyap_known_failures"),
            )
        except InputError as exc:
            raise pytest.UsageError(f"jhyap: {exc}") from None
        cases, known, corpus, source = (
            selection.cases,
            selection.known,
            selection.transcripts,
            selection.source,
        )
        documents = selection.documents
        from .harness.sandbox import engine_environment

        run_config = RunConfig(
            engine=engine,
            timeout=timeout,
            env=engine_environment(),  # as under jhyap run: no tokens (docs/port.md)
            known_failures=tuple(known),
        )
        return cls(
            cases,
            run_config,
            RerunInfo(engine=engine, transcripts=transcripts),
            known_failure_warnings(known, corpus, documents),
            source,
        )

    # -- hooks -------------------------------------------------------------------------

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        return [
            f"jhyap: engine {self.run_config.engine}; {len(self.cases)} cases from {self.source}"
        ]

    @pytest.hookimpl(tryfirst=True)  # before -k and --deselect, so that they apply to ours
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        root = JhyapCollector.from_parent(session, name=ROOT_NAME, nodeid=ROOT_NAME, jhyap=self)
        # genitems reports the collection as for any collector: counts, -v, --collect-only.
        items.extend(session.genitems(root))

    def pytest_sessionfinish(self) -> None:
        self.close()

    def pytest_unconfigure(self) -> None:
        self.close()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.warnings and self.engine_description is None:
            return
        terminalreporter.section("jhyap")
        for warning in self.warnings:
            terminalreporter.write_line(f"warning: {warning}")
        if self.engine_description is not None:
            terminalreporter.write_line(f"engine: {self.engine_description}")

    # -- running -----------------------------------------------------------------------

    def close(self) -> None:
        self.worker.close()

    def run(self, case: Case) -> Outcome:
        """Replay one case on the shared engine (raises CaseFailed when it is unusable)."""
        from .harness.client import EngineUnusable

        if self.unusable is not None:
            raise CaseFailed(f"the engine is unusable: {self.unusable}")
        try:
            outcome = self.worker.run(case)
        except EngineUnusable as exc:
            self.unusable = str(exc)
            self.worker.close(graceful=False)
            raise CaseFailed(f"the engine is unusable: {exc}") from None
        if self.worker.info is not None:
            self.engine_description = self.worker.info.describe()
        return outcome


class JhyapCollector(pytest.Collector):
    """The parent of every jhyap item: one item per case, in the order of ``jhyap run``."""

    def __init__(self, *, jhyap: JhyapSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.jhyap = jhyap

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        return [
            JhyapItem.from_parent(
                self, name=f"{case.profile}::{case.transcript.id}", case=case, jhyap=self.jhyap
            )
            for case in self.jhyap.cases
        ]


class JhyapItem(pytest.Item):
    """One transcript under one profile."""

    def __init__(self, *, case: Case, jhyap: JhyapSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.jhyap = jhyap
        self.add_marker(MARKER)

    def runtest(self) -> None:
        from .harness.replay import PASSED, SKIPPED, XFAIL
        from .reporting.report import failure_block

        outcome = self.jhyap.run(self.case)
        if outcome.status == PASSED:
            return
        if outcome.status == SKIPPED:
            pytest.skip(outcome.reason)
        if outcome.status == XFAIL:
            pytest.xfail(f"known failure: {outcome.known_failure}")
        raise CaseFailed("\n".join(failure_block(outcome, self.jhyap.rerun)))

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailed):
            return excinfo.value.text
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        transcript = self.case.transcript
        return transcript.file.absolute(), max(transcript.line - 1, 0), f"{ROOT_NAME}::{self.name}"


__all__ = ["CaseFailed", "JhyapCollector", "JhyapItem", "JhyapSession"]
