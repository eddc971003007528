"""Dhumbal at the kitchen table: a small console game, two to five players.

House rules of this table: five cards each; aces 1, number cards their number, jacks 11,
queens 12, kings 13. On your turn either show (when your hand is worth the show limit or
less) or discard a single card, a set of two to four of a rank, or a run of three or more
in one suit (aces low), then draw from the deck or take any card of the previous discard.
A show is beaten by any other hand worth as little or less: then the shower scores his
hand plus 20, otherwise everyone else scores their hands. Over 100 points you are out; the
round's winner starts the next one. The dealer (the player before the starter) shuffles.

Run it: ``python dhumbal_game.py`` plays you against two bots. (This file knows nothing of
any test suite; ``bind.py`` next to it binds it to one.)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

SUITS = ("clubs", "diamonds", "hearts", "spades")
FACES = {1: "A", 11: "J", 12: "Q", 13: "K"}
SYMBOLS = {"clubs": "♣", "diamonds": "♦", "hearts": "♥", "spades": "♠"}
HAND_SIZE = 5
FAILED_SHOW_PENALTY = 20
OUT_ABOVE = 100


@dataclass(frozen=True)
class Card:
    rank: int  # 1 (ace) to 13 (king)
    suit: str

    @property
    def points(self) -> int:
        return self.rank

    def __str__(self) -> str:
        return f"{FACES.get(self.rank, str(self.rank))}{SYMBOLS[self.suit]}"


def new_deck() -> list[Card]:
    return [Card(rank, suit) for suit in SUITS for rank in range(1, 14)]


def hand_points(cards: list[Card]) -> int:
    return sum(card.points for card in cards)


def discard_kind(cards: list[Card]) -> str | None:
    """'single', 'set' or 'run' for a legal discard, else None."""
    if len(cards) == 1:
        return "single"
    if 2 <= len(cards) <= 4 and len({c.rank for c in cards}) == 1:
        return "set"
    ranks = sorted(c.rank for c in cards)
    if (
        len(cards) >= 3
        and len({c.suit for c in cards}) == 1
        and ranks == list(range(ranks[0], ranks[0] + len(cards)))
    ):
        return "run"
    return None


@dataclass
class Player:
    name: str
    hand: list[Card] = field(default_factory=list)
    score: int = 0
    out: bool = False

    def choose_turn(self, game: Game) -> tuple[str, list[Card]]:
        """('show', []) or ('discard', cards)."""
        raise NotImplementedError

    def choose_draw(self, game: Game, pile: list[Card]) -> Card | None:
        """A card of the previous discard to take, or None to draw from the deck."""
        raise NotImplementedError


class Bot(Player):
    def choose_turn(self, game: Game) -> tuple[str, list[Card]]:
        if game.can_show(self):
            return "show", []
        by_rank: dict[int, list[Card]] = {}
        for card in self.hand:
            by_rank.setdefault(card.rank, []).append(card)
        best = max(by_rank.values(), key=hand_points)
        return "discard", best[:4]

    def choose_draw(self, game: Game, pile: list[Card]) -> Card | None:
        low = min(pile, key=lambda c: c.points)
        return low if low.points <= 3 else None


class Human(Player):
    def choose_turn(self, game: Game) -> tuple[str, list[Card]]:
        print("your hand:", " ".join(f"{i}:{c}" for i, c in enumerate(self.hand)))
        answer = input("show, or the numbers of the cards to discard: ").strip()
        if answer == "show":
            return "show", []
        return "discard", [self.hand[int(i)] for i in answer.split()]

    def choose_draw(self, game: Game, pile: list[Card]) -> Card | None:
        answer = input(f"take one of {' '.join(map(str, pile))} (its number) or d: ").strip()
        return None if answer == "d" else pile[int(answer)]


@dataclass
class RoundSummary:
    shower: int
    winner: int
    points: list[int]
    scores: list[int]
    knocked_out: list[int]


class Game:
    def __init__(self, players: list[Player], show_limit: int = 10, seed: int | None = None):
        self.players = players
        self.show_limit = show_limit
        self.rng = random.Random(seed)
        self.starter = 0
        self.deck: list[Card] = []
        self.pile: list[Card] = []  # the previous player's discard
        self.dead: list[Card] = []  # discards nobody can take any more
        self.history: list[RoundSummary] = []

    def alive(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if not p.out]

    def next_alive(self, i: int) -> int:
        n = len(self.players)
        return next((i + k) % n for k in range(1, n + 1) if not self.players[(i + k) % n].out)

    def can_show(self, player: Player) -> bool:
        return hand_points(player.hand) <= self.show_limit

    def deal(self) -> None:
        deck = new_deck()
        self.rng.shuffle(deck)
        dealer = self.players[self.alive()[self.alive().index(self.starter) - 1]]
        print(f"{dealer.name} deals")
        seat = self.starter
        for _ in self.alive():  # five cards at a time, the starter first
            self.players[seat].hand = [deck.pop() for _ in range(HAND_SIZE)]
            seat = self.next_alive(seat)
        self.pile, self.dead, self.deck = [deck.pop()], [], deck

    def refill_deck(self) -> list[Card]:
        fresh = self.dead
        self.rng.shuffle(fresh)
        return fresh

    def play(self) -> None:
        while len(self.alive()) > 1:
            self.play_round()
        print(f"{self.players[self.alive()[0]].name} wins the game")

    def play_round(self) -> None:
        self.deal()
        seat = self.starter
        while True:
            player = self.players[seat]
            action, cards = player.choose_turn(self)
            if action == "show":
                if self.can_show(player):
                    self.showdown(seat)
                    return
                print(f"{player.name} cannot show with {hand_points(player.hand)}")
                continue
            if not cards or any(c not in player.hand for c in cards) or not discard_kind(cards):
                print(f"{player.name}: that is not a discard")
                continue
            for card in cards:
                player.hand.remove(card)
            while True:
                take = player.choose_draw(self, self.pile)
                if take is None or take in self.pile:
                    break
                print(f"{player.name}: {take} is not on the pile")
            if take is None:
                take = self.deck.pop()
            else:
                self.pile.remove(take)
            player.hand.append(take)
            print(f"{player.name} discards {' '.join(map(str, cards))} and takes {take}")
            self.dead += self.pile
            self.pile = cards
            if not self.deck:
                self.deck = self.refill_deck()
                self.dead = []
            seat = self.next_alive(seat)

    def showdown(self, shower: int) -> None:
        points = [hand_points(p.hand) if not p.out else 0 for p in self.players]
        order, seat = [], self.next_alive(shower)
        while seat != shower:
            order.append(seat)
            seat = self.next_alive(seat)
        lowest = min(points[s] for s in order)
        winner = shower
        if lowest <= points[shower]:
            winner = next(s for s in order if points[s] == lowest)
        before = [p.score for p in self.players]
        if winner == shower:
            for s in order:
                self.players[s].score += points[s]
        else:
            self.players[shower].score += points[shower] + FAILED_SHOW_PENALTY
        over = [s for s in self.alive() if self.players[s].score > OUT_ABOVE]
        if len(over) == len(self.alive()):  # everyone over together: the lowest stay in
            least = min(self.players[s].score for s in over)
            over = [s for s in over if self.players[s].score != least]
        for s in over:
            self.players[s].out = True
            print(f"{self.players[s].name} is out with {self.players[s].score}")
        scores = [p.score for p in self.players]
        self.history.append(
            RoundSummary(
                shower, winner, [a - b for a, b in zip(scores, before, strict=True)], scores, over
            )
        )
        print(f"{self.players[winner].name} wins the round")
        self.starter = winner if not self.players[winner].out else self.next_alive(winner)


if __name__ == "__main__":
    Game([Human("you"), Bot("Maya"), Bot("Bikash")]).play()
