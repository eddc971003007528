"""Checking and loading profile files (``specs/*.yaml``).

A profile is checked in three passes, each only if the previous one passed:
the strict YAML load (:mod:`conformance.spec.yamlsafe`), the JSON Schema
(``schema/profile.schema.json``), then the semantic rules below, which a schema
cannot say: consistent rule parameters, options that fit the rules they set,
and clauses that cite every rule parameter and option.

Paths in ``options[].sets`` and ``clauses[].params`` are relative to ``rules``
(``call.limit``); clauses cite options as ``options.<name>``. Citing a group
such as ``card_values`` cites every parameter inside it.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reference_engine.errors import JhyapError, OptionError
from reference_engine.profile import (
    OptionSpec,
    OptionType,
    option_specs,
    parse_option_value,
    resolve,
)
from reference_engine.rules import packs_at

from . import combinations, data, filecache, readings, yamlsafe
from .yamlsafe import DataPath, PathPart

if TYPE_CHECKING:  # jsonschema is imported when a profile is checked, not to read a cached one
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

Json = Any
SCHEMA_FILE = "profile.schema.json"
DECIMAL_PATTERN = r"^[0-9]+(\.[0-9]{1,2})?$"
MAX_MAPPED_RANGE = 1000
_GRID_CHECK_LIMIT = 100


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file: where it is and what is wrong."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.message}"


class ProfileFileError(Exception):
    """A profile file that cannot be used; ``problems`` says why."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        first = str(self.problems[0]) if self.problems else "invalid profile"
        more = len(self.problems) - 1
        super().__init__(first + (f" (and {more} more problems)" if more > 0 else ""))


def stringify_keys(value: Json) -> Json:
    """The data with every mapping key as text (``false`` for the boolean key false)."""
    if isinstance(value, dict):
        return {yamlsafe.key_text(k): stringify_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [stringify_keys(v) for v in value]
    return value


# -- schema -----------------------------------------------------------------------


@cache
def profile_schema() -> dict[str, Json]:
    """The profile JSON Schema."""
    text = (data.schema_dir() / SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Json] = json.loads(text)
    return schema


@cache
def rule_defaults() -> dict[str, Json]:
    """The schema's default of every optional rule parameter, by path relative to rules."""
    found: dict[str, Json] = {}

    def walk(node: Mapping[str, Json], prefix: str) -> None:
        for key, sub in (node.get("properties") or {}).items():
            if "default" in sub:
                found[prefix + key] = sub["default"]
            if isinstance(sub, Mapping) and "properties" in sub:
                walk(sub, prefix + key + ".")

    walk(profile_schema()["$defs"]["rules"], "")
    return found


def _strict_integer(checker: Any, instance: object) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _anchored_pattern(
    validator: Validator, pattern: str, instance: object, schema: Mapping[str, Json]
) -> Iterator[ValidationError]:
    # Python's "$" also matches before a final newline; JSON Schema's does not.
    from jsonschema import ValidationError

    if not isinstance(instance, str):
        return
    if re.search(pattern, instance) is None or (pattern.endswith("$") and instance.endswith("\n")):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@cache
def _validator() -> Validator:
    import jsonschema

    base = jsonschema.validators.validator_for(profile_schema())
    checker = base.TYPE_CHECKER.redefine("integer", _strict_integer)
    cls = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, validators={"pattern": _anchored_pattern}, type_checker=checker
    )
    validator: Validator = cls(profile_schema())
    return validator


@cache
def _fast_check(declared: bool) -> Callable[[Any], bool] | None:
    """The compiled schema check of a profile (or a declared-readings file), in the same
    dialect as its validator: as strict, and far quicker on the files that pass."""
    from .fastschema import LIBRARY, Dialect, compile_document

    if declared:
        return compile_document(_declared_validator().schema, LIBRARY)
    dialect = Dialect(strict_integers=True, anchored_patterns=True)
    return compile_document(_validator().schema, dialect)


