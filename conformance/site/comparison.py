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
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


NO_VALUE = "\u2013"  # an en dash: no value
SHORT = 3  # characters: a value this short (a number, yes, no) is shown itself, no letter


def _short(row: Row) -> bool:
    return all(len(_plain(c.words)) <= SHORT for c in row.cells.values() if c.group > 0)


def _plain(words: str) -> str:
    return words.removesuffix(" (the default: left out)")


def _letter(cell: Cell, short: bool = False) -> str:
    """The mark of a cell in the grid: its value's letter (or the value itself where every
    value of the row is short), ``·`` moot, a dash no value."""
    if cell.moot:
        return "·"
    if cell.group <= 0:
        return NO_VALUE
    return _plain(cell.words) if short else LETTERS[(cell.group - 1) % len(LETTERS)]


def _colour(cell: Cell) -> str:
    return f"jc-v{(cell.group - 1) % COLOURS + 1}" if cell.group > 0 else "jc-none"


def _cell_html(cell: Cell, short: bool) -> str:
    """One grid cell: the value's letter on its colour; the words for a screen reader (the
    row's legend gives them to the eye: a title on each of the 675 cells was a ninth of the
    page). Its ruleset is its column's (compare.js hides a column by its header)."""
    colour = _colour(cell)
    group = "moot" if cell.moot else str(cell.group)
    return (
        f'<td class="jc-cell {colour}" data-group="{group}">'
        f'<span aria-hidden="true">{_letter(cell, short)}</span>'
        f'<span class="jc-sr">{md_safe(cell.words)}</span></td>'
    )


def profile_url(pid: str, anchor: str | None = None) -> str:
    """A profile page's address from the comparison page's, as built (raw HTML links are not
    rewritten by mkdocs: comparison.md is served at comparison/)."""
    return f"../profiles/{pid}/" + (f"#{anchor}" if anchor else "")


def _short_id(clause_id: str) -> str:
    """``dashain.pick.run-ends`` → ``pick.run-ends`` (the column names the profile)."""
    return clause_id.split(".", 1)[1] if "." in clause_id else clause_id


def _letters_first(item: tuple[str, tuple[str, str]]) -> tuple[bool, str]:
    return item[0] in ("·", NO_VALUE), item[0]


def _legend_words(row: Row) -> dict[str, tuple[str, str]]:
    """Each mark of a row (a letter, ``·``, the dash) with its colour and the words of the
    first cell that bears it."""
    seen: dict[str, tuple[str, str]] = {}
    for cell in row.cells.values():
        seen.setdefault(_letter(cell), (_colour(cell), _plain(cell.words)))
    return seen


def _legend(row: Row) -> str:
    """The values of a row, each after its letter, in the order of the letters."""
    if _short(row):  # the cells say it all
        return ""
    items = "".join(
        f'<li><span class="jc-key {colour}">{mark}</span> {md_safe(words)}</li>'
        for mark, (colour, words) in sorted(_legend_words(row).items(), key=_letters_first)
    )
    return f'<ul class="jc-legend">{items}</ul>'


def _details(profiles: Mapping[str, Document], row: Row, above: Row | None = None) -> str:
    """Each ruleset's value as written, with the clauses citing it (the same clauses as in
    the row above are said so, not linked again: the card values' rows cite one list); in
    words where the legend's words for its letter are not already the ruleset's own."""
    legend = {} if _short(row) else _legend_words(row)
    items: list[str] = []
    for pid, document in profiles.items():
        cell = row.cells[pid]
        mark = _letter(cell)
        if mark in LETTERS and legend.get(mark, ("", ""))[1] == _plain(cell.words):
            said = mark + ("" if cell.present else ", left out (the default)")
        else:
            said = md_safe(cell.words)
        text = f"{md_safe(profile_name(document))}: {said}"
        if cell.raw and cell.raw != cell.words:
            text += f" <code>{md_safe(cell.raw)}</code>"
        if cell.clauses and above is not None and above.cells[pid].clauses == cell.clauses:
            text += " — the clauses of the row above"
        elif cell.clauses:
            text += " — " + " ".join(
                f'<a href="{profile_url(pid, c)}">{_short_id(c)}</a>' for c in cell.clauses
            )
        items.append(f'<li data-profile="{pid}">{text}</li>')
    return (
        '<details class="jc-row-details"><summary>Each ruleset, with clauses</summary>'
        f"<ul>{''.join(items)}</ul></details>"
    )


