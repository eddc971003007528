"""Generate the documentation site's rule pages from ``specs/`` and the transcript corpus.

Nothing here writes into ``docs/``: :func:`generate` returns a mapping from a page's path
(relative to ``docs/``) to its Markdown, and ``docs/hooks/gen_pages.py`` hands those pages
to mkdocs-gen-files at build time. Every function takes its data as arguments, so a test
can render a page from a modified profile without touching the shipped files.

Pages generated:

- ``comparison.md``: every rule parameter and option, one column per profile, the rows
  that differ first;
- ``profiles/<id>.md``: one profile's clauses grouped by family, its host options and a
  worked example;
- ``clauses.md``: every clause of every profile with the transcripts that test it;
- ``corpus/index.md`` and ``corpus/<transcript id>.md``: each transcript narrated as a hand;
- ``schemas.md``: every JSON Schema under ``schema/``.
"""

from __future__ import annotations

import copy
import html
import json
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reference_engine.profile import resolve

from ..spec import data
from ..spec.protocol import protocol_clauses
from ..spec.transcript import Step, Transcript, load_corpus, profiles_for

Json = Any
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

_RANK_NAMES = {
    "A": "an ace",
    "2": "a two",
    "3": "a three",
    "4": "a four",
    "5": "a five",
    "6": "a six",
    "7": "a seven",
    "8": "an eight",
    "9": "a nine",
    "T": "a ten",
    "J": "a jack",
    "Q": "a queen",
    "K": "a king",
}

PARAM_LABELS: dict[str, str] = {
    "seats.min": "Fewest players",
    "seats.max": "Most players",
    "deck.cards": "Cards in the pack",
    "deck.jokers": "Jokers in the pack",
    "hand_size": "Cards dealt to each player",
    "direction": "Direction of play",
    "deal.dealer": "Dealer",
    "deal.first_starter": "Seat that starts the first hand",
    "deal.order": "How the cards are dealt",
    "deal.first_offer": "First card on offer",
    "next_starter": "Who starts the next hand",
    "throws.set.min": "Smallest set",
    "throws.set.max": "Largest set",
    "throws.run.min": "Shortest run",
    "throws.run.ace": "The ace in a run",
    "throws.order_matters": "Order of a throw's cards matters",
    "pick.from_offer": "Which card of the offer may be picked",
    "pick.only_after_multi_throw": "Offer open only after a throw of two or more cards",
    "reshuffle.moment": "When a new deck is made",
    "reshuffle.new_deck": "The new deck is made of",
    "reshuffle.kept_aside": "Kept out of the new deck",
    "call.limit": "Call limit (points)",
    "call.inclusive": "A hand exactly at the limit may call",
    "call.timing": "When a player may call",
    "call.first_round": "Calling in the first round",
    "showdown.tie": "A hand equal to the caller's",
    "showdown.winner_among_lowest": "Several lowest hands",
    "scoring.kind": "Kind of scoring",
    "scoring.won_call": "A won call",
    "scoring.beaten_call": "A beaten call",
    "scoring.beaten_penalty": "Extra penalty on a beaten call",
    "game_end.kind": "How the game ends",
    "game_end.rounds": "Number of rounds",
    "game_end.out_above": "A player is out above (points)",
    "money.dollars_per_point": "Dollars per point",
    "money.settlement": "Settling up",
    "turn_timer.seconds": "Turn timer (seconds)",
    "turn_timer.on_expiry": "When the timer runs out",
}
for _rank, _name in _RANK_NAMES.items():
    PARAM_LABELS[f"card_values.{_rank}"] = f"Value of {_name}"

