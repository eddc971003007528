"""Conformance suite for Jhyap (Dhumbal): profile checking, transcripts and the ``jhyap`` CLI."""

__version__ = "0.2.0"  # the package version (pyproject.toml reads it from here)

__all__ = ["__version__"]
