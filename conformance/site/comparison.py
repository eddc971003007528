"""The comparison page: every rule parameter and host option, one column per profile.

Built for ten or more columns: a reader chooses which profiles to compare (a small script
hides the other columns and moves the rows where the chosen ones differ to the top; without
the script every column shows), on a phone each row becomes a card with one labelled line
per profile, and a family tree says which profile differs from which in what.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .common import (
    COMPARISON_PAGE,
    Document,
    link,
    md_safe,
    profile_name,
    profile_page_path,
)
from .parameters import (
    Cell,
    Row,
    comparison_rows,
    row_anchor,
)

COLOURS = 8  # value colours in extra.css (jc-v1 .. jc-v8); further groups reuse them


def _cell_html(page: str, pid: str, name: str, cell: Cell, differs: bool) -> str:
    classes = ["jc-cell"]
    if differs:
        classes.append(f"jc-v{(cell.group - 1) % COLOURS + 1}" if cell.present else "jc-none")
    body = f'<span class="jc-words">{md_safe(cell.words)}</span>'
    if cell.raw and cell.raw != cell.words:
        body += f"<br>`{cell.raw}`"
    if cell.clauses and differs:  # where all agree, each ruleset's page lists its clauses
        links = " ".join(
            f"[{_short_id(c)}]({link(page, profile_page_path(pid), c)})" for c in cell.clauses
        )
        body += f'<br><span class="jc-cites">{links}</span>'
    return (
        f'<td class="{" ".join(classes)}" data-profile="{pid}" data-group="{cell.group}" '
        f'data-label="{md_safe(name)}" markdown="span">{body}</td>'
    )


def _short_id(clause_id: str) -> str:
    """``dashain.pick.run-ends`` → ``pick.run-ends`` (the column names the profile)."""
    return clause_id.split(".", 1)[1] if "." in clause_id else clause_id


def _comparison_table(
    page: str, profiles: Mapping[str, Document], rows: Sequence[Row], differs: bool
) -> list[str]:
    kind = "differs" if differs else "agrees"
    wide = " jc-compare--wide" if len(profiles) > 5 else ""  # a narrower parameter column
    out = [
        f'<table class="jc-compare jc-compare--{kind}{wide}" markdown="1">',
        '<thead markdown="1">',
        '<tr markdown="1">',
        '<th class="jc-param">Parameter</th>',
    ]
    for pid, document in profiles.items():
        out.append(
            f'<th data-profile="{pid}" markdown="span">[{md_safe(profile_name(document))}]'
            f"({link(page, profile_page_path(pid))})</th>"
        )
    out += ["</tr>", "</thead>", '<tbody markdown="1">']
    for row in rows:
        name = row.key[len("option:") :] if row.is_option else row.key
        row_class = "jc-row jc-row--differs" if row.differs else "jc-row"
        out.append(f'<tr class="{row_class}" id="{row_anchor(row.key)}" markdown="1">')
        label = "Host option" if row.is_option else md_safe(row.label)
        out.append(f'<th class="jc-param" markdown="span">{label}<br>`{name}`</th>')
        for pid, document in profiles.items():
            out.append(_cell_html(page, pid, profile_name(document), row.cells[pid], row.differs))
        out.append("</tr>")
    out += ["</tbody>", "</table>", ""]
    return out


def _chooser(profiles: Mapping[str, Document]) -> list[str]:
    """The profile checkboxes; hidden until compare.js runs (without it all columns show)."""
    boxes = "".join(
        f'<label><input type="checkbox" name="profile" value="{pid}" checked> '
        f"{md_safe(profile_name(document))}</label>"
        for pid, document in profiles.items()
    )
    return [
        '<form class="jc-choose" hidden>',
        f"<fieldset><legend>Compare</legend>{boxes}"
        '<button type="button" data-choose="all">all</button>'
        '<button type="button" data-choose="none">none</button></fieldset>',
        '<p class="jc-choose-summary" aria-live="polite"></p>',
        "</form>",
        "",
    ]


# -- the family tree ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Branch:
    """One profile in the family tree: its parent (its nearest already placed relative)."""

    profile: str
    parent: str | None
    differences: tuple[Row, ...]  # the rows where it differs from its parent


def differing_rows(rows: Sequence[Row], a: str, b: str) -> tuple[Row, ...]:
    """The rows where profiles ``a`` and ``b`` hold different values."""
    return tuple(r for r in rows if r.cells[a].group != r.cells[b].group)


def family_tree(profiles: Sequence[str], rows: Sequence[Row]) -> list[Branch]:
    """A minimum spanning tree of the profiles, distance = the number of differing rows.

    The root is the profile closest to all others (ties: the first listed); each further
    profile hangs under its nearest relative already in the tree (Prim's algorithm, ties
    broken by profile order), so every parameter change is shown once, where it happens.
    """
    if not profiles:
        return []
    distance = {
        (a, b): len(differing_rows(rows, a, b)) for a in profiles for b in profiles if a != b
    }
    root = min(profiles, key=lambda p: sum(distance.get((p, q), 0) for q in profiles))
    placed = [root]
    tree = [Branch(root, None, ())]
    while len(placed) < len(profiles):
        best: tuple[int, int, int, str, str] | None = None
        for child_index, child in enumerate(profiles):
            if child in placed:
                continue
            for parent in placed:
                key = (distance[(parent, child)], child_index, placed.index(parent), child, parent)
                if best is None or key < best:
                    best = key
        assert best is not None
        child, parent = best[3], best[4]
        placed.append(child)
        tree.append(Branch(child, parent, differing_rows(rows, parent, child)))
    return tree


def _tree_lines(
    profiles: Mapping[str, Document], tree: Sequence[Branch], parent: str | None, depth: int
) -> list[str]:
    out: list[str] = []
    indent = "    " * depth
    for branch in tree:
        if branch.parent != parent:
            continue
        name = md_safe(profile_name(profiles[branch.profile]))
        target = link(COMPARISON_PAGE, profile_page_path(branch.profile))
        if parent is None:
            out.append(f"{indent}- **[{name}]({target})**: the closest to all the others")
        else:
            changes = ", ".join(
                f"[{md_safe(r.label)}](#{row_anchor(r.key)})" for r in branch.differences
            )
            count = len(branch.differences)
            plural = "difference" if count == 1 else "differences"
            out.append(
                f"{indent}- **[{name}]({target})**: {count} {plural} from "
                f"{md_safe(profile_name(profiles[parent]))}" + (f": {changes}" if changes else "")
            )
        out += _tree_lines(profiles, tree, branch.profile, depth + 1)
    return out


def family_tree_section(profiles: Mapping[str, Document], rows: Sequence[Row]) -> list[str]:
    tree = family_tree(list(profiles), rows)
    out = [
        "## The family tree",
        "",
        "Which ruleset differs from which, and in what. Each ruleset hangs under its nearest "
        "relative, the one it differs from in the fewest rows, starting from the ruleset "
        "closest to all the others; each branch lists the rows that change along it.",
        "",
    ]
    if len(tree) < 2:
        return [*out, "There is only one ruleset.", ""]
    return [*out, *_tree_lines(profiles, tree, None, 0), ""]


# -- the page -----------------------------------------------------------------------------------


def comparison_page(profiles: Mapping[str, Document]) -> str:
    """The page comparing every rule parameter and option across the profiles."""
    page = COMPARISON_PAGE
    rows = comparison_rows(profiles)
    differ = [r for r in rows if r.differs]
    agree = [r for r in rows if not r.differs]
    names = ", ".join(
        f"[{md_safe(profile_name(d))}]({link(page, profile_page_path(p))})"
        for p, d in profiles.items()
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
        "side by side. Where they differ, each value links to the clauses of that ruleset "
        "that rest on it (where they agree, each ruleset's page lists them). A value in words "
        "is followed by the value as the profile writes it.",
        "",
        f'<p class="jc-count"><strong>{len(differ)}</strong> of the {len(rows)} rows differ '
        "between the rulesets; they come first. In a row that differs, cells of the same colour "
        "hold the same value. Tick the rulesets to compare: the rows where the ticked ones "
        "differ move to the first table.</p>",
        "",
        *_chooser(profiles),
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
    out += family_tree_section(profiles, rows)
    return "\n".join(out)
