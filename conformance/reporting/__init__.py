"""What a run prints and writes: console summaries, JSON and JUnit reports."""
