"""Declared profiles: a file that ``extends`` another profile, resolved into a whole one.

A declared profile names the profile it extends (a shipped id, or a profile file next
to it) and may, in this order:

1. choose among the base's readings (``readings: {reshuffle: next_draw}``);
2. change, add or remove host options, keyed by name (``options:``): a mapping of
   option fields overrides those fields of the base's option, a name the base lacks
   adds a whole option, and ``null`` removes the base's option;
3. override rule parameters (``rules:``, only those it changes);
4. say which options the engine offers more values of than the profile
   (``wider_options:``, conformance/spec/wider.py): no variant, the profile's values stay.

Rules and options are then made to agree, since an option's default is the value of
the rule parameters it sets. A rule the file overrides wins: the option's default moves
to the value that sets the rule so; where the option has no such value the file is
refused, with a line saying how to widen the option or remove it (which one the table
plays only its author knows). Otherwise the option wins: a default, ``sets`` or ``map``
the file changes sets the rules. A removed option is no longer cited by the clauses, and
a reading the file leaves (an option removed, or its parameters set to none of its
choices) is no longer offered.

The resolved profile is the base with those changes, carrying ``derived_from``; every
rule parameter and option field it changes beyond readings is listed under
``derived_from.variant`` (docs/readings.md).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path

from jhyap_core.profile import OptionSpec, OptionType, option_specs, set_path
from jhyap_core.vocabulary import JhyapError

from . import data, readings, wider, yamlsafe
from .json_types import Json
from .profile_options import grid, lookup, same_value
from .profile_schema import (
    Problem,
    Report,
    SourcePath,
    explain,
    schema_errors,
    show,
    stringify_keys,
)
from .yamlsafe import DataPath

# The fields a new option must give (locked_when_open may follow from changes).
_NEW_OPTION_FIELDS = ("type", "default", "sets")


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


def _given(override: Mapping[str, Json], prefix: str = "") -> list[str]:
    """The rule paths an override gives a value to (a group given whole counts as one)."""
    found: list[str] = []
    for key, value in override.items():
        if isinstance(value, dict) and value:
            found += _given(value, f"{prefix}{key}.")
        else:
            found.append(f"{prefix}{key}")
    return found


def _covers(given: Sequence[str], target: str) -> bool:
    return any(
        g == target or target.startswith(g + ".") or g.startswith(target + ".") for g in given
    )


def _names(options: Sequence[Mapping[str, Json]]) -> str:
    return ", ".join(str(o["name"]) for o in options) or "none"


def _override_option(option: dict[str, Json], fields: Mapping[str, Json]) -> None:
    """Each field given replaces the option's; values and range replace each other; a
    ``changes`` without ``locked_when_open`` sets it; ``map: null`` drops the map."""
    for key, new in fields.items():
        if key == "map" and new is None:
            option.pop("map", None)
            continue
        if key in ("values", "range"):
            option.pop("range" if key == "values" else "values", None)
        option[key] = copy.deepcopy(new)
    if "changes" in fields and "locked_when_open" not in fields:
        option["locked_when_open"] = fields["changes"] != "between_hands"


def _apply_options(
    merged: dict[str, Json],
    overrides: Mapping[str, Json],
    chosen: Mapping[str, str],
    report: Report,
) -> set[str]:
    """Change, add and remove ``merged``'s options; the names whose default the file gives."""
    base_id = merged["id"]
    options: list[dict[str, Json]] = merged["options"]
    defaults: set[str] = set()
    read_by = {
        param.split(".")[1]: (r["name"], r["choices"][chosen[r["name"]]])
        for r in readings.readings_of(merged)
        if r["name"] in chosen
        for param in r["choices"][chosen[r["name"]]]
        if param.startswith("options.")
    }
    for name, fields in overrides.items():
        at: DataPath = ("options", name)
        index = next((i for i, o in enumerate(options) if o["name"] == name), None)
        if fields is None:
            if index is None:
                report.add(
                    at, f"{base_id} has no option {name} to remove; its options: {_names(options)}"
                )
            elif name in read_by:
                report.add(
                    at,
                    f"the declared reading {read_by[name][0]} sets this option; "
                    f"keep the option or drop the reading",
                )
            else:
                del options[index]
            continue
        if "values" in fields and "range" in fields:
            report.add((*at, "range"), "give values or range, not both")
            continue
        if name in read_by:
            _, choice = read_by[name]
            for field, value in fields.items():
                param = f"options.{name}.{field}"
                if param in choice and choice[param] != value:
                    report.add(
                        (*at, field),
                        f"the declared reading {read_by[name][0]} sets it to {show(choice[param])}",
                    )
        if (
            index is not None
            and fields.get("type", options[index]["type"]) != options[index]["type"]
        ):
            lacking = [] if "default" in fields else ["default"]
            if "values" not in fields and "range" not in fields:
                lacking.append("values (or range)")
            if lacking:
                report.add((*at, "type"), f"a new type needs a new {' and '.join(lacking)} too")
                continue
        if "default" in fields:
            defaults.add(name)
        if index is not None:
            _override_option(options[index], fields)
            continue
        missing = [f for f in _NEW_OPTION_FIELDS if f not in fields]
        if "locked_when_open" not in fields and "changes" not in fields:
            missing.append("locked_when_open (or changes)")
        if "values" not in fields and "range" not in fields:
            missing.append("values (or range)")
        if missing:
            report.add(
                at,
                f"{base_id} has no option {name} (its options: {_names(options)}), and a new "
                f"option needs {', '.join(missing)}",
            )
            continue
        option: dict[str, Json] = {"name": name}
        _override_option(option, fields)
        options.append(option)
    return defaults