def _schema_errors(value: Json, *, declared: bool = False) -> list[ValidationError]:
    """The schema's errors in ``value``; none without asking the library when the
    compiled check passes it."""
    from .fastschema import library_errors

    validator = _declared_validator() if declared else _validator()
    return library_errors(_fast_check(declared), validator, value)


def _show(value: Json) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict | list):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 60 else text[:57] + "..."
    return str(value)


def _kind(value: Json) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


_TYPE_NAMES = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean (true or false)",
    "null": "null",
}


def _explain(error: ValidationError) -> list[tuple[DataPath, str]]:
    """Each schema error as (path, message): one per unknown or missing key."""
    path: DataPath = tuple(error.absolute_path)
    instance = error.instance
    schema = error.schema if isinstance(error.schema, dict) else {}
    keyword = error.validator
    expected_value: Any = error.validator_value
    if keyword in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        known = list(schema.get("properties", {}))
        expected = f"; expected one of: {', '.join(known)}" if known else ""
        return [((*path, k), f"unknown key{expected}") for k in instance if k not in known]
    if keyword == "required" and isinstance(instance, dict):
        return [((*path, k), "missing required key") for k in expected_value if k not in instance]
    if keyword == "enum":
        allowed = ", ".join(str(v) for v in expected_value)
        return [(path, f"{_show(instance)} is not one of: {allowed}")]
    if keyword == "const":
        return [(path, f"must be {_show(expected_value)}, not {_show(instance)}")]
    if keyword == "type":
        if schema.get("pattern") == DECIMAL_PATTERN:
            return [
                (path, f'must be a decimal string such as "0.05" (quoted), not {_show(instance)}')
            ]
        wanted: list[str] = expected_value if isinstance(expected_value, list) else [expected_value]
        names = " or ".join(_TYPE_NAMES.get(t, str(t)) for t in wanted)
        return [(path, f"must be {names}, not {_kind(instance)} ({_show(instance)})")]
    if keyword == "pattern":
        if schema.get("pattern") == DECIMAL_PATTERN:
            return [
                (path, f'{_show(instance)} is not an amount such as "0.05" (at most 2 decimals)')
            ]
        if schema.get("description"):
            return [(path, f"{_show(instance)} is not of the form: {schema['description']}")]
        return [(path, f"{_show(instance)} does not match {expected_value}")]
    if keyword == "minimum":
        return [(path, f"{_show(instance)} is below the minimum {expected_value}")]
    if keyword == "maximum":
        return [(path, f"{_show(instance)} is above the maximum {expected_value}")]
    if keyword in ("minLength", "minItems", "minProperties"):
        return [(path, "must not be empty")]
    if keyword == "uniqueItems":
        return [(path, "has repeated items")]
    if keyword == "oneOf" and isinstance(instance, dict) and path[:1] == ("options",):
        if "values" in instance and "range" in instance:
            return [((*path, "range"), "give values or range, not both")]
        return [(path, "needs values or range")]
    if keyword == "not" and schema.get("not") == {} and path:
        last = path[-1]
        if last == "reason":
            return [(path, "only interpretation clauses have a reason")]
        if last == "range":
            return [(path, "only integer and decimal options have a range; use values")]
        return [(path, "not allowed here")]
    return [(path, error.message)]


# -- checking ---------------------------------------------------------------------


class _Report:
    """Collects problems for one document, finding each field's line."""

    def __init__(self, doc: yamlsafe.YamlDocument) -> None:
        self.doc = doc
        self.problems: list[Problem] = []

    def add(self, path: Sequence[PathPart], message: str) -> None:
        field = yamlsafe.format_path(path) or "(top)"
        problem = Problem(self.doc.file, self.doc.line(path), field, message)
        if problem not in self.problems:
            self.problems.append(problem)


def check_profile_file(
    path: str | os.PathLike[str], *, require_coverage: bool = True
) -> list[Problem]:
    """Every problem of the profile file at ``path``; empty when it is valid.

    With ``require_coverage=False`` rule parameters and options that no clause
    cites are not problems (the profile is playable, just not fully specified).
    """
    try:
        doc = yamlsafe.load(path)
    except yamlsafe.YamlProblem as exc:
        field = yamlsafe.format_path(exc.path or ()) or "(file)"
        return [Problem(exc.file, exc.line, field, exc.message)]
    return check_profile_document(doc, require_coverage=require_coverage)