def _comparison_table(
    page: str, profiles: Mapping[str, Document], rows: Sequence[Row], differs: bool
) -> list[str]:
    """Parameters by rulesets: each cell a letter on a colour, one letter a value (the row's
    legend says which); the same letter plays the same."""
    kind = "differs" if differs else "agrees"
    columns = len(profiles)
    out = [
        f'<table class="jc-compare jc-compare--{kind}" style="--jc-columns: {columns}">',
        "<thead>",
        '<tr><th class="jc-param" scope="col">Parameter</th>',
    ]
    for pid, document in profiles.items():
        out.append(
            f'<th data-profile="{pid}" scope="col"><a href="{profile_url(pid)}">'
            f"<span>{md_safe(profile_name(document))}</span></a></th>"
        )
    out += ["</tr>", "</thead>", "<tbody>"]
    above: Row | None = None
    for row in rows:
        name = row.key[len("option:") :] if row.is_option else row.key
        row_class = "jc-row jc-row--differs" if row.differs else "jc-row"
        cells = "".join(_cell_html(row.cells[pid], _short(row)) for pid in profiles)
        # The label opens the row's key: its name, the legend, the values in words. Closed,
        # a row is one line over its cells (a phone sees the grid in a few screens); on a
        # wide screen compare.js opens every key.
        out.append(
            f'<tr class="{row_class}" id="{row_anchor(row.key)}">'
            '<th class="jc-param" scope="row"><details class="jc-row-key">'
            f'<summary><span class="jc-label">{md_safe(row.label)}</span> '
            f"<code>{md_safe(name)}</code></summary>"
            f"{_legend(row)}{_details(profiles, row, above)}</details></th>"
            f"{cells}</tr>"
        )
        above = row
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
    """The rows where profiles ``a`` and ``b`` play differently (a value left at the schema's
    default plays as the default; a moot value plays as any)."""
    return tuple(r for r in rows if r.plays_differently(a, b))


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
    """The tree as a nested list of links: the picture's text alternative."""
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
            out.append(
                f"{indent}- **[{name}]({target})**: {_count(branch)} from "
                f"{md_safe(profile_name(profiles[parent]))}" + (f": {changes}" if changes else "")
            )
        out += _tree_lines(profiles, tree, branch.profile, depth + 1)
    return out


def _count(branch: Branch) -> str:
    count = len(branch.differences)
    return f"{count} {'difference' if count == 1 else 'differences'}"


# The drawing: one line a ruleset, indented under its parent, its changes wrapped beneath.
# Drawn for a phone's width (360 px) and shown at that size on any screen.
TREE_WIDTH = 360
TREE_INDENT = 22
TREE_LINE = 17  # px between text lines (13 px text)
TREE_CHAR = 6.6  # px: a generous mean width of a character of 13 px sans-serif text
TREE_BOLD_CHAR = 7.6  # the same, for the bold names


