"""Seeded game plans: the requests of one random game, chosen by playing it on a model.

A plan is a pure function of its :class:`GameSpec` (the seed included): the model, the
reference engine's own :class:`~reference_engine.server.Session` in process, answers each
request as it is chosen, so that the next one can be legal, or deliberately not. Every
random decision comes from the spec's seeded generator, so a plan replays exactly; the
plan is sent to both engines afterwards (see :mod:`.driver`), never built from their answers.

Deals lean towards the edges (low cards, mirrored hands for ties, near-runs, sets), call
rates are sometimes low so that decks run out and are reshuffled, and a share of the
requests are probes the rules refuse: wrong seat, cards not held, illegal shapes, calls
over the limit or too early, picks the pick rule forbids, options that are locked, unknown
or of the wrong type, seat counts just outside the range.

*Raw-line probes* (at :attr:`GameSpec.raw_rate`, between hands, mid-turn and while a
reshuffle is due) are lines that are no well-formed request: not JSON, JSON that is not an
object, a missing or invalid ``seq``, a missing, mistyped or unknown ``cmd``, arguments of
the wrong type or naming no card. Each is one of :data:`RAW_PROBES`, written as a
transcript's ``raw`` step is (``{"text": ...}`` or ``{"json": ...}``); the placeholder for
the seq the client assigns at send time is the transcript's own: a JSON object without
``seq`` gets the client's seq (``add_seq: false`` sends it without one). None changes the
game; the model answers each, and checks that it did not.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import combinations
from typing import Any, Final

from reference_engine import picking, throws
from reference_engine.cards import DECK, Card, names
from reference_engine.errors import JhyapError
from reference_engine.game import Game, Phase
from reference_engine.profile import OptionSpec, OptionType, option_specs, resolve
from reference_engine.rules import GameEndKind, ScoringKind
from reference_engine.server import Session, decode_request

from ..spec.deal_layout import layout_from_state
from ..spec.transcript import raw_line

Json = Any
BETWEEN_HANDS = (Phase.AWAITING_DEAL, Phase.ROUND_OVER)
DEAL_STYLES = ("uniform", "low", "mirror", "runs", "sets", "quick")

# Coverage counters: the branches a run should reach, per profile.
RESHUFFLES = "reshuffles"
TIES_WITH_CALLER = "ties with the caller"
SEVERAL_LOWEST = "tie-breaks among several lowest"
ELIMINATIONS = "eliminations"
SHARED_WINS = "shared wins"
WON_CALLS = "won calls"
BEATEN_CALLS = "beaten calls"
GAMES_ENDED = "games ended"
TIMEOUTS = "timeouts"
REFUSED_TABLES = "refused tables"
RAW_LINES = "raw-line probes"
COUNTERS = (
    WON_CALLS,
    BEATEN_CALLS,
    TIES_WITH_CALLER,
    SEVERAL_LOWEST,
    RESHUFFLES,
    ELIMINATIONS,
    SHARED_WINS,
    GAMES_ENDED,
    TIMEOUTS,
    REFUSED_TABLES,
    RAW_LINES,
)


def applicable_counters(document: Mapping[str, Json]) -> tuple[str, ...]:
    """The counters a profile can reach at all (no shared wins where one seat survives)."""
    specs = option_specs(document)
    resolved = resolve(document)
    kinds = {resolved["rules"]["game_end"]["kind"]}
    timers = {resolved["rules"].get("turn_timer") is not None}
    for spec in specs.values():
        if spec.sets == "game_end.kind":
            kinds.update(str(spec.parameter_value(v)) for v in spec.values or ())
    found = []
    for name in COUNTERS:
        if name == ELIMINATIONS and GameEndKind.ELIMINATION not in kinds:
            continue
        if name == SHARED_WINS and GameEndKind.FIXED_ROUNDS not in kinds:
            continue
        if name == TIMEOUTS and not any(timers):
            continue
        found.append(name)
    return tuple(found)


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
class Plan:
    """A game's requests; ``requests[0]`` is the ``start``."""

    spec: GameSpec
    requests: tuple[Request, ...]
    start_error: str | None = None
    coverage: Counter[str] = field(default_factory=Counter)
    invariant_problems: tuple[str, ...] = ()  # broken by the model itself: a reference bug

    @property
    def profile(self) -> str:
        return self.spec.profile


