"""The transcript pages and the corpus index."""

from __future__ import annotations

from ..spec.transcript import Transcript
from .common import (
    CLAUSES_PAGE,
    CORPUS_INDEX,
    SiteData,
    _inline,
    _md,
    clause_link,
    link,
    profile_name,
    profile_page_path,
    scalar_text,
    transcript_page_path,
)
from .narration import (
    narrated_hand,
)

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
