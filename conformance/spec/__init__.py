"""Loading what the suite checks against: profiles, transcripts, and the strict YAML loader."""
