"""The Jhyap reference engine: plays any valid profile, deterministically."""

from jhyap_core.cards import DECK, Card, Suit, parse_card, parse_cards
from jhyap_core.vocabulary import (
    ErrorCode,
    JhyapError,
    OptionError,
    Phase,
    ProfileError,
    RuleViolation,
)

from .actions import Action, Call, PickDeck, PickOffer, SlapDown, ThrowCards, Timeout
from .game import Game, LegalActions
from .rules import Rules

__all__ = [
    "DECK",
    "Action",
    "Call",
    "Card",
    "ErrorCode",
    "Game",
    "JhyapError",
    "LegalActions",
    "OptionError",
    "Phase",
    "PickDeck",
    "PickOffer",
    "ProfileError",
    "RuleViolation",
    "Rules",
    "SlapDown",
    "Suit",
    "ThrowCards",
    "Timeout",
    "parse_card",
    "parse_cards",
]
