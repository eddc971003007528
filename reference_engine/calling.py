"""When a player may call Jhyap."""

from __future__ import annotations

from jhyap_core.vocabulary import ErrorCode

from .rules import FirstRoundCall, Rules


def call_refusal(
    hand_value: int, turns_taken: int, players: int, rules: Rules, seats: int | None = None
) -> ErrorCode | None:
    """Why a call at the start of a turn is refused, or None when it is allowed.

    ``turns_taken`` counts the turns completed in this hand; a profile that
    locks the first round lets nobody call until every player has had one. ``seats``, the
    table's seat count, picks the limit where call.limit_by_seats steps it.
    """
    limit = rules.calling.limit if seats is None else rules.calling.limit_for(seats)
    if (
        rules.calling.first_round is FirstRoundCall.AFTER_EVERY_PLAYER_HAD_A_TURN
        and turns_taken < players
    ):
        return ErrorCode.CALL_TOO_EARLY
    if own_turns(turns_taken, players) < rules.calling.min_own_turns:
        return ErrorCode.CALL_TOO_EARLY
    within = hand_value <= limit if rules.calling.inclusive else hand_value < limit
    return None if within else ErrorCode.CALL_OVER_LIMIT


def own_turns(turns_taken: int, players: int) -> int:
    """The turns the seat to act has completed in this hand (call.min_own_turns).

    Turns pass round the players still in, in a fixed order from the starter, so the
    seat to act has had one turn for every full lap of ``turns_taken``.
    """
    return turns_taken // players
