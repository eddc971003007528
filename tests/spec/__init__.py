"""Tests of the specification: profiles, schemas, the corpus, loading and the file cache."""
