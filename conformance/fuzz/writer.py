"""A shrunk divergence as a transcript of kind ``fuzz``, and the known-divergences file.

The transcript expects what the reference engine answered. It is a finding, not an
oracle: a person checks it against the rule texts before promoting it to ``kind: oracle``
(or fixes the reference instead). Its ``fuzz`` block keeps the seed, the game, the
divergence signature and the commands that find it again and replay it.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference_engine.parameters import STEP_FAMILY, Family

from ..harness.known_failures import InputError, data_entries
from ..spec.decks import Deck, deck_header, deck_names, expand_deal, table_deck
from ..spec.files import write_atomic
from ..spec.json_types import Json
from ..spec.yamlsafe import transcript_yaml
from .driver import FIELD_FAMILIES, UNCHECKABLE_AFTER_GAME, Divergence, step_name
from .generate import RAW_PROBES, Plan, Request

# The clause families a divergence at a step (or in an event or state field) involves:
# a request's family is the registry's (STEP_FAMILY); a table's start and end, several.
_STEP_FAMILIES = {
    **{step: (family.clause_family,) for step, family in STEP_FAMILY.items()},
    "start": (Family.PLAYERS.clause_family, Family.OPTIONS.clause_family),
    "end_game": (Family.GAME_END.clause_family, Family.MONEY.clause_family),
}
_WORD = re.compile(r"[a-z_]+(?:\.[a-z_]+)?")


def involved_clauses(document: Mapping[str, Json], divergence: Divergence) -> list[str]:
    """The profile's clauses in the rule families the divergence touches; for a raw-line
    probe, the protocol clauses its kind tests."""
    step, _, detail = divergence.signature.partition(" ")[2].partition(":")
    if step.startswith("raw ") and step[4:] in RAW_PROBES:
        return list(RAW_PROBES[step[4:]].clauses)
    # The signature names a rule family where it names no step (see driver.classify).
    families = set(_STEP_FAMILIES.get(step, (step,)))
    for word in _WORD.findall(detail):
        families.update(FIELD_FAMILIES.get(word, ()))
        families.update(FIELD_FAMILIES.get(word.split(".")[0], ()))
    if "expected invalid_seats" in detail or "got invalid_seats" in detail:
        families = {"players"}
    clauses = [str(c["id"]) for c in document.get("clauses") or [] if c["family"] in families]
    if not clauses:
        clauses = [str(c["id"]) for c in (document.get("clauses") or [])[:1]]
    return clauses


def _deal_step(
    order: Sequence[str], answer: Mapping[str, Json] | None, deck: Deck = (1, 0)
) -> dict[str, Json]:
    """A deal as hands, turned-up card and the deck cards that matter, when that says the
    same order of the table's ``deck`` (packs, jokers per pack); else the order itself."""
    events = (answer or {}).get("events") or []
    started = next((e for e in events if e.get("type") == "round_started"), None)
    dealt = next((e for e in events if e.get("type") == "dealt"), None)
    if not (answer or {}).get("ok") or started is None or dealt is None:
        return {"order": list(order)}
    seats = list(started["turn_order"])
    size = max(len(h) for h in dealt["hands"])
    hands: dict[str, list[str]] = {str(s): [] for s in seats}
    for i in range(size * len(seats)):
        hands[str(seats[i % len(seats)])].append(order[i])
    cut = size * len(seats)
    # deal.first_offer none: the dealt event's turned_up is null and the deck follows the hands.
    turned = order[cut] if dealt.get("turned_up") is not None else None
    rest = list(order[cut + (turned is not None) :])
    canonical = deck_names(*deck)
    keep = len(rest)
    while keep > 0:
        left = Counter(canonical)
        named = [c for h in hands.values() for c in h] + ([turned] if turned else [])
        left.subtract([*named, *rest[: keep - 1]])
        tail = [c for c in dict.fromkeys(canonical) for _ in range(max(0, left[c]))]
        if rest[keep - 1 :] == tail:
            keep -= 1
        else:
            break
    spec: dict[str, Json] = {
        "starter": started["starter"],
        "hands": {int(s): cards for s, cards in hands.items()},
        "turned_up": turned,
    }
    if keep:
        spec["deck"] = rest[:keep]
    if expand_deal({**spec, "hands": hands}, deck) != list(order):
        return {"order": list(order)}
    return spec


