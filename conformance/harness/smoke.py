"""``jhyap smoke``: check an engine's plumbing before its rules (docs/port.md).

:func:`smoke` starts the engine, greets it, plays one short two-seat hand (a deal, a
refused call, two turns, ``state``, ``legal`` when listed, a call), checks the protocol
points of :mod:`.smoke_points` against the reference engine, checks every response
against schema/protocol/ and standard output for stray lines, then stops the engine and
watches it exit. Each check is a :class:`Check`: ok, failed with the fix, or skipped.
Only a failed launch ends the smoke test early.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, NoReturn

from jhyap_core.profile import resolve
from jhyap_core.vocabulary import (
    PROTOCOL_VERSION,
    ActionType,
    Command,
    ErrorCode,
    EventType,
    PickSource,
)

from ..spec.profile_schema import sent_profile
from ..spec.transcript_profiles import shipped_documents
from ..spec.wording import plural
from .client import (
    EngineClient,
    EngineCrashed,
    EngineError,
    EngineTimeout,
    EngineUnusable,
    ProtocolViolation,
)
from .processes import signal_name
from .replay import SKIP_CODES
from .response_schemas import schema_problems
from .sandbox import EngineLimits
from .smoke_plan import FIXED, CannotPlan, Turn, plan_for
from .smoke_points import POINT_NAMES, Verdict, check_point, points
from .state_fields import unreported_dropped
from .versions import version_warning


class CheckStatus(StrEnum):
    """A smoke check's result, as printed (and in the JSON report)."""

    OK = "ok"
    FAIL = "FAIL"
    SKIP = "skip"


# Every check, in the order they run and are printed.
CHECK_NAMES: Final = (
    "launch",
    "hello",
    "protocol",
    "engine",
    "start",
    "deal",
    "refusal",
    "throw",
    "pick",
    "state",
    "legal",
    "turn",
    "call",
    *(f"point {name}" for name in POINT_NAMES),  # smoke_points.py
    "stop",
    "exit",
    "schema",
    "stdout",
)
# The hand's checks; the protocol points after them open tables of their own.
GAME_CHECKS: Final = CHECK_NAMES[CHECK_NAMES.index("start") : CHECK_NAMES.index("call") + 1]
POINT_CHECKS: Final = CHECK_NAMES[CHECK_NAMES.index("call") + 1 : CHECK_NAMES.index("stop")]
PROFILES: Final = ("dhumbal", "everestbuzz", "dashain")  # tried in turn until one is accepted
EXIT_WAIT: Final = 5.0  # seconds an engine has to exit after answering stop
STDERR_LINES: Final = 10
MAX_SCHEMA_LINES: Final = 10
PROTOCOL_DOC: Final = "docs/protocol.md"


@dataclass(frozen=True)
class Check:
    """One check's result: ``status`` is OK, FAIL or SKIP; ``text`` says why (and the fix)."""

    name: str
    status: CheckStatus
    text: str
    details: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """The check as printed: one line, then any details indented below it."""
        return [
            f"{self.status:<4} {self.name}: {self.text}",
            *(f"       {d}" for d in self.details),
        ]


@dataclass
class SmokeResult:
    """Every check run, and whether the engine could be started at all."""

    checks: list[Check] = field(default_factory=list)
    launched: bool = True
    stderr_tail: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.status == CheckStatus.FAIL]

    def exit_status(self) -> int:
        """0 when no check failed, 1 when one did, 2 when the engine could not be started."""
        if not self.launched:
            return 2
        return 1 if self.failed else 0

    def summary(self) -> str:
        """``15 ok, 1 failed, 1 skipped``."""
        ok, failed, skipped = (
            sum(c.status == s for c in self.checks)
            for s in (CheckStatus.OK, CheckStatus.FAIL, CheckStatus.SKIP)
        )
        return f"{ok} ok, {failed} failed, {skipped} skipped"