def _drop_removed(merged: dict[str, Json], removed: set[str]) -> None:
    """No clause cites, and no reading reads, an option the file removes; the clauses of
    such options alone (of the options family and citing no other option, or citing
    nothing else) go with them, so that no report credits a failure to an option the
    ruleset does not have."""
    if not removed:
        return
    cites = {f"options.{name}" for name in removed}
    kept = []
    for clause in merged["clauses"]:
        params = [p for p in clause["params"] if p not in cites]
        other_options = any(str(p).startswith("options.") for p in params)
        of_the_option = len(params) < len(clause["params"]) and (
            not params or (clause.get("family") == "options" and not other_options)
        )
        if not of_the_option:
            kept.append({**clause, "params": params})
    merged["clauses"] = kept

    def reads_removed(reading: Mapping[str, Json]) -> bool:
        params = next(iter(reading["choices"].values()))
        return any(p.split(".")[:2] in (["options", n] for n in removed) for p in params)

    if "readings" in merged:
        merged["readings"] = [r for r in merged["readings"] if not reads_removed(r)]


def _value_setting(spec: OptionSpec, wanted: Sequence[Json]) -> tuple[bool, Json]:
    """(found, the option value that sets the option's parameters to ``wanted``)."""
    if spec.map is None and len(wanted) == 1:
        try:
            return True, spec.normalize(wanted[0])
        except JhyapError:
            return False, None
    choices = list(spec.values) if spec.values is not None else grid(spec)
    for choice in choices or ():
        try:
            values = spec.parameter_values(choice)
        except JhyapError:
            continue
        if all(same_value(v, w, False) for v, w in zip(values, wanted, strict=True)):
            return True, choice
    return False, None


def _widened(spec: OptionSpec, value: Json) -> list[Json]:
    """The values of option ``spec`` with ``value`` added (in order, for numbers)."""
    values = [*(spec.values or ()), value]
    if spec.type in (OptionType.INTEGER, OptionType.DECIMAL):
        values.sort(key=_number_order)
    return values


def _orderable(spec: OptionSpec, value: Json) -> bool:
    """Whether ``value`` can join the values of option ``spec``: a finite number for a
    number option (null, a rule's "none", cannot)."""
    if spec.type not in (OptionType.INTEGER, OptionType.DECIMAL):
        return True
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return False
    try:
        return Decimal(str(value)).is_finite()
    except InvalidOperation:
        return False


def _number_order(value: Json) -> tuple[bool, Decimal]:
    """A sort key for an option's numbers that never raises: a NaN or a value that is no
    number (``limit: .nan``, ``limit: abc``: the schema's checks refuse them, in words)
    goes last, where Decimal's comparison raised InvalidOperation (an internal error)."""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return True, Decimal(0)
    return (True, Decimal(0)) if number.is_nan() else (False, number)


def _widen_hint(spec: OptionSpec, value: Json) -> str:
    """How to give option ``spec`` the value ``value`` in an extends file."""
    name = spec.name
    if spec.map is None and spec.values is not None:
        shown = ", ".join(show(v) for v in _widened(spec, value))
        return f"options: {{{name}: {{values: [{shown}]}}}}"
    if spec.map is None:
        return f"options: {{{name}: {{range: ...}}}}"
    return f"options: {{{name}: {{values: [...], map: {{...}}}}}}"


