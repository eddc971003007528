"""Shared data, vocabulary and helpers of the site generator: loading the profiles and
corpus, page paths and links, values and cards in words."""

from __future__ import annotations

import functools
import html
import json
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reference_engine.parameters import registry

from ..spec import data
from ..spec.json_types import Json
from ..spec.profiles import load_profile
from ..spec.steps import Transcript
from ..spec.transcript import load_corpus
from ..spec.transcript_profiles import profiles_for

Document = Mapping[str, Json]

# -- vocabulary -----------------------------------------------------------------------

FAMILIES: tuple[tuple[str, str], ...] = (
    ("players", "Players"),
    ("cards", "Cards and their values"),
    ("deal", "The deal"),
    ("turn", "A turn"),
    ("throws", "Throws"),
    ("picking", "Picking"),
    ("reshuffle", "When the deck runs out"),
    ("calling", "Calling Jhyap"),
    ("showdown", "The showdown"),
    ("scoring", "Scoring"),
    ("game-end", "The end of the game"),
    ("options", "What the host may set"),
    ("money", "Money"),
    ("timer", "The turn timer"),
    ("examples", "Examples from the document"),
    ("glossary", "Words"),
)
FAMILY_ORDER = [name for name, _ in FAMILIES]
FAMILY_TITLES = dict(FAMILIES)

# Every rule parameter's label: its title in the profile schema (the registry's).
PARAM_LABELS: dict[str, str] = {p.path: p.label for p in registry()}

VALUE_WORDS: dict[str, dict[str, str]] = {
    "direction": {"left": "to the left (clockwise)", "right": "to the right (anticlockwise)"},
    "deal.dealer": {"seat_before_starter": "the seat before the starter", "none": "no dealer"},
    "deal.order": {"one_at_a_time_from_starter": "one card at a time, the starter first"},
    "deal.first_offer": {"turned_up_card": "the card turned up after the deal"},
    "next_starter": {"next_seat": "the next seat along", "round_winner": "the winner of the hand"},
    "throws.run.ace": {"low": "low only (A 2 3, never Q K A)"},
    "throws.single": {
        "any": "any time",
        "when_no_combination": "only from a hand with no set or run",
        "highest_when_no_combination": "any from a hand with a set or run; else only the highest",
    },
    "throws.run.order": {"any": "in any order", "ascending": "lowest first"},
    "throws.laid": {
        "as_placed": "as placed",
        "by_rank": "in rank order",
        "runs_by_rank": "a run in rank order, a set or single as placed",
    },
    "pick.from_offer": {
        "any": "any card of it",
        "run_ends": "any card of a single or set; only an end card of a run",
        "last_placed": "only the card placed last",
        "first_or_last_placed": "the card placed first or the one placed last",
    },
    "reshuffle.moment": {
        "when_deck_emptied": "as soon as the deck's last card is picked",
        "at_throw_after_deck_emptied": "right after the next throw once the deck is empty",
    },
    "reshuffle.new_deck": {"out_of_play": "the cards gone out of play"},
    "reshuffle.kept_aside": {"current_offer": "the cards on offer"},
    "call.timing": {"start_of_turn": "at the start of a turn, before throwing"},
    "call.first_round": {
        "allowed": "allowed",
        "after_every_player_had_a_turn": "only once every player has had a turn",
    },
    "showdown.tie": {
        "beats_caller": "beats the caller",
        "caller_wins": "goes to the caller (only a lower hand beats the call)",
    },
    "showdown.winner_among_lowest": {
        "first_after_caller": "the first after the caller wins",
        "lowest_seat": "the smallest seat number wins",
    },
    "scoring.beaten_others": {
        "score_nothing": "the others score nothing",
        "score_own_hands": "the others score their hands, the round winner excepted",
        "all_but_caller_score_own_hands": "the others score their hands, the round winner too",
        "score_own_hands_but_lowest": "the others score their hands, every lowest hand excepted",
        "score_own_hands_but_beaters": (
            "the others score their hands, each hand that beat the call excepted"
        ),
    },
    "scoring.kind": {
        "transfer": "points change hands (a running tally)",
        "penalty": "penalty points add up",
        "none": "no points kept: the hand's winner and hand values are the result",
    },
    "scoring.won_call": {"each_other_hand": "each other player's own hand counts against them"},
    "scoring.beaten_call": {
        "hands_except_winner": "the caller pays the winner every hand but the winner's",
        "all_hands": "the caller pays the winner the total of all hands",
        "caller_hand_plus_penalty": "the caller adds their hand plus the penalty",
        "caller_hand_times": "the caller adds a multiple of their hand",
        "penalty_only": "the caller adds the penalty alone, not their hand",
    },
    "game_end.kind": {
        "host_ends": "when the host ends the table",
        "fixed_rounds": "after a fixed number of rounds",
        "elimination": "when one player is left",
        "first_past_target": "when a total passes the target; the lowest total wins",
        "one_hand": "after one hand; the hand's winner wins",
    },
    "money.settlement": {
        "largest_debtor_pays_largest_creditor": (
            "the largest debtor pays the largest creditor, in turn"
        )
    },
    "turn_timer.on_expiry": {
        "throw_highest_single_then_draw": "the highest card is thrown, then the deck's top is drawn"
    },
}

