"""Readings: the points a profile's source leaves open, and the claims they make.

A profile lists under ``readings`` each open point with its named alternative
readings (``choices``), each the parameter values it stands for: rule paths
relative to ``rules``, or ``options.<name>.changes``. The values under ``rules``
are the profile's own reading. A declared-readings file (``extends``) picks other
choices; a resolved one carries ``derived_from`` (docs/readings.md).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping

from jhyap_core.profile import OptionSpec, get_path, set_path
from reference_engine.kept import Kept
from reference_engine.parameters import registry

from . import memo
from .json_types import Json

OPTION_FIELDS = ("changes",)


def _option(document: Mapping[str, Json], param: str) -> tuple[Mapping[str, Json], str] | None:
    parts = param.split(".")
    if len(parts) != 3 or parts[0] != "options" or parts[2] not in OPTION_FIELDS:
        return None
    for option in document.get("options") or []:
        if option.get("name") == parts[1]:
            return option, parts[2]
    raise KeyError(param)


def param_value(document: Mapping[str, Json], param: str) -> Json:
    """The value of a reading parameter; KeyError when there is none."""
    found = _option(document, param)
    if found is None:
        return get_path(document["rules"], param)
    option, _ = found
    return OptionSpec.from_dict(option).changes.value


def set_param(document: dict[str, Json], param: str, value: Json) -> None:
    """Set a reading parameter in a (copied) document; KeyError when there is none."""
    found = _option(document, param)
    if found is None:
        get_path(document["rules"], param)
        set_path(document["rules"], param, value)
        return
    option, field = found
    assert isinstance(option, dict)
    option[field] = value
    option["locked_when_open"] = value != "between_hands"


def readings_of(document: Mapping[str, Json]) -> list[Mapping[str, Json]]:
    """The profile's readings (of its base, for a declared-readings profile)."""
    return list(document.get("readings") or [])


def choice_in_force(document: Mapping[str, Json], reading: Mapping[str, Json]) -> str | None:
    """The name of the reading's choice the document plays, or None if it plays none."""
    for name, params in reading["choices"].items():
        try:
            if all(param_value(document, p) == v for p, v in params.items()):
                return str(name)
        except KeyError:
            return None
    return None


def readings_in_force(document: Mapping[str, Json]) -> dict[str, str | None]:
    return {r["name"]: choice_in_force(document, r) for r in readings_of(document)}


def pinned(document: Mapping[str, Json]) -> dict[str, Json]:
    """Every reading parameter with the value the document plays: a ``where:`` that keeps a
    recorded game to the readings it was recorded under."""
    return {
        param: param_value(document, param)
        for r in readings_of(document)
        for param in next(iter(r["choices"].values()))
    }


def with_choice(document: Mapping[str, Json], reading: str, choice: str) -> dict[str, Json]:
    """A copy of ``document`` playing ``choice`` of ``reading``; KeyError names what is unknown."""
    entry = next((r for r in readings_of(document) if r["name"] == reading), None)
    if entry is None:
        raise KeyError(f"no reading {reading!r}")
    if choice not in entry["choices"]:
        raise KeyError(f"reading {reading} has no choice {choice!r}")
    result = copy.deepcopy(dict(document))
    for param, value in entry["choices"][choice].items():
        set_param(result, param, value)
    return result


def alternatives(document: Mapping[str, Json]) -> list[tuple[str, str]]:
    """Every (reading, choice) the document does not play itself."""
    in_force = readings_in_force(document)
    return [
        (r["name"], str(c))
        for r in readings_of(document)
        for c in r["choices"]
        if c != in_force[r["name"]]
    ]


def declared(document: Mapping[str, Json], reading: str, choice: str) -> dict[str, Json]:
    """The resolved declared-readings profile of one alternative, as ``extends`` would make it."""
    result = with_choice(document, reading, choice)
    result["id"] = f"{document['id']}-{reading}-{choice}".replace("_", "-")
    result["derived_from"] = {
        "profile": document["id"],
        "readings": {reading: choice},
        "variant": [],
    }
    return result