def _act(message: Mapping[str, Json]) -> dict[str, Json]:
    action = message["action"]
    act: dict[str, Json] = {"seat": message["seat"]}
    kind = action.get("type")
    if kind == "call":
        act["call"] = True
    elif kind == "throw":
        act["throw"] = list(action["cards"])
    elif kind == "timeout":
        act["timeout"] = True
    elif kind == "slapdown":
        act["slapdown"] = action.get("card")
    else:
        act["pick"] = action.get("card", "deck") if action.get("from") == "offer" else "deck"
    return act


def steps_of(
    requests: Sequence[Request],
    answers: Sequence[Mapping[str, Json]],
    divergence: Divergence | None = None,
    deck: Deck = (1, 0),
) -> list[dict[str, Json]]:
    """Transcript steps for the requests after ``start``, expecting the reference's answers.

    The diverging ``state`` request becomes a check of the differing fields only; a check
    once the game is over leaves out the fields that mean nothing then.
    """
    steps: list[dict[str, Json]] = []
    game_over = False
    for index, (item, answer) in enumerate(zip(requests, answers, strict=True)):
        if index and (answer.get("ok") or item.cmd == "state"):
            events = answer.get("events") or []
            ended = any(isinstance(e, Mapping) and e.get("type") == "game_ended" for e in events)
        else:
            ended = False
        if index == 0:
            continue
        message = item.message
        cmd = item.cmd
        step: dict[str, Json]
        if cmd == "state":
            state = dict(answer.get("state") or {})
            if divergence is not None and index == divergence.index:
                fields = {re.split(r"[\[.:]", d, maxsplit=1)[0] for d in divergence.differences}
                state = {k: v for k, v in state.items() if k in fields} or state
            if game_over:
                state = {k: v for k, v in state.items() if k not in UNCHECKABLE_AFTER_GAME}
            steps.append({"check": state})
            continue
        if cmd == "raw":
            steps.append(_raw_step(item, answer))
            continue
        if cmd == "deal":
            step = {"deal": _deal_step(message["deck"], answer, deck)}
        elif cmd == "act":
            step = {"act": _act(message)}
        elif cmd == "reshuffle":
            step = {"reshuffle": list(message["order"])}
        elif cmd == "set_option":
            step = {"set_option": {"name": message["name"], "value": message["value"]}}
        elif cmd == "end_game":
            step = {"end_game": True}
        else:
            raise ValueError(f"a {cmd} request cannot be written as a transcript step")
        if answer.get("ok"):
            step["expect"] = {"events": list(answer.get("events") or [])}
        else:
            step["expect"] = {"error": answer["error"]["code"]}
        steps.append(step)
        game_over = game_over or ended
    return steps


def _raw_step(item: Request, answer: Mapping[str, Json]) -> dict[str, Json]:
    """A raw-line probe as a ``raw`` step: the error expected, and the seq when the answer
    does not echo the one the harness puts in the line (null, or the line's own)."""
    assert item.raw is not None
    step: dict[str, Json] = {"raw": dict(item.raw)}
    expect: dict[str, Json] = {}
    if not answer.get("ok"):
        expect["error"] = answer["error"]["code"]
    _, put = item.line(0)
    if put is None or answer.get("seq") is None:
        expect["seq"] = answer.get("seq")
    if expect:
        step["expect"] = expect
    return step


def transcript_id(profile: str, seed: int, game: int) -> str:
    return f"fuzz-{profile}-seed-{seed}-game-{game}"