def _rule_values(rules: Mapping[str, Json], targets: Sequence[str]) -> list[Json] | None:
    """The value of each parameter, or None if one is missing or a group."""
    current: list[Json] = []
    for target in targets:
        found, value, _ = lookup(rules, target)
        if not found or isinstance(value, dict):
            return None
        current.append(value)
    return current


def _reconcile(
    merged: dict[str, Json],
    given: Sequence[str],
    defaults: set[str],
    changed: Mapping[str, Json],
    report: Report,
) -> dict[str, DataPath]:
    """Make each option's default set the rules to what they are; the rule paths an option
    moved (those the file does not override), each with the option field that moved it."""
    rules = merged["rules"]
    moved: dict[str, DataPath] = {}
    for option in merged["options"]:
        try:
            spec = OptionSpec.from_dict(option)
            default = spec.normalize(spec.default)
            wanted = spec.parameter_values(default)
        except (JhyapError, KeyError, ValueError, TypeError, AttributeError):
            continue  # the check of the resolved profile says what is wrong with it
        current = _rule_values(rules, spec.targets)
        if current is None:
            continue  # a parameter that is not there: the check says so
        decimal = spec.type is OptionType.DECIMAL and spec.map is None
        pairs = zip(spec.targets, current, wanted, strict=True)
        differ = [(t, c, w) for t, c, w in pairs if not same_value(c, w, decimal)]
        if not differ:
            continue
        by_rules = [t for t in spec.targets if _covers(given, t)]
        if not by_rules:  # the option changed: the rules follow its default
            fields = changed.get(spec.name) or {}
            why = next((f for f in ("map", "sets", "type", "default") if f in fields), "default")
            for target, _, value in differ:
                set_path(rules, target, copy.deepcopy(value))
                moved[target] = ("options", spec.name, why)
            continue
        if spec.name in defaults:  # both given: the file contradicts itself
            target, rule_value, value = differ[0]
            report.add(
                ("options", spec.name, "default"),
                f"default {show(default)} sets {target} to {show(value)}, "
                f"but rules.{target} is {show(rule_value)}",
            )
            continue
        ok, choice = _value_setting(spec, current)
        if ok:
            option["default"] = choice
            continue
        target = by_rules[0]
        rule_value = current[spec.targets.index(target)]
        one_value = spec.map is None and spec.values is not None and len(current) == 1
        if one_value and spec.name not in changed and _orderable(spec, rule_value):
            # The file's rule is the table's default: the option offers it too, beside
            # the values it had (a host may still choose those).
            option["values"] = _widened(spec, rule_value)
            option["default"] = rule_value
            continue
        if spec.map is None and len(current) == 1:
            what = (
                f"{show(rule_value)} is not a value of option {spec.name} "
                f"({spec.allowed_text()}), which sets {target}"
            )
        else:
            setting = ", ".join(
                f"{t} {show(c)}" for t, c in zip(spec.targets, current, strict=True)
            )
            what = f"no value of option {spec.name} sets {setting}"
        remove = f"remove the option (options: {{{spec.name}: null}})"
        fix = (
            f"add it to the option ({_widen_hint(spec, rule_value)}) or {remove}"
            if _orderable(spec, rule_value)
            else remove
        )
        report.add(("rules", *target.split(".")), f"{what}; {fix}")
    return moved


def _source_path(merged: Mapping[str, Json], moved: Mapping[str, DataPath]) -> SourcePath:
    """The path in the declared file of a field of the resolved profile: an option, or a
    reading, by its name rather than its place in the list; a rule parameter an option
    moved, by the option field that moved it."""
    options = [str(o["name"]) for o in merged["options"]]
    read = [str(r["name"]) for r in readings.readings_of(merged)]

    def source(path: DataPath) -> DataPath:
        if path[:1] == ("rules",):
            rule = ".".join(str(p) for p in path[1:])
            for target, field in moved.items():
                if rule == target or rule.startswith(f"{target}."):
                    return field
        if len(path) >= 2 and isinstance(path[1], int):
            if path[0] == "options" and path[1] < len(options):
                return ("options", options[path[1]], *path[2:])
            if path[0] == "readings" and path[1] < len(read):
                return ("readings", read[path[1]], *path[2:])
        return path

    return source


def base_file(declared_file: str | Path, base_name: str) -> Path:
    """The file of the profile a declared file ``extends``: a profile file next to it (a
    .yaml/.yml name), else a shipped profile's id. data.ProfileNotFound when there is none."""
    is_file = base_name.endswith((".yaml", ".yml"))
    return data.find_profile(Path(declared_file).parent / base_name if is_file else base_name)


