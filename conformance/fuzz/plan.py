"""The values a fuzzed game is made of: its spec, its requests and its plan."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from jhyap_core.vocabulary import Command

from ..harness.client import compact_json
from ..spec.json_types import Json
from ..spec.profile_schema import sent_profile
from ..spec.steps import raw_line


@dataclass(frozen=True)
class GameSpec:
    """Everything a plan is made from; the same spec always gives the same plan."""

    profile: str
    seats: int
    options: Mapping[str, Json]
    seed: int
    call_rate: float = 0.5
    probe_rate: float = 0.1
    timeout_rate: float = 0.0
    check_rate: float = 0.1
    max_rounds: int = 2  # hands before the plan ends (0: until the game is over)
    max_requests: int = 400  # raw-line probes not counted
    deal_style: str = ""  # one of DEAL_STYLES for every deal; "" draws one per deal
    raw_rate: float = 0.03  # a raw-line probe before a step, at this rate (0: none)
    # A call held back until the hands make this (see .steer): "tie", "tiebreak", "edge",
    # "even", "beaten" (late and risky: until other hands are at or below the caller's).
    call_aim: str = ""
    # Choices the plan does not make (see :mod:`.carry`): (request index, choice key) of
    # a request a divergence was met at, so that the game goes another way from there.
    avoid: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class Request:
    """One protocol request (without seq) and its JSON text."""

    message: Mapping[str, Json]
    body: str
    probe: bool = False  # chosen so that the rules refuse it
    raw: Mapping[str, Json] | None = None  # a raw-line probe: a transcript's raw step spec

    @property
    def cmd(self) -> str:
        """The command; ``raw`` for a raw-line probe (its message is ``{"cmd": "raw",
        "kind": ...}``)."""
        return str(self.message["cmd"])

    def line(self, seq: int) -> tuple[str, int | None]:
        """The line sent with ``seq`` as the client's seq (no newline), and the seq it
        carries from the client (None when the line carries none of the client's)."""
        if self.raw is None:
            return f'{{"seq":{seq},{self.body[1:]}', seq
        data, put = raw_line(self.raw, seq)
        return data.decode("utf-8"), put


@dataclass(frozen=True)
class Mark:
    """Where the making of a plan stood before its request ``requests`` (at the top of a
    step): the generators' states and what had been counted, so that the plan made again
    with a choice avoided at a later request resumes from here (see
    :func:`.generate.generate`) instead of making every request before it again."""

    requests: int
    rng: tuple[int, bytes, float | None]  # version, the state's words, the gauss value
    raw_rng: tuple[int, bytes, float | None]
    raw_sent: int
    targets: Mapping[int, int | None]
    aim_order: tuple[int, ...]
    coverage: Counter[str]
    reached: int  # of the plan's ``reached``
    problems: int  # of the plan's ``invariant_problems``
    skipped: int


@dataclass(frozen=True)
class Plan:
    """A game's requests; ``requests[0]`` is the ``start``."""

    spec: GameSpec
    requests: tuple[Request, ...]
    start_error: str | None = None
    coverage: Counter[str] = field(default_factory=Counter)
    # (request index, counter) for each count: what a game reached before it diverged
    reached: tuple[tuple[int, str], ...] = ()
    invariant_problems: tuple[str, ...] = ()  # broken by the model itself: a reference bug
    # Where its making stood every few requests: not part of the plan's value.
    marks: tuple[Mark, ...] = field(default=(), compare=False, repr=False)

    @property
    def profile(self) -> str:
        return self.spec.profile

    def coverage_until(self, index: int | None) -> Counter[str]:
        """The counts of the requests up to ``index`` (all when None)."""
        if index is None:
            return Counter(self.coverage)
        return Counter(name for at, name in self.reached if at <= index)


def encode(message: Mapping[str, Json]) -> str:
    """A request as its line writes it (the harness client's encoder, made once: building
    one on every call was a third of what encoding a plan's requests cost)."""
    return compact_json(message)


def choice_key(message: Mapping[str, Json]) -> str:
    """What a request chooses, as :attr:`GameSpec.avoid` names it: its JSON text, a
    throw's cards in sorted order (the same cards thrown in another order are the same
    choice)."""
    action = message.get("action")
    if message.get("cmd") == "act" and isinstance(action, Mapping) and "cards" in action:
        cards = action["cards"]
        if isinstance(cards, list):
            return encode({**message, "action": {**action, "cards": sorted(map(str, cards))}})
    return encode(message)


def request(message: Mapping[str, Json], probe: bool = False) -> Request:
    return Request(message, encode(message), probe)


_START_CACHE: dict[tuple[str, str, int], tuple[Mapping[str, Json], Request]] = {}


def start_request(profile: Mapping[str, Json], seats: int) -> Request:
    """The ``start`` request (the profile as start sends it, :func:`sent_profile`); its long
    JSON text is made once per table kind."""
    key = (str(profile.get("id")), encode(profile["option_values"]), seats)
    cached = _START_CACHE.get(key)
    if cached is None or cached[0] != profile:
        message = {
            "cmd": Command.START,
            "profile": sent_profile(profile),
            "options": profile["option_values"],
            "seats": seats,
        }
        cached = (profile, request(message))
        if len(_START_CACHE) > 256:
            _START_CACHE.clear()
        _START_CACHE[key] = cached
    return cached[1]
