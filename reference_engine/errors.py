"""Rule violations and other refusals, each with a stable protocol error code."""

from __future__ import annotations

from enum import StrEnum


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
    TIMER_OFF = "timer_off"
    GAME_NOT_ENDABLE = "game_not_endable"
    INTERNAL_ERROR = "internal_error"


class JhyapError(Exception):
    """A refused request: the state is exactly as it was before it."""

    code: ErrorCode = ErrorCode.BAD_REQUEST

    def __init__(self, message: str, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message


class ProfileError(JhyapError):
    """A profile or option set the engine cannot play."""

    code = ErrorCode.INVALID_PROFILE


class OptionError(JhyapError):
    """An option name or value that the profile does not allow."""

    code = ErrorCode.INVALID_OPTION_VALUE


class RuleViolation(JhyapError):
    """An action the rules refuse."""

    code = ErrorCode.WRONG_PHASE
