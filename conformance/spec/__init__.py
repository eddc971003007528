"""Loading what the suite checks against: profiles, transcripts, and the strict YAML loader."""

# The public API: the modules, each imported by name (an import of the package alone
# imports none of them, so that starting one command stays quick).
__all__ = [
    "combinations",
    "data",
    "deal_layout",
    "decks",
    "declared",
    "filecache",
    "files",
    "json_types",
    "memo",
    "profile_options",
    "profile_schema",
    "profiles",
    "protocol",
    "readings",
    "schema_check",
    "steps",
    "strictjson",
    "transcript",
    "transcript_checks",
    "transcript_profiles",
    "wider",
    "wording",
    "yamlsafe",
]