def _wrap(text: str, width: float, char: float = TREE_CHAR) -> list[str]:
    """``text`` in lines of at most ``width`` px (estimated), broken at spaces."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}" if line else word
        if line and len(trial) * char > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


def _ordered(tree: Sequence[Branch]) -> list[tuple[Branch, int]]:
    """The branches depth first, each with its depth."""
    out: list[tuple[Branch, int]] = []

    def walk(parent: str | None, depth: int) -> None:
        for branch in tree:
            if branch.parent == parent:
                out.append((branch, depth))
                walk(branch.profile, depth + 1)

    walk(None, 0)
    return out


def tree_svg(profiles: Mapping[str, Document], tree: Sequence[Branch]) -> str:
    """The family tree drawn: each ruleset under its parent, its changes listed beneath it by
    their labels. Colours come from the theme (currentColor), so the dark scheme works."""
    marks: list[str] = []
    texts: list[str] = []
    y = 14
    node_y: dict[str, float] = {}
    for branch, depth in _ordered(tree):
        x = 8 + depth * TREE_INDENT
        node_y[branch.profile] = y
        if branch.parent is not None:  # the elbow from the parent's dot
            px = 8 + (depth - 1) * TREE_INDENT
            marks.append(
                f'<path d="M{px} {node_y[branch.parent] + 5} V{y} H{x - 5}" class="jc-tree-edge"/>'
            )
        marks.append(f'<circle cx="{x}" cy="{y}" r="5" class="jc-tree-node"/>')
        name = md_safe(profile_name(profiles[branch.profile]))
        if branch.parent is None:
            title = f"{name}: the closest to all the others"
        else:
            title = f"{name}: {_count(branch)}"
        # A deep branch's name wraps too: the drawing keeps its phone width.
        for line in _wrap(title, TREE_WIDTH - x - 12, TREE_BOLD_CHAR):
            texts.append(
                f'<text x="{x + 10}" y="{y + 4.5}" class="jc-tree-name">{md_safe(line)}</text>'
            )
            y += TREE_LINE
        changes = ", ".join(r.label for r in branch.differences)
        for line in _wrap(changes, TREE_WIDTH - x - 12):
            texts.append(
                f'<text x="{x + 10}" y="{y + 4}" class="jc-tree-change">{md_safe(line)}</text>'
            )
            y += TREE_LINE - 2
        y += 8
    height = int(y)
    return (
        f'<svg class="jc-tree-svg" xmlns="http://www.w3.org/2000/svg" width="{TREE_WIDTH}" '
        f'height="{height}" viewBox="0 0 {TREE_WIDTH} {height}" role="img" '
        'aria-labelledby="jc-tree-title"><title id="jc-tree-title">The family tree of the '
        "rulesets: each hangs under its nearest relative, with the parameters that play "
        "differently along the branch (the same tree as a list follows)</title>"
        + "".join(marks)
        + "".join(texts)
        + "</svg>"
    )


def family_tree_section(profiles: Mapping[str, Document], rows: Sequence[Row]) -> list[str]:
    tree = family_tree(list(profiles), rows)
    out = [
        "## The family tree",
        "",
        "Which ruleset differs from which, and in what. Each ruleset hangs under its nearest "
        "relative, the one it plays differently from in the fewest rows, starting from the "
        "ruleset closest to all the others; under each, the rows that play differently along "
        "its branch. A value left out of a profile plays as the schema's default and counts "
        "as that value.",
        "",
    ]
    if len(tree) < 2:
        return [*out, "There is only one ruleset.", ""]
    return [
        *out,
        f'<figure class="jc-tree">{tree_svg(profiles, tree)}</figure>',
        "",
        '<details class="jc-tree-list" markdown="1">',
        "<summary>The family tree as a list, with links</summary>",
        "",
        *_tree_lines(profiles, tree, None, 0),
        "",
        "</details>",
        "",
    ]


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
        "side by side.",
        "",
        f'<p class="jc-count"><strong>{len(differ)}</strong> of the {len(rows)} rows play '
        "differently between the rulesets; they come first. Each row is a parameter, each "
        "column a ruleset; in a row, the same letter on the same colour plays the same. A "
        "parameter's name opens its key (on a wide screen every key is open): its name in the "
        f"profiles, what each letter is (· a value another parameter makes moot, {NO_VALUE} "
        "none), and under *Each ruleset, with clauses* each ruleset's value as its profile "
        "writes it, with the clauses that rest on it. Tick the rulesets to compare: the rows "
        "where the ticked ones differ move to the first table.</p>",
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
    # folded, so that a phone sees the rows that differ in a few screens (compare.js opens
    # it on a wide screen); the chooser moves rows in and out of it
    out += (
        [
            '<details class="jc-agree">',
            f"<summary>The {len(agree)} rows where every ruleset plays the same</summary>",
            "",
            *_comparison_table(page, profiles, agree, False),
            "</details>",
            "",
        ]
        if agree
        else ["The rulesets agree on no parameter.", ""]
    )
    out += family_tree_section(profiles, rows)
    return "\n".join(out)
