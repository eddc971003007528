"""The JSON value type of every package (the engine, the kit, the harness): what
``json.loads`` returns and a YAML file holds once loaded. One alias; a ``dict[str, Json]``
says the value is an object."""

from __future__ import annotations

from typing import Any, TypeAlias

# Any, not a recursive union: the values are checked against the JSON Schemas and narrowed
# where they are read.
Json: TypeAlias = Any

__all__ = ["Json"]
