"""The changelog page: ``CHANGELOG.md`` under a box naming this build's tool and corpus
versions (the corpus version is a fingerprint of the transcript files, so two builds from
the same corpus show the same one)."""

from __future__ import annotations

import hashlib
from collections import Counter
from importlib import metadata
from pathlib import Path

from .common import SiteData

CHANGELOG_PAGE = "changelog.md"


def tool_version() -> str:
    try:
        return metadata.version("jhyap-conformance")
    except metadata.PackageNotFoundError:
        return "unknown"


def corpus_version(site: SiteData) -> str:
    """``sha256:`` and 12 hex digits over the transcripts' ids and file contents."""
    digest = hashlib.sha256()
    for transcript in sorted(site.transcripts, key=lambda t: t.id):
        digest.update(transcript.id.encode("utf-8") + b"\0")
        try:
            digest.update(transcript.file.read_bytes())
        except OSError:
            digest.update(b"(unreadable)")
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()[:12]


def changelog_page(site: SiteData, changelog: Path | None) -> str:
    kinds = Counter(t.kind for t in site.transcripts)
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())) or "none"
    out = [
        "# Changelog",
        "",
        '!!! info "This build"',
        "",
        f"    - Tool: jhyap-conformance {tool_version()}",
        f"    - Corpus version: `{corpus_version(site)}` ({len(site.transcripts)} transcripts: "
        f"{counts})",
        f"    - Rulesets: {len(site.profiles)} ({', '.join(f'`{p}`' for p in site.profiles)})",
        "",
        "    The corpus version is a fingerprint of the transcript files: a report naming the "
        "same one was made against exactly these transcripts.",
        "",
    ]
    text = ""
    if changelog is not None:
        try:
            text = changelog.read_text(encoding="utf-8")
        except OSError:
            text = ""
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join([*out, *(lines or ["No changelog yet."]), ""])
