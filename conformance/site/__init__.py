"""The documentation site, generated from the profiles and the corpus."""

# The public API: the modules, each imported by name (an import of the package alone
# imports none of them, so that starting one command stays quick).
__all__ = [
    "changelog",
    "clauses",
    "cli_page",
    "common",
    "comparison",
    "corpus",
    "docsgen",
    "matrix_pages",
    "narration",
    "parameters",
    "profile_page",
    "protocol_hand",
    "schemas",
    "variants_play",
]