class _Broken(Exception):
    """The connection to the engine can no longer be used (raised by _Smoke.send)."""

    def __init__(self, text: str, details: Sequence[str] = ()) -> None:
        super().__init__(text)
        self.text = text
        self.details = tuple(details)


class _Stop(Exception):
    """The game cannot go on after a failed check."""


def _throw(turn: Turn) -> dict[str, Any]:
    return {"type": ActionType.THROW, "cards": list(turn.cards)}


def _pick(seat: int) -> dict[str, Any]:
    return {
        "cmd": Command.ACT,
        "seat": seat,
        "action": {"type": ActionType.PICK, "from": PickSource.DECK},
    }


def _response_like(line: str) -> bool:
    """Whether a stray stdout line looks like an attempt at a response, not a log line."""
    try:
        value = json.loads(line)
    except ValueError:
        text = line.lstrip()
        return text.startswith("{") and ('"seq"' in text or '"ok"' in text)
    return isinstance(value, dict) and ("seq" in value or "ok" in value)


def stdout_problem(exc: ProtocolViolation) -> str:
    """What a protocol violation says about the engine's standard output, with the fix."""
    if exc.line is not None and not _response_like(exc.line):
        return (
            f"the engine wrote a line that is not a protocol response to stdout: "
            f"'{exc.line}'; write logs to stderr"
        )
    return (
        f"{exc}; answer each request with exactly one line, "
        '{"seq": <its seq>, "ok": true, ...} or {"seq": <its seq>, "ok": false, '
        f'"error": {{"code": ..., "message": ...}}}} ({PROTOCOL_DOC}#messages)'
    )


def _declined_text(declined: Mapping[str, Sequence[str]]) -> str:
    """``dhumbal, dashain: unsupported_profile: <the engine's message>; ...``: each reason
    the engine gave, once, after the profiles it gave it for."""
    return "; ".join(f"{', '.join(pids)}: {reason}" for reason, pids in declined.items())


def _stderr_details(lines: Sequence[str]) -> tuple[str, ...]:
    tail = list(lines)[-STDERR_LINES:]
    if not tail:
        return ("its standard error was empty",)
    return ("its last standard error lines:", *(f"| {line}" for line in tail))


