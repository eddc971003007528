"""Checking and loading profile files (``specs/*.yaml``).

A profile is checked in three passes, each only if the previous one passed:
the strict YAML load (:mod:`conformance.spec.yamlsafe`), the JSON Schema
(``schema/profile.schema.json``, :mod:`conformance.spec.profile_schema`), then the
semantic rules below, which a schema cannot say: consistent rule parameters, options
that fit the rules they set (:mod:`conformance.spec.profile_options`), and clauses
that cite every rule parameter and option. A file that ``extends`` another profile is
resolved into a whole profile first (:mod:`conformance.spec.declared`).

Paths in ``options[].sets`` and ``clauses[].params`` are relative to ``rules``
(``call.limit``); clauses cite options as ``options.<name>``. Citing a group
such as ``card_values`` cites every parameter inside it.

The names of the split-off modules that other code imports from here
(:class:`Problem`, :class:`ProfileFileError`, :func:`profile_schema`, ...) are
re-exported.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Final

from jhyap_core.profile import (
    OptionSpec,
    option_specs,
    parse_option_value,
    resolve,
)
from jhyap_core.vocabulary import JhyapError
from reference_engine.rules import packs_at

from . import combinations, data, declared, filecache, readings, yamlsafe
from .json_types import Json
from .profile_options import MAX_MAPPED_RANGE, check_option, lookup
from .profile_schema import (
    DECIMAL_PATTERN,
    SCHEMA_FILE,
    Problem,
    ProfileFileError,
    Report,
    SourcePath,
    explain,
    kind,
    profile_schema,
    rule_defaults,
    schema_errors,
    show,
    stringify_keys,
)
from .wording import number_text
from .yamlsafe import DataPath

__all__ = [
    "DECIMAL_PATTERN",
    "MAX_MAPPED_RANGE",
    "SCHEMA_FILE",
    "Problem",
    "ProfileFileError",
    "check_profile_document",
    "check_profile_file",
    "load_profile",
    "option_arguments",
    "profile_schema",
    "resolved_profile",
    "rule_defaults",
    "stringify_keys",
]


# -- checking ---------------------------------------------------------------------


# The beaten_call values of penalty scoring: the beaten caller scores (the others as
# scoring.beaten_others says).
_CALLER_SCORES: Final = ("caller_hand_plus_penalty", "caller_hand_times", "penalty_only")
_CALLER_SCORES_WORDS: Final = "caller_hand_plus_penalty, caller_hand_times or penalty_only"


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
    doc: yamlsafe.YamlDocument,
    *,
    require_coverage: bool = True,
    source: SourcePath | None = None,
) -> list[Problem]:
    """Every problem of an already loaded profile document (or declared-readings file).

    ``source`` maps each problem's path to the field of the file it is reported on.
    """
    if isinstance(doc.data, dict) and "extends" in doc.data:
        return declared.resolve_declared(doc, whole_profile_problems)[1]
    report = Report(doc, source)
    value = stringify_keys(doc.data)
    if not isinstance(value, dict):
        report.add((), f"a profile is a mapping, not {kind(value)}")
        return report.problems
    for error in schema_errors(value):
        for path, message in explain(error):
            report.add(path, message)
    if not report.problems:
        _check_semantics(value, report, require_coverage)
    return sorted(report.problems, key=lambda p: (p.line, p.field))


def whole_profile_problems(doc: yamlsafe.YamlDocument, source: SourcePath | None) -> list[Problem]:
    """The problems of a whole profile a declared file extends or stands for (coverage is
    not required of it)."""
    return check_profile_document(doc, require_coverage=False, source=source)


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
    left_out = deck.get("ranks_left_out") or []
    if deck["cards"] != 52 - 4 * len(left_out):
        add(
            "deck.cards",
            f"{deck['cards']} cards, but a pack of 52 without "
            f"{' '.join(left_out) or 'any rank left out'} holds {52 - 4 * len(left_out)}",
        )
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
                f"{count} seats x {number_text(rules['hand_size'])} cards + the turned-up "
                f"card + one card to draw = {number_text(needed)}, more than the "
                f"{size}-card deck",
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
    past_target = end["kind"] in ("elimination", "first_past_target")
    if past_target and end["out_above"] is None:
        add("game_end.out_above", f"game_end.kind {end['kind']} needs its threshold score")
    if not past_target and end["out_above"] is not None:
        add(
            "game_end.out_above",
            "must be null unless game_end.kind is elimination or first_past_target, "
            f"not {end['kind']}",
        )
    if past_target and scoring["kind"] != "penalty":
        add("game_end.kind", f"{end['kind']} needs scoring.kind penalty, not {scoring['kind']}")
    if end["kind"] == "host_ends" and rules["money"] is None:
        add("money", "game_end.kind host_ends needs money (how the table settles up)")
    # The beaten_call values under which the caller scores (penalty scoring), and those of
    # them with a fixed penalty.
    caller_scores = scoring["beaten_call"] in _CALLER_SCORES
    with_penalty = scoring["beaten_call"] in ("caller_hand_plus_penalty", "penalty_only")
    # Under scoring.kind none the call parameters are not used: any of their values stands.
    if caller_scores and scoring["kind"] == "transfer":
        add("scoring.beaten_call", f"{scoring['beaten_call']} needs scoring.kind penalty")
    if scoring["kind"] == "penalty" and not caller_scores:
        add("scoring.beaten_call", f"penalty scoring needs beaten_call {_CALLER_SCORES_WORDS}")
    if scoring["beaten_penalty"] != 0 and not with_penalty:
        add(
            "scoring.beaten_penalty",
            "only caller_hand_plus_penalty and penalty_only use a penalty; must be 0",
        )
    others = scoring.get("beaten_others", "score_nothing")
    if others != "score_nothing" and not caller_scores:
        add("scoring.beaten_others", f"other seats score only under {_CALLER_SCORES_WORDS}")
    if end.get("reaching_is_out") and not past_target:
        add("game_end.reaching_is_out", "only a game with a threshold has one to reach")
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


def _check_option_values(
    spec: OptionSpec,
    base: DataPath,
    choices: list[Json],
    document: Mapping[str, Json],
    report: Report,
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
            for e in schema_errors(resolved)
            for _, message in explain(e)
        ]
        if not messages:
            messages = [
                f"{yamlsafe.format_path(p)}: {m}" for p, m in _rule_problems(resolved["rules"])
            ]
        for message in messages:
            report.add(at, f"{spec.name}={show(choice)} makes {message}")


def _check_semantics(value: dict[str, Json], report: Report, require_coverage: bool) -> None:
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
        tries.append((i, check_option(i, raw, value, report)))
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
            found, _, null_group = lookup(rules, param)
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


def _naming(path: DataPath, message: str) -> str:
    """A rule problem's message, led by its parameter's path unless it names it already."""
    where = yamlsafe.format_path(path)
    return message if where.removeprefix("rules.") in message else f"{where}: {message}"


def _check_readings(value: dict[str, Json], report: Report) -> None:
    """Each reading: known interpretation clauses, parameters that exist, the profile's own
    values one of its choices, and every choice a playable profile."""
    # lazy: start-up speed
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
        # A profile that extends another and declares this reading plays its one choice.
        derived = value.get("derived_from")
        declared = ((derived or {}).get("readings") or {}).get(reading["name"])
        broken: dict[str, list[str]] = {}
        for choice in reading["choices"]:
            if declared is not None and choice != declared:
                continue
            played = readings.with_choice(value, reading["name"], str(choice))
            problems = [_naming(path, message) for path, message in _rule_problems(played["rules"])]
            try:
                Rules.from_profile(resolve(played, {}))
            except JhyapError as exc:
                if not problems:  # the engine's refusal says again what a check above said
                    problems.append(exc.message)
            broken[str(choice)] = problems
        playable = [c for c, problems in broken.items() if not problems]
        # A variant can settle the reading on a choice its rules play.
        hint = (
            f"; declare one that plays (readings: {{{reading['name']}: {playable[0]}}})"
            if derived and declared is None and playable
            else ""
        )
        for choice, problems in broken.items():
            for message in problems:
                report.add((*at, "choices", choice), f"this choice makes {message}{hint}")


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
        hit = filecache.get(entry, content)
        if isinstance(hit, dict):
            return hit
    whole = _declared_key(path, content)
    if whole is not None:
        kept = _kept_declared(path, whole, content)
        if kept is not None:
            return kept
    try:
        doc = yamlsafe.load(path)
    except yamlsafe.YamlProblem as exc:
        field = yamlsafe.format_path(exc.path or ()) or "(file)"
        raise ProfileFileError([Problem(exc.file, exc.line, field, exc.message)]) from None
    if isinstance(doc.data, dict) and "extends" in doc.data:
        base = _base_bytes(path, doc.data["extends"])
        merged, problems = declared.resolve_declared(doc, whole_profile_problems)
        if problems or merged is None:
            raise ProfileFileError(problems)
        _refuse_a_shipped_id(path, merged, content)
        # kept only if the base read before resolving is the base still: one changed while
        # it was resolved would be kept under bytes the profile was not made from
        if whole is not None and base is not None and base == _base_bytes(path, base[0]):
            kept_base = {"extends": base[0], "sha256": hashlib.sha256(base[1]).hexdigest()}
            filecache.put(whole, {"base": kept_base, "profile": merged}, content)
        return merged
    problems = check_profile_document(doc, require_coverage=False)
    if problems:
        raise ProfileFileError(problems)
    document: dict[str, Json] = stringify_keys(doc.data)
    if entry is not None:
        filecache.put(entry, document, content)
    return document


# A declared file's whole profile is kept too, with the bytes of the file it extends: the
# same two files (and code) resolve to the same profile. Resolving one read and checked its
# base and the merged profile afresh each time, twice the cost of a whole profile's check.
def _declared_key(path: Path, content: bytes | None) -> str | None:
    """The cache entry of ``path`` as a declared file (its folder and the shipped ids are
    what its base is found by), or None when it cannot be cached."""
    if content is None or b"extends" not in content:
        return None
    where = os.path.abspath(path)
    return filecache.key("profile-declared", content, where, ",".join(data.shipped_profile_ids()))


def _base_bytes(path: Path, extends: object) -> tuple[str, bytes] | None:
    """What a declared file extends and the bytes of that file now, or None."""
    if not isinstance(extends, str):
        return None
    try:
        base = declared.base_file(path, extends)
    except data.ProfileNotFound:
        return None
    content = filecache.read_file(base)
    return None if content is None else (extends, content)


def _kept_declared(path: Path, entry: str, content: bytes | None) -> dict[str, Json] | None:
    """The whole profile of declared file ``path`` as kept, if the file it extends has not
    changed since."""
    hit = filecache.get(entry, content)
    if not isinstance(hit, dict):
        return None
    try:
        kept_base, profile = hit["base"], hit["profile"]
        now = _base_bytes(path, kept_base["extends"])
    except (KeyError, TypeError):
        return None
    if now is None or hashlib.sha256(now[1]).hexdigest() != kept_base["sha256"]:
        return None
    return profile if isinstance(profile, dict) else None


def _refuse_a_shipped_id(path: Path, document: Mapping[str, Json], content: bytes | None) -> None:
    """A profile that ``extends`` another under a shipped profile's id would take that
    profile's place, and every transcript written for it would be blamed (issue 41). (A
    standalone copy of a shipped file keeps its id: sites and tests edit such copies.)"""
    pid = document.get("id")
    if not isinstance(pid, str) or pid not in data.shipped_profile_ids():
        return
    if path.resolve().parent == data.specs_dir().resolve():
        return  # the shipped profile itself
    text = (content or b"").decode("utf-8", "replace")
    found = re.search(r"^id\s*:", text, re.MULTILINE)
    line = text.count("\n", 0, found.start()) + 1 if found else 1
    message = (
        f"{pid!r} is the id of a shipped profile; a profile of your own needs an id of its "
        "own (this one would take the shipped profile's place in every transcript written "
        "for it)"
    )
    raise ProfileFileError([Problem(str(path), line, "id", message)])


def resolved_profile(
    name_or_path: str | os.PathLike[str], options: Mapping[str, Json]
) -> dict[str, Json]:
    """The profile resolved against option values (jhyap_core.profile.resolve).

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
