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
- ``schemas``: ``schemas.md``, every JSON Schema under ``schema/`` (the files are copied in);
- ``cli_page``: ``cli.md``, the command line, from the program's argument parser;
- ``changelog``: ``changelog.md``, ``CHANGELOG.md`` with this build's corpus version.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .changelog import CHANGELOG_PAGE, changelog_page
from .clauses import clause_index_page
from .cli_page import CLI_PAGE, cli_page
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
from .corpus import (
    corpus_index_page,
    family_title,
    group_title,
    grouped_transcripts,
    short_titles,
    transcript_file_path,
    transcript_page,
)
from .profile_page import profile_page
from .schemas import schema_site_files, schemas_page

# -- the whole site ----------------------------------------------------------------------------


def generate(site: SiteData) -> dict[str, str]:
    """Every generated page: path relative to ``docs/`` → Markdown."""
    pages = {
        COMPARISON_PAGE: comparison_page(site.profiles),
        CLAUSES_PAGE: clause_index_page(site),
        CORPUS_INDEX: corpus_index_page(site),
        SCHEMAS_PAGE: schemas_page(site.schema_dir),
        CLI_PAGE: cli_page(),
        CHANGELOG_PAGE: changelog_page(
            site, site.repo_root / "CHANGELOG.md" if site.repo_root else None
        ),
    }
    for pid in site.profiles:
        pages[profile_page_path(pid)] = profile_page(pid, site)
    for transcript in site.transcripts:
        pages[transcript_page_path(transcript.id)] = transcript_page(transcript, site)
    return pages


def downloads(site: SiteData) -> dict[str, str]:
    """Files the site offers as they are: the JSON Schemas and the transcript files."""
    files = schema_site_files(site.schema_dir)
    for transcript in site.transcripts:
        try:
            files[transcript_file_path(transcript.id)] = transcript.file.read_text("utf-8")
        except OSError:
            continue
    return files


NavItem = Any  # mkdocs nav entries: "page.md", {title: "page.md"} or {title: [items]}


def extend_nav(nav: list[NavItem] | None, site: SiteData) -> list[NavItem] | None:
    """The nav with the generated pages added: each profile after the comparison page, the
    transcripts in a section opened by the corpus index. Returns a new list."""
    profiles = [{profile_name(d): profile_page_path(p)} for p, d in site.profiles.items()]
    transcripts = corpus_nav(site)
    sections = {CORPUS_INDEX: transcripts} if transcripts else {}
    return nav_with(nav, sections=sections, after={COMPARISON_PAGE: profiles})


def nav_with(
    nav: list[NavItem] | None,
    sections: Mapping[str, list[NavItem]] | None = None,
    after: Mapping[str, list[NavItem]] | None = None,
) -> list[NavItem] | None:
    """A new nav where each titled entry of a page in ``sections`` opens a section of its
    pages, and the pages of ``after`` follow the entry of their page (at any depth)."""
    if nav is None:
        return None
    sections, after = sections or {}, after or {}

    def walk(items: list[NavItem]) -> list[NavItem]:
        result: list[NavItem] = []
        for item in items:
            target = item
            if isinstance(item, dict) and len(item) == 1:
                ((title, target),) = item.items()
                if isinstance(target, list):
                    result.append({title: walk(target)})
                    continue
                if target in sections:
                    result.append({title: [target, *sections[target]]})
                    continue
            result.append(item)
            if isinstance(target, str) and target in after:
                result += after[target]
        return result

    return walk(copy.deepcopy(nav))


def corpus_nav(site: SiteData) -> list[NavItem]:
    """The transcripts as nav sections: by ruleset, then by family where a family has several
    transcripts (a family's only transcript stands alone, in family order), each under its
    short title."""
    titles = short_titles(site)
    sections: list[NavItem] = []
    for group, families in grouped_transcripts(site):
        entries: list[NavItem] = []
        for family, transcripts in families:
            pages = [{titles[t.id]: transcript_page_path(t.id)} for t in transcripts]
            if len(families) == 1 or not family or len(pages) == 1:
                entries += pages
            else:
                entries.append({family_title(family): pages})
        sections.append({group_title(group, site): entries})
    return sections


__all__ = ["corpus_nav", "downloads", "extend_nav", "generate", "load_site"]