# A value that does not matter while another parameter holds a value: (that parameter, the
# value, the words shown instead). A run that turns the corner puts the ace at both ends.
MOOT: dict[str, tuple[str, Json, str]] = {
    "throws.run.ace": ("throws.run.wrap", True, "at either end: runs turn the corner (Q K A 2)"),
}


def moot_words(path: str, played: Mapping[str, Json]) -> str | None:
    """The words for ``path`` where another played value makes its own value not matter."""
    if path not in MOOT:
        return None
    other, value, words = MOOT[path]
    return words if played.get(other, rule_defaults().get(other)) == value else None


SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
CARD_NAME_RE = re.compile(r"^[A2-9TJQK][cdhs]$")
RANK_ORDER = "A23456789TJQK"
SUIT_ORDER = "cdhs"


# -- data ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SiteData:
    """Everything the generated pages are made from."""

    profiles: Mapping[str, Document]
    transcripts: Sequence[Transcript] = ()
    schema_dir: Path | None = None
    repo_root: Path | None = None
    selections: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    skipped: int = 0  # problems found while loading the corpus (those transcripts are left out)

    def profiles_of(self, transcript: Transcript) -> tuple[str, ...]:
        """The profiles ``transcript`` runs under."""
        if transcript.id in self.selections:
            return self.selections[transcript.id]
        return tuple(profiles_for(transcript, self.profiles))

    def clause_owner(self) -> dict[str, str]:
        return {str(c["id"]): pid for pid, doc in self.profiles.items() for c in clauses_of(doc)}

    def tested_by(self) -> dict[str, list[Transcript]]:
        """Clause id → the transcripts that list it, in id order."""
        found: dict[str, list[Transcript]] = {}
        for transcript in sorted(self.transcripts, key=lambda t: t.id):
            for clause in transcript.clauses:
                found.setdefault(clause, []).append(transcript)
        return found

    def file_label(self, path: Path) -> str:
        """``path`` relative to the repository root where possible."""
        if self.repo_root is not None:
            try:
                return path.resolve().relative_to(self.repo_root.resolve()).as_posix()
            except ValueError:
                pass
        return path.as_posix()


# yaml.safe_load's loader in C when PyYAML has libyaml: the same documents, several times faster
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_profiles(folder: Path | None = None) -> dict[str, dict[str, Json]]:
    """The profile documents under ``folder`` (default: the shipped ``specs/``), by id, in the
    order of their source documents (then ids): Dashain, EverestBuzz, Dhumbal."""
    folder = folder or data.specs_dir()
    profiles: dict[str, dict[str, Json]] = {}
    for path in sorted(p for p in folder.iterdir() if p.suffix in data.PROFILE_SUFFIXES):
        with open(path, encoding="utf-8") as handle:
            document = yaml.load(handle, Loader=_SAFE_LOADER)
        if isinstance(document, dict) and "extends" in document:
            document = load_profile(path)  # resolved: the base with the file's changes
        if isinstance(document, dict):
            profiles[str(document.get("id") or path.stem)] = document
    return dict(sorted(profiles.items(), key=lambda item: (_source_document(item[1]), item[0])))


def _source_document(document: Document) -> str:
    source = document.get("source")
    return str(source.get("document", "")) if isinstance(source, Mapping) else ""