def encode(message: Mapping[str, Json]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def request(message: Mapping[str, Json], probe: bool = False) -> Request:
    return Request(message, encode(message), probe)


_START_CACHE: dict[tuple[str, str, int], Request] = {}


def start_request(profile: Mapping[str, Json], seats: int) -> Request:
    """The ``start`` request; its long JSON text is made once per table kind."""
    key = (str(profile.get("id")), encode(profile["option_values"]), seats)
    cached = _START_CACHE.get(key)
    if cached is None or cached.message["profile"] != profile:
        cached = request(
            {
                "cmd": "start",
                "profile": profile,
                "options": profile["option_values"],
                "seats": seats,
            }
        )
        if len(_START_CACHE) > 256:
            _START_CACHE.clear()
        _START_CACHE[key] = cached
    return cached


# -- raw-line probes -----------------------------------------------------------------


@dataclass(frozen=True)
class RawProbe:
    """A kind of malformed line: the raw step that sends it, what docs/protocol.md says
    the answer is, and the protocol clauses it tests."""

    kind: str
    spec: Mapping[str, Json]  # {"text": ...} or {"json": ..., "add_seq"?: false}
    error: str | None  # the error code; None: accepted
    seq: str  # "null", "echoed" (the client's seq) or "own" (the line's own valid seq)
    clauses: tuple[str, ...]


_NOT_JSON = ("protocol.transport.not-json", "protocol.seq.null")
_NOT_OBJECT = ("protocol.transport.not-object", "protocol.seq.null")
_SEQ_NULL = ("protocol.seq.null",)
_COMMAND = ("protocol.order-of-checks.command", "protocol.seq.echo")
_ARGUMENTS = ("protocol.order-of-checks.arguments", "protocol.seq.echo")
_BAD, _CARD = "bad_request", "invalid_card"


def _probe(
    kind: str, spec: Mapping[str, Json], error: str | None, seq: str, clauses: tuple[str, ...]
) -> RawProbe:
    return RawProbe(kind, spec, error, seq, clauses)


RAW_PROBES: Final = {
    p.kind: p
    for p in (
        # The line: not JSON, not an object (seq null whatever the line held).
        _probe("not-json", {"text": "this is not json"}, _BAD, "null", _NOT_JSON),
        _probe("truncated-json", {"text": '{"seq":3,"cmd":"state"'}, _BAD, "null", _NOT_JSON),
        _probe("seq-nan", {"text": '{"seq":NaN,"cmd":"state"}'}, _BAD, "null", _NOT_JSON),
        _probe("json-array", {"json": [1, 2, 3]}, _BAD, "null", _NOT_OBJECT),
        _probe("json-string", {"json": "a string"}, _BAD, "null", _NOT_OBJECT),
        _probe("json-number", {"json": 42}, _BAD, "null", _NOT_OBJECT),
        _probe("json-null", {"json": None}, _BAD, "null", _NOT_OBJECT),
        # An array 1,000 levels deep: not an object whatever the engine's depth limit.
        _probe("deep-array", {"text": "[" * 1000 + "]" * 1000}, _BAD, "null", _NOT_OBJECT),
        # The seq: missing or no integer of 0 to 2^53 - 1.
        _probe("no-seq", {"json": {"cmd": "state"}, "add_seq": False}, _BAD, "null", _SEQ_NULL),
        _probe("seq-string", {"json": {"seq": "7", "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe("seq-bool", {"json": {"seq": True, "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe("seq-fraction", {"json": {"seq": 2.5, "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe("seq-negative", {"json": {"seq": -1, "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe("seq-null", {"json": {"seq": None, "cmd": "state"}}, _BAD, "null", _SEQ_NULL),
        _probe(
            "seq-too-large",
            {"json": {"seq": 9007199254740992, "cmd": "state"}},
            _BAD,
            "null",
            _SEQ_NULL,
        ),
        # 2^53 - 1 is a seq: echoed; a one-card deal is wrong_phase in a hand, else
        # invalid_deck.
        _probe(
            "seq-largest",
            {"json": {"seq": 9007199254740991, "cmd": "deal", "deck": ["Ac"]}},
            "wrong_phase or invalid_deck",
            "own",
            ("protocol.seq.echo", "protocol.order-of-checks.deal"),
        ),
        # The command: missing, not a string, naming no command (case-sensitive).
        _probe("no-cmd", {"json": {}}, _BAD, "echoed", _COMMAND),
        _probe("cmd-not-string", {"json": {"cmd": 7}}, _BAD, "echoed", _COMMAND),
        _probe("unknown-cmd", {"json": {"cmd": "shuffle"}}, "unknown_command", "echoed", _COMMAND),
        _probe("cmd-wrong-case", {"json": {"cmd": "STATE"}}, "unknown_command", "echoed", _COMMAND),
        # Fields the engine does not know are ignored: a state request, accepted.
        _probe(
            "extra-fields",
            {"json": {"cmd": "state", "colour": "blue", "x-trace": "abc"}},
            None,
            "echoed",
            ("protocol.messages.request-extra-fields", "protocol.seq.echo"),
        ),
        # The arguments, checked before the phase and the seat.
        _probe(
            "seat-string",
            {"json": {"cmd": "act", "seat": "0", "action": {"type": "call"}}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "action-no-type",
            {"json": {"cmd": "act", "seat": 0, "action": {}}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "pick-no-from",
            {"json": {"cmd": "act", "seat": 0, "action": {"type": "pick"}}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "card-not-string",
            {"json": {"cmd": "act", "seat": 0, "action": {"type": "throw", "cards": [5]}}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "deck-not-list", {"json": {"cmd": "deal", "deck": "Ac"}}, _BAD, "echoed", _ARGUMENTS
        ),
        _probe(
            "option-value-array",
            {"json": {"cmd": "set_option", "name": "call_limit", "value": [10]}},
            _BAD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "no-card-thrown",
            {"json": {"cmd": "act", "seat": 0, "action": {"type": "throw", "cards": ["Xx"]}}},
            _CARD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "no-card-picked",
            {
                "json": {
                    "cmd": "act",
                    "seat": 0,
                    "action": {"type": "pick", "from": "offer", "card": "1x"},
                }
            },
            _CARD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "no-card-dealt",
            {"json": {"cmd": "deal", "deck": ["Ac", "Xx"]}},
            _CARD,
            "echoed",
            _ARGUMENTS,
        ),
        _probe(
            "no-card-reshuffled",
            {"json": {"cmd": "reshuffle", "order": ["Zz"]}},
            _CARD,
            "echoed",
            _ARGUMENTS,
        ),
    )
}
RAW_KINDS: Final = tuple(RAW_PROBES)


def raw_request(kind: str) -> Request:
    """The raw-line probe of ``kind`` (one of :data:`RAW_PROBES`)."""
    probe = RAW_PROBES[kind]
    message = {"cmd": "raw", "kind": kind}
    return Request(message, encode({"raw": probe.spec}), probe.error is not None, probe.spec)


# -- specs ---------------------------------------------------------------------------


# An unbounded range (``max: null``) is sampled up to this many steps above its minimum.
UNBOUNDED_STEPS = 100


def range_bounds(spec: OptionSpec) -> tuple[Decimal, Decimal, Decimal]:
    """The low and high values fuzzed, and the step, of a range option; an unbounded
    range is sampled up to :data:`UNBOUNDED_STEPS` steps above its minimum (or its default)."""
    assert spec.range is not None
    low, step = Decimal(str(spec.range["min"])), Decimal(str(spec.range["step"]))
    if spec.range.get("max") is not None:
        return low, Decimal(str(spec.range["max"])), step
    return low, max(low, Decimal(str(spec.default))) + step * UNBOUNDED_STEPS, step


def _range_value(spec: OptionSpec, number: Decimal) -> Json:
    return int(number) if spec.type is OptionType.INTEGER else spec.normalize(str(number))


def option_samples(spec: OptionSpec) -> list[Json]:
    """The allowed values of an option: all listed ones, or a range's edges and default."""
    if spec.values is not None:
        return list(spec.values)
    low, high, step = range_bounds(spec)
    picks = {low, high, Decimal(str(spec.default)), low + step, high - step}
    return [_range_value(spec, number) for number in sorted(picks)]


def random_option_value(spec: OptionSpec, rng: random.Random) -> Json:
    if spec.range is not None and rng.random() < 0.3:
        low, high, step = range_bounds(spec)
        count = int((high - low) / step)
        return _range_value(spec, low + step * rng.randint(0, count))
    return rng.choice(option_samples(spec))


def invalid_option_values(spec: OptionSpec) -> list[Json]:
    """Values the option refuses: out of its set or range, and of the wrong JSON type."""
    bad: list[Json] = [None]
    bounded = spec.range is not None and spec.range.get("max") is not None
    if spec.type is OptionType.BOOLEAN:
        bad += ["true", 1, 0]
    elif spec.type is OptionType.INTEGER:
        bad += ["12", True, 1.5]
        if spec.range is not None:
            bad += [int(spec.range["min"]) - 1]
            if bounded:
                bad += [int(spec.range["max"]) + 1]
        else:
            bad += [max(spec.values or [0]) + 1, -1]
    elif spec.type is OptionType.DECIMAL:
        # A decimal travels as a string in plain notation: a JSON number or an exponent
        # is refused even when its value is allowed.
        bad += [True, "abc", "-1.00", "NaN", "5e-2", 0.05, 1]
        if spec.range is not None:
            low, step = Decimal(str(spec.range["min"])), Decimal(str(spec.range["step"]))
            bad += [str(low - step), str(low + step / 2)]
            if bounded:
                bad += [str(Decimal(str(spec.range["max"])) + step)]
    else:
        bad += [True, 3, "no-such-choice", ""]
    return bad


def random_spec(
    documents: Mapping[str, Mapping[str, Json]],
    profile: str,
    seed: int,
    seats: int | None = None,
) -> GameSpec:
    """A random game spec for ``profile``: seats (sometimes just outside the range),
    option values over every allowed value, and a style of play."""
    rng = random.Random(seed)
    document = documents[profile]
    rules = resolve(document)["rules"]
    low, high = int(rules["seats"]["min"]), int(rules["seats"]["max"])
    if seats is None:
        roll = rng.random()
        if roll < 0.04:
            seats = low - 1
        elif roll < 0.08:
            seats = high + 1
        else:
            seats = rng.randint(low, high)
    options = {
        name: random_option_value(spec, rng) for name, spec in option_specs(document).items()
    }
    ends = GameEndKind(rules["game_end"]["kind"])
    max_rounds = rng.choice((1, 1, 2, 3, 0))
    if max_rounds == 0 and ends is GameEndKind.HOST_ENDS:
        max_rounds = 6
    long_game = max_rounds == 0 or max_rounds >= 6
    return GameSpec(
        profile=profile,
        seats=seats,
        options=options,
        seed=rng.randrange(1 << 30),
        call_rate=rng.choice((0.02, 0.3, 0.9, 0.9)),
        probe_rate=rng.choice((0.0, 0.1, 0.1, 0.3)),
        timeout_rate=rng.choice((0.0, 0.0, 0.3, 0.95)),
        check_rate=rng.choice((0.05, 0.2)),
        max_rounds=max_rounds,
        max_requests=1500 if long_game else rng.choice((150, 400)),
        deal_style="quick" if long_game and rng.random() < 0.5 else "",
    )


# -- deals ---------------------------------------------------------------------------


def _deal_hands(
    rng: random.Random,
    style: str,
    players: int,
    size: int,
    card_value: Callable[[Card], int],
    deck: Sequence[Card] = DECK,
) -> list[list[Card]]:
    """Hands for ``players`` seats in the given style, drawn from ``deck`` (a multiset:
    with several packs a card has several copies)."""
    pool = list(deck)
    rng.shuffle(pool)
    copies = Counter(deck)
    taken: _Taken = _Taken(copies)

    def take(card: Card) -> Card | None:
        if card in taken:
            return None
        taken.add(card)
        return card

    def fill(hand: list[Card], wanted: Sequence[Card]) -> None:
        for card in wanted:
            if len(hand) < size and take(card) is not None:
                hand.append(card)

    hands: list[list[Card]] = [[] for _ in range(players)]
    if style == "low":
        low = [c for c in pool if c.rank <= 4]
        for hand in hands:
            fill(hand, [c for c in low if c not in taken][: rng.randint(2, size)])
    elif style == "mirror":
        # Hands of one equal value: ties with the caller and several equal lowest hands.
        target = rng.randint(size + 1, 15)
        for number, hand in enumerate(hands[: rng.choice((2, players, players))]):
            if number == 1 and rng.random() < 0.5:
                # The others lower than the starter, and equal: a beaten call whose
                # winner comes from a tie-break among several lowest hands.
                target = rng.randint(size, target)
            for _ in range(40):
                parts = [1] * size
                for _ in range(target - size):
                    parts[rng.randrange(size)] += 1
                wanted: list[Card] = []
                for value in parts:
                    wanted += [
                        c
                        for c in pool
                        if c not in taken and c not in wanted and card_value(c) == value
                    ][:1]
                if len(wanted) == size:
                    fill(hand, wanted)
                    break
    elif style == "runs":
        for hand in hands:
            suit = rng.choice("cdhs")
            start = rng.choice((1, 11, 12, 12, 13, rng.randint(1, 11)))
            length = 15 - start if start >= 11 and rng.random() < 0.7 else rng.randint(2, 4)
            wrap = [(start + k - 1) % 13 + 1 for k in range(length)]
            mixed = rng.random() < 0.4
            if mixed:
                wanted = [rng.choice([c for c in pool if c.rank == r]) for r in wrap]
            else:
                wanted = [c for r in wrap for c in DECK if c.rank == r and c.suit == suit]
            fill(hand, wanted)
    elif style == "quick":
        # The starter can call at once and the others hold a lot: hands end fast and
        # scores climb, so that eliminations and game ends come within a few steps.
        fill(hands[0], sorted(pool, key=card_value)[: rng.randint(size, size + 3)])
        rng.shuffle(hands[0])
        for hand in hands[1:]:
            fill(hand, [c for c in pool if card_value(c) >= rng.randint(1, 13)])
    elif style == "sets":
        for hand in hands:
            rank = rng.randint(1, 13)
            fill(hand, [c for c in pool if c.rank == rank][: rng.randint(2, 4)])
    for hand in hands:
        fill(hand, pool)
    return hands


class _Taken:
    """The cards already taken from a multiset deck: a card is "in" once all its copies are."""

    def __init__(self, copies: Counter[Card]) -> None:
        self.copies = copies
        self.counts: Counter[Card] = Counter()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and self.counts[card] >= self.copies[card]

    def add(self, card: Card) -> None:
        self.counts[card] += 1


def deal_order(game: Game, rng: random.Random, style: str = "") -> list[Card]:
    """An order of the table's cards in ``style`` (a random one when empty), dealt from
    the starter."""
    seats = game.turn_order_from(game.starter)
    size = game.rules.hand_size
    # Equal hands twice as often: ties are what engines most often get wrong.
    style = style or rng.choice((*DEAL_STYLES, "mirror"))
    if style == "uniform":
        order = list(game.full_deck)
        rng.shuffle(order)
        return order
    hands = _deal_hands(
        rng, style, len(seats), size, lambda c: game.rules.card_value(c.rank), game.full_deck
    )
    used = Counter(c for h in hands for c in h)
    rest = []
    for card in game.full_deck:
        if used[card]:
            used[card] -= 1
        else:
            rest.append(card)
    rng.shuffle(rest)
    if rng.random() < 0.3:
        rest.sort(key=lambda c: c.rank if rng.random() < 0.7 else 13)  # low cards on top
    for hand in hands:
        rng.shuffle(hand)
    return [hands[i % len(seats)][i // len(seats)] for i in range(size * len(seats))] + rest


# -- the plan --------------------------------------------------------------------------


class _Builder:
    """Chooses requests one at a time, answering each on the model."""

    def __init__(self, document: Mapping[str, Json], spec: GameSpec) -> None:
        self.document = document
        self.spec = spec
        self.rng = random.Random(spec.seed)
        # Raw-line probes draw from a generator of their own: with or without them, the
        # game's own requests are the same.
        self.raw_rng = random.Random(f"raw-lines:{spec.seed}")
        self.raw_sent = 0
        self.session = Session()
        self.requests: list[Request] = []
        self.coverage: Counter[str] = Counter()
        self.problems: list[str] = []

    @property
    def game(self) -> Game:
        assert self.session.game is not None
        return self.session.game

    def send(self, message: Mapping[str, Json] | Request, probe: bool = False) -> bool:
        """Add a request and answer it on the model; whether the model accepted it."""
        item = message if isinstance(message, Request) else request(message, probe)
        before = self.game.state() if probe and self.session.game is not None else None
        response = self.session.handle({"seq": 0, **item.message})
        self.requests.append(item)
        if response["ok"]:
            self._count(response.get("events") or [])
            self._check_invariants()
        elif before is not None and self.session.game is not None and self.game.state() != before:
            self.problems.append(f"the refused {item.cmd} changed the model's state")
        return bool(response["ok"])

    def raw_probe(self) -> None:
        """Maybe a raw-line probe (at the spec's ``raw_rate``), answered on the model as the
        reference's server answers a line; the model's state must not change."""
        if not self.raw_rng.random() < self.spec.raw_rate:
            return
        item = raw_request(self.raw_rng.choice(RAW_KINDS))
        line, _ = item.line(0)
        before = self.game.state()
        # A line that is no JSON is refused before it is a request: bad_request, seq null.
        with contextlib.suppress(JhyapError):
            self.session.handle(decode_request(line.encode("utf-8")))
        self.requests.append(item)
        self.raw_sent += 1
        self.coverage[RAW_LINES] += 1
        if self.game.state() != before:
            self.problems.append(f"the raw line {item.message['kind']} changed the model's state")

    def _count(self, events: Sequence[Mapping[str, Json]]) -> None:
        for event in events:
            kind = event["type"]
            if kind == "reshuffled":
                self.coverage[RESHUFFLES] += 1
            elif kind == "timed_out":
                self.coverage[TIMEOUTS] += 1
            elif kind == "round_ended":
                values = event["hand_values"]
                caller = event["caller"]
                if caller is None:  # the deck ran out: no call to win or beat
                    pass
                elif event["outcome"] == "won_call":
                    self.coverage[WON_CALLS] += 1
                else:
                    self.coverage[BEATEN_CALLS] += 1
                    others = [v for s, v in enumerate(values) if v is not None and s != caller]
                    lowest = min(others)
                    if lowest == values[caller]:
                        self.coverage[TIES_WITH_CALLER] += 1
                    if others.count(lowest) >= 2:
                        self.coverage[SEVERAL_LOWEST] += 1
                if event["eliminated"]:
                    self.coverage[ELIMINATIONS] += 1
            elif kind == "game_ended":
                self.coverage[GAMES_ENDED] += 1
                if len(event["winners"]) >= 2:
                    self.coverage[SHARED_WINS] += 1

    def _check_invariants(self) -> None:
        game = self.game
        if game.phase not in BETWEEN_HANDS and game.phase is not Phase.GAME_OVER:
            held = sum(len(h) for h in game.hands)
            offer = len(game.offer.cards) if game.offer else 0
            thrown = len(game.thrown.cards) if game.thrown else 0
            total = held + offer + thrown + len(game.deck) + len(game.out_of_play)
            if total != len(game.full_deck):
                self.problems.append(
                    f"{total} cards accounted for, not the table's {len(game.full_deck)}"
                )
        if game.rules.scoring is ScoringKind.TRANSFER and sum(game.scores) != 0:
            self.problems.append(f"transfer scores do not sum to zero: {game.scores}")

    def chance(self, rate: float) -> bool:
        return self.rng.random() < rate

    def checkpoint(self, rate: float) -> None:
        if self.chance(rate):
            self.send({"cmd": "state"})

    # -- between hands ----------------------------------------------------------------

    def between_hands(self) -> bool:
        """Play the gap before a hand; False when the plan ends here."""
        game, spec = self.game, self.spec
        if self.chance(0.15):
            self.option_probe()
        if self.chance(spec.probe_rate):
            self.phase_probe()
        if spec.max_rounds and game.round >= spec.max_rounds:
            if game.rules.game_end is GameEndKind.HOST_ENDS:
                self.send({"cmd": "end_game"})
                self.send({"cmd": "state"})
            return False
        deal = {"cmd": "deal", "deck": names(deal_order(game, self.rng, spec.deal_style))}
        if self.send(deal):  # protocol 1.1: the layout as the model dealt it goes along
            layout = layout_from_state(game.state(), deal["deck"])
            self.requests[-1] = request({**deal, **(layout or {})})
        self.checkpoint(0.5)
        return True

    def option_probe(self) -> None:
        specs = option_specs(self.document)
        roll = self.rng.random()
        if not specs or roll < 0.1:
            self.send({"cmd": "set_option", "name": "no_such_option", "value": 1}, probe=True)
            return
        spec = specs[self.rng.choice(sorted(specs))]
        if roll < 0.6:
            value = random_option_value(spec, self.rng)
            self.send(
                {"cmd": "set_option", "name": spec.name, "value": value},
                probe=spec.locked_when_open,
            )
        else:
            value = self.rng.choice(invalid_option_values(spec))
            self.send({"cmd": "set_option", "name": spec.name, "value": value}, probe=True)
        self.checkpoint(0.5)

    def phase_probe(self) -> None:
        """A request the current phase refuses."""
        game = self.game
        choices: list[Mapping[str, Json]] = [
            {"cmd": "act", "seat": game.to_act or 0, "action": {"type": "call"}},
            {"cmd": "act", "seat": 0, "action": {"type": "pick", "from": "deck"}},
            {"cmd": "reshuffle", "order": ["Ac"]},
        ]
        if game.phase not in BETWEEN_HANDS:
            choices.append({"cmd": "deal", "deck": names(game.full_deck)})
            choices.append({"cmd": "set_option", "name": self._some_option(), "value": 0})
            choices.append({"cmd": "end_game"})
        elif game.rules.game_end is not GameEndKind.HOST_ENDS:
            choices.append({"cmd": "end_game"})
        self.send(self.rng.choice(choices), probe=True)
        self.checkpoint(0.5)

    def _some_option(self) -> str:
        specs = option_specs(self.document)
        return self.rng.choice(sorted(specs)) if specs else "no_such_option"

    # -- turns ----------------------------------------------------------------------

    def turn_step(self) -> None:
        game, spec = self.game, self.spec
        seat = game.to_act
        assert seat is not None
        if self.chance(spec.probe_rate):
            self.turn_probe(seat)
            return
        timer = game.rules.timer_seconds > 0
        if timer and self.chance(spec.timeout_rate):
            self.send({"cmd": "act", "seat": seat, "action": {"type": "timeout"}})
            return
        if game.phase is Phase.CALL_OR_THROW:
            legal = game.legal_actions()
            assert legal is not None
            if legal.call and self.chance(spec.call_rate):
                self.send({"cmd": "act", "seat": seat, "action": {"type": "call"}})
                self.checkpoint(0.7)
                return
            one, two = self.rng.choice(legal.throws), self.rng.choice(legal.throws)
            cards = list(one if len(one) >= len(two) else two)
            self.rng.shuffle(cards)
            self.send(
                {"cmd": "act", "seat": seat, "action": {"type": "throw", "cards": names(cards)}}
            )
            return
        assert game.offer is not None
        offer: tuple[Card, ...] = ()
        if picking.offer_open_to(seat, game.multi_throwers, game.rules):
            offer = picking.pickable_cards(game.offer, game.rules)
        if offer and self.chance(0.4):
            card = str(self.rng.choice(offer))
            self.send(
                {
                    "cmd": "act",
                    "seat": seat,
                    "action": {"type": "pick", "from": "offer", "card": card},
                }
            )
        else:
            self.send({"cmd": "act", "seat": seat, "action": {"type": "pick", "from": "deck"}})

    def turn_probe(self, seat: int) -> None:
        """An action of the seat to act (or of another seat) that the rules refuse."""
        game, rng = self.game, self.rng
        hand = list(game.hands[seat])
        others = [s for s in range(game.seats) if s != seat]
        wrong_seats = [*others, game.seats, -1]
        options: list[Mapping[str, Json]] = [
            {"type": "call"},
            {"type": "timeout"},
            {"type": "pick", "from": "deck"},
        ]
        held = set(hand)
        missing = [c for c in DECK if c not in held]
        options.append({"type": "throw", "cards": [str(rng.choice(missing))]})
        if game.phase is Phase.CALL_OR_THROW and hand:
            for _ in range(3):  # illegal shapes are the likeliest to be misjudged
                options.append({"type": "throw", "cards": names(self._illegal_subset(hand))})
            options.append({"type": "throw", "cards": [str(hand[0]), str(hand[0])]})
            options.append({"type": "throw", "cards": []})
            options.append({"type": "throw", "cards": ["1x"]})
            options.append({"type": "pick", "from": "offer", "card": str(hand[0])})
        if game.phase is Phase.PICK and game.offer is not None:
            assert game.thrown is not None
            closed = [
                c
                for c in game.offer.cards
                if c not in picking.pickable_cards(game.offer, game.rules)
            ]
            if closed:
                options.append({"type": "pick", "from": "offer", "card": str(rng.choice(closed))})
                options.append({"type": "pick", "from": "offer", "card": str(rng.choice(closed))})
            if not picking.offer_open_to(seat, game.multi_throwers, game.rules):
                options.append({"type": "pick", "from": "offer", "card": str(game.offer.cards[-1])})
            options.append({"type": "pick", "from": "offer", "card": str(game.thrown.cards[0])})
            options.append({"type": "throw", "cards": [str(hand[0])]} if hand else {"type": "call"})
        action = rng.choice(options)
        if game.phase is Phase.CALL_OR_THROW and rng.random() < 0.5:
            # A wrap-around run in the hand is a rare chance: take it when it comes.
            wraps = [
                g
                for size in (3, 4)
                for g in combinations(hand, size)
                if _near_miss(g) == "wrap-around run"
            ]
            if wraps:
                action = {"type": "throw", "cards": names(rng.choice(wraps))}
        actor = rng.choice(wrong_seats) if rng.random() < 0.15 else seat
        self.send({"cmd": "act", "seat": actor, "action": action}, probe=True)
        self.checkpoint(0.5)

    def _illegal_subset(self, hand: Sequence[Card]) -> list[Card]:
        """Cards of the hand that make no legal throw: a kind of near miss drawn first
        (wrap-around, two-card or mixed-suit runs, gapped runs), then one of that kind."""
        kinds: dict[str, list[tuple[Card, ...]]] = {}
        for size in (2, 3, 4):
            for group in combinations(hand, size):
                if throws.classify(group, self.game.rules) is None:
                    kinds.setdefault(_near_miss(group), []).append(group)
        if not kinds:
            return [hand[0], hand[0]]
        # Wrap-around runs are rare in a hand: when one is there, throw it more often.
        weighted = sorted(kinds) + ["wrap-around run"] * 3 * ("wrap-around run" in kinds)
        chosen = list(self.rng.choice(kinds[self.rng.choice(weighted)]))
        self.rng.shuffle(chosen)
        return chosen

    def reshuffle_step(self) -> None:
        game = self.game
        pile = list(game.out_of_play)
        self.rng.shuffle(pile)
        if self.chance(self.spec.probe_rate):
            outside = [c for c in DECK if c not in set(pile)] or list(DECK)
            broken = pile[1:] if len(pile) > 1 and self.chance(0.5) else [*pile, outside[0]]
            self.send({"cmd": "reshuffle", "order": names(broken)}, probe=True)
        self.send({"cmd": "reshuffle", "order": names(pile)})
        self.checkpoint(0.5)

    def build(self) -> Plan:
        spec = self.spec
        try:
            resolved = resolve(self.document, spec.options)
        except JhyapError as exc:
            raise ValueError(f"the spec's options do not resolve: {exc.message}") from None
        start = start_request(resolved, spec.seats)
        response = self.session.handle({"seq": 0, **start.message})
        self.requests.append(start)
        if not response["ok"]:
            self.coverage[REFUSED_TABLES] += 1
            return Plan(spec, tuple(self.requests), response["error"]["code"], self.coverage)
        while len(self.requests) - self.raw_sent < spec.max_requests:
            if spec.raw_rate:
                self.raw_probe()
            phase = self.game.phase
            if phase in BETWEEN_HANDS:
                if not self.between_hands():
                    break
            elif phase is Phase.AWAITING_RESHUFFLE:
                self.reshuffle_step()
            elif phase is Phase.GAME_OVER:
                if self.chance(0.5):
                    self.phase_probe()
                self.send({"cmd": "state"})
                break
            else:
                self.turn_step()
                if self.chance(spec.check_rate):
                    self.send({"cmd": "state"})
        return Plan(spec, tuple(self.requests), None, self.coverage, tuple(self.problems))


def _near_miss(group: Sequence[Card]) -> str:
    """What kind of illegal throw a group of cards is."""
    ranks = sorted(c.rank for c in group)
    one_suit = len({c.suit for c in group}) == 1
    if len(set(ranks)) != len(ranks):
        return "repeated rank"
    if one_suit and ranks[0] == 1 and ranks[-1] == 13:
        return "wrap-around run"
    consecutive = ranks[-1] - ranks[0] == len(ranks) - 1
    if consecutive:
        return "short run" if one_suit else "mixed-suit run"
    if one_suit and ranks[-1] - ranks[0] <= len(ranks) + 1:
        return "gapped run"
    return "other"


def generate(document: Mapping[str, Json], spec: GameSpec) -> Plan:
    """The plan of ``spec`` under the profile ``document``."""
    return _Builder(document, spec).build()


__all__ = [
    "COUNTERS",
    "RAW_KINDS",
    "RAW_PROBES",
    "GameSpec",
    "Plan",
    "RawProbe",
    "Request",
    "applicable_counters",
    "encode",
    "generate",
    "random_spec",
    "raw_request",
    "request",
]
