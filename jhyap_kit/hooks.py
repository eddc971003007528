"""The hook protocol: a :class:`TrackedEngine` whose hooks a child process answers.

``python -m jhyap_kit.hooks -- COMMAND [ARG...]`` speaks the whole protocol to the harness
and starts ``COMMAND``, a *rules server* in any language, asking it one JSON line per hook
(``{"hook": "on_throw", "seat": 0, "cards": ["5h", "5s"]}``) and reading one JSON line back
(``{"result": "set"}``; ``{"refused": {"code": ..., "message": ...}}``; ``{"error": ...}``).
The server keeps its own game (its hands, its scores) and the kit the table around it, as
for any binding: docs/hook-protocol.md has every hook's arguments and result, the order
they come in, and a whole exchange; ``schema/hooks/`` checks the lines.

The child is never left behind: it gets end of input, then ``SIGTERM``, then ``SIGKILL``
when the kit exits (also on ``SIGTERM``, ``SIGHUP`` or Ctrl-C), and on Linux ``SIGKILL``
when the kit dies without a word. A child that dies, hangs or answers a line that is no
answer to the hook makes that request an ``internal_error`` with one line naming the hook
and the line (also written to standard error); the next ``start`` starts a new child.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NoReturn, Protocol

from jhyap_core.json_types import Json
from jhyap_core.messages import (
    Action,
    Call,
    Deal,
    Pick,
    Refusal,
    Refused,
    RoundScore,
    Slapdown,
    Throw,
)
from jhyap_core.serving import MAX_LINE_BYTES, Session, run
from jhyap_core.vocabulary import ErrorCode, JhyapError, ThrowKind
from jhyap_core.vocabulary import PickSource as Source

from .engine import TrackedEngine
from .support import ANY, KIT_RULES, RuleSupport

HOOK_PROTOCOL: Final = 1  # the version ``describe`` is asked in; its answer must not say other
# The hooks with a default in the kit: asked of the server only when it lists them in
# ``describe``'s ``hooks``; every other hook is always asked.
OPTIONAL_HOOKS: Final = ("laid", "pickable_positions", "legal_throws", "settlement")
DEFAULT_TIMEOUT: Final = 10.0  # seconds a server may take to answer one hook
_SHOWN: Final = 160  # characters of a line quoted in an error


class HookFailure(JhyapError):
    """The rules server died, hung or answered garbage: the request is an internal_error."""

    code = ErrorCode.INTERNAL_ERROR


class ChannelBroken(Exception):
    """The rules server cannot answer any more; ``reason`` says why, as a clause."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Channel(Protocol):
    """A rules server: one request line in, one answer line out."""

    def exchange(self, line: str) -> str:
        """The answer to ``line`` (without its newline); ChannelBroken when none comes."""
        ...

    def close(self) -> None:
        """End the server; it answers no more."""
        ...


def _die_with_parent() -> None:
    """In the child before exec (Linux): SIGKILL it when the kit's process dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _ended(status: int) -> str:
    if status < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-status).name}"
    return f"exited with status {status}"


class ChildProcess:
    """A rules server started from ``argv``: its stdin and stdout are the kit's pipes, its
    stderr the kit's own; ``timeout`` bounds the wait for each answer."""

    def __init__(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        linux = sys.platform.startswith("linux")
        self.process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            preexec_fn=_die_with_parent if linux else None,  # before any thread is started
        )
        self._buffer = b""

    def exchange(self, line: str) -> str:
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(line.encode("utf-8") + b"\n")
            process.stdin.flush()
        except OSError:
            raise ChannelBroken(self._gone()) from None
        fd = process.stdout.fileno()
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE_BYTES:
                raise ChannelBroken(f"answered a line longer than {MAX_LINE_BYTES} bytes")
            ready, _, _ = select.select([fd], [], [], self.timeout)
            if not ready:
                raise ChannelBroken(f"did not answer within {self.timeout:g} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise ChannelBroken(self._gone())
            self._buffer += chunk
        answer, _, self._buffer = self._buffer.partition(b"\n")
        return answer.decode("utf-8", errors="replace")

    def _gone(self) -> str:
        try:
            status = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "closed its standard output"
        return _ended(status)

    def close(self) -> None:
        process = self.process
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()  # a server ends at the end of its input
        for stop in (None, process.terminate, process.kill):
            if stop is not None:
                with contextlib.suppress(OSError):
                    stop()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=1)
                break
        if process.stdout is not None:
            process.stdout.close()


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


