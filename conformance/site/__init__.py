"""The documentation site, generated from the profiles and the corpus."""
