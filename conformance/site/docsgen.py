"""Assemble the documentation site's generated pages from ``specs/`` and the corpus.

Nothing here writes into ``docs/``: :func:`generate` returns a mapping from a page's path
(relative to ``docs/``) to its Markdown, and ``docs/hooks/gen_pages.py`` hands those pages
to mkdocs-gen-files at build time. Every function takes its data as arguments, so a test
can render a page from a modified profile without touching the shipped files.

One module per page, beside this one:

- ``common``: the loaded data (:class:`SiteData`), page paths, links and values in words;
- ``parameters``: rule parameters and options as comparison rows;
- ``comparison``: ``comparison.md``, every parameter and option, one column per profile;
- ``profile_page``: ``profiles/<id>.md``, one profile's clauses by family and its options;
- ``clauses``: ``clauses.md``, every clause with the transcripts that test it;
- ``narration`` and ``corpus``: ``corpus/index.md`` and one page per transcript, as a hand;
- ``schemas``: ``schemas.md``, every JSON Schema under ``schema/``.
"""

from __future__ import annotations

import copy
from typing import Any

from .clauses import clause_index_page
from .common import (
    CLAUSES_PAGE,
    COMPARISON_PAGE,
    CORPUS_INDEX,
    SCHEMAS_PAGE,
    SiteData,
    load_site,
    profile_name,
    profile_page_path,
    transcript_page_path,
)
from .comparison import comparison_page
from .corpus import corpus_index_page, transcript_page
from .profile_page import profile_page
from .schemas import schemas_page

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


__all__ = ["extend_nav", "generate", "load_site"]
