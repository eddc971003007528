"""Running a selection of (transcript, profile) cases against an engine.

``--jobs N`` runs N worker threads, each with its own engine process, taking the next
case from a shared list; results come back in the selection's order whatever the
timing. One engine process serves case after case (a new ``start`` each); after a
crash, a timeout or a protocol violation it is killed and a fresh one started.
An engine that cannot complete the handshake ends the whole run (:class:`EngineUnusable`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from .cases import (
    Case,
    InputError,
    Selection,
    build_cases,
    id_selector,
    load_selection,
    matches,
    select_transcripts,
)
from .client import EngineClient, EngineInfo, EngineUnusable
from .derive import Mode, touched
from .known_failures import (
    XPASS_REASON,
    KnownFailure,
    apply_known_failure,
    known_failure_warnings,
    load_known_failures,
)
from .outcome import CaseStatus, Outcome
from .replay import credited_clauses, replay
from .response_schemas import schema_problems
from .sandbox import EngineLimits
from .settings import DEFAULT_WINDOW
from .versions import version_warning

Progress = Callable[[Outcome], None]


@dataclass(frozen=True)
class RunConfig:
    """How to run: the engine command, its environment, and the run's options."""

    engine: str
    timeout: float = 10.0
    jobs: int = 1
    validate_protocol: bool = True  # check every response against schema/protocol/
    env: Mapping[str, str] | None = None
    known_failures: tuple[KnownFailure, ...] = ()
    limits: EngineLimits | None = None
    window: int = DEFAULT_WINDOW  # requests in flight per engine (conformance.harness.ahead)
    # Whether an outcome settles the run: once it says so, no further case is started and
    # the run ends with the outcomes of the cases already under way (``RunResult.stopped``).
    stop_when: Callable[[Outcome], bool] | None = None


@dataclass
class RunResult:
    """Every outcome, in the selection's order, and what the run learned on the way."""

    outcomes: list[Outcome]
    info: EngineInfo
    wall_time: float
    warnings: list[str] = field(default_factory=list)
    # What the run checked, per profile (conformance.spec.readings.claim, plus "text").
    claims: list[dict[str, Any]] = field(default_factory=list)
    # How many cases were selected; more than ``len(outcomes)`` when interrupted.
    selected: int | None = None
    stopped: bool = False  # ended early by ``RunConfig.stop_when``


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run; ``result`` holds the cases that finished before it."""

    def __init__(self, result: RunResult) -> None:
        super().__init__()
        self.result = result


# -- running ------------------------------------------------------------------------


def _not_sent(case: Case, status: CaseStatus, reason: str, **details: Any) -> Outcome:
    """The outcome of a case no request of which is sent."""
    t = case.transcript
    clauses = credited_clauses(t.clauses, case.owned)
    return Outcome(
        status, t.id, case.profile, clauses, str(t.file), t.line, reason=reason, **details
    )


class EngineWorker:
    """One engine process, restarted when it can no longer be trusted."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.client: EngineClient | None = None
        self.info: EngineInfo | None = None

    def connect(self) -> tuple[EngineClient, EngineInfo]:
        if self.client is None or self.info is None:
            client = EngineClient(
                self.config.engine,
                timeout=self.config.timeout,
                env=self.config.env,
                limits=self.config.limits,
            )
            try:
                self.info = client.handshake()
            except BaseException:
                client.close(graceful=False)
                raise
            self.client = client
        return self.client, self.info

    def run(self, case: Case) -> Outcome:
        t = case.transcript
        if case.mode is Mode.NOT_APPLICABLE:
            return _not_sent(
                case,
                CaseStatus.NOT_APPLICABLE,
                case.note,
                mode=case.mode.value,
                mode_note=case.note,
            )
        if case.resolved is None:
            reason = case.problem or "the profile cannot be resolved"
            return _not_sent(case, CaseStatus.FAILED, reason, step=0, step_description="start")
        outcome = self._replay(case, self.config.window)
        if case.mode is not Mode.WRITTEN or case.note:
            step = t.steps[outcome.step - 1] if outcome.step else None
            reason = outcome.reason
            if case.mode.derived:
                # The expectation was the reference engine's, not the transcript's.
                reason = reason.replace("from the transcript", "from the reference engine's")
            outcome = replace(
                outcome,
                reason=reason,
                mode=case.mode.value,
                mode_note=case.note,
                base=case.base,
                changed=touched(step, case.changed) if not outcome.ok else (),
            )
        return apply_known_failure(outcome, self.config.known_failures)

    def _replay(self, case: Case, window: int) -> Outcome:
        t = case.transcript
        assert case.resolved is not None
        if t.fresh_engine:
            self.close()  # the transcript is about an engine that has seen no start yet
        client, info = self.connect()
        outcome = replay(
            client,
            info,
            t,
            case.profile,
            case.resolved,
            validate_protocol=self.config.validate_protocol,
            owned=case.owned,
            window=window,
            moves=case.moves,
        )
        if client.broken is not None or not client.alive:
            self.close()
        return outcome

    def close(self, *, graceful: bool = True) -> None:
        if self.client is not None:
            client, self.client = self.client, None
            client.close(graceful=graceful and client.broken is None)