class _Smoke:
    """One smoke test: the engine connections, the responses seen, the checks made."""

    def __init__(
        self,
        command: str,
        timeout: float,
        env: Mapping[str, str] | None,
        report: Callable[[Check], None] | None,
        profile: Mapping[str, Any] | None = None,
    ) -> None:
        self.command = command
        self.profile = profile  # the declared ruleset, or None for the shipped ones
        self.plan = FIXED
        self.timeout = timeout
        self.env = env
        self.report = report
        self.limits: EngineLimits | None = None
        self.result = SmokeResult()
        self.responses: list[tuple[str, int, dict[str, Any]]] = []  # (cmd, seq, response)
        self.stdout_trouble: str | None = None
        self.broken_at: str | None = None  # the check whose request broke the connection
        self.fields: frozenset[str] | None = None  # hello's state_fields (None: every field)

    # -- recording ---------------------------------------------------------------------

    def add(self, name: str, status: CheckStatus, text: str, details: Sequence[str] = ()) -> None:
        check = Check(name, status, text, tuple(details))
        self.result.checks.append(check)
        if self.report is not None:
            self.report(check)

    def skip_rest(self, names: Sequence[str], why: str) -> None:
        done = {c.name for c in self.result.checks}
        for name in names:
            if name not in done:
                self.add(name, CheckStatus.SKIP, f"not run: {why}")

    # -- requests ----------------------------------------------------------------------

    def send(
        self, client: EngineClient, check: str, message: Mapping[str, Any], raw: bytes = b""
    ) -> dict[str, Any]:
        """Send a request (or a raw line, whose answer is a state's) and record its answer;
        raise _Broken when none can be read."""
        cmd = str(message["cmd"])
        seq = client.next_seq
        try:
            response = client.send_raw(raw) if raw else client.send(message)
        except ProtocolViolation as exc:
            self.stdout_trouble = self.stdout_trouble or stdout_problem(exc)
            self.broken_at = check
            raise _Broken(f"no usable answer to {cmd} (see the stdout check)") from None
        except EngineTimeout as exc:
            self.broken_at = check
            raise _Broken(
                f"{exc}; answer every request with one line on standard output, and flush it"
            ) from None
        except EngineCrashed as exc:
            self.broken_at = check
            raise _Broken(
                f"{exc}; run the command by hand and send it the same line to see why",
                _stderr_details(exc.stderr_tail),
            ) from None
        except EngineError as exc:
            self.broken_at = check
            raise _Broken(str(exc)) from None
        self.responses.append((cmd, seq, response))
        return response

    # -- the checks --------------------------------------------------------------------

    def launch(self) -> EngineClient | None:
        try:
            client = EngineClient(
                self.command, timeout=self.timeout, env=self.env, limits=self.limits
            )
        except EngineUnusable as exc:
            self.result.launched = False
            self.add(
                "launch",
                CheckStatus.FAIL,
                f"{exc}; check the command: it must start your engine from this directory",
            )
            return None
        self.add("launch", CheckStatus.OK, "the engine started")
        return client

    def handshake(self, client: EngineClient) -> dict[str, Any] | None:
        """hello, protocol, engine; the hello answer when the game can go on."""
        try:
            hello = self.send(client, "hello", {"cmd": Command.HELLO, "protocol": PROTOCOL_VERSION})
        except _Broken as broken:
            self.add("hello", CheckStatus.FAIL, broken.text, broken.details)
            return None
        if not hello["ok"]:
            error = hello["error"]
            if error["code"] == ErrorCode.UNSUPPORTED_PROTOCOL:
                self.add("hello", CheckStatus.OK, "answered hello (with unsupported_protocol)")
                self.add(
                    "protocol",
                    CheckStatus.FAIL,
                    f"the engine does not speak protocol {PROTOCOL_VERSION}: "
                    f"{error['message']}; the harness speaks {PROTOCOL_VERSION} "
                    "and needs an engine that speaks major version 1",
                )
            else:
                self.add(
                    "hello",
                    CheckStatus.FAIL,
                    f"the engine refused hello: {error['code']}: {error['message']}; "
                    "answer hello with ok true, engine, protocol and supports",
                )
            return None
        self.add("hello", CheckStatus.OK, "answered hello")
        version = hello.get("protocol")
        major = PROTOCOL_VERSION.split(".")[0]
        if not isinstance(version, str) or version.split(".")[0] != major:
            self.add(
                "protocol",
                CheckStatus.FAIL,
                f"the engine speaks protocol {json.dumps(version)}, the harness speaks "
                f"{PROTOCOL_VERSION}: answer with a {major}.x version (or refuse hello with "
                "unsupported_protocol)",
            )
            ok = False
        else:
            warning = version_warning(version)
            text = f"speaks protocol {version} (the harness speaks {PROTOCOL_VERSION})"
            self.add("protocol", CheckStatus.OK, text, [f"warning: {warning}"] if warning else [])
            declared = (hello.get("supports") or {}).get("state_fields")
            self.fields = frozenset(declared) if isinstance(declared, list) else None
            ok = True
        engine = hello.get("engine")
        engine = engine if isinstance(engine, dict) else {}
        missing = [
            key
            for key in ("name", "version", "language")
            if not (isinstance(engine.get(key), str) and engine[key])
        ]
        if missing:
            self.add(
                "engine",
                CheckStatus.FAIL,
                f"hello's engine object lacks {', '.join(missing)}; answer "
                '"engine": {"name": ..., "version": ..., "language": ...} (non-empty strings)',
            )
        else:
            self.add(
                "engine",
                CheckStatus.OK,
                f"{engine['name']} {engine['version']}, written in {engine['language']}",
            )
        return hello if ok else None

    def refused_badly(self, check: str, doing: str, response: Mapping[str, Any]) -> NoReturn:
        error = response["error"]
        self.add(
            check,
            CheckStatus.FAIL,
            f"the engine refused {doing}: {error['code']}: {error['message']}; this request "
            "is valid, and jhyap run will show the rules involved",
        )
        raise _Stop

    def accepted(
        self,
        client: EngineClient,
        check: str,
        doing: str,
        message: Mapping[str, Any],
        wanted: Sequence[str],
    ) -> list[str]:
        """Send a request that must be accepted with events of the ``wanted`` types."""
        response = self.send(client, check, message)
        if not response["ok"]:
            self.refused_badly(check, doing, response)
        events = response.get("events")
        if not isinstance(events, list):
            self.add(
                check,
                CheckStatus.FAIL,
                f"the answer to {doing} has no events list; answer "
                f'{{"seq": n, "ok": true, "events": [...]}} ({PROTOCOL_DOC}#events)',
            )
            raise _Stop
        types = [str(e.get("type")) if isinstance(e, dict) else json.dumps(e) for e in events]
        missing = [t for t in wanted if t not in types]
        if missing:
            self.add(
                check,
                CheckStatus.FAIL,
                f"the answer to {doing} lists the events [{', '.join(types)}], without "
                f"{', '.join(missing)}; list the events each request causes "
                f"({PROTOCOL_DOC}#events)",
            )
            raise _Stop
        return types

    def game(self, client: EngineClient, hello: Mapping[str, Any]) -> None:
        plan = self.plan
        try:
            self.start(client)
            types = self.accepted(
                client,
                "deal",
                "the deal",
                plan.deal_request(),
                (EventType.ROUND_STARTED, EventType.DEALT),
            )
            self.add("deal", CheckStatus.OK, f"accepted the deal: {', '.join(types)}")
            self.refusal(client)
            first, second, *more = plan.turns
            doing = f"seat {first.seat}'s throw of {first.words()}"
            throw = {"cmd": Command.ACT, "seat": first.seat, "action": _throw(first)}
            types = self.accepted(client, "throw", doing, throw, (EventType.THROWN,))
            self.add("throw", CheckStatus.OK, f"accepted {doing}: {', '.join(types)}")
            doing = f"seat {first.seat}'s pick from the deck"
            types = self.accepted(client, "pick", doing, _pick(first.seat), (EventType.PICKED,))
            self.add("pick", CheckStatus.OK, f"accepted {doing}: {', '.join(types)}")
            self.state(client)
            self.legal(client, hello)
            for turn in (second, *more):
                doing = f"seat {turn.seat}'s throw of {turn.words()}"
                throw = {"cmd": Command.ACT, "seat": turn.seat, "action": _throw(turn)}
                self.accepted(client, "turn", doing, throw, (EventType.THROWN,))
                doing = f"seat {turn.seat}'s pick from the deck"
                self.accepted(client, "turn", doing, _pick(turn.seat), (EventType.PICKED,))
            played = f"a throw of {second.words()}, a pick from the deck"
            if more:
                played += f", then {plural(len(more), 'more turn')}"
            self.add("turn", CheckStatus.OK, f"accepted seat {second.seat}'s turn: {played}")
            if plan.call is None:
                self.add("call", CheckStatus.SKIP, "the ruleset allows no call in this short hand")
                return
            call = {"cmd": Command.ACT, "seat": plan.call, "action": {"type": ActionType.CALL}}
            doing = f"seat {plan.call}'s call"
            types = self.accepted(
                client, "call", doing, call, (EventType.CALLED, EventType.ROUND_ENDED)
            )
            self.add("call", CheckStatus.OK, f"accepted {doing}: {', '.join(types)}")
        except _Broken as broken:
            assert self.broken_at is not None
            self.add(self.broken_at, CheckStatus.FAIL, broken.text, broken.details)
            self.skip_rest(
                GAME_CHECKS + POINT_CHECKS,
                f"the engine could not be used after {self.broken_at}",
            )
        except _Stop:
            failed = self.result.checks[-1].name
            self.skip_rest(GAME_CHECKS, f"the hand cannot go on after {failed}")

    def start(self, client: EngineClient) -> None:
        if self.profile is not None:
            candidates = [(str(self.profile["id"]), self.profile)]
        else:
            documents = shipped_documents()
            candidates = [(pid, documents[pid]) for pid in PROFILES]
        seats = self.plan.seats
        declined: dict[str, list[str]] = {}  # the engine's reason -> the profiles it declined
        for pid, document in candidates:
            resolved = resolve(document)
            message = {
                "cmd": Command.START,
                "profile": sent_profile(resolved),
                "options": resolved["option_values"],
                "seats": seats,
            }
            response = self.send(client, "start", message)
            if response["ok"]:
                note = f" (declined: {_declined_text(declined)})" if declined else ""
                self.add("start", CheckStatus.OK, f"accepted a {seats}-seat {pid} table{note}")
                return
            error = response["error"]
            if error["code"] not in SKIP_CODES:
                self.refused_badly("start", f"a {seats}-seat {pid} table", response)
            declined.setdefault(f"{error['code']}: {error['message']}", []).append(pid)
        which = "the declared profile" if self.profile is not None else "every shipped profile"
        self.add(
            "start",
            CheckStatus.FAIL,
            f"the engine declined {which} ({_declined_text(declined)}); smoke needs one it plays",
        )
        raise _Stop

    def refusal(self, client: EngineClient) -> None:
        wrong, to_act = self.plan.wrong_seat, self.plan.turns[0].seat
        doing = f"seat {wrong}'s call on seat {to_act}'s turn"
        message = {"cmd": Command.ACT, "seat": wrong, "action": {"type": ActionType.CALL}}
        response = self.send(client, "refusal", message)
        if response["ok"]:
            self.add(
                "refusal",
                CheckStatus.FAIL,
                f"the engine accepted {doing}; refuse it with "
                '{"ok": false, "error": {"code": "not_your_turn", "message": ...}}',
            )
            raise _Stop
        code = response["error"]["code"]
        note = (
            ""
            if code == ErrorCode.NOT_YOUR_TURN
            else " (the rules want not_your_turn: see jhyap run)"
        )
        self.add("refusal", CheckStatus.OK, f"refused {doing}: {code}{note}")

    def state(self, client: EngineClient) -> None:
        response = self.send(client, "state", {"cmd": Command.STATE})
        if not response["ok"]:
            self.refused_badly("state", "state", response)
        state = response.get("state")
        if not isinstance(state, dict):
            self.add(
                "state",
                CheckStatus.FAIL,
                f'the answer to state has no state object; answer {{"seq": n, "ok": true, '
                f'"state": {{...}}}} ({PROTOCOL_DOC}#state)',
            )
            raise _Stop
        to_act = state.get("to_act")
        seat = f"seat {to_act} to act" if to_act is not None else "nobody to act"
        self.add("state", CheckStatus.OK, f"answered state: phase {state.get('phase')}, {seat}")

    def legal(self, client: EngineClient, hello: Mapping[str, Any]) -> None:
        supports = hello.get("supports")
        commands = supports.get("commands") if isinstance(supports, dict) else None
        if not isinstance(commands, list) or "legal" not in commands:
            self.add(
                "legal", CheckStatus.SKIP, "the engine does not list the optional legal command"
            )
            return
        response = self.send(client, "legal", {"cmd": Command.LEGAL})
        if not response["ok"]:
            error = response["error"]
            self.add(
                "legal",
                CheckStatus.FAIL,
                f"the engine lists legal in supports.commands but refused it: {error['code']}: "
                f"{error['message']}; list legal only once it is implemented",
            )
            return
        legal = response.get("legal")
        seat = legal.get("seat") if isinstance(legal, dict) else None
        self.add(
            "legal",
            CheckStatus.OK,
            f"answered legal for seat {seat}" if seat is not None else "answered legal",
        )

    def protocol_points(self, client: EngineClient, hello: Mapping[str, Any]) -> None:
        """Each point of smoke_points.py, compared with the reference engine's answers."""
        shown = {
            Verdict.PASSED: CheckStatus.OK,
            Verdict.FAILED: CheckStatus.FAIL,
            Verdict.NOT_CHECKED: CheckStatus.SKIP,
        }
        for point in points():
            name = f"point {point.name}"
            try:
                found = check_point(
                    point,
                    lambda message: self.send(client, name, message),  # noqa: B023
                    lambda line: self.send(client, name, {"cmd": Command.STATE}, line),  # noqa: B023
                    hello,
                )
            except _Broken as broken:
                self.add(name, CheckStatus.FAIL, broken.text, broken.details)
                self.skip_rest(CHECK_NAMES, f"the engine could not be used after {name}")
                return
            self.add(name, shown[found.verdict], found.text)

    def schema(self) -> None:
        if not self.responses:
            self.add("schema", CheckStatus.SKIP, "no response to check")
            return
        problems = [
            f"{cmd} (seq {seq}): {problem}"
            for cmd, seq, response in self.responses
            for problem in unreported_dropped(schema_problems(cmd, response), self.fields)
        ]
        total = len(self.responses)
        if not problems:
            self.add(
                "schema", CheckStatus.OK, f"all {plural(total, 'response')} match schema/protocol/"
            )
            return
        bad = len({line.split(":")[0] for line in problems})
        shown = problems[:MAX_SCHEMA_LINES]
        if len(problems) > len(shown):
            shown.append(f"... and {len(problems) - len(shown)} more")
        self.add(
            "schema",
            CheckStatus.FAIL,
            f"{bad} of {plural(total, 'response')} {'breaks' if bad == 1 else 'break'} "
            f"schema/protocol/; make {'it' if bad == 1 else 'them'} match the JSON "
            "Schemas (docs/schemas.md):",
            shown,
        )

    def stdout(self) -> None:
        if self.stdout_trouble is not None:
            self.add("stdout", CheckStatus.FAIL, self.stdout_trouble)
        elif not self.responses:
            self.add("stdout", CheckStatus.SKIP, "no response was read")
        else:
            self.add(
                "stdout",
                CheckStatus.OK,
                f"standard output carried only responses, one per request ({len(self.responses)})",
            )

    def shutdown(self, client: EngineClient, note: str = "") -> None:
        """stop, then exit: status 0 within EXIT_WAIT seconds, and no process left."""
        try:
            response = self.send(client, "stop", {"cmd": Command.STOP})
        except _Broken as broken:
            self.add("stop", CheckStatus.FAIL, broken.text, broken.details)
            self.add("exit", CheckStatus.SKIP, "not run: stop was not answered")
            return
        if not response["ok"]:
            error = response["error"]
            self.add(
                "stop",
                CheckStatus.FAIL,
                f"the engine refused stop: {error['code']}: {error['message']}; answer stop "
                "with ok true, then exit with status 0",
            )
            self.add("exit", CheckStatus.SKIP, "not run: stop was refused")
            return
        self.add("stop", CheckStatus.OK, "answered stop" + note)
        deadline = time.monotonic() + EXIT_WAIT
        while client.returncode is None and time.monotonic() < deadline:
            time.sleep(0.01)
        status = client.returncode
        if status is None:
            self.add(
                "exit",
                CheckStatus.FAIL,
                f"the engine was still running {EXIT_WAIT:g} s after answering stop; "
                "exit once stop is answered",
            )
            return
        if status != 0:
            how = (
                f"was killed by {signal_name(-status)}"
                if status < 0
                else f"exited with status {status}"
            )
            self.add(
                "exit",
                CheckStatus.FAIL,
                f"the engine {how} after stop; exit with status 0 after answering stop",
            )
            return
        leftovers = client.leftover_processes()
        end = time.monotonic() + 1.0
        while leftovers and time.monotonic() < end:
            time.sleep(0.02)
            leftovers = client.leftover_processes()
        if leftovers:
            count = len(leftovers)
            self.add(
                "exit",
                CheckStatus.FAIL,
                f"the engine exited but left {plural(count, 'process', 'processes')} running "
                f"(pid {', '.join(map(str, leftovers))}); end the processes it started "
                "before it exits",
            )
            return
        self.add("exit", CheckStatus.OK, "exited with status 0, no process left" + note)

    def fresh_shutdown(self) -> None:
        """stop and exit on a new engine process, when the first can no longer be used."""
        note = f" (by a fresh engine: the first could not be used after {self.broken_at})"
        try:
            client = EngineClient(
                self.command, timeout=self.timeout, env=self.env, limits=self.limits
            )
        except EngineUnusable as exc:
            self.add("stop", CheckStatus.FAIL, f"a fresh engine could not be started: {exc}")
            self.add("exit", CheckStatus.SKIP, "not run: stop was not answered")
            return
        try:
            hello = self.send(client, "stop", {"cmd": Command.HELLO, "protocol": PROTOCOL_VERSION})
            if not hello["ok"]:
                raise _Broken(f"a fresh engine refused hello: {hello['error']['code']}")
        except _Broken as broken:
            self.add("stop", CheckStatus.FAIL, broken.text, broken.details)
            self.add("exit", CheckStatus.SKIP, "not run: stop was not answered")
            client.close(graceful=False)
            return
        try:
            self.shutdown(client, note)
        finally:
            client.close(graceful=False)

    # -- the whole test ----------------------------------------------------------------

    def run(self) -> SmokeResult:
        if self.profile is not None:
            try:
                self.plan = plan_for(self.profile)
            except CannotPlan as exc:
                self.add(
                    "start",
                    CheckStatus.FAIL,
                    f"no smoke hand can be planned for the profile: {exc}",
                )
                return self.result
        client = self.launch()
        if client is None:
            return self.result
        try:
            hello = self.handshake(client)
            if hello is not None:
                self.game(client, hello)
                if self.broken_at is None:
                    self.protocol_points(client, hello)
            else:
                self.skip_rest(("protocol", "engine"), "no hello answer")
                self.skip_rest(GAME_CHECKS + POINT_CHECKS, "the handshake failed")
            if self.broken_at is None:
                self.shutdown(client)
            elif self.broken_at != "hello":
                self.result.stderr_tail = client.stderr_tail()
                client.close(graceful=False)
                self.fresh_shutdown()
            else:
                self.skip_rest(("stop", "exit"), "the engine did not complete the handshake")
            self.schema()
            self.stdout()
        finally:
            if not self.result.stderr_tail:
                self.result.stderr_tail = client.stderr_tail()
            client.close(graceful=False)
        return self.result


def smoke(
    command: str,
    *,
    timeout: float = 10.0,
    env: Mapping[str, str] | None = None,
    report: Callable[[Check], None] | None = None,
    limits: EngineLimits | None = None,
    profile: Mapping[str, Any] | None = None,
) -> SmokeResult:
    """Smoke-test the engine started by ``command``; ``report`` sees each check as it ends.

    ``profile``: the ruleset to play (a loaded profile), else the first shipped one of
    :data:`PROFILES` the engine accepts."""
    checks = _Smoke(command, timeout, env, report, profile)
    checks.limits = limits
    return checks.run()


__all__ = [
    "CHECK_NAMES",
    "Check",
    "SmokeResult",
    "smoke",
    "stdout_problem",
]
