"""jhyap_core: what every engine side of the Jhyap protocol shares, on the standard library
alone.

- :mod:`jhyap_core.vocabulary`: the protocol's version, commands, phases, throw kinds, pick
  sources, event names, round outcomes, error codes and the refusal (``JhyapError``).
- :mod:`jhyap_core.cards`: card names, parsing, the canonical order, a table's full deck.
- :mod:`jhyap_core.messages`: the typed messages of an engine side (actions, a deal's
  layout, a dealt hand, a round's scores, a refusal, ``hello``'s engine info).
- :mod:`jhyap_core.profile`: a profile's options and their resolution into ``rules``.
- :mod:`jhyap_core.serving`: the JSON-lines serving (bounded lines and JSON, ``seq``,
  sessions) over any backend; :mod:`jhyap_core.bounded_json`, :mod:`jhyap_core.text`.
- :mod:`jhyap_core.json_types`: ``Json``, the one alias of a JSON value in every package.

The reference engine (``reference_engine``) and the adapter kit (``jhyap_kit``) are both
built on it, and neither imports the other.
"""

# The public API: the modules, each imported by name.
__all__ = [
    "bounded_json",
    "cards",
    "json_types",
    "messages",
    "profile",
    "serving",
    "table",
    "text",
    "vocabulary",
]
