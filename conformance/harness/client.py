"""The transport to an engine under test: a subprocess speaking JSON lines (docs/protocol.md).

An engine is given as a command string, split into arguments with :func:`shlex.split`
(POSIX rules: quote arguments that hold spaces, e.g. ``"'/opt/my engine/run' --fast"``).
It runs in its own process group so that :meth:`EngineClient.close` can end it together
with any helper processes it started; no child outlives the client, also when the harness
itself fails (``close`` runs from ``finally`` blocks and from an ``atexit`` hook). Helpers
that leave the group (``setsid()``, daemons) are found too: on Linux the harness makes
itself a child subreaper, so they become its children when their parents end, and it
kills and reaps those that carry the engine's ``JHYAP_ENGINE_ID`` (or none at all).

Standard output is read in the calling thread, waiting with select() up to the request's
deadline: a response costs no hand-over between threads. One thread drains standard error
into a bounded tail, so an engine that floods its standard error never blocks on a full
pipe. Requests are written from the calling thread with a deadline.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import IO, Any, Final, NoReturn

from jhyap_core.vocabulary import PROTOCOL_VERSION, Command

from ..spec import memo
from .processes import (
    ENGINE_ID_VARIABLE,
    ENGINE_IDS,
    LIVE,
    LIVE_LOCK,
    adopted_helpers,
    become_subreaper,
    live_group_members,
    reap_adopted,
    signal_name,
)
from .responses import (
    EXTRA_LINE_AFTER,
    EXTRA_LINE_BEFORE_FIRST,
    EngineCrashed,
    EngineError,
    EngineInfo,
    EngineTimeout,
    EngineUnusable,
    ProtocolViolation,
    decode_response,
    engine_info,
    shorten,
)
from .sandbox import EngineLimits, engine_preexec, launch
from .settings import DEFAULT_TIMEOUT
from .transport import (
    EOF,
    MAX_RESPONSE_BYTES,
    READ_CHUNK,
    TOO_LONG,
    LineReader,
    StderrTail,
    write_all,
)

# How often a wait for an answer also checks that the engine process still runs.
_WATCH_INTERVAL: Final = 0.1
_StderrTail = StderrTail  # the name tests and older imports use


_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def _c_encoder() -> Callable[[Any, int], Sequence[str]] | None:
    """What ``_ENCODER.encode`` runs for a value that is no string (its circular check
    included), made once: ``encode`` makes it again for every value, and that cost more
    than encoding a request. None where :mod:`json` has no C encoder."""
    make = json.encoder.c_make_encoder  # type: ignore[attr-defined]
    if make is None:
        return None
    e = _ENCODER
    encoder: Callable[[Any, int], Sequence[str]] = make(
        {},
        e.default,
        json.encoder.encode_basestring,
        e.indent,
        e.key_separator,
        e.item_separator,
        e.sort_keys,
        e.skipkeys,
        e.allow_nan,
    )
    return encoder


_C_ENCODER = _c_encoder()


def compact_json(value: Any) -> str:
    """``_ENCODER.encode(value)``, the same text or the same error: a value as a request
    line writes it (compact, not ASCII-escaped)."""
    global _C_ENCODER
    if _C_ENCODER is None or isinstance(value, str):
        return _ENCODER.encode(value)
    try:
        return "".join(_C_ENCODER(value, 0))
    except BaseException:
        # A value that failed half-way may leave its marks in the circular check's memo.
        _C_ENCODER = _c_encoder()
        raise


def _encode(request: Mapping[str, Any]) -> str:
    """A request line: compact JSON, not ASCII-escaped."""
    return compact_json(request) + "\n"


def _request_line(seq: int, message: Mapping[str, Any]) -> str:
    """The line of ``{"seq": seq, **message}``, without building that mapping: the seq
    goes first, as there. A start's profile is encoded once (:func:`_profile_text`)."""
    if message.__class__ is not dict or not message or "seq" in message:
        return _encode({"seq": seq, **message})
    if message.get("profile").__class__ is dict and all(k.__class__ is str for k in message):
        fields = ",".join(
            compact_json(key)
            + ":"
            + (_profile_text(value) if key == "profile" else compact_json(value))
            for key, value in message.items()
        )
        return f'{{"seq":{seq},{fields}}}\n'
    return f'{{"seq":{seq},{compact_json(message)[1:]}\n'


