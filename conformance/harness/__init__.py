"""Driving engines: the protocol client, replay, comparison, the runner, smoke checks, recording."""

# The public API: the modules, each imported by name (an import of the package alone
# imports none of them, so that starting one command stays quick).
__all__ = [
    "ahead",
    "cases",
    "client",
    "compare",
    "credit",
    "derive",
    "inprocess",
    "known_failures",
    "outcome",
    "processes",
    "record",
    "replay",
    "response_schemas",
    "responses",
    "runner",
    "sandbox",
    "settings",
    "smoke",
    "smoke_plan",
    "smoke_points",
    "state_fields",
    "transport",
    "versions",
]
