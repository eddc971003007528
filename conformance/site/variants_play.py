"""The "How the variants play" page: simulated figures per profile, and the rule texts'
own claims next to the numbers that confirm or contradict them.

The figures come from ``conformance.simulation.study`` (cached); plots are SVG files
drawn with matplotlib and written beside the page.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import io
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.simulation import study
from conformance.simulation.play import default_seats
from conformance.spec.files import write_atomic

PAGE = "play.md"
FIGURES = "play"  # folder of the SVG files, beside the page
Point = Mapping[str, Any]


# -- selecting points of the study ----------------------------------------------------


def _points(data: Mapping[str, Any], profile: str, kind: str) -> list[Point]:
    return [p for p in data["points"] if p["profile"] == profile and p["kind"] == kind]


def _limit_of(point: Point) -> int | None:
    values = list(point["options"].values())
    return int(values[0]) if values else None


def _by_limit(data: Mapping[str, Any], profile: str, policy: str) -> dict[int, Point]:
    return {
        limit: p
        for p in _points(data, profile, "limit")
        if p["policy"] == policy and (limit := _limit_of(p)) is not None
    }


def _at_seats(data: Mapping[str, Any], profile: str, seats: int) -> Point | None:
    return next((p for p in _points(data, profile, "seats") if p["seats"] == seats), None)


def _games(data: Mapping[str, Any], profile: str, policy: str) -> Point | None:
    return next((p for p in _points(data, profile, "games") if p["policy"] == policy), None)


def _num(x: float, digits: int) -> str:
    """``x`` to ``digits`` places, never "-0.0": a bound a hair below zero reads as zero."""
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _fig(e: Mapping[str, Any], digits: int = 1, percent: bool = False) -> str:
    if not e["n"]:
        return "n/a"
    scale = 100.0 if percent else 1.0
    unit = " %" if percent else ""
    return (
        f"{_num(e['value'] * scale, digits)}{unit} "
        f"({_num(e['low'] * scale, digits)} to {_num(e['high'] * scale, digits)})"
    )


def _above(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether ``a`` is above ``b`` beyond both 95 % intervals."""
    return bool(a["n"] and b["n"] and a["low"] > b["high"])


def _beaten(e: Mapping[str, Any]) -> dict[str, Any]:
    return {"value": 1 - e["value"], "low": 1 - e["high"], "high": 1 - e["low"], "n": e["n"]}


# -- the claims of the rule texts -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Claim:
    """A rule text's claim about play, in our words, and how the study tests it."""

    profile: str
    source: str  # document and section
    claim: str
    test: Callable[[Mapping[str, Any]], tuple[str, str]]  # data -> (verdict, the numbers)
    assumption: str = ""  # what the verdict assumes beyond the study, shown beside it


def _limit_lengthens(profile: str) -> Callable[[Mapping[str, Any]], tuple[str, str]]:
    def test(data: Mapping[str, Any]) -> tuple[str, str]:
        verdicts, lines = [], []
        for policy in study.POLICIES:
            points = _by_limit(data, profile, policy)
            if 5 not in points or 15 not in points:
                return "not measurable", "the profile does not offer limits of 5 and 15"
            five, fifteen = (points[k]["summary"]["turns_per_hand"] for k in (5, 15))
            verdicts.append(_above(five, fifteen))
            lines.append(
                f"{policy} play: {_fig(five)} turns a hand at a limit of 5, {_fig(fifteen)} at 15"
            )
        return (
            "holds" if all(verdicts) else "mixed" if any(verdicts) else "does not hold",
            "; ".join(lines),
        )

    return test


def _higher_limit_beaten_more(data: Mapping[str, Any]) -> tuple[str, str]:
    verdicts, lines = [], []
    for policy in study.POLICIES:
        points = _by_limit(data, "dashain", policy)
        if 5 not in points or 15 not in points:
            return "not measurable", "the profile does not offer limits of 5 and 15"
        five, fifteen = (_beaten(points[k]["summary"]["call_success"]) for k in (5, 15))
        verdicts.append(_above(fifteen, five))
        lines.append(
            f"{policy} play: {_fig(five, percent=True)} of calls beaten at a limit of 5, "
            f"{_fig(fifteen, percent=True)} at 15"
        )
    return (
        "holds" if all(verdicts) else "mixed" if any(verdicts) else "does not hold",
        "; ".join(lines),
    )


