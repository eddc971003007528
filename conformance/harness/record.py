"""Record a seeded random game of the reference engine as a ``kind: regression`` transcript.

A recording is not an oracle: it says what the reference engine did, not what the rules
demand. It guards the engine against regressions and lets other engines compare long games
with ours, and it is labelled so everywhere (``kind: regression``, under ``regression/``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from jhyap_core.vocabulary import ActionType, Command, Phase
from reference_engine.game import Game
from reference_engine.randomplay import random_step

from ..spec import readings

# Each recording cites the clauses of these families: what a whole game exercises.
CITED_FAMILIES = ("turn", "scoring", "game-end")


def _step(request: Mapping[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    cmd = request["cmd"]
    if cmd == Command.DEAL:
        step: dict[str, Any] = {"deal": {"order": request["deck"]}}
    elif cmd == Command.RESHUFFLE:
        step = {"reshuffle": request["order"]}
    elif cmd == Command.END_GAME:
        step = {"end_game": True}
    else:
        action = request["action"]
        act: dict[str, Any] = {"seat": request["seat"]}
        if action["type"] == ActionType.CALL:
            act["call"] = True
        elif action["type"] == ActionType.THROW:
            act["throw"] = action["cards"]
        else:
            act["pick"] = action.get("card", "deck")
        step = {"act": act}
    step["expect"] = {"events": events}
    return step


def record_game(
    profile_id: str,
    document: Mapping[str, Any],
    seats: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    max_rounds: int = 4,
    call_chance: float = 0.6,
) -> dict[str, Any]:
    """The transcript data of one random game, every event and each round's scores expected."""
    rng = random.Random(seed)
    game = Game(document, seats, options)
    steps: list[dict[str, Any]] = []
    while game.phase is not Phase.GAME_OVER:
        request, events = random_step(game, rng, max_rounds, call_chance)
        steps.append(_step(request, events))
        if game.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            steps.append(
                {
                    "check": {
                        "phase": game.phase.value,
                        "scores": list(game.scores),
                        "eliminated": list(game.eliminated),
                    }
                }
            )
    clauses = [c["id"] for c in document.get("clauses") or [] if c["family"] in CITED_FAMILIES]
    return {
        "id": f"regression-{profile_id}-{seats}-seats-seed-{seed}",
        "title": f"Recorded {profile_id} game, {seats} seats, seed {seed} "
        "(regression, not an oracle)",
        "description": "Recorded from the reference engine's random play with `jhyap record`; "
        "it shows what the reference engine does, not what the rules demand. "
        f"{game.round} hands, {len(steps)} steps.",
        "kind": "regression",
        "profiles": [profile_id],
        **({"where": pins} if (pins := readings.pinned(document)) else {}),
        "options": dict(options or {}),
        "seats": seats,
        "clauses": clauses,
        "steps": steps,
    }
