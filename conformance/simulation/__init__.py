"""How the variants play: seeded simulations of whole games under chosen policies."""

# The public API: the modules, each imported by name (an import of the package alone
# imports none of them, so that starting one command stays quick).
__all__ = [
    "measure",
    "play",
    "report",
    "stats",
    "study",
]
