"""A game of Jhyap under one resolved profile: jhyap_core's table procedure over the
reference engine's card play.

:class:`Game` is :class:`~jhyap_core.table.Table` (seats, turns, the deal, the offer,
picks, reshuffles, the end of a hand, the phases, ``state`` and ``legal``) with
:class:`ReferencePlay`, the card play of the rule families (throws, calling, picking,
scoring, game_end) under the profile's typed :class:`Rules`. Every refused request leaves
the state as it was (``jhyap_core.table.atomic``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jhyap_core.cards import Card, names
from jhyap_core.messages import Deal, Refusal, RoundScore
from jhyap_core.profile import OptionChanges, option_specs, resolve
from jhyap_core.table import LegalActions, Table, TableRules, Throw, atomic
from jhyap_core.vocabulary import (
    BETWEEN_HANDS,
    ErrorCode,
    JhyapError,
    OptionError,
    Phase,
    RuleViolation,
)

from . import calling, game_end, picking, scoring, throws
from .actions import Action, Call, PickDeck, PickOffer, SlapDown, ThrowCards, Timeout
from .rules import FirstRoundCall, Rules, SingleThrow

Event = dict[str, Any]

__all__ = ["Event", "Game", "LegalActions", "ReferencePlay"]


@dataclass(frozen=True, slots=True)
class ReferencePlay:
    """The reference engine's card play: the rule families under ``rules``."""

    rules: Rules

    def begin_hand(self, deal: Deal) -> None:
        """The reference keeps no card play state of its own."""

    def call_refusal(self, table: Table, seat: int) -> Refusal | None:
        value = table.hand_value(seat)
        code = calling.call_refusal(
            value, table.turns_taken, len(table.active), self.rules, table.seats
        )
        if code is None:
            return None
        if code is ErrorCode.CALL_TOO_EARLY:
            return Refusal(code, self._too_early(table))
        limit = self.rules.calling.limit_for(table.seats)
        return Refusal(code, f"hand worth {value} is over the call limit {limit}")

    def _too_early(self, table: Table) -> str:
        """Why a call is too early: the first-round lock, or too few turns of one's own."""
        players = len(table.active)
        locked = self.rules.calling.first_round is FirstRoundCall.AFTER_EVERY_PLAYER_HAD_A_TURN
        if locked and table.turns_taken < players:
            return "no call until every player has had a turn this hand"
        had = calling.own_turns(table.turns_taken, players)
        least = self.rules.calling.min_own_turns
        return f"no call before {least} turns of one's own this hand ({had} so far)"

    def throw_refusal(self, table: Table, seat: int, cards: Sequence[Card]) -> Refusal | None:
        if throws.classify(cards, self.rules) is None:
            return Refusal(
                ErrorCode.ILLEGAL_THROW,
                f"{' '.join(names(cards)) or 'nothing'} is not a single, "
                "a set of one rank or a run in one suit",
            )
        if throws.out_of_order(cards, self.rules):
            ordered = " ".join(names(throws.ascending_run(cards, self.rules)))
            return Refusal(
                ErrorCode.ILLEGAL_THROW,
                f"a run is placed lowest first: {ordered}, not {' '.join(names(cards))}",
            )
        if throws.joker_alone_refused(cards, table.hands[seat], self.rules):
            return Refusal(
                ErrorCode.ILLEGAL_THROW,
                "a joker may not be thrown alone while the hand allows another throw",
            )
        if throws.single_refused(cards, table.hands[seat], self.rules):
            if self.rules.throws.single is SingleThrow.HIGHEST_WHEN_NO_COMBINATION:
                why = "without a set or run in the hand, the single thrown is of the highest value"
            else:
                why = "a single card may be thrown only when the hand holds no set or run"
            return Refusal(ErrorCode.ILLEGAL_THROW, why)
        return None

    def pick_refusal(self, table: Table, seat: int, card: Card | None) -> Refusal | None:
        return None

    def lay(self, seat: int, cards: Sequence[Card]) -> Throw:
        kind = throws.classify(cards, self.rules)
        if kind is None:  # only a forced single comes here unasked, and it is one
            raise RuleViolation("not a throw", ErrorCode.ILLEGAL_THROW)
        return Throw(throws.laid(cards, kind, self.rules), kind)

    def on_call(self, seat: int) -> None:
        """Nothing to follow: the table holds the hands."""

    def on_pick(self, seat: int, card: Card, from_deck: bool) -> None:
        """Nothing to follow: the table holds the hands."""

    def on_reshuffle(self, stock: Sequence[Card]) -> None:
        """Nothing to follow: the table holds the deck."""

    def hand_value(self, cards: Sequence[Card]) -> int:
        return self.rules.cards.hand_value(cards)

    def pickable_positions(self, offer: Throw) -> tuple[int, ...]:
        return picking.pickable_positions(offer, self.rules)

    def legal_throws(self, table: Table, seat: int) -> list[tuple[Card, ...]]:
        return list(throws.legal_throws(table.hands[seat], self.rules))

    def score_round(
        self, table: Table, caller: int | None, values: Mapping[int, int]
    ) -> RoundScore:
        rules = self.rules
        winner: int | None = None
        if caller is not None:
            order = table.turn_order_from(table.next_active(caller))
            result = scoring.showdown(values, order, caller, rules)
            winner, deltas = result.winner, dict(result.deltas)
        else:
            deltas = dict(scoring.deck_ran_out(values, rules))
        scores = list(table.scores)
        for seat, delta in deltas.items():
            scores[seat] += delta
            if delta:
                added = scoring.hand_added(seat, values, caller, winner, rules)
                scores[seat] = scoring.cut_score(scores[seat], scoring.cut_rules(added, rules))
        out = game_end.eliminated_after(scores, table.active, rules)
        return RoundScore(
            winner,
            tuple(deltas.get(s, 0) for s in range(table.seats)),
            tuple(scores),
            tuple(out),
        )

    def _weight(self, card: Card) -> tuple[int, int, int]:
        return (self.rules.cards.card_value(card), card.rank, card.sort_key)

    def highest_single(self, hand: Sequence[Card]) -> Card:
        return max(hand, key=self._weight)

    def lowest_pickable(self, cards: Sequence[Card]) -> Card:
        return min(cards, key=self._weight)

    def game_over(self, table: Table) -> bool:
        return game_end.game_over_after_round(table.round, table.scores, table.active, self.rules)

    def game_result(self, table: Table) -> dict[str, Any]:
        return game_end.game_result(
            table.scores, table.active, table.out_in_round, table.last_round, self.rules
        )


