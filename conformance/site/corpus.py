"""The transcript pages and the corpus index.

Transcripts are grouped by ruleset (one profile, or shared by several) and by the clause
family they test most; recorded games (kind ``regression``) are summarised hand by hand
rather than narrated step by step, so that no page grows past a few tens of kilobytes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from jhyap_core.vocabulary import EventType, RoundOutcome

from ..spec.readings import with_alternatives
from ..spec.steps import Transcript
from ..spec.transcript_profiles import profiles_for
from .common import (
    CLAUSES_PAGE,
    CORPUS_INDEX,
    FAMILY_ORDER,
    FAMILY_TITLES,
    SiteData,
    clause_link,
    clauses_of,
    inline_text,
    link,
    md_safe,
    profile_name,
    profile_page_path,
    scalar_text,
    transcript_page_path,
)
from .narration import (
    narrated_hand,
    per_seat_text,
    signed_text,
)

READINGS_PAGE = "readings.md"
SHARED = "shared"  # the group of transcripts that run under several rulesets
RECORDED = "recorded"  # the group of recorded games (kind regression)


def transcript_file_path(tid: str) -> str:
    """Where the site offers a transcript's YAML file for download."""
    return f"corpus/files/{tid}.yaml"


def transcript_group(transcript: Transcript, site: SiteData) -> tuple[str, str]:
    """(ruleset group, clause family): the profile id, ``shared`` or ``recorded``; the family
    most of its clauses belong to (ties: the earlier family in the documented order)."""
    if transcript.kind == "regression":
        return RECORDED, ""
    selected = site.profiles_of(transcript) or tuple(
        dict.fromkeys(base for base, _ in reading_bases(transcript, site))
    )
    group = selected[0] if len(selected) == 1 else SHARED
    families = {
        str(c["id"]): str(c.get("family") or "other")
        for d in site.profiles.values()
        for c in clauses_of(d)
    }
    counts = Counter(families[c] for c in transcript.clauses if c in families)
    if not counts:
        return group, "other"
    order = {f: i for i, f in enumerate(FAMILY_ORDER)}
    return group, min(counts, key=lambda f: (-counts[f], order.get(f, len(order)), f))


def group_title(group: str, site: SiteData) -> str:
    if group == SHARED:
        return "Shared by several rulesets"
    if group == RECORDED:
        return "Recorded games"
    return profile_name(site.profiles[group]) if group in site.profiles else group


def family_title(family: str) -> str:
    return FAMILY_TITLES.get(family, family.replace("-", " ").capitalize())


def grouped_transcripts(
    site: SiteData,
) -> list[tuple[str, list[tuple[str, list[Transcript]]]]]:
    """The corpus as [(group, [(family, transcripts)])]: profiles in their order, then the
    shared transcripts, then the recorded games; families in the documented order."""
    groups: dict[str, dict[str, list[Transcript]]] = {}
    for transcript in sorted(site.transcripts, key=lambda t: t.id):
        group, family = transcript_group(transcript, site)
        groups.setdefault(group, {}).setdefault(family, []).append(transcript)
    order = [*site.profiles, SHARED, RECORDED]
    known = [g for g in order if g in groups] + sorted(g for g in groups if g not in order)
    family_rank = {f: i for i, f in enumerate(["", *FAMILY_ORDER])}
    return [
        (
            g,
            sorted(groups[g].items(), key=lambda i: (family_rank.get(i[0], 99), i[0])),
        )
        for g in known
    ]