class Garbage(ValueError):
    """An answer that is no answer to its hook; the message says what it lacks."""


# -- what each hook's result must be -------------------------------------------------------


def _null(value: Any) -> None:
    if value is not None:
        raise Garbage("the result must be null")


def _integer(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Garbage("the result must be an integer")
    return value


def _integers(value: Any, what: str = "the result") -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise Garbage(f"{what} must be a list of integers")
    return tuple(value)


def _cards(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Garbage("the result must be a list of card names")
    return tuple(value)


def _throws(value: Any) -> list[tuple[str, ...]]:
    if not isinstance(value, list):
        raise Garbage("the result must be a list of throws, each a list of card names")
    return [_cards(throw) for throw in value]


def _kind(value: Any) -> ThrowKind:
    if value not in tuple(ThrowKind):
        raise Garbage(f"the result must be one of {', '.join(ThrowKind)}")
    return ThrowKind(value)


def _code(value: Any) -> ErrorCode:
    if value not in tuple(ErrorCode):
        raise Garbage(f"{value!r} is not a protocol error code")
    return ErrorCode(value)


def _refusal(value: Any) -> Refusal | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("message"), str):
        raise Garbage('the result must be null or {"code": ..., "message": ...}')
    return Refusal(_code(value.get("code")), value["message"])


def _round_score(value: Any) -> RoundScore:
    if not isinstance(value, dict):
        raise Garbage('the result must be {"winner", "deltas", "scores", "eliminated"}')
    winner = value.get("winner")
    if winner is not None and (not isinstance(winner, int) or isinstance(winner, bool)):
        raise Garbage("winner must be a seat or null")
    deltas, scores = (
        _integers(value.get("deltas"), "deltas"),
        _integers(value.get("scores"), "scores"),
    )
    return RoundScore(winner, deltas, scores, _integers(value.get("eliminated", []), "eliminated"))


def _settlement(value: Any) -> list[dict[str, Any]] | None:
    if value is not None and (
        not isinstance(value, list) or not all(isinstance(v, dict) for v in value)
    ):
        raise Garbage('the result must be null or a list of {"from", "to", "points", "dollars"}')
    return value


# -- the arguments, as the lines carry them ------------------------------------------------


def action_json(action: Action) -> dict[str, Json]:
    """``action`` as the protocol's ``act`` request writes it."""
    if isinstance(action, Call):
        return {"type": "call"}
    if isinstance(action, Throw):
        return {"type": "throw", "cards": list(action.cards)}
    if isinstance(action, Pick):
        picked: dict[str, Json] = {"type": "pick", "from": action.source.value}
        if action.card is not None:
            picked["card"] = action.card
        return picked
    if isinstance(action, Slapdown):
        return {"type": "slapdown", "card": action.card}
    return {"type": "timeout"}


def deal_json(deal: Deal) -> dict[str, Json]:
    return {
        "round": deal.round,
        "starter": deal.starter,
        "dealer": deal.dealer,
        "turn_order": list(deal.turn_order),
        "hands": [list(hand) for hand in deal.hands],
        "turned_up": deal.turned_up,
        "stock": list(deal.stock),
    }


@dataclass(frozen=True, slots=True)
class Description:
    """What a rules server says of itself (``describe``)."""

    name: str
    version: str
    language: str
    rules: RuleSupport
    options: tuple[str, ...] | None = None
    hooks: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def read(cls, value: Any) -> Description:
        if not isinstance(value, dict):
            raise Garbage('the result must be {"name", "version", "language", "rules", ...}')
        texts = [value.get(key) for key in ("name", "version", "language")]
        if not all(isinstance(text, str) and text for text in texts):
            raise Garbage("name, version and language must be non-empty strings")
        declared = value.get("rules")
        if not isinstance(declared, dict):
            raise Garbage('rules must be {"dotted.path": [values] or "any", ...}')
        rules: dict[str, Any] = dict(KIT_RULES)
        for path, allowed in declared.items():
            if allowed != "any" and not isinstance(allowed, list):
                raise Garbage(f'rules.{path} must be a list of values or "any"')
            rules[path] = ANY if allowed == "any" else allowed
        options = value.get("options")
        if options is not None and (
            not isinstance(options, list) or not all(isinstance(o, str) for o in options)
        ):
            raise Garbage("options must be null or a list of option names")
        hooks = value.get("hooks", [])
        if not isinstance(hooks, list) or not set(hooks) <= set(OPTIONAL_HOOKS):
            raise Garbage(f"hooks must list some of {', '.join(OPTIONAL_HOOKS)}")
        name, version, language = (str(text) for text in texts)
        shown = None if options is None else tuple(options)
        return cls(name, version, language, rules, shown, frozenset(hooks))


class HookClient:
    """Asks a rules server one hook at a time; ``launch`` starts a new one (after a failure,
    at the next :meth:`relaunch`)."""

    def __init__(self, launch: Callable[[], Channel], warn: Callable[[str], None]) -> None:
        self.launch = launch
        self.warn = warn  # where a failure's line goes besides the response (stderr)
        self.channel: Channel | None = launch()
        self.gone: str | None = None  # why the server is gone, once it is

    def ask(self, hook: str, read: Callable[[Any], Any], **arguments: Json) -> Any:
        """The server's answer to ``hook``, read by ``read`` (Garbage when unusable); its
        refusal raised as Refused; any other failure as HookFailure, the server then ended."""
        request = json.dumps({"hook": hook, **arguments}, separators=(",", ":"))
        if self.channel is None:
            raise HookFailure(f"{hook} not asked: {self.gone}")
        try:
            line = self.channel.exchange(request)
        except ChannelBroken as exc:
            self._fail(f"rules server {exc.reason} when asked {hook}: {_clip(request)}")
        try:
            answer = json.loads(line)
            if not isinstance(answer, dict) or len(answer.keys() & _ANSWERS) != 1:
                raise Garbage('an answer is an object with one of "result", "refused", "error"')
            if "refused" in answer:
                refused = _refusal(answer["refused"])
                if refused is None:
                    raise Garbage("refused must be {code, message}")
                raise Refused(refused.code, refused.message)
            if "error" in answer:
                self._fail(f"rules server failed {hook}: {_clip(str(answer['error']))}")
            return read(answer["result"])
        except (ValueError, RecursionError) as exc:  # Garbage and JSONDecodeError are ones
            reason = str(exc) if isinstance(exc, Garbage) else "not JSON"
            self._fail(
                f"rules server answered {hook} with an unusable line ({reason}): {_clip(line)}"
            )

    def _fail(self, message: str) -> NoReturn:
        self.warn(f"jhyap_kit.hooks: {message}")
        self.close()
        self.gone = f"the rules server is gone ({message}); the next start starts a new one"
        raise HookFailure(message)

    def relaunch(self) -> bool:
        """A new server, if the last one is gone; whether one was started."""
        if self.channel is not None:
            return False
        self.channel, self.gone = self.launch(), None
        return True

    def close(self) -> None:
        if self.channel is not None:
            channel, self.channel = self.channel, None
            channel.close()
            self.gone = "the rules server was ended; the next start starts a new one"


_ANSWERS: Final = frozenset({"result", "refused", "error"})


def describe(client: HookClient) -> Description:
    """Ask a new server what it is (``describe``); HookFailure when it cannot say."""
    result: Description = client.ask("describe", Description.read, version=HOOK_PROTOCOL)
    return result


class HookEngine(TrackedEngine):
    """A TrackedEngine asking every hook of ``client``'s rules server (the optional ones
    only when it lists them); :func:`hook_engine` makes one of the class the server's
    ``describe`` answer names (:meth:`bound`)."""

    ANSWERED: frozenset[str] = frozenset()

    def __init__(self, client: HookClient) -> None:
        super().__init__()
        self.client = client

    @classmethod
    def bound(cls, description: Description) -> type[HookEngine]:
        """This class with ``description``'s name, rules, options and hooks."""
        named = {
            "NAME": description.name,
            "VERSION": description.version,
            "LANGUAGE": description.language,
            "RULES": description.rules,
            "OPTIONS": description.options,
            "ANSWERED": description.hooks,
        }
        return type(cls.__name__, (cls,), named)

    @classmethod
    def overridden_hooks(cls) -> frozenset[str]:
        return cls.ANSWERED

    def start(self, profile: Mapping[str, Json], options: Mapping[str, Json], seats: int) -> None:
        if self.client.relaunch():
            describe(self.client)  # a new server hears describe first, as every server does
        super().start(profile, options, seats)

    def begin_game(self, rules: Mapping[str, Json], seats: int) -> None:
        self.client.ask("begin_game", _null, rules=dict(rules), seats=seats)

    def begin_hand(self, deal: Deal) -> None:
        # The rules of this hand: set_option changes them between hands, asking no hook.
        self.client.ask("begin_hand", _null, deal=deal_json(deal), rules=dict(self.rules))

    def refusal(self, seat: int, action: Action) -> Refusal | None:
        found: Refusal | None = self.client.ask(
            "refusal", _refusal, seat=seat, action=action_json(action)
        )
        return found

    def on_call(self, seat: int) -> None:
        self.client.ask("on_call", _null, seat=seat)

    def on_throw(self, seat: int, cards: tuple[str, ...]) -> ThrowKind:
        kind: ThrowKind = self.client.ask("on_throw", _kind, seat=seat, cards=list(cards))
        return kind

    def on_pick(self, seat: int, card: str, source: Source) -> None:
        self.client.ask("on_pick", _null, seat=seat, card=card, source=source.value)

    def on_reshuffle(self, stock: tuple[str, ...]) -> None:
        self.client.ask("on_reshuffle", _null, stock=list(stock))

    def hand_value(self, cards: Sequence[str]) -> int:
        value: int = self.client.ask("hand_value", _integer, cards=list(cards))
        return value

    def score_round(self, caller: int | None, hand_values: Sequence[int | None]) -> RoundScore:
        score: RoundScore = self.client.ask(
            "score_round", _round_score, caller=caller, hand_values=list(hand_values)
        )
        return score

    def settlement(self, scores: Sequence[int]) -> list[dict[str, Any]] | None:
        if "settlement" not in self.ANSWERED:
            return super().settlement(scores)
        paid: list[dict[str, Any]] | None = self.client.ask(
            "settlement", _settlement, scores=list(scores)
        )
        return paid

    def pickable_positions(self, offer: tuple[str, ...], kind: ThrowKind) -> tuple[int, ...]:
        if "pickable_positions" not in self.ANSWERED:
            return super().pickable_positions(offer, kind)
        positions: tuple[int, ...] = self.client.ask(
            "pickable_positions", _integers, offer=list(offer), kind=str(kind)
        )
        return positions

    def laid(self, cards: tuple[str, ...], kind: ThrowKind) -> tuple[str, ...]:
        if "laid" not in self.ANSWERED:
            return super().laid(cards, kind)
        order: tuple[str, ...] = self.client.ask("laid", _cards, cards=list(cards), kind=str(kind))
        return order

    def legal_throws(self, seat: int, hand: Sequence[str]) -> list[tuple[str, ...]]:
        if "legal_throws" not in self.ANSWERED:
            return super().legal_throws(seat, hand)
        found: list[tuple[str, ...]] = self.client.ask(
            "legal_throws", _throws, seat=seat, hand=list(hand)
        )
        return found


def hook_engine(client: HookClient) -> HookEngine:
    """A HookEngine over ``client``, described by its server; HookFailure when it cannot be."""
    return HookEngine.bound(describe(client))(client)


USAGE: Final = "usage: python -m jhyap_kit.hooks [--timeout SECONDS] -- COMMAND [ARG...]"


def _arguments(argv: Sequence[str]) -> tuple[float, list[str]]:
    """The answer timeout and the server's command line; ValueError with a reason."""
    words, timeout = list(argv), DEFAULT_TIMEOUT
    while words and words[0].startswith("--") and words[0] != "--":
        name, given, value = words.pop(0).partition("=")
        if name != "--timeout":
            raise ValueError(f"unknown option {name}")
        if not given:
            value = words.pop(0) if words else ""
        try:
            timeout = float(value)
        except ValueError:
            timeout = 0.0
        if not timeout > 0:
            raise ValueError(f"--timeout needs a positive number of seconds, not {value!r}")
    command = words[1:] if words[:1] == ["--"] else words
    if not command:
        raise ValueError("no rules server command after --")
    return timeout, command


def _end_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds to close(): the server is ended too


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the protocol on stdin and stdout, asking the rules server ``argv`` names."""
    try:
        timeout, command = _arguments(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        print(f"jhyap_kit.hooks: {exc}\n{USAGE}", file=sys.stderr)
        return 2
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _end_on_signal)

    def warn(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        client = HookClient(lambda: ChildProcess(command, timeout), warn)
    except OSError as exc:
        warn(f"jhyap_kit.hooks: cannot start the rules server {command[0]!r}: {exc.strerror}")
        return 2
    try:
        engine = hook_engine(client)
        return run(Session(engine, engine.info()))
    except HookFailure:
        return 2  # said on standard error
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main())