def check_profile_document(
    doc: yamlsafe.YamlDocument, *, require_coverage: bool = True
) -> list[Problem]:
    """Every problem of an already loaded profile document (or declared-readings file)."""
    if isinstance(doc.data, dict) and "extends" in doc.data:
        return _resolve_declared(doc)[1]
    report = _Report(doc)
    value = stringify_keys(doc.data)
    if not isinstance(value, dict):
        report.add((), f"a profile is a mapping, not {_kind(value)}")
        return report.problems
    for error in _schema_errors(value):
        for path, message in _explain(error):
            report.add(path, message)
    if not report.problems:
        _check_semantics(value, report, require_coverage)
    return sorted(report.problems, key=lambda p: (p.line, p.field))


def _rule_problems(rules: Mapping[str, Json]) -> list[tuple[DataPath, str]]:
    """Rule parameters that contradict each other (on schema-valid rules)."""
    found: list[tuple[DataPath, str]] = []

    def add(path: str, message: str) -> None:
        found.append((("rules", *path.split(".")), message))

    seats, throws, scoring, end = (
        rules["seats"],
        rules["throws"],
        rules["scoring"],
        rules["game_end"],
    )
    if seats["min"] > seats["max"]:
        add("seats.min", f"min {seats['min']} is above max {seats['max']}")
    if rules["deal"]["first_starter"] >= seats["min"]:
        add(
            "deal.first_starter",
            f"seat {rules['deal']['first_starter']} does not exist at a {seats['min']}-seat table "
            f"(seats are numbered from 0)",
        )
    deck = rules["deck"]
    steps = deck.get("packs_by_seats") or []
    if [st["from_seats"] for st in steps] != sorted({st["from_seats"] for st in steps}):
        add("deck.packs_by_seats", "steps must go up by from_seats, each seat count once")
    for count in range(seats["min"], seats["max"] + 1):
        packs = packs_at(((st["from_seats"], st["packs"]) for st in steps), count)
        size = packs * (deck["cards"] + deck["jokers"])
        # A hand must leave a card to turn up and one to draw, or the first pick has none.
        needed = count * rules["hand_size"] + 2
        if needed > size:
            add(
                "hand_size",
                f"{count} seats x {rules['hand_size']} cards + the turned-up card + one card "
                f"to draw = {needed}, more than the {size}-card deck",
            )
            break
    if throws["set"]["min"] > throws["set"]["max"]:
        add("throws.set.min", f"min {throws['set']['min']} is above max {throws['set']['max']}")
    most_packs = max([1, *(st["packs"] for st in steps)])
    wild_sets = deck.get("jokers_wild", "none") in ("sets", "sets_and_runs")
    largest_set = most_packs * (4 + (deck["jokers"] if wild_sets else 0))
    if throws["set"]["max"] > largest_set:
        add(
            "throws.set.max",
            f"a set has at most {largest_set} cards (one rank, four suits"
            + (f", {most_packs} packs" if most_packs > 1 else "")
            + (", with jokers" if wild_sets else "")
            + ")",
        )
    if throws["run"]["min"] < 2:
        add("throws.run.min", "a run needs at least 2 cards")
    elif throws["run"]["min"] > 13:
        add("throws.run.min", "a run has at most 13 cards")
    if end["kind"] == "fixed_rounds" and end["rounds"] is None:
        add("game_end.rounds", "game_end.kind fixed_rounds needs a positive number of rounds")
    if end["kind"] != "fixed_rounds" and end["rounds"] is not None:
        add(
            "game_end.rounds",
            f"must be null unless game_end.kind is fixed_rounds, not {end['kind']}",
        )
    if end["kind"] == "elimination" and end["out_above"] is None:
        add("game_end.out_above", "game_end.kind elimination needs the score a player is out above")
    if end["kind"] != "elimination" and end["out_above"] is not None:
        add(
            "game_end.out_above",
            f"must be null unless game_end.kind is elimination, not {end['kind']}",
        )
    if end["kind"] == "elimination" and scoring["kind"] != "penalty":
        add("game_end.kind", f"elimination needs scoring.kind penalty, not {scoring['kind']}")
    if end["kind"] == "host_ends" and rules["money"] is None:
        add("money", "game_end.kind host_ends needs money (how the table settles up)")
    plus_penalty = scoring["beaten_call"] == "caller_hand_plus_penalty"
    if plus_penalty and scoring["kind"] != "penalty":
        add("scoring.beaten_call", "caller_hand_plus_penalty needs scoring.kind penalty")
    if scoring["kind"] == "penalty" and not plus_penalty:
        add("scoring.beaten_call", "penalty scoring needs beaten_call caller_hand_plus_penalty")
    if scoring["beaten_penalty"] != 0 and not plus_penalty:
        add("scoring.beaten_penalty", "only caller_hand_plus_penalty uses a penalty; must be 0")
    if scoring.get("beaten_others", "score_nothing") != "score_nothing" and not plus_penalty:
        add("scoring.beaten_others", "other seats score only under caller_hand_plus_penalty")
    if end.get("reaching_is_out") and end["kind"] != "elimination":
        add("game_end.reaching_is_out", "only an elimination game has a threshold to reach")
    if rules.get("deck_runs_out", "reshuffle") == "round_ends_hands_score" and (
        scoring["kind"] != "penalty"
    ):
        add("deck_runs_out", "round_ends_hands_score needs scoring.kind penalty")
    found.extend(combinations.rule_problems(rules))
    return found