def _on_the_limit(data: Mapping[str, Any]) -> tuple[str, str]:
    heuristic = [p for p in _points(data, "dashain", "limit") if p["policy"] == "heuristic"]
    point = next((p for p in heuristic if _limit_of(p) == 10), None)
    if point is None:
        return "not measurable", "no heuristic play at the default limit"
    at = point["summary"]["at_limit_success"]
    won = point["summary"]["won_call_tally"]
    beaten = point["summary"]["beaten_call_tally"]
    on, below = _beaten(at["on"]), _beaten(at["below"])
    riskier = _above(on, below)
    dearer = _above(beaten, won)
    verdict = "holds" if riskier and dearer else "mixed" if riskier or dearer else "does not hold"
    return verdict, (
        f"heuristic play at the limit of 10: {_fig(on, percent=True)} of calls worth exactly "
        f"{at['limit']} are beaten against {_fig(below, percent=True)} of lower calls; a beaten "
        f"call takes {_fig(beaten)} points off the caller's tally, a won call adds {_fig(won)}"
    )


def _six_seats(data: Mapping[str, Any]) -> tuple[str, str]:
    rows = {p["seats"]: p["summary"] for p in _points(data, "dhumbal", "seats")}
    if 6 not in rows or not all(n in rows for n in (3, 4, 5)):
        return "not measurable", "no play at three to six seats"
    six = rows[6]["turns_per_hand"]
    longer = all(_above(six, rows[n]["turns_per_hand"]) for n in (3, 4, 5))
    per_player = ", ".join(f"{n} seats {_fig(rows[n]['turns_per_player'])}" for n in (3, 4, 5, 6))
    slower = all(
        _above(rows[6]["turns_per_player"], rows[n]["turns_per_player"]) for n in (3, 4, 5)
    )
    verdict = "holds" if longer and slower else "mixed" if longer else "does not hold"
    return verdict, (
        f"heuristic play: {_fig(six)} turns a hand at six seats against "
        + ", ".join(f"{_fig(rows[n]['turns_per_hand'])} at {n}" for n in (3, 4, 5))
        + f". Turns each player takes in a hand: {per_player}"
        + (
            ": hands take more turns at six only because there are more players, not because "
            "each player needs more turns to get low"
            if longer and not slower
            else ""
        )
    )


PACE_SECONDS = (2, 5)  # seconds a turn: our assumption, the text gives no pace
PACE = f"assuming {PACE_SECONDS[0]} to {PACE_SECONDS[1]} seconds a turn"


def _ten_minutes(data: Mapping[str, Any]) -> tuple[str, str]:
    games = _games(data, "dhumbal", "heuristic")
    if games is None or not games["summary"]["turns_per_game"]["n"]:
        return "not measurable", "no whole games played"
    turns = games["summary"]["turns_per_game"]
    fast, slow = (turns["value"] * pace / 60 for pace in PACE_SECONDS)
    verdict = "holds" if fast <= 15 and slow >= 5 else "does not hold"
    return verdict, (
        f"heuristic play at four seats: a game lasts {_fig(turns, 0)} turns; at "
        f"{PACE_SECONDS[0]} seconds a turn that is {fast:.0f} minutes, at {PACE_SECONDS[1]} "
        f"seconds {slow:.0f} (the text gives no pace; these two are our assumptions)"
    )


CLAIMS: tuple[Claim, ...] = (
    Claim(
        "dashain",
        "000_84102c1e16d7688e.txt, Host settings",
        "A lower call limit makes hands last longer.",
        _limit_lengthens("dashain"),
    ),
    Claim(
        "dashain",
        "000_84102c1e16d7688e.txt, Host settings",
        "A higher call limit lets players call earlier, and a call is then more often beaten.",
        _higher_limit_beaten_more,
    ),
    Claim(
        "dashain",
        "000_84102c1e16d7688e.txt, Tips",
        "A call made right on the limit is risky, and a beaten call costs much more than a won "
        "call gains.",
        _on_the_limit,
    ),
    Claim(
        "dhumbal",
        "003_c84aed572b47ad5a.txt, Show at 5 or at 15",
        "A show limit of 5 makes for longer rounds, and 15 for quick ones.",
        _limit_lengthens("dhumbal"),
    ),
    Claim(
        "dhumbal",
        "003_c84aed572b47ad5a.txt, Dhumbal questions",
        "With six players rounds take longer, because more low cards are held in hands.",
        _six_seats,
    ),
    Claim(
        "dhumbal",
        "003_c84aed572b47ad5a.txt, page header",
        "A game takes about ten minutes.",
        _ten_minutes,
        PACE,
    ),
)


