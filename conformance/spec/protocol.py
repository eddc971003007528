"""The protocol clauses: the rules of docs/protocol.md an engine can break, by stable ID.

They live in ``specs/protocol/clauses.yaml`` (schema ``schema/protocol-clauses.schema.json``)
and hold under every profile, so a transcript of any profile may list them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from . import data, yamlsafe
from .profiles import Problem, stringify_keys

PREFIX = "protocol."
OWNER = "protocol"  # what clause-owner maps give as the "profile" of a protocol clause
SCHEMA_FILE = "protocol-clauses.schema.json"


class ProtocolClausesError(Exception):
    """The protocol clause catalogue is invalid; ``problems`` say where."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = list(problems)


def catalogue_path() -> Path:
    return data.specs_dir() / "protocol" / "clauses.yaml"


def check_catalogue(path: str | Path | None = None) -> list[Problem]:
    """Every problem of the protocol clause catalogue: YAML, schema, unique IDs."""
    return _load(Path(path) if path is not None else catalogue_path())[0]


@cache
def protocol_clauses() -> tuple[Mapping[str, Any], ...]:
    """The shipped protocol clauses, in file order; ProtocolClausesError if invalid."""
    problems, clauses = _load(catalogue_path())
    if problems:
        raise ProtocolClausesError(problems)
    return clauses


def protocol_clause_ids() -> tuple[str, ...]:
    return tuple(str(c["id"]) for c in protocol_clauses())


def is_protocol_clause(clause: str) -> bool:
    return clause.startswith(PREFIX)


def _load(path: Path) -> tuple[list[Problem], tuple[Mapping[str, Any], ...]]:
    try:
        doc = yamlsafe.load(path)
    except yamlsafe.YamlProblem as exc:
        return [Problem(exc.file, exc.line, "(file)", exc.message)], ()
    value = stringify_keys(doc.data)
    schema = json.loads((data.schema_dir() / SCHEMA_FILE).read_text("utf-8"))
    # lazy: start-up speed
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    problems = [
        Problem(
            doc.file,
            doc.line(list(error.path)),
            yamlsafe.format_path(list(error.path)) or "(top)",
            error.message,
        )
        for error in sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    ]
    if problems:
        return problems, ()
    seen: set[str] = set()
    for i, clause in enumerate(value["clauses"]):
        if clause["id"] in seen:
            where: list[str | int] = ["clauses", i, "id"]
            problems.append(
                Problem(doc.file, doc.line(where), f"clauses[{i}].id", "duplicate clause id")
            )
        seen.add(clause["id"])
    return problems, tuple(value["clauses"])


__all__ = [
    "OWNER",
    "PREFIX",
    "ProtocolClausesError",
    "check_catalogue",
    "is_protocol_clause",
    "protocol_clause_ids",
    "protocol_clauses",
]