def _leaf_paths(node: Mapping[str, Json], prefix: str = "") -> Iterator[tuple[str, Json]]:
    for key, value in node.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            yield from _leaf_paths(value, path + ".")
        else:
            yield path, value


def _lookup(rules: Mapping[str, Json], path: str) -> tuple[bool, Json, str | None]:
    """(found, value, the null group on the way if any) for a path relative to rules."""
    node: Json = rules
    walked: list[str] = []
    for key in path.split("."):
        if node is None and walked:
            return False, None, ".".join(walked)
        if not isinstance(node, dict) or key not in node:
            return False, None, None
        node = node[key]
        walked.append(key)
    return True, node, None


def _same(a: Json, b: Json, decimal: bool) -> bool:
    if decimal:
        try:
            return Decimal(str(a)) == Decimal(str(b))
        except ArithmeticError:
            return False
    return type(a) is type(b) and a == b


def _grid(spec: OptionSpec) -> list[Json] | None:
    """Every value of a range option, or None when there are too many (or no upper bound)."""
    assert spec.range is not None
    if spec.range.get("max") is None:
        return None
    low, high, step = (Decimal(str(spec.range[k])) for k in ("min", "max", "step"))
    count = int((high - low) / step) + 1
    if count > MAX_MAPPED_RANGE:
        return None
    points = [low + step * i for i in range(count)]
    if spec.type is OptionType.INTEGER:
        return [int(p) for p in points]
    return [spec.normalize(str(p)) for p in points]


def _check_range(spec: OptionSpec, base: DataPath, report: _Report) -> bool:
    assert spec.range is not None
    if spec.range.get("max") is None:
        if Decimal(str(spec.range["step"])) <= 0:
            report.add((*base, "range", "step"), "must be above 0")
            return False
        return True
    low, high, step = (Decimal(str(spec.range[k])) for k in ("min", "max", "step"))
    ok = True
    if step <= 0:
        report.add((*base, "range", "step"), "must be above 0")
        ok = False
    if low > high:
        report.add(
            (*base, "range", "min"), f"min {spec.range['min']} is above max {spec.range['max']}"
        )
        ok = False
    if ok and (high - low) % step != 0:
        report.add((*base, "range", "max"), "max is not min plus a whole number of steps")
        ok = False
    return ok