def load_site(
    specs: Path | None = None, transcripts: Path | None = None, schemas: Path | None = None
) -> SiteData:
    """The shipped profiles, the transcripts that load cleanly and the schema folder."""
    profiles = load_profiles(specs)
    corpus, problems = load_corpus(transcripts) if _has_yaml(transcripts) else ([], [])
    schema_dir = schemas or data.schema_dir()
    selections = {t.id: tuple(profiles_for(t, profiles)) for t in corpus}
    return SiteData(
        profiles=profiles,
        transcripts=corpus,
        schema_dir=schema_dir,
        repo_root=data.PACKAGE_DIR.parent,
        selections=selections,
        skipped=len(problems),
    )


def _has_yaml(folder: Path | None) -> bool:
    folder = folder or data.transcripts_dir()
    return folder.is_dir() and any(
        path for suffix in data.PROFILE_SUFFIXES for path in folder.rglob(f"*{suffix}")
    )


def clauses_of(document: Document) -> list[Mapping[str, Json]]:
    return [c for c in document.get("clauses") or [] if isinstance(c, Mapping)]


def profile_name(document: Document) -> str:
    return str(document.get("name") or document.get("id"))


# -- paths and links -------------------------------------------------------------------

COMPARISON_PAGE = "comparison.md"
CLAUSES_PAGE = "clauses.md"
CORPUS_INDEX = "corpus/index.md"
SCHEMAS_PAGE = "schemas.md"


def profile_page_path(pid: str) -> str:
    return f"profiles/{pid}.md"


def transcript_page_path(tid: str) -> str:
    return f"corpus/{tid}.md"


def link(from_page: str, to_page: str, anchor: str | None = None) -> str:
    """The relative Markdown link target from one generated page to another."""
    target = posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")
    return f"{target}#{anchor}" if anchor else target


def clause_link(from_page: str, clause_id: str, owner: str) -> str:
    return f"[{clause_id}]({link(from_page, profile_page_path(owner), clause_id)})"


# -- values in words ----------------------------------------------------------------------


def card_text(card: str) -> str:
    """``Th`` → ``10♥`` (red suits in a ``jc-red`` span); anything else unchanged."""
    if not isinstance(card, str) or not CARD_NAME_RE.match(card):
        return str(card)
    rank = "10" if card[0] == "T" else card[0]
    if card[1] in "dh":
        return f'<span class="jc-red">{rank}{SUIT_SYMBOLS[card[1]]}</span>'
    return rank + SUIT_SYMBOLS[card[1]]


def cards_text(cards: Iterable[str]) -> str:
    shown = [card_text(c) for c in cards]
    return " ".join(shown) if shown else "no cards"


def is_card_list(value: Json) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(c, str) and CARD_NAME_RE.match(c) for c in value)
    )


def scalar_text(value: Json) -> str:
    """A parameter or option value as written in a profile."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def value_words(path: str, value: Json) -> str:
    """A rule parameter's value in plain words."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    words = VALUE_WORDS.get(path, {})
    if isinstance(value, str) and value in words:
        return words[value]
    if path == "money.dollars_per_point":
        return f"${value}"
    described = rule_enum_descriptions().get(path, {})
    if isinstance(value, str) and value in described:  # a value with no short words yet
        return described[value].rstrip(".")
    return scalar_text(value)


@functools.cache
def rule_enum_descriptions() -> dict[str, dict[str, str]]:
    """Rule path → enum value → its ``enumDescriptions`` sentence, from the profile schema."""
    return {
        p.path: dict(zip(p.values, p.value_descriptions, strict=False))
        for p in registry()
        if p.value_descriptions
    }


@functools.cache
def rule_defaults() -> dict[str, Json]:
    """Rule path → the value the profile schema gives a parameter a profile leaves out."""
    return registry().defaults()


def md_safe(text: str) -> str:
    """Plain text made safe inside Markdown and HTML (a profile's own Markdown is kept)."""
    return html.escape(text, quote=False)


def inline_text(text: Json) -> str:
    """Text from a profile shown inline: collapsed to one line, HTML-escaped."""
    return md_safe(" ".join(str(text).split()))


def by_family(
    clauses: Sequence[Mapping[str, Json]],
) -> list[tuple[str, list[Mapping[str, Json]]]]:
    groups: dict[str, list[Mapping[str, Json]]] = {}
    for clause in clauses:
        groups.setdefault(str(clause.get("family") or "other"), []).append(clause)
    known = [f for f in FAMILY_ORDER if f in groups]
    extra = sorted(f for f in groups if f not in FAMILY_ORDER)
    return [(f, groups[f]) for f in known + extra]
