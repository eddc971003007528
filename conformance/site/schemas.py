"""The JSON Schemas page: each schema offered for download, with what its enum values mean.

The schema files themselves are copied into the site (``schema/...``), so the page links
them rather than printing them; each ``enum`` is shown with its ``enumDescriptions``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .common import SCHEMAS_PAGE, inline_text, link, md_safe

SCHEMA_SITE_DIR = "schema"


def schema_files(folder: Path | None) -> list[Path]:
    if folder is None or not folder.is_dir():
        return []
    return sorted(
        folder.rglob("*.json"),
        key=lambda p: (len(p.relative_to(folder).parts), p.relative_to(folder).as_posix()),
    )


def schema_site_files(folder: Path | None) -> dict[str, str]:
    """Site path → text of every schema file, to be copied into the built site."""
    if folder is None:
        return {}
    return {
        f"{SCHEMA_SITE_DIR}/{path.relative_to(folder).as_posix()}": path.read_text("utf-8")
        for path in schema_files(folder)
    }


def described_enums(node: Any, pointer: str = "") -> Iterator[tuple[str, list[Any], list[str]]]:
    """(JSON pointer, values, descriptions) for every enum under ``node``."""
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            descriptions = node.get("enumDescriptions")
            if not isinstance(descriptions, list):
                descriptions = []
            yield pointer or "/", list(node["enum"]), [str(d) for d in descriptions]
        for key, value in node.items():
            yield from described_enums(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from described_enums(value, f"{pointer}/{index}")


def _field(pointer: str) -> str:
    """``/$defs/rules/properties/deal/properties/dealer`` → ``rules.deal.dealer``."""
    parts = [p for p in pointer.split("/") if p]
    shown: list[str] = []
    for index, part in enumerate(parts):
        before = parts[index - 1] if index else ""
        if part in ("properties", "$defs", "items", "anyOf", "allOf", "then", "propertyNames"):
            continue
        if before in ("anyOf", "allOf") and part.isdigit():
            continue
        shown.append(part)
    return ".".join(shown) or "(the whole document)"


def _value(value: Any) -> str:
    return "`null`" if value is None else f"`{value}`"


def schemas_page(folder: Path | None) -> str:
    page = SCHEMAS_PAGE
    out = [
        "# JSON Schemas",
        "",
        "Every JSON Schema the project ships (draft 2020-12), to download or to point an "
        "editor at. The [protocol](protocol.md) page says what the messages mean; these say "
        "what they may contain. Each value a schema enumerates is explained beside it in an "
        "`enumDescriptions` array (the convention editors such as VS Code show on hover); "
        "the tables below list them.",
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
            document = json.loads(text)
        except ValueError:
            document = {}
        title = str(document.get("title", "")) if isinstance(document, dict) else ""
        anchor = "schema-" + re.sub(r"[^a-z0-9]+", "-", relative.lower()).strip("-")
        target = link(page, f"{SCHEMA_SITE_DIR}/{relative}")
        out.append(f"| [`schema/{relative}`](#{anchor}) | {md_safe(title)} |")
        bodies += [f"## schema/{relative} {{#{anchor}}}", ""]
        if isinstance(document, dict) and document.get("description"):
            bodies += [inline_text(document["description"]), ""]
        bodies += [f"Download: [{path.name}]({target}) ({len(text.encode('utf-8')):,} bytes)", ""]
        enums = list(described_enums(document))
        if enums:
            bodies += ["| field | value | meaning |", "|---|---|---|"]
            for pointer, values, descriptions in enums:
                for index, value in enumerate(values):
                    meaning = descriptions[index] if index < len(descriptions) else "—"
                    shown = f"`{_field(pointer)}`" if index == 0 else ""
                    bodies.append(f"| {shown} | {_value(value)} | {inline_text(meaning)} |")
            bodies.append("")
    return "\n".join([*out, "", *bodies])
