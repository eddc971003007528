"""What each rule parameter means, as pure functions, written apart from the engine.

An independent reading of schema/profile.schema.json (its descriptions and
enumDescriptions) and docs/protocol.md: nothing here imports reference_engine.
Cards are their protocol names ("Ah", "X"); seats are integers in turn order.
The property tests (tests/engine/test_rule_model.py) compare the engine with it.
"""
