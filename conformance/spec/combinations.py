"""Rule parameters that are each valid but make no sense together.

Each check names both parameters in one line, at the path of the second; the schema's
description of each says so too. The checks and their messages are the registry's
(:data:`reference_engine.parameters.CONSTRAINTS`), which the engine's ``Rules`` reads too:
a contradiction it cannot play it refuses in the same words. Called from
:func:`conformance.spec.profiles._rule_problems` on rules that passed the schema.
"""

from __future__ import annotations

from collections.abc import Mapping

from reference_engine.parameters import broken_constraints

from .json_types import Json

DataPath = tuple[str | int, ...]


def rule_problems(rules: Mapping[str, Json]) -> list[tuple[DataPath, str]]:
    """(path, message) for every pair of rule parameters that contradict each other."""
    return [
        (("rules", *constraint.at.split(".")), constraint.message)
        for constraint in broken_constraints(rules)
    ]
