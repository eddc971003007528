"""The clause index: every clause of every profile with the transcripts testing it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..spec.protocol import protocol_clauses
from ..spec.steps import Transcript
from .common import (
    CLAUSES_PAGE,
    SiteData,
    by_family,
    clause_link,
    clauses_of,
    link,
    md_safe,
    profile_name,
    transcript_page_path,
)

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
        out += [f"## {md_safe(profile_name(document))}", ""]
        clauses = clauses_of(document)
        if not clauses:
            out += ["No clauses yet.", ""]
            continue
        out += ['<div class="jc-clauses" markdown="1">', ""]
        out += ["| clause | family | status | tested by |", "|---|---|---|---|"]
        for family, members in by_family(clauses):
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
        out += ["", "</div>", ""]
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
        '<div class="jc-clauses" markdown="1">',
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
    return [*out, "", "</div>", ""]