def short_titles(site: SiteData) -> dict[str, str]:
    """Transcript id → a short title for the navigation and the browser tab: the id without
    its ruleset prefix, in words; where two would read the same, the ruleset is added."""
    prefixes = sorted([*site.profiles, SHARED, "regression"], key=len, reverse=True)
    short: dict[str, str] = {}
    named: dict[str, str] = {}  # transcript id → the profile its id names
    for transcript in site.transcripts:
        rest = transcript.id
        for prefix in prefixes:
            if rest.startswith(prefix + "-") and len(rest) > len(prefix) + 1:
                rest = rest[len(prefix) + 1 :]
                if prefix in site.profiles:
                    named[transcript.id] = prefix
                break
        for pid, document in site.profiles.items():  # a recorded game: name its ruleset
            if transcript.kind == "regression" and rest.startswith(pid + "-"):
                rest = f"{profile_name(document)},{rest[len(pid) :]}"
        words = rest.replace("-", " ").replace("_", " ").strip()
        short[transcript.id] = words[:1].upper() + words[1:]
    counts = Counter(short.values())
    for transcript in site.transcripts:
        if counts[short[transcript.id]] > 1:
            # The ruleset its id names, else its group: a reading of one ruleset that other
            # profiles also match is grouped as shared, like the shared case it varies.
            group = named.get(transcript.id) or transcript_group(transcript, site)[0]
            short[transcript.id] += f" ({group_title(group, site)})"
    return short


def _hands(transcript: Transcript) -> list[dict[str, Any]]:
    """A recorded game hand by hand: first line, steps, starter and how the hand ended."""
    hands: list[dict[str, Any]] = []
    for step in transcript.steps:
        if step.kind == "deal" and not step.expect.error:
            started = [
                e for e in step.expect.events or () if e.get("type") == EventType.ROUND_STARTED
            ]
            starter = step.starter
            if starter is None and started:
                starter = started[0].get("starter")
            hands.append({"line": step.line, "steps": 0, "starter": starter, "ended": None})
        if not hands:
            continue
        hands[-1]["steps"] += 1
        for event in step.expect.events or ():
            if event.get("type") in (EventType.ROUND_ENDED, EventType.GAME_ENDED):
                hands[-1].setdefault("events", []).append(event)
    return hands