def _check_option(
    index: int,
    raw: Mapping[str, Json],
    document: Mapping[str, Json],
    report: _Report,
) -> list[Json] | None:
    """Check one option; the values to try it with, or None if it has problems."""
    base: DataPath = ("options", index)
    spec = OptionSpec.from_dict(raw)
    rules = document["rules"]
    ok = True
    if "changes" in raw and raw["locked_when_open"] != (raw["changes"] != "between_hands"):
        report.add(
            (*base, "locked_when_open"),
            f"changes {raw['changes']} needs locked_when_open "
            f"{'false' if raw['changes'] == 'between_hands' else 'true'}",
        )
    if spec.range is not None:
        ok = _check_range(spec, base, report)
    if spec.type is OptionType.DECIMAL and spec.values is not None:
        for j, v in enumerate(spec.values):
            try:
                spec.normalize(v)
            except OptionError:
                report.add((*base, "values", j), f'write {_show(v)} with two decimals, e.g. "0.50"')
                ok = False
    default: Json = None
    if ok:
        try:
            default = spec.normalize(spec.default)
        except OptionError as exc:
            report.add((*base, "default"), exc.message)
            ok = False
    targets = spec.targets
    rule_values: list[Json] = []
    for path in targets:
        found, rule_value, null_group = _lookup(rules, path)
        if null_group is not None:
            report.add(
                (*base, "sets"),
                f"rules.{null_group} is null (not played), so no option can set {path}",
            )
            return None
        if not found:
            report.add((*base, "sets"), f"no rule parameter {path} in rules")
            return None
        if isinstance(rule_value, dict):
            report.add((*base, "sets"), f"{path} is a group of parameters, not one parameter")
            return None
        rule_values.append(rule_value)
    if len(targets) > 1 and spec.map is None:
        report.add((*base, "map"), "an option that sets several parameters needs a map")
        return None
    choices: list[Json] | None = None
    if spec.values is not None:
        choices = list(spec.values)
    elif ok:
        choices = _grid(spec)
    if spec.map is not None:
        if choices is None:
            if ok:
                report.add(
                    (*base, "map"), f"a map cannot cover more than {MAX_MAPPED_RANGE} values"
                )
            return None
        keys = {str(v).lower() for v in choices}
        for v in choices:
            if str(v).lower() not in spec.map:
                report.add((*base, "map"), f"no entry for the value {_show(v)}")
                ok = False
        for key in spec.map:
            if key not in keys:
                report.add((*base, "map", key), "not one of the option's values")
                ok = False
    if not ok:
        return None
    if len(targets) > 1:
        assert spec.map is not None
        for key, entry in spec.map.items():
            if not isinstance(entry, list) or len(entry) != len(targets):
                report.add(
                    (*base, "map", key),
                    f"must list {len(targets)} values, one per parameter in sets",
                )
                ok = False
        if not ok:
            return None
    wanted_values = spec.parameter_values(default)
    decimal = spec.type is OptionType.DECIMAL and spec.map is None
    for path, rule_value, wanted in zip(targets, rule_values, wanted_values, strict=True):
        if not _same(rule_value, wanted, decimal):
            report.add(
                (*base, "default"),
                f"default {_show(default)} sets {path} to {_show(wanted)}, "
                f"but rules.{path} is {_show(rule_value)}",
            )
            return None
    if spec.range is not None and (choices is None or len(choices) > _GRID_CHECK_LIMIT):
        top = spec.range.get("max")
        if top is None:  # unbounded: try the minimum and a value far above it
            top = Decimal(str(spec.range["min"])) + 100 * Decimal(str(spec.range["step"]))
            top = int(top) if spec.type is OptionType.INTEGER else str(top)
        choices = [spec.normalize(spec.range["min"]), spec.normalize(top)]
    return choices


