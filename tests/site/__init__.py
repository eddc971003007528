"""Tests of the documentation site and the documents' examples."""
