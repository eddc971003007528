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
import random
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import combinations
from typing import Final

from jhyap_core.cards import DECK, Card, names
from jhyap_core.profile import option_specs, resolve
from jhyap_core.vocabulary import JhyapError, Phase
from reference_engine import picking, throws
from reference_engine.game import Game
from reference_engine.kept import Kept
from reference_engine.rules import GameEndKind, ScoringKind
from reference_engine.server import Session, decode_request

from ..spec.deal_layout import layout_from_state
from ..spec.json_types import Json
from .aimed import aimed_pick, aimed_throw, goals_for
from .counters import (
    COUNTERS,
    RAW_LINES,
    REFUSED_TABLES,
    applicable_counters,
    count_events,
)
from .deals import aimed_deal
from .option_values import invalid_option_values, random_option_value
from .plan import GameSpec, Mark, Plan, Request, choice_key, encode, request, start_request
from .probes import RAW_KINDS, RAW_PROBES, RawProbe, raw_request
from .steer import random_spec

BETWEEN_HANDS = (Phase.AWAITING_DEAL, Phase.ROUND_OVER)
MAX_SKIPS = 20  # barred choices skipped in a row before a plan ends there
# Requests between two marks of a plan (:class:`.plan.Mark`): a plan made again with one
# more choice avoided makes at most this many requests before it again (and answers the
# rest on the model), for a mark's few kilobytes.
MARK_EVERY = 32


def _rng_state(rng: random.Random) -> tuple[int, bytes, float | None]:
    """``rng``'s state, its 625 words packed (a tenth of the tuple's memory)."""
    version, words, gauss = rng.getstate()
    return version, array("I", words).tobytes(), gauss