VERDICT_STYLE = {
    "holds": "success",
    "mixed": "warning",
    "does not hold": "failure",
    "not measurable": "note",
}


# -- plots ----------------------------------------------------------------------------


def _pyplot() -> Any:
    # lazy: optional dependency
    import matplotlib

    matplotlib.use("svg")
    matplotlib.rcParams.update(
        {
            "svg.fonttype": "none",  # text stays text: smaller files that search and zoom
            "svg.hashsalt": "jhyap",  # the same data draws the same file
            "font.size": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    # lazy: optional dependency
    import matplotlib.pyplot as plt

    return plt


COLOURS = {"heuristic": "#1f5fa8", "random": "#b8460b"}


def _errorbar(ax: Any, xs: Sequence[float], es: Sequence[Mapping[str, Any]], **kw: Any) -> None:
    ys = [e["value"] for e in es]
    # max(): rounding can put a share of 1 a hair above the top of its interval
    low = [max(0.0, e["value"] - e["low"]) for e in es]
    high = [max(0.0, e["high"] - e["value"]) for e in es]
    ax.errorbar(xs, ys, yerr=[low, high], capsize=3, marker="o", **kw)


def _svg(fig: Any) -> str:
    out = io.StringIO()
    fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    _pyplot().close(fig)
    return out.getvalue()


def _integer_ticks(axis: Any) -> None:
    """Ticks at whole numbers only, on an axis of whole numbers."""
    # lazy: optional dependency
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def all_variants_figure(
    data: Mapping[str, Any], profiles: Mapping[str, Mapping[str, Any]]
) -> str | None:
    """Every variant on shared axes, under its default options: turns per hand and calls
    that win, one row a variant, both kinds of player, with 95 % intervals."""
    rows: list[tuple[str, dict[str, Point]]] = []
    for pid in sorted(profiles):
        found = {p: _default_point(data, pid, p, profiles[pid]) for p in study.POLICIES}
        points = {p: point for p, point in found.items() if point is not None}
        if len(points) == len(found):
            rows.append((pid, points))
    if len(rows) < 2:
        return None
    plt = _pyplot()
    fig, (turns, wins) = plt.subplots(
        1, 2, figsize=(4.8, 0.42 * len(rows) + 1.2), sharey=True, layout="constrained"
    )
    ys = list(range(len(rows)))[::-1]
    for offset, policy in ((0.15, "heuristic"), (-0.15, "random")):
        kw = {"color": COLOURS[policy], "linestyle": "none", "label": f"{policy} play"}
        for ax, key, scale in ((turns, "turns_per_hand", 1.0), (wins, "call_success", 100.0)):
            es = [points[policy]["summary"][key] for _, points in rows]
            xs = [e["value"] * scale for e in es]
            low = [max(0.0, (e["value"] - e["low"]) * scale) for e in es]
            high = [max(0.0, (e["high"] - e["value"]) * scale) for e in es]
            ax.errorbar(xs, [y + offset for y in ys], xerr=[low, high], capsize=2, marker="o", **kw)
    turns.set(xlabel="turns per hand", yticks=ys)
    turns.set_yticklabels([str(profiles[pid].get("name", pid)) for pid, _ in rows], fontsize=8)
    wins.set(xlabel="calls that win (%)")
    handles, labels = wins.get_legend_handles_labels()
    # above both panels: inside one it would cover points
    fig.legend(handles, labels, frameon=False, fontsize=8, loc="outside upper center", ncols=2)
    return _svg(fig)


PANEL_SIZE = (4.2, 3.0)  # inches: one panel, shown one a row on a phone, two on a desktop


def _panel() -> tuple[Any, Any]:
    fig, ax = _pyplot().subplots(figsize=PANEL_SIZE)
    return fig, ax


def limit_figures(data: Mapping[str, Any], profile: str) -> dict[str, str] | None:
    """Hand length and beaten calls against the call limit: two panels, two files."""
    series = {policy: _by_limit(data, profile, policy) for policy in study.POLICIES}
    if not all(len(points) >= 2 for points in series.values()):
        return None
    (turns_fig, turns), (beaten_fig, beaten_ax) = _panel(), _panel()
    for policy, points in series.items():
        limits = sorted(points)
        kw = {"color": COLOURS[policy], "label": f"{policy} play"}
        _errorbar(turns, limits, [points[k]["summary"]["turns_per_hand"] for k in limits], **kw)
        beaten = [_beaten(points[k]["summary"]["call_success"]) for k in limits]
        _errorbar(
            beaten_ax,
            limits,
            [
                {**b, "value": b["value"] * 100, "low": b["low"] * 100, "high": b["high"] * 100}
                for b in beaten
            ],
            **kw,
        )
    turns.set(xlabel="call limit", ylabel="turns per hand", xticks=sorted(series["heuristic"]))
    beaten_ax.set(
        xlabel="call limit", ylabel="calls beaten (%)", xticks=sorted(series["heuristic"])
    )
    turns.legend(frameon=False)
    beaten_ax.legend(frameon=False)
    return {"limit-turns": _svg(turns_fig), "limit-beaten": _svg(beaten_fig)}


def seats_figures(data: Mapping[str, Any], profile: str) -> dict[str, str] | None:
    """Hand length against the number of players, in turns and turns a player: two files."""
    points = sorted(_points(data, profile, "seats"), key=lambda p: p["seats"])
    if len(points) < 2:
        return None
    (turns_fig, turns), (each_fig, each) = _panel(), _panel()
    seats = [p["seats"] for p in points]
    colour = COLOURS["heuristic"]
    _errorbar(turns, seats, [p["summary"]["turns_per_hand"] for p in points], color=colour)
    _errorbar(each, seats, [p["summary"]["turns_per_player"] for p in points], color=colour)
    turns.set(xlabel="players", ylabel="turns per hand", xticks=seats)
    each.set(xlabel="players", ylabel="turns per player per hand", xticks=seats)
    return {"seats-turns": _svg(turns_fig), "seats-each": _svg(each_fig)}


def success_figure(data: Mapping[str, Any], profile: str, seats: int) -> str | None:
    point = _at_seats(data, profile, seats)
    if point is None:
        return None
    rows = sorted(
        (int(v), e) for v, e in point["summary"]["success_by_value"].items() if e["n"] >= 10
    )
    if not rows:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=PANEL_SIZE)
    _errorbar(
        ax,
        [v for v, _ in rows],
        [{k: (x * 100 if k != "n" else x) for k, x in e.items()} for _, e in rows],
        color=COLOURS["heuristic"],
    )
    ax.set(xlabel="caller's hand value", ylabel="calls that win (%)", ylim=(0, 105))
    _integer_ticks(ax.xaxis)  # hand values are whole numbers
    return _svg(fig)


def position_figure(data: Mapping[str, Any], profile: str) -> str | None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=PANEL_SIZE)
    drawn = False
    for offset, policy in ((-0.15, "heuristic"), (0.15, "random")):
        point = _games(data, profile, policy) or next(
            (p for p in _points(data, profile, "limit") if p["policy"] == policy), None
        )
        if point is None:
            continue
        shares = point["summary"]["win_by_position"]
        xs = [i + offset for i in range(len(shares))]
        pct = [{k: (x * 100 if k != "n" else x) for k, x in e.items()} for e in shares]
        _errorbar(ax, xs, pct, color=COLOURS[policy], linestyle="none", label=f"{policy} play")
        drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.set(xlabel="position in the turn order (0 = starter)", ylabel="hands won (%)")
    _integer_ticks(ax.xaxis)
    ax.legend(frameon=False)
    return _svg(fig)