VALUE_WORDS: dict[str, dict[str, str]] = {
    "direction": {"left": "to the left (clockwise)", "right": "to the right (anticlockwise)"},
    "deal.dealer": {"seat_before_starter": "the seat before the starter", "none": "no dealer"},
    "deal.order": {"one_at_a_time_from_starter": "one card at a time, the starter first"},
    "deal.first_offer": {"turned_up_card": "the card turned up after the deal"},
    "next_starter": {"next_seat": "the next seat along", "round_winner": "the winner of the hand"},
    "throws.run.ace": {"low": "low only (A 2 3, never Q K A)"},
    "pick.from_offer": {
        "any": "any card of it",
        "run_ends": "any card of a single or set; only an end card of a run",
        "last_placed": "only the card placed last",
    },
    "reshuffle.moment": {"when_deck_emptied": "as soon as the deck's last card is picked"},
    "reshuffle.new_deck": {"out_of_play": "the cards gone out of play"},
    "reshuffle.kept_aside": {"current_offer": "the cards on offer"},
    "call.timing": {"start_of_turn": "at the start of a turn, before throwing"},
    "call.first_round": {
        "allowed": "allowed",
        "after_every_player_had_a_turn": "only once every player has had a turn",
    },
    "showdown.tie": {"beats_caller": "beats the caller"},
    "showdown.winner_among_lowest": {"first_after_caller": "the first after the caller wins"},
    "scoring.kind": {
        "transfer": "points change hands (a running tally)",
        "penalty": "penalty points add up",
    },
    "scoring.won_call": {"each_other_hand": "each other player's own hand counts against them"},
    "scoring.beaten_call": {
        "hands_except_winner": "the caller pays the winner every hand but the winner's",
        "all_hands": "the caller pays the winner the total of all hands",
        "caller_hand_plus_penalty": (
            "the caller adds their hand plus the penalty; nobody else scores"
        ),
    },
    "game_end.kind": {
        "host_ends": "when the host ends the table",
        "fixed_rounds": "after a fixed number of rounds",
        "elimination": "when one player is left",
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

SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
_CARD_RE = re.compile(r"^[A2-9TJQK][cdhs]$")
_RANK_ORDER = "A23456789TJQK"
_SUIT_ORDER = "cdhs"


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


def load_profiles(folder: Path | None = None) -> dict[str, dict[str, Json]]:
    """The profile documents under ``folder`` (default: the shipped ``specs/``), by id, in the
    order of their source documents (then ids): Dashain, EverestBuzz, Dhumbal."""
    folder = folder or data.specs_dir()
    profiles: dict[str, dict[str, Json]] = {}
    for path in sorted(p for p in folder.iterdir() if p.suffix in data.PROFILE_SUFFIXES):
        with open(path, encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
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
    return folder.is_dir() and any(folder.rglob("*.yaml"))


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
    if not isinstance(card, str) or not _CARD_RE.match(card):
        return str(card)
    rank = "10" if card[0] == "T" else card[0]
    if card[1] in "dh":
        return f'<span class="jc-red">{rank}{SUIT_SYMBOLS[card[1]]}</span>'
    return rank + SUIT_SYMBOLS[card[1]]


def cards_text(cards: Iterable[str]) -> str:
    shown = [card_text(c) for c in cards]
    return " ".join(shown) if shown else "no cards"


def _is_cards(value: Json) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(c, str) and _CARD_RE.match(c) for c in value)
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
    return scalar_text(value)


def _md(text: str) -> str:
    """Plain text made safe inside Markdown and HTML (a profile's own Markdown is kept)."""
    return html.escape(text, quote=False)


def _inline(text: Json) -> str:
    """Text from a profile shown inline: collapsed to one line, HTML-escaped."""
    return _md(" ".join(str(text).split()))


# -- parameters -----------------------------------------------------------------------------


def leaf_paths(node: Mapping[str, Json], prefix: str = "") -> Iterator[tuple[str, Json]]:
    """Every leaf under a rules mapping, as (dotted path, value), in document order."""
    for key, value in node.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from leaf_paths(value, path + ".")
        else:
            yield path, value


def lookup(rules: Mapping[str, Json], path: str) -> tuple[bool, Json, str | None]:
    """(found, value, the null ancestor that hides the path or None)."""
    node: Json = rules
    walked: list[str] = []
    for key in path.split("."):
        if node is None and walked:
            return False, None, ".".join(walked)
        if not isinstance(node, Mapping) or key not in node:
            return False, None, None
        node = node[key]
        walked.append(key)
    return True, node, None


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
    group: int  # 0 for an absent value; else 1, 2, ... by distinct value, in column order


@dataclass(frozen=True)
class Row:
    key: str  # rule path, or option:NAME
    label: str
    cells: Mapping[str, Cell]

    @property
    def differs(self) -> bool:
        return len({c.group for c in self.cells.values()}) > 1

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


def comparison_rows(profiles: Mapping[str, Document]) -> list[Row]:
    """Every rule parameter, then every option, with each profile's value."""
    rows: list[Row] = []
    for path in rule_paths(profiles):
        cells: dict[str, Cell] = {}
        groups: dict[str, int] = {}
        for pid, document in profiles.items():
            found, value, hidden_by = lookup(document.get("rules") or {}, path)
            if found:
                group = groups.setdefault(_canon(value), len(groups) + 1)
                cells[pid] = Cell(
                    True,
                    value,
                    value_words(path, value),
                    scalar_text(value),
                    tuple(citing_clauses(document, path)),
                    group,
                )
            else:
                words = f"none ({hidden_by} is null)" if hidden_by else "not in this profile"
                raw = f"{hidden_by}: null" if hidden_by else ""
                cells[pid] = Cell(
                    False, None, words, raw, tuple(citing_clauses(document, hidden_by or path)), 0
                )
        rows.append(Row(path, PARAM_LABELS.get(path, path), cells))
    for name in option_names(profiles):
        cells = {}
        groups = {}
        for pid, document in profiles.items():
            spec = _option_spec(document, name)
            key = option_key(name)
            if spec is None:
                cells[pid] = Cell(False, None, "not offered", "", (), 0)
                continue
            group = groups.setdefault(_canon(spec), len(groups) + 1)
            cells[pid] = Cell(
                True,
                spec,
                option_summary(spec),
                f"sets {spec.get('sets')}",
                tuple(citing_clauses(document, key)),
                group,
            )
        rows.append(Row(option_key(name), f"Option {name}", cells))
    return rows


# -- the comparison page --------------------------------------------------------------------


def _cell_html(page: str, pid: str, cell: Cell, differs: bool) -> str:
    classes = ["jc-cell"]
    if differs:
        classes.append(f"jc-v{cell.group}" if cell.present else "jc-none")
    body = f'<span class="jc-words">{_md(cell.words)}</span>'
    if cell.raw and cell.raw != cell.words:
        body += f"<br>`{cell.raw}`"
    if cell.clauses:
        links = " ".join(
            f"[{_short_id(c)}]({link(page, profile_page_path(pid), c)})" for c in cell.clauses
        )
        body += f'<br><span class="jc-cites">{links}</span>'
    return f'<td class="{" ".join(classes)}" markdown="span">{body}</td>'


def _short_id(clause_id: str) -> str:
    """``dashain.pick.run-ends`` → ``pick.run-ends`` (the column names the profile)."""
    return clause_id.split(".", 1)[1] if "." in clause_id else clause_id


def _comparison_table(
    page: str, profiles: Mapping[str, Document], rows: Sequence[Row], differs: bool
) -> list[str]:
    out = [
        f'<table class="jc-compare{" jc-compare--differs" if differs else ""}" markdown="1">',
        '<thead markdown="1">',
        '<tr markdown="1">',
        "<th>Parameter</th>",
    ]
    for pid, document in profiles.items():
        out.append(
            f'<th markdown="span">[{_md(profile_name(document))}]'
            f"({link(page, profile_page_path(pid))})</th>"
        )
    out += ["</tr>", "</thead>", '<tbody markdown="1">']
    for row in rows:
        name = row.key[len("option:") :] if row.is_option else row.key
        kind = "option" if row.is_option else "rules"
        row_class = "jc-row jc-row--differs" if row.differs else "jc-row"
        out.append(f'<tr class="{row_class}" id="{kind}.{name}" markdown="1">')
        label = "Host option" if row.is_option else _md(row.label)
        out.append(f'<th class="jc-param" markdown="span">{label}<br>`{name}`</th>')
        for pid in profiles:
            out.append(_cell_html(page, pid, row.cells[pid], row.differs))
        out.append("</tr>")
    out += ["</tbody>", "</table>", ""]
    return out


def comparison_page(profiles: Mapping[str, Document]) -> str:
    """The page comparing every rule parameter and option across the profiles."""
    page = COMPARISON_PAGE
    rows = comparison_rows(profiles)
    differ = [r for r in rows if r.differs]
    agree = [r for r in rows if not r.differs]
    names = ", ".join(
        f"[{_md(profile_name(d))}]({link(page, profile_page_path(p))})" for p, d in profiles.items()
    )
    out = [
        "---",
        "hide:",
        "  - toc",
        "---",
        "",
        "# How the rulesets compare",
        "",
        f"Every rule parameter and host option of the {len(profiles)} rulesets ({names}), "
        "side by side. Each value links to the clauses of that ruleset that rest on it. "
        "A value in words is followed by the value as the profile writes it.",
        "",
        f"**{len(differ)}** of the {len(rows)} rows differ between the rulesets; they come "
        "first. In a row that differs, cells of the same colour hold the same value.",
        "",
        "## Where the rulesets disagree",
        "",
    ]
    out += (
        _comparison_table(page, profiles, differ, True)
        if differ
        else ["The rulesets agree on every parameter.", ""]
    )
    out += ["## Where they agree", ""]
    out += (
        _comparison_table(page, profiles, agree, False)
        if agree
        else ["The rulesets agree on no parameter.", ""]
    )
    return "\n".join(out)


# -- profile pages -----------------------------------------------------------------------------


def _source_text(clause: Mapping[str, Json]) -> str:
    source = clause.get("source") or {}
    document = source.get("document", "?")
    section = source.get("section")
    text = f"`{document}`"
    if section:
        text += f", section “{_inline(section)}”"
    return text


def _family_sorted(
    clauses: Sequence[Mapping[str, Json]],
) -> list[tuple[str, list[Mapping[str, Json]]]]:
    groups: dict[str, list[Mapping[str, Json]]] = {}
    for clause in clauses:
        groups.setdefault(str(clause.get("family") or "other"), []).append(clause)
    known = [f for f in FAMILY_ORDER if f in groups]
    extra = sorted(f for f in groups if f not in FAMILY_ORDER)
    return [(f, groups[f]) for f in known + extra]


def clause_block(
    page: str,
    clause: Mapping[str, Json],
    tests: Sequence[Transcript],
    options: Iterable[str] = (),
    rows: Sequence[str] = (),
) -> list[str]:
    """One clause as an anchored block: its id, statement, source, status and tests."""
    cid = str(clause["id"])
    interpretation = clause.get("status") == "interpretation"
    classes = "jc-clause jc-clause--interpretation" if interpretation else "jc-clause"
    badge = (
        '<span class="jc-badge jc-badge--interpretation">interpretation</span>'
        if interpretation
        else '<span class="jc-badge">normative</span>'
    )
    out = [
        f'<div class="{classes}" id="{cid}" markdown="1">',
        "",
        f'<a class="jc-clause-id" href="#{cid}" title="Link to this clause">{cid}</a> {badge}',
        "",
        " ".join(str(clause.get("statement", "")).split()),
        "",
    ]
    if interpretation:
        out += [
            f'<p class="jc-reason"><strong>Why this reading:</strong> '
            f"{_inline(clause.get('reason', 'no reason given'))}</p>",
            "",
        ]
    example = clause.get("example")
    if example:
        dumped = yaml.safe_dump(
            example, sort_keys=False, allow_unicode=True, default_flow_style=None
        ).strip()
        out += ["```yaml", dumped, "```", ""]
    meta = [f"Source: {_source_text(clause)}"]
    params = sorted(clause_params(clause, options))
    if params:
        meta.append("Parameters: " + ", ".join(_param_link(page, p, rows) for p in params))
    if tests:
        meta.append(
            "Tested by: "
            + ", ".join(f"[{t.id}]({link(page, transcript_page_path(t.id))})" for t in tests)
        )
    else:
        meta.append("Tested by: no transcript yet")
    out += [f'<p class="jc-meta" markdown="span">{" · ".join(meta)}</p>', "", "</div>", ""]
    return out


def _row_anchor(key: str) -> str:
    return f"option.{key[len('option:') :]}" if key.startswith("option:") else f"rules.{key}"


def row_keys(profiles: Mapping[str, Document]) -> list[str]:
    """The keys of the comparison rows: rule paths, then ``option:NAME``."""
    return rule_paths(profiles) + [option_key(n) for n in option_names(profiles)]


def _param_link(page: str, param: str, rows: Sequence[str]) -> str:
    """A cited parameter, linked to its comparison row (or the first row under it)."""
    shown = f"`{param.replace('option:', 'option ')}`"
    target = param if param in rows else next((r for r in rows if r.startswith(param + ".")), None)
    if target is None:
        return shown
    return f"[{shown}]({link(page, COMPARISON_PAGE, _row_anchor(target))})"


def options_table(document: Document) -> list[str]:
    options = list(document.get("options") or [])
    if not options:
        return ["This ruleset has no host options.", ""]
    out = [
        "| option | type | allowed values or range | default | locked once the table opens "
        "| sets |",
        "|---|---|---|---|---|---|",
    ]
    for option in options:
        out.append(
            f"| `{option.get('name')}` | {option.get('type')} | {_md(allowed_text(option))} "
            f"| `{scalar_text(option.get('default'))}` "
            f"| {'yes' if option.get('locked_when_open') else 'no'} | `{option.get('sets')}` |"
        )
    return [*out, ""]


def at_a_glance(document: Document) -> list[str]:
    rules = document.get("rules") or {}
    found = {p: v for p, v in leaf_paths(rules)}

    def words(path: str) -> str:
        return value_words(path, found.get(path))

    seats = rules.get("seats") or {}
    out = [
        f"- {seats.get('min')} to {seats.get('max')} players, {rules.get('hand_size')} cards "
        f"each; play passes {words('direction')}.",
        f"- From the offer a player may pick {words('pick.from_offer')}"
        + (
            "; only after throwing two or more cards at once."
            if found.get("pick.only_after_multi_throw")
            else "."
        ),
        f"- A call needs a hand of {'at most' if found.get('call.inclusive') else 'under'} "
        f"{found.get('call.limit')} points; in the first round: {words('call.first_round')}.",
        f"- A tie with the caller {words('showdown.tie')}; on a beaten call "
        f"{words('scoring.beaten_call')}.",
        f"- Scoring: {words('scoring.kind')}; the game ends {words('game_end.kind')}"
        + (f" ({found.get('game_end.rounds')} rounds)" if found.get("game_end.rounds") else "")
        + (
            f" (out above {found.get('game_end.out_above')} points)"
            if found.get("game_end.out_above") is not None
            else ""
        )
        + ".",
    ]
    if rules.get("money"):
        out.append(
            f"- Money: {words('money.dollars_per_point')} a point; {words('money.settlement')}."
        )
    return [*out, ""]


def example_transcript(pid: str, site: SiteData) -> Transcript | None:
    """The first transcript (by id) that tests an ``examples`` clause of profile ``pid``."""
    examples = {
        str(c["id"]) for c in clauses_of(site.profiles[pid]) if c.get("family") == "examples"
    }
    for transcript in sorted(site.transcripts, key=lambda t: t.id):
        if examples.intersection(transcript.clauses) and pid in site.profiles_of(transcript):
            return transcript
    return None


def profile_page(pid: str, site: SiteData) -> str:
    """One ruleset: its clauses by family, its host options and a worked example."""
    document = site.profiles[pid]
    page = profile_page_path(pid)
    tests = site.tested_by()
    options = [str(o.get("name")) for o in document.get("options") or []]
    rows = row_keys(site.profiles)
    source = document.get("source") or {}
    clauses = clauses_of(document)
    interpretations = sum(1 for c in clauses if c.get("status") == "interpretation")
    out = [
        f"# {_md(profile_name(document))}",
        "",
        f"*{_inline(document.get('summary', ''))}*",
        "",
        f"Profile `{pid}` (`specs/{pid}.yaml`), written from the rule document "
        f"`{source.get('document', '?')}`. It has {len(clauses)} clauses, of which "
        f"{interpretations} are interpretations: points the document leaves open, settled here "
        "and marked with the reason. See [how the rulesets compare]"
        f"({link(page, COMPARISON_PAGE)}) and the [clause index]({link(page, CLAUSES_PAGE)}).",
        "",
        "## At a glance",
        "",
    ]
    out += at_a_glance(document)
    for family, members in _family_sorted(clauses):
        out += [f"## {FAMILY_TITLES.get(family, family.capitalize())}", ""]
        for clause in members:
            out += clause_block(page, clause, tests.get(str(clause["id"]), []), options, rows)
    if not clauses:
        out += ["## Clauses", "", "This profile lists no clauses yet.", ""]
    out += ["## Host options", "", "What the host may choose before or during a game.", ""]
    out += options_table(document)
    out += ["## A worked example", ""]
    example = example_transcript(pid, site)
    if example is None:
        out += ["None yet: no transcript tests an example clause of this ruleset.", ""]
    else:
        out += [
            f"From the transcript [{_md(example.title)}]"
            f"({link(page, transcript_page_path(example.id))}) "
            f"(`{site.file_label(example.file)}`).",
            "",
        ]
        out += narrated_hand(page, example, site, heading_level=3)
    return "\n".join(out)


# -- narrating a transcript ---------------------------------------------------------------------


def _value(card: str, rules: Mapping[str, Json]) -> int:
    values = rules.get("card_values") or {}
    return int(values.get(card[0], values.get(str(card[0]), 0))) if card else 0


def hand_value(cards: Iterable[str], rules: Mapping[str, Json]) -> int:
    return sum(_value(c, rules) for c in cards)


def throw_kind(cards: Sequence[str]) -> str:
    if len(cards) == 1:
        return "single"
    if len({c[:1] for c in cards}) == 1:
        return "set"
    if len({c[1:] for c in cards}) == 1:
        return "run"
    return "throw"


def _canonical(cards: Iterable[str]) -> list[str]:
    def key(card: str) -> tuple[int, int]:
        if not _CARD_RE.match(card):
            return (99, 99)
        return (_RANK_ORDER.index(card[0]), _SUIT_ORDER.index(card[1]))

    return sorted(cards, key=key)


@dataclass
class _Table:
    """A light replay of a transcript, enough to tell who holds what. Never authoritative:
    when a step does not fit, the replay stops knowing (``known`` False) and the narration
    says only what the transcript itself says."""

    seats: int
    rules: Mapping[str, Json]
    known: bool = True
    round: int = 0
    in_hand: bool = False
    starter: int | None = None
    to_act: int | None = None
    hands: dict[int, list[str]] = field(default_factory=dict)
    deck: list[str] = field(default_factory=list)
    offer: list[str] = field(default_factory=list)
    thrown: list[str] | None = None
    out_of_play: list[str] = field(default_factory=list)
    active: list[int] = field(default_factory=list)
    scores: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.active = list(range(self.seats))
        self.scores = dict.fromkeys(range(self.seats), 0)
        start = (self.rules.get("deal") or {}).get("first_starter", 0)
        self.starter = int(start) if isinstance(start, int) else 0

    def next_active(self, seat: int) -> int:
        for step in range(1, self.seats + 1):
            candidate = (seat + step) % self.seats
            if candidate in self.active:
                return candidate
        return seat


def _expected(step: Step, kind: str) -> list[Mapping[str, Json]]:
    return [e for e in step.expect.events or () if e.get("type") == kind]


def _deal(table: _Table, step: Step) -> tuple[dict[int, list[str]], str | None, int | None]:
    """Apply an accepted deal; return (hands, turned-up card, starter) where known."""
    assert step.request is not None
    spec = step.request
    order = list(spec.get("deck") or [])
    started = _expected(step, "round_started")
    starter: int | None = step.starter
    if starter is None and started and isinstance(started[0].get("starter"), int):
        starter = int(started[0]["starter"])
    if starter is None:
        starter = table.starter
    dealt = _expected(step, "dealt")
    hands: dict[int, list[str]] = {}
    turned_up: str | None = None
    hand_size = int(table.rules.get("hand_size") or 5)
    if starter is not None and table.known and len(order) == 52:
        seats_in = [s for s in table.active]
        turn = sorted(seats_in, key=lambda s: (s - starter) % table.seats)
        position = 0
        for _ in range(hand_size):
            for seat in turn:
                hands.setdefault(seat, []).append(order[position])
                position += 1
        turned_up = order[position]
        table.deck = order[position + 1 :]
    if dealt and isinstance(dealt[0].get("hands"), list):
        hands = {i: list(h) for i, h in enumerate(dealt[0]["hands"]) if h}
        turned_up = dealt[0].get("turned_up", turned_up)
    table.round += 1
    table.in_hand = True
    table.starter = starter
    table.to_act = starter
    table.hands = {s: _canonical(h) for s, h in hands.items()}
    table.offer = [turned_up] if turned_up else []
    table.thrown = None
    table.out_of_play = []
    if not hands:
        table.known = False
    return table.hands, turned_up, starter


def _after_pick(table: _Table, card: str | None) -> None:
    table.out_of_play += [c for c in table.offer if c != card]
    table.offer = list(table.thrown or [])
    table.thrown = None
    if table.to_act is not None:
        table.to_act = table.next_active(table.to_act)


def _showdown(table: _Table, caller: int) -> tuple[dict[int, int], int]:
    values = {s: hand_value(table.hands.get(s, []), table.rules) for s in table.active}
    lowest = min(v for s, v in values.items() if s != caller) if len(values) > 1 else 10**9
    if values[caller] < lowest:
        return values, caller
    order = [(caller + i) % table.seats for i in range(1, table.seats)]
    winner = next(s for s in order if s in values and values[s] == lowest)
    return values, winner


def _end_round(table: _Table, caller: int, step: Step) -> None:
    table.in_hand = False
    values, winner = _showdown(table, caller)
    rules = table.rules
    scoring = rules.get("scoring") or {}
    if scoring.get("kind") == "penalty":
        if winner == caller:
            for seat, value in values.items():
                if seat != caller:
                    table.scores[seat] += value
        else:
            table.scores[caller] += values[caller] + int(scoring.get("beaten_penalty") or 0)
    ended = _expected(step, "round_ended")
    out_above = (rules.get("game_end") or {}).get("out_above")
    if ended and isinstance(ended[0].get("eliminated"), list):
        gone = [int(s) for s in ended[0]["eliminated"]]
    elif (rules.get("game_end") or {}).get("kind") == "elimination" and out_above is not None:
        gone = [s for s in table.active if table.scores[s] > int(out_above)]
    else:
        gone = []
    if rules.get("next_starter") == "round_winner":
        table.starter = winner
    elif table.starter is not None:
        table.starter = table.next_active(table.starter)
    table.active = [s for s in table.active if s not in gone]
    if table.starter is not None and table.starter not in table.active and table.active:
        table.starter = table.next_active(table.starter)
    table.to_act = None


def _timeout_card(hand: Sequence[str], rules: Mapping[str, Json]) -> str | None:
    if not hand:
        return None
    return max(
        hand, key=lambda c: (_value(c, rules), _RANK_ORDER.index(c[0]), _SUIT_ORDER.index(c[1]))
    )


def _seat_list(value: Json) -> str:
    if isinstance(value, list):
        return ", ".join(f"seat {s}" for s in value) if value else "nobody"
    return f"seat {value}"


def _per_seat(value: Json, fmt: Any = None) -> str:
    """A per-seat value (a list for every seat, or a mapping seat → value) in words."""
    show = fmt or (lambda v: cards_text(v) if _is_cards(v) or v == [] else scalar_text(v))
    if isinstance(value, list):
        return "; ".join(f"seat {i} {show(v)}" for i, v in enumerate(value))
    if isinstance(value, Mapping):
        return "; ".join(f"seat {k} {show(v)}" for k, v in value.items())
    return scalar_text(value)


def _signed(value: Json) -> str:
    return (
        f"{value:+d}"
        if isinstance(value, int) and not isinstance(value, bool)
        else scalar_text(value)
    )


def _settlement(value: Json) -> str:
    if not isinstance(value, list):
        return scalar_text(value)
    if not value:
        return "nobody pays anybody"
    parts = []
    for pay in value:
        text = f"seat {pay.get('from')} pays seat {pay.get('to')} {pay.get('points')} points"
        if pay.get("dollars") is not None:
            text += f" (${pay['dollars']})"
        parts.append(text)
    return "; ".join(parts)


def event_words(event: Mapping[str, Json]) -> str:
    """An expected event in words; only the fields the transcript names."""
    kind = event.get("type")
    rest = {k: v for k, v in event.items() if k != "type"}
    said: list[str] = []

    def take(key: str) -> Json:
        return rest.pop(key, None)

    if kind == "round_started":
        text = f"round {take('round') or ''} starts".replace("  ", " ")
        if "dealer" in rest:
            dealer = take("dealer")
            said.append("no dealer" if dealer is None else f"seat {dealer} deals")
        if "starter" in rest:
            said.append(f"seat {take('starter')} starts")
        if "turn_order" in rest:
            said.append("turn order " + " → ".join(str(s) for s in take("turn_order") or []))
    elif kind == "dealt":
        text = "the cards are dealt"
        if "hands" in rest:
            said.append(_per_seat(take("hands"), lambda v: cards_text(v) if v else "(out)"))
        if "turned_up" in rest:
            said.append(f"{card_text(take('turned_up'))} is turned up")
        if "deck_size" in rest:
            said.append(f"{take('deck_size')} cards left in the deck")
    elif kind == "called":
        text = f"seat {take('seat')} calls"
        if "value" in rest:
            said.append(f"holding {take('value')} points")
    elif kind == "thrown":
        seat = take("seat")
        cards = take("cards")
        what = take("kind") or (throw_kind(cards) if isinstance(cards, list) and cards else "")
        text = (
            f"seat {seat} throws"
            + (f" the {what}" if what else "")
            + (f" {cards_text(cards)}" if isinstance(cards, list) else "")
        )
    elif kind == "picked":
        seat, source, card = take("seat"), take("from"), take("card")
        text = (
            f"seat {seat} picks"
            + (f" {card_text(card)}" if card else "")
            + (f" from the {source}" if source else "")
        )
    elif kind == "out_of_play":
        cards = take("cards") or []
        text = f"{cards_text(cards)} {'goes' if len(cards) == 1 else 'go'} out of play"
    elif kind == "reshuffle_needed":
        text = f"the deck is empty; {cards_text(take('cards') or [])} are to be reshuffled"
    elif kind == "reshuffled":
        text = f"the new deck holds {take('deck_size')} cards"
    elif kind == "timed_out":
        text = f"seat {take('seat')}'s time runs out"
    elif kind == "round_ended":
        text = f"round {take('round') or ''} ends".replace("  ", " ")
        outcome = take("outcome")
        if outcome:
            said.append(
                {"won_call": "the call wins", "beaten_call": "the call is beaten"}.get(
                    str(outcome), str(outcome)
                )
            )
        if "caller" in rest:
            said.append(f"caller seat {take('caller')}")
        if "winner" in rest:
            said.append(f"winner seat {take('winner')}")
        if "hand_values" in rest:
            said.append("hands worth: " + _per_seat(take("hand_values")))
        if "deltas" in rest:
            said.append("score changes: " + _per_seat(take("deltas"), _signed))
        if "scores" in rest:
            said.append("scores: " + _per_seat(take("scores")))
        if "eliminated" in rest:
            said.append("out: " + _seat_list(take("eliminated")))
    elif kind == "game_ended":
        text = "the game ends"
        if "winners" in rest:
            said.append("won by " + _seat_list(take("winners")))
        if "standings" in rest:
            said.append("standings " + ", ".join(str(s) for s in take("standings") or []))
        if "scores" in rest:
            said.append("scores: " + _per_seat(take("scores")))
        if "eliminated" in rest:
            said.append("went out: " + _seat_list(take("eliminated")))
        if "settlement" in rest:
            said.append("settlement: " + _settlement(take("settlement")))
    elif kind == "option_changed":
        text = f"option `{take('name')}` is now `{scalar_text(take('value'))}`"
    else:
        text = str(kind)
    said += [f"{k} {scalar_text(v)}" for k, v in rest.items()]
    return text + (f" ({'; '.join(said)})" if said else "")


_CHECK_WORDS: dict[str, str] = {
    "phase": "the phase is `{}`",
    "round": "{} hands have been dealt",
    "seats": "{} seats",
    "dealer": "the dealer is seat {}",
    "starter": "seat {} starts the hand",
    "offer_kind": "the offer is a {}",
    "deck_size": "the deck holds {} cards",
    "turns_taken": "{} turns have been completed this hand",
}


def check_words(check: Mapping[str, Json]) -> str:
    """A state check in words."""
    parts: list[str] = []
    for key, value in check.items():
        if key == "to_act":
            parts.append("no seat is to act" if value is None else f"seat {value} is to act")
        elif key in ("dealer", "starter") and value is None:
            parts.append(f"there is no {key}")
        elif key in _CHECK_WORDS:
            parts.append(_CHECK_WORDS[key].format(scalar_text(value)))
        elif key == "offer":
            parts.append(f"the offer is {cards_text(value or [])}")
        elif key == "pickable":
            parts.append(
                f"the cards that may be picked from it are {cards_text(value)}"
                if value
                else "no card of the offer may be picked"
            )
        elif key == "thrown":
            parts.append(f"the cards just thrown are {cards_text(value or [])}")
        elif key == "deck":
            parts.append(f"the deck from the top is {cards_text(value or [])}")
        elif key == "out_of_play":
            parts.append(f"out of play: {cards_text(value or [])}")
        elif key == "hands":
            parts.append("hands: " + _per_seat(value, lambda v: cards_text(v or [])))
        elif key == "hand_values":
            parts.append("hands worth: " + _per_seat(value))
        elif key == "scores":
            parts.append("scores: " + _per_seat(value))
        elif key in ("active", "eliminated", "multi_throwers"):
            label = {
                "active": "still in",
                "eliminated": "out",
                "multi_throwers": "have thrown several cards at once",
            }[key]
            parts.append(f"{label}: {_seat_list(value)}")
        elif key == "options":
            parts.append(
                "options: "
                + ", ".join(f"`{k}` = `{scalar_text(v)}`" for k, v in (value or {}).items())
            )
        elif key == "settlement":
            parts.append("settlement: " + _settlement(value))
        elif key in ("last_round", "result") and isinstance(value, Mapping):
            label = "the last round" if key == "last_round" else "the game result"
            parts.append(
                f"{label} has "
                + "; ".join(
                    f"{k} {_per_seat(v) if isinstance(v, (list, dict)) else scalar_text(v)}"
                    for k, v in value.items()
                )
            )
        else:
            parts.append(f"`{key}` is `{scalar_text(value)}`")
    return "; ".join(parts)


@dataclass(frozen=True)
class NarratedStep:
    """One transcript step in words."""

    index: int
    text: str  # Markdown
    details: tuple[str, ...] = ()
    refused: str | None = None
    deal: tuple[tuple[int, tuple[str, ...], int], ...] = ()  # (seat, cards, value) after a deal


def narrate(transcript: Transcript, rules: Mapping[str, Json]) -> list[NarratedStep]:
    """Every step of ``transcript`` in words, replaying the hand under ``rules``."""
    table = _Table(transcript.seats, rules)
    narrated: list[NarratedStep] = []
    for step in transcript.steps:
        try:
            narrated.append(_narrate_step(table, step, rules))
        except (KeyError, IndexError, ValueError, TypeError, AssertionError, StopIteration):
            table.known = False
            narrated.append(NarratedStep(step.index, f"`{_md(step.describe())}`"))
    return narrated


def _narrate_step(table: _Table, step: Step, rules: Mapping[str, Json]) -> NarratedStep:
    error = step.expect.error
    details = tuple("expected: " + event_words(e) for e in step.expect.events or ())
    refused = f": refused (`{error}`)" if error else ""
    request = step.request or {}
    if step.kind == "check":
        return NarratedStep(step.index, "Check: " + check_words(step.check or {}), details)
    if step.kind == "deal":
        if error:
            return NarratedStep(step.index, f"The harness tries to deal{refused}", details, error)
        hands, turned_up, starter = _deal(table, step)
        text = f"Deal, hand {table.round}"
        if starter is not None:
            text += f": seat {starter} starts"
        if turned_up:
            text += f", {card_text(turned_up)} is turned up"
        if table.known and table.deck:
            text += f", the deck's top card is {card_text(table.deck[0])}"
        rows = tuple((s, tuple(h), hand_value(h, rules)) for s, h in sorted(hands.items()))
        return NarratedStep(step.index, text, details, None, rows)
    if step.kind == "act":
        return _narrate_act(table, step, rules, details)
    if step.kind == "reshuffle":
        order = list(request.get("order") or [])
        if error:
            return NarratedStep(
                step.index,
                f"The harness tries to reshuffle into {cards_text(order)}{refused}",
                details,
                error,
            )
        table.deck = order
        table.out_of_play = []
        return NarratedStep(
            step.index,
            "The cards out of play become the new deck, from the top: " + cards_text(order),
            details,
        )
    if step.kind == "set_option":
        text = f"The host sets `{request.get('name')}` to `{scalar_text(request.get('value'))}`"
        return NarratedStep(step.index, text + refused, details, error)
    if step.kind == "end_game":
        return NarratedStep(
            step.index,
            ("The host tries to end the table" + refused) if error else "The host ends the table",
            details,
            error,
        )
    if step.kind == "raw":
        text = f"The harness sends the line `{_md(step.describe()[:200])}`"
        return NarratedStep(step.index, text + refused, details, error)
    return NarratedStep(step.index, f"`{_md(step.describe())}`{refused}", details, error)


def _narrate_act(
    table: _Table, step: Step, rules: Mapping[str, Json], details: tuple[str, ...]
) -> NarratedStep:
    assert step.request is not None
    seat = step.request.get("seat")
    action = step.request.get("action") or {}
    kind = action.get("type")
    error = step.expect.error
    who = f"Seat {seat}"
    if kind == "call":
        if error:
            return NarratedStep(
                step.index, f"{who} tries to call Jhyap: refused (`{error}`)", details, error
            )
        text = f"{who} calls Jhyap"
        if table.known and isinstance(seat, int) and seat in table.hands:
            if not any("value" in e for e in _expected(step, "called")):
                text += f" holding {hand_value(table.hands[seat], rules)} points"
            _end_round(table, seat, step)
        else:
            table.in_hand = False
        return NarratedStep(step.index, text, details)
    if kind == "throw":
        cards = list(action.get("cards") or [])
        what = throw_kind(cards)
        shown = f"the {what} {cards_text(cards)}" if what != "throw" else cards_text(cards)
        if error:
            return NarratedStep(
                step.index, f"{who} tries to throw {shown}: refused (`{error}`)", details, error
            )
        if table.known and isinstance(seat, int):
            hand = table.hands.get(seat, [])
            if all(c in hand for c in cards):
                table.hands[seat] = [c for c in hand if c not in cards]
            else:
                table.known = False
        table.thrown = cards
        return NarratedStep(step.index, f"{who} throws {shown}", details)
    if kind == "pick":
        from_deck = action.get("from") == "deck"
        card = None if from_deck else action.get("card")
        if error:
            what = "from the deck" if from_deck else f"{card_text(str(card))} from the offer"
            return NarratedStep(
                step.index, f"{who} tries to pick {what}: refused (`{error}`)", details, error
            )
        if from_deck:
            drawn = table.deck.pop(0) if table.known and table.deck else None
            text = f"{who} picks from the deck" + (f" ({card_text(drawn)})" if drawn else "")
            card = drawn
        else:
            text = f"{who} picks {card_text(str(card))} from the offer"
        if card and isinstance(seat, int) and seat in table.hands:
            table.hands[seat] = _canonical([*table.hands[seat], card])
        elif from_deck:
            table.known = False
        _after_pick(table, card)
        return NarratedStep(step.index, text, details)
    if kind == "timeout":
        if error:
            return NarratedStep(
                step.index, f"{who}'s turn timer runs out: refused (`{error}`)", details, error
            )
        text = f"{who}'s turn timer runs out"
        if table.known and isinstance(seat, int) and seat in table.hands:
            if table.thrown is None:
                single = _timeout_card(table.hands[seat], rules)
                if single:
                    table.hands[seat].remove(single)
                    table.thrown = [single]
                    text += f": {card_text(single)} is thrown for them"
            drawn = table.deck.pop(0) if table.deck else None
            if drawn:
                table.hands[seat] = _canonical([*table.hands[seat], drawn])
                text += f" and they draw {card_text(drawn)}"
            _after_pick(table, drawn)
        return NarratedStep(step.index, text, details)
    return NarratedStep(step.index, f"`{_md(step.describe())}`", details, error)


def _rules_for(transcript: Transcript, site: SiteData) -> Mapping[str, Json]:
    for pid in site.profiles_of(transcript):
        try:
            return dict(resolve(site.profiles[pid], transcript.options)["rules"])
        except Exception:  # a profile the options do not fit: try the next one
            continue
    for pid in transcript.profiles:
        if pid in site.profiles:
            return dict(site.profiles[pid].get("rules") or {})
    return {}


def _deal_table(rows: Sequence[tuple[int, tuple[str, ...], int]]) -> list[str]:
    out = ["| seat | cards | points |", "|---|---|---|"]
    out += [f"| {seat} | {cards_text(cards)} | {value} |" for seat, cards, value in rows]
    return [*out, ""]


def narrated_hand(
    page: str, transcript: Transcript, site: SiteData, heading_level: int = 2
) -> list[str]:
    """The hand in words: who held what after the first deal, then every step."""
    rules = _rules_for(transcript, site)
    steps = narrate(transcript, rules)
    raw_steps = list(transcript.raw.get("steps") or [])
    notes = {
        i: str(s.get("note"))
        for i, s in enumerate(raw_steps)
        if isinstance(s, Mapping) and s.get("note")
    }
    h = "#" * heading_level
    out: list[str] = []
    first_deal = next((s for s in steps if s.deal), None)
    if first_deal is not None:
        out += [f"{h} After the deal", "", first_deal.text + ".", ""]
        out += _deal_table(first_deal.deal)
    out += [f"{h} Play", ""]
    for number, step in enumerate(steps, 1):
        marker = "✗ " if step.refused else ""
        out.append(f"{number}. {marker}{step.text}.")
        extra = list(step.details)
        if step.index in notes:
            extra.insert(0, f"*{_inline(notes[step.index])}*")
        if step.deal and step is not first_deal:
            extra += [f"seat {s}: {cards_text(c)} ({v} points)" for s, c, v in step.deal]
        for line in extra:
            out.append(f"    - {line}")
    return [*out, ""]


# -- transcript pages -----------------------------------------------------------------------------


def transcript_page(transcript: Transcript, site: SiteData) -> str:
    page = transcript_page_path(transcript.id)
    owner = site.clause_owner()
    selected = site.profiles_of(transcript)
    out = [f"# {_md(transcript.title)}", ""]
    if transcript.description:
        out += [_inline(transcript.description), ""]
    profiles = (
        ", ".join(
            f"[{_md(profile_name(site.profiles[p]))}]({link(page, profile_page_path(p))})"
            for p in selected
            if p in site.profiles
        )
        or "none of the shipped profiles"
    )
    how = (
        ""
        if transcript.profiles
        else " (selected by "
        + ", ".join(f"`{k}` = `{scalar_text(v)}`" for k, v in (transcript.where or {}).items())
        + ")"
    )
    options = (
        ", ".join(f"`{k}` = `{scalar_text(v)}`" for k, v in transcript.options.items())
        or "the defaults"
    )
    clauses = ", ".join(
        clause_link(page, c, owner[c]) if c in owner else f"`{c}`" for c in transcript.clauses
    )
    out += [
        f"- **Rulesets:** {profiles}{how}",
        f"- **Seats:** {transcript.seats}; **options:** {options}",
        f"- **Tests:** {clauses}",
    ]
    if transcript.requires:
        needs = ", ".join(f"`{r}`" for r in transcript.requires)
        out.append(f"- **Needs** the optional protocol features {needs}")
    out.append(
        f"- **File:** `{site.file_label(transcript.file)}` "
        f"(transcript `{transcript.id}`, kind {transcript.kind})"
    )
    out.append("")
    out += narrated_hand(page, transcript, site)
    out += [
        "Steps marked ✗ must be refused with the error code shown, leaving the state "
        "unchanged. Expected events list only the fields the transcript checks.",
        "",
    ]
    try:
        source = transcript.file.read_text(encoding="utf-8")
    except OSError:
        source = ""
    if source:
        out += ['??? note "The transcript file"', "", "    ```yaml"]
        out += [f"    {line}".rstrip() for line in source.rstrip().splitlines()]
        out += ["    ```", ""]
    return "\n".join(out)


def corpus_index_page(site: SiteData) -> str:
    page = CORPUS_INDEX
    out = [
        "# Transcripts",
        "",
        "Every transcript of the corpus, narrated as a hand. The format is described in "
        f"[Transcripts]({link(page, 'transcripts.md')}); which clause each one tests is in "
        f"the [clause index]({link(page, CLAUSES_PAGE)}).",
        "",
    ]
    if not site.transcripts:
        return "\n".join([*out, "No transcripts yet.", ""])
    out += ["| transcript | rulesets | seats | clauses |", "|---|---|---|---|"]
    for transcript in sorted(site.transcripts, key=lambda t: t.id):
        rulesets = ", ".join(site.profiles_of(transcript))
        out.append(
            f"| [{_md(transcript.title)}]({link(page, transcript_page_path(transcript.id))})"
            f"<br>`{transcript.id}` | {rulesets} | {transcript.seats} "
            f"| {len(transcript.clauses)} |"
        )
    return "\n".join([*out, ""])


# -- the clause index ------------------------------------------------------------------------------


def clause_index_page(site: SiteData) -> str:
    page = CLAUSES_PAGE
    tests = site.tested_by()
    total = sum(len(clauses_of(d)) for d in site.profiles.values())
    covered = sum(1 for d in site.profiles.values() for c in clauses_of(d) if tests.get(c["id"]))
    out = [
        "# Clause index",
        "",
        f"Every clause of every ruleset ({total} in all, {covered} tested by at least one "
        "transcript), with the transcripts that test it. A clause's ID is stable: transcripts, "
        "engine test reports and known-failure lists refer to it.",
        "",
    ]
    for pid, document in site.profiles.items():
        out += [f"## {_md(profile_name(document))}", ""]
        clauses = clauses_of(document)
        if not clauses:
            out += ["No clauses yet.", ""]
            continue
        out += ["| clause | family | status | tested by |", "|---|---|---|---|"]
        for family, members in _family_sorted(clauses):
            for clause in members:
                cid = str(clause["id"])
                status = (
                    "**interpretation**"
                    if clause.get("status") == "interpretation"
                    else "normative"
                )
                testers = (
                    ", ".join(
                        f"[{t.id}]({link(page, transcript_page_path(t.id))})"
                        for t in tests.get(cid, [])
                    )
                    or "—"
                )
                out.append(f"| {clause_link(page, cid, pid)} | {family} | {status} | {testers} |")
        out.append("")
    out += _protocol_clause_rows(page, tests)
    return "\n".join(out)


def _protocol_clause_rows(page: str, tests: Mapping[str, Sequence[Transcript]]) -> list[str]:
    """The protocol clauses (specs/protocol/clauses.yaml), which hold under every ruleset."""
    out = [
        "## The protocol",
        "",
        f"The rules of the [engine protocol]({link(page, 'protocol.md', 'protocol-clauses')}), "
        "which hold under every ruleset.",
        "",
        "| clause | family | status | tested by |",
        "|---|---|---|---|",
    ]
    for clause in protocol_clauses():
        cid = str(clause["id"])
        status = "**interpretation**" if clause["status"] == "interpretation" else "normative"
        testers = (
            ", ".join(
                f"[{t.id}]({link(page, transcript_page_path(t.id))})" for t in tests.get(cid, [])
            )
            or "—"
        )
        out.append(f"| `{cid}` | {clause['family']} | {status} | {testers} |")
    return [*out, ""]


# -- schemas ----------------------------------------------------------------------------------


def schema_files(folder: Path | None) -> list[Path]:
    if folder is None or not folder.is_dir():
        return []
    return sorted(
        folder.rglob("*.json"),
        key=lambda p: (len(p.relative_to(folder).parts), p.relative_to(folder).as_posix()),
    )


def schemas_page(folder: Path | None) -> str:
    out = [
        "# JSON Schemas",
        "",
        "Every JSON Schema the project ships, as it stands in the repository. The "
        "[protocol](protocol.md) page says what the messages mean; these say what they may "
        "contain.",
        "",
    ]
    files = schema_files(folder)
    if not files or folder is None:
        return "\n".join([*out, "No schemas found.", ""])
    out += ["| file | title |", "|---|---|"]
    bodies: list[str] = []
    for path in files:
        relative = path.relative_to(folder).as_posix()
        text = path.read_text(encoding="utf-8")
        try:
            title = str(json.loads(text).get("title", ""))
        except (ValueError, AttributeError):
            title = ""
        anchor = "schema-" + re.sub(r"[^a-z0-9]+", "-", relative.lower()).strip("-")
        out.append(f"| [`schema/{relative}`](#{anchor}) | {_md(title)} |")
        bodies += [f"## schema/{relative} {{#{anchor}}}", "", "```json", text.rstrip(), "```", ""]
    return "\n".join([*out, "", *bodies])


# -- the whole site ----------------------------------------------------------------------------


def generate(site: SiteData) -> dict[str, str]:
    """Every generated page: path relative to ``docs/`` → Markdown."""
    pages = {
        COMPARISON_PAGE: comparison_page(site.profiles),
        CLAUSES_PAGE: clause_index_page(site),
        CORPUS_INDEX: corpus_index_page(site),
        SCHEMAS_PAGE: schemas_page(site.schema_dir),
    }
    for pid in site.profiles:
        pages[profile_page_path(pid)] = profile_page(pid, site)
    for transcript in site.transcripts:
        pages[transcript_page_path(transcript.id)] = transcript_page(transcript, site)
    return pages


NavItem = Any  # mkdocs nav entries: "page.md", {title: "page.md"} or {title: [items]}


def extend_nav(nav: list[NavItem] | None, site: SiteData) -> list[NavItem] | None:
    """The nav with the generated pages added: each profile after the comparison page, each
    transcript in a section opened by the corpus index. Returns a new list."""
    if nav is None:
        return None
    profiles = [{profile_name(d): profile_page_path(p)} for p, d in site.profiles.items()]
    transcripts = [
        {t.title: transcript_page_path(t.id)} for t in sorted(site.transcripts, key=lambda t: t.id)
    ]

    def walk(items: list[NavItem]) -> list[NavItem]:
        result: list[NavItem] = []
        for item in items:
            if isinstance(item, dict) and len(item) == 1:
                ((title, target),) = item.items()
                if isinstance(target, list):
                    result.append({title: walk(target)})
                    continue
                if target == CORPUS_INDEX and transcripts:
                    result.append({title: [CORPUS_INDEX, *transcripts]})
                    continue
                result.append(item)
                if target == COMPARISON_PAGE:
                    result += profiles
                continue
            result.append(item)
            if item == COMPARISON_PAGE:
                result += profiles
        return result

    return walk(copy.deepcopy(nav))


__all__ = [
    "FAMILIES",
    "PARAM_LABELS",
    "Cell",
    "NarratedStep",
    "Row",
    "SiteData",
    "card_text",
    "check_words",
    "citing_clauses",
    "clause_index_page",
    "comparison_page",
    "comparison_rows",
    "corpus_index_page",
    "event_words",
    "extend_nav",
    "generate",
    "load_profiles",
    "load_site",
    "narrate",
    "profile_page",
    "schemas_page",
    "transcript_page",
]