@memo.by_identity()
def with_alternatives(documents: Mapping[str, Mapping[str, Json]]) -> dict[str, Mapping[str, Json]]:
    """``documents`` plus, for each profile that is not itself derived, one declared-readings
    profile per alternative reading (ids ``<profile>-<reading>-<choice>``).

    Remembered for the last few mappings given (the corpus checks every transcript against
    the same one); the result must not be changed.
    """
    result = dict(documents)
    for document in documents.values():
        if document.get("derived_from"):
            continue
        for alt in _declared_alternatives(document):
            result.setdefault(alt["id"], alt)
    return result


# The declared-readings profiles of each profile, by the id of the document, with a copy of
# the document they were made from: each mapping of profiles a run gives (the shipped ones
# and a variant) holds the same shipped documents, and their alternatives, each a deep copy,
# were most of the cost of this function. Reused only for the same document, still equal to
# the copy (a comparison in C). Shared, like the mapping made of them: not to be changed.
_ALTERNATIVES: Kept[tuple[Mapping[str, Json], dict[str, Json], tuple[dict[str, Json], ...]]]
_ALTERNATIVES = Kept(64)


def _declared_alternatives(document: Mapping[str, Json]) -> tuple[dict[str, Json], ...]:
    hit = _ALTERNATIVES.get(id(document))
    if hit is not None and hit[0] is document and hit[1] == document:
        return hit[2]
    made = tuple(declared(document, reading, choice) for reading, choice in alternatives(document))
    _ALTERNATIVES.put(id(document), (document, copy.deepcopy(dict(document)), made))
    return made


def base_id(document: Mapping[str, Json]) -> str:
    """The profile a declared-readings profile extends; its own id otherwise."""
    derived = document.get("derived_from")
    return str(derived["profile"] if derived else document["id"])


def claim(document: Mapping[str, Json]) -> dict[str, Json]:
    """What a run under this profile checks: the base, the declared readings, any variant."""
    derived = document.get("derived_from") or {}
    declared_names = derived.get("readings") or {}
    entries = {r["name"]: r for r in readings_of(document)}
    readings = [
        {
            "reading": name,
            "choice": choice,
            "clauses": list(entries[name]["clauses"]) if name in entries else [],
        }
        for name, choice in declared_names.items()
    ]
    found = {
        "profile": document["id"],
        "base": base_id(document),
        "readings": readings,
        "variant": list(derived.get("variant") or []),
    }
    if derived.get("wider_options"):
        found["wider_options"] = sorted(derived["wider_options"])
    return found


def claim_text(document: Mapping[str, Json]) -> str:
    """One line: "conformance to <base> with declared readings: ..." or the variant said as such."""
    c = claim(document)
    named = "; ".join(
        f"{r['reading']} = {r['choice']} ({', '.join(r['clauses'])})" for r in c["readings"]
    )
    if c["variant"]:
        text = (
            f"{c['profile']}: checked against a variant of {c['base']} "
            f"(normative parameters overridden: {', '.join(c['variant'])})"
        )
        if named:
            text += f" with declared readings: {named}"
        return text + f", never conformance to {c['base']} itself"
    if c["profile"] == c["base"]:
        return f"{c['profile']}: conformance to {c['base']} with its own readings"
    text = f"{c['profile']}: conformance to {c['base']}"
    text += f" with declared readings: {named}" if named else " with its own readings"
    if c.get("wider_options"):
        text += "; offering more values than the profile of " + ", ".join(c["wider_options"])
    return text


def claims(
    documents: Mapping[str, Mapping[str, Json]], ids: Iterable[str]
) -> list[dict[str, Json]]:
    """The claim of each profile among ``ids`` (once each, in order), with its ``text``."""
    return [
        {**claim(documents[pid]), "text": claim_text(documents[pid])} for pid in dict.fromkeys(ids)
    ]