def _check_option_values(
    spec: OptionSpec,
    base: DataPath,
    choices: list[Json],
    document: Mapping[str, Json],
    report: _Report,
) -> None:
    """Every value of the option must give rules that are valid and consistent."""
    where: DataPath = (*base, "values") if spec.values is not None else (*base, "range")
    for j, choice in enumerate(choices):
        at = (*where, j) if spec.values is not None else where
        try:
            resolved = resolve(document, {spec.name: choice})
        except JhyapError as exc:
            report.add(at, exc.message)
            continue
        resolved.pop("option_values", None)
        messages = [
            f"{yamlsafe.format_path(e.absolute_path)}: {message}"
            for e in _schema_errors(resolved)
            for _, message in _explain(e)
        ]
        if not messages:
            messages = [
                f"{yamlsafe.format_path(p)}: {m}" for p, m in _rule_problems(resolved["rules"])
            ]
        for message in messages:
            report.add(at, f"{spec.name}={_show(choice)} makes {message}")


def _check_semantics(value: dict[str, Json], report: _Report, require_coverage: bool) -> None:
    rules: dict[str, Json] = value["rules"]
    for path, message in _rule_problems(rules):
        report.add(path, message)

    options: list[dict[str, Json]] = value["options"]
    names: dict[str, int] = {}
    tries: list[tuple[int, list[Json] | None]] = []
    for i, raw in enumerate(options):
        if raw["name"] in names:
            report.add(
                ("options", i, "name"),
                f"duplicate option name (also options[{names[raw['name']]}])",
            )
            continue
        names[raw["name"]] = i
        tries.append((i, _check_option(i, raw, value, report)))
    if not report.problems:  # only then can each option value be tried on its own
        for i, choices in tries:
            spec = OptionSpec.from_dict(options[i])
            if choices is not None:
                _check_option_values(spec, ("options", i), choices, value, report)

    clauses: list[dict[str, Json]] = value["clauses"]
    ids: dict[str, int] = {}
    cited: set[str] = set()
    prefix = f"{readings.base_id(value)}."
    for i, clause in enumerate(clauses):
        clause_id = clause["id"]
        if clause_id in ids:
            report.add(
                ("clauses", i, "id"),
                f"duplicate clause id {clause_id} (also clauses[{ids[clause_id]}])",
            )
        else:
            ids[clause_id] = i
        if not clause_id.startswith(prefix):
            report.add(("clauses", i, "id"), f"must start with the profile id: {prefix}")
        for j, param in enumerate(clause["params"]):
            cited.add(param)
            where = ("clauses", i, "params", j)
            if param.startswith("options."):
                if param[len("options.") :] not in names:
                    known = ", ".join(names) or "none"
                    report.add(where, f"no option {param[len('options.') :]}; options: {known}")
                continue
            found, _, null_group = _lookup(rules, param)
            if null_group is not None:
                report.add(where, f"rules.{null_group} is null, so {param} does not exist")
            elif not found:
                report.add(where, f"no rule parameter {param} in rules")

    if not report.problems:
        _check_readings(value, report)
    if not require_coverage:
        return
    for leaf, leaf_value in _leaf_paths(rules):
        if leaf_value is None:
            continue
        if not any(leaf == c or leaf.startswith(c + ".") for c in cited):
            report.add(("rules", *leaf.split(".")), "not cited by any clause")
    for name, i in names.items():
        if f"options.{name}" not in cited:
            report.add(("options", i, "name"), f"not cited by any clause (cite as options.{name})")


