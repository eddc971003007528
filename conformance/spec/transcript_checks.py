"""What a transcript must hold beyond its schema: ids, profiles, seats, decks, clauses
and the order of its steps (docs/transcripts.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jhyap_core.profile import resolve
from jhyap_core.vocabulary import EventType, JhyapError

from . import protocol, readings, yamlsafe
from .decks import CARD_NAMES, Deck, deck_header, deck_names, deck_words, is_card_name
from .profiles import Problem
from .steps import Transcript
from .transcript_profiles import Documents, clause_owners, deck_of, profiles_for, shipped_documents


def semantic_problems(
    doc: yamlsafe.YamlDocument,
    value: Mapping[str, Any],
    transcript: Transcript,
    given: Documents | None = None,
    steps_found: StepProblems | None = None,
) -> list[Problem]:
    """The problems of a schema-valid transcript beyond its schema, under the profiles
    ``given`` (the shipped ones by default); ``steps_found``: its ``step_problems``, when
    known already (they read no profile)."""
    problems: list[Problem] = []

    def add(path: Sequence[str | int], message: str) -> None:
        problems.append(
            Problem(doc.file, doc.line(path), yamlsafe.format_path(path) or "(top)", message)
        )

    if Path(doc.file).stem != transcript.id:
        add(["id"], f"id {transcript.id!r} must match the file name {Path(doc.file).name!r}")
    try:
        documents = given if given is not None else shipped_documents()
    except Exception as exc:  # a broken shipped profile is reported by validating specs/
        add(["profiles"], f"cannot load the shipped profiles: {exc}")
        return problems
    for i, pid in enumerate(transcript.profiles):
        if pid not in documents:
            add(
                ["profiles", i],
                f"no profile {pid!r}; known: {', '.join(sorted(documents))}",
            )
    # A transcript may test only an alternative reading, and is checked under every reading.
    given_documents = documents
    documents = readings.with_alternatives(documents)
    selected = profiles_for(transcript, documents)
    if not selected and not problems:
        add(
            ["where" if transcript.where else "profiles"],
            "selects no profile, under any reading (check the condition and the options)",
        )
    # Alternative readings share their profile's seats: check each profile once. A ruleset
    # given to a run (a declared-readings file, a variant) is checked only where the
    # transcript names it: under any other it runs, derived or not applicable, never refused.
    shipped = shipped_documents() if given is not None else given_documents
    checked = [
        p for p in selected if p in given_documents and (p in shipped or p in transcript.profiles)
    ]
    for pid in checked or [p for p in selected if p not in given_documents]:
        try:
            resolved = (
                resolve(documents[pid], transcript.options)
                if transcript.options
                else documents[pid]
            )
        except JhyapError as exc:
            add(["options"], f"under {pid}: {exc.message}")
            continue
        seats = resolved["rules"]["seats"]
        inside = seats["min"] <= transcript.seats <= seats["max"]
        played = deck_of(resolved["rules"], transcript.seats)
        if inside and played != transcript.deck and transcript.steps:
            header = deck_header(played or (1, 0))
            written = ", ".join(f"{k}: {v}".replace("'", "") for k, v in header.items())
            add(
                ["deck"],
                f"{pid} plays {transcript.seats} seats with {deck_words(played or (1, 0))};"
                f" say so with deck: {{{written}}}",
            )
        if not inside and transcript.start_error is None:
            add(
                ["seats"],
                f"{transcript.seats} seats is outside {pid}'s {seats['min']}-{seats['max']}"
                " (a transcript about a refused table says so with start_error)",
            )
    if transcript.start_error is not None and transcript.steps:
        add(["steps"], "a transcript whose table is refused (start_error) has no steps")
    clause_owner = clause_owners(documents)
    families = {readings.base_id(documents[pid]) for pid in selected}
    for i, clause in enumerate(transcript.clauses):
        owner = clause_owner.get(clause)
        if owner is None:
            add(["clauses", i], f"no clause {clause!r} in any shipped profile or the protocol")
        elif selected and owner not in families and owner != protocol.OWNER:
            add(
                ["clauses", i],
                f"clause {clause!r} belongs to {owner}, which this transcript does not run under",
            )
    for step in transcript.steps:
        for j, clause in enumerate(step.clauses):
            if clause not in clause_owner:
                add(
                    ["steps", step.index, "clauses", j],
                    f"no clause {clause!r} in any shipped profile or the protocol",
                )
            elif clause not in transcript.clauses:
                add(
                    ["steps", step.index, "clauses", j],
                    f"clause {clause!r} is not among the transcript's clauses",
                )
    found = steps_found if steps_found is not None else step_problems(value, transcript)
    for path, message in found:
        add(path, message)
    return problems


StepProblems = list[tuple[list[str | int], str]]


def step_problems(value: Mapping[str, Any], transcript: Transcript) -> StepProblems:
    """What the transcript's steps break of their order and their deals, each by its path
    (the checks of ``semantic_problems`` that read no profile)."""
    found: StepProblems = []
    _check_steps(value.get("steps") or [], transcript, lambda p, m: found.append((p, m)))
    return found


# State fields no rule gives a meaning once the game is over; engines report them differently.
UNCHECKABLE_AFTER_GAME = ("starter", "dealer")


def _check_steps(steps: Sequence[Mapping[str, Any]], transcript: Transcript, add: Any) -> None:
    in_hand = False
    dealt = False
    game_over = False
    started = not transcript.fresh_engine
    for i, raw in enumerate(steps):
        refused = "error" in (raw.get("expect") or {})
        events = (raw.get("expect") or {}).get("events") or []
        if "check" in raw and game_over:
            for name in UNCHECKABLE_AFTER_GAME:
                if name in raw["check"]:
                    add(
                        ["steps", i, "check", name],
                        f"{name} means nothing once the game is over; do not check it",
                    )
        game_over = game_over or any(
            isinstance(e, Mapping) and e.get("type") == EventType.GAME_ENDED for e in events
        )
        if any(isinstance(e, Mapping) and e.get("type") == EventType.ROUND_ENDED for e in events):
            in_hand = False  # a hand may end without a call (the deck ran out)
        if "start" in raw:
            if not refused:
                started, in_hand, dealt, game_over = True, False, False, False
            continue
        if not started and ("check" in raw or "legal" in raw or (not refused and "raw" not in raw)):
            kind = next(k for k in raw if k not in ("expect", "note", "clauses"))
            add(["steps", i, kind], "before the table is started a step must expect an error")
        if "seq" in (raw.get("expect") or {}) and "raw" not in raw:
            add(["steps", i, "expect", "seq"], "only a raw step may state the answer's seq")
        if "deal" in raw:
            spec = raw["deal"]
            _check_deal(spec, transcript.seats, ["steps", i, "deal"], add, transcript.deck)
            if in_hand and not refused:
                add(["steps", i, "deal"], "a deal in the middle of a hand (no call ended it)")
            in_hand = in_hand or not refused
            dealt = True
        elif "act" in raw:
            act = raw["act"]
            if not dealt:
                add(["steps", i, "act"], "an action before any deal")
            if not 0 <= act["seat"] < transcript.seats and not refused:
                add(
                    ["steps", i, "act", "seat"],
                    f"no seat {act['seat']} at {transcript.seats} seats",
                )
            cards = list(act.get("throw") or []) + (
                [act["pick"]] if "pick" in act and act["pick"] != "deck" else []
            )
            for card in cards:
                if not is_card_name(card) and not refused:
                    add(["steps", i, "act"], f"{card!r} is not a card")
            if "call" in act and not refused:
                in_hand = False
        elif "reshuffle" in raw:
            order = raw["reshuffle"]
            if transcript.deck == (1, 0) and len(set(order)) != len(order):
                add(["steps", i, "reshuffle"], "a card appears twice in the reshuffle order")
        elif ("set_option" in raw or "end_game" in raw) and in_hand and not refused:
            key = "set_option" if "set_option" in raw else "end_game"
            add(["steps", i, key], f"{key} during a hand must expect an error (wrong_phase)")


def _check_deal(
    spec: Mapping[str, Any],
    seats: int,
    path: list[str | int],
    add: Any,
    deck: Deck = (1, 0),
) -> None:
    all_names = deck_names(*deck)
    if "order" in spec:
        order = spec["order"]
        if deck != (1, 0):
            if Counter(order) != Counter(all_names):
                add([*path, "order"], f"must hold the deck's {len(all_names)} cards")
            return
        if sorted(order) != sorted(CARD_NAMES):
            twice = sorted({c for c in order if order.count(c) > 1})
            add(
                [*path, "order"],
                "must hold the 52 cards once each"
                + (f"; twice: {' '.join(twice)}" if twice else ""),
            )
        return
    hands = spec["hands"]
    named: list[str] = [c for cards in hands.values() for c in cards]
    if spec["turned_up"] is not None:  # null: no card turned up (deal.first_offer none)
        named.append(spec["turned_up"])
    named.extend(spec.get("deck") or [])
    available = Counter(all_names)
    seen: Counter[str] = Counter()
    for card in named:
        seen[card] += 1
        if seen[card] > available[card]:
            add(path, f"card {card} is dealt twice" if deck == (1, 0) else f"too many {card}")
    sizes = {len(cards) for cards in hands.values()}
    if len(sizes) > 1:
        add([*path, "hands"], "every hand must have the same number of cards")
    for seat in hands:
        if not 0 <= int(seat) < seats:
            add([*path, "hands", seat], f"no seat {seat} at {seats} seats")
    if str(spec["starter"]) not in {str(s) for s in hands}:
        add([*path, "starter"], f"starter {spec['starter']} is not dealt a hand")