class Game(Table):
    """One table: seats, scores across hands, and the hand in progress.

    Open a table from a shipped profile, deal from an explicit order (every card of the
    table's deck, the first dealt first), act and read the state:

    >>> import yaml
    >>> from reference_engine import PickOffer, ThrowCards, parse_card, parse_cards
    >>> from reference_engine.shipped import data_dir
    >>> profile = yaml.safe_load((data_dir("specs") / "dhumbal.yaml").read_text())
    >>> game = Game(profile, seats=2)
    >>> events = game.deal(game.full_deck)  # unshuffled: one card at a time from seat 0
    >>> events[1]["hands"], events[1]["turned_up"]
    ([['Ac', 'Ah', '2c', '2h', '3c'], ['Ad', 'As', '2d', '2s', '3d']], '3h')
    >>> game.act(0, ThrowCards(tuple(parse_cards(["Ac", "2c", "3c"]))))
    [{'type': 'thrown', 'seat': 0, 'cards': ['Ac', '2c', '3c'], 'kind': 'run'}]
    >>> game.act(0, PickOffer(parse_card("3h")))
    [{'type': 'picked', 'seat': 0, 'from': 'offer', 'card': '3h'}]
    >>> state = game.state()
    >>> state["to_act"], state["hands"][0], state["offer"], state["hand_values"]
    (1, ['Ah', '2h', '3h'], ['Ac', '2c', '3c'], [6, 9])
    """

    def __init__(
        self,
        profile_document: Mapping[str, Any],
        seats: int,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        # The order of checks for start (docs/protocol.md): the profile itself, then the
        # option names, then their values, then the seat count.
        Rules.from_profile(profile_document)
        self.document = profile_document
        profile = resolve(profile_document, options)
        self.rules = Rules.from_profile(profile)
        # The table procedure's parameters are read as the kit reads them (one reading,
        # TableRules.read); the card play reads the typed Rules.
        table = TableRules.read(profile["rules"])
        super().__init__(profile, table, ReferencePlay(self.rules), seats)

    @atomic
    def set_option(self, name: str, value: Any) -> list[Event]:
        """Change a host option between hands; it applies from the next hand."""
        specs = option_specs(self.document)
        if name not in specs:
            raise OptionError(
                f"unknown option {name!r}; this profile's options: {', '.join(specs) or 'none'}",
                ErrorCode.UNKNOWN_OPTION,
            )
        if self.phase not in BETWEEN_HANDS:
            raise RuleViolation("options change only between hands", ErrorCode.WRONG_PHASE)
        changes = specs[name].changes
        if changes is OptionChanges.AT_START_ONLY:
            raise OptionError(
                f"option {name} is locked once the table is open", ErrorCode.OPTION_LOCKED
            )
        if changes is OptionChanges.BEFORE_FIRST_DEAL and self.round > 0:
            raise OptionError(
                f"option {name} is locked once the first hand is dealt", ErrorCode.OPTION_LOCKED
            )
        values = dict(self.profile["option_values"])
        values[name] = value
        profile = resolve(self.document, values)
        self.rules = Rules.from_profile(profile)
        self.configure(profile, TableRules.read(profile["rules"]), ReferencePlay(self.rules))
        return [{"type": "option_changed", "name": name, "value": profile["option_values"][name]}]

    @atomic
    def act(self, seat: int, action: Action) -> list[Event]:
        if isinstance(action, SlapDown):
            # The seat that has just drawn slaps down before the next seat acts: not its turn.
            return self._slapdown(seat, action.card)
        self.check_turn(seat)
        match action:
            case Call():
                return self._call(seat)
            case ThrowCards(cards):
                return self._throw(seat, cards)
            case PickDeck():
                self._require_phase(Phase.PICK, "pick")
                return self._pick(seat, None)
            case PickOffer(card):
                self._require_phase(Phase.PICK, "pick")
                self._check_offer_pick(seat, card)
                return self._pick(seat, card)
            case Timeout():
                return self._timeout(seat)
        raise JhyapError(f"unknown action {action!r}", ErrorCode.BAD_REQUEST)