def _set_rng_state(rng: random.Random, state: tuple[int, bytes, float | None]) -> None:
    version, packed, gauss = state
    rng.setstate((version, tuple(array("I", packed)), gauss))


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
        self.reached: list[tuple[int, str]] = []
        self.problems: list[str] = []
        # What the last targeted deal aimed each seat at, and its turn order: the aimed
        # play (see .aimed) steers throws and picks toward it.
        self.targets: dict[int, int | None] = {}
        self.aim_order: list[int] = []
        # The choices not to make, by request index (see GameSpec.avoid); a choice barred
        # is skipped and another made, up to MAX_SKIPS times at one index.
        self.avoid: dict[int, set[str]] = {}
        for at, key in spec.avoid:
            self.avoid.setdefault(at, set()).add(key)
        self.skipped = 0
        self.exhausted = False
        self.marks: list[Mark] = []

    @property
    def game(self) -> Game:
        assert self.session.game is not None
        return self.session.game

    def barred(self, message: Mapping[str, Json]) -> bool:
        """Whether the next request may not be ``message`` (a choice the spec avoids)."""
        keys = self.avoid.get(len(self.requests))
        return keys is not None and choice_key(message) in keys

    def skip(self) -> None:
        """A barred request is not sent; the plan ends when no other choice comes."""
        self.skipped += 1
        self.exhausted = self.skipped > MAX_SKIPS

    def send(self, message: Mapping[str, Json] | Request, probe: bool = False) -> bool:
        """Add a request and answer it on the model; whether the model accepted it (a
        barred request is skipped: not accepted)."""
        item = message if isinstance(message, Request) else request(message, probe)
        if self.barred(item.message):
            self.skip()
            return False
        self.skipped = 0
        before = self.game.state() if probe and self.session.game is not None else None
        scores = tuple(self.game.scores) if self.session.game is not None else ()
        response = self.session.handle({"seq": 0, **item.message})
        self.requests.append(item)
        if response["ok"]:
            events = response.get("events") or []
            counted: Counter[str] = Counter()
            count_events(counted, events, self.game.rules, scores, self._order_from)
            self._reach(counted)
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
        if self.barred(item.message):
            return  # the game's own requests stay as they were
        line, _ = item.line(0)
        before = self.game.state()
        # A line that is no JSON is refused before it is a request: bad_request, seq null.
        with contextlib.suppress(JhyapError):
            self.session.handle(decode_request(line.encode("utf-8")))
        self.requests.append(item)
        self.raw_sent += 1
        self._reach(Counter({RAW_LINES: 1}))
        if self.game.state() != before:
            self.problems.append(f"the raw line {item.message['kind']} changed the model's state")

    def _order_from(self, seat: int) -> Sequence[int]:
        """Every seat (out or not) in the game's turn order from ``seat``."""
        seats = self.game.seats
        return sorted(range(seats), key=lambda s: (s - seat) % seats)

    def _reach(self, counted: Counter[str]) -> None:
        """Count at the last request added."""
        self.coverage.update(counted)
        at = len(self.requests) - 1
        self.reached.extend((at, name) for name, n in counted.items() for _ in range(n))

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
        if game.rules.scoring.kind is ScoringKind.TRANSFER and sum(game.scores) != 0:
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
            if game.rules.game_end.kind is GameEndKind.HOST_ENDS:
                self.send({"cmd": "end_game"})
                self.send({"cmd": "state"})
            return False
        order, targets = aimed_deal(game, self.rng, spec.deal_style)
        deal = {"cmd": "deal", "deck": names(order)}
        self.targets, self.aim_order = targets, game.turn_order_from(game.starter)
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
        elif game.rules.game_end.kind is not GameEndKind.HOST_ENDS:
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
        opened = game.slapdown_open
        if opened is not None and self.chance(0.7):
            # throws.slapdown: the seat that has just drawn slaps its card down, before
            # the seat to act acts.
            slap = {"type": "slapdown", "card": str(opened[1])}
            self.send({"cmd": "act", "seat": opened[0], "action": slap})
            self.checkpoint(0.5)
            return
        timer = game.rules.timer.seconds > 0
        if timer and self.chance(spec.timeout_rate):
            self.send({"cmd": "act", "seat": seat, "action": {"type": "timeout"}})
            return
        if game.phase is Phase.CALL_OR_THROW:
            legal = game.legal_actions()
            assert legal is not None
            call = {"cmd": "act", "seat": seat, "action": {"type": "call"}}
            if legal.call and (not legal.throws or self._calls(seat)) and not self.barred(call):
                self.send(call)
                self.checkpoint(0.7)
                return
            # A throw the spec avoids here is not drawn (unless every throw is).
            allowed = [t for t in legal.throws if not self.barred(_throw(seat, t))]
            if not allowed and legal.call and not self.barred(call):
                self.send(call)
                return
            allowed = allowed or list(legal.throws)
            one, two = self.rng.choice(allowed), self.rng.choice(allowed)
            cards = list(one if len(one) >= len(two) else two)
            aimed = aimed_throw(game, seat, self._goal(seat), allowed)
            if aimed is not None and not self.chance(0.1):
                cards = list(aimed)
            self.rng.shuffle(cards)
            if throws.out_of_order(cards, game.rules):
                # throws.run.order ascending: the run as shuffled is refused, then placed
                # lowest first.
                self.send(_throw(seat, cards), probe=True)
                cards = list(throws.ascending_run(cards, game.rules))
            self.send(_throw(seat, cards))
            return
        offer: tuple[Card, ...] = ()
        # No offer (deal.first_offer none, the hand's first pick): from the deck only.
        if game.offer is not None and picking.offer_open_to(seat, game.multi_throwers, game.rules):
            offer = picking.pickable_cards(game.offer, game.rules)
        goal = self._goal(seat)
        aimed_card = aimed_pick(game, seat, goal) if goal is not None else None
        from_deck = {"cmd": "act", "seat": seat, "action": {"type": "pick", "from": "deck"}}
        if aimed_card is not None or (offer and goal is None and self.chance(0.4)):
            card = str(aimed_card if aimed_card is not None else self.rng.choice(offer))
            chosen = {
                "cmd": "act",
                "seat": seat,
                "action": {"type": "pick", "from": "offer", "card": card},
            }
            self.send(from_deck if self.barred(chosen) else chosen)
        elif self.barred(from_deck) and offer:
            card = str(self.rng.choice(offer))
            self.send({**from_deck, "action": {"type": "pick", "from": "offer", "card": card}})
        else:
            self.send(from_deck)

    def _goal(self, seat: int) -> int | str | None:
        """The hand value the aimed play steers ``seat`` toward (None: no aim)."""
        aim = self.spec.call_aim
        if not aim or not (self.targets or aim == "beaten") or not self.aim_order:
            return None
        if any(s not in self.game.active for s in self.aim_order[:1]):
            return None
        return goals_for(self.game, aim, self.aim_order, self.targets).get(seat)

    def _calls(self, seat: int) -> bool:
        """Whether the seat to act calls: at the spec's call rate, or, with a call aim,
        when the hands make what it aims at (and now and then anyway)."""
        aim = self.spec.call_aim
        if not aim:
            return self.chance(self.spec.call_rate)
        game = self.game
        values = {s: game.hand_value(s) for s in game.active}
        order = [s for s in self._order_from(seat) if s in values and s != seat]
        mine = values[seat]
        lowest = min((values[s] for s in order), default=None)
        if aim == "tie":
            hit = lowest == mine
        elif aim == "beaten":
            # Late and risky: held until other hands are at or below the caller's, two
            # of them where there are (a showdown among several lower hands), else one.
            under = sum(values[s] <= mine for s in order)
            hit = under >= min(2, len(order)) or (under >= 1 and self.chance(0.3))
        elif aim == "even":
            # Every other hand at the one value dealt, above the caller's: a won call.
            wanted = {self.targets.get(s) for s in order}
            even = len(wanted) == 1 and {values[s] for s in order} == wanted
            hit = even and lowest is not None and lowest > mine
            hit = hit and seat == self.aim_order[0]  # the winners take turns with the starter
        elif aim == "tiebreak":
            tied = [s for s in order if values[s] == lowest]
            hit = lowest is not None and lowest <= mine and len(tied) >= 2 and tied[0] != min(tied)
        else:
            rules = game.rules
            goals = {c.at for c in rules.scoring.cuts} | {rules.game_end.out_above or -1}
            hit = any(game.scores[s] + values[s] in goals for s in order)
            # Where no hand can close its gap yet, a call now makes the totals climb.
            high = rules.deal.hand_size * (rules.cards.highest_value - 1)
            hit = hit or all(
                all(g - game.scores[s] > high or g <= game.scores[s] for g in goals) for s in order
            )
        return hit or self.chance(0.02)

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
            kinds = self._near_misses(hand)  # once: the three draws below share them
            for _ in range(3):  # illegal shapes are the likeliest to be misjudged
                options.append({"type": "throw", "cards": names(self._illegal_subset(hand, kinds))})
            options.append({"type": "throw", "cards": [str(hand[0]), str(hand[0])]})
            options.append({"type": "throw", "cards": []})
            options.append({"type": "throw", "cards": ["1x"]})
            options.append({"type": "pick", "from": "offer", "card": str(hand[0])})
            if game.table_rules.slapdown != "none":
                # Only the seat that has just drawn may slap down, only its card drawn.
                options.append({"type": "slapdown", "card": str(hand[0])})
            if not game.rules.throws.single_joker and any(c.is_joker for c in hand):
                # throws.single_joker false: a joker alone, refused while another throw is legal.
                options.append({"type": "throw", "cards": ["X"]})
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
        if game.phase is Phase.PICK and game.offer is None:
            # deal.first_offer none: the hand's first pick has no offer to take from, not
            # even the card just thrown.
            assert game.thrown is not None
            for _ in range(2):
                options.append({"type": "pick", "from": "offer", "card": str(game.thrown.cards[0])})
            if hand:
                options.append({"type": "pick", "from": "offer", "card": str(hand[0])})
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

    def _near_misses(self, hand: Sequence[Card]) -> dict[str, list[tuple[Card, ...]]]:
        """The groups of 2 to 4 cards of the hand (5 in a hand of 8 or fewer: a run one
        too long) that make no legal throw, by near-miss kind."""
        kinds: dict[str, list[tuple[Card, ...]]] = {}
        for size in (2, 3, 4, 5) if len(hand) <= 8 else (2, 3, 4):
            for group in combinations(hand, size):
                if throws.classify(group, self.game.rules) is None:
                    kinds.setdefault(_near_miss(group), []).append(group)
        return kinds

    def _illegal_subset(
        self, hand: Sequence[Card], kinds: Mapping[str, Sequence[tuple[Card, ...]]]
    ) -> list[Card]:
        """Cards of the hand that make no legal throw: a kind of near miss drawn first
        (wrap-around, two-card or mixed-suit runs, gapped runs), then one of that kind
        (``kinds``: the hand's near misses, from ``_near_misses``)."""
        if not kinds:
            return [hand[0], hand[0]]
        # Wrap-around runs are rare in a hand: when one is there, throw it more often; so
        # are the near misses public engines were found to accept.
        weighted = sorted(kinds) + [k for k in sorted(kinds) for _ in range(_WEIGHTS.get(k, 0))]
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

    def _start(self) -> tuple[Request, dict[str, Json]]:
        """The start request, answered on the model."""
        try:
            resolved = resolve(self.document, self.spec.options)
        except JhyapError as exc:
            raise ValueError(f"the spec's options do not resolve: {exc.message}") from None
        start = start_request(resolved, self.spec.seats)
        return start, self.session.handle({"seq": 0, **start.message})

    def build(self) -> Plan:
        spec = self.spec
        start, response = self._start()
        self.requests.append(start)
        if not response["ok"]:
            self._reach(Counter({REFUSED_TABLES: 1}))
            return Plan(
                spec,
                tuple(self.requests),
                response["error"]["code"],
                self.coverage,
                reached=tuple(self.reached),
            )
        return self._steps()

    def resume(self, base: Plan, mark: Mark) -> Plan | None:
        """The plan of this spec made from ``mark`` of ``base`` on: ``base``'s requests
        before it answered on the model (no choice made again), the generators and counts
        as they stood there. None when ``base`` did not start as this spec does."""
        start, response = self._start()
        if start.body != base.requests[0].body or not response["ok"]:
            return None
        handle = self.session.handle
        for item in base.requests[1 : mark.requests]:
            if item.raw is not None:
                line, _ = item.line(0)
                with contextlib.suppress(JhyapError):
                    handle(decode_request(line.encode("utf-8")))
            elif item.cmd == "deal":  # as the model was dealt: the layout added after
                handle({"seq": 0, "cmd": "deal", "deck": item.message["deck"]})
            else:
                handle({"seq": 0, **item.message})
        self.requests = list(base.requests[: mark.requests])
        _set_rng_state(self.rng, mark.rng)
        _set_rng_state(self.raw_rng, mark.raw_rng)
        self.raw_sent, self.skipped = mark.raw_sent, mark.skipped
        self.targets, self.aim_order = dict(mark.targets), list(mark.aim_order)
        self.coverage = Counter(mark.coverage)
        self.reached = list(base.reached[: mark.reached])
        self.problems = list(base.invariant_problems[: mark.problems])
        self.marks = [m for m in base.marks if m.requests <= mark.requests]
        return self._steps()

    def _mark(self) -> None:
        self.marks.append(
            Mark(
                len(self.requests),
                _rng_state(self.rng),
                _rng_state(self.raw_rng),
                self.raw_sent,
                dict(self.targets),
                tuple(self.aim_order),
                Counter(self.coverage),
                len(self.reached),
                len(self.problems),
                self.skipped,
            )
        )

    def _steps(self) -> Plan:
        """The requests after the start, to the plan's end."""
        spec = self.spec
        marked = self.marks[-1].requests if self.marks else 1
        while len(self.requests) - self.raw_sent < spec.max_requests and not self.exhausted:
            if len(self.requests) >= marked + MARK_EVERY:
                self._mark()
                marked = len(self.requests)
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
        return Plan(
            spec,
            tuple(self.requests),
            None,
            self.coverage,
            reached=tuple(self.reached),
            invariant_problems=tuple(self.problems),
            marks=tuple(self.marks),
        )


