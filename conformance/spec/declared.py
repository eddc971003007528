"""Declared profiles: a file that ``extends`` another profile, resolved into a whole one.

A declared profile names the profile it extends (a shipped id, or a profile file next
to it), chooses among its readings, and may override rules. The resolved profile is
the base with those changes, carrying ``derived_from`` (docs/readings.md).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import data, readings, yamlsafe
from .profile_schema import Problem, Report, explain, schema_errors, stringify_keys

Json = Any


def _merge(into: dict[str, Json], override: Mapping[str, Json], prefix: str) -> list[str]:
    """Deep-merge ``override`` into ``into``; the leaf paths whose value changed."""
    changed: list[str] = []
    for key, new in override.items():
        path = f"{prefix}{key}"
        old = into.get(key)
        if isinstance(new, dict) and isinstance(old, dict):
            changed += _merge(old, new, path + ".")
        else:
            if old != new:
                changed.append(path)
            into[key] = copy.deepcopy(new)
    return changed


def resolve_declared(doc: yamlsafe.YamlDocument) -> tuple[dict[str, Json] | None, list[Problem]]:
    """The whole profile a declared-readings file stands for, or its problems."""
    from .profiles import check_profile_document  # which resolves declared files here

    report = Report(doc)
    value = stringify_keys(doc.data)
    for error in schema_errors(value, declared=True):
        for path, message in explain(error):
            report.add(path, message)
    if report.problems:
        return None, report.problems
    base_name = value["extends"]
    try:
        is_file = base_name.endswith((".yaml", ".yml"))
        base_path = data.find_profile(Path(doc.file).parent / base_name if is_file else base_name)
        base_doc = yamlsafe.load(base_path)
    except (data.ProfileNotFound, yamlsafe.YamlProblem) as exc:
        report.add(("extends",), str(exc))
        return None, report.problems
    base = stringify_keys(base_doc.data)
    if isinstance(base, dict) and "extends" in base:
        report.add(("extends",), f"{base_name} itself extends a profile; extend a whole profile")
        return None, report.problems
    if check_profile_document(base_doc, require_coverage=False):
        report.add(("extends",), f"{base_name} is not a valid profile (jhyap validate it)")
        return None, report.problems
    merged: dict[str, Json] = copy.deepcopy(base)
    chosen = value.get("readings") or {}
    for name, choice in chosen.items():
        try:
            merged = readings.with_choice(merged, name, choice)
        except KeyError as exc:
            known = ", ".join(
                f"{r['name']} ({' | '.join(r['choices'])})" for r in readings.readings_of(base)
            )
            report.add(("readings", name), f"{exc.args[0]}; {base['id']} offers: {known or 'none'}")
    variant = _merge(merged["rules"], value.get("rules") or {}, "")
    if report.problems:
        return None, report.problems
    merged["id"] = value["id"]
    merged["name"] = value.get("name") or f"{base['name']}, " + (
        "variant" if variant else "declared readings"
    )
    merged["summary"] = value.get("summary") or base["summary"]
    merged["derived_from"] = {"profile": base["id"], "readings": dict(chosen), "variant": variant}
    merged_doc = yamlsafe.YamlDocument(doc.file, merged, doc._root)
    return merged, check_profile_document(merged_doc, require_coverage=False)