def leaves(node: Json, prefix: str) -> dict[str, Json]:
    """Every leaf of a tree of mappings, by its dotted path after ``prefix`` ("rules.")."""
    if isinstance(node, Mapping) and node:
        found: dict[str, Json] = {}
        for key, value in node.items():
            found.update(leaves(value, f"{prefix}{key}."))
        return found
    return {prefix.rstrip("."): node}


def option_changes(
    document: Mapping[str, Json], base: Mapping[str, Json]
) -> list[tuple[str, str, Json, Json]]:
    """How ``document``'s options differ from ``base``'s: (name, field, old, new) for each
    changed field, and field ``""`` for an option added (old None) or removed (new None)."""
    old = {o["name"]: o for o in base.get("options") or []}
    new = {o["name"]: o for o in document.get("options") or []}
    found: list[tuple[str, str, Json, Json]] = []
    for name in dict.fromkeys([*old, *new]):
        if name not in new:
            found.append((name, "", old[name], None))
        elif name not in old:
            found.append((name, "", None, new[name]))
        else:
            for field in dict.fromkeys([*old[name], *new[name]]):
                if old[name].get(field) != new[name].get(field):
                    found.append((name, field, old[name].get(field), new[name].get(field)))
    return found


def _option_text(option: Mapping[str, Json]) -> str:
    spec = OptionSpec.from_dict(option)
    return f"sets {', '.join(spec.targets)}; {spec.allowed_text()}; default {spec.default!r}"


def _value_text(path: str, value: Json) -> str:
    """A rule value for a reader: a choice's sentence from the schema, else the value."""
    found = registry().by_path().get(path)
    if found is not None and isinstance(value, str) and value in found.values:
        index = found.values.index(value)
        if index < len(found.value_descriptions):
            return found.value_descriptions[index].rstrip(".")
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "none" if value is None else str(value)


def change_texts(document: Mapping[str, Json], base: Mapping[str, Json]) -> list[str]:
    """What ``document`` changes from ``base``, for a reader: "<label>: <new value>" for each
    rule parameter (its title in the profile schema), "host option <name> ..." for options."""
    old, new = leaves(base["rules"], ""), leaves(document["rules"], "")
    labels = registry().by_path()
    found = [
        f"{labels[path].label if path in labels else path}: {_value_text(path, new.get(path))}"
        for path in dict.fromkeys([*old, *new])
        if old.get(path) != new.get(path)
    ]
    for name, field, _, after in option_changes(document, base):
        shown = name.replace("_", " ")
        if field:
            found.append(f"host option {shown}: its {field.replace('_', ' ')} changed")
        else:
            found.append(f"host option {shown} " + ("removed" if after is None else "added"))
    return list(dict.fromkeys(found))


def derived_summary(document: Mapping[str, Json], base: Mapping[str, Json]) -> str:
    """The summary of a profile that extends ``base`` and gives none: what it changes."""
    changes = change_texts(document, base)
    if not changes:
        return f"{base['name']}'s rules and options, unchanged."
    return f"{base['name']}, changed: " + "; ".join(changes) + "."


def differences(document: Mapping[str, Json], base: Mapping[str, Json]) -> list[str]:
    """Each rule parameter and option field that differs from ``base``: "path: old -> new";
    an option added or removed in one line, "options.<name>: added (...)" or "removed"."""
    old, new = leaves(base["rules"], "rules."), leaves(document["rules"], "rules.")
    found = [
        f"{path}: {old.get(path)!r} -> {new.get(path)!r}"
        for path in dict.fromkeys([*old, *new])
        if old.get(path) != new.get(path)
    ]
    for name, field, before, after in option_changes(document, base):
        if field:
            was, now = leaves(before, ""), leaves(after, "")
            found += [
                f"options.{name}.{field}"
                + (f".{key}" if key else "")
                + f": {was.get(key)!r} -> {now.get(key)!r}"
                for key in dict.fromkeys([*was, *now])
                if was.get(key) != now.get(key)
            ]
        elif after is None:
            found.append(f"options.{name}: removed (it {_option_text(before)})")
        else:
            found.append(f"options.{name}: added ({_option_text(after)})")
    return found
