"""The engine against tests/model on drawn profiles and games (issue 21).

Examples per test come from JHYAP_RULE_EXAMPLES (default: the CI budget); set it higher for
a long run, for example JHYAP_RULE_EXAMPLES=2000.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HPhase
from hypothesis import strategies as st

from conformance.spec import yamlsafe
from conformance.spec.profiles import check_profile_document
from reference_engine import Game
from tests.checked_play import Style, play, showdown_checked
from tests.strategies import Focus, Table, tables

EXAMPLES = int(os.environ.get("JHYAP_RULE_EXAMPLES", "60"))
STYLES = st.builds(
    Style,
    call=st.sampled_from([0.05, 0.3, 0.9]),
    draw=st.sampled_from([0.3, 0.7, 1.0]),
    timeout=st.sampled_from([0.0, 0.1, 0.5]),
    option=st.sampled_from([0.0, 0.5]),
    max_rounds=st.integers(1, 4),
    short_deck=st.booleans(),
)


def rule_settings(examples: int = EXAMPLES, **more: Any) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        **more,
    )


def drawn_profiles_are_valid(table: Table) -> None:
    """What the strategies draw, jhyap validate accepts and the engine plays."""
    doc = yamlsafe.loads(json.dumps(table.profile), "drawn.json")
    assert check_profile_document(doc, require_coverage=False) == []
    Game(table.profile, table.seats, table.options)


def games_follow_the_model(table: Table, style: Style) -> None:
    game = play(table, style)
    assert (game.result is None) == (game.phase.value != "game_over")


def showdowns_follow_the_model(table: Table) -> None:
    showdown_checked(table)


CHECKS: dict[str, tuple[Callable[..., None], tuple[st.SearchStrategy[Any], ...]]] = {
    "drawn_profiles_are_valid": (drawn_profiles_are_valid, (tables(),)),
    "games_follow_the_model": (games_follow_the_model, (tables(), STYLES)),
    "showdowns_follow_the_model": (showdowns_follow_the_model, (tables(),)),
}


def run_check(name: str, examples: int = EXAMPLES, focus: Focus | None = None, **more: Any) -> None:
    """Check ``name`` on ``examples`` drawn tables, their profiles holding ``focus``'s
    parameters when given."""
    check, strategies = CHECKS[name]
    if focus is not None:
        strategies = (tables(focus=focus), *strategies[1:])
    rule_settings(examples, **more)(given(*strategies)(check))()


def test_drawn_profiles_are_valid() -> None:
    run_check("drawn_profiles_are_valid", max(10, EXAMPLES // 3))


def test_games_follow_the_model() -> None:
    run_check("games_follow_the_model")


def test_showdowns_follow_the_model() -> None:
    run_check("showdowns_follow_the_model", EXAMPLES * 3)


NO_SHRINK = (HPhase.explicit, HPhase.generate)
