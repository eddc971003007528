"""Where the shipped data lives, from a source checkout or from an installed wheel.

A wheel force-includes ``specs/`` and ``schema/`` as ``conformance/_data/specs`` and
``conformance/_data/schema``; a checkout has them beside the packages. The engine reads
the profile schema (its rule parameters, :mod:`reference_engine.parameters`), so the
search lives here, below ``conformance``, which finds its data the same way.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout, or site-packages


class DataNotFound(FileNotFoundError):
    """A shipped data directory is missing from both the wheel and the checkout."""


def data_dir(name: str) -> Path:
    """The shipped data directory ``name`` (``specs``, ``schema``): the wheel's, else the
    checkout's."""
    installed = ROOT / "conformance" / "_data" / name
    if installed.is_dir():
        return installed
    checkout = ROOT / name
    if checkout.is_dir():
        return checkout
    raise DataNotFound(f"data directory {name!r} not found in {installed} or {checkout}")


def schema_dir() -> Path:
    """The directory of the shipped JSON Schemas."""
    return data_dir("schema")