@memo.by_identity(64)
def _profile_text(profile: Mapping[str, Any]) -> str:
    """A start's profile as JSON, remembered by identity: the same object for every case
    of a profile (ahead.start_message), tens of kilobytes each time. A profile mapping is
    not changed once sent (a changed one is a new mapping, as everywhere in the harness)."""
    return compact_json(profile)


def split_command(command: str) -> list[str]:
    """The argument list of an engine command string (POSIX shell quoting, no expansion)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise EngineUnusable(f"cannot parse the engine command {command!r}: {exc}") from None
    if not argv:
        raise EngineUnusable("the engine command is empty")
    return argv


# What a planned request is asked before it is written ahead (EngineClient.plan): whether it
# may go out before the answers before it have been judged (conformance.harness.ahead).
GoesAhead = Callable[[Mapping[str, Any]], bool]


def _never(request: Mapping[str, Any]) -> bool:
    """No request goes ahead (no plan made yet)."""
    return False


@atexit.register
def _close_all() -> None:
    """Kill every engine still running when the harness exits, however it exits."""
    with LIVE_LOCK:
        clients = list(LIVE)
    for client in clients:
        with contextlib.suppress(Exception):
            client.close(graceful=False)


class EngineClient:
    """One engine process: send requests, receive their responses, and always clean up.

    ``command`` is a string split with :func:`shlex.split` (see the module docstring).
    ``timeout`` is the default time in seconds to wait for each response.
    """

    def __init__(
        self,
        command: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        limits: EngineLimits | None = None,
    ) -> None:
        self._begin(command, timeout, limits)
        become_subreaper()
        self.engine_id = f"{os.getpid()}-{next(ENGINE_IDS)}"
        base = dict(env) if env is not None else dict(os.environ)
        base[ENGINE_ID_VARIABLE] = self.engine_id
        try:
            # Started and registered under the lock the orphan reaper scans under: between
            # fork and exec the child is in a session of its own but still carries our
            # environment (no engine id), and would pass for another engine's orphan.
            with LIVE_LOCK:
                self._proc = launch(
                    lambda: subprocess.Popen(
                        self.argv,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        bufsize=0,
                        start_new_session=True,
                        close_fds=True,
                        env=base,
                        cwd=cwd,
                        preexec_fn=engine_preexec(limits),
                    )
                )
                self.pid = self._proc.pid
                LIVE.add(self)
        except FileNotFoundError:
            raise EngineUnusable(
                f"engine command not found: {self.argv[0]} (from --engine {command!r})"
            ) from None
        except PermissionError:
            raise EngineUnusable(
                f"engine command is not executable: {self.argv[0]} (from --engine {command!r})"
            ) from None
        except OSError as exc:
            raise EngineUnusable(f"cannot start the engine {command!r}: {exc}") from None
        assert self._proc.stdin is not None and self._proc.stdout is not None
        assert self._proc.stderr is not None
        self._stdin_fd = self._proc.stdin.fileno()
        self._stdout = LineReader(self._proc.stdout.fileno())
        self._lines = self._stdout.lines  # complete stdout lines, TOO_LONG, EOF
        # Non-blocking writes let a request give up at its deadline on an engine
        # that stopped reading (a full pipe would otherwise block us forever).
        os.set_blocking(self._stdin_fd, False)
        # Held while a chunk leaves the pipe until it is in the tail (see _settle_stderr).
        self._stderr_reading = threading.Lock()
        self._stderr_thread = threading.Thread(
            target=self._read_stderr,
            args=(self._proc.stderr,),
            daemon=True,
            name=f"engine-{self.pid}-stderr",
        )
        self._stderr_thread.start()

    def _begin(self, command: str, timeout: float, limits: EngineLimits | None) -> None:
        """The client's bookkeeping before any engine is started (an engine answering in
        the caller's process, as the tests' fuzz engines do, starts with it too)."""
        self.command = command
        self.limits = limits
        self.argv = split_command(command)
        self.timeout = timeout
        self._seq = 0
        self._broken: str | None = None
        self._closed = False
        self._close_lock = threading.Lock()
        self._stderr = StderrTail()
        # Requests sent ahead (conformance.harness.ahead): written, their answers unread.
        self._flight: deque[tuple[int, Mapping[str, Any]]] = deque()
        self._upcoming: Iterator[Mapping[str, Any]] | None = None
        self._peeked: Mapping[str, Any] | None = None  # taken from _upcoming, not written
        self._window = 1
        self._goes_ahead: GoesAhead = _never
        self._cases_begun = False
        # The last answer read with the seq asked for, and its line after that seq.
        self._answered: tuple[dict[str, Any], bytes] | None = None

    # -- context manager ------------------------------------------------------------

    def __enter__(self) -> EngineClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reader threads -------------------------------------------------------------

    def _pump(self, wait: float) -> None:
        """Read what stdout has within ``wait`` seconds into whole lines on ``_lines``."""
        self._stdout.pump(wait)

    def _notice_exit(self) -> None:
        """Treat an engine that has exited as the end of its output, even while a child
        it left behind holds the pipe open (the pipe alone would wait for the deadline)."""
        if self._lines or self._stdout.eof or self._proc.poll() is None:
            return
        self._pump(0)  # what it wrote before it exited still counts
        if not self._lines:
            self._stdout.end()

    def _read_stderr(self, stream: IO[bytes]) -> None:
        fd = stream.fileno()
        try:
            while True:
                select.select([fd], [], [])  # data or the end, waited for without the lock
                with self._stderr_reading:
                    chunk = os.read(fd, READ_CHUNK)
                    if not chunk:
                        break
                    self._stderr.feed(chunk)
        except (OSError, ValueError):
            pass
        self._stderr.finish()

    def _settle_stderr(self, timeout: float = 1.0) -> None:
        """Wait until the reader has taken in what the engine wrote to stderr so far. An
        engine writes its last words before its answer, but the reader is a thread of its
        own: without this a report could miss them. The pipe is only drained under the
        reading lock, so an empty pipe and a free lock mean the tail is up to date."""
        stream = self._proc.stderr
        deadline = time.monotonic() + timeout
        while stream is not None and self._stderr_thread.is_alive():
            if time.monotonic() >= deadline:
                return
            try:
                pending, _, _ = select.select([stream], [], [], 0)
            except (OSError, ValueError):
                return  # closed: the reader has finished
            if not pending:
                with self._stderr_reading:
                    return
            self._stderr_thread.join(0.001)  # the reader is behind (or at the end)

    # -- state ---------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """The process is running."""
        return self._proc.poll() is None

    @property
    def broken(self) -> str | None:
        """Why the client can no longer be trusted (crash, timeout, violation), or None."""
        return self._broken

    @property
    def next_seq(self) -> int:
        """The seq the next request will carry."""
        return self._flight[0][0] if self._flight else self._seq

    @property
    def returncode(self) -> int | None:
        return self._proc.poll()

    def stderr_mark(self) -> int:
        """Where a case starting now reads the engine's standard error from, so that its
        report shows no line an earlier case made the engine write. The first case reads
        from the start: what the engine wrote as it started concerns it too."""
        if not self._cases_begun:
            self._cases_begun = True
            return 0
        self._settle_stderr()
        return self._stderr.mark()

    def stderr_tail(self, lines: int | None = None, since: int = 0) -> list[str]:
        """The last lines of the engine's standard error (all kept lines by default), those
        written after the mark ``since`` only."""
        self._settle_stderr()
        tail = self._stderr.lines(since)
        return tail if lines is None else tail[-lines:]

    def answer_text(self, response: Mapping[str, Any]) -> bytes | None:
        """The line ``response`` was read from after its ``{"seq":N,``, when it is the last
        answer read and began so with the seq asked for (None otherwise): answers alike but
        for their seq have the same text."""
        answered = self._answered
        return answered[1] if answered is not None and answered[0] is response else None

    # -- requests ------------------------------------------------------------------

    def request(self, cmd: str, *, timeout: float | None = None, **args: Any) -> dict[str, Any]:
        """Send ``{"seq": n, "cmd": cmd, ...args}`` and return the engine's response object.

        Raises EngineCrashed, EngineTimeout or ProtocolViolation; after any of them the
        client is ``broken`` and should be closed.
        """
        return self.send({"cmd": cmd, **args}, timeout=timeout)

    def send(self, message: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """Like :meth:`request` for a prepared message (without ``seq``)."""
        if self.planning:
            answer = self._answer_ahead(message, timeout)
            if answer is not None:
                return answer
        seq, deadline, limit = self._next_request(timeout)
        line = _request_line(seq, message)
        self._write(line.encode("utf-8"), deadline, limit, message.get("cmd"), seq)
        return self._receive(seq, deadline, limit, message.get("cmd"))

    def send_raw(self, line: bytes, *, timeout: float | None = None) -> dict[str, Any]:
        """Send ``line`` as it is (plus a newline) and return the answer, whatever its seq.

        For transcripts' raw steps: the line may be anything. It uses up :attr:`next_seq`
        (which a raw JSON line usually carries); the caller judges the answer's seq.
        """
        self.settle()
        seq, deadline, limit = self._next_request(timeout)
        self._write(line + b"\n", deadline, limit, "a raw line", seq)
        return self._receive(seq, deadline, limit, "a raw line", check_seq=False)

    # -- requests sent ahead ----------------------------------------------------------

    def plan(
        self, upcoming: Iterator[Mapping[str, Any]], window: int, goes_ahead: GoesAhead
    ) -> None:
        """The requests the caller will send next, in order, if all goes as planned: up to
        ``window`` of them are written before their turn, those ``goes_ahead`` allows even
        before the answers before them have been judged (conformance.harness.ahead). A
        request sent that is not the next planned one ends the plan (see :meth:`settle`)."""
        self.settle()
        if window > 1:
            self._upcoming, self._window, self._goes_ahead = upcoming, window, goes_ahead

    @property
    def planning(self) -> bool:
        """Planned requests remain, written or not."""
        return self._upcoming is not None or self._peeked is not None or bool(self._flight)

    def settle(self) -> None:
        """End the plan: read the answers of the requests written ahead, and drop them.
        Raises as a request does when one of them gets no answer."""
        self._upcoming = self._peeked = None
        if self._broken is not None:
            self._flight.clear()  # the answers are lost with the connection
        while self._flight:
            seq, message = self._flight.popleft()
            deadline = time.monotonic() + self.timeout
            self._receive(seq, deadline, self.timeout, message.get("cmd"))

    def _answer_ahead(
        self, message: Mapping[str, Any], timeout: float | None
    ) -> dict[str, Any] | None:
        """The answer to ``message`` when it is the next planned request, else None (the
        plan has ended)."""
        if not self._flight:
            # Compared before it is written: a request off the plan changes nothing ahead.
            if self._peeked is None and self._upcoming is not None:
                self._peeked = next(self._upcoming, None)
            peeked = self._peeked
            if peeked is None or (peeked is not message and peeked != message):
                self.settle()
                return None
            self._top_up(judged=True)
        flight = self._flight
        if not flight or (flight[0][1] is not message and flight[0][1] != message):
            self.settle()
            return None
        seq, _ = flight.popleft()
        limit = self.timeout if timeout is None else timeout
        answer = self._receive(seq, time.monotonic() + limit, limit, message.get("cmd"))
        if len(self._flight) <= self._window // 2:
            self._top_up(judged=False)  # the engine answers these while the caller judges
        return answer

    def _top_up(self, *, judged: bool) -> None:
        """Write the next planned requests in one write, up to the window: those the plan's
        ``goes_ahead`` allows before the answers before them have been judged, and first
        the next one whatever it is when every answer so far has been ``judged`` by the
        caller. Any other waits until the answer before it has been judged (why:
        conformance.harness.ahead)."""
        if self._upcoming is None or self._broken is not None:
            return
        if self._peeked is None:
            self._peeked = next(self._upcoming, None)
            if self._peeked is None:
                self._upcoming = None
                return
        if (self._flight or not judged) and not self._goes_ahead(self._peeked):
            return  # nothing to write now: the next request waits for its turn
        if not self._flight:
            self._check_no_extra_line(self._seq)
        first, lines = self._seq, []
        while len(self._flight) < self._window:
            if self._peeked is None:
                self._peeked = next(self._upcoming, None)
                if self._peeked is None:
                    self._upcoming = None
                    break
            if (self._flight or not judged) and not self._goes_ahead(self._peeked):
                break
            message, self._peeked = self._peeked, None
            self._flight.append((self._seq, message))
            lines.append(_request_line(self._seq, message))
            self._seq += 1
        if not lines:
            return
        deadline = time.monotonic() + self.timeout
        try:
            sent = write_all(self._stdin_fd, "".join(lines).encode("utf-8"), deadline, self._stdout)
        except OSError:
            # The engine's input is closed: its answers so far are read first, and the
            # request that finds it gone reports the crash.
            self._upcoming = self._peeked = None
            return
        if not sent:
            self._fail(
                EngineTimeout(
                    f"the engine stopped reading its input: requests from seq {first} not sent "
                    f"within {self.timeout:g} s",
                    self.timeout,
                )
            )

    def _next_request(self, timeout: float | None) -> tuple[int, float, float]:
        """The next request's seq, deadline and time limit, once the connection is usable
        and no unrequested line is waiting."""
        if self._broken is not None:
            raise EngineError(f"the engine connection is unusable: {self._broken}")
        if self._closed:
            raise EngineError("the engine connection is closed")
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        seq = self._seq
        self._seq += 1
        self._check_no_extra_line(seq)
        return seq, deadline, limit

    def _check_no_extra_line(self, seq: int) -> None:
        """Fail if the engine wrote a line nobody asked for since its last response."""
        self._pump(0.0)
        while True:
            if not self._lines:
                return
            item = self._lines.popleft()
            if item is EOF:
                self._lines.appendleft(EOF)  # let _receive report the exit with its status
                return
            if not (isinstance(item, bytes) and not item.strip()):
                break  # blank lines carry nothing and are ignored
        text = (
            shorten(item.decode("utf-8", "replace"))
            if isinstance(item, bytes)
            else "(a line over 16 MiB)"
        )
        self._fail(
            ProtocolViolation(EXTRA_LINE_BEFORE_FIRST if seq == 0 else EXTRA_LINE_AFTER, text)
        )

    def _write(self, data: bytes, deadline: float, limit: float, cmd: object, seq: int) -> None:
        try:
            sent = write_all(self._stdin_fd, data, deadline, self._stdout)
        except OSError:
            self._crashed(f"while sending {cmd} (seq {seq})")
        if not sent:
            self._fail(
                EngineTimeout(
                    f"the engine stopped reading its input: {cmd} (seq {seq}) not sent "
                    f"within {limit:g} s",
                    limit,
                )
            )

    def _receive(
        self, seq: int, deadline: float, limit: float, cmd: object, *, check_seq: bool = True
    ) -> dict[str, Any]:
        while True:
            while not self._lines:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._pump(min(remaining, _WATCH_INTERVAL))
                self._notice_exit()
            if not self._lines:
                self._fail(
                    EngineTimeout(f"no response to {cmd} (seq {seq}) within {limit:g} s", limit)
                )
            item = self._lines.popleft()
            if item is EOF:
                self._lines.appendleft(EOF)  # every later request sees the same end
                self._crashed(f"while answering {cmd} (seq {seq})")
            if item is TOO_LONG:
                self._fail(
                    ProtocolViolation(
                        f"response line longer than {MAX_RESPONSE_BYTES // (1024 * 1024)} MiB"
                    )
                )
            assert isinstance(item, bytes)
            if item.strip():
                response = self._decode(item, seq, check_seq=check_seq)
                if check_seq:
                    head = b'{"seq":%d,' % seq
                    if item.startswith(head):
                        self._answered = (response, item[len(head) :])
                return response
            # Blank lines carry nothing; the protocol ignores them in both directions.

    def _decode(self, raw: bytes, seq: int, *, check_seq: bool = True) -> dict[str, Any]:
        try:
            return decode_response(raw, seq, check_seq=check_seq)
        except ProtocolViolation as exc:
            self._fail(exc)

    def _fail(self, exc: EngineError) -> NoReturn:
        self._broken = str(exc)
        raise exc

    def _crashed(self, during: str) -> NoReturn:
        # Standard output closed: give the process a moment to finish exiting, so the
        # report can show its status and the whole of its last words on stderr.
        try:
            status: int | None = self._proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            status = None
        if status is not None:
            # Its last words are in the pipe by now; a child of it may keep the pipe open,
            # so the reader is not waited for to the end.
            self._settle_stderr()
        if status is None:
            message = f"the engine closed its standard output {during}"
        elif status < 0:
            name = signal_name(-status)
            message = f"the engine was killed by {name} {during}"
        else:
            message = f"the engine exited with status {status} {during}"
        if self.limits is not None and self.limits.describe():
            message += f" (its limits: {self.limits.describe()})"
        self._fail(EngineCrashed(message, status, self.stderr_tail()))

    # -- handshake and shutdown ----------------------------------------------------

    def handshake(self, protocol: str = PROTOCOL_VERSION) -> EngineInfo:
        """Send ``hello``; return the engine's info, or raise EngineUnusable saying why not."""
        try:
            response = self.request(Command.HELLO, protocol=protocol)
        except EngineCrashed as exc:
            tail = "".join(f"\n  {line}" for line in exc.stderr_tail[-20:])
            raise EngineUnusable(
                f"{exc} (the handshake failed)"
                + (f"; its last standard error lines:{tail}" if tail else "")
            ) from None
        except EngineError as exc:
            raise EngineUnusable(f"the handshake failed: {exc}") from None
        return engine_info(response, protocol)

    def close(
        self, *, graceful: bool = True, stop_timeout: float = 1.0, term_timeout: float = 1.0
    ) -> int | None:
        """End the engine and reap it; return its exit status.

        Sends ``stop`` to a healthy engine, then closes its input and waits for it to exit;
        whatever is still running in its process group gets SIGTERM, then SIGKILL. A
        ``broken`` engine, or any with ``graceful=False``, goes straight to SIGTERM.
        """
        with self._close_lock:  # Ctrl-C may close from another thread than the worker's
            if self._closed:
                return self._proc.returncode
            return self._close(graceful, stop_timeout, term_timeout)

    def _close(self, graceful: bool, stop_timeout: float, term_timeout: float) -> int | None:
        if self._flight:
            graceful = False  # answers are still due: a stop now would only wait behind them
        self._upcoming = self._peeked = None
        self._flight.clear()
        try:
            if graceful and self._broken is None and self.alive:
                with contextlib.suppress(EngineError):
                    self.request(Command.STOP, timeout=stop_timeout)
            self._closed = True
            # Closed through its file object, never by number: a file object dropped after
            # os.close() closes the same number again when collected, and by then another
            # engine started in a parallel job may own it.
            stdin, self._proc.stdin = self._proc.stdin, None
            if stdin is not None:
                with contextlib.suppress(OSError):
                    stdin.close()
            if graceful and self._broken is None:
                # A broken engine (hung, crashed, babbling) gets no time to exit by itself.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._proc.wait(timeout=stop_timeout)
            if self._group_running():
                self._signal_group(signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._proc.wait(timeout=term_timeout)
                # Helpers of the engine may take a moment longer to act on SIGTERM.
                self._wait_group_gone(term_timeout / 4)
        finally:
            self._closed = True
            if self._group_running():
                self._signal_group(signal.SIGKILL)  # also when the harness fails in between
            self._proc.wait()  # SIGKILL cannot be ignored: this always returns
            # Helpers are not our children, so there is nothing to wait on: watch them go.
            self._wait_group_gone(1.0)
            reap_adopted(self.engine_id)
            self._stderr_thread.join(timeout=1.0)
            for stream in (self._proc.stdout, self._proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            with LIVE_LOCK:
                LIVE.discard(self)
        return self._proc.returncode

    def leftover_processes(self) -> list[int]:
        """Processes of this engine still running: its group, and helpers that left it."""
        return sorted({*live_group_members(self.pid), *adopted_helpers(self.engine_id)})

    def _signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signum)

    def _group_running(self) -> bool:
        """Some process of the engine's group still runs (zombies do not count)."""
        return self._proc.poll() is None or bool(live_group_members(self.pid))

    def _wait_group_gone(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        while self._group_running() and time.monotonic() < end:
            time.sleep(0.01)


__all__ = [
    "MAX_RESPONSE_BYTES",
    "EngineClient",
    "EngineCrashed",
    "EngineError",
    "EngineInfo",
    "EngineTimeout",
    "EngineUnusable",
    "GoesAhead",
    "ProtocolViolation",
    "compact_json",
    "split_command",
]