_Item = TypeVar("_Item")


def run_each(work: Callable[[_Item], None], items: Sequence[_Item], name: str) -> None:
    """``work`` on every item: in this thread for a single item, else one thread each (named
    ``name-i``), all joined before returning."""
    if len(items) == 1:
        work(items[0])
        return
    threads = [
        threading.Thread(target=work, args=(item,), name=f"{name}-{i}", daemon=True)
        for i, item in enumerate(items)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def run_cases(
    cases: Sequence[Case], config: RunConfig, progress: Progress | None = None
) -> RunResult:
    """Run every case; raise EngineUnusable when the engine cannot even be greeted."""
    began = time.monotonic()
    jobs = max(1, min(config.jobs, len(cases) or 1))
    workers = [EngineWorker(config) for _ in range(jobs)]
    results: list[Outcome | None] = [None] * len(cases)
    lock = threading.Lock()
    position = iter(range(len(cases)))
    stop = threading.Event()
    settled = threading.Event()  # RunConfig.stop_when said so: finish what runs, start nothing
    failures: list[BaseException] = []

    def work(worker: EngineWorker) -> None:
        try:
            while not stop.is_set():
                with lock:
                    index = None if settled.is_set() else next(position, None)
                if index is None:
                    return
                outcome = worker.run(cases[index])
                with lock:
                    if stop.is_set():
                        return  # cut short by Ctrl-C (its engine was killed): not a result
                    results[index] = outcome
                    if progress is not None:
                        progress(outcome)
                    if config.stop_when is not None and config.stop_when(outcome):
                        settled.set()
        except BaseException as exc:  # EngineUnusable, or a harness bug: end the run
            with lock:
                failures.append(exc)
            stop.set()
        finally:
            worker.close()

    warnings: list[str] = []
    info: EngineInfo | None = None
    try:
        # Greet the first engine here, so an unusable engine stops the run at once.
        _, info = workers[0].connect()
        warnings += filter(None, [version_warning(info.protocol)])
        if config.validate_protocol:
            warnings += [
                f"the hello answer breaks the protocol schema: {p}"
                for p in schema_problems("hello", info.raw)
            ]
        run_each(work, workers, "jhyap-worker")
    except KeyboardInterrupt:
        with lock:
            stop.set()  # before any engine is killed: what that cuts short is not recorded
        failures.append(KeyboardInterrupt())
    finally:
        # Normally each worker has closed its engine already. When we get here through
        # an exception (Ctrl-C), a worker thread may be mid-request: just kill engines.
        stop.set()
        for worker in workers:
            worker.close(graceful=False)
    with lock:
        outcomes = [o for o in results if o is not None]
    if info is not None and any(isinstance(f, KeyboardInterrupt) for f in failures):
        # What ran before Ctrl-C is still worth a summary and its reports.
        raise Interrupted(RunResult(outcomes, info, time.monotonic() - began, warnings))
    if failures:
        unusable = [f for f in failures if isinstance(f, EngineUnusable)]
        raise (unusable or failures)[0]
    if info is None or (len(outcomes) != len(cases) and not settled.is_set()):
        raise RuntimeError("some cases were not run")  # a worker died without saying why
    result = RunResult(outcomes, info, time.monotonic() - began, warnings)
    result.stopped = settled.is_set() and len(outcomes) < len(cases)
    return result


def unusable_result(cases: Sequence[Case], reason: str) -> RunResult:
    """The result of a run whose engine could not be greeted: every case errored."""
    outcomes = [
        Outcome(
            CaseStatus.ERRORED,
            case.transcript.id,
            case.profile,
            clauses=case.transcript.clauses,
            file=str(case.transcript.file),
            line=case.transcript.line,
            step=0,
            step_description="hello",
            reason=f"the engine is unusable: {reason}",
        )
        for case in cases
    ]
    return RunResult(outcomes, EngineInfo(engine={}, protocol="", supports={}), 0.0)


def exit_status(outcomes: Iterable[Outcome]) -> int:
    """0 when every case passed, was skipped or is a known failure; else 1."""
    return 0 if all(o.ok for o in outcomes) else 1


__all__ = [
    "XPASS_REASON",
    "Case",
    "InputError",
    "KnownFailure",
    "RunConfig",
    "RunResult",
    "Selection",
    "apply_known_failure",
    "build_cases",
    "exit_status",
    "id_selector",
    "known_failure_warnings",
    "load_known_failures",
    "load_selection",
    "matches",
    "run_cases",
    "select_transcripts",
    "unusable_result",
]
