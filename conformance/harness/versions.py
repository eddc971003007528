"""What each protocol minor version added, and the warning for an engine written for an
older one (docs/versions.md).

An engine answers ``hello`` with the protocol version it was written for. Another major
version is refused (:meth:`.EngineClient.handshake`, exit 2); an older minor only warns,
naming what the engine may miss, since a minor version adds optional fields alone.
"""

from __future__ import annotations

from typing import Final

from jhyap_core.vocabulary import PROTOCOL_VERSION

# For each minor version of major 1, what it added that an engine written for the one
# before may not know. Kept in step with docs/versions.md and CHANGELOG.md.
ADDED_IN: Final[dict[int, tuple[str, ...]]] = {
    1: (
        "the deal's layout (deal.hands, deal.turned_up, deal.stock)",
        "hello.supports.state_fields",
        "hello.supports.kit_kept_fields",
        "option ranges with max null and options whose sets is a list",
        "unsupported_profile for a rule parameter it does not know",
        "bad_request for an array or object option value",
        "seq outside 0 to 2^53 - 1 answered with seq null",
        "the order of start's checks and of legal throws",
    ),
    2: ("hello.supports.requests_ahead (requests that change the game sent ahead)",),
}
VERSIONS_DOC: Final = "docs/versions.md"


def parse_version(text: object) -> tuple[int, int] | None:
    """``(major, minor)`` of a ``MAJOR.MINOR`` string, or None."""
    if not isinstance(text, str):
        return None
    major, dot, minor = text.partition(".")
    if not (dot and major.isdigit() and minor.isdigit() and major.isascii() and minor.isascii()):
        return None
    return int(major), int(minor)


def missed_since(engine: tuple[int, int], harness: tuple[int, int]) -> list[str]:
    """What the minor versions after the engine's, up to the harness's, added."""
    if engine[0] != harness[0]:
        return []
    return [item for minor in range(engine[1] + 1, harness[1] + 1) for item in ADDED_IN[minor]]


def version_warning(engine_protocol: object, harness: str = PROTOCOL_VERSION) -> str | None:
    """One line when the engine was written for an older minor version than ``harness``."""
    found, ours = parse_version(engine_protocol), parse_version(harness)
    if found is None or ours is None or found[0] != ours[0] or found[1] >= ours[1]:
        return None
    missed = missed_since(found, ours)
    return (
        f"the engine was written for protocol {engine_protocol}, the harness speaks {harness}: "
        f"it may miss {'; '.join(missed)} (see {VERSIONS_DOC})"
    )


__all__ = ["ADDED_IN", "VERSIONS_DOC", "missed_since", "parse_version", "version_warning"]
