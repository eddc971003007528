"""Tools run from a checkout: the bundled engines' matrix data, the GitHub Action run
locally. Each is ``python -m scripts.NAME`` from the repository root."""