# How a whole profile is checked (conformance.spec.profiles.whole_profile_problems, which
# hands declared files here): given, not imported, so that neither module imports the other.
WholeProfileCheck = Callable[[yamlsafe.YamlDocument, SourcePath | None], list[Problem]]


def resolve_declared(
    doc: yamlsafe.YamlDocument, check_whole: WholeProfileCheck
) -> tuple[dict[str, Json] | None, list[Problem]]:
    """The whole profile a declared file stands for, or its problems; ``check_whole``
    checks the profile it extends, and the merged one."""
    report = Report(doc)
    value = stringify_keys(doc.data)
    for error in schema_errors(value, declared=True):
        for path, message in explain(error):
            report.add(path, message)
    if report.problems:
        return None, report.problems
    base_name = value["extends"]
    try:
        base_path = base_file(doc.file, base_name)
        base_doc = yamlsafe.load(base_path)
    except (data.ProfileNotFound, yamlsafe.YamlProblem) as exc:
        report.add(("extends",), str(exc))
        return None, report.problems
    base = stringify_keys(base_doc.data)
    if isinstance(base, dict) and "extends" in base:
        report.add(("extends",), f"{base_name} itself extends a profile; extend a whole profile")
        return None, report.problems
    if check_whole(base_doc, None):
        report.add(("extends",), f"{base_name} is not a valid profile (jhyap validate it)")
        return None, report.problems
    merged: dict[str, Json] = copy.deepcopy(base)
    declared_readings = value.get("readings") or {}
    chosen = {name: choice for name, choice in declared_readings.items() if choice is not None}
    dropped = [name for name, choice in declared_readings.items() if choice is None]
    for name in dropped:
        if not any(r["name"] == name for r in readings.readings_of(base)):
            known = ", ".join(str(r["name"]) for r in readings.readings_of(base))
            offers = f"{base['id']} offers: {known or 'none'}"
            report.add(("readings", name), f"no reading {name!r} to drop; {offers}")
    for name, choice in chosen.items():
        try:
            merged = readings.with_choice(merged, name, choice)
        except KeyError as exc:
            known = ", ".join(
                f"{r['name']} ({' | '.join(r['choices'])})" for r in readings.readings_of(base)
            )
            report.add(("readings", name), f"{exc.args[0]}; {base['id']} offers: {known or 'none'}")
    if report.problems:
        return None, report.problems
    read = copy.deepcopy(merged)  # the base playing the declared readings
    overrides = value.get("options") or {}
    defaults = _apply_options(merged, overrides, chosen, report)
    _drop_removed(merged, {n for n, f in overrides.items() if f is None})
    rule_overrides = value.get("rules") or {}
    variant = _merge(merged["rules"], rule_overrides, "")
    if report.problems:
        return None, report.problems
    moved = _reconcile(merged, _given(rule_overrides), defaults, overrides, report)
    if report.problems:
        return None, report.problems
    variant += [m for m in moved if m not in variant]
    if merged.get("readings"):  # a point the file settles its own way is no longer open
        kept = [
            r
            for r in merged["readings"]
            if readings.choice_in_force(merged, r) is not None and r["name"] not in dropped
        ]
        merged["readings"] = kept
    variant += list(
        dict.fromkeys(
            f"options.{name}" + (f".{field}" if field else "")
            for name, field, _, _ in readings.option_changes(merged, read)
        )
    )
    merged["id"] = value["id"]
    merged["name"] = value.get("name") or f"{base['name']}, " + (
        "variant" if variant else "declared readings"
    )
    # A file without a summary of its own is summed up by what it changes: the base's
    # summary would describe rules the file no longer plays.
    merged["summary"] = value.get("summary") or readings.derived_summary(merged, base)
    merged["derived_from"] = {"profile": base["id"], "readings": dict(chosen), "variant": variant}
    widened = value.get(wider.KEY) or {}
    for name, message in wider.problems(widened, option_specs(merged)):
        report.add((wider.KEY, name), message)
    if report.problems:
        return None, report.problems
    if (
        widened
    ):  # values the engine offers beyond the profile's: no variant (conformance/spec/wider.py)
        merged["derived_from"][wider.KEY] = copy.deepcopy(widened)
    merged_doc = yamlsafe.YamlDocument(doc.file, merged, doc._root)
    source = _source_path(merged, moved)
    return merged, check_whole(merged_doc, source)