def transcript_data(
    document: Mapping[str, Json],
    plan: Plan,
    answers: Sequence[Mapping[str, Json]],
    divergence: Divergence,
    *,
    seed: int,
    game: int,
    engine: str,
    rerun: str,
    replay: str,
) -> dict[str, Json]:
    """The transcript of a shrunk divergence (a mapping ready for YAML)."""
    ident = transcript_id(plan.profile, seed, game)
    data: dict[str, Json] = {
        "id": ident,
        "title": f"Found by jhyap fuzz: {divergence.signature} (not an oracle)",
        "description": (
            "Found by differential fuzzing: the engine under test answered this game "
            "differently from the reference engine. Every expectation is the reference "
            f"engine's answer. The divergence ({divergence.kind}) is at "
            f"{_where(plan.requests, divergence)}: {'; '.join(divergence.differences[:3])}. "
            "Not an oracle until a person checks it against the rule texts and promotes "
            "it (kind: oracle), or fixes the reference instead."
        ),
        "kind": "fuzz",
        "profiles": [plan.profile],
    }
    if plan.spec.options:
        data["options"] = dict(plan.spec.options)
    data["seats"] = plan.spec.seats
    rules = plan.requests[0].message["profile"]["rules"]
    low, high = int(rules["seats"]["min"]), int(rules["seats"]["max"])
    deck = table_deck(rules, plan.spec.seats) if low <= plan.spec.seats <= high else (1, 0)
    if deck != (1, 0):
        data["deck"] = deck_header(deck)
    data["clauses"] = involved_clauses(document, divergence)
    data["fuzz"] = {
        "seed": seed,
        "game": game,
        "signature": divergence.signature,
        "class": divergence.kind,
        "engine": engine,
        "rerun": rerun,
        "replay": replay,
    }
    if plan.start_error is not None or (answers and not answers[0].get("ok")):
        data["start_error"] = answers[0]["error"]["code"]
    else:
        data["steps"] = steps_of(plan.requests, answers, divergence, deck)
    return data


def _where(requests: Sequence[Request], divergence: Divergence) -> str:
    if divergence.index == 0:
        return "the start of the table"
    return f"step {divergence.index} ({step_name(requests[divergence.index].message)})"


def write_transcript(directory: Path, data: Mapping[str, Json]) -> Path:
    """Write ``<id>.yaml`` into ``directory``; an existing different file is kept, and the
    new one gets a numbered name."""

    directory.mkdir(parents=True, exist_ok=True)
    header = (
        "# Found by jhyap fuzz: the reference engine's answers, not an oracle.\n"
        f"# Replay: {data['fuzz']['replay']}\n"
    )
    text = header + transcript_yaml(json.loads(json.dumps(data)))
    ident = str(data["id"])
    path = directory / f"{ident}.yaml"
    number = 2
    while path.exists() and path.read_text("utf-8") != text:
        ident = f"{data['id']}-{number}"
        path = directory / f"{ident}.yaml"
        number += 1
    if ident != data["id"]:
        text = text.replace(f"id: {data['id']}\n", f"id: {ident}\n", 1)
    write_atomic(str(path), text)
    return path


# -- known divergences -----------------------------------------------------------------


@dataclass(frozen=True)
class KnownDivergence:
    """An accepted divergence: a signature pattern (fnmatch), the clause, and why."""

    signature: str
    reason: str
    clause: str | None = None

    def matches(self, signature: str) -> bool:
        return fnmatch.fnmatchcase(signature, self.signature)


class KnownDivergenceError(Exception):
    """A known-divergences file that cannot be used; one problem a line."""


def _known_divergence_faults(at: str, item: Mapping[str, Any]) -> list[str]:
    faults = []
    signature, reason, clause = item.get("signature"), item.get("reason"), item.get("clause")
    if not isinstance(signature, str) or not signature.strip():
        faults.append(f"{at}: signature must be a divergence signature")
    if not isinstance(reason, str) or not reason.strip():
        faults.append(f"{at}: reason must say why it is accepted")
    if clause is not None and not isinstance(clause, str):
        faults.append(f"{at}: clause must be a clause id")
    return faults


def load_known_divergences(path: str | Path) -> list[KnownDivergence]:
    """The entries of a known-divergences file (YAML, or JSON for ``*.json``)."""

    try:
        items, problems = data_entries(
            Path(path),
            "known divergences",
            ("signature", "clause", "reason"),
            "signature and reason",
            _known_divergence_faults,
        )
    except InputError as exc:
        raise KnownDivergenceError("\n".join(exc.problems)) from None
    if problems:
        raise KnownDivergenceError("\n".join(problems))
    return [KnownDivergence(i["signature"], i["reason"], i.get("clause")) for i in items]


def known_entry(known: Sequence[KnownDivergence], signature: str) -> KnownDivergence | None:
    return next((k for k in known if k.matches(signature)), None)


__all__ = [
    "KnownDivergence",
    "KnownDivergenceError",
    "involved_clauses",
    "known_entry",
    "load_known_divergences",
    "steps_of",
    "transcript_data",
    "transcript_id",
    "write_transcript",
]
