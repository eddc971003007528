"""The JSON Schemas page."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .common import (
    _md,
)

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
