"""The fuzz tests' engines answering in this process, for tests of the campaign's judgement
(what it finds, files, shrinks and checks), not of the pipe.

An engine command of the tests (the reference engine, a mutant of tests/mutants/engine.py, a
fake engine of tests/fake_engines/ or one a test writes) is run here as its process would
run it, in a copy of its own of the engine's packages (``reference_engine``, ``jhyap_core``,
the tests' mutants and ``_common``): a mutant patches its copy only, so that the reference
engine, the fuzzer's model and any other engine are left as they are, whichever thread asks
them at the same time. Its serving loop is the engine's own (``jhyap_core.serving.serve``,
or ``_common.serve`` of a fake engine), given the lines the client writes; the client is the
harness's own (:class:`~conformance.fuzz.driver.PipelinedClient`) with the pipe taken out,
so that the answers are read, decoded and checked as over the pipe.

Each path of the campaign keeps tests over real pipes (marked e2e): tests/fuzz/test_fuzz.py,
tests/fuzz/test_fuzz_campaign.py and tests/fuzz/test_fuzz_plumbing.py.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import itertools
import runpy
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

from conformance.fuzz import pool, verify
from conformance.fuzz.campaign import FuzzResult, Progress, fuzz
from conformance.fuzz.config import FuzzConfig
from conformance.fuzz.driver import PipelinedClient
from conformance.harness import runner
from conformance.harness.client import EngineCrashed, EngineUnusable, GoesAhead, split_command
from conformance.harness.sandbox import EngineLimits
from conformance.harness.settings import DEFAULT_TIMEOUT
from conformance.harness.transport import EOF
from tests.conftest import ROOT

FAKE = ROOT / "tests" / "fake_engines"
# The top-level packages an engine of the tests is made of: each engine gets copies of its own.
_OWN = ("reference_engine", "jhyap_core", "tests", "_common")


class _Served(Exception):
    """Raised where the engine's script starts serving: what it serves with."""

    def __init__(self, *, common: bool, hook: Any = None) -> None:
        super().__init__()
        self.common = common  # _common.serve (with its hook), or reference_engine.server.main
        self.hook = hook


@dataclass(frozen=True)
class Program:
    """What an engine command runs: a fresh session of it (what a new process holds), and
    its serving loop given a chunk of input lines, writing its answers to a text stream."""

    session: Callable[[], Any]
    serve: Callable[[Any, bytes, io.StringIO], None]


def _owned(name: str) -> bool:
    return name.split(".", 1)[0] in _OWN


_COPIES = itertools.count(1)


def _retag(cls: type, module: str, alias: str) -> None:
    """``cls`` and the classes defined in it said to be of the module ``alias``."""
    if cls.__module__ == module:
        cls.__module__ = alias
        for value in vars(cls).values():
            if isinstance(value, type):
                _retag(value, module, alias)


@contextlib.contextmanager
def _own_modules() -> Iterator[None]:
    """Fresh imports of the engine's packages inside; the test's own put back after.

    Each fresh module stays listed under a name of its own (``reference_engine.rules@2``),
    its classes said to be of it: what looks a class's module up by name when it runs
    (``typing.get_type_hints``, as the rules read their fields) finds the copy."""
    saved = {name: module for name, module in sys.modules.items() if _owned(name)}
    path, argv = list(sys.path), list(sys.argv)
    for name in saved:
        del sys.modules[name]
    try:
        yield
    finally:
        copy = next(_COPIES)
        for name in [name for name in sys.modules if _owned(name)]:
            module = sys.modules.pop(name)
            alias = f"{name}@{copy}"
            sys.modules[alias] = module
            for value in list(vars(module).values()):
                if isinstance(value, type):
                    _retag(value, name, alias)
        sys.modules.update(saved)
        sys.path[:], sys.argv[:] = path, argv


