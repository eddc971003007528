"""Deal orders that lean toward the edges: low cards, mirrored hands for ties, near-runs,
sets, near misses of a legal throw, and quick hands whose scores climb fast."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from jhyap_core.cards import DECK, Card
from reference_engine.game import Game

DEAL_STYLES = ("uniform", "low", "mirror", "runs", "sets", "quick", "near_misses")
# The near misses of a legal throw a "near_misses" hand holds, one a hand: a run with
# one card of another suit (the lowest, as often as any other), a run with a gap, a run
# one card longer or shorter than most rules allow, a set with one odd rank, and the
# substring trap (A A 2: its ranks read "112", found in "12345678910111213").
NEAR_MISS_SHAPES = ("other suit", "gap", "long", "short", "odd rank", "substring")
# Styles the steering asks for (see .steer): each aims one hand of values at a counter.
TARGETED_STYLES = ("tie", "tiebreak", "edge", "even")


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
            fill(hand, [c for c in low if c not in taken][: rng.randint(min(2, size), size)])
    elif style == "mirror":
        # Hands of one equal value: ties with the caller and several equal lowest hands.
        # Above the lowest possible hand (one point a card), even for hands of 15 or more.
        target = rng.randint(size + 1, max(size + 1, 15))
        # The pool's cards by value, in the pool's order: each try looks a value's up.
        by_value: dict[int, list[Card]] = {}
        for card in pool:
            by_value.setdefault(card_value(card), []).append(card)
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
                    # The first card of the pool that fits, if any: no need to list them all.
                    first = next(
                        (c for c in by_value.get(value, ()) if c not in wanted and c not in taken),
                        None,
                    )
                    if first is not None:
                        wanted.append(first)
                if len(wanted) == size:
                    fill(hand, wanted)
                    break
    elif style == "runs":
        # From the table's own cards: a deck may leave ranks out (deck.ranks_left_out),
        # and a run across a missing rank is a near-run, still worth dealing.
        by_rank: dict[int, list[Card]] = {}
        for card in pool:
            by_rank.setdefault(card.rank, []).append(card)
        for hand in hands:
            suit = rng.choice("cdhs")
            start = rng.choice((1, 11, 12, 12, 13, rng.randint(1, 11)))
            length = 15 - start if start >= 11 and rng.random() < 0.7 else rng.randint(2, 4)
            wrap = [(start + k - 1) % 13 + 1 for k in range(length)]
            mixed = rng.random() < 0.4
            if mixed:
                wanted = [rng.choice(by_rank[r]) for r in wrap if r in by_rank]
            else:
                wanted = [c for r in wrap for c in DECK if c.rank == r and c.suit == suit]
                wanted = [c for c in wanted if c.rank in by_rank]
            fill(hand, wanted)
    elif style == "quick":
        # The starter can call at once and the others hold a lot: hands end fast and
        # scores climb, so that eliminations and game ends come within a few steps.
        fill(hands[0], sorted(pool, key=card_value)[: rng.randint(size, size + 3)])
        rng.shuffle(hands[0])
        for hand in hands[1:]:
            fill(hand, [c for c in pool if card_value(c) >= rng.randint(1, 13)])
    elif style == "near_misses":
        for hand in hands:
            fill(hand, _near_miss_cards(rng, rng.choice(NEAR_MISS_SHAPES)))
    elif style == "sets":
        for hand in hands:
            # A rank the table has (a choice among 13 draws as randint(1, 13) did).
            rank = rng.choice([r for r in range(1, 14) if any(c.rank == r for c in pool)])
            fill(hand, [c for c in pool if c.rank == rank][: rng.randint(2, 4)])
    for hand in hands:
        fill(hand, pool)
    return hands


def _near_miss_cards(rng: random.Random, shape: str) -> list[Card]:
    """Cards making one near miss of a legal throw (see NEAR_MISS_SHAPES), lowest first."""
    suit, other, third = rng.sample("cdhs", 3)
    low = rng.randint(1, 9)
    if shape == "substring":
        wanted = [(1, suit), (1, other), (2, suit)]
    elif shape == "odd rank":
        wanted = [(low, suit), (low, other), (low, third), (low + 1, suit)]
    elif shape == "gap":
        wanted = [(low, suit), (low + 1, suit), (low + 3, suit)]
    elif shape == "short":
        wanted = [(low, suit), (low + 1, suit)]
    elif shape == "long":
        wanted = [(low + k, suit) for k in range(rng.randint(4, 5))]
    else:
        wanted = [(low + k, suit) for k in range(rng.randint(3, 4))]
        odd = 0 if rng.random() < 0.5 else rng.randrange(len(wanted))
        wanted[odd] = (wanted[odd][0], other)
    return [c for rank, s in wanted for c in DECK if c.rank == rank and c.suit == s]


class _Taken:
    """The cards already taken from a multiset deck: a card is "in" once all its copies are."""

    def __init__(self, copies: Counter[Card]) -> None:
        self.copies = copies
        self.counts: Counter[Card] = Counter()

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and self.counts[card] >= self.copies[card]

    def add(self, card: Card) -> None:
        self.counts[card] += 1


def _valued_hands(
    rng: random.Random,
    targets: Sequence[int | None],
    size: int,
    card_value: Callable[[Card], int],
    deck: Sequence[Card],
) -> list[list[Card]]:
    """Hands of the given values (None: any), in order; a value that cannot be made is
    left to chance."""
    pool = list(deck)
    rng.shuffle(pool)
    taken = _Taken(Counter(deck))
    hands: list[list[Card]] = [[] for _ in targets]
    for hand, target in zip(hands, targets, strict=True):
        if target is None:
            continue
        by_value: dict[int, list[Card]] = {}
        for card in pool:
            by_value.setdefault(card_value(card), []).append(card)
        values = sorted(by_value)
        if not values or not values[0] * size <= target <= values[-1] * size:
            continue
        for _ in range(20):
            parts = _composition(rng, target, size, values)
            wanted: list[Card] = []
            counts: Counter[Card] = Counter()
            for value in parts:
                free = [c for c in by_value[value] if taken.counts[c] + counts[c] < taken.copies[c]]
                if not free:
                    break
                card = rng.choice(free)
                counts[card] += 1
                wanted.append(card)
            if len(wanted) == size:
                for card in wanted:
                    taken.add(card)
                hand.extend(wanted)
                break
    return _filled(hands, pool, taken, size)


def _filled(
    hands: list[list[Card]], pool: Sequence[Card], taken: _Taken, size: int
) -> list[list[Card]]:
    """``hands`` topped up to ``size`` cards each from ``pool``, in order, with cards not taken."""
    for hand in hands:
        for card in pool:
            if len(hand) >= size:
                break
            if card not in taken:
                taken.add(card)
                hand.append(card)
    return hands


def _composition(rng: random.Random, target: int, size: int, values: Sequence[int]) -> list[int]:
    """``size`` card values from ``values`` (sorted) that sum to ``target`` (which the
    caller checked is reachable): the lowest each, raised one at a time at random."""
    parts = [0] * size  # indices into values
    total = values[0] * size
    while total < target:
        rising = [i for i in range(size) if parts[i] + 1 < len(values)]
        i = rng.choice(rising)
        step = values[parts[i] + 1] - values[parts[i]]
        if total + step > target:
            smaller = [
                j for j in rising if values[parts[j] + 1] - values[parts[j]] <= target - total
            ]
            if not smaller:
                break
            i = rng.choice(smaller)
            step = values[parts[i] + 1] - values[parts[i]]
        parts[i] += 1
        total += step
    return [values[p] for p in parts]


def lowest_hand(game: Game) -> int:
    """The lowest value a hand can have at this table: its ``hand_size`` cheapest cards."""
    values = sorted(game.rules.cards.card_value(c) for c in game.full_deck)
    return sum(values[: game.rules.deal.hand_size])


def tiebreak_positions(seats: Sequence[int]) -> tuple[int, int]:
    """Two positions after the caller's (``seats[0]``) in turn order whose seats the turn
    order and the seat numbers rank apart (the first has the higher number), so that a
    tie between them tests the tie-break; the next two where none do (the caller is seat
    0 and play goes up: the round's winner starts the next hand, where they do)."""
    for i in range(1, len(seats)):
        for j in range(i + 1, len(seats)):
            if seats[i] > seats[j]:
                return i, j
    return 1 % len(seats), 2 % len(seats)


def targets_for(game: Game, style: str, rng: random.Random) -> list[int | None]:
    """Hand values, in turn order from the starter, that aim at a counter: ``tie`` (the
    starter can call and one other holds as much), ``tiebreak`` (two others whose order
    tests the tie-break hold the same lower value), ``edge`` (the starter can call at once
    and each other's total lands exactly on the threshold or a score cut), ``even`` (the
    starter can call and every other holds one value above the limit: a won call each
    hand, and totals that tie when the winners take turns)."""
    rules = game.rules
    seats = game.turn_order_from(game.starter)
    low = lowest_hand(game)
    limit = rules.calling.limit - (0 if rules.calling.inclusive else 1)
    call = rng.randint(min(low + 1, limit), max(low + 1, limit)) if limit >= low else low
    targets: list[int | None] = [None] * len(seats)
    if style == "tie":
        targets[0] = targets[1 % len(seats)] = call
    elif style == "tiebreak":
        # Lower than the call, or as much (where a tie with the caller beats the call,
        # the others tied with it are broken among; and it is all a low limit allows).
        lower = rng.choice((call, rng.randint(low, max(low, call - 1))))
        targets[0] = max(call, lower)
        first, second = tiebreak_positions(seats)
        targets[first] = targets[second] = lower
    elif style == "even":
        targets[0] = min(call, limit) if limit >= low else low
        for k in range(1, len(seats)):
            targets[k] = max(limit, low) + 3
    elif style == "edge":
        goals = [c.at for c in rules.scoring.cuts]
        if rules.game_end.out_above is not None:
            goals.append(rules.game_end.out_above)
        if rules.scoring.halve_at_multiples_of:
            goals.append(rules.scoring.halve_at_multiples_of)
        targets[0] = low
        # A gap too wide for one hand is closed by the highest hand that is easy to make.
        high = rules.deal.hand_size * (rules.cards.highest_value - 1)
        for k, seat in enumerate(seats[1:], start=1):
            if goals:
                gap = rng.choice(goals) - game.scores[seat]
                targets[k] = min(gap, high) if gap > low else None
    return targets


def _shrinking_hands(
    rng: random.Random,
    aimed: Sequence[bool],
    size: int,
    card_value: Callable[[Card], int],
    game: Game,
) -> list[list[Card]]:
    """Hands for a table where no hand of ``size`` cards can be called: each aimed seat
    holds a pair of high cards to throw at once and the lowest cards left, so that with
    a low card picked after the pair its hand can be called (or tie) within a turn."""
    pool = list(game.full_deck)
    rng.shuffle(pool)
    taken = _Taken(Counter(game.full_deck))
    by_rank: dict[int, list[Card]] = {}
    for card in pool:
        by_rank.setdefault(card.rank, []).append(card)
    high = sorted(by_rank, key=lambda r: (-card_value(by_rank[r][0]), r))
    hands: list[list[Card]] = [[] for _ in aimed]
    pairs = iter(r for r in high if len(by_rank[r]) >= 2)
    for hand, wanted in zip(hands, aimed, strict=True):
        rank = next(pairs, None) if wanted else None
        if rank is None:
            continue
        for card in by_rank[rank][:2]:
            taken.add(card)
            hand.append(card)
    cheapest = sorted(pool, key=card_value)
    for hand, wanted in zip(hands, aimed, strict=True):
        for card in cheapest if wanted else ():
            if len(hand) >= size:
                break
            if card not in taken and sum(c == card for c in hand) < taken.copies[card]:
                taken.add(card)
                hand.append(card)
    return _filled(hands, pool, taken, size)


def deal_order(game: Game, rng: random.Random, style: str = "") -> list[Card]:
    """An order of the table's cards in ``style`` (a random one when empty), dealt from
    the starter."""
    return aimed_deal(game, rng, style)[0]


def aimed_deal(
    game: Game, rng: random.Random, style: str = ""
) -> tuple[list[Card], dict[int, int | None]]:
    """:func:`deal_order`, and for a targeted style the hand value it aims each seat at."""
    seats = game.turn_order_from(game.starter)
    size = game.rules.deal.hand_size
    # Equal hands twice as often: ties are what engines most often get wrong.
    style = style or rng.choice((*DEAL_STYLES, "mirror"))
    if style == "uniform":
        order = list(game.full_deck)
        rng.shuffle(order)
        return order, {}

    def value(card: Card) -> int:
        return game.rules.cards.card_value(card)

    aimed: dict[int, int | None] = {}
    rules = game.rules
    callable_at_deal = rules.calling.limit - (0 if rules.calling.inclusive else 1) >= lowest_hand(
        game
    )
    if style in TARGETED_STYLES:
        targets = targets_for(game, style, rng)
        aimed = dict(zip(seats, targets, strict=True))
        if callable_at_deal or size < 3:
            hands = _valued_hands(rng, targets, size, value, game.full_deck)
        else:
            hands = _shrinking_hands(rng, [t is not None for t in targets], size, value, game)
    else:
        hands = _deal_hands(rng, style, len(seats), size, value, game.full_deck)
    used = Counter(c for h in hands for c in h)
    rest = []
    for card in game.full_deck:
        if used[card]:
            used[card] -= 1
        else:
            rest.append(card)
    rng.shuffle(rest)
    if aimed and not callable_at_deal:
        rest.sort(key=value)  # the low cards turned up and drawn first
    elif rng.random() < (0.6 if aimed else 0.3):
        # Low cards turned up and drawn first: aimed hands can get lower.
        rest.sort(key=lambda c: c.rank if rng.random() < 0.7 else 13)
    for hand in hands:
        rng.shuffle(hand)
    dealt = [hands[i % len(seats)][i // len(seats)] for i in range(size * len(seats))]
    return dealt + rest, aimed
