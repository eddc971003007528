"""LoopDriver: serve an engine that is one blocking game loop.

Many engines are a single function that plays a whole game: it shuffles, deals, asks each
player object (or ``input()``) for a move, prints what happened, and loops. The driver runs
that loop in a thread and stands in for every decision it asks:

- in the loop's thread, the binding's stand-in player (or patched ``input``) calls
  ``driver.wait(seat, decision)`` and gets the protocol's move for that decision;
- in the protocol's thread, the binding's hooks call ``driver.send(seat, decision, move)``,
  which hands the move over and returns once the loop has taken it and waits for its next
  decision (or has ended).

A decision is a short name of the binding's choosing (``"deal"``, ``"turn"``, ``"pick"``,
``"reshuffle"``...). The loop asking the *same* decision of the same seat again, straight
after a move, means it refused the move (an ``input()`` loop that printed "invalid move"
and asked again): :meth:`send` raises :class:`~jhyap_core.messages.Refused` with the code the
binding gave for that decision. Whatever the loop prints goes to standard error
(:func:`~jhyap_core.serving.serve` redirects ``print``).

A new :meth:`start` abandons the old loop: its next ``wait`` raises :class:`LoopAbandoned`
(a BaseException, so that an engine's ``except Exception`` does not swallow it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from jhyap_core.messages import Refused
from jhyap_core.vocabulary import ErrorCode

Decision = tuple[int | None, str]


class LoopAbandoned(BaseException):
    """The loop's table was replaced: the loop thread unwinds."""


class LoopDriver:
    """Runs one blocking game loop in a thread, feeding it the protocol's moves."""

    def __init__(
        self,
        refused: Mapping[str, ErrorCode] | None = None,
        timeout: float = 20.0,
    ) -> None:
        # The code a re-asked decision means, by decision name (default bad_request).
        self.refused = dict(refused or {})
        self.timeout = timeout
        self._lock = threading.Condition()
        self._token = 0  # the running loop's; an older loop's wait raises LoopAbandoned
        self._waiting: Decision | None = None  # what the loop waits for
        self._asks = 0  # how many times the loop has waited
        self._move: Any = None
        self._has_move = False
        self._ended = True
        self._failure: BaseException | None = None
        self.last_message = ""  # a binding may note why its engine refused (shown in Refused)

    # -- the protocol's side ---------------------------------------------------------------

    def start(self, loop: Callable[[], None]) -> None:
        """Run ``loop`` in a new thread (abandoning any running one) and wait until it asks
        for its first decision or ends."""
        with self._lock:
            self._token += 1
            token = self._token
            self._waiting, self._has_move, self._move = None, False, None
            self._ended, self._failure = False, None
            asks = self._asks
            self._lock.notify_all()
        thread = threading.Thread(target=self._run, args=(loop, token), daemon=True)
        thread.start()
        with self._lock:
            self._await(lambda: self._asks != asks or self._ended)
            if self._failure is not None:
                raise RuntimeError(f"the game loop failed: {self._failure!r}") from self._failure

    def waiting(self) -> Decision | None:
        """The decision the loop waits for, or None when it is not waiting."""
        with self._lock:
            return self._waiting

    def send(self, seat: int | None, decision: str, move: Any) -> None:
        """Hand ``move`` to the loop waiting for ``decision`` of ``seat``; return once it
        waits for its next decision or ends. Refused when it asks the same again."""
        with self._lock:
            if self._waiting != (seat, decision):
                raise RuntimeError(
                    f"the game loop waits for {self._describe(self._waiting)},"
                    f" not {self._describe((seat, decision))}"
                )
            asks = self._asks
            self.last_message = ""
            self._move, self._has_move, self._waiting = move, True, None
            self._lock.notify_all()
            self._await(lambda: self._asks != asks or self._ended)
            if self._failure is not None:
                raise RuntimeError(f"the game loop failed: {self._failure!r}") from self._failure
            if self._waiting == (seat, decision):
                code = self.refused.get(decision, ErrorCode.BAD_REQUEST)
                raise Refused(code, self.last_message or f"the engine refused {decision} {move}")

    @property
    def ended(self) -> bool:
        with self._lock:
            return self._ended

    # -- the loop's side ---------------------------------------------------------------------

    def wait(self, seat: int | None, decision: str) -> Any:
        """Called in the loop's thread: block until the protocol sends this decision's move."""
        with self._lock:
            token = self._thread_token()
            self._waiting = (seat, decision)
            self._asks += 1
            self._lock.notify_all()
            # No time limit here: the harness may take its time before the next move.
            self._await(lambda: self._has_move, abandon=token, limited=False)
            self._has_move = False
            move, self._move = self._move, None
            return move

    def refuse(self, message: str) -> None:
        """Called in the loop's thread: note why the engine refused the last move."""
        with self._lock:
            self.last_message = message

    # -- plumbing ----------------------------------------------------------------------------

    def _run(self, loop: Callable[[], None], token: int) -> None:
        _local.token = token
        try:
            loop()
        except LoopAbandoned:
            return
        except BaseException as exc:  # reported to the protocol thread as internal_error
            with self._lock:
                if self._token == token:
                    self._failure = exc
        with self._lock:
            if self._token == token:
                self._ended, self._waiting = True, None
                self._lock.notify_all()

    def _thread_token(self) -> int:
        token = getattr(_local, "token", None)
        if token is None:
            raise RuntimeError("LoopDriver.wait is for the loop's own thread")
        if token != self._token:
            raise LoopAbandoned
        return int(token)

    def _await(
        self,
        ready: Callable[[], bool],
        abandon: int | None = None,
        limited: bool = True,
    ) -> None:
        limit = self.timeout if limited else None
        if not self._lock.wait_for(
            lambda: ready() or (abandon is not None and self._token != abandon),
            timeout=limit,
        ):
            raise RuntimeError(f"the game loop did not answer within {self.timeout} s")
        if abandon is not None and self._token != abandon:
            raise LoopAbandoned

    @staticmethod
    def _describe(decision: Decision | None) -> str:
        if decision is None:
            return "nothing (it is busy or has ended)"
        seat, name = decision
        return name if seat is None else f"{name} of seat {seat}"


_local = threading.local()