def _load(argv: list[str]) -> Program:
    if argv[0] != sys.executable:
        raise EngineUnusable(f"not an engine of the tests' own: {argv}")
    with _own_modules():
        sys.path.insert(0, str(ROOT))  # as the engine's PYTHONPATH (default_engine_env)
        # Any: the copies are patched here, and a mutant's engine patches them further.
        server: Any = importlib.import_module("reference_engine.server")
        serving: Any = importlib.import_module("jhyap_core.serving")

        def decode(line: bytes) -> Any:
            # As reference_engine.server.serve decodes: looked up on each line (a mutant of
            # the protocol layer replaces decode_request, which decode_kept calls), a long
            # line decoded before (a start's profile) read back from that decoding.
            return server.decode_kept(line)

        def serve_server(session: Any, lines: bytes, out: io.StringIO) -> None:
            serving.serve(session, io.BytesIO(lines), out, quiet_prints=False, decode=decode)

        if argv[1:] == ["-m", "reference_engine.server"]:
            return Program(server.Session, serve_server)
        script = Path(argv[1])
        sys.path.insert(0, str(FAKE))
        common: Any = importlib.import_module("_common")
        sys.path[0] = str(script.parent)  # as `python SCRIPT` starts
        sys.argv[:] = argv[1:]

        def server_main() -> NoReturn:
            raise _Served(common=False)

        def common_serve(hook: Any = None) -> NoReturn:
            raise _Served(common=True, hook=hook)

        serve_lines, common.serve, server.main = common.serve, common_serve, server_main
        try:
            runpy.run_path(str(script), run_name="__main__")
        except _Served as served:
            if not served.common:
                return Program(server.Session, serve_server)
            hook = served.hook
        else:
            raise EngineUnusable(f"{script} ended without serving")

        def serve_common(session: Any, lines: bytes, out: io.StringIO) -> None:
            serve_lines(hook, io.BytesIO(lines), out, session)

        return Program(common.Session, serve_common)


_PROGRAMS: dict[str, Program] = {}
_LOADING = threading.Lock()


def program(command: str) -> Program:
    """The engine ``command`` runs, loaded once per test process."""
    with _LOADING:
        if command not in _PROGRAMS:
            _PROGRAMS[command] = _load(split_command(command))
        return _PROGRAMS[command]


class InProcessEngine(PipelinedClient):
    """An engine command of the tests answering in this process, spoken to by the harness's
    own client: each chunk written is served at once, its answers read back as lines."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        limits: EngineLimits | None = None,
    ) -> None:
        # What EngineClient.__init__ sets, but a process and its pipes.
        self._begin(command, timeout, limits)
        self.engine_id = "in-process"
        self.pid = 0
        self._lines: deque[object] = deque()
        self._partial = b""  # the start of a line written without its end, as yet
        self._program = program(command)
        self._session = self._program.session()
        self._status: int | None = None  # the exit status, once the engine has ended

    @property
    def alive(self) -> bool:
        return self._status is None

    @property
    def returncode(self) -> int | None:
        return self._status

    def _pump(self, wait: float) -> None:
        # Every answer is in ``_lines`` once written: none to wait for (as a silent pipe).
        if not self._lines and wait > 0:
            threading.Event().wait(wait)

    def _notice_exit(self) -> None:
        pass

    def _settle_stderr(self, timeout: float = 1.0) -> None:
        pass

    def _write(self, data: bytes, deadline: float, limit: float, cmd: object, seq: int) -> None:
        if self._status is not None:
            self._crashed(f"while sending {cmd} (seq {seq})")
        out = io.StringIO()
        try:
            self._program.serve(self._session, data, out)
            if self._session.stopped:
                self._status = 0
        except SystemExit as exc:
            self._status = exc.code if isinstance(exc.code, int) else 1
        except Exception:
            self._status = 1  # the process would have ended with its traceback
        *complete, self._partial = (self._partial + out.getvalue().encode("utf-8")).split(b"\n")
        self._lines.extend(complete)
        if self._status is not None:
            if self._partial:
                self._lines.append(self._partial)  # a last line without its newline
            self._lines.append(EOF)

    def _crashed(self, during: str) -> NoReturn:
        message = f"the engine exited with status {self._status} {during}"
        self._fail(EngineCrashed(message, self._status, []))

    def plan(
        self, upcoming: Iterator[Mapping[str, Any]], window: int, goes_ahead: GoesAhead
    ) -> None:
        """Each request is answered as it is written: nothing to send ahead."""
        self.settle()

    def close(
        self, *, graceful: bool = True, stop_timeout: float = 1.0, term_timeout: float = 1.0
    ) -> int | None:
        self._closed = True
        return self._status

    def leftover_processes(self) -> list[int]:
        return []


@contextlib.contextmanager
def in_process(*commands: str) -> Iterator[None]:
    """Every engine a fuzz campaign starts (its pairs, the checks of a transcript it writes)
    and every engine ``jhyap run`` starts answers in this process. ``commands`` are loaded
    first, while no other thread runs."""
    for command in commands:
        program(command)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pool, "PipelinedClient", InProcessEngine)
        patch.setattr(verify, "EngineClient", InProcessEngine)
        patch.setattr(runner, "EngineClient", InProcessEngine)
        yield


def fuzz_in_process(config: FuzzConfig, progress: Progress | None = None) -> FuzzResult:
    """:func:`~conformance.fuzz.campaign.fuzz` with its engines in this process."""
    with in_process(config.engine, config.reference):
        return fuzz(config, progress)


__all__ = ["InProcessEngine", "Program", "fuzz_in_process", "in_process", "program"]
