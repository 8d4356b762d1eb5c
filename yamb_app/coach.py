"""The coach as people see it, for the terminal, the ``yamb review`` command and the web app.

One coach per table and coach name is built and kept (``coach_for``): the exact solver's
values load once, a search player's tables take a while to build. A review is printed as
a table of each player's points lost, a text chart of each player's expected final score
turn by turn, and the biggest losses with the better decision.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from robo_players.coach.outcomes import KeepOutcomes, keep_outcomes
from robo_players.coach.review import CLASSES, Decision, Review
from robo_players.coach.values import Coach, make_coach
from yamb.game import Game
from yamb.layout import Layout
from yamb.table import Table

MAX_COACHES = 8
MARKS = "*o+x#@%&"  # a player's mark in the chart
_coaches: OrderedDict[tuple, Coach] = OrderedDict()


def coach_for(layout: Layout, name: str | None = None) -> Coach:
    """The coach of ``layout``'s table (``make_coach``), built once and kept."""
    key = (Table.of(layout), name)
    if key not in _coaches:
        _coaches[key] = make_coach(layout, name)
        while len(_coaches) > MAX_COACHES:
            _coaches.popitem(last=False)
    _coaches.move_to_end(key)
    return _coaches[key]


def values_kind(review_or_coach: Review | Coach) -> str:
    """What the values are: ``exact`` or the coach bot's."""
    if review_or_coach.exact:
        return "exact values"
    return f"the {review_or_coach.coach if isinstance(review_or_coach, Review) else review_or_coach.name} bot's values"


def loss_text(decision: Decision) -> str:
    """One line on a decision: its class and the points it cost, and the better decision."""
    if decision.forced:
        return f"{decision.played}: the only move"
    if decision.loss < 0.005:
        return f"{decision.played}: best (expected final score {decision.best_value:.1f})"
    return (f"{decision.played}: {decision.label}, -{decision.loss:.1f} points "
            f"(better: {decision.best}, {decision.best_value:.1f} against {decision.value:.1f})")


def text_chart(review: Review, names: list[str], height: int = 10, width: int = 64) -> list[str]:
    """Each player's expected final score by turn, one mark per player, as lines of text."""
    points = [(p.player, t, v) for p in review.players for t, v in p.curve]
    if not points:
        return []
    turns = max(t for _, t, _ in points)
    low, high = min(v for *_, v in points), max(v for *_, v in points)
    span = max(high - low, 1.0)
    wide = max(1, min(4, width // turns))  # columns per turn
    step = max(1, -(-turns // width))  # turns per column
    cols = -(-turns // step) * wide
    grid = [[" "] * cols for _ in range(height)]
    for p, t, v in points:
        row = height - 1 - round((v - low) / span * (height - 1))
        grid[row][(t - 1) // step * wide] = MARKS[p % len(MARKS)]
    labels = [f"{high - i * span / (height - 1):6.0f} |" for i in range(height)]
    lines = [label + "".join(cells) for label, cells in zip(labels, grid)]
    lines.append(" " * 7 + "+" + "-" * cols)
    last = "end" if review.over else f"turn {turns}"
    lines.append(" " * 8 + f"turn 1{' ' * max(cols - 6 - len(last), 1)}{last}")
    lines.append("        " + "   ".join(f"{MARKS[i % len(MARKS)]} {name}" for i, name in enumerate(names)))
    return lines


def review_text(review: Review, names: list[str], top: int = 5) -> str:
    """The review printed: totals per player, the chart, the biggest losses."""
    state = "finished" if review.over else "not finished"
    lines = [f"Review by the coach {review.coach} ({values_kind(review)}), game {state}", ""]
    w = max(len(name) for name in names) + 2
    lines.append(f"{'player':<{w}}{'score':>6}{'lost':>8}" + "".join(f"{name:>12}" for name, _ in CLASSES))
    for p in review.players:
        lines.append(f"{names[p.player]:<{w}}{p.score:>6}{p.loss:>8.1f}"
                     + "".join(f"{p.classes[name]:>12}" for name, _ in CLASSES))
    lines += ["", "Expected final score by turn:", *text_chart(review, names), ""]
    biggest = review.biggest(top)
    lines.append("Biggest losses:" if biggest else "No decision lost points.")
    for d in biggest:
        dice = " ".join(map(str, d.dice))
        lines.append(f"  {names[d.player]}, turn {d.turn}, roll {d.roll}, dice {dice}: {loss_text(d)}")
    bounds = ", ".join(f"{name} below {bound:g}" for name, bound in CLASSES[:-1])
    lines += ["", f"Classes by points lost: {bounds}, {CLASSES[-1][0]} from {CLASSES[-2][1]:g}."]
    return "\n".join(lines)


def review_data(review: Review, names: list[str]) -> dict[str, Any]:
    """The review as JSON data, each player named."""
    data = review.to_dict()
    data["values"] = values_kind(review)
    for p in data["players"]:
        p["name"] = names[p["player"]]
    return data


def keep_chances(game: Game, faces: tuple[int, ...] | list[int]) -> KeepOutcomes:
    """The chances of the patterns of the mover's open rows after keeping ``faces`` now."""
    own = game.table()
    open_rows = [row for row in game.rows if any(column[row] is None for column in own.values())]
    return keep_outcomes(game.rules, faces, game.rolls_left, open_rows)


def chances_text(chances: KeepOutcomes) -> str:
    """The chances by the turn's last roll, in one line."""
    return ", ".join(f"{row.replace('_', ' ')} {100 * p:.1f}%" for row, p in chances.by_end.items())
