"""The protocol's vocabulary and the table procedure."""
