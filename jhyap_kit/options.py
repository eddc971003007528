"""Opening a table and changing its options: the profile, option names, values, seats.

The checks run in the protocol's order (docs/protocol.md, the order of checks, steps 7
and 9). Options resolve as the reference engine resolves them (``start.options`` win over
``profile.rules``; a missing option takes its default; ``values`` or ``range`` with
``max: null``; ``sets`` one path or a list; ``map``; decimals as strings), through its
rule-free ``jhyap_core.profile``. A rule parameter value the engine does not declare
is ``unsupported_profile`` when the profile holds it, ``unsupported_option`` naming the
option when an option value sets it; so is a value the kit's default hooks would misplay
(``support.default_misplay``) where the binding does not override the hook.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from jhyap_core.messages import Refused
from jhyap_core.profile import OptionChanges, OptionSpec, option_specs, resolve
from jhyap_core.vocabulary import BETWEEN_HANDS, ErrorCode, JhyapError, Phase

from .support import RuleSupport, default_misplay, unsupported
from .table import KitRules

Json = Any


@dataclass(frozen=True, slots=True)
class Opened:
    """A table's profile as given (``document``), resolved with its options, and the
    parameters the kit reads from it."""

    document: Mapping[str, Json]
    profile: dict[str, Json]
    kit_rules: KitRules

    @property
    def rules(self) -> Mapping[str, Json]:
        return self.profile["rules"]  # type: ignore[no-any-return]


def open_table(
    profile: Mapping[str, Json],
    options: Mapping[str, Json],
    seats: int,
    support: RuleSupport,
    offered: Collection[str] | None,
    overridden: Collection[str] = (),
) -> Opened:
    """The checks of ``start``, in order: the profile, every option name, the values, seats.
    ``overridden``: the default hooks the binding overrides."""
    rules: Any = profile.get("rules")  # a mapping once KitRules has read it
    KitRules.read(rules)
    specs = _specs(profile)
    set_by_options = [path for spec in specs.values() for path in spec.targets]
    message = unsupported(rules, support, skip=set_by_options)
    if message is not None:
        raise Refused(ErrorCode.UNSUPPORTED_PROFILE, message)
    for name in options:
        _check_name(name, specs, offered)
    resolved = _resolve(profile, options)
    _refuse_unsupported(resolved["rules"], specs, support, overridden)
    kit = KitRules.read(resolved["rules"])
    if isinstance(seats, bool) or not kit.seats_min <= seats <= kit.seats_max:
        raise Refused(
            ErrorCode.INVALID_SEATS,
            f"seats must be {kit.seats_min} to {kit.seats_max}, not {seats!r}",
        )
    return Opened(profile, resolved, kit)


def change_option(
    opened: Opened,
    phase: Phase,
    hands_dealt: int,
    name: str,
    value: Json,
    support: RuleSupport,
    offered: Collection[str] | None,
    overridden: Collection[str] = (),
) -> Opened:
    """The checks of ``set_option``, in order: the name, the phase, the lock, the value."""
    specs = _specs(opened.document)
    if name not in specs:
        raise _unknown_option(name, specs)
    if phase not in BETWEEN_HANDS:
        raise Refused(ErrorCode.WRONG_PHASE, "options change only between hands")
    changes = specs[name].changes
    if changes is OptionChanges.AT_START_ONLY or (
        changes is OptionChanges.BEFORE_FIRST_DEAL and hands_dealt > 0
    ):
        raise Refused(ErrorCode.OPTION_LOCKED, f"option {name} is locked once the table is open")
    _check_name(name, specs, offered)
    values = dict(opened.profile["option_values"])
    values[name] = value
    resolved = _resolve(opened.document, values)
    _refuse_unsupported(resolved["rules"], specs, support, overridden, changing=name)
    return Opened(opened.document, resolved, KitRules.read(resolved["rules"]))


def _check_name(
    name: str, specs: Mapping[str, OptionSpec], offered: Collection[str] | None
) -> None:
    if name not in specs:
        raise _unknown_option(name, specs)
    if offered is not None and name not in offered:
        raise Refused(ErrorCode.UNSUPPORTED_OPTION, f"this engine has no option {name}")


def _refuse_unsupported(
    rules: Mapping[str, Json],
    specs: Mapping[str, OptionSpec],
    support: RuleSupport,
    overridden: Collection[str],
    changing: str | None = None,
) -> None:
    """unsupported_option, naming the option, for a parameter value an option set that the
    engine does not play (docs/readings.md: an engine may offer fewer values), or that the
    kit's default hooks would misplay; unsupported_profile when no option set it. Where two
    options set the parameter, the one being changed (``changing``) is named."""
    message = unsupported(rules, support)
    if message is not None:
        paths: tuple[str, ...] = (message.split(":", 1)[0].removeprefix("rules."),)
    else:
        misplay = default_misplay(rules, overridden)
        if misplay is None:
            return
        message, paths = misplay.message, misplay.parameters
    setters = [
        n
        for n, spec in specs.items()
        for t in spec.targets
        if any(path in (t, *_parents(t)) or _under(t, path) for path in paths)
    ]
    owner = changing if changing in setters else next(iter(setters), None)
    if owner is None:
        raise Refused(ErrorCode.UNSUPPORTED_PROFILE, message)
    raise Refused(ErrorCode.UNSUPPORTED_OPTION, f"option {owner}: {message}")


def _specs(profile: Mapping[str, Json]) -> dict[str, OptionSpec]:
    try:
        return dict(option_specs(profile))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise Refused(
            ErrorCode.INVALID_PROFILE, f"profile options are malformed: {exc!r}"
        ) from None


def _under(path: str, prefix: str) -> bool:
    return path.startswith(prefix + ".")


def _parents(path: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``: a declared subtree may hold the parameter an option sets."""
    keys = path.split(".")
    return [".".join(keys[:i]) for i in range(1, len(keys))]


def _unknown_option(name: str, specs: Mapping[str, OptionSpec]) -> Refused:
    known = ", ".join(specs) or "none"
    return Refused(
        ErrorCode.UNKNOWN_OPTION, f"unknown option {name!r}; this profile's options: {known}"
    )


def _resolve(profile: Mapping[str, Json], options: Mapping[str, Json]) -> dict[str, Json]:
    """The profile resolved with ``options``; the reference's errors become refusals."""
    try:
        return resolve(profile, options)
    except JhyapError as exc:
        raise Refused(exc.code, exc.message) from None
