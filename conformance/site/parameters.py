"""Rule parameters and host options as comparison rows: each profile's value and the
clauses citing it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..spec.json_types import Json
from ..spec.profile_options import lookup
from .common import (
    PARAM_LABELS,
    Document,
    clauses_of,
    moot_words,
    rule_defaults,
    scalar_text,
    value_words,
)

# -- parameters -----------------------------------------------------------------------------


def leaf_paths(node: Mapping[str, Json], prefix: str = "") -> Iterator[tuple[str, Json]]:
    """Every leaf under a rules mapping, as (dotted path, value), in document order."""
    for key, value in node.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from leaf_paths(value, path + ".")
        else:
            yield path, value


def option_key(name: str) -> str:
    return f"option:{name}"


def clause_params(clause: Mapping[str, Json], option_names: Iterable[str] = ()) -> set[str]:
    """The comparison-row keys a clause cites: rule paths, and ``option:NAME`` for options."""
    names = set(option_names)
    keys: set[str] = set()
    for raw in clause.get("params") or []:
        param = str(raw)
        if param.startswith("rules."):
            param = param[len("rules.") :]
        if param.startswith("options."):
            keys.add(option_key(param[len("options.") :]))
        elif param in names:
            keys.add(option_key(param))
        else:
            keys.add(param)
    return keys


def _cites(param: str, row: str) -> bool:
    return param == row or row.startswith(param + ".") or param.startswith(row + ".")


def citing_clauses(document: Document, row: str) -> list[str]:
    """The ids of the clauses of ``document`` that cite comparison row ``row``.

    A clause citing a parameter's parent (``card_values``) cites each leaf under it. An
    option's row collects the clauses citing the option and those citing the rule it sets.
    """
    options = {str(o.get("name")): o for o in document.get("options") or []}
    targets = [row]
    if row.startswith("option:"):
        spec = options.get(row[len("option:") :])
        if spec is not None and spec.get("sets"):
            sets = spec["sets"]
            targets.extend(str(t) for t in (sets if isinstance(sets, list) else [sets]))
    found: list[str] = []
    for clause in clauses_of(document):
        params = clause_params(clause, options)
        if any(_cites(p, t) for p in params for t in targets):
            found.append(str(clause["id"]))
    return found


@dataclass(frozen=True)
class Cell:
    """One profile's value in a comparison row."""

    present: bool
    value: Json
    words: str
    raw: str
    clauses: tuple[str, ...]
    group: int  # by how it plays: 1, 2, ... in column order; 0 for no value; -1 for moot
    plays: str | None = None  # the value played (schema default if left out); None: moot

    @property
    def moot(self) -> bool:
        return self.group == MOOT_GROUP


@dataclass(frozen=True)
class Row:
    key: str  # rule path, or option:NAME
    label: str
    cells: Mapping[str, Cell]

    @property
    def differs(self) -> bool:
        """Whether two profiles play this row differently (a value left at the schema's
        default plays as that default; a value another parameter makes moot plays as any)."""
        return len({c.group for c in self.cells.values() if not c.moot}) > 1

    def plays_differently(self, a: str, b: str) -> bool:
        first, second = self.cells[a], self.cells[b]
        return not (first.moot or second.moot) and first.group != second.group

    @property
    def is_option(self) -> bool:
        return self.key.startswith("option:")


def rule_paths(profiles: Mapping[str, Document]) -> list[str]:
    """The union of the profiles' leaf rule paths, in first-seen document order."""
    paths: list[str] = []
    for document in profiles.values():
        for path, _ in leaf_paths(document.get("rules") or {}):
            if path not in paths:
                paths.append(path)
    # a null group (money: null) is a leaf in one profile but a parent in another: keep its leaves
    return [p for p in paths if not any(q.startswith(p + ".") for q in paths)]


def option_names(profiles: Mapping[str, Document]) -> list[str]:
    names: list[str] = []
    for document in profiles.values():
        for option in document.get("options") or []:
            if option["name"] not in names:
                names.append(str(option["name"]))
    return names