# -- the page -------------------------------------------------------------------------


def _figure_md(path: str, alt: str) -> str:
    return f"![{alt}]({path}){{ loading=lazy }}"


def _single(name: str, svg: str | None) -> dict[str, str] | None:
    return {name: svg} if svg is not None else None


def _figure_row(
    pid: str, panels: Mapping[str, str], caption: str, files: dict[str, str]
) -> list[str]:
    """One figure: its panels side by side where the page is wide, one a row on a phone
    (``jc-figures`` in extra.css), each panel its own SVG file, then the caption."""
    out = ['<div class="jc-figures" markdown="1">', ""]
    for name, svg in panels.items():
        path = f"{FIGURES}/{pid}-{name}.svg"
        files[path] = svg
        alt = caption if len(panels) == 1 else f"{caption} Panel: {name.replace('-', ' ')}."
        out += [_figure_md(path, alt), ""]
    return [*out, "</div>", "", f"*{caption}*", ""]


def generate(profiles: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The page and its SVG files, by path under docs/; drawn once for the same profiles,
    study and code, then taken from the user cache (drawing them takes most of a build)."""
    data = study.load_study(profiles)
    cache = _cache_file(profiles, data)
    try:
        cached = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cached = None
    if isinstance(cached, dict) and all(isinstance(v, str) for v in cached.values()):
        return cached
    files = _draw(profiles, data)

    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(cache, json.dumps(files, sort_keys=True))
        _forget_old_pages()
    except OSError:  # an unwritable cache only costs the next build the same time again
        pass
    return files


def _cache_file(profiles: Mapping[str, Mapping[str, Any]], data: Mapping[str, Any]) -> Path:
    """Where the page drawn from ``profiles`` and ``data`` is cached: the key covers them,
    the code that writes the page (this file, the study's) and the matplotlib version."""
    digest = hashlib.sha256(study.code_version().encode())
    for source in (Path(__file__), Path(study.__file__)):
        digest.update(source.read_bytes())
    digest.update(importlib.metadata.version("matplotlib").encode())
    # the points in any order: the study lists them in the order the profiles came in
    points = sorted(json.dumps(p, sort_keys=True, default=str) for p in data.get("points", []))
    rest = {k: v for k, v in data.items() if k != "points"}
    digest.update(json.dumps([profiles, rest, points], sort_keys=True, default=str).encode())
    return _cache_dir() / f"{digest.hexdigest()[:20]}.json"


CACHED_PAGES = 8  # the newest pages kept in the cache (checkouts, branches)


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "jhyap" / "variants-page"


def _forget_old_pages() -> None:
    cached = sorted(_cache_dir().glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in cached[CACHED_PAGES:]:
        old.unlink(missing_ok=True)


def _draw(profiles: Mapping[str, Mapping[str, Any]], data: Mapping[str, Any]) -> dict[str, str]:
    files: dict[str, str] = {}
    lines = [
        "# How the variants play",
        "",
        "What does a rule do to the game? These figures come from games played through the "
        "reference engine by two kinds of player: a **heuristic** one, which sheds its "
        "highest cards, keeps what the card on offer would complete, takes low cards and "
        "calls when it estimates it is probably lowest, and a **random** one, which plays any "
        "legal move. Neither sees another player's hand. Every figure is a mean or a share "
        "with its 95 % confidence interval; hands of one game are counted as independent, "
        "which makes the intervals a little too narrow. The same figures come from "
        "`jhyap simulate` (seed and settings below), so anyone can repeat them.",
        "",
        f"Study seed `{data['seed']}`; {study.HANDS_PER_POINT} hands for each point of a "
        f"hand figure (games of at most {study.HAND_CAP} hands), {study.GAMES_PER_POLICY} "
        "whole games for each game figure.",
        "",
        "## What the rule texts say, measured",
        "",
    ]
    for claim in CLAIMS:
        if claim.profile not in profiles:
            continue
        verdict, numbers = claim.test(data)
        shown = f"{verdict}, {claim.assumption}" if claim.assumption else verdict
        lines += [
            f'!!! {VERDICT_STYLE[verdict]} "{shown}: {claim.claim}"',
            f"    Source: {claim.source} ([{claim.profile}](profiles/{claim.profile}.md)).",
            "",
            f"    {numbers}.",
            "",
        ]
    lines += [
        "",
        "A verdict *holds* when the difference the text describes is larger than both "
        "confidence intervals under both kinds of player; *mixed* when it is so for only "
        "one kind of player or one part of the claim.",
        "",
    ]
    every = all_variants_figure(data, profiles)
    if every is not None:
        lines += ["## All the variants together", ""]
        lines += _figure_row(
            "all",
            {"variants": every},
            "Every variant on the same axes, under its default options: turns per hand (left) "
            "and calls that win (right), heuristic and random play, with 95 % intervals; the "
            "table below gives the figures.",
            files,
        )
        lines += _all_table(data, profiles)
    for pid in sorted(profiles):
        document = profiles[pid]
        lines += [f"## {document.get('name', pid)}", ""]
        seats = default_seats(document)
        rows: list[tuple[dict[str, str] | None, str]] = [
            (
                limit_figures(data, pid),
                f"Hand length (left) and beaten calls (right) against the call limit, "
                f"{seats} players.",
            ),
            (
                seats_figures(data, pid),
                "Hand length against the number of players (heuristic play), in turns (left) "
                "and in turns each player takes (right).",
            ),
            (
                _single("success", success_figure(data, pid, seats)),
                f"Calls that win, by the caller's hand value (heuristic play, {seats} players).",
            ),
            (
                _single("positions", position_figure(data, pid)),
                f"Hands won by position in the turn order, {seats} players.",
            ),
        ]
        for panels, caption in rows:
            if not panels:
                continue
            lines += _figure_row(pid, panels, caption, files)
        lines += _table(data, pid, document)
    files[PAGE] = "\n".join(lines) + "\n"
    return files


def _all_table(data: Mapping[str, Any], profiles: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The shared-axes figure's points as a table: its text alternative."""
    out = [
        '<details markdown="1"><summary>The figure as a table</summary>',
        "",
        "| variant | turns per hand, heuristic | random | calls that win, heuristic | random |",
        "|---|---|---|---|---|",
    ]
    for pid in sorted(profiles):
        points = [_default_point(data, pid, p, profiles[pid]) for p in study.POLICIES]
        if not all(points):
            continue
        cells = [_fig(p["summary"]["turns_per_hand"]) for p in points if p]
        cells += [_fig(p["summary"]["call_success"], 1, True) for p in points if p]
        out.append(f"| {profiles[pid].get('name', pid)} | " + " | ".join(cells) + " |")
    return [*out, "", "</details>", ""]


def _default_point(
    data: Mapping[str, Any], pid: str, policy: str, document: Mapping[str, Any]
) -> Point | None:
    """Whole games if the profile's games end, else hands, under the default options."""
    games = _games(data, pid, policy)
    if games is not None:
        return games
    option = study.call_limit_option(document)
    default = None
    if option is not None:
        default = next(
            (o["default"] for o in document.get("options") or [] if o["name"] == option[0]),
            None,
        )
    limits = [p for p in _points(data, pid, "limit") if p["policy"] == policy]
    return next((p for p in limits if _limit_of(p) == default), limits[0] if limits else None)


def _table(data: Mapping[str, Any], pid: str, document: Mapping[str, Any]) -> list[str]:
    rows = [
        ("turns_per_hand", "turns per hand", False),
        ("hands_per_game", "hands per game", False),
        ("turns_per_game", "turns per game", False),
        ("reshuffles_per_hand", "reshuffles per hand", False),
        ("call_success", "calls that win", True),
        ("won_call_tally", "a won call: the caller's score changes by", False),
        ("beaten_call_tally", "a beaten call: the caller's score loses", False),
        ("won_call_swing", "a won call: the caller gains on the average other player", False),
        ("beaten_call_swing", "a beaten call: the caller loses on the average other player", False),
    ]
    points = {p: _default_point(data, pid, p, document) for p in study.POLICIES}
    if not all(points.values()):
        return []
    out = [
        "| under the default options | heuristic play | random play |",
        "|---|---|---|",
    ]
    for key, label, percent in rows:
        cells = [_fig(point["summary"][key], 1, percent) for point in points.values() if point]
        if all(c == "n/a" for c in cells):
            continue
        out.append(f"| {label} | {cells[0]} | {cells[1]} |")
    return [*out, ""]
