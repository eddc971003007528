"""The Jhyap reference engine: plays any valid profile, deterministically."""

from .actions import Action, Call, PickDeck, PickOffer, ThrowCards, Timeout
from .cards import DECK, Card, Suit, parse_card, parse_cards
from .errors import ErrorCode, JhyapError, OptionError, ProfileError, RuleViolation
from .game import Game, LegalActions, Phase
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
    "Suit",
    "ThrowCards",
    "Timeout",
    "parse_card",
    "parse_cards",
]
