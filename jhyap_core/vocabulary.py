"""The protocol's vocabulary as types: its version, commands, phases, throw kinds, pick
sources, event names, round outcomes and error codes (docs/protocol.md, schema/protocol/).

Every engine side (the reference engine, the kit, the harness) names these values from
here; the JSON schemas under ``schema/protocol/`` list the same strings (tests/test_core_*
check that they agree).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

PROTOCOL_VERSION: Final = "1.2"


class Command(StrEnum):
    """A request's ``cmd``."""

    HELLO = "hello"
    START = "start"
    DEAL = "deal"
    ACT = "act"
    RESHUFFLE = "reshuffle"
    SET_OPTION = "set_option"
    END_GAME = "end_game"
    STATE = "state"
    LEGAL = "legal"
    STOP = "stop"


# The requests that only read a game (its state, its legal actions): they change nothing, so
# a server may answer them from what it read last, and a harness may send them ahead. A tuple:
# a request's cmd may be any JSON value, a list or an object too, which a set cannot look up.
READ_ONLY: Final = (Command.STATE, Command.LEGAL)


class ActionType(StrEnum):
    """An ``act`` request's ``action.type``."""

    CALL = "call"
    THROW = "throw"
    PICK = "pick"
    TIMEOUT = "timeout"
    # throws.slapdown: the seat that has just drawn throws the drawn card after its single,
    # before the next seat acts (optional: only an engine that plays the rule serves it).
    SLAPDOWN = "slapdown"


class Phase(StrEnum):
    """A table's phase, as ``state`` reports it."""

    AWAITING_DEAL = "awaiting_deal"
    CALL_OR_THROW = "call_or_throw"
    PICK = "pick"
    AWAITING_RESHUFFLE = "awaiting_reshuffle"
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


BETWEEN_HANDS: Final = (Phase.AWAITING_DEAL, Phase.ROUND_OVER)
IN_TURN: Final = (Phase.CALL_OR_THROW, Phase.PICK)


class ThrowKind(StrEnum):
    """What a legal throw is."""

    SINGLE = "single"
    SET = "set"
    RUN = "run"


class PickSource(StrEnum):
    """Where a pick takes its card from."""

    DECK = "deck"
    OFFER = "offer"


class EventType(StrEnum):
    """An event's ``type``."""

    ROUND_STARTED = "round_started"
    DEALT = "dealt"
    THROWN = "thrown"
    PICKED = "picked"
    OUT_OF_PLAY = "out_of_play"
    UNDER_DECK = "under_deck"
    RESHUFFLE_NEEDED = "reshuffle_needed"
    RESHUFFLED = "reshuffled"
    CALLED = "called"
    ROUND_ENDED = "round_ended"
    GAME_ENDED = "game_ended"
    TIMED_OUT = "timed_out"
    SLAPPED_DOWN = "slapped_down"
    OPTION_CHANGED = "option_changed"


class StateField(StrEnum):
    """A field of ``state``, in the order docs/protocol.md lists them."""

    PHASE = "phase"
    ROUND = "round"
    SEATS = "seats"
    ACTIVE = "active"
    ELIMINATED = "eliminated"
    DEALER = "dealer"
    STARTER = "starter"
    TO_ACT = "to_act"
    HANDS = "hands"
    HAND_VALUES = "hand_values"
    OFFER = "offer"
    OFFER_KIND = "offer_kind"
    PICKABLE = "pickable"
    THROWN = "thrown"
    MULTI_THROWERS = "multi_throwers"
    DECK = "deck"
    DECK_SIZE = "deck_size"
    OUT_OF_PLAY = "out_of_play"
    TURNS_TAKEN = "turns_taken"
    SCORES = "scores"
    OPTIONS = "options"
    LAST_ROUND = "last_round"
    RESULT = "result"


class RoundOutcome(StrEnum):
    """How a hand ended (``round_ended.outcome``)."""

    WON_CALL = "won_call"
    BEATEN_CALL = "beaten_call"
    DECK_RAN_OUT = "deck_ran_out"


class ErrorCode(StrEnum):
    """Every error code an engine may answer with; see docs/protocol.md."""

    BAD_REQUEST = "bad_request"
    UNKNOWN_COMMAND = "unknown_command"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    UNSUPPORTED_PROFILE = "unsupported_profile"
    UNSUPPORTED_OPTION = "unsupported_option"
    UNSUPPORTED_COMMAND = "unsupported_command"
    INVALID_PROFILE = "invalid_profile"
    INVALID_SEATS = "invalid_seats"
    UNKNOWN_OPTION = "unknown_option"
    INVALID_OPTION_VALUE = "invalid_option_value"
    OPTION_LOCKED = "option_locked"
    WRONG_PHASE = "wrong_phase"
    NOT_YOUR_TURN = "not_your_turn"
    INVALID_SEAT = "invalid_seat"
    INVALID_CARD = "invalid_card"
    INVALID_DECK = "invalid_deck"
    INVALID_RESHUFFLE = "invalid_reshuffle"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    ILLEGAL_THROW = "illegal_throw"
    CALL_OVER_LIMIT = "call_over_limit"
    CALL_TOO_EARLY = "call_too_early"
    CARD_NOT_ON_OFFER = "card_not_on_offer"
    PICK_NOT_ALLOWED = "pick_not_allowed"
    SLAPDOWN_NOT_ALLOWED = "slapdown_not_allowed"
    TIMER_OFF = "timer_off"
    GAME_NOT_ENDABLE = "game_not_endable"
    INTERNAL_ERROR = "internal_error"


class JhyapError(Exception):
    """A refused request, with its protocol error code: the state is exactly as it was
    before it. Every refusal on the engine side is one."""

    code: ErrorCode = ErrorCode.BAD_REQUEST

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message


# The commands and action types every engine serves, in the protocol's order (``hello``).
COMMANDS: Final = tuple(command.value for command in Command)
ACTIONS: Final = tuple(action.value for action in ActionType)
STATE_FIELDS: Final = tuple(name.value for name in StateField)


class ProfileError(JhyapError):
    """A profile or option set the engine cannot play."""

    code = ErrorCode.INVALID_PROFILE


class OptionError(JhyapError):
    """An option name or value that the profile does not allow."""

    code = ErrorCode.INVALID_OPTION_VALUE


class RuleViolation(JhyapError):
    """An action the rules refuse."""

    code = ErrorCode.WRONG_PHASE