def _throw(seat: int, cards: Sequence[Card]) -> dict[str, Json]:
    return {"cmd": "act", "seat": seat, "action": {"type": "throw", "cards": names(cards)}}


# How many more times a kind of near miss is drawn, when the hand holds one.
_WEIGHTS: Final[Mapping[str, int]] = {
    "wrap-around run": 3,
    "run with one card of another suit": 2,
    "substring trap": 3,
    "set with an odd rank": 2,
    "gapped run": 1,
}
_RANK_DIGITS: Final = "".join(str(r) for r in range(1, 14))


def _near_miss(group: Sequence[Card]) -> str:
    """What kind of illegal throw a group of cards is."""
    ranks = sorted(c.rank for c in group)
    suits = Counter(c.suit for c in group)
    one_suit = len(suits) == 1
    if len(set(ranks)) != len(ranks):
        if "".join(map(str, ranks)) in _RANK_DIGITS:
            return "substring trap"  # A A 2 read as "112", in "12345678910111213"
        if len(ranks) >= 3 and Counter(ranks).most_common(1)[0][1] == len(ranks) - 1:
            return "set with an odd rank"
        return "repeated rank"
    if one_suit and ranks[0] == 1 and ranks[-1] == 13:
        return "wrap-around run"
    consecutive = ranks[-1] - ranks[0] == len(ranks) - 1
    if consecutive and one_suit:
        return "short run" if len(ranks) < 3 else "long run"
    if consecutive:
        lone = len(ranks) >= 3 and suits.most_common(1)[0][1] == len(ranks) - 1
        return "run with one card of another suit" if lone else "mixed-suit run"
    if one_suit and ranks[-1] - ranks[0] <= len(ranks) + 1:
        return "gapped run"
    return "other"