def _option_spec(document: Document, name: str) -> dict[str, Json] | None:
    for option in document.get("options") or []:
        if option.get("name") == name:
            return dict(option)
    return None


def _canon(value: Json) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def allowed_text(option: Mapping[str, Json]) -> str:
    """An option's allowed values or range, in words."""
    if option.get("values") is not None:
        shown = [scalar_text(v) for v in option["values"]]
        mapping = option.get("map")
        if mapping:
            lowered = {str(k).lower(): v for k, v in mapping.items()}
            shown = [f"{s} (→ {scalar_text(lowered.get(s.lower()))})" for s in shown]
        return ", ".join(shown)
    rng = option.get("range") or {}
    if rng.get("max") is None:
        return f"{rng.get('min')} or more in steps of {rng.get('step')}"
    return f"{rng.get('min')} to {rng.get('max')} in steps of {rng.get('step')}"


def option_summary(option: Mapping[str, Json]) -> str:
    lock = (
        "can change until the first deal"
        if option.get("changes") == "before_first_deal"
        else "locked once the table opens"
        if option.get("locked_when_open")
        else "can change between hands"
    )
    return (
        f"{option.get('type')}: {allowed_text(option)}; default "
        f"{scalar_text(option.get('default'))}; {lock}"
    )


MOOT_GROUP = -1


def comparison_rows(profiles: Mapping[str, Document]) -> list[Row]:
    """Every rule parameter, then every option, with each profile's value; cells are grouped
    by how they play, so a value left at the schema's default joins the profiles that write it."""
    rows: list[Row] = []
    defaults = rule_defaults()
    played = {
        pid: dict(leaf_paths(document.get("rules") or {})) for pid, document in profiles.items()
    }
    for path in rule_paths(profiles):
        cells: dict[str, Cell] = {}
        groups: dict[str, int] = {}
        for pid, document in profiles.items():
            found, value, hidden_by = lookup(document.get("rules") or {}, path)
            clauses = tuple(citing_clauses(document, path if found else hidden_by or path))
            moot = moot_words(path, played[pid])
            if moot is not None:
                raw = scalar_text(value) if found else ""
                cells[pid] = Cell(found, value, moot, raw, clauses, MOOT_GROUP, None)
            elif found:
                key = _canon(value)
                group = groups.setdefault(key, len(groups) + 1)
                words = value_words(path, value)
                cells[pid] = Cell(True, value, words, scalar_text(value), clauses, group, key)
            elif not hidden_by and path in defaults:
                key = _canon(defaults[path])
                group = groups.setdefault(key, len(groups) + 1)
                words = f"{value_words(path, defaults[path])} (the default: left out)"
                cells[pid] = Cell(False, defaults[path], words, "", clauses, group, key)
            else:
                words = f"none ({hidden_by} is null)" if hidden_by else "not in this profile"
                raw = f"{hidden_by}: null" if hidden_by else ""
                cells[pid] = Cell(False, None, words, raw, clauses, 0, "")
        rows.append(Row(path, PARAM_LABELS.get(path, path), cells))
    for name in option_names(profiles):
        cells = {}
        groups = {}
        for pid, document in profiles.items():
            spec = _option_spec(document, name)
            key = option_key(name)
            if spec is None:
                cells[pid] = Cell(False, None, "not offered", "", (), 0, "")
                continue
            group = groups.setdefault(_canon(spec), len(groups) + 1)
            cells[pid] = Cell(
                True,
                spec,
                option_summary(spec),
                f"sets {spec.get('sets')}",
                tuple(citing_clauses(document, key)),
                group,
                _canon(spec),
            )
        rows.append(Row(option_key(name), option_label(name), cells))
    return rows


def option_label(name: str) -> str:
    """A host option's label on the site: its name in words."""
    return f"Host option: {name.replace('_', ' ')}"


def row_anchor(key: str) -> str:
    return f"option.{key[len('option:') :]}" if key.startswith("option:") else f"rules.{key}"


def row_keys(profiles: Mapping[str, Document]) -> list[str]:
    """The keys of the comparison rows: rule paths, then ``option:NAME``."""
    return rule_paths(profiles) + [option_key(n) for n in option_names(profiles)]
