"""Conformance suite for Jhyap (Dhumbal): profile checking, transcripts and the ``jhyap`` CLI."""