def generate(document: Mapping[str, Json], spec: GameSpec, *, base: Plan | None = None) -> Plan:
    """The plan of ``spec`` under the profile ``document``. ``base``: a plan of that
    profile whose spec ``spec`` is with more choices avoided, all at later requests (see
    :mod:`.carry`); the plan is the same, made from where ``base`` was made up to there."""
    if _KEPT.size <= 0:
        return _made(document, spec, base)
    key = (id(document), repr(spec))  # a spec always gives the same plan
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is document:
        return kept[1]
    plan = _made(document, spec, base)
    _KEPT.put(key, (document, plan))  # the document held: its id stays its own
    return plan


def _made(document: Mapping[str, Json], spec: GameSpec, base: Plan | None) -> Plan:
    """The plan of ``spec``, resumed from the last mark of ``base`` before the first choice
    ``spec`` avoids that ``base``'s spec does not (made afresh where there is none)."""
    if base is not None and base.marks:
        before = base.spec.avoid
        added = spec.avoid[len(before) :]
        same = spec.avoid[: len(before)] == before and replace(spec, avoid=before) == base.spec
        if same and added:
            first = min(at for at, _ in added)
            marks = [m for m in base.marks if m.requests < first]
            if marks:
                plan = _Builder(document, spec).resume(base, marks[-1])
                if plan is not None:
                    return plan
    return _Builder(document, spec).build()


# Plans this process keeps (none unless asked): a campaign makes each plan once, but the
# test suite runs many campaigns of one seed, each remaking the same plans.
_KEPT: Kept[tuple[Mapping[str, Json], Plan]] = Kept(0)


def keep_plans(count: int) -> None:
    """Keep the last ``count`` plans made in this process, to give again for the same
    profile mapping and spec (0: none, the default). The plans are shared: not to be changed."""
    _KEPT.resize(max(count, 0))


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
    "keep_plans",
    "random_spec",
    "raw_request",
    "request",
]
