"""What a run prints and writes: console summaries, JSON and JUnit reports."""

# The public API: the modules, each imported by name (an import of the package alone
# imports none of them, so that starting one command stays quick).
__all__ = [
    "coverage",
    "export",
    "json_junit",
    "matrix",
    "modes",
    "outputs",
    "report",
    "style",
    "terminal",
    "unchecked",
]
