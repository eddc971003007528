"""The comparison page: every rule parameter and host option, one column per profile."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .common import (
    COMPARISON_PAGE,
    Document,
    _md,
    link,
    profile_name,
    profile_page_path,
)
from .parameters import (
    Cell,
    Row,
    comparison_rows,
)

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