def _check_readings(value: dict[str, Json], report: _Report) -> None:
    """Each reading: known interpretation clauses, parameters that exist, the profile's own
    values one of its choices, and every choice a playable profile."""
    from reference_engine.rules import Rules

    statuses = {c["id"]: c["status"] for c in value["clauses"]}
    owner: dict[str, str] = {}
    for i, reading in enumerate(value.get("readings") or []):
        at: DataPath = ("readings", i)
        for j, clause in enumerate(reading["clauses"]):
            if clause not in statuses:
                report.add((*at, "clauses", j), f"no clause {clause} in this profile")
            elif statuses[clause] != "interpretation":
                report.add(
                    (*at, "clauses", j),
                    f"{clause} is normative; a reading settles an interpretation clause",
                )
        params: set[str] | None = None
        for choice, values in reading["choices"].items():
            keys = set(values)
            if params is not None and keys != params:
                report.add((*at, "choices", choice), "every choice must set the same parameters")
            params = keys if params is None else params
            for param in values:
                try:
                    readings.param_value(value, param)
                except KeyError:
                    report.add((*at, "choices", choice, param), f"no reading parameter {param}")
                    return
        for param in params or ():
            if param in owner and owner[param] != reading["name"]:
                report.add((*at, "name"), f"{param} is also read by reading {owner[param]}")
            owner[param] = reading["name"]
        if readings.choice_in_force(value, reading) is None:
            report.add(
                (*at, "choices"),
                "the profile's own rules and options match none of the choices",
            )
            continue
        for choice in reading["choices"]:
            played = readings.with_choice(value, reading["name"], str(choice))
            problems = [m for _, m in _rule_problems(played["rules"])]
            try:
                Rules.from_profile(resolve(played, {}))
            except JhyapError as exc:
                problems.append(exc.message)
            for message in problems:
                report.add((*at, "choices", choice), f"this choice makes {message}")


# -- declared readings --------------------------------------------------------------


@cache
def _declared_validator() -> Validator:
    import jsonschema

    schema = {"$defs": profile_schema()["$defs"], "$ref": "#/$defs/declared"}
    cls = jsonschema.validators.validator_for(profile_schema())
    validator: Validator = cls(schema)
    return validator


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


def _resolve_declared(doc: yamlsafe.YamlDocument) -> tuple[dict[str, Json] | None, list[Problem]]:
    """The whole profile a declared-readings file stands for, or its problems."""
    report = _Report(doc)
    value = stringify_keys(doc.data)
    for error in _schema_errors(value, declared=True):
        for path, message in _explain(error):
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


# -- loading ----------------------------------------------------------------------


def load_profile(name_or_path: str | os.PathLike[str]) -> dict[str, Json]:
    """The profile document of a shipped id or a file path, checked.

    Raises ProfileFileError with the problems (clause coverage is not required),
    or data.ProfileNotFound for an unknown id or missing file. Mapping keys are
    text, so the document is JSON data.
    """
    path = data.find_profile(name_or_path)
    content = filecache.read_file(path)
    entry = filecache.key("profile", content) if content is not None else None
    if entry is not None:
        hit = filecache.get(entry)
        if isinstance(hit, dict):
            return hit
    try:
        doc = yamlsafe.load(path)
    except yamlsafe.YamlProblem as exc:
        field = yamlsafe.format_path(exc.path or ()) or "(file)"
        raise ProfileFileError([Problem(exc.file, exc.line, field, exc.message)]) from None
    if isinstance(doc.data, dict) and "extends" in doc.data:
        merged, problems = _resolve_declared(doc)
        if problems or merged is None:
            raise ProfileFileError(problems)
        return merged
    problems = check_profile_document(doc, require_coverage=False)
    if problems:
        raise ProfileFileError(problems)
    document: dict[str, Json] = stringify_keys(doc.data)
    if entry is not None:
        filecache.put(entry, document)
    return document


def resolved_profile(
    name_or_path: str | os.PathLike[str], options: Mapping[str, Json]
) -> dict[str, Json]:
    """The profile resolved against option values (reference_engine.profile.resolve).

    Raises OptionError for an unknown option or a value it does not allow.
    """
    return resolve(load_profile(name_or_path), options)


def option_arguments(document: Mapping[str, Json], items: Sequence[str]) -> dict[str, Json]:
    """Option values from ``NAME=VALUE`` command-line items, each in its option's type.

    Raises ValueError for an item that is not NAME=VALUE or a name given twice; the
    values themselves are checked when the profile is resolved.
    """
    specs = option_specs(document)
    options: dict[str, Json] = {}
    for item in items:
        name, equals, text = item.partition("=")
        name = name.strip()
        if not equals or not name:
            raise ValueError(f"--option expects NAME=VALUE, not {item!r}")
        if name in options:
            raise ValueError(f"option {name} given twice")
        spec = specs.get(name)
        options[name] = text.strip() if spec is None else parse_option_value(spec, text.strip())
    return options
