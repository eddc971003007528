"""One profile's page: its clauses by family, host options and a worked example."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import yaml

from jhyap_core.profile import resolve

from ..spec.json_types import Json
from ..spec.profiles import load_profile
from ..spec.readings import change_texts
from ..spec.steps import Transcript
from .common import (
    CLAUSES_PAGE,
    COMPARISON_PAGE,
    FAMILY_TITLES,
    Document,
    SiteData,
    by_family,
    clauses_of,
    inline_text,
    link,
    md_safe,
    profile_name,
    profile_page_path,
    rule_defaults,
    scalar_text,
    transcript_page_path,
    value_words,
)
from .narration import (
    narrated_hand,
)
from .parameters import (
    allowed_text,
    clause_params,
    leaf_paths,
    row_anchor,
    row_keys,
)

# -- profile pages -----------------------------------------------------------------------------


def _source_text(clause: Mapping[str, Json]) -> str:
    source = clause.get("source") or {}
    document = source.get("document", "?")
    section = source.get("section")
    text = f"`{document}`"
    if section:
        text += f", section “{inline_text(section)}”"
    return text


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
        f'<div class="{classes}" markdown="1">',
        # a heading (level 3, under its family's), so that search finds the clause by its id
        f'<h3 class="jc-clause-id" id="{cid}">{cid}</h3>',
        "",
        badge,
        "",
        " ".join(str(clause.get("statement", "")).split()),
        "",
    ]
    if interpretation:
        out += [
            f'<p class="jc-reason"><strong>Why this reading:</strong> '
            f"{inline_text(clause.get('reason', 'no reason given'))}</p>",
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


def _param_link(page: str, param: str, rows: Sequence[str]) -> str:
    """A cited parameter, linked to its comparison row (or the first row under it)."""
    shown = f"`{param.replace('option:', 'option ')}`"
    target = param if param in rows else next((r for r in rows if r.startswith(param + ".")), None)
    if target is None:
        return shown
    return f"[{shown}]({link(page, COMPARISON_PAGE, row_anchor(target))})"


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
            f"| `{option.get('name')}` | {option.get('type')} | {md_safe(allowed_text(option))} "
            f"| `{scalar_text(option.get('default'))}` "
            f"| {'yes' if option.get('locked_when_open') else 'no'} | `{option.get('sets')}` |"
        )
    return [*out, ""]


def _played_rules(document: Document) -> Mapping[str, Json]:
    """The rules a table plays under the default options (an option's default sets its rule),
    or the rules as written where the profile cannot be resolved."""
    try:
        return dict(resolve(document, {})["rules"])
    except Exception:  # a draft profile the site still shows: its rules as written
        return dict(document.get("rules") or {})


def _threshold_text(found: Mapping[str, Json]) -> str:
    """The score threshold in words: a total equal to it is out (or ends the game) only with
    game_end.reaching_is_out."""
    threshold = found.get("game_end.out_above")
    if threshold is None:
        return ""
    reaching = bool(found.get("game_end.reaching_is_out"))
    if found.get("game_end.kind") == "first_past_target":
        return f" (it ends once a total {'reaches' if reaching else 'passes'} {threshold} points)"
    return (
        f" (out at {threshold} points or more)" if reaching else f" (out above {threshold} points)"
    )


def at_a_glance(document: Document) -> list[str]:
    rules = _played_rules(document)
    # A parameter a profile leaves out plays its schema default: say that, not nothing.
    found = {**rule_defaults(), **dict(leaf_paths(rules))}

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
        f"{words('scoring.beaten_call')}"
        # What the others score is a parameter of penalty scoring only.
        + (
            f"; {words('scoring.beaten_others')}."
            if found.get("scoring.kind") == "penalty"
            else "."
        ),
        f"- Scoring: {words('scoring.kind')}; the game ends {words('game_end.kind')}"
        + (f" ({found.get('game_end.rounds')} rounds)" if found.get("game_end.rounds") else "")
        + _threshold_text(found)
        + ".",
    ]
    if rules.get("money"):
        out.append(
            f"- Money: {words('money.dollars_per_point')} a point; {words('money.settlement')}."
        )
    return [*out, ""]


def derivation(page: str, document: Document, site: SiteData) -> list[str]:
    """For a profile that extends another: what it changes from its base, in words."""
    origin = document.get("derived_from")
    if not isinstance(origin, Mapping):
        return []
    base_id = str(origin.get("profile"))
    base = site.profiles.get(base_id) or load_profile(base_id)
    named = md_safe(profile_name(base))
    shown = (
        f"[{named}]({link(page, profile_page_path(base_id))})"
        if base_id in site.profiles
        else named
    )
    changes = change_texts(document, base)
    if not changes:
        return [f"It extends {shown} and changes none of its rules or options.", ""]
    return [
        f"## What it changes from {named}",
        "",
        f"It extends {shown} (`{base_id}`); everything else is as there.",
        "",
        *(f"- {md_safe(line)}" for line in changes),
        "",
    ]


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
        f"# {md_safe(profile_name(document))}",
        "",
        f"*{inline_text(document.get('summary', ''))}*",
        "",
        f"Profile `{pid}` (`specs/{pid}.yaml`), written from the rule document "
        f"`{source.get('document', '?')}`. It has {len(clauses)} clauses, of which "
        f"{interpretations} are interpretations: points the document leaves open, settled here "
        "and marked with the reason. See [how the rulesets compare]"
        f"({link(page, COMPARISON_PAGE)}) and the [clause index]({link(page, CLAUSES_PAGE)}).",
        "",
    ]
    out += derivation(page, document, site)
    out += ["## At a glance", ""]
    out += at_a_glance(document)
    for family, members in by_family(clauses):
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
            f"From the transcript [{md_safe(example.title)}]"
            f"({link(page, transcript_page_path(example.id))}) "
            f"(`{site.file_label(example.file)}`).",
            "",
        ]
        out += narrated_hand(page, example, site, heading_level=3)
    return "\n".join(out)
