"""The pytest plugin: the conformance corpus as pytest items (``pytest --jhyap-engine CMD``).

Installed as the ``pytest11`` entry point ``jhyap``, so every pytest session in an
environment with this package loads it. Without ``--jhyap-engine`` it only adds its
options: it adds no item, registers nothing else and imports none of the harness.

With ``--jhyap-engine`` each (transcript, profile) case becomes one item, named
``jhyap::<profile>::<id>`` and marked ``jhyap``, added to whatever else the session
collects. Those ids (or ``jhyap`` or ``jhyap::<profile>``) can be given back on the
command line like test paths, as pytest prints them (``../jhyap::...`` from a folder below
the rootdir). Items run through the same runner as ``jhyap run``: one
engine process serves item after item and is restarted after a crash, a timeout or a
protocol violation; it is stopped when the session ends. The engine is greeted when the
session starts: one that cannot be is a usage error, not a failure per item. A failure
shows the same explanation as ``jhyap run`` (file:line, step, expected, actual, engine
stderr, rerun command); its short summary and ``--tb=line`` give the first difference.
Skipped cases are skipped; known failures are xfail, and one that passes fails. Under
pytest-xdist each worker runs its own engine and the engine summary reaches the
controller through ``workeroutput``.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from _pytest._code.code import (
    ReprEntry,
    ReprExceptionInfo,
    ReprFileLocation,
    ReprTraceback,
    TerminalRepr,
)

if TYPE_CHECKING:
    from .harness.outcome import Outcome
    from .harness.runner import Case, EngineWorker, RunConfig
    from .reporting.report import RerunInfo

PLUGIN_NAME = "jhyap-conformance-session"
ROOT_NAME = "jhyap"
MARKER = "jhyap"  # every item has it: ``-m jhyap`` selects the corpus alone
# A case that does not run as written is marked so: ``-m "not jhyap_derived"``.
MODE_MARKERS = {
    "derived": "jhyap_derived",
    "reseated": "jhyap_derived",  # derived, the transcript's seats moved round first
    "not_applicable": "jhyap_not_applicable",
}
WORKER_OUTPUT_KEY = "jhyap_engine"  # how an xdist worker hands its engine summary back
JUDGED_PREFIX = "jhyap_judged_"  # the user properties that carry what a case judged


def item_id(arg: str, invocation_dir: Path, rootpath: Path) -> str | None:
    """The jhyap items a command-line argument names (``jhyap``, ``jhyap::...``), or None.

    pytest prints a node id relative to the working directory when that is not its rootdir
    (``../jhyap::dhumbal::...`` from a folder below it): such an id, pasted back, names the
    same items, since its path part leads from the working directory to ``jhyap`` under
    the rootdir."""
    if arg == ROOT_NAME or arg.startswith(ROOT_NAME + "::"):
        return arg
    head, sep, rest = arg.partition("::")
    if os.path.basename(head) != ROOT_NAME:
        return None
    where = os.path.normpath(invocation_dir / head)
    if where != os.path.normpath(rootpath / ROOT_NAME):
        return None
    return ROOT_NAME + sep + rest


def plugin_wording(message: str) -> str:
    """A harness message about the engine, worded for this plugin's option."""
    return message.replace("--engine ", "--jhyap-engine ")


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's options; all of them are ignored without ``--jhyap-engine``. Numbers
    and paths are checked as ``jhyap``'s own options are (conformance.commands.checks)."""
    # lazy: start-up speed
    from .commands import checks

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
        type=checks.seconds(checks.MAX_TIMEOUT),
        default=10.0,
        metavar="SECONDS",
        help="the time to wait for each engine response (default 10)",
    )
    group.addoption(
        "--jhyap-transcripts",
        type=checks.path_text,
        metavar="DIR",
        default=None,
        help="the transcripts to run (default: the shipped corpus)",
    )
    group.addoption(
        "--jhyap-fuzz-games",
        type=checks.whole(1, checks.MAX_GAMES),
        default=None,
        metavar="N",
        help="also add the item jhyap::fuzz: N seeded games of differential fuzzing against "
        "the reference engine (jhyap fuzz); a divergence fails it, shrunk to a transcript",
    )
    group.addoption(
        "--jhyap-fuzz-seed",
        type=checks.whole(0, checks.MAX_SEED),
        default=0,
        metavar="S",
        help="the fuzzing seed (default 0)",
    )
    group.addoption(
        "--jhyap-fuzz-out",
        type=checks.path_text,
        default="fuzz-findings",
        metavar="DIR",
        help="where jhyap::fuzz writes the transcript of a divergence (default fuzz-findings/)",
    )
    group.addoption(
        "--jhyap-known-failures",
        type=checks.path_text,
        metavar="FILE",
        default=None,
        help="YAML or JSON list of {id, profile (optional), reason}: xfail (strict)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """With ``--jhyap-engine``, load the corpus and register the session plugin."""
    engine = config.getoption("jhyap_engine")
    if engine is None:
        return
    # Item ids given back as arguments are no paths: take them out of pytest's hands.
    here, root = config.invocation_params.dir, config.rootpath
    ids = [(arg, item_id(arg, here, root)) for arg in config.args]
    chosen = [found for _, found in ids if found is not None]
    config.args[:] = [arg for arg, found in ids if found is None]
    session = JhyapSession.from_config(config, engine)
    session.chosen = chosen
    config.pluginmanager.register(session, PLUGIN_NAME)
    session.previous_handlers = _interrupt_on_termination()
    config.addinivalue_line("markers", f"{MARKER}: a case of the Jhyap conformance corpus")
    config.addinivalue_line(
        "markers",
        f"{MODE_MARKERS['derived']}: a case whose expectations are the reference engine's "
        "answers under the declared ruleset",
    )
    config.addinivalue_line(
        "markers",
        f"{MODE_MARKERS['not_applicable']}: a case the declared ruleset cannot play",
    )


class StoppedBySignal(KeyboardInterrupt):
    """Ctrl-C, SIGTERM or SIGHUP, stopping the session as Ctrl-C does. Not named
    KeyboardInterrupt, so pytest reports it in its one ``!!! ... !!!`` line, without the
    plugin's code line and the advice to show a full traceback."""


# pytest words the line as "module.Class: message": the class alone reads as jhyap's word.
StoppedBySignal.__module__ = "builtins"


def _interrupt(signum: int, frame: object) -> None:
    raise StoppedBySignal(f"jhyap stopped by {signal.Signals(signum).name}")


def _interrupt_on_termination() -> dict[int, Any]:
    """Make SIGTERM and SIGHUP stop the session as Ctrl-C does: pytest then still finishes
    it (its JUnit XML is written) and the session's engine is ended with its helpers. By
    default they would end pytest at once, the engine left running. The handlers they had
    before are returned, to be put back."""
    previous: dict[int, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        # Python's own Ctrl-C handler is replaced too: its KeyboardInterrupt was shown
        # with the plugin's code line and pytest's --full-trace advice.
        default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
        with contextlib.suppress(ValueError):  # only the main thread may set handlers
            if signal.getsignal(signum) in (default, None):
                previous[signum] = signal.signal(signum, _interrupt)
    return previous


class CaseFailed(Exception):
    """A case did not pass; ``text`` is its explanation, as ``jhyap run`` prints it, and
    ``headline`` its first difference at ``path``:``line``."""

    def __init__(self, text: str, headline: str = "", path: str = "", line: int = 0) -> None:
        super().__init__(text)
        self.text = text
        self.headline = headline or text.splitlines()[0]
        self.path = path
        self.line = line

    def repr(self, tbstyle: str = "auto") -> ReprExceptionInfo:
        """The explanation as pytest's own failure representation: the block as is (left
        out under ``--tb=line``), and a crash location whose message is the headline (the
        short summary, the ``--tb=line`` line); plain dataclasses, so that pytest-xdist
        carries it from worker to controller."""
        crash = ReprFileLocation(self.path, self.line, self.headline)
        entries = (
            []
            if tbstyle == "line"
            else [ReprEntry(self.text.splitlines(), None, None, None, "value")]
        )
        traceback = ReprTraceback(entries, None, "value")
        return ReprExceptionInfo(reprtraceback=traceback, reprcrash=crash)


def _shown_path(file: str) -> str:
    """A transcript's path as pytest shows paths: relative when under the working directory."""
    path = os.path.abspath(file)
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


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
        # lazy: start-up speed
        from .harness.runner import EngineWorker

        self.cases = list(cases)
        self.run_config = config
        self.rerun = rerun
        self.warnings = list(warnings)
        self.source = source
        self.worker: EngineWorker = EngineWorker(config)
        self.unusable: str | None = None
        self.previous_handlers: dict[int, Any] = {}  # SIGTERM's and SIGHUP's, put back
        self.engine_description: str | None = None
        self.chosen: list[str] = []  # item ids given as arguments
        # What the cases judged, added up from their reports (an xdist worker's too).
        self.judged: dict[str, int] = {}

    @classmethod
    def from_config(cls, config: pytest.Config, engine: str) -> JhyapSession:
        """Everything ``jhyap run`` checks before it starts an engine; UsageError if bad."""
        # lazy: start-up speed
        from .harness.runner import InputError, RunConfig, known_failure_warnings, load_selection
        from .harness.settings import DEFAULT_TIMEOUT
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
        # lazy: start-up speed
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
            RerunInfo(
                engine=engine,
                transcripts=transcripts,
                timeout=timeout if timeout != DEFAULT_TIMEOUT else None,
                known_failures=config.getoption("jhyap_known_failures"),
            ),
            known_failure_warnings(known, getattr(corpus, "ids", corpus), documents),
            source,
        )

    # -- hooks -------------------------------------------------------------------------

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        # lazy: start-up speed
        from .spec.wording import plural

        cases = plural(len(self.cases), "case")
        return [f"jhyap: engine {self.run_config.engine}; {cases} from {self.source}"]

    @pytest.hookimpl(tryfirst=True)  # before the terminal header and xdist's workers
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Greet the engine once, so that an unusable one is one error, not one per item."""
        config = session.config
        if config.option.collectonly or not self.cases:
            return
        # lazy: start-up speed
        from .harness.client import EngineUnusable

        try:
            self.worker.connect()
        except EngineUnusable as exc:
            self.worker.close(graceful=False)
            raise pytest.UsageError(
                "--jhyap-engine: the engine is unusable: " + plugin_wording(str(exc))
            ) from None
        if config.pluginmanager.hasplugin("dsession"):
            self.worker.close()  # an xdist controller: the workers run their own engines

    @pytest.hookimpl(tryfirst=True)  # before -k and --deselect, so that they apply to ours
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        root = JhyapCollector.from_parent(session, name=ROOT_NAME, nodeid=ROOT_NAME, jhyap=self)
        # genitems reports the collection as for any collector: counts, -v, --collect-only.
        ours = list(session.genitems(root))
        if self.chosen:
            unmatched = [a for a in self.chosen if not any(_names(a, i.nodeid) for i in ours)]
            if unmatched:
                raise pytest.UsageError(
                    f"not found: {', '.join(unmatched)} (no jhyap case has such an id; "
                    "ids look like jhyap::<profile>::<transcript id>)"
                )
            dropped = [i for i in ours if not any(_names(a, i.nodeid) for a in self.chosen)]
            ours = [i for i in ours if i not in dropped]
            if dropped:
                config.hook.pytest_deselected(items=dropped)
        items.extend(ours)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.close()
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None and self.engine_description is not None:
            workeroutput[WORKER_OUTPUT_KEY] = self.engine_description

    @pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook, on the controller
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        description = (getattr(node, "workeroutput", None) or {}).get(WORKER_OUTPUT_KEY)
        if isinstance(description, str):
            self.engine_description = description

    def pytest_unconfigure(self) -> None:
        self.close()
        for signum, handler in self.previous_handlers.items():
            with contextlib.suppress(ValueError):
                signal.signal(signum, handler)
        self.previous_handlers = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name.startswith(JUDGED_PREFIX) and isinstance(value, int):
                key = name[len(JUDGED_PREFIX) :]
                self.judged[key] = self.judged.get(key, 0) + value

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.warnings and self.engine_description is None and not self.judged:
            return
        # lazy: start-up speed
        from .harness.outcome import Judged
        from .reporting.report import shown_warnings
        from .reporting.terminal import one_line

        terminalreporter.section("jhyap")
        for warning in shown_warnings(self.warnings):
            terminalreporter.write_line(f"warning: {warning}")
        if self.engine_description is not None:
            # The engine names itself: its words stay on this one line.
            terminalreporter.write_line(f"engine: {one_line(self.engine_description)}")
        if self.judged:
            terminalreporter.write_line(Judged(**self.judged).words())

    # -- running -----------------------------------------------------------------------

    def close(self) -> None:
        self.worker.close()

    def run(self, case: Case) -> Outcome:
        """Replay one case on the shared engine (raises CaseFailed when it is unusable)."""
        # lazy: start-up speed
        from .harness.client import EngineUnusable

        if self.unusable is not None:
            raise CaseFailed(f"the engine is unusable: {self.unusable}")
        try:
            outcome = self.worker.run(case)
        except EngineUnusable as exc:
            # It was greeted at the start: it broke since. Say so once and stop the session.
            self.unusable = plugin_wording(str(exc))
            self.worker.close(graceful=False)
            raise CaseFailed(f"the engine is unusable: {self.unusable}") from None
        if self.worker.info is not None:
            self.engine_description = self.worker.info.describe()
        return outcome


class JhyapCollector(pytest.Collector):
    """The parent of every jhyap item: one item per case, in the order of ``jhyap run``."""

    def __init__(self, *, jhyap: JhyapSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.jhyap = jhyap

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        items: list[pytest.Item | pytest.Collector] = [
            JhyapItem.from_parent(
                self, name=f"{case.profile}::{case.transcript.id}", case=case, jhyap=self.jhyap
            )
            for case in self.jhyap.cases
        ]
        if self.config.getoption("jhyap_fuzz_games") is not None:
            items.append(JhyapFuzzItem.from_parent(self, name="fuzz"))
        return items


class _ExplainedItem(pytest.Item):
    """An item whose failure is shown as the explanation it raised (CaseFailed)."""

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailed):
            return excinfo.value.repr(str(self.config.getoption("tbstyle", "auto")))
        return super().repr_failure(excinfo, style=style)


class JhyapFuzzItem(_ExplainedItem):
    """Differential fuzzing against the reference engine, as ``jhyap fuzz`` runs it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_marker(MARKER)

    def runtest(self) -> None:
        # lazy: start-up speed
        import argparse

        # lazy: start-up speed
        from .commands.fuzz import build_config, finding_lines, summary_lines
        from .fuzz.campaign import fuzz
        from .fuzz.settings import DEFAULT_BUDGET, DEFAULT_WINDOW
        from .harness.client import EngineUnusable

        option = self.config.getoption
        games = int(option("jhyap_fuzz_games"))
        if games < 1:
            raise CaseFailed("--jhyap-fuzz-games must be at least 1")
        args = argparse.Namespace(
            engine=option("jhyap_engine"),
            reference=None,
            profile=option("jhyap_profile"),
            games=games,
            time=None,
            seed=option("jhyap_fuzz_seed"),
            seats=None,
            jobs=1,
            out=option("jhyap_fuzz_out"),
            known_divergences=None,
            timeout=option("jhyap_timeout"),
            window=DEFAULT_WINDOW,
            shrink_budget=DEFAULT_BUDGET,
        )
        config = build_config(args)
        if isinstance(config, str):
            raise CaseFailed(config)
        try:
            result = fuzz(config)
        except EngineUnusable as exc:
            raise CaseFailed(f"the engine is unusable: {exc}") from None
        if result.finding is not None:
            lines = summary_lines(config, result) + finding_lines(result.finding)
            raise CaseFailed("\n".join(lines))

    def reportinfo(self) -> tuple[str, int, str]:
        return ROOT_NAME, 0, f"{ROOT_NAME}::fuzz"


def _names(arg: str, nodeid: str) -> bool:
    """Whether the argument ``arg`` (an id or an id prefix) selects the item ``nodeid``."""
    return nodeid == arg or nodeid.startswith(arg + "::")


class JhyapItem(_ExplainedItem):
    """One transcript under one profile."""

    def __init__(self, *, case: Case, jhyap: JhyapSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.jhyap = jhyap
        self.add_marker(MARKER)
        if case.mode.value in MODE_MARKERS:
            self.add_marker(MODE_MARKERS[case.mode.value])

    def runtest(self) -> None:
        # lazy: start-up speed
        from .harness.outcome import CaseStatus
        from .reporting.report import failure_block, headline

        # How the case runs under its ruleset, in the JUnit XML pytest writes and to plugins.
        self.user_properties.append(("jhyap_mode", self.case.mode.value))
        outcome = self.jhyap.run(self.case)
        # What it compared, for the session's summary (an xdist worker's reports carry it).
        self.user_properties += [
            (JUDGED_PREFIX + name, n) for name, n in outcome.judged.as_json().items()
        ]
        if outcome.status == CaseStatus.PASSED:
            return
        if outcome.status == CaseStatus.NOT_APPLICABLE:
            pytest.skip(f"not applicable under {outcome.profile}: {outcome.reason}")
        if outcome.status == CaseStatus.SKIPPED:
            pytest.skip(outcome.reason)
        if outcome.status == CaseStatus.NOT_CHECKED:
            pytest.skip("not checked: " + "; ".join(outcome.not_checked))
        if outcome.status == CaseStatus.XFAIL:
            pytest.xfail(f"known failure: {outcome.known_failure}")
        block = failure_block(outcome, self.jhyap.rerun)
        block.append(f"  rerun in pytest: {self.rerun_command()}")
        raise CaseFailed(
            "\n".join(block), headline(outcome), _shown_path(outcome.file), outcome.line
        )

    def rerun_command(self) -> str:
        """The pytest command line that runs this item alone."""
        words = ["pytest", f"--jhyap-engine={self.jhyap.run_config.engine}"]
        if self.jhyap.rerun.transcripts is not None:
            words.append(f"--jhyap-transcripts={self.jhyap.rerun.transcripts}")
        return shlex.join([*words, self.nodeid])

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, CaseFailed):
            if self.jhyap.unusable is not None:
                self.session.shouldstop = (
                    f"--jhyap-engine: the engine is unusable: {self.jhyap.unusable}"
                )
            return excinfo.value.repr(str(self.config.getoption("tbstyle", "auto")))
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        transcript = self.case.transcript
        return transcript.file.absolute(), max(transcript.line - 1, 0), f"{ROOT_NAME}::{self.name}"


__all__ = ["CaseFailed", "JhyapCollector", "JhyapFuzzItem", "JhyapItem", "JhyapSession"]