def _hand_end(events: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    ended = next((e for e in events if e.get("type") == EventType.ROUND_ENDED), None)
    if ended is None:
        return "—", "—"
    words: dict[str, str] = {
        RoundOutcome.WON_CALL: "call wins",
        RoundOutcome.BEATEN_CALL: "call beaten",
    }
    outcome = words.get(str(ended.get("outcome")), str(ended.get("outcome") or ""))
    how = f"seat {ended.get('caller')} calls: {outcome}" if "caller" in ended else outcome
    if "winner" in ended:
        how += f"; seat {ended['winner']} wins"
    deltas = per_seat_text(ended["deltas"], signed_text) if "deltas" in ended else "—"
    return how, deltas


def recorded_game_summary(transcript: Transcript) -> list[str]:
    """One table row per hand instead of every step (a recorded game has thousands)."""
    hands = _hands(transcript)
    out = [
        "## The game hand by hand",
        "",
        f"{len(transcript.steps)} steps in {len(hands)} hands. A recorded game is played by "
        "the reference engine and kept to catch changes in behaviour; it is not an oracle "
        "written from the rules, so it is summarised here rather than narrated. The line is "
        "where the hand's deal starts in the file, as `jhyap run` reports it.",
        "",
        "| hand | line | steps | starter | how it ended | score changes |",
        "|---|---|---|---|---|---|",
    ]
    for number, hand in enumerate(hands, 1):
        how, deltas = _hand_end(hand.get("events", []))
        starter = "—" if hand["starter"] is None else f"seat {hand['starter']}"
        out.append(
            f"| {number} | {hand['line']} | {hand['steps']} | {starter} | {how} | {deltas} |"
        )
    last = next(
        (
            e
            for h in reversed(hands)
            for e in h.get("events", [])
            if e.get("type") == EventType.GAME_ENDED
        ),
        None,
    )
    if last is not None and "scores" in last:
        out += ["", f"Final scores: {per_seat_text(last['scores'])}."]
    return [*out, ""]


# -- transcript pages -----------------------------------------------------------------------------


def reading_bases(transcript: Transcript, site: SiteData) -> list[tuple[str, dict[str, str]]]:
    """(profile, readings) of each declared-readings profile the transcript runs under: for
    a transcript written for an alternative reading, where it runs when an engine declares it."""
    derived = with_alternatives(site.profiles)
    found = []
    for pid in profiles_for(transcript, derived):
        origin = derived[pid].get("derived_from")
        if origin and origin["profile"] in site.profiles:
            found.append((str(origin["profile"]), dict(origin["readings"])))
    return found


def _readings_selected(transcript: Transcript, site: SiteData, page: str) -> str:
    """The profiles a transcript for an alternative reading runs under, each with the
    reading; "" for any other transcript."""
    found = []
    for base, chosen in reading_bases(transcript, site):
        named = ", ".join(f"`{r}` = `{c}`" for r, c in chosen.items())
        found.append(
            f"[{md_safe(profile_name(site.profiles[base]))}]({link(page, profile_page_path(base))})"
            f" read with {named} ([readings]({link(page, READINGS_PAGE)}))"
        )
    return ", ".join(found)


def transcript_page(transcript: Transcript, site: SiteData) -> str:
    page = transcript_page_path(transcript.id)
    owner = site.clause_owner()
    selected = site.profiles_of(transcript)
    out = [f"# {md_safe(transcript.title)}", ""]
    if transcript.description:
        out += [inline_text(transcript.description), ""]
    profiles = (
        ", ".join(
            f"[{md_safe(profile_name(site.profiles[p]))}]({link(page, profile_page_path(p))})"
            for p in selected
            if p in site.profiles
        )
        or _readings_selected(transcript, site, page)
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
    download = f"[{transcript.file.name}]({link(page, transcript_file_path(transcript.id))})"
    out[-1:-1] = [f"- **Download:** {download}"]
    if transcript.kind == "regression":
        return "\n".join([*out, *recorded_game_summary(transcript)])
    out += narrated_hand(page, transcript, site)
    out += [
        "Steps marked ✗ must be refused with the error code shown, leaving the state "
        "unchanged. Expected events list only the fields the transcript checks. Line numbers "
        "are those of the file, as `jhyap run` and `jhyap validate` report them.",
        "",
    ]
    try:
        source = transcript.file.read_text(encoding="utf-8")
    except OSError:
        source = ""
    if source:
        out += [f'??? note "The transcript file, {md_safe(transcript.file.name)}"', ""]
        # plain text with the numbers written in: a highlighted listing of a long game
        # weighs ten times as much, and the numbers are those `jhyap run` reports
        lines = source.rstrip().splitlines()
        width = len(str(len(lines)))
        out += ["    ```text"]
        out += [f"    {n:>{width}}  {line}".rstrip() for n, line in enumerate(lines, 1)]
        out += ["    ```", ""]
    return "\n".join(out)


def corpus_index_page(site: SiteData) -> str:
    page = CORPUS_INDEX
    out = [
        "# The corpus",
        "",
        "Every transcript of the corpus, grouped by ruleset and by the family of rules it "
        f"tests most. The format is described in [the transcript format]"
        f"({link(page, 'transcripts.md')}); which clause each one tests is in the "
        f"[clause index]({link(page, CLAUSES_PAGE)}).",
        "",
    ]
    if not site.transcripts:
        return "\n".join([*out, "No transcripts yet.", ""])
    titles = short_titles(site)
    for group, families in grouped_transcripts(site):
        out += [f"## {md_safe(group_title(group, site))}", ""]
        for family, transcripts in families:
            if family:
                out += [f"### {md_safe(family_title(family))} {{#{group}-{family}}}", ""]
            out += ["| transcript | seats | clauses |", "|---|---|---|"]
            for transcript in transcripts:
                target = link(page, transcript_page_path(transcript.id))
                out.append(
                    f"| [{md_safe(titles[transcript.id])}]({target}): {md_safe(transcript.title)}"
                    f"<br>`{transcript.id}` | {transcript.seats} | {len(transcript.clauses)} |"
                )
            out.append("")
    return "\n".join(out)
